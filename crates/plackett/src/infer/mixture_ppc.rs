//! Posterior predictive checks of a fitted PL mixture (PLMIX's two checks,
//! Mollica & Tardella 2017): how often each item is ranked first, and how
//! often each item is ranked above each other item, in the data against
//! their posterior predictive distribution.
//!
//! A replicate keeps the structure of every observation — its items in
//! play, the sizes of its ranked groups, its tail — and redraws the order:
//! a component from ω (a new ranker), then an exponential race among the
//! items in play under that component's worths, cut into groups of the
//! observed sizes. Counts are defined the same way on data and replicates:
//! a *top-1* is a singleton first group; *i above j* means i sits in an
//! earlier group than j, or i is listed and j is an unlisted item of a
//! top-k observation. A weighted observation (w identical rankings) is
//! replicated w times (rounded; at least once).

use super::rng::stream;
use crate::data::simulate::pl_order_log;
use crate::data::{Dataset, Tail};
use crate::error::{Error, Result};
use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One statistic: observed value and its posterior predictive summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRow {
    /// Item (top-1) or winner (pairs).
    pub item: String,
    /// Loser (pairs only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub other: Option<String>,
    /// Count in the data.
    pub observed: f64,
    /// Posterior predictive mean.
    pub mean: f64,
    /// 2.5% posterior predictive quantile.
    pub low: f64,
    /// 97.5% posterior predictive quantile.
    pub high: f64,
    /// Posterior predictive p-value `P(rep ≥ obs)`, two-sided as
    /// `2·min(P(rep ≥ obs), P(rep ≤ obs))` capped at 1.
    pub p_value: f64,
}

/// Both checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictiveChecks {
    /// Replicated data sets.
    pub replicates: usize,
    /// Top-1 frequencies, one row per item.
    pub top1: Vec<CheckRow>,
    /// Paired-comparison frequencies, one row per ordered pair seen in the
    /// data or the replicates.
    pub pairs: Vec<CheckRow>,
}

/// Counts of one data set (observed or replicated): top-1 per item and
/// `above[i·n + j]`.
struct Counts {
    top1: Vec<f64>,
    above: Vec<f64>,
}

impl Counts {
    fn new(n: usize) -> Self {
        Counts {
            top1: vec![0.0; n],
            above: vec![0.0; n * n],
        }
    }

    /// Add one ranking: `groups` best first (the last may be an unordered
    /// tail), `unlisted` the items of a top-k tail, with multiplicity `w`.
    fn add(&mut self, n: usize, groups: &[&[u32]], unlisted: &[u32], w: f64) {
        if let Some(first) = groups.first()
            && first.len() == 1
            && (groups.len() > 1 || !unlisted.is_empty())
        {
            self.top1[first[0] as usize] += w;
        }
        for (a, ga) in groups.iter().enumerate() {
            for &i in *ga {
                for gb in &groups[a + 1..] {
                    for &j in *gb {
                        self.above[i as usize * n + j as usize] += w;
                    }
                }
                for &j in unlisted {
                    self.above[i as usize * n + j as usize] += w;
                }
            }
        }
    }
}

/// The checks for mixture draws `(weights, log_worths)` (any number; up
/// to `replicates` of them, evenly spaced, are used), seeded.
pub fn predictive_checks(
    ds: &Dataset,
    draws: &[(Vec<f64>, Vec<Vec<f64>>)],
    replicates: usize,
    seed: u64,
) -> Result<PredictiveChecks> {
    if draws.is_empty() || replicates == 0 {
        return Err(Error::param(
            "replicates",
            "posterior predictive checks need at least one draw and one replicate",
        ));
    }
    let n = ds.n_items();
    let universe = ds.universe();
    let mut scratch = vec![false; universe];
    // The observed counts, and each observation's structure.
    let mut observed = Counts::new(n);
    struct Shape {
        sizes: Vec<usize>,
        in_play: Vec<u32>,
        listed: usize,
        copies: usize,
    }
    let mut shapes = Vec::with_capacity(ds.n_obs());
    for o in 0..ds.n_real_obs() {
        let obs = ds.obs(o);
        let groups: Vec<&[u32]> = obs.groups().map(|g| &obs.members[g.start..g.end]).collect();
        let unlisted = if obs.tail == Tail::Universe {
            ds.unlisted(&obs, &mut scratch)
        } else {
            Vec::new()
        };
        observed.add(n, &groups, &unlisted, obs.weight);
        let mut in_play: Vec<u32> = obs.members.to_vec();
        in_play.extend_from_slice(&unlisted);
        shapes.push(Shape {
            sizes: groups.iter().map(|g| g.len()).collect(),
            listed: obs.members.len(),
            in_play,
            copies: (obs.weight.round() as usize).max(1),
        });
    }
    let k = replicates.min(draws.len());
    let picks: Vec<usize> = (0..k).map(|r| r * draws.len() / k).collect();
    let reps: Vec<Counts> = picks
        .par_iter()
        .enumerate()
        .map(|(r, &d)| {
            let (w, thetas) = &draws[d];
            let mut rng = stream(seed, &[0x5050_4300, r as u64]);
            let mut c = Counts::new(n);
            for s in &shapes {
                for _ in 0..s.copies {
                    let mut u = rng.random::<f64>();
                    let mut g = 0;
                    while g + 1 < w.len() && u >= w[g] {
                        u -= w[g];
                        g += 1;
                    }
                    let order = pl_order_log(&mut rng, &s.in_play, &thetas[g]);
                    let mut groups: Vec<&[u32]> = Vec::with_capacity(s.sizes.len());
                    let mut at = 0;
                    for &z in &s.sizes {
                        groups.push(&order[at..at + z]);
                        at += z;
                    }
                    c.add(n, &groups, &order[s.listed..], 1.0);
                }
            }
            c
        })
        .collect();
    let names = ds.items().names();
    let summarise = |obs: f64, vals: &mut Vec<f64>| -> (f64, f64, f64, f64) {
        vals.sort_by(|a, b| a.total_cmp(b));
        let q = |p: f64| vals[((vals.len() - 1) as f64 * p).round() as usize];
        let mean = vals.iter().sum::<f64>() / vals.len() as f64;
        let ge = vals.iter().filter(|&&v| v >= obs).count() as f64 / vals.len() as f64;
        let le = vals.iter().filter(|&&v| v <= obs).count() as f64 / vals.len() as f64;
        (mean, q(0.025), q(0.975), (2.0 * ge.min(le)).min(1.0))
    };
    let top1 = (0..n)
        .map(|i| {
            let mut v: Vec<f64> = reps.iter().map(|c| c.top1[i]).collect();
            let (mean, low, high, p_value) = summarise(observed.top1[i], &mut v);
            CheckRow {
                item: names[i].clone(),
                other: None,
                observed: observed.top1[i],
                mean,
                low,
                high,
                p_value,
            }
        })
        .collect();
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let idx = i * n + j;
            if i == j || (observed.above[idx] == 0.0 && reps.iter().all(|c| c.above[idx] == 0.0)) {
                continue;
            }
            let mut v: Vec<f64> = reps.iter().map(|c| c.above[idx]).collect();
            let (mean, low, high, p_value) = summarise(observed.above[idx], &mut v);
            pairs.push(CheckRow {
                item: names[i].clone(),
                other: Some(names[j].clone()),
                observed: observed.above[idx],
                mean,
                low,
                high,
                p_value,
            });
        }
    }
    Ok(PredictiveChecks {
        replicates: k,
        top1,
        pairs,
    })
}
