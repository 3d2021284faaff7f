//! Evaluation under uncertain ground truth (Stutz et al. 2023): aggregate experts' differential
//! diagnoses into posterior plausibilities (IRN, PrIRN, Plackett–Luce) and
//! score classifiers with uncertainty-adjusted metrics.

pub mod describe;
pub mod irn;
pub mod measures;
pub mod models;
pub mod run;
pub mod samples;
pub mod settings;
pub mod summary;
