//! The Plackett–Luce regression classifier (Archambeau & Caron 2012) on
//! numpy arrays: the engine behind `plackett.PLClassifier`. Rows become the
//! library's [`Table`], so standardisation, transforms, checks and messages
//! are those of `plackett classify`.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2};
use plackett::choice::Choice;
use plackett::classify::Table;
use plackett::classify::model::{Engine, FitOptions, FitOutcome, fit};
use plackett::classify::path::ClassifierPath;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::{Deserialize, Serialize};

/// A library error in the estimator's words: the Gamma prior's shape and
/// rate, `prior_shape` and `prior_rate` in the library and the CLI, are the
/// scikit-learn parameters `a` and `b` here.
fn err(e: plackett::Error) -> PyErr {
    match e {
        plackett::Error::InvalidParam { param, msg } => {
            let param = match param.as_str() {
                "prior_shape" => "a".to_string(),
                "prior_rate" => "b".to_string(),
                _ => param,
            };
            crate::err(plackett::Error::InvalidParam { param, msg })
        }
        e => crate::err(e),
    }
}

/// What messages call the feature matrix (rows counted from 1, like lines).
const X_NAME: &str = "X";

fn table(x: &PyReadonlyArray2<'_, f64>, labels: Option<Vec<String>>) -> PyResult<Table> {
    let a = x.as_array();
    if a.ncols() == 0 {
        return Err(PyValueError::new_err(
            "X: expected at least one feature column",
        ));
    }
    if let Some(((i, j), v)) = a.indexed_iter().find(|(_, v)| !v.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "X: feature values must be finite, got {v} at row {i}, column {j}"
        )));
    }
    if let Some(((i, j), v)) = a
        .indexed_iter()
        .find(|(_, v)| v.abs() > plackett::io::FEATURE_MAX)
    {
        return Err(PyValueError::new_err(format!(
            "X: feature value {v} at row {i}, column {j} is beyond ±{:e}",
            plackett::io::FEATURE_MAX
        )));
    }
    Ok(Table {
        features: (0..a.ncols()).map(|j| format!("x{j}")).collect(),
        x: a.rows().into_iter().map(|r| r.to_vec()).collect(),
        labels,
        lines: (1..=a.nrows()).collect(),
    })
}

/// Rows `x` labelled by class codes `y` in `0..k` (as strings, the
/// library's labels).
fn coded_table(
    x: &PyReadonlyArray2<'_, f64>,
    y: &PyReadonlyArray1<'_, i64>,
    k: usize,
) -> PyResult<Table> {
    let y = y.as_array();
    if y.len() != x.as_array().nrows() {
        return Err(PyValueError::new_err(format!(
            "X has {} rows but y has {} labels",
            x.as_array().nrows(),
            y.len()
        )));
    }
    if let Some(bad) = y.iter().find(|&&c| c < 0 || c as usize >= k) {
        return Err(PyValueError::new_err(format!(
            "y: class code {bad} outside 0..{k}"
        )));
    }
    table(x, Some(y.iter().map(|c| c.to_string()).collect()))
}

/// Name the table's columns (the columns of a pandas `X`); `x0, x1, …`
/// otherwise.
fn name_features(t: &mut Table, names: Option<Vec<String>>) -> PyResult<()> {
    if let Some(names) = names {
        if names.len() != t.features.len() {
            return Err(PyValueError::new_err(format!(
                "feature_names: {} names for {} columns of X",
                names.len(),
                t.features.len()
            )));
        }
        t.features = names;
    }
    Ok(())
}

/// A fitted classifier: the library's model and, for every class code
/// `0..K`, its row in the model.
#[pyclass(module = "plackett._plackett", name = "ClassifierModel", frozen)]
#[derive(Serialize, Deserialize)]
pub struct ClassifierModel {
    outcome: FitOutcome,
    /// `order[c]` = the model's row of class code `c`.
    order: Vec<usize>,
    /// Training rows (the envelope's `n_observations`).
    #[serde(default)]
    n_rows: usize,
}

/// The classifier's defaults (`FitOptions::default()`, which the CLI's
/// flags read too) under the Python names: `PLClassifier`'s signature.
#[pyfunction]
pub fn classifier_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = FitOptions::default();
    let out = PyDict::new(py);
    out.set_item("engine", d.engine.name())?;
    match d.a {
        Some(a) => out.set_item("prior_shape", a)?,
        None => out.set_item("prior_shape", "learn")?,
    }
    out.set_item("prior_rate", d.b)?;
    out.set_item("pairwise", d.pairwise)?;
    out.set_item("samples", d.samples)?;
    out.set_item("burn_in", d.burn_in)?;
    out.set_item("chains", d.chains)?;
    out.set_item("thin", d.thin)?;
    out.set_item("seed", d.seed)?;
    out.set_item("keep_draws", d.keep_draws)?;
    Ok(out)
}

/// The engines' spellings, in the library's order.
#[pyfunction]
pub fn classifier_engines() -> Vec<&'static str> {
    Engine::ALL.iter().map(|e| e.name()).collect()
}

/// Fit on rows `x` with class codes `y` in `0..n_classes` (every code
/// present). Keyword arguments as `plackett classify fit`; `prior_shape`
/// None learns it. `PLClassifier` passes every setting.
#[pyfunction]
#[pyo3(signature = (x, y, *, n_classes, engine, prior_shape, prior_rate, pairwise,
    samples, burn_in, chains, thin, seed, keep_draws = None, feature_names = None,
    covariance = None))]
#[allow(clippy::too_many_arguments)]
pub fn classifier_fit(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, i64>,
    n_classes: usize,
    engine: &str,
    prior_shape: Option<f64>,
    prior_rate: f64,
    pairwise: bool,
    samples: usize,
    burn_in: usize,
    chains: usize,
    thin: usize,
    seed: u64,
    keep_draws: Option<usize>,
    feature_names: Option<Vec<String>>,
    covariance: Option<&str>,
) -> PyResult<ClassifierModel> {
    let engine = Engine::parse(engine).map_err(err)?;
    let vb_covariance = match covariance {
        None => Default::default(),
        Some(_) if engine != Engine::Vb => {
            return Err(PyValueError::new_err(
                "invalid option covariance: only engine='vb' has a choice of covariance",
            ));
        }
        Some(c) => plackett::classify::model::VbCovariance::parse(c).map_err(err)?,
    };
    let mut t = coded_table(&x, &y, n_classes)?;
    name_features(&mut t, feature_names)?;
    let rows: Vec<usize> = (0..t.x.len()).collect();
    let defaults = FitOptions::default();
    let opts = FitOptions {
        engine,
        a: prior_shape,
        b: prior_rate,
        pairwise,
        samples,
        burn_in,
        chains,
        thin: thin.max(1),
        seed,
        keep_draws: keep_draws.unwrap_or(defaults.keep_draws),
        vb_covariance,
        ..defaults
    };
    let outcome = crate::interrupt::run(py, |obs| {
        let mut opts = opts;
        opts.observer = obs;
        fit(X_NAME, "y", &t, &rows, &opts)
    })?;
    let n_rows = rows.len();
    let order = (0..n_classes)
        .map(|c| {
            let code = c.to_string();
            outcome
                .model
                .classes
                .iter()
                .position(|k| *k == code)
                .ok_or_else(|| {
                    PyValueError::new_err(format!("y: class code {c} has no training rows"))
                })
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(ClassifierModel {
        outcome,
        order,
        n_rows,
    })
}

#[pymethods]
impl ClassifierModel {
    /// The head every result and document shares (`plackett::document`):
    /// family, engine, converged, iterations, n_observations, notes,
    /// diagnostics — as a dict, equal to the head of `to_json()`'s document.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::envelope::dict(py, &self.outcome.envelope(self.n_rows))
    }

    /// Class probabilities, shape (rows, classes), columns in class-code
    /// order: plug-in for em, posterior predictive for gibbs and vb.
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let t = self.model_columns(table(&x, None)?)?;
        let m = &self.outcome.model;
        let probs = py.detach(|| m.predict(X_NAME, &t)).map_err(err)?;
        let n = probs.len();
        let k = self.order.len();
        let mut out = Array2::zeros((n, k));
        for (i, p) in probs.iter().enumerate() {
            for (c, &row) in self.order.iter().enumerate() {
                out[(i, c)] = p[row];
            }
        }
        Ok(out.into_pyarray(py))
    }
    /// `K × p` normalised weights (rows in class-code order).
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let w = &self.outcome.model.weights;
        let p = self.outcome.model.p();
        let mut out = Array2::zeros((self.order.len(), p));
        for (c, &row) in self.order.iter().enumerate() {
            for j in 0..p {
                out[(c, j)] = w[row][j];
            }
        }
        out.into_pyarray(py)
    }
    /// What the fit says about itself (VB: which covariance its weight
    /// intervals and predictions read).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.outcome.notes.clone()
    }

    /// Whether the fit settled: EM and VB reached their tolerance before
    /// their iteration cap; Gibbs's chains agree (max split-R̂ ≤ 1.01 and
    /// min bulk ESS ≥ 400 over the normalised weights, the threshold of
    /// the fit document's MCMC warning).
    #[getter]
    fn converged(&self) -> bool {
        use plackett::classify::model::EngineFit;
        match &self.outcome.engine {
            EngineFit::Em(e) => e.converged,
            EngineFit::Vb(v) => v.converged,
            EngineFit::Gibbs(g) => plackett::document::mixing_passes(g.max_rhat(), g.min_ess()),
        }
    }

    /// VB: the linear-response covariance of the log-weights `ln λ`, shape
    /// `(K p, K p)`, index `k p + j` with classes in class-code order (the
    /// rows of `weights`) and transforms in `transforms` order; `None` for
    /// em, gibbs and mean-field VB.
    #[getter]
    fn log_weight_cov<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f64>>> {
        let c = self.outcome.model.q_log_cov.as_ref()?;
        let p = self.outcome.model.p();
        let idx: Vec<usize> = self
            .order
            .iter()
            .flat_map(|&row| (0..p).map(move |j| row * p + j))
            .collect();
        let out = Array2::from_shape_fn((idx.len(), idx.len()), |(a, b)| c[idx[a]][idx[b]]);
        Some(out.into_pyarray(py))
    }

    /// The draws the weights' 95% intervals (the report's) are read from,
    /// shape `(draws, K, p)`, classes in class-code order: gibbs's kept
    /// draws, vb's 2,000 draws of its linear-response posterior (or of its
    /// Gamma factors with `covariance="mean-field"`), em's point alone.
    #[getter]
    fn weight_draws<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f64>> {
        let m = &self.outcome.model;
        let p = m.p();
        let d = m.interval_draws();
        let out =
            numpy::ndarray::Array3::from_shape_fn((d.len(), self.order.len(), p), |(i, c, j)| {
                d[i][self.order[c] * p + j]
            });
        out.into_pyarray(py)
    }

    /// Names of the transformed features (columns of `weights`).
    #[getter]
    fn transforms(&self) -> Vec<String> {
        self.outcome.model.transforms.clone()
    }
    /// Gamma shape used (learnt for gibbs/vb unless given).
    #[getter]
    fn a(&self) -> f64 {
        self.outcome.model.a
    }
    /// Write the page of `plackett classify fit --report` for rows `x`
    /// with class codes `y` (`0..K`) to `path`; `class_names[c]` names
    /// code `c`. Nothing is written if it fails.
    fn report(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray1<'_, i64>,
        class_names: Vec<String>,
    ) -> PyResult<()> {
        let k = self.order.len();
        if class_names.len() != k {
            return Err(PyValueError::new_err(format!(
                "class_names: {} names for {k} classes",
                class_names.len()
            )));
        }
        let t = self.model_columns(coded_table(&x, &y, k)?)?;
        let m = &self.outcome.model;
        let outcome = &self.outcome;
        let summary = py
            .detach(|| outcome.summary(X_NAME, &t, None))
            .map_err(err)?;
        // The model's rows are class codes; show the caller's labels.
        let names: Vec<String> = m
            .classes
            .iter()
            .map(|code| {
                code.parse::<usize>()
                    .ok()
                    .and_then(|c| class_names.get(c).cloned())
                    .unwrap_or_else(|| code.clone())
            })
            .collect();
        let page =
            plackett::report::classify::fit_page(&plackett::report::classify::ClassifyView {
                title: "plackett.PLClassifier".into(),
                outcome,
                summary: &summary,
                class_names: Some(&names),
                rows: "the rows passed to report(path, X, y)",
            });
        crate::write_page(&path, &page)
    }
    /// The model as `plackett classify fit` writes it (JSON).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.outcome.model)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_classifier")
    }
    fn __repr__(&self) -> String {
        let m = &self.outcome.model;
        format!(
            "plackett.ClassifierModel(engine=\"{}\", classes={}, transforms={}, a={})",
            m.engine.name(),
            self.order.len(),
            m.transforms.len(),
            plackett::numerics::sig(m.a, 4)
        )
    }
}

impl ClassifierModel {
    /// `t`'s columns are the model's features, in order (scikit-learn
    /// checks their names): rename them so the library's alignment by name
    /// is positional.
    fn model_columns(&self, mut t: Table) -> PyResult<Table> {
        let want = &self.outcome.model.preprocess.features;
        if t.features.len() != want.len() {
            return Err(PyValueError::new_err(format!(
                "X has {} features, but the classifier was fitted with {}",
                t.features.len(),
                want.len()
            )));
        }
        t.features = want.clone();
        Ok(t)
    }
}

/// Rebuild a pickled classifier.
#[pyfunction]
pub fn _restore_classifier(state: &[u8]) -> PyResult<ClassifierModel> {
    crate::restore(state)
}

/// A regularisation path over the Gamma shape `a` (Archambeau & Caron
/// 2012 §4.1, Fig. 2): the library's [`ClassifierPath`], as `plackett
/// classify path` computes it.
#[pyclass(module = "plackett._plackett", name = "ClassifierPath", frozen)]
#[derive(Serialize, Deserialize)]
pub struct PyClassifierPath {
    path: ClassifierPath,
}

/// The path of rows `x` with string labels `labels` (classes in order of
/// first appearance, as `plackett classify path` reads a file), over
/// `a_grid` ("LO:HI:N" log-spaced or a comma list), fitted from the
/// largest `a` down.
#[pyfunction]
#[pyo3(signature = (x, labels, *, a_grid, engine, prior_rate, pairwise, seed,
    feature_names = None))]
#[allow(clippy::too_many_arguments)]
pub fn classify_path(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    labels: Vec<String>,
    a_grid: &str,
    engine: &str,
    prior_rate: f64,
    pairwise: bool,
    seed: u64,
    feature_names: Option<Vec<String>>,
) -> PyResult<PyClassifierPath> {
    let engine = Engine::parse(engine).map_err(err)?;
    let grid = plackett::infer::feature_run::parse_eta_grid(Some(a_grid))
        .map_err(|e| PyValueError::new_err(e.to_string().replace("`eta_grid`", "a_grid")))?;
    if labels.len() != x.as_array().nrows() {
        return Err(PyValueError::new_err(format!(
            "X has {} rows but y has {} labels",
            x.as_array().nrows(),
            labels.len()
        )));
    }
    let mut t = table(&x, Some(labels))?;
    name_features(&mut t, feature_names)?;
    let path = py
        .detach(|| ClassifierPath::fit(X_NAME, &t, engine, &grid, prior_rate, pairwise, seed))
        .map_err(err)?;
    Ok(PyClassifierPath { path })
}

#[pymethods]
impl PyClassifierPath {
    /// Values of `a`, largest first.
    #[getter]
    fn a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.path.points.iter().map(|p| p.a).collect())
    }
    /// Normalised weights `λ/Σλ`, shape (values of a, classes, transforms):
    /// the MAP (em) or the posterior mean (vb, gibbs).
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f64>> {
        self.cube(py, |p| Some(&p.weights))
            .expect("weights at every point")
    }
    /// Posterior medians (gibbs), shaped like `weights`; None otherwise.
    #[getter]
    fn median<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray3<f64>>> {
        self.cube(py, |p| p.median.as_ref())
    }
    /// Exact zeros at every value of `a` (em; 0 for the other methods).
    #[getter]
    fn zeros<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(
            py,
            self.path.points.iter().map(|p| p.zeros as u64).collect(),
        )
    }
    /// Log-posterior on the support (em; NaN for the other methods).
    #[getter]
    fn log_posterior<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(
            py,
            self.path
                .points
                .iter()
                .map(|p| p.log_posterior.unwrap_or(f64::NAN))
                .collect(),
        )
    }
    /// Class labels (as strings), in order of first appearance.
    #[getter]
    fn classes(&self) -> Vec<String> {
        self.path.classes.clone()
    }
    /// Transform names (`exp(+x)`, `exp(-x)`, `offset`, pairwise ones).
    #[getter]
    fn transforms(&self) -> Vec<String> {
        self.path.transforms.clone()
    }
    /// Why the path stopped before the end of the grid, if it did.
    #[getter]
    fn stopped(&self) -> Option<String> {
        self.path
            .stopped
            .as_ref()
            .map(|r| plackett::error::render_params(r, plackett::error::ParamStyle::Python))
    }
    /// The CSV `plackett classify path --out` writes.
    fn to_csv(&self) -> PyResult<String> {
        self.path.to_csv().map_err(err)
    }
    /// The table `plackett classify path` prints.
    fn to_table(&self) -> String {
        self.path.to_table()
    }
    /// Write the path plot (`--plot`, SVG) to `path`.
    fn plot(&self, path: std::path::PathBuf) -> PyResult<()> {
        crate::write_page(&path, &plackett::report::classify::path_svg(&self.path))
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_classifier_path")
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett.ClassifierPath(values={}, classes={}, transforms={})",
            self.path.points.len(),
            self.path.classes.len(),
            self.path.transforms.len()
        )
    }
}

impl PyClassifierPath {
    fn cube<'py>(
        &self,
        py: Python<'py>,
        pick: impl Fn(&plackett::classify::path::PathPoint) -> Option<&Vec<f64>>,
    ) -> Option<Bound<'py, PyArray3<f64>>> {
        let (k, p) = (self.path.classes.len(), self.path.transforms.len());
        let mut flat = Vec::with_capacity(self.path.points.len() * k * p);
        for pt in &self.path.points {
            flat.extend_from_slice(pick(pt)?);
        }
        let cube = numpy::ndarray::Array3::from_shape_vec((self.path.points.len(), k, p), flat)
            .expect("K × p weights per point");
        Some(cube.into_pyarray(py))
    }
}

/// Rebuild a pickled classifier path.
#[pyfunction]
pub fn _restore_classifier_path(state: &[u8]) -> PyResult<PyClassifierPath> {
    crate::restore(state)
}
