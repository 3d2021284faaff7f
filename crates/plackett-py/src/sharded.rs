//! The pieces of a sharded fit (`plackett.distributed.fit`): what a worker
//! computes on its shard (weighted-row collapse, stage wins, a
//! reachability skeleton, MM sweeps) and the driver's MM iteration, which
//! is the library's own ([`plackett::infer::mm::mm_sharded`]) fed by a
//! Python function that gathers the shards' sweeps.

use crate::{PyDataset, err};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use plackett::data::Dataset;
use plackett::data::graph::{connectivity, non_existence_error, skeleton, skeleton_dataset};
use plackett::infer::Prior;
use plackett::infer::mm::{MmOptions, Shards, mm_sharded};
use plackett::model::pl::{self, Scope, Sweep};
use plackett::numerics::fixed_point::IterSettings;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Identical observations of the shards (same items, same tie reading)
/// merged into weighted rows, in order of first appearance.
#[pyfunction]
pub fn collapse(py: Python<'_>, shards: Vec<PyRef<'_, PyDataset>>) -> PyResult<PyDataset> {
    let parts: Vec<&Dataset> = shards.iter().map(|s| &s.ds).collect();
    let ds = py.detach(|| Dataset::collapse_all(&parts)).map_err(err)?;
    Ok(PyDataset {
        ds,
        ids: shards.iter().all(|s| s.ids),
    })
}

/// Per-item stage wins of a shard (the MM numerator; additive over shards).
#[pyfunction]
pub fn shard_wins<'py>(py: Python<'py>, shard: &PyDataset) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_vec(py, pl::wins(&shard.ds, Scope::All))
}

/// A graph with the reachability of the shard's comparison graph, as an
/// (edges, 2) array of item ids (see `plackett::data::graph::skeleton`).
#[pyfunction]
pub fn shard_skeleton<'py>(
    py: Python<'py>,
    shard: &PyDataset,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let ds = &shard.ds;
    let e = py.detach(|| skeleton(ds)).map_err(err)?;
    let flat: Vec<u32> = e.iter().flat_map(|&(a, b)| [a, b]).collect();
    Ok(Array2::from_shape_vec((e.len(), 2), flat)
        .expect("edges × 2")
        .into_pyarray(py))
}

/// One MM sweep of a shard at worths `lam` (largest 1) with logs
/// `log_lam`: the in-play coefficients and the shard's log-likelihood (its
/// own stage wins enter it, so the shards' values add up).
#[pyfunction]
pub fn shard_sweep<'py>(
    py: Python<'py>,
    shard: &PyDataset,
    lam: PyReadonlyArray1<'_, f64>,
    log_lam: PyReadonlyArray1<'_, f64>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, f64)> {
    let ds = &shard.ds;
    let n = ds.n_items();
    // Copies: arrays shipped by Dask may be unaligned views of its frames.
    let lam: Vec<f64> = lam.as_array().iter().copied().collect();
    let log_lam: Vec<f64> = log_lam.as_array().iter().copied().collect();
    if lam.len() != n || log_lam.len() != n {
        return Err(PyValueError::new_err(format!(
            "a shard over {n} items was given worths of length {}",
            lam.len()
        )));
    }
    let sw = py.detach(|| pl::sweep(ds, &lam, &log_lam, &pl::wins(ds, Scope::All), Scope::All));
    Ok((PyArray1::from_vec(py, sw.den), sw.loglik))
}

impl ShardedFit {
    /// Worths normalised to sum to one (from the log-worths, overflow-safe).
    fn normalised_worth(&self) -> Vec<f64> {
        let (lam, _) = pl::scaled(&self.log_worth);
        let s: f64 = lam.iter().sum();
        lam.iter().map(|l| l / s).collect()
    }
}

/// Calls back into Python for the shards' sweeps.
struct PyShards<'py> {
    f: Bound<'py, PyAny>,
    error: Option<PyErr>,
}

impl Shards for PyShards<'_> {
    fn sweep(&mut self, lam: &[f64], log_lam: &[f64]) -> plackett::Result<Vec<Sweep>> {
        let py = self.f.py();
        let call = || -> PyResult<Vec<Sweep>> {
            let out = self.f.call1((
                PyArray1::from_slice(py, lam),
                PyArray1::from_slice(py, log_lam),
            ))?;
            let parts: Vec<(PyReadonlyArray1<'_, f64>, f64)> = out.extract()?;
            parts
                .into_iter()
                .map(|(d, l)| {
                    Ok(Sweep {
                        loglik: l,
                        den: d.as_array().iter().copied().collect(),
                    })
                })
                .collect()
        };
        call().map_err(|e| {
            self.error = Some(e);
            plackett::Error::Cancelled
        })
    }
}

/// A sharded MLE/MAP: log-worths (mean-centred for the MLE) and the fit's
/// log-likelihood, iterations and convergence.
#[pyclass(module = "plackett._plackett", name = "ShardedFit", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct ShardedFit {
    names: Vec<String>,
    engine: String,
    log_worth: Vec<f64>,
    log_likelihood: f64,
    iterations: usize,
    converged: bool,
    n_rows: f64,
}

#[pymethods]
impl ShardedFit {
    /// Item names, in the order of every array.
    #[getter]
    fn items(&self) -> Vec<String> {
        self.names.clone()
    }
    /// `mle` or `map`.
    #[getter]
    fn engine(&self) -> String {
        self.engine.clone()
    }
    /// Log-worths, mean-centred.
    #[getter]
    fn log_worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.log_worth)
    }
    /// Worths normalised to sum to one.
    #[getter]
    fn worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.normalised_worth())
    }
    /// Log-likelihood at the estimate.
    #[getter]
    fn log_likelihood(&self) -> f64 {
        self.log_likelihood
    }
    /// MM sweeps over all shards.
    #[getter]
    fn iterations(&self) -> usize {
        self.iterations
    }
    /// Whether the stopping rule was met.
    #[getter]
    fn converged(&self) -> bool {
        self.converged
    }
    /// Total weight of the observations.
    #[getter]
    fn total_weight(&self) -> f64 {
        self.n_rows
    }
    /// Per-item table (worth, log_worth), a pandas DataFrame indexed by
    /// item. A sharded fit has no standard errors (see
    /// `plackett.distributed.fit`).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("item", self.names.clone())?;
        d.set_item("worth", self.worth(py))?;
        d.set_item("log_worth", self.log_worth(py))?;
        crate::frame_by(py, d, "item")
    }
    /// The fit as JSON: `engine`, `items` (name, log_worth, worth),
    /// `log_likelihood`, `iterations`, `converged`, `total_weight`; the
    /// keys `plackett fit --output json` uses for the same quantities.
    fn to_json(&self) -> PyResult<String> {
        let worth = self.normalised_worth();
        let items: Vec<serde_json::Value> = self
            .names
            .iter()
            .zip(&self.log_worth)
            .zip(worth)
            .map(|((n, l), w)| serde_json::json!({"name": n, "log_worth": l, "worth": w}))
            .collect();
        let doc = serde_json::json!({
            "engine": self.engine,
            "algorithm": "mm+squarem (sharded)",
            "n_items": self.names.len(),
            "total_weight": self.n_rows,
            "converged": self.converged,
            "iterations": self.iterations,
            "log_likelihood": self.log_likelihood,
            "items": items,
        });
        serde_json::to_string_pretty(&doc)
            .map(|s| s + "\n")
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett.ShardedFit(engine={:?}, items={}, converged={})",
            self.engine,
            self.names.len(),
            crate::py_bool(self.converged)
        )
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_sharded")
    }
}

/// Rebuild a pickled sharded fit.
#[pyfunction]
pub fn _restore_sharded(state: &[u8]) -> PyResult<ShardedFit> {
    crate::restore(state)
}

/// The shards' stage wins summed in shard order (each of length `n`).
fn summed_wins(wins: &[PyReadonlyArray1<'_, f64>], n: usize) -> PyResult<Vec<f64>> {
    let mut total = vec![0.0; n];
    for w in wins {
        let w = w.as_array();
        if w.len() != n {
            return Err(PyValueError::new_err(format!(
                "a shard reports {} wins for {n} items",
                w.len()
            )));
        }
        total.iter_mut().zip(w.iter()).for_each(|(a, b)| *a += b);
    }
    Ok(total)
}

/// The driver's MM iteration (Hunter 2004 with SQUAREM, as `engine="mle"`
/// or `"map"` on one machine) over shards reporting through `sweep(lam,
/// log_lam) -> [(den, loglik), …]`. `wins` are the shards' stage wins
/// (summed here, in shard order); `skeleton` the shards' skeleton edges
/// (their union decides the MLE's existence).
#[pyfunction]
#[pyo3(signature = (names, wins, sweep, *, engine = "mle", skeleton = None, prior_shape = 2.0,
    prior_rate = 1.0, tol = 1e-10, max_iter = 100_000, total_weight = 0.0))]
#[allow(clippy::too_many_arguments)]
pub fn fit_sharded(
    names: Vec<String>,
    wins: Vec<PyReadonlyArray1<'_, f64>>,
    sweep: Bound<'_, PyAny>,
    engine: &str,
    skeleton: Option<Vec<PyReadonlyArray2<'_, u32>>>,
    prior_shape: f64,
    prior_rate: f64,
    tol: f64,
    max_iter: usize,
    total_weight: f64,
) -> PyResult<ShardedFit> {
    let n = names.len();
    let wins = summed_wins(&wins, n)?;
    let items = plackett::data::Items::from_names(&names)
        .map_err(|m| PyValueError::new_err(format!("invalid option items: {m}")))?;
    let prior = match engine {
        "mle" => {
            let sk = skeleton
                .ok_or_else(|| PyValueError::new_err("a sharded MLE needs the shards' skeleton"))?;
            let mut edges: Vec<(u32, u32)> = Vec::new();
            for part in &sk {
                let a = part.as_array();
                if a.ncols() != 2 || a.iter().any(|&i| i as usize >= n) {
                    return Err(PyValueError::new_err(
                        "a shard's skeleton is not an (edges, 2) array of item ids",
                    ));
                }
                edges.extend(a.rows().into_iter().map(|r| (r[0], r[1])));
            }
            edges.sort_unstable();
            edges.dedup();
            let g = skeleton_dataset(&items, &edges).map_err(err)?;
            let c = connectivity(&g);
            if !c.strongly_connected {
                return Err(err(non_existence_error(&c, &items)));
            }
            Prior::Flat
        }
        "map" => {
            if !(prior_shape.is_finite() && prior_shape >= 1.0) {
                return Err(PyValueError::new_err(format!(
                    "invalid option prior_shape: a sharded MAP needs a Gamma shape of at least 1, got {prior_shape}"
                )));
            }
            if !(prior_rate.is_finite() && prior_rate > 0.0) {
                return Err(PyValueError::new_err(format!(
                    "invalid option prior_rate: expected a positive number, got {prior_rate}"
                )));
            }
            Prior::Gamma {
                shape: prior_shape,
                rate: prior_rate,
            }
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "invalid option engine: a sharded fit is \"mle\" or \"map\", got {other:?}"
            )));
        }
    };
    let opts = MmOptions {
        prior,
        fixed: None,
        iter: IterSettings::new(tol, max_iter),
        observer: None,
    };
    let mut shards = PyShards {
        f: sweep,
        error: None,
    };
    let r = mm_sharded(&mut shards, wins, &vec![0.0; n], &opts);
    if let Some(e) = shards.error {
        return Err(e);
    }
    let r = r.map_err(err)?;
    // The objective is the log-posterior for MAP (at the uncentred
    // iterate); report the log-likelihood for both engines.
    let log_prior: f64 = r.theta.iter().map(|&t| prior.log_density(t)).sum();
    let mut theta = r.theta;
    plackett::numerics::centre(&mut theta);
    Ok(ShardedFit {
        names,
        engine: engine.to_string(),
        log_likelihood: r.objective - log_prior,
        log_worth: theta,
        iterations: r.sweeps,
        converged: r.converged,
        n_rows: total_weight,
    })
}

/// The observed information of a shard at log-worths `theta`, lower
/// triangle filled (additive over shards; what VB's linear-response
/// covariance reads).
#[pyfunction]
pub fn shard_information<'py>(
    py: Python<'py>,
    shard: &PyDataset,
    theta: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let ds = &shard.ds;
    let n = ds.n_items();
    let theta: Vec<f64> = theta.as_array().iter().copied().collect();
    if theta.len() != n {
        return Err(PyValueError::new_err(format!(
            "a shard over {n} items was given log-worths of length {}",
            theta.len()
        )));
    }
    let m = py
        .detach(|| plackett::model::information::information_lower(ds, &theta, Scope::All))
        .map_err(err)?;
    Ok(crate::matrix_array(py, &m))
}

/// Calls back into Python for the shards' sweeps and information.
struct PyVbShards<'py> {
    sweeps: PyShards<'py>,
    information: Bound<'py, PyAny>,
}

impl Shards for PyVbShards<'_> {
    fn sweep(&mut self, lam: &[f64], log_lam: &[f64]) -> plackett::Result<Vec<Sweep>> {
        self.sweeps.sweep(lam, log_lam)
    }

    fn information_lower(
        &mut self,
        theta: &[f64],
    ) -> plackett::Result<plackett::nalgebra::DMatrix<f64>> {
        let py = self.information.py();
        let n = theta.len();
        let call = || -> PyResult<plackett::nalgebra::DMatrix<f64>> {
            let out = self.information.call1((PyArray1::from_slice(py, theta),))?;
            let a: PyReadonlyArray2<'_, f64> = out.extract()?;
            let a = a.as_array();
            if a.nrows() != n || a.ncols() != n {
                return Err(PyValueError::new_err(format!(
                    "the shards' information is {} × {}, not {n} × {n}",
                    a.nrows(),
                    a.ncols()
                )));
            }
            Ok(plackett::nalgebra::DMatrix::from_fn(n, n, |i, j| a[(i, j)]))
        };
        call().map_err(|e| {
            self.sweeps.error = Some(e);
            plackett::Error::Cancelled
        })
    }
}

/// The driver's VB iteration ([`plackett::infer::vb::vb_sharded`], as
/// `engine="vb"` on one machine) over shards reporting their sweeps
/// through `sweep(lam, log_lam)` and their summed information through
/// `information(theta)`; returns the full `FitResult` (sds, intervals,
/// draws from the linear-response covariance by default). `n_rows` and
/// `total_weight` describe the shards' (collapsed) rows.
#[pyfunction]
#[pyo3(signature = (names, wins, sweep, information, *, prior_shape = 2.0, prior_rate = 1.0,
    tol = 1e-10, max_iter = 100_000, draws = 4000, seed = 1, covariance = "linear-response",
    n_rows = 0, total_weight = 0.0))]
#[allow(clippy::too_many_arguments)]
pub fn fit_sharded_vb(
    names: Vec<String>,
    wins: Vec<PyReadonlyArray1<'_, f64>>,
    sweep: Bound<'_, PyAny>,
    information: Bound<'_, PyAny>,
    prior_shape: f64,
    prior_rate: f64,
    tol: f64,
    max_iter: usize,
    draws: usize,
    seed: u64,
    covariance: &str,
    n_rows: usize,
    total_weight: f64,
) -> PyResult<crate::FitResult> {
    use plackett::infer::bayes::GammaPrior;
    use plackett::infer::spec::{EngineKind, FitSpec, Fitted};
    use plackett::infer::vb::{VbCovariance, VbOptions, vb_sharded};
    use plackett::posterior::{Gauge, Posterior};
    let n = names.len();
    let total = summed_wins(&wins, n)?;
    let items = plackett::data::Items::from_names(&names)
        .map_err(|m| PyValueError::new_err(format!("invalid option items: {m}")))?;
    // The same checks as the single-machine fit (FitSpec's), named alike.
    let spec = FitSpec {
        engine: EngineKind::Vb,
        gamma: (prior_shape, prior_rate),
        tol: Some(tol),
        max_iter: Some(max_iter),
        draws,
        seed,
        ..Default::default()
    };
    spec.check().map_err(err)?;
    let opts = VbOptions {
        prior: GammaPrior::iid(n, prior_shape, prior_rate).map_err(err)?,
        iter: IterSettings::new(tol, max_iter),
        draws,
        seed,
        observer: None,
        covariance: VbCovariance::parse(covariance).map_err(err)?,
    };
    let mut shards = PyVbShards {
        sweeps: PyShards {
            f: sweep,
            error: None,
        },
        information,
    };
    let fit = vb_sharded(&mut shards, total, &opts);
    if let Some(e) = shards.sweeps.error {
        return Err(e);
    }
    let fit = fit.map_err(err)?;
    let post = Fitted::Bayes(fit);
    // The shards' data are on the workers: the report describes the fit
    // and the rows' counts, not the data's connectivity.
    let empty =
        plackett::data::DatasetBuilder::new(items, plackett::data::TieSemantics::UnknownOrder)
            .finish();
    let gauge = Gauge::MeanCentred;
    let mut report =
        plackett::posterior::fit_report::FitReport::from_posterior(&post, &empty, &gauge);
    report.notes = post.info().notes;
    report.n_observations = n_rows;
    report.total_weight = Some(total_weight);
    Ok(crate::FitResult {
        post,
        names,
        report,
        ids: false,
    })
}
