//! Regularisation paths over the Gamma shape `a` (Archambeau & Caron 2012 §4.1, Fig. 2):
//! the weights for a decreasing sequence of `a`, each fit started from the
//! previous one. For em the MAP (exact zeros appear as `a` falls below 1),
//! for vb the posterior mean, for gibbs the posterior mean and median.

use super::data::ClassData;
use super::em::{EmOptions, em, log_posterior};
use super::gibbs::{ClassifierGibbsOptions, Shape, gibbs};
use super::model::Engine;
use super::vb::{ClassifierVbOptions, vb};
use crate::error::Result;
use crate::infer::mcmc::McmcSettings;

/// One value of `a` on the path.
#[derive(Debug, Clone)]
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
