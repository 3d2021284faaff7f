//! vMMIC: mean-field variational Bayes for the two-level probit
//! multiple-instance model (Hu 2024, §2.2.2 and Appendix B.1).
//!
//! `q = Π q(y*_i) Π q(U_ij) q(α) q(β) q(γ) q(a) q(b) q(c) q(d)`, Gaussian
//! factors for the coefficients (updates V1–V7 with the errata of the
//! dissertation's main text corrected, as in its Appendix B.1) and a
//! truncated normal for each `y*_i` (V8).
//!
//! **The δ/U step.** The dissertation factorises `q(δ_ij) q(U_ij)` although
//! `δ_ij = 1(U_ij > 0)` is a function of `U_ij`; its published recursion
//! (B.1.10, "A*, B* from the previous iteration") adds the log-odds of each
//! iteration to the previous ones and so has no interior fixed point
//! unless they vanish. We use the exact coordinate update instead:
//! eliminate δ and keep `q(U_ij) ∝ φ(U − μᵁ_ij)[e^{Δ_ij} 1(U > 0) + 1(U ≤ 0)]`,
//! so that `E[δ_ij] = q(U_ij > 0) = σ(Δ_ij + ln Φ(μᵁ) − ln Φ(−μᵁ))` with
//! `Δ_ij` the expected gain in the bag's log-likelihood from `δ_ij = 1`
//! (exact second moments `E[ββᵀ]` in the cross terms). A bag's instances
//! are updated one after another with running sums, so every step is an
//! exact coordinate ascent and the ELBO never decreases (tested).
//!
//! The ELBO is computed after every sweep; the run stops when the mean
//! absolute change of the training bag probabilities
//! `p̂_i = Φ(m_α + Σ_j E[δ_ij] E[η_ij])` falls below `tol` (Hu 2024, §2.2.3).
//!
//! The submodules follow the algorithm: `global` (V1–V7, the Gaussian
//! factors), `local` (V8–V10, per bag) with `truncated` (the truncated
//! normals' moments), `elbo`, `expansion` (the parameter-expansion
//! moves), `state` (the state's bookkeeping and one sweep) and `fit`
//! (the accelerated sweeps and the starts).

use super::bags::Bags;
use super::params::{Layout, MilPriors};
use crate::error::{Error, Result};
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::numerics::linalg::{Cholesky, add_gram_cols, mat_mul_cols};
use crate::numerics::probit::{ln_norm_cdf, ln_norm_cdf_pair, ln_norm_pdf, norm_cdf, norm_pdf};
use crate::numerics::{chunked_map, chunked_sum};
use crate::observer::{self, SharedObserver};
use crate::sampling::rng::stream;
use nalgebra::{DMatrix, DVector};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

mod elbo;
mod expansion;
mod fit;
mod global;
mod local;
mod state;
#[cfg(test)]
mod tests;
mod truncated;

use elbo::*;
use expansion::*;
#[cfg(test)]
use fit::*;
pub use fit::{fit_vb, fit_vb_mixture, fit_vb_with};
use global::*;
use local::*;
use truncated::*;

/// Settings of [`fit_vb`].
#[derive(Clone)]
pub struct VbOptions {
    /// Priors.
    pub priors: MilPriors,
    /// Stop when the mean absolute change of the training bag
    /// probabilities is below this.
    pub tol: f64,
    /// Sweep cap.
    pub max_iter: usize,
    /// Starts: the first as `init` or `start` says, the others drawn around
    /// zero (around the first under `mixture`); the highest ELBO wins,
    /// or under `mixture` every optimum is kept ([`fit_vb_mixture`]).
    pub starts: usize,
    /// Keep every start's optimum as a component of an equal-weight
    /// mixture instead of the highest ELBO's, the starts after the first
    /// drawn around it (each coefficient plus `N(0, 0.5²)`).
    /// [`fit_vb_mixture`] fits them and [`super::fit_model`] predicts from
    /// the mixture. Why: the posterior is multimodal in the primary-instance
    /// configuration, coordinate ascent keeps the configuration it starts
    /// in, and the ELBO does not say which optimum predicts best; averaging
    /// over several, as a sampler's unmixed chains do, hedges over them
    /// (the multi-run averaging of Yao, Vehtari & Gelman 2022, with equal
    /// weights; docs/mil.md).
    pub mixture: bool,
    /// Seed of the random starts.
    pub seed: u64,
    /// Coefficient means to start from (in [`Layout`] order) instead of
    /// `start`: a warm start, e.g. from an earlier fit or the
    /// Gibbs sampler's posterior mean. The other random starts are drawn
    /// around zero as usual.
    pub init: Option<Vec<f64>>,
    /// Where the first start is when `init` is not given.
    pub start: VbStart,
    /// Told of finished sweeps; may cancel.
    pub observer: Option<SharedObserver>,
    /// Which covariance the fitted model reports and predicts with: the
    /// instance level's linear-response correction (the default;
    /// [`super::linear_response`]) or the mean-field factors' (Hu 2024's),
    /// applied by [`super::fit_model`] ([`fit_vb`] itself returns the
    /// mean-field factors). Means and ELBO are the same either way.
    pub covariance: super::linear_response::VbCovariance,
}

impl std::fmt::Debug for VbOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VbOptions")
            .field("priors", &self.priors)
            .field("tol", &self.tol)
            .field("max_iter", &self.max_iter)
            .field("starts", &self.starts)
            .field("mixture", &self.mixture)
            .field("seed", &self.seed)
            .field("init", &self.init.as_ref().map(Vec::len))
            .field("start", &self.start)
            .field("covariance", &self.covariance)
            .finish()
    }
}

impl Default for VbOptions {
    fn default() -> Self {
        VbOptions {
            priors: MilPriors::default(),
            tol: 1e-4,
            max_iter: 5000,
            starts: 1,
            mixture: false,
            seed: 1,
            init: None,
            start: VbStart::default(),
            observer: None,
            covariance: Default::default(),
        }
    }
}

/// The first start of [`fit_vb`] when no warm start is given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum VbStart {
    /// Every coefficient at its prior mean (zero).
    Prior,
    /// The instance slopes along the method-of-moments direction of
    /// [`super::moments`], the rest at the prior means (an error on data
    /// with more than [`super::moments::MAX_POOLED`] pooled features).
    /// Not the default: on Hu 2024 §2.3's design it raises the held-out
    /// bag AUROC at every level of the study but lowers the
    /// primary-instance AUROC where the modalities are balanced, and the
    /// 16,000-bag fit takes half as long again (docs/mil.md).
    Moments,
    /// Every coefficient at the mode of the bag labels' approximate
    /// marginal posterior, the primary indicators integrated out
    /// ([`super::marginal`]); the prior means if that mode cannot be found.
    /// The default: on Hu 2024 §2.3's basic setting it raises the held-out
    /// bag AUROC from 0.870 (prior means) to 0.908 and the primary-instance
    /// AUROC from 0.896 to 0.937 (docs/mil.md).
    #[default]
    Marginal,
}

impl VbStart {
    /// The spelling [`VbStart::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            VbStart::Prior => "prior",
            VbStart::Moments => "moments",
            VbStart::Marginal => "marginal",
        }
    }

    /// `marginal`, `prior` or `moments` (the command line's `--vb-start`).
    pub fn parse(name: &str) -> Result<VbStart> {
        match name {
            "prior" => Ok(VbStart::Prior),
            "moments" => Ok(VbStart::Moments),
            "marginal" => Ok(VbStart::Marginal),
            other => Err(Error::param(
                "vb_start",
                format!(
                    "expected \"marginal\", \"prior\" or \"moments\", got {:?}",
                    crate::io::output::short_name(other, 40)
                ),
            )),
        }
    }
}

impl VbOptions {
    fn check(&self) -> Result<()> {
        self.priors.check()?;
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(Error::param(
                "tol",
                format!("must be positive, got {}", self.tol),
            ));
        }
        if self.max_iter == 0 {
            return Err(Error::param("max_iter", "need at least one sweep"));
        }
        if self.starts == 0 || self.starts > 1000 {
            // Under `mixture` the count is the mixture's (`--mixture K`).
            let (name, low) = if self.mixture {
                ("mixture", 2)
            } else {
                ("starts", 1)
            };
            return Err(Error::param(name, format!("between {low} and 1000")));
        }
        if self.mixture && self.starts < 2 {
            return Err(Error::param(
                "mixture",
                format!("a mixture needs at least 2 optima, got {}", self.starts),
            ));
        }
        if let Some(x) = &self.init
            && x.iter().any(|v| !v.is_finite())
        {
            return Err(Error::param("init", "every starting mean must be finite"));
        }
        Ok(())
    }
}

/// The fitted variational posterior.
#[derive(Debug, Clone)]
pub struct VbFit {
    /// Block positions in θ.
    pub layout: Layout,
    /// Posterior means of θ = (α, β, γ, a, b, c, d).
    pub mean: Vec<f64>,
    /// Covariance of each Gaussian factor, in layout order:
    /// α (1×1), β, γ, a (1×1), b, c (1×1), d.
    pub blocks: Vec<DMatrix<f64>>,
    /// Per training instance: `E_q[δ_ij]`, its posterior probability of
    /// being primary given the bag labels.
    pub primary: Vec<f64>,
    /// Per training bag: `p̂_i` at the end.
    pub bag_p: Vec<f64>,
    /// ELBO after every sweep.
    pub elbo: Vec<f64>,
    /// Sweeps run.
    pub iterations: usize,
    /// Whether the stopping rule was met before `max_iter`.
    pub converged: bool,
    /// The final ELBO of every start (the best is used).
    pub start_elbos: Vec<f64>,
    /// Where the first start was: `init`, `prior` or `moments`.
    pub started_from: &'static str,
}

impl VbFit {
    /// Posterior sds of θ.
    pub fn sd(&self) -> Vec<f64> {
        self.blocks
            .iter()
            .flat_map(|b| (0..b.nrows()).map(move |i| b[(i, i)].sqrt()))
            .collect()
    }
}

/// The variational state: global Gaussian factors and local factors.
#[derive(Clone)]
pub(crate) struct State<'a> {
    bags: &'a Bags,
    y: Vec<bool>,
    lay: Layout,
    pri: MilPriors,
    /// Means of θ.
    pub(crate) m: Vec<f64>,
    /// Covariances: α, β, γ, a, b, c, d.
    pub(crate) v: [DMatrix<f64>; 7],
    /// q(U_ij): location μᵁ and log-odds shift Δ.
    pub(crate) mu_u: Vec<f64>,
    pub(crate) delta: Vec<f64>,
    /// Derived: E[δ], E[U], E[η] (current means), and q(U)'s log
    /// normaliser (kept so that the ELBO needs no special functions).
    e: Vec<f64>,
    eu: Vec<f64>,
    eta: Vec<f64>,
    ln_zu: Vec<f64>,
    /// E[ν_ij] at the current means of (a, b) or (c, d).
    nu: Vec<f64>,
    /// q(y*_i): location μ*_i; derived mean t_i and log normaliser.
    pub(crate) mu_star: Vec<f64>,
    t: Vec<f64>,
    ln_zy: Vec<f64>,
    /// Cached `x_ijᵀ V x_ij` with the bag-level (V_β, V_γ) and the
    /// instance-level (V_b, V_d) covariance of the instance's modality:
    /// refreshed whenever those covariances change, so that the ELBO costs
    /// O(d) per instance.
    q_bag: Vec<f64>,
    q_inst: Vec<f64>,
    /// `V x_ij` with the instance's bag-level covariance (V_β or V_γ), in
    /// the features' layout: the δ/U step needs it for every instance.
    w_bag: [Vec<f64>; 2],
    /// `Σ_j x_ij` over each modality's instances (constant).
    x_sum: [Vec<f64>; 2],
}

/// Bags per parallel work item (instances: 16 times as many). Fixed, so
/// that sums come out the same whatever the number of threads.
const BAG_CHUNK: usize = 256;

/// Instances per parallel work item in passes over instances alone.
const INSTANCE_CHUNK: usize = BAG_CHUNK * 16;

const ALPHA: usize = 0;
const BETA: usize = 1;
const GAMMA: usize = 2;
pub(crate) const A: usize = 3;
pub(crate) const B: usize = 4;
pub(crate) const C: usize = 5;
pub(crate) const D: usize = 6;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `V x` for a symmetric `V` and a slice `x`.
fn mat_vec(v: &DMatrix<f64>, x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    mat_vec_into(v, x, &mut out);
    out
}

/// `out = V x` (column-major `V`, columns scaled and added).
fn mat_vec_into(v: &DMatrix<f64>, x: &[f64], out: &mut [f64]) {
    let n = x.len();
    out.iter_mut().for_each(|o| *o = 0.0);
    let data = v.as_slice();
    for (c, &xc) in x.iter().enumerate() {
        if xc != 0.0 {
            for (o, vr) in out.iter_mut().zip(&data[c * n..(c + 1) * n]) {
                *o += vr * xc;
            }
        }
    }
}
