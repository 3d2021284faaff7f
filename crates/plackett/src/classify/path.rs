//! Regularisation paths over the Gamma shape `a` (Archambeau & Caron 2012 §4.1, Fig. 2):
//! the weights for a decreasing sequence of `a`, each fit started from the
//! previous one. For em the MAP (exact zeros appear as `a` falls below 1),
//! for vb the posterior mean, for gibbs the posterior mean and median.

use super::data::{ClassData, Table, encode_classes, training_data};
use super::em::{EmOptions, em, log_posterior};
use super::gibbs::{ClassifierGibbsOptions, Shape, gibbs};
use super::model::Engine;
use super::vb::{ClassifierVbOptions, vb};
use crate::error::Result;
use crate::sampling::mcmc::McmcSettings;

/// One value of `a` on the path.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PathPoint {
    /// Gamma shape.
    pub a: f64,
    /// Normalised weights `λ/Σλ` (row-major `K × p`): MAP or posterior mean.
    pub weights: Vec<f64>,
    /// Posterior medians (gibbs only).
    pub median: Option<Vec<f64>>,
    /// Exact zeros (em).
    pub zeros: usize,
    /// Log-posterior on the support (em).
    pub log_posterior: Option<f64>,
}

/// The path for `grid` (sorted into decreasing order). Stops early, with
/// the reason, if a value of `a` removes every weight of a class.
pub fn regularisation_path(
    data: &ClassData,
    engine: Engine,
    grid: &[f64],
    b: f64,
    seed: u64,
) -> Result<(Vec<PathPoint>, Option<String>)> {
    let mut grid = grid.to_vec();
    grid.sort_by(|x, y| y.total_cmp(x));
    let mut out = Vec::with_capacity(grid.len());
    let mut warm: Option<Vec<f64>> = None;
    let normalise = |v: &[f64]| -> Vec<f64> {
        let s: f64 = v.iter().sum();
        v.iter().map(|x| x / s).collect()
    };
    for &a in &grid {
        match engine {
            Engine::Em => {
                let f = match em(
                    data,
                    &EmOptions {
                        a,
                        b,
                        ..Default::default()
                    },
                    warm.as_deref(),
                ) {
                    Ok(f) => f,
                    Err(e) => return Ok((out, Some(format!("stopped at a = {a}: {e}")))),
                };
                out.push(PathPoint {
                    a,
                    weights: normalise(&f.lambda),
                    median: None,
                    zeros: f.zeros(),
                    log_posterior: Some(log_posterior(data, &f.lambda, a, b)),
                });
                warm = Some(f.lambda);
            }
            Engine::Vb => {
                let f = vb(
                    data,
                    &ClassifierVbOptions {
                        a,
                        b,
                        learn_a: false,
                        ..Default::default()
                    },
                )?;
                out.push(PathPoint {
                    a,
                    weights: f.normalised_mean(),
                    median: None,
                    zeros: 0,
                    log_posterior: None,
                });
            }
            Engine::Gibbs => {
                let f = gibbs(
                    data,
                    &ClassifierGibbsOptions {
                        a: Shape::Fixed(a),
                        b,
                        mcmc: McmcSettings::new(2000, 1000, 2, seed),
                        ..Default::default()
                    },
                )?;
                out.push(PathPoint {
                    a,
                    weights: f.mean(),
                    median: Some(f.median()),
                    zeros: 0,
                    log_posterior: None,
                });
            }
        }
    }
    Ok((out, None))
}

/// A regularisation path with its labels: what `plackett classify path`
/// prints and writes, and what Python's `plackett.classify_path` returns.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ClassifierPath {
    /// Class labels, in order of first appearance in the table.
    pub classes: Vec<String>,
    /// Transform names (`exp(+x)`, `exp(-x)`, `offset`, pairwise ones).
    pub transforms: Vec<String>,
    /// One point per value of `a`, largest first.
    pub points: Vec<PathPoint>,
    /// Why the path stopped before the end of the grid, if it did.
    pub stopped: Option<String>,
}

impl ClassifierPath {
    /// The path of a labelled table (`file` names it in messages): every
    /// row trains, features standardised and transformed as in `classify
    /// fit`, then [`regularisation_path`] over `grid`.
    pub fn fit(
        file: &str,
        t: &Table,
        engine: Engine,
        grid: &[f64],
        b: f64,
        pairwise: bool,
        seed: u64,
    ) -> Result<ClassifierPath> {
        super::check_rate(b)?;
        if grid.is_empty() {
            return Err(crate::Error::param("a_grid", "no values of a"));
        }
        if let Some(a) = grid.iter().find(|a| !(a.is_finite() && **a > 0.0)) {
            return Err(crate::Error::param(
                "a_grid",
                format!(
                    "values of a must be positive and finite, got {}",
                    crate::error::show_number(*a)
                ),
            ));
        }
        let labels = t
            .labels
            .as_ref()
            .ok_or_else(|| crate::Error::input(file, Some(1), "no class column"))?;
        let (classes, _) = encode_classes(labels);
        if classes.len() < 2 {
            return Err(crate::Error::input(
                file,
                None,
                "only one class: nothing to classify",
            ));
        }
        let rows: Vec<usize> = (0..t.x.len()).collect();
        let (pre, data) = training_data(file, t, &rows, &classes, pairwise)?;
        let (points, stopped) = regularisation_path(&data, engine, grid, b, seed)?;
        Ok(ClassifierPath {
            classes,
            transforms: pre.names(),
            points,
            stopped,
        })
    }

    /// The CSV of `classify path --out`: `a, class, feature, weight` and,
    /// for gibbs, `median`; one row per value of `a`, class and transform.
    pub fn to_csv(&self) -> Result<String> {
        let p = self.transforms.len();
        let gibbs = self.points.iter().any(|pt| pt.median.is_some());
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["a", "class", "feature", "weight"];
        if gibbs {
            header.push("median");
        }
        let io = |e: csv::Error| crate::Error::Data(format!("writing the path: {e}"));
        w.write_record(&header).map_err(io)?;
        for pt in &self.points {
            for (c, cname) in self.classes.iter().enumerate() {
                for (j, fname) in self.transforms.iter().enumerate() {
                    let mut rec = vec![
                        format!("{}", pt.a),
                        cname.clone(),
                        fname.clone(),
                        format!("{}", pt.weights[c * p + j]),
                    ];
                    if let Some(md) = &pt.median {
                        rec.push(format!("{}", md[c * p + j]));
                    }
                    w.write_record(&rec).map_err(io)?;
                }
            }
        }
        let bytes = w
            .into_inner()
            .map_err(|e| crate::Error::Data(format!("writing the path: {e}")))?;
        String::from_utf8(bytes).map_err(|e| crate::Error::Data(e.to_string()))
    }

    /// The table `classify path` prints: `a`, the exact zeros and (em) the
    /// log-posterior on the support, one line per value of `a`.
    pub fn to_table(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(s, "{:>10} {:>8} {:>16}", "a", "zeros", "log-posterior");
        for pt in &self.points {
            let _ = writeln!(
                s,
                "{:>10.4} {:>8} {:>16}",
                pt.a,
                pt.zeros,
                pt.log_posterior.map_or("-".into(), |v| format!("{v:.4}"))
            );
        }
        s
    }
}
