//! Per-case aggregation models (Stutz et al. 2023, §2.3 and Appendix B): IRN,
//! PrIRN (Dirichlet(γ·IRN)), Plackett–Luce by Gibbs sampling with repeated
//! annotations as reliability, and the PL point estimate.

use super::irn::{TieSplit, irn};
use super::samples::{CaseSamples, Expander};
use crate::data::{Dataset, DatasetBuilder, Items, Tail, TieSemantics};
use crate::error::{Error, Result};
use crate::infer::bayes::GammaPrior;
use crate::infer::gibbs::Chain;
use crate::infer::{PointOptions, Prior, fit_point};
use crate::io::selectors::Annotation;
use crate::numerics::gamma::ln_gamma_draw;
use crate::sampling::rng::stream;

/// Prior of the PL model over the K classes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum PlPrior {
    /// Gamma(α, β) on every one of the K classes, collapsed exactly: the
    /// never-ranked classes of a case become one item of shape |U|·α, split
    /// back by Dirichlet(α·1) (§4.4.5 "Collapsing").
    Exact {
        /// Shape α per class.
        alpha: f64,
    },
    /// The reference code's per-case prior (`sample_from_ranked_classes`):
    /// shape 1 on each ranked class and on the "other" item, split by
    /// Dirichlet(1). Reproduces the paper's figures; not a fixed prior over
    /// the K classes.
    Paper,
}

/// What to do with classes of zero IRN score in PrIRN.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum PrirnZero {
    /// Literal Dirichlet(γ·λ̂) on IRN's support; other classes get 0.
    Support,
    /// Dirichlet(γ·λ̂ + a·1) over all K classes (the reference code uses 0.01).
    Smooth(f64),
}

/// Aggregation method and its knobs.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Method {
    /// Deterministic IRN (a point mass).
    Irn {
        /// Tie splitting.
        split: TieSplit,
    },
    /// Probabilistic IRN with reliability γ (Dirichlet concentration).
    Prirn {
        /// γ.
        gamma: f64,
        /// Tie splitting of the underlying IRN.
        split: TieSplit,
        /// Zero handling.
        zero: PrirnZero,
    },
    /// Plackett–Luce Gibbs with each annotation repeated `repeats` times.
    Pl {
        /// Reliability (integer repetitions).
        repeats: usize,
        /// Prior.
        prior: PlPrior,
        /// Gamma rate β (the normalised posterior does not depend on it).
        rate: f64,
        /// Burn-in sweeps.
        burn_in: usize,
    },
}

/// Build the PL dataset of one case: items are the ranked classes (local
/// ids in `ranked` order) plus, if any class is unranked, one "other" item;
/// every annotation is a top-k list of that universe with weight `repeats`.
pub fn pl_case_dataset(
    anns: &[Annotation],
    n_classes: usize,
    repeats: usize,
) -> (Dataset, Vec<u32>, bool) {
    let mut ranked: Vec<u32> = anns.iter().flatten().flatten().copied().collect();
    ranked.sort_unstable();
    ranked.dedup();
    let has_other = ranked.len() < n_classes;
    let k = ranked.len() + usize::from(has_other);
    let mut b = DatasetBuilder::new(Items::numbered(k), TieSemantics::UnknownOrder);
    let local = |c: u32| ranked.binary_search(&c).expect("ranked") as u32;
    for ann in anns {
        let groups: Vec<Vec<u32>> = ann
            .iter()
            .map(|g| g.iter().map(|&c| local(c)).collect())
            .collect();
        b.push(&groups, Tail::Universe, &[], repeats as f64)
            .expect("validated selectors");
    }
    (b.finish(), ranked, has_other)
}

/// Draw `samples` plausibility samples for one case.
#[allow(clippy::too_many_arguments)]
pub fn sample_case(
    anns: &[Annotation],
    n_classes: usize,
    method: &Method,
    samples: usize,
    seed: u64,
    case: usize,
    risks: Option<&[u8]>,
    t: usize,
) -> Result<(CaseSamples, Moments, f64)> {
    let mut out = CaseSamples {
        t,
        ..Default::default()
    };
    let mut moments;
    let split_alpha;
    let risks_v = risks.map(|r| r.to_vec());
    let mut rng = stream(seed, &[0x4341_5345, case as u64]);
    match method {
        Method::Irn { split } => {
            let v = irn(anns, *split);
            let tracked: Vec<u32> = v.iter().map(|x| x.0).collect();
            let vals: Vec<f64> = v.iter().map(|x| x.1).collect();
            moments = Moments::new(&tracked);
            moments.add(&vals, 0.0);
            split_alpha = 1.0;
            let mut e = Expander::new(tracked, n_classes, 1.0, risks_v, t);
            e.push(&mut rng, &vals, 0.0, &mut out);
        }
        Method::Prirn { gamma, split, zero } => {
            let v = irn(anns, *split);
            let tracked: Vec<u32> = v.iter().map(|x| x.0).collect();
            let smooth = match zero {
                PrirnZero::Support => 0.0,
                PrirnZero::Smooth(a) => *a,
            };
            let n_other = n_classes - tracked.len();
            // Tracked classes (plus the smoothing on them) and one "other"
            // item of concentration a·|U| (Dirichlet aggregation).
            // A concentration below the samplers' floor (γ near its own
            // floor times a small IRN weight) is drawn at the floor: both
            // put all but a negligible share of the mass on the other
            // classes, and below it the log-space draw is −∞.
            let conc: Vec<f64> = v
                .iter()
                .map(|x| (gamma * x.1 + smooth).max(crate::numerics::gamma::MIN_GAMMA_SHAPE))
                .collect();
            let other_conc = smooth * n_other as f64;
            moments = Moments::new(&tracked);
            split_alpha = smooth.max(f64::MIN_POSITIVE);
            let mut e = Expander::new(tracked, n_classes, split_alpha, risks_v, t);
            let mut logs = vec![0.0; conc.len() + 1];
            let mut vals = vec![0.0; conc.len()];
            for _ in 0..samples {
                for (k, &a) in conc.iter().enumerate() {
                    logs[k] = ln_gamma_draw(&mut rng, a, 1.0);
                }
                logs[conc.len()] = if other_conc > 0.0 {
                    ln_gamma_draw(&mut rng, other_conc, 1.0)
                } else {
                    f64::NEG_INFINITY
                };
                let l = crate::numerics::log_sum_exp(&logs);
                for k in 0..conc.len() {
                    vals[k] = (logs[k] - l).exp();
                }
                let other = (logs[conc.len()] - l).exp();
                moments.add(&vals, other);
                e.push(&mut rng, &vals, other, &mut out);
            }
        }
        Method::Pl {
            repeats,
            prior,
            rate,
            burn_in,
        } => {
            let (ds, ranked, has_other) = pl_case_dataset(anns, n_classes, *repeats);
            let n_other = n_classes - ranked.len();
            let (shapes, split) = match prior {
                PlPrior::Exact { alpha } => {
                    let mut s = vec![*alpha; ranked.len()];
                    if has_other {
                        s.push(alpha * n_other as f64);
                    }
                    (s, *alpha)
                }
                PlPrior::Paper => (vec![1.0; ranked.len() + usize::from(has_other)], 1.0),
            };
            let gp = GammaPrior::per_item(shapes, *rate)?;
            let mut chain = Chain::new(&ds, &gp, seed ^ 0x504c, case as u64, true)?;
            for _ in 0..*burn_in {
                chain.sweep();
            }
            moments = Moments::new(&ranked);
            split_alpha = split;
            let mut e = Expander::new(ranked.clone(), n_classes, split, risks_v, t);
            let mut row = vec![0.0; ranked.len() + usize::from(has_other)];
            for _ in 0..samples {
                chain.sweep();
                row.copy_from_slice(chain.log_worths());
                crate::posterior::Draws::normalise(&mut row);
                let vals: Vec<f64> = row[..ranked.len()].iter().map(|x| x.exp()).collect();
                let other = if has_other {
                    row[ranked.len()].exp()
                } else {
                    0.0
                };
                moments.add(&vals, other);
                e.push(&mut rng, &vals, other, &mut out);
            }
        }
    }
    Ok((out, moments, split_alpha))
}

/// Running moments of the tracked plausibilities and of the "other" mass,
/// turned into per-class means and sds (never-ranked classes share the
/// other mass by a symmetric Dirichlet split, so their moments are
/// analytic).
#[derive(Debug, Clone, Default)]
pub struct Moments {
    tracked: Vec<u32>,
    sum: Vec<f64>,
    sq: Vec<f64>,
    o_sum: f64,
    o_sq: f64,
    m: usize,
}

impl Moments {
    fn new(tracked: &[u32]) -> Moments {
        Moments {
            tracked: tracked.to_vec(),
            sum: vec![0.0; tracked.len()],
            sq: vec![0.0; tracked.len()],
            ..Default::default()
        }
    }
    fn add(&mut self, vals: &[f64], other: f64) {
        for (k, &v) in vals.iter().enumerate() {
            self.sum[k] += v;
            self.sq[k] += v * v;
        }
        self.o_sum += other;
        self.o_sq += other * other;
        self.m += 1;
    }
    /// `(class, mean, sd)` for the `top` classes of largest mean (ties:
    /// lowest id), over `n_classes` classes with split concentration `alpha`.
    pub fn top(&self, n_classes: usize, alpha: f64, top: usize) -> Vec<(u32, f64, f64)> {
        let m = self.m.max(1) as f64;
        let var = |s: f64, q: f64| (q / m - (s / m).powi(2)).max(0.0).sqrt();
        let mut v: Vec<(u32, f64, f64)> = (0..self.tracked.len())
            .map(|k| {
                (
                    self.tracked[k],
                    self.sum[k] / m,
                    var(self.sum[k], self.sq[k]),
                )
            })
            .collect();
        let n_u = n_classes - self.tracked.len();
        if n_u > 0 {
            let a = alpha * n_u as f64;
            let e_d = 1.0 / n_u as f64;
            let e_d2 = alpha * (alpha + 1.0) / (a * (a + 1.0));
            let mean = self.o_sum / m * e_d;
            let sd = (self.o_sq / m * e_d2 - mean * mean).max(0.0).sqrt();
            let mut tracked = self.tracked.clone();
            tracked.sort_unstable();
            let mut added = 0;
            for c in 0..n_classes as u32 {
                if added >= top {
                    break;
                }
                if tracked.binary_search(&c).is_err() {
                    v.push((c, mean, sd));
                    added += 1;
                }
            }
        }
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(top);
        v
    }
}

/// The PL point estimate of §4.4.6: the MLE over the ranked classes
/// (unlisted ranked classes rank below each annotation's list; never-ranked
/// classes get 0). When the MLE does not exist (a ranked class never beaten,
/// e.g. a single annotator) the posterior mode under a weak Normal(0, 3²)
/// prior on log-worths is returned instead, flagged `false`. Only
/// non-existence falls back; a numerical failure is an error.
pub fn pl_point(anns: &[Annotation]) -> Result<(Vec<(u32, f64)>, bool)> {
    let mut ranked: Vec<u32> = anns.iter().flatten().flatten().copied().collect();
    ranked.sort_unstable();
    ranked.dedup();
    if ranked.len() == 1 {
        return Ok((vec![(ranked[0], 1.0)], true));
    }
    let (ds, ranked, _) = pl_case_dataset(anns, ranked.len(), 1);
    if ds.n_obs() == 0 {
        // Every annotation lists all the ranked classes as one tied block:
        // nothing distinguishes them.
        let u = 1.0 / ranked.len() as f64;
        return Ok((ranked.iter().map(|&c| (c, u)).collect(), false));
    }
    let (fit, is_ml) = match fit_point(
        &ds,
        &PointOptions {
            standard_errors: false,
            ..Default::default()
        },
    ) {
        Ok(f) => (f, true),
        Err(Error::NotIdentifiable { .. }) => (
            fit_point(
                &ds,
                &PointOptions {
                    prior: Prior::Normal { mean: 0.0, sd: 3.0 },
                    standard_errors: false,
                    ..Default::default()
                },
            )?,
            false,
        ),
        Err(e) => return Err(e),
    };
    let v = ranked
        .iter()
        .zip(&fit.summary.items)
        .map(|(&c, it)| (c, it.worth))
        .collect();
    Ok((v, is_ml))
}
