//! Point estimation (MLE and MAP) with standard errors: the `mle` and `map`
//! engines. Chooses among Newton, MM (SQUAREM) and I-LSR, handles
//! pseudo-rankings and the existence check, and fills the shared summary.

use super::lsr::ilsr;
use super::mm::{MmOptions, mm};
use super::newton::{NewtonOptions, covariance, newton, standard_errors};
use super::prior::Prior;
use crate::data::graph::{connectivity, non_existence_error};
use crate::data::{Dataset, TieSemantics};
use crate::error::{Error, Result};
use crate::model::pl::{self, Scope};
use crate::numerics::fixed_point::IterSettings;
use crate::posterior::{Gauge, Summary};

/// Largest number of items for which Newton (dense Hessian) may finish an MM run.
pub const NEWTON_MAX: usize = 2_000;
/// Largest number of items for which standard errors are computed by default.
pub const SE_MAX: usize = 5_000;

/// Optimisation algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// SQUAREM-accelerated MM, finished by Newton if it stalls (up to
    /// [`NEWTON_MAX`] items).
    Auto,
    /// Newton with line search (dense Hessian).
    Newton,
    /// MM (Hunter 2004) with SQUAREM; MAP under Gamma or Normal priors.
    Mm,
    /// Iterative Luce spectral ranking (MLE only).
    Ilsr,
}

/// Settings for [`fit_point`].
#[derive(Debug, Clone)]
pub struct PointOptions {
    /// Prior; `Flat` gives the MLE.
    pub prior: Prior,
    /// Pseudo-rankings of this weight against a ghost item.
    pub pseudo: Option<f64>,
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Score tolerance (max-norm of ∂objective/∂θ).
    pub tol: f64,
    /// Iteration cap (sweeps for MM, iterations for Newton/I-LSR);
    /// `None` for each algorithm's default.
    pub max_iter: Option<usize>,
    /// Gauge for reported log-worths.
    pub gauge: Gauge,
    /// Compute standard errors (needs the dense information matrix).
    pub standard_errors: bool,
    /// Also return the full covariance matrix of the log-worths in the
    /// gauge (an `n × n` inverse; only when asked for).
    pub covariance: bool,
}

impl Default for PointOptions {
    fn default() -> Self {
        PointOptions {
            prior: Prior::Flat,
            pseudo: None,
            algorithm: Algorithm::Auto,
            tol: 1e-10,
            max_iter: None,
            gauge: Gauge::MeanCentred,
            standard_errors: true,
            covariance: false,
        }
    }
}

impl PointOptions {
    /// The defaults with `prior` (MAP under a Gamma prior:
    /// `PointOptions::with_prior(Prior::gamma(2.0, 1.0))`).
    pub fn with_prior(prior: Prior) -> Self {
        PointOptions {
            prior,
            ..Default::default()
        }
    }

    /// The defaults with log-worths reported in `gauge` (e.g.
    /// `Gauge::Reference(id)`: that item's log-worth is 0).
    pub fn with_gauge(gauge: Gauge) -> Self {
        PointOptions {
            gauge,
            ..Default::default()
        }
    }
}

/// An estimated tie prevalence (Davidson–Luce).
pub type TieParam = crate::posterior::TieParameter;

/// A fitted point estimate (serialisable: a saved fit reads back bit for
/// bit).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PointFit {
    /// `"mle"` or `"map"`.
    pub engine: std::borrow::Cow<'static, str>,
    /// Algorithm actually used (e.g. `"newton"`, `"mm+squarem"`).
    pub algorithm: String,
    /// Log-worths of the real items (any gauge; see `summary`).
    pub theta: Vec<f64>,
    /// Converged to `tol`.
    pub converged: bool,
    /// The score tolerance the fit ran at.
    pub tolerance: f64,
    /// Iterations (Newton/I-LSR) or data sweeps (MM).
    pub iterations: usize,
    /// Max-norm of the score at the estimate.
    #[serde(with = "crate::io::float_serde::f64")]
    pub score_norm: f64,
    /// Log-likelihood of the real observations at the estimate.
    #[serde(with = "crate::io::float_serde::f64")]
    pub log_likelihood: f64,
    /// Number of free parameters used for AIC.
    pub n_parameters: usize,
    /// Per-item summary.
    pub summary: Summary,
    /// Notes for the user (dropped observations, skipped SEs, …).
    pub notes: Vec<String>,
    /// Tie prevalences δ_k (ties as events only).
    pub tie_parameters: Vec<TieParam>,
    /// Covariance of the log-worths in the summary's gauge, if asked for.
    pub covariance: Option<nalgebra::DMatrix<f64>>,
}

impl PointFit {
    /// Deviance `−2ℓ` (the saturated log-likelihood of ranking data is 0).
    pub fn deviance(&self) -> f64 {
        -2.0 * self.log_likelihood
    }
    /// AIC `−2ℓ + 2k`.
    pub fn aic(&self) -> f64 {
        self.deviance() + 2.0 * self.n_parameters as f64
    }
}

impl crate::posterior::Posterior for PointFit {
    fn info(&self) -> crate::posterior::FitInfo {
        crate::posterior::FitInfo {
            engine: self.engine.to_string(),
            algorithm: self.algorithm.clone(),
            converged: self.converged,
            iterations: self.iterations,
            tolerance: Some(self.tolerance),
            log_likelihood: Some(self.log_likelihood),
            n_parameters: Some(self.n_parameters),
            log_evidence: None,
            elbo: None,
            trace: None,
            notes: self.notes.clone(),
        }
    }

    fn summary(&self, _names: &[String], gauge: Gauge) -> Summary {
        // Standard errors are computed in the gauge the fit was asked for.
        debug_assert_eq!(gauge, self.summary.gauge);
        self.summary.clone()
    }

    fn draws(&self) -> std::borrow::Cow<'_, crate::posterior::Draws> {
        std::borrow::Cow::Owned(crate::posterior::fitted::point_draws(&self.theta))
    }

    fn point(&self) -> Option<&[f64]> {
        Some(&self.theta)
    }

    fn tie_parameters(&self) -> &[TieParam] {
        &self.tie_parameters
    }

    fn covariance(&self) -> Option<&nalgebra::DMatrix<f64>> {
        self.covariance.as_ref()
    }
}

/// Fit the MLE (flat prior) or MAP.
pub fn fit_point(ds: &Dataset, opts: &PointOptions) -> Result<PointFit> {
    opts.prior.check()?;
    if ds.n_real_obs() == 0 {
        return Err(Error::Data(
            "no informative observations (every observation lists fewer than two items)".into(),
        ));
    }
    if ds.ties() == TieSemantics::Event && ds.has_ties() {
        return super::davidson::fit_davidson(ds, opts);
    }
    pl::check_supported(ds)?;
    let n_real = ds.n_items();
    let mut notes = Vec::new();
    if let Gauge::Reference(r) = opts.gauge
        && r as usize >= n_real
    {
        return Err(Error::param("reference", "reference item out of range"));
    }
    let flat = !opts.prior.is_proper();
    if flat && opts.pseudo.is_none() {
        let c = connectivity(ds);
        if !c.strongly_connected {
            return Err(non_existence_error(&c, ds.items()));
        }
    }
    if let Prior::Gamma { shape, .. } = opts.prior
        && shape <= 1.0
    {
        let w = pl::wins(ds, Scope::All);
        let zero: Vec<&str> = (0..n_real)
            .filter(|&i| w[i] + shape - 1.0 <= 0.0)
            .map(|i| ds.items().name(i as u32))
            .collect();
        if !zero.is_empty() {
            return Err(Error::not_identifiable(format!(
                "the MAP under Gamma(shape {shape}) is on the boundary (worth 0) for {} \
                     item(s) that never win: {}; use `prior_shape` > 1, or a Bayesian engine \
                     (posterior means exist for any shape > 0)",
                zero.len(),
                zero.iter().take(12).cloned().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    // Identical observations iterate as one weighted row (exact; Hunter's
    // sweeps and Newton's information are sums over rows).
    let collapsed = ds.collapse_if_worthwhile();
    let ds_work = collapsed.as_ref().unwrap_or(ds);
    let (work, fixed) = match opts.pseudo {
        Some(w) => {
            let (d, g) = ds_work.with_ghost(w)?;
            notes.push(format!(
                "pseudo-rankings: each item won and lost {} time(s) against a ghost item; \
                 standard errors and log-likelihood use the real data only",
                crate::numerics::sig(w, 15)
            ));
            (d, Some(g))
        }
        None => (ds_work.clone(), None),
    };
    let n = work.n_items();
    let theta0 = vec![0.0; n];
    if opts.algorithm == Algorithm::Ilsr && !flat {
        return Err(Error::param(
            "algorithm",
            "ilsr computes the MLE only (no prior)",
        ));
    }
    let max_iter = |default: usize| opts.max_iter.unwrap_or(default);
    let mm_opts = |cap: usize| MmOptions {
        prior: opts.prior,
        fixed,
        iter: IterSettings::new(opts.tol, cap),
        observer: None,
    };
    let newton_opts = NewtonOptions {
        prior: opts.prior,
        fixed,
        max_iter: max_iter(200),
        tol: opts.tol,
    };
    let (theta_full, converged, iterations, score_norm, alg_name) = match opts.algorithm {
        Algorithm::Auto => {
            // SQUAREM-accelerated MM is cheapest per unit of progress; if it
            // stalls on badly conditioned data, Newton finishes the job. A
            // given `max_iter` caps MM sweeps and Newton steps together.
            let mm_cap = if n <= NEWTON_MAX { 500 } else { 100_000 };
            let r = mm(
                &work,
                &theta0,
                &mm_opts(opts.max_iter.map_or(mm_cap, |b| b.min(mm_cap))),
            )?;
            let newton_budget = opts.max_iter.map_or(200, |b| b.saturating_sub(r.sweeps));
            if r.converged || n > NEWTON_MAX || newton_budget == 0 {
                (
                    r.theta,
                    r.converged,
                    r.sweeps,
                    r.score_norm,
                    "mm+squarem".to_string(),
                )
            } else {
                let nr = newton(
                    &work,
                    &r.theta,
                    &NewtonOptions {
                        max_iter: newton_budget,
                        ..newton_opts.clone()
                    },
                )?;
                (
                    nr.theta,
                    nr.converged,
                    r.sweeps + nr.iterations,
                    nr.score_norm,
                    "mm+squarem, newton".to_string(),
                )
            }
        }
        Algorithm::Newton => {
            // A few MM sweeps give Newton a start inside the region where
            // full steps are taken, which matters on badly conditioned data.
            let warm = mm(&work, &theta0, &mm_opts(6))?;
            let r = newton(&work, &warm.theta, &newton_opts)?;
            (
                r.theta,
                r.converged,
                r.iterations,
                r.score_norm,
                "newton".to_string(),
            )
        }
        Algorithm::Mm => {
            let r = mm(&work, &theta0, &mm_opts(max_iter(100_000)))?;
            (
                r.theta,
                r.converged,
                r.sweeps,
                r.score_norm,
                "mm+squarem".to_string(),
            )
        }
        Algorithm::Ilsr => {
            if fixed.is_some() {
                return Err(Error::param(
                    "algorithm",
                    "ilsr does not support `pseudo`; use mm or newton",
                ));
            }
            let r = ilsr(&work, &theta0, opts.tol, max_iter(10_000))?;
            (
                r.theta,
                r.converged,
                r.iterations,
                r.score_norm,
                "ilsr".to_string(),
            )
        }
    };
    if theta_full.iter().any(|t| !t.is_finite()) {
        return Err(Error::Numerical(
            "non-finite estimate; the data may not identify every worth (try `pseudo` or a prior)"
                .into(),
        ));
    }
    if !converged {
        notes.push(format!(
            "did not reach the score tolerance {:e} (relative score max-norm {score_norm:.3e}); \
             raise `max_iter`{}",
            opts.tol,
            if alg_name.contains("newton") {
                ""
            } else {
                " or use `algorithm=newton`"
            }
        ));
    }
    // Everything reported is about the real items and the real data.
    let keep: Vec<usize> = (0..n_real).collect();
    let theta: Vec<f64> = keep.iter().map(|&i| theta_full[i]).collect();
    let loglik = pl::log_likelihood(&work, &theta_full, Scope::Real);
    let se = if opts.standard_errors && n_real <= SE_MAX {
        let c = standard_errors(&work, &theta_full, opts.prior, &keep, &opts.gauge)?;
        if c.is_none() {
            notes.push(
                "standard errors unavailable: the information matrix of the real data is \
                 singular beyond the gauge (items not connected by the real data)"
                    .into(),
            );
        }
        c
    } else {
        if opts.standard_errors {
            notes.push(format!(
                "standard errors skipped: {n_real} items exceed the dense-matrix limit {SE_MAX}"
            ));
        }
        None
    };
    let summary = Summary::from_point_se(ds.items().names(), &theta, se, opts.gauge.clone());
    let cov = if opts.covariance {
        if n_real > SE_MAX {
            return Err(Error::param(
                "vcov",
                format!("{n_real} items exceed the dense-matrix limit {SE_MAX}"),
            ));
        }
        covariance(&work, &theta_full, opts.prior, &keep)?.map(|v| in_gauge(&v, &opts.gauge))
    } else {
        None
    };
    Ok(PointFit {
        engine: if flat { "mle" } else { "map" }.into(),
        algorithm: alg_name,
        theta,
        converged,
        tolerance: opts.tol,
        iterations,
        score_norm,
        log_likelihood: loglik,
        n_parameters: n_real.saturating_sub(1),
        summary,
        notes,
        tie_parameters: Vec::new(),
        covariance: cov,
    })
}

/// A contrast-correct covariance of log-worths expressed in `gauge`:
/// `P V Pᵀ` with `P = I − 11ᵀ/k` (mean-centred) or `P = I − 1e_rᵀ`
/// (relative to item r, whose row and column are then zero).
pub(crate) fn in_gauge(v: &nalgebra::DMatrix<f64>, gauge: &Gauge) -> nalgebra::DMatrix<f64> {
    let k = v.nrows();
    let entry: Box<dyn Fn(usize, usize) -> f64> = match gauge {
        Gauge::MeanCentred => {
            let r: Vec<f64> = (0..k).map(|i| v.row(i).sum() / k as f64).collect();
            let g = r.iter().sum::<f64>() / k as f64;
            Box::new(move |i, j| v[(i, j)] - r[i] - r[j] + g)
        }
        Gauge::Reference(r) => {
            let r = *r as usize;
            // The reference item's log-worth is fixed at 0: exact zeros.
            Box::new(move |i, j| {
                if i == r || j == r {
                    0.0
                } else {
                    v[(i, j)] - v[(i, r)] - v[(r, j)] + v[(r, r)]
                }
            })
        }
    };
    // Computed once per pair, so the matrix is exactly symmetric.
    let mut c = nalgebra::DMatrix::zeros(k, k);
    for j in 0..k {
        for i in j..k {
            let x = entry(i, j);
            c[(i, j)] = x;
            c[(j, i)] = x;
        }
    }
    c
}
