//! The family contract, checked over every family from the outside: each
//! `--output json` document opens with the envelope of
//! `plackett::document` (family, engine, converged, iterations,
//! n_observations, notes, diagnostics — in that order, with those types),
//! the families' names are distinct, a sampler's `converged` is its
//! documented R̂/ESS rule, and a document does not depend on the number of
//! threads.

use crate::common;
use crate::common::then;
use common::*;
use serde_json::Value;
use std::collections::BTreeSet;

const ENVELOPE: [&str; 7] = [
    "family",
    "engine",
    "converged",
    "iterations",
    "n_observations",
    "notes",
    "diagnostics",
];

/// A short Gibbs run (2 chains × 200 draws after 100 burn-in): enough to
/// produce a document, not to pass the mixing rule.
const SHORT_GIBBS: &[&str] = &[
    "--engine",
    "gibbs",
    "--samples",
    "200",
    "--burn-in",
    "100",
    "--chains",
    "2",
];

/// One small run per family (and per kind of engine: iterative and
/// sampler), with the family it must report.
fn runs(dir: &std::path::Path) -> Vec<(&'static str, Vec<String>)> {
    let d = |rel: &str| data(rel).to_string_lossy().into_owned();
    let salad = format!("{}/rankings.csv", d("salad"));
    let features = format!("{}/features.csv", d("salad"));
    let iris = format!("{}/iris.csv", d("uci"));
    let text = format!("{}/ranking_models.txt", d("text"));
    let bags = mil_bags(&dir, "bags.csv", 40, 4, 16);
    let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        ("ranking", v(&["fit", &salad, "--ranking-col", "judge"])),
        (
            "ranking",
            v(&then(
                &["fit", &salad],
                "--ranking-col judge --engine gibbs --samples 400 --burn-in 100",
            )),
        ),
        (
            "features",
            v(&[
                "fit",
                &salad,
                "--ranking-col",
                "judge",
                "--features",
                &features,
                "--standardize",
                "off",
            ]),
        ),
        (
            "mixture",
            v(&then(
                &["fit", &salad],
                "--ranking-col judge --components 2 --starts 3",
            )),
        ),
        (
            "adherence",
            v(&then(
                &["fit", &salad],
                "--ranking-col judge --ranker-col judge --adherence",
            )),
        ),
        (
            "classifier",
            v(&["classify", "fit", &iris, "--engine", "em"]),
        ),
        (
            "classifier",
            v(&[&["classify", "fit", &iris], SHORT_GIBBS].concat()),
        ),
        (
            "ground_truth",
            [vec!["aggregate".to_string()], dermatology_args("30", "100")].concat(),
        ),
        (
            "ground_truth",
            [
                vec!["evaluate".to_string()],
                dermatology_args("30", "100"),
                v(&["--predictions", "annotator:leave-one-out"]),
            ]
            .concat(),
        ),
        (
            "keywords",
            v(&[
                "keywords",
                "extract",
                &text,
                "--known",
                "Plackett-Luce, posterior, worth",
            ]),
        ),
        ("mil", v(&["mil", "fit", &bags])),
        ("mil", v(&[&["mil", "fit", &bags], SHORT_GIBBS].concat())),
    ]
}

fn document(args: &[String], threads: &str) -> Value {
    let out = bin()
        .args(args)
        .args(["--output", "json"])
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"))
}

/// The document without its wall-clock fields.
fn timeless(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with("seconds"))
                .map(|(k, v)| (k.clone(), timeless(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(timeless).collect()),
        x => x.clone(),
    }
}

#[test]
fn every_family_document_opens_with_the_envelope() {
    let dir = tmpdir("conformance");
    let mut families = BTreeSet::new();
    for (family, args) in runs(&dir) {
        let doc = document(&args, "2");
        let o = doc.as_object().unwrap();
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        assert_eq!(&keys[..7], &ENVELOPE, "{args:?}: keys {keys:?}");
        assert_eq!(doc["family"], family, "{args:?}");
        assert!(
            doc["engine"].as_str().is_some_and(|e| !e.is_empty()),
            "{args:?}"
        );
        assert!(doc["converged"].is_boolean(), "{args:?}");
        assert!(doc["iterations"].is_u64(), "{args:?}");
        assert!(
            doc["n_observations"].as_u64().is_some_and(|n| n > 0),
            "{args:?}"
        );
        assert!(
            doc["notes"]
                .as_array()
                .is_some_and(|n| n.iter().all(Value::is_string)),
            "{args:?}"
        );
        let diag = doc["diagnostics"]
            .as_object()
            .unwrap_or_else(|| panic!("{args:?}: diagnostics"));
        // A sampler's `converged` is its documented rule, thresholds shown.
        if let (Some(r), Some(e)) = (
            diag.get("rhat_max").and_then(Value::as_f64),
            diag.get("ess_min").and_then(Value::as_f64),
        ) {
            assert_eq!(diag["rhat_threshold"], 1.01, "{args:?}");
            assert_eq!(diag["ess_threshold"], 400.0, "{args:?}");
            assert_eq!(doc["converged"], r <= 1.01 && e >= 400.0, "{args:?}");
        }
        families.insert(family);
    }
    assert_eq!(families.len(), 8, "{families:?}");
}

#[test]
fn documents_do_not_depend_on_the_thread_count() {
    let dir = tmpdir("conformance-threads");
    for (_, args) in runs(&dir) {
        let one = timeless(&document(&args, "1"));
        let two = timeless(&document(&args, "2"));
        assert!(
            one == two,
            "{args:?}: the document changes with the thread count"
        );
    }
}
