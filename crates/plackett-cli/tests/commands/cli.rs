//! End-to-end tests of the `plackett` binary.

use crate::common;
use crate::common::words;

use common::{bin, data, fails, json, stdout, tmpdir};

#[test]
fn nascar_json_contract() {
    let d = common::data("");
    let out = bin()
        .args(["fit", d.join("nascar2002/results.csv").to_str().unwrap()])
        .args(common::NASCAR_COLS)
        .args([
            "--exclude",
            "Andy Hillenburg,Gary Bradberry,Jason Hedlesky,Randy Renfrow",
        ])
        .args(["--reference", "Austin Cameron", "--output", "json"])
        .output()
        .unwrap();
    common::assert_ok(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "engine",
        "n_items",
        "n_observations",
        "converged",
        "iterations",
        "log_likelihood",
        "log_evidence",
        "elbo",
        "diagnostics",
        "items",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(v["engine"], "mle");
    assert_eq!(v["n_items"], 83);
    assert_eq!(v["n_observations"], 36);
    assert!(v["log_evidence"].is_null() && v["elbo"].is_null());
    assert!(v["diagnostics"]["rhat_max"].is_null());
    assert!((v["log_likelihood"].as_f64().unwrap() + 4191.0973).abs() < 1e-4);
    let pj = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "PJ Jones")
        .unwrap();
    for key in [
        "worth",
        "worth_sd",
        "log_worth",
        "log_worth_se",
        "log_worth_sd",
        "ci_low",
        "ci_high",
    ] {
        assert!(pj.get(key).is_some(), "missing item key {key}");
    }
    assert!((pj["log_worth"].as_f64().unwrap() - 4.1477).abs() < 1e-4);
    assert!((pj["log_worth_se"].as_f64().unwrap() - 1.5676).abs() < 1e-3);
    assert!((pj["worth"].as_f64().unwrap() - 0.1864).abs() < 1e-4);
}

#[test]
fn nascar_without_exclusion_fails_with_connectivity_message() {
    let d = common::data("");
    let dir = tmpdir("nascar-fail");
    let outp = dir.join("out.json");
    let out = bin()
        .args(["fit", d.join("nascar2002/results.csv").to_str().unwrap()])
        .args(common::NASCAR_COLS)
        .args(words("--engine mle --output json --out"))
        .arg(outp.to_str().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("4 items never beat anyone"), "{err}");
    assert!(!outp.exists(), "no output may be written on failure");
    let out = bin()
        .args(["fit", d.join("nascar2002/results.csv").to_str().unwrap()])
        .args(common::NASCAR_COLS)
        .args(words("--pseudo 0.5 --output json --out"))
        .arg(outp.to_str().unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&outp).unwrap()).unwrap();
    assert_eq!(v["n_items"], 87);
    assert_eq!(v["items"].as_array().unwrap().len(), 87);
}

#[test]
fn malformed_input_exit_2_and_nothing_written() {
    let dir = tmpdir("malformed");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "ranking,rank,item\n1,1,a\n1,two,b\n").unwrap();
    let outp = dir.join("out.csv");
    let out = bin()
        .args([
            "fit",
            bad.to_str().unwrap(),
            "--output",
            "csv",
            "--out",
            outp.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv:3:") && err.contains("not a number"),
        "{err}"
    );
    assert!(!outp.exists());
    assert!(out.stdout.is_empty());
    // Missing file, unknown flag value, unknown reference.
    let out = bin()
        .args(["fit", dir.join("missing.csv").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let good = dir.join("good.json");
    std::fs::write(&good, "[[0,1,2],[2,1,0],[1,0,2]]").unwrap();
    let out = bin()
        .args(["fit", good.to_str().unwrap(), "--engine", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["fit", good.to_str().unwrap(), "--reference", "zz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--reference"));
    let out = bin()
        .args(["fit", good.to_str().unwrap(), "--exclude", "zz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--exclude"));
}

#[test]
fn output_formats() {
    let dir = tmpdir("formats");
    let f = dir.join("r.json");
    std::fs::write(&f, "[[0,1,2],[3,2,0],[1,3]]").unwrap();
    for fmt in ["table", "json", "csv"] {
        let out = bin()
            .args(["fit", f.to_str().unwrap(), "--output", fmt])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{fmt}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s = String::from_utf8(out.stdout).unwrap();
        match fmt {
            "csv" => {
                assert!(s.starts_with("item,worth,worth_sd,log_worth,log_worth_se"));
                assert_eq!(s.lines().count(), 5);
            }
            "json" => {
                let v: serde_json::Value = serde_json::from_str(&s).unwrap();
                let lw: Vec<f64> = v["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i["log_worth"].as_f64().unwrap())
                    .collect();
                for (a, b) in lw.iter().zip([-0.443308, 0.695068, -0.670610, 0.418850]) {
                    assert!((a - b).abs() < 1e-5);
                }
            }
            _ => assert!(s.contains("log-likelihood")),
        }
    }
}

#[test]
fn demo_runs() {
    let out = bin().args(["demo"]).output().unwrap();
    common::assert_ok(&out);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("5000 rankings"));
}

/// Quasi-variances of the chocolate puddings under ties as events
/// (Davidson 1970), against PlackettLuce's `qvcalc` output: quasi-SEs
/// 0.13290, 0.13274, 0.13957, 0.13302, 0.13993, 0.13920 (printed to five
/// decimals), worst relative errors ±0.8% over simple contrasts and ±1.7%
/// over all contrasts (printed to one decimal).
#[test]
fn pudding_quasi_variances_match_qvcalc() {
    let d = common::data("pudding");
    let out = bin()
        .args(["fit", d.join("pairs.csv").to_str().unwrap()])
        .args(words("--format pairs --ties event --quasi --output json"))
        .output()
        .unwrap();
    let v = common::json(&out);
    let q = &v["quasi_variances"];
    let want = [0.13290, 0.13274, 0.13957, 0.13302, 0.13993, 0.13920];
    for (it, w) in q["items"].as_array().unwrap().iter().zip(want) {
        let se = it["quasi_se"].as_f64().unwrap();
        assert!((se - w).abs() < 2e-5, "{}: {se} vs {w}", it["name"]);
    }
    let pct = |k: &str| -> (f64, f64) {
        let a = q[k].as_array().unwrap();
        (a[0].as_f64().unwrap(), a[1].as_f64().unwrap())
    };
    let (lo, hi) = pct("worst_relative_error_simple_pct");
    assert!(lo < 0.0 && hi > 0.0);
    assert_eq!((lo.abs().max(hi) * 10.0).round() / 10.0, 0.8, "{lo} {hi}");
    let (lo, hi) = pct("worst_relative_error_all_pct");
    assert_eq!((lo * 10.0).round() / 10.0, -1.7, "{lo}");
    assert_eq!((hi * 10.0).round() / 10.0, 1.7, "{hi}");
}

/// `--compare` over three or more items prints choice probabilities (issue
/// 17 item 14): the softmax of the fitted log-worths over the set (an MLE's
/// plug-in), summing to 1; a Bayesian engine's posterior means with sds;
/// a repeated or unknown item, or an item compared with itself, is a
/// one-line error.
#[test]
fn compare_over_a_set_gives_choice_probabilities() {
    let salad = data("salad").join("rankings.csv");
    let run = |extra: &[&str]| {
        bin()
            .arg("fit")
            .arg(&salad)
            .args(words("--ranking-col judge --output json"))
            .args(extra)
            .output()
            .unwrap()
    };
    let js = json(&run(&["--compare", "D, A,C,B", "--compare", "A,B"]));
    let lw: std::collections::HashMap<String, f64> = js["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| {
            (
                it["name"].as_str().unwrap().to_string(),
                it["log_worth"].as_f64().unwrap(),
            )
        })
        .collect();
    let c = &js["choices"][0];
    let set: Vec<&str> = c["set"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(set, ["D", "A", "C", "B"]);
    let z: f64 = set.iter().map(|n| lw[*n].exp()).sum();
    let mut total = 0.0;
    for it in c["items"].as_array().unwrap() {
        let p = it["probability"].as_f64().unwrap();
        let want = lw[it["name"].as_str().unwrap()].exp() / z;
        assert!((p - want).abs() < 1e-9, "{it}: {want}");
        assert!(it.get("sd").is_none(), "an MLE has no posterior sd");
        total += p;
    }
    assert!((total - 1.0).abs() < 1e-12);
    // The pair is still a comparison.
    assert_eq!(js["comparisons"][0]["winner"], "A");
    let g = json(&run(&[
        "--engine",
        "gibbs",
        "--samples",
        "200",
        "--compare",
        "A,B,C",
    ]));
    for it in g["choices"][0]["items"].as_array().unwrap() {
        assert!(it["sd"].as_f64().unwrap() > 0.0, "{it}");
    }
    let table = stdout(
        &bin()
            .arg("fit")
            .arg(&salad)
            .args(words("--ranking-col judge --compare A,B,C"))
            .output()
            .unwrap(),
    );
    assert!(table.contains("P(chosen first from {A, B, C}):"), "{table}");
    fails(&run(&["--compare", "A,B,A"]), "appears twice");
    fails(&run(&["--compare", "A,B,Z"]), "no item named \"Z\"");
    fails(&run(&["--compare", "B,B"]), "compared with itself");
}

/// A weight column is never used silently (issue 17 item 12): the table's
/// first line and the JSON (`total_weight`) say that the observations were
/// weighted and by how much in all; unweighted data carry no such key.
#[test]
fn weighted_observations_are_reported() {
    let dir = tmpdir("weighted");
    let path = dir.join("w.csv");
    std::fs::write(
        &path,
        "r,item,rank,w\n1,a,1,2\n1,b,2,2\n2,b,1,1\n2,a,2,1\n3,c,1,3\n3,a,2,3\n4,b,1,1\n4,c,2,1\n",
    )
    .unwrap();
    let args = [
        "--ranking-col",
        "r",
        "--rank-col",
        "rank",
        "--item-col",
        "item",
        "--weight-col",
        "w",
    ];
    let table = stdout(&bin().arg("fit").arg(&path).args(args).output().unwrap());
    assert!(
        table
            .lines()
            .next()
            .unwrap()
            .contains("4 observations (weighted: total weight 7)"),
        "{table}"
    );
    let js = json(
        &bin()
            .arg("fit")
            .arg(&path)
            .args(args)
            .args(["--output", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(js["total_weight"], 7.0);
    let salad = data("salad").join("rankings.csv");
    let plain = json(
        &bin()
            .arg("fit")
            .arg(&salad)
            .args(words("--ranking-col judge --output json"))
            .output()
            .unwrap(),
    );
    assert!(plain.get("total_weight").is_none());
}

/// A Bayesian or MAP fit on data whose items fall into groups never
/// compared with each other says that between-group contrasts come from
/// the prior alone (issue 17 item 12); connected data carry no such note.
#[test]
fn disconnected_data_are_noted() {
    let dir = tmpdir("disconnected");
    let path = dir.join("d.json");
    std::fs::write(&path, "[[0,1],[1,0],[0,1],[2,3],[3,2],[2,3],[4,5,2]]").unwrap();
    for engine in ["map", "gibbs", "ep", "vb"] {
        let mut c = bin();
        c.arg("fit")
            .arg(&path)
            .args(["--engine", engine, "--output", "json"]);
        if engine == "gibbs" {
            c.args(["--samples", "200"]);
        }
        let js = json(&c.output().unwrap());
        let notes = js["notes"].to_string();
        assert!(
            notes.contains(
                "the items fall into 2 groups never compared with each other (sizes 4, 2)"
            ),
            "{engine}: {notes}"
        );
    }
    let salad = data("salad").join("rankings.csv");
    let js = json(
        &bin()
            .arg("fit")
            .arg(&salad)
            .args(words("--ranking-col judge --engine map --output json"))
            .output()
            .unwrap(),
    );
    assert!(!js["notes"].to_string().contains("groups never compared"));
}

/// An I/O error names the file and the OS reason once (the reason was
/// repeated: "…: No such file or directory (os error 2): No such file or
/// directory (os error 2)").
#[test]
fn io_errors_say_their_reason_once() {
    for args in [
        vec!["fit", "/nonexistent/rankings.csv"],
        vec!["keywords", "evaluate", "/nonexistent-corpus"],
    ] {
        let out = bin().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.matches("os error 2").count(), 1, "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// Damaged files found by mutating the shipped data (a byte turned into a
/// record separator in a header, a stray quote that swallows a carriage
/// return): the messages quote the damaged names, escaped, on one line.
#[test]
fn errors_quoting_damaged_names_stay_on_one_line() {
    let dir = tmpdir("damaged_names");
    let pairs = dir.join("pairs.csv");
    std::fs::write(
        &pairs,
        "brand_i,brand_j,n_c\x1empared,i_wins\r\n1,2,5,3\r\n",
    )
    .unwrap();
    let out = bin()
        .args(["fit", pairs.to_str().unwrap()])
        .output()
        .unwrap();
    fails(&out, "n_c\\u{1e}mpared");
    let list = dir.join("list.csv");
    std::fs::write(&list, "\u{feff}\",known\r\n").unwrap();
    let out = bin()
        .args(["keywords", "batch", list.to_str().unwrap()])
        .output()
        .unwrap();
    fails(&out, "expected a header with columns file and known");
    fails(&out, "\\r");
    // A control character in a command-line argument, too.
    let out = bin()
        .args(["fit", "x.csv", "--engine", "gi\rbbs"])
        .output()
        .unwrap();
    fails(&out, "gi\\rbbs");
}
