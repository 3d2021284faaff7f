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
use crate::model::information::{information, information_lower};
use crate::model::pl::{self, Scope};
use crate::numerics::linalg::Cholesky;
use crate::numerics::max_abs;
use crate::posterior::Gauge;
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
        if pl::relative_score_norm(&g, &wins) <= opts.tol {
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
        let chol = Cholesky::new(&h).ok_or_else(|| {
            Error::Numerical(
                "Hessian not positive definite during Newton iterations; the data may not \
                 identify every worth (try `pseudo` or a prior)"
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
    let sn = pl::relative_score_norm(&g, &wins);
    Ok(NewtonResult {
        theta,
        iterations: it,
        converged: sn <= opts.tol,
        objective: obj,
        score_norm: sn,
    })
}

/// The information of the real observations plus the prior precision,
/// restricted to the items `keep`, and the gauge shift that makes it
/// invertible: for a flat prior the information is singular along `1`, so
/// `M + sJ` (`J = 11ᵀ/k`, `s` the mean diagonal) is factorised instead and
/// `(M + sJ)⁻¹ = M⁺ + J/s`.
fn gauged_information(
    ds: &Dataset,
    theta: &[f64],
    prior: Prior,
    keep: &[usize],
) -> Result<(DMatrix<f64>, Option<f64>)> {
    // Lower triangle only: all a Cholesky factorisation reads.
    let full = information_lower(ds, theta, Scope::Real)?;
    let k = keep.len();
    let identity = keep.len() == full.nrows() && keep.iter().enumerate().all(|(a, &i)| a == i);
    let mut m = if identity {
        full
    } else {
        // keep is increasing, so (a ≥ b) maps into the lower triangle.
        DMatrix::from_fn(k, k, |a, b| {
            if a >= b {
                full[(keep[a], keep[b])]
            } else {
                0.0
            }
        })
    };
    for (a, &i) in keep.iter().enumerate() {
        m[(a, a)] += prior.neg_hess(theta[i]);
    }
    if prior.is_proper() {
        return Ok((m, None));
    }
    let s = (0..k).map(|i| m[(i, i)]).sum::<f64>() / k as f64;
    for b in 0..k {
        for x in &mut m.as_mut_slice()[b * k + b..(b + 1) * k] {
            *x += s / k as f64;
        }
    }
    Ok((m, Some(s)))
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
    let k = keep.len();
    let (m, shift) = gauged_information(ds, theta, prior, keep)?;
    let Some(c) = Cholesky::new(&m) else {
        return Ok(None);
    };
    let mut v = c.inverse();
    if let Some(s) = shift {
        // (M + sJ)^{-1} = M⁺ + J/s with J = 11ᵀ/k.
        v.add_scalar_mut(-1.0 / (s * k as f64));
        // Guard: a second null direction shows up as a huge, unstable variance.
        let cond_bad = (0..k).any(|i| !v[(i, i)].is_finite() || v[(i, i)] < -1e-8);
        if cond_bad {
            return Ok(None);
        }
    }
    Ok(Some(v))
}

/// Standard errors of the log-worths of the items `keep` in `gauge`
/// (indices into `keep`), computing only what they need: the diagonal of
/// the inverse (one triangular inverse, no full inverse) and one solve for
/// the gauge (`V1` for the mean-centred gauge, `V e_r` for a reference
/// item). Equal to the standard errors of [`covariance`] in that gauge.
/// `Ok(None)` when [`covariance`] would be `None`.
pub fn standard_errors(
    ds: &Dataset,
    theta: &[f64],
    prior: Prior,
    keep: &[usize],
    gauge: &Gauge,
) -> Result<Option<Vec<f64>>> {
    let k = keep.len();
    let (m, shift) = gauged_information(ds, theta, prior, keep)?;
    let Some(c) = Cholesky::new(&m) else {
        return Ok(None);
    };
    // V = W − corr·11ᵀ with W = m⁻¹ and corr = 1/(sk) for a flat prior.
    let corr = shift.map_or(0.0, |s| 1.0 / (s * k as f64));
    let vdiag: Vec<f64> = c.inverse_diagonal().iter().map(|w| w - corr).collect();
    if shift.is_some() && vdiag.iter().any(|v| !v.is_finite() || *v < -1e-8) {
        return Ok(None);
    }
    let var: Vec<f64> = match gauge {
        Gauge::MeanCentred => {
            // Var(θ_i − θ̄) = V_ii − 2 (V1)_i / k + 1ᵀV1 / k².
            let w1 = c.solve(&DVector::from_element(k, 1.0));
            let v1: Vec<f64> = w1.iter().map(|x| x - corr * k as f64).collect();
            let grand = v1.iter().sum::<f64>() / (k * k) as f64;
            (0..k)
                .map(|i| vdiag[i] - 2.0 * v1[i] / k as f64 + grand)
                .collect()
        }
        Gauge::Reference(r) => {
            let r = *r as usize;
            let mut e = DVector::zeros(k);
            e[r] = 1.0;
            let wr = c.solve(&e);
            (0..k)
                .map(|i| vdiag[i] + vdiag[r] - 2.0 * (wr[i] - corr))
                .collect()
        }
    };
    Ok(Some(var.iter().map(|v| v.max(0.0).sqrt()).collect()))
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
