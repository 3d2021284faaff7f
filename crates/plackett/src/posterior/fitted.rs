//! One interface for every engine's result: [`Posterior`], with one
//! [`FitInfo`] describing how the fit went.
//!
//! A point estimate (MLE, MAP) is a degenerate posterior: one draw at the
//! estimate, standard errors from the observed information in its summary.
//! A Bayesian engine (Gibbs, EP, VB) has many draws, and EP/VB refine the
//! summary from their parametric marginals. Everything a report or a
//! binding asks — summary in a gauge, P(i ≻ j), rank marginals, predictive
//! log-likelihood on new data, draws, diagnostics — goes through this trait,
//! so a new engine is one more implementation, not one more branch in every
//! front end.

use super::diagnostics::ScalarDiagnostics;
use super::draws::Draws;
use super::summary::{Gauge, Summary};
use super::ties::TieModel;
use crate::data::Dataset;
use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A convergence trace for reports: one value per iteration or pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// What is traced (e.g. "ELBO").
    pub label: String,
    /// One value per iteration.
    pub values: Vec<f64>,
    /// Plot on a log scale (changes that shrink geometrically).
    pub log_scale: bool,
}

/// An estimated tie prevalence δ_k of the Davidson–Luce model (Firth,
/// Kosmidis & Turner 2019), ties as events only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TieParameter {
    /// Tie order k.
    pub order: usize,
    /// δ_k.
    pub delta: f64,
    /// Standard error of δ_k.
    pub se: Option<f64>,
}

/// How a fit went, the same fields for every engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitInfo {
    /// Engine (`mle`, `map`, `gibbs`, `ep`, `vb`).
    pub engine: String,
    /// Algorithm actually run (e.g. `mm+squarem, newton`,
    /// `gibbs, 4 chains x 5000 draws`).
    pub algorithm: String,
    /// Whether the stopping rule was met (MCMC: R̂ ≤ 1.01 and ESS ≥ 400).
    pub converged: bool,
    /// Iterations, sweeps or passes.
    pub iterations: usize,
    /// Tolerance the engine ran at (none for MCMC).
    pub tolerance: Option<f64>,
    /// Log-likelihood at the estimate (point engines).
    pub log_likelihood: Option<f64>,
    /// Free parameters, for AIC (point engines).
    pub n_parameters: Option<usize>,
    /// Log marginal likelihood (EP).
    pub log_evidence: Option<f64>,
    /// Evidence lower bound (VB).
    pub elbo: Option<f64>,
    /// Convergence trace, if the engine keeps one.
    pub trace: Option<Trace>,
    /// Notes and warnings for the user.
    pub notes: Vec<String>,
}

impl FitInfo {
    /// Deviance `−2ℓ` (the saturated log-likelihood of ranking data is 0).
    pub fn deviance(&self) -> Option<f64> {
        self.log_likelihood.map(|l| -2.0 * l)
    }

    /// AIC `−2ℓ + 2k`, for maximum likelihood only: a MAP's penalised
    /// objective is not a likelihood, so AIC would not mean anything there.
    pub fn aic(&self) -> Option<f64> {
        match (self.engine.as_str(), self.log_likelihood, self.n_parameters) {
            ("mle", Some(l), Some(k)) => Some(-2.0 * l + 2.0 * k as f64),
            _ => None,
        }
    }
}

/// The posterior (or point estimate) of an engine over item log-worths.
pub trait Posterior {
    /// How the fit went.
    fn info(&self) -> FitInfo;

    /// Per-item summary in `gauge`, rows in item-id order.
    fn summary(&self, names: &[String], gauge: Gauge) -> Summary;

    /// Draws of normalised log-worths. A point estimate answers with one
    /// draw at the estimate, so every question below has one answer path.
    fn draws(&self) -> Cow<'_, Draws>;

    /// The point estimate of the log-worths, for point engines.
    fn point(&self) -> Option<&[f64]> {
        None
    }

    /// Whether [`draws`](Self::draws) holds a real posterior sample.
    fn has_draws(&self) -> bool {
        self.point().is_none()
    }

    /// Per-item MCMC diagnostics (Gibbs).
    fn item_diagnostics(&self) -> Option<&[ScalarDiagnostics]> {
        None
    }

    /// Largest split-R̂ and smallest ESS (bulk or tail) over items.
    fn rhat_ess(&self) -> (Option<f64>, Option<f64>) {
        match self.item_diagnostics() {
            None => (None, None),
            Some(d) => (
                Some(d.iter().map(|x| x.rhat).fold(f64::NEG_INFINITY, f64::max)),
                Some(
                    d.iter()
                        .map(|x| x.ess_bulk.min(x.ess_tail))
                        .fold(f64::INFINITY, f64::min),
                ),
            ),
        }
    }

    /// Tie prevalences (ties as events).
    fn tie_parameters(&self) -> &[TieParameter] {
        &[]
    }

    /// Full covariance of the log-worths in the summary's gauge, when the
    /// engine computed it (point estimates asked for it).
    fn covariance(&self) -> Option<&nalgebra::DMatrix<f64>> {
        None
    }

    /// The tie prevalences as a model for predictions (empty unless ties
    /// were read as events).
    fn tie_model(&self) -> TieModel {
        TieModel::new(self.tie_parameters())
    }

    /// P(i ≻ j) in a pairwise comparison: posterior mean of
    /// `λ_i / (λ_i + λ_j)`, or its plug-in value for a point estimate; for
    /// ties as events the probability that `i` wins outright, `λ_i / (λ_i +
    /// λ_j + δ₂√(λ_iλ_j))` (Davidson 1970), see [`Posterior::tie_probability`].
    fn prob_beats(&self, i: usize, j: usize) -> f64 {
        self.pair_outcome(i, j).0
    }

    /// For ties as events, P(i and j tie) in a pairwise comparison; `None`
    /// for a model without ties.
    fn tie_probability(&self, i: usize, j: usize) -> Option<f64> {
        self.pair_outcome(i, j).1
    }

    /// [`Posterior::prob_beats`] and [`Posterior::tie_probability`] from
    /// one pass over the draws.
    fn pair_outcome(&self, i: usize, j: usize) -> (f64, Option<f64>) {
        let t = self.tie_model();
        let o = t.outcomes(&self.draws(), i, j);
        (o[0], (!t.is_empty()).then_some(o[2]))
    }

    /// Choice probabilities over `set`: for each item, the posterior mean
    /// (and sd) of `λ_i / Σ_{j ∈ set} λ_j`, or the plug-in value (sd
    /// `None`) for a point estimate (see [`Draws::choice_probabilities`]);
    /// for ties as events the probability of being chosen alone (see
    /// [`Posterior::first_tie_probability`]).
    fn choice_probabilities(&self, set: &[usize]) -> Vec<(f64, Option<f64>)> {
        self.first_choice(set).0
    }

    /// For ties as events, the probability that the first choice from `set`
    /// is a tie; `None` for a model without ties.
    fn first_tie_probability(&self, set: &[usize]) -> Option<f64> {
        self.first_choice(set).1
    }

    /// [`Posterior::choice_probabilities`] and
    /// [`Posterior::first_tie_probability`] from one pass over the draws.
    fn first_choice(&self, set: &[usize]) -> (Vec<(f64, Option<f64>)>, Option<f64>) {
        self.tie_model().choice(&self.draws(), set)
    }

    /// Rank marginals of the items `set` in a race among them (see
    /// [`Draws::rank_marginals`]); `races` races in all. For ties as events,
    /// rankings with ties drawn from the Davidson–Luce model, tied items
    /// sharing their place ([`TieModel::rank_marginals`]).
    fn rank_marginals(&self, set: &[u32], races: usize, seed: u64) -> Result<Vec<Vec<f64>>> {
        let d = self.draws();
        let per_draw = (races / d.len().max(1)).max(1);
        Ok(self.tie_model().rank_marginals(&d, set, per_draw, seed))
    }

    /// Posterior predictive log-likelihood of held-out observations over the
    /// same items (for ties as events under the Davidson–Luce model); an
    /// error where the model gives the data no probability
    /// ([`TieModel::check`]).
    fn predictive_log_likelihood(&self, test: &Dataset) -> Result<f64> {
        Ok(self
            .tie_model()
            .log_probabilities(&self.draws(), test, false)?
            .iter()
            .sum())
    }
}

/// What fixes the contrasts between items that no observation links
/// (see [`data_notes_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    /// The prior (or pseudo-rankings): plain, mixture and adherence fits.
    Prior,
    /// The item features' regression (Guo et al. 2019's model): log-worths
    /// are `x_i·β`, so every item's worth follows from the coefficients.
    Features,
}

/// Notes every report carries about the data rather than the engine, for a
/// model whose between-group contrasts come from the prior.
pub fn data_notes(ds: &Dataset) -> Vec<String> {
    data_notes_for(ds, Linkage::Prior)
}

/// Notes about the data: observations dropped as uninformative, and items
/// that fall into groups never compared with each other, with what then
/// fixes the contrasts between the groups. Every report builder (plain,
/// feature, mixture and adherence fits) carries these, so the same data
/// get the same notes whatever model reads them.
pub fn data_notes_for(ds: &Dataset, linkage: Linkage) -> Vec<String> {
    let mut notes = Vec::new();
    if ds.dropped() > 0 {
        notes.push(format!(
            "{} dropped (a single item, or one unknown-order group)",
            crate::io::output::count(
                ds.dropped(),
                "uninformative observation was",
                "uninformative observations were"
            )
        ));
    }
    let groups = comparison_groups(ds);
    if groups.len() > 1 {
        let source = match linkage {
            Linkage::Prior => {
                "worth contrasts between groups come from the prior alone, not from the data"
            }
            Linkage::Features => {
                "worth contrasts between groups rest on the item features alone (the coefficients \
                 fitted within the groups), not on any comparison between them"
            }
        };
        notes.push(format!(
            "the items fall into {} groups never compared with each other (sizes {}): {source}",
            groups.len(),
            crate::io::output::first_few(&groups, 8)
        ));
    }
    notes
}

/// Sizes (largest first) of the groups of observed items linked by
/// appearing in a common observation — the connected components of the
/// undirected comparison graph; a top-k observation links its items with
/// the whole universe.
fn comparison_groups(ds: &Dataset) -> Vec<usize> {
    let n = ds.n_items();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let union = |p: &mut [usize], a: usize, b: usize| {
        let (ra, rb) = (find(p, a), find(p, b));
        if ra != rb {
            p[ra.max(rb)] = ra.min(rb);
        }
    };
    let mut seen = vec![false; n];
    let mut universe_linked = false;
    for obs in ds.observations() {
        let mem = obs.members;
        for &m in mem {
            seen[m as usize] = true;
        }
        for w in mem.windows(2) {
            union(&mut parent, w[0] as usize, w[1] as usize);
        }
        if obs.tail == crate::data::Tail::Universe && !mem.is_empty() {
            if !universe_linked {
                for i in 1..ds.universe() {
                    union(&mut parent, 0, i);
                }
                universe_linked = true;
            }
            union(&mut parent, 0, mem[0] as usize);
            (0..ds.universe()).for_each(|i| seen[i] = true);
        }
    }
    let mut size = vec![0usize; n];
    for i in (0..n).filter(|&i| seen[i]) {
        let r = find(&mut parent, i);
        size[r] += 1;
    }
    let mut sizes: Vec<usize> = size.into_iter().filter(|&s| s > 0).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes
}

/// One draw at a point estimate (normalised), the stand-in that lets a
/// point estimate answer through [`Posterior`]'s draw-based defaults.
pub fn point_draws(theta: &[f64]) -> Draws {
    let mut t = theta.to_vec();
    Draws::normalise(&mut t);
    Draws::from_chains(t.len(), vec![t])
}
