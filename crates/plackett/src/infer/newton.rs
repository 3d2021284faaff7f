//! Newton's method on log-worths θ with backtracking line search, and the
//! gauge-aware covariance used for standard errors.
//!
//! The objective `ℓ(θ) + Σ log p(θ_i)` is concave (strictly, given a proper
//! prior, a fixed item, or a strongly connected comparison graph). For the
//! MLE without a fixed item the Hessian is singular along `1`; the step
//! solves `(I + s·11ᵀ/n) δ = g`, which gives the minimum-norm Newton step
//! because the score is orthogonal to `1`.

use super::prior::Prior;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::information::information;
use crate::model::pl::{self, Scope};
use crate::numerics::max_abs;
use nalgebra::{DMatrix, DVector};

/// Settings for [`newton`].
#[derive(Debug, Clone)]
pub struct NewtonOptions {
    /// Prior (Flat = MLE).
    pub prior: Prior,
    /// Item held at θ = 0 (the ghost of pseudo-rankings).
    pub fixed: Option<u32>,
    /// Maximum Newton iterations.
    pub max_iter: usize,
    /// Stop when the max-norm of the score is below this.
    pub tol: f64,
}

/// Result of [`newton`].
#[derive(Debug, Clone)]
pub struct NewtonResult {
    /// Log-worths (mean-centred for a flat prior without a fixed item).
    pub theta: Vec<f64>,
    /// Iterations taken.
    pub iterations: usize,
    /// Whether the tolerance was met.
    pub converged: bool,
    /// Objective at `theta`.
    pub objective: f64,
    /// Max-norm of the score at `theta`.
    pub score_norm: f64,
}

fn objective_and_score(
    ds: &Dataset,
    theta: &[f64],
    wins: &[f64],
    prior: Prior,
    fixed: Option<u32>,
) -> (f64, Vec<f64>) {
    let (mut g, ll) = pl::score(ds, theta, wins, Scope::All);
    let mut obj = ll;
    for (i, t) in theta.iter().enumerate() {
        obj += prior.log_density(*t);
        g[i] += prior.grad(*t);
    }
    if let Some(f) = fixed {
        g[f as usize] = 0.0;
    }
    (obj, g)
}

/// Newton iterations from `theta0`.
pub fn newton(ds: &Dataset, theta0: &[f64], opts: &NewtonOptions) -> Result<NewtonResult> {
    let n = ds.n_items();
    let wins = pl::wins(ds, Scope::All);
    let mut theta = theta0.to_vec();
    let gauge = !opts.prior.is_proper() && opts.fixed.is_none();
    if gauge {
        crate::numerics::centre(&mut theta);
    }
    let (mut obj, mut g) = objective_and_score(ds, &theta, &wins, opts.prior, opts.fixed);
    let mut it = 0;
    while it < opts.max_iter {
        let sn = max_abs(&g);
        if sn <= opts.tol {
            break;
        }
        it += 1;
        let mut h = information(ds, &theta, Scope::All)?;
        for i in 0..n {
            h[(i, i)] += opts.prior.neg_hess(theta[i]);
        }
        if let Some(f) = opts.fixed {
            let f = f as usize;
            for j in 0..n {
                h[(f, j)] = 0.0;
                h[(j, f)] = 0.0;
            }
            h[(f, f)] = 1.0;
        }
        if gauge {
            let s = (0..n).map(|i| h[(i, i)]).sum::<f64>() / (n * n) as f64;
            h.add_scalar_mut(s);
        }
        let chol = h.cholesky().ok_or_else(|| {
            Error::Numerical(
                "Hessian not positive definite during Newton iterations; the data may not \
                 identify every worth (try --pseudo or a prior)"
                    .into(),
            )
        })?;
        let step = chol.solve(&DVector::from_column_slice(&g));
        // Backtracking line search on the concave objective.
        match backtrack(&theta, step.as_slice(), obj, sn, |c| {
            objective_and_score(ds, c, &wins, opts.prior, opts.fixed)
        }) {
            Some((c, o2, g2)) => (theta, obj, g) = (c, o2, g2),
            None => break, // no further progress at machine precision
        }
        if gauge {
            crate::numerics::centre(&mut theta);
        }
    }
    let sn = max_abs(&g);
    Ok(NewtonResult {
        theta,
        iterations: it,
        converged: sn <= opts.tol,
        objective: obj,
        score_norm: sn,
    })
}

/// Covariance of log-worths restricted to the items `keep` (e.g. the real
/// items, leaving out a ghost), from the information of the real
/// observations plus the prior precision.
///
/// For a flat prior the information is singular along `1` and the returned
/// matrix is its Moore–Penrose pseudo-inverse, i.e. the covariance in the
/// mean-centred gauge; contrasts `θ_i − θ_j` have the right variance in any
/// case. Returns `Ok(None)` if the matrix is singular beyond the gauge (e.g.
/// the real data do not connect every item).
pub fn covariance(
    ds: &Dataset,
    theta: &[f64],
    prior: Prior,
    keep: &[usize],
) -> Result<Option<DMatrix<f64>>> {
    let full = information(ds, theta, Scope::Real)?;
    let k = keep.len();
    let mut m = DMatrix::<f64>::zeros(k, k);
    for (a, &i) in keep.iter().enumerate() {
        for (b, &j) in keep.iter().enumerate() {
            m[(a, b)] = full[(i, j)];
        }
        m[(a, a)] += prior.neg_hess(theta[i]);
    }
    if prior.is_proper() {
        return Ok(m.cholesky().map(|c| c.inverse()));
    }
    let s = (0..k).map(|i| m[(i, i)]).sum::<f64>() / k as f64;
    let mut shifted = m.clone();
    shifted.add_scalar_mut(s / k as f64);
    let Some(c) = shifted.cholesky() else {
        return Ok(None);
    };
    let mut v = c.inverse();
    // (M + sJ)^{-1} = M⁺ + J/s with J = 11ᵀ/k.
    v.add_scalar_mut(-1.0 / (s * k as f64));
    // Guard: a second null direction shows up as a huge, unstable variance.
    let cond_bad = (0..k).any(|i| !v[(i, i)].is_finite() || v[(i, i)] < -1e-8);
    if cond_bad {
        return Ok(None);
    }
    Ok(Some(v))
}

/// Backtracking line search for a Newton step on a concave objective:
/// halve `t` from 1 until `x + t·step` improves `obj`, or (at the numerical
/// floor, where the objective can no longer resolve progress) keeps it and
/// shrinks the score's max-norm below `score_norm`. Returns the accepted
/// point with its objective and score, or `None` after 60 halvings.
pub(crate) fn backtrack(
    x: &[f64],
    step: &[f64],
    obj: f64,
    score_norm: f64,
    mut eval: impl FnMut(&[f64]) -> (f64, Vec<f64>),
) -> Option<(Vec<f64>, f64, Vec<f64>)> {
    let mut t = 1.0;
    for _ in 0..60 {
        let cand: Vec<f64> = x.iter().zip(step).map(|(a, d)| a + t * d).collect();
        let (o2, g2) = eval(&cand);
        if o2.is_finite()
            && (o2 > obj || (o2 >= obj - 1e-12 * obj.abs() && max_abs(&g2) < score_norm))
        {
            return Some((cand, o2, g2));
        }
        t *= 0.5;
    }
    None
}
