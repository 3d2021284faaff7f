//! PL regression `log λ_i = x_iᵀβ` by maximum likelihood or MAP under
//! `β ~ N(0, I/η)` (Guo et al. 2019 §4; PlackettLuce's `pladmm`/`glm` analogue),
//! by Newton's method with backtracking on the concave objective.
//!
//! With `θ = Xβ` the score is `Xᵀ s(θ)` and the observed information
//! `Xᵀ I(θ) X`, where `s` and `I` are the PL score and information in
//! log-worths ([`crate::model::pl`], [`crate::model::information`]) — so every
//! observation kind (top-k, choices, weights, unknown-order ties) is covered
//! by the same code. Standard errors come from the information of the real
//! observations plus the prior precision, and are reported on the original
//! feature scale.

use crate::data::Dataset;
use crate::data::features::Features;
use crate::error::{Error, Result};
use crate::model::information::information;
use crate::model::pl::{self, Scope};
use crate::numerics::linalg::{self, Cholesky};
use crate::numerics::max_abs;
use nalgebra::{DMatrix, DVector};

/// Largest number of items for the dense information matrix.
pub const MAX_ITEMS: usize = 5_000;

/// A fitted regression.
#[derive(Debug, Clone)]
pub struct RegressionFit {
    /// Coefficients on the original feature scale.
    pub beta: Vec<f64>,
    /// Their standard errors.
    pub se: Option<Vec<f64>>,
    /// Covariance on the original scale.
    pub cov: Option<DMatrix<f64>>,
    /// Coefficients on the working (possibly standardised) scale.
    pub beta_work: Vec<f64>,
    /// Covariance on the working scale.
    pub cov_work: Option<DMatrix<f64>>,
    /// Log-likelihood of the real observations.
    pub log_likelihood: f64,
    /// Newton iterations.
    pub iterations: usize,
    /// Converged to the tolerance.
    pub converged: bool,
    /// `η` of the Gaussian prior (0 = MLE).
    pub eta: f64,
}

impl RegressionFit {
    /// Deviance `−2ℓ`.
    pub fn deviance(&self) -> f64 {
        -2.0 * self.log_likelihood
    }
}

fn objective(
    ds: &Dataset,
    x: &DMatrix<f64>,
    beta: &DVector<f64>,
    wins: &[f64],
    eta: f64,
) -> (f64, DVector<f64>, Vec<f64>) {
    let theta: Vec<f64> = (x * beta).iter().copied().collect();
    let (g, ll) = pl::score(ds, &theta, wins, Scope::All);
    let gb = x.transpose() * DVector::from_column_slice(&g) - beta * eta;
    (ll - 0.5 * eta * beta.norm_squared(), gb, theta)
}

/// Fit by Newton's method. `eta = 0` gives the MLE.
pub fn fit_regression(
    ds: &Dataset,
    feats: &Features,
    eta: f64,
    tol: f64,
    max_iter: Option<usize>,
) -> Result<RegressionFit> {
    if !(eta.is_finite() && eta >= 0.0) {
        return Err(Error::param("eta", format!("must be ≥ 0, got {eta}")));
    }
    if ds.n_items() > MAX_ITEMS {
        return Err(Error::Unsupported(format!(
            "PL regression by Newton needs the dense information over {} items (limit {MAX_ITEMS}); use `engine=vb`",
            ds.n_items()
        )));
    }
    if ds.ties() == crate::data::TieSemantics::Event && ds.has_ties() {
        return Err(Error::Unsupported(
            "PL regression with ties as events is not supported; use `ties=unknown`".into(),
        ));
    }
    pl::check_supported(ds)?;
    let x = &feats.x;
    let d = feats.d();
    let wins = pl::wins(ds, Scope::All);
    let mut beta = DVector::<f64>::zeros(d);
    let (mut obj, mut g, mut theta) = objective(ds, x, &beta, &wins, eta);
    let mut it = 0;
    let max_iter = max_iter.unwrap_or(200);
    while it < max_iter && max_abs(g.as_slice()) > tol {
        it += 1;
        let info = information(ds, &theta, Scope::All)?;
        let mut h = x.transpose() * info * x;
        for j in 0..d {
            h[(j, j)] += eta;
        }
        let Some(chol) = Cholesky::new(&h) else {
            return Err(Error::not_identifiable(
                "the information about the coefficients is singular (too few comparisons for these features); \
                 use `engine=map` with a prior (`eta`) or fewer features",
            ));
        };
        let step = chol.solve(&g);
        let sn = max_abs(g.as_slice());
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..60 {
            let cand = &beta + &step * t;
            let (o2, g2, th2) = objective(ds, x, &cand, &wins, eta);
            if o2.is_finite()
                && (o2 > obj || (o2 >= obj - 1e-12 * obj.abs() && max_abs(g2.as_slice()) < sn))
            {
                beta = cand;
                obj = o2;
                g = g2;
                theta = th2;
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    let converged = max_abs(g.as_slice()) <= tol;
    let spread = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - theta.iter().copied().fold(f64::INFINITY, f64::min);
    let diverged = || {
        Error::not_identifiable(format!(
            "the maximum-likelihood coefficients diverge (log-worths spread over {spread:.0} units): the \
             features separate winners from losers; use `engine=map` (Gaussian prior, `eta`) or vb"
        ))
    };
    if eta == 0.0 && (!converged && spread > 30.0 || spread > 200.0) {
        return Err(diverged());
    }
    if eta == 0.0 && separated(ds, x, &beta, &theta)? {
        return Err(diverged());
    }
    // Covariance from the real observations plus the prior precision.
    let info = information(ds, &theta, Scope::Real)?;
    let mut h = x.transpose() * info * x;
    for j in 0..d {
        h[(j, j)] += eta;
    }
    let cov_work = Cholesky::new(&h).map(|c| c.inverse());
    let cov = cov_work.as_ref().map(|c| feats.cov_to_original(c));
    let ll = pl::log_likelihood(ds, &theta, Scope::Real);
    Ok(RegressionFit {
        beta: feats.to_original(beta.as_slice()),
        se: cov
            .as_ref()
            .map(|c| (0..d).map(|j| c[(j, j)].max(0.0).sqrt()).collect()),
        cov,
        beta_work: beta.as_slice().to_vec(),
        cov_work,
        log_likelihood: ll,
        iterations: it,
        converged,
        eta,
    })
}

/// (Quasi-)separation: Newton stops with a tiny score also when the
/// likelihood only approaches its supremum as β runs off to infinity along a
/// direction that orders every observation. There the information collapses
/// along that direction (exponentially in the spread of log-worths), and
/// moving much further along it does not lower the likelihood — at a finite
/// MLE it would, by strict concavity.
fn separated(ds: &Dataset, x: &DMatrix<f64>, beta: &DVector<f64>, theta: &[f64]) -> Result<bool> {
    let h1 = x.transpose() * information(ds, theta, Scope::All)? * x;
    let zero = vec![0.0; theta.len()];
    let h0 = x.transpose() * information(ds, &zero, Scope::All)? * x;
    let e1 = linalg::symmetric_eigen(&h1).ok_or_else(|| {
        Error::Numerical("eigendecomposition failed in the separation check".into())
    })?;
    let e0 = linalg::symmetric_eigen(&h0).ok_or_else(|| {
        Error::Numerical("eigendecomposition failed in the separation check".into())
    })?;
    let (k, &lmin) = e1
        .eigenvalues
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .expect("d ≥ 1");
    let l0 = e0
        .eigenvalues
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .max(1e-300);
    if lmin > 1e-6 * l0 {
        return Ok(false);
    }
    let v = e1.eigenvectors.column(k).into_owned();
    let ll = pl::log_likelihood(ds, theta, Scope::All);
    let step = 10.0 * (1.0 + beta.norm());
    for sign in [1.0, -1.0] {
        let b = beta + &v * (sign * step);
        let th: Vec<f64> = (x * b).iter().copied().collect();
        let l2 = pl::log_likelihood(ds, &th, Scope::All);
        if l2 >= ll - 1e-9 * (1.0 + ll.abs()) {
            return Ok(true);
        }
    }
    Ok(false)
}
