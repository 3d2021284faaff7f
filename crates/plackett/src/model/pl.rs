//! Plackett–Luce likelihood over the flat dataset.
//!
//! Every observation is a sequence of *choice stages*. A singleton group
//! `{g}` is one stage: `g` is chosen from everything still in play (the group,
//! later groups, the explicit tail, and for top-k data every unlisted item of
//! the universe). An unknown-order group `G` is a block of stages whose order
//! is latent; its probability is `(Π_G λ)·R(G)` by the subset recursion
//! ([`super::subsets`]).
//!
//! One sweep returns the log-likelihood and, for every item, the *expected
//! in-play coefficient*
//!
//! ```text
//! den_i = E[ Σ_{stages s with i in play} w_s / D_s ],   D_s = Σ_{j in play at s} λ_j
//! ```
//!
//! (the expectation is over latent within-group orders given λ; it is exact
//! for untied data). With the per-item stage wins `W_i` (each member of a
//! chosen group wins exactly one stage, whatever the order) this gives
//!
//! * the score `∂ℓ/∂θ_i = W_i − λ_i·den_i` (Fisher's identity for ties),
//! * Hunter's MM / EM update `λ_i ← W_i / den_i`, and its MAP form under a
//!   Gamma(a, b) prior `λ_i ← (a − 1 + W_i)/(b + den_i)` (Guo et al. 2019 eq 7).
//!
//! The sweep is chunked over observations with a chunk layout that depends
//! on the data only, and partial results are reduced in chunk order, so the
//! floating-point result does not depend on the number of threads.

use super::subsets::{MAX_GROUP, SubsetTables};
use crate::data::{Dataset, Tail, TieSemantics};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Result of one sweep.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Log-likelihood of the swept observations at the given worths.
    pub loglik: f64,
    /// Expected in-play coefficient per item (see module docs).
    pub den: Vec<f64>,
}

/// Which observations a sweep covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Real and pseudo-observations (what is being maximised).
    All,
    /// Real observations only (PlackettLuce's convention for standard errors
    /// and the reported log-likelihood).
    Real,
}

fn scope_end(ds: &Dataset, scope: Scope) -> usize {
    match scope {
        Scope::All => ds.n_obs(),
        Scope::Real => ds.n_real_obs(),
    }
}

/// Check that the plain PL engines can read this dataset.
pub fn check_supported(ds: &Dataset) -> Result<()> {
    if ds.ties() == TieSemantics::Event && ds.has_ties() {
        return Err(Error::Unsupported(
            "this engine reads tied groups as unknown-order only; for ties as events use \
             `engine=mle` or map (Davidson–Luce)"
                .into(),
        ));
    }
    if let Some((o, n)) = first_group_above(ds, MAX_GROUP) {
        return Err(Error::Unsupported(format!(
            "observation {} has an unknown-order tied group of {n} items; the exact \
             likelihood costs O(n·2^n) and groups above {MAX_GROUP} items are refused \
             (to read tied groups as events, Davidson–Luce, use `ties=event`)",
            o + 1
        )));
    }
    Ok(())
}

/// The first observation (0-based) with an unknown-order tied group of more
/// than `limit` items, and that group's size: the subset recursion's
/// O(n·2^n) cost is what engines bound by refusing such groups.
pub fn first_group_above(ds: &Dataset, limit: usize) -> Option<(usize, usize)> {
    if ds.max_group() <= limit {
        return None;
    }
    ds.observations().enumerate().find_map(|(o, obs)| {
        obs.groups()
            .find(|g| !g.is_tail && g.len() > limit)
            .map(|g| (o, g.len()))
    })
}

/// Stage wins per item: for every non-trivial ranked group, each member gets
/// the observation's weight.
pub fn wins(ds: &Dataset, scope: Scope) -> Vec<f64> {
    let mut w = vec![0.0; ds.n_items()];
    for o in 0..scope_end(ds, scope) {
        let obs = ds.obs(o);
        if let Some(stages) = ds.fast_stages(o) {
            for &m in &obs.members[..stages] {
                w[m as usize] += obs.weight;
            }
            continue;
        }
        let groups: Vec<_> = obs.groups().filter(|g| !g.is_tail).collect();
        let last = groups.len() - 1;
        for (gi, g) in groups.iter().enumerate() {
            if gi == last && obs.tail == Tail::None {
                continue; // chosen from itself alone: probability 1
            }
            for &m in &obs.members[g.start..g.end] {
                w[m as usize] += obs.weight;
            }
        }
    }
    w
}

/// Sum of worths over the universe (items that fill top-k tails).
pub(crate) fn universe_sum(ds: &Dataset, lam: &[f64]) -> f64 {
    lam[..ds.universe()].iter().sum()
}

/// Per-thread scratch space.
#[derive(Default)]
pub(crate) struct Scratch {
    /// When set, the stage denominators of untied unit-weight observations
    /// go into `unit_log` instead of the returned log-likelihood, so a whole
    /// block of observations costs one `ln` instead of one per observation;
    /// the caller adds `−unit_log.ln()`.
    pub defer_unit: bool,
    pub unit_log: LogProduct,
    pub suffix: Vec<f64>,
    pub tables: SubsetTables,
    pub lam_g: Vec<f64>,
    pub within: Vec<f64>,
}

/// Worth of the unlisted part of the universe for a top-k observation:
/// `Σ_universe λ − Σ_listed λ`, recomputed directly when cancellation would
/// lose more than four digits.
///
/// The difference carries the rounding of `total` (a few ulps of it), so
/// its relative error is about `1e-16 · total / r`: at the earlier cut,
/// `r > 1e-8 · total`, a listed item holding all but 1.5e-8 of the mass
/// left `r` right to 8 digits only and one top-2 log-likelihood off by
/// 3.4e-8 (found by `stagewise_scaling_equals_the_global_scale` against
/// the stage-by-stage log-sum-exp; 40-digit arithmetic agreed with the
/// latter).
pub(crate) fn unlisted_sum(ds: &Dataset, members: &[u32], lam: &[f64], total: f64) -> f64 {
    let listed: f64 = members
        .iter()
        .filter(|&&m| (m as usize) < ds.universe())
        .map(|&m| lam[m as usize])
        .sum();
    let r = total - listed;
    if r > 1e-4 * total {
        return r;
    }
    // Listed items hold nearly all the mass: sum the rest exactly.
    let mut mark = vec![false; ds.universe()];
    for &m in members {
        if (m as usize) < ds.universe() {
            mark[m as usize] = true;
        }
    }
    (0..ds.universe())
        .filter(|&i| !mark[i])
        .map(|i| lam[i])
        .sum()
}

/// Accumulates `Σ ln d` as a running product, with one `ln` per flush: the
/// stage denominators of one sweep cost a multiplication each instead of a
/// logarithm.
pub(crate) struct LogProduct {
    prod: f64,
    acc: f64,
}

impl Default for LogProduct {
    fn default() -> Self {
        LogProduct::new()
    }
}

impl LogProduct {
    #[inline]
    pub fn new() -> Self {
        LogProduct {
            prod: 1.0,
            acc: 0.0,
        }
    }
    #[inline]
    pub fn push(&mut self, d: f64) {
        // Keep the product far from overflow and underflow: flush when it
        // leaves [1e-150, 1e150], and take extreme factors directly.
        if !(1e-100..=1e100).contains(&d) {
            self.acc += d.ln();
            return;
        }
        if !(1e-150..=1e150).contains(&self.prod) {
            self.acc += self.prod.ln();
            self.prod = 1.0;
        }
        self.prod *= d;
    }
    #[inline]
    pub fn ln(&self) -> f64 {
        self.acc + self.prod.ln()
    }
}

/// The two weights one observation's sweep applies: `ll` to its
/// log-likelihood, `den` to its in-play coefficients. A plain fit uses the
/// observation's own weight for both ([`Weights::of`]); a mixture's E-step
/// wants the unit-weight log-likelihood alone ([`Weights::LOG_LIKELIHOOD`])
/// while its M-step wants coefficients weighted by responsibility × weight
/// ([`Weights::coefficients`]); both parts are linear in their weight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Weights {
    pub ll: f64,
    pub den: f64,
}

impl Weights {
    /// Unit-weight log-likelihood, no coefficients.
    pub const LOG_LIKELIHOOD: Weights = Weights { ll: 1.0, den: 0.0 };

    /// The observation's own weight on both parts.
    pub fn of(ds: &Dataset, o: usize) -> Weights {
        let w = ds.obs(o).weight;
        Weights { ll: w, den: w }
    }

    /// Coefficients weighted by `v`, no log-likelihood.
    pub fn coefficients(v: f64) -> Weights {
        Weights { ll: 0.0, den: v }
    }
}

/// One observation: add its in-play coefficients (× `w.den`) to `den` and
/// return `(w.ll · (−Σ_stages ln D_s + Σ_groups ln R(G)), c_universe)`. The
/// winners' `Σ W_i θ_i` part of the log-likelihood is added by the caller
/// once per sweep. `c_universe` is the coefficient every unlisted universe
/// item receives (already subtracted from listed items, so the caller adds
/// it to all universe items).
pub(crate) fn sweep_obs(
    ds: &Dataset,
    o: usize,
    lam: &[f64],
    total: f64,
    den: &mut [f64],
    s: &mut Scratch,
    w: Weights,
) -> (f64, f64) {
    let (w_ll, w_den) = (w.ll, w.den);
    let obs = ds.obs(o);
    let mem = obs.members;
    let m = mem.len();
    let rem = if obs.tail == Tail::Universe {
        unlisted_sum(ds, mem, lam, total)
    } else {
        0.0
    };
    // suffix[k] = Σ_{j ≥ k} λ_{mem[j]} + rem, summed from the end (never as
    // total − prefix, which cancels).
    s.suffix.clear();
    s.suffix.resize(m + 1, 0.0);
    s.suffix[m] = rem;
    for k in (0..m).rev() {
        s.suffix[k] = s.suffix[k + 1] + lam[mem[k] as usize];
    }
    let mut cum = 0.0;
    let mut ll;
    if let Some(stages) = ds.fast_stages(o) {
        // Untied: stage k chooses member k from members k.. (+ tail).
        if s.defer_unit && w_ll == 1.0 && w_den == 1.0 {
            for k in 0..stages {
                let d = s.suffix[k];
                s.unit_log.push(d);
                cum += 1.0 / d;
                den[mem[k] as usize] += cum;
            }
            ll = 0.0;
        } else {
            let mut lp = LogProduct::new();
            for k in 0..stages {
                let d = s.suffix[k];
                lp.push(d);
                cum += w_den / d;
                den[mem[k] as usize] += cum;
            }
            ll = -w_ll * lp.ln();
        }
        for &i in &mem[stages..] {
            den[i as usize] += cum;
        }
    } else {
        ll = 0.0;
        let n_ranked = obs.groups().filter(|g| !g.is_tail).count();
        for (gi, g) in obs.groups().enumerate() {
            let trivial = g.is_tail || (gi + 1 == n_ranked && obs.tail == Tail::None);
            if trivial {
                for &i in &mem[g.start..g.end] {
                    den[i as usize] += cum;
                }
                continue;
            }
            if g.len() == 1 {
                let i = mem[g.start] as usize;
                let d = s.suffix[g.start];
                ll -= w_ll * d.ln();
                cum += w_den / d;
                den[i] += cum;
            } else {
                let n = g.len();
                let zbar = s.suffix[g.end];
                s.lam_g.clear();
                s.lam_g
                    .extend(mem[g.start..g.end].iter().map(|&i| lam[i as usize]));
                s.tables.compute(&s.lam_g, zbar);
                s.tables.compute_reach(n);
                let full = (1usize << n) - 1;
                ll += w_ll * s.tables.log_r[full];
                s.within.clear();
                s.within.resize(n, 0.0);
                let mut tot = 0.0;
                for a in 1..=full {
                    let t = w_den * s.tables.reach[a] * (-s.tables.log_den[a]).exp();
                    if t == 0.0 {
                        continue;
                    }
                    tot += t;
                    let mut bits = a;
                    while bits != 0 {
                        let b = bits.trailing_zeros() as usize;
                        s.within[b] += t;
                        bits &= bits - 1;
                    }
                }
                for (k, &i) in mem[g.start..g.end].iter().enumerate() {
                    den[i as usize] += cum + s.within[k];
                }
                cum += tot;
            }
        }
    }
    if obs.tail == Tail::Universe {
        for &i in mem {
            if (i as usize) < ds.universe() {
                den[i as usize] -= cum;
            }
        }
        (ll, cum)
    } else {
        (ll, 0.0)
    }
}

/// Chunk boundaries: depend on the data only (not on the thread count).
pub(crate) fn chunks(ds: &Dataset, end: usize) -> Vec<(usize, usize)> {
    chunks_for_work(ds, end, 1)
}

/// [`chunks`] for a pass that does `factor` times a sweep's work per
/// member (a G-component mixture pass: G).
pub(crate) fn chunks_for_work(ds: &Dataset, end: usize, factor: usize) -> Vec<(usize, usize)> {
    let members = ds.n_members().max(1) * factor.max(1);
    let n_chunks = (members / 65_536).clamp(1, 64).min(end.max(1));
    let per = end.div_ceil(n_chunks).max(1);
    (0..end)
        .step_by(per)
        .map(|a| (a, (a + per).min(end)))
        .collect()
}

/// One sweep at worths `lam` (any positive scale) with `log_lam = ln lam`
/// and stage wins `wins` for the same scope (see [`wins`]).
pub fn sweep(ds: &Dataset, lam: &[f64], log_lam: &[f64], wins: &[f64], scope: Scope) -> Sweep {
    let n = ds.n_items();
    let end = scope_end(ds, scope);
    let total = universe_sum(ds, lam);
    let parts: Vec<(f64, f64, Vec<f64>)> = chunks(ds, end)
        .into_par_iter()
        .map(|(a, b)| {
            let mut den = vec![0.0; n];
            let mut s = Scratch {
                defer_unit: true,
                ..Scratch::default()
            };
            let mut ll = 0.0;
            let mut cu = 0.0;
            for o in a..b {
                let (l, c) = sweep_obs(ds, o, lam, total, &mut den, &mut s, Weights::of(ds, o));
                ll += l;
                cu += c;
            }
            (ll - s.unit_log.ln(), cu, den)
        })
        .collect();
    let mut den = vec![0.0; n];
    let mut ll = 0.0;
    let mut cu = 0.0;
    for (l, c, d) in parts {
        ll += l;
        cu += c;
        for (x, y) in den.iter_mut().zip(&d) {
            *x += y;
        }
    }
    if cu != 0.0 {
        for x in den[..ds.universe()].iter_mut() {
            *x += cu;
        }
    }
    for (w, t) in wins.iter().zip(log_lam) {
        if *w != 0.0 {
            ll += w * t;
        }
    }
    Sweep { loglik: ll, den }
}

/// Log-likelihood at log-worths `theta` (any gauge).
pub fn log_likelihood(ds: &Dataset, theta: &[f64], scope: Scope) -> f64 {
    let (lam, log_lam) = scaled(theta);
    sweep(ds, &lam, &log_lam, &wins(ds, scope), scope).loglik
}

/// The widest spread of log-worths (largest minus smallest) for which
/// one global scale serves every choice: worths are scaled so that the
/// largest is 1 ([`scaled`]), and a worth below e^−708 underflows to zero,
/// which would turn a choice among only such items into 0/0. Fits stay far
/// inside it; posterior draws under a very weak prior (Gamma shape 0.01,
/// items that never win) can pass it, and [`log_likelihood_per_obs`] then
/// scales each stage by its own largest worth.
pub const MAX_LOG_WORTH_SPREAD: f64 = 700.0;

/// Largest minus smallest of `theta` (0 for an empty slice).
pub fn log_worth_spread(theta: &[f64]) -> f64 {
    let (lo, hi) = theta
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &t| {
            (lo.min(t), hi.max(t))
        });
    if theta.is_empty() { 0.0 } else { hi - lo }
}

/// Worths scaled so the largest is 1, and their logs.
pub fn scaled(theta: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let m = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let log_lam: Vec<f64> = theta.iter().map(|t| t - m).collect();
    let lam = log_lam.iter().map(|t| t.exp()).collect();
    (lam, log_lam)
}

/// Score `∂ℓ/∂θ` at log-worths `theta`, and the log-likelihood.
pub fn score(ds: &Dataset, theta: &[f64], wins: &[f64], scope: Scope) -> (Vec<f64>, f64) {
    let (lam, log_lam) = scaled(theta);
    let sw = sweep(ds, &lam, &log_lam, wins, scope);
    let g = wins
        .iter()
        .zip(&lam)
        .zip(&sw.den)
        .map(|((w, l), d)| w - l * d)
        .collect();
    (g, sw.loglik)
}

/// The convergence gap of the point engines: the score's max-norm with
/// each item's component relative to its stage wins,
/// `max_i |g_i| / max(1, W_i)` — at the optimum the expected wins balance
/// `W_i`, so this does not grow with the counts (a row of weight 5e7
/// cannot reach an absolute 1e-10 in double precision), and for counts
/// below 1 it is the plain max-norm.
pub fn relative_score_norm(g: &[f64], wins: &[f64]) -> f64 {
    g.iter()
        .zip(wins)
        .fold(0.0f64, |m, (g, w)| m.max(g.abs() / w.max(1.0)))
}

/// Log-likelihood of each observation separately at log-worths `theta`.
pub fn log_likelihood_per_obs(ds: &Dataset, theta: &[f64]) -> Vec<f64> {
    if log_worth_spread(theta) > MAX_LOG_WORTH_SPREAD {
        return log_likelihood_per_obs_wide(ds, theta);
    }
    let (lam, log_lam) = scaled(theta);
    let total = universe_sum(ds, &lam);
    let mut den = vec![0.0; ds.n_items()];
    let mut s = Scratch::default();
    (0..ds.n_obs())
        .map(|o| {
            let (l, _) = sweep_obs(ds, o, &lam, total, &mut den, &mut s, Weights::of(ds, o));
            // Winners' Σ w·θ for this observation.
            let obs = ds.obs(o);
            let groups: Vec<_> = obs.groups().filter(|g| !g.is_tail).collect();
            let last = groups.len() - 1;
            let mut wt = 0.0;
            for (gi, g) in groups.iter().enumerate() {
                if gi == last && obs.tail == Tail::None {
                    continue;
                }
                for &m in &obs.members[g.start..g.end] {
                    wt += obs.weight * log_lam[m as usize];
                }
            }
            l + wt
        })
        .collect()
}

/// [`log_likelihood_per_obs`] for log-worths spread beyond
/// [`MAX_LOG_WORTH_SPREAD`], where one global scale would underflow every
/// worth of a stage whose items all sit far below the largest (a 0/0).
/// Untied observations are computed in log space stage by stage,
/// `Σ_k w(θ_k − ln Σ_{j ≥ k} e^{θ_j})` with the suffix log-sum-exp from the
/// end (the unlisted universe's mass included for top-k rankings), which is
/// exact at any spread; tied ones with the worths scaled by the largest of
/// their own choice set, exact unless the items of that one observation
/// themselves span more than [`MAX_LOG_WORTH_SPREAD`].
pub fn log_likelihood_per_obs_wide(ds: &Dataset, theta: &[f64]) -> Vec<f64> {
    use crate::numerics::log_add_exp;
    let mut den = vec![0.0; ds.n_items()];
    let mut s = Scratch::default();
    let mut lam = vec![0.0; theta.len()];
    let mut scratch = vec![false; ds.universe()];
    let mut suffix = Vec::new();
    (0..ds.n_obs())
        .map(|o| {
            let obs = ds.obs(o);
            let mem = obs.members;
            // The unlisted universe's mass (empty unless top-k).
            let rest = ds
                .unlisted(&obs, &mut scratch)
                .iter()
                .fold(f64::NEG_INFINITY, |acc, &i| {
                    log_add_exp(acc, theta[i as usize])
                });
            if let Some(stages) = ds.fast_stages(o) {
                suffix.clear();
                suffix.resize(mem.len() + 1, rest);
                for k in (0..mem.len()).rev() {
                    suffix[k] = log_add_exp(suffix[k + 1], theta[mem[k] as usize]);
                }
                return obs.weight
                    * (0..stages)
                        .map(|k| theta[mem[k] as usize] - suffix[k])
                        .sum::<f64>();
            }
            let top = mem.iter().map(|&m| theta[m as usize]).fold(rest, f64::max);
            for (l, t) in lam.iter_mut().zip(theta) {
                *l = (t - top).exp();
            }
            let total = universe_sum(ds, &lam);
            let (l, _) = sweep_obs(ds, o, &lam, total, &mut den, &mut s, Weights::of(ds, o));
            let mut wt = 0.0;
            for_each_winner(ds, o, |m| wt += obs.weight * (theta[m as usize] - top));
            l + wt
        })
        .collect()
}

/// Call `f` for every stage winner of observation `o` (each member of a
/// ranked group that is not chosen from itself alone).
pub(crate) fn for_each_winner(ds: &Dataset, o: usize, mut f: impl FnMut(u32)) {
    let obs = ds.obs(o);
    if let Some(stages) = ds.fast_stages(o) {
        obs.members[..stages].iter().for_each(|&m| f(m));
        return;
    }
    let n_ranked = obs.groups().filter(|g| !g.is_tail).count();
    for (gi, g) in obs.groups().filter(|g| !g.is_tail).enumerate() {
        if gi + 1 == n_ranked && obs.tail == Tail::None {
            continue;
        }
        obs.members[g.start..g.end].iter().for_each(|&m| f(m));
    }
}

/// The log-likelihood of every observation at unit weight, `log P(o | λ)`,
/// at worths `lam` (any positive scale) with `log_lam = ln lam`: what a
/// mixture's E-step weighs components by. Chunked like [`sweep`], so the
/// values do not depend on the thread count.
pub fn unit_log_likelihoods(ds: &Dataset, lam: &[f64], log_lam: &[f64]) -> Vec<f64> {
    let end = ds.n_obs();
    let total = universe_sum(ds, lam);
    let parts: Vec<Vec<f64>> = chunks(ds, end)
        .into_par_iter()
        .map(|(a, b)| {
            let mut den = vec![0.0; ds.n_items()];
            let mut s = Scratch::default();
            (a..b)
                .map(|o| {
                    let (l, _) =
                        sweep_obs(ds, o, lam, total, &mut den, &mut s, Weights::LOG_LIKELIHOOD);
                    let mut wt = 0.0;
                    for_each_winner(ds, o, |m| wt += log_lam[m as usize]);
                    l + wt
                })
                .collect()
        })
        .collect();
    parts.concat()
}

/// Score contributions summed by unit: row `u` of the returned
/// `n_units × n_items` matrix (row-major) is `Σ_{o : unit(o) = u} ∂ℓ_o/∂θ`
/// at log-worths `theta`, over the real observations (pseudo-observations
/// are left out). With one unit per ranker these are the per-ranker
/// estimating functions whose ordering by a covariate the parameter
/// instability tests of model-based recursive partitioning read (Zeileis,
/// Hothorn & Hornik 2008; `PlackettLuce`'s `estfun` summed by ranker, as
/// `pltree` does). Observations with `unit(o) = None` are skipped.
pub fn unit_scores(
    ds: &Dataset,
    theta: &[f64],
    n_units: usize,
    unit: impl Fn(usize) -> Option<usize>,
) -> Vec<f64> {
    let n = ds.n_items();
    let (lam, _) = scaled(theta);
    let total = universe_sum(ds, &lam);
    let mut out = vec![0.0; n_units * n];
    let mut den = vec![0.0; n];
    let mut s = Scratch::default();
    for o in 0..ds.n_real_obs() {
        let Some(u) = unit(o) else { continue };
        let row = &mut out[u * n..(u + 1) * n];
        let w = ds.obs(o).weight;
        let (_, c) = sweep_obs(ds, o, &lam, total, &mut den, &mut s, Weights::of(ds, o));
        for_each_winner(ds, o, |m| row[m as usize] += w);
        for &m in ds.obs(o).members {
            let m = m as usize;
            row[m] -= lam[m] * den[m];
            den[m] = 0.0;
        }
        if c != 0.0 {
            for (r, l) in row[..ds.universe()].iter_mut().zip(&lam) {
                *r -= l * c;
            }
        }
    }
    out
}

/// Stage wins and expected in-play coefficients with per-observation
/// weights `v` in place of the dataset's (a mixture component's M-step:
/// `v_o = w_o · P(component | o)`). The MM update of that component is
/// then `λ_i ← W_i / den_i` (or its Gamma-MAP form).
pub fn reweighted_sweep(ds: &Dataset, lam: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = ds.n_items();
    let end = ds.n_obs();
    let total = universe_sum(ds, lam);
    let parts: Vec<(f64, Vec<f64>, Vec<f64>)> = chunks(ds, end)
        .into_par_iter()
        .map(|(a, b)| {
            let mut den = vec![0.0; n];
            let mut wins = vec![0.0; n];
            let mut s = Scratch::default();
            let mut cu = 0.0;
            for o in a..b {
                let (_, c) = sweep_obs(
                    ds,
                    o,
                    lam,
                    total,
                    &mut den,
                    &mut s,
                    Weights::coefficients(v[o]),
                );
                cu += c;
                for_each_winner(ds, o, |m| wins[m as usize] += v[o]);
            }
            (cu, den, wins)
        })
        .collect();
    let mut den = vec![0.0; n];
    let mut wins = vec![0.0; n];
    let mut cu = 0.0;
    for (c, d, w) in parts {
        cu += c;
        den.iter_mut().zip(&d).for_each(|(x, y)| *x += y);
        wins.iter_mut().zip(&w).for_each(|(x, y)| *x += y);
    }
    if cu != 0.0 {
        den[..ds.universe()].iter_mut().for_each(|x| *x += cu);
    }
    (wins, den)
}
