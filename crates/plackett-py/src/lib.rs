//! Python bindings of plackett: argument translation only. Data go through
//! the library's own readers (the same ones, with the same messages, as the
//! `plackett` command), fits through [`FitSpec`], results through the one
//! [`Posterior`] interface and the CLI's JSON report.

use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3};
use plackett::choice::Choice;
use plackett::data::{Dataset, TieSemantics};
use plackett::document::Document;
use plackett::infer::Prior;
use plackett::infer::feature_run::FeatureSettings;
use plackett::infer::point::Algorithm;
use plackett::infer::spec::{EngineKind, FitSpec, Fitted};
use plackett::io::{Format, ItemsSpec, ReadOptions, read_path, read_str};
use plackett::posterior::fit_report::FitReport;
use plackett::posterior::{Gauge, Posterior};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;

mod adherence;
mod classifier;
mod cv;
mod envelope;
mod groundtruth;
mod interrupt;
mod keywords;
mod kwargs;
mod mil;
mod mixture;
mod model;
mod sharded;
mod tree;

/// A library error as a Python exception: bad input or options are
/// `ValueError` (the CLI's exit status 2) with the CLI's one-line message,
/// parameters spelled as keyword arguments (`prior_shape`,
/// `engine="gibbs"`), a file that cannot be read included (the brief's
/// one exception class for bad input); a run stopped by Ctrl-C is
/// `KeyboardInterrupt`.
pub(crate) fn err(e: plackett::Error) -> PyErr {
    use plackett::error::{ParamStyle, render_params};
    let msg = render_params(
        &plackett::error::one_line(&e.to_string()),
        ParamStyle::Python,
    );
    match e {
        plackett::Error::Cancelled => pyo3::exceptions::PyKeyboardInterrupt::new_err(msg),
        plackett::Error::Io { source, .. } => io_error(source.kind(), msg),
        _ => PyValueError::new_err(msg),
    }
}

/// An operating-system failure as Python's own class for it: a missing
/// file is `FileNotFoundError`, a forbidden one `PermissionError`, other
/// failures of the system `OSError`; a refusal of the library's own
/// (an output that is an input) stays a `ValueError`.
fn io_error(kind: std::io::ErrorKind, msg: String) -> PyErr {
    use pyo3::exceptions as x;
    use std::io::ErrorKind as K;
    match kind {
        K::NotFound => x::PyFileNotFoundError::new_err(msg),
        K::PermissionDenied => x::PyPermissionError::new_err(msg),
        K::IsADirectory => x::PyIsADirectoryError::new_err(msg),
        K::NotADirectory => x::PyNotADirectoryError::new_err(msg),
        K::OutOfMemory => x::PyMemoryError::new_err(msg),
        K::Other | K::InvalidInput | K::InvalidData => PyValueError::new_err(msg),
        _ => x::PyOSError::new_err(msg),
    }
}

/// An error in CSV text written from a pandas frame that messages call
/// `name`: a line of that text is meaningless to the caller, so the 0-based
/// row is named instead (the header is line 1, and `to_csv` writes one line
/// per row), and nothing for the header. Errors about other sources pass.
pub(crate) fn frame_rows(name: &str, e: plackett::Error) -> plackett::Error {
    match e {
        plackett::Error::Input { loc, msg } if loc.file == name => {
            let msg = lines_as_rows(&msg);
            match loc.line {
                Some(l) if l >= 2 => {
                    plackett::Error::input(name, None, format!("row {}: {msg}", l - 2))
                }
                _ => plackett::Error::input(name, None, msg),
            }
        }
        e => e,
    }
}

/// A reader's message may point at another line of the CSV text too ("has
/// label 1 here but 0 on line 2"): say the frame's row instead, as the
/// location does.
fn lines_as_rows(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(i) = rest.find("line ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 5..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<u64>() {
            Ok(l) if l >= 2 => out.push_str(&format!("row {}", l - 2)),
            _ => out.push_str(&rest[i..i + 5 + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The error mapping of a model reader of `reader`'s family on `text`
/// (`.map_err(reading_model(source, text, …))`): a model file of another
/// family is named in Python's terms (which function reads it) in place of
/// the first field the reader missed; any other error passes as [`err`].
pub(crate) fn reading_model<'a>(
    source: &'a str,
    text: &'a str,
    reader: plackett::io::model_file::ModelFamily,
) -> impl Fn(plackett::Error) -> PyErr + 'a {
    move |e| model_error(source, text, reader, e)
}

fn model_error(
    source: &str,
    text: &str,
    reader: plackett::io::model_file::ModelFamily,
    e: plackett::Error,
) -> PyErr {
    use plackett::io::model_file::{ModelFamily, family_of};
    match family_of(text) {
        Some(found) if found != reader => {
            // Python reads the first two families; classifier model files
            // are the CLI's only.
            let reads = match found {
                ModelFamily::Rankings => "plackett.load_model reads it",
                ModelFamily::MultipleInstance => "plackett.load_mil_model reads it",
                ModelFamily::Classifier | ModelFamily::Tree => found.origin(),
            };
            PyValueError::new_err(format!(
                "{source}: this is {} ({reads}), not {}",
                found.name(),
                reader.name()
            ))
        }
        _ => err(e),
    }
}

/// Held-out observations for a fit over `names`: a Dataset as given, or
/// rankings as `plackett.rankings` reads them (lists, arrays, a long frame)
/// read over those items, an unknown item named as not one of `whose`
/// ("this fit", "this model").
pub(crate) fn held_out<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    names: &[String],
    whose: &str,
) -> PyResult<PyRef<'py, PyDataset>> {
    if let Ok(d) = data.extract() {
        return Ok(d);
    }
    // `plackett._held_out` reads it as `plackett.rankings` does with its
    // defaults, an unknown item named as not one of `whose`.
    let read = py
        .import("plackett")?
        .getattr("_held_out")?
        .call1((data, names.to_vec(), whose))?;
    Ok(read.extract()?)
}

/// Refuse a Dataset whose items are not `names` in that order (`what`
/// names it in the message: "held-out data", "data").
pub(crate) fn over_items(ds: &Dataset, names: &[String], what: &str) -> PyResult<()> {
    if ds.items().names() != names {
        return Err(PyValueError::new_err(format!(
            "{what} must be over the fitted items, in the same order (pass items=result.items when reading it)"
        )));
    }
    Ok(())
}

/// Write an HTML page (a result's `report(path)`) to `path` atomically:
/// nothing is written if it fails, and the error names the path.
pub(crate) fn write_page(path: &std::path::Path, page: &str) -> PyResult<()> {
    let p = path.to_string_lossy();
    plackett::io::output::write_all_atomic(&[(p.as_ref(), page.as_bytes())]).map_err(err)
}

/// What `__reduce__` returns: `(restore, (state,))`.
pub(crate) type Reduced<'py> = (Bound<'py, PyAny>, (Bound<'py, pyo3::types::PyBytes>,));

/// Pickling through the library's serialised form: `(restore, (state,))`
/// with `restore` a function of this module that reads it back bit for
/// bit. The state is MessagePack (self-describing like JSON, so optional
/// fields may be left out, but it keeps every `f64` as its 64 bits: NaN
/// and infinities included, which JSON cannot hold).
pub(crate) fn reduce<'py, T: serde::Serialize>(
    py: Python<'py>,
    value: &T,
    restore: &str,
) -> PyResult<Reduced<'py>> {
    let state = rmp_serde::to_vec_named(value)
        .map_err(|e| PyValueError::new_err(format!("cannot serialise the result: {e}")))?;
    let f = py.import("plackett._plackett")?.getattr(restore)?;
    Ok((f, (pyo3::types::PyBytes::new(py, &state),)))
}

/// Read back what [`reduce`] wrote.
pub(crate) fn restore<T: serde::de::DeserializeOwned>(state: &[u8]) -> PyResult<T> {
    rmp_serde::from_slice(state)
        .map_err(|e| PyValueError::new_err(format!("not a pickled plackett object: {e}")))
}

/// A dataset read by one of the library's readers.
#[pyclass(module = "plackett._plackett", name = "Dataset", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct PyDataset {
    pub(crate) ds: Dataset,
    /// The items were named by integer id (lists of ids, a numpy array, a
    /// frame whose item column holds integers): results give them back as
    /// `int`s ([`labels`]).
    #[serde(default)]
    pub(crate) ids: bool,
}

/// Item names as Python shows them: `int`s when the data named its items by
/// integer id (`ids`, choix's convention), else `str`s — items keep their
/// input type. The library names every item by a string; an id's name is
/// its decimal spelling.
pub(crate) fn labels<'py>(
    py: Python<'py>,
    names: &[String],
    ids: bool,
) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    if ids
        && let Some(v) = names
            .iter()
            .map(|n| n.parse::<i64>().ok())
            .collect::<Option<Vec<i64>>>()
    {
        return pyo3::types::PyList::new(py, v);
    }
    pyo3::types::PyList::new(py, names)
}

#[pymethods]
impl PyDataset {
    /// Item names, in the order of every array (`int`s when the items
    /// were given as integer ids).
    #[getter]
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        labels(py, self.ds.items().names(), self.ids)
    }

    /// Number of informative observations.
    #[getter]
    fn n_observations(&self) -> usize {
        self.ds.n_real_obs()
    }

    /// Observations dropped as uninformative.
    #[getter]
    fn dropped(&self) -> usize {
        self.ds.dropped()
    }

    /// Total weight of the observations (their number when unweighted).
    #[getter]
    fn total_weight(&self) -> f64 {
        (0..self.ds.n_real_obs())
            .map(|o| self.ds.obs(o).weight)
            .sum()
    }

    /// Identical observations merged into weighted rows (exact: the
    /// likelihood is a product over observations).
    fn collapse(&self, py: Python<'_>) -> PyDataset {
        let ds = &self.ds;
        PyDataset {
            ds: py.detach(|| ds.collapse()),
            ids: self.ids,
        }
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        reduce(py, self, "_restore_dataset")
    }

    fn __repr__(&self) -> String {
        format!(
            "plackett.Dataset({} items, {} observations)",
            self.ds.n_items(),
            self.ds.n_real_obs()
        )
    }
}

fn ties_of(ties: &str) -> PyResult<TieSemantics> {
    match ties {
        "unknown" => Ok(TieSemantics::UnknownOrder),
        "event" => Ok(TieSemantics::Event),
        _ => Err(PyValueError::new_err(format!(
            "invalid option ties: expected \"unknown\" or \"event\", got {ties:?}"
        ))),
    }
}

fn format_of(f: Option<&str>) -> PyResult<Option<Format>> {
    f.map(|s| Format::parse(s).map_err(err)).transpose()
}

/// Read a JSON document (choix-style lists or the object form with
/// "items", "rankings", "weights") — what the Python layer serialises
/// rankings given as lists into.
#[pyfunction]
#[pyo3(signature = (text, *, name = "rankings", top_k = false, ties = "unknown", universe_of = None, ids = false))]
fn read_json_text(
    py: Python<'_>,
    text: &str,
    name: &str,
    top_k: bool,
    ties: &str,
    universe_of: Option<String>,
    ids: bool,
) -> PyResult<PyDataset> {
    let opts = ReadOptions {
        format: Some(Format::Json),
        top_k,
        ties: ties_of(ties)?,
        universe_of,
        ..Default::default()
    };
    let (text, owned) = (text.to_string(), name.to_string());
    let ds = py
        .detach(move || read_str(&owned, &text, &opts))
        .map_err(|e| python_position(name, e))?;
    Ok(PyDataset { ds, ids })
}

/// The text `read_json_text` reads is Python data serialised on one line,
/// so "line 1" means nothing to the caller: an error inside a ranking or a
/// weight is placed at its 0-based index (`rankings[2]: item "zz" is not in
/// "items"`, `weights[0]: must be a positive number`), any other without a
/// line.
fn python_position(name: &str, e: plackett::Error) -> PyErr {
    match e {
        // "ranking 3" is rankings[2]; "weight 3" is the argument weights[2].
        plackett::Error::Input {
            loc: plackett::error::Location {
                record: Some(r), ..
            },
            msg,
        } => {
            let arg = if r.kind == "weight" { "weights" } else { name };
            PyValueError::new_err(format!("{arg}[{}]: {msg}", r.number.saturating_sub(1)))
        }
        plackett::Error::Input { msg, .. } => err(plackett::Error::input(name, None, msg)),
        e => err(e),
    }
}

/// The arrays of a simulation: the data, the true mean-centred log-worths,
/// and with features their names, matrix (items × features) and the true β.
type SimulationArrays<'py> = (
    PyDataset,
    Bound<'py, PyArray1<f64>>,
    Option<(
        Vec<String>,
        Bound<'py, PyArray2<f64>>,
        Bound<'py, PyArray1<f64>>,
    )>,
);

/// Rankings simulated from PL with known worths, or from PL regression on
/// simulated features (`plackett simulate`; keyword arguments are its
/// flags).
#[pyfunction]
#[pyo3(signature = (*, items = 10, rankings = 100, length = 10, design = "sub",
    worths = "lognormal", seed = 1, features = None, feature_sd = 1.0))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    items: usize,
    rankings: usize,
    length: usize,
    design: &str,
    worths: &str,
    seed: u64,
    features: Option<usize>,
    feature_sd: f64,
) -> PyResult<SimulationArrays<'py>> {
    let spec = plackett::data::simulate::SimulationSpec {
        items,
        rankings,
        length,
        design: design.to_string(),
        worths: worths.to_string(),
        seed,
        features,
        feature_sd,
    };
    let sim = py
        .detach(|| plackett::data::simulate::simulate_spec(&spec))
        .map_err(err)?;
    let log_worths = sim.log_worths().into_pyarray(py);
    let regression = sim.regression.as_ref().map(|(f, beta)| {
        let x = Array2::from_shape_fn((f.x.nrows(), f.x.ncols()), |(i, j)| f.x[(i, j)]);
        (
            f.names.clone(),
            x.into_pyarray(py),
            beta.clone().into_pyarray(py),
        )
    });
    Ok((
        PyDataset {
            ds: sim.data,
            ids: false,
        },
        log_worths,
        regression,
    ))
}

/// Rankings from an (n, k) integer array (each row best first: full or
/// sub-rankings, (winner, loser) pairs when k = 2, top-k lists of the
/// universe with `top_k`), the numpy fast path of `plackett.rankings`.
/// Ids are looked up as names in `items` (default: `0..=max id`).
#[pyfunction]
#[pyo3(signature = (array, *, items = None, weights = None, top_k = false, ties = "unknown", universe_of = None, ids = None))]
#[allow(clippy::too_many_arguments)]
fn read_array(
    py: Python<'_>,
    array: numpy::PyReadonlyArray2<'_, i64>,
    items: Option<Vec<String>>,
    weights: Option<numpy::PyReadonlyArray1<'_, f64>>,
    top_k: bool,
    ties: &str,
    universe_of: Option<String>,
    ids: Option<bool>,
) -> PyResult<PyDataset> {
    use plackett::data::{DatasetBuilder, Items, Tail};
    // Whether the items come back as ints (default: when no names are given).
    let ids = ids.unwrap_or(items.is_none());
    let a = array.as_array();
    let (n, k) = (a.nrows(), a.ncols());
    if k < 2 && !top_k {
        return Err(PyValueError::new_err(format!(
            "a ranking array has at least 2 columns, got {k}"
        )));
    }
    if let Some((row, v)) = a
        .rows()
        .into_iter()
        .enumerate()
        .find_map(|(r, row)| row.iter().find(|&&v| v < 0).map(|&v| (r, v)))
    {
        return Err(PyValueError::new_err(format!(
            "<array>: row {row}: item ids are non-negative, got {v}"
        )));
    }
    let max = a.iter().copied().max().unwrap_or(0) as usize;
    let w: Option<Vec<f64>> = weights.map(|w| w.as_array().iter().copied().collect());
    if let Some(w) = &w
        && w.len() != n
    {
        return Err(PyValueError::new_err(format!(
            "{} weights for {n} rankings",
            w.len()
        )));
    }
    let ties = ties_of(ties)?;
    let ds = py
        .detach(|| -> Result<Dataset, String> {
            let (universe, map): (Items, Vec<u32>) = match items {
                None => {
                    if max >= u32::MAX as usize || max > 100_000_000 {
                        return Err(format!("item id {max} is too large; pass items="));
                    }
                    (Items::numbered(max + 1), (0..=max as u32).collect())
                }
                Some(names) => {
                    let u = Items::from_names(&names)?;
                    let map = (0..=max)
                        .map(|i| u.get(&i.to_string()).unwrap_or(u32::MAX))
                        .collect();
                    (u, map)
                }
            };
            let tail = if top_k { Tail::Universe } else { Tail::None };
            let n_universe = universe.len();
            let mut b = DatasetBuilder::new(universe, ties);
            let mut row = vec![[0u32]; k];
            for r in 0..n {
                for (j, slot) in row.iter_mut().enumerate() {
                    let id = a[(r, j)] as usize;
                    let m = map[id];
                    if m == u32::MAX {
                        return Err(match &universe_of {
                            Some(whose) => format!(
                                "row {r}: item {id} is not an item of {whose} ({n_universe} items)"
                            ),
                            None => format!("row {r}: item {id} is not among items"),
                        });
                    }
                    *slot = [m];
                }
                let weight = w.as_ref().map_or(1.0, |w| w[r]);
                b.push(&row, tail, &[], weight)
                    .map_err(|e| format!("row {r}: {e}"))?;
            }
            Ok(b.finish())
        })
        .map_err(|m| PyValueError::new_err(format!("<array>: {m}")))?;
    Ok(PyDataset { ds, ids })
}

/// Read a file with the CLI's readers (CSV, PrefLib, JSON, selectors,
/// pairs); keyword arguments are named like the CLI's flags.
#[pyfunction]
#[pyo3(signature = (path, *, format = None, ranking_col = "ranking", rank_col = "rank",
    item_col = "item", weight_col = "weight", top_k = false, items = None, ties = "unknown",
    case = None, item_cols = None, ranker_col = "ranker"))]
#[allow(clippy::too_many_arguments)]
fn read_file(
    py: Python<'_>,
    path: &str,
    format: Option<&str>,
    ranking_col: &str,
    rank_col: &str,
    item_col: &str,
    weight_col: &str,
    top_k: bool,
    items: Option<Vec<String>>,
    ties: &str,
    case: Option<usize>,
    item_cols: Option<(String, String)>,
    ranker_col: &str,
) -> PyResult<PyDataset> {
    let opts = ReadOptions {
        format: format_of(format)?,
        ranking_col: ranking_col.into(),
        rank_col: rank_col.into(),
        item_col: item_col.into(),
        weight_col: weight_col.into(),
        ranker_col: ranker_col.into(),
        top_k,
        items: items.map(ItemsSpec::Names),
        ties: ties_of(ties)?,
        case,
        item_cols,
        universe_of: None,
    };
    let path = path.to_string();
    let ds = py.detach(move || read_path(&path, &opts)).map_err(err)?;
    Ok(PyDataset { ds, ids: false })
}

/// A bool as Python writes it, for reprs.
pub(crate) fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// A fitted model: the posterior (or point estimate) of an engine.
#[pyclass(module = "plackett._plackett", name = "FitResult", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
struct FitResult {
    post: Fitted,
    names: Vec<String>,
    report: FitReport,
    /// Items given as integer ids ([`labels`]).
    #[serde(default)]
    ids: bool,
}

impl FitResult {
    fn index(&self, item: &Bound<'_, PyAny>) -> PyResult<usize> {
        item_index(&self.names, item)
    }

    /// The name of an item of a feature model: a name of the data or of the
    /// features file, or an index of the data's items; an unknown name is
    /// a `KeyError`, as for every lookup by item name.
    fn feature_item(
        &self,
        o: &plackett::infer::feature_run::FeatureOutcome,
        item: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        match item.extract::<String>() {
            Ok(s) if o.row(&self.names, &s).is_some() => Ok(s),
            Ok(s) => Err(PyKeyError::new_err(format!(
                "no item named {s:?} in the data or the features file"
            ))),
            Err(_) => Ok(self.names[self.index(item)?].clone()),
        }
    }

    fn column<'py>(
        &self,
        py: Python<'py>,
        f: impl Fn(&plackett::posterior::ItemSummary) -> Option<f64>,
    ) -> Bound<'py, PyArray1<f64>> {
        let v: Vec<f64> = self
            .report
            .items
            .iter()
            .map(|r| f(r).unwrap_or(f64::NAN))
            .collect();
        PyArray1::from_vec(py, v)
    }
}

#[pymethods]
impl FitResult {
    /// The head every result and document shares (`plackett::document`):
    /// family, engine, converged, iterations, n_observations, notes,
    /// diagnostics — as a dict, equal to the head of `to_json()`'s document.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::envelope::dict(py, &self.report.envelope())
    }

    /// Item names, in the order of every array (`int`s when the data gave
    /// integer ids).
    #[getter]
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        labels(py, &self.names, self.ids)
    }
    /// Engine (`mle`, `map`, `gibbs`, `ep`, `vb`).
    #[getter]
    fn engine(&self) -> String {
        self.report.engine.clone()
    }
    /// Algorithm actually run.
    #[getter]
    fn algorithm(&self) -> String {
        self.report.algorithm.clone()
    }
    /// Gauge of `log_worth` (e.g. "mean-centred").
    #[getter]
    fn gauge(&self) -> String {
        self.report.gauge.clone()
    }
    /// Whether the stopping rule was met.
    #[getter]
    fn converged(&self) -> bool {
        self.report.converged
    }
    /// Iterations, sweeps or passes.
    #[getter]
    fn iterations(&self) -> usize {
        self.report.iterations
    }
    /// Log-worths in the gauge (posterior means for Bayesian engines).
    #[getter]
    fn log_worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.column(py, |r| Some(r.log_worth))
    }
    /// Worths normalised to sum to one.
    #[getter]
    fn worth<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.column(py, |r| Some(r.worth))
    }
    /// Standard errors of the log-worths (mle, map; NaN otherwise).
    #[getter]
    fn se<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.column(py, |r| r.log_worth_se)
    }
    /// Posterior standard deviations of the log-worths (gibbs, ep, vb).
    #[getter]
    fn sd<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.column(py, |r| r.log_worth_sd)
    }
    /// Lower ends of the 95% intervals of the log-worths.
    #[getter]
    fn ci_low<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.column(py, |r| r.ci_low)
    }
    /// Upper ends of the 95% intervals of the log-worths.
    #[getter]
    fn ci_high<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.column(py, |r| r.ci_high)
    }
    /// Log-likelihood at the estimate (mle, map).
    #[getter]
    fn log_likelihood(&self) -> Option<f64> {
        self.report.log_likelihood
    }
    /// AIC (mle only).
    #[getter]
    fn aic(&self) -> Option<f64> {
        self.report.aic
    }
    /// Log marginal likelihood (ep).
    #[getter]
    fn log_evidence(&self) -> Option<f64> {
        self.report.log_evidence
    }
    /// Evidence lower bound (vb).
    #[getter]
    fn elbo(&self) -> Option<f64> {
        self.report.elbo
    }
    /// Notes and warnings.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.report.notes.clone()
    }
    /// Covariance matrix of the log-worths in the gauge, items × items:
    /// vb's linear-response covariance (``plackett fit --engine vb
    /// --vcov``); None for other fits.
    #[getter]
    fn vcov<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f64>>> {
        Some(matrix_array(py, self.post.covariance()?))
    }
    /// Posterior draws of normalised log-worths, shape (chains, draws,
    /// items); None for point estimates.
    #[getter]
    fn draws<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray3<f64>>> {
        if !self.post.has_draws() {
            return None;
        }
        let d = self.post.draws();
        let (c, m, n) = (d.n_chains(), d.per_chain(), d.n_items());
        let mut v = Vec::with_capacity(c * m * n);
        for k in 0..d.len() {
            v.extend_from_slice(d.draw(k));
        }
        Some(
            Array3::from_shape_vec((c, m, n), v)
                .expect("draws are chains × draws × items")
                .into_pyarray(py),
        )
    }
    /// Per-item MCMC diagnostics (gibbs): dict of numpy arrays `rhat`,
    /// `ess_bulk`, `ess_tail`; None for other engines.
    #[getter]
    fn diagnostics<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        let Some(d) = self.post.item_diagnostics() else {
            return Ok(None);
        };
        let out = pyo3::types::PyDict::new(py);
        out.set_item(
            "rhat",
            PyArray1::from_vec(py, d.iter().map(|x| x.rhat).collect()),
        )?;
        out.set_item(
            "ess_bulk",
            PyArray1::from_vec(py, d.iter().map(|x| x.ess_bulk).collect()),
        )?;
        out.set_item(
            "ess_tail",
            PyArray1::from_vec(py, d.iter().map(|x| x.ess_tail).collect()),
        )?;
        Ok(Some(out))
    }
    /// Choice probabilities over a set of items (Luce's choice axiom, like
    /// choix's ``probabilities``): for each item of ``items``, the posterior
    /// mean of λ_i / Σ_{j in items} λ_j, or its plug-in value for a point
    /// estimate, as a numpy array in the order given; with ties as events
    /// the probabilities of being chosen alone (see
    /// ``first_tie_probability``). The CLI's ``--compare "A,B,C"``. Items by
    /// name or index, at least two, no repeats.
    fn choice_probabilities<'py>(
        &self,
        py: Python<'py>,
        items: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        // With features, the set may hold items only in the features file,
        // as in `compare` (the CLI's `--compare A,B,C`).
        if let Fitted::Features(o) = &self.post {
            let set = distinct_set(&items, |x| self.feature_item(o, x), |n| n.clone())?;
            let refs: Vec<&str> = set.iter().map(String::as_str).collect();
            let p = o.choice(&self.names, &refs).map_err(err)?;
            return Ok(PyArray1::from_vec(
                py,
                p.into_iter().map(|(m, _)| m).collect(),
            ));
        }
        let set = choice_set(&self.names, &items)?;
        let p = self.post.choice_probabilities(&set);
        Ok(PyArray1::from_vec(
            py,
            p.into_iter().map(|(m, _)| m).collect(),
        ))
    }
    /// The fitted model for predictions (``plackett.Model``): item names and
    /// draws of the normalised log-worths, at most 4,000 (one at the
    /// estimate for mle/map) — the file ``plackett fit --model-out`` writes.
    fn model(&self) -> PyResult<model::Model> {
        Ok(model::Model {
            m: plackett::posterior::SavedModel::new(
                &self.report.engine,
                &self.names,
                &self.post.draws(),
                4000,
                self.post.tie_parameters(),
            ),
        })
    }
    /// With ties as events (Davidson–Luce), P(a and b tie) in a pairwise
    /// comparison (``compare`` is then P(a wins outright)); None for a
    /// model without ties. Items by name or index.
    fn tie_probability(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
        Ok(self.post.tie_probability(self.index(a)?, self.index(b)?))
    }
    /// With ties as events (Davidson–Luce), the probability that the first
    /// choice from ``items`` is a tie (``choice_probabilities`` are then of
    /// being chosen alone); None for a model without ties.
    fn first_tie_probability(&self, items: Vec<Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
        let set = choice_set(&self.names, &items)?;
        Ok(self.post.first_tie_probability(&set))
    }
    /// P(a beats b) in a pairwise comparison: the posterior mean of
    /// λ_a/(λ_a + λ_b), or its plug-in value for a point estimate; with ties
    /// as events P(a wins outright), λ_a/(λ_a + λ_b + δ₂√(λ_aλ_b)) (Davidson
    /// 1970; see ``tie_probability``). Items by name or index.
    ///
    /// With features, `a` and `b` may also be items that appear only in the
    /// features file; the probability is then the CLI's `--compare` value
    /// (posterior by Gauss–Hermite for vb, plug-in for mle/map).
    fn compare(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
        if let Fitted::Features(o) = &self.post {
            let c = o
                .compare(
                    &self.names,
                    &self.feature_item(o, a)?,
                    &self.feature_item(o, b)?,
                )
                .map_err(err)?;
            return Ok(c.probability);
        }
        Ok(self.post.prob_beats(self.index(a)?, self.index(b)?))
    }
    /// PL-regression coefficients on the original feature scale (a pandas
    /// DataFrame with columns feature, estimate, se — or mean, sd for vb —
    /// else a dict of numpy arrays); None without features.
    #[getter]
    fn coefficients<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(cs) = &self.report.coefficients else {
            return Ok(None);
        };
        let bayes = cs.iter().any(|c| c.mean.is_some());
        let d = pyo3::types::PyDict::new(py);
        d.set_item(
            "feature",
            cs.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        )?;
        let col = |f: &dyn Fn(&plackett::posterior::fit_report::Coefficient) -> Option<f64>| {
            PyArray1::from_vec(py, cs.iter().map(|c| f(c).unwrap_or(f64::NAN)).collect())
        };
        if bayes {
            d.set_item("mean", col(&|c| c.mean))?;
            d.set_item("sd", col(&|c| c.sd))?;
        } else {
            d.set_item("estimate", col(&|c| c.estimate))?;
            d.set_item("se", col(&|c| c.se))?;
        }
        frame(py, d).map(Some)
    }
    /// Predicted log-worths of items that appear only in the features file
    /// (item, log_worth, se or sd, ci_low, ci_high); None without features.
    #[getter]
    fn new_items<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(r) = &self.report.regression else {
            return Ok(None);
        };
        let v = &r.new_items;
        let d = pyo3::types::PyDict::new(py);
        let col = |f: &dyn Fn(&plackett::posterior::fit_report::NewItem) -> Option<f64>| {
            PyArray1::from_vec(py, v.iter().map(|c| f(c).unwrap_or(f64::NAN)).collect())
        };
        d.set_item("item", v.iter().map(|c| c.name.clone()).collect::<Vec<_>>())?;
        d.set_item("log_worth", col(&|c| Some(c.log_worth)))?;
        d.set_item("se", col(&|c| c.log_worth_se))?;
        d.set_item("sd", col(&|c| c.log_worth_sd))?;
        d.set_item("ci_low", col(&|c| c.ci_low))?;
        d.set_item("ci_high", col(&|c| c.ci_high))?;
        frame(py, d).map(Some)
    }
    /// Rank marginals: `out[i, r]` = P(item i finishes at place r+1 in a
    /// race among all items), from `races` simulated races (seeded). With
    /// ties as events, rankings with ties drawn from the Davidson–Luce
    /// model: tied items share their place (after a two-way tie for first
    /// the next item is third), so a column may sum to more or less than 1.
    #[pyo3(signature = (races = 20_000, seed = 1))]
    fn rank_marginals<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = races_arg)] races: usize,
        #[pyo3(from_py_with = seed_arg)] seed: u64,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        check_races(races)?;
        let n = self.names.len();
        let all: Vec<u32> = (0..n as u32).collect();
        let post = &self.post;
        let rm = py
            .detach(|| post.rank_marginals(&all, races, seed))
            .map_err(err)?;
        Ok(places_array(py, rm))
    }
    /// Posterior predictive log-likelihood of held-out observations: a
    /// Dataset over the same items (e.g. from `plackett.read_*` with
    /// `items=result.items`), or rankings as `plackett.rankings` reads them
    /// (lists, arrays, a long frame), read over this fit's items.
    fn predictive_log_likelihood(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<f64> {
        let held_out = held_out(py, data, &self.names, "this fit")?;
        over_items(&held_out.ds, &self.names, "held-out data")?;
        let post = &self.post;
        let ds = &held_out.ds;
        py.detach(|| post.predictive_log_likelihood(ds))
            .map_err(err)
    }
    /// Per-item table, a pandas DataFrame indexed by item: worth,
    /// log_worth, its uncertainty (`se` for mle and map, the posterior `sd`
    /// for gibbs, ep and vb) and the 95% interval (ci_low, ci_high).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("item", labels(py, &self.names, self.ids)?)?;
        d.set_item("worth", self.worth(py))?;
        d.set_item("log_worth", self.log_worth(py))?;
        // One uncertainty column: standard errors of a point estimate,
        // posterior sds of a Bayesian engine's (the other is all NaN).
        if self.report.items.iter().any(|r| r.log_worth_sd.is_some()) {
            d.set_item("sd", self.sd(py))?;
        } else {
            d.set_item("se", self.se(py))?;
        }
        d.set_item("ci_low", self.ci_low(py))?;
        d.set_item("ci_high", self.ci_high(py))?;
        frame_by(py, d, "item")
    }
    /// The CLI's JSON report (`plackett fit --output json`), same keys.
    fn to_json(&self) -> String {
        self.report.to_json()
    }
    /// Write the HTML page `plackett fit --report` writes (facts, log-worth
    /// intervals, rank marginals of the five best and worst items, MCMC
    /// traces and diagnostics, the convergence trace, the estimates) to
    /// ``path`` (a str or path-like); nothing is written if it fails.
    /// ``seed``: the Monte Carlo rank marginals' (the CLI's `--seed`).
    /// ``data``: for a feature model (Guo et al. 2019), observations over the
    /// fitted items whose pairs the positive-ratio chart scores (the CLI's
    /// training data, or `--test`'s); other models ignore it.
    #[pyo3(signature = (path, *, seed = 1, data = None))]
    fn report(
        &self,
        path: std::path::PathBuf,
        #[pyo3(from_py_with = seed_arg)] seed: u64,
        data: Option<PyRef<'_, PyDataset>>,
    ) -> PyResult<()> {
        if let Some(d) = &data {
            over_items(&d.ds, &self.names, "data")?;
        }
        let extra = match &self.post {
            Fitted::Features(o) => plackett::report::features::feature_sections(
                o,
                data.as_ref()
                    .map(|d| (&d.ds, "Observations passed to report(data=…)")),
            ),
            _ => Vec::new(),
        };
        let page = plackett::report::fit::fit_page(
            &self.post,
            &self.report,
            "plackett.fit",
            None,
            seed,
            extra,
        );
        crate::write_page(&path, &page)
    }
    /// Pickling: the whole result (posterior draws included) as the
    /// library's serialised form, read back bit for bit by `_restore_fit`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        reduce(py, self, "_restore_fit")
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett.FitResult(engine={:?}, items={}, converged={})",
            self.report.engine,
            self.names.len(),
            py_bool(self.report.converged)
        )
    }
}

/// The position of an item given by name (str) or index (int) among
/// `names`: KeyError when absent, TypeError for anything else.
/// The item indices of a choice set: at least two items, by name or
/// index, none repeated.
pub(crate) fn choice_set(names: &[String], items: &[Bound<'_, PyAny>]) -> PyResult<Vec<usize>> {
    distinct_set(items, |it| item_index(names, it), |&i| names[i].clone())
}

/// A choice set of at least two items, each resolved by `resolve`, none
/// twice (`name` says which one was).
fn distinct_set<T: PartialEq>(
    items: &[Bound<'_, PyAny>],
    mut resolve: impl FnMut(&Bound<'_, PyAny>) -> PyResult<T>,
    name: impl Fn(&T) -> String,
) -> PyResult<Vec<T>> {
    if items.len() < 2 {
        return Err(PyValueError::new_err(
            "choice_probabilities needs at least two items",
        ));
    }
    let mut set = Vec::with_capacity(items.len());
    for it in items {
        let x = resolve(it)?;
        if set.contains(&x) {
            return Err(PyValueError::new_err(format!(
                "item {:?} appears twice in the choice set",
                name(&x)
            )));
        }
        set.push(x);
    }
    Ok(set)
}

/// A cap like the samplers' on `rank_marginals`' races (each race costs a
/// draw per item): a mistyped count should be an error, not hours of
/// uninterruptible work.
pub(crate) fn check_races(races: usize) -> PyResult<()> {
    if races == 0 || races > MAX_RACES {
        return Err(PyValueError::new_err(format!(
            "invalid option races: expected 1 to {MAX_RACES}, got {races}"
        )));
    }
    Ok(())
}

/// A library matrix (column-major) as a numpy array (row-major).
pub(crate) fn matrix_array<'py>(
    py: Python<'py>,
    m: &plackett::nalgebra::DMatrix<f64>,
) -> Bound<'py, PyArray2<f64>> {
    let (r, c) = m.shape();
    Array2::from_shape_fn((r, c), |(i, j)| m[(i, j)]).into_pyarray(py)
}

/// Rank marginals (items × places) as a numpy array.
pub(crate) fn places_array(py: Python<'_>, rm: Vec<Vec<f64>>) -> Bound<'_, PyArray2<f64>> {
    let n = rm.len();
    let flat: Vec<f64> = rm.into_iter().flatten().collect();
    Array2::from_shape_vec((n, n), flat)
        .expect("items × places")
        .into_pyarray(py)
}

/// Most races `FitResult.rank_marginals` runs.
const MAX_RACES: usize = 100_000_000;

/// A count or seed argument `name`. pyo3's own conversion of a negative or
/// too large int raises OverflowError without naming the argument; this
/// raises ValueError, and TypeError for a bool or a non-int, both naming it.
pub(crate) fn non_negative<T: TryFrom<u64>>(name: &str, v: &Bound<'_, PyAny>) -> PyResult<T> {
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected a non-negative integer, got {v}"
        )));
    }
    match v.extract::<u64>() {
        Ok(x) => T::try_from(x)
            .map_err(|_| PyValueError::new_err(format!("{name}: {x} is too large here"))),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(v.py()) => {
            let negative = v.lt(0i64).unwrap_or(false);
            Err(PyValueError::new_err(if negative {
                format!("{name}: must be non-negative, got {v}")
            } else {
                format!("{name}: must be below 2**64, got {v}")
            }))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}: expected a non-negative integer, got {}",
            v.get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string())
        ))),
    }
}

/// `#[pyo3(from_py_with = …)]` extractors of [`non_negative`] for the
/// native methods' count and seed arguments, one per argument name.
macro_rules! count_args {
    ($($f:ident => $name:literal),* $(,)?) => {$(
        pub(crate) fn $f<T: TryFrom<u64>>(v: &Bound<'_, PyAny>) -> PyResult<T> {
            non_negative($name, v)
        }
    )*};
}
count_args!(races_arg => "races", seed_arg => "seed", draws_arg => "draws", start_arg => "start", stop_arg => "stop");

/// `data`, or a copy whose observations are made by `rankers` (one name
/// per observation, for data that carry no ranker column).
pub(crate) fn ranked_by<'d>(
    data: &'d PyDataset,
    rankers: Option<&[String]>,
) -> PyResult<std::borrow::Cow<'d, plackett::data::Dataset>> {
    Ok(match rankers {
        Some(r) => std::borrow::Cow::Owned(data.ds.with_rankers(r).map_err(err)?),
        None => std::borrow::Cow::Borrowed(&data.ds),
    })
}

pub(crate) fn item_index(names: &[String], item: &Bound<'_, PyAny>) -> PyResult<usize> {
    if let Ok(s) = item.extract::<String>() {
        return names
            .iter()
            .position(|n| *n == s)
            .ok_or_else(|| PyKeyError::new_err(format!("no item named {s:?}")));
    }
    let i: usize = item.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("an item is a name (str) or an index (int)")
    })?;
    if i < names.len() {
        Ok(i)
    } else {
        Err(PyKeyError::new_err(format!(
            "item index {i} out of range (0..{})",
            names.len()
        )))
    }
}

/// A pandas DataFrame of these columns when pandas is installed, else the
/// dict itself.
pub(crate) fn frame<'py>(
    py: Python<'py>,
    d: Bound<'py, pyo3::types::PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    // pandas is a dependency of the package (its results are tables); an
    // environment without it gets an error that says so, not a dict.
    let pd = py.import("pandas").map_err(|_| {
        pyo3::exceptions::PyImportError::new_err(
            "plackett's tables are pandas DataFrames: pip install pandas",
        )
    })?;
    pd.getattr("DataFrame")?.call1((d,))
}

/// [`frame`] indexed by its column `index` (the items of a per-item table).
pub(crate) fn frame_by<'py>(
    py: Python<'py>,
    d: Bound<'py, pyo3::types::PyDict>,
    index: &str,
) -> PyResult<Bound<'py, PyAny>> {
    frame(py, d)?.call_method1("set_index", (index,))
}

/// Fit a ranking model to a Dataset. Keyword arguments are named like the
/// CLI's flags; see `plackett.fit` for the documented Python entry point.
#[pyfunction]
#[pyo3(signature = (data, *, engine = "mle", algorithm = "auto", prior = "gamma",
    prior_shape = 2.0, prior_rate = 1.0, prior_mean = 0.0, prior_sd = 1.0, pseudo = None,
    reference = None, tol = None, max_iter = None, standard_errors = true, samples = 5000,
    burn_in = 1000, chains = 4, draws = 4000, seed = 1, features = None,
    features_text = None, standardize = true, eta = None, eta_grid = None, vi = None,
    covariance = "linear-response"))]
#[allow(clippy::too_many_arguments)]
fn fit(
    py: Python<'_>,
    data: &PyDataset,
    engine: &str,
    algorithm: &str,
    prior: &str,
    prior_shape: f64,
    prior_rate: f64,
    prior_mean: f64,
    prior_sd: f64,
    pseudo: Option<f64>,
    reference: Option<String>,
    tol: Option<f64>,
    max_iter: Option<usize>,
    standard_errors: bool,
    samples: usize,
    burn_in: usize,
    chains: usize,
    draws: usize,
    seed: u64,
    features: Option<String>,
    features_text: Option<String>,
    standardize: bool,
    eta: Option<String>,
    eta_grid: Option<String>,
    vi: Option<String>,
    covariance: &str,
) -> PyResult<FitResult> {
    let ds = &data.ds;
    let vb_covariance = plackett::infer::vb::VbCovariance::parse(covariance).map_err(err)?;
    if vb_covariance != Default::default() && (engine != "vb" || features.is_some()) {
        return Err(PyValueError::new_err(
            "invalid option covariance: only with engine=\"vb\" (without features)",
        ));
    }
    let gauge = match &reference {
        None => Gauge::MeanCentred,
        Some(name) => Gauge::Reference(ds.items().get(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "invalid option reference: no item named {name:?} among the fitted items"
            ))
        })?),
    };
    if let Some(path) = features {
        // PL regression (Guo et al. 2019): the library's one feature run,
        // the same as `plackett fit --features`.
        if pseudo.is_some() {
            return Err(PyValueError::new_err(
                "invalid option pseudo: not used with features (use engine=\"map\" with eta)",
            ));
        }
        let from_frame = features_text.is_some();
        let text = match features_text {
            Some(t) => t,
            None => plackett::io::read_text(&path).map_err(err)?,
        };
        let settings = FeatureSettings {
            engine: engine.to_string(),
            standardize,
            eta,
            eta_grid,
            vi,
            tol,
            max_iter,
            seed,
            draws,
        };
        let outcome = interrupt::run(py, |_| {
            plackett::infer::feature_run::run(&settings, &path, &text, ds, &gauge)
                .map_err(|e| if from_frame { frame_rows(&path, e) } else { e })
        })?;
        let mut report = outcome.report.clone();
        for n in &mut report.notes {
            *n = plackett::error::render_params(n, plackett::error::ParamStyle::Python);
        }
        return Ok(FitResult {
            post: Fitted::Features(Box::new(outcome)),
            names: ds.items().names().to_vec(),
            report,
            ids: data.ids,
        });
    }
    if eta.is_some() || eta_grid.is_some() || vi.is_some() || !standardize {
        return Err(PyValueError::new_err(
            "invalid option: eta, eta_grid, vi and standardize are only used with features",
        ));
    }
    let engine = EngineKind::parse(engine).map_err(err)?;
    let algorithm = match algorithm {
        "auto" => Algorithm::Auto,
        "newton" => Algorithm::Newton,
        "mm" => Algorithm::Mm,
        "ilsr" => Algorithm::Ilsr,
        other => {
            return Err(PyValueError::new_err(format!(
                "invalid option algorithm: expected auto, newton, mm or ilsr, got {other:?}"
            )));
        }
    };
    let map_prior = match prior {
        "gamma" => Prior::Gamma {
            shape: prior_shape,
            rate: prior_rate,
        },
        "normal" => Prior::Normal {
            mean: prior_mean,
            sd: prior_sd,
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "invalid option prior: expected gamma or normal, got {other:?}"
            )));
        }
    };
    let spec = FitSpec {
        engine,
        map_prior,
        gamma: (prior_shape, prior_rate),
        algorithm,
        pseudo,
        gauge: gauge.clone(),
        tol,
        max_iter,
        standard_errors,
        covariance: false,
        samples,
        burn_in,
        chains,
        draws,
        vb_covariance,
        seed,
        observer: None,
    };
    // Long fits release the GIL and stop on Ctrl-C.
    let post = interrupt::run(py, |obs| {
        let mut spec = spec;
        spec.observer = obs;
        spec.fit(ds)
    })?;
    let mut report = FitReport::from_posterior(&post, ds, &gauge);
    // Library notes name parameters (`burn_in`): keyword arguments here.
    for n in &mut report.notes {
        *n = plackett::error::render_params(n, plackett::error::ParamStyle::Python);
    }
    Ok(FitResult {
        post,
        names: ds.items().names().to_vec(),
        report,
        ids: data.ids,
    })
}

/// Rebuild a pickled [`PyDataset`].
#[pyfunction]
fn _restore_dataset(state: &[u8]) -> PyResult<PyDataset> {
    // A pickle is read from outside: checked like any input, so that a
    // damaged one is a ValueError now, not a panic on first use.
    let d: PyDataset = restore(state)?;
    d.ds.validate().map_err(err)?;
    Ok(d)
}

/// Rebuild a pickled [`FitResult`].
#[pyfunction]
fn _restore_fit(state: &[u8]) -> PyResult<FitResult> {
    restore(state)
}

#[pymodule]
fn _plackett(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The largest universe of items a dataset may declare (the readers'
    // `--items N` limit), for checks made before names are built.
    m.add("_MAX_ITEMS", plackett::io::MAX_NUMBERED_ITEMS)?;
    m.add_class::<PyDataset>()?;
    m.add_class::<FitResult>()?;
    m.add_class::<model::Model>()?;
    m.add_class::<model::MixtureModel>()?;
    m.add_class::<model::AdherenceModel>()?;
    m.add_function(wrap_pyfunction!(model::_restore_model, m)?)?;
    m.add_function(wrap_pyfunction!(model::_restore_mixture_model, m)?)?;
    m.add_function(wrap_pyfunction!(model::_restore_adherence_model, m)?)?;
    m.add_function(wrap_pyfunction!(read_json_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_file, m)?)?;
    m.add_function(wrap_pyfunction!(read_array, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(_restore_fit, m)?)?;
    m.add_function(wrap_pyfunction!(_restore_dataset, m)?)?;
    m.add_class::<sharded::ShardedFit>()?;
    m.add_function(wrap_pyfunction!(sharded::collapse, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::shard_wins, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::shard_skeleton, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::shard_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::fit_sharded, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::fit_sharded_vb, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::shard_information, m)?)?;
    m.add_function(wrap_pyfunction!(sharded::_restore_sharded, m)?)?;
    m.add_class::<tree::TreeResult>()?;
    m.add_function(wrap_pyfunction!(tree::fit_tree, m)?)?;
    m.add_class::<adherence::AdherenceResult>()?;
    m.add_function(wrap_pyfunction!(adherence::fit_adherence, m)?)?;
    m.add_function(wrap_pyfunction!(adherence::_restore_adherence, m)?)?;
    m.add_class::<mixture::MixtureResult>()?;
    m.add_function(wrap_pyfunction!(mixture::fit_mixture, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::_restore_mixture, m)?)?;
    m.add_class::<cv::FeatureCv>()?;
    m.add_function(wrap_pyfunction!(cv::cross_validate, m)?)?;
    m.add_function(wrap_pyfunction!(cv::_restore_feature_cv, m)?)?;
    m.add_class::<classifier::ClassifierModel>()?;
    m.add_function(wrap_pyfunction!(classifier::classifier_fit, m)?)?;
    m.add_function(wrap_pyfunction!(classifier::classifier_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(classifier::classifier_engines, m)?)?;
    m.add_function(wrap_pyfunction!(classifier::_restore_classifier, m)?)?;
    m.add_class::<classifier::PyClassifierPath>()?;
    m.add_function(wrap_pyfunction!(classifier::classify_path, m)?)?;
    m.add_function(wrap_pyfunction!(classifier::_restore_classifier_path, m)?)?;
    m.add_function(wrap_pyfunction!(keywords::extract_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(keywords::evaluate_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(keywords::tag_text, m)?)?;
    m.add_class::<mil::PyMilModel>()?;
    m.add_class::<mil::MilPrediction>()?;
    m.add_class::<mil::MilFit>()?;
    m.add_function(wrap_pyfunction!(mil::mil_fit, m)?)?;
    m.add_function(wrap_pyfunction!(mil::mil_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(mil::mil_study, m)?)?;
    m.add_function(wrap_pyfunction!(mil::mil_cv, m)?)?;
    m.add_function(wrap_pyfunction!(mil::mil_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(mil::mil_model_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(mil::_restore_mil_model, m)?)?;
    m.add_function(wrap_pyfunction!(mil::_restore_mil_prediction, m)?)?;
    m.add_function(wrap_pyfunction!(mil::_restore_mil_fit, m)?)?;
    m.add_class::<groundtruth::PySelectors>()?;
    m.add_class::<groundtruth::AggregateResult>()?;
    m.add_function(wrap_pyfunction!(groundtruth::read_selectors_data, m)?)?;
    m.add_function(wrap_pyfunction!(groundtruth::_restore_selectors, m)?)?;
    m.add_function(wrap_pyfunction!(groundtruth::aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(groundtruth::_restore_aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(groundtruth::evaluate, m)?)?;
    Ok(())
}
