//! Metrics and cross-validation splits.
