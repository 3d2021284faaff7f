//! The library's integration tests, one binary (one link, shared
//! monomorphisations: each file its own binary cost `.ci/run` minutes).
//! One file per subject; run one with
//! `cargo test --release -p plackett --test library mil::`.

mod common;

mod adherence;
mod bayes;
mod classify;
mod diagnostics;
mod features;
mod gibbs;
mod groundtruth;
mod keywords;
mod malformed;
mod malformed_mil;
mod mil;
mod mixture;
mod model_files;
mod properties;
mod readers;
mod reference;
mod serde_roundtrip;
mod ties;
mod tree;
