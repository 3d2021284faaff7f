//! Item features for PL regression (`log λ_i = x_iᵀβ`, Guo et al. 2019 §4).
//!
//! The features CSV has one row per item: the first column names the item
//! (header `item`, or any first column), the others are numeric features.
//! Every item of the dataset needs a row; extra rows describe items that
//! were never compared (they can still be predicted).
//!
//! PL is invariant to adding a constant to every log-worth, so an intercept
//! (or any feature constant across the compared items) is not identifiable
//! and is refused; collinear features are refused too, with the columns
//! named. Standardisation centres and scales each column; coefficients are
//! always reported on the original scale (centring does not change any
//! log-worth difference, scaling divides each coefficient by its column's
//! sd).

use super::items::Items;
use crate::error::{Error, Result};
use crate::numerics::linalg;
use nalgebra::DMatrix;

/// Feature matrix aligned with an item universe.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Features {
    /// Feature names.
    pub names: Vec<String>,
    /// `n_items × d`, row i = item i of the dataset (standardised if asked).
    pub x: DMatrix<f64>,
    /// Per-column centre subtracted (0 if not standardised).
    pub centre: Vec<f64>,
    /// Per-column scale divided by (1 if not standardised).
    pub scale: Vec<f64>,
    /// Rows for items that are not in the dataset: (name, raw features).
    pub extra: Vec<(String, Vec<f64>)>,
    /// Directions of β the data cannot see (collinear columns, or more
    /// columns than items − 1); 0 when every coefficient is identifiable.
    /// Only a prior (MAP, VB) pins those directions down.
    pub rank_deficit: usize,
}

impl Features {
    /// Number of features.
    pub fn d(&self) -> usize {
        self.names.len()
    }

    /// Coefficients on the original scale from coefficients on the working
    /// scale: `β_orig = β / scale`.
    pub fn to_original(&self, beta: &[f64]) -> Vec<f64> {
        beta.iter().zip(&self.scale).map(|(b, s)| b / s).collect()
    }

    /// Covariance on the original scale.
    pub fn cov_to_original(&self, cov: &DMatrix<f64>) -> DMatrix<f64> {
        let d = self.d();
        DMatrix::from_fn(d, d, |i, j| cov[(i, j)] / (self.scale[i] * self.scale[j]))
    }

    /// Working-scale row for raw features.
    pub fn transform(&self, raw: &[f64]) -> Vec<f64> {
        raw.iter()
            .enumerate()
            .map(|(j, v)| (v - self.centre[j]) / self.scale[j])
            .collect()
    }
}

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
    let (mut rdr, headers) = crate::io::csv_with_headers(path, text)?;
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
    while let Some(line) = crate::io::next_record(&mut rdr, &mut rec, path)? {
        let item = rec.get(0).unwrap_or("");
        if item.is_empty() {
            return Err(Error::input(path, Some(line), "empty item name"));
        }
        let mut vals = Vec::with_capacity(d);
        for (j, name) in names.iter().enumerate() {
            let s = rec.get(j + 1).unwrap_or("");
            let v = crate::io::finite_feature(
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

/// Refuse collinear features: the centred Gram matrix must be well
/// conditioned; otherwise name a set of columns that are (nearly) linearly
/// dependent.
fn check_rank(x: &DMatrix<f64>, names: &[String], path: &str, strict: bool) -> Result<usize> {
    let (n, d) = x.shape();
    if d >= n && strict {
        return Err(Error::input(
            path,
            None,
            format!(
                "{d} features for {n} items: at most {} features are identifiable (log-worths are defined up to a constant)",
                n.saturating_sub(1)
            ),
        ));
    }
    let mut c = x.clone();
    for j in 0..d {
        let m = c.column(j).mean();
        let sd = (c.column(j).iter().map(|v| (v - m).powi(2)).sum::<f64>()).sqrt();
        for i in 0..n {
            c[(i, j)] = (c[(i, j)] - m) / sd;
        }
    }
    let g = c.transpose() * &c;
    let eig = linalg::symmetric_eigen(&g).ok_or_else(|| {
        Error::Numerical("eigendecomposition of the feature Gram matrix failed".into())
    })?;
    if !strict {
        let top = eig.eigenvalues.iter().copied().fold(0.0f64, f64::max);
        return Ok(eig
            .eigenvalues
            .iter()
            .filter(|&&l| l < 1e-10 * top.max(1.0))
            .count());
    }
    let (kmin, &lmin) = eig
        .eigenvalues
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .expect("d ≥ 1");
    if lmin < 1e-10 {
        let v = eig.eigenvectors.column(kmin);
        let mut involved: Vec<(usize, f64)> = (0..d)
            .map(|j| (j, v[j].abs()))
            .filter(|x| x.1 > 1e-3)
            .collect();
        involved.sort_by(|a, b| b.1.total_cmp(&a.1));
        let cols: Vec<&str> = involved.iter().map(|(j, _)| names[*j].as_str()).collect();
        return Err(Error::input(
            path,
            None,
            format!(
                "features are collinear (after centring): {}; drop one of them",
                cols.join(", ")
            ),
        ));
    }
    Ok(0)
}
