//! The command line's tests (they run the `plackett` binary), one test
//! binary: one file per subject; run one with
//! `cargo test --release -p plackett-cli --test commands outputs::`.

mod common;

mod adherence_cli;
mod attacks;
mod bayes_cli;
mod choix;
mod citations;
mod classify_cli;
mod cli;
mod cli_reference;
mod conformance;
mod docs_commands;
mod features_cli;
mod fuzz_options;
mod groundtruth_cli;
mod help_examples;
mod keywords_cli;
mod limits;
mod mil_cli;
mod mixture_cli;
mod options;
mod outputs;
mod predict_cli;
mod progress;
mod readme;
mod reports;
mod tree_cli;
