//! What every engine returns: per-item summaries in a stated gauge, and
//! (for Bayesian engines) a way to draw worths.

pub mod summary;

pub use summary::{Gauge, ItemSummary, Summary};
