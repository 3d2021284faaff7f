//! Posterior sampling for the adherence model (see [`super::adherence`]):
//! log-worths `θ` and each ranker's adherence `η_r ~ Gamma(shape, rate)`,
//! where ranker `r` chooses `i` from `S` with probability
//! `exp(η_r θ_i) / Σ_{j∈S} exp(η_r θ_j)`.
//!
//! One sweep:
//! 1. **latent times** (Caron & Doucet 2012, as the single-population
//!    sampler): for every ranking, hidden orders of its unknown-order
//!    groups and one exponential time per stage, `Z_s ~ Exp(D_s)` with
//!    `D_s = Σ_{j in play} exp(η_r θ_j)`. Given them the likelihood
//!    factorises over items, `Π_r exp(η_r W_ri θ_i − E_ri e^{η_r θ_i})`
//!    (`W` stage wins, `E` the summed times of the stages `i` was in play);
//! 2. each **log-worth** from that conditional (log-concave; a univariate
//!    slice sampler, Neal 2003), with its prior: none (the gauge fixes the
//!    first item at 0), or `θ = log λ` with `λ ~ Gamma(a, b)`: density
//!    `aθ − b e^θ`; the ghost item of pseudo-rankings stays at 0;
//! 3. each **adherence** from `Π_i exp(η W_ri θ_i − E_ri e^{η θ_i})` times
//!    its Gamma prior (log-concave for shape ≥ 1; slice sampler);
//! 4. a **scale move** `θ → sθ, η → η/s` (Metropolis–Hastings, `log s`
//!    normal): the likelihood of the real rankings depends on `η_r θ` only,
//!    so this moves along the ridge that steps 2 and 3 cross slowly.
//!
//! Chains start near the MAP of [`super::adherence::fit_adherence`], each
//! with its own counter-based random streams (the output depends on the
//! seed alone, not on the thread count). Reported log-worths are centred
//! (or on the prior's scale under a worth prior), as the MAP's.

use super::adherence::{AdherenceFit, AdherenceOptions, check, fit_adherence, setup};
use super::gibbs::{Work, sweep_observation};
use super::mcmc::McmcSettings;
use super::rng::{Rng, stream};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::pl;
use crate::numerics::slice::slice_step;
use crate::observer::{self, SharedObserver};
use crate::posterior::diagnostics::diagnose;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

/// Posterior summaries of the adherence model (Bayesian engine).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AdherencePosterior {
    /// Posterior mean of each (reported) log-worth.
    pub log_worth_mean: Vec<f64>,
    /// Posterior sd of each log-worth.
    pub log_worth_sd: Vec<f64>,
    /// 5% and 95% posterior quantiles of each log-worth.
    pub log_worth_interval: Vec<[f64; 2]>,
    /// Posterior mean of each ranker's adherence.
    pub adherence_mean: Vec<f64>,
    /// Posterior sd of each adherence.
    pub adherence_sd: Vec<f64>,
    /// 5% and 95% posterior quantiles of each adherence.
    pub adherence_interval: Vec<[f64; 2]>,
    /// Largest split-R̂ over log-worths and adherences.
    pub rhat_max: f64,
    /// Smallest bulk/tail ESS over the same quantities.
    pub ess_min: f64,
    /// Chains.
    pub chains: usize,
    /// Draws kept per chain.
    pub draws_per_chain: usize,
    /// Acceptance rate of the scale move.
    pub scale_acceptance: f64,
    /// Log-worth draws, `[chain][draw][item]` (reported gauge).
    #[serde(skip)]
    pub log_worth_draws: Vec<Vec<Vec<f64>>>,
    /// Adherence draws, `[chain][draw][ranker]`.
    #[serde(skip)]
    pub adherence_draws: Vec<Vec<Vec<f64>>>,
}

/// Settings of [`adherence_gibbs`].
#[derive(Clone)]
pub struct AdherenceGibbsOptions {
    /// The model: priors, pseudo-rankings (fixed adherences are refused:
    /// use the single-population sampler on the rescaled data instead).
    pub model: AdherenceOptions,
    /// Draws, burn-in, thinning, chains, seed.
    pub mcmc: McmcSettings,
    /// Progress and cancellation (one unit per sweep).
    pub observer: Option<SharedObserver>,
}

/// One ranker's (or the pseudo unit's) sufficient statistics given the
/// latent times: per touched item, its stage wins and summed in-play times
/// on the ranker's scale `exp(η θ_i − shift)`.
#[derive(Default, Clone)]
struct UnitTimes {
    items: Vec<u32>,
    wins: Vec<f64>,
    times: Vec<f64>,
    /// `η_r · max θ` at the draw of the times.
    shift: f64,
}

/// Per-thread scratch of the latent-time pass.
struct Buf {
    lam: Vec<f64>,
    wins: Vec<f64>,
    mark: Vec<bool>,
    work: Work,
}

/// Sample the adherence model's posterior (see the module docs). The
/// result is the MAP fit (its point estimates, log-likelihood and
/// notes) with [`AdherenceFit::posterior`] filled in.
pub fn adherence_gibbs(ds: &Dataset, opts: &AdherenceGibbsOptions) -> Result<AdherenceFit> {
    if opts.model.fixed.is_some() {
        return Err(Error::Unsupported(
            "sampling with fixed adherences: the model is then the ordinary one with each \
             ranker's log-worths scaled; estimate the adherences (drop --fixed-adherence) or \
             use a point engine"
                .into(),
        ));
    }
    check(ds, &opts.model)?;
    let mcmc = opts.mcmc.check()?;
    for o in 0..ds.n_obs() {
        let w = ds.obs(o).weight;
        if ds.fast_stages(o).is_none() && w.fract() != 0.0 {
            return Err(Error::Unsupported(format!(
                "observation {} has ties and weight {w}: the sampler draws one hidden order per \
                 counted ranking, so tied rankings need integer weights",
                o + 1
            )));
        }
    }
    // The start (and the reported point estimate): the MAP. Progress counts
    // sweeps only.
    let map = fit_adherence(
        ds,
        &AdherenceOptions {
            observer: None,
            ..opts.model.clone()
        },
    )?;
    let st = setup(ds, &opts.model)?;
    if st.ghost.is_none() && opts.model.worth_prior.is_none() {
        // Flat prior on the log-worths: the likelihood is unchanged by
        // θ → sθ, η → η/s, and only the adherences' prior bounds the
        // posterior along that ridge; it is proper when
        // rankers × shape > items − 1 (integrate the ridge's scale).
        let (r, n) = (st.names.len() as f64, ds.n_items() as f64);
        if r * opts.model.prior_shape <= n - 1.0 {
            return Err(Error::not_identifiable(format!(
                "with no worth prior the adherence posterior is improper here ({r} rankers × \
                 adherence shape {} ≤ {n} items − 1); add a Gamma worth prior or pseudo-rankings",
                opts.model.prior_shape
            )));
        }
    }
    let n = st.work.n_items();
    let n_real = ds.n_items();
    // Start: the MAP in the sampler's gauge.
    let mut theta0 = vec![0.0; n];
    theta0[..n_real].copy_from_slice(&map.log_worths);
    let gauge_free = st.ghost.is_none() && opts.model.worth_prior.is_none();
    if gauge_free {
        let t0 = theta0[0];
        theta0.iter_mut().for_each(|t| *t -= t0);
    }
    let fixed_item = if gauge_free { Some(0) } else { st.ghost };
    let model = Model {
        ds: &st.work,
        units: &st.units,
        n,
        n_rankers: st.names.len(),
        fixed_item,
        opts: &opts.model,
    };
    let chains: Vec<Result<ChainOut>> = (0..mcmc.chains)
        .into_par_iter()
        .map(|c| model.run_chain(&theta0, &map.adherence, &mcmc, c as u64, opts))
        .collect();
    let chains: Vec<ChainOut> = chains.into_iter().collect::<Result<_>>()?;
    let mut fit = map;
    fit.posterior = Some(summarise(chains, n_real, gauge_free, &mcmc));
    // A sampler's iterations are its sweeps per chain (the envelope's
    // meaning), not the MAP start's optimiser steps.
    fit.iterations = mcmc.sweeps();
    Ok(fit)
}

struct Model<'a> {
    ds: &'a Dataset,
    units: &'a [Vec<usize>],
    n: usize,
    n_rankers: usize,
    /// The item held at 0 (the gauge or the ghost), if any.
    fixed_item: Option<usize>,
    opts: &'a AdherenceOptions,
}

struct ChainOut {
    theta: Vec<Vec<f64>>,
    eta: Vec<Vec<f64>>,
    accepted: usize,
    proposed: usize,
}

/// Units per parallel block: fixed, so the streams and the reduction
/// order do not depend on the thread count.
const BLOCK: usize = 64;

impl Model<'_> {
    fn eta_of(&self, eta: &[f64], u: usize) -> f64 {
        if u < self.n_rankers { eta[u] } else { 1.0 }
    }

    /// Step 1: latent times of every unit at `(theta, eta)`.
    fn latent_times(&self, theta: &[f64], eta: &[f64], rng_path: &[u64]) -> Vec<UnitTimes> {
        let theta_max = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let idx: Vec<usize> = (0..self.units.len()).collect();
        idx.par_chunks(BLOCK)
            .map(|blk| {
                let mut b = Buf {
                    lam: vec![0.0; self.n],
                    wins: vec![0.0; self.n],
                    mark: vec![false; self.n],
                    work: Work::new(self.n),
                };
                blk.iter()
                    .map(|&u| {
                        let mut path = rng_path.to_vec();
                        path.push(u as u64);
                        let mut rng = stream(path[0], &path[1..]);
                        self.unit_times(u, theta, theta_max, self.eta_of(eta, u), &mut b, &mut rng)
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .collect()
    }

    fn unit_times(
        &self,
        u: usize,
        theta: &[f64],
        theta_max: f64,
        eta: f64,
        b: &mut Buf,
        rng: &mut Rng,
    ) -> UnitTimes {
        let ds = self.ds;
        let obs = &self.units[u];
        let shift = eta * theta_max;
        let mut touched: Vec<u32> = Vec::new();
        let total = super::adherence::scaled_worths(
            ds,
            obs,
            theta,
            (eta, shift),
            &mut b.mark,
            &mut b.lam,
            &mut touched,
        );
        let mut cu = 0.0;
        for &o in obs {
            let w = ds.obs(o).weight;
            cu += sweep_observation(ds, o, &b.lam, total, rng, &mut b.work, w);
            let wins = &mut b.wins;
            pl::for_each_winner(ds, o, |i| wins[i as usize] += w);
        }
        let mut out = UnitTimes {
            items: Vec::with_capacity(touched.len()),
            wins: Vec::with_capacity(touched.len()),
            times: Vec::with_capacity(touched.len()),
            shift,
        };
        for &i in &touched {
            let i_ = i as usize;
            let extra = if i_ < ds.universe() { cu } else { 0.0 };
            out.items.push(i);
            out.wins.push(b.wins[i_]);
            out.times.push(b.work.zden[i_] + extra);
            b.work.zden[i_] = 0.0;
            b.wins[i_] = 0.0;
            b.mark[i_] = false;
        }
        out
    }

    /// Log prior density of one log-worth `θ` (of `θ = log λ`).
    fn theta_log_prior(&self, t: f64) -> f64 {
        match self.opts.worth_prior {
            None => 0.0,
            Some((a, b)) => a * t - b * t.exp(),
        }
    }

    fn eta_log_prior(&self, e: f64) -> f64 {
        if e <= 0.0 {
            return f64::NEG_INFINITY;
        }
        (self.opts.prior_shape - 1.0) * e.ln() - self.opts.prior_rate * e
    }

    /// Log-likelihood of the pseudo unit (η = 1), which the scale move
    /// does not leave unchanged.
    fn pseudo_log_likelihood(&self, theta: &[f64]) -> f64 {
        let obs = &self.units[self.n_rankers];
        if obs.is_empty() {
            return 0.0;
        }
        let m = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let log_lam: Vec<f64> = theta.iter().map(|t| t - m).collect();
        let lam: Vec<f64> = log_lam.iter().map(|t| t.exp()).collect();
        let total: f64 = lam[..self.ds.universe()].iter().sum();
        let mut den = vec![0.0; self.n];
        let mut scratch = pl::Scratch::default();
        let mut ll = 0.0;
        for &o in obs {
            ll += pl::sweep_obs(
                self.ds,
                o,
                &lam,
                total,
                &mut den,
                &mut scratch,
                pl::Weights::of(self.ds, o),
            )
            .0;
            let w = self.ds.obs(o).weight;
            pl::for_each_winner(self.ds, o, |i| ll += w * log_lam[i as usize]);
        }
        ll
    }

    fn run_chain(
        &self,
        theta0: &[f64],
        eta0: &[f64],
        mcmc: &McmcSettings,
        chain: u64,
        opts: &AdherenceGibbsOptions,
    ) -> Result<ChainOut> {
        let seed = mcmc.seed;
        let tag = 0x4144_4845; // "ADHE"
        let mut theta = theta0.to_vec();
        let mut eta = eta0.to_vec();
        // Chains other than the first start dispersed around the MAP, so
        // that R̂ can see whether they meet.
        if chain > 0 {
            let mut r = stream(seed, &[tag, chain, u64::MAX]);
            for (i, t) in theta.iter_mut().enumerate() {
                if Some(i) != self.fixed_item {
                    *t += 0.5 * {
                        let z: f64 = StandardNormal.sample(&mut r);
                        z
                    };
                }
            }
            for e in eta.iter_mut() {
                *e *= (0.3 * {
                    let z: f64 = StandardNormal.sample(&mut r);
                    z
                })
                .exp();
            }
        }
        let sweeps = mcmc.burn_in + mcmc.samples * mcmc.thin;
        let mut out = ChainOut {
            theta: Vec::with_capacity(mcmc.samples),
            eta: Vec::with_capacity(mcmc.samples),
            accepted: 0,
            proposed: 0,
        };
        for sweep in 0..sweeps {
            observer::advance(opts.observer.as_ref(), 1)?;
            let s = sweep as u64;
            // 1. Latent times.
            let times = self.latent_times(&theta, &eta, &[seed, tag, chain, s, 1]);
            // Per item: (η_r, W_ri, E_ri, shift_r) of every unit touching it.
            let mut per_item: Vec<Vec<(f64, f64, f64, f64)>> = vec![Vec::new(); self.n];
            for (u, t) in times.iter().enumerate() {
                let e = self.eta_of(&eta, u);
                for k in 0..t.items.len() {
                    per_item[t.items[k] as usize].push((e, t.wins[k], t.times[k], t.shift));
                }
            }
            // 2. Log-worths, given the times (independent across items).
            let new_theta: Vec<f64> = (0..self.n)
                .into_par_iter()
                .map(|i| {
                    if Some(i) == self.fixed_item || per_item[i].is_empty() {
                        return theta[i];
                    }
                    let terms = &per_item[i];
                    let f = |x: f64| -> f64 {
                        let mut l = self.theta_log_prior(x);
                        for &(e, w, z, sh) in terms {
                            l += e * w * x - z * (e * x - sh).exp();
                        }
                        if l.is_nan() { f64::NEG_INFINITY } else { l }
                    };
                    let mut rng = stream(seed, &[tag, chain, s, 2, i as u64]);
                    slice_step(&mut rng, theta[i], f, 1.0, 50)
                })
                .collect();
            theta = new_theta;
            // 3. Adherences, given the times and the new log-worths.
            let new_eta: Vec<f64> = (0..self.n_rankers)
                .into_par_iter()
                .map(|r| {
                    let t = &times[r];
                    let f = |e: f64| -> f64 {
                        if e <= 0.0 {
                            return f64::NEG_INFINITY;
                        }
                        let mut l = self.eta_log_prior(e);
                        for k in 0..t.items.len() {
                            let th = theta[t.items[k] as usize];
                            l += e * t.wins[k] * th - t.times[k] * (e * th - t.shift).exp();
                        }
                        if l.is_nan() { f64::NEG_INFINITY } else { l }
                    };
                    let mut rng = stream(seed, &[tag, chain, s, 3, r as u64]);
                    slice_step(&mut rng, eta[r], f, 0.5, 50)
                })
                .collect();
            eta = new_eta;
            // 4. The scale move θ → sθ, η → η/s.
            let mut rng = stream(seed, &[tag, chain, s, 4]);
            let z: f64 = StandardNormal.sample(&mut rng);
            let log_s = 0.1 * z;
            let sc = log_s.exp();
            let free = (0..self.n).filter(|&i| Some(i) != self.fixed_item).count() as f64;
            let theta_p: Vec<f64> = theta.iter().map(|t| t * sc).collect();
            let mut log_ratio = (free - self.n_rankers as f64) * log_s;
            for (&a, &b) in theta_p.iter().zip(&theta) {
                log_ratio += self.theta_log_prior(a) - self.theta_log_prior(b);
            }
            for &e in &eta {
                log_ratio += self.eta_log_prior(e / sc) - self.eta_log_prior(e);
            }
            log_ratio += self.pseudo_log_likelihood(&theta_p) - self.pseudo_log_likelihood(&theta);
            out.proposed += 1;
            if rng.random::<f64>().ln() < log_ratio {
                theta = theta_p;
                eta.iter_mut().for_each(|e| *e /= sc);
                out.accepted += 1;
            }
            if sweep >= mcmc.burn_in && (sweep - mcmc.burn_in).is_multiple_of(mcmc.thin) {
                out.theta.push(theta.clone());
                out.eta.push(eta.clone());
            }
        }
        Ok(out)
    }
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (pos - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Means, sds, 90% intervals and diagnostics of a list of per-chain scalar
/// traces.
fn summary(per_chain: &[Vec<f64>]) -> (f64, f64, [f64; 2], f64, f64) {
    let mut all: Vec<f64> = per_chain.iter().flatten().copied().collect();
    let m = all.iter().sum::<f64>() / all.len() as f64;
    let v = all.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (all.len() - 1).max(1) as f64;
    all.sort_by(|a, b| a.total_cmp(b));
    let d = diagnose(per_chain);
    (
        m,
        v.sqrt(),
        [quantile(&all, 0.05), quantile(&all, 0.95)],
        d.rhat,
        d.ess_bulk.min(d.ess_tail),
    )
}

fn summarise(
    chains: Vec<ChainOut>,
    n_real: usize,
    centre: bool,
    mcmc: &McmcSettings,
) -> AdherencePosterior {
    let report = |t: &[f64]| -> Vec<f64> {
        let mut r = t[..n_real].to_vec();
        if centre {
            crate::numerics::centre(&mut r);
        }
        r
    };
    let log_worth_draws: Vec<Vec<Vec<f64>>> = chains
        .iter()
        .map(|c| c.theta.iter().map(|t| report(t)).collect())
        .collect();
    let adherence_draws: Vec<Vec<Vec<f64>>> = chains.iter().map(|c| c.eta.clone()).collect();
    let n_rankers = adherence_draws[0].first().map_or(0, Vec::len);
    let (mut rhat_max, mut ess_min) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut track = |r: f64, e: f64| {
        if r.is_finite() {
            rhat_max = rhat_max.max(r);
        }
        if e.is_finite() {
            ess_min = ess_min.min(e);
        }
    };
    let mut lw = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n_real {
        let per: Vec<Vec<f64>> = log_worth_draws
            .iter()
            .map(|c| c.iter().map(|d| d[i]).collect())
            .collect();
        let (m, sd, q, r, e) = summary(&per);
        // The centred gauge of one item can be constant (two items).
        if sd > 0.0 {
            track(r, e);
        }
        lw.0.push(m);
        lw.1.push(sd);
        lw.2.push(q);
    }
    let mut ad = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..n_rankers {
        let per: Vec<Vec<f64>> = adherence_draws
            .iter()
            .map(|c| c.iter().map(|d| d[r]).collect())
            .collect();
        let (m, sd, q, rh, e) = summary(&per);
        track(rh, e);
        ad.0.push(m);
        ad.1.push(sd);
        ad.2.push(q);
    }
    let (acc, prop) = chains
        .iter()
        .fold((0, 0), |a, c| (a.0 + c.accepted, a.1 + c.proposed));
    AdherencePosterior {
        log_worth_mean: lw.0,
        log_worth_sd: lw.1,
        log_worth_interval: lw.2,
        adherence_mean: ad.0,
        adherence_sd: ad.1,
        adherence_interval: ad.2,
        rhat_max: if rhat_max.is_finite() {
            rhat_max
        } else {
            f64::NAN
        },
        ess_min: if ess_min.is_finite() {
            ess_min
        } else {
            f64::NAN
        },
        chains: chains.len(),
        draws_per_chain: mcmc.samples,
        scale_acceptance: acc as f64 / prop.max(1) as f64,
        log_worth_draws,
        adherence_draws,
    }
}
