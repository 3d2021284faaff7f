//! Inference engines.

pub mod adherence;
pub mod adherence_gibbs;
pub mod bayes;
pub mod davidson;
pub mod ep;
pub mod feature_fit;
pub mod feature_run;
pub mod gaussian_vi;
pub mod gaussian_vi_exact;
pub mod gibbs;
pub mod linear_response;
pub mod lsr;
pub mod mcmc;
pub mod mixture;
pub mod mixture_gibbs;
pub mod mixture_ppc;
pub mod mm;
pub mod newton;
pub mod point;
pub mod prior;
pub mod regression;
pub mod rng;
pub mod spec;
pub mod vb;

pub use point::{Algorithm, PointFit, PointOptions, fit_point};
pub use prior::Prior;
