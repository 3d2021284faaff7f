//! Hostile and careless command lines found by an adversarial run, each a
//! row of one table: what was given, and the one-line error (exit 2) it
//! must get — never a panic, an abort, a silent fallback or a huge line.

use crate::common;
use crate::common::then;

use common::{bin, fails, tmpdir};

fn salad() -> String {
    common::data("salad")
        .join("rankings.csv")
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn each_attack_gets_a_one_line_error() {
    let d = tmpdir("attacks");
    let salad = salad();
    let wine = common::data("uci")
        .join("wine.csv")
        .to_str()
        .unwrap()
        .to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // typos get clap's suggestion, on the one line
        (
            vec!["fit", &salad, "--enigne", "mle"],
            "a similar argument exists: '--engine'",
        ),
        (vec!["fitt"], "a similar subcommand exists: 'fit'"),
        // a device never ends: refused, not read until memory runs out
        (vec!["fit", "/dev/zero"], "is a device, not a data file"),
        (
            vec!["keywords", "extract", "/dev/zero", "--known", "x"],
            "is a device",
        ),
        // the library's name for the shape is the flag's, not its old alias --a
        (
            vec![
                "classify",
                "fit",
                &wine,
                "--engine",
                "em",
                "--prior-shape",
                "1e-320",
            ],
            "invalid option --prior-shape: a Gamma shape must be at least 1e-10",
        ),
        // was a panic: "simulated data are valid: empty observation"
        (
            vec!["simulate", "--design", "topk", "--length", "0"],
            "top-k lists need at least 1 item",
        ),
        // was a silent fallback to one ranker per ranking
        (
            vec![
                "fit",
                &salad,
                "--ranking-col",
                "judge",
                "--adherence",
                "--ranker-col",
                "nosuch",
            ],
            "no column named \"nosuch\"",
        ),
        (
            vec![
                "fit",
                &salad,
                "--ranking-col",
                "judge",
                "--weight-col",
                "nosuch",
            ],
            "columns are: judge, item, rank",
        ),
    ];
    for (args, needle) in cases {
        let out = bin().args(&args).current_dir(&d).output().unwrap();
        fails(&out, needle);
    }
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written");
}

/// Extreme option values that used to print nonsense with exit 0 (weights
/// of 10³⁰⁵, 200-digit numbers, NaN) or never end: refused with the range
/// every Gamma prior shares (docs/classify.md), or the data's reason.
#[test]
fn extreme_options_and_degenerate_data_are_refused() {
    let d = tmpdir("attacks-extreme");
    let p = |n: &str| d.join(n).to_str().unwrap().to_string();
    let wine = common::data("uci").join("wine.csv");
    let wine = wine.to_str().unwrap();
    let sel = common::data("dermatology-ddx").join("dermatology_selectors.json");
    let sel = sel.to_str().unwrap();
    // Thirty rankings that are one 20-way tie, and the same tie above one
    // more item (the subset recursion's 20·2²⁰ per ranking and component).
    let (mut all_tied, mut tie_then_one) = (String::new(), String::new());
    all_tied.push_str("ranking,rank,item\n");
    tie_then_one.push_str("ranking,rank,item\n");
    for r in 0..30 {
        for i in 0..20 {
            all_tied.push_str(&format!("{r},1,i{i}\n"));
            tie_then_one.push_str(&format!("{r},1,i{i}\n"));
        }
        tie_then_one.push_str(&format!("{r},2,z\n"));
    }
    std::fs::write(d.join("tied.csv"), all_tied).unwrap();
    std::fs::write(d.join("tie_then_one.csv"), tie_then_one).unwrap();
    let (tied, tie1) = (p("tied.csv"), p("tie_then_one.csv"));
    let range = "expected at most 1e10";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "classify",
                "fit",
                wine,
                "--engine",
                "em",
                "--prior-shape",
                "1e308",
            ],
            range,
        ),
        (
            vec![
                "classify",
                "fit",
                wine,
                "--engine",
                "vb",
                "--prior-shape",
                "1e11",
            ],
            range,
        ),
        (
            vec![
                "classify",
                "fit",
                wine,
                "--engine",
                "gibbs",
                "--prior-shape",
                "1e308",
            ],
            range,
        ),
        (
            vec!["classify", "fit", wine, "--prior-rate", "1e300"],
            range,
        ),
        (vec!["aggregate", sel, "--prior-shape", "1e308"], range),
        (vec!["aggregate", sel, "--prior-rate", "1e300"], range),
        (
            vec![
                "aggregate",
                sel,
                "--method",
                "prirn",
                "--reliability",
                "1e-320",
            ],
            "the PrIRN concentration must be between 1e-10 and 1e10",
        ),
        (
            vec![
                "aggregate",
                sel,
                "--method",
                "prirn",
                "--reliability",
                "1e308",
            ],
            "the PrIRN concentration must be between 1e-10 and 1e10",
        ),
        (
            vec!["fit", &tied, "--components", "2"],
            "no informative observations",
        ),
        (
            vec!["fit", &tied, "--components", "2", "--engine", "map"],
            "no informative observations",
        ),
        (
            vec!["fit", &tied, "--components", "2", "--engine", "gibbs"],
            "no informative observations",
        ),
        (
            vec!["fit", &tie1, "--components", "1:3", "--engine", "map"],
            "groups above 12 items are refused",
        ),
        (
            vec!["fit", &tie1, "--components", "2", "--engine", "gibbs"],
            "groups above 12 items are refused",
        ),
    ];
    for (args, needle) in cases {
        let out = bin().args(&args).current_dir(&d).output().unwrap();
        fails(&out, needle);
    }
    // Allowed extremes finish with finite numbers: the classifier at the
    // largest shape (VB's intervals took minutes at 10⁸ before), PrIRN at
    // its smallest concentration.
    for args in [
        vec![
            "classify",
            "fit",
            wine,
            "--engine",
            "vb",
            "--prior-shape",
            "1e10",
            "--output",
            "json",
        ],
        vec![
            "classify",
            "fit",
            wine,
            "--engine",
            "gibbs",
            "--prior-shape",
            "1e10",
            "--samples",
            "100",
            "--burn-in",
            "50",
            "--output",
            "json",
        ],
        vec![
            "aggregate",
            sel,
            "--method",
            "prirn",
            "--reliability",
            "1e-10",
            "--samples",
            "20",
            "--output",
            "json",
        ],
    ] {
        let out = bin().args(&args).current_dir(&d).output().unwrap();
        refused_or_finite(&out, &args.join(" "));
        assert_eq!(out.status.code(), Some(0), "{}", args.join(" "));
    }
}

/// A warm start (`mil fit --init MODEL`) from coefficient means of 10²⁰⁰
/// never ended (the truncated-normal draws' rejection loop); more than 1000
/// prior sds from 0 is refused, and a far but allowed start finishes.
#[test]
fn absurd_warm_starts_are_refused_and_far_ones_finish() {
    let d = tmpdir("attacks-init");
    let p = |n: &str| d.join(n).to_str().unwrap().to_string();
    simulated_bags(&d, 2);
    ok(&["mil", "fit", &p("bags.csv"), "--out", &p("m.json")]);
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("m.json")).unwrap()).unwrap();
    let with_means = |v: f64, name: &str| {
        let mut m = model.clone();
        for q in m["parameters"].as_array_mut().unwrap() {
            for k in ["mean", "lower", "upper"] {
                q[k] = serde_json::json!(v);
            }
        }
        std::fs::write(d.join(name), m.to_string()).unwrap();
    };
    with_means(1e200, "far.json");
    with_means(1e3, "allowed.json");
    for engine in ["gibbs", "vb"] {
        let short: &[&str] = if engine == "gibbs" {
            &["--samples", "50", "--burn-in", "20"]
        } else {
            &[]
        };
        let run = |init: &str| {
            bin()
                .args([
                    "mil",
                    "fit",
                    &p("bags.csv"),
                    "--engine",
                    engine,
                    "--init",
                    &p(init),
                ])
                .args(short)
                .output()
                .unwrap()
        };
        fails(&run("far.json"), "more than 1000 prior sds");
        refused_or_finite(&run("allowed.json"), engine);
    }
}

/// An item name of 200,000 characters in a "no MLE" error is shown by its
/// ends and length, not in full.
#[test]
fn a_huge_item_name_makes_a_short_error() {
    let d = tmpdir("attacks-name");
    let name = "x".repeat(200_000);
    let f = d.join("huge.csv");
    std::fs::write(
        &f,
        format!("ranking,rank,item\n1,1,{name}\n1,2,b\n2,1,{name}\n2,2,c\n"),
    )
    .unwrap();
    let out = bin().arg("fit").arg(&f).output().unwrap();
    fails(&out, "200000 characters");
    assert!(out.stderr.len() < 500, "{} bytes", out.stderr.len());
}

/// Every floating-point number of a JSON document replaced by `v` (integers
/// such as counts and layout sizes kept).
fn every_float(doc: &serde_json::Value, v: f64) -> serde_json::Value {
    use serde_json::Value;
    match doc {
        Value::Number(n) if n.is_f64() => serde_json::json!(v),
        Value::Array(a) => Value::Array(a.iter().map(|x| every_float(x, v)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), every_float(x, v)))
                .collect(),
        ),
        x => x.clone(),
    }
}

/// A run on a tampered model file must exit 2 with one line, or exit 0
/// printing only finite numbers — never panic, never print NaN or ±∞.
fn refused_or_finite(out: &std::process::Output, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(2) => assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}"),
        Some(0) => {
            let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
            assert!(
                !text.contains("nan") && !text.contains("inf"),
                "{what}: {text}"
            );
        }
        c => panic!("{what}: exit {c:?}: {err}"),
    }
    assert!(!err.contains("panicked"), "{what}: {err}");
}

/// The run succeeded.
fn ok(args: &[&str]) {
    common::assert_ok(&bin().args(args).output().unwrap());
}

/// `d/bags.csv`: 30 simulated bags with `features` features per modality.
fn simulated_bags(d: &std::path::Path, features: usize) {
    let out = d.join("bags.csv");
    let f = features.to_string();
    ok(&[
        "mil",
        "simulate",
        "--bags",
        "30",
        "--features",
        &f,
        "--out",
        out.to_str().unwrap(),
    ]);
}

/// Model files are a trust boundary: truncated arrays, every number 1e308,
/// every number zero — for `mil predict`, `predict` and `classify predict`.
#[test]
fn tampered_model_files_are_refused_or_predict_finite_numbers() {
    let d = tmpdir("attacks-models");
    let p = |n: &str| d.join(n).to_str().unwrap().to_string();
    // Multiple-instance model, standardised (its file holds the scaling).
    simulated_bags(&d, 3);
    ok(&[
        "mil",
        "fit",
        &p("bags.csv"),
        "--standardise",
        "--out",
        &p("mil.json"),
    ]);
    // Ranking model and classifier.
    let salad = salad();
    ok(&[
        "fit",
        &salad,
        "--ranking-col",
        "judge",
        "--model-out",
        &p("pl.json"),
    ]);
    let wine = common::data("uci").join("wine.csv");
    let wine = wine.to_str().unwrap();
    ok(&[
        "classify",
        "fit",
        wine,
        "--engine",
        "em",
        "--model-out",
        &p("cl.json"),
    ]);
    let read = |n: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join(n)).unwrap()).unwrap()
    };
    let mut variants: Vec<(String, String, serde_json::Value)> = Vec::new();
    for (file, kind) in [("mil.json", "mil"), ("pl.json", "pl"), ("cl.json", "cl")] {
        let m = read(file);
        for v in [1e308, -1e308, 0.0, 5e-324] {
            variants.push((
                format!("{file}: every float {v:e}"),
                kind.into(),
                every_float(&m, v),
            ));
        }
    }
    let mil = read("mil.json");
    let mut short = mil.clone();
    short["scaling"]["sd"][0].as_array_mut().unwrap().pop();
    variants.push(("mil.json: a scaling sd missing".into(), "mil".into(), short));
    let mut short = mil.clone();
    short["parameters"].as_array_mut().unwrap().pop();
    variants.push(("mil.json: a parameter missing".into(), "mil".into(), short));
    let mut mixed = read("pl.json");
    mixed["draws"]["data"] = serde_json::json!([1e308, -1e308, 0.0, 0.0]);
    variants.push(("pl.json: log-worths ±1e308".into(), "pl".into(), mixed));
    for (what, kind, doc) in variants {
        std::fs::write(d.join("t.json"), doc.to_string()).unwrap();
        let out = match kind.as_str() {
            "mil" => bin()
                .args(["mil", "predict", &p("t.json"), &p("bags.csv")])
                .output(),
            "pl" => bin()
                .args(then(
                    &["predict", &p("t.json"), &salad],
                    "--ranking-col judge --output csv",
                ))
                .output(),
            _ => bin()
                .args(["classify", "predict", "--model", &p("t.json"), wine])
                .output(),
        }
        .unwrap();
        refused_or_finite(&out, &what);
    }
}

/// Sizes a user controls, under a 2 GB address-space limit
/// (`ulimit -v 2000000`): each run ends with exit 0, 2 or 3 and one line —
/// never an abort (a failed allocation) or a panic.
#[test]
fn large_requests_under_a_memory_limit_end_with_an_error_not_an_abort() {
    let d = tmpdir("attacks-memory");
    // 12 instances (6 bags of 2) of 100,000 features in modality 0.
    let width = 100_000;
    let mut csv = String::from("bag,label,modality");
    for k in 0..width {
        csv.push_str(&format!(",m0_f{k}"));
    }
    csv.push('\n');
    for i in 0..12 {
        csv.push_str(&format!("b{},{},0", i / 2, (i / 2) % 2));
        for k in 0..width {
            csv.push_str(&format!(
                ",{}",
                ((i * 7919 + k * 104_729) % 1000) as f64 / 1000.0
            ));
        }
        csv.push('\n');
    }
    std::fs::write(d.join("wide.csv"), csv).unwrap();
    // 60,000 tokens over 12,000 distinct words.
    let words: Vec<String> = (0..12_000).map(|k| format!("w{k:05}x")).collect();
    let text: Vec<&str> = (0..60_000)
        .map(|t| words[(t * 7) % 12_000].as_str())
        .collect();
    std::fs::write(d.join("long.txt"), text.join(" ")).unwrap();
    let bin = env!("CARGO_BIN_EXE_plackett");
    let p = |n: &str| d.join(n).to_str().unwrap().to_string();
    let cases: [Vec<String>; 4] = [
        vec!["mil".into(), "fit".into(), p("wide.csv")],
        vec![
            "keywords".into(),
            "extract".into(),
            p("long.txt"),
            "--known".into(),
            "w00000x".into(),
            "--min-count".into(),
            "0".into(),
            "--word-filter".into(),
            "none".into(),
        ],
        vec![
            "simulate".into(),
            "--design".into(),
            "topk".into(),
            "--length".into(),
            "0".into(),
        ],
        vec![
            "simulate".into(),
            "--rankings".into(),
            "99999999".into(),
            "--out".into(),
            p("sim.json"),
        ],
    ];
    for args in cases {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2000000 && exec \"$0\" \"$@\"")
            .arg(bin)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 2 | 3)),
            "{args:?}: {:?} {err}",
            out.status
        );
        assert!(
            !err.contains("panicked") && !err.contains("memory allocation"),
            "{args:?}: {err}"
        );
        if out.status.code() != Some(0) {
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        }
    }
}

/// One vocabulary: `--model-out` and `--standardize` for `mil fit` as for
/// `fit`, the model file as the first argument of every predict (the older
/// spellings still work).
#[test]
fn one_spelling_for_one_idea() {
    let d = tmpdir("attacks-vocabulary");
    let p = |n: &str| d.join(n).to_str().unwrap().to_string();
    simulated_bags(&d, 2);
    ok(&[
        "mil",
        "fit",
        &p("bags.csv"),
        "--standardize",
        "--model-out",
        &p("m1.json"),
    ]);
    ok(&[
        "mil",
        "fit",
        &p("bags.csv"),
        "--standardise",
        "--out",
        &p("m2.json"),
    ]);
    assert_eq!(
        std::fs::read(p("m1.json")).unwrap(),
        std::fs::read(p("m2.json")).unwrap()
    );
    let wine = common::data("uci").join("wine.csv");
    let wine = wine.to_str().unwrap();
    ok(&[
        "classify",
        "fit",
        wine,
        "--engine",
        "em",
        "--model-out",
        &p("c.json"),
    ]);
    let new = bin()
        .args(["classify", "predict", &p("c.json"), wine])
        .output()
        .unwrap();
    let old = bin()
        .args(["classify", "predict", "--model", &p("c.json"), wine])
        .output()
        .unwrap();
    common::assert_ok(&new);
    assert_eq!(new.stdout, old.stdout);
}
