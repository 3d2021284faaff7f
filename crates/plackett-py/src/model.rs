//! Saved models (`plackett fit --model-out`, `FitResult.model_json`) and
//! their predictions, as the CLI's `plackett predict` computes them.

use crate::{PyDataset, choice_set, err, item_index};
use numpy::PyArray1;
use plackett::posterior::SavedModel;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A saved Plackett–Luce model: item names and draws of the normalised
/// log-worths (one at the estimate for mle/map).
#[pyclass(module = "plackett._plackett", name = "Model", frozen)]
pub struct Model {
    pub(crate) m: SavedModel,
}

#[pymethods]
impl Model {
    /// Read a model from the text of a model file.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Model> {
        Ok(Model {
            m: SavedModel::from_json("model", text).map_err(err)?,
        })
    }
    /// Item names, in the model's order (read new data with `items=model.items`).
    #[getter]
    fn items(&self) -> Vec<String> {
        self.m.items.clone()
    }
    /// Engine that produced the model.
    #[getter]
    fn engine(&self) -> String {
        self.m.engine.clone()
    }
    /// Number of draws kept (1 for a point estimate).
    #[getter]
    fn n_draws(&self) -> usize {
        self.m.draws.len()
    }
    /// Each observation's log-probability at unit weight: the plug-in value
    /// for a point estimate, the posterior predictive mean over the draws
    /// otherwise (numpy array). `data` must be read over `model.items`.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        data: &PyDataset,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        if data.ds.items().names() != self.m.items.as_slice() {
            return Err(PyValueError::new_err(
                "the data must be read over the model's items, in its order: pass items=model.items when reading it",
            ));
        }
        let v = py.detach(|| self.m.predict(&data.ds)).map_err(err)?;
        Ok(PyArray1::from_vec(py, v))
    }
    /// Choice probabilities over a set of items (as `FitResult.choice_probabilities`).
    fn choice_probabilities<'py>(
        &self,
        py: Python<'py>,
        items: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let set = choice_set(&self.m.items, &items)?;
        let p = self.m.draws.choice_probabilities(&set);
        Ok(PyArray1::from_vec(
            py,
            p.into_iter().map(|(m, _)| m).collect(),
        ))
    }
    /// P(a beats b) under the model.
    fn compare(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self
            .m
            .draws
            .prob_beats(item_index(&self.m.items, a)?, item_index(&self.m.items, b)?))
    }
    /// The model file's text (what `plackett fit --model-out` writes).
    fn to_json(&self) -> String {
        self.m.to_json()
    }
    fn __repr__(&self) -> String {
        format!(
            "Model(engine={:?}, items={}, draws={})",
            self.m.engine,
            self.m.items.len(),
            self.m.draws.len()
        )
    }
}
