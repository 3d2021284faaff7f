//! # plackett
//!
//! Bayesian and likelihood inference for Plackett–Luce models of rankings,
//! choices and comparisons, with ties (unknown order or events), item
//! features, and evaluation under uncertain ground truth.
//!
//! One flat [`data::Dataset`] serves every engine; every engine's result
//! implements [`posterior::Posterior`] (summary in a gauge, P(i ≻ j), rank
//! marginals, predictive log-likelihood, draws, [`posterior::FitInfo`]).
//!
//! ```
//! use plackett::prelude::*;
//! // Three rankings of items 0, 1, 2 (best first), choix style.
//! let ds = plackett::io::read_str(
//!     "example.json",
//!     "[[0,1,2],[1,0,2],[0,2,1],[2,0,1]]",
//!     &ReadOptions::default(),
//! )
//! .unwrap();
//! let mle = fit_mle(&ds).unwrap();
//! let s = mle.summary(ds.items().names(), Gauge::MeanCentred);
//! assert!(s.items[0].log_worth > s.items[2].log_worth);
//! let ep = fit_ep(&ds, 2.0, 1.0).unwrap();
//! assert!(ep.prob_beats(0, 2) > 0.5);
//! ```

#![warn(missing_docs)]
// Numerical kernels index several arrays in step; ranges read clearer there.
#![allow(clippy::needless_range_loop)]

pub mod choice;
pub mod classify;
pub mod data;
pub mod document;
pub mod error;
pub mod eval;
pub mod groundtruth;
pub mod infer;
pub mod io;
pub mod keywords;
pub mod mil;
pub mod model;
pub mod numerics;
pub mod observer;
pub mod posterior;
pub mod report;
pub mod sampling;
pub mod stats;
pub mod tree;

pub use error::{Error, Result};
/// The matrix type of the public API (covariances, information matrices),
/// re-exported so that callers name the same version.
pub use nalgebra;

use data::Dataset;
use infer::spec::{EngineKind, FitSpec};
use posterior::Posterior;

/// A fit through the validated [`FitSpec`] with its default settings.
fn fit_with(
    ds: &Dataset,
    engine: EngineKind,
    gamma: (f64, f64),
    seed: u64,
) -> Result<Box<dyn Posterior + Send + Sync>> {
    FitSpec {
        engine,
        map_prior: infer::Prior::Gamma {
            shape: gamma.0,
            rate: gamma.1,
        },
        gamma,
        seed,
        ..Default::default()
    }
    .run(ds)
}

/// Maximum likelihood with standard errors, default settings (SQUAREM MM,
/// Newton if it stalls; mean-centred gauge). Fails with a reason when the
/// MLE does not exist (Hunter 2004's connectivity condition).
pub fn fit_mle(ds: &Dataset) -> Result<Box<dyn Posterior + Send + Sync>> {
    fit_with(ds, EngineKind::Mle, (2.0, 1.0), 1)
}

/// MAP under i.i.d. Gamma(`shape`, `rate`) priors on the worths.
pub fn fit_map(ds: &Dataset, shape: f64, rate: f64) -> Result<Box<dyn Posterior + Send + Sync>> {
    fit_with(ds, EngineKind::Map, (shape, rate), 1)
}

/// Gibbs sampler (Caron & Doucet 2012) under i.i.d. Gamma(`shape`, `rate`)
/// priors: 4 chains × 5,000 draws after 1,000 burn-in sweeps.
pub fn fit_gibbs(
    ds: &Dataset,
    shape: f64,
    rate: f64,
    seed: u64,
) -> Result<Box<dyn Posterior + Send + Sync>> {
    fit_with(ds, EngineKind::Gibbs, (shape, rate), seed)
}

/// Power EP (Guiver & Snelson 2009) under i.i.d. Gamma(`shape`, `rate`)
/// priors (`shape` > 1), with the log-evidence.
pub fn fit_ep(ds: &Dataset, shape: f64, rate: f64) -> Result<Box<dyn Posterior + Send + Sync>> {
    fit_with(ds, EngineKind::Ep, (shape, rate), 1)
}

/// Mean-field VB with Gamma factors under i.i.d. Gamma(`shape`, `rate`)
/// priors, with the ELBO.
pub fn fit_vb(ds: &Dataset, shape: f64, rate: f64) -> Result<Box<dyn Posterior + Send + Sync>> {
    fit_with(ds, EngineKind::Vb, (shape, rate), 1)
}

/// The names most programs need: `use plackett::prelude::*;`.
pub mod prelude {
    pub use crate::data::{Dataset, DatasetBuilder, Items, Tail, TieSemantics};
    pub use crate::io::{Format, ReadOptions, read_path, read_str};
    pub use crate::posterior::{Draws, FitInfo, Gauge, Posterior, Summary};
    pub use crate::{Error, Result, fit_ep, fit_gibbs, fit_map, fit_mle, fit_vb};
}
