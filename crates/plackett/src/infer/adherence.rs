//! Ranker adherence: the Plackett–Luce model with a per-ranker multiplier
//! `η_r > 0` on the log-worths (Raman & Joachims 2014; R's PlackettLuce,
//! Turner et al. 2020, `adherence`/`gamma`). A choice of ranker `r` from a
//! set `S` has probability
//!
//! ```text
//! λ_i^{η_r} / Σ_{j∈S} λ_j^{η_r} = exp(η_r θ_i) / Σ_{j∈S} exp(η_r θ_j),
//! ```
//!
//! so `η_r > 1` sharpens the ranker's choices towards the consensus order,
//! `η_r < 1` flattens them, and `η ≡ 1` is the ordinary model. Maximum
//! likelihood does not exist for `η` (a ranker who agrees with the worth
//! order would get `η = ∞`); a Gamma(shape, rate) prior on each `η_r`
//! (PlackettLuce's default Gamma(10, 10): mean 1) gives the MAP.
//!
//! The fit maximises
//!
//! ```text
//! Σ_o w_o log P(o | θ, η_{r(o)}) + Σ_r [(shape − 1) log η_r − rate η_r]
//!   (+ pseudo-rankings against a ghost item of log-worth 0, η = 1)
//!   (+ Σ_i [(a − 1) θ_i − b e^{θ_i}] under a Gamma(a, b) worth prior)
//! ```
//!
//! — PlackettLuce's "log-posterior" without normalising constants — by a
//! monotone MM map: every stage's `−log D_s` is minorised by its tangent
//! (`log` is concave), which separates the items; each item's surrogate
//! `Σ_r [η_r W_ri δ − E_ri e^{η_r δ}]` (`W` the stage wins, `E` the expected
//! ones at the current point) is concave in the step `δ` and maximised by a
//! safeguarded Newton iteration — with `η ≡ 1` it is Hunter's MM step
//! `δ = log(W/E)`. Then, at the new worths, each ranker's surrogate
//! `Σ_i [W_ri η θ_i − E_ri e^{(η − η₀)θ_i}] + (shape − 1) log η − rate η` is
//! maximised the same way. SQUAREM accelerates the map (through the shared
//! [`Executor`]). Tied groups are read as unknown orders (the sweeps'
//! expectations make the step an EM-MM step); ties as events are refused.
//!
//! One difference from PlackettLuce: PlackettLuce multiplies ranker `r`'s
//! log-prior by the total weight of its rankings; here each ranker's `η_r`
//! gets its prior once (a coherent Bayesian model). The two agree whenever
//! each ranker has one ranking of weight 1 (PlackettLuce's default when no
//! rankers are given).

use crate::data::dataset::NO_RANKER;
use crate::data::graph::{connectivity, non_existence_error};
use crate::data::{Dataset, Tail, TieSemantics};
use crate::error::{Error, Result};
use crate::io::model_file::ADHERENCE_FORMAT;
use crate::model::pl::{self, Scope};
use crate::numerics::concave::maximise;
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap, Termination};
use crate::observer::SharedObserver;
use crate::posterior::{Draws, SavedAdherence};
use rayon::prelude::*;

/// Settings of [`fit_adherence`].
#[derive(Clone)]
pub struct AdherenceOptions {
    /// Gamma shape of each ranker's `η_r` (≥ 1, so the MAP is interior).
    pub prior_shape: f64,
    /// Gamma rate of each `η_r` (> 0). Shape = rate puts the prior mean at 1.
    pub prior_rate: f64,
    /// Gamma(a, b) prior on every worth `λ_i` (MAP), as the `map` engine;
    /// `None` for none.
    pub worth_prior: Option<(f64, f64)>,
    /// Pseudo-rankings against a ghost item (PlackettLuce's `npseudo`).
    pub pseudo: Option<f64>,
    /// Fixed adherences, one per ranker (no prior, no estimation).
    pub fixed: Option<Vec<f64>>,
    /// Stop when every score component, relative to the size of the terms
    /// it balances, is at most this.
    pub tol: f64,
    /// Most map evaluations.
    pub max_iter: usize,
    /// Progress and cancellation.
    pub observer: Option<SharedObserver>,
}

impl Default for AdherenceOptions {
    fn default() -> Self {
        AdherenceOptions {
            prior_shape: 10.0,
            prior_rate: 10.0,
            worth_prior: None,
            pseudo: None,
            fixed: None,
            tol: 1e-10,
            max_iter: 100_000,
            observer: None,
        }
    }
}

/// Result of [`fit_adherence`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AdherenceFit {
    /// Item names (real items).
    pub items: Vec<String>,
    /// Log-worths, mean-centred over the real items (with a worth prior:
    /// on the prior's scale, not centred).
    pub log_worths: Vec<f64>,
    /// Ranker names (1-based observation numbers when the data name no
    /// rankers: every observation is its own ranker).
    pub rankers: Vec<String>,
    /// Each ranker's adherence `η_r` (estimated or fixed).
    pub adherence: Vec<f64>,
    /// Whether the adherences were estimated (else fixed).
    pub estimated: bool,
    /// Log-likelihood of the real observations at the estimate.
    pub log_likelihood: f64,
    /// The maximised objective (see the module docs).
    pub log_posterior: f64,
    /// Map evaluations.
    pub iterations: usize,
    /// Whether the stopping rule held.
    pub converged: bool,
    /// Objective of every accepted iterate.
    pub trace: Vec<f64>,
    /// Notes for the reader.
    pub notes: Vec<String>,
    /// Posterior summaries when the fit was sampled
    /// ([`super::adherence_gibbs::adherence_gibbs`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub posterior: Option<super::adherence_gibbs::AdherencePosterior>,
}

/// Fit the adherence model (see the module docs).
pub fn fit_adherence(ds: &Dataset, opts: &AdherenceOptions) -> Result<AdherenceFit> {
    check(ds, opts)?;
    let Setup {
        names,
        of_obs,
        work,
        ghost,
        units,
        mut notes,
    } = setup(ds, opts)?;
    let n_rankers = names.len();
    let n = work.n_items();
    let mut map = AdherenceMap {
        ds: &work,
        units,
        n,
        n_rankers,
        ghost,
        shift_free: ghost.is_none() && opts.worth_prior.is_none(),
        opts,
    };
    let mut x0 = vec![0.0; n + n_rankers];
    if let Some(f) = &opts.fixed {
        for (x, &e) in x0[n..].iter_mut().zip(f) {
            *x = e.ln();
        }
    }
    let out = Executor::new(IterSettings::new(opts.tol, opts.max_iter))
        .observer(opts.observer.clone())
        .run(&mut map, x0)?;
    let theta = &out.x[..n];
    let eta: Vec<f64> = out.x[n..].iter().map(|l| l.exp()).collect();
    let n_real = ds.n_items();
    let mut log_worths: Vec<f64> = match ghost {
        Some(_) => theta[..n_real].to_vec(),
        None => theta.to_vec(),
    };
    if opts.worth_prior.is_none() {
        crate::numerics::centre(&mut log_worths);
    }
    // Log-likelihood of the real observations at the estimate.
    let ll = map.log_likelihood_of(ds, &out.x, &of_obs[..ds.n_real_obs().min(of_obs.len())]);
    if !out.converged() {
        notes.push(format!(
            "not converged after {} evaluations (relative score above {})",
            out.evaluations, opts.tol
        ));
    }
    notes.extend(crate::posterior::fitted::data_notes(ds));
    Ok(AdherenceFit {
        items: (0..n_real)
            .map(|i| ds.items().name(i as u32).to_string())
            .collect(),
        log_worths,
        rankers: names,
        adherence: eta,
        estimated: opts.fixed.is_none(),
        log_likelihood: ll,
        log_posterior: out.last.objective,
        iterations: out.evaluations,
        converged: out.termination == Termination::Converged,
        trace: out.trace,
        notes,
        posterior: None,
    })
}

/// What every adherence engine works on: rankers, the working dataset
/// (with the ghost item's pseudo-rankings when asked), and each ranker's
/// observations.
pub(crate) struct Setup {
    /// Ranker names.
    pub names: Vec<String>,
    /// Each observation's ranker (`NO_RANKER` for pseudo-observations).
    pub of_obs: Vec<u32>,
    /// The data, plus pseudo-rankings against the ghost item if asked.
    pub work: Dataset,
    /// The ghost item's index in `work`.
    pub ghost: Option<usize>,
    /// Observations of `work` per ranker; the last unit holds the
    /// pseudo-observations (η = 1).
    pub units: Vec<Vec<usize>>,
    /// Notes for the reader.
    pub notes: Vec<String>,
}

pub(crate) fn setup(ds: &Dataset, opts: &AdherenceOptions) -> Result<Setup> {
    let mut notes = Vec::new();
    // Rankers: the data's, or one per observation.
    let (names, of_obs): (Vec<String>, Vec<u32>) = if ds.has_rankers() {
        (
            ds.ranker_names().to_vec(),
            (0..ds.n_obs())
                .map(|o| ds.ranker(o).expect("rankers"))
                .collect(),
        )
    } else {
        notes.push(
            "no rankers named: every observation is its own ranker (PlackettLuce's default)"
                .to_string(),
        );
        (
            (1..=ds.n_real_obs()).map(|o| o.to_string()).collect(),
            (0..ds.n_obs())
                .map(|o| if ds.is_pseudo(o) { NO_RANKER } else { o as u32 })
                .collect(),
        )
    };
    let n_rankers = names.len();
    if let Some(f) = &opts.fixed {
        if f.len() != n_rankers {
            return Err(Error::param(
                "adherence",
                format!("{} fixed adherences for {n_rankers} rankers", f.len()),
            ));
        }
        if let Some(x) = f.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
            return Err(Error::param(
                "adherence",
                format!("a fixed adherence must be positive and finite, got {x}"),
            ));
        }
    }
    let (work, ghost) = match opts.pseudo {
        Some(w) => {
            let (d, g) = ds.with_ghost(w)?;
            notes.push(format!(
                "pseudo-rankings: each item won and lost {} time(s) against a ghost item \
                 (adherence 1); the log-likelihood uses the real data only",
                crate::numerics::sig(w, 15)
            ));
            (d, Some(g as usize))
        }
        None => (ds.clone(), None),
    };
    // Units: one per ranker, then the pseudo-observations (η fixed at 1).
    let mut units: Vec<Vec<usize>> = vec![Vec::new(); n_rankers + 1];
    for o in 0..work.n_obs() {
        let r = if o < of_obs.len() {
            of_obs[o]
        } else {
            NO_RANKER
        };
        match r {
            NO_RANKER => units[n_rankers].push(o),
            r => units[r as usize].push(o),
        }
    }
    Ok(Setup {
        names,
        of_obs,
        work,
        ghost,
        units,
        notes,
    })
}

pub(crate) fn check(ds: &Dataset, opts: &AdherenceOptions) -> Result<()> {
    if ds.ties() == TieSemantics::Event && ds.has_ties() {
        return Err(Error::Unsupported(
            "the adherence model reads tied groups as unknown orders only; ties as events \
             (Davidson–Luce) with adherence are not supported"
                .into(),
        ));
    }
    pl::check_supported(ds)?;
    if opts.fixed.is_none() {
        if !(opts.prior_shape.is_finite() && opts.prior_shape >= 1.0) {
            return Err(Error::param(
                "adherence_shape",
                format!(
                    "must be at least 1 (below 1 the prior's density is unbounded at 0 and the \
                     MAP can be an adherence of 0), got {}",
                    crate::error::show_number(opts.prior_shape)
                ),
            ));
        }
        if !(opts.prior_rate.is_finite() && opts.prior_rate > 0.0) {
            return Err(Error::param(
                "adherence_rate",
                format!(
                    "must be positive (with rate 0 a ranker who agrees with the worth order \
                     has no finite adherence), got {}",
                    crate::error::show_number(opts.prior_rate)
                ),
            ));
        }
    }
    if !(opts.tol.is_finite() && opts.tol > 0.0) {
        return Err(Error::param(
            "tol",
            format!("must be positive, got {}", opts.tol),
        ));
    }
    match opts.worth_prior {
        Some((a, b)) => {
            if !(a.is_finite() && a >= 1.0 && b.is_finite() && b > 0.0) {
                return Err(Error::param(
                    "prior_shape",
                    format!(
                        "the worth prior needs shape ≥ 1 and rate > 0, got Gamma({}, {})",
                        crate::error::show_number(a),
                        crate::error::show_number(b)
                    ),
                ));
            }
            if a == 1.0 {
                let w = pl::wins(ds, Scope::All);
                if let Some(i) = (0..ds.n_items()).find(|&i| w[i] == 0.0) {
                    return Err(Error::not_identifiable(format!(
                        "item {:?} never wins: under Gamma(shape 1) its MAP worth is 0; use a \
                         shape above 1 or pseudo-rankings",
                        ds.items().name(i as u32)
                    )));
                }
            }
        }
        None => {
            if opts.pseudo.is_none() {
                let c = connectivity(ds);
                if !c.strongly_connected {
                    return Err(non_existence_error(&c, ds.items()));
                }
            }
        }
    }
    Ok(())
}

/// Stage wins and expected wins of one unit (a ranker's observations) at
/// one point, for the items it touches.
struct UnitStats {
    ll: f64,
    items: Vec<u32>,
    wins: Vec<f64>,
    expected: Vec<f64>,
}

/// Per-thread scratch of [`unit_sweep`].
struct Buf {
    lam: Vec<f64>,
    den: Vec<f64>,
    wins: Vec<f64>,
    mark: Vec<bool>,
    touched: Vec<u32>,
    scratch: pl::Scratch,
}

impl Buf {
    fn new(n: usize) -> Buf {
        Buf {
            lam: vec![0.0; n],
            den: vec![0.0; n],
            wins: vec![0.0; n],
            mark: vec![false; n],
            touched: Vec::new(),
            scratch: pl::Scratch::default(),
        }
    }
}

/// The worths `exp(η θ_i − shift)` of every item a unit's observations
/// can choose among, written into `lam` and listed in `touched` (marked in
/// `mark`, which the caller clears through `touched`); returns the
/// universe's total worth when an observation's tail is the universe, else
/// 0 (`pl::sweep_obs`'s convention).
pub(super) fn scaled_worths(
    ds: &Dataset,
    obs: &[usize],
    theta: &[f64],
    (eta, shift): (f64, f64),
    mark: &mut [bool],
    lam: &mut [f64],
    touched: &mut Vec<u32>,
) -> f64 {
    let mut universe_tail = false;
    let mut touch = |i: u32, touched: &mut Vec<u32>| {
        if !mark[i as usize] {
            mark[i as usize] = true;
            touched.push(i);
        }
    };
    for &o in obs {
        let ob = ds.obs(o);
        universe_tail |= ob.tail == Tail::Universe;
        for &i in ob.members {
            touch(i, touched);
        }
    }
    if universe_tail {
        for i in 0..ds.universe() as u32 {
            touch(i, touched);
        }
    }
    for &i in touched.iter() {
        lam[i as usize] = (eta * theta[i as usize] - shift).exp();
    }
    if universe_tail {
        lam[..ds.universe()].iter().sum()
    } else {
        0.0
    }
}

/// One unit's log-likelihood, stage wins and expected wins at log-worths
/// `theta` scaled by `eta`.
fn unit_sweep(
    ds: &Dataset,
    obs: &[usize],
    theta: &[f64],
    theta_max: f64,
    eta: f64,
    b: &mut Buf,
) -> UnitStats {
    let m = eta * theta_max;
    b.touched.clear();
    let total = scaled_worths(
        ds,
        obs,
        theta,
        (eta, m),
        &mut b.mark,
        &mut b.lam,
        &mut b.touched,
    );
    let (mut ll, mut cu) = (0.0, 0.0);
    for &o in obs {
        let (l, c) = pl::sweep_obs(
            ds,
            o,
            &b.lam,
            total,
            &mut b.den,
            &mut b.scratch,
            pl::Weights::of(ds, o),
        );
        ll += l;
        cu += c;
        let w = ds.obs(o).weight;
        let wins = &mut b.wins;
        pl::for_each_winner(ds, o, |i| wins[i as usize] += w);
    }
    if cu != 0.0 {
        b.den[..ds.universe()].iter_mut().for_each(|d| *d += cu);
    }
    let mut out = UnitStats {
        ll: 0.0,
        items: Vec::with_capacity(b.touched.len()),
        wins: Vec::with_capacity(b.touched.len()),
        expected: Vec::with_capacity(b.touched.len()),
    };
    for &i in &b.touched {
        let i_ = i as usize;
        ll += b.wins[i_] * (eta * theta[i_] - m);
        out.items.push(i);
        out.wins.push(b.wins[i_]);
        out.expected.push(b.lam[i_] * b.den[i_]);
        b.den[i_] = 0.0;
        b.wins[i_] = 0.0;
        b.mark[i_] = false;
    }
    out.ll = ll;
    out
}

struct AdherenceMap<'a> {
    ds: &'a Dataset,
    /// Observations of each ranker; the last unit holds the
    /// pseudo-observations (η = 1).
    units: Vec<Vec<usize>>,
    n: usize,
    n_rankers: usize,
    ghost: Option<usize>,
    /// No ghost and no worth prior: the objective is invariant under a
    /// common shift of θ, which is removed (mean-centred).
    shift_free: bool,
    opts: &'a AdherenceOptions,
}

/// Units per parallel block: fixed, so the reduction order (and the
/// floating-point result) does not depend on the thread count.
const BLOCK: usize = 64;

impl AdherenceMap<'_> {
    fn etas(&self, x: &[f64]) -> Vec<f64> {
        let mut e: Vec<f64> = x[self.n..].iter().map(|l| l.exp()).collect();
        e.push(1.0); // the pseudo unit
        e
    }

    fn sweep_all(
        &self,
        ds: &Dataset,
        units: &[Vec<usize>],
        theta: &[f64],
        eta: &[f64],
    ) -> Vec<UnitStats> {
        let theta_max = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let n = ds.n_items();
        let idx: Vec<usize> = (0..units.len()).collect();
        idx.par_chunks(BLOCK)
            .map(|blk| {
                let mut b = Buf::new(n);
                blk.iter()
                    .map(|&u| unit_sweep(ds, &units[u], theta, theta_max, eta[u], &mut b))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .collect()
    }

    fn eta_log_prior(&self, eta: &[f64]) -> f64 {
        if self.opts.fixed.is_some() {
            return 0.0;
        }
        let (s, r) = (self.opts.prior_shape, self.opts.prior_rate);
        eta[..self.n_rankers]
            .iter()
            .map(|&e| (s - 1.0) * e.ln() - r * e)
            .sum()
    }

    fn worth_log_prior(&self, theta: &[f64]) -> f64 {
        match self.opts.worth_prior {
            None => 0.0,
            Some((a, b)) => theta
                .iter()
                .enumerate()
                .filter(|&(i, _)| Some(i) != self.ghost)
                .map(|(_, &t)| (a - 1.0) * t - b * t.exp())
                .sum(),
        }
    }

    /// Log-likelihood of `ds` (real observations, rankers `of_obs`) at `x`.
    fn log_likelihood_of(&self, ds: &Dataset, x: &[f64], of_obs: &[u32]) -> f64 {
        let mut units: Vec<Vec<usize>> = vec![Vec::new(); self.n_rankers];
        for o in 0..ds.n_real_obs() {
            units[of_obs[o] as usize].push(o);
        }
        let theta = &x[..ds.n_items()];
        let eta = self.etas(x);
        self.sweep_all(ds, &units, theta, &eta[..self.n_rankers])
            .iter()
            .map(|s| s.ll)
            .sum()
    }
}

impl MonotoneMap for AdherenceMap<'_> {
    fn eval(&mut self, x: &[f64]) -> Result<Iterate> {
        let n = self.n;
        let theta = &x[..n];
        let eta = self.etas(x);
        let stats = self.sweep_all(self.ds, &self.units, theta, &eta);
        let ll: f64 = stats.iter().map(|s| s.ll).sum();
        let objective = ll + self.eta_log_prior(&eta) + self.worth_log_prior(theta);
        if !objective.is_finite() {
            return Err(Error::Numerical(
                "the adherence model's objective is not finite at this point".into(),
            ));
        }
        // θ-step: gather (η_u, W_ui, E_ui) by item (counting sort, unit
        // order within an item), then each item's concave surrogate.
        let mut count = vec![0usize; n + 1];
        for s in &stats {
            for &i in &s.items {
                count[i as usize + 1] += 1;
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut at = count.clone();
        let total = count[n];
        let mut terms = vec![(0.0f64, 0.0f64, 0.0f64); total];
        for (u, s) in stats.iter().enumerate() {
            for k in 0..s.items.len() {
                let i = s.items[k] as usize;
                terms[at[i]] = (eta[u], s.wins[k], s.expected[k]);
                at[i] += 1;
            }
        }
        let prior = self.opts.worth_prior;
        // The engine's gap: the largest score component at x, each relative
        // to the size of the terms it balances (so it does not grow with
        // the counts).
        let mut gap: f64 = 0.0;
        for i in 0..n {
            if Some(i) == self.ghost {
                continue;
            }
            let (mut g, mut size) = (0.0, 1.0);
            for &(e, w, ex) in &terms[count[i]..count[i + 1]] {
                g += e * (w - ex);
                size += e * (w + ex);
            }
            if let Some((a, b)) = prior {
                let z = b * theta[i].exp();
                g += a - 1.0 - z;
                size += (a - 1.0).abs() + z;
            }
            gap = gap.max(g.abs() / size);
        }
        if self.opts.fixed.is_none() {
            let (sh, ra) = (self.opts.prior_shape, self.opts.prior_rate);
            for (u, st) in stats[..self.n_rankers].iter().enumerate() {
                let e = eta[u];
                let (mut g, mut size) = ((sh - 1.0) / e - ra, 1.0 + (sh - 1.0) / e + ra);
                for k in 0..st.items.len() {
                    let t = theta[st.items[k] as usize];
                    g += t * (st.wins[k] - st.expected[k]);
                    size += t.abs() * (st.wins[k] + st.expected[k]);
                }
                gap = gap.max((e * g).abs() / (e * size));
            }
        }
        let mut next_theta: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| {
                if Some(i) == self.ghost {
                    return theta[i];
                }
                let t = &terms[count[i]..count[i + 1]];
                if t.is_empty() {
                    return theta[i];
                }
                let delta = maximise(0.0, f64::NEG_INFINITY, f64::INFINITY, 1e-13, 100, |d| {
                    let (mut g, mut h) = (0.0, 0.0);
                    for &(e, w, ex) in t {
                        let z = ex * (e * d).exp();
                        g += e * (w - z);
                        h -= e * e * z;
                    }
                    if let Some((a, b)) = prior {
                        let z = b * (theta[i] + d).exp();
                        g += a - 1.0 - z;
                        h -= z;
                    }
                    (g, h)
                });
                theta[i] + delta
            })
            .collect();
        if self.shift_free {
            crate::numerics::centre(&mut next_theta);
        }
        // η-step at the new worths.
        let mut next = next_theta.clone();
        if self.opts.fixed.is_some() {
            next.extend_from_slice(&x[n..]);
        } else {
            let rankers = &self.units[..self.n_rankers];
            let stats = self.sweep_all(self.ds, rankers, &next_theta, &eta[..self.n_rankers]);
            let (s, r) = (self.opts.prior_shape, self.opts.prior_rate);
            let log_eta: Vec<f64> = stats
                .par_iter()
                .zip(&eta[..self.n_rankers])
                .map(|(st, &e0)| {
                    let a: f64 = st
                        .items
                        .iter()
                        .zip(&st.wins)
                        .map(|(&i, &w)| w * next_theta[i as usize])
                        .sum();
                    let e = maximise(e0, 0.0, f64::INFINITY, 1e-13, 200, |e| {
                        let (mut g, mut h) = (a + (s - 1.0) / e - r, -(s - 1.0) / (e * e));
                        for (&i, &ex) in st.items.iter().zip(&st.expected) {
                            let t = next_theta[i as usize];
                            let z = ex * ((e - e0) * t).exp();
                            g -= z * t;
                            h -= z * t * t;
                        }
                        (g, h)
                    });
                    e.ln()
                })
                .collect();
            next.extend(log_eta);
        }
        if next.iter().any(|v| !v.is_finite()) {
            return Err(Error::Numerical(
                "the adherence update left the finite range".into(),
            ));
        }
        Ok(Iterate::new(next, objective, Some(gap)))
    }

    fn coords_to_point(&self, mut c: Vec<f64>, like: &[f64]) -> Option<Vec<f64>> {
        if let Some(g) = self.ghost {
            c[g] = like[g];
        }
        if self.opts.fixed.is_some() {
            c[self.n..].copy_from_slice(&like[self.n..]);
        }
        if self.shift_free {
            crate::numerics::centre(&mut c[..self.n]);
        }
        c.iter().all(|v| v.is_finite()).then_some(c)
    }
}

// The saved model is built here, by the engine that produced the fit, so
// that `posterior` (a lower layer) never imports an engine.
impl SavedAdherence {
    /// The model of `fit` over its items, its prior Gamma(shape, rate) when
    /// the adherences were estimated, its posterior draws (thinned to at
    /// most `max_draws`) when it was sampled, else the MAP as one draw.
    pub fn new(
        engine: &str,
        fit: &AdherenceFit,
        prior: Option<(f64, f64)>,
        max_draws: usize,
    ) -> Result<SavedAdherence> {
        let (n, r) = (fit.items.len(), fit.rankers.len());
        let (theta, eta) = match &fit.posterior {
            Some(p) => {
                let flat = |chains: &[Vec<Vec<f64>>], width: usize| -> Result<Draws> {
                    if chains.iter().flatten().any(|d| d.len() != width) {
                        return Err(Error::Data(
                            "the sampler's draws do not match the fit's items and rankers".into(),
                        ));
                    }
                    Ok(Draws::from_chains(
                        width,
                        chains.iter().map(|c| c.concat()).collect(),
                    ))
                };
                (flat(&p.log_worth_draws, n)?, flat(&p.adherence_draws, r)?)
            }
            None => (
                Draws::from_chains(n, vec![fit.log_worths.clone()]),
                Draws::from_chains(r, vec![fit.adherence.clone()]),
            ),
        };
        let step = theta.len().div_ceil(max_draws.max(1)).max(1);
        let (mut theta, eta) = if step > 1 {
            (theta.thinned(step), eta.thinned(step))
        } else {
            (theta, eta)
        };
        theta.normalise_each();
        Ok(SavedAdherence {
            format: ADHERENCE_FORMAT.into(),
            version: 1,
            engine: engine.into(),
            items: fit.items.clone(),
            log_worths: theta,
            rankers: fit.rankers.clone(),
            adherence: eta,
            prior: if fit.estimated {
                prior.map(|(a, b)| [a, b])
            } else {
                None
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DatasetBuilder, Items};

    fn small() -> Dataset {
        let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
        let rows: [&[&[u32]]; 6] = [
            &[&[0], &[1], &[2], &[3]],
            &[&[1], &[0], &[3]],
            &[&[2], &[0], &[1]],
            &[&[0], &[2]],
            &[&[3], &[1], &[0], &[2]],
            &[&[1], &[2, 3]],
        ];
        for r in rows {
            b.push(r, Tail::None, &[], 1.0).unwrap();
        }
        b.finish()
    }

    #[test]
    fn fixed_unit_adherence_is_the_ordinary_mle() {
        let ds = small();
        let f = fit_adherence(
            &ds,
            &AdherenceOptions {
                fixed: Some(vec![1.0; ds.n_obs()]),
                ..AdherenceOptions::default()
            },
        )
        .unwrap();
        let p = crate::infer::fit_point(&ds, &crate::infer::PointOptions::default()).unwrap();
        let mut t = p.theta.clone();
        crate::numerics::centre(&mut t);
        for (a, b) in f.log_worths.iter().zip(&t) {
            assert!((a - b).abs() < 1e-7, "{a} vs {b}");
        }
        assert!((f.log_likelihood - p.log_likelihood).abs() < 1e-9);
        assert!(
            f.trace
                .windows(2)
                .all(|w| w[1] >= w[0] - 1e-12 * w[0].abs())
        );
    }
}
