//! Uncertain ground truth (Stutz et al. 2023) from Python: selectors in,
//! plausibilities and uncertainty-adjusted metrics out, with the CLI's
//! settings, checks and JSON documents (`plackett::groundtruth::settings`,
//! `plackett::groundtruth::summary`).

use crate::err;
use crate::kwargs::Kwargs;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use plackett::choice::Choice;
use plackett::groundtruth::models::Method;
use plackett::groundtruth::run::{Predictions, RunResult, run};
use plackett::groundtruth::settings::{
    AggregateSettings, MethodName, classes_note, parse_preset, parse_prirn_zero, parse_tie_split,
    select_cases,
};
use plackett::groundtruth::summary::{EvaluationRun, aggregate_json, evaluate_document};
use plackett::io::selectors::{Selectors, parse_selectors, read_risks};
use plackett::io::{ItemsSpec, read_text};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::{Deserialize, Serialize};

/// Differential diagnoses read and checked: per case, its annotators'
/// best-first groups of class ids, with the class names.
#[pyclass(module = "plackett._plackett", name = "Selectors", frozen)]
#[derive(Clone, Serialize, Deserialize)]
pub struct PySelectors {
    sel: Selectors,
    names: Vec<String>,
    notes: Vec<String>,
    /// Index of the first case in the whole dataset (a chunk keeps its
    /// cases' ids and random streams).
    offset: usize,
}

fn classes_spec(classes: Option<&Bound<'_, PyAny>>) -> PyResult<Option<ItemsSpec>> {
    let Some(c) = classes else { return Ok(None) };
    if let Ok(k) = c.extract::<usize>() {
        return ItemsSpec::from_arg(&k.to_string()).map(Some).map_err(err);
    }
    if let Ok(path) = c.extract::<String>() {
        return ItemsSpec::from_arg(&path).map(Some).map_err(err);
    }
    if let Ok(names) = c.extract::<Vec<String>>() {
        if names.is_empty() {
            return Err(PyValueError::new_err(
                "invalid option classes: expected at least one class",
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(d) = names.iter().find(|n| !seen.insert(n.as_str())) {
            return Err(PyValueError::new_err(format!(
                "invalid option classes: duplicate class name {d:?}"
            )));
        }
        return Ok(Some(ItemsSpec::Names(names)));
    }
    Err(PyTypeError::new_err(
        "classes: expected a count (int), a list of names or the path of a names file",
    ))
}

/// Read selectors from JSON text (`text`, named `name` in messages) or a
/// file (`path`); `classes` declares K (int, names, or a names file).
#[pyfunction]
#[pyo3(signature = (*, text = None, path = None, name = "<selectors>", classes = None))]
pub fn read_selectors_data(
    py: Python<'_>,
    text: Option<String>,
    path: Option<String>,
    name: &str,
    classes: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySelectors> {
    let spec = classes_spec(classes)?;
    let declared = spec.is_some();
    let (k, names) = match spec {
        Some(ItemsSpec::Names(n)) => (Some(n.len()), n),
        Some(ItemsSpec::Count(k)) => (Some(k), (0..k).map(|i| i.to_string()).collect()),
        None => (None, Vec::new()),
    };
    let name = name.to_string();
    let sel = py
        .detach(move || -> plackett::Result<Selectors> {
            let (label, text) = match (path, text) {
                (Some(p), _) => {
                    let t = read_text(&p)?;
                    (p, t)
                }
                (None, Some(t)) => (name, t),
                (None, None) => {
                    return Err(plackett::Error::param("selectors", "no data given"));
                }
            };
            parse_selectors(&label, &text, k)
        })
        .map_err(err)?;
    let names = if names.is_empty() {
        (0..sel.n_classes).map(|i| i.to_string()).collect()
    } else {
        names
    };
    let notes = if declared {
        Vec::new()
    } else {
        vec![render(&classes_note(&sel))]
    };
    Ok(PySelectors {
        sel,
        names,
        notes,
        offset: 0,
    })
}

fn render(s: &str) -> String {
    plackett::error::render_params(s, plackett::error::ParamStyle::Python)
}

#[pymethods]
impl PySelectors {
    /// Number of cases.
    #[getter]
    fn n_cases(&self) -> usize {
        self.sel.cases.len()
    }
    /// Number of classes K.
    #[getter]
    fn n_classes(&self) -> usize {
        self.sel.n_classes
    }
    /// Class names (ids as strings unless declared).
    #[getter]
    fn classes(&self) -> Vec<String> {
        self.names.clone()
    }
    /// Index of the first case in the whole dataset.
    #[getter]
    fn offset(&self) -> usize {
        self.offset
    }
    /// Cases `start..stop` as their own Selectors, keeping their case ids
    /// (and so their random streams and results).
    fn chunk(
        &self,
        #[pyo3(from_py_with = crate::start_arg)] start: usize,
        #[pyo3(from_py_with = crate::stop_arg)] stop: usize,
    ) -> PyResult<PySelectors> {
        if start > stop || stop > self.sel.cases.len() {
            return Err(PyValueError::new_err(format!(
                "chunk {start}..{stop} out of range (0..{})",
                self.sel.cases.len()
            )));
        }
        // Only the chunk's cases are copied (a chunk per task).
        let sel = Selectors {
            cases: self.sel.cases[start..stop].to_vec(),
            n_classes: self.sel.n_classes,
            empty_dropped: self.sel.empty_dropped,
            lines: self.sel.lines[start..stop].to_vec(),
            source: self.sel.source.clone(),
        };
        Ok(PySelectors {
            sel,
            names: self.names.clone(),
            notes: self.notes.clone(),
            offset: self.offset + start,
        })
    }
    fn __len__(&self) -> usize {
        self.sel.cases.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett.Selectors({} cases, {} classes)",
            self.sel.cases.len(),
            self.sel.n_classes
        )
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_selectors")
    }
}

/// Rebuild pickled selectors.
#[pyfunction]
pub fn _restore_selectors(state: &[u8]) -> PyResult<PySelectors> {
    crate::restore(state)
}

/// The aggregation settings `aggregate` and `evaluate` share, read from
/// their keyword arguments (`method`, `preset`, `samples`, `burn_in`,
/// `seed`, `prior_shape`, `prior_rate`, `irn_ties`, `prirn_zero`); absent
/// ones take `AggregateSettings::default()`.
fn settings(kw: &mut Kwargs<'_, '_>) -> PyResult<AggregateSettings> {
    let d = AggregateSettings::default();
    let method: Option<String> = kw.get("method")?;
    let preset: Option<String> = kw.get("preset")?;
    let irn_ties: Option<String> = kw.get("irn_ties")?;
    let prirn_zero: Option<String> = kw.get("prirn_zero")?;
    let s = AggregateSettings {
        method: method
            .as_deref()
            .map_or(Ok(d.method), MethodName::parse)
            .map_err(err)?,
        samples: kw.or("samples", d.samples)?,
        burn_in: kw.or("burn_in", d.burn_in)?,
        seed: kw.or("seed", d.seed)?,
        prior_shape: kw.get("prior_shape")?,
        prior_rate: kw.or("prior_rate", d.prior_rate)?,
        irn_ties: irn_ties
            .as_deref()
            .map(parse_tie_split)
            .transpose()
            .map_err(err)?,
        prirn_zero: prirn_zero
            .as_deref()
            .map(parse_prirn_zero)
            .transpose()
            .map_err(err)?,
        paper: preset
            .as_deref()
            .map(parse_preset)
            .transpose()
            .map_err(err)?
            .unwrap_or(false),
    };
    s.check().map_err(err)?;
    Ok(s)
}

/// Risk levels from a file path or a sequence of 0/1/2, one per class.
fn risks_of(risks: Option<&Bound<'_, PyAny>>, k: usize) -> PyResult<Option<Vec<u8>>> {
    let Some(r) = risks else { return Ok(None) };
    if let Ok(path) = r.extract::<String>() {
        return read_risks(&path, k).map(Some).map_err(err);
    }
    let v: Vec<i64> = r.extract().map_err(|_| {
        PyTypeError::new_err("risks: expected a file path or a sequence of risk levels 0, 1, 2")
    })?;
    if v.len() != k {
        return Err(PyValueError::new_err(format!(
            "invalid option risks: {} risk levels for {k} classes",
            v.len()
        )));
    }
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            u8::try_from(x).ok().filter(|&x| x <= 2).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "invalid option risks: risk level of class {i} must be 0, 1 or 2, got {x}"
                ))
            })
        })
        .collect::<PyResult<Vec<u8>>>()
        .map(Some)
}

fn cases_of(sel: &PySelectors, cases: Option<Vec<usize>>) -> PyResult<Vec<usize>> {
    select_cases(&sel.sel, cases.as_deref()).map_err(err)
}

/// The cases whose plausibility samples a run keeps for its report's
/// per-case plots (Stutz et al. 2023, Fig. 5): those named, each among
/// the evaluated cases, or the first evaluated case (the CLI's default
/// with `--report`).
fn plotted(cases: &[usize], plot_cases: Option<Vec<usize>>) -> PyResult<Vec<usize>> {
    match plot_cases {
        None => Ok(cases.iter().take(1).copied().collect()),
        Some(p) => {
            if let Some(c) = p.iter().find(|c| !cases.contains(c)) {
                return Err(PyValueError::new_err(format!(
                    "invalid option plot_cases: case {c} is not among the evaluated cases"
                )));
            }
            Ok(p)
        }
    }
}

/// Per-case plausibilities of an aggregation run.
#[pyclass(module = "plackett._plackett", name = "AggregateResult", frozen)]
#[derive(Serialize, Deserialize)]
pub struct AggregateResult {
    run: RunResult,
    names: Vec<String>,
    n_classes: usize,
    method: Method,
    seed: u64,
    notes: Vec<String>,
}

/// Aggregate differential diagnoses into plausibilities; keyword
/// arguments as the CLI's `aggregate` flags.
#[pyfunction]
#[pyo3(signature = (selectors, *, reliability = None, cases = None, risks = None,
    plot_cases = None, **settings_kw))]
pub fn aggregate(
    py: Python<'_>,
    selectors: &PySelectors,
    reliability: Option<f64>,
    cases: Option<Vec<usize>>,
    risks: Option<&Bound<'_, PyAny>>,
    plot_cases: Option<Vec<usize>>,
    settings_kw: Option<&Bound<'_, PyDict>>,
) -> PyResult<AggregateResult> {
    let mut kw = Kwargs::new("aggregate", settings_kw);
    let st = settings(&mut kw)?;
    kw.finish()?;
    let k = selectors.sel.n_classes;
    let mut cfg = st.config(reliability, k, &[1, 2, 3]).map_err(err)?;
    cfg.case_offset = selectors.offset;
    let risks = risks_of(risks, k)?;
    let cases = cases_of(selectors, cases)?;
    let plot = plotted(&cases, plot_cases)?;
    let sel = &selectors.sel;
    let res = crate::interrupt::run(py, |obs| {
        run(
            sel,
            &cases,
            &cfg,
            risks.as_deref(),
            &Predictions::None,
            &plot,
            obs.as_ref(),
        )
    })?;
    Ok(AggregateResult {
        run: res,
        names: selectors.names.clone(),
        n_classes: k,
        method: cfg.method,
        seed: st.seed,
        notes: selectors.notes.clone(),
    })
}

impl AggregateResult {
    /// One value per case.
    fn per_case<'py, T: numpy::Element>(
        &self,
        py: Python<'py>,
        f: impl Fn(&plackett::groundtruth::run::CaseResult) -> T,
    ) -> Bound<'py, PyArray1<T>> {
        PyArray1::from_vec(py, self.run.cases.iter().map(f).collect())
    }

    /// One row per case over its most plausible classes, `fill` padding
    /// the shorter rows.
    fn top_matrix<'py, T: numpy::Element + Copy>(
        &self,
        py: Python<'py>,
        fill: T,
        f: impl Fn(&(u32, f64, f64)) -> T,
    ) -> Bound<'py, PyArray2<T>> {
        let n = self.run.cases.len();
        let t = self
            .run
            .cases
            .iter()
            .map(|c| c.top.len())
            .max()
            .unwrap_or(0);
        let mut a = Array2::from_elem((n, t), fill);
        for (i, c) in self.run.cases.iter().enumerate() {
            for (j, e) in c.top.iter().enumerate() {
                a[(i, j)] = f(e);
            }
        }
        a.into_pyarray(py)
    }
}

#[pymethods]
impl AggregateResult {
    /// The head every result and document shares (`plackett::document`):
    /// family, engine, converged, iterations, n_observations, notes,
    /// diagnostics — as a dict, equal to the head of `to_json()`'s document.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::envelope::dict(
            py,
            &plackett::groundtruth::summary::envelope(&self.run, &self.method, &self.notes),
        )
    }

    /// Case ids (indices in the selectors), in result order.
    #[getter]
    fn cases<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.per_case(py, |c| c.case as i64)
    }
    /// Annotators per case.
    #[getter]
    fn n_annotators<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.per_case(py, |c| c.n_annotators as i64)
    }
    /// Top-1, top-2 and top-3 annotation certainty, shape (cases, 3).
    #[getter]
    fn certainty<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let v: Vec<f64> = self.run.cases.iter().flat_map(|c| c.certainty).collect();
        Array2::from_shape_vec((self.run.cases.len(), 3), v)
            .expect("cases × 3")
            .into_pyarray(py)
    }
    /// Leave-one-annotator-out agreement (NaN for one annotator).
    #[getter]
    fn agreement<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.per_case(py, |c| c.agreement.unwrap_or(f64::NAN))
    }
    /// Class ids of the most plausible classes, shape (cases, top); -1 pads.
    #[getter]
    fn top_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        self.top_matrix(py, -1i64, |e| i64::from(e.0))
    }
    /// Posterior mean plausibility of those classes (NaN pads).
    #[getter]
    fn top_mean<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.top_matrix(py, f64::NAN, |e| e.1)
    }
    /// Posterior sd of those plausibilities (NaN pads).
    #[getter]
    fn top_sd<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.top_matrix(py, f64::NAN, |e| e.2)
    }
    /// Class names, indexed by class id.
    #[getter]
    fn classes(&self) -> Vec<String> {
        self.names.clone()
    }
    /// Notes (e.g. K taken from the data).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
    /// Per-case table (case, n_annotators, certainty_top1..3, agreement,
    /// top1_id, top1_class, top1_mean, top1_sd): a pandas DataFrame when
    /// pandas is installed, else a dict of numpy arrays.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        let c = &self.run.cases;
        let top = |f: &dyn Fn(&(u32, f64, f64)) -> f64| -> Vec<f64> {
            c.iter()
                .map(|r| r.top.first().map_or(f64::NAN, f))
                .collect()
        };
        d.set_item("case", self.cases(py))?;
        d.set_item("n_annotators", self.n_annotators(py))?;
        for j in 0..3 {
            d.set_item(
                format!("certainty_top{}", j + 1),
                PyArray1::from_vec(py, c.iter().map(|r| r.certainty[j]).collect()),
            )?;
        }
        d.set_item("agreement", self.agreement(py))?;
        d.set_item(
            "top1_id",
            PyArray1::from_vec(
                py,
                c.iter()
                    .map(|r| r.top.first().map_or(-1, |t| i64::from(t.0)))
                    .collect(),
            ),
        )?;
        d.set_item(
            "top1_class",
            c.iter()
                .map(|r| {
                    r.top
                        .first()
                        .map_or(String::new(), |t| self.names[t.0 as usize].clone())
                })
                .collect::<Vec<_>>(),
        )?;
        d.set_item("top1_mean", PyArray1::from_vec(py, top(&|t| t.1)))?;
        d.set_item("top1_sd", PyArray1::from_vec(py, top(&|t| t.2)))?;
        match py.import("pandas") {
            Ok(pd) => pd.getattr("DataFrame")?.call1((d,)),
            Err(_) => Ok(d.into_any()),
        }
    }
    /// Mean top-1 annotation certainty over the cases.
    #[getter]
    fn annotation_certainty(&self) -> f64 {
        let c = &self.run.cases;
        c.iter().map(|r| r.certainty[0]).sum::<f64>() / c.len().max(1) as f64
    }
    /// The CLI's JSON (`plackett aggregate --output json`), same keys.
    fn to_json(&self) -> PyResult<String> {
        let v = aggregate_json(
            &self.run,
            &self.names,
            self.n_classes,
            &self.method,
            self.seed,
            &self.notes,
        );
        serde_json::to_string_pretty(&v)
            .map(|s| s + "\n")
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
    /// Join results of disjoint chunks (in the order given) into one, as a
    /// single run over all their cases would give.
    #[staticmethod]
    fn concat(parts: Vec<PyRef<'_, AggregateResult>>) -> PyResult<AggregateResult> {
        let first = parts
            .first()
            .ok_or_else(|| PyValueError::new_err("concat: expected at least one result"))?;
        if parts
            .iter()
            .any(|p| p.method != first.method || p.seed != first.seed || p.names != first.names)
        {
            return Err(PyValueError::new_err(
                "concat: results of different settings or classes",
            ));
        }
        let run = RunResult::concat(parts.iter().map(|p| p.run.clone()).collect()).map_err(err)?;
        Ok(AggregateResult {
            run,
            names: first.names.clone(),
            n_classes: first.n_classes,
            method: first.method.clone(),
            seed: first.seed,
            notes: first.notes.clone(),
        })
    }
    /// Write the HTML page `plackett aggregate --report` writes (certainty
    /// per case, certainty against annotator agreement, risk when risk
    /// levels were given, and the plausibility samples of the plotted cases:
    /// ``aggregate(plot_cases=…)``, by default the first case; a result
    /// rebuilt from a pickle has no samples and leaves those plots out) to
    /// ``path`` (a str or path-like); nothing is written if it fails.
    fn report(&self, path: std::path::PathBuf) -> PyResult<()> {
        let page = plackett::report::groundtruth::aggregate_page(
            "plackett.aggregate",
            &self.method,
            &self.run,
            &self.names,
        );
        crate::write_page(&path, &page)
    }
    fn __len__(&self) -> usize {
        self.run.cases.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett.AggregateResult({} cases, method={:?})",
            self.run.cases.len(),
            plackett::groundtruth::summary::method_label(&self.method)
        )
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_aggregate")
    }
}

/// Rebuild a pickled aggregation result.
#[pyfunction]
pub fn _restore_aggregate(state: &[u8]) -> PyResult<AggregateResult> {
    crate::restore(state)
}

/// Score predictions against the aggregated plausibilities; keyword
/// arguments as the CLI's `evaluate` flags. `predictions` is an N × K
/// score array (one row per evaluated case), a score file, or
/// `"annotator:leave-one-out"`. Returns the CLI's JSON document.
#[pyfunction]
#[pyo3(signature = (selectors, predictions, *, k = vec![1, 2, 3], reliability = None,
    cases = None, risks = None, report = None, **settings_kw))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    py: Python<'_>,
    selectors: &PySelectors,
    predictions: &Bound<'_, PyAny>,
    k: Vec<usize>,
    reliability: Option<Vec<f64>>,
    cases: Option<Vec<usize>>,
    risks: Option<&Bound<'_, PyAny>>,
    report: Option<std::path::PathBuf>,
    settings_kw: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let mut kw = Kwargs::new("evaluate", settings_kw);
    let st = settings(&mut kw)?;
    kw.finish()?;
    let kk = selectors.sel.n_classes;
    let rels: Vec<Option<f64>> = match reliability {
        None => vec![None],
        Some(v) if v.is_empty() => {
            return Err(PyValueError::new_err(
                "invalid option reliability: expected at least one value",
            ));
        }
        Some(v) => v.into_iter().map(Some).collect(),
    };
    let mut cfgs = rels
        .iter()
        .map(|r| st.evaluate_config(*r, kk, &k))
        .collect::<plackett::Result<Vec<_>>>()
        .map_err(err)?;
    for c in &mut cfgs {
        c.case_offset = selectors.offset;
    }
    let risks = risks_of(risks, kk)?;
    let cases = cases_of(selectors, cases)?;
    let (preds, label) = if let Ok(s) = predictions.extract::<String>() {
        if s == "annotator:leave-one-out" {
            (Predictions::LeaveOneAnnotatorOut, s)
        } else {
            let rows = plackett::io::selectors::read_scores(&s, cases.len(), kk).map_err(err)?;
            (Predictions::Scores(rows), s)
        }
    } else {
        let a: PyReadonlyArray2<'_, f64> = predictions.extract().map_err(|_| {
            PyTypeError::new_err(
                "predictions: expected a 2-d float array (cases × classes), a score file or \"annotator:leave-one-out\"",
            )
        })?;
        let a = a.as_array();
        if a.nrows() != cases.len() || a.ncols() != kk {
            return Err(PyValueError::new_err(format!(
                "invalid option predictions: shape ({}, {}), expected one row per evaluated case and one column per class ({}, {kk})",
                a.nrows(),
                a.ncols(),
                cases.len()
            )));
        }
        if let Some(((i, j), v)) = a.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "invalid option predictions: scores must be finite, got {v} at row {i}, column {j}"
            )));
        }
        let rows = a.rows().into_iter().map(|r| r.to_vec()).collect();
        (Predictions::Scores(rows), "<array>".to_string())
    };
    // As the CLI's --report: the first case's samples for its plot.
    let plot: Vec<usize> = match report {
        Some(_) => cases.iter().take(1).copied().collect(),
        None => Vec::new(),
    };
    let sel = &selectors.sel;
    let runs: Vec<EvaluationRun> = crate::interrupt::run(py, |obs| {
        rels.iter()
            .zip(cfgs)
            .map(|(r, cfg)| {
                run(
                    sel,
                    &cases,
                    &cfg,
                    risks.as_deref(),
                    &preds,
                    &plot,
                    obs.as_ref(),
                )
                .map(|res| (*r, cfg.method, res))
            })
            .collect()
    })?;
    let doc = evaluate_document(&runs, &k, &selectors.notes, &label);
    if let Some(path) = &report {
        let page = plackett::report::groundtruth::evaluate_page(
            "plackett.evaluate",
            &runs,
            &k,
            &selectors.names,
        );
        crate::write_page(path, &page)?;
    }
    serde_json::to_string_pretty(&doc)
        .map(|s| s + "\n")
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
