//! Metrics, predictions and cross-validation splits.

pub mod calibration;
pub mod cv;
pub mod cv_summary;
pub mod metrics;
pub mod positive_ratio;
pub mod predict;
