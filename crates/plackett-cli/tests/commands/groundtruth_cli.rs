//! `plackett aggregate` and `plackett evaluate` end to end.

use crate::common;
use crate::common::then;
use crate::common::words;

use common::{bin, data, stdout};

fn s(p: &std::path::Path, f: &str) -> String {
    p.join(f).to_string_lossy().into_owned()
}

#[test]
fn describe_matches_an_independent_count_of_the_released_annotations() {
    let d = common::data("dermatology-ddx");
    let o = bin()
        .args([
            "aggregate",
            &s(&d, "dermatology_selectors.json"),
            "--classes",
            &s(&d, "dermatology_conditions.txt"),
            "--describe",
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    let t = String::from_utf8(o.stdout).unwrap();
    for want in [
        "cases: 1947",
        "annotations: 9602",
        "1: 25, 2: 132, 3: 359, 4: 434, 5: 289, 6: 374, 7: 97, 8: 85, 9: 68, 10: 84",
        "fewer than 3 annotators: 157",
        "1: 5194, 2: 2860, 3: 1399, 4: 117, 5: 25, 6: 5, 7: 2",
        "1: 5858, 2: 3097, 3: 642, 4: 5",
        "1: 12445, 2: 1379, 3: 155, 4: 16, 5: 2, 6: 1",
        "annotations with at least one tie: 1519 (15.8%)",
        "unique conditions per case: mean 3.96, median 4, max 15",
        "mean 4.93, median 5",
    ] {
        assert!(t.contains(want), "missing {want:?} in\n{t}");
    }
}

#[test]
fn aggregate_json_contract() {
    let d = common::data("dermatology-ddx");
    let o = bin()
        .args([
            "aggregate",
            &s(&d, "dermatology_selectors.json"),
            "--classes",
            &s(&d, "dermatology_conditions.txt"),
        ])
        .args(words(
            "--method pl --reliability 3 --samples 500 --burn-in 200 --seed 3",
        ))
        .args(words("--cases 1026,687 --output json"))
        .output()
        .unwrap();
    common::assert_ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["method"].as_str().unwrap().starts_with("pl"));
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0]["case"], 1026);
    assert!(cases[0]["top"].as_array().unwrap().len() >= 5);
    assert_eq!(cases[0]["top"][0]["class"], "Hemangioma");
    for k in ["id", "class", "mean", "sd"] {
        assert!(cases[0]["top"][0].get(k).is_some());
    }
    for k in ["certainty_top1", "certainty_top2", "certainty_top3"] {
        let c = cases[0][k].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&c));
    }
    // Same seed, same output; IRN and PrIRN also run.
    let again = bin()
        .args([
            "aggregate",
            &s(&d, "dermatology_selectors.json"),
            "--classes",
            &s(&d, "dermatology_conditions.txt"),
        ])
        .args(words(
            "--method pl --reliability 3 --samples 500 --burn-in 200 --seed 3",
        ))
        .args(words("--cases 1026,687 --output json"))
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert_eq!(o.stdout, again.stdout);
    for m in ["irn", "prirn"] {
        let o = bin()
            .args([
                "aggregate",
                &s(&d, "dermatology_selectors.json"),
                "--classes",
                &s(&d, "dermatology_conditions.txt"),
            ])
            .args(then(&["--method", m], "--cases 1026 --samples 200"))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{m}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn evaluate_scores_and_leave_one_out() {
    let d = common::data("dermatology-ddx");
    let dir = std::env::temp_dir().join(format!("plackett-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A prediction file for cases 1026 and 1057 (numpy.savetxt layout).
    let mut rows = String::new();
    for ids in [[40usize, 171, 244], [111, 347, 407]] {
        let mut r = vec![0.0f64; 419];
        for (k, i) in ids.iter().enumerate() {
            r[*i] = 3.0 - k as f64;
        }
        rows.push_str(
            &r.iter()
                .map(|x| format!("{x:.18e}"))
                .collect::<Vec<_>>()
                .join(" "),
        );
        rows.push('\n');
    }
    let pred = dir.join("pred.txt");
    std::fs::write(&pred, rows).unwrap();
    let html = dir.join("eval.html");
    let o = bin()
        .args([
            "evaluate",
            "--annotations",
            &s(&d, "dermatology_selectors.json"),
            "--predictions",
            pred.to_str().unwrap(),
        ])
        .args([
            "--classes",
            &s(&d, "dermatology_conditions.txt"),
            "--risks",
            &s(&d, "dermatology_risks.txt"),
        ])
        .args(words(
            "--method pl --reliability 3 --k 1,2,3 --samples 400 --seed 2",
        ))
        .args(words("--cases 1026,1057 --output json --report"))
        .arg(html.to_str().unwrap())
        .output()
        .unwrap();
    common::assert_ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["annotation_certainty"].as_f64().is_some());
    for key in [
        "ua_topk_accuracy",
        "ua_topk_set_accuracy",
        "ua_average_overlap",
    ] {
        for k in ["1", "2", "3"] {
            assert!(
                v[key][k]["mean"].as_f64().is_some() && v[key][k]["sd"].as_f64().is_some(),
                "{key} {k}"
            );
        }
    }
    for k in ["1", "2", "3"] {
        assert!(v["topk_accuracy"][k].as_f64().is_some());
    }
    assert!(v["risk_certainty"]["top1"].as_f64().is_some());
    assert!(v["expected_risk"]["mean"].as_f64().is_some());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("Fig. 6") && page.contains("Fig. 8"));
    // Leave-one-annotator-out.
    let o = bin()
        .args([
            "evaluate",
            "--annotations",
            &s(&d, "dermatology_selectors.json"),
            "--predictions",
            "annotator:leave-one-out",
        ])
        .args(then(
            &["--classes", &s(&d, "dermatology_conditions.txt")],
            "--cases 1026,1057 --samples 200 --k 1,3 --output json",
        ))
        .output()
        .unwrap();
    common::assert_ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["n_units"], 9, "6 + 3 annotators");
    // A prediction file of the wrong shape: one-line error with file and line.
    std::fs::write(&pred, "1 2 3\n").unwrap();
    let o = bin()
        .args([
            "evaluate",
            "--annotations",
            &s(&d, "dermatology_selectors.json"),
            "--predictions",
            pred.to_str().unwrap(),
        ])
        .args([
            "--classes",
            &s(&d, "dermatology_conditions.txt"),
            "--cases",
            "1026",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("pred.txt:1:") && e.contains("419"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--samples 0` gave all-zero plausibilities with exit 0 (aggregate) and an
/// index panic (evaluate); non-positive prior values are refused too.
#[test]
fn degenerate_sample_counts_and_priors_are_refused() {
    let d = common::data("dermatology-ddx");
    let sel = d.join("dermatology_selectors.json");
    let classes = d.join("dermatology_conditions.txt");
    let base = |cmd: &str| {
        let mut c = common::bin();
        c.arg(cmd);
        if cmd == "evaluate" {
            c.args([
                "--annotations",
                sel.to_str().unwrap(),
                "--predictions",
                "annotator:leave-one-out",
            ]);
        } else {
            c.arg(sel.to_str().unwrap());
        }
        c.args(["--classes", classes.to_str().unwrap(), "--cases", "1026"]);
        c
    };
    for cmd in ["aggregate", "evaluate"] {
        common::fails(
            &base(cmd).args(["--samples", "0"]).output().unwrap(),
            "--samples: expected at least 1",
        );
        common::fails(
            &base(cmd).args(["--prior-shape", "-1"]).output().unwrap(),
            "--prior-shape: expected a positive number",
        );
        common::fails(
            &base(cmd).args(["--prior-rate", "0"]).output().unwrap(),
            "--prior-rate: expected a positive number",
        );
    }
    // A prediction set larger than the 419 classes (issue 17 item 12).
    common::fails(
        &base("evaluate").args(["--k", "1,500"]).output().unwrap(),
        "prediction-set size 500 exceeds the number of classes (419)",
    );
}

/// Gamma shapes far below the default 1/K (1e-4 is the default for 10,000
/// classes) make the worths of classes nobody ranked astronomically small,
/// and the sampler used to stop on them (a panic): on the whole data set
/// from shape 1e-3 down, where the rescaling factor overflowed, and on
/// cases 11 and 20 from 1e-4 down, where the tied groups' order walk met
/// 0/0. They run, print finite
/// plausibilities that move smoothly with the shape, and a shape below the
/// floor 1e-10 is refused.
#[test]
fn tiny_prior_shapes_run_and_the_floor_is_refused() {
    let d = common::data("dermatology-ddx");
    let sel = d.join("dermatology_selectors.json");
    let classes = d.join("dermatology_conditions.txt");
    let run = |shape: &str| {
        common::bin()
            .args(["aggregate", sel.to_str().unwrap()])
            .args(["--classes", classes.to_str().unwrap(), "--cases", "2,11,20"])
            .args(["--prior-shape", shape, "--output", "json"])
            .output()
            .unwrap()
    };
    let top = |shape: &str| -> Vec<f64> {
        let out = run(shape);
        assert!(
            out.status.success(),
            "shape {shape}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            !text.contains("NaN") && !text.contains("Infinity"),
            "{text}"
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["top"][0]["mean"].as_f64().unwrap())
            .collect()
    };
    // Case 20's top class moves from 0.17 at shape 0.1 to 0.94 at 1e-3 and
    // 0.99 at 3e-4 (where the earlier build ran too, to the same digits).
    let (a, b) = (top("3e-4"), top("1e-4"));
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 0.03, "{a:?} against {b:?}");
    }
    top("1e-10");
    common::fails(
        &run("1e-11"),
        "--prior-shape: a Gamma shape must be at least 1e-10",
    );
}

/// The annotations are evaluate's positional input file like every other
/// command's (issue 17 item 11); the old `--annotations` flag gives the
/// same result, both together or neither is a one-line error.
#[test]
fn evaluate_takes_its_annotations_positionally() {
    let d = common::data("dermatology-ddx");
    let sel = s(&d, "dermatology_selectors.json");
    let classes = s(&d, "dermatology_conditions.txt");
    let rest = then(
        &[
            "--predictions",
            "annotator:leave-one-out",
            "--classes",
            &classes,
        ],
        "--cases 0,1,2 --samples 30",
    );
    let positional = common::bin()
        .arg("evaluate")
        .arg(&sel)
        .args(&rest)
        .output()
        .unwrap();
    let flag = common::bin()
        .args(["evaluate", "--annotations", &sel])
        .args(&rest)
        .output()
        .unwrap();
    assert_eq!(common::stdout(&positional), common::stdout(&flag));
    common::fails(
        &common::bin().arg("evaluate").args(&rest).output().unwrap(),
        "<ANNOTATIONS>",
    );
    common::fails(
        &common::bin()
            .args(["evaluate", &sel, "--annotations", &sel])
            .args(&rest)
            .output()
            .unwrap(),
        "cannot be used with",
    );
}

/// One default output rule (issue 17 item 11): a table for people, as every
/// other summary command; aggregate printed JSON by default and JSON again
/// under `--output table`, evaluate printed JSON for `--output csv`.
#[test]
fn aggregate_and_evaluate_default_to_a_table() {
    let d = common::data("dermatology-ddx");
    let sel = s(&d, "dermatology_selectors.json");
    let classes = s(&d, "dermatology_conditions.txt");
    let agg = bin()
        .args([
            "aggregate",
            &sel,
            "--classes",
            &classes,
            "--cases",
            "1026,3",
        ])
        .args(["--samples", "50"])
        .output()
        .unwrap();
    let t = common::stdout(&agg);
    assert!(
        t.contains("most plausible classes") && t.contains("Hemangioma") && !t.contains('{'),
        "{t}"
    );
    let lines: Vec<&str> = t
        .lines()
        .filter(|l| l.trim_start().starts_with("1026"))
        .collect();
    assert_eq!(lines.len(), 1, "{t}");
    let ev = |extra: &[&str]| {
        bin()
            .args(["evaluate", &sel, "--predictions", "annotator:leave-one-out"])
            .args(then(&["--classes", &classes], "--cases 0,1 --samples 20"))
            .args(extra)
            .output()
            .unwrap()
    };
    let t = common::stdout(&ev(&[]));
    assert!(t.contains("UA top-k acc") && !t.contains('{'), "{t}");
    common::fails(&ev(&["--output", "csv"]), "evaluate writes table or json");
}

/// A selected case whose annotators listed no class is refused naming the
/// file and the case's line (it named neither); unselected ones do not
/// matter.
#[test]
fn a_case_without_annotations_is_named_by_file_and_line() {
    let d = common::tmpdir("gt-empty-case");
    let f = d.join("e.json");
    std::fs::write(&f, "[[[[0]]],\n [],\n [[[1]],[]]]\n").unwrap();
    let run = |extra: &[&str]| {
        common::bin()
            .args(["aggregate", f.to_str().unwrap(), "--classes", "3"])
            .args(extra)
            .output()
            .unwrap()
    };
    common::fails(
        &run(&[]),
        "e.json:2: case 1 has no annotations (no annotator listed a class)",
    );
    common::assert_ok(&run(&["--cases", "0,2"]));
}

/// `evaluate --reliability 1,3 --output table` prints the metrics of both
/// reliabilities (it printed the first only; the others were in the JSON).
#[test]
fn the_table_shows_every_reliability_of_a_sweep() {
    let d = data("dermatology-ddx");
    let o = bin()
        .args(["evaluate", &s(&d, "dermatology_selectors.json")])
        .args(["--classes", &s(&d, "dermatology_conditions.txt")])
        .args(words("--predictions annotator:leave-one-out --method pl"))
        .args(words("--reliability 1,3 --cases 0,1,2 --samples 100"))
        .output()
        .unwrap();
    let text = stdout(&o);
    assert!(
        text.contains("reliability 1: ") && text.contains("reliability 3: "),
        "{text}"
    );
    assert_eq!(text.matches("UA top-k acc").count(), 2, "{text}");
}
