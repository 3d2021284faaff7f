//! Gibbs sampler for the PL regression classifier (Archambeau & Caron 2012 §3.3, eqs
//! 11–13): `C_i | Y_i, λ ~ Disc(W_ij λ_{Y_i j} / W_iᵀλ_{Y_i})`,
//! `Z_i | λ ~ Exp(W_iᵀ Σ_l λ_l)`, `λ_kj | C, Z ~ Gam(a + n_kj, b + Σ_i Z_i W_ij)`.
//!
//! Options of §3.5: the total-mass move (draw `Λ = Σλ` from its posterior
//! `Gam(K p a, b)`, which equals its prior because the likelihood is
//! scale-free, and rescale; on by default) and a Metropolis step for `a`
//! under `p(a) ∝ 1/a` (random walk on log a, step size adapted during
//! burn-in only). Weights are drawn in log space (shapes `a + n_kj` can be
//! tiny). Chains run in parallel, each from its own counter-based stream,
//! so output depends only on the seed.

use super::data::ClassData;
use crate::error::Result;
use crate::numerics::gamma::{exp_draw, ln_gamma_draw};
use crate::numerics::special::ln_gamma;
use crate::observer::{self, SharedObserver};
use crate::posterior::diagnostics::{ScalarDiagnostics, diagnose, ess_geyer};
use crate::sampling::mcmc::McmcSettings;
use crate::sampling::rng::stream;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

/// Prior on the Gamma shape `a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// Fixed value.
    Fixed(f64),
    /// `p(a) ∝ 1/a`, sampled by Metropolis from this starting value.
    Sampled(f64),
}

impl Shape {
    /// Starting (or fixed) value.
    pub fn value(self) -> f64 {
        match self {
            Shape::Fixed(a) | Shape::Sampled(a) => a,
        }
    }
}

/// Settings.
#[derive(Clone)]
pub struct ClassifierGibbsOptions {
    /// Shape of the Gamma prior.
    pub a: Shape,
    /// Rate of the Gamma prior.
    pub b: f64,
    /// Draws, burn-in, thinning, chains, seed.
    pub mcmc: McmcSettings,
    /// Total-mass move.
    pub rescale: bool,
    /// Told of finished sweeps (progress bars); may cancel the run.
    pub observer: Option<SharedObserver>,
}

impl std::fmt::Debug for ClassifierGibbsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassifierGibbsOptions")
            .field("a", &self.a)
            .field("b", &self.b)
            .field("mcmc", &self.mcmc)
            .field("rescale", &self.rescale)
            .finish()
    }
}

impl Default for ClassifierGibbsOptions {
    fn default() -> Self {
        ClassifierGibbsOptions {
            a: Shape::Sampled(1.0),
            b: 1.0,
            mcmc: McmcSettings::new(5000, 5000, 4, 1),
            rescale: true,
            observer: None,
        }
    }
}

/// Result of [`gibbs`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GibbsFit {
    /// Classes.
    pub k: usize,
    /// Transformed features.
    pub p: usize,
    /// Per chain: kept draws of the normalised weights `λ/Σλ`, row-major
    /// `samples × (K p)`.
    pub draws: Vec<Vec<f64>>,
    /// Per chain: the kept draws of `a`.
    pub a_draws: Vec<Vec<f64>>,
    /// Acceptance rate of the `a` step after burn-in (sampled `a` only).
    pub a_acceptance: Option<f64>,
    /// Diagnostics of every normalised weight.
    pub diagnostics: Vec<ScalarDiagnostics>,
    /// Sweeps per chain: burn-in plus kept draws × thinning (0 in a fit
    /// saved before it was recorded).
    #[serde(default)]
    pub sweeps: usize,
}

impl GibbsFit {
    /// Draws kept per chain.
    pub fn per_chain(&self) -> usize {
        self.draws
            .first()
            .map_or(0, |c| c.len() / (self.k * self.p))
    }

    /// Smallest bulk ESS over the weights.
    pub fn min_ess(&self) -> f64 {
        self.diagnostics
            .iter()
            .map(|d| d.ess_bulk)
            .fold(f64::INFINITY, f64::min)
    }

    /// Smallest ESS over the weights by the estimator of Archambeau & Caron 2012 Table 3
    /// ([`ess_geyer`]: raw draws, Geyer's initial monotone sequence).
    pub fn min_ess_geyer(&self) -> f64 {
        let (m, per) = (self.k * self.p, self.per_chain());
        (0..m)
            .map(|q| {
                let chains: Vec<Vec<f64>> = self
                    .draws
                    .iter()
                    .map(|d| (0..per).map(|s| d[s * m + q]).collect())
                    .collect();
                ess_geyer(&chains)
            })
            .filter(|v| v.is_finite())
            .fold(f64::INFINITY, f64::min)
    }

    /// Largest R̂ over the weights.
    pub fn max_rhat(&self) -> f64 {
        self.diagnostics
            .iter()
            .map(|d| d.rhat)
            .filter(|r| r.is_finite())
            .fold(1.0, f64::max)
    }

    /// Posterior means of the normalised weights.
    pub fn mean(&self) -> Vec<f64> {
        let m = self.k * self.p;
        let mut s = vec![0.0; m];
        let mut count = 0usize;
        for c in &self.draws {
            for d in c.chunks(m) {
                s.iter_mut().zip(d).for_each(|(a, b)| *a += b);
                count += 1;
            }
        }
        s.iter().map(|v| v / count.max(1) as f64).collect()
    }

    /// Posterior medians of the normalised weights.
    pub fn median(&self) -> Vec<f64> {
        let m = self.k * self.p;
        (0..m)
            .map(|q| {
                let mut v: Vec<f64> = self
                    .draws
                    .iter()
                    .flat_map(|c| c.chunks(m).map(move |d| d[q]))
                    .collect();
                v.sort_by(f64::total_cmp);
                if v.is_empty() {
                    f64::NAN
                } else {
                    v[v.len() / 2]
                }
            })
            .collect()
    }
}

/// `log p(a | λ)` up to a constant, in the log-a parametrisation (the
/// `1/a` prior cancels the Jacobian): `Kp(a ln b − lnΓ(a)) + (a − 1) Σ ln λ`.
fn log_target_a(a: f64, m: f64, b: f64, sum_ln: f64) -> f64 {
    m * (a * b.ln() - ln_gamma(a)) + (a - 1.0) * sum_ln
}

fn run_chain(
    data: &ClassData,
    opts: &ClassifierGibbsOptions,
    chain: usize,
) -> Result<(Vec<f64>, Vec<f64>, usize)> {
    let mc = &opts.mcmc;
    let (p, k, n) = (data.p, data.k, data.n);
    let m = k * p;
    let mut rng = stream(mc.seed, &[0x434c_4153, chain as u64]);
    let mut a = opts.a.value();
    // Start from a prior draw (over-dispersed across chains).
    let mut lnlam: Vec<f64> = (0..m)
        .map(|_| ln_gamma_draw(&mut rng, a.max(0.5), opts.b))
        .collect();
    let mut lam = vec![0.0; m];
    let mut col = vec![0.0; p];
    let mut cnt = vec![0.0; m];
    let mut t = vec![0.0; p];
    let mut cum = vec![0.0; p];
    let total = mc.sweeps();
    let mut draws = Vec::with_capacity(mc.samples * m);
    let mut a_draws = Vec::with_capacity(mc.samples);
    let mut log_step = 0.5f64;
    let mut accepted = 0usize;
    for sweep in 0..total {
        let mx = lnlam.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for q in 0..m {
            lam[q] = (lnlam[q] - mx).exp();
        }
        col.iter_mut().for_each(|v| *v = 0.0);
        for c in 0..k {
            for j in 0..p {
                col[j] += lam[c * p + j];
            }
        }
        cnt.iter_mut().for_each(|v| *v = 0.0);
        t.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..n {
            let w = data.row(i);
            let y = data.y[i];
            let ly = &lam[y * p..(y + 1) * p];
            let mut acc = 0.0;
            for j in 0..p {
                acc += w[j] * ly[j];
                cum[j] = acc;
            }
            let u = rng.random::<f64>() * acc;
            let j = cum.partition_point(|&c| c <= u).min(p - 1);
            cnt[y * p + j] += 1.0;
            let s: f64 = w.iter().zip(&col).map(|(a, b)| a * b).sum();
            // Z_i ~ Exp(W_iᵀΣλ) on the scale of `lam` (= λ e^{-mx}); the
            // rate of λ's conditional is then t_j e^{-mx}.
            let z = exp_draw(&mut rng, s);
            for j in 0..p {
                t[j] += z * w[j];
            }
        }
        // log of the rate b + Σ_i Z_i W_ij on λ's own scale, without
        // forming e^{−mx} (which can overflow when the weights are tiny).
        let ln_b = opts.b.ln();
        for j in 0..p {
            cum[j] = crate::numerics::log_add_exp(ln_b, t[j].ln() - mx);
        }
        for c in 0..k {
            for j in 0..p {
                lnlam[c * p + j] = ln_gamma_draw(&mut rng, a + cnt[c * p + j], 1.0) - cum[j];
            }
        }
        if opts.rescale {
            let ln_total = crate::numerics::log_sum_exp(&lnlam);
            let new = ln_gamma_draw(&mut rng, m as f64 * a, opts.b);
            lnlam.iter_mut().for_each(|v| *v += new - ln_total);
        }
        if let Shape::Sampled(_) = opts.a {
            let sum_ln: f64 = lnlam.iter().sum();
            let e: f64 = StandardNormal.sample(&mut rng);
            let prop = a * (log_step * e).exp();
            let r = log_target_a(prop, m as f64, opts.b, sum_ln)
                - log_target_a(a, m as f64, opts.b, sum_ln);
            let ok = rng.random::<f64>().ln() < r;
            if ok {
                a = prop;
            }
            if sweep < mc.burn_in {
                // Robbins–Monro towards 44% acceptance, burn-in only.
                let g = 1.0 / (1.0 + sweep as f64).sqrt();
                log_step = (log_step.ln() + g * ((ok as u8 as f64) - 0.44))
                    .exp()
                    .clamp(1e-3, 5.0);
            } else if ok {
                accepted += 1;
            }
        }
        if mc.keeps(sweep) {
            let ln_total = crate::numerics::log_sum_exp(&lnlam);
            draws.extend(lnlam.iter().map(|v| (v - ln_total).exp()));
            a_draws.push(a);
        }
        if sweep % 256 == 255 {
            observer::advance(opts.observer.as_ref(), 256)?;
        }
    }
    Ok((draws, a_draws, accepted))
}

/// Run the sampler.
pub fn gibbs(data: &ClassData, opts: &ClassifierGibbsOptions) -> Result<GibbsFit> {
    super::check_gamma(opts.a.value(), opts.b)?;
    let mc = opts.mcmc.check()?;
    let out: Vec<(Vec<f64>, Vec<f64>, usize)> = (0..mc.chains)
        .into_par_iter()
        .map(|c| run_chain(data, opts, c))
        .collect::<Result<_>>()?;
    let m = data.k * data.p;
    let per = mc.samples;
    let diagnostics = (0..m)
        .map(|q| {
            let chains: Vec<Vec<f64>> = out
                .iter()
                .map(|(d, _, _)| (0..per).map(|s| d[s * m + q]).collect())
                .collect();
            diagnose(&chains)
        })
        .collect();
    let a_acceptance = matches!(opts.a, Shape::Sampled(_)).then(|| {
        out.iter().map(|o| o.2).sum::<usize>() as f64 / (per * mc.thin.max(1) * mc.chains) as f64
    });
    Ok(GibbsFit {
        k: data.k,
        p: data.p,
        a_acceptance,
        draws: out.iter().map(|o| o.0.clone()).collect(),
        a_draws: out.into_iter().map(|o| o.1).collect(),
        diagnostics,
        sweeps: mc.sweeps(),
    })
}
