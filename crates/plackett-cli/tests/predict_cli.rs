//! `plackett fit --model-out` and `plackett predict` (issue 17 item 14): a
//! saved model predicts new rankings, choices and pairs as the fit does.

mod common;

use common::{bin, data, fails, json, stdout, tmpdir};

fn fit(extra: &[&str]) -> std::process::Output {
    common::fit_salad(extra)
}

fn predict(model: &std::path::Path, extra: &[&str]) -> std::process::Output {
    bin()
        .arg("predict")
        .arg(model)
        .args([&common::salad(), "--ranking-col", "judge"])
        .args(extra)
        .output()
        .unwrap()
}

/// The MLE's saved model gives each ranking its plug-in PL probability,
/// computed here by hand from the saved log-worths (`λ_i / Σ_remaining λ`
/// stage by stage), and their sum is the fit's log-likelihood.
#[test]
fn a_saved_mle_predicts_plug_in_probabilities() {
    let dir = tmpdir("predict_mle");
    let model = dir.join("m.json");
    let f = json(&fit(&[
        "--model-out",
        model.to_str().unwrap(),
        "--output",
        "json",
    ]));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(m["format"], "plackett-model");
    let items: Vec<String> = m["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    let theta: Vec<f64> = m["draws"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let p = json(&predict(&model, &["--output", "json"]));
    let total = p["total_log_probability"].as_f64().unwrap();
    let ll = f["log_likelihood"].as_f64().unwrap();
    assert!((total - ll).abs() < 1e-9 * ll.abs(), "{total} vs {ll}");
    // The salad file: judge, item, rank rows; rebuild each ranking.
    let text = std::fs::read_to_string(common::salad()).unwrap();
    let mut rankings: Vec<(String, Vec<(u32, String)>)> = Vec::new();
    for line in text.lines().skip(1) {
        let v: Vec<&str> = line.split(',').collect();
        if rankings.last().is_none_or(|r| r.0 != v[0]) {
            rankings.push((v[0].to_string(), Vec::new()));
        }
        rankings
            .last_mut()
            .unwrap()
            .1
            .push((v[2].parse().unwrap(), v[1].to_string()));
    }
    let obs = p["observations"].as_array().unwrap();
    assert_eq!(obs.len(), rankings.len());
    for (o, (_, r)) in obs.iter().zip(&mut rankings) {
        r.sort();
        let lam: Vec<f64> = r
            .iter()
            .map(|(_, n)| theta[items.iter().position(|x| x == n).unwrap()].exp())
            .collect();
        let mut lp = 0.0;
        for s in 0..lam.len() - 1 {
            lp += (lam[s] / lam[s..].iter().sum::<f64>()).ln();
        }
        let got = o["log_probability"].as_f64().unwrap();
        assert!((got - lp).abs() < 1e-12, "{got} vs {lp}");
        assert!((o["probability"].as_f64().unwrap() - lp.exp()).abs() < 1e-14);
    }
    // Choice probabilities and pairs from the model equal the fit's.
    let fc = json(&fit(&[
        "--compare",
        "A,B,C",
        "--compare",
        "D,B",
        "--output",
        "json",
    ]));
    let pc = json(&predict(
        &model,
        &["--compare", "A,B,C", "--compare", "D,B", "--output", "json"],
    ));
    for k in 0..3 {
        let (a, b) = (
            fc["choices"][0]["items"][k]["probability"]
                .as_f64()
                .unwrap(),
            pc["choices"][0]["items"][k]["probability"]
                .as_f64()
                .unwrap(),
        );
        assert!((a - b).abs() < 1e-12);
    }
    let (a, b) = (
        fc["comparisons"][0]["probability"].as_f64().unwrap(),
        pc["comparisons"][0]["probability"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-12);
    let table = stdout(&predict(&model, &[]));
    assert!(table.contains("plug-in at the estimate"), "{table}");
}

/// A Gibbs model's predictions are posterior predictive means: on the
/// same data its total is the fit's own `--test` predictive
/// log-likelihood (same draws: 4 × 250, under the 4,000 a model keeps).
#[test]
fn a_saved_posterior_predicts_like_fit_test() {
    let dir = tmpdir("predict_gibbs");
    let model = dir.join("g.json");
    let args = ["--engine", "gibbs", "--samples", "250", "--seed", "3"];
    let mut with_model = args.to_vec();
    with_model.extend(["--model-out", model.to_str().unwrap()]);
    common::assert_ok(&fit(&with_model));
    let mut with_test = args.to_vec();
    let s = common::salad();
    with_test.extend(["--test", &s, "--output", "json"]);
    let f = json(&fit(&with_test));
    let p = json(&predict(&model, &["--output", "json"]));
    assert_eq!(p["draws"], 1000);
    let (a, b) = (
        p["total_log_probability"].as_f64().unwrap(),
        f["predictive_log_likelihood"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-9 * b.abs(), "{a} vs {b}");
}

#[test]
fn predict_refuses_bad_models_and_data() {
    let dir = tmpdir("predict_bad");
    let model = dir.join("m.json");
    common::assert_ok(&fit(&["--model-out", model.to_str().unwrap()]));
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"format":"x"}"#).unwrap();
    fails(&predict(&bad, &[]), "not a plackett model file");
    let torn = dir.join("torn.json");
    std::fs::write(
        &torn,
        r#"{"format":"plackett-model","version":1,"engine":"mle","items":["A","B","C","D"],"draws":{"n_items":4,"n_chains":1,"per_chain":2,"data":[0,0,0,0]}}"#,
    )
    .unwrap();
    fails(&predict(&torn, &[]), "do not match its items");
    let z = dir.join("z.csv");
    std::fs::write(&z, "judge,item,rank\n1,A,1\n1,Z,2\n").unwrap();
    fails(
        &bin()
            .arg("predict")
            .arg(&model)
            .arg(&z)
            .args(["--ranking-col", "judge"])
            .output()
            .unwrap(),
        "is not an item of the model",
    );
    // Not yet supported: nothing written.
    let m2 = dir.join("m2.json");
    let pud = data("pudding").join("pairs.csv");
    fails(
        &bin()
            .arg("fit")
            .arg(&pud)
            .args([
                "--format",
                "pairs",
                "--ties",
                "event",
                "--model-out",
                m2.to_str().unwrap(),
            ])
            .output()
            .unwrap(),
        "not yet supported",
    );
    fails(
        &fit(&["--components", "2", "--model-out", m2.to_str().unwrap()]),
        "--model-out",
    );
    assert!(!m2.exists());
}
