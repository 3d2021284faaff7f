//! Finite mixtures of Plackett–Luce models by EM (maximum likelihood) or
//! MAP (Gormley & Murphy 2008; Mollica & Tardella 2017, the model of R's
//! PLMIX): `P(o) = Σ_g ω_g · PL(o | λ_g)` with G components, weights `ω`
//! and one worth vector per component.
//!
//! Each EM step computes, for every observation `o` and component `g`, the
//! unit-weight log-likelihood `ℓ_og = log PL(o | λ_g)` (E-step,
//! [`pl::unit_log_likelihoods`]) and the responsibilities
//! `z_og ∝ ω_g exp(ℓ_og)` by log-sum-exp; the M-step sets
//! `ω_g ∝ Σ_o w_o z_og + α − 1` (Dirichlet(α) prior) and takes one MM step
//! per component with observation weights `w_o z_og`
//! ([`pl::reweighted_sweep`]): `λ_gi ← (a − 1 + W_gi)/(b + den_gi)` under a
//! Gamma(a, b) prior on worths (`a = 1, b = 0`: maximum likelihood; Hunter
//! 2004's MM inside the M-step). Both halves never decrease the log
//! posterior, so the whole map is a monotone (generalised EM) map, run by
//! the library's [`Executor`] with SQUAREM extrapolation.
//!
//! Every observation kind the flat dataset holds — full, top-k and
//! sub-rankings, choices, pairs, unknown-order tied groups — goes through
//! the same sweeps; ties as events (Davidson–Luce) are refused. Identical
//! observations are collapsed into weighted rows first (exact). The
//! likelihood is multimodal, so the fit runs from several random starts
//! (random soft memberships), in parallel and each seeded by its index, and
//! keeps the best; components are reported in decreasing order of weight.
//! With one component the fit is the single-population engine's.

use super::point::PointFit;
use super::prior::Prior;
use super::rng::stream;
use super::spec::{EngineKind, FitSpec, Fitted};
use crate::data::{Dataset, TieSemantics};
use crate::error::{Error, Result};
use crate::model::{mixture_pass, pl};
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap, Termination};
use crate::numerics::log_sum_exp;
use crate::observer::SharedObserver;
use rand_distr::{Distribution, Exp1};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Settings of a mixture fit.
#[derive(Clone)]
pub struct MixtureOptions {
    /// Number of components G ≥ 1.
    pub components: usize,
    /// Gamma shape `a ≥ 1` of the prior on each worth (1 with rate 0:
    /// maximum likelihood).
    pub prior_shape: f64,
    /// Gamma rate `b ≥ 0` (no effect on the mode when `a = 1`: the prior's
    /// mode is then 0 for every worth and the mode of the normalised worths
    /// is the likelihood's).
    pub prior_rate: f64,
    /// Symmetric Dirichlet `α ≥ 1` on the weights (1: flat).
    pub dirichlet: f64,
    /// Random starts (the best is kept).
    pub starts: usize,
    /// Seed of the starts.
    pub seed: u64,
    /// Stop when the objective's relative change `|Δ|/max(1, |obj|)` is
    /// at most this.
    pub tol: f64,
    /// Map evaluations per start.
    pub max_iter: usize,
    /// Cancellation.
    pub observer: Option<SharedObserver>,
}

impl Default for MixtureOptions {
    fn default() -> Self {
        MixtureOptions {
            components: 2,
            prior_shape: 1.0,
            prior_rate: 0.0,
            dirichlet: 1.0,
            starts: 10,
            seed: 1,
            tol: 1e-13,
            max_iter: 20_000,
            observer: None,
        }
    }
}

impl MixtureOptions {
    /// Maximum likelihood (flat priors)?
    pub fn is_mle(&self) -> bool {
        self.prior_shape == 1.0 && self.prior_rate == 0.0 && self.dirichlet == 1.0
    }

    fn check(&self) -> Result<()> {
        if self.components == 0 || self.components > 50 {
            return Err(Error::param(
                "components",
                format!("expected 1 to 50 components, got {}", self.components),
            ));
        }
        if !(self.prior_shape.is_finite() && self.prior_shape >= 1.0) {
            return Err(Error::param(
                "prior_shape",
                format!(
                    "a mixture's Gamma shape must be at least 1 (1 with rate 0 is maximum likelihood), got {}",
                    self.prior_shape
                ),
            ));
        }
        if !(self.prior_rate.is_finite() && self.prior_rate >= 0.0) {
            return Err(Error::param(
                "prior_rate",
                format!("must be a non-negative number, got {}", self.prior_rate),
            ));
        }
        if !(self.dirichlet.is_finite() && self.dirichlet >= 1.0) {
            return Err(Error::param(
                "dirichlet",
                format!(
                    "the Dirichlet parameter must be at least 1, got {}",
                    self.dirichlet
                ),
            ));
        }
        if self.starts == 0 || self.starts > 10_000 {
            return Err(Error::param(
                "starts",
                format!("expected 1 to 10000 starts, got {}", self.starts),
            ));
        }
        IterSettings::new(self.tol, self.max_iter).check()?;
        Ok(())
    }
}

/// One random start's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartSummary {
    /// Log-likelihood at the start's estimate.
    pub log_likelihood: f64,
    /// Log posterior (MAP) or log-likelihood (MLE) maximised.
    pub objective: f64,
    /// Map evaluations.
    pub iterations: usize,
    /// Stopping rule met.
    pub converged: bool,
}

/// A fitted mixture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixtureFit {
    /// `mle` or `map`.
    pub engine: String,
    /// Component weights ω, decreasing.
    pub weights: Vec<f64>,
    /// Per component, the log-worths (mean-centred over the items).
    pub log_worths: Vec<Vec<f64>>,
    /// Log-likelihood at the estimate.
    pub log_likelihood: f64,
    /// The maximised objective (log posterior for MAP, up to a constant).
    pub objective: f64,
    /// Per observation of the dataset, P(component g | observation).
    pub membership: Vec<Vec<f64>>,
    /// Free parameters `G(n − 1) + G − 1`.
    pub n_parameters: usize,
    /// Sample size of the BIC: the total weight of the observations.
    pub sample_size: f64,
    /// Map evaluations of the kept start.
    pub iterations: usize,
    /// Whether the kept start met the stopping rule.
    pub converged: bool,
    /// Every start, in start order.
    pub starts: Vec<StartSummary>,
    /// The posterior, for the Gibbs sampler (`None` for EM).
    #[serde(default)]
    pub posterior: Option<MixturePosterior>,
    /// Notes for the user.
    pub notes: Vec<String>,
}

/// What the mixture Gibbs sampler adds to a fit: posterior summaries after
/// relabelling, deviance-based model choice and convergence diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixturePosterior {
    /// Posterior sd of each weight (component order of the fit).
    pub weight_sd: Vec<f64>,
    /// Posterior sd of each centred log-worth, per component.
    pub log_worth_sd: Vec<Vec<f64>>,
    /// Posterior mean deviance `D̄ = E[−2ℓ(ω, λ)]`.
    pub mean_deviance: f64,
    /// Deviance at the posterior mode (the MAP under the same priors).
    pub deviance_at_mode: f64,
    /// DIC `= 2D̄ − D(mode)` (PLMIX's DIC1, deviance at the MAP).
    pub dic: f64,
    /// BPIC `= 3D̄ − 2D(mode)` (Ando 2007, as PLMIX's BPIC1).
    pub bpic: f64,
    /// Largest split-R̂ over weights and log-worths, after relabelling.
    pub rhat_max: f64,
    /// Smallest bulk/tail ESS over the same quantities.
    pub ess_min: f64,
    /// Chains.
    pub chains: usize,
    /// Draws kept per chain.
    pub draws_per_chain: usize,
    /// Relabelled weight draws, chain-major: `[chain][draw][g]`.
    pub weight_draws: Vec<Vec<Vec<f64>>>,
    /// Relabelled centred log-worth draws: `[chain][draw][g][item]`.
    pub log_worth_draws: Vec<Vec<Vec<Vec<f64>>>>,
    /// Posterior predictive checks (top-1 and paired-comparison
    /// frequencies).
    #[serde(default)]
    pub checks: Option<super::mixture_ppc::PredictiveChecks>,
}

impl MixtureFit {
    /// Number of components.
    pub fn components(&self) -> usize {
        self.weights.len()
    }

    /// BIC `−2ℓ + k ln N` with `k = G(n − 1) + G − 1` and N the number of
    /// rankings (as PLMIX).
    pub fn bic(&self) -> f64 {
        -2.0 * self.log_likelihood + self.n_parameters as f64 * self.sample_size.ln()
    }

    /// AIC `−2ℓ + 2k`.
    pub fn aic(&self) -> f64 {
        -2.0 * self.log_likelihood + 2.0 * self.n_parameters as f64
    }
}

/// One start's end point, last evaluation, evaluations and convergence.
type StartRun = (Vec<f64>, Iterate, usize, bool);

/// Fit a G-component mixture to `ds`.
///
/// Maximum likelihood (`prior_shape` 1) needs Hunter's (2004) Assumption 1
/// of the pooled data, as the single-population MLE does: where a set of
/// items never loses to the rest, scaling their worths up by a common
/// factor in every component never lowers any observation's probability
/// under any component, so the mixture's likelihood has no maximum either
/// (the EM would drift to ever larger log-worths and call it converged).
pub fn fit_mixture(ds: &Dataset, opts: &MixtureOptions) -> Result<MixtureFit> {
    let mut fit = fit_mixture_unnoted(ds, opts)?;
    // A Gamma shape of 1 leaves the worths' mode at the likelihood's,
    // whatever the rate: the boundary is reachable.
    if opts.prior_shape == 1.0 {
        fit.notes.extend(boundary_notes(&fit, ds.items()));
    }
    fit.notes.extend(crate::posterior::fitted::data_notes(ds));
    Ok(fit)
}

/// Below this log-worth relative to a component's best item a worth is 0
/// to double precision in every choice probability (`e^-36 < 2^-52`).
const BOUNDARY_LOG_RATIO: f64 = -36.0;

/// Maximum-likelihood components whose estimate lies on the boundary: with
/// several components one can specialise in rankings that never choose
/// some items before the others, and its likelihood keeps rising as their
/// worths go to 0, so EM stops at log-worths set by its tolerance (tens or
/// hundreds below the rest), not at estimates. One note per component,
/// naming the items.
fn boundary_notes(fit: &MixtureFit, items: &crate::data::Items) -> Vec<String> {
    let mut notes = Vec::new();
    for (g, lw) in fit.log_worths.iter().enumerate() {
        let top = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let low: Vec<&str> = (0..lw.len())
            .filter(|&i| lw[i] - top < BOUNDARY_LOG_RATIO)
            .map(|i| items.name(i as u32))
            .collect();
        if low.is_empty() {
            continue;
        }
        notes.push(format!(
            "component {}: the worths of {} item(s) ({}) are 0 to double precision \
             (log-worths more than 36 below the component's best): maximum likelihood drives \
             them to the boundary (the rankings this component explains never choose them before \
             the rest), so their log-worths are where EM stopped, not estimates; `engine=map` (a \
             Gamma prior, PLMIX's MAP) keeps every worth positive",
            g + 1,
            low.len(),
            crate::io::output::first_few(&low, 8)
        ));
    }
    notes
}

/// Largest unknown-order tied group a mixture fits (EM and, through its
/// pivot, the sampler): 12 items cost 12·2¹² ≈ 5·10⁴ operations per
/// ranking, component and iteration; 20, the single fit's limit, cost 2·10⁷
/// and turned a 30-ranking mixture into minutes.
pub const MIXTURE_MAX_GROUP: usize = 12;

fn fit_mixture_unnoted(ds: &Dataset, opts: &MixtureOptions) -> Result<MixtureFit> {
    opts.check()?;
    if ds.ties() == TieSemantics::Event && ds.has_ties() {
        return Err(Error::Unsupported(
            "mixtures read tied groups as unknown-order only (a Davidson–Luce mixture is not \
             implemented); use `ties=unknown`"
                .into(),
        ));
    }
    pl::check_supported(ds)?;
    if ds.n_real_obs() == 0 {
        return Err(Error::Data(
            "no informative observations (every observation lists fewer than two items)".into(),
        ));
    }
    if let Some((o, n)) = pl::first_group_above(ds, MIXTURE_MAX_GROUP) {
        return Err(Error::Unsupported(format!(
            "observation {} has an unknown-order tied group of {n} items; a mixture evaluates \
             its exact likelihood (O(n·2^n)) for every component, start and iteration, and \
             groups above {MIXTURE_MAX_GROUP} items are refused (a single fit takes up to {})",
            o + 1,
            crate::model::subsets::MAX_GROUP
        )));
    }
    if ds.n_real_obs() != ds.n_obs() {
        return Err(Error::Unsupported(
            "pseudo-observations (`pseudo`) are not used with mixtures; use a Gamma prior \
             (`prior_shape`, `prior_rate`)"
                .into(),
        ));
    }
    let n = ds.n_items();
    if n < 2 {
        return Err(Error::Data("a mixture needs at least two items".into()));
    }
    if opts.prior_shape == 1.0 {
        let c = crate::data::graph::connectivity(ds);
        if !c.strongly_connected {
            return Err(mixture_non_existence(&c, ds.items()));
        }
    }
    let g = opts.components;
    let n_parameters = g * (n - 1) + g - 1;
    let sample_size = ds.total_weight();
    let engine = if opts.is_mle() { "mle" } else { "map" };
    if g == 1 {
        return one_component(ds, opts, engine, n_parameters, sample_size);
    }
    let work = ds.collapse_if_worthwhile();
    let data = work.as_ref().unwrap_or(ds);
    let runs: Vec<Result<StartRun>> = (0..opts.starts)
        .into_par_iter()
        .map(|s| {
            let mut map = EmMap::new(data, opts);
            let x0 = map.random_start(s as u64);
            let out = Executor::new(IterSettings::new(opts.tol, opts.max_iter))
                .observer(opts.observer.clone())
                .run(&mut map, x0)?;
            let converged = out.termination == Termination::Converged;
            Ok((out.x, out.last, out.evaluations, converged))
        })
        .collect();
    let mut starts = Vec::with_capacity(runs.len());
    let mut best: Option<(usize, Vec<f64>)> = None;
    let mut best_obj = f64::NEG_INFINITY;
    let mut loglik_of = Vec::new();
    for (s, r) in runs.into_iter().enumerate() {
        let (x, last, iterations, converged) = r?;
        // The last evaluation is at x: its objective less the prior.
        let ll = {
            let m = EmMap::new(data, opts);
            let (thetas, log_w) = m.unpack(&x);
            last.objective - m.log_prior(&thetas, &log_w)
        };
        starts.push(StartSummary {
            log_likelihood: ll,
            objective: last.objective,
            iterations,
            converged,
        });
        loglik_of.push(ll);
        // Ties between starts go to the earlier start: deterministic.
        if last.objective > best_obj {
            best_obj = last.objective;
            best = Some((s, x));
        }
    }
    let (kept, x) = best.ok_or_else(|| {
        Error::Numerical("no start of the mixture EM reached a finite objective".into())
    })?;
    let map = EmMap::new(ds, opts);
    let (thetas, log_w) = map.unpack(&x);
    // Responsibilities on the caller's observations (not the collapsed rows).
    let resp = map.responsibilities(&thetas, &log_w);
    let mut order: Vec<usize> = (0..g).collect();
    order.sort_by(|&a, &b| log_w[b].total_cmp(&log_w[a]).then(a.cmp(&b)));
    let weights: Vec<f64> = order.iter().map(|&k| log_w[k].exp()).collect();
    let log_worths: Vec<Vec<f64>> = order
        .iter()
        .map(|&k| {
            let mut t = thetas[k].clone();
            centre(&mut t);
            t
        })
        .collect();
    let membership = (0..ds.n_obs())
        .map(|o| order.iter().map(|&k| resp.z[k][o]).collect())
        .collect();
    let mut notes = Vec::new();
    let converged = starts[kept].converged;
    if !converged {
        notes.push(format!(
            "the best start stopped at {} evaluations before meeting the tolerance; raise `max_iter`",
            starts[kept].iterations
        ));
    }
    let near = loglik_of
        .iter()
        .filter(|&&l| (l - starts[kept].log_likelihood).abs() <= 1e-6 * l.abs().max(1.0))
        .count();
    if opts.starts > 1 && near == 1 {
        notes.push(format!(
            "only 1 of {} starts reached the best maximum; the likelihood is multimodal, so more \
             `starts` may find a higher one",
            opts.starts
        ));
    }
    if weights.iter().any(|&w| w < 1e-6) {
        notes.push(
            "a component's weight is near 0: the data do not support this many components".into(),
        );
    }
    Ok(MixtureFit {
        engine: engine.into(),
        weights,
        log_worths,
        log_likelihood: resp.log_likelihood,
        objective: starts[kept].objective,
        membership,
        n_parameters,
        sample_size,
        iterations: starts[kept].iterations,
        converged,
        starts,
        posterior: None,
        notes,
    })
}

/// Fits for `G` in `range`, each with the same settings otherwise.
pub fn fit_range(
    ds: &Dataset,
    range: std::ops::RangeInclusive<usize>,
    opts: &MixtureOptions,
) -> Result<Vec<MixtureFit>> {
    range
        .map(|g| {
            fit_mixture(
                ds,
                &MixtureOptions {
                    components: g,
                    ..opts.clone()
                },
            )
        })
        .collect()
}

/// The mixture log-likelihood `Σ_o w_o log Σ_g ω_g PL(o | λ_g)` at given
/// weights and log-worths (any gauge), and each observation's membership
/// probabilities `P(g | o)`.
pub fn mixture_log_likelihood(
    ds: &Dataset,
    weights: &[f64],
    log_worths: &[Vec<f64>],
) -> Result<(f64, Vec<Vec<f64>>)> {
    let g = weights.len();
    if g == 0 || log_worths.len() != g {
        return Err(Error::Data(format!(
            "{} weights for {} components",
            weights.len(),
            log_worths.len()
        )));
    }
    if log_worths.iter().any(|t| t.len() != ds.n_items()) {
        return Err(Error::Data(format!(
            "each component needs {} log-worths",
            ds.n_items()
        )));
    }
    if weights.iter().any(|w| !(w.is_finite() && *w >= 0.0)) || weights.iter().sum::<f64>() <= 0.0 {
        return Err(Error::Data(
            "weights must be non-negative with a positive sum".into(),
        ));
    }
    let total: f64 = weights.iter().sum();
    let log_w: Vec<f64> = weights.iter().map(|w| (w / total).ln()).collect();
    let opts = MixtureOptions {
        components: g,
        ..MixtureOptions::default()
    };
    let r = EmMap::new(ds, &opts).responsibilities(log_worths, &log_w);
    let membership = (0..ds.n_obs())
        .map(|o| (0..g).map(|k| r.z[k][o]).collect())
        .collect();
    Ok((r.log_likelihood, membership))
}

/// G = 1: the single-population MLE or MAP engine itself.
fn one_component(
    ds: &Dataset,
    opts: &MixtureOptions,
    engine: &str,
    n_parameters: usize,
    sample_size: f64,
) -> Result<MixtureFit> {
    // With one component the Dirichlet prior has nothing to act on, and a
    // Gamma shape of 1 leaves the normalised worths' mode at the MLE.
    let flat = opts.prior_shape == 1.0;
    let spec = if flat {
        FitSpec {
            engine: EngineKind::Mle,
            standard_errors: false,
            // The engine's own tolerance (on the score): `tol` here is the
            // EM's objective change and would not mean the same thing.
            observer: opts.observer.clone(),
            ..FitSpec::default()
        }
    } else {
        FitSpec {
            engine: EngineKind::Map,
            map_prior: Prior::Gamma {
                shape: opts.prior_shape,
                rate: opts.prior_rate,
            },
            gamma: (opts.prior_shape, opts.prior_rate),
            standard_errors: false,
            // The engine's own tolerance (on the score): `tol` here is the
            // EM's objective change and would not mean the same thing.
            observer: opts.observer.clone(),
            ..FitSpec::default()
        }
    };
    let Fitted::Point(PointFit {
        theta,
        log_likelihood,
        iterations,
        converged,
        notes,
        ..
    }) = spec.fit(ds)?
    else {
        unreachable!("mle and map are point engines")
    };
    let mut t = theta;
    if flat {
        centre(&mut t);
    }
    let objective = if flat {
        log_likelihood
    } else {
        log_likelihood + (opts.prior_shape - 1.0) * t.iter().sum::<f64>()
            - opts.prior_rate * t.iter().map(|x| x.exp()).sum::<f64>()
    };
    Ok(MixtureFit {
        engine: if flat { "mle" } else { engine }.into(),
        weights: vec![1.0],
        log_worths: vec![t],
        log_likelihood,
        objective,
        membership: vec![vec![1.0]; ds.n_obs()],
        n_parameters,
        sample_size,
        iterations,
        converged,
        starts: vec![StartSummary {
            log_likelihood,
            objective,
            iterations,
            converged,
        }],
        posterior: None,
        notes,
    })
}

/// The refusal of a mixture MLE on data that fail Hunter's (2004)
/// Assumption 1: the single-population message's reasons, with the remedies
/// a mixture has (pseudo-rankings are not used with mixtures).
fn mixture_non_existence(
    c: &crate::data::graph::Connectivity,
    items: &crate::data::Items,
) -> Error {
    let mut e = crate::data::graph::non_existence_error(c, items);
    if let Error::NotIdentifiable { msg, .. } = &mut e {
        *msg = format!(
            "the mixture's maximum-likelihood estimate does not exist in any component \
             (comparison graph not strongly connected, Hunter 2004 Assumption 1): {}; remedies: \
             `engine=map` (a Gamma prior on the worths, as PLMIX's MAP), `engine=gibbs`, or \
             `exclude` these items",
            crate::data::graph::non_existence_reasons(c, items)
        );
    }
    e
}

/// Subtract the mean (the gauge of reported log-worths).
pub(crate) fn centre(t: &mut [f64]) {
    let m = t.iter().sum::<f64>() / t.len() as f64;
    t.iter_mut().for_each(|x| *x -= m);
}

/// Responsibilities and the log-likelihood at a parameter point.
struct Responsibilities {
    /// `z[g][o]`.
    z: Vec<Vec<f64>>,
    /// `Σ_o w_o log Σ_g ω_g PL(o | λ_g)`.
    log_likelihood: f64,
}

/// The EM map on `x = (θ_1, …, θ_G, log ω)`, θ_g the log-worths of
/// component g (mean-centred under maximum likelihood, where only ratios
/// are identified; on the prior's scale under MAP).
struct EmMap<'a> {
    ds: &'a Dataset,
    /// Observation weights `w_o`.
    weights: Vec<f64>,
    n: usize,
    g: usize,
    a: f64,
    b: f64,
    alpha: f64,
    seed: u64,
}

impl<'a> EmMap<'a> {
    fn new(ds: &'a Dataset, opts: &MixtureOptions) -> Self {
        EmMap {
            ds,
            weights: (0..ds.n_obs()).map(|o| ds.obs(o).weight).collect(),
            n: ds.n_items(),
            g: opts.components,
            a: opts.prior_shape,
            // A Gamma shape of 1 puts every worth's prior mode at 0: the
            // joint mode has no scale, and the mode of the normalised worths
            // is the likelihood's whatever the rate (PLMIX's "flat" prior).
            // Iterating with the rate would only drift the scale to 0.
            b: if opts.prior_shape == 1.0 {
                0.0
            } else {
                opts.prior_rate
            },
            alpha: opts.dirichlet,
            seed: opts.seed,
        }
    }

    fn unpack(&self, x: &[f64]) -> (Vec<Vec<f64>>, Vec<f64>) {
        let thetas = (0..self.g)
            .map(|k| x[k * self.n..(k + 1) * self.n].to_vec())
            .collect();
        (thetas, x[self.g * self.n..].to_vec())
    }

    fn responsibilities(&self, thetas: &[Vec<f64>], log_w: &[f64]) -> Responsibilities {
        let (lams, log_lams): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
            thetas.iter().map(|t| pl::scaled(t)).unzip();
        // The dataset's weights are the EM's (`self.weights` copies them).
        let (log_likelihood, z) =
            mixture_pass::mixture_responsibilities(self.ds, &lams, &log_lams, log_w);
        Responsibilities { z, log_likelihood }
    }

    fn log_prior(&self, thetas: &[Vec<f64>], log_w: &[f64]) -> f64 {
        let mut lp = (self.alpha - 1.0) * log_w.iter().sum::<f64>();
        if self.a != 1.0 || self.b != 0.0 {
            for t in thetas {
                for &x in t {
                    lp += (self.a - 1.0) * x - self.b * x.exp();
                }
            }
        }
        lp
    }

    /// One M-step from responsibilities `z` at log-worths `thetas`.
    fn m_step(&self, thetas: &[Vec<f64>], z: &[Vec<f64>]) -> Vec<f64> {
        let mut wins = Vec::with_capacity(self.g);
        let mut den = Vec::with_capacity(self.g);
        for (t, zk) in thetas.iter().zip(z) {
            let v: Vec<f64> = self.weights.iter().zip(zk).map(|(w, z)| w * z).collect();
            let (lam, _) = pl::scaled(t);
            let (w, d) = pl::reweighted_sweep(self.ds, &lam, &v);
            wins.push(w);
            den.push(d);
        }
        self.m_step_from(thetas, z, &wins, &den)
    }

    /// The M-step from each component's responsibility-weighted stage wins
    /// and in-play coefficients at `thetas` (scaled so the largest worth
    /// is 1, as [`pl::scaled`]).
    fn m_step_from(
        &self,
        thetas: &[Vec<f64>],
        z: &[Vec<f64>],
        wins: &[Vec<f64>],
        den: &[Vec<f64>],
    ) -> Vec<f64> {
        let mut x = Vec::with_capacity(self.g * (self.n + 1));
        let mut counts = Vec::with_capacity(self.g);
        for (((t, zk), wins), den) in thetas.iter().zip(z).zip(wins).zip(den) {
            counts.push(self.weights.iter().zip(zk).map(|(w, z)| w * z).sum::<f64>());
            let m = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut next: Vec<f64> = wins
                .iter()
                .zip(den.iter())
                .zip(t)
                .map(|((&wi, &d), &old)| {
                    let num = self.a - 1.0 + wi;
                    // den was computed at λ·e^{−m}: the true one is den·e^{−m}.
                    let v = if self.b == 0.0 {
                        num.ln() - d.ln() + m
                    } else {
                        num.ln() - (self.b + d * (-m).exp()).ln()
                    };
                    // No weight left on this item in this component (the
                    // component drained away): nothing to update it from.
                    if d > 0.0 && !v.is_nan() && v != f64::INFINITY {
                        v
                    } else {
                        old
                    }
                })
                .collect();
            // An item that wins nowhere in this component (its
            // responsibilities underflowed) sits at the boundary: keep it
            // finite, far below the others.
            let top = next
                .iter()
                .copied()
                .filter(|v| v.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            let top = if top.is_finite() { top } else { 0.0 };
            for v in next.iter_mut() {
                if !v.is_finite() || *v < top - 700.0 {
                    *v = top - 700.0;
                }
            }
            if self.b == 0.0 && self.a == 1.0 {
                centre(&mut next);
            }
            x.extend(next);
        }
        let total: f64 = counts.iter().sum::<f64>() + self.g as f64 * (self.alpha - 1.0);
        for c in counts {
            let wk = ((c + self.alpha - 1.0) / total).max(1e-300);
            x.push(wk.ln());
        }
        x
    }

    /// Random soft memberships (each observation's a Dirichlet(1) draw)
    /// followed by one M-step from equal worths.
    fn random_start(&self, start: u64) -> Vec<f64> {
        let mut rng = stream(self.seed, &[0x4D49_5854, start]);
        let n_obs = self.ds.n_obs();
        let mut z = vec![vec![0.0; n_obs]; self.g];
        for o in 0..n_obs {
            let e: Vec<f64> = (0..self.g)
                .map(|_| -> f64 { Exp1.sample(&mut rng) })
                .collect();
            let s: f64 = e.iter().sum();
            for k in 0..self.g {
                z[k][o] = e[k] / s;
            }
        }
        let flat = vec![vec![0.0; self.n]; self.g];
        self.m_step(&flat, &z)
    }
}

impl MonotoneMap for EmMap<'_> {
    fn eval(&mut self, x: &[f64]) -> Result<Iterate> {
        let (thetas, log_w) = self.unpack(x);
        let (lams, log_lams): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
            thetas.iter().map(|t| pl::scaled(t)).unzip();
        let r = mixture_pass::mixture_pass(self.ds, &lams, &log_lams, &log_w, &self.weights);
        let objective = r.log_likelihood + self.log_prior(&thetas, &log_w);
        if !objective.is_finite() {
            return Err(Error::Numerical(
                "the mixture log-likelihood is not finite at this point".into(),
            ));
        }
        let next = self.m_step_from(&thetas, &r.z, &r.wins, &r.den);
        // Stop on the relative change of the objective: an over-fitted
        // mixture has flat ridges (two components merging, a weight
        // draining away) along which the parameters drift for thousands of
        // steps while the likelihood no longer moves.
        // A component whose weight drains to 0 leaves a (G − 1)-component
        // fit: still a regular point that may converge.
        Ok(Iterate::new(next, objective, None))
    }

    fn coords_to_point(&self, mut c: Vec<f64>, _like: &[f64]) -> Option<Vec<f64>> {
        // Extrapolated log-weights: renormalise onto the simplex.
        let lse = log_sum_exp(&c[self.g * self.n..]);
        c[self.g * self.n..].iter_mut().for_each(|l| *l -= lse);
        if self.a == 1.0 && self.b == 0.0 {
            for k in 0..self.g {
                centre(&mut c[k * self.n..(k + 1) * self.n]);
            }
        }
        c.iter().all(|v| v.is_finite()).then_some(c)
    }
}
