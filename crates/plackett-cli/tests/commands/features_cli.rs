//! `plackett fit --features` and `plackett cv` end to end.

use crate::common;
use crate::common::then;
use crate::common::words;

use common::{bin, data, fails, json, log_worth, tmpdir};

fn salad(d: &std::path::Path) -> (String, String) {
    (
        d.join("salad/rankings.csv").to_string_lossy().into_owned(),
        d.join("salad/features.csv").to_string_lossy().into_owned(),
    )
}

#[test]
fn salad_mle_contract() {
    let d = common::data("");
    let (r, f) = salad(&d);
    let v = json(
        &bin()
            .args([
                "fit",
                &r,
                "--ranking-col",
                "judge",
                "--features",
                &f,
                "--standardize",
                "off",
            ])
            .args(["--output", "json"])
            .output()
            .unwrap(),
    );
    let c = v["coefficients"].as_array().unwrap();
    assert_eq!(c[0]["name"], "acetic");
    assert!((c[0]["estimate"].as_f64().unwrap() - 3.27405).abs() < 1e-4);
    assert!((c[1]["estimate"].as_f64().unwrap() - 0.27389).abs() < 1e-4);
    assert!((c[0]["se"].as_f64().unwrap() - 0.57665).abs() < 1e-3);
    assert!((c[1]["se"].as_f64().unwrap() - 0.04506).abs() < 1e-3);
    assert!(c[0]["mean"].is_null() && c[0]["sd"].is_null());
    assert!((v["deviance"].as_f64().unwrap() - 152.905).abs() < 1e-3);
    // Standardisation (the default) is undone in the reported coefficients.
    let w = json(
        &bin()
            .args([
                "fit",
                &r,
                "--ranking-col",
                "judge",
                "--features",
                &f,
                "--output",
                "json",
            ])
            .output()
            .unwrap(),
    );
    assert_eq!(w["regression"]["standardized"], true);
    for k in 0..2 {
        let (a, b) = (&v["coefficients"][k], &w["coefficients"][k]);
        assert!((a["estimate"].as_f64().unwrap() - b["estimate"].as_f64().unwrap()).abs() < 1e-7);
        assert!((a["se"].as_f64().unwrap() - b["se"].as_f64().unwrap()).abs() < 1e-7);
    }
}

#[test]
fn salad_vb_eta_auto_new_item_and_report() {
    let d = common::data("");
    let (r, f) = salad(&d);
    let t = tmpdir("vb");
    let feats = t.join("features.csv");
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str("E,0.75,5\n");
    std::fs::write(&feats, text).unwrap();
    let report = t.join("r.html");
    let v = json(
        &bin()
            .args([
                "fit",
                &r,
                "--ranking-col",
                "judge",
                "--features",
                feats.to_str().unwrap(),
            ])
            .args(words("--engine vb --eta auto --compare E,A --compare B,C"))
            .args(["--report", report.to_str().unwrap(), "--output", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["engine"], "vb");
    assert!(v["elbo"].as_f64().unwrap().is_finite());
    let c = &v["coefficients"][0];
    assert!(
        c["estimate"].is_null()
            && c["mean"].as_f64().unwrap() > 0.0
            && c["sd"].as_f64().unwrap() > 0.0
    );
    let curve = v["regression"]["eta_curve"].as_array().unwrap();
    assert_eq!(curve.len(), 25);
    let eta = v["regression"]["eta"].as_f64().unwrap();
    let best = curve
        .iter()
        .max_by(|a, b| {
            a["bound"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["bound"].as_f64().unwrap())
        })
        .unwrap();
    assert_eq!(best["eta"].as_f64().unwrap(), eta);
    assert!((v["elbo"].as_f64().unwrap() - best["bound"].as_f64().unwrap()).abs() < 1e-9);
    let ni = &v["regression"]["new_items"][0];
    assert_eq!(ni["name"], "E");
    assert!(ni["log_worth_sd"].as_f64().unwrap() > 0.0);
    let cmp = &v["comparisons"][0];
    let (p, plug) = (
        cmp["probability"].as_f64().unwrap(),
        cmp["plug_in"].as_f64().unwrap(),
    );
    // The posterior predictive is pulled towards 1/2 relative to the plug-in.
    assert!(p > 0.5 && p < plug, "{p} {plug}");
    assert!(cmp["difference_sd"].as_f64().unwrap() > 0.0);
    let html = std::fs::read_to_string(&report).unwrap();
    for needle in [
        "Coefficients with 95% intervals",
        "Variational bound against",
        "Positive ratio",
        "<svg",
    ] {
        assert!(html.contains(needle), "{needle}");
    }
    assert!(!html.contains("http://") && !html.contains("https://") || html.contains("xmlns"));
}

#[test]
fn feature_errors_are_one_line_and_write_nothing() {
    let d = common::data("");
    let (r, f) = salad(&d);
    let t = tmpdir("err");
    let out_file = t.join("out.json");
    let run = |extra: &[&str], feats: &str| {
        bin()
            .args(["fit", &r, "--ranking-col", "judge", "--features", feats])
            .args(extra)
            .args(["--out", out_file.to_str().unwrap()])
            .output()
            .unwrap()
    };
    fails(&run(&["--engine", "gibbs"], &f), "--engine");
    fails(&run(&["--eta", "2"], &f), "--eta");
    fails(&run(&["--engine", "map", "--eta=-1"], &f), "--eta");
    fails(
        &run(&["--engine", "map", "--eta-grid", "1:2:3"], &f),
        "--eta-grid",
    );
    fails(
        &run(
            &["--engine", "vb", "--eta", "auto", "--eta-grid", "5:1:3"],
            &f,
        ),
        "--eta-grid",
    );
    let bad = |name: &str, text: &str| {
        let p = t.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    // Feature files that cannot be used, and what the error names.
    for (name, text, needle) in [
        (
            "nan.csv",
            "item,a,g\nA,0.5,0\nB,NaN,10\nC,1,0\nD,0,10\n",
            "finite",
        ),
        (
            "const.csv",
            "item,a,g\nA,0.5,1\nB,0.5,1\nC,1,1\nD,0,1\n",
            "constant",
        ),
        (
            "coll.csv",
            "item,a,b\nA,1,2\nB,2,4\nC,3,6\nD,0,0\n",
            "collinear",
        ),
        (
            "missing.csv",
            "item,a,g\nA,0.5,0\nB,0.5,10\nC,1,0\n",
            "no features",
        ),
        (
            "text.csv",
            "item,a,g\nA,x,0\nB,0.5,10\nC,1,0\nD,0,10\n",
            "not a number",
        ),
        (
            "dup.csv",
            "item,a,g\nA,0.5,0\nA,0.5,0\nB,0.5,10\nC,1,0\nD,0,10\n",
            "two feature rows",
        ),
        (
            "huge.csv",
            "item,a,g\nA,0.5,0\nB,1e300,10\nC,1,0\nD,0,10\n",
            "too large",
        ),
    ] {
        fails(&run(&[], &bad(name, text)), needle);
    }
    fails(&run(&[], &bad("empty.csv", "")), "feature column");
    fails(&run(&["--compare", "A,Z"], &f), "Z");
    // Flags that need --features.
    for flag in [["--eta", "1"], ["--vi", "guo"], ["--standardize", "off"]] {
        let out = bin()
            .args(["fit", &r, "--ranking-col", "judge"])
            .args(flag)
            .output()
            .unwrap();
        fails(&out, flag[0]);
    }
    assert!(!out_file.exists(), "nothing written on failure");
}

#[test]
fn separable_data_mle_refused_with_map_suggestion() {
    let t = tmpdir("sep");
    // The feature orders every comparison perfectly: the MLE diverges.
    let rankings = t.join("r.json");
    std::fs::write(&rankings, "[[3,2,1,0],[3,1,0],[2,0],[3,2],[1,0],[2,1,0]]").unwrap();
    let feats = t.join("f.csv");
    std::fs::write(&feats, "item,x\n0,0\n1,1\n2,2\n3,3\n").unwrap();
    let base = || {
        let mut c = bin();
        c.args([
            "fit",
            rankings.to_str().unwrap(),
            "--features",
            feats.to_str().unwrap(),
            "--output",
            "json",
        ]);
        c
    };
    fails(&base().output().unwrap(), "--engine map");
    let v = json(&base().args(words("--engine map --eta 1")).output().unwrap());
    assert!(v["coefficients"][0]["estimate"].as_f64().unwrap() > 0.0);
}

#[test]
fn simulate_and_cross_validate() {
    let t = tmpdir("cv");
    let (r, f, b) = (t.join("r.json"), t.join("f.csv"), t.join("b.csv"));
    let out = bin()
        .args(words(
            "simulate --items 60 --rankings 300 --length 4 --features 3",
        ))
        .args([
            "--features-out",
            f.to_str().unwrap(),
            "--beta-out",
            b.to_str().unwrap(),
        ])
        .args(["--out", r.to_str().unwrap(), "--seed", "4"])
        .output()
        .unwrap();
    common::assert_ok(&out);
    let report = t.join("cv.html");
    let run = |threads: &str| {
        bin()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "cv",
                r.to_str().unwrap(),
                "--features",
                f.to_str().unwrap(),
                "--standardize",
                "off",
            ])
            .args(words("--eta-grid 0.01:100:5 --folds 3 --seed 2 --k 5"))
            .args(["--report", report.to_str().unwrap(), "--output", "json"])
            .output()
            .unwrap()
    };
    let v = json(&run("1"));
    let parts = v["partitions"].as_array().unwrap();
    assert_eq!(parts[0]["partition"], "L");
    assert_eq!(parts[0]["splits"], 3);
    for key in ["top_k_table", "auc_table", "log_score_table"] {
        let row = &parts[0][key];
        for k in [
            "vi_at_eta_v",
            "map_at_eta_m",
            "vi_at_eta_l",
            "map_at_eta_l",
            "eta_v",
            "eta_m",
            "eta_l",
        ] {
            assert!(row[k].as_f64().unwrap().is_finite(), "{key}.{k}");
        }
    }
    let auc = parts[0]["auc_table"]["vi_at_eta_v"].as_f64().unwrap();
    assert!(auc > 0.6 && auc <= 1.0, "{auc}");
    assert!(
        std::fs::read_to_string(&report)
            .unwrap()
            .contains("L-partition")
    );
    // Same seed, different thread count: same numbers.
    let w = json(&run("2"));
    assert_eq!(v["partitions"], w["partitions"]);
}

/// The likelihood-ratio test of the features model against free worths
/// (issue 17 item 14), on the salad dressings: the statistic is twice the
/// gap between the plain MLE's log-likelihood and the features MLE's, on
/// (4 − 1) − 2 = 1 df, its p-value the χ²₁ tail `erfc(√(x/2))`; AIC is
/// printed for the MLE only (a MAP's objective is not a likelihood).
#[test]
fn features_mle_reports_a_likelihood_ratio_test_against_free_worths() {
    let d = data("salad");
    let run = |extra: &[&str]| {
        json(
            &bin()
                .arg("fit")
                .arg(d.join("rankings.csv"))
                .args(words("--ranking-col judge --output json"))
                .args(extra)
                .output()
                .unwrap(),
        )
    };
    let free = run(&[])["log_likelihood"].as_f64().unwrap();
    let feats = d.join("features.csv");
    let f = run(&[
        "--features",
        feats.to_str().unwrap(),
        "--standardize",
        "off",
    ]);
    let t = &f["regression"]["lr_test"];
    let ll = f["log_likelihood"].as_f64().unwrap();
    assert!((ll - -152.905 / 2.0).abs() < 1e-3, "{ll}");
    assert!((t["free_log_likelihood"].as_f64().unwrap() - free).abs() < 1e-9);
    let x = t["statistic"].as_f64().unwrap();
    assert!((x - 2.0 * (free - ll)).abs() < 1e-9, "{t}");
    assert_eq!(t["df"], 1);
    let p = t["p_value"].as_f64().unwrap();
    let want = libm::erfc((x / 2.0).sqrt());
    assert!((p - want).abs() < 1e-12, "{p} vs {want}");
    assert!(f["aic"].as_f64().is_some());
    let m = run(&then(
        &["--features", feats.to_str().unwrap()],
        "--engine map --eta 1",
    ));
    assert!(m["aic"].is_null(), "{}", m["aic"]);
    assert!(m["regression"].get("lr_test").is_none());
}

/// Items never compared with the others still get worths through their
/// features; the report says that those contrasts rest on the features'
/// regression, not on comparisons (and not on the prior, as a plain fit's
/// note says), and carries the dropped-observation note in the one wording.
#[test]
fn disconnected_groups_are_linked_by_the_features() {
    let t = tmpdir("features-disconnected");
    let r = t.join("r.csv");
    let mut rows = String::from("judge,item,rank\n");
    for (j, (a, b)) in [
        ("A", "B"),
        ("B", "A"),
        ("A", "B"),
        ("C", "D"),
        ("D", "C"),
        ("C", "D"),
    ]
    .iter()
    .enumerate()
    {
        rows.push_str(&format!("{j},{a},1\n{j},{b},2\n"));
    }
    rows.push_str("9,A,1\n");
    std::fs::write(&r, rows).unwrap();
    let f = t.join("f.csv");
    std::fs::write(&f, "item,x\nA,1\nB,0\nC,2\nD,0.5\n").unwrap();
    for engine in ["map", "vb"] {
        let v = json(
            &bin()
                .args(["fit", r.to_str().unwrap(), "--ranking-col", "judge"])
                .args(["--features", f.to_str().unwrap(), "--engine", engine])
                .args(["--output", "json"])
                .output()
                .unwrap(),
        );
        let notes = v["notes"].to_string();
        assert!(
            notes.contains(
                "the items fall into 2 groups never compared with each other (sizes 2, 2): worth \
                 contrasts between groups rest on the item features alone"
            ),
            "{engine}: {notes}"
        );
        assert!(!notes.contains("from the prior alone"), "{engine}: {notes}");
        assert!(
            notes.contains(
                "1 uninformative observation was dropped (a single item, or one unknown-order group)"
            ),
            "{engine}: {notes}"
        );
    }
}

/// `--compare` over three or more items with `--features`: Luce's choice
/// axiom over the log-worths `xᵀβ` — for the MLE the softmax of the
/// reported log-worths; with an item only in the features file, its pair
/// with another item agrees with `--compare A,E`; for VB the posterior
/// mean over the fit's β draws, whose pairwise ratios stay near the
/// plug-in's.
#[test]
fn choices_among_three_or_more_items_follow_the_log_worths() {
    let d = common::data("");
    let (r, f) = salad(&d);
    let t = tmpdir("features-choice");
    let feats = t.join("features.csv");
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str("E,0.75,5\n");
    std::fs::write(&feats, text).unwrap();
    let fit = |extra: &[&str]| {
        json(
            &bin()
                .args(["fit", &r, "--ranking-col", "judge", "--features"])
                .arg(&feats)
                .args(extra)
                .args(["--output", "json"])
                .output()
                .unwrap(),
        )
    };
    let v = fit(&[
        "--compare",
        "A,B,C,D",
        "--compare",
        "A,E,B",
        "--compare",
        "A,E",
    ]);
    let lw = |name: &str| log_worth(&v, name);
    let choice = |k: usize| -> Vec<f64> {
        v["choices"][k]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["probability"].as_f64().unwrap())
            .collect()
    };
    let z: f64 = ["A", "B", "C", "D"].iter().map(|n| lw(n).exp()).sum();
    for (p, n) in choice(0).iter().zip(["A", "B", "C", "D"]) {
        assert!((p - lw(n).exp() / z).abs() < 1e-12, "{n}: {p}");
    }
    assert!(v["choices"][0]["items"][0].get("sd").is_none());
    let (pa, pe) = (choice(1)[0], choice(1)[1]);
    let pair = v["comparisons"][0]["probability"].as_f64().unwrap();
    assert!((pa / (pa + pe) - pair).abs() < 1e-12, "{pa} {pe} {pair}");
    // VB: posterior means over draws, with sds; Luce's ratios near the
    // plug-in's (the posterior is tight on these data).
    let vb = fit(&["--engine", "vb", "--compare", "A,E,B"]);
    let items = vb["choices"][0]["items"].as_array().unwrap();
    let p: Vec<f64> = items
        .iter()
        .map(|i| i["probability"].as_f64().unwrap())
        .collect();
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(items.iter().all(|i| i["sd"].as_f64().unwrap() > 0.0));
    let plug = choice(1);
    for (a, b) in p.iter().zip(&plug) {
        assert!((a - b).abs() < 0.05, "VB {p:?} against plug-in {plug:?}");
    }
    // An unknown item or a repeated one is a one-line error.
    let bad = |set: &str, needle: &str| {
        fails(
            &bin()
                .args(["fit", &r, "--ranking-col", "judge", "--features"])
                .arg(&feats)
                .args(["--compare", set])
                .output()
                .unwrap(),
            needle,
        )
    };
    bad(
        "A,B,Z",
        "no item named \"Z\" in the data or the features file",
    );
    bad("A,B,A", "\"A\" appears twice in the set");
}
