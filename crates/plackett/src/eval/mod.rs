//! Metrics and predictions shared by the families (cross-validation of the
//! feature regression is [`crate::infer::feature_cv`]).

pub mod calibration;
pub mod metrics;
pub mod positive_ratio;
pub mod predict;
