//! Inference engines.

pub mod adherence;
pub mod adherence_gibbs;
pub mod adherence_output;
pub mod bayes;
pub mod davidson;
pub mod ep;
pub mod feature_cv;
pub mod feature_cv_summary;
pub mod feature_fit;
pub mod feature_run;
pub mod gaussian_vi;
pub mod gaussian_vi_exact;
pub mod gibbs;
pub mod lsr;
pub mod mixture;
pub mod mixture_gibbs;
pub mod mixture_output;
pub mod mixture_ppc;
pub mod mm;
pub mod newton;
pub mod point;
pub mod regression;
pub mod spec;
pub mod vb;

/// The sampling layer's modules, where they used to live.
pub use crate::sampling::{linear_response, mcmc, prior, rng};
pub use point::{Algorithm, PointFit, PointOptions, fit_point};
pub use prior::Prior;
