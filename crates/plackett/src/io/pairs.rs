//! Pairwise counts: one CSV row per pair of items with the number of wins
//! each way and, optionally, ties (Davidson 1970's pudding layout:
//! `brand_i,brand_j,n_compared,i_wins,j_wins,ties`).
//!
//! Columns: the two items are the first two columns (or `--item-cols A,B`);
//! counts are `i_wins`, `j_wins` and optional `ties`; an optional
//! `n_compared` must equal their sum. Each count becomes a weighted
//! observation: `i ≻ j`, `j ≻ i`, and a tied group `{i, j}` (read per
//! `--ties`; under unknown order a tie of two carries no information and is
//! dropped).

use super::{ReadOptions, initial_items};
use crate::data::{Dataset, DatasetBuilder, Tail};
use crate::error::{Error, Result};

/// Parse pairwise counts.
pub fn read(name: &str, text: &str, opts: &ReadOptions) -> Result<Dataset> {
    let (mut rdr, headers) = super::csv_with_headers(name, text)?;
    if headers.len() < 4 {
        return Err(Error::input(
            name,
            Some(1),
            "expected columns: item, item, i_wins, j_wins[, ties]",
        ));
    }
    let col = |want: &str| headers.iter().position(|h| h == want);
    let (ci, cj) = match &opts.item_cols {
        Some((a, b)) => (
            col(a).ok_or_else(|| {
                Error::input(
                    name,
                    Some(1),
                    format!("no column named {a:?} (`item_cols`)"),
                )
            })?,
            col(b).ok_or_else(|| {
                Error::input(
                    name,
                    Some(1),
                    format!("no column named {b:?} (`item_cols`)"),
                )
            })?,
        ),
        None => (0, 1),
    };
    let cw =
        col("i_wins").ok_or_else(|| Error::input(name, Some(1), "no column named \"i_wins\""))?;
    let cl =
        col("j_wins").ok_or_else(|| Error::input(name, Some(1), "no column named \"j_wins\""))?;
    let ct = col("ties");
    let cn = col("n_compared");
    let (items, closed) = initial_items(opts);
    let mut b = DatasetBuilder::new(items, opts.ties);
    let mut rec = csv::StringRecord::new();
    let mut any = false;
    while let Some(line) = crate::io::next_record(&mut rdr, &mut rec, name)? {
        let mut id = |c: usize| -> Result<u32> {
            let s = rec.get(c).unwrap_or("");
            if s.is_empty() {
                return Err(Error::input(
                    name,
                    Some(line),
                    format!("empty {} field", headers[c]),
                ));
            }
            match b.items().get(s) {
                Some(i) => Ok(i),
                None if closed => Err(Error::input(
                    name,
                    Some(line),
                    opts.outside_universe(&format!("item {s:?}"), b.items().len()),
                )),
                None => Ok(b.items_mut().intern(s)),
            }
        };
        let (i, j) = (id(ci)?, id(cj)?);
        if i == j {
            return Err(Error::input(
                name,
                Some(line),
                "an item is compared with itself",
            ));
        }
        let count = |c: usize| -> Result<f64> {
            let s = rec.get(c).unwrap_or("");
            let v: f64 = s.parse().map_err(|_| {
                Error::input(
                    name,
                    Some(line),
                    format!("{} {s:?} is not a number", headers[c]),
                )
            })?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::input(
                    name,
                    Some(line),
                    format!("{} must be a non-negative count", headers[c]),
                ));
            }
            Ok(v)
        };
        let (w, l) = (count(cw)?, count(cl)?);
        let t = match ct {
            Some(c) => count(c)?,
            None => 0.0,
        };
        if let Some(c) = cn {
            let n = count(c)?;
            if (n - (w + l + t)).abs() > 1e-9 {
                return Err(Error::input(
                    name,
                    Some(line),
                    format!(
                        "n_compared {n} differs from i_wins + j_wins + ties = {}",
                        w + l + t
                    ),
                ));
            }
        }
        let push = |b: &mut DatasetBuilder, g: Vec<Vec<u32>>, wt: f64| -> Result<()> {
            if wt > 0.0 {
                b.push(&g, Tail::None, &[], wt)
                    .map_err(|m| Error::input(name, Some(line), m))?;
            }
            Ok(())
        };
        push(&mut b, vec![vec![i], vec![j]], w)?;
        push(&mut b, vec![vec![j], vec![i]], l)?;
        push(&mut b, vec![vec![i, j]], t)?;
        any = true;
    }
    if !any {
        return Err(Error::input(name, None, "no data rows"));
    }
    Ok(b.finish())
}
