//! `plackett fit --adherence`: the adherence model end to end.

use crate::common;
use crate::common::then;

use common::{assert_ok, bin, fails, json, log_worth, tmpdir};

fn run(args: &[&str]) -> std::process::Output {
    bin().arg("fit").args(args).output().unwrap()
}

/// PlackettLuce's "fake triples" (test-adherence.R) as a long CSV; with
/// `rankers`, rankings 2k−1 and 2k share ranker "judge k".
fn fake_triples(dir: &std::path::Path, rankers: bool) -> String {
    let rows: [&[&str]; 8] = [
        &["apple", "banana", "orange"],
        &["banana", "orange", "pear"],
        &["banana", "apple", "pear"],
        &["apple", "banana", "orange"],
        &["orange", "apple", "pear"],
        &["apple", "pear", "orange"],
        &["apple", "banana"],
        &["banana", "orange"],
    ];
    let mut s = String::from(if rankers {
        "ranking,item,rank,ranker\n"
    } else {
        "ranking,item,rank\n"
    });
    for (k, r) in rows.iter().enumerate() {
        for (p, item) in r.iter().enumerate() {
            s.push_str(&format!("{},{item},{}", k + 1, p + 1));
            if rankers {
                s.push_str(&format!(",judge {}", k / 2 + 1));
            }
            s.push('\n');
        }
    }
    let p = dir.join(if rankers {
        "grouped.csv"
    } else {
        "triples.csv"
    });
    std::fs::write(&p, s).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn plackettluce_reference_fit_and_json_contract() {
    let d = tmpdir("adherence-json");
    let f = fake_triples(&d, false);
    let v = json(&run(&then(
        &[&f],
        "--adherence --adherence-shape 100 --adherence-rate 100 --pseudo 0.5 --output json",
    )));
    assert_eq!(v["model"], "adherence");
    assert_eq!(v["engine"], "mle");
    // PlackettLuce's printed log-posterior −810.73244092 (ours is the
    // exact maximum, 1.9e-7 higher).
    let lp = v["log_posterior"].as_f64().unwrap();
    assert!((lp - -810.73244092).abs() < 1e-6, "{lp}");
    let rankers = v["rankers"].as_array().unwrap();
    assert_eq!(rankers.len(), 8);
    assert!((rankers[4]["adherence"].as_f64().unwrap() - 0.97604704).abs() < 5e-5);
    let items = v["items"].as_array().unwrap();
    assert_eq!(items[0]["name"], "apple");
    let total: f64 = items.iter().map(|i| i["worth"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-12);
    assert_eq!(v["adherence_prior"], serde_json::json!([100.0, 100.0]));
}

#[test]
fn ranker_column_groups_rankings() {
    let d = tmpdir("adherence-grouped");
    let f = fake_triples(&d, true);
    let v = json(&run(&then(&[&f], "--adherence --pseudo 0.5 --output json")));
    let rankers = v["rankers"].as_array().unwrap();
    assert_eq!(rankers.len(), 4);
    assert_eq!(rankers[0]["name"], "judge 1");
    assert_eq!(rankers[0]["observations"].as_f64(), Some(2.0));
    // Fixed adherence 1 everywhere is the ordinary fit's log-likelihood.
    let fixed = json(&run(&then(
        &[&f],
        "--adherence --fixed-adherence 1,1,1,1 --output json",
    )));
    let plain = json(&run(&[&f, "--output", "json"]));
    let (a, b) = (
        fixed["log_likelihood"].as_f64().unwrap(),
        plain["log_likelihood"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-8, "{a} vs {b}");
}

#[test]
fn bad_adherence_input_is_a_one_line_error() {
    let d = tmpdir("adherence-bad");
    let f = fake_triples(&d, true);
    let mixed = d.join("mixed.csv");
    std::fs::write(
        &mixed,
        "ranking,item,rank,ranker\n1,a,1,x\n1,b,2,y\n2,a,1,x\n2,b,2,x\n",
    )
    .unwrap();
    let mixed = mixed.to_string_lossy().into_owned();
    fails(&run(&[&mixed, "--adherence"]), "mixed.csv:3");
    fails(
        &run(&[&f, "--adherence", "--adherence-shape", "0.5"]),
        "at least 1",
    );
    fails(
        &run(&[&f, "--adherence", "--adherence-rate", "0"]),
        "positive",
    );
    fails(
        &run(&[&f, "--adherence", "--adherence-rate", "nan"]),
        "positive",
    );
    fails(
        &run(&[&f, "--adherence", "--engine", "ep"]),
        "not supported",
    );
    fails(
        &run(&then(
            &[&f],
            "--adherence --engine gibbs --fixed-adherence 1,1,1,1",
        )),
        "not supported",
    );
    fails(
        &run(&[&f, "--adherence-shape", "3"]),
        "only with --adherence",
    );
    fails(
        &run(&[&f, "--adherence", "--fixed-adherence", "1,2"]),
        "4 rankers",
    );
    fails(
        &run(&[&f, "--adherence", "--fixed-adherence", "1,2,x,1"]),
        "not a number",
    );
    fails(
        &run(&[&f, "--adherence", "--fixed-adherence", "1,2,-1,1"]),
        "positive",
    );
    fails(
        &run(&[&f, "--adherence", "--components", "2"]),
        "not supported",
    );
    fails(
        &run(&[&f, "--adherence", "--samples", "10"]),
        "only with --engine gibbs",
    );
    fails(
        &run(&then(&[&f], "--adherence --engine gibbs --samples 2")),
        "samples",
    );
}

/// `--engine gibbs` samples the adherence posterior: posterior means, sds
/// and 90% intervals for every item and ranker, the sampler's diagnostics,
/// the same output for the same seed, CSV with the sd columns.
#[test]
fn adherence_posterior_sampler_end_to_end() {
    let d = tmpdir("adherence-gibbs");
    let f = fake_triples(&d, true);
    let args = then(
        &[f.as_str()],
        "--adherence --engine gibbs --samples 1500 --burn-in 300 --seed 3 --output json",
    );
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["engine"], "gibbs");
    let diag = &v["diagnostics"];
    assert_eq!(diag["chains"], 4);
    assert!(diag["rhat_max"].as_f64().unwrap() < 1.05, "{diag}");
    for it in v["items"].as_array().unwrap() {
        let sd = it["log_worth_sd"].as_f64().unwrap();
        let q = it["log_worth_interval"].as_array().unwrap();
        let m = it["log_worth"].as_f64().unwrap();
        assert!(sd > 0.0 && q[0].as_f64().unwrap() < m && m < q[1].as_f64().unwrap());
    }
    let rankers = v["rankers"].as_array().unwrap();
    assert_eq!(rankers.len(), 4);
    for r in rankers {
        let a = r["adherence"].as_f64().unwrap();
        assert!(a > 0.0 && r["adherence_sd"].as_f64().unwrap() > 0.0);
    }
    // Deterministic for a seed.
    let again = json(&run(&args));
    assert_eq!(v, again);
    let mut csv_args = args.to_vec();
    *csv_args.last_mut().unwrap() = "csv";
    let out = run(&csv_args);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("kind,name,worth,log_worth,adherence,sd,q05,q95"),
        "{text}"
    );
}

fn predict(args: &[&str]) -> std::process::Output {
    bin().arg("predict").args(args).output().unwrap()
}

/// `fit --adherence --model-out` and `plackett predict`: the model's own
/// rankers are predicted at their adherence (the predictions' total is the
/// fit's log-likelihood; fixed unit adherences give ordinary
/// Plackett–Luce), a new ranker's adherence is integrated over the prior
/// (a pair's probability against Simpson's rule over the Gamma density),
/// and what cannot be predicted is a one-line error.
#[test]
fn adherence_model_file_predicts_rankers_and_new_rankers() {
    let d = tmpdir("adherence-model");
    let grouped = fake_triples(&d, true);
    let plain = fake_triples(&d, false);
    let model = d.join("model.json").to_string_lossy().into_owned();
    let out = run(&[
        &grouped,
        "--adherence",
        "--output",
        "json",
        "--model-out",
        &model,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fit = json(&out);
    let p = predict(&[&model, &grouped, "--output", "json"]);
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    let pj = json(&p);
    assert_eq!(pj["model"], "adherence");
    assert_eq!(pj["new_ranker_observations"], 0);
    let total = pj["total_log_probability"].as_f64().unwrap();
    let ll = fit["log_likelihood"].as_f64().unwrap();
    assert!((total - ll).abs() < 1e-9, "{total} against {ll}");

    // New rankers (no ranker column): P(apple beats pear) is
    // E σ(η (θ_apple − θ_pear)) under η ~ Gamma(10, 10).
    let p = predict(&then(
        &[&model, &plain],
        "--compare apple,pear --output json",
    ));
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    let pj = json(&p);
    assert_eq!(pj["new_ranker_observations"], 8);
    let lw = |name: &str| log_worth(&fit, name);
    let gap = lw("apple") - lw("pear");
    let (a, b) = (10.0f64, 10.0f64);
    let ln_norm = a * b.ln() - ln_gamma(a);
    let f = |eta: f64| {
        if eta <= 0.0 {
            return 0.0;
        }
        let density = (ln_norm + (a - 1.0) * eta.ln() - b * eta).exp();
        density / (1.0 + (-eta * gap).exp())
    };
    let (n, upper) = (20_000, 8.0);
    let h = upper / n as f64;
    let mut s = f(0.0) + f(upper);
    for k in 1..n {
        s += f(k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
    }
    let reference = s * h / 3.0;
    let got = pj["comparisons"][0]["probability"].as_f64().unwrap();
    assert!((got - reference).abs() < 1e-9, "{got} against {reference}");

    // Fixed unit adherences are ordinary Plackett-Luce; they have no prior
    // for a new ranker.
    let fixed = d.join("fixed.json").to_string_lossy().into_owned();
    let out = run(&[
        &grouped,
        "--adherence",
        "--fixed-adherence",
        "1,1,1,1",
        "--model-out",
        &fixed,
    ]);
    assert!(out.status.success());
    let pl = json(&run(&[&grouped, "--output", "json"]));
    let p = json(&predict(&[&fixed, &grouped, "--output", "json"]));
    let (t, l) = (
        p["total_log_probability"].as_f64().unwrap(),
        pl["log_likelihood"].as_f64().unwrap(),
    );
    assert!((t - l).abs() < 1e-7, "{t} against {l}");
    fails(
        &predict(&[&fixed, &plain]),
        "no prior for a ranker it has not seen",
    );
    fails(
        &predict(&[&fixed, &grouped, "--compare", "apple,pear"]),
        "no prior for a ranker it has not seen",
    );
    let p = predict(&[
        &fixed,
        &grouped,
        "--compare",
        "apple,pear",
        "--as-ranker",
        "judge 3",
    ]);
    assert!(p.status.success());
    fails(
        &predict(&[&model, &grouped, "--as-ranker", "judge 9"]),
        "not a ranker of the model",
    );

    // --as-ranker belongs to adherence models; a broken model file is named.
    let single = d.join("single.json").to_string_lossy().into_owned();
    assert!(run(&[&grouped, "--model-out", &single]).status.success());
    fails(
        &predict(&[&single, &grouped, "--as-ranker", "judge 1"]),
        "only with a model saved by fit --adherence",
    );
    let text = std::fs::read_to_string(&model).unwrap();
    let bad = d.join("bad.json");
    std::fs::write(
        &bad,
        text.replace("\"prior\":[10.0,10.0]", "\"prior\":[0.5,10.0]"),
    )
    .unwrap();
    let bad = bad.to_string_lossy().into_owned();
    fails(&predict(&[&bad, &grouped]), "bad.json");
}

/// `ln Γ(x)` for the test's reference integral (Stirling's series with
/// the recurrence up to x ≥ 10; within 1e-13 for x ≥ 1).
fn ln_gamma(x: f64) -> f64 {
    let (mut x, mut shift) = (x, 0.0);
    while x < 10.0 {
        shift -= x.ln();
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    shift + (x - 0.5) * x.ln() - x
        + 0.5 * (2.0 * std::f64::consts::PI).ln()
        + inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0)))
}

/// `--report` with `--adherence`: a self-contained page with the worths,
/// every ranker's adherence (90% intervals from the sampler) and the
/// adherence-against-rankings chart; nothing written when the run fails.
#[test]
fn adherence_html_report() {
    let d = tmpdir("adherence-report");
    let f = fake_triples(&d, true);
    for (engine, interval) in [("map", false), ("gibbs", true)] {
        let page = d.join(format!("{engine}.html"));
        let mut args = vec![
            f.as_str(),
            "--adherence",
            "--engine",
            engine,
            "--report",
            page.to_str().unwrap(),
            "--output",
            "json",
        ];
        if interval {
            args.extend(["--samples", "400", "--burn-in", "100"]);
        }
        let out = run(&args);
        assert_ok(&out);
        let v = json(&out);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.contains("<script"), "self-contained, no scripts");
        assert!(html.contains("Adherence of each ranker"));
        // Worths and adherences; every judge gave two rankings, so no
        // adherence-against-rankings chart (the unit tests draw one).
        assert_eq!(html.matches("<svg").count(), 2, "{engine}");
        // Every ranker and item named on the page, the least adherent in the table.
        for r in v["rankers"].as_array().unwrap() {
            assert!(html.contains(r["name"].as_str().unwrap()));
        }
        for it in v["items"].as_array().unwrap() {
            assert!(html.contains(it["name"].as_str().unwrap()));
        }
        assert_eq!(html.contains("90% posterior intervals"), interval);
        assert_eq!(html.contains("max split-R̂"), interval);
    }
    let page = d.join("not.html");
    fails(
        &run(&[
            &f,
            "--adherence",
            "--report",
            page.to_str().unwrap(),
            "--out",
            d.join("no/such/dir/x.json").to_str().unwrap(),
        ]),
        "x.json",
    );
    assert!(!page.exists());
}

/// `fit --adherence --compare` answers for a new ranker (adherence
/// integrated over its prior): the same numbers as `predict --compare` on
/// the saved model, pairs and first choices, for the MAP and the sampler;
/// refused with fixed adherences (no prior) and with CSV output.
#[test]
fn fit_compare_is_a_new_rankers_prediction() {
    let d = tmpdir("adherence-compare");
    let grouped = fake_triples(&d, true);
    for extra in [
        &[][..],
        &["--engine", "gibbs", "--samples", "400", "--burn-in", "100"][..],
    ] {
        let model = d.join("m.json").to_string_lossy().into_owned();
        let mut args = vec![
            grouped.as_str(),
            "--adherence",
            "--compare",
            "apple,pear",
            "--compare",
            "apple,banana,orange",
            "--model-out",
            &model,
            "--output",
            "json",
        ];
        args.extend(extra);
        let out = run(&args);
        assert_ok(&out);
        let fit = json(&out);
        let p = predict(&then(
            &[&model, &grouped],
            "--compare apple,pear --compare apple,banana,orange --output json",
        ));
        assert_ok(&p);
        let pj = json(&p);
        assert_eq!(fit["comparisons"], pj["comparisons"], "{extra:?}");
        assert_eq!(fit["choices"], pj["choices"], "{extra:?}");
        let pr = fit["comparisons"][0]["probability"].as_f64().unwrap();
        assert!(pr > 0.5 && pr < 1.0, "{pr}");
        // The table says whose choices these are.
        args.retain(|x| *x != "json" && *x != "--output");
        let text = String::from_utf8(run(&args).stdout).unwrap();
        assert!(text.contains("as a new ranker would choose"), "{text}");
        assert!(text.contains("P(apple beats pear) = "), "{text}");
    }
    // Without --compare the JSON has no comparison keys (contract unchanged).
    let plain = json(&run(&[&grouped, "--adherence", "--output", "json"]));
    assert!(plain.get("comparisons").is_none() && plain.get("choices").is_none());
    fails(
        &run(&then(
            &[&grouped],
            "--adherence --fixed-adherence 1,1,1,1 --compare apple,pear",
        )),
        "no prior for a new ranker",
    );
    fails(
        &run(&then(
            &[&grouped],
            "--adherence --compare apple,pear --output csv",
        )),
        "not with --output csv",
    );
    fails(
        &run(&[&grouped, "--adherence", "--compare", "apple,kiwi"]),
        "kiwi",
    );
}

/// `fit --adherence --rank-marginals`: a new ranker's places (adherence
/// drawn from the prior in every race); rows and columns sum to 1, the
/// first place is the new ranker's first choice from all items (--compare
/// in the same run) within Monte Carlo error, the same file for a seed;
/// refused with fixed adherences.
#[test]
fn fit_rank_marginals_are_a_new_rankers_places() {
    let d = tmpdir("adherence-places");
    let grouped = fake_triples(&d, true);
    for extra in [&[][..], &["--engine", "gibbs", "--samples", "400"][..]] {
        let csv_path = d.join("rm.csv").to_string_lossy().into_owned();
        let mut args = vec![
            grouped.as_str(),
            "--adherence",
            "--rank-marginals",
            &csv_path,
            "--compare",
            "apple,banana,orange,pear",
            "--output",
            "json",
        ];
        args.extend(extra);
        let out = run(&args);
        assert_ok(&out);
        let first = std::fs::read_to_string(&csv_path).unwrap();
        let v = json(&out);
        let lines: Vec<&str> = first.lines().collect();
        assert_eq!(lines[0], "item,place_1,place_2,place_3,place_4");
        let rows: Vec<(String, Vec<f64>)> = lines[1..]
            .iter()
            .map(|l| {
                let mut f = l.split(',');
                let name = f.next().unwrap().to_string();
                (name, f.map(|x| x.parse().unwrap()).collect())
            })
            .collect();
        assert_eq!(rows.len(), 4);
        for (name, row) in &rows {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{row:?}");
            let exact = v["choices"][0]["items"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["name"] == name.as_str())
                .unwrap()["probability"]
                .as_f64()
                .unwrap();
            // sd of a share of 20,000 races is at most 0.0036.
            assert!(
                (row[0] - exact).abs() < 0.015,
                "{extra:?} {name}: {} against {exact}",
                row[0]
            );
        }
        for p in 0..4 {
            let col: f64 = rows.iter().map(|(_, r)| r[p]).sum();
            assert!((col - 1.0).abs() < 1e-9);
        }
        assert_ok(&run(&args));
        assert_eq!(std::fs::read_to_string(&csv_path).unwrap(), first);
    }
    let never = d.join("never.csv");
    fails(
        &run(&[
            &grouped,
            "--adherence",
            "--fixed-adherence",
            "1,1,1,1",
            "--rank-marginals",
            never.to_str().unwrap(),
        ]),
        "no prior for a new ranker",
    );
    assert!(!never.exists());
}

/// The adherence report carries the data notes every other fit carries:
/// observations dropped, and groups of items never compared (with a worth
/// prior, their contrasts come from it alone).
#[test]
fn adherence_reports_carry_the_data_notes() {
    let d = tmpdir("adherence-notes");
    let p = d.join("two_groups.csv");
    std::fs::write(
        &p,
        "ranking,item,rank\n1,a,1\n1,b,2\n2,b,1\n2,a,2\n3,c,1\n3,d,2\n4,d,1\n4,c,2\n5,a,1\n5,b,2\n\
         6,c,1\n6,d,2\n7,a,1\n",
    )
    .unwrap();
    let v = json(&run(&then(
        &[p.to_str().unwrap()],
        "--adherence --engine map --output json",
    )));
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("1 uninformative observation was dropped"),
        "{notes}"
    );
    assert!(
        notes.contains(
            "the items fall into 2 groups never compared with each other (sizes 2, 2): worth \
             contrasts between groups come from the prior alone"
        ),
        "{notes}"
    );
}

/// A model file naming one ranker twice is refused: rankers are found by
/// name, so one of the two could never be reached.
#[test]
fn a_model_with_a_ranker_named_twice_is_refused() {
    let d = tmpdir("adherence-twice");
    let grouped = fake_triples(&d, true);
    let model = d.join("model.json").to_string_lossy().into_owned();
    assert_ok(&run(&[&grouped, "--adherence", "--model-out", &model]));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let first = v["rankers"][0].clone();
    v["rankers"][1] = first;
    std::fs::write(&model, v.to_string()).unwrap();
    fails(&predict(&[&model, &grouped]), "appears twice");
}
