//! Gibbs sampler for finite Plackett–Luce mixtures (Mollica & Tardella
//! 2017): component labels plus the latent arrival times of Caron & Doucet
//! (2012), under Gamma(a, b) priors on every worth and a symmetric
//! Dirichlet(α) on the weights.
//!
//! One sweep, given weights ω and worths λ_1 … λ_G:
//! 1. every observation's component count is drawn from
//!    `P(g | o) ∝ ω_g PL(o | λ_g)` (log-sum-exp; an observation of integer
//!    weight w — w identical rankers — is split by a multinomial draw);
//! 2. `ω ~ Dirichlet(α + N_g)`;
//! 3. per component, the single-population sweep of
//!    [`super::gibbs`] on that component's share of the data: hidden
//!    orders of unknown-order groups, latent times, then
//!    `λ_gi ~ Gamma(a + W_gi, b + Σ z)` and a redraw of the component's
//!    total mass (the likelihood does not see it).
//!
//! **Label switching** is resolved online by pivotal reordering (Marin,
//! Mengersen & Robert 2005): the pivot is the posterior mode found by EM
//! under the same priors, and each draw's components are permuted to
//! minimise the squared distance of their centred log-worths to the pivot's.
//! Summaries, R̂/ESS, memberships and the deviance are computed after
//! relabelling. Chains start at the mode, each with its own random streams
//! (counter-based, so the output depends on the seed alone, not on the
//! thread count).
//!
//! **Posterior predictive checks** ([`super::mixture_ppc`]) compare the
//! data's top-1 and paired-comparison frequencies with 200 replicates.
//!
//! **Model choice** follows PLMIX: `D̄ = E[−2ℓ]` over the draws and
//! `D̂ = −2ℓ` at the MAP, `p_D = D̄ − D̂`; `DIC = D̄ + p_D = 2D̄ − D̂` and
//! `BPIC = D̄ + 2p_D = 3D̄ − 2D̂` (Ando 2007).

use super::gibbs::{Work, sweep_observation};
use super::mcmc::McmcSettings;
use super::mixture::{MixtureFit, MixtureOptions, MixturePosterior, fit_mixture};
use super::mixture_ppc::predictive_checks;
use super::rng::{Rng, stream};
use crate::data::{Dataset, TieSemantics};
use crate::error::{Error, Result};
use crate::model::{mixture_pass, pl};
use crate::numerics::gamma::ln_gamma_draw;
use crate::numerics::log_sum_exp;
use crate::observer::{self, SharedObserver};
use crate::posterior::diagnostics::diagnose;
use rand::RngExt;
use rand_distr::{Binomial, Distribution};
use rayon::prelude::*;

/// Settings of [`mixture_gibbs`].
#[derive(Clone)]
pub struct MixtureGibbsOptions {
    /// Components G (2 to 8: relabelling tries every permutation).
    pub components: usize,
    /// Gamma shape a > 0 on each worth (PLMIX's default 1).
    pub prior_shape: f64,
    /// Gamma rate b > 0 (PLMIX's default 0.001).
    pub prior_rate: f64,
    /// Symmetric Dirichlet α ≥ 1 on the weights.
    pub dirichlet: f64,
    /// Draws, burn-in, thinning, chains, seed.
    pub mcmc: McmcSettings,
    /// EM starts for the mode (the pivot).
    pub starts: usize,
    /// Progress and cancellation (one unit per sweep).
    pub observer: Option<SharedObserver>,
}

impl MixtureGibbsOptions {
    /// `components` groups under PLMIX's default priors (Mollica &
    /// Tardella 2017: Gamma(1, 0.001) on each worth, a flat Dirichlet on
    /// the weights), one EM start for the pivot, no observer.
    pub fn plmix(components: usize, mcmc: McmcSettings) -> Self {
        MixtureGibbsOptions {
            components,
            prior_shape: 1.0,
            prior_rate: 0.001,
            dirichlet: 1.0,
            mcmc,
            starts: 1,
            observer: None,
        }
    }
}

/// Replicated data sets of the posterior predictive checks.
pub const PPC_REPLICATES: usize = 200;

/// Largest G the exhaustive relabelling handles.
pub const MAX_GIBBS_COMPONENTS: usize = 8;

/// Run the mixture Gibbs sampler. The result's weights and log-worths are
/// posterior means after relabelling, its `log_likelihood` is at the mode
/// (the MAP), and [`MixtureFit::posterior`] holds sds, draws, DIC, BPIC and
/// diagnostics.
pub fn mixture_gibbs(ds: &Dataset, opts: &MixtureGibbsOptions) -> Result<MixtureFit> {
    let g = opts.components;
    if !(1..=MAX_GIBBS_COMPONENTS).contains(&g) {
        return Err(Error::param(
            "components",
            format!(
                "the mixture Gibbs sampler takes 1 to {MAX_GIBBS_COMPONENTS} components, got {g}"
            ),
        ));
    }
    if !(opts.prior_shape.is_finite() && opts.prior_shape >= 1.0) {
        return Err(Error::param(
            "prior_shape",
            format!(
                "the mixture sampler's Gamma shape must be at least 1 (its mode is the pivot), got {}",
                crate::error::show_number(opts.prior_shape)
            ),
        ));
    }
    if !(opts.prior_rate.is_finite() && opts.prior_rate > 0.0) {
        return Err(Error::param(
            "prior_rate",
            format!(
                "must be a positive number (a proper prior), got {}",
                crate::error::show_number(opts.prior_rate)
            ),
        ));
    }
    let mcmc = opts.mcmc.check()?;
    if ds.ties() == TieSemantics::Event && ds.has_ties() {
        return Err(Error::Unsupported(
            "mixtures read tied groups as unknown-order only; use `ties=unknown`".into(),
        ));
    }
    for o in 0..ds.n_obs() {
        let w = ds.obs(o).weight;
        if w.fract() != 0.0 {
            return Err(Error::Unsupported(format!(
                "observation {} has weight {w}: the mixture Gibbs sampler splits integer weights \
                 (counts of identical rankings) between components; use `engine=mle` or map",
                o + 1
            )));
        }
    }
    // The pivot: the posterior mode under the same priors.
    let mode = fit_mixture(
        ds,
        &MixtureOptions {
            components: g,
            prior_shape: opts.prior_shape,
            prior_rate: opts.prior_rate,
            dirichlet: opts.dirichlet,
            starts: opts.starts,
            seed: mcmc.seed,
            // The pivot needs the mode's neighbourhood, not 13 digits: an
            // over-fitted G has no interior maximum and EM would crawl.
            tol: 1e-10,
            max_iter: 5_000,
            observer: opts.observer.clone(),
        },
    )?;
    let work = ds.collapse_with_rows();
    let (data, rows) = match &work {
        Some((c, rows)) => (c, Some(rows.as_slice())),
        None => (ds, None),
    };
    let perms = permutations(g);
    let chains: Vec<Result<ChainOut>> = (0..mcmc.chains)
        .into_par_iter()
        .map(|c| run_chain(data, ds, rows, opts, &mcmc, &mode, &perms, c as u64))
        .collect();
    let chains: Vec<ChainOut> = chains.into_iter().collect::<Result<_>>()?;
    summarise(ds, mode, chains, &mcmc)
}

/// The sampler for every `G` in `range`, the other settings shared.
pub fn gibbs_range(
    ds: &Dataset,
    range: std::ops::RangeInclusive<usize>,
    opts: &MixtureGibbsOptions,
) -> Result<Vec<MixtureFit>> {
    range
        .map(|g| {
            mixture_gibbs(
                ds,
                &MixtureGibbsOptions {
                    components: g,
                    ..opts.clone()
                },
            )
        })
        .collect()
}

/// One chunk's share of a sweep's fused pass.
struct Part {
    loglik: f64,
    /// Observations (counted with weight) given to each component.
    counts: Vec<f64>,
    /// Universe coefficient per component.
    cu: Vec<f64>,
    /// Stage wins per component and item.
    wins: Vec<Vec<f64>>,
}

/// One chain's kept draws.
struct ChainOut {
    weights: Vec<Vec<f64>>,
    log_worths: Vec<Vec<Vec<f64>>>,
    deviance: Vec<f64>,
    /// Σ over kept draws of P(g | o) on the caller's observations.
    membership_sum: Vec<Vec<f64>>,
}

fn permutations(g: usize) -> Vec<Vec<usize>> {
    if g == 1 {
        return vec![vec![0]];
    }
    let mut out = Vec::new();
    for p in permutations(g - 1) {
        for k in 0..g {
            let mut q = p.clone();
            q.insert(k, g - 1);
            out.push(q);
        }
    }
    out.sort();
    out
}

fn centred(t: &[f64]) -> Vec<f64> {
    let mut c = t.to_vec();
    super::mixture::centre(&mut c);
    c
}

/// The permutation `p` (draw component `p[k]` becomes label `k`) closest
/// to the pivot; the first in lexicographic order on a tie.
fn relabel(perms: &[Vec<usize>], thetas: &[Vec<f64>], pivot: &[Vec<f64>]) -> usize {
    let g = thetas.len();
    let cost = |k: usize, j: usize| -> f64 {
        thetas[j]
            .iter()
            .zip(&pivot[k])
            .map(|(a, b)| (a - b) * (a - b))
            .sum()
    };
    let mut c = vec![0.0; g * g];
    for k in 0..g {
        for j in 0..g {
            c[k * g + j] = cost(k, j);
        }
    }
    let mut best = (f64::INFINITY, 0);
    for (pi, p) in perms.iter().enumerate() {
        let s: f64 = (0..g).map(|k| c[k * g + p[k]]).sum();
        if s < best.0 {
            best = (s, pi);
        }
    }
    best.1
}

/// Draw from Dirichlet(`alpha`) with `rng`.
fn dirichlet(rng: &mut Rng, alpha: &[f64]) -> Vec<f64> {
    let logs: Vec<f64> = alpha.iter().map(|&a| ln_gamma_draw(rng, a, 1.0)).collect();
    let l = log_sum_exp(&logs);
    logs.iter().map(|x| x - l).collect()
}

#[allow(clippy::too_many_arguments)]
fn run_chain(
    data: &Dataset,
    original: &Dataset,
    rows: Option<&[usize]>,
    opts: &MixtureGibbsOptions,
    mcmc: &McmcSettings,
    mode: &MixtureFit,
    perms: &[Vec<usize>],
    chain: u64,
) -> Result<ChainOut> {
    let g = opts.components;
    let n = data.n_items();
    let n_obs = data.n_obs();
    let (a, b) = (opts.prior_shape, opts.prior_rate);
    let pivot: Vec<Vec<f64>> = mode.log_worths.iter().map(|t| centred(t)).collect();
    // Chain 0 starts at the mode; the others at random worths (Gamma(1, 1)
    // draws, PLMIX's start) and equal weights, so that R̂ sees whether the
    // chains find the same posterior.
    let mut init = stream(mcmc.seed, &[0x4D47_4942, chain, u64::MAX - 1]);
    let mut thetas: Vec<Vec<f64>> = if chain == 0 {
        mode.log_worths.clone()
    } else {
        (0..g)
            .map(|_| (0..n).map(|_| ln_gamma_draw(&mut init, 1.0, 1.0)).collect())
            .collect()
    };
    let mut log_w: Vec<f64> = if chain == 0 {
        mode.weights.iter().map(|w| w.ln()).collect()
    } else {
        vec![-(g as f64).ln(); g]
    };
    // Chunks sized for the fused pass (E-step, labels and every
    // component's latent times per observation); fixed by the data alone,
    // so the draws do not depend on the thread count.
    let chunks = pl::chunks_for_work(data, n_obs, 2 * g + 1);
    let mut works: Vec<Vec<Work>> = chunks
        .iter()
        .map(|_| (0..g).map(|_| Work::new(n)).collect())
        .collect();
    let sweeps = mcmc.burn_in + mcmc.samples * mcmc.thin;
    let mut out = ChainOut {
        weights: Vec::with_capacity(mcmc.samples),
        log_worths: Vec::with_capacity(mcmc.samples),
        deviance: Vec::with_capacity(mcmc.samples),
        membership_sum: vec![vec![0.0; g]; original.n_obs()],
    };
    let seed = mcmc.seed;
    // Responsibilities of every row at the current state, row-major.
    let mut z = vec![0.0; n_obs * g];
    for sweep in 0..sweeps {
        observer::advance(opts.observer.as_ref(), 1)?;
        let (lams, log_lams): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
            thetas.iter().map(|t| pl::scaled(t)).unzip();
        let totals: Vec<f64> = lams.iter().map(|l| pl::universe_sum(data, l)).collect();
        // One pass over the data, chunk by chunk: each observation's
        // membership probabilities and log-likelihood at the current state
        // (the EM's E-step kernel), its component counts (an observation
        // of integer weight w — w identical rankers — is split by a
        // multinomial draw), and the latent times of each component it was
        // given to, with that count as their weight.
        let mut z_parts: Vec<&mut [f64]> = Vec::with_capacity(chunks.len());
        let mut rest = z.as_mut_slice();
        for &(lo, hi) in &chunks {
            let (head, tail) = rest.split_at_mut((hi - lo) * g);
            z_parts.push(head);
            rest = tail;
        }
        let parts: Vec<Part> = chunks
            .par_iter()
            .zip(works.par_iter_mut())
            .zip(z_parts.into_par_iter())
            .enumerate()
            .map(|(c, ((&(lo, hi), ws), zs))| {
                let mut rng = stream(seed, &[0x4D47_4942, chain, sweep as u64, c as u64]);
                let mut e = mixture_pass::EScratch::new(&lams, &log_w);
                let mut part = Part {
                    loglik: 0.0,
                    counts: vec![0.0; g],
                    cu: vec![0.0; g],
                    wins: vec![vec![0.0; n]; g],
                };
                for w in ws.iter_mut() {
                    w.zden.iter_mut().for_each(|x| *x = 0.0);
                }
                let mut count = vec![0u64; g];
                for o in lo..hi {
                    let lse = e.observation(data, o, &lams, &log_lams, &totals, &log_w);
                    let p = &e.z;
                    zs[(o - lo) * g..(o - lo + 1) * g].copy_from_slice(p);
                    let w = data.obs(o).weight;
                    part.loglik += w * lse;
                    // Multinomial(w, p) by sequential binomials.
                    let mut left = w as u64;
                    let mut mass = 1.0;
                    for k in 0..g {
                        let c = if k + 1 == g || left == 0 {
                            left
                        } else if left == 1 {
                            u64::from(rng.random::<f64>() * mass < p[k])
                        } else {
                            let q = (p[k] / mass).clamp(0.0, 1.0);
                            Binomial::new(left, q)
                                .expect("valid binomial")
                                .sample(&mut rng)
                        };
                        count[k] = c;
                        left -= c;
                        mass -= p[k];
                    }
                    for k in 0..g {
                        if count[k] == 0 {
                            continue;
                        }
                        let v = count[k] as f64;
                        part.counts[k] += v;
                        part.cu[k] += sweep_observation(
                            data, o, &lams[k], totals[k], &mut rng, &mut ws[k], v,
                        );
                        let wins = &mut part.wins[k];
                        pl::for_each_winner(data, o, |m| wins[m as usize] += v);
                    }
                }
                part
            })
            .collect();
        let loglik: f64 = parts.iter().map(|p| p.loglik).sum();
        let keep = sweep >= mcmc.burn_in && (sweep - mcmc.burn_in).is_multiple_of(mcmc.thin);
        if keep {
            let pi = relabel(
                perms,
                &thetas.iter().map(|t| centred(t)).collect::<Vec<_>>(),
                &pivot,
            );
            let perm = &perms[pi];
            out.weights
                .push(perm.iter().map(|&j| log_w[j].exp()).collect());
            out.log_worths
                .push(perm.iter().map(|&j| centred(&thetas[j])).collect());
            out.deviance.push(-2.0 * loglik);
            // Memberships on the caller's observations at this state.
            for (o, acc) in out.membership_sum.iter_mut().enumerate() {
                let row = rows.map_or(o, |r| r[o]);
                for k in 0..g {
                    acc[k] += z[row * g + perm[k]];
                }
            }
        }
        // 2. Weights.
        let mut rng = stream(seed, &[0x4D47_4942, chain, sweep as u64, u64::MAX]);
        let alpha: Vec<f64> = (0..g)
            .map(|k| opts.dirichlet + parts.iter().map(|p| p.counts[k]).sum::<f64>())
            .collect();
        log_w = dirichlet(&mut rng, &alpha);
        // 3. Each component's worths from its share of the data.
        for k in 0..g {
            let mx = thetas[k].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let cu: f64 = parts.iter().map(|p| p.cu[k]).sum();
            let mut zden = vec![0.0; n];
            let mut wins = vec![0.0; n];
            for (ws, p) in works.iter().zip(&parts) {
                zden.iter_mut().zip(&ws[k].zden).for_each(|(x, y)| *x += y);
                wins.iter_mut().zip(&p.wins[k]).for_each(|(x, y)| *x += y);
            }
            let scale = (-mx).exp();
            let mut lr = stream(
                seed,
                &[0x4D47_4942, chain, sweep as u64, k as u64, u64::MAX],
            );
            for i in 0..n {
                let zi = (zden[i] + if i < data.universe() { cu } else { 0.0 }) * scale;
                thetas[k][i] = ln_gamma_draw(&mut lr, a + wins[i], b + zi.max(0.0));
            }
            // The component's total mass from its exact conditional.
            let l = log_sum_exp(&thetas[k]);
            let target = ln_gamma_draw(&mut lr, a * n as f64, b);
            thetas[k].iter_mut().for_each(|t| *t += target - l);
        }
    }
    Ok(out)
}

fn summarise(
    ds: &Dataset,
    mode: MixtureFit,
    chains: Vec<ChainOut>,
    mcmc: &McmcSettings,
) -> Result<MixtureFit> {
    let g = mode.components();
    let n = ds.n_items();
    let total = (chains.len() * mcmc.samples) as f64;
    let mean_sd = |xs: &dyn Fn(&ChainOut, usize) -> f64| -> (f64, f64, Vec<Vec<f64>>) {
        let per_chain: Vec<Vec<f64>> = chains
            .iter()
            .map(|c| (0..c.deviance.len()).map(|t| xs(c, t)).collect())
            .collect();
        let all: Vec<f64> = per_chain.iter().flatten().copied().collect();
        let m = all.iter().sum::<f64>() / all.len() as f64;
        let v = all.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (all.len() - 1).max(1) as f64;
        (m, v.sqrt(), per_chain)
    };
    let mut rhat_max: f64 = 1.0;
    let mut ess_min = f64::INFINITY;
    let mut track = |per_chain: &[Vec<f64>]| {
        let d = diagnose(per_chain);
        if d.rhat.is_finite() {
            rhat_max = rhat_max.max(d.rhat);
        }
        for e in [d.ess_bulk, d.ess_tail] {
            if e.is_finite() {
                ess_min = ess_min.min(e);
            }
        }
    };
    let mut weights = Vec::with_capacity(g);
    let mut weight_sd = Vec::with_capacity(g);
    let mut log_worths = vec![vec![0.0; n]; g];
    let mut log_worth_sd = vec![vec![0.0; n]; g];
    for k in 0..g {
        let (m, s, pc) = mean_sd(&|c: &ChainOut, t| c.weights[t][k]);
        if g > 1 {
            track(&pc);
        }
        weights.push(m);
        weight_sd.push(s);
        for i in 0..n {
            let (m, s, pc) = mean_sd(&|c: &ChainOut, t| c.log_worths[t][k][i]);
            track(&pc);
            log_worths[k][i] = m;
            log_worth_sd[k][i] = s;
        }
    }
    let (mean_deviance, _, _) = mean_sd(&|c: &ChainOut, t| c.deviance[t]);
    let deviance_at_mode = -2.0 * mode.log_likelihood;
    let membership: Vec<Vec<f64>> = (0..ds.n_obs())
        .map(|o| {
            (0..g)
                .map(|k| chains.iter().map(|c| c.membership_sum[o][k]).sum::<f64>() / total)
                .collect()
        })
        .collect();
    let mut notes = mode.notes.clone();
    if rhat_max > 1.01 || ess_min < 400.0 {
        notes.push(format!(
            "mixing: max split-R̂ {rhat_max:.3}, min ESS {ess_min:.0} (after relabelling); \
             run more `samples` or `chains` before trusting the tails"
        ));
    }
    let posterior = MixturePosterior {
        weight_sd,
        log_worth_sd,
        mean_deviance,
        deviance_at_mode,
        dic: 2.0 * mean_deviance - deviance_at_mode,
        bpic: 3.0 * mean_deviance - 2.0 * deviance_at_mode,
        rhat_max,
        ess_min,
        chains: chains.len(),
        draws_per_chain: mcmc.samples,
        weight_draws: chains.iter().map(|c| c.weights.clone()).collect(),
        log_worth_draws: chains.into_iter().map(|c| c.log_worths).collect(),
        checks: None,
    };
    let flat: Vec<(Vec<f64>, Vec<Vec<f64>>)> = posterior
        .weight_draws
        .iter()
        .zip(&posterior.log_worth_draws)
        .flat_map(|(w, t)| w.iter().cloned().zip(t.iter().cloned()))
        .collect();
    let mut posterior = posterior;
    posterior.checks = Some(predictive_checks(ds, &flat, PPC_REPLICATES, mcmc.seed)?);
    Ok(MixtureFit {
        engine: "gibbs".into(),
        weights,
        log_worths,
        log_likelihood: mode.log_likelihood,
        objective: mode.objective,
        membership,
        n_parameters: mode.n_parameters,
        sample_size: mode.sample_size,
        iterations: mcmc.burn_in + mcmc.samples * mcmc.thin,
        converged: crate::document::mixing_passes(rhat_max, ess_min),
        starts: mode.starts,
        posterior: Some(posterior),
        notes,
    })
}
