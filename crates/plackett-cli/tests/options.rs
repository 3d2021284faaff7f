//! Options are honoured exactly or refused: no silent substitutions, no
//! flags the chosen engine would ignore, no values no engine can use.

mod common;

use common::{bin, fails, json};

fn salad() -> String {
    common::data("salad")
        .join("rankings.csv")
        .to_string_lossy()
        .into_owned()
}

fn fit(extra: &[&str]) -> std::process::Output {
    bin()
        .args(["fit", &salad(), "--ranking-col", "judge"])
        .args(extra)
        .output()
        .unwrap()
}

/// `--engine ep --tol 1e-10` used to run at 1e-8: the CLI substituted EP's
/// default whenever the tolerance equalled the MLE's default.
#[test]
fn ep_runs_at_the_tolerance_given() {
    let v = json(&fit(&[
        "--engine", "ep", "--tol", "1e-10", "--output", "json",
    ]));
    assert_eq!(v["tolerance"].as_f64(), Some(1e-10));
    let d = json(&fit(&["--engine", "ep", "--output", "json"]));
    assert_eq!(d["tolerance"].as_f64(), Some(1e-8));
    // A tighter tolerance takes more passes.
    assert!(v["iterations"].as_u64() > d["iterations"].as_u64());
    let m = json(&fit(&["--tol", "1e-6", "--output", "json"]));
    assert_eq!(m["tolerance"].as_f64(), Some(1e-6));
}

/// A flag the chosen engine does not read is refused, naming the flag and
/// the engines that take it.
#[test]
fn flags_that_do_not_apply_are_refused() {
    for (args, needle) in [
        (
            &["--engine", "vb", "--samples", "7"][..],
            "--samples: only with --engine gibbs",
        ),
        (
            &["--engine", "vb", "--algorithm", "ilsr"][..],
            "--algorithm: only with --engine mle|map",
        ),
        (
            &["--engine", "mle", "--prior-shape", "3"][..],
            "--prior-shape: only with --engine map|gibbs|ep|vb",
        ),
        (
            &["--engine", "gibbs", "--tol", "1e-3"][..],
            "--tol: only with --engine mle|map|ep|vb",
        ),
        (
            &["--engine", "ep", "--pseudo", "3"][..],
            "--pseudo: only with --engine mle|map",
        ),
        (
            &["--engine", "map", "--prior-sd", "0.1"][..],
            "only with --prior normal",
        ),
    ] {
        fails(&fit(args), needle);
    }
    // The example: every ignored flag used to be accepted silently.
    fails(
        &fit(&[
            "--engine",
            "vb",
            "--prior",
            "normal",
            "--prior-sd",
            "0.1",
            "--algorithm",
            "ilsr",
            "--pseudo",
            "3",
            "--samples",
            "7",
        ]),
        "invalid option",
    );
}

#[test]
fn numeric_options_are_validated() {
    for (args, needle) in [
        (&["--tol", "-1"][..], "--tol: expected a positive number"),
        (&["--tol", "NaN"][..], "--tol: expected a positive number"),
        (&["--tol", "0"][..], "--tol: expected a positive number"),
        (&["--max-iter", "0"][..], "--max-iter: expected at least 1"),
        (
            &["--engine", "map", "--prior-shape", "-2"][..],
            "--prior-shape: expected a positive number",
        ),
        (
            &["--engine", "gibbs", "--samples", "0"][..],
            "--samples: expected at least 1",
        ),
        (
            &["--engine", "ep", "--draws", "0"][..],
            "--draws: expected at least 1",
        ),
    ] {
        fails(&fit(args), needle);
    }
}
