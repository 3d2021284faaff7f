//! BSS (Wang et al. 2023), the MCMC predecessor of VBSS, as its authors'
//! code runs it: a logit link `p_i = logit⁻¹(θ_i)` on word importance with
//! the TextRank prior `θ | σ² ~ N(u₀, σ²(BᵀB)⁻¹)`, `B = I − dGᵀ`,
//! `u₀ = (1 − d)B⁻¹1` (TextRank's scores), `σ² ~ IG(0.001, 0.001)`, the
//! same positive–unlabelled likelihood as VBSS; `σ²` by Gibbs, `θ` by a
//! block random-walk Metropolis step with proposal covariance
//! `(4σ²/n)(BᵀB)⁻¹`, and `α` set each iteration to the maximiser of the
//! likelihood over a grid (as the authors' `alpha_find`; an empirical
//! Bayes step, not a draw). Word probabilities are posterior medians of
//! `logit⁻¹(θ_i)` (every 10th draw after burn-in kept for the median).

use super::graph::WordGraph;
use super::vbss::check_labels_y;
use crate::error::{Error, Result};
use crate::numerics::gamma::gamma_draw;
use crate::numerics::linalg::{lu_inverse, lu_solve, mat_vec};
use crate::numerics::sigmoid;
use crate::sampling::rng::stream;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

/// Settings of [`fit_bss`] (the authors' values by default).
#[derive(Debug, Clone, Copy)]
pub struct BssOptions {
    /// Damping `d`.
    pub damping: f64,
    /// Iterations (the authors: 50,000).
    pub iterations: usize,
    /// Burn-in (the authors: 2,000).
    pub burn_in: usize,
    /// Seed.
    pub seed: u64,
    /// A fixed `α` instead of the authors' per-iteration maximiser (the
    /// sampler then targets the posterior given `α`; used by the
    /// simulation-based calibration test).
    pub fixed_alpha: Option<f64>,
    /// Shape and rate of the inverse-gamma prior on `σ²` (the authors:
    /// 0.001 and 0.001).
    pub sigma2_prior: (f64, f64),
}

impl Default for BssOptions {
    fn default() -> Self {
        BssOptions {
            damping: 0.85,
            iterations: 50_000,
            burn_in: 2_000,
            seed: 1,
            fixed_alpha: None,
            sigma2_prior: (0.001, 0.001),
        }
    }
}

/// Result of [`fit_bss`].
#[derive(Debug, Clone)]
pub struct BssFit {
    /// Posterior median of `logit⁻¹(θ_i)`.
    pub p_median: Vec<f64>,
    /// Posterior mean of `logit⁻¹(θ_i)`.
    pub p_mean: Vec<f64>,
    /// Metropolis acceptance rate of the θ step.
    pub acceptance: f64,
    /// Mean of the grid-maximised α over the kept iterations.
    pub alpha: f64,
    /// Every 10th draw of `logit⁻¹(θ_i)` after burn-in, per word, in
    /// chain order.
    pub p_draws: Vec<Vec<f64>>,
}

fn log_lik(theta: &[f64], y: &[bool], alpha: f64) -> f64 {
    let la = (1.0 - alpha).ln();
    theta
        .iter()
        .zip(y)
        .map(|(&t, &yi)| {
            // ln p of p = logit⁻¹(t), stably.
            let lp = if t > 0.0 {
                -(-t).exp().ln_1p()
            } else {
                t - t.exp().ln_1p()
            };
            if yi {
                la + lp
            } else {
                // ln(1 − (1 − α)p) = ln(α p + (1 − p)).
                let p = sigmoid(t);
                (1.0 - (1.0 - alpha) * p).max(1e-300).ln()
            }
        })
        .sum()
}

/// The grid point (0.01, 0.02, …, 0.99) maximising the likelihood in α,
/// as the authors' `alpha_find`. The log-likelihood is concave in α
/// (its second derivative is `−k/(1−α)² − Σ p_i²/(1 − (1−α)p_i)²`), so
/// the grid maximiser is a neighbour of the continuous one: found by
/// bisection on the derivative, then the two bracketing grid points
/// compared — O(n log) instead of 99 passes over the words.
fn best_alpha(theta: &[f64], y: &[bool]) -> f64 {
    let p: Vec<f64> = theta.iter().map(|&t| sigmoid(t)).collect();
    let k = y.iter().filter(|&&v| v).count() as f64;
    let deriv = |a: f64| -> f64 {
        let mut d = -k / (1.0 - a);
        for (pi, &yi) in p.iter().zip(y) {
            if !yi {
                d += pi / (1.0 - (1.0 - a) * pi).max(1e-300);
            }
        }
        d
    };
    let (mut lo, mut hi) = (0.01, 0.99);
    if deriv(lo) <= 0.0 {
        return 0.01;
    }
    if deriv(hi) >= 0.0 {
        return 0.99;
    }
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if deriv(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let g_lo = ((lo * 100.0).floor() / 100.0).clamp(0.01, 0.99);
    let g_hi = (g_lo + 0.01).min(0.99);
    if log_lik(theta, y, g_hi) > log_lik(theta, y, g_lo) {
        g_hi
    } else {
        g_lo
    }
}

/// `B = I − dGᵀ`, `G = D⁻¹A` (an isolated word's row of `G` is zero): the
/// TextRank system `Bu = (1 − d)1` and BSS's prior precision shape `BᵀB`.
fn textrank_operator(graph: &WordGraph, d: f64) -> DMatrix<f64> {
    let n = graph.len();
    let deg = graph.degrees();
    DMatrix::from_fn(n, n, |i, j| {
        let g = if deg[j] > 0.0 {
            graph.adjacency[(j, i)] / deg[j]
        } else {
            0.0
        };
        (if i == j { 1.0 } else { 0.0 }) - d * g
    })
}

/// Most sweeps of a BSS run: every tenth draw of every word is kept in
/// memory for the medians (a million sweeps of a 300-word document keep
/// 240 MB); the dissertation's runs take 50,000.
pub const MAX_ITERATIONS: usize = 1_000_000;

impl BssOptions {
    /// The sweep counts: at most [`MAX_ITERATIONS`], and more than 10
    /// beyond the burn-in (compared without overflow). `iterations` and
    /// `burn_in` are how the caller's front end names the two fields
    /// (`keywords evaluate` calls them `bss_iterations`, `bss_burn_in`).
    pub fn check_counts(&self, iterations: &str, burn_in: &str) -> Result<()> {
        let (it, burn) = (self.iterations, self.burn_in);
        if it > MAX_ITERATIONS {
            return Err(Error::param(
                iterations,
                format!("at most {MAX_ITERATIONS}, got {it}"),
            ));
        }
        if it <= burn.saturating_add(10) {
            return Err(Error::param(
                iterations,
                format!("must exceed `{burn_in}` = {burn} by more than 10"),
            ));
        }
        Ok(())
    }
}

/// Run BSS on one document.
pub fn fit_bss(graph: &WordGraph, y: &[bool], opts: &BssOptions) -> Result<BssFit> {
    let d = opts.damping;
    super::scores::check_damping(d)?;
    opts.check_counts("iterations", "burn_in")?;
    check_labels_y(y)?;
    if let Some(a) = opts.fixed_alpha
        && !(a > 0.0 && a < 1.0)
    {
        return Err(Error::param(
            "alpha",
            format!(
                "a fixed α must lie strictly between 0 and 1, got {}",
                crate::error::show_number(a)
            ),
        ));
    }
    let (shape, rate) = opts.sigma2_prior;
    if !(shape > 0.0 && rate > 0.0 && shape.is_finite() && rate.is_finite()) {
        return Err(Error::param(
            "sigma2_prior",
            format!("shape and rate must be positive, got ({shape}, {rate})"),
        ));
    }
    let n = graph.len();
    let b = textrank_operator(graph, d);
    let binv = lu_inverse(&b).ok_or_else(|| Error::Numerical("B = I − dGᵀ is singular".into()))?;
    let u0: Vec<f64> = lu_solve(&b, &DVector::from_element(n, 1.0 - d))
        .ok_or_else(|| Error::Numerical("B = I − dGᵀ is singular".into()))?
        .iter()
        .copied()
        .collect();
    // Start: logit of the SS scores B*⁻¹y (B* = I − dQ), clipped to
    // [1e-6, 0.99] (the authors clip at 0.99 and let log 0 fall to −700).
    let q = graph.normalised();
    let bstar = DMatrix::identity(n, n) - q * d;
    let yv = DVector::from_fn(n, |i, _| if y[i] { 1.0 } else { 0.0 });
    let base =
        lu_solve(&bstar, &yv).ok_or_else(|| Error::Numerical("I − dQ is singular".into()))?;
    let mut theta: Vec<f64> = base
        .iter()
        .map(|&v| {
            let v = v.clamp(1e-6, 0.99);
            (v / (1.0 - v)).ln()
        })
        .collect();
    let c_of = |t: &[f64]| -> f64 {
        let diff: Vec<f64> = t.iter().zip(&u0).map(|(a, b)| a - b).collect();
        mat_vec(&b, &diff, false).iter().map(|v| v * v).sum()
    };
    let mut rng = stream(opts.seed, &[0x0042_5353]);
    let next_alpha = |t: &[f64]| opts.fixed_alpha.unwrap_or_else(|| best_alpha(t, y));
    let mut alpha = next_alpha(&u0);
    let mut c = c_of(&theta);
    let mut accepted = 0usize;
    let keep_every = 10;
    let kept_n = (opts.iterations - opts.burn_in).div_ceil(keep_every);
    let mut kept: Vec<Vec<f64>> = vec![Vec::with_capacity(kept_n); n];
    let mut sum = vec![0.0; n];
    let mut count = 0usize;
    let mut alpha_sum = 0.0;
    let nf = n as f64;
    for it in 0..opts.iterations {
        let s2 = 1.0 / gamma_draw(&mut rng, nf / 2.0 + shape, c / 2.0 + rate).max(1e-300);
        let e: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
        let step = mat_vec(&binv, &e, false);
        let scale = (4.0 * s2 / nf).sqrt();
        let prop: Vec<f64> = theta
            .iter()
            .zip(&step)
            .map(|(t, s)| (t + scale * s).clamp(-700.0, 700.0))
            .collect();
        let cp = c_of(&prop);
        let lr =
            log_lik(&prop, y, alpha) - cp / (2.0 * s2) - log_lik(&theta, y, alpha) + c / (2.0 * s2);
        if rng.random::<f64>().ln() < lr {
            theta = prop;
            c = cp;
            accepted += 1;
        }
        alpha = next_alpha(&theta);
        if it >= opts.burn_in {
            for i in 0..n {
                let p = sigmoid(theta[i]);
                sum[i] += p;
                if (it - opts.burn_in).is_multiple_of(keep_every) {
                    kept[i].push(p);
                }
            }
            count += 1;
            alpha_sum += alpha;
        }
    }
    let p_median = kept
        .iter()
        .map(|v| {
            let mut v = v.clone();
            v.sort_by(f64::total_cmp);
            let m = v.len();
            if m % 2 == 1 {
                v[m / 2]
            } else {
                0.5 * (v[m / 2 - 1] + v[m / 2])
            }
        })
        .collect();
    Ok(BssFit {
        p_median,
        p_mean: sum.iter().map(|s| s / count as f64).collect(),
        acceptance: accepted as f64 / opts.iterations as f64,
        alpha: alpha_sum / count as f64,
        p_draws: kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// Simulation-based calibration (Talts et al. 2018) of the sampler with
    /// α fixed (the authors' α step maximises instead of sampling, so the
    /// check is of the σ² Gibbs step and the θ Metropolis step): σ² from
    /// an inverse-gamma prior, `θ ~ N(u₀, σ²(BᵀB)⁻¹)`, labels from the
    /// model (a keyword is observed with probability `(1 − α)p_i`),
    /// conditioned on at least one known and one unlabelled word; the rank
    /// of each word's true `logit⁻¹(θ_i)` among thinned draws must be
    /// uniform. (1,000 data sets and 40,000 sweeps per chain, run once
    /// outside CI: χ² 4.3–23.1 over the eight words, no bin pattern.)
    #[test]
    fn bss_sampler_passes_simulation_based_calibration() {
        let toks = [
            "a", "b", "c", "a", "d", "e", "b", "f", "c", "g", "a", "h", "d", "e", "f", "b",
        ];
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let n = g.len();
        let d = 0.85;
        let b = textrank_operator(&g, d);
        let binv = b.clone().try_inverse().unwrap();
        let u0: Vec<f64> = (&binv * DVector::from_element(n, 1.0 - d))
            .iter()
            .copied()
            .collect();
        let (shape, rate, alpha) = (3.0, 2.0, 0.4);
        let reps = 200;
        let draws = 99;
        let ranks: Vec<Vec<usize>> = (0..reps)
            .into_par_iter()
            .map(|r| {
                let mut rng = stream(91, &[r as u64]);
                loop {
                    let s2 = 1.0 / gamma_draw(&mut rng, shape, rate);
                    let e: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
                    let dev = mat_vec(&binv, &e, false);
                    let theta: Vec<f64> = u0
                        .iter()
                        .zip(&dev)
                        .map(|(u, v)| u + s2.sqrt() * v)
                        .collect();
                    let y: Vec<bool> = theta
                        .iter()
                        .map(|&t| rng.random::<f64>() < (1.0 - alpha) * sigmoid(t))
                        .collect();
                    if check_labels_y(&y).is_err() {
                        continue;
                    }
                    let fit = fit_bss(
                        &g,
                        &y,
                        &BssOptions {
                            damping: d,
                            iterations: 13_000,
                            burn_in: 3_000,
                            seed: r as u64,
                            fixed_alpha: Some(alpha),
                            sigma2_prior: (shape, rate),
                        },
                    )
                    .unwrap();
                    return (0..n)
                        .map(|i| {
                            let kept = &fit.p_draws[i];
                            let step = kept.len() / draws;
                            (0..draws)
                                .filter(|&j| kept[j * step] < sigmoid(theta[i]))
                                .count()
                        })
                        .collect();
                }
            })
            .collect();
        for i in 0..n {
            let bins = crate::stats::rank_histogram(ranks.iter().map(|r| r[i]), draws, 10);
            let chi2 = crate::stats::uniform_chi2(&bins);
            eprintln!("SBC θ[{i}]: bins {bins:?} chi2 {chi2:.1}");
            // χ²₉ 99.9% quantile.
            assert!(chi2 < 27.88, "θ[{i}]: χ² {chi2:.1}, bins {bins:?}");
        }
    }

    #[test]
    fn a_fixed_alpha_and_the_sigma2_prior_are_checked() {
        let g = WordGraph::from_tokens(&["a", "b", "c", "a", "b"], 2, false).unwrap();
        let y = [true, false, false];
        for (alpha, prior, field) in [
            (Some(1.0), (0.001, 0.001), "alpha"),
            (Some(f64::NAN), (0.001, 0.001), "alpha"),
            (None, (0.0, 1.0), "sigma2_prior"),
            (None, (1.0, f64::INFINITY), "sigma2_prior"),
        ] {
            let o = BssOptions {
                iterations: 100,
                burn_in: 10,
                fixed_alpha: alpha,
                sigma2_prior: prior,
                ..BssOptions::default()
            };
            let e = fit_bss(&g, &y, &o).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
    }

    #[test]
    fn alpha_search_equals_the_authors_grid_scan() {
        let mut rng = stream(3, &[1]);
        for _ in 0..50 {
            let n = 40;
            let theta: Vec<f64> = (0..n)
                .map(|_| 3.0 * Distribution::<f64>::sample(&StandardNormal, &mut rng) - 1.0)
                .collect();
            let y: Vec<bool> = (0..n).map(|_| rng.random::<f64>() < 0.2).collect();
            let mut best = (f64::NEG_INFINITY, 0.0);
            for g in 1..100 {
                let a = g as f64 / 100.0;
                let l = log_lik(&theta, &y, a);
                if l > best.0 {
                    best = (l, a);
                }
            }
            let got = best_alpha(&theta, &y);
            assert!(
                (got - best.1).abs() < 1e-9 || (log_lik(&theta, &y, got) - best.0).abs() < 1e-9,
                "{got} vs {}",
                best.1
            );
        }
    }

    #[test]
    fn bss_ranks_the_known_neighbourhood_first() {
        let toks: Vec<String> = "a b c a d e b f c g a h d i e j k b l c m n o p q r s t u v w"
            .split(' ')
            .map(String::from)
            .collect();
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let mut y = vec![false; g.len()];
        y[0] = true;
        let f = fit_bss(
            &g,
            &y,
            &BssOptions {
                iterations: 4000,
                burn_in: 1000,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(
            f.acceptance > 0.05 && f.acceptance < 0.95,
            "{}",
            f.acceptance
        );
        assert!(f.p_median.iter().all(|p| (0.0..=1.0).contains(p)));
        assert!(f.p_median[0] > f.p_median[g.len() - 1]);
    }
}
