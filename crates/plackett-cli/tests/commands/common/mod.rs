//! Helpers shared by the CLI test files.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `plackett` binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_plackett"))
}

/// `data/<rel>` in the repository (the shipped example datasets; see
/// `data/README.md`). Missing data is a failure, never a skip.
pub fn data(rel: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(rel);
    assert!(
        p.is_dir(),
        "{} missing: the example data ships with the repository",
        p.display()
    );
    p
}

/// A fresh, empty scratch directory unique to this test process.
pub fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plackett-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Standard output of a successful run (fails the test with stderr
/// otherwise).
pub fn stdout(out: &Output) -> String {
    assert_ok(out);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard output and standard error of a successful run (a CSV and the
/// notes it has no place for).
pub fn out_and_err(out: &Output) -> (String, String) {
    assert_ok(out);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The run succeeded (its standard error is shown if not).
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Standard output of a successful run, parsed as JSON.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).unwrap()
}

/// The run failed the way user errors must: exit code 2, one line on
/// stderr mentioning `needle`, no panic.
pub fn fails(out: &Output, needle: &str) {
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    // Nor a carriage return or another control character inside it, which
    // a terminal, a log or Python's `splitlines` would break the line at.
    assert!(
        !err.trim_end_matches('\n').chars().any(char::is_control),
        "control characters: {err:?}"
    );
    assert!(err.contains(needle), "{err:?} should mention {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The log-worth of item `name` in a fit's JSON (`--output json`).
pub fn log_worth(fit: &serde_json::Value, name: &str) -> f64 {
    fit["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no item {name}"))["log_worth"]
        .as_f64()
        .unwrap()
}

/// The salad dressings' rankings (Critchlow & Fligner 1991), as a path.
pub fn salad() -> String {
    data("salad")
        .join("rankings.csv")
        .to_string_lossy()
        .into_owned()
}

/// `plackett fit` on the salad rankings with `extra` options.
pub fn fit_salad(extra: &[&str]) -> Output {
    bin()
        .args(["fit", &salad(), "--ranking-col", "judge"])
        .args(extra)
        .output()
        .unwrap()
}

/// The long-CSV column flags of `data/nascar2002/results.csv`.
#[allow(dead_code)]
pub const NASCAR_COLS: [&str; 6] = [
    "--ranking-col",
    "race",
    "--rank-col",
    "position",
    "--item-col",
    "driver",
];

/// `mil simulate` into `dir/name`: bags of `instances` instances with
/// `features` features per modality.
pub fn mil_bags(
    dir: &std::path::Path,
    name: &str,
    bags: usize,
    instances: usize,
    features: usize,
) -> String {
    let f = dir.join(name);
    let out = bin()
        .args(["mil", "simulate", "--bags", &bags.to_string()])
        .args(["--instances", &instances.to_string()])
        .args(["--features", &features.to_string(), "--seed", "5", "--out"])
        .arg(&f)
        .output()
        .unwrap();
    assert_ok(&out);
    f.to_str().unwrap().to_string()
}

/// `aggregate`/`evaluate` arguments over the shipped dermatology
/// annotations (Stutz et al. 2023): the annotations, their classes, the
/// cases `cases` (a count or a list) and `samples` posterior draws.
pub fn dermatology_args(cases: &str, samples: &str) -> Vec<String> {
    let d = data("dermatology-ddx");
    let path = |f: &str| d.join(f).to_string_lossy().into_owned();
    vec![
        path("dermatology_selectors.json"),
        "--classes".into(),
        path("dermatology_conditions.txt"),
        "--cases".into(),
        cases.into(),
        "--samples".into(),
        samples.into(),
    ]
}

/// A one-replicate `mil study` over the bag-count factor up to 250 bags
/// (the quick form every study test starts from).
pub const QUICK_MIL_STUDY: [&str; 8] = [
    "mil",
    "study",
    "--factors",
    "bags",
    "--max-bags",
    "250",
    "--replicates",
    "1",
];

/// A command line's arguments written as one string, split at whitespace:
/// `words("--samples 500 --burn-in 500")`. For literal flags and values
/// only (nothing with a space in it).
pub fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

/// `head` followed by [`words`]`(rest)`: `then(&[&file], "--engine gibbs --chains 2")`.
pub fn then<'a>(head: &[&'a str], rest: &'a str) -> Vec<&'a str> {
    head.iter().copied().chain(words(rest)).collect()
}
