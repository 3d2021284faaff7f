//! Multiple-instance classification with two modalities (vMMIC, Hu 2024,
//! ch. 2) for Python: the engine behind `plackett.mil_fit`. Bags are read by
//! the library's readers (a file, or the long-CSV text of a pandas frame),
//! and the documents `to_json()` returns are the library's, so they equal
//! what `plackett mil fit|predict --output json` print.

use crate::err;
use crate::kwargs::Kwargs;
use numpy::{IntoPyArray, PyArray1};
use plackett::io::model_file::ModelFamily;
use plackett::mil::bags::{read_bags_csv, read_bags_json};
use plackett::mil::summary::{fit_aurocs, fit_document, fit_notes_for, predict_document};
use plackett::mil::{
    BagPrediction, Bags, MilEngineSettings, MilFitInfo, MilModel, MilPriors, Preprocess, RungCount,
    Tempering, VbStart, fit_model_warm, fit_model_with, read_bags,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Bags from a file (`text` None) or from CSV/JSON text named `source`.
fn bags_of(source: &str, text: Option<&str>) -> plackett::Result<Bags> {
    match text {
        None => read_bags(source),
        Some(t) if source.to_ascii_lowercase().ends_with(".json") => read_bags_json(source, t),
        Some(t) if source == FRAME => {
            read_bags_csv(source, t).map_err(|e| crate::frame_rows(FRAME, e))
        }
        Some(t) => read_bags_csv(source, t),
    }
}

/// What messages call a data frame's bags.
const FRAME: &str = "<DataFrame>";

/// `(source, text)` of bags given from Python: a path (str or PathLike),
/// or a pandas frame in the long layout, as its CSV text — the package's
/// `_bags_source`, so that every MIL entry point reads frames alike.
fn source_of(data: &Bound<'_, PyAny>) -> PyResult<(String, Option<String>)> {
    data.py()
        .import("plackett")?
        .getattr("_bags_source")?
        .call1((data,))?
        .extract()
}

fn pretty(v: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| PyValueError::new_err(format!("cannot serialise: {e}")))
}

/// A fitted multiple-instance model (the `mil fit --out` file's content).
#[pyclass(module = "plackett._plackett", name = "MilModel", frozen)]
pub struct PyMilModel {
    model: MilModel,
}

#[pymethods]
impl PyMilModel {
    /// Predict the bags of `data` (a path, or a pandas frame in the long
    /// layout): posterior predictive bag probabilities and each instance's
    /// probability of being primary, as `plackett mil predict`.
    #[pyo3(signature = (data, *, draws = 1000, seed = 1))]
    fn predict(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::draws_arg)] draws: usize,
        #[pyo3(from_py_with = crate::seed_arg)] seed: u64,
    ) -> PyResult<MilPrediction> {
        let model = &self.model;
        let (source, text) = source_of(data)?;
        let pred = py
            .detach(move || {
                let bags = bags_of(&source, text.as_deref())?;
                model.check_bags(&bags, &source)?;
                model.predict(&bags, draws, seed)
            })
            .map_err(err)?;
        Ok(MilPrediction { pred })
    }

    /// The model file's JSON (what `plackett mil fit --out` writes).
    fn to_json(&self) -> PyResult<String> {
        pretty(&self.model)
    }

    /// `vb` or `gibbs`.
    #[getter]
    fn engine(&self) -> String {
        self.model.engine.clone()
    }

    /// VB: the covariance the model predicts with, `"linear-response"`
    /// (the default; the instance level corrected, Giordano, Broderick &
    /// Jordan 2015) or `"mean-field"` (Hu 2024's vMMIC); `None` for Gibbs
    /// and for model files that predate the field (those are mean-field).
    #[getter]
    fn covariance(&self) -> Option<String> {
        self.model.covariance.clone()
    }

    /// What `plackett mil predict` notes on standard error about
    /// predictions from this model (a mean-field vMMIC model's narrow
    /// instance-level uncertainty; a modality it was fitted without, whose
    /// instances' predictions come from the prior); empty for the default
    /// model fitted on both modalities.
    #[getter]
    fn notes(&self) -> Vec<String> {
        plackett::mil::summary::predict_notes(&self.model, None)
            .iter()
            .map(|n| plackett::error::render_params(n, plackett::error::ParamStyle::Python))
            .collect()
    }

    /// Posterior summaries: `(name, mean, sd, 5%, 95%)` per coefficient
    /// (α, β, γ, a, b, c, d; Hu 2024 §2.2.1).
    fn parameters(&self) -> Vec<(String, f64, f64, f64, f64)> {
        self.model
            .parameters
            .iter()
            .map(|p| (p.name.clone(), p.mean, p.sd, p.lower, p.upper))
            .collect()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, &self.model, "_restore_mil_model")
    }

    fn __repr__(&self) -> String {
        let m = &self.model;
        let [f0, f1] = [m.feature_names[0].len(), m.feature_names[1].len()];
        let cov = m
            .covariance
            .as_ref()
            .map_or(String::new(), |c| format!(", covariance=\"{c}\""));
        format!(
            "plackett.MilModel(engine=\"{}\", features=({f0}, {f1}){cov})",
            m.engine
        )
    }
}

/// Read a model written by `mil fit --out` or `MilModel.to_json()`.
#[pyfunction]
pub fn mil_model_from_json(source: &str, text: &str) -> PyResult<PyMilModel> {
    Ok(PyMilModel {
        model: MilModel::from_json(source, text).map_err(crate::reading_model(
            source,
            text,
            ModelFamily::MultipleInstance,
        ))?,
    })
}

#[pyfunction]
pub fn _restore_mil_model(state: &[u8]) -> PyResult<PyMilModel> {
    // A pickle is read from outside like a model file, and checked alike.
    let model: MilModel = crate::restore(state)?;
    model.validate("pickle").map_err(err)?;
    Ok(PyMilModel { model })
}

/// Rebuild pickled predictions.
#[pyfunction]
pub fn _restore_mil_prediction(state: &[u8]) -> PyResult<MilPrediction> {
    crate::restore(state)
}

/// Rebuild a pickled fit.
#[pyfunction]
pub fn _restore_mil_fit(state: &[u8]) -> PyResult<MilFit> {
    crate::restore(state)
}

/// Predictions of a set of bags.
#[pyclass(module = "plackett._plackett", name = "MilPrediction", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct MilPrediction {
    pred: Vec<BagPrediction>,
}

#[pymethods]
impl MilPrediction {
    /// Bag names, in file order.
    #[getter]
    fn bags(&self) -> Vec<String> {
        self.pred.iter().map(|b| b.bag.clone()).collect()
    }

    /// Posterior predictive P(label = 1) per bag.
    #[getter]
    fn p<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.pred
            .iter()
            .map(|b| b.p)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    /// Per instance `(bag, row, modality, p_primary)`, rows of the input
    /// counted from 0.
    fn instances(&self) -> Vec<(String, usize, u8, f64)> {
        self.pred
            .iter()
            .flat_map(|b| {
                b.instances
                    .iter()
                    .map(|i| (b.bag.clone(), i.row, i.modality, i.p_primary))
            })
            .collect()
    }

    /// The document of `plackett mil predict --output json`.
    fn to_json(&self) -> PyResult<String> {
        pretty(&predict_document(&self.pred))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_mil_prediction")
    }

    fn __repr__(&self) -> String {
        let instances: usize = self.pred.iter().map(|b| b.instances.len()).sum();
        format!(
            "plackett.MilPrediction(bags={}, instances={instances})",
            self.pred.len()
        )
    }
}

/// A fit: the model, the training bags' probabilities, each training
/// instance's posterior probability of being primary, and the fit document.
#[pyclass(module = "plackett._plackett", name = "MilFit", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct MilFit {
    model: MilModel,
    doc: serde_json::Value,
    primary: Vec<f64>,
    p: Vec<f64>,
    converged: bool,
    /// What the report reads: the training bags, the fit's facts, the
    /// training bags' predictions, the notes and the two AUROCs.
    bags: Bags,
    info: MilFitInfo,
    pred: Vec<BagPrediction>,
    notes: Vec<String>,
    aurocs: (f64, Option<f64>),
}

#[pymethods]
impl MilFit {
    /// The head every result and document shares (`plackett::document`):
    /// family, engine, converged, iterations, n_observations, notes,
    /// diagnostics — as a dict, equal to the head of `to_json()`'s document.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::envelope::dict(
            py,
            &plackett::mil::summary::envelope(&self.bags, &self.info, &self.notes),
        )
    }

    /// The fitted model.
    fn model(&self) -> PyMilModel {
        PyMilModel {
            model: self.model.clone(),
        }
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_mil_fit")
    }

    /// Posterior P(primary) of every training instance: bag by bag (in order
    /// of first appearance), each bag's rows in file order.
    #[getter]
    fn primary<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.primary.clone().into_pyarray(py)
    }

    /// Posterior predictive P(label = 1) of every training bag.
    #[getter]
    fn p<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.p.clone().into_pyarray(py)
    }

    /// VB met its tolerance; Gibbs: the worst split-R̂ and ESS over θ pass
    /// the thresholds (the document envelope's rule, `plackett::document`).
    #[getter]
    fn converged(&self) -> bool {
        self.doc["converged"].as_bool().unwrap_or(self.converged)
    }

    /// Warnings (mixing, VB's known weaknesses).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.doc["notes"]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|n| n.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The document of `plackett mil fit --output json`.
    fn to_json(&self) -> PyResult<String> {
        pretty(&self.doc)
    }

    fn __repr__(&self) -> String {
        format!(
            "plackett.MilFit(engine=\"{}\", bags={}, instances={}, converged={}, \
             training_auroc={:.4})",
            self.model.engine,
            self.bags.n_bags(),
            self.bags.n_instances(),
            crate::py_bool(self.converged),
            self.aurocs.0
        )
    }

    /// Write the HTML page `plackett mil fit --report` writes (the ROC
    /// curves of bags and, with simulated truth, of primary instances; the
    /// coefficients' intervals; the instances of one bag ranked by their
    /// posterior probability of being primary) to ``path`` (a str or
    /// path-like). ``bag``: the bag whose instances are listed, by name (the
    /// CLI's `--report-bag`); the most probable bag when None. Nothing is
    /// written if it fails.
    #[pyo3(signature = (path, bag = None))]
    fn report(&self, path: std::path::PathBuf, bag: Option<&str>) -> PyResult<()> {
        if let Some(name) = bag
            && !self.bags.bags.iter().any(|b| b.name == name)
        {
            return Err(PyValueError::new_err(format!(
                "bag: no bag named {name:?} in the training bags"
            )));
        }
        self.write_report(
            &path,
            "plackett.mil_fit",
            bag,
            "report(path, bag=NAME)",
            None,
        )
    }

    /// The page of `MILClassifier.report`: bags handed over as arrays,
    /// named by their index in the caller's sequence (the long table calls
    /// them `b0`, `b1`, …), instances by their place in their bag.
    #[pyo3(signature = (path, bag = None))]
    fn _classifier_report(&self, path: std::path::PathBuf, bag: Option<usize>) -> PyResult<()> {
        let name = bag.map(|i| format!("b{i}"));
        if let Some(n) = &name
            && !self.bags.bags.iter().any(|b| &b.name == n)
        {
            return Err(PyValueError::new_err(format!(
                "bag: expected the index of a training bag (0 to {}), got {}",
                self.bags.bags.len().saturating_sub(1),
                bag.unwrap_or_default()
            )));
        }
        let labels: Vec<String> = self
            .bags
            .bags
            .iter()
            .map(|b| b.name.strip_prefix('b').unwrap_or(&b.name).to_string())
            .collect();
        self.write_report(
            &path,
            "plackett.MILClassifier",
            name.as_deref(),
            "report(path, bag=INDEX)",
            Some(&labels),
        )
    }
}

impl MilFit {
    /// Render the fit's page and write it: bags named as the data name them
    /// and instances by data row (`labels` None), or bags by the caller's
    /// `labels` and instances by their place in their bag.
    fn write_report(
        &self,
        path: &std::path::Path,
        title: &str,
        bag: Option<&str>,
        pick_bag: &str,
        labels: Option<&[String]>,
    ) -> PyResult<()> {
        use plackett::report::mil::{InstanceRows, MilView, render};
        let page = render(&MilView {
            title: title.into(),
            bags: &self.bags,
            model: &self.model,
            info: &self.info,
            pred: &self.pred,
            notes: &self.notes,
            aurocs: self.aurocs,
            bag,
            pick_bag,
            instance_rows: if labels.is_some() {
                InstanceRows::InBag
            } else {
                InstanceRows::DataRow
            },
            bag_labels: labels,
        })
        .map_err(err)?;
        crate::write_page(path, &page)
    }
}

/// `temperatures`: a number of rungs or "auto" (the library's
/// [`RungCount`]).
pub(crate) struct Rungs(pub(crate) RungCount);

impl<'a, 'py> FromPyObject<'a, 'py> for Rungs {
    type Error = PyErr;
    fn extract(v: Borrowed<'a, 'py, PyAny>) -> PyResult<Rungs> {
        if let Ok(s) = v.extract::<String>() {
            return s.parse().map(Rungs).map_err(err);
        }
        crate::non_negative::<usize>("temperatures", &v).map(|k| Rungs(RungCount::Fixed(k)))
    }
}

/// Both engines' settings from the keyword arguments `mil_fit`, `mil_cv`
/// and `mil_study` share (`intercept_var`, `slope_var`, `tol`, `max_iter`,
/// `starts`, `mixture`, `vb_start`, `covariance`, `gibbs_start`,
/// `samples`, `burn_in`, `thin`, `chains`, `temperatures`, `hottest`,
/// `ladder`, `seed`); absent ones take `MilEngineSettings::default()`.
fn settings(kw: &mut Kwargs<'_, '_>) -> PyResult<MilEngineSettings> {
    let d = MilEngineSettings::default();
    let starts: Option<usize> = kw.get("starts")?;
    let mixture: Option<usize> = kw.get("mixture")?;
    if mixture.is_some() && starts.is_some_and(|s| s != 1) {
        return Err(PyValueError::new_err(
            "mixture: give starts (the highest ELBO wins) or mixture (every optimum kept), not both"
                .to_string(),
        ));
    }
    let text = |kw: &mut Kwargs<'_, '_>, name| -> PyResult<Option<String>> { kw.get(name) };
    let vb_start = text(kw, "vb_start")?;
    let covariance = text(kw, "covariance")?;
    let gibbs_start = text(kw, "gibbs_start")?;
    let rungs: Option<Rungs> = kw.get("temperatures")?;
    let hottest = kw.or("hottest", d.tempering.hottest)?;
    let ladder = text(kw, "ladder")?;
    let tempering = Tempering::from_options(
        rungs.map_or(RungCount::Fixed(d.tempering.rungs), |r| r.0),
        hottest,
        ladder.as_deref().unwrap_or("geometric"),
    )
    .map_err(err)?;
    Ok(MilEngineSettings {
        priors: MilPriors {
            intercept_var: kw.or("intercept_var", d.priors.intercept_var)?,
            slope_var: kw.or("slope_var", d.priors.slope_var)?,
        },
        tol: kw.or("tol", d.tol)?,
        max_iter: kw.or("max_iter", d.max_iter)?,
        starts: mixture.or(starts).unwrap_or(d.starts),
        mixture: mixture.is_some(),
        vb_start: vb_start
            .as_deref()
            .map_or(Ok(d.vb_start), VbStart::parse)
            .map_err(err)?,
        covariance: covariance
            .as_deref()
            .map_or(Ok(d.covariance), plackett::mil::VbCovariance::parse)
            .map_err(err)?,
        gibbs_start: gibbs_start
            .as_deref()
            .map_or(Ok(d.gibbs_start), plackett::mil::GibbsStart::parse)
            .map_err(err)?,
        mcmc: plackett::infer::mcmc::McmcSettings {
            samples: kw.or("samples", d.mcmc.samples)?,
            burn_in: kw.or("burn_in", d.mcmc.burn_in)?,
            thin: kw.or("thin", d.mcmc.thin)?,
            chains: kw.or("chains", d.mcmc.chains)?,
            seed: kw.or("seed", d.mcmc.seed)?,
        },
        tempering,
    })
}

/// The engines' defaults (`MilEngineSettings::default()`, which the CLI's
/// flags read too) under the keyword names `mil_fit` takes.
#[pyfunction]
pub fn mil_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = MilEngineSettings::default();
    let out = PyDict::new(py);
    out.set_item("intercept_var", d.priors.intercept_var)?;
    out.set_item("slope_var", d.priors.slope_var)?;
    out.set_item("tol", d.tol)?;
    out.set_item("max_iter", d.max_iter)?;
    out.set_item("starts", d.starts)?;
    out.set_item("vb_start", d.vb_start.name())?;
    out.set_item("covariance", d.covariance.name())?;
    out.set_item("gibbs_start", d.gibbs_start.name())?;
    out.set_item("samples", d.mcmc.samples)?;
    out.set_item("burn_in", d.mcmc.burn_in)?;
    out.set_item("thin", d.mcmc.thin)?;
    out.set_item("chains", d.mcmc.chains)?;
    out.set_item("hottest", d.tempering.hottest)?;
    out.set_item("seed", d.mcmc.seed)?;
    Ok(out)
}

/// Fit vMMIC (`engine="vb"`) or its Gibbs gold standard (`"gibbs"`) to the
/// bags of `source` (a file, or long-CSV/JSON text named `source`).
/// Keyword arguments as `plackett mil fit`'s flags.
#[pyfunction]
#[pyo3(signature = (source, text = None, *, engine = "vb", standardize = false,
    components = None, init = None, **settings_kw))]
pub fn mil_fit(
    py: Python<'_>,
    source: &str,
    text: Option<String>,
    engine: &str,
    standardize: bool,
    components: Option<usize>,
    init: Option<PyRef<'_, PyMilModel>>,
    settings_kw: Option<&Bound<'_, PyDict>>,
) -> PyResult<MilFit> {
    // A warm start (`mil fit --init`): the model's coefficient means.
    let warm = init.map(|m| m.model.clone());
    let mut kw = Kwargs::new("mil_fit", settings_kw);
    let set = settings(&mut kw)?;
    kw.finish()?;
    let seed = set.mcmc.seed;
    let engine = set.engine(engine).map_err(err)?;
    let source = source.to_string();
    // On the helper thread of `interrupt::run`: Ctrl-C stops the engine
    // within a sweep.
    crate::interrupt::run(py, move |obs| {
        let mut engine = engine;
        engine.observe(obs);
        let bags = bags_of(&source, text.as_deref())?;
        bags.training_labels(&source)?;
        let start = std::time::Instant::now();
        let prep = Preprocess::from_options(standardize, components);
        let (model, info) = match &warm {
            Some(m) => fit_model_warm(&bags, &engine, prep, m, &source)?,
            None => fit_model_with(&bags, &engine, prep)?,
        };
        let seconds = start.elapsed().as_secs_f64();
        let pred = model.predict(&bags, 500, seed)?;
        let notes: Vec<String> = fit_notes_for(&info, &bags, &model)
            .iter()
            .map(|n| plackett::error::render_params(n, plackett::error::ParamStyle::Python))
            .collect();
        let aurocs = fit_aurocs(&bags, &info, &pred);
        let doc = fit_document(&bags, &model, &info, &pred, &notes, aurocs, seconds);
        Ok(MilFit {
            converged: info.converged.unwrap_or(true),
            // Bag by bag, each bag's instances in file order (the fit holds
            // them in a canonical order).
            primary: bags.output_order().map(|j| info.primary[j]).collect(),
            p: pred.iter().map(|b| b.p).collect(),
            model,
            doc,
            bags,
            info,
            pred,
            notes,
            aurocs,
        })
    })
}

/// Repeated k-fold cross-validation (`plackett mil cv`): held-out bag AUROC
/// and accuracy of the model and, with `baselines`, of MILR and the
/// single-instance baselines on the same folds; the command line's
/// `--output json` document.
#[pyfunction]
#[pyo3(signature = (source, text = None, *, engine = "vb", baselines = false, folds = 10,
    repeats = 1, draws = 500, standardize = false, components = None, report = None,
    **settings_kw))]
#[allow(clippy::too_many_arguments)]
pub fn mil_cv(
    py: Python<'_>,
    source: &str,
    text: Option<String>,
    engine: &str,
    baselines: bool,
    folds: usize,
    repeats: usize,
    draws: usize,
    standardize: bool,
    components: Option<usize>,
    report: Option<std::path::PathBuf>,
    settings_kw: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    use plackett::mil::{Baseline, MilMethod, cross_validate_methods, cv_document};
    if draws == 0 || draws > 1_000_000 {
        return Err(PyValueError::new_err(
            "draws: between 1 and 1,000,000".to_string(),
        ));
    }
    let mut kw = Kwargs::new("mil_cv", settings_kw);
    let set = settings(&mut kw)?;
    kw.finish()?;
    let (priors, seed) = (set.priors, set.mcmc.seed);
    let mut methods = vec![MilMethod::Model(set.engine(engine).map_err(err)?)];
    if baselines {
        methods.extend(Baseline::ALL.map(|b| MilMethod::Baseline(b, priors)));
    }
    let source = source.to_string();
    let engine = engine.to_string();
    let (bags, cvs) = crate::interrupt::run(py, move |obs| {
        // Ctrl-C stops the folds not begun and, within a sweep, the ones
        // running.
        let mut methods = methods;
        for m in &mut methods {
            m.observe(obs.clone());
        }
        let bags = bags_of(&source, text.as_deref())?;
        bags.training_labels(&source)?;
        let prep = Preprocess::from_options(standardize, components);
        let cvs = cross_validate_methods(
            &bags,
            &methods,
            prep,
            folds,
            repeats,
            draws,
            seed,
            obs.as_ref(),
        )?;
        Ok((bags, cvs))
    })?;
    if let Some(path) = report {
        let page = plackett::report::mil::cv_page("plackett.mil_cv", &bags, &cvs).map_err(err)?;
        crate::write_page(&path, &page)?;
    }
    pretty(&cv_document(&engine, &cvs))
}

/// Hu 2024 §2.3's simulation study (`plackett mil study`): the study's
/// JSON document, equal to the command line's `--output json`.
#[pyfunction]
#[pyo3(signature = (*, factors = "basic", methods = "vmmic,milr,si-mean,si-max",
    replicates = 20, test_bags = 300, max_bags = 16000, draws = 200, **settings_kw))]
#[allow(clippy::too_many_arguments)]
pub fn mil_study(
    py: Python<'_>,
    factors: &str,
    methods: &str,
    replicates: usize,
    test_bags: usize,
    max_bags: usize,
    draws: usize,
    settings_kw: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let mut kw = Kwargs::new("mil_study", settings_kw);
    let engines = settings(&mut kw)?;
    kw.finish()?;
    let seed = engines.mcmc.seed;
    use plackett::mil::study::{
        StudyOptions, parse_factors, parse_methods, run_study, study_document,
    };
    if draws == 0 || draws > 1_000_000 {
        return Err(PyValueError::new_err(
            "draws: between 1 and 1,000,000".to_string(),
        ));
    }
    let opts = StudyOptions {
        factors: parse_factors(factors).map_err(err)?,
        replicates,
        test_bags,
        max_bags,
        predict_draws: draws,
        seed,
    };
    let methods = parse_methods(methods, &engines).map_err(err)?;
    let cells = crate::interrupt::run(py, move |obs| {
        let mut methods = methods;
        for m in &mut methods {
            m.observe(obs.clone());
        }
        run_study(&opts, &methods, obs.as_ref()).map(|c| (opts, c))
    })?;
    pretty(&study_document(&cells.0, &cells.1))
}

/// Simulate bags from the design of Hu 2024 §2.3 (`plackett mil simulate`):
/// the long CSV with the true primary indicators in `primary`, as text.
#[pyfunction]
#[pyo3(signature = (*, bags = 500, instances = 20, ratio = 4.0, ppi0 = 0.35, ppi1 = 0.35,
    features = 16, alpha = 0.5, seed = 1))]
#[allow(clippy::too_many_arguments)]
pub fn mil_simulate(
    py: Python<'_>,
    bags: usize,
    instances: usize,
    ratio: f64,
    ppi0: f64,
    ppi1: f64,
    features: usize,
    alpha: f64,
    seed: u64,
) -> PyResult<String> {
    let design = plackett::mil::MilDesign {
        bags,
        instances,
        ratio,
        ppi0,
        ppi1,
        features,
        alpha,
    };
    py.detach(|| plackett::mil::simulate_bags(&design, seed).map(|b| b.to_csv()))
        .map_err(err)
}
