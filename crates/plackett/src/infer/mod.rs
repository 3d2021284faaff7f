//! Inference engines.

pub mod lsr;
pub mod mm;
pub mod newton;
pub mod point;
pub mod prior;

pub use point::{Algorithm, PointFit, PointOptions, fit_point};
pub use prior::Prior;
