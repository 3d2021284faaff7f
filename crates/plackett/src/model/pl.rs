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
    if ds.max_group() > MAX_GROUP {
        for (o, obs) in ds.observations().enumerate() {
            if let Some(g) = obs.groups().find(|g| !g.is_tail && g.len() > MAX_GROUP) {
                return Err(Error::Unsupported(format!(
                    "observation {} has an unknown-order tied group of {} items; the exact \
                     likelihood costs O(n·2^n) and groups above {MAX_GROUP} items are refused \
                     (to read tied groups as events, Davidson–Luce, use `ties=event`)",
                    o + 1,
                    g.len()
                )));
            }
        }
    }
    Ok(())
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
/// lose more than a few digits.
pub(crate) fn unlisted_sum(ds: &Dataset, members: &[u32], lam: &[f64], total: f64) -> f64 {
    let listed: f64 = members
        .iter()
        .filter(|&&m| (m as usize) < ds.universe())
        .map(|&m| lam[m as usize])
        .sum();
    let r = total - listed;
    if r > 1e-8 * total {
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

/// One observation: add its in-play coefficients to `den` and return
/// `(−Σ_stages w·ln D_s + Σ_groups w·ln R(G), c_universe)`. The winners'
/// `Σ W_i θ_i` part of the log-likelihood is added by the caller once per
/// sweep. `c_universe` is the coefficient every unlisted universe item
/// receives (already subtracted from listed items, so the caller adds it to
/// all universe items).
pub(crate) fn sweep_obs(
    ds: &Dataset,
    o: usize,
    lam: &[f64],
    total: f64,
    den: &mut [f64],
    s: &mut Scratch,
) -> (f64, f64) {
    let w = ds.obs(o).weight;
    sweep_obs_weighted(ds, o, lam, total, den, s, w, w)
}

/// [`sweep_obs`] with separate weights for the log-likelihood (`w_ll`) and
/// for the in-play coefficients (`w_den`): a mixture's E-step wants the
/// unit-weight log-likelihood while its M-step wants coefficients weighted
/// by responsibility × weight, both linear in their weight.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sweep_obs_weighted(
    ds: &Dataset,
    o: usize,
    lam: &[f64],
    total: f64,
    den: &mut [f64],
    s: &mut Scratch,
    w_ll: f64,
    w_den: f64,
) -> (f64, f64) {
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
                let (l, c) = sweep_obs(ds, o, lam, total, &mut den, &mut s);
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
    let (lam, log_lam) = scaled(theta);
    let total = universe_sum(ds, &lam);
    let mut den = vec![0.0; ds.n_items()];
    let mut s = Scratch::default();
    (0..ds.n_obs())
        .map(|o| {
            let (l, _) = sweep_obs(ds, o, &lam, total, &mut den, &mut s);
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
                    let (l, _) = sweep_obs_weighted(ds, o, lam, total, &mut den, &mut s, 1.0, 0.0);
                    let mut wt = 0.0;
                    for_each_winner(ds, o, |m| wt += log_lam[m as usize]);
                    l + wt
                })
                .collect()
        })
        .collect();
    parts.concat()
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
                let (_, c) = sweep_obs_weighted(ds, o, lam, total, &mut den, &mut s, 0.0, v[o]);
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

/// One fused E- and M-pass of a `G`-component PL mixture (Mollica &
/// Tardella 2017): for every observation the unit log-likelihood under each
/// component, its responsibilities `z_go ∝ ω_g P(o | λ_g)`, and the stage
/// wins and expected in-play coefficients of every component weighted by
/// `w_o · z_go` — what [`unit_log_likelihoods`] followed by one
/// [`reweighted_sweep`] per component computes, in one pass over the data
/// (untied observations reuse their stage denominators for both halves).
#[derive(Debug, Clone)]
pub struct MixturePass {
    /// `Σ_o w_o log Σ_g ω_g P(o | λ_g)`.
    pub log_likelihood: f64,
    /// Responsibilities, `z[g][o]`.
    pub z: Vec<Vec<f64>>,
    /// Stage wins per component and item, weighted by `w_o z_go`.
    pub wins: Vec<Vec<f64>>,
    /// Expected in-play coefficients per component and item (at `lams[g]`).
    pub den: Vec<Vec<f64>>,
}

/// Scratch and per-observation kernel of the mixture E-step, shared by the
/// fused EM pass ([`mixture_pass`]) and the sampler's membership draws
/// ([`mixture_responsibilities`]).
pub(crate) struct EScratch {
    s: Scratch,
    /// Worths item-major, `lam_t[i·G + g]`: an untied observation's stage
    /// sums of all components advance together, which interleaves G
    /// independent dependency chains instead of running them one by one.
    lam_t: Vec<f64>,
    /// Suffix sums of the stage denominators of an untied observation,
    /// `suf_t[j·G + g]` (reused by the M half of the fused pass).
    suf_t: Vec<f64>,
    /// After [`EScratch::observation`]: the responsibilities `z_g`.
    pub(crate) z: Vec<f64>,
    num: Vec<f64>,
    den: Vec<f64>,
    w_lin: Vec<f64>,
    /// Receives the (zero) in-play coefficients of the tied-observation
    /// path, which is asked for log-likelihoods only.
    sink: Vec<f64>,
}

impl EScratch {
    /// Scratch for components of worths `lams` (each on any scale) and
    /// log-weights `log_w`.
    pub(crate) fn new(lams: &[Vec<f64>], log_w: &[f64]) -> Self {
        let g = lams.len();
        let n = lams.first().map_or(0, Vec::len);
        let mut lam_t = vec![0.0; n * g];
        for (k, lam) in lams.iter().enumerate() {
            for (i, &l) in lam.iter().enumerate() {
                lam_t[i * g + k] = l;
            }
        }
        EScratch {
            s: Scratch::default(),
            lam_t,
            suf_t: Vec::new(),
            z: vec![0.0; g],
            num: vec![0.0; g],
            den: vec![0.0; g],
            w_lin: log_w.iter().map(|l| l.exp()).collect(),
            sink: vec![0.0; n],
        }
    }

    /// Stage `j`'s denominator under component `k` of the last untied
    /// observation.
    #[inline]
    fn suffix(&self, k: usize, j: usize) -> f64 {
        self.suf_t[j * self.z.len() + k]
    }

    /// Observation `o`: its responsibilities into `self.z`; returns
    /// `log Σ_g ω_g P(o | λ_g)` (unit weight).
    pub(crate) fn observation(
        &mut self,
        ds: &Dataset,
        o: usize,
        lams: &[Vec<f64>],
        log_lams: &[Vec<f64>],
        totals: &[f64],
        log_w: &[f64],
    ) -> f64 {
        let g = lams.len();
        let obs = ds.obs(o);
        let mem = obs.members;
        let Some(stages) = ds.fast_stages(o) else {
            // Ties: the general kernel, in logs, one component at a time.
            for k in 0..g {
                let mut wt = 0.0;
                for_each_winner(ds, o, |m| wt += log_lams[k][m as usize]);
                self.z[k] = log_w[k]
                    + wt
                    + sweep_obs_weighted(
                        ds,
                        o,
                        &lams[k],
                        totals[k],
                        &mut self.sink,
                        &mut self.s,
                        1.0,
                        0.0,
                    )
                    .0;
            }
            return self.normalise_logs();
        };
        // Untied: each component's probability as a plain product of stage
        // probabilities (no logarithms, no exponentials) whenever it stays
        // in range; else logs.
        let m = mem.len();
        let st = &mut self.suf_t;
        st.clear();
        st.resize((m + 1) * g, 0.0);
        if obs.tail == Tail::Universe {
            for k in 0..g {
                st[m * g + k] = unlisted_sum(ds, mem, &lams[k], totals[k]);
            }
        }
        for j in (0..m).rev() {
            let base = mem[j] as usize * g;
            let (lo, hi) = st.split_at_mut((j + 1) * g);
            let lo = &mut lo[j * g..];
            for k in 0..g {
                lo[k] = hi[k] + self.lam_t[base + k];
            }
        }
        self.num.iter_mut().for_each(|x| *x = 1.0);
        self.den.iter_mut().for_each(|x| *x = 1.0);
        for j in 0..stages {
            let base = mem[j] as usize * g;
            for k in 0..g {
                self.num[k] *= self.lam_t[base + k];
                self.den[k] *= st[j * g + k];
            }
        }
        let mut linear = true;
        let mut tot = 0.0;
        for k in 0..g {
            let (nu, de) = (self.num[k], self.den[k]);
            let v = nu / de;
            // Products far from under- and overflow: the ratio is exact to
            // rounding (each denominator is at least its numerator).
            if nu > 1e-250 && de < 1e250 && v > 1e-250 {
                self.z[k] = self.w_lin[k] * v;
                tot += self.z[k];
            } else {
                linear = false;
                break;
            }
        }
        if linear {
            self.z.iter_mut().for_each(|x| *x /= tot);
            return tot.ln();
        }
        for k in 0..g {
            let mut l = log_w[k];
            for j in 0..stages {
                l += log_lams[k][mem[j] as usize] - st[j * g + k].ln();
            }
            self.z[k] = l;
        }
        self.normalise_logs()
    }

    /// `self.z` holds log ω_g + log P(o | λ_g): turn it into
    /// responsibilities and return the log-sum-exp.
    fn normalise_logs(&mut self) -> f64 {
        let lse = crate::numerics::log_sum_exp(&self.z);
        for l in self.z.iter_mut() {
            *l = (*l - lse).exp();
        }
        lse
    }
}

/// The E-step of a `G`-component PL mixture alone: `Σ_o w_o log Σ_g ω_g
/// P(o | λ_g)` and the responsibilities `z[g][o]` (what the fused
/// [`mixture_pass`] computes before its M half). Chunked like [`sweep`].
pub fn mixture_responsibilities(
    ds: &Dataset,
    lams: &[Vec<f64>],
    log_lams: &[Vec<f64>],
    log_w: &[f64],
) -> (f64, Vec<Vec<f64>>) {
    let g = lams.len();
    let end = ds.n_obs();
    let totals: Vec<f64> = lams.iter().map(|l| universe_sum(ds, l)).collect();
    let parts: Vec<(f64, Vec<Vec<f64>>)> = chunks_for_work(ds, end, g)
        .into_par_iter()
        .map(|(a, b)| {
            let mut e = EScratch::new(lams, log_w);
            let mut z = vec![Vec::with_capacity(b - a); g];
            let mut ll = 0.0;
            for o in a..b {
                ll += ds.obs(o).weight * e.observation(ds, o, lams, log_lams, &totals, log_w);
                for k in 0..g {
                    z[k].push(e.z[k]);
                }
            }
            (ll, z)
        })
        .collect();
    let mut z = vec![Vec::with_capacity(end); g];
    let mut ll = 0.0;
    for (l, part) in parts {
        ll += l;
        for k in 0..g {
            z[k].extend_from_slice(&part[k]);
        }
    }
    (ll, z)
}

/// See [`MixturePass`]. `lams[g]` are component `g`'s worths (any positive
/// scale) and `log_lams[g]` their logarithms, `log_w` the log-weights,
/// `weights` the observations' weights. Chunked like [`sweep`], so the
/// result does not depend on the thread count.
pub fn mixture_pass(
    ds: &Dataset,
    lams: &[Vec<f64>],
    log_lams: &[Vec<f64>],
    log_w: &[f64],
    weights: &[f64],
) -> MixturePass {
    let g = lams.len();
    let n = ds.n_items();
    let end = ds.n_obs();
    let totals: Vec<f64> = lams.iter().map(|l| universe_sum(ds, l)).collect();
    let inputs = PassInputs {
        ds,
        lams,
        log_lams,
        log_w,
        weights,
        totals: &totals,
    };
    // Few components (the usual case) get a kernel compiled for their
    // number; more fall back to the run-time one.
    let parts: Vec<PassPart> = chunks_for_work(ds, end, 2 * g)
        .into_par_iter()
        .map(|(a, b)| match g {
            1 => pass_chunk::<1>(&inputs, a, b),
            2 => pass_chunk::<2>(&inputs, a, b),
            3 => pass_chunk::<3>(&inputs, a, b),
            4 => pass_chunk::<4>(&inputs, a, b),
            5 => pass_chunk::<5>(&inputs, a, b),
            6 => pass_chunk::<6>(&inputs, a, b),
            _ => pass_chunk::<0>(&inputs, a, b),
        })
        .collect();
    let mut out = MixturePass {
        log_likelihood: 0.0,
        z: vec![Vec::with_capacity(end); g],
        wins: vec![vec![0.0; n]; g],
        den: vec![vec![0.0; n]; g],
    };
    let mut cu = vec![0.0; g];
    for p in parts {
        out.log_likelihood += p.ll;
        for k in 0..g {
            out.z[k].extend_from_slice(&p.z[k]);
            out.wins[k]
                .iter_mut()
                .zip(&p.wins[k])
                .for_each(|(x, y)| *x += y);
            out.den[k]
                .iter_mut()
                .zip(&p.den[k])
                .for_each(|(x, y)| *x += y);
            cu[k] += p.cu[k];
        }
    }
    for k in 0..g {
        if cu[k] != 0.0 {
            out.den[k][..ds.universe()]
                .iter_mut()
                .for_each(|x| *x += cu[k]);
        }
    }
    out
}

/// The arguments of [`mixture_pass`], shared by its chunks.
struct PassInputs<'a> {
    ds: &'a Dataset,
    lams: &'a [Vec<f64>],
    log_lams: &'a [Vec<f64>],
    log_w: &'a [f64],
    weights: &'a [f64],
    totals: &'a [f64],
}

/// One chunk's share of a [`MixturePass`] (`cu`: each component's in-play
/// coefficient owed to every item of the universe by top-k rows).
struct PassPart {
    ll: f64,
    z: Vec<Vec<f64>>,
    wins: Vec<Vec<f64>>,
    den: Vec<Vec<f64>>,
    cu: Vec<f64>,
}

/// Observations `a..b` of a [`mixture_pass`]. With `G > 0` (the number of
/// components known when compiling) untied rows go through
/// [`UntiedKernel`]; tied rows, rows whose products leave the linear range,
/// and `G = 0` (any number, known at run time) take the general path.
fn pass_chunk<const G: usize>(inp: &PassInputs, a: usize, b: usize) -> PassPart {
    let PassInputs {
        ds,
        lams,
        log_lams,
        log_w,
        weights,
        totals,
    } = *inp;
    let g = lams.len();
    let n = ds.n_items();
    let mut p = PassPart {
        ll: 0.0,
        z: vec![Vec::with_capacity(b - a); g],
        wins: vec![vec![0.0; n]; g],
        den: vec![vec![0.0; n]; g],
        cu: vec![0.0; g],
    };
    let mut kernel = (G > 0 && G == g).then(|| UntiedKernel::<G>::new(ds, lams, log_w, totals));
    let mut e = EScratch::new(lams, log_w);
    let mut s = Scratch::default();
    for o in a..b {
        let obs = ds.obs(o);
        let mem = obs.members;
        let fast = ds.fast_stages(o);
        if let (Some(kern), Some(stages)) = (kernel.as_mut(), fast)
            && let Some(z) = kern.observation(mem, stages, obs.tail == Tail::Universe, weights[o])
        {
            for k in 0..G {
                p.z[k].push(z[k]);
            }
            continue;
        }
        let lse = e.observation(ds, o, lams, log_lams, totals, log_w);
        let ll = &e.z;
        p.ll += weights[o] * lse;
        // ll now holds the responsibilities.
        for k in 0..g {
            let z = ll[k];
            p.z[k].push(z);
            let v = weights[o] * z;
            for_each_winner(ds, o, |m| p.wins[k][m as usize] += v);
            match fast {
                Some(stages) => {
                    let den = &mut p.den[k];
                    let mut cum = 0.0;
                    for j in 0..stages {
                        cum += v / e.suffix(k, j);
                        den[mem[j] as usize] += cum;
                    }
                    for &i in &mem[stages..] {
                        den[i as usize] += cum;
                    }
                    if obs.tail == Tail::Universe {
                        for &i in mem {
                            if (i as usize) < ds.universe() {
                                den[i as usize] -= cum;
                            }
                        }
                        p.cu[k] += cum;
                    }
                }
                None => {
                    let (_, c) = sweep_obs_weighted(
                        ds,
                        o,
                        &lams[k],
                        totals[k],
                        &mut p.den[k],
                        &mut s,
                        0.0,
                        v,
                    );
                    p.cu[k] += c;
                }
            }
        }
    }
    if let Some(kern) = kernel {
        p.ll += kern.ll + kern.unit.ln();
        for (i, (w, d)) in kern.wins.iter().zip(&kern.den).enumerate() {
            for k in 0..G {
                p.wins[k][i] += w[k];
                p.den[k][i] += d[k];
            }
        }
        for k in 0..G {
            p.cu[k] += kern.cu[k];
        }
    }
    p
}

/// The fused E- and M-half of [`mixture_pass`] for one untied observation,
/// with the number of components `G` fixed when compiling: worths, stage
/// sums and accumulators are `[f64; G]` per item (item-major), so the G
/// components of a stage advance together in registers, without bounds
/// checks or reloads through the heap. The arithmetic is the general
/// path's ([`EScratch::observation`] and the M half of [`pass_chunk`]),
/// operation for operation, except that unit-weight rows multiply their
/// likelihoods into a [`LogProduct`] instead of taking one `ln` each.
struct UntiedKernel<const G: usize> {
    universe: usize,
    lam: Vec<[f64; G]>,
    w_lin: [f64; G],
    totals: [f64; G],
    suf: Vec<[f64; G]>,
    wins: Vec<[f64; G]>,
    den: Vec<[f64; G]>,
    cu: [f64; G],
    /// `Σ w_o ln p_o` of rows with a weight other than 1.
    ll: f64,
    /// The likelihoods of unit-weight rows.
    unit: LogProduct,
}

impl<const G: usize> UntiedKernel<G> {
    fn new(ds: &Dataset, lams: &[Vec<f64>], log_w: &[f64], totals: &[f64]) -> Self {
        let n = ds.n_items();
        let mut lam = vec![[0.0; G]; n];
        for (k, l) in lams.iter().enumerate() {
            for (i, &x) in l.iter().enumerate() {
                lam[i][k] = x;
            }
        }
        UntiedKernel {
            universe: ds.universe(),
            lam,
            w_lin: std::array::from_fn(|k| log_w[k].exp()),
            totals: std::array::from_fn(|k| totals[k]),
            suf: Vec::new(),
            wins: vec![[0.0; G]; n],
            den: vec![[0.0; G]; n],
            cu: [0.0; G],
            ll: 0.0,
            unit: LogProduct::new(),
        }
    }

    /// Adds an untied observation (items `mem`, the first `stages` of them
    /// chosen in turn; `top_k`: the unlisted rest of the universe ranks
    /// below) of weight `w` and returns its responsibilities; `None`, with
    /// nothing added, when its products leave the range where they are
    /// exact, or the unlisted worth cancels (the general path's logs and
    /// direct sums handle those).
    #[inline]
    fn observation(&mut self, mem: &[u32], stages: usize, top_k: bool, w: f64) -> Option<[f64; G]> {
        let m = mem.len();
        let lam = &self.lam;
        let suf = &mut self.suf;
        suf.clear();
        suf.resize(m + 1, [0.0; G]);
        if top_k {
            let mut listed = [0.0; G];
            for &i in mem {
                if (i as usize) < self.universe {
                    let l = &lam[i as usize];
                    for k in 0..G {
                        listed[k] += l[k];
                    }
                }
            }
            for k in 0..G {
                let r = self.totals[k] - listed[k];
                if r <= 1e-8 * self.totals[k] {
                    return None;
                }
                suf[m][k] = r;
            }
        }
        for j in (0..m).rev() {
            let l = &lam[mem[j] as usize];
            let next = suf[j + 1];
            let cur = &mut suf[j];
            for k in 0..G {
                cur[k] = next[k] + l[k];
            }
        }
        let mut num = [1.0; G];
        let mut den = [1.0; G];
        for j in 0..stages {
            let l = &lam[mem[j] as usize];
            let s = &suf[j];
            for k in 0..G {
                num[k] *= l[k];
                den[k] *= s[k];
            }
        }
        let mut z = [0.0; G];
        let mut tot = 0.0;
        for k in 0..G {
            let (nu, de) = (num[k], den[k]);
            let v = nu / de;
            // As EScratch::observation: exact to rounding far from under-
            // and overflow.
            if !(nu > 1e-250 && de < 1e250 && v > 1e-250) {
                return None;
            }
            z[k] = self.w_lin[k] * v;
            tot += z[k];
        }
        for x in z.iter_mut() {
            *x /= tot;
        }
        if w == 1.0 {
            self.unit.push(tot);
        } else {
            self.ll += w * tot.ln();
        }
        // The M half: stage wins and in-play coefficients weighted by w·z.
        // Stage j's chosen item is in play at stages 0..=j; a top-k row's
        // unlisted items at every stage (owed through `cu`, added to the
        // whole universe once per pass, so listed items pay it back here:
        // one scatter per member instead of two).
        let v: [f64; G] = std::array::from_fn(|k| w * z[k]);
        let mut cum = [0.0; G];
        for j in 0..stages {
            let s = &mut suf[j];
            // Not a copy (clippy's manual_memcpy misreads it): each entry is
            // read, accumulated into `cum`, then overwritten.
            #[allow(clippy::manual_memcpy)]
            for k in 0..G {
                cum[k] += v[k] / s[k];
                s[k] = cum[k];
            }
        }
        let back = if top_k { cum } else { [0.0; G] };
        for j in 0..stages {
            let i = mem[j] as usize;
            let c = &suf[j];
            let (wi, di) = (&mut self.wins[i], &mut self.den[i]);
            let owed = if top_k && i >= self.universe {
                [0.0; G]
            } else {
                back
            };
            for k in 0..G {
                wi[k] += v[k];
                di[k] += c[k] - owed[k];
            }
        }
        for &i in &mem[stages..] {
            let di = &mut self.den[i as usize];
            let owed = if top_k && (i as usize) < self.universe {
                cum
            } else {
                [0.0; G]
            };
            for k in 0..G {
                di[k] += cum[k] - owed[k];
            }
        }
        if top_k {
            for k in 0..G {
                self.cu[k] += cum[k];
            }
        }
        Some(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DatasetBuilder, Items, TieSemantics};

    /// The fused pass ([`mixture_pass`]: the kernels compiled for 1–6
    /// components and the run-time path for more) equals its unfused
    /// composition — the responsibilities of [`mixture_responsibilities`]
    /// followed by one [`reweighted_sweep`] per component — on untied, top-k
    /// (listed items near the whole mass too), tied and sub-ranking rows
    /// with weights, at ordinary and extreme worths.
    #[test]
    fn fused_mixture_pass_equals_the_unfused_steps() {
        let mut b = DatasetBuilder::new(Items::numbered(7), TieSemantics::UnknownOrder);
        let rows: [(&[&[u32]], Tail); 8] = [
            (&[&[0], &[1], &[2], &[3], &[4], &[5], &[6]], Tail::None),
            (&[&[5], &[2]], Tail::Universe),
            (&[&[6], &[0], &[1], &[2], &[3]], Tail::Universe),
            (&[&[3], &[1, 4], &[0]], Tail::None),
            (&[&[2], &[4], &[1]], Tail::None),
            (&[&[1, 2], &[0]], Tail::Universe),
            (&[&[4], &[3]], Tail::None),
            (&[&[0], &[6]], Tail::Universe),
        ];
        for (k, (r, t)) in rows.iter().enumerate() {
            b.push(r, *t, &[], if k % 3 == 0 { 1.0 } else { 0.5 + k as f64 })
                .unwrap();
        }
        let ds = b.finish();
        let weights: Vec<f64> = (0..ds.n_obs()).map(|o| ds.obs(o).weight).collect();
        for g in 1..=8usize {
            for spread in [0.7, 9.0, 400.0] {
                let thetas: Vec<Vec<f64>> = (0..g)
                    .map(|c| {
                        (0..7)
                            .map(|i| spread * (((i * (c + 2) + c) % 7) as f64 / 6.0 - 0.5))
                            .collect()
                    })
                    .collect();
                let w: Vec<f64> = (0..g)
                    .map(|c| (1.0 + c as f64) / (g * (g + 1) / 2) as f64)
                    .collect();
                let log_w: Vec<f64> = w.iter().map(|x| x.ln()).collect();
                let (lams, log_lams): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
                    thetas.iter().map(|t| scaled(t)).unzip();
                let fused = mixture_pass(&ds, &lams, &log_lams, &log_w, &weights);
                let (ll, z) = mixture_responsibilities(&ds, &lams, &log_lams, &log_w);
                let close =
                    |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300);
                assert!(
                    close(fused.log_likelihood, ll),
                    "G={g} spread {spread}: {} vs {ll}",
                    fused.log_likelihood
                );
                for k in 0..g {
                    let v: Vec<f64> = weights.iter().zip(&z[k]).map(|(w, z)| w * z).collect();
                    let (wins, den) = reweighted_sweep(&ds, &lams[k], &v);
                    for o in 0..ds.n_obs() {
                        assert!(
                            close(fused.z[k][o], z[k][o]),
                            "G={g} spread {spread} z[{k}][{o}]"
                        );
                    }
                    for i in 0..7 {
                        assert!(
                            close(fused.wins[k][i], wins[i]),
                            "G={g} spread {spread} wins[{k}][{i}]"
                        );
                        assert!(
                            (fused.den[k][i] - den[i]).abs() <= 1e-11 * den[i].abs().max(1e-300),
                            "G={g} spread {spread} den[{k}][{i}]: {} vs {}",
                            fused.den[k][i],
                            den[i]
                        );
                    }
                }
            }
        }
    }

    /// The E-step's linear fast path and its log fallback agree with the
    /// per-component log-likelihoods of [`unit_log_likelihoods`], on untied,
    /// top-k, tied and sub-ranking rows, with ordinary and extreme worths
    /// (products that underflow).
    #[test]
    fn mixture_responsibilities_match_the_unit_log_likelihoods() {
        let mut b = DatasetBuilder::new(Items::numbered(6), TieSemantics::UnknownOrder);
        let rows: [(&[&[u32]], Tail); 6] = [
            (&[&[0], &[1], &[2], &[3], &[4], &[5]], Tail::None),
            (&[&[5], &[2]], Tail::Universe),
            (&[&[3], &[1, 4], &[0]], Tail::None),
            (&[&[2], &[4], &[1]], Tail::None),
            (&[&[1, 2], &[0]], Tail::Universe),
            (&[&[4], &[3]], Tail::None),
        ];
        for (k, (r, t)) in rows.iter().enumerate() {
            b.push(r, *t, &[], 1.0 + k as f64).unwrap();
        }
        let ds = b.finish();
        for spread in [0.7, 160.0, 400.0] {
            let thetas: Vec<Vec<f64>> = (0..3)
                .map(|g| {
                    (0..6)
                        .map(|i| spread * (((i * (g + 2) + g) % 6) as f64 / 5.0 - 0.5))
                        .collect()
                })
                .collect();
            let log_w = [0.5f64.ln(), 0.3f64.ln(), 0.2f64.ln()];
            let (lams, log_lams): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
                thetas.iter().map(|t| scaled(t)).unzip();
            let (ll, z) = mixture_responsibilities(&ds, &lams, &log_lams, &log_w);
            let per: Vec<Vec<f64>> = lams
                .iter()
                .zip(&log_lams)
                .map(|(l, ll)| unit_log_likelihoods(&ds, l, ll))
                .collect();
            let mut want = 0.0;
            for o in 0..ds.n_obs() {
                let a: Vec<f64> = (0..3).map(|k| log_w[k] + per[k][o]).collect();
                let lse = crate::numerics::log_sum_exp(&a);
                want += ds.obs(o).weight * lse;
                for k in 0..3 {
                    let r = (a[k] - lse).exp();
                    assert!((z[k][o] - r).abs() < 1e-12, "spread {spread}, obs {o}");
                }
            }
            assert!(
                (ll - want).abs() < 1e-9 * want.abs().max(1.0),
                "{ll} vs {want}"
            );
        }
    }
}
