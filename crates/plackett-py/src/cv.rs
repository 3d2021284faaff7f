//! Cross-validation of PL regression from Python (Guo et al. 2019 §5.2):
//! the library's run and document, the same JSON and page as `plackett cv`.

use crate::{PyDataset, err, interrupt};
use plackett::infer::feature_cv::{CvOptions, CvResult, ViKind};
use plackett::infer::feature_cv_summary::{CvDocument, check_options, partitions, run_partitions};
use plackett::io::features::read_features_with_prior;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Rebuild a pickled cross-validation.
#[pyfunction]
pub fn _restore_feature_cv(state: &[u8]) -> PyResult<FeatureCv> {
    crate::restore(state)
}

/// A cross-validation: its document (`plackett cv --output json`) and the
/// per-partition results its page draws.
#[pyclass(module = "plackett._plackett", name = "FeatureCv", frozen)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct FeatureCv {
    doc: CvDocument,
    results: Vec<CvResult>,
    features: String,
}

#[pymethods]
impl FeatureCv {
    /// The document of `plackett cv --output json`.
    fn to_json(&self) -> String {
        self.doc.to_json()
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<crate::Reduced<'py>> {
        crate::reduce(py, self, "_restore_feature_cv")
    }
    /// The text tables of `plackett cv` (Guo et al. 2019, Tables 3–4).
    fn to_table(&self) -> String {
        self.doc.to_table()
    }
    /// Write the HTML page `plackett cv --report` writes (bound and test
    /// metrics against η, the positive ratio, the tables) to ``path`` (a
    /// str or path-like); nothing is written if it fails.
    fn report(&self, path: std::path::PathBuf) -> PyResult<()> {
        let page = plackett::report::cv::cv_page(
            "plackett.cross_validate",
            &self.doc,
            &self.results,
            None,
            &self.features,
        );
        crate::write_page(&path, &page)
    }
    fn __repr__(&self) -> String {
        format!(
            "plackett._plackett.FeatureCv(partitions={})",
            self.results.len()
        )
    }
}

/// Cross-validate PL regression on item features over a grid of prior
/// precisions η, MAP and a variational posterior side by side, as
/// `plackett cv` (keyword arguments are its flags).
#[pyfunction]
#[pyo3(signature = (data, features, features_text = None, *, folds = 3, repeats = 1, seed = 1,
    partition = "both", eta_grid = "1e-3:1e3:13", metric_k = 10, vi = "exact", standardize = true))]
#[allow(clippy::too_many_arguments)]
pub fn cross_validate(
    py: Python<'_>,
    data: &PyDataset,
    features: String,
    features_text: Option<String>,
    folds: usize,
    repeats: usize,
    seed: u64,
    partition: &str,
    eta_grid: &str,
    metric_k: usize,
    vi: &str,
    standardize: bool,
) -> PyResult<FeatureCv> {
    let t0 = std::time::Instant::now();
    let vi = match vi {
        "exact" => ViKind::Exact,
        "guo" => ViKind::Guo,
        other => {
            return Err(PyValueError::new_err(format!(
                "invalid option vi: expected exact or guo, got {other:?}"
            )));
        }
    };
    let etas = plackett::infer::feature_run::parse_eta_grid(Some(eta_grid)).map_err(err)?;
    let mut opts = CvOptions {
        folds,
        repeats,
        seed,
        etas,
        top_k: metric_k,
        vi,
        observer: None,
    };
    check_options(&opts).map_err(err)?;
    let parts = partitions(partition).map_err(err)?;
    let ds = &data.ds;
    let from_frame = features_text.is_some();
    let text = match features_text {
        Some(t) => t,
        None => plackett::io::read_text(&features).map_err(err)?,
    };
    let feats =
        read_features_with_prior(&features, &text, ds.items(), standardize).map_err(|e| {
            err(if from_frame {
                crate::frame_rows(&features, e)
            } else {
                e
            })
        })?;
    let (results, notes) = interrupt::run(py, |obs| {
        opts.observer = obs;
        run_partitions(ds, &feats, &parts, &opts)
    })?;
    let notes = notes
        .iter()
        .map(|n| plackett::error::render_params(n, plackett::error::ParamStyle::Python))
        .collect();
    let doc = CvDocument::new(ds, &opts, &results, notes, t0.elapsed().as_secs_f64());
    Ok(FeatureCv {
        doc,
        results,
        features,
    })
}
