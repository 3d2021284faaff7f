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

use super::bags::Bags;
use super::params::{Layout, MilPriors};
use crate::error::{Error, Result};
use crate::infer::rng::stream;
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::numerics::linalg::{Cholesky, add_gram_cols, mat_mul_cols};
use crate::numerics::probit::{ln_norm_cdf, ln_norm_cdf_pair, ln_norm_pdf, norm_cdf, norm_pdf};
use crate::numerics::{chunked_map, chunked_sum};
use crate::observer::{self, SharedObserver};
use nalgebra::{DMatrix, DVector};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

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
    /// `prior` or `moments` (the command line's `--vb-start`).
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

/// The local factors of one instance that an ELBO pass reads.
#[derive(Clone, Copy)]
struct InstLocal {
    eta: f64,
    nu: f64,
    mu_u: f64,
    delta: f64,
    e: f64,
    eu: f64,
    ln_zu: f64,
}

/// One modality's share of a bag's ELBO terms: the sums the bag term
/// needs, and the modality's instance terms. A move changes one modality's
/// shares (an inner move) or scales the `η` sums (the outer scale), so the
/// line search recomputes only that (Hu 2024, Appendix B.1's ELBO).
#[derive(Clone, Copy, Default)]
struct Share {
    /// `Σ_j E[δ_ij] E[η_ij]`.
    es: f64,
    /// `Σ_j E[δ_ij](1 − E[δ_ij]) E[η_ij]²`.
    var_eta: f64,
    /// `Σ_j E[δ_ij](1 − E[δ_ij]) x_ijᵀ V x_ij`.
    var_q: f64,
    /// `sᵀ V s` with `s = Σ_j E[δ_ij] x_ij`.
    quad: f64,
    /// The instances' terms `E[ln p(U, δ | ν)] − E[ln q(U, δ)]`.
    inst: f64,
}

/// Which expansion moves sit out the next rounds: a move that failed to
/// raise the ELBO waits 1, 3, 7, … rounds (doubling with each failure in a
/// row, up to 31), so that moves that have stopped paying cost nothing
/// while those that pay run every round. (Resting moves whose gain was
/// merely small as well — below 1e-9 to 1e-7 of |ELBO| — was tried: no
/// faster on Hu 2024's basic setting, and the fits' paths through the
/// multimodal posterior moved; docs/mil.md.)
#[derive(Debug, Clone, Default)]
pub(crate) struct Rests {
    /// Failures in a row, per move ([`Move::slot`]).
    idle: [u32; 5],
    /// Rounds still to sit out, per move.
    wait: [u32; 5],
}

impl Move {
    /// An inner move's map of E[ν] as `(scale, shift)`: `ν ↦ e^h ν` or
    /// `ν ↦ ν + h` (the outer scale leaves E[ν] alone).
    fn affine(self, h: f64) -> (f64, f64) {
        match self {
            Move::InnerScale(_) => (h.exp(), 0.0),
            Move::InnerShift(_) => (1.0, h),
            Move::OuterScale => (1.0, 0.0),
        }
    }

    fn slot(self) -> usize {
        match self {
            Move::OuterScale => 0,
            Move::InnerScale(m) => 1 + 2 * m as usize,
            Move::InnerShift(m) => 2 + 2 * m as usize,
        }
    }
}

/// A parameter-expansion direction.
#[derive(Debug, Clone, Copy)]
enum Move {
    /// (α, β, γ) and the bag predictors scaled together.
    OuterScale,
    /// (a, b) or (c, d) and the instance predictors scaled together.
    InnerScale(u8),
    /// a or c and the instance predictors shifted together.
    InnerShift(u8),
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

/// Moments of `q(U) ∝ φ(U − μ)[e^Δ 1(U > 0) + 1(U ≤ 0)]`: `E[δ] = q(U > 0)`,
/// `E[U]` and `ln Z = ln(e^Δ Φ(μ) + Φ(−μ))` (this runs for every instance
/// on every sweep and every expansion-move evaluation). Where both tails
/// of `Φ` are far from underflow (|μ| ≤ 30: `Φ(−30) ≈ 5e-198`) from one
/// `erfc`, one `exp` (or `expm1`), one `exp` and one logarithm, with `Z` scaled by
/// `e^{−max(Δ, 0)}` so that nothing overflows: with `w = e^{−|Δ|}`,
/// `Z = e^Δ(Φ(μ) + wΦ(−μ))` for Δ ≥ 0 and `wΦ(μ) + Φ(−μ)` otherwise, and
/// `E[U] = μ + φ(μ)(e^Δ − 1)/Z` (tested against the log-space form to
/// 1e-13 relative); beyond, in log space
/// ([`u_moments_log`]).
fn u_moments(mu: f64, delta: f64) -> (f64, f64, f64) {
    if mu.abs() > 30.0 || !delta.is_finite() {
        return u_moments_log(mu, delta);
    }
    let small = norm_cdf(-mu.abs());
    let (pp, pn) = if mu >= 0.0 {
        (1.0 - small, small)
    } else {
        (small, 1.0 - small)
    };
    // w = e^{−|Δ|} and w − 1, each without cancellation.
    let (w, wm1) = if delta.abs() < 0.5 {
        let wm1 = (-delta.abs()).exp_m1();
        (1.0 + wm1, wm1)
    } else {
        let w = (-delta.abs()).exp();
        (w, w - 1.0)
    };
    let phi = norm_pdf(mu);
    if delta >= 0.0 {
        let zs = pp + w * pn;
        // e^Δ − 1 = e^Δ(1 − w), divided by Z = e^Δ zs. ln Z: where Φ(−μ)
        // dominates, Z = 1 + Φ(μ)(e^Δ − 1) with Φ(μ)/w < Φ(−μ) ≤ 1, so
        // that ln Z near 0 keeps its digits.
        let ln_z = if pp >= w * pn {
            delta + zs.ln()
        } else {
            (-pp * wm1 / w).ln_1p()
        };
        (pp / zs, mu - phi * wm1 / zs, ln_z)
    } else {
        let zs = w * pp + pn;
        // Z = 1 + Φ(μ)(e^Δ − 1): through ln_1p while Z is near 1, else
        // directly (Z then has Φ(−μ) of its own digits).
        let x = pp * wm1;
        let ln_z = if x > -0.5 { x.ln_1p() } else { zs.ln() };
        (w * pp / zs, mu + phi * wm1 / zs, ln_z)
    }
}

/// [`u_moments`] in log space, for any `μ` (one `erfc` and three `exp`s).
fn u_moments_log(mu: f64, delta: f64) -> (f64, f64, f64) {
    let (lp, lm) = ln_norm_cdf_pair(mu);
    let a = delta + lp - lm;
    let t = (-a.abs()).exp();
    // σ(a) and softplus(a) from the same exp(−|a|).
    let e = if a >= 0.0 {
        1.0 / (1.0 + t)
    } else {
        t / (1.0 + t)
    };
    let ln_z = lm + a.max(0.0) + t.ln_1p();
    let lphi = ln_norm_pdf(mu);
    // Inverse Mills ratios φ(μ)/Φ(±μ).
    let eu = e * (mu + (lphi - lp).exp()) + (1.0 - e) * (mu - (lphi - lm).exp());
    (e, eu, ln_z)
}

/// `E[y*]` and `ln Z` of `N(μ, 1)` truncated to the side of label `y`.
fn ystar_moments(mu: f64, y: bool) -> (f64, f64) {
    let s = if y { 1.0 } else { -1.0 };
    let ln_z = ln_norm_cdf(s * mu);
    (mu + s * (ln_norm_pdf(mu) - ln_z).exp(), ln_z)
}

/// Cut `v` at `cuts` (ascending, the first its start, the last its end).
fn split_at_cuts<'v, T>(mut v: &'v mut [T], cuts: &[usize]) -> Vec<&'v mut [T]> {
    let mut out = Vec::with_capacity(cuts.len().saturating_sub(1));
    if let Some(&first) = cuts.first() {
        v = &mut std::mem::take(&mut v)[first..];
    }
    for w in cuts.windows(2) {
        let (head, tail) = std::mem::take(&mut v).split_at_mut(w[1] - w[0]);
        out.push(head);
        v = tail;
    }
    out
}

/// The parallel runs over `range` of bags: the bag indices where each run
/// of [`BAG_CHUNK`] bags starts, then `range.end`; and the instance index
/// where each starts, then the end of the last run's instances. The cut
/// depends on the data only, never on the threads.
fn run_cuts(bags: &Bags, range: std::ops::Range<usize>) -> (Vec<usize>, Vec<usize>) {
    let bag_cuts: Vec<usize> = (range.start..range.end)
        .step_by(BAG_CHUNK)
        .chain(std::iter::once(range.end))
        .collect();
    let inst_cuts = bag_cuts
        .iter()
        .map(|&i| bags.bags.get(i).map_or(bags.n_instances(), |b| b.start))
        .collect();
    (bag_cuts, inst_cuts)
}

/// What the local steps (V8–V10) of a bag read.
struct Shared<'s> {
    bags: &'s Bags,
    y: &'s [bool],
    alpha: f64,
    eta: &'s [f64],
    nu: &'s [f64],
    q_bag: &'s [f64],
    w_bag: &'s [Vec<f64>; 2],
    widths: [usize; 2],
}

/// The local factors of a run of bags, which the local steps write
/// (instance slices start at instance `inst0`, bag slices at `bags.start`).
struct LocalsMut<'s> {
    bags: std::ops::Range<usize>,
    inst0: usize,
    mu_u: &'s mut [f64],
    delta: &'s mut [f64],
    e: &'s mut [f64],
    eu: &'s mut [f64],
    ln_zu: &'s mut [f64],
    mu_star: &'s mut [f64],
    t: &'s mut [f64],
    ln_zy: &'s mut [f64],
}

impl Shared<'_> {
    /// V8, then V9–V10 instance by instance, for each bag of `run`.
    fn steps(&self, run: &mut LocalsMut) {
        let mut s = [vec![0.0; self.widths[0]], vec![0.0; self.widths[1]]];
        for i in run.bags.clone() {
            let b = &self.bags.bags[i];
            let (o, bi) = (run.inst0, i - run.bags.start);
            s.iter_mut()
                .for_each(|v| v.iter_mut().for_each(|x| *x = 0.0));
            let mut es = [0.0; 2];
            for j in b.start..b.end {
                let mi = self.bags.modality[j] as usize;
                let ej = run.e[j - o];
                es[mi] += ej * self.eta[j];
                for (sk, xk) in s[mi].iter_mut().zip(self.bags.features(j)) {
                    *sk += ej * xk;
                }
            }
            // V8: q(y*_i).
            let mu = self.alpha + es[0] + es[1];
            let (ti, lz) = ystar_moments(mu, self.y[i]);
            (run.mu_star[bi], run.t[bi], run.ln_zy[bi]) = (mu, ti, lz);
            // V9–V10.
            for j in b.start..b.end {
                let mi = self.bags.modality[j] as usize;
                let x = self.bags.features(j);
                let g = &self.w_bag[mi][self.bags.feature_span(j)];
                let xvx = self.q_bag[j];
                let eta = self.eta[j];
                let e_old = run.e[j - o];
                // Σ_{j'≠j} E[δ_ij'] E[η_ij η_ij'] within the modality
                // (E[ββᵀ] = m mᵀ + V: x Vᵀ(s − e_old x) = g·s − e_old xᵀVx)
                // and across modalities (independent factors).
                let same = eta * (es[mi] - e_old * eta) + dot(g, &s[mi]) - e_old * xvx;
                let cross = eta * es[1 - mi];
                let delta = (ti - self.alpha) * eta - same - cross - 0.5 * (eta * eta + xvx);
                let (e_new, eu, lz) = u_moments(self.nu[j], delta);
                run.mu_u[j - o] = self.nu[j];
                run.delta[j - o] = delta;
                run.e[j - o] = e_new;
                run.eu[j - o] = eu;
                run.ln_zu[j - o] = lz;
                let de = e_new - e_old;
                for (sk, xk) in s[mi].iter_mut().zip(x) {
                    *sk += de * xk;
                }
                es[mi] += de * eta;
            }
        }
    }
}

impl<'a> State<'a> {
    pub(crate) fn new(bags: &'a Bags, y: Vec<bool>, pri: MilPriors, init: &[f64]) -> State<'a> {
        let lay = Layout::of(bags);
        let n_inst = bags.n_instances();
        let diag = |d: usize, s2: f64| DMatrix::from_diagonal_element(d, d, s2);
        let (iv, sv) = (pri.intercept_var, pri.slope_var);
        let mut s = State {
            bags,
            y,
            lay,
            pri,
            m: init.to_vec(),
            v: [
                diag(1, iv),
                diag(lay.d0, sv),
                diag(lay.d1, sv),
                diag(1, iv),
                diag(lay.d0, sv),
                diag(1, iv),
                diag(lay.d1, sv),
            ],
            mu_u: vec![0.0; n_inst],
            delta: vec![0.0; n_inst],
            e: vec![0.5; n_inst],
            eu: vec![0.0; n_inst],
            eta: vec![0.0; n_inst],
            ln_zu: vec![0.0; n_inst],
            nu: vec![0.0; n_inst],
            mu_star: vec![0.0; bags.n_bags()],
            t: vec![0.0; bags.n_bags()],
            ln_zy: vec![0.0; bags.n_bags()],
            q_bag: vec![0.0; n_inst],
            q_inst: vec![0.0; n_inst],
            w_bag: [0u8, 1].map(|m| vec![0.0; bags.feature_len(m)]),
            x_sum: [0u8, 1].map(|m| {
                let mut t = vec![0.0; bags.width(m)];
                for j in (0..n_inst).filter(|&j| bags.modality[j] == m) {
                    t.iter_mut()
                        .zip(bags.features(j))
                        .for_each(|(t, x)| *t += x);
                }
                t
            }),
        };
        s.constant_covariances();
        for m in 0..2u8 {
            s.refresh_quads(m, true);
            s.refresh_quads(m, false);
        }
        // Locals consistent with the starting means: q(U) at its prior
        // location (Δ = 0), q(y*) at the implied bag predictor.
        s.refresh_eta();
        s.refresh_nu(None);
        for j in 0..n_inst {
            s.set_u(j, s.nu[j], 0.0);
        }
        s.update_ystar_all();
        s
    }

    /// Set q(U_ij) to location `mu`, shift `delta`, with its moments.
    pub(crate) fn set_u(&mut self, j: usize, mu: f64, delta: f64) {
        let (e, eu, ln_z) = u_moments(mu, delta);
        self.mu_u[j] = mu;
        self.delta[j] = delta;
        self.e[j] = e;
        self.eu[j] = eu;
        self.ln_zu[j] = ln_z;
    }

    /// Set q(y*_i) to location `mu`, with its moments.
    #[cfg(test)]
    pub(crate) fn set_ystar(&mut self, i: usize, mu: f64) {
        let (t, ln_z) = ystar_moments(mu, self.y[i]);
        self.mu_star[i] = mu;
        self.t[i] = t;
        self.ln_zy[i] = ln_z;
    }

    /// V_α, V_a, V_b, V_c, V_d depend on the data and priors only (Hu
    /// 2024, Appendix B.1.1, B.1.4–7): set once.
    fn constant_covariances(&mut self) {
        let counts = self.bags.counts();
        self.v[ALPHA][(0, 0)] = 1.0 / (1.0 / self.pri.intercept_var + self.bags.n_bags() as f64);
        for (m, (ia, is)) in [(A, B), (C, D)].into_iter().enumerate() {
            self.v[ia][(0, 0)] = 1.0 / (1.0 / self.pri.intercept_var + counts[m] as f64);
            let d = self.bags.width(m as u8);
            if d > 0 {
                // XᵀX of the modality's block in one product.
                let mut acc = vec![0.0; d * d];
                let block = self.bags.block(m as u8);
                if !block.is_empty() {
                    add_gram_cols(block, d, &mut acc);
                }
                let p = DMatrix::from_fn(d, d, |r, c| {
                    acc[c * d + r]
                        + if r == c {
                            1.0 / self.pri.slope_var
                        } else {
                            0.0
                        }
                });
                self.v[is] = gaussian(p, &DVector::zeros(d)).1;
            }
        }
    }

    /// Refresh the cached quadratic forms of modality `m` (bag level, with
    /// `V x`, or instance level).
    fn refresh_quads(&mut self, m: u8, bag_level: bool) {
        let vi = match (bag_level, m) {
            (true, 0) => BETA,
            (true, _) => GAMMA,
            (false, 0) => B,
            (false, _) => D,
        };
        if self.v[vi].nrows() == 0 {
            return;
        }
        // V x and xᵀV x of every instance, in parallel over runs of bags:
        // each run's instances of the modality are one contiguous block of
        // columns, multiplied by V in place (faer's kernel).
        let bags = self.bags;
        let (_, inst_cuts) = run_cuts(bags, 0..bags.n_bags());
        let cuts: Vec<usize> = inst_cuts.iter().map(|&j| bags.block_start(m, j)).collect();
        let v = &self.v[vi];
        let x_all = bags.block(m);
        // The instance level keeps only xᵀVx (its V is constant): V x goes
        // to a scratch block.
        let mut scratch = Vec::new();
        let (w_all, q_all) = if bag_level {
            (&mut self.w_bag[m as usize], &mut self.q_bag)
        } else {
            scratch.resize(x_all.len(), 0.0);
            (&mut scratch, &mut self.q_inst)
        };
        split_at_cuts(w_all, &cuts)
            .into_par_iter()
            .zip(split_at_cuts(q_all, &inst_cuts))
            .zip(inst_cuts.par_windows(2).zip(cuts.par_windows(2)))
            .for_each(|((w, q), (r, c))| {
                if c[1] == c[0] {
                    return;
                }
                mat_mul_cols(v, &x_all[c[0]..c[1]], w);
                for j in (r[0]..r[1]).filter(|&j| bags.modality[j] == m) {
                    let span = bags.feature_span(j);
                    let wj = &w[span.start - c[0]..span.end - c[0]];
                    q[j - r[0]] = dot(wj, &x_all[span]);
                }
            });
    }

    fn block(&self, m: u8) -> (std::ops::Range<usize>, usize) {
        if m == 0 {
            (self.lay.beta(), BETA)
        } else {
            (self.lay.gamma(), GAMMA)
        }
    }

    /// Recompute E[ν_ij] of modality `only`'s instances (both if `None`) from
    /// the means.
    pub(crate) fn refresh_nu(&mut self, only: Option<u8>) {
        let (bags, lay, means) = (self.bags, self.lay, &self.m);
        self.nu
            .par_iter_mut()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, nu)| {
                let m = bags.modality[j];
                if only.is_none_or(|o| o == m) {
                    *nu = means[lay.inst_intercept(m)]
                        + dot(bags.features(j), &means[lay.inst_slopes(m)]);
                }
            });
    }

    /// Recompute E[η_ij] of modality `m`'s instances (both if `None`).
    fn refresh_eta_of(&mut self, only: Option<u8>) {
        let (bags, lay, means) = (self.bags, self.lay, &self.m);
        self.eta
            .par_iter_mut()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, eta)| {
                let m = bags.modality[j];
                if only.is_none_or(|o| o == m) {
                    *eta = dot(bags.features(j), &means[lay.bag_slopes(m)]);
                }
            });
    }

    fn refresh_eta(&mut self) {
        self.refresh_eta_of(None);
    }

    /// `Σ_j E[δ_ij] E[η_ij]` per modality for bag `i`.
    fn es(&self, i: usize) -> [f64; 2] {
        let b = &self.bags.bags[i];
        let mut out = [0.0; 2];
        for j in b.start..b.end {
            out[self.bags.modality[j] as usize] += self.e[j] * self.eta[j];
        }
        out
    }

    /// V1: q(α).
    pub(crate) fn update_alpha(&mut self) {
        let v = self.v[ALPHA][(0, 0)];
        let r = chunked_sum(self.bags.n_bags(), BAG_CHUNK, |range| {
            range
                .map(|i| {
                    let [e0, e1] = self.es(i);
                    self.t[i] - e0 - e1
                })
                .sum()
        });
        self.m[self.lay.alpha()] = v * r;
    }

    /// Precision and linear term of q(β) (m = 0) or q(γ) (m = 1) at the
    /// current E[δ], q(y*) and other means (V2, V3; Appendix B.1.2–3 with
    /// `X_iᵀE[l_i l_iᵀ]X_i = s sᵀ + Σ_j v_ij x_ijᵀ x_ij`).
    fn bag_slope_system(&self, m: u8) -> (DMatrix<f64>, DVector<f64>) {
        let d = self.bags.width(m);
        // Σ_j v_j x_j x_jᵀ + Σ_i s_i s_iᵀ as one Gram product Z Zᵀ per run of
        // bags (columns √v_j x_j and s_i gathered, faer's kernel), runs in
        // parallel, their sums added in order.
        let alpha = self.m[self.lay.alpha()];
        let part = |bags: std::ops::Range<usize>| -> (Vec<f64>, Vec<f64>) {
            let (i0, i1) = (
                self.bags.bags[bags.start].start,
                self.bags.bags[bags.end - 1].end,
            );
            let mut z = Vec::with_capacity((i1 - i0 + bags.len()) * d);
            let mut rhs = vec![0.0; d];
            let mut s = vec![0.0; d];
            for i in bags {
                let b = &self.bags.bags[i];
                s.iter_mut().for_each(|v| *v = 0.0);
                let mut other = 0.0;
                for j in b.start..b.end {
                    if self.bags.modality[j] != m {
                        other += self.e[j] * self.eta[j];
                        continue;
                    }
                    let x = self.bags.features(j);
                    let ej = self.e[j];
                    for (sk, xk) in s.iter_mut().zip(x) {
                        *sk += ej * xk;
                    }
                    let vj = ej * (1.0 - ej);
                    if vj > 0.0 {
                        let r = vj.sqrt();
                        z.extend(x.iter().map(|xk| r * xk));
                    }
                }
                let w = self.t[i] - alpha - other;
                for (r, sc) in rhs.iter_mut().zip(&s) {
                    *r += w * sc;
                }
                z.extend_from_slice(&s);
            }
            let mut acc = vec![0.0; d * d];
            if !z.is_empty() {
                add_gram_cols(&z, d, &mut acc);
            }
            (acc, rhs)
        };
        let mut p = DMatrix::from_diagonal_element(d, d, 1.0 / self.pri.slope_var);
        let mut rhs = DVector::zeros(d);
        for (acc, r) in chunked_map(self.bags.n_bags(), BAG_CHUNK, part) {
            for row in 0..d {
                rhs[row] += r[row];
                for c in 0..=row {
                    p[(row, c)] += acc[c * d + row];
                }
            }
        }
        (p, rhs)
    }

    /// V2 (m = 0, β) and V3 (m = 1, γ).
    pub(crate) fn update_bag_slopes(&mut self, m: u8) {
        let (range, vi) = self.block(m);
        if range.is_empty() {
            return;
        }
        let (p, rhs) = self.bag_slope_system(m);
        let (mean, cov) = gaussian(p, &rhs);
        self.m[range].copy_from_slice(mean.as_slice());
        self.v[vi] = cov;
        self.refresh_quads(m, true);
        self.refresh_eta_of(Some(m));
    }

    /// The variational parameters as one vector: θ means, then μᵁ and Δ
    /// of every instance, then μ* of every bag. The covariances are not
    /// part of it: given these, each is a closed form (V_α, V_a, V_b, V_c,
    /// V_d are constants; V_β and V_γ depend on E[δ] only).
    pub(crate) fn pack(&self) -> Vec<f64> {
        let mut x = self.m.clone();
        x.extend(&self.mu_u);
        x.extend(&self.delta);
        x.extend(&self.mu_star);
        x
    }

    /// Set the state from [`State::pack`]'s vector, with the covariances
    /// that maximise the ELBO given it.
    pub(crate) fn load(&mut self, x: &[f64]) {
        let (k, n, nb) = (self.m.len(), self.mu_u.len(), self.mu_star.len());
        debug_assert_eq!(x.len(), k + 2 * n + nb);
        self.m.copy_from_slice(&x[..k]);
        self.mu_u.copy_from_slice(&x[k..k + n]);
        self.delta.copy_from_slice(&x[k + n..k + 2 * n]);
        self.mu_star.copy_from_slice(&x[k + 2 * n..]);
        // E[ν], E[η] and q(U)'s moments in one pass over the instances.
        let (bags, lay, means) = (self.bags, self.lay, &self.m);
        (
            self.nu.par_iter_mut(),
            self.eta.par_iter_mut(),
            self.e.par_iter_mut(),
            self.eu.par_iter_mut(),
            self.ln_zu.par_iter_mut(),
            self.mu_u.par_iter(),
            self.delta.par_iter(),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, (nu, eta, e, eu, lz, &mu, &dl))| {
                let m = bags.modality[j];
                let x = bags.features(j);
                *nu = means[lay.inst_intercept(m)] + dot(x, &means[lay.inst_slopes(m)]);
                *eta = dot(x, &means[lay.bag_slopes(m)]);
                (*e, *eu, *lz) = u_moments(mu, dl);
            });
        let y = &self.y;
        (
            self.t.par_iter_mut(),
            self.ln_zy.par_iter_mut(),
            self.mu_star.par_iter(),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(BAG_CHUNK)
            .for_each(|(i, (t, lz, &mu))| (*t, *lz) = ystar_moments(mu, y[i]));
        for m in 0..2u8 {
            let (range, vi) = self.block(m);
            if !range.is_empty() {
                let (p, _) = self.bag_slope_system(m);
                self.v[vi] = gaussian(p, &DVector::zeros(range.len())).1;
                self.refresh_quads(m, true);
            }
        }
    }

    /// V4 then V5 and V6 then V7 (q(a), q(b), q(c), q(d) in the sweep's
    /// order) from one pass over the instances: both updates read E[U]
    /// only through `Σ_j E[U_ij]` and `Σ_j x_ij E[U_ij]`, and E[ν] only
    /// through those and the constant `Σ_j x_ij`, so
    /// `m_a = V_a(Σ E[U] − (Σ x)ᵀ m_b)`, then
    /// `m_b = V_b(Σ x E[U] − m_a Σ x)` — what
    /// [`State::update_inst_intercept`] and [`State::update_inst_slopes`]
    /// give one after another (tested), with E[ν] refreshed once at the end.
    pub(crate) fn update_inst_level(&mut self) {
        let (bags, eu) = (self.bags, &self.eu);
        let widths = [bags.width(0), bags.width(1)];
        // Per modality: Σ E[U] first, then Σ x E[U].
        let parts = chunked_map(bags.n_instances(), INSTANCE_CHUNK, |range| {
            let mut acc = widths.map(|d| vec![0.0; d + 1]);
            for j in range {
                let a = &mut acc[bags.modality[j] as usize];
                let u = eu[j];
                a[0] += u;
                for (r, x) in a[1..].iter_mut().zip(bags.features(j)) {
                    *r += u * x;
                }
            }
            acc
        });
        let mut sums = widths.map(|d| vec![0.0; d + 1]);
        for part in parts {
            for (s, p) in sums.iter_mut().zip(part) {
                s.iter_mut().zip(p).for_each(|(s, p)| *s += p);
            }
        }
        // A modality without instances gets its prior means (zero), as the
        // updates one by one give.
        for m in 0..2u8 {
            let (k, range) = (self.lay.inst_intercept(m), self.lay.inst_slopes(m));
            let (va, vb) = if m == 0 { (A, B) } else { (C, D) };
            let xs = &self.x_sum[m as usize];
            let su = &sums[m as usize];
            let a = self.v[va][(0, 0)] * (su[0] - dot(xs, &self.m[range.clone()]));
            self.m[k] = a;
            if !range.is_empty() {
                let rhs: Vec<f64> = su[1..].iter().zip(xs).map(|(u, x)| u - a * x).collect();
                let mean = mat_vec(&self.v[vb], &rhs);
                self.m[range].copy_from_slice(&mean);
            }
        }
        self.refresh_nu(None);
    }

    /// V4/V6: q(a) (m = 0) or q(c) (m = 1).
    #[cfg(test)]
    pub(crate) fn update_inst_intercept(&mut self, m: u8) {
        let k = self.lay.inst_intercept(m);
        let slopes = self.lay.inst_slopes(m);
        let (bags, eu, slopes) = (self.bags, &self.eu, &self.m[slopes]);
        let r = chunked_sum(bags.n_instances(), INSTANCE_CHUNK, |range| {
            range
                .filter(|&j| bags.modality[j] == m)
                .map(|j| eu[j] - dot(bags.features(j), slopes))
                .sum()
        });
        let shift = self.v[if m == 0 { A } else { C }][(0, 0)] * r - self.m[k];
        self.m[k] += shift;
        self.nu
            .par_iter_mut()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, nu)| {
                if bags.modality[j] == m {
                    *nu += shift;
                }
            });
    }

    /// V5/V7: q(b) (m = 0) or q(d) (m = 1); the covariance is constant.
    #[cfg(test)]
    pub(crate) fn update_inst_slopes(&mut self, m: u8) {
        let range = self.lay.inst_slopes(m);
        let d = range.len();
        if d == 0 {
            return;
        }
        let k = self.lay.inst_intercept(m);
        let (bags, eu, a) = (self.bags, &self.eu, self.m[k]);
        let parts = chunked_map(bags.n_instances(), INSTANCE_CHUNK, |range| {
            let mut rhs = vec![0.0; d];
            for j in range.filter(|&j| bags.modality[j] == m) {
                let w = eu[j] - a;
                for (r, x) in rhs.iter_mut().zip(bags.features(j)) {
                    *r += w * x;
                }
            }
            rhs
        });
        let mut rhs = vec![0.0; d];
        for part in parts {
            rhs.iter_mut().zip(part).for_each(|(r, p)| *r += p);
        }
        let mean = mat_vec(&self.v[if m == 0 { B } else { D }], &rhs);
        self.m[range].copy_from_slice(&mean);
        self.refresh_nu(Some(m));
    }

    /// V8: q(y*_i).
    #[cfg(test)]
    pub(crate) fn update_ystar(&mut self, i: usize) {
        let [e0, e1] = self.es(i);
        self.set_ystar(i, self.m[self.lay.alpha()] + e0 + e1);
    }

    /// V8 and V9–V10 (exact form) for bag `i`: q(y*_i), then q(U_ij) of
    /// every instance of the bag one after another with the bag's running
    /// sums kept current.
    #[cfg(test)]
    pub(crate) fn update_bag(&mut self, i: usize) {
        self.local_steps(i..i + 1);
    }

    /// [`State::update_bag`] for every bag in `bags`, in parallel over
    /// fixed runs of [`BAG_CHUNK`] bags (bags are independent given the
    /// global factors, so the result does not depend on the threads).
    fn local_steps(&mut self, bags: std::ops::Range<usize>) {
        let State {
            bags: data,
            y,
            lay,
            m,
            mu_u,
            delta,
            e,
            eu,
            eta,
            ln_zu,
            nu,
            mu_star,
            t,
            ln_zy,
            q_bag,
            w_bag,
            ..
        } = self;
        let sh = Shared {
            bags: data,
            y,
            alpha: m[lay.alpha()],
            eta,
            nu,
            q_bag,
            w_bag,
            widths: [lay.d0, lay.d1],
        };
        let (bag_cuts, inst_cuts) = run_cuts(data, bags);
        let mut it =
            [mu_u, delta, e, eu, ln_zu].map(|v| split_at_cuts(&mut v[..], &inst_cuts).into_iter());
        let mut ib = [mu_star, t, ln_zy].map(|v| split_at_cuts(&mut v[..], &bag_cuts).into_iter());
        let mut runs = Vec::new();
        for k in 0..bag_cuts.len() - 1 {
            let [mu_u, delta, e, eu, ln_zu] = it.each_mut().map(|i| i.next().expect("cut"));
            let [mu_star, t, ln_zy] = ib.each_mut().map(|i| i.next().expect("cut"));
            runs.push(LocalsMut {
                bags: bag_cuts[k]..bag_cuts[k + 1],
                inst0: inst_cuts[k],
                mu_u,
                delta,
                e,
                eu,
                ln_zu,
                mu_star,
                t,
                ln_zy,
            });
        }
        runs.into_par_iter().for_each(|mut run| sh.steps(&mut run));
    }

    /// One sweep: V1–V7, then per bag V8 and V9–V10.
    pub(crate) fn sweep(&mut self) {
        self.update_alpha();
        self.update_bag_slopes(0);
        self.update_bag_slopes(1);
        self.update_inst_level();
        self.local_steps(0..self.bags.n_bags());
    }

    /// The coefficient means after move `mv` with parameter `h`.
    fn moved_means(&self, mv: Move, h: f64) -> Vec<f64> {
        let lay = self.lay;
        let mut m = self.m.clone();
        match mv {
            Move::OuterScale => {
                let s = h.exp();
                for k in std::iter::once(lay.alpha())
                    .chain(lay.beta())
                    .chain(lay.gamma())
                {
                    m[k] *= s;
                }
            }
            Move::InnerScale(mo) => {
                let s = h.exp();
                m[lay.inst_intercept(mo)] *= s;
                for r in lay.inst_slopes(mo) {
                    m[r] *= s;
                }
            }
            Move::InnerShift(mo) => m[lay.inst_intercept(mo)] += h,
        }
        m
    }

    /// Instance `j`'s local factors as they are.
    #[inline]
    fn local(&self, j: usize) -> InstLocal {
        InstLocal {
            eta: self.eta[j],
            nu: self.nu[j],
            mu_u: self.mu_u[j],
            delta: self.delta[j],
            e: self.e[j],
            eu: self.eu[j],
            ln_zu: self.ln_zu[j],
        }
    }

    /// Instance `j`'s local factors after an inner move that maps E[ν] to
    /// `scale · E[ν] + shift` ([`Move::affine`]): q(U) keeps its Δ and
    /// follows to the new E[ν]; E[η] stays.
    #[inline]
    fn moved_local(&self, j: usize, scale: f64, shift: f64) -> InstLocal {
        let mut l = self.local(j);
        l.nu = l.nu * scale + shift;
        l.mu_u = l.nu;
        (l.e, l.eu, l.ln_zu) = u_moments(l.nu, l.delta);
        l
    }

    /// The ELBO the state would have after move `mv` with parameter `h`
    /// and every q(y*) set to its optimum — what [`State::apply_move`]
    /// followed by [`State::elbo`] gives, without writing anything (the
    /// line search of [`State::expansion_moves`]). `cache` holds the
    /// current [`Share`]s ([`State::shares`]): an inner move recomputes
    /// its own modality's shares (to the bit what applying it gives) and
    /// reads the other's; the outer scale `e^h` multiplies every `E[η]`,
    /// so it scales the cached sums (`Σ e η` by `e^h`, `Σ e(1 − e)η²` by
    /// `e^{2h}`) and costs a pass over the bags alone (equal to applying
    /// it up to rounding). With `out`, the moved state's shares are written
    /// there (one entry per bag).
    fn move_elbo(
        &self,
        mv: Move,
        h: f64,
        cache: &[[Share; 2]],
        out: Option<&mut [[Share; 2]]>,
    ) -> f64 {
        let means = self.moved_means(mv, h);
        match mv {
            Move::OuterScale => {
                let s = h.exp();
                self.total_into(&means, true, out, |i, _| {
                    cache[i].map(|mut c| {
                        c.es *= s;
                        c.var_eta *= s * s;
                        c
                    })
                })
            }
            Move::InnerScale(m) | Move::InnerShift(m) => {
                let (scale, shift) = mv.affine(h);
                let local = |j| self.moved_local(j, scale, shift);
                self.total_into(&means, true, out, |i, bufs| {
                    let mut c = cache[i];
                    c[m as usize] = self.share(i, m, &local, bufs);
                    c
                })
            }
        }
    }

    /// Apply move `mv` with parameter `h`: the coefficient means change,
    /// the local factors follow ([`State::moved_local`]), every q(y*) is set
    /// to its optimum.
    fn apply_move(&mut self, mv: Move, h: f64) {
        let means = self.moved_means(mv, h);
        self.m = means;
        match mv {
            Move::OuterScale => self.refresh_eta(),
            Move::InnerScale(mo) | Move::InnerShift(mo) => {
                let (scale, shift) = mv.affine(h);
                let modality = &self.bags.modality;
                (
                    self.nu.par_iter_mut(),
                    self.mu_u.par_iter_mut(),
                    self.e.par_iter_mut(),
                    self.eu.par_iter_mut(),
                    self.ln_zu.par_iter_mut(),
                    self.delta.par_iter(),
                )
                    .into_par_iter()
                    .enumerate()
                    .with_min_len(INSTANCE_CHUNK)
                    .for_each(|(j, (nu, mu_u, e, eu, lz, &dl))| {
                        if modality[j] == mo {
                            *nu = *nu * scale + shift;
                            *mu_u = *nu;
                            (*e, *eu, *lz) = u_moments(*nu, dl);
                        }
                    });
            }
        }
        self.update_ystar_all();
    }

    /// V8 for every bag (in parallel: each bag on its own).
    pub(crate) fn update_ystar_all(&mut self) {
        let alpha = self.m[self.lay.alpha()];
        let (bags, y, e, eta) = (self.bags, &self.y, &self.e, &self.eta);
        (
            self.mu_star.par_iter_mut(),
            self.t.par_iter_mut(),
            self.ln_zy.par_iter_mut(),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(BAG_CHUNK)
            .for_each(|(i, (ms, ti, lz))| {
                let b = &bags.bags[i];
                let mut es = [0.0; 2];
                for j in b.start..b.end {
                    es[bags.modality[j] as usize] += e[j] * eta[j];
                }
                let mu = alpha + es[0] + es[1];
                *ms = mu;
                (*ti, *lz) = ystar_moments(mu, y[i]);
            });
    }

    /// Parameter-expansion moves (in the spirit of Qi & Jaakkola 2006's
    /// PX-VB for probit models, and of the Gibbs sampler's Liu & Wu 1999
    /// scale moves): CAVI sweeps crawl along directions where a whole
    /// regression and its latent variables grow together (a well-separated
    /// probit's scale). Each move is a one-dimensional search of the ELBO
    /// along such a direction (a parabola through three points, then
    /// halving), kept only if the ELBO rises; so the map stays monotone.
    /// The search reads cached per-bag [`Share`]s and recomputes only what
    /// the move changes; a move that fails rests ([`Rests`]). Returns the
    /// ELBO at the end.
    pub(crate) fn expansion_moves(&mut self, rests: &mut Rests) -> f64 {
        let mut moves = vec![Move::OuterScale];
        for m in 0..2u8 {
            if self.bags.counts()[m as usize] > 0 {
                moves.push(Move::InnerScale(m));
                moves.push(Move::InnerShift(m));
            }
        }
        let mut cache = self.shares();
        let mut f0 = self.total(&self.m, false, |i, _| cache[i]);
        let (mut best_buf, mut cand_buf) = (cache.clone(), cache.clone());
        for mv in moves {
            let slot = mv.slot();
            if rests.wait[slot] > 0 {
                rests.wait[slot] -= 1;
                continue;
            }
            // An inner move's evaluation gives the moved state's shares to
            // the bit: the best one's are kept and become the cache.
            let keep = !matches!(mv, Move::OuterScale);
            let step = 0.05;
            let fp = self.move_elbo(mv, step, &cache, keep.then_some(&mut best_buf[..]));
            let fm = self.move_elbo(mv, -step, &cache, keep.then_some(&mut cand_buf[..]));
            let curv = (fp - 2.0 * f0 + fm) / (step * step);
            let grad = (fp - fm) / (2.0 * step);
            let (mut h, mut best) = if fp >= fm {
                (step, fp)
            } else {
                std::mem::swap(&mut best_buf, &mut cand_buf);
                (-step, fm)
            };
            let mut cand = if curv < 0.0 { -grad / curv } else { 4.0 * h };
            let limit = if matches!(mv, Move::InnerShift(_)) {
                3.0
            } else {
                1.5
            };
            cand = cand.clamp(-limit, limit);
            for _ in 0..4 {
                if (cand - h).abs() < 1e-3 {
                    break;
                }
                let f = self.move_elbo(mv, cand, &cache, keep.then_some(&mut cand_buf[..]));
                if f.is_finite() && f > best {
                    (h, best) = (cand, f);
                    std::mem::swap(&mut best_buf, &mut cand_buf);
                    break;
                }
                cand *= 0.5;
            }
            if best <= f0 {
                rests.idle[slot] = (rests.idle[slot] + 1).min(5);
                rests.wait[slot] = (1 << rests.idle[slot]) - 1;
            } else {
                rests.idle[slot] = 0;
            }
            // The outer scale's prediction is exact up to rounding only: its
            // gain must clear that, and the ELBO is then recomputed from the
            // moved state, so that it never falls.
            if best > f0 + 1e-12 * f0.abs() {
                self.apply_move(mv, h);
                if keep {
                    std::mem::swap(&mut cache, &mut best_buf);
                    f0 = best;
                } else {
                    cache = self.shares();
                    f0 = self.total(&self.m, false, |i, _| cache[i]);
                }
            }
        }
        f0
    }

    /// `p̂_i = Φ(m_α + Σ_j E[δ_ij] E[η_ij])`.
    pub(crate) fn bag_p(&self) -> Vec<f64> {
        (0..self.bags.n_bags())
            .into_par_iter()
            .with_min_len(BAG_CHUNK)
            .map(|i| {
                let [e0, e1] = self.es(i);
                norm_cdf(self.m[self.lay.alpha()] + e0 + e1)
            })
            .collect()
    }

    /// The evidence lower bound at the current factors (all terms,
    /// constants included except none: it is a bound on ln p(y)).
    pub(crate) fn elbo(&self) -> f64 {
        self.elbo_of(&self.m, |j| self.local(j), false)
    }

    /// The ELBO at coefficient means `means` and instance factors
    /// `local(j)`, with each q(y*) as stored or (`optimal_ystar`) at its
    /// optimum given the rest (set exactly as [`State::update_ystar_all`]
    /// sets it). One parallel pass over runs of bags.
    fn elbo_of<L>(&self, means: &[f64], local: L, optimal_ystar: bool) -> f64
    where
        L: Fn(usize) -> InstLocal + Sync,
    {
        self.total(means, optimal_ystar, |i, bufs| {
            [0u8, 1].map(|m| self.share(i, m, &local, bufs))
        })
    }

    /// Both modalities' [`Share`]s of every bag at the current factors
    /// (what [`State::total`] reads back for the moves' line search).
    fn shares(&self) -> Vec<[Share; 2]> {
        let local = |j| self.local(j);
        chunked_map(self.bags.n_bags(), BAG_CHUNK, |range| {
            let mut bufs = self.buffers();
            range
                .map(|i| [0u8, 1].map(|m| self.share(i, m, &local, &mut bufs)))
                .collect::<Vec<_>>()
        })
        .concat()
    }

    /// Scratch vectors for [`State::share`].
    fn buffers(&self) -> [Vec<f64>; 2] {
        let d = self.lay.d0.max(self.lay.d1);
        [vec![0.0; d], vec![0.0; d]]
    }

    /// Modality `m`'s [`Share`] of bag `i` with instance factors `local(j)`.
    fn share<L>(&self, i: usize, m: u8, local: &L, bufs: &mut [Vec<f64>; 2]) -> Share
    where
        L: Fn(usize) -> InstLocal,
    {
        let b = &self.bags.bags[i];
        let d = self.bags.width(m);
        let [s, vs] = bufs;
        let (s, vs) = (&mut s[..d], &mut vs[..d]);
        s.iter_mut().for_each(|x| *x = 0.0);
        let v_int = self.v[if m == 0 { A } else { C }][(0, 0)];
        let mut sh = Share::default();
        let mut any = false;
        for j in b.start..b.end {
            if self.bags.modality[j] != m {
                continue;
            }
            any = true;
            let l = local(j);
            let (e, eta) = (l.e, l.eta);
            sh.es += e * eta;
            let w = e * (1.0 - e);
            sh.var_eta += w * eta * eta;
            sh.var_q += w * self.q_bag[j];
            for (sk, xk) in s.iter_mut().zip(self.bags.features(j)) {
                *sk += e * xk;
            }
            // E[ln N(U; ν, 1)] − E[ln q(U)] − KL of δ's part.
            let enu2 = l.nu * l.nu + v_int + self.q_inst[j];
            let (mu, eu) = (l.mu_u, l.eu);
            let eu2 = 1.0 + mu * eu;
            sh.inst += -0.5 * (eu2 - 2.0 * eu * l.nu + enu2)
                + 0.5 * (eu2 - 2.0 * eu * mu + mu * mu)
                - l.delta * e
                + l.ln_zu;
        }
        if any && d > 0 {
            mat_vec_into(&self.v[[BETA, GAMMA][m as usize]], s, vs);
            sh.quad = dot(vs, s);
        }
        sh
    }

    /// The ELBO at coefficient means `means` with each bag's [`Share`]s
    /// from `shares(i, scratch)`, q(y*) as stored or at its optimum. Bags
    /// are summed over the same fixed runs whatever supplies the shares,
    /// so the same shares give the same bits.
    fn total<S>(&self, means: &[f64], optimal_ystar: bool, shares: S) -> f64
    where
        S: Fn(usize, &mut [Vec<f64>; 2]) -> [Share; 2] + Sync,
    {
        self.total_into(means, optimal_ystar, None, shares)
    }

    /// [`State::total`], writing every bag's shares as supplied to `out`
    /// if given (a buffer of one entry per bag, reused across the line
    /// search's evaluations).
    fn total_into<S>(
        &self,
        means: &[f64],
        optimal_ystar: bool,
        out: Option<&mut [[Share; 2]]>,
        shares: S,
    ) -> f64
    where
        S: Fn(usize, &mut [Vec<f64>; 2]) -> [Share; 2] + Sync,
    {
        let alpha = means[self.lay.alpha()];
        let v_alpha = self.v[ALPHA][(0, 0)];
        // Bags: E[ln N(y*; α + S, 1)] − E[ln q(y*)] (ln p(y | y*) = 0 on
        // q's support), with E[S²] = (Σ e η)² + Σ e(1 − e)(η² + xᵀVx) +
        // Σ_m s_mᵀ V s_m; instances: their shares' terms.
        let bag = |i: usize, sh: [Share; 2]| -> f64 {
            let [s0, s1] = sh;
            let es = s0.es + s1.es;
            let es2 = es * es + s0.var_eta + s0.var_q + s1.var_eta + s1.var_q + s0.quad + s1.quad;
            let (mu, t, ln_zy) = if optimal_ystar {
                let mu = alpha + s0.es + s1.es;
                let (t, lz) = ystar_moments(mu, self.y[i]);
                (mu, t, lz)
            } else {
                (self.mu_star[i], self.t[i], self.ln_zy[i])
            };
            let ey2 = 1.0 + mu * t;
            let fit =
                ey2 - 2.0 * t * (alpha + es) + alpha * alpha + v_alpha + 2.0 * alpha * es + es2;
            let own = ey2 - 2.0 * t * mu + mu * mu;
            -0.5 * fit + 0.5 * own + ln_zy + s0.inst + s1.inst
        };
        // Fixed runs of bags, their sums added in order (as chunked_sum).
        let parts: Vec<f64> = match out {
            None => chunked_map(self.bags.n_bags(), BAG_CHUNK, |range| {
                let mut bufs = self.buffers();
                range.map(|i| bag(i, shares(i, &mut bufs))).sum::<f64>()
            }),
            Some(out) => out
                .par_chunks_mut(BAG_CHUNK)
                .enumerate()
                .map(|(c, run)| {
                    let mut bufs = self.buffers();
                    let mut total = 0.0;
                    for (k, o) in run.iter_mut().enumerate() {
                        let i = c * BAG_CHUNK + k;
                        *o = shares(i, &mut bufs);
                        total += bag(i, *o);
                    }
                    total
                })
                .collect(),
        };
        parts.iter().sum::<f64>() + self.prior_terms(means)
    }

    /// The Gaussian factors against their priors: Σ_blocks E[ln p(θ)] + H(q).
    fn prior_terms(&self, means: &[f64]) -> f64 {
        let lay = self.lay;
        let ranges = [
            lay.alpha()..lay.alpha() + 1,
            lay.beta(),
            lay.gamma(),
            lay.a()..lay.a() + 1,
            lay.b(),
            lay.c()..lay.c() + 1,
            lay.d(),
        ];
        let mut total = 0.0;
        for (k, r) in ranges.into_iter().enumerate() {
            let d = r.len();
            if d == 0 {
                continue;
            }
            let s2 = if matches!(k, ALPHA | A | C) {
                self.pri.intercept_var
            } else {
                self.pri.slope_var
            };
            let v = &self.v[k];
            let ln_det = Cholesky::new(v).map_or(f64::NEG_INFINITY, |c| c.ln_det());
            let m2: f64 = means[r].iter().map(|x| x * x).sum();
            total += 0.5 * ln_det - 0.5 * d as f64 * s2.ln() + 0.5 * d as f64
                - (m2 + v.trace()) / (2.0 * s2);
        }
        total
    }
}

/// Mean and covariance of a Gaussian with precision `p` (lower triangle
/// filled) and linear term `rhs`.
fn gaussian(mut p: DMatrix<f64>, rhs: &DVector<f64>) -> (DVector<f64>, DMatrix<f64>) {
    let d = p.nrows();
    for c in 0..d {
        for r in c + 1..d {
            p[(c, r)] = p[(r, c)];
        }
    }
    // The precision is the prior's (positive definite) plus positive
    // semi-definite terms, so the factorisation exists.
    let ch = Cholesky::new(&p).expect("prior precision keeps the matrix positive definite");
    (ch.solve(rhs), ch.inverse())
}

/// Starting means: zeros for start 0, small normal draws otherwise.
fn start(layout: &Layout, seed: u64, s: usize) -> Vec<f64> {
    if s == 0 {
        return vec![0.0; layout.len()];
    }
    let mut rng = stream(seed, &[0x4d49_4c56, s as u64]);
    (0..layout.len())
        .map(|_| {
            let z: f64 = StandardNormal.sample(&mut rng);
            0.5 * z
        })
        .collect()
}

/// Plain sweeps before the parameter-expansion moves start. Started at
/// once, the moves scale up regressions whose primary instances are still
/// unsettled and lead to poor local optima (on Hu 2024's basic setting:
/// ELBO −507.7 and a held-out bag AUROC of 0.76 against −448.8 and 0.915
/// after 50 plain sweeps; docs/mil.md).
const EXPANSION_WARMUP: usize = 50;

/// One CAVI sweep as a monotone map of the variational parameters, so
/// that the project's fixed-point executor can accelerate it (SQUAREM with
/// the ELBO as safeguard: an extrapolated point is kept only if its ELBO is
/// at least the plain sweep's). Plain sweeps alone are slow here: with
/// well-separated bags, q(y*) and q(β) move each other by small steps
/// (the slow convergence of data augmentation for probit models).
struct SweepMap<'a> {
    state: State<'a>,
    expand: bool,
    sweeps: usize,
    warmup: usize,
    observer: Option<SharedObserver>,
    /// The point the state is at (its last output), and its ELBO if known:
    /// the executor usually evaluates the map where it just left off, and
    /// reloading would recompute every local factor for nothing.
    at: Vec<f64>,
    at_elbo: Option<f64>,
    rests: Rests,
}

impl MonotoneMap for SweepMap<'_> {
    fn eval(&mut self, x: &[f64]) -> Result<Iterate> {
        let here = x == self.at.as_slice();
        if !here {
            self.state.load(x);
        }
        let objective = match (here, self.at_elbo) {
            (true, Some(f)) => f,
            _ => self.state.elbo(),
        };
        if !objective.is_finite() {
            return Err(Error::Numerical(format!(
                "the ELBO is {objective}; rescale the features (--standardise)"
            )));
        }
        let p0 = self.state.bag_p();
        self.state.sweep();
        self.sweeps += 1;
        self.at_elbo = (self.expand && self.sweeps > self.warmup)
            .then(|| self.state.expansion_moves(&mut self.rests));
        let p1 = self.state.bag_p();
        let gap = p0.iter().zip(&p1).map(|(a, b)| (a - b).abs()).sum::<f64>() / p0.len() as f64;
        observer::advance(self.observer.as_ref(), 1)?;
        self.at = self.state.pack();
        Ok(Iterate::new(self.at.clone(), objective, Some(gap)))
    }
}

/// Fit vMMIC by coordinate ascent (Hu 2024, Appendix B.1; exact δ/U step),
/// accelerated by SQUAREM under the ELBO; of several starts the highest
/// ELBO's optimum.
pub fn fit_vb(bags: &Bags, opts: &VbOptions) -> Result<VbFit> {
    fit_vb_with(bags, opts, true)
}

/// [`fit_vb`] with or without the acceleration (plain CAVI sweeps, every
/// one of which raises the ELBO: the test of the updates).
pub fn fit_vb_with(bags: &Bags, opts: &VbOptions, accelerate: bool) -> Result<VbFit> {
    let fits = fit_every_start(bags, opts, accelerate)?;
    let start_elbos: Vec<f64> = fits.iter().map(VbFit::final_elbo).collect();
    // The first of the highest: ties keep the earlier start.
    let mut best = 0;
    for (s, e) in start_elbos.iter().enumerate() {
        if *e > start_elbos[best] {
            best = s;
        }
    }
    let mut fit = fits.into_iter().nth(best).expect("at least one start");
    fit.start_elbos = start_elbos;
    Ok(fit)
}

/// Every start's optimum, in start order: the components of an
/// equal-weight mixture ([`VbOptions::mixture`]; with `mixture` unset the
/// starts after the first are drawn around zero as for [`fit_vb`]). Each
/// component's `start_elbos` lists every component's final ELBO.
pub fn fit_vb_mixture(bags: &Bags, opts: &VbOptions) -> Result<Vec<VbFit>> {
    let mut fits = fit_every_start(bags, opts, true)?;
    let elbos: Vec<f64> = fits.iter().map(VbFit::final_elbo).collect();
    for f in &mut fits {
        f.start_elbos = elbos.clone();
    }
    Ok(fits)
}

impl VbFit {
    /// The ELBO at the optimum (the last of the trace).
    pub(crate) fn final_elbo(&self) -> f64 {
        *self.elbo.last().expect("sweeps")
    }
}

/// Coordinate ascent from every start of `opts`, the starts run in
/// parallel (each from its own seeded draw, so the result does not depend
/// on the number of threads).
fn fit_every_start(bags: &Bags, opts: &VbOptions, accelerate: bool) -> Result<Vec<VbFit>> {
    use rayon::prelude::*;
    opts.check()?;
    let y = bags.training_labels("data")?;
    let layout = Layout::of(bags);
    if let Some(x) = &opts.init {
        layout.check_start(x)?;
    }
    let (first, started_from) = match (&opts.init, opts.start) {
        (Some(x), _) => (x.clone(), "init"),
        (None, VbStart::Prior) => (start(&layout, opts.seed, 0), "prior"),
        (None, VbStart::Moments) => {
            let x = super::moments::moment_start(bags).ok_or_else(|| {
                let pooled = super::moments::pooled_features(bags);
                let why = if pooled > super::moments::MAX_POOLED {
                    format!(
                        "the moment start needs at most {} pooled features (d + d(d+1)/2 per \
                         modality, here {pooled}); reduce the features first (`components`)",
                        super::moments::MAX_POOLED
                    )
                } else {
                    "the moment start's regression has no finite solution on these bags; \
                     start at the prior means (`vb_start` prior)"
                        .to_string()
                };
                Error::param("vb_start", why)
            })?;
            (x, "moments")
        }
        (None, VbStart::Marginal) => match super::marginal::marginal_mode(bags, &y, opts.priors) {
            Some(x) => (x, "marginal"),
            None => (start(&layout, opts.seed, 0), "prior"),
        },
    };
    let one = |s: usize| -> Result<VbFit> {
        let means = match s {
            0 => first.clone(),
            _ if opts.mixture => start(&layout, opts.seed, s)
                .iter()
                .zip(&first)
                .map(|(z, f)| f + z)
                .collect(),
            _ => start(&layout, opts.seed, s),
        };
        let state = State::new(bags, y.clone(), opts.priors, &means);
        let x0 = state.pack();
        let mut map = SweepMap {
            state,
            expand: accelerate,
            sweeps: 0,
            warmup: EXPANSION_WARMUP,
            observer: opts.observer.clone(),
            at: Vec::new(),
            at_elbo: None,
            rests: Rests::default(),
        };
        let settings = IterSettings {
            tol: opts.tol,
            max_iter: opts.max_iter,
            accelerate,
        };
        let out = Executor::new(settings).run(&mut map, x0)?;
        // The state at the accepted point (its covariances and E[δ]).
        map.state.load(&out.x);
        let last = map.state.elbo();
        let mut elbo = out.trace.clone();
        elbo.push(last);
        elbo.dedup();
        Ok(VbFit {
            layout,
            mean: map.state.m.clone(),
            blocks: map.state.v.to_vec(),
            primary: map.state.e.clone(),
            bag_p: map.state.bag_p(),
            elbo,
            iterations: out.evaluations,
            converged: out.converged(),
            start_elbos: Vec::new(),
            started_from,
        })
    };
    if opts.starts == 1 {
        return Ok(vec![one(0)?]);
    }
    (0..opts.starts).into_par_iter().map(one).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mil::simulate::{MilDesign, simulate_bags, small_bags};

    fn small() -> Bags {
        small_bags(40, 11)
    }

    /// The fast moments of q(U) agree with the log-space ones over the
    /// range the fast path serves, extreme shifts included.
    #[test]
    fn fast_u_moments_match_the_log_space_ones() {
        for k in -300..=300 {
            let mu = k as f64 * 0.1;
            for dl in [
                -800.0, -40.0, -5.0, -0.3, -1e-9, 0.0, 1e-9, 0.2, 3.0, 35.0, 900.0,
            ] {
                let (e, eu, lz) = u_moments(mu, dl);
                let (e2, eu2, lz2) = u_moments_log(mu, dl);
                let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * (1.0 + b.abs());
                assert!(
                    close(e, e2, 1e-13),
                    "E[δ] at μ = {mu}, Δ = {dl}: {e} vs {e2}"
                );
                assert!(
                    close(eu, eu2, 1e-11),
                    "E[U] at μ = {mu}, Δ = {dl}: {eu} vs {eu2}"
                );
                assert!(
                    close(lz, lz2, 1e-13),
                    "ln Z at μ = {mu}, Δ = {dl}: {lz} vs {lz2}"
                );
            }
        }
    }

    /// The fused instance-level step equals V4–V7 one after another, on
    /// two modalities and on one (the other's intercept then goes to its
    /// prior mean).
    #[test]
    fn the_fused_instance_level_step_equals_v4_to_v7() {
        let two = small();
        let mut one = Bags::new([two.feature_names[0].clone(), Vec::new()]);
        for b in &two.bags {
            let inst: Vec<_> = (b.start..b.end)
                .filter(|&j| two.modality[j] == 0)
                .map(|j| (0u8, two.features(j).to_vec(), j, None))
                .collect();
            if !inst.is_empty() {
                one.push_bag(b.name.clone(), b.label, inst).unwrap();
            }
        }
        for bags in [&two, &one] {
            let y = bags.labels("t").unwrap();
            let mut st = State::new(
                bags,
                y,
                MilPriors::default(),
                &start(&Layout::of(bags), 5, 0),
            );
            for _ in 0..3 {
                st.sweep();
            }
            st.m[st.lay.inst_intercept(1)] = 0.7;
            let mut one_by_one = st.clone();
            for m in 0..2u8 {
                one_by_one.update_inst_intercept(m);
                one_by_one.update_inst_slopes(m);
            }
            st.update_inst_level();
            for (a, b) in st.m.iter().zip(&one_by_one.m) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
            }
            for (a, b) in st.nu.iter().zip(&one_by_one.nu) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
    }

    /// The expansion moves' line search evaluates the ELBO of a moved state
    /// without building it; applying the move and computing the ELBO must
    /// give the same number (the search's acceptance test is the monotone
    /// map's safeguard): to the bit for the inner moves, whose per-bag sums
    /// must also equal the moved state's (they become the next move's
    /// cache), and up to rounding for the outer scale, which rescales the
    /// cached sums.
    #[test]
    fn a_move_evaluated_in_place_equals_the_move_applied() {
        let bags = small();
        let y = bags.labels("t").unwrap();
        let mut st = State::new(
            &bags,
            y,
            MilPriors::default(),
            &start(&Layout::of(&bags), 3, 1),
        );
        for _ in 0..5 {
            st.sweep();
        }
        let moves = [
            Move::OuterScale,
            Move::InnerScale(0),
            Move::InnerShift(0),
            Move::InnerScale(1),
            Move::InnerShift(1),
        ];
        for mv in moves {
            for h in [-0.3, 0.05, 0.7] {
                let mut kept = st.shares();
                let predicted = st.move_elbo(mv, h, &st.shares(), Some(&mut kept));
                let mut moved = st.clone();
                moved.apply_move(mv, h);
                let applied = moved.elbo();
                if !matches!(mv, Move::OuterScale) {
                    // The search's shares become the next move's cache.
                    let fresh = moved.shares();
                    let fields = |c: &Share| [c.es, c.var_eta, c.var_q, c.quad, c.inst];
                    for (a, b) in kept.iter().flatten().zip(fresh.iter().flatten()) {
                        assert_eq!(fields(a), fields(b), "{mv:?} at {h}: cached shares");
                    }
                }
                if matches!(mv, Move::OuterScale) {
                    assert!(
                        (predicted - applied).abs() <= 1e-12 * applied.abs(),
                        "{mv:?} at {h}: {predicted} vs {applied}"
                    );
                } else {
                    assert_eq!(predicted, applied, "{mv:?} at {h}");
                }
            }
        }
    }

    /// Every coordinate update maximises the ELBO as computed over its own
    /// block: after the update, moving that block's parameters either way
    /// lowers the ELBO. This ties the updates (Hu 2024, Appendix B.1, with
    /// the exact δ/U step) to the ELBO formula term by term.
    #[test]
    fn each_update_maximises_the_elbo_over_its_block() {
        let bags = small();
        let y = bags.labels("t").unwrap();
        let lay = Layout::of(&bags);
        let init: Vec<f64> = (0..lay.len()).map(|k| 0.1 * ((k as f64).sin())).collect();
        let mut st = State::new(&bags, y, MilPriors::default(), &init);
        for _ in 0..5 {
            st.sweep();
        }
        // Perturb coordinate(s) through `f`, check the ELBO drops, restore.
        fn check(st: &mut State, what: &str, f: &dyn Fn(&mut State, f64)) {
            let base = st.elbo();
            for sgn in [-1.0, 1.0] {
                f(st, sgn * 1e-4);
                let moved = st.elbo();
                f(st, -sgn * 1e-4);
                assert!(moved < base + 1e-10, "{what}: {moved} > {base}");
            }
        }
        st.update_alpha();
        check(&mut st, "alpha", &|s, d| s.m[0] += d);
        for m in 0..2u8 {
            st.update_bag_slopes(m);
            let r = st.lay.bag_slopes(m);
            for k in r.clone() {
                check(&mut st, "bag slope", &|s, d| {
                    s.m[k] += d;
                    s.refresh_eta();
                });
            }
            st.update_inst_intercept(m);
            let k = st.lay.inst_intercept(m);
            check(&mut st, "inst intercept", &|s, d| {
                s.m[k] += d;
                s.refresh_nu(Some(m));
            });
            st.update_inst_slopes(m);
            for k in st.lay.inst_slopes(m) {
                check(&mut st, "inst slope", &|s, d| {
                    s.m[k] += d;
                    s.refresh_nu(Some(m));
                });
            }
        }
        for i in [0usize, 7, 23] {
            st.update_ystar(i);
            check(&mut st, "y*", &|s, d| s.set_ystar(i, s.mu_star[i] + d));
            st.update_bag(i);
            let b = bags.bags[i].clone();
            // The last instance of the bag was updated last: its factor is
            // optimal given all others.
            let j = b.end - 1;
            for field in 0..2 {
                check(&mut st, "q(U)", &|s, d| {
                    let (mu, dl) = (s.mu_u[j], s.delta[j]);
                    if field == 0 {
                        s.set_u(j, mu + d, dl);
                    } else {
                        s.set_u(j, mu, dl + d);
                    }
                });
            }
        }
    }

    /// Every coordinate update (Hu 2024, Appendix B.1, V1–V10 with the
    /// spec's corrections and the exact δ/U step) sets its block where the
    /// ELBO's gradient in that block vanishes: right after the update the
    /// central finite difference of the ELBO along each of the block's
    /// means, along its covariance scaled (`V ↦ e^h V`) and along a
    /// symmetric direction of the covariance is zero to rounding; for the
    /// local factors along `q(y*_i)`'s location and `q(U_ij)`'s location
    /// and log-odds shift. Just before the global updates the gradient is
    /// not zero, so the check has teeth.
    #[test]
    fn each_update_zeroes_the_finite_difference_gradient_of_its_block() {
        let bags = small();
        let y = bags.labels("t").unwrap();
        let lay = Layout::of(&bags);
        let init: Vec<f64> = (0..lay.len()).map(|k| 0.1 * ((k as f64).sin())).collect();
        let mut st = State::new(&bags, y, MilPriors::default(), &init);
        st.sweep();
        let h = 1e-5;
        let tol = 1e-5;
        // dELBO/dh of `f(state, h)` by central differences on clones.
        let fd = |st: &State, f: &dyn Fn(&mut State, f64)| {
            let at = |d: f64| {
                let mut s2 = st.clone();
                f(&mut s2, d);
                s2.elbo()
            };
            (at(h) - at(-h)) / (2.0 * h)
        };
        // The directions of a Gaussian block: each mean (with `refresh`
        // bringing the cached predictors up to date), the covariance scaled,
        // and the covariance along a fixed symmetric direction.
        type Dir<'f> = Box<dyn Fn(&mut State, f64) + 'f>;
        let directions = |means: std::ops::Range<usize>,
                          cov: usize,
                          refresh: &'static dyn Fn(&mut State)|
         -> Vec<(String, Dir<'static>)> {
            let mut out: Vec<(String, Dir<'static>)> = Vec::new();
            for k in means {
                out.push((
                    format!("mean {k}"),
                    Box::new(move |s: &mut State, d: f64| {
                        s.m[k] += d;
                        refresh(s);
                    }),
                ));
            }
            out.push((
                "covariance scale".into(),
                Box::new(move |s: &mut State, d: f64| {
                    s.v[cov] *= d.exp();
                    refresh(s);
                }),
            ));
            out.push((
                "covariance direction".into(),
                Box::new(move |s: &mut State, d: f64| {
                    let n = s.v[cov].nrows();
                    for r in 0..n {
                        for c in 0..n {
                            let e = 1.0 / (1.0 + (r + c) as f64) * if r == c { 1.0 } else { 0.3 };
                            s.v[cov][(r, c)] += d * e * s.v[cov][(r.min(c), r.min(c))];
                        }
                    }
                    refresh(s);
                }),
            ));
            out
        };
        fn none(_: &mut State) {}
        fn eta(s: &mut State) {
            s.refresh_eta();
            s.refresh_quads(0, true);
            s.refresh_quads(1, true);
        }
        fn nu0(s: &mut State) {
            s.refresh_nu(Some(0));
            s.refresh_quads(0, false);
        }
        fn nu1(s: &mut State) {
            s.refresh_nu(Some(1));
            s.refresh_quads(1, false);
        }
        let check =
            |st: &mut State, what: &str, dirs: Vec<(String, Dir)>, update: &dyn Fn(&mut State)| {
                let before = dirs
                    .iter()
                    .map(|(_, f)| fd(st, f).abs())
                    .fold(0.0, f64::max);
                update(st);
                for (name, f) in &dirs {
                    let g = fd(st, f);
                    assert!(
                        g.abs() < tol,
                        "{what}, {name}: dELBO {g:e} after the update (largest {before:e} before)"
                    );
                }
                assert!(
                    before > 100.0 * tol,
                    "{what}: already optimal before its update ({before:e})"
                );
            };
        check(
            &mut st,
            "q(alpha)",
            directions(lay.alpha()..lay.alpha() + 1, ALPHA, &none),
            &|s| s.update_alpha(),
        );
        check(
            &mut st,
            "q(beta)",
            directions(lay.beta(), BETA, &eta),
            &|s| s.update_bag_slopes(0),
        );
        check(
            &mut st,
            "q(gamma)",
            directions(lay.gamma(), GAMMA, &eta),
            &|s| s.update_bag_slopes(1),
        );
        for (m, refresh, ia, is) in [
            (0u8, &nu0 as &'static dyn Fn(&mut State), A, B),
            (1, &nu1, C, D),
        ] {
            let k = lay.inst_intercept(m);
            check(
                &mut st,
                "q(a or c)",
                directions(k..k + 1, ia, refresh),
                &|s| s.update_inst_intercept(m),
            );
            check(
                &mut st,
                "q(b or d)",
                directions(lay.inst_slopes(m), is, refresh),
                &|s| s.update_inst_slopes(m),
            );
        }
        for i in [0usize, 7, 23] {
            st.update_ystar(i);
            let g = fd(&st, &|s, d| s.set_ystar(i, s.mu_star[i] + d));
            assert!(g.abs() < tol, "q(y*_{i}): {g:e}");
            st.update_bag(i);
            // The last instance of the bag was updated last: its factor is
            // optimal given all others.
            let j = bags.bags[i].end - 1;
            let gm = fd(&st, &|s, d| s.set_u(j, s.mu_u[j] + d, s.delta[j]));
            let gd = fd(&st, &|s, d| s.set_u(j, s.mu_u[j], s.delta[j] + d));
            assert!(gm.abs() < tol && gd.abs() < tol, "q(U_{j}): {gm:e}, {gd:e}");
        }
    }

    /// Parallel work is cut by bag count, not by threads: one thread and
    /// four give the same fit to the last bit (600 bags: three runs of
    /// bags and the moves' parallel passes all in play).
    #[test]
    fn the_fit_does_not_depend_on_the_number_of_threads() {
        let design = MilDesign {
            bags: 600,
            instances: 5,
            ratio: 2.0,
            features: 3,
            ..MilDesign::default()
        };
        let bags = simulate_bags(&design, 5).unwrap();
        // From the prior means the run lasts past the plain warm-up, so
        // that the expansion moves are in play; the moment start adds its
        // regression, the marginal mode its L-BFGS climb.
        for start in [VbStart::Prior, VbStart::Moments, VbStart::Marginal] {
            let opts = VbOptions {
                max_iter: 70,
                start,
                ..VbOptions::default()
            };
            let run = |threads: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| fit_vb(&bags, &opts).unwrap())
            };
            let (a, b) = (run(1), run(4));
            if start == VbStart::Prior {
                assert!(a.iterations > EXPANSION_WARMUP);
            }
            assert_eq!(a.mean, b.mean);
            assert_eq!(a.primary, b.primary);
            assert_eq!(a.elbo, b.elbo);
        }
    }

    /// A warm start at a converged fit's means returns to that optimum
    /// at once; a start of the wrong length or with a NaN is refused.
    #[test]
    fn a_warm_start_at_an_optimum_stays_there() {
        let bags = small();
        let opts = VbOptions {
            tol: 1e-10,
            max_iter: 20_000,
            ..VbOptions::default()
        };
        let cold = fit_vb(&bags, &opts).unwrap();
        assert!(cold.converged);
        let warm = fit_vb(
            &bags,
            &VbOptions {
                init: Some(cold.mean.clone()),
                ..opts.clone()
            },
        )
        .unwrap();
        assert!(warm.converged);
        assert!(
            warm.iterations < cold.iterations,
            "{} vs {}",
            warm.iterations,
            cold.iterations
        );
        let (a, b) = (cold.elbo.last().unwrap(), warm.elbo.last().unwrap());
        assert!((a - b).abs() < 1e-6 * a.abs(), "ELBO {a} vs {b}");
        for (p, q) in cold.bag_p.iter().zip(&warm.bag_p) {
            assert!((p - q).abs() < 1e-4, "{p} vs {q}");
        }
        let short = VbOptions {
            init: Some(vec![0.0; 3]),
            ..opts.clone()
        };
        assert!(
            fit_vb(&bags, &short)
                .unwrap_err()
                .to_string()
                .contains("init")
        );
        let mut nan = cold.mean.clone();
        nan[0] = f64::NAN;
        let bad = VbOptions {
            init: Some(nan),
            ..opts
        };
        assert!(
            fit_vb(&bags, &bad)
                .unwrap_err()
                .to_string()
                .contains("init")
        );
    }

    /// On 20 simulated problems (Hu 2024 §2.3's design, small): plain
    /// CAVI sweeps never lower the ELBO, nor do the accelerated runs
    /// (SQUAREM under the ELBO plus the parameter-expansion moves, which
    /// start after the warm-up).
    #[test]
    fn the_elbo_never_decreases_on_20_simulated_problems() {
        for seed in 0..20u64 {
            let design = MilDesign {
                bags: 30 + 2 * seed as usize,
                instances: 3 + (seed as usize % 4),
                ratio: 1.0 + (seed % 4) as f64,
                features: 2 + (seed as usize % 3),
                ..MilDesign::default()
            };
            let bags = simulate_bags(&design, 100 + seed).unwrap();
            let opts = VbOptions {
                max_iter: 120,
                tol: 1e-12,
                ..VbOptions::default()
            };
            let plain = fit_vb_with(&bags, &opts, false).unwrap();
            assert!(plain.elbo.len() > 50, "seed {seed}");
            let acc = fit_vb(&bags, &opts).unwrap();
            for (what, fit) in [("plain", &plain), ("accelerated", &acc)] {
                for w in fit.elbo.windows(2) {
                    assert!(
                        w[1] >= w[0] - 1e-9 * w[0].abs(),
                        "seed {seed}, {what}: {} -> {}",
                        w[0],
                        w[1]
                    );
                }
            }
        }
    }
}
