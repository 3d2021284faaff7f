//! The Plackett–Luce regression classifier (Archambeau & Caron 2012) on
//! numpy arrays: the engine behind `plackett.PLClassifier`. Rows become the
//! library's [`Table`], so standardisation, transforms, checks and messages
//! are those of `plackett classify`.

use crate::err;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use plackett::classify::Table;
use plackett::classify::model::{Engine, FitOptions, FitOutcome, fit};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::{Deserialize, Serialize};

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

/// A fitted classifier: the library's model and, for every class code
/// `0..K`, its row in the model.
#[pyclass(module = "plackett._plackett", name = "ClassifierModel", frozen)]
#[derive(Serialize, Deserialize)]
pub struct ClassifierModel {
    outcome: FitOutcome,
    /// `order[c]` = the model's row of class code `c`.
    order: Vec<usize>,
}

/// Fit on rows `x` with class codes `y` in `0..n_classes` (every code
/// present). Keyword arguments as `plackett classify fit`.
#[pyfunction]
#[pyo3(signature = (x, y, *, n_classes, method = "em", a = None, b = 1.0, pairwise = false,
    samples = 1000, burn_in = 1000, chains = 2, seed = 1, keep_draws = 1000))]
#[allow(clippy::too_many_arguments)]
pub fn classifier_fit(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, i64>,
    n_classes: usize,
    method: &str,
    a: Option<f64>,
    b: f64,
    pairwise: bool,
    samples: usize,
    burn_in: usize,
    chains: usize,
    seed: u64,
    keep_draws: usize,
) -> PyResult<ClassifierModel> {
    let engine = Engine::parse(method).map_err(|_| {
        PyValueError::new_err(format!(
            "invalid option method: expected em, gibbs or vb, got {method:?}"
        ))
    })?;
    let y = y.as_array();
    if y.len() != x.as_array().nrows() {
        return Err(PyValueError::new_err(format!(
            "X has {} rows but y has {} labels",
            x.as_array().nrows(),
            y.len()
        )));
    }
    if let Some(bad) = y.iter().find(|&&c| c < 0 || c as usize >= n_classes) {
        return Err(PyValueError::new_err(format!(
            "y: class code {bad} outside 0..{n_classes}"
        )));
    }
    let labels: Vec<String> = y.iter().map(|c| c.to_string()).collect();
    let t = table(&x, Some(labels))?;
    let rows: Vec<usize> = (0..t.x.len()).collect();
    let opts = FitOptions {
        engine,
        a,
        b,
        pairwise,
        samples,
        burn_in,
        chains,
        thin: FitOptions::default().thin,
        rescale: true,
        seed,
        keep_draws,
        observer: None,
    };
    let outcome = crate::interrupt::run(py, |obs| {
        let mut opts = opts;
        opts.observer = obs;
        fit(X_NAME, "y", &t, &rows, &opts)
    })?;
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
    Ok(ClassifierModel { outcome, order })
}

#[pymethods]
impl ClassifierModel {
    /// Class probabilities, shape (rows, classes), columns in class-code
    /// order: plug-in for em, posterior predictive for gibbs and vb.
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let t = table(&x, None)?;
        let m = &self.outcome.model;
        if t.features.len() != m.preprocess.features.len() {
            return Err(PyValueError::new_err(format!(
                "X has {} features, but the classifier was fitted with {}",
                t.features.len(),
                m.preprocess.features.len()
            )));
        }
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
    /// The model as `plackett classify fit` writes it (JSON).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.outcome.model)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::reduce(py, self, "_restore_classifier")
    }
}

/// Rebuild a pickled classifier.
#[pyfunction]
pub fn _restore_classifier(state: &str) -> PyResult<ClassifierModel> {
    crate::restore(state)
}
