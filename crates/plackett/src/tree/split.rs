//! The split search of model-based recursive partitioning (Zeileis,
//! Hothorn & Hornik 2008, §3, step 3): for the covariate the instability
//! tests selected, every admissible split point — each distinct value of a
//! numeric covariate as a threshold (left: `≤`), each binary partition of
//! an unordered covariate's levels (exhaustively, as `partykit`), each cut
//! between consecutive levels of an ordered one — is scored by the summed
//! log-likelihoods of the two halves, each refitted from scratch; the first
//! best wins. Candidates are independent fits, run in parallel and reduced
//! in candidate order, so the result does not depend on the thread count.

use crate::data::Dataset;
use crate::data::covariates::Column;
use crate::infer::{PointOptions, fit_point};
use crate::tree::SplitRule;
use rayon::prelude::*;

/// A chosen split point.
pub enum Found {
    /// Rankers with `z ≤ threshold` go left.
    Threshold(f64),
    /// Rankers whose level code is marked go left; `seen` marks the levels
    /// present in the node.
    Levels {
        /// Level codes sent left.
        left: Vec<bool>,
        /// Level codes present in the node.
        seen: Vec<bool>,
    },
}

impl Found {
    /// Whether covariate row `r` goes left.
    pub fn goes_left(&self, col: &Column, r: usize) -> bool {
        match (self, col) {
            (Found::Threshold(t), Column::Numeric { values }) => values[r] <= *t,
            (Found::Levels { left, .. }, Column::Factor { codes, .. }) => left[codes[r] as usize],
            _ => unreachable!("a split matches its column's kind"),
        }
    }

    /// The rule, with level names.
    pub fn rule(&self, name: &str, col: &Column) -> SplitRule {
        match (self, col) {
            (Found::Threshold(t), _) => SplitRule::Threshold {
                variable: name.to_string(),
                threshold: *t,
            },
            (Found::Levels { left, seen }, Column::Factor { levels, .. }) => SplitRule::Levels {
                variable: name.to_string(),
                left_levels: (0..levels.len())
                    .filter(|&l| left[l])
                    .map(|l| levels[l].clone())
                    .collect(),
                right_levels: (0..levels.len())
                    .filter(|&l| seen[l] && !left[l])
                    .map(|l| levels[l].clone())
                    .collect(),
            },
            _ => unreachable!("a split matches its column's kind"),
        }
    }
}

/// Negative summed log-likelihood of the two halves, `None` if either half
/// has fewer than `minsize` rankers or cannot be fitted.
fn objective(
    ds: &Dataset,
    obs_row: &[Option<usize>],
    side: &[i8],
    n_left: usize,
    n_right: usize,
    minsize: usize,
    opts: &PointOptions,
) -> Option<f64> {
    if n_left < minsize || n_right < minsize {
        return None;
    }
    let mut total = 0.0;
    for want in [1i8, 2] {
        let data = ds.subset(|o| obs_row[o].is_some_and(|r| side[r] == want));
        total -= fit_point(&data, opts).ok()?.log_likelihood;
    }
    Some(total)
}

/// The best split of the node's rankers (`rows`, covariate rows) on `col`,
/// or `None` when no split leaves `minsize` rankers on each side.
///
/// `max_thresholds`: `None` searches every distinct value of a numeric
/// covariate (as `partykit`); `Some(K)` with more than `K` distinct values
/// zooms instead — `K` thresholds evenly spaced over the sorted distinct
/// values, then `K` between the best one's neighbours, until the bracket
/// holds at most `K` values, searched exhaustively. Exact when the summed
/// log-likelihood is unimodal in the threshold; an approximation otherwise
/// (for data too large for the exhaustive search).
pub fn best_split(
    ds: &Dataset,
    obs_row: &[Option<usize>],
    rows: &[usize],
    col: &Column,
    minsize: usize,
    opts: &PointOptions,
    max_thresholds: Option<usize>,
) -> Option<Found> {
    let n_rows = obs_row
        .iter()
        .flatten()
        .max()
        .map_or(0, |m| m + 1)
        .max(rows.iter().max().map_or(0, |m| m + 1));
    let score = |cands: &[Found]| -> Vec<Option<f64>> {
        cands
            .par_iter()
            .map(|cand| {
                let mut side = vec![0i8; n_rows];
                let (mut nl, mut nr) = (0, 0);
                for &r in rows {
                    if cand.goes_left(col, r) {
                        side[r] = 1;
                        nl += 1;
                    } else {
                        side[r] = 2;
                        nr += 1;
                    }
                }
                objective(ds, obs_row, &side, nl, nr, minsize, opts)
            })
            .collect()
    };
    let candidates: Vec<Found> = match col {
        Column::Numeric { values } => {
            let mut uz: Vec<f64> = rows.iter().map(|&r| values[r]).collect();
            uz.sort_by(f64::total_cmp);
            uz.dedup();
            if let Some(k) = max_thresholds.filter(|&k| k >= 3 && uz.len() > k) {
                return zoom(&uz, k, &score);
            }
            uz.into_iter().map(Found::Threshold).collect()
        }
        Column::Factor {
            levels,
            codes,
            ordered,
        } => {
            let mut seen = vec![false; levels.len()];
            rows.iter().for_each(|&r| seen[codes[r] as usize] = true);
            let present: Vec<usize> = (0..levels.len()).filter(|&l| seen[l]).collect();
            let nl = present.len();
            if nl < 2 {
                return None;
            }
            if *ordered {
                (0..nl - 1)
                    .map(|cut| {
                        let mut left = vec![false; levels.len()];
                        present[..=cut].iter().for_each(|&l| left[l] = true);
                        Found::Levels {
                            left,
                            seen: seen.clone(),
                        }
                    })
                    .collect()
            } else {
                // partykit's enumeration: partition i sends level j (of the
                // present levels, in order) left when bit j of i is set;
                // the last level always goes right.
                (1..(1usize << (nl - 1)))
                    .map(|i| {
                        let mut left = vec![false; levels.len()];
                        for (j, &l) in present.iter().enumerate() {
                            left[l] = (i >> j) & 1 == 1;
                        }
                        Found::Levels {
                            left,
                            seen: seen.clone(),
                        }
                    })
                    .collect()
            }
        }
    };
    let scores = score(&candidates);
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in scores.iter().enumerate() {
        if let Some(v) = s
            && best.is_none_or(|(_, b)| *v < b)
        {
            best = Some((i, *v));
        }
    }
    best.map(|(i, _)| candidates.into_iter().nth(i).expect("index of a candidate"))
}

/// Index of the first smallest score.
fn first_best(scores: &[Option<f64>]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in scores.iter().enumerate() {
        if let Some(v) = s
            && best.is_none_or(|(_, b)| *v < b)
        {
            best = Some((i, *v));
        }
    }
    best.map(|(i, _)| i)
}

/// The zooming threshold search of [`best_split`] over sorted distinct
/// values `uz`, `k` candidates a round.
fn zoom(uz: &[f64], k: usize, score: &dyn Fn(&[Found]) -> Vec<Option<f64>>) -> Option<Found> {
    let (mut lo, mut hi) = (0usize, uz.len() - 1);
    loop {
        let span = hi - lo;
        let mut idx: Vec<usize> = if span < k {
            (lo..=hi).collect()
        } else {
            (0..k).map(|j| lo + j * span / (k - 1)).collect()
        };
        idx.dedup();
        let cands: Vec<Found> = idx.iter().map(|&i| Found::Threshold(uz[i])).collect();
        let j = first_best(&score(&cands))?;
        if span < k {
            return Some(Found::Threshold(uz[idx[j]]));
        }
        let (nlo, nhi) = (idx[j.saturating_sub(1)], idx[(j + 1).min(idx.len() - 1)]);
        if (nlo, nhi) == (lo, hi) {
            return Some(Found::Threshold(uz[idx[j]]));
        }
        (lo, hi) = (nlo, nhi);
    }
}
