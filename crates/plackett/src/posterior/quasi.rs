//! Quasi-variances (Firth & de Menezes 2004): one variance `q_i` per item
//! such that `q_i + q_j` approximates the variance of every contrast
//! `θ_i − θ_j`, so that intervals drawn per item compare correctly in any
//! gauge. As the `qvcalc` package (Firth's own implementation, which
//! PlackettLuce's and BradleyTerry2's `qvcalc` methods call), the `q`
//! minimise `Σ_{i<j} (log v_ij − log μ_ij)²` with `μ_ij = q_i + q_j`, the
//! squared log-ratios of the contrast variances, by Gauss–Newton written as
//! iteratively reweighted least squares (weights `1/μ²`, working response
//! `μ(1 + log v − log μ)`). (The gamma deviance `Σ [v/μ − 1 − log(v/μ)]`
//! agrees with it to second order in the relative errors only: 0.2% apart
//! on Stigler's citations; docs/models.md.)

use crate::error::{Error, Result};
use crate::numerics::linalg::Cholesky;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// Quasi-variances and how well they reproduce the contrast variances.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuasiVariances {
    /// Quasi-variances, one per item.
    pub quasi_var: Vec<f64>,
    /// Quasi standard errors `√q_i` (NaN where `q_i < 0`).
    pub quasi_se: Vec<f64>,
    /// Smallest and largest relative error of the implied standard error
    /// `√(q_i + q_j)` against the true one over the simple contrasts
    /// `θ_i − θ_j` (every pair of items).
    pub relative_error_simple: (f64, f64),
    /// The same over all contrasts `Σ c_i θ_i` with `Σ c_i = 0`: the square
    /// roots of the extreme generalised eigenvalues of (quasi, true)
    /// covariance on the contrast space, minus one (Firth & de Menezes
    /// 2004, §2.3).
    pub relative_error_all: (f64, f64),
}

/// Quasi-variances from a contrast-correct covariance matrix of the
/// log-worths (any gauge).
pub fn quasi_variances(cov: &DMatrix<f64>) -> Result<QuasiVariances> {
    let n = cov.nrows();
    if n < 3 {
        return Err(Error::Data(
            "quasi-variances need at least three items (with two, one contrast says everything)"
                .into(),
        ));
    }
    // Every simple contrast θ_i − θ_j and its variance v.
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let v: Vec<f64> = pairs
        .iter()
        .map(|&(i, j)| cov[(i, i)] + cov[(j, j)] - 2.0 * cov[(i, j)])
        .collect();
    if v.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(Error::Numerical(
            "a contrast has no positive variance; quasi-variances are undefined".into(),
        ));
    }
    // Weighted least squares of `y_k` on q_i + q_j over the pairs.
    let fit_to = |y: &[f64], w: &dyn Fn(usize) -> f64| -> Option<Vec<f64>> {
        let mut a = DMatrix::<f64>::zeros(n, n);
        let mut b = DVector::<f64>::zeros(n);
        for (k, (&(i, j), &v)) in pairs.iter().zip(y).enumerate() {
            let wk = w(k);
            a[(i, i)] += wk;
            a[(j, j)] += wk;
            a[(i, j)] += wk;
            a[(j, i)] += wk;
            b[i] += wk * v;
            b[j] += wk * v;
        }
        Cholesky::new(&a).map(|c| c.solve(&b).iter().copied().collect())
    };
    // Start: least squares of v_ij on q_i + q_j (unit weights).
    let mut q =
        fit_to(&v, &|_| 1.0).ok_or_else(|| Error::Numerical("quasi-variance start".into()))?;
    for _ in 0..100 {
        let mu: Vec<f64> = pairs.iter().map(|&(i, j)| q[i] + q[j]).collect();
        if mu.iter().any(|m| m.is_nan() || *m <= 0.0) {
            return Err(Error::Numerical(
                "quasi-variances: a fitted contrast variance is not positive".into(),
            ));
        }
        // Gauss–Newton for Σ (log v − log μ)²: the Jacobian of log μ_k is
        // L_k / μ_k, so the step is a least-squares fit with weights 1/μ²
        // of the working response μ(1 + log v − log μ) on L.
        let work: Vec<f64> = v
            .iter()
            .zip(&mu)
            .map(|(&v, &m)| m * (1.0 + v.ln() - m.ln()))
            .collect();
        let next = fit_to(&work, &|k| 1.0 / (mu[k] * mu[k]))
            .ok_or_else(|| Error::Numerical("quasi-variance weighted fit".into()))?;
        let change = next
            .iter()
            .zip(&q)
            .map(|(a, b)| (a - b).abs() / b.abs().max(1e-300))
            .fold(0.0f64, f64::max);
        q = next;
        if change < 1e-12 {
            break;
        }
    }
    let mut simple = (f64::INFINITY, f64::NEG_INFINITY);
    for (&(i, j), &v) in pairs.iter().zip(&v) {
        let e = ((q[i] + q[j]) / v).sqrt() - 1.0;
        simple = (simple.0.min(e), simple.1.max(e));
    }
    // All contrasts, in coordinates relative to item 0 (d_i = c_i, i ≥ 1):
    // cᵀVc = dᵀ V₀ d with V₀ the covariance of θ_i − θ_0, and likewise for
    // diag(q). Extreme ratios = extreme eigenvalues of L⁻¹ Q₀ L⁻ᵀ, V₀ = LLᵀ.
    let m = n - 1;
    let v0 = DMatrix::from_fn(m, m, |a, b| {
        let (i, j) = (a + 1, b + 1);
        cov[(i, j)] - cov[(i, 0)] - cov[(0, j)] + cov[(0, 0)]
    });
    let q0 = DMatrix::from_fn(m, m, |a, b| if a == b { q[a + 1] + q[0] } else { q[0] });
    let l = Cholesky::new(&v0)
        .ok_or_else(|| Error::Numerical("contrast covariance not positive definite".into()))?;
    let x = l.solve_lower(&q0);
    let mm = l.solve_lower(&x.transpose());
    let sym = (&mm + mm.transpose()) * 0.5;
    let e = crate::numerics::linalg::symmetric_eigen(&sym)
        .ok_or_else(|| Error::Numerical("quasi-variance eigenvalues".into()))?;
    let lo = e.eigenvalues.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = e
        .eigenvalues
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let all = (lo.max(0.0).sqrt() - 1.0, hi.max(0.0).sqrt() - 1.0);
    Ok(QuasiVariances {
        quasi_se: q
            .iter()
            .map(|&x| if x >= 0.0 { x.sqrt() } else { f64::NAN })
            .collect(),
        quasi_var: q,
        relative_error_simple: simple,
        relative_error_all: all,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When the covariance is diagonal the quasi-variances are exact.
    #[test]
    fn exact_for_independent_estimates() {
        let v = DMatrix::from_diagonal(&DVector::from_vec(vec![0.1, 0.2, 0.3, 0.4]));
        let q = quasi_variances(&v).unwrap();
        for (a, b) in q.quasi_var.iter().zip([0.1, 0.2, 0.3, 0.4]) {
            assert!((a - b).abs() < 1e-10, "{a} vs {b}");
        }
        assert!(q.relative_error_all.0.abs() < 1e-9 && q.relative_error_all.1.abs() < 1e-9);
    }
}
