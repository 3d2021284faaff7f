//! The item-features CSV (`--features`): one row per item, the first
//! column naming it, the others numeric; read into
//! [`Features`] (Guo et al. 2019 §4).

use crate::data::features::{Features, check_rank};
use crate::data::items::Items;
use crate::error::{Error, Result};
use nalgebra::DMatrix;

/// Read a features CSV for the items of `items`. `standardize` centres and
/// scales the columns (over the dataset's items). Collinear columns, or more
/// columns than items − 1, are refused: the maximum-likelihood coefficients
/// would not be identifiable (see [`read_features_with_prior`]).
pub fn read_features(path: &str, text: &str, items: &Items, standardize: bool) -> Result<Features> {
    read_features_opts(path, text, items, standardize, true)
}

/// As [`read_features`], for fits with a proper prior on β (MAP, VB): rank
/// deficiency is allowed (the prior identifies the unseen directions) and
/// counted in [`Features::rank_deficit`]. Constant columns are still refused.
pub fn read_features_with_prior(
    path: &str,
    text: &str,
    items: &Items,
    standardize: bool,
) -> Result<Features> {
    read_features_opts(path, text, items, standardize, false)
}

fn read_features_opts(
    path: &str,
    text: &str,
    items: &Items,
    standardize: bool,
    full_rank: bool,
) -> Result<Features> {
    let (mut rdr, headers) = super::csv_with_headers(path, text)?;
    if headers.len() < 2 {
        return Err(Error::input(
            path,
            Some(1),
            "expected an item column and at least one feature column",
        ));
    }
    let names: Vec<String> = headers[1..].to_vec();
    let d = names.len();
    if let Some(dup) = names
        .iter()
        .enumerate()
        .find(|(k, n)| names[..*k].contains(n))
    {
        return Err(Error::input(
            path,
            Some(1),
            format!("duplicate feature column {:?}", dup.1),
        ));
    }
    let n = items.len();
    let mut rows: Vec<Option<Vec<f64>>> = vec![None; n];
    let mut extra = Vec::new();
    let mut rec = csv::StringRecord::new();
    while let Some(line) = super::next_record(&mut rdr, &mut rec, path)? {
        let item = rec.get(0).unwrap_or("");
        if item.is_empty() {
            return Err(Error::input(path, Some(line), "empty item name"));
        }
        let mut vals = Vec::with_capacity(d);
        for (j, name) in names.iter().enumerate() {
            let s = rec.get(j + 1).unwrap_or("");
            let v = super::finite_feature(
                path,
                line,
                s,
                &format!("feature {name:?} of item {item:?}"),
            )?;
            vals.push(v);
        }
        match items.get(item) {
            Some(i) => {
                if rows[i as usize].is_some() {
                    return Err(Error::input(
                        path,
                        Some(line),
                        format!("item {item:?} has two feature rows"),
                    ));
                }
                rows[i as usize] = Some(vals);
            }
            None => {
                if extra.iter().any(|(n, _): &(String, Vec<f64>)| n == item) {
                    return Err(Error::input(
                        path,
                        Some(line),
                        format!("item {item:?} has two feature rows"),
                    ));
                }
                extra.push((item.to_string(), vals));
            }
        }
    }
    let missing: Vec<&str> = (0..n)
        .filter(|&i| rows[i].is_none())
        .map(|i| items.name(i as u32))
        .collect();
    if !missing.is_empty() {
        return Err(Error::input(
            path,
            None,
            format!(
                "no features for {} item(s) of the data: {}",
                missing.len(),
                missing
                    .iter()
                    .take(10)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let mut x = DMatrix::from_fn(n, d, |i, j| rows[i].as_ref().expect("checked")[j]);
    // Identifiability: no constant column, no collinearity (after centring,
    // since a constant shift of log-worths is invisible to PL).
    let mut centre = vec![0.0; d];
    let mut scale = vec![1.0; d];
    for j in 0..d {
        let col = x.column(j);
        let mean = col.iter().sum::<f64>() / n as f64;
        let sd = (col.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n as f64 - 1.0).max(1.0))
            .sqrt();
        if sd.is_nan() || sd <= 1e-12 * (1.0 + mean.abs()) {
            return Err(Error::input(
                path,
                None,
                format!(
                    "feature {:?} is constant across the items; PL log-worths are only defined up to a constant, \
                     so a constant feature (or an intercept) is not identifiable — drop it",
                    names[j]
                ),
            ));
        }
        if standardize {
            centre[j] = mean;
            scale[j] = sd;
        }
    }
    if standardize {
        for i in 0..n {
            for j in 0..d {
                x[(i, j)] = (x[(i, j)] - centre[j]) / scale[j];
            }
        }
    }
    let rank_deficit = check_rank(&x, &names, path, full_rank)?;
    Ok(Features {
        names,
        x,
        centre,
        scale,
        extra,
        rank_deficit,
    })
}
