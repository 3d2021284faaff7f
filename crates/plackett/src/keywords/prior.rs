//! The Gaussian prior on word importance, `θ | σ² ~ N(θ₀, σ² U)` (Hu 2024,
//! §1.3.1): by default centred at the SS solution `θ₀ ∝ B⁻¹ y` with shape
//! `U = B⁻¹B⁻ᵀ`, `B = I − d Qᵀ` (Li et al. 2010's semi-supervised ranking);
//! any other mean and SPD shape may be supplied, as Hu 2024 recommends.
//!
//! Everything is held through one symmetric eigendecomposition: `B` is
//! symmetric with eigenvalues in `[1 − d, 1 + d]` (`Q` is similar to the
//! row-stochastic `D⁻¹A`), so `U = B⁻²`, `U⁻¹ = B²`, `U_ii = Σ_k V_ik² λ_k⁻²`
//! and `ln det U = −2 Σ_k ln λ_k` cost nothing beyond it.

use super::graph::WordGraph;
use crate::error::{Error, Result};
use crate::numerics::linalg::{mat_vec, symmetric_eigen};
use nalgebra::{DMatrix, DVector};

/// How `θ₀` is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PriorScale {
    /// `θ₀ = (1 − d) B⁻¹ y`, the SS fixed point as the dissertation writes
    /// it (Hu 2024, §1.3.1). Under it θ₀ is small against the prior's
    /// spread, VB's slope `b` collapses towards 0 and its probabilities
    /// drift from the exact posterior's (docs/keywords.md).
    Dissertation,
    /// `θ₀ = B⁻¹ y`, as the authors' code computes it; the default. The
    /// factor matters: the priors on `b` and `σ²` are not scale-invariant.
    #[default]
    Code,
}

/// A Gaussian prior `N(θ₀, σ² U)` held through the eigendecomposition of
/// its precision shape `P = U⁻¹ = V diag(p) Vᵀ`.
#[derive(Debug, Clone)]
pub struct ThetaPrior {
    /// Prior mean `θ₀`.
    pub theta0: Vec<f64>,
    /// Eigenvectors `V` (columns).
    pub vectors: DMatrix<f64>,
    /// `V ∘ V` (element-wise squares).
    pub vectors_sq: DMatrix<f64>,
    /// Eigenvalues `p_k > 0` of `P = U⁻¹`.
    pub precision_eigenvalues: Vec<f64>,
    /// `U_ii` (the published θ update uses them; Hu 2024, §1.3.3).
    pub u_diag: Vec<f64>,
    /// `P_ii`.
    pub p_diag: Vec<f64>,
    /// `ln det U`.
    pub ln_det_u: f64,
    /// `Some(d)` for the SS prior of a graph with damping `d`
    /// ([`ThetaPrior::from_graph`]): then `P = B²` with `B = I − dQ`, and
    /// the eigenvectors also solve systems in `B` (the PageRank baselines
    /// reuse them).
    pub graph_damping: Option<f64>,
}

impl ThetaPrior {
    /// The SS prior of a word graph with known-keyword labels `y` and
    /// damping `d ∈ (0, 1)` (Hu 2024, §1.3.1; Li et al. 2010).
    pub fn from_graph(
        graph: &WordGraph,
        y: &[bool],
        damping: f64,
        scale: PriorScale,
    ) -> Result<ThetaPrior> {
        if !(damping > 0.0 && damping < 1.0) {
            return Err(Error::param(
                "damping",
                format!(
                    "must lie strictly between 0 and 1, got {}",
                    crate::error::show_number(damping)
                ),
            ));
        }
        let n = graph.len();
        if y.len() != n {
            return Err(Error::Data(format!(
                "{} labels for {n} candidate words",
                y.len()
            )));
        }
        let q = graph.normalised();
        let b = DMatrix::identity(n, n) - q * damping;
        let eig = symmetric_eigen(&b)
            .ok_or_else(|| Error::Numerical("eigendecomposition of B = I − dQ failed".into()))?;
        let lambda: Vec<f64> = eig.eigenvalues.iter().copied().collect();
        if lambda.iter().any(|&l| l <= 0.0) {
            return Err(Error::Numerical(
                "B = I − dQ is not positive definite (is the adjacency symmetric and non-negative?)"
                    .into(),
            ));
        }
        let v = eig.eigenvectors;
        let yv = DVector::from_fn(n, |i, _| if y[i] { 1.0 } else { 0.0 });
        // θ₀ = c B⁻¹ y = c V Λ⁻¹ Vᵀ y.
        let c = match scale {
            PriorScale::Dissertation => 1.0 - damping,
            PriorScale::Code => 1.0,
        };
        let mut coef = v.transpose() * yv;
        for k in 0..n {
            coef[k] *= c / lambda[k];
        }
        let theta0: Vec<f64> = (&v * coef).iter().copied().collect();
        let p: Vec<f64> = lambda.iter().map(|l| l * l).collect();
        let mut prior = Self::assemble(theta0, v, p);
        prior.graph_damping = Some(damping);
        Ok(prior)
    }

    /// The SS prior of the same graph for other known-keyword labels `y`:
    /// `θ₀ = c B⁻¹ y` through the eigenvectors already held (O(n²) instead
    /// of an O(n³) eigendecomposition; `U` does not depend on `y`). Errors
    /// for a prior not built by [`ThetaPrior::from_graph`].
    pub fn with_labels(&self, y: &[bool], scale: PriorScale) -> Result<ThetaPrior> {
        let damping = self.graph_damping.ok_or_else(|| {
            Error::param("prior", "new labels need a prior built from a word graph")
        })?;
        if y.len() != self.len() {
            return Err(Error::Data(format!(
                "{} labels for {} candidate words",
                y.len(),
                self.len()
            )));
        }
        let c = match scale {
            PriorScale::Dissertation => 1.0 - damping,
            PriorScale::Code => 1.0,
        };
        let yv: Vec<f64> = y.iter().map(|&v| if v { c } else { 0.0 }).collect();
        let theta0 = self.solve_b(&yv).expect("a graph prior");
        Ok(ThetaPrior {
            theta0,
            ..self.clone()
        })
    }

    /// A prior with any mean and SPD shape `U` (a user's own importance
    /// scores and covariance).
    pub fn from_covariance(theta0: Vec<f64>, u: &DMatrix<f64>) -> Result<ThetaPrior> {
        let n = theta0.len();
        if u.nrows() != n || u.ncols() != n {
            return Err(Error::Data(format!(
                "prior shape U is {}×{}, θ₀ has {n} entries",
                u.nrows(),
                u.ncols()
            )));
        }
        if theta0.iter().any(|t| !t.is_finite()) {
            return Err(Error::Data("θ₀ has a non-finite entry".into()));
        }
        let eig = symmetric_eigen(u)
            .ok_or_else(|| Error::Numerical("eigendecomposition of U failed".into()))?;
        let top = eig.eigenvalues.iter().fold(0.0f64, |a, &b| a.max(b));
        if eig.eigenvalues.iter().any(|&l| l <= top * 1e-12) {
            return Err(Error::Data(
                "the prior shape U is not positive definite".into(),
            ));
        }
        let p = eig.eigenvalues.iter().map(|l| 1.0 / l).collect();
        Ok(Self::assemble(theta0, eig.eigenvectors, p))
    }

    fn assemble(theta0: Vec<f64>, v: DMatrix<f64>, p: Vec<f64>) -> ThetaPrior {
        let n = theta0.len();
        let mut u_diag = vec![0.0; n];
        let mut p_diag = vec![0.0; n];
        for k in 0..n {
            for i in 0..n {
                let v2 = v[(i, k)] * v[(i, k)];
                u_diag[i] += v2 / p[k];
                p_diag[i] += v2 * p[k];
            }
        }
        let ln_det_u = -p.iter().map(|x| x.ln()).sum::<f64>();
        ThetaPrior {
            theta0,
            vectors_sq: v.map(|x| x * x),
            vectors: v,
            precision_eigenvalues: p,
            u_diag,
            p_diag,
            ln_det_u,
            graph_damping: None,
        }
    }

    /// `B⁻¹ x` for the SS prior of a graph (`B = I − dQ = V diag(√p) Vᵀ`):
    /// two O(n²) products; `None` for a prior not built from a graph.
    pub fn solve_b(&self, x: &[f64]) -> Option<Vec<f64>> {
        self.graph_damping?;
        let mut c = self.rotate(x);
        for (ck, pk) in c.iter_mut().zip(&self.precision_eigenvalues) {
            *ck /= pk.sqrt();
        }
        Some(self.unrotate(&c))
    }

    /// Dimension `n`.
    pub fn len(&self) -> usize {
        self.theta0.len()
    }

    /// Whether the prior has no coordinates.
    pub fn is_empty(&self) -> bool {
        self.theta0.is_empty()
    }

    /// `Vᵀ x`.
    pub fn rotate(&self, x: &[f64]) -> Vec<f64> {
        mat_vec(&self.vectors, x, true)
    }

    /// `V c`.
    pub fn unrotate(&self, c: &[f64]) -> Vec<f64> {
        mat_vec(&self.vectors, c, false)
    }

    /// A draw of `θ ~ N(θ₀, σ² U)` (through the eigenvectors: `θ₀ + V z`
    /// with `z_k ~ N(0, σ²/p_k)`), for simulating from the model.
    pub fn sample<R: rand::Rng + ?Sized>(&self, sigma2: f64, rng: &mut R) -> Vec<f64> {
        use rand_distr::{Distribution, StandardNormal};
        let z: Vec<f64> = self
            .precision_eigenvalues
            .iter()
            .map(|p| {
                let e: f64 = StandardNormal.sample(rng);
                e * (sigma2 / p).sqrt()
            })
            .collect();
        self.theta0
            .iter()
            .zip(self.unrotate(&z))
            .map(|(t, d)| t + d)
            .collect()
    }

    /// `diag(V diag(d) Vᵀ)`, the marginal variances of a Gaussian whose
    /// covariance shares the prior's eigenvectors.
    pub fn diag_of(&self, d: &[f64]) -> Vec<f64> {
        mat_vec(&self.vectors_sq, d, false)
    }

    /// `P x`.
    pub fn apply_precision(&self, x: &[f64]) -> Vec<f64> {
        let mut c = self.rotate(x);
        for (ck, pk) in c.iter_mut().zip(&self.precision_eigenvalues) {
            *ck *= pk;
        }
        self.unrotate(&c)
    }

    /// `(x − θ₀)ᵀ P (x − θ₀)`.
    pub fn quad(&self, x: &[f64]) -> f64 {
        let d: Vec<f64> = x.iter().zip(&self.theta0).map(|(a, b)| a - b).collect();
        self.rotate(&d)
            .iter()
            .zip(&self.precision_eigenvalues)
            .map(|(c, p)| p * c * c)
            .sum()
    }

    /// The dense precision shape `P = U⁻¹`.
    pub fn precision(&self) -> DMatrix<f64> {
        let n = self.len();
        let mut vp = self.vectors.clone();
        for k in 0..n {
            vp.column_mut(k).scale_mut(self.precision_eigenvalues[k]);
        }
        vp * self.vectors.transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_prior_matches_direct_inverses() {
        let toks = ["a", "b", "c", "a", "d", "b", "e", "c", "a", "f"];
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let y = [true, false, true, false, false, false];
        let d = 0.85;
        let pr = ThetaPrior::from_graph(&g, &y, d, PriorScale::Dissertation).unwrap();
        let n = g.len();
        let b = DMatrix::identity(n, n) - g.normalised() * d;
        let binv = b.clone().try_inverse().unwrap();
        let yv = DVector::from_fn(n, |i, _| if y[i] { 1.0 } else { 0.0 });
        let t0 = &binv * yv * (1.0 - d);
        let u = &binv * binv.transpose();
        for i in 0..n {
            assert!((pr.theta0[i] - t0[i]).abs() < 1e-12);
            assert!((pr.u_diag[i] - u[(i, i)]).abs() < 1e-12);
        }
        assert!((pr.precision() - &b * &b).amax() < 1e-12);
        assert!((pr.ln_det_u - u.determinant().ln()).abs() < 1e-10);
        // SS fixed point: θ₀ = (1 − d) y + d Q θ₀.
        let q = g.normalised();
        let fp = DVector::from_fn(n, |i, _| if y[i] { 1.0 - d } else { 0.0 })
            + q * DVector::from_vec(pr.theta0.clone()) * d;
        assert!((fp - DVector::from_vec(pr.theta0.clone())).amax() < 1e-12);
    }

    /// New labels through the held eigenvectors give the prior built anew.
    #[test]
    fn new_labels_reuse_the_eigendecomposition() {
        let toks = ["a", "b", "c", "a", "d", "b", "e", "c", "a", "f"];
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let y1 = [true, false, true, false, false, false];
        let y2 = [false, true, false, false, true, true];
        for scale in [PriorScale::Dissertation, PriorScale::Code] {
            let a = ThetaPrior::from_graph(&g, &y1, 0.85, scale).unwrap();
            let b = a.with_labels(&y2, scale).unwrap();
            let c = ThetaPrior::from_graph(&g, &y2, 0.85, scale).unwrap();
            for i in 0..g.len() {
                assert!((b.theta0[i] - c.theta0[i]).abs() < 1e-12);
                assert!((b.u_diag[i] - c.u_diag[i]).abs() < 1e-12);
            }
            assert!(a.with_labels(&y2[..3], scale).is_err());
        }
        let own = ThetaPrior::from_covariance(vec![0.0; 2], &DMatrix::identity(2, 2)).unwrap();
        assert!(own.with_labels(&[true, false], PriorScale::Code).is_err());
    }
}
