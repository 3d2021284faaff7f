//! Parameter instability tests of model-based recursive partitioning
//! (Zeileis & Hornik 2007; Zeileis, Hothorn & Hornik 2008, §3): the
//! per-ranker score contributions, decorrelated by their outer product,
//! ordered by each partitioning covariate. A numeric covariate is tested by
//! the sup-LM statistic over the trimmed range (Andrews 1993) with its
//! asymptotic p-value ([`crate::numerics::sup_lm`]); a categorical one by
//! the χ² statistic over its levels with `k·(L − 1)` degrees of freedom
//! (`partykit::mob`'s default for ordered factors as well). The
//! arithmetic follows `partykit`'s `mob` at its defaults (`vcov = "opg"`,
//! `trim = 0.1`, `breakties = FALSE`), so that the statistics agree with
//! `strucchange::sctest` on the same node.

use crate::data::covariates::{Column, MISSING_LEVEL};
use crate::numerics::linalg::Cholesky;
use crate::numerics::sup_lm::sup_lm_p_value;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// The test of one covariate at one node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InstabilityTest {
    /// Covariate name.
    pub variable: String,
    /// sup-LM (numeric) or χ² (categorical) statistic; `None` when the
    /// covariate is constant in the node.
    pub statistic: Option<f64>,
    /// Degrees of freedom: `k` parameters (sup-LM) or `k·(L − 1)` (χ²).
    pub df: Option<usize>,
    /// Unadjusted p-value.
    pub p_value_raw: Option<f64>,
    /// p-value adjusted over the node's tested covariates (as `mob`: Šidák
    /// `1 − (1 − p)^m` above 0.001, Bonferroni `min(1, m·p)` below).
    pub p_value: Option<f64>,
}

/// The decorrelated score process of a node: `n` rankers × `k` free
/// parameters, scaled by `1/√n`, with the Cholesky factor of its cross
/// product. `None` when the cross product is singular (a parameter no
/// ranker of the node informs).
pub struct ScoreProcess {
    rows: Vec<f64>,
    n: usize,
    k: usize,
    chol: Cholesky,
}

impl ScoreProcess {
    /// From per-ranker score rows (`n × k`, row-major).
    pub fn new(scores: Vec<f64>, n: usize, k: usize) -> Option<ScoreProcess> {
        let s = 1.0 / (n as f64).sqrt();
        let rows: Vec<f64> = scores.iter().map(|v| v * s).collect();
        let mut meat = DMatrix::zeros(k, k);
        for r in rows.chunks(k) {
            for a in 0..k {
                if r[a] == 0.0 {
                    continue;
                }
                for b in 0..=a {
                    meat[(a, b)] += r[a] * r[b];
                }
            }
        }
        for a in 0..k {
            for b in 0..a {
                meat[(b, a)] = meat[(a, b)];
            }
        }
        let chol = Cholesky::new(&meat)?;
        Some(ScoreProcess { rows, n, k, chol })
    }

    /// `vᵀ J⁻¹ v` with `J` the cross product.
    fn quad(&self, v: &[f64]) -> f64 {
        let b = DVector::from_column_slice(v);
        let x = self.chol.solve(&b);
        b.dot(&x)
    }

    /// The sup-LM statistic of a numeric covariate (`z[r]` per ranker, none
    /// missing) over positions `from..=to` of the rankers sorted by `z`
    /// (stably: ties keep the node's order, as R's `order`).
    pub fn sup_lm(&self, z: &[f64], from: usize, to: usize) -> f64 {
        let mut order: Vec<usize> = (0..self.n).collect();
        order.sort_by(|&a, &b| z[a].total_cmp(&z[b]));
        let mut cum = vec![0.0; self.k];
        let mut best: f64 = 0.0;
        for (i, &r) in order.iter().enumerate() {
            for (c, v) in cum.iter_mut().zip(&self.rows[r * self.k..(r + 1) * self.k]) {
                *c += v;
            }
            let pos = i + 1;
            if pos < from || pos > to {
                continue;
            }
            let t = pos as f64 / self.n as f64;
            best = best.max(self.quad(&cum) / (t * (1.0 - t)));
        }
        best
    }

    /// The χ² statistic of a categorical covariate (`codes[r]` per ranker,
    /// none missing) and its number of levels present.
    pub fn chi_square(&self, codes: &[u32], n_levels: usize) -> (f64, usize) {
        let mut sums = vec![0.0; n_levels * self.k];
        let mut counts = vec![0usize; n_levels];
        for (r, &c) in codes.iter().enumerate() {
            let c = c as usize;
            counts[c] += 1;
            for (s, v) in sums[c * self.k..(c + 1) * self.k]
                .iter_mut()
                .zip(&self.rows[r * self.k..(r + 1) * self.k])
            {
                *s += v;
            }
        }
        let mut stat = 0.0;
        let mut present = 0;
        for l in 0..n_levels {
            if counts[l] == 0 {
                continue;
            }
            present += 1;
            let w = counts[l] as f64 / self.n as f64;
            stat += self.quad(&sums[l * self.k..(l + 1) * self.k]) / w;
        }
        (stat, present)
    }
}

/// Trimming of the sup-LM range, as `mob`: `from = max(⌈n·trim⌉, minsize)`,
/// `to = n − from`, and `λ = (n − from)·to / (from·(n − to))`.
pub fn trimmed_range(n: usize, trim: f64, minsize: usize) -> (usize, usize, f64) {
    let from = ((n as f64 * trim).ceil() as usize).max(minsize);
    let to = n.saturating_sub(from);
    let lambda = ((n - from.min(n)) as f64 * to as f64) / (from as f64 * (n - to) as f64);
    (from, to, lambda)
}

/// Test every covariate at a node. `columns[j]` gives the node's rankers'
/// values of covariate `j` (in node order).
pub fn test_covariates(
    process: &ScoreProcess,
    names: &[String],
    columns: &[NodeColumn],
    trim: f64,
    minsize: usize,
) -> Vec<InstabilityTest> {
    let (from, to, lambda) = trimmed_range(process.n, trim, minsize);
    let k = process.k;
    let mut tests: Vec<InstabilityTest> = names
        .iter()
        .zip(columns)
        .map(|(name, col)| {
            let mut t = InstabilityTest {
                variable: name.clone(),
                statistic: None,
                df: None,
                p_value_raw: None,
                p_value: None,
            };
            match col {
                NodeColumn::Numeric(z) => {
                    let first = z[0];
                    if z.iter().all(|v| *v == first) || from > to {
                        return t;
                    }
                    let stat = process.sup_lm(z, from, to);
                    t.statistic = Some(stat);
                    t.df = Some(k);
                    t.p_value_raw = Some(sup_lm_p_value(stat, k, lambda));
                }
                NodeColumn::Factor { codes, n_levels } => {
                    let (stat, present) = process.chi_square(codes, *n_levels);
                    if present < 2 {
                        return t;
                    }
                    let df = k * (present - 1);
                    t.statistic = Some(stat);
                    t.df = Some(df);
                    t.p_value_raw = Some(statrs::function::gamma::gamma_ur(
                        df as f64 / 2.0,
                        stat / 2.0,
                    ));
                }
            }
            t
        })
        .collect();
    let m = tests.iter().filter(|t| t.p_value_raw.is_some()).count() as f64;
    for t in &mut tests {
        t.p_value = t.p_value_raw.map(|p| {
            if p > 0.001 {
                1.0 - (1.0 - p).powf(m)
            } else {
                (m * p).min(1.0)
            }
        });
    }
    tests
}

/// A covariate's values over a node's rankers.
pub enum NodeColumn {
    /// Numbers.
    Numeric(Vec<f64>),
    /// Level codes of a factor with `n_levels` levels in all.
    Factor {
        /// One code per ranker.
        codes: Vec<u32>,
        /// Levels of the whole column.
        n_levels: usize,
    },
}

impl NodeColumn {
    /// Column `col`'s values at rows `rows`.
    pub fn gather(col: &Column, rows: &[usize]) -> NodeColumn {
        match col {
            Column::Numeric { values } => {
                NodeColumn::Numeric(rows.iter().map(|&r| values[r]).collect())
            }
            Column::Factor { levels, codes, .. } => {
                let codes: Vec<u32> = rows.iter().map(|&r| codes[r]).collect();
                debug_assert!(codes.iter().all(|&c| c != MISSING_LEVEL));
                NodeColumn::Factor {
                    codes,
                    n_levels: levels.len(),
                }
            }
        }
    }
}
