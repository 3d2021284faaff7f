//! Long CSV: one row per (ranking, item), with a rank column (lower is
//! better; equal ranks form a tied group) and an optional weight column.

use super::{ReadOptions, initial_items};
use crate::data::{Dataset, DatasetBuilder, Tail};
use crate::error::{Error, Result};
use std::collections::HashMap;

/// Rows of one ranking and its weight with the line it was first set on.
type Collected = (Vec<Row>, Option<(f64, usize)>);

struct Row {
    rank: f64,
    item: u32,
    line: usize,
}

/// Parse long-format CSV text.
pub fn read(name: &str, text: &str, opts: &ReadOptions) -> Result<Dataset> {
    let (mut rdr, headers) = super::csv_with_headers(name, text)?;
    if headers.iter().all(|h| h.is_empty()) {
        return Err(Error::input(
            name,
            Some(1),
            "empty file or missing header row",
        ));
    }
    let col = |want: &str, flag: &str| -> Result<usize> {
        headers.iter().position(|h| h == want).ok_or_else(|| {
            Error::input(
                name,
                Some(1),
                format!(
                    "no column named {want:?} (set it with {flag}; columns are: {})",
                    headers.join(", ")
                ),
            )
        })
    };
    let c_rank_id = col(&opts.ranking_col, "`ranking_col`")?;
    let c_rank = col(&opts.rank_col, "`rank_col`")?;
    let c_item = col(&opts.item_col, "`item_col`")?;
    // Optional columns: absent under their default names ("weight",
    // "ranker") they are not used; a name the user chose must exist.
    let optional = |want: &str, default: &str, flag: &str| -> Result<Option<usize>> {
        match headers.iter().position(|h| h == want) {
            None if want != default => col(want, flag).map(Some),
            p => Ok(p),
        }
    };
    let defaults = super::ReadOptions::default();
    let c_weight = optional(&opts.weight_col, &defaults.weight_col, "`weight_col`")?;
    // Who made each ranking (for the adherence model).
    let c_ranker = optional(&opts.ranker_col, &defaults.ranker_col, "`ranker_col`")?;
    let mut ranker_of: HashMap<String, (String, usize)> = HashMap::new();
    let (items, closed) = initial_items(opts);
    let mut b = DatasetBuilder::new(items, opts.ties);
    let mut order: Vec<String> = Vec::new();
    let mut rankings: HashMap<String, Collected> = HashMap::new();
    let mut rec = csv::StringRecord::new();
    while let Some(line) = crate::io::next_record(&mut rdr, &mut rec, name)? {
        let rid = rec.get(c_rank_id).unwrap_or("").to_string();
        if rid.is_empty() {
            return Err(Error::input(
                name,
                Some(line),
                format!("empty {} field", opts.ranking_col),
            ));
        }
        let rank_s = rec.get(c_rank).unwrap_or("");
        let rank: f64 = rank_s.parse().map_err(|_| {
            Error::input(
                name,
                Some(line),
                format!("{} {rank_s:?} is not a number", opts.rank_col),
            )
        })?;
        if !rank.is_finite() {
            return Err(Error::input(
                name,
                Some(line),
                format!("{} must be finite", opts.rank_col),
            ));
        }
        let item_s = rec.get(c_item).unwrap_or("");
        if item_s.is_empty() {
            return Err(Error::input(
                name,
                Some(line),
                format!("empty {} field", opts.item_col),
            ));
        }
        let item = match b.items().get(item_s) {
            Some(i) => i,
            None if closed => {
                return Err(Error::input(
                    name,
                    Some(line),
                    opts.outside_universe(&format!("item {item_s:?}"), b.items().len()),
                ));
            }
            None => b.items_mut().intern(item_s),
        };
        let weight = match c_weight {
            Some(c) => {
                let w_s = rec.get(c).unwrap_or("");
                let w: f64 = w_s.parse().map_err(|_| {
                    Error::input(name, Some(line), format!("weight {w_s:?} is not a number"))
                })?;
                if !(w.is_finite() && w > 0.0) {
                    return Err(Error::input(
                        name,
                        Some(line),
                        format!("weight must be positive and finite, got {w_s}"),
                    ));
                }
                Some(w)
            }
            None => None,
        };
        let entry = rankings.entry(rid.clone()).or_insert_with(|| {
            order.push(rid.clone());
            (Vec::new(), None)
        });
        if let Some(w) = weight {
            match entry.1 {
                None => entry.1 = Some((w, line)),
                Some((w0, l0)) if w0 != w => {
                    return Err(Error::input(
                        name,
                        Some(line),
                        format!(
                            "weight {w} differs from weight {w0} on line {l0} of the same {} {rid:?}",
                            opts.ranking_col
                        ),
                    ));
                }
                _ => {}
            }
        }
        if let Some(c) = c_ranker {
            let r = rec.get(c).unwrap_or("");
            if r.is_empty() {
                return Err(Error::input(
                    name,
                    Some(line),
                    format!("empty {} field", opts.ranker_col),
                ));
            }
            match ranker_of.get(&rid) {
                None => {
                    ranker_of.insert(rid.clone(), (r.to_string(), line));
                }
                Some((r0, l0)) if r0 != r => {
                    return Err(Error::input(
                        name,
                        Some(line),
                        format!(
                            "{} {r:?} differs from {r0:?} on line {l0} of the same {} {rid:?}",
                            opts.ranker_col, opts.ranking_col
                        ),
                    ));
                }
                _ => {}
            }
        }
        if let Some(prev) = entry.0.iter().find(|r| r.item == item) {
            return Err(Error::input(
                name,
                Some(line),
                format!(
                    "item {item_s:?} appears twice in {} {rid:?} (first on line {})",
                    opts.ranking_col, prev.line
                ),
            ));
        }
        entry.0.push(Row { rank, item, line });
    }
    if order.is_empty() {
        return Err(Error::input(name, None, "no data rows"));
    }
    let tail = if opts.top_k {
        Tail::Universe
    } else {
        Tail::None
    };
    for rid in &order {
        let (mut rows, w) = rankings.remove(rid).expect("present");
        rows.sort_by(|a, b| a.rank.total_cmp(&b.rank).then(a.line.cmp(&b.line)));
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut last = f64::NAN;
        for r in &rows {
            if r.rank == last {
                groups.last_mut().expect("group").push(r.item);
            } else {
                groups.push(vec![r.item]);
                last = r.rank;
            }
        }
        let line = rows.iter().map(|r| r.line).min().unwrap_or(0);
        let w = w.map_or(1.0, |x| x.0);
        match ranker_of.get(rid) {
            Some((r, _)) => b.push_by(r, &groups, tail, &[], w),
            None => b.push(&groups, tail, &[], w),
        }
        .map_err(|m| {
            Error::input(
                name,
                Some(line),
                format!("{} {rid:?}: {m}", opts.ranking_col),
            )
        })?;
    }
    Ok(b.finish())
}
