//! Gibbs sampler for PL under Gamma priors (Caron & Doucet 2012; Guo et al. 2019
//! §3.2; Stutz et al. 2023 App. B.2, in its censored form: the items a
//! top-k observation does not list are never ordered, only right-censored at
//! the last listed arrival).
//!
//! Per sweep, given worths λ:
//! 1. every unknown-order group's internal order is drawn from its
//!    conditional by the walk down the subset lattice (step A);
//! 2. every choice stage `s` (weight `w`, in-play total `D_s`, which includes
//!    every unlisted item of a top-k observation) gets a latent
//!    `z_s ~ Gamma(w, D_s)` (an exponential inter-arrival time for `w = 1`);
//!    unlisted items are never ordered: they are right-censored at the last
//!    ranked arrival;
//! 3. `λ_i ~ Gamma(a_i + W_i, b + Σ_{s: i in play} z_s)`, with `W_i` the
//!    stages item `i` won;
//! 4. optionally the total mass is redrawn from its exact conditional
//!    `Σλ | λ/Σλ ~ Gamma(Σ a_i, b)` (the likelihood does not see it), which
//!    removes the slow random walk of the scale.
//!
//! The state is kept as log-worths so that tiny prior shapes (e.g. 1/419)
//! neither underflow nor produce exact zeros. Chains run in parallel and
//! observations are swept in fixed chunks, each with its own counter-based
//! random stream, so the output depends on `seed` only.

use super::bayes::{BayesFit, GammaPrior};
use super::mcmc::McmcSettings;
use super::rng::{Rng, stream};
use crate::data::{Dataset, Tail};
use crate::error::{Error, Result};
use crate::model::pl::{self, Scope};
use crate::model::subsets::SubsetTables;
use crate::numerics::gamma::ln_gamma_draw;
use crate::observer::{self, SharedObserver};
use crate::posterior::Draws;
use rand::RngExt;
use rand_distr::{Binomial, Distribution, Exp1, Gamma};
use rayon::prelude::*;

/// Settings for [`gibbs`].
#[derive(Clone)]
pub struct GibbsOptions {
    /// Gamma prior.
    pub prior: GammaPrior,
    /// Draws, burn-in, thinning, chains, seed (the output is a function
    /// of these alone).
    pub mcmc: McmcSettings,
    /// Redraw the total mass every sweep.
    pub rescale: bool,
    /// Told of finished sweeps (progress bars); may cancel the run.
    pub observer: Option<SharedObserver>,
}

impl std::fmt::Debug for GibbsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GibbsOptions")
            .field("mcmc", &self.mcmc)
            .field("rescale", &self.rescale)
            .finish()
    }
}

/// Credit the arrival-time total `cum` to the unranked members `rest` of
/// an observation `obs` (they were in play at every stage); with a universe
/// tail the total goes to every item outside the observation instead, which
/// is kept as one running sum (returned) minus the observation's own
/// members. The caller passes the observation it already holds: this runs
/// once per observation per sweep.
fn credit_unranked(
    zden: &mut [f64],
    rest: &[u32],
    cum: f64,
    obs: &crate::data::Observation<'_>,
    universe: usize,
) -> f64 {
    for &i in rest {
        zden[i as usize] += cum;
    }
    if obs.tail != Tail::Universe {
        return 0.0;
    }
    for &i in obs.members {
        if (i as usize) < universe {
            zden[i as usize] -= cum;
        }
    }
    cum
}

/// Per-chunk scratch.
#[derive(Default)]
pub(crate) struct Work {
    order: Vec<u32>,
    suffix: Vec<f64>,
    tables: SubsetTables,
    lam_g: Vec<f64>,
    pub(crate) zden: Vec<f64>,
}

impl Work {
    /// Scratch for `n` items.
    pub(crate) fn new(n: usize) -> Work {
        Work {
            zden: vec![0.0; n],
            ..Default::default()
        }
    }
}

/// Draw the internal order of one unknown-order group (members `g`, worths
/// `lam_g`, remainder `zbar`) into `out`, by the walk of §4.4.5 step A:
/// at remaining set `A` the next item is `s` with probability
/// `R(A∖s)/Σ_{s'} R(A∖s')`.
pub fn sample_group_order(
    rng: &mut Rng,
    g: &[u32],
    lam_g: &[f64],
    zbar: f64,
    tables: &mut SubsetTables,
    out: &mut Vec<u32>,
) {
    let n = g.len();
    tables.compute(lam_g, zbar);
    let mut a = (1usize << n) - 1;
    while a != 0 {
        // Σ_s R(A∖s) = R(A)·(Z̄ + Σ_A λ): normaliser in log space.
        let log_norm = tables.log_r[a] + tables.log_den[a];
        let u: f64 = rng.random();
        let mut acc = 0.0;
        let mut chosen = a.trailing_zeros() as usize;
        let mut bits = a;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            acc += (tables.log_r[a & !(1 << b)] - log_norm).exp();
            chosen = b;
            if u < acc {
                break;
            }
        }
        out.push(g[chosen]);
        a &= !(1 << chosen);
    }
}

/// A tied member's worth as the group-order walk reads it: worths below
/// the smallest normal double (on the sweep's scale, where the largest is 1)
/// count as that smallest one. Such worths arise only under extreme priors
/// (Gamma shapes near 1e-4 and below give log worths of −10⁴): a group
/// whose remaining members all had worth 0, with nothing of positive worth
/// after it, would give the walk 0/0 (a NaN probability). At the floor those
/// members come after every representable one, as they must, and in uniform
/// order among themselves — their worth shares are 0 to double precision
/// either way. Worths at or above the floor pass unchanged.
#[inline]
fn tie_worth(l: f64) -> f64 {
    l.max(f64::MIN_POSITIVE)
}

/// One chunk of one sweep: sample orders and latent times, accumulate
/// `zden` (on the scale of `lam`). Returns the universe coefficient.
/// `weights`, when given, replaces the observations' weights (a mixture
/// component's share of each observation; 0 skips it).
pub(crate) fn sweep_chunk(
    ds: &Dataset,
    range: (usize, usize),
    lam: &[f64],
    total: f64,
    rng: &mut Rng,
    w: &mut Work,
    weights: Option<&[f64]>,
) -> f64 {
    let mut cu = 0.0;
    for o in range.0..range.1 {
        let obs_weight = weights.map_or_else(|| ds.obs(o).weight, |v| v[o]);
        if obs_weight == 0.0 {
            continue;
        }
        cu += sweep_observation(ds, o, lam, total, rng, w, obs_weight);
    }
    cu
}

/// One observation of one sweep, counted `obs_weight` times: sample its
/// hidden orders and latent times and add them to `w.zden`. Returns its
/// universe coefficient.
#[inline]
pub(crate) fn sweep_observation(
    ds: &Dataset,
    o: usize,
    lam: &[f64],
    total: f64,
    rng: &mut Rng,
    w: &mut Work,
    obs_weight: f64,
) -> f64 {
    let mut cu = 0.0;
    {
        let obs = ds.obs(o);
        let mem = obs.members;
        let m = mem.len();
        let rem = if obs.tail == Tail::Universe {
            pl::unlisted_sum(ds, mem, lam, total)
        } else {
            0.0
        };
        if let Some(stages) = ds.fast_stages(o) {
            // Untied: the order is the listed one. Suffix sums from the end,
            // then one latent time per stage. The draws are made in the
            // backward pass, where they overlap with the dependent additions
            // of the suffix sums; the forward pass only accumulates.
            w.suffix.clear();
            w.suffix.resize(m, 0.0);
            let mut acc = rem;
            let wt = obs_weight;
            if wt == 1.0 {
                for k in (0..m).rev() {
                    acc += lam[mem[k] as usize];
                    let e: f64 = Exp1.sample(rng);
                    w.suffix[k] = e / acc;
                }
            } else {
                let g = Gamma::new(wt, 1.0).expect("positive weight");
                for k in (0..m).rev() {
                    acc += lam[mem[k] as usize];
                    let e: f64 = g.sample(rng);
                    w.suffix[k] = e / acc;
                }
            }
            let mut cum = 0.0;
            for k in 0..stages {
                cum += w.suffix[k];
                w.zden[mem[k] as usize] += cum;
            }
            cu += credit_unranked(&mut w.zden, &mem[stages..], cum, &obs, ds.universe());
            return cu;
        }
        // An integer weight on an observation with ties is that many
        // independent copies, each with its own latent order. One copy
        // samples its order; more go down the subset lattice together
        // (`counted_copies`), at a cost bounded independently of the count.
        let copies = obs_weight.round() as u64;
        if copies >= 2 {
            return counted_copies(ds, o, lam, rem, copies, rng, w);
        }
        {
            // Members in a sampled complete order of the ranked groups.
            w.order.clear();
            let stages = {
                // Remainder after each group, summed from the end.
                listed_suffix(w, mem, lam, rem);
                let groups: Vec<_> = obs.groups().collect();
                let n_ranked = groups.iter().filter(|g| !g.is_tail).count();
                let mut stages = 0;
                for (gi, g) in groups.iter().enumerate() {
                    let gm = &mem[g.start..g.end];
                    let trivial = g.is_tail || (gi + 1 == n_ranked && obs.tail == Tail::None);
                    if trivial || g.len() == 1 {
                        w.order.extend_from_slice(gm);
                    } else {
                        w.lam_g.clear();
                        w.lam_g
                            .extend(gm.iter().map(|&i| tie_worth(lam[i as usize])));
                        let mut out = std::mem::take(&mut w.order);
                        sample_group_order(
                            rng,
                            gm,
                            &w.lam_g,
                            w.suffix[g.end],
                            &mut w.tables,
                            &mut out,
                        );
                        w.order = out;
                    }
                    if !trivial {
                        stages = g.end;
                    }
                }
                stages
            };
            // Suffix sums in the sampled order (sets at group boundaries are
            // unchanged; within a group they follow the sampled order).
            w.suffix.clear();
            w.suffix.resize(m + 1, 0.0);
            w.suffix[m] = rem;
            for k in (0..m).rev() {
                w.suffix[k] = w.suffix[k + 1] + lam[w.order[k] as usize];
            }
            let mut cum = 0.0;
            for k in 0..stages {
                let e: f64 = Exp1.sample(rng);
                cum += e / w.suffix[k];
                w.zden[w.order[k] as usize] += cum;
            }
            cu += credit_unranked(&mut w.zden, &w.order[stages..], cum, &obs, ds.universe());
        }
    }
    cu
}

/// `w.suffix[k]`: the worth in play from listed position `k` on, in the
/// listed order (`rem`, the unlisted remainder, at position `m`).
fn listed_suffix(w: &mut Work, mem: &[u32], lam: &[f64], rem: f64) {
    let m = mem.len();
    w.suffix.clear();
    w.suffix.resize(m + 1, 0.0);
    w.suffix[m] = rem;
    for k in (0..m).rev() {
        w.suffix[k] = w.suffix[k + 1] + lam[mem[k] as usize];
    }
}

/// `copies ≥ 2` independent copies of observation `o` (which has an
/// unknown-order group) in one pass. Given λ the copies' latent orders are
/// i.i.d., and every copy standing at the same remaining set `A` of a group
/// has the same future: so the copies are carried down the group's subset
/// lattice as counts, split multinomially (by sequential binomials) over the
/// next item with the walk's probabilities `R(A∖s)/Σ_{s'} R(A∖s')` (as
/// [`sample_group_order`]), and the `n` copies at `A` share one stage whose
/// summed latent time is `Gamma(n, 1)/(Z̄ + Σ_A λ)` (a sum of `n`
/// exponentials). Each item in play gets that time in `zden`, exactly as
/// the per-copy sweep would give it in distribution. Groups are independent
/// given λ (every copy leaves a group with the same set removed), so the
/// cost is O(|group|·2^|group|) per group for the tables plus at most
/// `min(copies, C(|group|, k))` nodes at depth `k`: O(1) in the count.
fn counted_copies(
    ds: &Dataset,
    o: usize,
    lam: &[f64],
    rem: f64,
    copies: u64,
    rng: &mut Rng,
    w: &mut Work,
) -> f64 {
    let obs = ds.obs(o);
    let mem = obs.members;
    listed_suffix(w, mem, lam, rem);
    let groups: Vec<_> = obs.groups().collect();
    let n_ranked = groups.iter().filter(|g| !g.is_tail).count();
    // Σ over copies of the time elapsed so far.
    let mut cum = 0.0;
    let mut stages = 0;
    let time = |n: u64, rng: &mut Rng| -> f64 {
        Gamma::new(n as f64, 1.0)
            .expect("positive count")
            .sample(rng)
    };
    let mut level: Vec<(usize, u64)> = Vec::new();
    let mut next: Vec<(usize, u64)> = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        let trivial = g.is_tail || (gi + 1 == n_ranked && obs.tail == Tail::None);
        if trivial {
            break;
        }
        stages = g.end;
        let gm = &mem[g.start..g.end];
        if gm.len() == 1 {
            cum += time(copies, rng) / w.suffix[g.start];
            w.zden[gm[0] as usize] += cum;
            continue;
        }
        for &i in gm {
            w.zden[i as usize] += cum;
        }
        w.lam_g.clear();
        w.lam_g
            .extend(gm.iter().map(|&i| tie_worth(lam[i as usize])));
        w.tables.compute(&w.lam_g, w.suffix[g.end]);
        level.clear();
        level.push(((1usize << gm.len()) - 1, copies));
        while !level.is_empty() {
            next.clear();
            for &(a, n) in &level {
                let t = time(n, rng) / w.tables.log_den[a].exp();
                cum += t;
                let log_norm = w.tables.log_r[a] + w.tables.log_den[a];
                let (mut left, mut p_left) = (n, 1.0f64);
                let mut bits = a;
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w.zden[gm[b] as usize] += t;
                    let k = if bits == 0 {
                        left
                    } else if left == 0 {
                        0
                    } else {
                        let p = (w.tables.log_r[a & !(1 << b)] - log_norm).exp();
                        let share = if p_left > 0.0 {
                            (p / p_left).clamp(0.0, 1.0)
                        } else {
                            1.0
                        };
                        p_left -= p;
                        Binomial::new(left, share)
                            .expect("probability in [0, 1]")
                            .sample(rng)
                    };
                    left -= k;
                    let child = a & !(1 << b);
                    if k > 0 && child != 0 {
                        next.push((child, k));
                    }
                }
            }
            next.sort_unstable_by_key(|&(a, _)| a);
            next.dedup_by(|later, kept| {
                if later.0 == kept.0 {
                    kept.1 += later.1;
                    true
                } else {
                    false
                }
            });
            std::mem::swap(&mut level, &mut next);
        }
    }
    credit_unranked(&mut w.zden, &mem[stages..], cum, &obs, ds.universe())
}

/// The largest spread of the starting log-worths (a chain starts at a
/// prior draw, each log-worth raised to at most this far below the
/// largest): e^-600 is far from underflow, so a stage's in-play total is
/// positive at the first sweep.
const START_SPREAD: f64 = 600.0;

/// One chain's state, with every buffer it needs allocated once: a sweep
/// allocates nothing, which matters when thousands of small problems are
/// sampled (the ground-truth aggregation runs one chain per case).
pub struct Chain<'a> {
    ds: &'a Dataset,
    shapes: &'a [f64],
    rate: f64,
    shape_total: f64,
    wins: Vec<f64>,
    chunks: Vec<(usize, usize)>,
    works: Vec<Work>,
    lam: Vec<f64>,
    zden: Vec<f64>,
    log_lam: Vec<f64>,
    seed: u64,
    chain: u64,
    rescale: bool,
    sweeps_done: u64,
}

impl<'a> Chain<'a> {
    /// Validate the inputs and start chain `chain` from a prior draw.
    pub fn new(
        ds: &'a Dataset,
        prior: &'a GammaPrior,
        seed: u64,
        chain: u64,
        rescale: bool,
    ) -> Result<Self> {
        pl::check_supported(ds)?;
        let n = ds.n_items();
        if prior.shapes.len() != n {
            return Err(Error::Data(
                "prior shapes do not match the number of items".into(),
            ));
        }
        for o in 0..ds.n_obs() {
            let wgt = ds.obs(o).weight;
            if ds.fast_stages(o).is_none() && (wgt.fract() != 0.0 || wgt < 1.0) {
                return Err(Error::Unsupported(format!(
                    "observation {} has unknown-order ties and a non-integer weight {wgt}; the Gibbs \
                     sampler treats integer weights on tied observations as independent copies",
                    o + 1
                )));
            }
        }
        let chunks = pl::chunks(ds, ds.n_obs());
        let works = chunks
            .iter()
            .map(|_| Work {
                zden: vec![0.0; n],
                ..Default::default()
            })
            .collect();
        let mut rng = stream(seed, &[chain, u64::MAX]);
        let mut log_lam: Vec<f64> = prior
            .shapes
            .iter()
            .map(|&a| ln_gamma_draw(&mut rng, a, prior.rate))
            .collect();
        // Under a small shape the prior's draws spread over thousands in
        // log-worth (ln U / a: Gamma(0.001, ·) puts a draw 1,000·|ln U|
        // down), so that every worth of a stage can underflow next to the
        // largest, its in-play total be 0 and its latent time Exp(0) = ∞,
        // after which the chain stays at −∞ (salad with Gamma(0.001, 1)
        // printed NaN). Any point of positive density is a valid start:
        // raise each start to at most START_SPREAD below the largest.
        let top = log_lam.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for t in &mut log_lam {
            *t = t.max(top - START_SPREAD);
        }
        Ok(Chain {
            ds,
            shapes: &prior.shapes,
            rate: prior.rate,
            shape_total: prior.shapes.iter().sum(),
            wins: pl::wins(ds, Scope::All),
            chunks,
            works,
            lam: vec![0.0; n],
            zden: vec![0.0; n],
            log_lam,
            seed,
            chain,
            rescale,
            sweeps_done: 0,
        })
    }

    /// Current log-worths (unnormalised).
    pub fn log_worths(&self) -> &[f64] {
        &self.log_lam
    }

    /// One Gibbs sweep (orders, latent times, worths, total mass).
    pub fn sweep(&mut self) {
        let ds = self.ds;
        let n = self.lam.len();
        let sweep = self.sweeps_done;
        self.sweeps_done += 1;
        let mx = self
            .log_lam
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        for i in 0..n {
            self.lam[i] = (self.log_lam[i] - mx).exp();
        }
        let total: f64 = self.lam[..ds.universe()].iter().sum();
        let (seed, c) = (self.seed, self.chain);
        let lam = &self.lam;
        let chunks = &self.chunks;
        let run = |k: usize, w: &mut Work| -> f64 {
            w.zden.iter_mut().for_each(|x| *x = 0.0);
            let mut r = stream(seed, &[c, sweep, k as u64]);
            sweep_chunk(ds, chunks[k], lam, total, &mut r, w, None)
        };
        let cu: f64 = if self.works.len() == 1 {
            run(0, &mut self.works[0])
        } else {
            let parts: Vec<f64> = self
                .works
                .par_iter_mut()
                .enumerate()
                .map(|(k, w)| run(k, w))
                .collect();
            parts.iter().sum()
        };
        self.zden.iter_mut().for_each(|x| *x = 0.0);
        for w in &self.works {
            for (x, y) in self.zden.iter_mut().zip(&w.zden) {
                *x += y;
            }
        }
        // zden is on the scale of λ/e^{mx}: true Σz = zden·e^{−mx}.
        let scale = (-mx).exp();
        let b = self.rate;
        let mut lr = stream(seed, &[c, sweep, u64::MAX]);
        for i in 0..n {
            let zsum = self.zden[i] + if i < ds.universe() { cu } else { 0.0 };
            let zi = zsum * scale;
            let shape = self.shapes[i] + self.wins[i];
            self.log_lam[i] = if zi.is_finite() {
                ln_gamma_draw(&mut lr, shape, b + zi.max(0.0))
            } else {
                // e^{−mx} or Σz overflows when every worth is astronomically
                // small, as a tiny total prior shape makes them under
                // `rescale` (the total mass is drawn from Gamma(Σ shapes)):
                // the rate b + Σz in log space, the same draw.
                let ln_rate = if zsum > 0.0 {
                    -mx + zsum.ln() + (b * mx.exp() / zsum).ln_1p()
                } else {
                    b.ln()
                };
                ln_gamma_draw(&mut lr, shape, 1.0) - ln_rate
            };
        }
        if self.rescale {
            let l = crate::numerics::log_sum_exp(&self.log_lam);
            let target = ln_gamma_draw(&mut lr, self.shape_total, b);
            self.log_lam.iter_mut().for_each(|t| *t += target - l);
        }
    }
}

/// Run the sampler.
pub fn gibbs(ds: &Dataset, opts: &GibbsOptions) -> Result<BayesFit> {
    let n = ds.n_items();
    let mc = opts.mcmc.check()?;
    // Validate once up front (errors are the same for every chain).
    Chain::new(ds, &opts.prior, mc.seed, 0, opts.rescale)?;
    let sweeps = mc.sweeps();
    let chains: Vec<Vec<f64>> = (0..mc.chains)
        .into_par_iter()
        .map(|c| {
            let mut ch = Chain::new(ds, &opts.prior, mc.seed, c as u64, opts.rescale)?;
            let mut kept = Vec::with_capacity(mc.samples * n);
            let mut row = vec![0.0; n];
            for sweep in 0..sweeps {
                ch.sweep();
                if mc.keeps(sweep) {
                    row.copy_from_slice(ch.log_worths());
                    Draws::normalise(&mut row);
                    kept.extend_from_slice(&row);
                }
                if sweep % 64 == 63 {
                    observer::advance(opts.observer.as_ref(), 64)?;
                }
            }
            Ok(kept)
        })
        .collect::<Result<_>>()?;
    let draws = Draws::from_chains(n, chains);
    let diag = draws.diagnostics();
    let rhat = diag
        .iter()
        .map(|d| d.rhat)
        .fold(f64::NEG_INFINITY, f64::max);
    let ess = diag
        .iter()
        .map(|d| d.ess_bulk.min(d.ess_tail))
        .fold(f64::INFINITY, f64::min);
    let mut notes = Vec::new();
    if mc.chains < 2 {
        notes.push("split-R̂ from a single chain compares its halves only; use `chains` ≥ 2".into());
    }
    if rhat > 1.01 {
        notes.push(format!("max split-R̂ {rhat:.3} > 1.01: the chains have not mixed; run more sweeps (`burn_in`, `samples`)"));
    }
    if ess < 400.0 {
        notes.push(format!("min effective sample size {ess:.0} < 400: posterior summaries are noisy; run more sweeps"));
    }
    Ok(BayesFit {
        engine: "gibbs".into(),
        draws,
        marginals: None,
        covariance: None,
        converged: crate::document::mixing_passes(rhat, ess),
        iterations: sweeps,
        tolerance: None,
        log_evidence: None,
        elbo: None,
        trace: Vec::new(),
        diagnostics: Some(diag),
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DatasetBuilder, Items, TieSemantics};

    /// The counted pass over `c` copies of a tied observation has the
    /// distribution of `c` independent single-copy passes: the first two
    /// moments of every item's latent-time total and of the universe
    /// coefficient agree (issue 17 item 2: a count of 5·10⁷ on a tied row
    /// ran 5·10⁷ single-copy passes per sweep).
    #[test]
    fn counted_copies_match_independent_copies() {
        let mut b = DatasetBuilder::new(Items::numbered(7), TieSemantics::UnknownOrder);
        // 4 ≻ {0, 1, 2} ≻ 5 ≻ {3, 6}…, a top-k row over a universe of 7.
        b.push(&[vec![4], vec![0, 1, 2], vec![5]], Tail::Universe, &[], 5.0)
            .unwrap();
        // {1, 3} ≻ {0, 2, 6} ≻ 5, complete (the last group is trivial).
        b.push(&[vec![1, 3], vec![0, 2, 6], vec![5]], Tail::None, &[], 5.0)
            .unwrap();
        let ds = b.finish();
        let lam = [0.5, 1.0, 2.0, 0.7, 1.5, 0.3, 1.1];
        let total: f64 = lam.iter().sum();
        let reps = 40_000;
        for o in 0..2 {
            let mut rng = stream(7, &[o as u64]);
            let (mut counted, mut single) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                let mut w = Work::new(7);
                let cu = sweep_observation(&ds, o, &lam, total, &mut rng, &mut w, 5.0);
                let mut v = w.zden.clone();
                v.push(cu);
                counted.push(v);
                let mut w = Work::new(7);
                let mut cu = 0.0;
                for _ in 0..5 {
                    cu += sweep_observation(&ds, o, &lam, total, &mut rng, &mut w, 1.0);
                }
                let mut v = w.zden.clone();
                v.push(cu);
                single.push(v);
            }
            for j in 0..8 {
                let moments = |xs: &[Vec<f64>]| {
                    let m = xs.iter().map(|x| x[j]).sum::<f64>() / reps as f64;
                    let v = xs.iter().map(|x| (x[j] - m).powi(2)).sum::<f64>() / reps as f64;
                    (m, v)
                };
                let ((m1, v1), (m2, v2)) = (moments(&counted), moments(&single));
                if v1 == 0.0 && v2 == 0.0 {
                    assert_eq!(m1, m2);
                    continue;
                }
                let se = ((v1 + v2) / reps as f64).sqrt();
                assert!(
                    (m1 - m2).abs() < 4.5 * se,
                    "obs {o} item {j}: mean {m1} vs {m2}"
                );
                assert!(
                    (v1 / v2 - 1.0).abs() < 0.08,
                    "obs {o} item {j}: var {v1} vs {v2}"
                );
            }
        }
    }
}
