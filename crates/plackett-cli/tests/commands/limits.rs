//! Tiny inputs must not allocate gigabytes (issue: "no huge allocations
//! from tiny inputs"): sparse or huge item ids, a huge `--items`, huge
//! class ids in a selectors file, and absurd count weights are refused with
//! one-line errors (exit 2) before anything large is allocated, and large
//! counts cost O(1) per row. Each case aborted or ran for minutes before.
//! Run under a 2 GB address-space limit.

use crate::common;
use crate::common::words;

use common::{bin, fails, tmpdir};
use std::process::{Command, Output};

/// The command run under `ulimit -v 2000000` (2 GB), so an allocation of
/// gigabytes would abort instead of passing.
fn limited(args: &[&str]) -> Output {
    let exe = bin().get_program().to_string_lossy().into_owned();
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v 2000000; exec '{exe}' {}",
            quoted.join(" ")
        ))
        .output()
        .unwrap()
}

#[test]
fn huge_and_sparse_ids_are_refused() {
    let d = tmpdir("limits");
    let w = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let sparse = w("sparse.json", "[[0,40000000,2],[40000000,0],[2,0],[0,2]]");
    fails(&limited(&["fit", &sparse]), "sparse");
    let huge = w("huge.json", "[[0,2000000000],[2000000000,0]]");
    fails(&limited(&["fit", &huge]), "too large");
    let beyond = w("beyond.json", "[[0,4000000000],[4000000000,0]]");
    fails(&limited(&["fit", &beyond]), "too large");
    let small = w("small.json", "[[0,1,2],[2,1,0],[1,0,2]]");
    fails(
        &limited(&["fit", &small, "--items", "300000000"]),
        "beyond the supported",
    );
    let sel = w("sel.json", "[[[[0],[300000000]]]]");
    fails(&limited(&["aggregate", &sel]), "renumber the classes");
    // Beyond what a class index can be: said as too large, not as "not a
    // non-negative integer".
    let sel = w("sel2.json", "[[[[0],[18446744073709551616]]]]");
    fails(
        &limited(&["aggregate", &sel]),
        "class id 18446744073709551616 is too large",
    );
}

/// Count weights cost O(1) per row in every engine (issue 17 item 2). EP
/// used to expand a count into that many factors (a count of 5·10⁷ aborted
/// on memory; 10⁶ on six rows ran for minutes) and the Gibbs sampler ran
/// one pass per copy of a tied row; now EP updates a weighted site exactly
/// and the sampler carries the copies down the subset lattice as counts.
/// An absurd weight (10³⁰⁰) is refused with a message.
#[test]
fn count_weights_cost_o1_in_every_engine() {
    let d = tmpdir("limits-ep");
    let write = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let p = write(
        "w.json",
        r#"{"rankings": [["a", "b", "c"], ["c", "b", "a"], ["b", "a"]], "weights": [50000000, 1, 3]}"#,
    );
    for engine in ["ep", "vb", "gibbs", "mle", "map"] {
        let out = limited(&["fit", &p, "--engine", engine, "--output", "json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A tied row counted 5·10⁷ times, through the Gibbs sampler and VB.
    let tied = write(
        "tied.json",
        r#"{"rankings": [[["a", "b", "c"], "d"], ["d", "c", "b", "a"], ["b", "a", "d", "c"]], "weights": [50000000, 2, 1]}"#,
    );
    for engine in ["gibbs", "vb", "map"] {
        let out = limited(&["fit", &tied, "--engine", engine, "--output", "json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let q = write(
        "w300.json",
        r#"{"rankings": [["a", "b", "c"], ["c", "b", "a"]], "weights": [1e300, 1]}"#,
    );
    fails(&limited(&["fit", &q, "--engine", "ep"]), "largest count");
}

/// `--max-iter` caps the default algorithm too (MM sweeps and Newton steps
/// together): it used to report "converged after 58 iterations" with
/// `--max-iter 3`. Not converging is exit 3, and the advice does not
/// suggest Newton when Newton already ran.
#[test]
fn max_iter_caps_the_default_algorithm() {
    let d = common::data("nascar2002");
    let f = d.join("results.csv").to_string_lossy().into_owned();
    let mut base = vec!["fit", f.as_str()];
    base.extend(common::NASCAR_COLS);
    base.extend(["--engine", "map"]);
    let out = bin()
        .args(&base)
        .args(["--max-iter", "3"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = bin()
        .args(&base)
        .args(["--max-iter", "3", "--allow-nonconvergence"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("NOT converged after 3 iterations"), "{text}");
    let newton = bin()
        .args(&base)
        .args(words(
            "--algorithm newton --max-iter 1 --allow-nonconvergence",
        ))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&newton.stdout);
    assert!(
        text.contains("NOT converged") && !text.contains("--algorithm newton"),
        "{text}"
    );
}
