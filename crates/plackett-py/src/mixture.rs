//! Finite PL mixtures from Python (Mollica & Tardella 2017): the library's
//! EM/MAP and its report, the same JSON as `plackett fit --components`.

use crate::{PyDataset, err, interrupt};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use plackett::document::Document;
use plackett::infer::mcmc::McmcSettings;
use plackett::infer::mixture::{MixtureFit, MixtureOptions, fit_range, mixture_log_likelihood};
use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, gibbs_range};
use plackett::infer::mixture_output::MixtureReport;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A fitted mixture: the selected fit, every fit of the sweep, the report.
#[pyclass(module = "plackett._plackett", name = "MixtureResult", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct MixtureResult {
    names: Vec<String>,
    /// Items given as integer ids (`crate::labels`).
    #[serde(default)]
    ids: bool,
    fits: Vec<MixtureFit>,
    selected: usize,
    report: MixtureReport,
}

impl MixtureResult {
    fn fit(&self) -> &MixtureFit {
        &self.fits[self.selected]
    }

    fn index(&self, item: &Bound<'_, PyAny>) -> PyResult<usize> {
        crate::item_index(&self.names, item)
    }
}

fn matrix<'py>(py: Python<'py>, rows: &[Vec<f64>], cols: usize) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    Array2::from_shape_vec((rows.len(), cols), flat)
        .expect("rows of equal length")
        .into_pyarray(py)
}

#[pymethods]
impl MixtureResult {
    /// The head every result and document shares (`plackett::document`):
    /// family, engine, converged, iterations, n_observations, notes,
    /// diagnostics — as a dict, equal to the head of `to_json()`'s document.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::envelope::dict(py, &self.report.envelope())
    }

    /// Item names, in the order of every item axis (`int`s when the data
    /// gave integer ids).
    #[getter]
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        crate::labels(py, &self.names, self.ids)
    }
    /// `mle` or `map`.
    #[getter]
    fn engine(&self) -> String {
        self.fit().engine.clone()
    }
    /// G of the selected fit.
    #[getter]
    fn components(&self) -> usize {
        self.fit().components()
    }
    /// Mixture weights, decreasing (shape G).
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.fit().weights.clone())
    }
    /// Log-worths per component, mean-centred (shape G × items).
    #[getter]
    fn log_worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        matrix(py, &self.fit().log_worths, self.names.len())
    }
    /// Worths per component, normalised to sum to one (shape G × items).
    #[getter]
    fn worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let rows: Vec<Vec<f64>> = self
            .report
            .components
            .iter()
            .map(|c| c.items.iter().map(|i| i.worth).collect())
            .collect();
        matrix(py, &rows, self.names.len())
    }
    /// P(component | observation) (shape observations × G).
    #[getter]
    fn membership<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        matrix(py, &self.fit().membership, self.fit().components())
    }
    /// Log-likelihood at the estimate.
    #[getter]
    fn log_likelihood(&self) -> f64 {
        self.fit().log_likelihood
    }
    /// BIC (PLMIX's definition, N = number of rankings).
    #[getter]
    fn bic(&self) -> f64 {
        self.fit().bic()
    }
    /// AIC.
    #[getter]
    fn aic(&self) -> f64 {
        self.fit().aic()
    }
    /// EM: the best start met the stopping rule; Gibbs: split-R̂ ≤ 1.01
    /// and ESS ≥ 400 after relabelling.
    #[getter]
    fn converged(&self) -> bool {
        self.fit().converged
    }
    /// Posterior sd of each weight (gibbs; None for EM).
    #[getter]
    fn weight_sd<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        let p = self.fit().posterior.as_ref()?;
        Some(PyArray1::from_vec(py, p.weight_sd.clone()))
    }
    /// Posterior sd of each log-worth (gibbs; G × items; None for EM).
    #[getter]
    fn log_worth_sd<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f64>>> {
        let p = self.fit().posterior.as_ref()?;
        Some(matrix(py, &p.log_worth_sd, self.names.len()))
    }
    /// DIC (gibbs; PLMIX's DIC1: D̄ + p_D with p_D = D̄ − D(MAP)).
    #[getter]
    fn dic(&self) -> Option<f64> {
        self.fit().posterior.as_ref().map(|p| p.dic)
    }
    /// BPIC (gibbs; D̄ + 2 p_D).
    #[getter]
    fn bpic(&self) -> Option<f64> {
        self.fit().posterior.as_ref().map(|p| p.bpic)
    }
    /// Relabelled posterior draws (gibbs): a dict with `weights` (chains ×
    /// draws × G) and `log_worth` (chains × draws × G × items); None for EM.
    #[getter]
    fn draws<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        let Some(p) = self.fit().posterior.as_ref() else {
            return Ok(None);
        };
        let (c, m, g, n) = (
            p.chains,
            p.draws_per_chain,
            self.fit().components(),
            self.names.len(),
        );
        let w: Vec<f64> = p.weight_draws.iter().flatten().flatten().copied().collect();
        let t: Vec<f64> = p
            .log_worth_draws
            .iter()
            .flatten()
            .flatten()
            .flatten()
            .copied()
            .collect();
        let d = pyo3::types::PyDict::new(py);
        d.set_item(
            "weights",
            numpy::ndarray::Array3::from_shape_vec((c, m, g), w)
                .expect("chains × draws × G")
                .into_pyarray(py),
        )?;
        d.set_item(
            "log_worth",
            numpy::ndarray::Array4::from_shape_vec((c, m, g, n), t)
                .expect("chains × draws × G × items")
                .into_pyarray(py),
        )?;
        Ok(Some(d))
    }
    /// Notes for the user.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.report.notes.clone()
    }
    /// One row per G fitted: components, log_likelihood, bic, aic (a pandas
    /// DataFrame when pandas is installed, else a dict of numpy arrays).
    fn model_choice<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        let rows = &self.report.model_choice;
        d.set_item(
            "components",
            rows.iter().map(|r| r.components).collect::<Vec<_>>(),
        )?;
        for (k, f) in [
            (
                "log_likelihood",
                (|r: &plackett::infer::mixture_output::ModelChoiceRow| r.log_likelihood)
                    as fn(&_) -> f64,
            ),
            ("bic", |r| r.bic),
            ("aic", |r| r.aic),
        ] {
            d.set_item(k, PyArray1::from_vec(py, rows.iter().map(f).collect()))?;
        }
        crate::frame(py, d)
    }
    /// Posterior predictive checks (gibbs): a dict with `top1` and `pairs`
    /// tables (item[, other], observed, mean, low, high, p_value) — pandas
    /// DataFrames when pandas is installed; None for EM.
    fn predictive_checks<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        let Some(pc) = self
            .fit()
            .posterior
            .as_ref()
            .and_then(|p| p.checks.as_ref())
        else {
            return Ok(None);
        };
        let table = |rows: &[plackett::infer::mixture_ppc::CheckRow],
                     pairs: bool|
         -> PyResult<Bound<'py, PyAny>> {
            let d = pyo3::types::PyDict::new(py);
            d.set_item(
                "item",
                rows.iter().map(|r| r.item.clone()).collect::<Vec<_>>(),
            )?;
            if pairs {
                d.set_item(
                    "other",
                    rows.iter()
                        .map(|r| r.other.clone().unwrap_or_default())
                        .collect::<Vec<_>>(),
                )?;
            }
            for (k, f) in [
                (
                    "observed",
                    (|r: &plackett::infer::mixture_ppc::CheckRow| r.observed) as fn(&_) -> f64,
                ),
                ("mean", |r| r.mean),
                ("low", |r| r.low),
                ("high", |r| r.high),
                ("p_value", |r| r.p_value),
            ] {
                d.set_item(k, PyArray1::from_vec(py, rows.iter().map(f).collect()))?;
            }
            crate::frame(py, d)
        };
        let out = pyo3::types::PyDict::new(py);
        out.set_item("top1", table(&pc.top1, false)?)?;
        out.set_item("pairs", table(&pc.pairs, true)?)?;
        Ok(Some(out))
    }
    /// Long table: component, weight, item, worth, log_worth.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        let (mut comp, mut weight, mut item, mut worth, mut lw) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (g, c) in self.report.components.iter().enumerate() {
            for it in &c.items {
                comp.push(g + 1);
                weight.push(c.weight);
                item.push(it.name.clone());
                worth.push(it.worth);
                lw.push(it.log_worth);
            }
        }
        d.set_item("component", comp)?;
        d.set_item("weight", PyArray1::from_vec(py, weight))?;
        d.set_item("item", crate::labels(py, &item, self.ids)?)?;
        d.set_item("worth", PyArray1::from_vec(py, worth))?;
        d.set_item("log_worth", PyArray1::from_vec(py, lw))?;
        crate::frame(py, d)
    }
    /// P(a beats b) in a paired comparison under the mixture.
    fn compare(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.report.prob_beats(self.index(a)?, self.index(b)?))
    }
    /// The selected fit as a model for predictions (``plackett.MixtureModel``):
    /// the file ``plackett fit --components G --model-out`` writes.
    fn model(&self) -> crate::model::MixtureModel {
        let f = self.fit();
        crate::model::MixtureModel {
            m: plackett::posterior::SavedMixture::new(
                &f.engine,
                &self.names,
                &f.weights,
                &f.log_worths,
            ),
        }
    }
    /// Rank marginals for a ranker drawn from the population (the selected
    /// fit's; see ``MixtureModel.rank_marginals``).
    #[pyo3(signature = (races = 20_000, seed = 1))]
    fn rank_marginals<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::races_arg)] races: usize,
        #[pyo3(from_py_with = crate::seed_arg)] seed: u64,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        self.model().rank_marginals(py, races, seed)
    }
    /// Mixture log-likelihood of held-out observations: a Dataset over the
    /// same items, or rankings as `plackett.rankings` reads them, read over
    /// this fit's items.
    fn predictive_log_likelihood(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<f64> {
        let data = crate::held_out(py, data, &self.names, "this fit")?;
        crate::over_items(&data.ds, &self.names, "held-out data")?;
        let f = self.fit();
        mixture_log_likelihood(&data.ds, &f.weights, &f.log_worths)
            .map(|(ll, _)| ll)
            .map_err(err)
    }
    /// The CLI's JSON (`plackett fit --components … --output json`).
    fn to_json(&self) -> String {
        self.report.to_json()
    }
    /// Write the HTML page `plackett fit --components … --report` writes
    /// (model choice, one worth chart per component, how sharply
    /// observations are assigned, the posterior predictive checks) to
    /// ``path`` (a str or path-like); nothing is written if it fails.
    fn report(&self, path: std::path::PathBuf) -> PyResult<()> {
        let page = plackett::report::mixture::mixture_html(&self.report, None);
        crate::write_page(&path, &page)
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_mixture")
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett.MixtureResult(components={}, items={}, log_likelihood={:.6})",
            self.fit().components(),
            self.names.len(),
            self.fit().log_likelihood
        )
    }
}

/// Rebuild a pickled mixture result.
#[pyfunction]
pub fn _restore_mixture(state: &[u8]) -> PyResult<MixtureResult> {
    crate::restore(state)
}

/// Fit finite PL mixtures for G in `lo..=hi`; the lowest BIC is reported
/// when the range has more than one G.
#[pyfunction]
#[pyo3(signature = (data, *, lo, hi, engine = "mle", prior_shape = None, prior_rate = None,
    dirichlet = None, starts = 10, seed = 1, tol = None, max_iter = None, samples = None,
    burn_in = None, chains = None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_mixture(
    py: Python<'_>,
    data: &PyDataset,
    lo: usize,
    hi: usize,
    engine: &str,
    prior_shape: Option<f64>,
    prior_rate: Option<f64>,
    dirichlet: Option<f64>,
    starts: usize,
    seed: u64,
    tol: Option<f64>,
    max_iter: Option<usize>,
    samples: Option<usize>,
    burn_in: Option<usize>,
    chains: Option<usize>,
) -> PyResult<MixtureResult> {
    let gibbs = engine == "gibbs";
    if gibbs && (tol.is_some() || max_iter.is_some()) {
        return Err(PyValueError::new_err(
            "invalid option tol/max_iter: not used by engine=\"gibbs\"",
        ));
    }
    if !gibbs && (samples.is_some() || burn_in.is_some() || chains.is_some()) {
        return Err(PyValueError::new_err(
            "invalid option samples/burn_in/chains: only with engine=\"gibbs\"",
        ));
    }
    let defaults = MixtureOptions::default();
    let (shape, rate, alpha) = match engine {
        "mle" => {
            // Name what was given, as the command line does.
            let given = if dirichlet.is_some() {
                "dirichlet"
            } else {
                "prior"
            };
            if prior_shape.is_some() || prior_rate.is_some() || dirichlet.is_some() {
                return Err(PyValueError::new_err(format!(
                    "invalid option {given}: only with engine=\"map\" or \"gibbs\" (mle has no prior)"
                )));
            }
            (1.0, 0.0, 1.0)
        }
        "map" | "gibbs" => (
            prior_shape.unwrap_or(2.0),
            prior_rate.unwrap_or(1.0),
            dirichlet.unwrap_or(1.0),
        ),
        "ep" | "vb" => {
            return Err(PyValueError::new_err(format!(
                "not supported: components with engine={engine:?}; use \"mle\" (EM), \"map\" or \"gibbs\""
            )));
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "invalid option engine: expected \"mle\" or \"map\" for mixtures, got {other:?}"
            )));
        }
    };
    if lo == 0 || hi < lo || hi > 50 {
        return Err(PyValueError::new_err(format!(
            "invalid option components: expected G ≥ 1 or a range lo ≤ hi ≤ 50, got {lo}:{hi}"
        )));
    }
    let opts = MixtureOptions {
        components: lo,
        prior_shape: shape,
        prior_rate: rate,
        dirichlet: alpha,
        starts,
        seed,
        tol: tol.unwrap_or(defaults.tol),
        max_iter: max_iter.unwrap_or(defaults.max_iter),
        observer: None,
    };
    let ds = &data.ds;
    let fits = if gibbs {
        let g_opts = MixtureGibbsOptions {
            components: lo,
            prior_shape: shape,
            prior_rate: rate,
            dirichlet: alpha,
            mcmc: McmcSettings::new(
                samples.unwrap_or(5000),
                burn_in.unwrap_or(1000),
                chains.unwrap_or(4),
                seed,
            ),
            starts,
            observer: None,
        };
        interrupt::run(py, |obs| {
            let mut o = g_opts;
            o.observer = obs;
            gibbs_range(ds, lo..=hi, &o)
        })?
    } else {
        interrupt::run(py, |obs| {
            let mut o = opts;
            o.observer = obs;
            fit_range(ds, lo..=hi, &o)
        })?
    };
    let (mut report, selected) = MixtureReport::from_sweep(ds, &fits);
    for n in &mut report.notes {
        *n = plackett::error::render_params(n, plackett::error::ParamStyle::Python);
    }
    Ok(MixtureResult {
        names: ds.items().names().to_vec(),
        ids: data.ids,
        fits,
        selected,
        report,
    })
}
