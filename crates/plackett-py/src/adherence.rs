//! Ranker adherence from Python (Raman & Joachims 2014, as PlackettLuce):
//! the library's MAP and its report, the same JSON as
//! `plackett fit --adherence`.

use crate::{PyDataset, err, interrupt};
use numpy::{PyArray1, PyArray2};
use plackett::document::Document;
use plackett::infer::adherence::{AdherenceFit, AdherenceOptions, fit_adherence as fit_lib};
use plackett::infer::adherence_gibbs::{AdherenceGibbsOptions, adherence_gibbs};
use plackett::infer::adherence_output::AdherenceReport;
use plackett::infer::mcmc::McmcSettings;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A fitted adherence model.
#[pyclass(module = "plackett._plackett", name = "AdherenceResult", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct AdherenceResult {
    fit: AdherenceFit,
    report: AdherenceReport,
    /// Items given as integer ids (`crate::labels`).
    #[serde(default)]
    ids: bool,
}

impl AdherenceResult {
    /// The MAP's log-worths, or the posterior means when sampled.
    fn point_log_worths(&self) -> &[f64] {
        self.fit
            .posterior
            .as_ref()
            .map_or(&self.fit.log_worths, |p| &p.log_worth_mean)
    }
}

#[pymethods]
impl AdherenceResult {
    /// The head every result and document shares (`plackett::document`):
    /// family, engine, converged, iterations, n_observations, notes,
    /// diagnostics — as a dict, equal to the head of `to_json()`'s document.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::envelope::dict(py, &self.report.envelope())
    }

    /// Item names, in the order of `log_worth` and `worth` (`int`s when
    /// the data gave integer ids).
    #[getter]
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        crate::labels(py, &self.fit.items, self.ids)
    }
    /// Log-worths (mean-centred; under a worth prior on its scale): the
    /// estimate, or the posterior mean for engine="gibbs".
    #[getter]
    fn log_worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.point_log_worths().to_vec())
    }
    /// Posterior sd of each log-worth (engine="gibbs"; else None).
    #[getter]
    fn log_worth_sd<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        let p = self.fit.posterior.as_ref()?;
        Some(PyArray1::from_vec(py, p.log_worth_sd.clone()))
    }
    /// 90% posterior interval of each log-worth, shape (items, 2)
    /// (engine="gibbs"; else None).
    #[getter]
    fn log_worth_interval<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f64>>> {
        let p = self.fit.posterior.as_ref()?;
        let rows: Vec<Vec<f64>> = p.log_worth_interval.iter().map(|q| q.to_vec()).collect();
        PyArray2::from_vec2(py, &rows).ok()
    }
    /// Posterior sd of each adherence (engine="gibbs"; else None).
    #[getter]
    fn adherence_sd<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        let p = self.fit.posterior.as_ref()?;
        Some(PyArray1::from_vec(py, p.adherence_sd.clone()))
    }
    /// 90% posterior interval of each adherence, shape (rankers, 2)
    /// (engine="gibbs"; else None).
    #[getter]
    fn adherence_interval<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f64>>> {
        let p = self.fit.posterior.as_ref()?;
        let rows: Vec<Vec<f64>> = p.adherence_interval.iter().map(|q| q.to_vec()).collect();
        PyArray2::from_vec2(py, &rows).ok()
    }
    /// The sampler's diagnostics as a dict (engine="gibbs"; else None):
    /// rhat_max, ess_min, chains, draws_per_chain, scale_acceptance.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(p) = self.fit.posterior.as_ref() else {
            return Ok(None);
        };
        let d = pyo3::types::PyDict::new(py);
        d.set_item("rhat_max", p.rhat_max)?;
        d.set_item("ess_min", p.ess_min)?;
        d.set_item("chains", p.chains)?;
        d.set_item("draws_per_chain", p.draws_per_chain)?;
        d.set_item("scale_acceptance", p.scale_acceptance)?;
        Ok(Some(d.into_any()))
    }
    /// Worths normalised to sum to 1.
    #[getter]
    fn worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let lw = self.point_log_worths();
        let m = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = lw.iter().map(|t| (t - m).exp()).collect();
        let z: f64 = e.iter().sum();
        PyArray1::from_vec(py, e.into_iter().map(|x| x / z).collect())
    }
    /// Ranker names, in the order of `adherence`.
    #[getter]
    fn rankers(&self) -> Vec<String> {
        self.fit.rankers.clone()
    }
    /// Each ranker's adherence η_r (the posterior mean for engine="gibbs").
    #[getter]
    fn adherence<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let a = self
            .fit
            .posterior
            .as_ref()
            .map_or(&self.fit.adherence, |p| &p.adherence_mean);
        PyArray1::from_vec(py, a.clone())
    }
    /// Log-likelihood of the real observations at the estimate.
    #[getter]
    fn log_likelihood(&self) -> f64 {
        self.fit.log_likelihood
    }
    /// The maximised objective (PlackettLuce's log-posterior).
    #[getter]
    fn log_posterior(&self) -> f64 {
        self.fit.log_posterior
    }
    /// Whether the stopping rule held.
    #[getter]
    fn converged(&self) -> bool {
        self.fit.converged
    }
    /// Map evaluations.
    #[getter]
    fn iterations(&self) -> usize {
        self.fit.iterations
    }
    /// Notes.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.report.notes.clone()
    }
    /// Table of rankers: ranker, adherence, observations.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item(
            "ranker",
            self.report
                .rankers
                .iter()
                .map(|r| r.name.clone())
                .collect::<Vec<_>>(),
        )?;
        d.set_item(
            "adherence",
            PyArray1::from_vec(
                py,
                self.report.rankers.iter().map(|r| r.adherence).collect(),
            ),
        )?;
        d.set_item(
            "observations",
            PyArray1::from_vec(
                py,
                self.report.rankers.iter().map(|r| r.observations).collect(),
            ),
        )?;
        crate::frame(py, d)
    }
    /// The CLI's JSON (`plackett fit --adherence --output json`).
    fn to_json(&self) -> String {
        self.report.to_json()
    }
    /// Write the HTML page `plackett fit --adherence --report` writes (the
    /// worths, every ranker's adherence, the least adherent rankers) to
    /// ``path`` (a str or path-like); nothing is written if it fails.
    fn report(&self, path: std::path::PathBuf) -> PyResult<()> {
        let page = plackett::report::adherence::adherence_html(
            &self.report,
            "plackett.fit_adherence",
            None,
        );
        crate::write_page(&path, &page)
    }
    /// The fit as a model for predictions (``plackett.AdherenceModel``), the
    /// model file `plackett fit --adherence --model-out` writes: the MAP, or
    /// at most 4,000 posterior draws when sampled.
    fn model(&self) -> PyResult<crate::model::AdherenceModel> {
        let prior = self.report.adherence_prior.map(|[a, b]| (a, b));
        Ok(crate::model::AdherenceModel {
            m: plackett::posterior::SavedAdherence::new(
                &self.report.engine,
                &self.fit,
                prior,
                4000,
            )
            .map_err(err)?,
        })
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_adherence")
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett.AdherenceResult(items={}, rankers={}, log_posterior={:.6})",
            self.fit.items.len(),
            self.fit.rankers.len(),
            self.fit.log_posterior
        )
    }
}

/// Read back a pickled [`AdherenceResult`].
#[pyfunction]
pub fn _restore_adherence(state: &[u8]) -> PyResult<AdherenceResult> {
    crate::restore(state)
}

/// Fit the adherence model; keyword arguments are named like the CLI's
/// flags (see `plackett.fit_adherence`).
#[pyfunction]
#[pyo3(signature = (data, *, engine = "mle", adherence_shape = 10.0, adherence_rate = 10.0,
    prior_shape = None, prior_rate = None, pseudo = None, fixed = None, rankers = None,
    tol = None, max_iter = None, samples = 5000, burn_in = 1000, chains = 4, seed = 1))]
#[allow(clippy::too_many_arguments)]
pub fn fit_adherence(
    py: Python<'_>,
    data: &PyDataset,
    engine: &str,
    adherence_shape: f64,
    adherence_rate: f64,
    prior_shape: Option<f64>,
    prior_rate: Option<f64>,
    pseudo: Option<f64>,
    fixed: Option<Vec<f64>>,
    rankers: Option<Vec<String>>,
    tol: Option<f64>,
    max_iter: Option<usize>,
    samples: usize,
    burn_in: usize,
    chains: usize,
    seed: u64,
) -> PyResult<AdherenceResult> {
    let worth_prior = match engine {
        "mle" => {
            if prior_shape.is_some() || prior_rate.is_some() {
                return Err(PyValueError::new_err(
                    "invalid option prior: only with engine=\"map\" (mle has no worth prior)",
                ));
            }
            None
        }
        "map" | "gibbs" => Some((prior_shape.unwrap_or(2.0), prior_rate.unwrap_or(1.0))),
        other => {
            return Err(PyValueError::new_err(format!(
                "not supported: adherence with engine={other:?}; use \"mle\", \"map\" or \"gibbs\""
            )));
        }
    };
    let sampling = engine == "gibbs";
    let defaults = AdherenceOptions::default();
    let opts = AdherenceOptions {
        prior_shape: adherence_shape,
        prior_rate: adherence_rate,
        worth_prior,
        pseudo,
        fixed,
        tol: tol.unwrap_or(defaults.tol),
        max_iter: max_iter.unwrap_or(defaults.max_iter),
        observer: None,
    };
    let named = crate::ranked_by(data, rankers.as_deref())?;
    let ds = &*named;
    let fit = if sampling {
        let mcmc = McmcSettings::new(samples, burn_in, chains, seed);
        interrupt::run(py, |obs| {
            adherence_gibbs(
                ds,
                &AdherenceGibbsOptions {
                    model: opts.clone(),
                    mcmc,
                    observer: obs,
                },
            )
        })?
    } else {
        interrupt::run(py, |obs| {
            let mut o = opts.clone();
            o.observer = obs;
            fit_lib(ds, &o)
        })?
    };
    let mut report = AdherenceReport::new(ds, &fit, &opts);
    for n in &mut report.notes {
        *n = plackett::error::render_params(n, plackett::error::ParamStyle::Python);
    }
    Ok(AdherenceResult {
        fit,
        report,
        ids: data.ids,
    })
}
