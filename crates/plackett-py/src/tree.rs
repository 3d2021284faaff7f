//! `plackett.tree`: Plackett–Luce trees (the library's `plackett::tree`);
//! arguments translated as `plackett tree`'s flags, the result kept as the
//! library's `PlTree`.

use crate::{PyDataset, err, ranked_by};
use plackett::document::Document;
use plackett::io::covariates::{CovariateOptions, read_covariates};
use plackett::posterior::Gauge;
use plackett::tree::document::TreeDocument;
use plackett::tree::{CovariateValue, PlTree, Prune, TreeSpec};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A fitted Plackett–Luce tree.
#[pyclass(module = "plackett._plackett", name = "TreeResult", frozen)]
pub struct TreeResult {
    tree: PlTree,
}

#[pymethods]
impl TreeResult {
    /// The document `plackett tree --output json` prints.
    fn to_json(&self) -> String {
        TreeDocument::new(&self.tree).to_json()
    }

    /// The page `plackett tree --report` writes.
    fn report_html(&self, title: &str) -> String {
        plackett::report::tree::tree_html(&self.tree, title, None)
    }

    /// The file `plackett tree --model-out` writes.
    fn model_json(&self) -> String {
        plackett::tree::saved_json(&self.tree)
    }

    /// Leaf id of each new ranker: `rows` is a list of dicts (covariate
    /// name → number, string, or None for missing); a ranker that cannot be
    /// routed (a value its path needs is missing, or a level unseen there)
    /// gets None, with the reason in the second list.
    fn route(
        &self,
        rows: Vec<std::collections::HashMap<String, Option<Bound<'_, PyAny>>>>,
    ) -> PyResult<(Vec<Option<usize>>, Vec<Option<String>>)> {
        let mut leaves = Vec::with_capacity(rows.len());
        let mut why = Vec::with_capacity(rows.len());
        for row in rows {
            let mut vals = std::collections::HashMap::new();
            for (k, v) in row {
                let Some(v) = v else { continue };
                let val = if let Ok(s) = v.extract::<String>() {
                    CovariateValue::Level(s)
                } else if let Ok(x) = v.extract::<f64>() {
                    if x.is_nan() {
                        continue;
                    }
                    CovariateValue::Number(x)
                } else {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "covariate {k:?}: expected a number, a string or None"
                    )));
                };
                vals.insert(k, val);
            }
            match self.tree.route(|name| vals.get(name).cloned()) {
                Ok(id) => {
                    leaves.push(Some(id));
                    why.push(None);
                }
                Err(e) => {
                    leaves.push(None);
                    why.push(Some(e));
                }
            }
        }
        Ok((leaves, why))
    }

    /// (name, kind) of each covariate the tree was grown on.
    fn covariate_kinds(&self) -> Vec<(String, String)> {
        self.tree.covariates.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "plackett.TreeResult(nodes={}, leaves={}, items={}, log_likelihood={:.6})",
            self.tree.nodes.len(),
            self.tree.leaves().count(),
            self.tree.items.len(),
            self.tree.log_likelihood()
        )
    }
}

/// Grow a Plackett–Luce tree (see `plackett.tree`).
#[pyfunction]
#[pyo3(signature = (data, covariates_csv, *, key = "ranker", categorical = Vec::new(),
    ordered = Vec::new(), partition_by = Vec::new(), rankers = None, alpha = None, minsize = None,
    maxdepth = None, bonferroni = true, prune = None, max_thresholds = None, pseudo = None, reference = None,
    source = "covariates"))]
#[allow(clippy::too_many_arguments)]
pub fn fit_tree(
    data: &PyDataset,
    covariates_csv: &str,
    key: &str,
    categorical: Vec<String>,
    ordered: Vec<(String, Vec<String>)>,
    partition_by: Vec<String>,
    rankers: Option<Vec<String>>,
    alpha: Option<f64>,
    minsize: Option<usize>,
    maxdepth: Option<usize>,
    bonferroni: bool,
    prune: Option<&str>,
    max_thresholds: Option<usize>,
    pseudo: Option<f64>,
    reference: Option<String>,
    source: &str,
) -> PyResult<TreeResult> {
    let ds = ranked_by(data, rankers.as_deref())?;
    let opts = CovariateOptions {
        key: key.to_string(),
        categorical,
        ordered,
        columns: partition_by,
    };
    let cov = read_covariates(source, covariates_csv, &opts).map_err(err)?;
    let gauge = match &reference {
        Some(name) => Gauge::Reference(ds.items().get(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "invalid option reference: no item named {name:?} in the data"
            ))
        })?),
        None => Gauge::MeanCentred,
    };
    let prune = match prune {
        None => Prune::None,
        Some("aic") => Prune::Aic,
        Some("bic") => Prune::Bic,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "invalid option prune: expected \"aic\" or \"bic\", got {other:?}"
            )));
        }
    };
    let d = TreeSpec::default();
    let spec = TreeSpec {
        alpha: alpha.unwrap_or(d.alpha),
        bonferroni,
        minsize,
        maxdepth,
        pseudo: Some(pseudo.unwrap_or(0.5)),
        gauge,
        prune,
        max_thresholds,
        ..d
    };
    let tree = spec.fit(&ds, &cov).map_err(err)?;
    Ok(TreeResult { tree })
}
