//! VBSS: variational Bayesian semi-supervised keyword extraction (Hu 2024,
//! ch. 1, Algorithm 1), the mean-field CAVI of a positive–unlabelled probit
//! model with a graph-smoothed prior on word importance.
//!
//! Model (Hu 2024, eq. 1.1 and §1.3.1): a candidate's latent label
//! `y*_i = 1(z_i > 0)`, `z_i ~ N(a + b θ_i, 1)` (Albert & Chib 1993); a true
//! keyword goes unobserved with probability `α` (shared, the experiments'
//! setting) or `α_i` (per word), a non-keyword is never observed as one;
//! `θ | σ² ~ N(θ₀, σ² U)`, `a ~ N(0, σ_a²)`, `b ~ N(0, σ_b²)`,
//! `σ² ~ IG(τ, τ)`, `α ~ U(0, 1)`.
//!
//! All updates are the dissertation's with its errata fixed (signs in
//! `E[z_i]` and `E[ln α]`, `E[a]` in the `b` update; Hu 2024 App. A.1).
//! The `θ` step comes in three forms ([`ThetaUpdate`]): the published one,
//! which uses the marginal prior variance `U_ii` and is not an exact
//! coordinate step, and two exact ones (Gauss–Seidel over the `θ_i`, or a
//! full-covariance Gaussian `q(θ)`), under which the ELBO cannot decrease.

use super::prior::ThetaPrior;
use crate::error::{Error, Result};
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::numerics::log_add_exp;
use crate::numerics::probit::{ln_norm_cdf, mills, norm_cdf, probit_mean_sd};
use crate::numerics::special::{digamma, ln_gamma};

const LN_2PI: f64 = 1.837_877_066_409_345_3;

/// Which `θ` update the CAVI sweep uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThetaUpdate {
    /// Hu 2024 §1.3.3: `S_θi = (E[b²] + κ/U_ii)⁻¹` with the marginal prior
    /// variance. Reproduces the dissertation; not an exact coordinate step
    /// of the stated model, so the ELBO may fall.
    Published,
    /// Exact mean-field coordinate ascent over each `θ_i` in turn
    /// (Gauss–Seidel, with the neighbours' coupling through `P = U⁻¹`).
    Coordinate,
    /// `q(θ)` a full Gaussian `N(μ, Σ)`, `Σ = (E[b²] I + κ P)⁻¹`, exact and
    /// O(n²) per sweep through the prior's eigenvectors. The richest family:
    /// its ELBO is the highest of the three.
    #[default]
    Block,
}

/// Shared or per-word probability of a keyword going unobserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlphaModel {
    /// One `α ~ U(0, 1)` (Hu 2024 App. A.2; every experiment's setting).
    #[default]
    Shared,
    /// `α_i ~ U(0, 1)` per word (Hu 2024 App. A.1.5): barely identified,
    /// `E[ln α_i] = −1/(1 + π_i)` for an unobserved word.
    PerWord,
}

/// Which number is reported as a word's keyword probability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Probability {
    /// `Φ(E[a] + E[b] E[θ_i])`, the dissertation's `p̂_i` (plug-in).
    Plugin,
    /// `Φ(m_i / √(1 + Var_q(a + b θ_i)))`: `P(y*_i = 1)` averaged over `q`.
    Predictive,
    /// `q(y*_i = 1)`: 1 for a known keyword, `q(z_i > 0)` otherwise — the
    /// posterior probability of the latent label given the observed ones,
    /// the quantity Newton et al.'s (2004) Bayesian FDR is defined on. The
    /// default.
    #[default]
    Latent,
    /// The plug-in with every known keyword set to 1: the convention of
    /// the BSS and VBSS authors' code before FDR selection.
    Forced,
}

/// Settings of [`fit_vbss`], with the dissertation's defaults (Hu 2024,
/// §1.4: τ = 0.1, σ_a² = σ_b² = 10, ε = 1e-10, shared α) except the
/// iteration cap: 2,000 map evaluations instead of 500 sweeps (at
/// ε = 1e-10 plain sweeps need up to ~2,500 on SemEval-2010 papers, the
/// accelerated iteration a few hundred; 500 left 20 of 237 unconverged).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VbssOptions {
    /// Shape and scale of the IG(τ, τ) prior on `σ²`.
    pub tau: f64,
    /// Prior variance of the intercept `a`.
    pub sigma_a2: f64,
    /// Prior variance of the slope `b`.
    pub sigma_b2: f64,
    /// Shared or per-word `α`.
    pub alpha: AlphaModel,
    /// Initial `E[α]` (the share of keywords left unobserved; "typically
    /// between 0.5 and 0.7").
    pub alpha_init: f64,
    /// The `θ` update.
    pub theta_update: ThetaUpdate,
    /// Stop when the mean absolute change of `p̂` falls below this.
    pub tol: f64,
    /// Most sweeps.
    pub max_iter: usize,
}

impl Default for VbssOptions {
    fn default() -> Self {
        VbssOptions {
            tau: 0.1,
            sigma_a2: 10.0,
            sigma_b2: 10.0,
            alpha: AlphaModel::Shared,
            alpha_init: 0.6,
            theta_update: ThetaUpdate::Block,
            tol: 1e-10,
            max_iter: 2000,
        }
    }
}

fn positive(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 && v <= 1e10 {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("must be a positive number at most 1e10, got {v}"),
        ))
    }
}

impl VbssOptions {
    /// The settings if valid.
    pub fn check(&self) -> Result<()> {
        positive("tau", self.tau)?;
        positive("sigma_a2", self.sigma_a2)?;
        positive("sigma_b2", self.sigma_b2)?;
        if !(self.alpha_init > 0.0 && self.alpha_init < 1.0) {
            return Err(Error::param(
                "alpha_init",
                format!("must lie strictly between 0 and 1, got {}", self.alpha_init),
            ));
        }
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(Error::param(
                "tol",
                format!("must be a positive number, got {}", self.tol),
            ));
        }
        if self.max_iter == 0 {
            return Err(Error::param("max_iter", "must be at least 1"));
        }
        Ok(())
    }
}

/// Result of [`fit_vbss`]: the variational posterior and its history.
#[derive(Debug, Clone, serde::Serialize)]
pub struct VbssFit {
    /// `E[θ_i]`.
    pub theta_mean: Vec<f64>,
    /// `sd_q(θ_i)`.
    pub theta_sd: Vec<f64>,
    /// `E[a]`, `sd(a)`.
    pub a: (f64, f64),
    /// `E[b]`, `sd(b)`.
    pub b: (f64, f64),
    /// `q(σ²) = IG(shape, scale)`.
    pub sigma2: (f64, f64),
    /// `q(α)` Beta parameters (one pair when shared, one per word else).
    pub alpha: Vec<(f64, f64)>,
    /// Plug-in `p̂_i = Φ(m_i)`.
    pub p_plugin: Vec<f64>,
    /// `P(y*_i = 1)` averaged over `q`.
    pub p_predictive: Vec<f64>,
    /// The sd of `Φ(a + bθ_i)` under `q` (with `a + bθ_i` moment-matched
    /// to a normal, as for `p_predictive`): how well the data pin the
    /// word's keyword probability.
    pub p_sd: Vec<f64>,
    /// `q(y*_i = 1)`.
    pub p_latent: Vec<f64>,
    /// The plug-in with known keywords set to 1.
    pub p_forced: Vec<f64>,
    /// ELBO after every sweep.
    pub elbo: Vec<f64>,
    /// Sweeps run.
    pub iterations: usize,
    /// Whether the mean absolute change of `p̂` fell below the tolerance.
    pub converged: bool,
}

impl VbssFit {
    /// The requested keyword probabilities.
    pub fn probabilities(&self, which: Probability) -> &[f64] {
        match which {
            Probability::Plugin => &self.p_plugin,
            Probability::Predictive => &self.p_predictive,
            Probability::Latent => &self.p_latent,
            Probability::Forced => &self.p_forced,
        }
    }

    /// The final ELBO.
    pub fn final_elbo(&self) -> f64 {
        self.elbo.last().copied().unwrap_or(f64::NAN)
    }

    /// Whether the slope `b` linking the graph score `θ` to the keyword
    /// probit is not clear of zero under `q` (`|E b| < 2 sd(b)`). Then the
    /// co-occurrence prior hardly separates the unlabelled words under VB,
    /// and mean-field VB is known to flatten them where the exact posterior
    /// does not: on documents drawn from the model's own prior, whose
    /// labels say little about `b`, `E[b]` collapses to about 0 (the
    /// `b`–`θ` coupling through `E[θᵀθ]`, which carries `q(θ)`'s variance
    /// along the prior's smoothest directions), every unlabelled word gets
    /// nearly the same probability, and VB's ranking of them has Spearman
    /// −0.1 to 0.6 with the exact posterior's (tests/keywords.rs). Where
    /// the known keywords define the prior, as in `keywords extract`, `b`
    /// sits about six sds from 0 and the two rankings agree (Spearman ≥
    /// 0.9). Hu 2024 §1.3 does not discuss it; docs/keywords.md.
    pub fn slope_unclear(&self) -> bool {
        // A NaN moment counts as unclear.
        matches!(
            self.b.0.abs().partial_cmp(&(2.0 * self.b.1)),
            Some(std::cmp::Ordering::Less) | None
        )
    }
}

/// `ln Φ(±m)` and the inverse Mills ratios `φ(m)/Φ(±m)` from one `erfc`
/// (the smaller tail `Φ(−|m|)`, the larger as its complement, exact to
/// rounding because it is at least 1/2) and one `exp` where both tails are
/// representable (|m| ≤ 30), else from the asymptotic forms of
/// `numerics::probit`: the `q(z)` step needs all four for every word in
/// every sweep.
struct Tails {
    ln_pos: f64,
    ln_neg: f64,
    mills_pos: f64,
    mills_neg: f64,
}

impl Tails {
    fn at(m: f64) -> Tails {
        if m.abs() <= 30.0 {
            let small = norm_cdf(-m.abs());
            let (pp, pn) = if m >= 0.0 {
                (1.0 - small, small)
            } else {
                (small, 1.0 - small)
            };
            let phi = crate::numerics::probit::norm_pdf(m);
            // ln Φ near 1 through ln(1 − Φ(−m)) without cancellation.
            let ln = |p: f64, q: f64| if p > 0.5 { (-q).ln_1p() } else { p.ln() };
            Tails {
                ln_pos: ln(pp, pn),
                ln_neg: ln(pn, pp),
                mills_pos: phi / pp,
                mills_neg: phi / pn,
            }
        } else {
            Tails {
                ln_pos: ln_norm_cdf(m),
                ln_neg: ln_norm_cdf(-m),
                mills_pos: mills(m),
                mills_neg: mills(-m),
            }
        }
    }
}

/// The moments of one `q(z_i)` that the ELBO reads: for a known keyword
/// `N(m, 1)` truncated to `z > 0`; otherwise the two-piece density
/// `[1(z ≤ 0) + w 1(z > 0)] φ(z − m) / C`, `ln w = E[ln α]`,
/// `C = Φ(−m) + wΦ(m)` (Hu 2024, §1.3.3, U1, with the sign of `E[ln α]`
/// fixed). The update evaluates it at the model's `m = E[a] + E[b]E[θ_i]`;
/// the finite-difference tests move `m` and `ln w` away from there.
#[derive(Debug, Clone, Copy)]
struct ZFactor {
    ez: f64,
    /// `E[z²]`.
    ez2: f64,
    /// Entropy of `q(z_i)`.
    hz: f64,
    /// `q(z_i > 0)` of an unlabelled word (0 for a known keyword, whose
    /// label is not a latent variable).
    pi: f64,
}

impl ZFactor {
    fn at(m: f64, ln_w: f64, known: bool) -> ZFactor {
        let t = Tails::at(m);
        if known {
            let ez = m + t.mills_pos;
            ZFactor {
                ez,
                ez2: 1.0 + m * ez,
                hz: 0.5 * (LN_2PI + 1.0) + t.ln_pos - 0.5 * m * t.mills_pos,
                pi: 0.0,
            }
        } else {
            let lo = ln_w + t.ln_pos - t.ln_neg;
            let pi = crate::numerics::sigmoid(lo);
            let ep = m + t.mills_pos;
            let en = m - t.mills_neg;
            let ez = (1.0 - pi) * en + pi * ep;
            let ez2 = (1.0 - pi) * (1.0 + m * en) + pi * (1.0 + m * ep);
            let ln_c = log_add_exp(t.ln_neg, ln_w + t.ln_pos);
            ZFactor {
                ez,
                ez2,
                hz: ln_c - pi * ln_w + 0.5 * LN_2PI + 0.5 * (ez2 - 2.0 * m * ez + m * m),
                pi,
            }
        }
    }
}

/// A full-covariance `q(θ)` sharing the prior's eigenvectors.
#[derive(Debug, Clone, Copy)]
struct BlockCov {
    /// `Σ = V diag(1/(c.0 + c.1 p_k)) Vᵀ` (`E[b²]` and `κ` at the update).
    c: (f64, f64),
    ln_det: f64,
    tr: f64,
    /// `tr Σ`: the block mode keeps no diagonal during the sweeps (only
    /// sums of `S_θi` enter the updates and the ELBO); [`State::finish`]
    /// computes it once.
    trace: f64,
}

/// The CAVI state.
struct State<'a> {
    prior: &'a ThetaPrior,
    y: &'a [bool],
    o: VbssOptions,
    n: usize,
    mu_a: f64,
    s_a: f64,
    mu_b: f64,
    s_b: f64,
    mu_t: Vec<f64>,
    /// Marginal variances of `q(θ_i)` (the diagonal of `Σ` in block mode).
    s_t: Vec<f64>,
    /// Block mode: `ln det Σ` and `tr(P Σ)`.
    block: Option<BlockCov>,
    a_sig: f64,
    b_sig: f64,
    kappa: f64,
    /// `q(α)` Beta parameters, one or `n`.
    alpha: Vec<(f64, f64)>,
    /// `E[ln α]` seen by each word's `q(z)` (initial value from
    /// `alpha_init` before the first `α` update).
    e_ln_alpha: Vec<f64>,
    ez: Vec<f64>,
    /// `E[z_i²]` and the entropy of `q(z_i)`, fixed at its last update.
    ez2: Vec<f64>,
    hz: Vec<f64>,
    pi: Vec<f64>,
    /// `P θ₀`.
    p_theta0: Vec<f64>,
    /// `Vᵀθ₀`.
    rot0: Vec<f64>,
    /// `Vᵀμ_θ` when known (block mode), saving a product per quadratic form.
    mu_rot: Option<Vec<f64>>,
    /// Dense `P`, for the Gauss–Seidel update only.
    p_dense: Option<nalgebra::DMatrix<f64>>,
}

impl<'a> State<'a> {
    fn new(prior: &'a ThetaPrior, y: &'a [bool], o: VbssOptions) -> State<'a> {
        let n = y.len();
        let e0 = o.alpha_init.ln();
        State {
            prior,
            y,
            o,
            n,
            mu_a: 0.0,
            s_a: 0.0,
            mu_b: 1.0,
            s_b: 0.0,
            mu_t: prior.theta0.clone(),
            s_t: vec![0.0; n],
            block: None,
            a_sig: o.tau + n as f64 / 2.0,
            b_sig: o.tau + n as f64 / 2.0,
            kappa: 1.0,
            alpha: match o.alpha {
                AlphaModel::Shared => vec![(1.0, 1.0)],
                AlphaModel::PerWord => vec![(1.0, 1.0); n],
            },
            e_ln_alpha: vec![e0; n],
            ez: vec![0.0; n],
            ez2: vec![0.0; n],
            hz: vec![0.0; n],
            pi: vec![0.0; n],
            p_theta0: prior.apply_precision(&prior.theta0),
            rot0: prior.rotate(&prior.theta0),
            mu_rot: None,
            p_dense: (o.theta_update == ThetaUpdate::Coordinate).then(|| prior.precision()),
        }
    }

    fn m(&self, i: usize) -> f64 {
        self.mu_a + self.mu_b * self.mu_t[i]
    }

    fn e_b2(&self) -> f64 {
        self.mu_b * self.mu_b + self.s_b
    }

    /// (U1) `q(z_i)`: truncated normal for a known keyword, the two-piece
    /// normal otherwise; `π_i = q(z_i > 0)` from its log-odds.
    fn update_z(&mut self) {
        for i in 0..self.n {
            self.set_z(i, ZFactor::at(self.m(i), self.e_ln_alpha[i], self.y[i]));
        }
    }

    /// Store word `i`'s `q(z_i)` moments.
    fn set_z(&mut self, i: usize, f: ZFactor) {
        self.ez[i] = f.ez;
        self.ez2[i] = f.ez2;
        self.hz[i] = f.hz;
        self.pi[i] = f.pi;
    }

    /// (U2) and its exact alternatives.
    fn update_theta(&mut self) {
        let eb2 = self.e_b2();
        let k = self.kappa;
        let pr = self.prior;
        match self.o.theta_update {
            ThetaUpdate::Published => {
                self.mu_rot = None;
                for i in 0..self.n {
                    let w = k / pr.u_diag[i];
                    let s = 1.0 / (eb2 + w);
                    self.s_t[i] = s;
                    self.mu_t[i] =
                        s * (self.mu_b * self.ez[i] - self.mu_a * self.mu_b + w * pr.theta0[i]);
                }
            }
            ThetaUpdate::Coordinate => {
                self.mu_rot = None;
                let p = self.p_dense.as_ref().expect("dense P in coordinate mode");
                for i in 0..self.n {
                    let s = 1.0 / (eb2 + k * p[(i, i)]);
                    let mut coupling = 0.0;
                    for j in 0..self.n {
                        if j != i {
                            coupling += p[(i, j)] * (self.mu_t[j] - pr.theta0[j]);
                        }
                    }
                    self.s_t[i] = s;
                    self.mu_t[i] = s
                        * (self.mu_b * (self.ez[i] - self.mu_a)
                            + k * (p[(i, i)] * pr.theta0[i] - coupling));
                }
            }
            ThetaUpdate::Block => {
                // Σ = V diag(1/(E[b²] + κ p_k)) Vᵀ, μ = Σ(μ_b(E[z] − μ_a) + κ P θ₀).
                let r: Vec<f64> = (0..self.n)
                    .map(|i| self.mu_b * (self.ez[i] - self.mu_a) + k * self.p_theta0[i])
                    .collect();
                let d = self.set_block(eb2, k);
                let mut c = pr.rotate(&r);
                for (ck, dk) in c.iter_mut().zip(&d) {
                    *ck *= dk;
                }
                self.mu_t = pr.unrotate(&c);
                self.mu_rot = Some(c);
            }
        }
    }

    /// `Σ = V diag(1/(c₁ + c₂ p_k)) Vᵀ`: its diagonal, `ln det Σ` and
    /// `tr(PΣ)`; returns the `1/(c₁ + c₂ p_k)`.
    fn set_block(&mut self, c1: f64, c2: f64) -> Vec<f64> {
        let pr = self.prior;
        let d: Vec<f64> = pr
            .precision_eigenvalues
            .iter()
            .map(|p| 1.0 / (c1 + c2 * p))
            .collect();
        let trace = d.iter().sum();
        let ln_det: f64 = d.iter().map(|x| x.ln()).sum();
        let tr: f64 = pr
            .precision_eigenvalues
            .iter()
            .zip(&d)
            .map(|(p, dk)| p * dk)
            .sum();
        self.block = Some(BlockCov {
            c: (c1, c2),
            ln_det,
            tr,
            trace,
        });
        d
    }

    /// (U3) `q(a)`.
    fn update_a(&mut self) {
        let n = self.n as f64;
        self.s_a = 1.0 / (n + 1.0 / self.o.sigma_a2);
        let sz: f64 = self.ez.iter().sum();
        let st: f64 = self.mu_t.iter().sum();
        self.mu_a = self.s_a * (sz - self.mu_b * st);
    }

    /// `Σ_i S_θi`.
    fn sum_s(&self) -> f64 {
        match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => b.trace,
            _ => self.s_t.iter().sum(),
        }
    }

    fn e_tt(&self) -> f64 {
        self.mu_t.iter().map(|m| m * m).sum::<f64>() + self.sum_s()
    }

    /// (U4) `q(b)` (the dissertation's `E_{q(b)}[a]` read as `E_{q(a)}[a]`).
    fn update_b(&mut self) {
        self.s_b = 1.0 / (self.e_tt() + 1.0 / self.o.sigma_b2);
        let tz: f64 = self.mu_t.iter().zip(&self.ez).map(|(t, z)| t * z).sum();
        let st: f64 = self.mu_t.iter().sum();
        self.mu_b = self.s_b * (tz - self.mu_a * st);
    }

    /// `g = E[(θ − θ₀)ᵀ U⁻¹ (θ − θ₀)] / 2`.
    fn g(&self) -> f64 {
        let tr = match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => b.tr,
            _ => self
                .prior
                .p_diag
                .iter()
                .zip(&self.s_t)
                .map(|(p, s)| p * s)
                .sum(),
        };
        let quad = match &self.mu_rot {
            Some(c) => c
                .iter()
                .zip(&self.rot0)
                .zip(&self.prior.precision_eigenvalues)
                .map(|((c, r), p)| p * (c - r) * (c - r))
                .sum(),
            None => self.prior.quad(&self.mu_t),
        };
        0.5 * tr + 0.5 * quad
    }

    /// (U5) `q(σ²) = IG(τ + n/2, τ + g)`.
    fn update_sigma(&mut self) {
        self.a_sig = self.o.tau + self.n as f64 / 2.0;
        self.b_sig = self.o.tau + self.g();
        self.kappa = self.a_sig / self.b_sig;
    }

    /// (U6′) shared or (U6) per-word `q(α)`, with the digamma sign fixed.
    fn update_alpha(&mut self) {
        match self.o.alpha {
            AlphaModel::Shared => {
                let a1 = 1.0
                    + (0..self.n)
                        .filter(|&i| !self.y[i])
                        .map(|i| self.pi[i])
                        .sum::<f64>();
                let b1 = 1.0 + self.y.iter().filter(|&&v| v).count() as f64;
                self.alpha[0] = (a1, b1);
                let e = digamma(a1) - digamma(a1 + b1);
                self.e_ln_alpha.iter_mut().for_each(|v| *v = e);
            }
            AlphaModel::PerWord => {
                for i in 0..self.n {
                    let (a1, b1) = if self.y[i] {
                        (1.0, 2.0)
                    } else {
                        (1.0 + self.pi[i], 1.0)
                    };
                    self.alpha[i] = (a1, b1);
                    self.e_ln_alpha[i] = digamma(a1) - digamma(a1 + b1);
                }
            }
        }
    }

    /// The variational parameters as one vector (what a sweep starting
    /// with `q(z)` reads): `μ_a, S_a, μ_b, S_b, B_σ`, the Beta parameters,
    /// `μ_θ`, then `(c₁, c₂)` of a block `q(θ)` or the `S_θi`. Positive
    /// entries are stored as logarithms so that SQUAREM's extrapolation
    /// keeps them positive.
    fn pack(&self) -> Vec<f64> {
        let mut x = vec![
            self.mu_a,
            self.s_a.ln(),
            self.mu_b,
            self.s_b.ln(),
            self.b_sig.ln(),
        ];
        for &(a1, b1) in &self.alpha {
            x.push(a1.ln());
            x.push(b1.ln());
        }
        x.extend_from_slice(&self.mu_t);
        match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => {
                x.push(b.c.0.ln());
                x.push(b.c.1.ln());
            }
            _ => x.extend(self.s_t.iter().map(|v| v.ln())),
        }
        x
    }

    fn load(&mut self, x: &[f64]) {
        let n = self.n;
        self.mu_a = x[0];
        self.s_a = x[1].exp();
        self.mu_b = x[2];
        self.s_b = x[3].exp();
        self.b_sig = x[4].exp();
        self.kappa = self.a_sig / self.b_sig;
        let mut at = 5;
        for j in 0..self.alpha.len() {
            self.alpha[j] = (x[at].exp(), x[at + 1].exp());
            at += 2;
        }
        self.refresh_e_ln_alpha();
        // Vᵀμ_θ is kept when μ_θ is the one it belongs to (the executor
        // mostly evaluates the map where it just left off): one O(n²)
        // product of three saved.
        let same_mean = self.mu_rot.is_some() && self.mu_t == x[at..at + n];
        self.mu_t.copy_from_slice(&x[at..at + n]);
        at += n;
        if self.o.theta_update == ThetaUpdate::Block {
            self.set_block(x[at].exp(), x[at + 1].exp());
            if !same_mean {
                self.mu_rot = Some(self.prior.rotate(&self.mu_t));
            }
        } else {
            self.mu_rot = None;
            for (s, v) in self.s_t.iter_mut().zip(&x[at..at + n]) {
                *s = v.exp();
            }
        }
    }

    fn refresh_e_ln_alpha(&mut self) {
        if self.alpha.len() == 1 {
            let (a1, b1) = self.alpha[0];
            let e = digamma(a1) - digamma(a1 + b1);
            self.e_ln_alpha.iter_mut().for_each(|v| *v = e);
        } else {
            for i in 0..self.n {
                let (a1, b1) = self.alpha[i];
                self.e_ln_alpha[i] = digamma(a1) - digamma(a1 + b1);
            }
        }
    }

    fn sweep(&mut self) {
        self.update_z();
        self.update_theta();
        self.update_a();
        self.update_b();
        self.update_sigma();
        self.update_alpha();
    }

    fn plugin(&self) -> Vec<f64> {
        (0..self.n).map(|i| norm_cdf(self.m(i))).collect()
    }

    /// The ELBO of the shared- or per-word-α model (no closed form in the
    /// dissertation; derived term by term, `keywords` docs).
    fn elbo(&self) -> f64 {
        let eb2 = self.e_b2();
        let ea2 = self.mu_a * self.mu_a + self.s_a;
        let e_ln_s2 = self.b_sig.ln() - digamma(self.a_sig);
        let mut total = 0.0;
        // E[ln α] and E[ln(1 − α)] per q(α) factor (one when shared).
        let moments: Vec<(f64, f64)> = self
            .alpha
            .iter()
            .map(|&(a1, b1)| {
                let s = digamma(a1 + b1);
                (digamma(a1) - s, digamma(b1) - s)
            })
            .collect();
        for i in 0..self.n {
            let (e_ln_a, e_ln_1a) = moments[if moments.len() == 1 { 0 } else { i }];
            let m = self.m(i);
            let (ez, ez2, hz) = (self.ez[i], self.ez2[i], self.hz[i]);
            let ly = if self.y[i] {
                e_ln_1a
            } else {
                self.pi[i] * e_ln_a
            };
            // E[θ_i²] = μ_i² + S_θi; the S_θi enter through their sum below.
            let lz = -0.5 * LN_2PI
                - 0.5
                    * (ez2 - 2.0 * ez * m
                        + ea2
                        + 2.0 * self.mu_a * self.mu_b * self.mu_t[i]
                        + eb2 * self.mu_t[i] * self.mu_t[i]);
            total += ly + lz + hz;
        }
        total -= 0.5 * eb2 * self.sum_s();
        // q(θ) entropy.
        total += match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => {
                0.5 * (self.n as f64) * (LN_2PI + 1.0) + 0.5 * b.ln_det
            }
            _ => self.s_t.iter().map(|s| 0.5 * (LN_2PI + 1.0 + s.ln())).sum(),
        };
        let n = self.n as f64;
        let kappa = self.a_sig / self.b_sig;
        total +=
            -0.5 * n * LN_2PI - 0.5 * self.prior.ln_det_u - 0.5 * n * e_ln_s2 - kappa * self.g();
        total += -0.5 * (LN_2PI + self.o.sigma_a2.ln()) - ea2 / (2.0 * self.o.sigma_a2);
        total += -0.5 * (LN_2PI + self.o.sigma_b2.ln()) - eb2 / (2.0 * self.o.sigma_b2);
        let tau = self.o.tau;
        total += tau * tau.ln() - ln_gamma(tau) - (tau + 1.0) * e_ln_s2 - tau * kappa;
        total += 0.5 * (LN_2PI + 1.0 + self.s_a.ln()) + 0.5 * (LN_2PI + 1.0 + self.s_b.ln());
        let (a, b) = (self.a_sig, self.b_sig);
        total += a + b.ln() + ln_gamma(a) - (1.0 + a) * digamma(a);
        for &(a1, b1) in &self.alpha {
            total += ln_gamma(a1) + ln_gamma(b1)
                - ln_gamma(a1 + b1)
                - (a1 - 1.0) * digamma(a1)
                - (b1 - 1.0) * digamma(b1)
                + (a1 + b1 - 2.0) * digamma(a1 + b1);
        }
        total
    }

    fn finish(&self, elbo: Vec<f64>, iterations: usize, converged: bool) -> VbssFit {
        let eb2 = self.e_b2();
        let s_t = match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => {
                let d: Vec<f64> = self
                    .prior
                    .precision_eigenvalues
                    .iter()
                    .map(|p| 1.0 / (b.c.0 + b.c.1 * p))
                    .collect();
                self.prior.diag_of(&d)
            }
            _ => self.s_t.clone(),
        };
        let (p_predictive, p_sd) = (0..self.n)
            .map(|i| {
                let et2 = self.mu_t[i] * self.mu_t[i] + s_t[i];
                let var = self.s_a + eb2 * et2 - (self.mu_b * self.mu_t[i]).powi(2);
                probit_mean_sd(self.m(i), var)
            })
            .unzip();
        // q(z) from the final q(θ, a, b, α): refresh π before reporting.
        let mut latent = Vec::with_capacity(self.n);
        for i in 0..self.n {
            if self.y[i] {
                latent.push(1.0);
            } else {
                let m = self.m(i);
                let lo = self.e_ln_alpha[i] + ln_norm_cdf(m) - ln_norm_cdf(-m);
                latent.push(crate::numerics::sigmoid(lo));
            }
        }
        let p_plugin = self.plugin();
        VbssFit {
            theta_mean: self.mu_t.clone(),
            theta_sd: s_t.iter().map(|s| s.sqrt()).collect(),
            a: (self.mu_a, self.s_a.sqrt()),
            b: (self.mu_b, self.s_b.sqrt()),
            sigma2: (self.a_sig, self.b_sig),
            alpha: self.alpha.clone(),
            p_forced: super::fdr::forced(&p_plugin, self.y),
            p_plugin,
            p_predictive,
            p_sd,
            p_latent: latent,
            elbo,
            iterations,
            converged,
        }
    }
}

/// Check labels against a prior: at least one known keyword and one
/// unlabelled word.
pub(crate) fn check_labels(prior: &ThetaPrior, y: &[bool]) -> Result<()> {
    if y.len() != prior.len() {
        return Err(Error::Data(format!(
            "{} labels for a prior over {} words",
            y.len(),
            prior.len()
        )));
    }
    check_labels_y(y)
}

/// At least one known keyword and one unlabelled word.
pub(crate) fn check_labels_y(y: &[bool]) -> Result<()> {
    let known = y.iter().filter(|&&v| v).count();
    if known == 0 {
        return Err(Error::Data(
            "no known keyword among the candidate words: VBSS learns from positive–unlabelled data and needs at least one (check that the known keywords are spelled as the candidates, e.g. stemmed)".into(),
        ));
    }
    if known == y.len() {
        return Err(Error::Data(
            "every candidate word is a known keyword: there is nothing to infer".into(),
        ));
    }
    Ok(())
}

/// A sweep as a monotone map for the project's fixed-point executor:
/// `eval(x)` sets `q(z)` optimal for `x` (the objective is the ELBO
/// there), then runs the other updates; the image is the new parameters.
/// The ELBO after the `q(z)` step never decreases from one evaluation to
/// the next, so SQUAREM (Varadhan & Roland 2008) can extrapolate under it.
struct SweepMap<'a> {
    state: State<'a>,
    /// The last image and the plug-in `p̂` there: the executor mostly
    /// evaluates the map where it just left off.
    at: Vec<f64>,
    p_at: Vec<f64>,
}

impl MonotoneMap for SweepMap<'_> {
    fn eval(&mut self, x: &[f64]) -> Result<Iterate> {
        self.state.load(x);
        self.state.update_z();
        let objective = self.state.elbo();
        if !objective.is_finite() {
            return Err(Error::Numerical(format!("the ELBO became {objective}")));
        }
        // p̂ reads μ_a, μ_b, μ_θ, which `load` copies unchanged.
        let p0 = if x == self.at.as_slice() {
            std::mem::take(&mut self.p_at)
        } else {
            self.state.plugin()
        };
        self.state.update_theta();
        self.state.update_a();
        self.state.update_b();
        self.state.update_sigma();
        self.state.update_alpha();
        let p1 = self.state.plugin();
        let gap = p0.iter().zip(&p1).map(|(a, b)| (a - b).abs()).sum::<f64>() / p0.len() as f64;
        self.at = self.state.pack();
        self.p_at = p1;
        Ok(Iterate::new(self.at.clone(), objective, Some(gap)))
    }
}

/// Run VBSS on one document: the prior (graph or user-supplied) and the
/// known-keyword labels `y` (Hu 2024, Algorithm 1), with SQUAREM
/// acceleration under the ELBO. The stopping rule is the dissertation's
/// (mean absolute change of `p̂` over one sweep below `tol`); `max_iter`
/// counts sweeps, extrapolated ones included.
pub fn fit_vbss(prior: &ThetaPrior, y: &[bool], opts: &VbssOptions) -> Result<VbssFit> {
    fit_vbss_with(prior, y, opts, true)
}

/// [`fit_vbss`] with or without acceleration. Plain sweeps (`false`) are
/// Algorithm 1 itself: every one of them raises the ELBO under the exact
/// `θ` updates (the test of the updates); the ELBO is recorded per sweep.
pub fn fit_vbss_with(
    prior: &ThetaPrior,
    y: &[bool],
    opts: &VbssOptions,
    accelerate: bool,
) -> Result<VbssFit> {
    opts.check()?;
    check_labels(prior, y)?;
    let mut st = State::new(prior, y, *opts);
    // The published θ step is not a coordinate-ascent step: no ELBO to
    // safeguard an extrapolation with, so it runs plain.
    if !accelerate || opts.theta_update == ThetaUpdate::Published {
        let mut last = st.plugin();
        let mut elbo = Vec::new();
        for it in 1..=opts.max_iter {
            st.sweep();
            let l = st.elbo();
            if !l.is_finite() {
                return Err(Error::Numerical(format!(
                    "the ELBO became {l} at sweep {it}"
                )));
            }
            elbo.push(l);
            let p = st.plugin();
            let change =
                p.iter().zip(&last).map(|(a, b)| (a - b).abs()).sum::<f64>() / p.len() as f64;
            last = p;
            if change < opts.tol {
                return Ok(st.finish(elbo, it, true));
            }
        }
        return Ok(st.finish(elbo, opts.max_iter, false));
    }
    // One plain sweep first: the initial state has no q(θ) variances.
    st.sweep();
    let x0 = st.pack();
    let mut map = SweepMap {
        state: st,
        at: Vec::new(),
        p_at: Vec::new(),
    };
    let settings = IterSettings {
        tol: opts.tol,
        max_iter: opts.max_iter.saturating_sub(1).max(1),
        accelerate: true,
    };
    let out = Executor::new(settings).run(&mut map, x0)?;
    let mut st = map.state;
    st.load(&out.x);
    st.update_z();
    let mut elbo = out.trace.clone();
    elbo.push(st.elbo());
    Ok(st.finish(elbo, out.evaluations + 1, out.converged()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keywords::graph::WordGraph;
    use crate::keywords::prior::PriorScale;
    use rand::RngExt;

    fn random_doc(seed: u64, n_tokens: usize, vocab: usize) -> (WordGraph, Vec<bool>) {
        let mut rng = crate::infer::rng::stream(seed, &[7]);
        let toks: Vec<String> = (0..n_tokens)
            .map(|_| {
                // Zipf-ish vocabulary.
                let u: f64 = rng.random();
                format!("w{}", (u * u * vocab as f64) as usize)
            })
            .collect();
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let mut y = vec![false; g.len()];
        for i in 0..g.len().min(40) {
            if i % 5 == 0 {
                y[i] = true;
            }
        }
        (g, y)
    }

    #[test]
    fn the_elbo_never_decreases_under_exact_updates() {
        // 50 random documents (issue 14's acceptance), each under both θ
        // steps and both α models.
        for seed in 0..50 {
            let (g, y) = random_doc(seed, 300, 60);
            let pr = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Dissertation).unwrap();
            for mode in [ThetaUpdate::Coordinate, ThetaUpdate::Block] {
                for alpha in [AlphaModel::Shared, AlphaModel::PerWord] {
                    let o = VbssOptions {
                        theta_update: mode,
                        alpha,
                        max_iter: 5000,
                        ..Default::default()
                    };
                    let f = fit_vbss_with(&pr, &y, &o, false).unwrap();
                    let fast = fit_vbss(&pr, &y, &o).unwrap();
                    assert!(
                        (fast.final_elbo() - f.final_elbo()).abs() < 1e-6 * f.final_elbo().abs(),
                        "seed {seed} {mode:?} {alpha:?}: accelerated ELBO {} vs plain {}",
                        fast.final_elbo(),
                        f.final_elbo()
                    );
                    for w in fast.elbo.windows(2) {
                        assert!(w[1] >= w[0] - 1e-9 * w[0].abs().max(1.0));
                    }
                    for w in f.elbo.windows(2).skip(1) {
                        assert!(
                            w[1] >= w[0] - 1e-8 * w[0].abs().max(1.0),
                            "seed {seed} {mode:?} {alpha:?}: ELBO fell {} -> {}",
                            w[0],
                            w[1]
                        );
                    }
                }
            }
        }
    }

    /// Each update maximises the ELBO over its own block: perturbing the
    /// block's parameters after the update can only lower the ELBO.
    #[test]
    fn each_update_is_a_maximiser_of_the_elbo() {
        let (g, y) = random_doc(3, 200, 40);
        let pr = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Dissertation).unwrap();
        let o = VbssOptions {
            theta_update: ThetaUpdate::Coordinate,
            ..Default::default()
        };
        let mut st = State::new(&pr, &y, o);
        for _ in 0..3 {
            st.sweep();
        }
        let check = |st: &State, what: &str, f: &dyn Fn(&mut State, f64)| {
            let base = st.elbo();
            for h in [1e-3, -1e-3] {
                let mut s2 = State {
                    p_dense: None,
                    ..st.clone_shallow()
                };
                f(&mut s2, h);
                let l = s2.elbo();
                assert!(l <= base + 1e-9, "{what} {h}: {l} > {base}");
            }
        };
        st.update_a();
        check(&st, "mu_a", &|s, h| s.mu_a += h);
        check(&st, "s_a", &|s, h| s.s_a *= 1.0 + h);
        st.update_b();
        check(&st, "mu_b", &|s, h| s.mu_b += h);
        check(&st, "s_b", &|s, h| s.s_b *= 1.0 + h);
        st.update_sigma();
        check(&st, "b_sig", &|s, h| {
            s.b_sig *= 1.0 + h;
            s.kappa = s.a_sig / s.b_sig
        });
        st.update_theta();
        // Gauss–Seidel: the last coordinate updated is optimal given the rest.
        let last = st.n - 1;
        check(&st, "mu_t", &|s, h| s.mu_t[last] += h);
        check(&st, "s_t", &|s, h| s.s_t[5] *= 1.0 + h);
        st.update_alpha();
        check(&st, "alpha", &|s, h| s.alpha[0].0 *= 1.0 + h);
    }

    /// Central finite difference of the ELBO along coordinate `k` of the
    /// packed variational parameters (positive ones on the log scale).
    fn fd_along(st: &State, k: usize, h: f64) -> f64 {
        let x = st.pack();
        let at = |d: f64| {
            let mut s2 = st.clone_shallow();
            let mut xd = x.clone();
            xd[k] += d;
            s2.load(&xd);
            s2.elbo()
        };
        (at(h) - at(-h)) / (2.0 * h)
    }

    /// Every closed-form update (Hu 2024 §1.3.3, U1–U6 with the errata
    /// fixed) sets its block where the ELBO's gradient in that block
    /// vanishes: central finite differences of the ELBO along each of the
    /// block's parameters, taken right after the update, are zero to
    /// rounding, where just before it they are not. For `q(z_i)`, a
    /// free-form factor, along its two shape parameters (the location `m`
    /// and the log-weight `ln w` of the two-piece normal); for a block
    /// `q(θ)` along every mean and both covariance coefficients. Shared and
    /// per-word `α`, block and coordinate `θ` steps, three documents.
    #[test]
    fn each_update_zeroes_the_elbo_gradient_of_its_block() {
        let h = 1e-5;
        let tol = 2e-6;
        for seed in [3u64, 11, 29] {
            let (g, y) = random_doc(seed, 200, 40);
            let pr = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Code).unwrap();
            for mode in [ThetaUpdate::Block, ThetaUpdate::Coordinate] {
                for alpha in [AlphaModel::Shared, AlphaModel::PerWord] {
                    let o = VbssOptions {
                        theta_update: mode,
                        alpha,
                        ..Default::default()
                    };
                    let mut st = State::new(&pr, &y, o);
                    st.sweep();
                    let n = st.n;
                    let na = st.alpha.len();
                    let th = 5 + 2 * na;
                    let what = format!("seed {seed} {mode:?} {alpha:?}");
                    // The packed coordinates of each block.
                    let blocks: [(&str, Vec<usize>); 5] = [
                        ("q(theta)", {
                            let cov: Vec<usize> = match mode {
                                ThetaUpdate::Block => vec![th + n, th + n + 1],
                                _ => (th + n..th + 2 * n).collect(),
                            };
                            // Gauss–Seidel: each mean is optimal given the
                            // means after it as they were, so only the last
                            // one is stationary at the end of the pass.
                            let means: Vec<usize> = match mode {
                                ThetaUpdate::Block => (th..th + n).collect(),
                                _ => vec![th + n - 1],
                            };
                            means.into_iter().chain(cov).collect()
                        }),
                        ("q(a)", vec![0, 1]),
                        ("q(b)", vec![2, 3]),
                        ("q(sigma2)", vec![4]),
                        ("q(alpha)", (5..th).collect()),
                    ];
                    // q(z): each word's factor along (m, ln w).
                    st.update_z();
                    let base = st.elbo();
                    for i in 0..n {
                        let (m, lw) = (st.m(i), st.e_ln_alpha[i]);
                        let with = |mm: f64, ww: f64| {
                            let mut s2 = st.clone_shallow();
                            s2.set_z(i, ZFactor::at(mm, ww, y[i]));
                            s2.elbo()
                        };
                        let dm = (with(m + h, lw) - with(m - h, lw)) / (2.0 * h);
                        assert!(dm.abs() < tol, "{what}: q(z_{i}) along m: {dm:e}");
                        if !y[i] {
                            let dw = (with(m, lw + h) - with(m, lw - h)) / (2.0 * h);
                            assert!(dw.abs() < tol, "{what}: q(z_{i}) along ln w: {dw:e}");
                        }
                        assert!((with(m, lw) - base).abs() < 1e-9 * base.abs());
                    }
                    for (name, coords) in &blocks {
                        let before = coords
                            .iter()
                            .map(|&k| fd_along(&st, k, h).abs())
                            .fold(0.0, f64::max);
                        match *name {
                            "q(theta)" => st.update_theta(),
                            "q(a)" => st.update_a(),
                            "q(b)" => st.update_b(),
                            "q(sigma2)" => st.update_sigma(),
                            _ => st.update_alpha(),
                        }
                        for &k in coords {
                            let d = fd_along(&st, k, h);
                            assert!(
                                d.abs() < tol,
                                "{what}: {name}, packed coordinate {k}: dELBO {d:e} after its update (largest {before:e} before)"
                            );
                        }
                        // The check has teeth: before the update the block
                        // was not at its optimum.
                        assert!(
                            before > 100.0 * tol,
                            "{what}: {name} already optimal ({before:e})"
                        );
                    }
                }
            }
        }
    }

    impl State<'_> {
        fn clone_shallow(&self) -> Self {
            State {
                prior: self.prior,
                y: self.y,
                o: self.o,
                n: self.n,
                mu_a: self.mu_a,
                s_a: self.s_a,
                mu_b: self.mu_b,
                s_b: self.s_b,
                mu_t: self.mu_t.clone(),
                s_t: self.s_t.clone(),
                block: self.block,
                a_sig: self.a_sig,
                b_sig: self.b_sig,
                kappa: self.kappa,
                alpha: self.alpha.clone(),
                e_ln_alpha: self.e_ln_alpha.clone(),
                ez: self.ez.clone(),
                ez2: self.ez2.clone(),
                hz: self.hz.clone(),
                pi: self.pi.clone(),
                p_theta0: self.p_theta0.clone(),
                rot0: self.rot0.clone(),
                mu_rot: self.mu_rot.clone(),
                p_dense: None,
            }
        }
    }

    #[test]
    fn fast_tails_match_the_accurate_functions() {
        for k in -700..=700 {
            let m = k as f64 * 0.05;
            let t = Tails::at(m);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * b.abs().max(1e-300) + 1e-300;
            assert!(close(t.ln_pos, ln_norm_cdf(m)), "ln Φ({m})");
            assert!(close(t.ln_neg, ln_norm_cdf(-m)), "ln Φ(−{m})");
            assert!(close(t.mills_pos, mills(m)), "mills({m})");
            assert!(close(t.mills_neg, mills(-m)), "mills(−{m})");
        }
    }

    #[test]
    fn degenerate_labels_are_refused_with_a_reason() {
        let (g, _) = random_doc(1, 50, 20);
        let none = vec![false; g.len()];
        let pr = ThetaPrior::from_graph(&g, &none, 0.85, PriorScale::Dissertation).unwrap();
        let e = fit_vbss(&pr, &none, &VbssOptions::default()).unwrap_err();
        assert!(e.to_string().contains("no known keyword"));
        let all = vec![true; g.len()];
        let e = fit_vbss(&pr, &all, &VbssOptions::default()).unwrap_err();
        assert!(e.to_string().contains("nothing to infer"));
    }
}
