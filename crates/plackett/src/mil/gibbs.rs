//! The exact-posterior gold standard for vMMIC: a Gibbs sampler for the
//! same two-level probit model and priors (Albert & Chib 1993 augmentation
//! at both levels; MICProB, Xiong et al. 2024, in the unimodal case).
//!
//! One sweep:
//!
//! 1. every `δ_ij` from `p(δ_ij | δ_i,−j, θ, y_i)` with `y*_i` and `U_ij`
//!    integrated out: `P(δ_ij = 1) ∝ Φ(ν_ij) Φ(±(μ_−j + η_ij))` against
//!    `Φ(−ν_ij) Φ(±μ_−j)`, where `μ_−j = α + Σ_{j'≠j} δ_ij' η_ij'` and the
//!    sign is that of the label (a partially collapsed step, van Dyk & Park
//!    2008: the variables integrated out are drawn right after);
//! 2. `y*_i` and every `U_ij` from their truncated normals;
//! 3. `(α, β, γ)` jointly from the Gaussian regression of `y*` on
//!    `(1, Σ_j δ_ij x_ij, Σ_j δ_ij z_ij)`, and `(a, b)`, `(c, d)` jointly
//!    from the regressions of `U` on `(1, x)` and `(1, z)`, each after a
//!    scale move (Liu & Wu 1999);
//! 4. `(a, b)` and `(c, d)` again with the residuals `U − ν` held fixed,
//!    so that `δ` moves with them (ancillarity–sufficiency interweaving,
//!    Yu & Meng 2011), by an elliptical slice move (Murray, Adams & MacKay
//!    2010).
//!
//! Optionally every chain runs as several rungs with the bag labels
//! tempered, swapping states between neighbours ([`Tempering`]; Geyer 1991,
//! Syed et al. 2022): the primary-instance configurations that single
//! chains do not cross are crossed at the hot rungs.
//!
//! Blocking the coefficients jointly (MICProB draws them jointly too) and
//! collapsing δ's step over `U` and `y*` are what keep the chain mixing
//! when bags are well separated; step 4 is what lets a weakly identified
//! instance level (a minority modality whose primary instances barely move
//! the bags) cross its posterior: on the small design of docs/mil.md the
//! chains' max R̂ fell from 1.31 to 1.03 with it. Chains run in parallel from their own
//! counter-based streams: the output depends on the seed alone.

use super::bags::Bags;
use super::params::{Layout, MilPriors};
use crate::error::{Error, Result};
use crate::infer::mcmc::McmcSettings;
use crate::infer::rng::{Rng, stream};
use crate::numerics::linalg::Cholesky;
use crate::numerics::probit::{ln_norm_cdf, ln_norm_cdf_both, truncated_draw};
use crate::numerics::sigmoid;
use crate::numerics::slice::ellipse_slice;
use crate::observer::{self, SharedObserver};
use crate::posterior::diagnostics::{ScalarDiagnostics, diagnose};
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

/// Sd of each chain's jitter around a given start ([`MilGibbsOptions::init`]):
/// the chains begin apart, so that R̂ can see whether they meet, but in the
/// start's primary-instance configuration.
const INIT_JITTER: f64 = 0.1;

/// Settings of [`fit_gibbs`].
#[derive(Clone)]
pub struct MilGibbsOptions {
    /// Priors (the same as VB's).
    pub priors: MilPriors,
    /// Draws, burn-in, thinning, chains, seed.
    pub mcmc: McmcSettings,
    /// Told of finished sweeps; may cancel.
    pub observer: Option<SharedObserver>,
    /// Where the chains start (θ in [`Layout`] order; each chain adds its
    /// own jitter); `None`: as `start` says.
    pub init: Option<Vec<f64>>,
    /// Where the chains start when `init` is not given.
    pub start: GibbsStart,
    /// Parallel tempering of the bag labels (one rung: none).
    pub tempering: Tempering,
}

/// Parallel tempering of the bag-level likelihood (Geyer 1991), with the
/// deterministic even–odd swap schedule of non-reversible parallel
/// tempering (Syed, Bouchard-Côté, Deligiannidis & Doucet 2022).
///
/// Rung `k` of `K` samples `p(θ) Π p(δ_ij | θ) Π_i Φ(±√τ_k μ_i)` with
/// `τ_k = hottest^{k/(K−1)}`, i.e. the outer probit's noise inflated to
/// variance `1/τ_k`: every rung is the same Albert–Chib sampler with the
/// bag design scaled by `√τ_k`, and rung 0 (`τ = 1`) is the posterior.
/// Only the bag labels are tempered, not the primary indicators' own
/// probit, so the hottest rung samples (nearly) the prior and moves
/// between primary-instance configurations freely. Adjacent rungs swap
/// their `(θ, δ)` after every sweep with the Metropolis probability of
/// the exchange; `y*` and `U` are redrawn by the next sweep before
/// anything conditions on them, so the swap acts on the chain's marginal
/// in `(θ, δ)` and leaves every rung's target unchanged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tempering {
    /// Rungs per chain (1: no tempering). Each costs a sweep.
    pub rungs: usize,
    /// `τ` of the hottest rung, in (0, 1).
    pub hottest: f64,
    /// Re-space the interior rungs during the burn-in so that every
    /// adjacent pair rejects swaps equally often ([`equalise_ladder`];
    /// Syed et al. 2022, §5.3); `false`: keep the geometric ladder.
    pub adapt: bool,
    /// Choose the number of rungs during the burn-in: `rungs` is the pilot
    /// ladder, and at every adaptation of the (then adaptive) ladder the
    /// chains move to `⌈2Λ̂⌉` rungs (at least 3, at most 64) for the
    /// barrier `Λ̂` just measured ([`auto_rungs`]; Syed et al. 2022, §5.3).
    pub auto: bool,
}

impl Default for Tempering {
    fn default() -> Self {
        // 0.03: on Hu 2024's basic setting the lowest τ at which 10 rungs
        // still swap in a fifth of their proposals (docs/mil.md).
        Tempering {
            rungs: 1,
            hottest: 0.03,
            adapt: false,
            auto: false,
        }
    }
}

impl Tempering {
    /// The automatic rung count with its pilot ladder of
    /// [`Tempering::AUTO_PILOT`] rungs (adaptive), down to `hottest`.
    pub fn auto(hottest: f64) -> Tempering {
        Tempering {
            rungs: Tempering::AUTO_PILOT,
            hottest,
            adapt: true,
            auto: true,
        }
    }

    /// Rungs of the pilot ladder of an automatic rung count: enough to
    /// measure a barrier of up to about 7 (a pair's rejection rate is at
    /// most 1, so a ladder of K rungs cannot measure more than K − 1);
    /// larger barriers are found by the next rounds on the larger ladder.
    pub const AUTO_PILOT: usize = 8;

    /// Checked: at least one rung (three for an automatic count), `hottest`
    /// in (0, 1).
    pub fn check(self) -> Result<Tempering> {
        if self.rungs == 0 || self.rungs > 64 {
            return Err(Error::param(
                "temperatures",
                format!("expected 1 to 64 rungs, got {}", self.rungs),
            ));
        }
        if self.auto && self.rungs < 3 {
            return Err(Error::param(
                "temperatures",
                format!(
                    "an automatic rung count starts from a pilot ladder of at least 3 rungs, got {}",
                    self.rungs
                ),
            ));
        }
        if !(self.hottest > 0.0 && self.hottest < 1.0) {
            return Err(Error::param(
                "hottest",
                format!("expected a value in (0, 1), got {}", self.hottest),
            ));
        }
        Ok(self)
    }

    /// The ladder's kind by name, as the front ends spell it: `geometric`
    /// (fixed) or `adaptive` (re-spaced during the burn-in).
    pub fn ladder(self, name: &str) -> Result<Tempering> {
        Ok(Tempering {
            adapt: ladder_adapts(name)?,
            ..self
        })
    }

    /// `τ_k` for every rung of the geometric ladder, coldest (1) first.
    pub fn temperatures(&self) -> Vec<f64> {
        if self.rungs == 1 {
            return vec![1.0];
        }
        (0..self.rungs)
            .map(|k| self.hottest.powf(k as f64 / (self.rungs - 1) as f64))
            .collect()
    }
}

/// Whether the ladder named `name` (`geometric` or `adaptive`) adapts.
fn ladder_adapts(name: &str) -> Result<bool> {
    match name {
        "geometric" => Ok(false),
        "adaptive" => Ok(true),
        _ => Err(Error::param(
            "ladder",
            format!("expected geometric or adaptive, got {name:?}"),
        )),
    }
}

/// The number of tempering rungs as the front ends take it: a count, or
/// `auto` (chosen during the burn-in from the measured barrier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RungCount {
    /// This many rungs per chain (1: no tempering).
    Fixed(usize),
    /// [`Tempering::auto`].
    Auto,
}

impl std::str::FromStr for RungCount {
    type Err = Error;
    fn from_str(s: &str) -> Result<RungCount> {
        match s.trim() {
            "auto" => Ok(RungCount::Auto),
            t => t.parse::<usize>().map(RungCount::Fixed).map_err(|_| {
                Error::param(
                    "temperatures",
                    format!(
                        "expected a number of rungs or auto, got {:?}",
                        crate::io::output::short_name(t, 40)
                    ),
                )
            }),
        }
    }
}

impl Tempering {
    /// The tempering the front ends' `temperatures`, `hottest` and `ladder`
    /// describe; `auto` implies the adaptive ladder. Only the ladder's name
    /// is checked here; [`Tempering::check`] (run by [`fit_gibbs`]) checks
    /// the rest.
    pub fn from_options(rungs: RungCount, hottest: f64, ladder: &str) -> Result<Tempering> {
        Ok(match rungs {
            RungCount::Fixed(k) => Tempering {
                rungs: k,
                hottest,
                adapt: false,
                auto: false,
            }
            .ladder(ladder)?,
            RungCount::Auto => {
                // Checked, then overruled: an automatic count adapts.
                ladder_adapts(ladder)?;
                Tempering::auto(hottest)
            }
        })
    }
}

/// Where the Gibbs chains start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GibbsStart {
    /// Around the mode of the bag labels' approximate marginal posterior
    /// ([`super::marginal`]), each chain jittered by `N(0, 0.1²)`: the
    /// chains do not cross between primary-instance configurations in
    /// runs of practical length (docs/mil.md), so where they start decides
    /// which one they describe, and this one classifies held-out bags and
    /// ranks instances better (Hu 2024 §2.3's basic setting, 20 data sets:
    /// bag AUROC 0.910 against 0.904 from dispersed starts, primary-instance
    /// AUROC 0.921 against 0.827). Dispersed starts if the mode cannot be
    /// found.
    #[default]
    Marginal,
    /// Every coordinate drawn from `N(0, 0.5²)`, independently per chain.
    Dispersed,
}

impl GibbsStart {
    /// `marginal` or `dispersed` (the command line's `--gibbs-start`).
    pub fn parse(name: &str) -> Result<GibbsStart> {
        match name {
            "marginal" => Ok(GibbsStart::Marginal),
            "dispersed" => Ok(GibbsStart::Dispersed),
            other => Err(Error::param(
                "gibbs_start",
                format!(
                    "expected \"marginal\" or \"dispersed\", got {:?}",
                    crate::io::output::short_name(other, 40)
                ),
            )),
        }
    }
}

impl std::fmt::Debug for MilGibbsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MilGibbsOptions")
            .field("priors", &self.priors)
            .field("mcmc", &self.mcmc)
            .finish()
    }
}

impl Default for MilGibbsOptions {
    fn default() -> Self {
        MilGibbsOptions {
            priors: MilPriors::default(),
            mcmc: McmcSettings::new(2000, 2000, 4, 1),
            observer: None,
            init: None,
            start: GibbsStart::default(),
            tempering: Tempering::default(),
        }
    }
}

/// Result of [`fit_gibbs`].
#[derive(Debug, Clone)]
pub struct MilGibbsFit {
    /// Block positions in θ.
    pub layout: Layout,
    /// Per chain: kept draws of θ, row-major `samples × layout.len()`.
    pub draws: Vec<Vec<f64>>,
    /// Per training instance: `P(δ_ij = 1 | y)` (Rao–Blackwellised: the
    /// average of the conditional probabilities of step 1).
    pub primary: Vec<f64>,
    /// Diagnostics of every coordinate of θ.
    pub diagnostics: Vec<ScalarDiagnostics>,
    /// Where the chains started: `init`, `marginal` or `dispersed`.
    pub started_from: &'static str,
    /// With tempering: per adjacent pair of rungs (coldest pair first),
    /// the share of proposed swaps accepted, pooled over chains, on the
    /// final ladder (after the last adaptation, if the ladder adapts).
    pub swap_acceptance: Vec<f64>,
    /// Every rung's `τ` on the final ladder, coldest (1) first.
    pub temperatures: Vec<f64>,
    /// With tempering: the estimated global communication barrier
    /// `Λ = Σ_k r_k` over the final ladder's pairs (Syed et al. 2022); a
    /// ladder needs about `2Λ` rungs to carry states across it.
    pub barrier: Option<f64>,
}

impl MilGibbsFit {
    /// All kept draws of coordinate `k`, chain after chain.
    pub fn coordinate(&self, k: usize) -> Vec<f64> {
        let p = self.layout.len();
        self.draws
            .iter()
            .flat_map(|c| c.chunks(p).map(move |d| d[k]))
            .collect()
    }

    /// Posterior means of θ.
    pub fn mean(&self) -> Vec<f64> {
        (0..self.layout.len())
            .map(|k| crate::stats::mean(&self.coordinate(k)))
            .collect()
    }

    /// Posterior sds of θ.
    pub fn sd(&self) -> Vec<f64> {
        (0..self.layout.len())
            .map(|k| crate::stats::var(&self.coordinate(k)).sqrt())
            .collect()
    }

    /// All kept draws as rows of θ.
    pub fn rows(&self) -> Vec<Vec<f64>> {
        let p = self.layout.len();
        self.draws
            .iter()
            .flat_map(|c| c.chunks(p).map(|d| d.to_vec()))
            .collect()
    }
}

/// A Gaussian regression block: prior precision diagonal, draw of the
/// coefficients given the sufficient statistics.
fn draw_gaussian(rng: &mut Rng, precision: &DMatrix<f64>, rhs: &DVector<f64>) -> Result<Vec<f64>> {
    let ch = Cholesky::new(precision).ok_or_else(|| {
        Error::Numerical("a regression precision is not positive definite".into())
    })?;
    let mean = ch.solve(rhs);
    // θ = mean + L⁻ᵀ z has covariance (L Lᵀ)⁻¹: solve Lᵀ v = z through the
    // covariance's own factor (small blocks, so the extra factorisation is
    // cheap and keeps to the one factorisation path).
    let cov = ch.inverse();
    let cl = Cholesky::new(&cov)
        .ok_or_else(|| Error::Numerical("a posterior covariance is not positive definite".into()))?
        .l();
    let d = mean.len();
    let z: Vec<f64> = (0..d).map(|_| StandardNormal.sample(rng)).collect();
    Ok((0..d)
        .map(|r| mean[r] + (0..=r).map(|c| cl[(r, c)] * z[c]).sum::<f64>())
        .collect())
}

/// `s = √g`, `g ~ Gamma(count/2, q/2)`: the scale of a parameter-expansion
/// move over `count` coordinates with quadratic form `q`.
fn scale_draw(rng: &mut Rng, count: f64, q: f64) -> f64 {
    if !(q.is_finite() && q > 0.0) {
        return 1.0;
    }
    crate::numerics::gamma::gamma_draw(rng, count / 2.0, q / 2.0).sqrt()
}

#[derive(Clone)]
struct Chain<'a> {
    bags: &'a Bags,
    y: &'a [bool],
    lay: Layout,
    pri: MilPriors,
    theta: Vec<f64>,
    delta: Vec<bool>,
    u: Vec<f64>,
    ystar: Vec<f64>,
    eta: Vec<f64>,
    nu: Vec<f64>,
    /// `√τ` of this rung: the bag design's scale (1: the posterior).
    scale: f64,
    /// Σ over kept sweeps of P(δ_ij = 1 | rest).
    prob_sum: Vec<f64>,
    /// Cholesky-ready precisions of (a, b) and (c, d): constant, shared
    /// by every chain and rung.
    inst_precision: &'a [DMatrix<f64>; 2],
    /// Instances per modality: constant.
    counts: [usize; 2],
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The precisions of the inner regressions `U ~ (1, x)(a, b)` and
/// `(1, z)(c, d)`: prior plus the instances' Gram matrix. They do not
/// depend on the state, so one pair serves every chain and rung.
fn instance_precisions(bags: &Bags, pri: MilPriors) -> [DMatrix<f64>; 2] {
    let n = bags.n_instances();
    let mut inst_precision = [DMatrix::zeros(0, 0), DMatrix::zeros(0, 0)];
    for m in 0..2u8 {
        let d = bags.width(m);
        let mut p = pri.precision(d);
        for j in 0..n {
            if bags.modality[j] == m {
                let x = bags.features(j);
                p[(0, 0)] += 1.0;
                for c in 0..d {
                    p[(c + 1, 0)] += x[c];
                    p[(0, c + 1)] += x[c];
                    for r in 0..d {
                        p[(r + 1, c + 1)] += x[r] * x[c];
                    }
                }
            }
        }
        inst_precision[m as usize] = p;
    }
    inst_precision
}

impl<'a> Chain<'a> {
    fn new(
        bags: &'a Bags,
        y: &'a [bool],
        pri: MilPriors,
        inst_precision: &'a [DMatrix<f64>; 2],
        init: Option<&[f64]>,
        rng: &mut Rng,
    ) -> Chain<'a> {
        let lay = Layout::of(bags);
        let n = bags.n_instances();
        let theta: Vec<f64> = (0..lay.len())
            .map(|k| {
                let z: f64 = StandardNormal.sample(rng);
                match init {
                    Some(x) => x[k] + INIT_JITTER * z,
                    None => 0.5 * z,
                }
            })
            .collect();
        let mut c = Chain {
            bags,
            y,
            lay,
            pri,
            theta,
            delta: vec![false; n],
            u: vec![0.0; n],
            ystar: vec![0.0; bags.n_bags()],
            eta: vec![0.0; n],
            nu: vec![0.0; n],
            scale: 1.0,
            prob_sum: vec![0.0; n],
            inst_precision,
            counts: bags.counts(),
        };
        c.refresh();
        for j in 0..n {
            c.delta[j] = rng.random::<f64>() < crate::numerics::probit::norm_cdf(c.nu[j]);
        }
        c
    }

    fn refresh(&mut self) {
        for j in 0..self.bags.n_instances() {
            let m = self.bags.modality[j];
            let x = self.bags.features(j);
            self.eta[j] = dot(x, &self.theta[self.lay.bag_slopes(m)]);
            self.nu[j] = self.theta[self.lay.inst_intercept(m)]
                + dot(x, &self.theta[self.lay.inst_slopes(m)]);
        }
    }

    /// `‖y* − Wθ‖² + θᵀP₀θ` for the bag-level block `g = (α, β, γ)`.
    fn scale_quadratic(&self, g: &[f64]) -> f64 {
        let d0 = self.lay.d0;
        let mut q = g[0] * g[0] / self.pri.intercept_var
            + g[1..].iter().map(|v| v * v).sum::<f64>() / self.pri.slope_var;
        for (i, b) in self.bags.bags.iter().enumerate() {
            let mut mu = g[0];
            for j in b.start..b.end {
                if self.delta[j] {
                    let off = if self.bags.modality[j] == 0 {
                        1
                    } else {
                        1 + d0
                    };
                    mu += dot(
                        self.bags.features(j),
                        &g[off..off + self.bags.width(self.bags.modality[j])],
                    );
                }
            }
            q += (self.ystar[i] - self.scale * mu).powi(2);
        }
        q
    }

    /// `‖U − (c + Xd)‖² + prior quadratic` for modality `m`'s inner block.
    fn inst_scale_quadratic(&self, m: u8) -> f64 {
        let (k, r) = (self.lay.inst_intercept(m), self.lay.inst_slopes(m));
        let mut q = self.theta[k].powi(2) / self.pri.intercept_var
            + self.theta[r].iter().map(|v| v * v).sum::<f64>() / self.pri.slope_var;
        for j in 0..self.bags.n_instances() {
            if self.bags.modality[j] == m {
                q += (self.u[j] - self.nu[j]).powi(2);
            }
        }
        q
    }

    fn sweep(&mut self, rng: &mut Rng, keep: bool) -> Result<()> {
        let alpha = self.theta[self.lay.alpha()];
        // 1–2: δ (collapsed), then y* and U.
        for (i, b) in self.bags.bags.iter().enumerate() {
            let sign = if self.y[i] { 1.0 } else { -1.0 };
            let mut mu = alpha
                + (b.start..b.end)
                    .filter(|&j| self.delta[j])
                    .map(|j| self.eta[j])
                    .sum::<f64>();
            // ln Φ(±s μ) at the current μ, once known: the previous
            // instance computed it as one of its two cases, and an instance
            // that is not primary has `rest = μ` (the same bits), so its
            // second case need not be recomputed.
            let mut at_mu: Option<f64> = None;
            for j in b.start..b.end {
                let rest = if self.delta[j] { mu - self.eta[j] } else { mu };
                let (ln_on, ln_off) = ln_norm_cdf_both(self.nu[j]);
                let lik_on = ln_norm_cdf(sign * self.scale * (rest + self.eta[j]));
                let lik_off = match at_mu {
                    Some(v) if !self.delta[j] => v,
                    _ => ln_norm_cdf(sign * self.scale * rest),
                };
                let (l1, l0) = (ln_on + lik_on, ln_off + lik_off);
                let p = sigmoid(l1 - l0);
                if keep {
                    self.prob_sum[j] += p;
                }
                let d = rng.random::<f64>() < p;
                self.delta[j] = d;
                mu = if d { rest + self.eta[j] } else { rest };
                at_mu = Some(if d { lik_on } else { lik_off });
            }
            self.ystar[i] = truncated_draw(rng, self.scale * mu, self.y[i]);
            for j in b.start..b.end {
                self.u[j] = truncated_draw(rng, self.nu[j], self.delta[j]);
            }
        }
        // 3a: (α, β, γ) | y*, δ.
        let (d0, d1) = (self.lay.d0, self.lay.d1);
        let k = 1 + d0 + d1;
        let mut p = self.pri.precision(d0 + d1);
        let mut rhs = DVector::zeros(k);
        let mut w = vec![0.0; k];
        let sc = self.scale;
        for (i, b) in self.bags.bags.iter().enumerate() {
            w.iter_mut().for_each(|v| *v = 0.0);
            w[0] = sc;
            for j in b.start..b.end {
                if self.delta[j] {
                    let off = if self.bags.modality[j] == 0 {
                        1
                    } else {
                        1 + d0
                    };
                    for (q, x) in self.bags.features(j).iter().enumerate() {
                        w[off + q] += sc * x;
                    }
                }
            }
            for c in 0..k {
                if w[c] == 0.0 {
                    continue;
                }
                rhs[c] += w[c] * self.ystar[i];
                for r in c..k {
                    p[(r, c)] += w[r] * w[c];
                }
            }
        }
        for c in 0..k {
            for r in c + 1..k {
                p[(c, r)] = p[(r, c)];
            }
        }
        // Scale move (Liu & Wu 1999 parameter-expanded data augmentation):
        // (y*, α, β, γ) → s (y*, α, β, γ) leaves the label signs and δ
        // alone; with the Haar measure ds/s its conditional is
        // s² ~ Gamma((n + k)/2, Q/2), Q = ‖y* − Wθ‖² + θᵀ P₀ θ. It moves the
        // joint scale that plain Albert–Chib steps crawl along when the
        // bags are well separated.
        let mut g = self.theta[..k].to_vec();
        let q = self.scale_quadratic(&g);
        let s = scale_draw(rng, (self.bags.n_bags() + k) as f64, q);
        self.ystar.iter_mut().for_each(|v| *v *= s);
        rhs.iter_mut().for_each(|v| *v *= s);
        g = draw_gaussian(rng, &p, &rhs)?;
        self.theta[self.lay.alpha()] = g[0];
        self.theta[self.lay.beta()].copy_from_slice(&g[1..1 + d0]);
        self.theta[self.lay.gamma()].copy_from_slice(&g[1 + d0..]);
        // 3b: (a, b) | U and (c, d) | U.
        for m in 0..2u8 {
            let d = self.bags.width(m);
            let mut rhs = DVector::zeros(d + 1);
            let mut any = false;
            for j in 0..self.bags.n_instances() {
                if self.bags.modality[j] == m {
                    any = true;
                    rhs[0] += self.u[j];
                    for (q, x) in self.bags.features(j).iter().enumerate() {
                        rhs[q + 1] += x * self.u[j];
                    }
                }
            }
            if !any {
                // No instances of this modality: the prior.
                let g = draw_gaussian(rng, &self.inst_precision[m as usize], &rhs)?;
                self.theta[self.lay.inst_intercept(m)] = g[0];
                self.theta[self.lay.inst_slopes(m)].copy_from_slice(&g[1..]);
                continue;
            }
            // The same scale move for (U of modality m, its intercept and
            // slopes): δ = 1(U > 0) is unchanged by it.
            let q = self.inst_scale_quadratic(m);
            let count = self.counts[m as usize];
            let s = scale_draw(rng, (count + d + 1) as f64, q);
            for j in 0..self.bags.n_instances() {
                if self.bags.modality[j] == m {
                    self.u[j] *= s;
                }
            }
            rhs.iter_mut().for_each(|v| *v *= s);
            let g = draw_gaussian(rng, &self.inst_precision[m as usize], &rhs)?;
            self.theta[self.lay.inst_intercept(m)] = g[0];
            self.theta[self.lay.inst_slopes(m)].copy_from_slice(&g[1..]);
        }
        self.refresh();
        // 4: the same blocks again in the ancillary parameterisation.
        for m in 0..2u8 {
            if self.counts[m as usize] > 0 {
                self.ancillary_instance_step(rng, m);
            }
        }
        Ok(())
    }

    /// Interweaving step (Yu & Meng 2011, ASIS) for modality `m`'s inner
    /// block `(a, b)` (or `(c, d)`): with the residuals `ε_ij = U_ij − ν_ij`
    /// held fixed, `U` and `δ = 1(U > 0)` move with the coefficients, and
    /// `(a, b) | ε, rest, y` (y* integrated out) has density ∝ prior ×
    /// `Π_i Φ(±μ_i)`, `μ_i = α + Σ_j δ_ij(a, b) η_ij`, drawn by one
    /// elliptical slice move (Murray, Adams & MacKay 2010; the prior is the
    /// Gaussian `N(0, diag(σ²_intercept, σ²_slope I))`).
    ///
    /// Why: step 3b draws `(a, b)` given `U`, which pins it to within
    /// `1/√(instances)` of its last value, while the labels may barely
    /// constrain it (a modality whose primary instances hardly move the
    /// bags, e.g. `γ ≈ 0`): there the chain crawls. Given `ε` instead, the
    /// block moves as far as the labels allow, which is far exactly when
    /// step 3b's move is short; alternating both parameterisations keeps
    /// whichever mixes better (ASIS). The state after the move is a draw
    /// of `(a, b, U, δ)` given `ε` and the rest, so the chain's target is
    /// unchanged (tested by simulation-based calibration); y* is redrawn
    /// by the next sweep before anything conditions on it.
    fn ancillary_instance_step(&mut self, rng: &mut Rng, m: u8) {
        let n = self.bags.n_instances();
        let (k0, ks) = (self.lay.inst_intercept(m), self.lay.inst_slopes(m));
        let eps: Vec<f64> = (0..n)
            .map(|j| {
                if self.bags.modality[j] == m {
                    self.u[j] - self.nu[j]
                } else {
                    0.0
                }
            })
            .collect();
        // The ellipse's other axis, a draw from the block's prior.
        let block: Vec<usize> = std::iter::once(k0).chain(ks).collect();
        let dir: Vec<f64> = block
            .iter()
            .map(|&k| {
                let z: f64 = StandardNormal.sample(rng);
                z * self.pri.var(&self.lay, k).sqrt()
            })
            .collect();
        // On the ellipse f cos t + dir sin t every linear predictor is
        // ν_j cos t + ν_j(dir) sin t: two dot products per instance, then
        // O(1) per instance for each point tried.
        let nu_dir: Vec<f64> = (0..n)
            .map(|j| {
                if self.bags.modality[j] == m {
                    dir[0] + dot(self.bags.features(j), &dir[1..])
                } else {
                    0.0
                }
            })
            .collect();
        // Per bag, μ_i's part that does not move (α and the other
        // modality), and modality m's instances packed bag by bag (in
        // instance order, so every μ_i adds the same terms in the same
        // order): the ellipse's points are tried without skipping the other
        // modality's.
        let (bags, y, sc) = (self.bags, self.y, self.scale);
        let alpha = self.theta[self.lay.alpha()];
        let mut fixed = Vec::with_capacity(bags.n_bags());
        let mut ends = Vec::with_capacity(bags.n_bags());
        let mut packed: Vec<[f64; 4]> = Vec::with_capacity(n);
        for b in &bags.bags {
            // Added from −0.0 in instance order, as `Iterator::sum` adds.
            let mut other = -0.0;
            for j in b.start..b.end {
                if bags.modality[j] == m {
                    packed.push([self.nu[j], nu_dir[j], eps[j], self.eta[j]]);
                } else if self.delta[j] {
                    other += self.eta[j];
                }
            }
            fixed.push(alpha + other);
            ends.push(packed.len());
        }
        let (c, s) = ellipse_slice(rng, |c, s| {
            let mut l = 0.0;
            let mut from = 0;
            for (i, &to) in ends.iter().enumerate() {
                let mut mu = fixed[i];
                for &[nu, nu_dir, eps, eta] in &packed[from..to] {
                    if nu * c + nu_dir * s + eps > 0.0 {
                        mu += eta;
                    }
                }
                from = to;
                l += ln_norm_cdf(if y[i] { sc * mu } else { -sc * mu });
            }
            l
        });
        for (&k, v) in block.iter().zip(&dir) {
            self.theta[k] = self.theta[k] * c + v * s;
        }
        for j in 0..n {
            if self.bags.modality[j] == m {
                self.nu[j] = self.nu[j] * c + nu_dir[j] * s;
                self.u[j] = self.nu[j] + eps[j];
                self.delta[j] = self.u[j] > 0.0;
            }
        }
    }
}

/// `Σ_i ln Φ(±s μ_i)`: the bag labels' log-likelihood at scale `s` given
/// the bags' `μ` (y* integrated out).
fn labels_loglik(y: &[bool], mu: &[f64], s: f64) -> f64 {
    y.iter()
        .zip(mu)
        .map(|(&yi, &m)| ln_norm_cdf(if yi { s * m } else { -s * m }))
        .sum()
}

impl Chain<'_> {
    /// Every bag's `μ_i = α + Σ_j δ_ij η_ij` in the current `(θ, δ)`.
    fn bag_means(&self) -> Vec<f64> {
        let alpha = self.theta[self.lay.alpha()];
        self.bags
            .bags
            .iter()
            .map(|b| {
                alpha
                    + (b.start..b.end)
                        .filter(|&j| self.delta[j])
                        .map(|j| self.eta[j])
                        .sum::<f64>()
            })
            .collect()
    }

    /// Exchange the states of two rungs (not their scales or sums).
    fn exchange(&mut self, other: &mut Chain<'_>) {
        std::mem::swap(&mut self.theta, &mut other.theta);
        std::mem::swap(&mut self.delta, &mut other.delta);
        std::mem::swap(&mut self.u, &mut other.u);
        std::mem::swap(&mut self.ystar, &mut other.ystar);
        std::mem::swap(&mut self.eta, &mut other.eta);
        std::mem::swap(&mut self.nu, &mut other.nu);
    }
}

/// Swap statistics of one adjacent pair of rungs since the ladder last
/// changed.
#[derive(Debug, Clone, Copy, Default)]
struct PairStats {
    accepted: usize,
    proposed: usize,
    /// Σ over proposals of the rejection probability `1 − min(1, e^r)`:
    /// Syed et al. 2022's estimator of the pair's barrier, with less
    /// variance than counting rejections.
    rejection: f64,
}

impl PairStats {
    fn add(&mut self, o: PairStats) {
        self.accepted += o.accepted;
        self.proposed += o.proposed;
        self.rejection += o.rejection;
    }

    /// Share of proposed swaps accepted (NaN before any proposal).
    fn acceptance(&self) -> f64 {
        self.accepted as f64 / self.proposed as f64
    }

    /// Mean rejection probability per proposal (NaN before any proposal).
    fn rejection_rate(&self) -> f64 {
        self.rejection / self.proposed as f64
    }
}

/// One chain of the sampler: its rungs (one without tempering), kept draws
/// from the coldest, and per adjacent pair the swap statistics since the
/// ladder last changed.
struct TemperedChain<'a> {
    rungs: Vec<Chain<'a>>,
    rngs: Vec<Rng>,
    swap_rng: Rng,
    draws: Vec<f64>,
    pairs: Vec<PairStats>,
}

impl<'a> TemperedChain<'a> {
    fn new(
        bags: &'a Bags,
        y: &'a [bool],
        opts: &MilGibbsOptions,
        inst_precision: &'a [DMatrix<f64>; 2],
        init: Option<&[f64]>,
        mcmc: &McmcSettings,
        c: usize,
    ) -> TemperedChain<'a> {
        let mut rngs: Vec<Rng> = (0..opts.tempering.rungs)
            .map(|k| {
                if k == 0 {
                    stream(mcmc.seed, &[0x4d49_4c47, c as u64])
                } else {
                    stream(mcmc.seed, &[0x4d49_4c47, c as u64, k as u64])
                }
            })
            .collect();
        let rungs = rngs
            .iter_mut()
            .map(|rng| Chain::new(bags, y, opts.priors, inst_precision, init, rng))
            .collect();
        let mut chain = TemperedChain {
            rungs,
            rngs,
            swap_rng: stream(mcmc.seed, &[0x4d49_4c53, c as u64]),
            draws: Vec::with_capacity(mcmc.samples * Layout::of(bags).len()),
            pairs: Vec::new(),
        };
        chain.set_ladder(&opts.tempering.temperatures());
        chain
    }

    /// Run sweeps `from..to` of the whole run (burn-in included), each
    /// followed by the swaps of the even–odd schedule.
    fn advance(
        &mut self,
        y: &[bool],
        mcmc: &McmcSettings,
        observer: Option<&SharedObserver>,
        from: usize,
        to: usize,
    ) -> Result<()> {
        for s in from..to {
            let keep = mcmc.keeps(s);
            for (k, (ch, rng)) in self.rungs.iter_mut().zip(self.rngs.iter_mut()).enumerate() {
                ch.sweep(rng, keep && k == 0)?;
            }
            // Deterministic even–odd schedule: pairs (0,1), (2,3), … after
            // even sweeps, (1,2), (3,4), … after odd ones.
            let mut k = s % 2;
            while k + 1 < self.rungs.len() {
                let (lo, hi) = self.rungs.split_at_mut(k + 1);
                let (a, b) = (&mut lo[k], &mut hi[0]);
                let (mu_a, mu_b) = (a.bag_means(), b.bag_means());
                let log_ratio = labels_loglik(y, &mu_a, b.scale) + labels_loglik(y, &mu_b, a.scale)
                    - labels_loglik(y, &mu_a, a.scale)
                    - labels_loglik(y, &mu_b, b.scale);
                let pair = &mut self.pairs[k];
                pair.proposed += 1;
                pair.rejection += 1.0 - log_ratio.min(0.0).exp();
                if self.swap_rng.random::<f64>().ln() < log_ratio {
                    a.exchange(b);
                    pair.accepted += 1;
                }
                k += 2;
            }
            if keep {
                self.draws.extend_from_slice(&self.rungs[0].theta);
            }
            observer::advance(observer, 1)?;
        }
        Ok(())
    }

    /// Put the rungs at temperatures `tau` (their states stay; each rung
    /// scales its bag design by `√τ`) and restart the swap statistics.
    fn set_ladder(&mut self, tau: &[f64]) {
        for (ch, &t) in self.rungs.iter_mut().zip(tau) {
            ch.scale = t.sqrt();
        }
        self.pairs = vec![PairStats::default(); tau.len().saturating_sub(1)];
    }

    /// Move from ladder `old` to ladder `new` (of another length; an
    /// automatic rung count during the burn-in): rung 0 keeps its state
    /// and stream, every other new rung copies the state of the old rung
    /// nearest to it in `ln τ` and draws from a fresh stream keyed by the
    /// chain, the rung and the adaptation round.
    fn resize(&mut self, old: &[f64], new: &[f64], seed: u64, c: usize, round: usize) {
        let nearest = |t: f64| {
            (0..old.len())
                .min_by(|&a, &b| {
                    (old[a].ln() - t.ln())
                        .abs()
                        .total_cmp(&(old[b].ln() - t.ln()).abs())
                })
                .unwrap_or(0)
        };
        let mut rungs = vec![self.rungs[0].clone()];
        let mut rngs = vec![self.rngs[0].clone()];
        for (k, &t) in new.iter().enumerate().skip(1) {
            rungs.push(self.rungs[nearest(t)].clone());
            rngs.push(stream(
                seed,
                &[0x4d49_4c47, c as u64, k as u64, 0x5253_495a, round as u64],
            ));
        }
        self.rungs = rungs;
        self.rngs = rngs;
        self.set_ladder(new);
    }
}

/// Where the adaptive ladder is re-spaced: after sweeps `B/32, B/16, B/8,
/// B/4, B/2` of a burn-in of `B` (rounds of doubling length, Syed et al.
/// 2022 §5.3), leaving out rounds shorter than 16 sweeps; the second half
/// of the burn-in and every kept sweep run on the final ladder.
fn adaptation_points(burn_in: usize) -> Vec<usize> {
    let mut at: Vec<usize> = (1..=5)
        .rev()
        .map(|r| burn_in >> r)
        .filter(|&b| b >= 16)
        .collect();
    at.dedup();
    at
}

/// The ladder that spaces the rungs evenly in the communication barrier
/// (Syed, Bouchard-Côté, Deligiannidis & Doucet 2022, §5.3): with rejection
/// rates `r_k` between rungs `k` and `k + 1`, the cumulative barrier
/// `Λ(τ_k) = Σ_{j<k} r_j` is interpolated linearly in `ln τ` and inverted at
/// `Λ(hottest)·i/(K − 1)`. The ends (1 and the hottest τ) stay put. Every
/// rate is floored at 10⁻³ so that `Λ` is strictly increasing; a ladder
/// whose rates are all unknown is returned as it is.
pub fn equalise_ladder(tau: &[f64], rejection: &[f64]) -> Vec<f64> {
    respace_ladder(tau, rejection, tau.len())
}

/// [`equalise_ladder`] with `rungs` rungs instead of `tau.len()` (at least
/// 3): the barrier measured on `tau` spread evenly over a ladder of another
/// length. A ladder whose rates are unknown is returned as it is.
pub fn respace_ladder(tau: &[f64], rejection: &[f64], rungs: usize) -> Vec<f64> {
    let k = tau.len();
    if k < 2 || rungs < 3 || rejection.len() + 1 != k || rejection.iter().any(|r| !r.is_finite()) {
        return tau.to_vec();
    }
    let u: Vec<f64> = tau.iter().map(|t| t.ln()).collect();
    let mut lambda = vec![0.0; k];
    for j in 0..k - 1 {
        lambda[j + 1] = lambda[j] + rejection[j].max(1e-3);
    }
    let total = lambda[k - 1];
    let mut out = Vec::with_capacity(rungs);
    out.push(tau[0]);
    let mut seg = 0;
    for i in 1..rungs - 1 {
        let target = total * i as f64 / (rungs - 1) as f64;
        while seg + 1 < k - 1 && lambda[seg + 1] < target {
            seg += 1;
        }
        let w = (target - lambda[seg]) / (lambda[seg + 1] - lambda[seg]);
        out.push((u[seg] + w * (u[seg + 1] - u[seg])).exp());
    }
    out.push(tau[k - 1]);
    out
}

/// The number of rungs an automatic count moves to after measuring the
/// rejection rates `rejection` of a ladder: `⌈2Λ̂⌉` for the barrier
/// `Λ̂ = Σ r_k`, between 3 and 64 (Syed et al. 2022, §5.3: about 2Λ rungs
/// carry states across a barrier Λ); `None` while a rate is unknown.
pub fn auto_rungs(rejection: &[f64]) -> Option<usize> {
    if rejection.is_empty() || rejection.iter().any(|r| !r.is_finite()) {
        return None;
    }
    let barrier: f64 = rejection.iter().sum();
    Some(((2.0 * barrier).ceil() as usize).clamp(3, 64))
}

/// Every chain's swap statistics, pair by pair, summed in chain order.
fn pooled_pairs(chains: &[TemperedChain<'_>]) -> Vec<PairStats> {
    let mut out = vec![PairStats::default(); chains.first().map_or(0, |c| c.pairs.len())];
    for ch in chains {
        for (t, p) in out.iter_mut().zip(&ch.pairs) {
            t.add(*p);
        }
    }
    out
}

/// Sample the posterior of the two-level probit model.
pub fn fit_gibbs(bags: &Bags, opts: &MilGibbsOptions) -> Result<MilGibbsFit> {
    opts.priors.check()?;
    let mcmc = opts.mcmc.check()?;
    // Bags of one label have a proper posterior, which the sampler draws
    // (simulation-based calibration needs every data set); the front ends
    // refuse them for a classifier (`Bags::training_labels`).
    let y = bags.labels("data")?;
    let layout = Layout::of(bags);
    let (init, started_from) = match (&opts.init, opts.start) {
        (Some(x), _) => {
            layout.check_start(x)?;
            (Some(x.clone()), "init")
        }
        (None, GibbsStart::Marginal) => {
            match super::marginal::marginal_mode(bags, &y, opts.priors) {
                Some(x) => (Some(x), "marginal"),
                None => (None, "dispersed"),
            }
        }
        (None, GibbsStart::Dispersed) => (None, "dispersed"),
    };
    opts.tempering.check()?;
    let inst_precision = instance_precisions(bags, opts.priors);
    let mut chains: Vec<TemperedChain<'_>> = (0..mcmc.chains)
        .map(|c| TemperedChain::new(bags, &y, opts, &inst_precision, init.as_deref(), &mcmc, c))
        .collect();
    // The geometric ladder every chain starts on.
    let mut tau = opts.tempering.temperatures();
    let adapt = (opts.tempering.adapt || opts.tempering.auto) && tau.len() > 2;
    let mut ends = if adapt {
        adaptation_points(mcmc.burn_in)
    } else {
        Vec::new()
    };
    let n_adapt = ends.len();
    ends.push(mcmc.sweeps());
    let mut from = 0;
    for (round, &to) in ends.iter().enumerate() {
        // Chains run in lockstep rounds, each from its own streams, so the
        // output does not depend on the number of threads.
        chains
            .par_iter_mut()
            .map(|ch| ch.advance(&y, &mcmc, opts.observer.as_ref(), from, to))
            .collect::<Result<Vec<()>>>()?;
        from = to;
        if round < n_adapt {
            let rates: Vec<f64> = pooled_pairs(&chains)
                .iter()
                .map(PairStats::rejection_rate)
                .collect();
            // The same length (equalise_ladder), or ⌈2Λ̂⌉ rungs for an
            // automatic count.
            let k = opts
                .tempering
                .auto
                .then(|| auto_rungs(&rates))
                .flatten()
                .unwrap_or(tau.len());
            let new = respace_ladder(&tau, &rates, k);
            if new.len() == tau.len() {
                chains.iter_mut().for_each(|ch| ch.set_ladder(&new));
            } else {
                for (c, ch) in chains.iter_mut().enumerate() {
                    ch.resize(&tau, &new, mcmc.seed, c, round);
                }
            }
            tau = new;
        }
    }
    let pairs = pooled_pairs(&chains);
    let mut draws = Vec::new();
    let mut primary = vec![0.0; bags.n_instances()];
    for ch in chains {
        draws.push(ch.draws);
        for (a, b) in primary.iter_mut().zip(&ch.rungs[0].prob_sum) {
            *a += b;
        }
    }
    let kept = (mcmc.samples * mcmc.chains) as f64;
    primary.iter_mut().for_each(|v| *v /= kept);
    let mut fit = MilGibbsFit {
        layout,
        draws,
        primary,
        diagnostics: Vec::new(),
        started_from,
        swap_acceptance: pairs.iter().map(PairStats::acceptance).collect(),
        barrier: (tau.len() > 1).then(|| pairs.iter().map(PairStats::rejection_rate).sum()),
        temperatures: tau,
    };
    let p = layout.len();
    fit.diagnostics = (0..p)
        .map(|k| {
            let per: Vec<Vec<f64>> = fit
                .draws
                .iter()
                .map(|c| c.chunks(p).map(|d| d[k]).collect())
                .collect();
            diagnose(&per)
        })
        .collect();
    Ok(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The barrier of a synthetic path: local rejection density `λ(u)` on
    /// `u = −ln τ`, concentrated near the cold end, integrated between
    /// rungs (Syed et al. 2022: a pair's rejection rate is `∫ λ` between
    /// its two rungs when they are close).
    fn rates(tau: &[f64]) -> Vec<f64> {
        let big_lambda = |t: f64| {
            let u = -t.ln();
            // Λ(u) = 3 (1 − e^{−2u}): most of the barrier within u < 1.
            3.0 * (1.0 - (-2.0 * u).exp())
        };
        tau.windows(2)
            .map(|w| big_lambda(w[1]) - big_lambda(w[0]))
            .collect()
    }

    #[test]
    fn equalised_ladder_spaces_the_barrier_evenly() {
        let hottest: f64 = 0.01;
        let k = 8;
        let mut tau: Vec<f64> = (0..k)
            .map(|i| hottest.powf(i as f64 / (k - 1) as f64))
            .collect();
        let before = rates(&tau);
        let spread = |r: &[f64]| {
            r.iter().cloned().fold(f64::MIN, f64::max) / r.iter().cloned().fold(f64::MAX, f64::min)
        };
        assert!(spread(&before) > 10.0, "{before:?}");
        for _ in 0..6 {
            tau = equalise_ladder(&tau, &rates(&tau));
            assert_eq!(tau[0], 1.0);
            assert_eq!(tau[k - 1], hottest);
            assert!(tau.windows(2).all(|w| w[1] < w[0]), "{tau:?}");
        }
        let after = rates(&tau);
        assert!(spread(&after) < 1.05, "{after:?}");
        // The total barrier is the path's, whatever the ladder.
        let total: f64 = after.iter().sum();
        assert!((total - before.iter().sum::<f64>()).abs() < 1e-12);
    }

    /// A ladder re-spaced to another length spreads the same barrier evenly
    /// over its new pairs, and the automatic count asks ⌈2Λ⌉ rungs of it.
    #[test]
    fn respaced_ladders_of_other_lengths_share_the_barrier_evenly() {
        let hottest: f64 = 0.01;
        let tau: Vec<f64> = (0..5).map(|i| hottest.powf(i as f64 / 4.0)).collect();
        let total: f64 = rates(&tau).iter().sum();
        for k in [3, 9, 17] {
            let mut new = respace_ladder(&tau, &rates(&tau), k);
            // A few rounds on the new ladder, as the burn-in does.
            for _ in 0..6 {
                new = equalise_ladder(&new, &rates(&new));
            }
            assert_eq!(new.len(), k);
            assert_eq!((new[0], new[k - 1]), (1.0, hottest));
            assert!(new.windows(2).all(|w| w[1] < w[0]), "{new:?}");
            let r = rates(&new);
            let each = total / (k - 1) as f64;
            assert!(r.iter().all(|x| (x - each).abs() < 0.02 * each), "{r:?}");
        }
        // The synthetic path's barrier is 3 (1 − 0.01²) ≈ 3: six rungs.
        assert_eq!(auto_rungs(&rates(&tau)), Some(6));
        assert_eq!(auto_rungs(&[0.1, 0.1]), Some(3));
        assert_eq!(auto_rungs(&[1.0; 63]), Some(64));
        assert_eq!(auto_rungs(&[0.5, f64::NAN]), None);
        assert_eq!(auto_rungs(&[]), None);
    }

    #[test]
    fn a_ladder_with_equal_rates_or_unknown_rates_stays() {
        let tau = [1.0, 0.5, 0.2, 0.05];
        let same = equalise_ladder(&tau, &[0.3, 0.3, 0.3]);
        for (a, b) in same.iter().zip(tau) {
            assert!((a - b).abs() < 1e-12, "{same:?}");
        }
        assert_eq!(equalise_ladder(&tau, &[0.3, f64::NAN, 0.3]), tau);
        assert_eq!(equalise_ladder(&[1.0, 0.1], &[0.9]), [1.0, 0.1]);
        // Zero rates (rungs that always swap) still give a decreasing ladder.
        let z = equalise_ladder(&tau, &[0.0, 0.0, 0.6]);
        assert!(z.windows(2).all(|w| w[1] < w[0]), "{z:?}");
    }

    #[test]
    fn the_ladder_adapts_in_rounds_of_doubling_length() {
        assert_eq!(adaptation_points(2000), [62, 125, 250, 500, 1000]);
        assert_eq!(adaptation_points(300), [18, 37, 75, 150]);
        assert_eq!(adaptation_points(40), [20]);
        assert!(adaptation_points(20).is_empty());
    }
}
