//! Saved models (`plackett fit --model-out`, `FitResult.model_json`) and
//! their predictions, as the CLI's `plackett predict` computes them.

use crate::{PyDataset, choice_set, err, item_index};
use numpy::{IntoPyArray, PyArray1};
use plackett::io::model_file::ModelFamily;
use plackett::posterior::SavedModel;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `data` is read over a model's `items`, in their order.
fn over_items(data: &PyDataset, items: &[String]) -> PyResult<()> {
    if data.ds.items().names() != items {
        return Err(PyValueError::new_err(
            "the data must be read over the model's items, in its order: pass items=model.items when reading it",
        ));
    }
    Ok(())
}

/// A saved Plackett–Luce model: item names and draws of the normalised
/// log-worths (one at the estimate for mle/map), and for a model of ties
/// as events its tie prevalences (Davidson–Luce).
#[pyclass(module = "plackett._plackett", name = "Model", frozen)]
pub struct Model {
    pub(crate) m: SavedModel,
}

impl Model {
    /// `[P(a ≻ b), P(b ≻ a), P(tie)]`.
    fn outcomes(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<[f64; 3]> {
        let (i, j) = (item_index(&self.m.items, a)?, item_index(&self.m.items, b)?);
        Ok(self.m.tie_model().outcomes(&self.m.draws, i, j))
    }
}

#[pymethods]
impl Model {
    /// Read a model from the text of a model file (`source` names it in
    /// error messages: `load_model` passes the path).
    #[staticmethod]
    #[pyo3(signature = (text, source = "model"))]
    fn from_json(text: &str, source: &str) -> PyResult<Model> {
        Ok(Model {
            m: SavedModel::from_json(source, text).map_err(crate::reading_model(
                source,
                text,
                ModelFamily::Rankings,
            ))?,
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
    /// otherwise (numpy array). `data`: a Dataset read over `model.items`,
    /// or rankings as `plackett.rankings` reads them (read over them here).
    fn predict<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let data = crate::held_out(py, data, &self.m.items, "this model")?;
        let data = &*data;
        over_items(data, &self.m.items)?;
        let v = py.detach(|| self.m.predict(&data.ds)).map_err(err)?;
        Ok(PyArray1::from_vec(py, v))
    }
    /// Tie prevalences δ_k by tie order k, for a model of ties as events
    /// (Davidson–Luce); empty for Plackett–Luce.
    #[getter]
    fn ties(&self) -> std::collections::BTreeMap<usize, f64> {
        self.m.ties.iter().map(|t| (t.order, t.delta)).collect()
    }
    /// Choice probabilities over a set of items (as `FitResult.choice_probabilities`;
    /// with ties as events, of being chosen alone).
    fn choice_probabilities<'py>(
        &self,
        py: Python<'py>,
        items: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let set = choice_set(&self.m.items, &items)?;
        let p = self.m.tie_model().choice(&self.m.draws, &set).0;
        Ok(PyArray1::from_vec(
            py,
            p.into_iter().map(|(m, _)| m).collect(),
        ))
    }
    /// P(a beats b) under the model (with ties as events: outright).
    fn compare(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.outcomes(a, b)?[0])
    }
    /// With ties as events, P(a and b tie); None for a model without ties
    /// (as `FitResult.tie_probability`).
    fn tie_probability(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
        let t = self.outcomes(a, b)?[2];
        Ok((!self.m.ties.is_empty()).then_some(t))
    }
    /// With ties as events, the probability that the first choice from
    /// `items` is a tie; None for a model without ties (as
    /// `FitResult.first_tie_probability`).
    fn first_tie_probability(&self, items: Vec<Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
        let set = choice_set(&self.m.items, &items)?;
        Ok(self.m.tie_model().choice(&self.m.draws, &set).1)
    }
    /// The model file's text (what `plackett fit --model-out` writes).
    fn to_json(&self) -> String {
        self.m.to_json()
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, &self.m, "_restore_model")
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

/// A saved finite Plackett–Luce mixture (`plackett fit --components G
/// --model-out`, `MixtureResult.model()`): weights ω and per-component
/// log-worths; predicts `Σ_g ω_g PL(o | λ_g)` and each observation's
/// membership `P(g | o)` (Mollica & Tardella 2017).
#[pyclass(module = "plackett._plackett", name = "MixtureModel", frozen)]
pub struct MixtureModel {
    pub(crate) m: plackett::posterior::SavedMixture,
}

impl MixtureModel {
    fn predicted(&self, data: &PyDataset) -> PyResult<plackett::posterior::MixturePrediction> {
        over_items(data, &self.m.items)?;
        self.m.predict(&data.ds).map_err(err)
    }
}

#[pymethods]
impl MixtureModel {
    /// Read a mixture from the text of a mixture model file.
    #[staticmethod]
    #[pyo3(signature = (text, source = "model"))]
    fn from_json(text: &str, source: &str) -> PyResult<MixtureModel> {
        Ok(MixtureModel {
            m: plackett::posterior::SavedMixture::from_json(source, text)
                .map_err(crate::reading_model(source, text, ModelFamily::Rankings))?,
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
    /// Component weights ω (numpy array).
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.m.weights.clone())
    }
    /// Log-worths, components × items (numpy array).
    #[getter]
    fn log_worth<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray2<f64>> {
        let g = self.m.components();
        let flat: Vec<f64> = self.m.log_worths.iter().flatten().copied().collect();
        numpy::ndarray::Array2::from_shape_vec((g, self.m.items.len()), flat)
            .expect("components × items")
            .into_pyarray(py)
    }
    /// Each observation's log-probability at unit weight, `log Σ_g ω_g
    /// PL(o | λ_g)` (numpy array), as `plackett predict` gives it. `data` as
    /// for `Model.predict`.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let data = crate::held_out(py, data, &self.m.items, "this model")?;
        let data = &*data;
        let p = py.detach(|| self.predicted(data))?;
        Ok(PyArray1::from_vec(py, p.log_probability))
    }
    /// Each observation's membership probabilities `P(g | o)`, observations
    /// × components (numpy array): which population a new ranker belongs to.
    fn membership<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let data = crate::held_out(py, data, &self.m.items, "this model")?;
        let data = &*data;
        let p = py.detach(|| self.predicted(data))?;
        let (n, g) = (p.membership.len(), self.m.components());
        let flat: Vec<f64> = p.membership.into_iter().flatten().collect();
        Ok(numpy::ndarray::Array2::from_shape_vec((n, g), flat)
            .expect("observations × components")
            .into_pyarray(py))
    }
    /// P(a beats b) for a ranker drawn from the population, `Σ_g ω_g
    /// λ_ga/(λ_ga + λ_gb)`.
    fn compare(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self
            .m
            .prob_beats(item_index(&self.m.items, a)?, item_index(&self.m.items, b)?))
    }
    /// Choice probabilities over a set of items for a ranker drawn from the
    /// population (numpy array, in the order given).
    fn choice_probabilities<'py>(
        &self,
        py: Python<'py>,
        items: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let set = choice_set(&self.m.items, &items)?;
        Ok(PyArray1::from_vec(py, self.m.choice_probabilities(&set)))
    }
    /// Rank marginals for a ranker drawn from the population: `out[i, r]`
    /// = Σ_g ω_g P(item i finishes at place r+1 | λ_g), each component by
    /// `races` simulated races (seeded): `plackett fit --components G
    /// --rank-marginals` for the same seed.
    #[pyo3(signature = (races = 20_000, seed = 1))]
    pub(crate) fn rank_marginals<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::races_arg)] races: usize,
        #[pyo3(from_py_with = crate::seed_arg)] seed: u64,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        crate::check_races(races)?;
        let all: Vec<u32> = (0..self.m.items.len() as u32).collect();
        let m = &self.m;
        let rm = py.detach(|| m.rank_marginals(&all, races, seed));
        Ok(crate::places_array(py, rm))
    }
    /// The model file's text (what `plackett fit --components G --model-out` writes).
    fn to_json(&self) -> String {
        self.m.to_json()
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, &self.m, "_restore_mixture_model")
    }
    fn __repr__(&self) -> String {
        format!(
            "MixtureModel(engine={:?}, items={}, components={})",
            self.m.engine,
            self.m.items.len(),
            self.m.components()
        )
    }
}

/// A saved adherence model (`plackett fit --adherence --model-out`,
/// `AdherenceResult.model()`): log-worths θ and every ranker's adherence
/// η_r (one draw at the MAP, posterior draws from the sampler) and the
/// adherences' Gamma prior. A ranker of the model predicts by
/// Plackett–Luce on `η_r θ`; a new ranker integrates its adherence over the
/// prior (Raman & Joachims 2014; Turner et al. 2020).
#[pyclass(module = "plackett._plackett", name = "AdherenceModel", frozen)]
pub struct AdherenceModel {
    pub(crate) m: plackett::posterior::SavedAdherence,
}

impl AdherenceModel {
    /// A ranker's index by name (`None`: a new ranker).
    fn ranker(&self, ranker: Option<&str>) -> PyResult<Option<usize>> {
        ranker
            .map(|r| {
                self.m.ranker_index(r).ok_or_else(|| {
                    pyo3::exceptions::PyKeyError::new_err(format!(
                        "no ranker named {r:?} in the model (it has {})",
                        self.m.rankers.len()
                    ))
                })
            })
            .transpose()
    }
}

#[pymethods]
impl AdherenceModel {
    /// Read an adherence model from the text of its model file.
    #[staticmethod]
    #[pyo3(signature = (text, source = "model"))]
    fn from_json(text: &str, source: &str) -> PyResult<AdherenceModel> {
        Ok(AdherenceModel {
            m: plackett::posterior::SavedAdherence::from_json(source, text)
                .map_err(crate::reading_model(source, text, ModelFamily::Rankings))?,
        })
    }
    /// Item names, in the model's order (read new data with `items=model.items`).
    #[getter]
    fn items(&self) -> Vec<String> {
        self.m.items.clone()
    }
    /// Ranker names, in the order of `adherence`.
    #[getter]
    fn rankers(&self) -> Vec<String> {
        self.m.rankers.clone()
    }
    /// Engine that produced the model.
    #[getter]
    fn engine(&self) -> String {
        self.m.engine.clone()
    }
    /// Number of draws kept (1 for the MAP).
    #[getter]
    fn n_draws(&self) -> usize {
        self.m.log_worths.len()
    }
    /// The adherences' Gamma(shape, rate) prior, or None when they were fixed.
    #[getter]
    fn prior(&self) -> Option<(f64, f64)> {
        self.m.prior.map(|[a, b]| (a, b))
    }
    /// Each ranker's adherence, the mean over the draws (numpy array).
    #[getter]
    fn adherence<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let d = &self.m.adherence;
        let n = d.len() as f64;
        let mean: Vec<f64> = (0..d.n_items())
            .map(|r| (0..d.len()).map(|k| d.draw(k)[r]).sum::<f64>() / n)
            .collect();
        PyArray1::from_vec(py, mean)
    }
    /// Each observation's log-probability at unit weight (numpy array): by
    /// its ranker's adherence when the model knows the ranker (by name),
    /// else integrated over the adherence prior; the mean over the draws
    /// for a sampled model. `data`: a Dataset read over `model.items`, or
    /// rankings as `plackett.rankings` reads them (read over them here);
    /// `rankers` names each observation's ranker when `data` carries none;
    /// a data frame's `ranker` column does, as `plackett predict` reads a
    /// file's.
    #[pyo3(signature = (data, *, rankers = None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        rankers: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        // The package's one reading of a frame's ranker column (None for
        // anything else), as fit_adherence uses.
        let rankers = match rankers {
            None => py
                .import("plackett")?
                .getattr("_frame_rankers")?
                .call1((data,))?
                .extract()?,
            r => r,
        };
        let data = crate::held_out(py, data, &self.m.items, "this model")?;
        let data = &*data;
        over_items(data, &self.m.items)?;
        let ds = crate::ranked_by(data, rankers.as_deref())?;
        let v = py.detach(|| self.m.predict(&ds)).map_err(err)?;
        Ok(PyArray1::from_vec(py, v))
    }
    /// Choice probabilities over a set of items, as ranker `ranker` of the
    /// model would choose, or a new ranker (None: adherence integrated over
    /// the prior).
    #[pyo3(signature = (items, *, ranker = None))]
    fn choice_probabilities<'py>(
        &self,
        py: Python<'py>,
        items: Vec<Bound<'py, PyAny>>,
        ranker: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let set = choice_set(&self.m.items, &items)?;
        let r = self.ranker(ranker)?;
        let p = self.m.choice_probabilities(&set, r).map_err(err)?;
        Ok(PyArray1::from_vec(py, p))
    }
    /// P(a beats b) for ranker `ranker` of the model, or a new ranker (None).
    #[pyo3(signature = (a, b, *, ranker = None))]
    fn compare(
        &self,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        ranker: Option<&str>,
    ) -> PyResult<f64> {
        let (i, j) = (item_index(&self.m.items, a)?, item_index(&self.m.items, b)?);
        if i == j {
            return Err(PyValueError::new_err("compare needs two different items"));
        }
        let r = self.ranker(ranker)?;
        self.m.prob_beats(i, j, r).map_err(err)
    }
    /// Rank marginals of ranker `ranker` of the model, or of a new ranker
    /// (None: each race draws its adherence from the prior): `out[i, r]` =
    /// P(item i finishes at place r+1), from about `races` simulated races
    /// over the model's draws (seeded): `plackett fit --adherence
    /// --rank-marginals` for the same seed (a new ranker).
    #[pyo3(signature = (races = 20_000, seed = 1, *, ranker = None))]
    fn rank_marginals<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::races_arg)] races: usize,
        #[pyo3(from_py_with = crate::seed_arg)] seed: u64,
        ranker: Option<&str>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        crate::check_races(races)?;
        let r = self.ranker(ranker)?;
        let all: Vec<u32> = (0..self.m.items.len() as u32).collect();
        let m = &self.m;
        let rm = py
            .detach(|| m.rank_marginals(&all, races, seed, r))
            .map_err(err)?;
        Ok(crate::places_array(py, rm))
    }
    /// The model file's text (what `plackett fit --adherence --model-out` writes).
    fn to_json(&self) -> String {
        self.m.to_json()
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, &self.m, "_restore_adherence_model")
    }
    fn __repr__(&self) -> String {
        format!(
            "AdherenceModel(engine={:?}, items={}, rankers={}, draws={})",
            self.m.engine,
            self.m.items.len(),
            self.m.rankers.len(),
            self.m.log_worths.len()
        )
    }
}

/// Rebuild a pickled model.
#[pyfunction]
pub fn _restore_model(state: &[u8]) -> PyResult<Model> {
    Ok(Model {
        m: crate::restore(state)?,
    })
}

/// Rebuild a pickled mixture model.
#[pyfunction]
pub fn _restore_mixture_model(state: &[u8]) -> PyResult<MixtureModel> {
    Ok(MixtureModel {
        m: crate::restore(state)?,
    })
}

/// Rebuild a pickled adherence model.
#[pyfunction]
pub fn _restore_adherence_model(state: &[u8]) -> PyResult<AdherenceModel> {
    Ok(AdherenceModel {
        m: crate::restore(state)?,
    })
}
