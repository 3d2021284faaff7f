//! `plackett fit --model-out` and `plackett predict` (issue 17 item 14): a
//! saved model predicts new rankings, choices and pairs as the fit does.

use crate::common;
use crate::common::then;
use crate::common::words;

use common::{bin, data, fails, json, stdout, tmpdir};

fn fit(extra: &[&str]) -> std::process::Output {
    common::fit_salad(extra)
}

/// The `items` of a model file.
fn item_names(m: &serde_json::Value) -> Vec<&str> {
    m["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect()
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
}

/// A model of ties as events (Davidson–Luce) is saved with its tie
/// prevalence and predicts under Davidson's (1970) formulas, computed here
/// by hand from the saved worths and δ: a decided pair `λ_i / (λ_i + λ_j +
/// δ√(λ_iλ_j))`, a tie `δ√(λ_iλ_j) / (…)`. On the training data the total
/// is the fit's log-likelihood, and `fit --test` and `--compare` agree.
#[test]
fn a_saved_model_of_ties_as_events_predicts_under_davidson_luce() {
    let dir = tmpdir("predict_davidson");
    let model = dir.join("d.json");
    let pud = data("pudding").join("pairs.csv");
    let pud = pud.to_str().unwrap();
    let flags = ["--format", "pairs", "--ties", "event"];
    let f = json(
        &bin()
            .args(["fit", pud])
            .args(flags)
            .args(["--model-out", model.to_str().unwrap(), "--test", pud])
            .args(words("--compare 1,2 --compare 1,2,3 --output json"))
            .output()
            .unwrap(),
    );
    let ll = f["log_likelihood"].as_f64().unwrap();
    let test = f["predictive_log_likelihood"].as_f64().unwrap();
    assert!((test - ll).abs() < 1e-9 * ll.abs(), "{test} vs {ll}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(m["version"], 2);
    let delta = m["ties"][0]["delta"].as_f64().unwrap();
    assert_eq!(m["ties"][0]["order"], 2);
    assert!((delta - 0.746823).abs() < 1e-6, "{delta}");
    let items = item_names(&m);
    let lam = |name: &str| -> f64 {
        let k = items.iter().position(|&x| x == name).unwrap();
        m["draws"]["data"][k].as_f64().unwrap().exp()
    };
    let davidson = |a: &str, b: &str| -> (f64, f64) {
        let (la, lb) = (lam(a), lam(b));
        let den = la + lb + delta * (la * lb).sqrt();
        (la / den, delta * (la * lb).sqrt() / den)
    };
    let (win, tie) = davidson("1", "2");
    let c = &f["comparisons"][0];
    assert!((c["probability"].as_f64().unwrap() - win).abs() < 1e-12);
    assert!((c["tie_probability"].as_f64().unwrap() - tie).abs() < 1e-12);
    let ch = &f["choices"][0];
    let alone: f64 = (0..3)
        .map(|a| ch["items"][a]["probability"].as_f64().unwrap())
        .sum();
    assert!((alone + ch["tie_probability"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    // predict: every pair row of the file, by hand.
    let p = json(
        &bin()
            .args(["predict", model.to_str().unwrap(), pud])
            .args(flags)
            .args(words("--compare 1,2 --output json"))
            .output()
            .unwrap(),
    );
    let total = p["total_log_probability"].as_f64().unwrap();
    assert!((total - ll).abs() < 1e-9 * ll.abs(), "{total} vs {ll}");
    assert_eq!(p["comparisons"][0], f["comparisons"][0]);
    let text = std::fs::read_to_string(pud).unwrap();
    let obs = p["observations"].as_array().unwrap();
    let mut o = 0;
    for line in text.lines().skip(1) {
        let v: Vec<&str> = line.split(',').collect();
        let (a, b) = (v[0], v[1]);
        let (w_ab, t_ab) = davidson(a, b);
        let (w_ba, _) = davidson(b, a);
        for (count, prob) in [(v[3], w_ab), (v[4], w_ba), (v[5], t_ab)] {
            if count.parse::<f64>().unwrap() == 0.0 {
                continue;
            }
            let got = obs[o]["probability"].as_f64().unwrap();
            assert!((got - prob).abs() < 1e-12, "{a} {b}: {got} vs {prob}");
            o += 1;
        }
    }
    assert_eq!(o, obs.len());
    // Data the model gives no probability, or reads otherwise: refused in
    // one line naming the file, nothing written.
    let out = dir.join("p.json");
    let predict_to = |file: &str, extra: &[&str]| {
        bin()
            .args(["predict", model.to_str().unwrap(), file])
            .args(extra)
            .args(["--out", out.to_str().unwrap()])
            .output()
            .unwrap()
    };
    fails(&predict_to(pud, &["--format", "pairs"]), "--ties event");
    let three = dir.join("three.csv");
    std::fs::write(&three, "r,i,p\n1,1,1\n1,2,1\n1,3,1\n").unwrap();
    let three = three.to_str().unwrap();
    let cols = ["--ranking-col", "r", "--item-col", "i", "--rank-col", "p"];
    let mut with_event = cols.to_vec();
    with_event.extend(["--ties", "event"]);
    fails(&predict_to(three, &with_event), "a tie of 3 items");
    assert!(!out.exists());
    // A Plackett–Luce model cannot predict ties as events.
    let pl = dir.join("pl.json");
    common::assert_ok(&fit(&["--model-out", pl.to_str().unwrap()]));
    let salad_tie = dir.join("salad_tie.csv");
    std::fs::write(&salad_tie, "judge,item,rank\n1,A,1\n1,B,1\n1,C,2\n").unwrap();
    fails(
        &bin()
            .args(["predict", pl.to_str().unwrap(), salad_tie.to_str().unwrap()])
            .args(words("--ranking-col judge --ties event"))
            .output()
            .unwrap(),
        "no tie prevalences",
    );
    // Rank marginals of rankings with ties: every item has one place, and
    // the first place holds on average 1 + P(the first choice is a tie)
    // items (only pairs tie here), which --compare over all six gives
    // exactly (Davidson-Luce's first stage) and the races by simulation.
    let rm = dir.join("rm.csv");
    let out = bin()
        .args(["fit", pud])
        .args(flags)
        .args(["--rank-marginals", rm.to_str().unwrap()])
        .args(words("--compare 1,2,3,4,5,6 --output json"))
        .output()
        .unwrap();
    common::assert_ok(&out);
    let js: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first_tie = js["choices"][0]["tie_probability"].as_f64().unwrap();
    let text = std::fs::read_to_string(&rm).unwrap();
    let rows: Vec<Vec<f64>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').skip(1).map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 6);
    for r in &rows {
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{r:?}");
    }
    let at_first: f64 = rows.iter().map(|r| r[0]).sum();
    // 20,000 rankings: the sd of the tie's frequency is below 0.0036.
    assert!(first_tie > 0.1, "{first_tie}");
    assert!(
        (at_first - 1.0 - first_tie).abs() < 0.018,
        "{at_first} vs 1 + {first_tie}"
    );
    // A version-2 file without its ties, or with a bad delta, is refused.
    let text = std::fs::read_to_string(&model).unwrap();
    for (what, from, to) in [
        ("torn", r#""version":2"#, r#""version":1"#),
        ("negative", &format!("{delta}"), "-0.5"),
    ] {
        let bad = dir.join(format!("{what}.json"));
        let t = text.replacen(from, to, 1);
        assert_ne!(t, text, "{what}");
        std::fs::write(&bad, t).unwrap();
        fails(
            &bin()
                .args(["predict", bad.to_str().unwrap(), pud])
                .args(flags)
                .output()
                .unwrap(),
            "tie prevalence",
        );
    }
}

/// A finite mixture (Mollica & Tardella 2017) is saved with its weights
/// and components and predicts `Σ_g ω_g PL(o | λ_g)` — by hand here for
/// the first ranking from the saved numbers — with each new observation's
/// membership `P(g | o)`: on the training data the total is `fit --test`'s
/// and the memberships are the fit's own.
#[test]
fn a_saved_mixture_predicts_and_assigns_new_rankings() {
    let dir = tmpdir("predict_mixture");
    let model = dir.join("mx.json");
    let salad = common::salad();
    let f = json(&fit(&then(
        &[
            "--components",
            "2",
            "--model-out",
            model.to_str().unwrap(),
            "--test",
            &salad,
        ],
        "--compare A,B --output json",
    )));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(m["format"], "plackett-mixture-model");
    let p = json(&predict(&model, &["--compare", "A,B", "--output", "json"]));
    let total = p["total_log_probability"].as_f64().unwrap();
    let test = f["predictive_log_likelihood"].as_f64().unwrap();
    assert!(
        (total - test).abs() < 1e-9 * test.abs(),
        "{total} vs {test}"
    );
    assert_eq!(p["components"], 2);
    let (got, want) = (
        p["observations"].as_array().unwrap(),
        f["membership"].as_array().unwrap(),
    );
    assert_eq!(got.len(), want.len());
    for (o, w) in got.iter().zip(want) {
        for g in 0..2 {
            let (a, b) = (o["membership"][g].as_f64().unwrap(), w[g].as_f64().unwrap());
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
    }
    let pc = p["comparisons"][0]["probability"].as_f64().unwrap();
    let fc = f["comparisons"][0]["probability"].as_f64().unwrap();
    assert!((pc - fc).abs() < 1e-12, "{pc} vs {fc}");
    // The first judge's ranking, by hand: Σ_g ω_g Π_stages λ_g,i / Σ_rest λ_g.
    let text = std::fs::read_to_string(&salad).unwrap();
    let first: Vec<(u32, String)> = {
        let mut rows: Vec<(u32, String)> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .take_while(|v| v[0] == text.lines().nth(1).unwrap().split(',').next().unwrap())
            .map(|v| (v[2].parse().unwrap(), v[1].to_string()))
            .collect();
        rows.sort();
        rows
    };
    let items = item_names(&m);
    let mut prob = 0.0;
    for g in 0..2 {
        let w = m["weights"][g].as_f64().unwrap();
        let lam = |name: &str| {
            let k = items.iter().position(|&x| x == name).unwrap();
            m["log_worths"][g][k].as_f64().unwrap().exp()
        };
        let mut pg = 1.0;
        for s in 0..first.len() {
            let rest: f64 = first[s..].iter().map(|(_, n)| lam(n)).sum();
            pg *= lam(&first[s].1) / rest;
        }
        prob += w * pg;
    }
    let p0 = got[0]["probability"].as_f64().unwrap();
    assert!((p0 - prob).abs() < 1e-12 * prob, "{p0} vs {prob}");
    // Damaged mixture files: one line naming the file.
    let good = std::fs::read_to_string(&model).unwrap();
    let w0 = format!("{}", m["weights"][0].as_f64().unwrap());
    for (what, from, to, needle) in [
        ("weights", w0.as_str(), "0.9", "sum to 1"),
        ("width", "]]", ",1.0]]", "component 2 needs 4"),
        (
            "format",
            "plackett-mixture-model",
            "plackett-mixture-modell",
            "not a plackett model",
        ),
    ] {
        let bad = dir.join(format!("{what}.json"));
        let t = good.replacen(from, to, 1);
        assert_ne!(t, good, "{what}");
        std::fs::write(&bad, t).unwrap();
        fails(&predict(&bad, &[]), needle);
    }
    // Ranker adherence writes its own kind of model file
    // (adherence_cli.rs tests its predictions).
    let ad = dir.join("ad.json");
    assert!(
        fit(&["--adherence", "--model-out", ad.to_str().unwrap()])
            .status
            .success()
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ad).unwrap()).unwrap();
    assert_eq!(m["format"], "plackett-adherence-model");
}

/// A model file handed to another family's reader is named for what it is
/// and which command reads it, whichever of the three readers gets it.
#[test]
fn a_model_file_of_another_kind_says_which_command_reads_it() {
    let dir = tmpdir("predict-other-kind");
    let pl = dir.join("pl.json");
    common::assert_ok(&fit(&["--model-out", pl.to_str().unwrap()]));
    let cl = dir.join("cl.json");
    common::assert_ok(
        &bin()
            .args(["classify", "fit"])
            .arg(data("uci").join("iris.csv"))
            .args(["--engine", "em", "--model-out", cl.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    let bags = dir.join("bags.csv");
    common::assert_ok(
        &bin()
            .args(words("mil simulate --bags 20 --out"))
            .arg(bags.to_str().unwrap())
            .output()
            .unwrap(),
    );
    let mil = dir.join("mil.json");
    common::assert_ok(
        &bin()
            .args(["mil", "fit"])
            .arg(&bags)
            .args(["--out", mil.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    let rankings = |m: &std::path::Path| predict(m, &[]);
    let mil_predict = |m: &std::path::Path| {
        bin()
            .args(["mil", "predict"])
            .arg(m)
            .arg(&bags)
            .output()
            .unwrap()
    };
    let classify = |m: &std::path::Path| {
        bin()
            .args(["classify", "predict", "--model"])
            .arg(m)
            .arg(data("uci").join("iris.csv"))
            .output()
            .unwrap()
    };
    fails(
        &rankings(&cl),
        "this is a classifier model (written by `plackett classify fit --model-out`; read it with `plackett classify predict`), not a Plackett–Luce model of rankings",
    );
    fails(
        &rankings(&mil),
        "this is a multiple-instance model (written by `plackett mil fit --out`; read it with `plackett mil predict`)",
    );
    fails(
        &mil_predict(&pl),
        "this is a Plackett–Luce model of rankings (written by `plackett fit --model-out`; read it with `plackett predict`), not a multiple-instance model",
    );
    fails(&mil_predict(&cl), "this is a classifier model");
    fails(&classify(&pl), "this is a Plackett–Luce model of rankings");
    fails(&classify(&mil), "this is a multiple-instance model");
    // A model file given where data belongs is named for what it is.
    let run = |args: &[&std::ffi::OsStr]| bin().args(args).output().unwrap();
    fails(
        &run(&["fit".as_ref(), pl.as_os_str()]),
        "this is a Plackett–Luce model of rankings (written by `plackett fit --model-out`; read it with `plackett predict`), not a data file",
    );
    fails(
        &run(&["mil".as_ref(), "fit".as_ref(), mil.as_os_str()]),
        "this is a multiple-instance model",
    );
    fails(
        &run(&["aggregate".as_ref(), cl.as_os_str()]),
        "this is a classifier model",
    );
    // Each reader still reads its own.
    common::assert_ok(&rankings(&pl));
    common::assert_ok(&mil_predict(&mil));
    common::assert_ok(&classify(&cl));
}

/// An item outside a model's items is named as not one of the model's, by
/// the reader itself, in every format — JSON ids and names too.
#[test]
fn an_unknown_item_is_not_an_item_of_the_model_in_every_format() {
    let dir = tmpdir("predict-universe");
    let model = dir.join("pp.json");
    common::assert_ok(
        &bin()
            .arg("fit")
            .arg(data("pudding").join("pairs.csv"))
            .args(["--format", "pairs", "--model-out", model.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    let m = model.to_str().unwrap();
    for (file, text, want) in [
        (
            "t.csv",
            "a,b,i_wins,j_wins\n1,9,2,1\n",
            "t.csv:2: item \"9\" is not an item of the model",
        ),
        (
            "t.json",
            "[[0,7]]",
            "t.json:1: ranking 1: item id 7 is not an item of the model",
        ),
        (
            "t2.json",
            "{\"rankings\": [[\"1\", \"zz\"]]}",
            "t2.json:1: ranking 1: item \"zz\" is not an item of the model",
        ),
    ] {
        let f = dir.join(file);
        std::fs::write(&f, text).unwrap();
        let mut cmd = bin();
        cmd.args(["predict", m]).arg(&f);
        if file.ends_with(".csv") {
            cmd.args(["--format", "pairs"]);
        }
        fails(&cmd.output().unwrap(), want);
        fails(&cmd.output().unwrap(), "(6 items)");
    }
}

/// A note of `predict` (here: an uninformative observation dropped, so
/// observation numbers skip it) reaches a CSV user on standard error; the
/// CSV itself stays clean.
#[test]
fn csv_predictions_keep_their_notes_on_standard_error() {
    let dir = tmpdir("predict_csv_notes");
    let model = dir.join("m.json");
    common::assert_ok(&fit(&["--model-out", model.to_str().unwrap()]));
    let new = dir.join("new.csv");
    std::fs::write(&new, "judge,item,rank\n1,A,1\n1,B,2\n2,C,1\n").unwrap();
    let o = bin()
        .arg("predict")
        .arg(&model)
        .arg(&new)
        .args(words("--ranking-col judge --output csv"))
        .output()
        .unwrap();
    let (out, err) = common::out_and_err(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        err.starts_with("note: 1 uninformative observation was dropped"),
        "{err}"
    );
}
