//! Orderings in wide form: one CSV row per ranking, column `k` holding the
//! item placed at rank `k` (PLMIX's `Rank_1 … Rank_K` layout, Mollica &
//! Tardella 2017). An empty field or `0` means "not ranked": the row is a
//! partial ordering, read as a top-k list of the universe with `top_k`
//! (PLMIX's reading) or as a sub-ranking of the listed items without it.
//!
//! Items are named by the field values. When every value in the file is an
//! integer in `1..=K` (K rank columns), the items are `"1"…"K"` in numeric
//! order, so that unranked ids still belong to the universe; otherwise they
//! are interned in order of first appearance (or taken from `items`). An
//! optional column named like `weight_col` weights the row.

use super::{ReadOptions, initial_items};
use crate::data::{Dataset, DatasetBuilder, Items, Tail};
use crate::error::{Error, Result};

/// Parse a wide orderings CSV.
pub fn read(name: &str, text: &str, opts: &ReadOptions) -> Result<Dataset> {
    let (mut rdr, headers) = super::csv_with_headers(name, text)?;
    let wcol = headers.iter().position(|h| *h == opts.weight_col);
    let rank_cols: Vec<usize> = (0..headers.len()).filter(|&c| Some(c) != wcol).collect();
    if rank_cols.is_empty() {
        return Err(Error::input(
            name,
            Some(1),
            "expected at least one rank column",
        ));
    }
    let k = rank_cols.len();
    // First pass: the rows as strings, with their lines.
    let mut rows: Vec<(usize, Vec<String>, f64)> = Vec::new();
    let mut rec = csv::StringRecord::new();
    let mut numeric = true;
    while let Some(line) = crate::io::next_record(&mut rdr, &mut rec, name)? {
        if rec.len() != headers.len() {
            return Err(Error::input(
                name,
                Some(line),
                format!("expected {} fields, found {}", headers.len(), rec.len()),
            ));
        }
        let weight = match wcol {
            None => 1.0,
            Some(c) => {
                let s = rec.get(c).unwrap_or("");
                match s.parse::<f64>() {
                    Ok(w) if w.is_finite() && w > 0.0 => w,
                    _ => {
                        return Err(Error::input(
                            name,
                            Some(line),
                            format!("weight {s:?} is not a positive number"),
                        ));
                    }
                }
            }
        };
        let mut order = Vec::new();
        let mut ended = false;
        for &c in &rank_cols {
            let s = rec.get(c).unwrap_or("").trim();
            if s.is_empty() || s == "0" {
                ended = true;
                continue;
            }
            if ended {
                return Err(Error::input(
                    name,
                    Some(line),
                    format!(
                        "column {:?} ranks {s:?} after an unranked position; list ranked items first",
                        headers[c]
                    ),
                ));
            }
            if numeric && !matches!(s.parse::<usize>(), Ok(v) if (1..=k).contains(&v)) {
                numeric = false;
            }
            order.push(s.to_string());
        }
        rows.push((line, order, weight));
    }
    if rows.is_empty() {
        return Err(Error::input(name, None, "no orderings in the file"));
    }
    let (mut items, closed) = initial_items(opts);
    if !closed && numeric {
        items = Items::from_names(&(1..=k).map(|i| i.to_string()).collect::<Vec<_>>())
            .expect("distinct numbers");
    }
    let closed = closed || numeric;
    let tail = if opts.top_k {
        Tail::Universe
    } else {
        Tail::None
    };
    let mut b = DatasetBuilder::new(items, opts.ties);
    let mut ids: Vec<[u32; 1]> = Vec::new();
    for (line, order, weight) in rows {
        ids.clear();
        for s in &order {
            let id = match b.items().get(s) {
                Some(i) => i,
                None if closed => {
                    return Err(Error::input(
                        name,
                        Some(line),
                        opts.outside_universe(&format!("item {s:?}"), b.items().len()),
                    ));
                }
                None => b.items_mut().intern(s),
            };
            ids.push([id]);
        }
        if ids.is_empty() {
            return Err(Error::input(
                name,
                Some(line),
                "empty ordering: no item ranked",
            ));
        }
        b.push(&ids, tail, &[], weight)
            .map_err(|m| Error::input(name, Some(line), m))?;
    }
    Ok(b.finish())
}
