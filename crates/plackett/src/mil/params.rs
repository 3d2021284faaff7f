//! The parameter vector of the two-level probit model (Hu 2024, §2.2.1),
//! its priors, and the per-instance linear predictors shared by every
//! engine.
//!
//! One flat layout `θ = (α, β, γ, a, b, c, d)` of length
//! `3 + 2d⁰ + 2d¹` holds posterior means, sds and draws alike.

use super::bags::Bags;
use crate::error::{Error, Result};
use crate::numerics::probit::norm_cdf;

/// How far from 0, in prior sds, a starting value may be
/// ([`Layout::check_start`]).
pub const MAX_START_PRIOR_SDS: f64 = 1000.0;

/// Positions of the blocks in the flat parameter vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Layout {
    /// `d⁰`: modality-0 features.
    pub d0: usize,
    /// `d¹`: modality-1 features.
    pub d1: usize,
}

impl Layout {
    /// Layout for the widths of `bags`.
    pub fn of(bags: &Bags) -> Layout {
        Layout {
            d0: bags.width(0),
            d1: bags.width(1),
        }
    }
    /// Length of θ.
    pub fn len(&self) -> usize {
        3 + 2 * self.d0 + 2 * self.d1
    }
    /// Never empty (three intercepts).
    pub fn is_empty(&self) -> bool {
        false
    }
    /// Bag intercept α.
    pub fn alpha(&self) -> usize {
        0
    }
    /// Bag-level slopes β (modality 0).
    pub fn beta(&self) -> std::ops::Range<usize> {
        1..1 + self.d0
    }
    /// Bag-level slopes γ (modality 1).
    pub fn gamma(&self) -> std::ops::Range<usize> {
        1 + self.d0..1 + self.d0 + self.d1
    }
    /// Instance intercept a (modality 0).
    pub fn a(&self) -> usize {
        1 + self.d0 + self.d1
    }
    /// Instance slopes b (modality 0).
    pub fn b(&self) -> std::ops::Range<usize> {
        let s = self.a() + 1;
        s..s + self.d0
    }
    /// Instance intercept c (modality 1).
    pub fn c(&self) -> usize {
        self.b().end
    }
    /// Instance slopes d (modality 1).
    pub fn d(&self) -> std::ops::Range<usize> {
        let s = self.c() + 1;
        s..s + self.d1
    }
    /// Bag-level slopes of modality `m`.
    pub fn bag_slopes(&self, m: u8) -> std::ops::Range<usize> {
        if m == 0 { self.beta() } else { self.gamma() }
    }
    /// Instance intercept of modality `m`.
    pub fn inst_intercept(&self, m: u8) -> usize {
        if m == 0 { self.a() } else { self.c() }
    }
    /// Instance slopes of modality `m`.
    pub fn inst_slopes(&self, m: u8) -> std::ops::Range<usize> {
        if m == 0 { self.b() } else { self.d() }
    }
    /// Check a user's starting point θ (`init` of either engine): one
    /// finite value per coefficient.
    ///
    /// A start more than [`MAX_START_PRIOR_SDS`] prior sds from 0 is refused
    /// too: the prior gives it no mass (its log-density is below −5·10⁵),
    /// every probit at such coefficients is 0 or 1 to double precision, and
    /// from 10²⁰⁰ the sampler's latent draws had no finite values to move to.
    pub fn check_start(&self, x: &[f64], priors: &MilPriors) -> Result<()> {
        if x.len() != self.len() || x.iter().any(|v| !v.is_finite()) {
            return Err(Error::param(
                "init",
                format!(
                    "need {} finite starting values, got {}",
                    self.len(),
                    if x.len() == self.len() {
                        "a non-finite one".to_string()
                    } else {
                        x.len().to_string()
                    }
                ),
            ));
        }
        let sd = |k: usize| priors.var(self, k).sqrt();
        if let Some(k) = (0..x.len()).find(|&k| x[k].abs() > MAX_START_PRIOR_SDS * sd(k)) {
            return Err(Error::param(
                "init",
                format!(
                    "starting value {} of {} is {}, more than {MAX_START_PRIOR_SDS} prior sds \
                     ({}) from 0: the prior gives it no mass (raise the prior variances if the \
                     features call for such coefficients, or rescale the features)",
                    k + 1,
                    x.len(),
                    crate::error::show_number(x[k]),
                    crate::error::show_number(sd(k))
                ),
            ));
        }
        Ok(())
    }
    /// Display name of parameter `k` given the feature names
    /// (`alpha`, `beta[f]`, `gamma[g]`, `a`, `b[f]`, `c`, `d[g]`).
    pub fn name(&self, k: usize, names: &[Vec<String>; 2]) -> String {
        let f = |r: std::ops::Range<usize>, m: usize, s: &str| {
            format!("{s}[{}]", names[m].get(k - r.start).map_or("?", |v| v))
        };
        if k == self.alpha() {
            "alpha".into()
        } else if self.beta().contains(&k) {
            f(self.beta(), 0, "beta")
        } else if self.gamma().contains(&k) {
            f(self.gamma(), 1, "gamma")
        } else if k == self.a() {
            "a".into()
        } else if self.b().contains(&k) {
            f(self.b(), 0, "b")
        } else if k == self.c() {
            "c".into()
        } else {
            f(self.d(), 1, "d")
        }
    }
}

/// Normal priors with mean 0: intercepts `N(0, intercept_var)`, slopes
/// `N(0, slope_var I)`. Defaults 16 and 4 follow Xiong et al. 2024 as Hu
/// 2024 (§2.2.1) does.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MilPriors {
    /// Prior variance of α, a and c.
    pub intercept_var: f64,
    /// Prior variance of every slope (β, γ, b, d).
    pub slope_var: f64,
}

impl Default for MilPriors {
    fn default() -> Self {
        MilPriors {
            intercept_var: 16.0,
            slope_var: 4.0,
        }
    }
}

impl MilPriors {
    /// The priors if both variances are between 1e-10 and 1e10 (a smaller
    /// one pins its coefficients at 0 as firmly; one below about 1e-308
    /// has no finite precision).
    pub fn check(self) -> Result<MilPriors> {
        for (name, v) in [
            ("intercept_var", self.intercept_var),
            ("slope_var", self.slope_var),
        ] {
            if !(v.is_finite() && (1e-10..=1e10).contains(&v)) {
                return Err(Error::param(
                    name,
                    format!(
                        "a prior variance must be between 1e-10 and 1e10, got {}",
                        crate::error::show_number(v)
                    ),
                ));
            }
        }
        Ok(self)
    }

    /// Prior precision of a probit regression's `(intercept, slopes)` with
    /// `slopes` slopes, intercept first (diagonal).
    pub fn precision(&self, slopes: usize) -> nalgebra::DMatrix<f64> {
        let mut p =
            nalgebra::DMatrix::from_diagonal_element(slopes + 1, slopes + 1, 1.0 / self.slope_var);
        p[(0, 0)] = 1.0 / self.intercept_var;
        p
    }

    /// Prior variance of parameter `k`.
    pub fn var(&self, layout: &Layout, k: usize) -> f64 {
        if k == layout.alpha() || k == layout.a() || k == layout.c() {
            self.intercept_var
        } else {
            self.slope_var
        }
    }
}

/// `η_ij` (bag-level contribution) and `ν_ij` (inner linear predictor) of
/// instance `j` under parameters `theta`.
pub fn predictors(bags: &Bags, layout: &Layout, theta: &[f64], j: usize) -> (f64, f64) {
    let m = bags.modality[j];
    let x = bags.features(j);
    let (beta, b) = (&theta[layout.bag_slopes(m)], &theta[layout.inst_slopes(m)]);
    // Both dot products in one pass: two independent chains of additions
    // (the Monte Carlo predictions' inner loop is bound by their latency),
    // each in the order `Iterator::sum` adds, from its −0.0.
    let (mut eta, mut dot) = (-0.0, -0.0);
    for ((xk, bk), ck) in x.iter().zip(beta).zip(b) {
        eta += xk * bk;
        dot += xk * ck;
    }
    (eta, theta[layout.inst_intercept(m)] + dot)
}

/// [`predictors`] of the instances `range`, bit for bit, appended to `eta`
/// and `nu`: four instances of one modality at a time, their eight sums
/// running side by side (independent chains of additions, where one
/// instance's two are bound by the latency of each addition: on Musk's 166
/// features, most of the marginal mode's time), each in [`predictors`]'
/// order.
pub fn predictors_into(
    bags: &Bags,
    layout: &Layout,
    theta: &[f64],
    range: std::ops::Range<usize>,
    eta: &mut Vec<f64>,
    nu: &mut Vec<f64>,
) {
    let mut j = range.start;
    while j < range.end {
        let m = bags.modality[j];
        if j + 4 > range.end || (1..4).any(|q| bags.modality[j + q] != m) {
            let (e, n) = predictors(bags, layout, theta, j);
            eta.push(e);
            nu.push(n);
            j += 1;
            continue;
        }
        let (beta, b) = (&theta[layout.bag_slopes(m)], &theta[layout.inst_slopes(m)]);
        let w = beta.len();
        let x = [0, 1, 2, 3].map(|q| &bags.features(j + q)[..w]);
        let (mut e, mut d) = ([-0.0f64; 4], [-0.0f64; 4]);
        for k in 0..w {
            let (bk, ck) = (beta[k], b[k]);
            for q in 0..4 {
                e[q] += x[q][k] * bk;
                d[q] += x[q][k] * ck;
            }
        }
        let a = theta[layout.inst_intercept(m)];
        eta.extend_from_slice(&e);
        nu.extend(d.iter().map(|v| a + v));
        j += 4;
    }
}

/// `P(δ̃_j = 1 | θ) = Φ(ν_j)` for every instance of `bags`.
pub fn primary_probabilities(bags: &Bags, layout: &Layout, theta: &[f64]) -> Vec<f64> {
    (0..bags.n_instances())
        .map(|j| norm_cdf(predictors(bags, layout, theta, j).1))
        .collect()
}
