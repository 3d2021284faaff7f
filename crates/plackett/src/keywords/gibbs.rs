//! The exact posterior of VBSS's model by Gibbs sampling with Albert &
//! Chib's (1993) augmentation: the gold standard VBSS is measured against
//! (same model, same priors; Hu 2024, §1.3.1).
//!
//! One sweep draws `z | a, b, θ, α` (a truncated normal for a known
//! keyword; for an unlabelled word the positive side with probability
//! `αΦ(m)/(αΦ(m) + Φ(−m))`, then a truncated normal on it), `α | z`
//! (Beta), `a | z, b, σ²` with `θ` integrated out, `θ | z, a, b, σ²`
//! (Gaussian with precision `b² I + P/σ²`, drawn in O(n²) through the
//! prior's eigenvectors), `b | z, θ, a`, `σ² | θ` (inverse gamma), and
//! scale moves along the ridge of `b θ`.

use super::prior::ThetaPrior;
use super::vbss::{AlphaModel, check_labels};
use crate::error::{Error, Result};
use crate::numerics::gamma::gamma_draw;
use crate::numerics::probit::{ln_norm_cdf, ln_norm_cdf_both, norm_cdf, truncated_draw};
use crate::numerics::slice::slice_step;
use crate::numerics::{log_add_exp, sigmoid};
use crate::posterior::diagnostics::{ScalarDiagnostics, diagnose};
use crate::sampling::mcmc::McmcSettings;
use crate::sampling::rng::stream;
use rand::RngExt;
use rand_distr::{Beta, Distribution, StandardNormal};
use rayon::prelude::*;

/// Settings of [`fit_gibbs`].
#[derive(Debug, Clone, Copy)]
pub struct VbssGibbsOptions {
    /// IG(τ, τ) prior on `σ²`.
    pub tau: f64,
    /// Prior variance of `a`.
    pub sigma_a2: f64,
    /// Prior variance of `b`.
    pub sigma_b2: f64,
    /// Shared or per-word `α`.
    pub alpha: AlphaModel,
    /// Draws, burn-in, thinning, chains, seed.
    pub mcmc: McmcSettings,
}

impl Default for VbssGibbsOptions {
    fn default() -> Self {
        VbssGibbsOptions {
            tau: 0.1,
            sigma_a2: 10.0,
            sigma_b2: 10.0,
            alpha: AlphaModel::Shared,
            mcmc: McmcSettings::new(2000, 1000, 4, 1),
        }
    }
}

/// Result of [`fit_gibbs`].
#[derive(Debug, Clone)]
pub struct VbssGibbsFit {
    /// Posterior mean of `Φ(a + b θ_i)`.
    pub p_mean: Vec<f64>,
    /// Posterior sd of `Φ(a + b θ_i)`.
    pub p_sd: Vec<f64>,
    /// `P(y*_i = 1 | y)` (Rao–Blackwellised).
    pub p_latent: Vec<f64>,
    /// Posterior mean and sd of `θ_i`.
    pub theta: Vec<(f64, f64)>,
    /// Posterior mean and sd of `a`, `b`, `σ²` and (shared) `α`.
    pub scalars: [(f64, f64); 4],
    /// Diagnostics of `a`, `b`, `σ²`, `α` (shared; the mean of the `α_i`
    /// per word).
    pub diagnostics: [ScalarDiagnostics; 4],
    /// Worst split-R̂ and least bulk ESS over the `Φ(a + bθ_i)`.
    pub p_worst: ScalarDiagnostics,
    /// Per chain, the kept draws of `(a, b, σ², α)` (the mean of the `α_i`
    /// per word).
    pub scalar_draws: Vec<Vec<[f64; 4]>>,
}

/// Scale moves per sweep and their log-step sd.
const SCALE_MOVES: usize = 3;
const SCALE_STEP: f64 = 0.3;

struct Chain<'a> {
    prior: &'a ThetaPrior,
    y: &'a [bool],
    o: VbssGibbsOptions,
    z: Vec<f64>,
    theta: Vec<f64>,
    /// `Vᵀθ₀`.
    rot0: Vec<f64>,
    /// `Vᵀ1`.
    rot1: Vec<f64>,
    a: f64,
    b: f64,
    s2: f64,
    alpha: Vec<f64>,
}

impl<'a> Chain<'a> {
    fn new(prior: &'a ThetaPrior, y: &'a [bool], o: VbssGibbsOptions) -> Chain<'a> {
        let n = y.len();
        Chain {
            prior,
            y,
            o,
            z: vec![0.0; n],
            theta: prior.theta0.clone(),
            rot0: prior.rotate(&prior.theta0),
            rot1: prior.rotate(&vec![1.0; n]),
            a: 0.0,
            b: 1.0,
            s2: 1.0,
            alpha: match o.alpha {
                AlphaModel::Shared => vec![0.6],
                AlphaModel::PerWord => vec![0.6; n],
            },
        }
    }

    /// One sweep; adds `P(z_i > 0 | rest)` to `latent` when kept.
    fn sweep<R: rand::Rng>(&mut self, rng: &mut R, latent: Option<&mut [f64]>) -> Result<()> {
        let n = self.y.len();
        let mut lat = latent;
        // a and b given θ and α with z integrated out (slice sampling;
        // Neal 2003): with few known keywords the augmented sampler's
        // intercept is tied to the z of hundreds of negatives and moves
        // by tiny steps (the slow mixing of data augmentation under
        // imbalance; Johndrow et al. 2019).
        // ln α and ln(1 − α) (one pair, or one per word), computed once per
        // sweep for the slice steps' likelihood evaluations and the z
        // update below; α itself moves only after both.
        let ln_alpha: Vec<(f64, f64)> = self
            .alpha
            .iter()
            .map(|&al| (al.ln(), (1.0 - al).ln()))
            .collect();
        let ln_alpha_of = |i: usize| ln_alpha[if ln_alpha.len() == 1 { 0 } else { i }];
        {
            let (theta, y) = (&self.theta, self.y);
            let loglik = |a: f64, b: f64| -> f64 {
                let mut l = 0.0;
                for i in 0..n {
                    let m = a + b * theta[i];
                    let (ln_al, ln_not) = ln_alpha_of(i);
                    l += if y[i] {
                        ln_not + ln_norm_cdf(m)
                    } else {
                        let (ln_pos, ln_neg) = ln_norm_cdf_both(m);
                        log_add_exp(ln_neg, ln_al + ln_pos)
                    };
                }
                l
            };
            let (sa, sb) = (self.o.sigma_a2, self.o.sigma_b2);
            let b = self.b;
            let a = slice_step(rng, self.a, |a| loglik(a, b) - a * a / (2.0 * sa), 1.0, 50);
            let b = slice_step(rng, b, |b| loglik(a, b) - b * b / (2.0 * sb), 1.0, 50);
            self.a = a;
            self.b = b;
        }
        // z | a, b, θ, α.
        for i in 0..n {
            let m = self.a + self.b * self.theta[i];
            let pos = if self.y[i] {
                if let Some(l) = lat.as_deref_mut() {
                    l[i] += 1.0;
                }
                true
            } else {
                let (ln_pos, ln_neg) = ln_norm_cdf_both(m);
                let p = sigmoid(ln_alpha_of(i).0 + ln_pos - ln_neg);
                if let Some(l) = lat.as_deref_mut() {
                    l[i] += p;
                }
                rng.random::<f64>() < p
            };
            self.z[i] = truncated_draw(rng, m, pos);
        }
        // α | z.
        let known = self.y.iter().filter(|&&v| v).count() as f64;
        let beta = |a: f64, b: f64, rng: &mut R| -> Result<f64> {
            Beta::new(a, b)
                .map(|d| d.sample(rng))
                .map_err(|e| Error::Numerical(format!("Beta({a}, {b}): {e}")))
        };
        if self.alpha.len() == 1 {
            let hidden = (0..n).filter(|&i| !self.y[i] && self.z[i] > 0.0).count() as f64;
            self.alpha[0] = beta(1.0 + hidden, 1.0 + known, rng)?;
        } else {
            for i in 0..n {
                let h = if !self.y[i] && self.z[i] > 0.0 {
                    1.0
                } else {
                    0.0
                };
                let k = if self.y[i] { 1.0 } else { 0.0 };
                self.alpha[i] = beta(1.0 + h, 1.0 + k, rng)?;
            }
        }
        // a | z, b, σ² with θ integrated out (a and θ move together: the
        // linear predictor a + bθ is nearly unchanged along the prior's
        // flattest direction, where a one-at-a-time sampler crawls):
        // z ~ N(a1 + bθ₀, I + b²σ²U), (I + b²σ²U)⁻¹ = V diag(w) Vᵀ with
        // w_k = p_k / (p_k + b²σ²).
        let pr = self.prior;
        let r: Vec<f64> = self
            .z
            .iter()
            .zip(&pr.theta0)
            .map(|(z, t)| z - self.b * t)
            .collect();
        let vr = pr.rotate(&r);
        let bs = self.b * self.b * self.s2;
        let (mut prec, mut lin) = (1.0 / self.o.sigma_a2, 0.0);
        for k in 0..n {
            let w = pr.precision_eigenvalues[k] / (pr.precision_eigenvalues[k] + bs);
            prec += w * self.rot1[k] * self.rot1[k];
            lin += w * self.rot1[k] * vr[k];
        }
        let e: f64 = StandardNormal.sample(rng);
        self.a = lin / prec + e / prec.sqrt();
        // θ | z, a, b, σ²: precision V diag(b² + p_k/σ²) Vᵀ.
        let resid: Vec<f64> = self.z.iter().map(|z| self.b * (z - self.a)).collect();
        let mut c = pr.rotate(&resid);
        for k in 0..n {
            let pk = pr.precision_eigenvalues[k] / self.s2;
            let dk = self.b * self.b + pk;
            let e: f64 = StandardNormal.sample(rng);
            c[k] = (c[k] + pk * self.rot0[k]) / dk + e / dk.sqrt();
        }
        let quad: f64 = (0..n)
            .map(|k| pr.precision_eigenvalues[k] * (c[k] - self.rot0[k]).powi(2))
            .sum();
        self.theta = pr.unrotate(&c);
        // b | z, θ, a.
        let (stt, stz) = self
            .theta
            .iter()
            .zip(&self.z)
            .fold((0.0, 0.0), |(p, q), (t, z)| {
                (p + t * t, q + t * (z - self.a))
            });
        let hb = stt + 1.0 / self.o.sigma_b2;
        let e: f64 = StandardNormal.sample(rng);
        self.b = stz / hb + e / hb.sqrt();
        // σ² | θ ~ IG(τ + n/2, τ + quad/2).
        let g = gamma_draw(rng, self.o.tau + n as f64 / 2.0, self.o.tau + quad / 2.0);
        self.s2 = 1.0 / g.max(1e-300);
        for _ in 0..SCALE_MOVES {
            self.scale_move(rng);
        }
        Ok(())
    }

    /// Metropolis–Hastings move along the ridge of the `b θ` product (Liu &
    /// Wu 1999's parameter expansion as an exact MH step): `θ ← θ₀ + c(θ −
    /// θ₀)`, `σ² ← c²σ²`, `b ← b/c` with `ln c ~ N(0, s²)`. The prior's
    /// quadratic form over `σ²` is unchanged; the Jacobian is `c^{n+1}`.
    /// Without it the chains crawl along `b · (θ − θ₀) ≈ const`.
    fn scale_move<R: rand::Rng>(&mut self, rng: &mut R) {
        let n = self.y.len() as f64;
        let e: f64 = StandardNormal.sample(rng);
        let lc = SCALE_STEP * e;
        let c = lc.exp();
        let b2 = self.b / c;
        let s2 = self.s2 * c * c;
        let mut dl = 0.0;
        for (i, &t) in self.theta.iter().enumerate() {
            let t0 = self.prior.theta0[i];
            let t2 = t0 + c * (t - t0);
            let r1 = self.z[i] - self.a - self.b * t;
            let r2 = self.z[i] - self.a - b2 * t2;
            dl += 0.5 * (r1 * r1 - r2 * r2);
        }
        dl -= (b2 * b2 - self.b * self.b) / (2.0 * self.o.sigma_b2);
        dl -= (n / 2.0 + self.o.tau + 1.0) * 2.0 * lc;
        dl -= self.o.tau / s2 - self.o.tau / self.s2;
        dl += (n + 1.0) * lc;
        if rng.random::<f64>().ln() < dl {
            for (t, t0) in self.theta.iter_mut().zip(&self.prior.theta0) {
                *t = t0 + c * (*t - t0);
            }
            self.b = b2;
            self.s2 = s2;
        }
    }
}

fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, v.sqrt())
}

/// Sample the posterior of VBSS's model on one document.
pub fn fit_gibbs(prior: &ThetaPrior, y: &[bool], opts: &VbssGibbsOptions) -> Result<VbssGibbsFit> {
    fit_gibbs_observed(prior, y, opts, None)
}

/// [`fit_gibbs`], telling `observer` of every sweep of every chain (so that
/// it can cancel: `Error::Cancelled` within one sweep of its request).
pub fn fit_gibbs_observed(
    prior: &ThetaPrior,
    y: &[bool],
    opts: &VbssGibbsOptions,
    observer: Option<&crate::observer::SharedObserver>,
) -> Result<VbssGibbsFit> {
    let mcmc = opts.mcmc.check()?;
    check_labels(prior, y)?;
    let n = y.len();
    let s = mcmc.samples;
    type ChainOut = (Vec<[f64; 4]>, Vec<Vec<f64>>, Vec<f64>);
    let chains: Vec<Result<ChainOut>> = (0..mcmc.chains)
        .into_par_iter()
        .map(|c| {
            let mut rng = stream(mcmc.seed, &[0x5642_5353, c as u64]);
            let mut ch = Chain::new(prior, y, *opts);
            let mut scal = Vec::with_capacity(s);
            let mut ps = vec![Vec::with_capacity(s); n];
            let mut lat = vec![0.0; n];
            for sweep in 0..mcmc.sweeps() {
                crate::observer::advance(observer, 1)?;
                let keep = mcmc.keeps(sweep);
                ch.sweep(&mut rng, keep.then_some(&mut lat[..]))?;
                if keep {
                    let am = ch.alpha.iter().sum::<f64>() / ch.alpha.len() as f64;
                    scal.push([ch.a, ch.b, ch.s2, am]);
                    for i in 0..n {
                        ps[i].push(norm_cdf(ch.a + ch.b * ch.theta[i]));
                    }
                    // θ draws are summarised through Φ(a + bθ) and the
                    // moments below (kept per chain to bound memory).
                    for (i, t) in ch.theta.iter().enumerate() {
                        ps[i].push(*t);
                    }
                }
            }
            Ok((scal, ps, lat))
        })
        .collect();
    let mut outs = Vec::new();
    for c in chains {
        outs.push(c?);
    }
    let kept = (s * mcmc.chains) as f64;
    let mut latent = vec![0.0; n];
    for (_, _, l) in &outs {
        for i in 0..n {
            latent[i] += l[i] / kept;
        }
    }
    let scalar_chains = |k: usize| -> Vec<Vec<f64>> {
        outs.iter()
            .map(|(sc, _, _)| sc.iter().map(|r| r[k]).collect())
            .collect()
    };
    let mut scalars = [(0.0, 0.0); 4];
    let mut diagnostics = [ScalarDiagnostics {
        rhat: f64::NAN,
        ess_bulk: f64::NAN,
        ess_tail: f64::NAN,
    }; 4];
    for k in 0..4 {
        let ch = scalar_chains(k);
        let all: Vec<f64> = ch.iter().flatten().copied().collect();
        scalars[k] = mean_sd(&all);
        diagnostics[k] = diagnose(&ch);
    }
    let mut p_mean = vec![0.0; n];
    let mut p_sd = vec![0.0; n];
    let mut theta = vec![(0.0, 0.0); n];
    let mut p_worst = ScalarDiagnostics {
        rhat: 1.0,
        ess_bulk: f64::INFINITY,
        ess_tail: f64::INFINITY,
    };
    for i in 0..n {
        // Per chain the word's vector holds s values of Φ(a + bθ) then s of θ
        // interleaved per draw: [p, θ, p, θ, …].
        let pc: Vec<Vec<f64>> = outs
            .iter()
            .map(|(_, ps, _)| ps[i].iter().step_by(2).copied().collect())
            .collect();
        let tc: Vec<f64> = outs
            .iter()
            .flat_map(|(_, ps, _)| ps[i].iter().skip(1).step_by(2).copied())
            .collect();
        let all: Vec<f64> = pc.iter().flatten().copied().collect();
        (p_mean[i], p_sd[i]) = mean_sd(&all);
        theta[i] = mean_sd(&tc);
        let d = diagnose(&pc);
        if d.rhat.is_finite() {
            p_worst.rhat = p_worst.rhat.max(d.rhat);
        }
        p_worst.ess_bulk = p_worst.ess_bulk.min(d.ess_bulk);
        p_worst.ess_tail = p_worst.ess_tail.min(d.ess_tail);
    }
    Ok(VbssGibbsFit {
        p_mean,
        p_sd,
        p_latent: latent,
        theta,
        scalars,
        diagnostics,
        p_worst,
        scalar_draws: outs.into_iter().map(|(sc, _, _)| sc).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keywords::graph::WordGraph;
    use crate::keywords::prior::PriorScale;

    /// Simulation-based calibration (Talts et al. 2018): parameters from
    /// the prior (a fixed θ₀, as for a user-supplied prior), labels from
    /// the model, conditioned on at least one known and one unlabelled
    /// word; the rank of each true value among the draws must be uniform.
    #[test]
    fn gibbs_passes_simulation_based_calibration() {
        let toks = [
            "a", "b", "c", "a", "d", "e", "b", "f", "c", "g", "a", "h", "d", "i", "e", "j", "k",
            "b", "l", "c",
        ];
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let n = g.len();
        let ylab: Vec<bool> = (0..n).map(|i| i < 2).collect();
        let prior = ThetaPrior::from_graph(&g, &ylab, 0.85, PriorScale::Code).unwrap();
        let (tau, sa, sb): (f64, f64, f64) = (3.0, 1.0, 1.0);
        let reps = 200;
        let draws = 99;
        let ranks: Vec<[usize; 4]> = (0..reps)
            .into_par_iter()
            .map(|r| {
                let mut rng = stream(77, &[r as u64]);
                loop {
                    let s2 = 1.0 / gamma_draw(&mut rng, tau, tau);
                    let theta = prior.sample(s2, &mut rng);
                    let a: f64 = sa.sqrt() * Distribution::<f64>::sample(&StandardNormal, &mut rng);
                    let b: f64 = sb.sqrt() * Distribution::<f64>::sample(&StandardNormal, &mut rng);
                    let alpha: f64 = rng.random();
                    let y: Vec<bool> = theta
                        .iter()
                        .map(|t| {
                            let star = rng.random::<f64>() < norm_cdf(a + b * t);
                            star && rng.random::<f64>() >= alpha
                        })
                        .collect();
                    if check_labels(&prior, &y).is_err() {
                        continue;
                    }
                    let fit = fit_gibbs(
                        &prior,
                        &y,
                        &VbssGibbsOptions {
                            tau,
                            sigma_a2: sa,
                            sigma_b2: sb,
                            alpha: AlphaModel::Shared,
                            mcmc: McmcSettings {
                                samples: draws,
                                burn_in: 200,
                                thin: 5,
                                chains: 1,
                                seed: r as u64,
                            },
                        },
                    )
                    .unwrap();
                    let truth = [a, b, s2, alpha];
                    let mut out = [0; 4];
                    for k in 0..4 {
                        out[k] = fit.scalar_draws[0]
                            .iter()
                            .filter(|d| d[k] < truth[k])
                            .count();
                    }
                    return out;
                }
            })
            .collect();
        for (k, name) in ["a", "b", "sigma2", "alpha"].iter().enumerate() {
            let bins = crate::stats::rank_histogram(ranks.iter().map(|r| r[k]), draws, 10);
            let chi2 = crate::stats::uniform_chi2(&bins);
            eprintln!("SBC {name}: bins {bins:?} chi2 {chi2:.1}");
            // χ²₉ 99.9% quantile.
            assert!(chi2 < 27.88, "{name}: χ² {chi2:.1}, bins {bins:?}");
        }
    }
}
