//! Options are honoured exactly or refused: no silent substitutions, no
//! flags the chosen engine would ignore, no values no engine can use.

use crate::common;
use crate::common::then;
use crate::common::words;

use common::{bin, fails, json};

fn fit(extra: &[&str]) -> std::process::Output {
    common::fit_salad(extra)
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
        // Issue 17 item 5: a 300-digit ELBO from VB with Gamma(1e300, ·).
        (
            &["--engine", "vb", "--prior-shape", "1e300"][..],
            "--prior-shape: expected at most 1e10",
        ),
        (
            &["--engine", "map", "--prior-rate", "1e300"][..],
            "--prior-rate: expected at most 1e10",
        ),
        // A normal prior whose precision 1/sd² overflows or vanishes: the
        // fit failed advising a prior.
        (
            &[
                "--engine",
                "map",
                "--prior",
                "normal",
                "--prior-sd",
                "1e-300",
            ][..],
            "--prior-sd: must be between 1e-100 and 1e100",
        ),
        (
            &[
                "--engine",
                "map",
                "--prior",
                "normal",
                "--prior-sd",
                "1e300",
            ][..],
            "--prior-sd: must be between 1e-100 and 1e100",
        ),
    ] {
        fails(&fit(args), needle);
    }
}

/// `--vcov` writes the covariance in the reported gauge: its diagonal is
/// the squared standard errors, in both gauges; only for mle/map.
#[test]
fn vcov_matches_the_standard_errors_in_each_gauge() {
    let dir = common::tmpdir("vcov");
    for gauge in [&[][..], &["--reference", "B"][..]] {
        let path = dir.join("v.csv");
        let out = fit(&[
            &["--output", "json", "--vcov", path.to_str().unwrap()][..],
            gauge,
        ]
        .concat());
        let v = json(&out);
        let text = std::fs::read_to_string(&path).unwrap();
        let rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        let items = v["items"].as_array().unwrap();
        assert_eq!(rows[0][1..].len(), items.len());
        for (i, it) in items.iter().enumerate() {
            assert_eq!(rows[i + 1][0], it["name"].as_str().unwrap());
            let var: f64 = rows[i + 1][i + 1].parse().unwrap();
            let se = it["log_worth_se"].as_f64().unwrap();
            assert!((var.max(0.0).sqrt() - se).abs() < 1e-12, "{var} vs se {se}");
            // Symmetric.
            for j in 0..items.len() {
                assert_eq!(rows[i + 1][j + 1], rows[j + 1][i + 1]);
            }
        }
    }
    fails(
        &fit(&[
            "--engine",
            "gibbs",
            "--vcov",
            dir.join("g.csv").to_str().unwrap(),
        ]),
        "--vcov: only with --engine mle|map",
    );
    assert!(!dir.join("g.csv").exists());
}

/// Item names of 70,000 characters used to panic the table printer (the
/// formatter's width limit is 65,535); a 10 MB name was echoed whole in an
/// error. Tables cut names at 60 characters, errors at 400.
#[test]
fn huge_item_names_neither_panic_nor_flood() {
    let dir = common::tmpdir("longnames");
    let long = "x".repeat(70_000);
    let f = dir.join("long.csv");
    std::fs::write(
        &f,
        format!("ranking,rank,item\n1,1,{long}\n1,2,b\n2,1,b\n2,2,{long}\n"),
    )
    .unwrap();
    let out = bin().args(["fit", f.to_str().unwrap()]).output().unwrap();
    let text = common::stdout(&out);
    assert!(
        text.lines().all(|l| l.chars().count() < 200),
        "a table line is too long"
    );
    assert!(text.contains('…'));
    let huge = "y".repeat(10_000_000);
    let g = dir.join("dup.csv");
    std::fs::write(
        &g,
        format!("ranking,rank,item\n1,1,{huge}\n1,2,b\n1,3,{huge}\n"),
    )
    .unwrap();
    let out = bin().args(["fit", g.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1);
    assert!(err.len() < 1_000, "error message of {} bytes", err.len());
    assert!(err.contains("characters omitted"), "{err}");
}

/// A failing output leaves no other output behind (the draws file used to
/// be written before a bad `--out` failed), and no output may overwrite the
/// input file.
#[test]
fn outputs_are_all_or_nothing_and_never_the_input() {
    let dir = common::tmpdir("outputs");
    let input = dir.join("in.csv");
    std::fs::copy(common::salad(), &input).unwrap();
    let draws = dir.join("d.csv");
    let report = dir.join("r.html");
    let out = bin()
        .args(then(
            &["fit", input.to_str().unwrap()],
            "--ranking-col judge --engine gibbs",
        ))
        .args(words("--samples 100 --burn-in 50"))
        .args([
            "--draws-out",
            draws.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ])
        .args(["--out", dir.join("missing/dir/o.json").to_str().unwrap()])
        .output()
        .unwrap();
    fails(&out, "No such file or directory");
    assert!(
        !draws.exists() && !report.exists(),
        "an output was written although the run failed"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let before = std::fs::read(&input).unwrap();
    let out = bin()
        .args(["fit", input.to_str().unwrap(), "--ranking-col", "judge"])
        .args(["--out", input.to_str().unwrap()])
        .output()
        .unwrap();
    fails(&out, "is the input file");
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

/// Issue 17, item 5: a run that stopped at its iteration cap is not a
/// result. It exits 3 (not 0, not the bad-input 2), writes nothing, and
/// says how to proceed; `--allow-nonconvergence` reports it with exit 0.
#[test]
fn nonconvergence_exits_3_unless_allowed() {
    let dir = common::tmpdir("nonconv");
    let out = dir.join("fit.json");
    let o = fit(&[
        "--engine",
        "vb",
        "--max-iter",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--output",
        "json",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("did not converge") && err.contains("--allow-nonconvergence"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written for a non-converged fit");
    let o = fit(&["--engine", "map", "--prior-shape", "1e10"]);
    assert_eq!(o.status.code(), Some(3));
    let v = json(&fit(&[
        "--engine",
        "vb",
        "--max-iter",
        "2",
        "--allow-nonconvergence",
        "--output",
        "json",
    ]));
    assert_eq!(v["converged"].as_bool(), Some(false));
    // Gibbs's draws-per-chain floor: split-R̂ of one draw is meaningless.
    fails(&fit(&["--engine", "gibbs", "--samples", "1"]), "--samples");
}

/// A tied group too large for the exact unknown-order likelihood is
/// refused with the remedy: read ties as events (issue 17 item 12).
#[test]
fn a_huge_unknown_order_tie_suggests_ties_as_events() {
    let dir = common::tmpdir("huge_tie");
    let path = dir.join("tie30.json");
    let tie: Vec<u32> = (0..30).collect();
    std::fs::write(
        &path,
        serde_json::json!([[tie, [30]], [[30], [0]]]).to_string(),
    )
    .unwrap();
    let out = common::bin().arg("fit").arg(&path).output().unwrap();
    common::fails(&out, "tied group of 30 items");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--ties event"), "{err}");
}

/// A selectors file read as plain JSON rankings says how to read it
/// (issue 17 item 12).
#[test]
fn a_selectors_file_read_as_rankings_suggests_its_format() {
    let sel = common::data("dermatology-ddx").join("dermatology_selectors.json");
    let out = common::bin().arg("fit").arg(&sel).output().unwrap();
    common::fails(&out, "read it with --format selectors");
}
