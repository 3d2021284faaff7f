//! Metrics, predictions and cross-validation splits.

pub mod cv;
pub mod metrics;
pub mod predict;
