//! Fitting the Davidson–Luce model (ties as events): MLE or MAP over
//! log-worths θ and log tie prevalences `log δ_k`, by Newton's method with a
//! backtracking line search. The log-likelihood is concave in these
//! coordinates (a linear numerator minus a log-sum-exp of affine functions);
//! the Hessian is exact, the covariance of each stage's subset statistics
//! ([`loglik_neg_hessian`]). Standard errors come from the
//! same Hessian on the real observations (plus the prior for MAP), with the
//! gauge handled by the pseudo-inverse along `(1, …, 1, 0, …, 0)`.

use super::point::{PointFit, PointOptions, TieParam};
use super::prior::Prior;
use crate::data::graph::{connectivity, non_existence_error};
use crate::data::{Dataset, Tail};
use crate::error::{Error, Result};
use crate::model::davidson::{loglik_grad, loglik_neg_hessian, tie_orders};
use crate::numerics::linalg::Cholesky;
use crate::numerics::max_abs;
use crate::posterior::{Gauge, Summary};
use nalgebra::{DMatrix, DVector};

struct Problem<'a> {
    ds: &'a Dataset,
    orders: Vec<usize>,
    prior: Prior,
    /// Index of the item held at θ = 0 (ghost), if any.
    fixed: Option<usize>,
    n: usize,
}

impl Problem<'_> {
    fn split<'v>(&self, phi: &'v [f64]) -> (&'v [f64], &'v [f64]) {
        phi.split_at(self.n)
    }

    /// Objective and gradient over the observations `0..end`.
    fn eval(&self, phi: &[f64], end: usize, with_prior: bool) -> (f64, Vec<f64>) {
        let (th, ld) = self.split(phi);
        let (mut f, gt, gd) = loglik_grad(self.ds, th, ld, &self.orders, end);
        let mut g = gt;
        g.extend(gd);
        if with_prior {
            for i in 0..self.n {
                f += self.prior.log_density(th[i]);
                g[i] += self.prior.grad(th[i]);
            }
        }
        if let Some(k) = self.fixed {
            g[k] = 0.0;
        }
        (f, g)
    }

    /// Negative Hessian over the observations `0..end` (analytic:
    /// [`loglik_neg_hessian`]), plus the prior's curvature, with the ghost's
    /// row and column replaced by the unit vector (its log-worth is held at
    /// 0).
    fn neg_hessian(&self, phi: &[f64], end: usize, with_prior: bool) -> DMatrix<f64> {
        let p = phi.len();
        let (th, ld) = self.split(phi);
        let mut h = loglik_neg_hessian(self.ds, th, ld, &self.orders, end);
        if with_prior {
            for (i, &t) in th.iter().enumerate() {
                h[(i, i)] += self.prior.neg_hess(t);
            }
        }
        if let Some(k) = self.fixed {
            for i in 0..p {
                h[(k, i)] = 0.0;
                h[(i, k)] = 0.0;
            }
            h[(k, k)] = 1.0;
        }
        h
    }
}

/// The gauge direction `(1_θ, 0_δ)` scaled into `m` (in place) so that a
/// Cholesky factorisation exists when the only null direction is the gauge.
fn add_gauge(m: &mut DMatrix<f64>, n: usize) {
    let s = (0..n).map(|i| m[(i, i)]).sum::<f64>().abs() / (n * n) as f64;
    let s = if s > 0.0 { s } else { 1.0 };
    for i in 0..n {
        for j in 0..n {
            m[(i, j)] += s;
        }
    }
}

/// Fit the Davidson–Luce model.
pub fn fit_davidson(ds: &Dataset, opts: &PointOptions) -> Result<PointFit> {
    opts.prior.check()?;
    let orders = tie_orders(ds);
    let flat = !opts.prior.is_proper();
    let n_real = ds.n_items();
    if matches!(opts.gauge, Gauge::Reference(r) if r as usize >= n_real) {
        return Err(Error::param("reference", "reference item out of range"));
    }
    if flat && opts.pseudo.is_none() {
        let c = connectivity(ds);
        if !c.strongly_connected {
            return Err(non_existence_error(&c, ds.items()));
        }
    }
    // δ_k is finite only if some stage could have produced a tie of order k
    // but did not.
    for &k in &orders {
        let mut ok = false;
        for obs in ds.observations() {
            let unl = if obs.tail == Tail::Universe {
                ds.universe().saturating_sub(
                    obs.members
                        .iter()
                        .filter(|&&m| (m as usize) < ds.universe())
                        .count(),
                )
            } else {
                0
            };
            for g in obs.groups().filter(|g| !g.is_tail) {
                let remaining = obs.members.len() - g.start + unl;
                if remaining >= k && g.len() != k {
                    ok = true;
                }
            }
        }
        if !ok {
            return Err(Error::not_identifiable(format!(
                "every choice among {k} or more items was a tie of order {k}: the tie prevalence \
                 delta_{k} has no finite maximum-likelihood estimate"
            )));
        }
    }
    let (work, fixed) = match opts.pseudo {
        Some(w) => {
            let (d, g) = ds.with_ghost(w)?;
            (d, Some(g as usize))
        }
        None => (ds.clone(), None),
    };
    let n = work.n_items();
    let prob = Problem {
        ds: &work,
        orders: orders.clone(),
        prior: opts.prior,
        fixed,
        n,
    };
    let p = n + orders.len();
    let all = work.n_obs();
    let mut phi = vec![0.0; p];
    let gauge = flat && fixed.is_none();
    let (mut obj, mut g) = prob.eval(&phi, all, true);
    let max_iter = opts.max_iter.unwrap_or(200);
    let mut it = 0;
    while it < max_iter && max_abs(&g) > opts.tol {
        it += 1;
        let mut h = prob.neg_hessian(&phi, all, true);
        if gauge {
            add_gauge(&mut h, n);
        }
        let Some(chol) = Cholesky::new(&h) else {
            return Err(Error::Numerical(
                "the Davidson–Luce Hessian is not positive definite; the data may not identify \
                 every worth (try `pseudo` or `engine=map`)"
                    .into(),
            ));
        };
        let step = chol.solve(&DVector::from_column_slice(&g));
        let sn = max_abs(&g);
        match super::newton::backtrack(&phi, step.as_slice(), obj, sn, |c| prob.eval(c, all, true))
        {
            Some((c, o2, g2)) => (phi, obj, g) = (c, o2, g2),
            None => break,
        }
        if gauge {
            let m = phi[..n].iter().sum::<f64>() / n as f64;
            phi[..n].iter_mut().for_each(|x| *x -= m);
        }
    }
    let score_norm = max_abs(&g);
    let converged = score_norm <= opts.tol;
    // Standard errors from the real observations (+ prior for MAP).
    let real = work.n_real_obs();
    let mut notes = vec![format!(
        "ties as events (Davidson–Luce); tie orders estimated: {}",
        if orders.is_empty() {
            "none".to_string()
        } else {
            orders
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    )];
    let mut cov: Option<DMatrix<f64>> = None;
    if opts.standard_errors {
        let mut h = prob.neg_hessian(&phi, real, opts.prior.is_proper());
        // Drop the ghost (not reported); keep real items and the δs.
        let keep: Vec<usize> = (0..n_real).chain(n..p).collect();
        let k = keep.len();
        let mut m = DMatrix::<f64>::zeros(k, k);
        for (a, &i) in keep.iter().enumerate() {
            for (b, &j) in keep.iter().enumerate() {
                m[(a, b)] = h[(i, j)];
            }
        }
        h = m;
        if flat {
            // Pseudo-inverse along the gauge direction v = (1_θ, 0_δ):
            // (M + s vvᵀ)⁻¹ − vvᵀ/(s|v|⁴)·|v|² …, written for v with |v|² = n.
            let s = (0..n_real).map(|i| h[(i, i)]).sum::<f64>().abs() / (n_real * n_real) as f64;
            let s = if s > 0.0 { s } else { 1.0 };
            let mut shifted = h.clone();
            for i in 0..n_real {
                for j in 0..n_real {
                    shifted[(i, j)] += s;
                }
            }
            cov = Cholesky::new(&shifted).map(|c| {
                let mut v = c.inverse();
                // (M + s·vvᵀ)⁻¹ = M⁺ + vvᵀ/(s|v|⁴) with |v|² = n_real.
                let corr = 1.0 / (s * (n_real * n_real) as f64);
                for i in 0..n_real {
                    for j in 0..n_real {
                        v[(i, j)] -= corr;
                    }
                }
                v
            });
        } else {
            cov = Cholesky::new(&h).map(|c| c.inverse());
        }
        if cov.is_none() {
            notes.push("standard errors unavailable: the information matrix is singular".into());
        }
    }
    let theta: Vec<f64> = phi[..n_real].to_vec();
    let theta_cov = cov
        .as_ref()
        .map(|v| v.view((0, 0), (n_real, n_real)).into_owned());
    let summary = Summary::from_point(
        ds.items().names(),
        &theta,
        theta_cov.as_ref(),
        opts.gauge.clone(),
    );
    let tie_parameters = orders
        .iter()
        .enumerate()
        .map(|(q, &k)| {
            let d = phi[n + q].exp();
            TieParam {
                order: k,
                delta: d,
                se: cov
                    .as_ref()
                    .map(|v| d * v[(n_real + q, n_real + q)].max(0.0).sqrt()),
            }
        })
        .collect();
    let (loglik, _) = prob.eval(&phi, real, false);
    if !converged {
        notes.push(format!(
            "did not reach the score tolerance (max-norm {score_norm:.2e})"
        ));
    }
    Ok(PointFit {
        engine: if flat { "mle" } else { "map" }.into(),
        algorithm: "davidson-luce newton".into(),
        theta,
        converged,
        tolerance: opts.tol,
        iterations: it,
        score_norm,
        log_likelihood: loglik,
        n_parameters: n_real.saturating_sub(1) + orders.len(),
        summary,
        notes,
        tie_parameters,
        covariance: if opts.covariance {
            theta_cov.map(|v| super::point::in_gauge(&v, &opts.gauge))
        } else {
            None
        },
    })
}
