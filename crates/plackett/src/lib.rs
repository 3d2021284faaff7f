//! # plackett
//!
//! Bayesian and likelihood inference for Plackett–Luce models of rankings,
//! choices and comparisons, with ties (unknown order or events), item
//! features, and evaluation under uncertain ground truth.
//!
//! One flat [`data::Dataset`] serves every engine; every engine reports
//! through [`posterior::Summary`].

// Numerical kernels index several arrays in step; ranges read clearer there.
#![allow(clippy::needless_range_loop)]

pub mod classify;
pub mod data;
pub mod error;
pub mod eval;
pub mod groundtruth;
pub mod infer;
pub mod io;
pub mod model;
pub mod numerics;
pub mod posterior;
pub mod report;

pub use error::{Error, Result};
