//! `plackett mil fit|predict|simulate|cv` end to end (Hu 2024, ch. 2).

use crate::common;
use crate::common::then;
use crate::common::words;

use common::{assert_ok, bin, fails, json, tmpdir};

fn simulate(dir: &std::path::Path, bags: usize) -> String {
    common::mil_bags(dir, "sim.csv", bags, 8, 4)
}

#[test]
fn fit_then_predict_follows_the_contract() {
    let dir = tmpdir("mil_contract");
    let data = simulate(&dir, 120);
    let text = std::fs::read_to_string(&data).unwrap();
    assert!(text.starts_with("bag,label,modality,m0_f1,m0_f2,m0_f3,m0_f4,m1_f1,"));
    assert!(text.lines().next().unwrap().ends_with(",primary"));
    let model = dir.join("model.json");
    let out = bin()
        .args(then(
            &["mil", "fit", &data],
            "--engine vb --output json --allow-nonconvergence --out",
        ))
        .arg(&model)
        .output()
        .unwrap();
    let fit = json(&out);
    assert_eq!(fit["bags"], 120);
    assert!(
        fit["training_auroc"].as_f64().unwrap() > 0.8,
        "{}",
        fit["training_auroc"]
    );
    assert!(
        fit["primary_auroc"].as_f64().unwrap() > 0.7,
        "{}",
        fit["primary_auroc"]
    );
    assert_eq!(
        fit["parameters"].as_array().unwrap().len(),
        3 + 2 * 4 + 2 * 4
    );
    let out = bin()
        .args(["mil", "predict"])
        .arg(&model)
        .args([&data, "--output", "json"])
        .output()
        .unwrap();
    let pred = json(&out);
    let bags = pred["bags"].as_array().unwrap();
    assert_eq!(bags.len(), 120);
    let mut rows = Vec::new();
    for b in bags {
        assert!(b["bag"].is_string());
        let p = b["p"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p));
        for i in b["instances"].as_array().unwrap() {
            rows.push(i["row"].as_u64().unwrap());
            assert!(i["modality"].as_u64().unwrap() <= 1);
            assert!((0.0..=1.0).contains(&i["p_primary"].as_f64().unwrap()));
        }
    }
    rows.sort();
    assert_eq!(rows, (0..120 * 8).collect::<Vec<u64>>());
    // Same seed, same numbers.
    let again = json(
        &bin()
            .args(["mil", "predict"])
            .arg(&model)
            .args([&data, "--output", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(again, pred);
}

/// `plackett mil fit DATA FLAGS… --out MODEL`.
fn fit_to(data: &str, flags: &[&str], model: &std::path::Path) -> std::process::Output {
    bin()
        .args(["mil", "fit", data])
        .args(flags)
        .arg("--out")
        .arg(model)
        .output()
        .unwrap()
}

/// A short sampler run: enough to write a model file, not to mix.
const SHORT_GIBBS: [&str; 8] = [
    "--engine",
    "gibbs",
    "--samples",
    "50",
    "--burn-in",
    "50",
    "--chains",
    "2",
];

#[test]
fn gibbs_engine_writes_a_model_that_predicts() {
    let dir = tmpdir("mil_gibbs");
    let data = simulate(&dir, 60);
    let model = dir.join("g.json");
    let out = fit_to(
        &data,
        &[&SHORT_GIBBS[..], &["--output", "json"]].concat(),
        &model,
    );
    let fit = json(&out);
    assert!(fit["fit"]["max_rhat"].is_number());
    assert_eq!(fit["fit"]["gibbs_start"], "marginal");
    let dispersed = bin()
        .args(["mil", "fit", &data])
        .args(SHORT_GIBBS)
        .args(words("--gibbs-start dispersed --output json"))
        .output()
        .unwrap();
    assert_eq!(json(&dispersed)["fit"]["gibbs_start"], "dispersed");
    let bad = bin()
        .args(["mil", "fit", &data])
        .args(SHORT_GIBBS)
        .args(["--gibbs-start", "anywhere"])
        .output()
        .unwrap();
    fails(&bad, "--gibbs-start");
    let out = bin()
        .args(["mil", "predict"])
        .arg(&model)
        .arg(&data)
        .output()
        .unwrap();
    assert_ok(&out);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("bag,row,modality,p,p_plugin,p_primary\n"));
    assert_eq!(csv.lines().count(), 1 + 60 * 8);
}

/// `--temperatures K` runs K tempered rungs per chain and reports their swap
/// acceptance; rung counts and hottest levels outside their ranges are
/// refused with one line, nothing written.
#[test]
fn gibbs_with_tempering_reports_its_swaps() {
    let dir = tmpdir("mil_tempering");
    let data = simulate(&dir, 60);
    // `mil fit DATA` with the short sampler settings and `extra`.
    let gibbs = |extra: &[&str]| {
        bin()
            .args(["mil", "fit", &data])
            .args(SHORT_GIBBS)
            .args(extra)
            .output()
            .unwrap()
    };
    let tempered = ["--temperatures", "3", "--hottest", "0.2"];
    let out = gibbs(&[&tempered[..], &["--output", "json"]].concat());
    let fit = json(&out);
    assert_eq!(fit["fit"]["temperatures"], 3, "{fit}");
    let acc = fit["fit"]["swap_acceptance"].as_array().unwrap();
    assert_eq!(acc.len(), 2);
    assert!(
        acc.iter()
            .all(|a| (0.0..=1.0).contains(&a.as_f64().unwrap()))
    );
    let table = gibbs(&tempered);
    assert_ok(&table);
    assert!(String::from_utf8_lossy(&table.stdout).contains("tempering: 3 rungs per chain"));
    // The adaptive ladder keeps its ends, moves the middle rung and prints
    // the communication barrier.
    let adaptive = gibbs(&[&tempered[..], &["--ladder", "adaptive"]].concat());
    assert_ok(&adaptive);
    let text = String::from_utf8_lossy(&adaptive.stdout);
    assert!(
        text.contains("ladder τ 1.000 ") && text.contains(" 0.200; communication barrier Λ "),
        "{text}"
    );
    // `--temperatures auto` picks the rung count during the burn-in from
    // the measured barrier (about 2Λ rungs) and reports the final ladder.
    let auto = json(&gibbs(&[
        "--temperatures",
        "auto",
        "--hottest",
        "0.01",
        "--output",
        "json",
    ]));
    let k = auto["fit"]["temperatures"].as_u64().unwrap() as usize;
    let ladder = auto["fit"]["ladder"].as_array().unwrap();
    let barrier = auto["fit"]["barrier"].as_f64().unwrap();
    assert_eq!(ladder.len(), k, "{auto}");
    assert_eq!(
        auto["fit"]["swap_acceptance"].as_array().unwrap().len(),
        k - 1
    );
    assert!(
        k >= 3 && (k as f64 - 2.0 * barrier).abs() <= 2.5,
        "{k} rungs, Λ {barrier}"
    );
    let untempered = gibbs(&["--output", "json"]);
    assert!(json(&untempered)["fit"].get("swap_acceptance").is_none());
    let model = dir.join("never.json");
    let m = model.to_str().unwrap();
    for (flag, value) in [
        ("--temperatures", "0"),
        ("--temperatures", "hot"),
        ("--temperatures", "-2"),
        ("--hottest", "1.5"),
        ("--hottest", "0"),
        ("--ladder", "linear"),
    ] {
        let bad = gibbs(&[flag, value, "--out", m]);
        fails(&bad, &flag[2..]);
        assert!(!model.exists());
    }
}

/// `mil fit --init MODEL.json` starts vMMIC at a saved model's means (here
/// a short Gibbs fit's), or the sampler's chains around them, and says so;
/// a start with other preprocessing, for other features or from a missing
/// file is refused.
#[test]
fn warm_starts_from_a_model_file() {
    let dir = tmpdir("mil_init");
    let data = simulate(&dir, 60);
    let gibbs = dir.join("g.json");
    let fit = |extra: &[&str]| {
        bin()
            .args(["mil", "fit", &data, "--output", "json"])
            .args(extra)
            .output()
            .unwrap()
    };
    let g = gibbs.to_str().unwrap();
    let out = fit(&[&SHORT_GIBBS[..], &["--out", g]].concat());
    assert_ok(&out);
    let warm = dir.join("warm.json");
    let out = fit(&[
        "--init",
        g,
        "--allow-nonconvergence",
        "--out",
        warm.to_str().unwrap(),
    ]);
    let doc = json(&out);
    assert_eq!(doc["fit"]["engine"], "vb");
    assert!(doc["fit"]["elbo"].as_f64().unwrap().is_finite());
    let notes = doc["notes"].to_string();
    assert!(notes.contains("--init"), "{notes}");
    assert!(warm.is_file());

    let out = fit(&[&SHORT_GIBBS[..], &["--init", g]].concat());
    let doc = json(&out);
    assert_eq!(doc["fit"]["engine"], "gibbs");
    assert_eq!(doc["fit"]["gibbs_start"], "init", "{doc}");
    assert!(doc["notes"].to_string().contains("--init"), "{doc}");

    let refused = dir.join("refused.json");
    let r = refused.to_str().unwrap();
    fails(
        &fit(&["--init", g, "--standardise", "--out", r]),
        "--standardize",
    );
    fails(
        &fit(&["--init", "no/such/model.json", "--out", r]),
        "no/such/model.json",
    );
    let other = common::mil_bags(&dir, "other.csv", 20, 8, 3);
    let out = bin()
        .args(["mil", "fit", &other])
        .args(["--init", g, "--out", r])
        .output()
        .unwrap();
    fails(&out, "features");
    assert!(!refused.exists());
}

#[test]
fn bad_bags_exit_2_naming_file_and_line() {
    let dir = tmpdir("mil_bad");
    let cases = [
        (
            "bag,label,modality,m0_a,m0_b\nb1,1,0,1,2\nb1,1,0,1,\n",
            "bad.csv:3: column \"m0_b\" is empty",
        ),
        (
            "bag,label,modality,m0_a,m0_b\nb1,1,0,1,2\nb1,1,0,1\n",
            "bad.csv:3: expected 5 fields",
        ),
        (
            "bag,label,modality,m0_a\nb1,yes,0,1\n",
            "bad.csv:2: label \"yes\"",
        ),
        ("bag,label,modality,m0_a\nb1,1,0,NaN\n", "bad.csv:2:"),
        (
            "bag,label,modality,m0_a\nb1,1,2,1\n",
            "bad.csv:2: modality \"2\"",
        ),
        (
            "bag,label,modality,m0_a\nb1,1,0,1\nb2,,0,1\n",
            "has no label",
        ),
    ];
    for (text, needle) in cases {
        let f = dir.join("bad.csv");
        std::fs::write(&f, text).unwrap();
        let model = dir.join("never.json");
        let out = bin()
            .current_dir(&dir)
            .args(words("mil fit bad.csv --out"))
            .arg(&model)
            .output()
            .unwrap();
        fails(&out, needle);
        assert!(!model.exists(), "nothing written on failure");
    }
    // One class only: every engine and cross-validation refuse it alike,
    // naming the file (the sampler used to fit the prior's shape).
    std::fs::write(
        dir.join("one.csv"),
        "bag,label,modality,m0_a\nb1,1,0,1\nb1,1,0,2\nb2,1,0,3\n",
    )
    .unwrap();
    for args in [
        &[
            "mil",
            "fit",
            "one.csv",
            "--engine",
            "vb",
            "--out",
            "never.json",
        ][..],
        &[
            "mil",
            "fit",
            "one.csv",
            "--engine",
            "gibbs",
            "--out",
            "never.json",
        ][..],
        &["mil", "cv", "one.csv", "--folds", "2"][..],
    ] {
        let out = bin().current_dir(&dir).args(args).output().unwrap();
        fails(&out, "one.csv: every bag has label 1");
        assert!(
            !dir.join("never.json").exists(),
            "nothing written on failure"
        );
    }
    let f = dir.join("empty.json");
    std::fs::write(
        &f,
        r#"{"bags": [{"bag": "a", "label": 1, "instances": []}]}"#,
    )
    .unwrap();
    let out = bin()
        .current_dir(&dir)
        .args(["mil", "fit", "empty.json"])
        .output()
        .unwrap();
    fails(&out, "empty.json:1: bag \"a\" has no instances");
    let out = bin()
        .args(words("mil simulate --ppi0 1.5"))
        .output()
        .unwrap();
    fails(&out, "ppi0");
    let out = bin()
        .args(words("mil predict nope.json x.csv"))
        .output()
        .unwrap();
    fails(&out, "nope.json");
    // A JSON file that is not a model: serde's field name is quoted as
    // written, not turned into a command-line flag.
    std::fs::write(dir.join("notmodel.json"), "{}").unwrap();
    let out = bin()
        .current_dir(&dir)
        .args(words("mil predict notmodel.json one.csv"))
        .output()
        .unwrap();
    fails(
        &out,
        "notmodel.json:1: not a multiple-instance model file: missing field \"format\"",
    );
}

#[test]
fn cross_validation_reports_bag_auroc() {
    let dir = tmpdir("mil_cv");
    let data = simulate(&dir, 80);
    let out = bin()
        .args(then(
            &["mil", "cv", &data],
            "--folds 4 --output json --draws 100",
        ))
        .output()
        .unwrap();
    let v = json(&out);
    let auc = v["cv"]["mean_auroc"].as_f64().unwrap();
    assert!(auc > 0.7 && auc <= 1.0, "{auc}");
    // One repeat says nothing about the spread over repeats: null, and "-"
    // in the table, not an sd of 0.
    assert!(v["cv"]["sd_auroc"].is_null(), "{v}");
    let out = bin()
        .args(then(&["mil", "cv", &data], "--folds 4 --draws 100"))
        .args(["--repeats", "2"])
        .output()
        .unwrap();
    assert_ok(&out);
    let table = String::from_utf8(out.stdout).unwrap();
    let row = table.lines().find(|l| l.starts_with("vmmic")).unwrap();
    let sd: f64 = row.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(sd > 0.0 && sd < 0.2, "{table}");
    let out = bin()
        .args(then(&["mil", "cv", &data], "--folds 4 --draws 100"))
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    let row = table.lines().find(|l| l.starts_with("vmmic")).unwrap();
    assert_eq!(row.split_whitespace().nth(2), Some("-"), "{table}");
}

/// `mil cv --baselines` runs vMMIC, MILR and the single-instance baselines
/// on the same folds, reproducibly. (Which method wins is the simulation
/// study's question, on the dissertation's design; on this tiny one —
/// 160 bags of 8 instances, 4 + 4 features — vMMIC and si-mean tie.)
#[test]
fn cv_with_baselines_on_the_same_folds() {
    let dir = tmpdir("mil_cv_baselines");
    let data = simulate(&dir, 160);
    let run = || {
        json(
            &bin()
                .args(then(
                    &["mil", "cv", &data],
                    "--folds 4 --baselines --output json",
                ))
                .output()
                .unwrap(),
        )
    };
    let a = run();
    let methods = a["methods"].as_array().unwrap();
    let names: Vec<&str> = methods
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["vmmic", "milr", "si-mean", "si-max"]);
    let auc = |k: usize| methods[k]["mean_auroc"].as_f64().unwrap();
    for k in 0..4 {
        assert!((0.0..=1.0).contains(&auc(k)));
    }
    assert!(auc(0) > 0.65, "vmmic {}", auc(0));
    assert_eq!(a["cv"], methods[0]);
    assert_eq!(a, run());
}

/// `--standardise` keeps the training scaling in the model file and
/// applies it to new bags: predictions of a rescaled copy of the data
/// (every feature × 1000 + 5, refitted) equal the original's.
#[test]
fn standardised_fits_are_invariant_to_feature_units() {
    invariant_to_feature_units("mil_standardise", &["--standardise"], &|m| {
        assert!(m["scaling"]["mean"][0].is_array());
    });
}

/// `--components K` keeps the training projection (z-scores, then the
/// leading principal components) in the model file, names the coefficients
/// by component, reads new bags by their original features, and is as
/// invariant to feature units as `--standardise`.
#[test]
fn principal_component_fits_project_new_bags_alike() {
    invariant_to_feature_units("mil_components", &["--components", "3"], &|m| {
        assert!(m["scaling"].is_null());
        let c = &m["components"];
        assert_eq!(c["loadings"][0].as_array().unwrap().len(), 3);
        assert_eq!(c["loadings"][1].as_array().unwrap().len(), 3);
        assert_eq!(c["input_names"][0].as_array().unwrap().len(), 4);
        assert_eq!(
            m["feature_names"][0],
            serde_json::json!(["pc1", "pc2", "pc3"])
        );
        let names: Vec<&str> = m["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"beta[pc1]"), "{names:?}");
        let share = c["explained"][0].as_f64().unwrap();
        assert!(share > 0.0 && share <= 1.0 + 1e-12, "{share}");
    });
    // The fit says what its coefficients refer to.
    let dir = tmpdir("mil_components_doc");
    let data = simulate(&dir, 30);
    let fit = |extra: &[&str]| {
        bin()
            .args([
                "mil",
                "fit",
                &data,
                "--components",
                "2",
                "--allow-nonconvergence",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = fit(&["--output", "json"]);
    assert_ok(&out);
    let v = json(&out);
    assert_eq!(v["components"]["kept"], serde_json::json!([2, 2]));
    assert_eq!(v["components"]["of"], serde_json::json!([4, 4]));
    let out = fit(&[]);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("modality 0: 2 principal components of 4 features")
    );
    // K = 0 is refused, nothing written.
    let dir = tmpdir("mil_components0");
    let data = simulate(&dir, 20);
    let model = dir.join("m.json");
    let out = bin()
        .args(["mil", "fit", &data, "--components", "0", "--out"])
        .arg(&model)
        .output()
        .unwrap();
    fails(&out, "components");
    assert!(!model.exists());
}

fn invariant_to_feature_units(tag: &str, flags: &[&str], check: &dyn Fn(&serde_json::Value)) {
    let dir = tmpdir(tag);
    let data = simulate(&dir, 80);
    let text = std::fs::read_to_string(&data).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let mut scaled = format!("{header}\n");
    for l in lines {
        let cells: Vec<String> = l
            .split(',')
            .enumerate()
            .map(|(k, c)| {
                if (3..header.split(',').count() - 1).contains(&k) && !c.is_empty() {
                    format!("{}", c.parse::<f64>().unwrap() * 1000.0 + 5.0)
                } else {
                    c.to_string()
                }
            })
            .collect();
        scaled += &(cells.join(",") + "\n");
    }
    let data2 = dir.join("scaled.csv");
    std::fs::write(&data2, scaled).unwrap();
    let mut preds = Vec::new();
    for (file, name) in [
        (data.as_str(), "m1.json"),
        (data2.to_str().unwrap(), "m2.json"),
    ] {
        let model = dir.join(name);
        let out = bin()
            .args(["mil", "fit", file])
            .args(flags)
            .args(["--allow-nonconvergence", "--out"])
            .arg(&model)
            .output()
            .unwrap();
        assert_ok(&out);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
        check(&m);
        let out = bin()
            .args(["mil", "predict"])
            .arg(&model)
            .args([file, "--output", "json"])
            .output()
            .unwrap();
        preds.push(json(&out));
    }
    let (a, b) = (&preds[0]["bags"], &preds[1]["bags"]);
    for (x, y) in a.as_array().unwrap().iter().zip(b.as_array().unwrap()) {
        let (p, q) = (
            x["p_plugin"].as_f64().unwrap(),
            y["p_plugin"].as_f64().unwrap(),
        );
        assert!((p - q).abs() < 1e-6, "{p} vs {q}");
    }
    // A file with other features is refused by the scaled model, exit 2.
    let other = dir.join("other.csv");
    std::fs::write(&other, "bag,label,modality,m0_f1\nb1,1,0,0.5\n").unwrap();
    let out = bin()
        .args(["mil", "predict"])
        .arg(dir.join("m1.json"))
        .arg(&other)
        .output()
        .unwrap();
    fails(&out, "features");
}

/// `mil fit --report` (issue 15 item 7): ROC curves (bags, and primary
/// instances when the file has the truth), the coefficients with their
/// intervals, and the instances of one bag, most likely primary first; a
/// bag name the data do not hold is refused before anything is written.
#[test]
fn fit_report_shows_roc_coefficients_and_a_bags_instances() {
    let d = tmpdir("mil-report");
    let data = simulate(&d, 120);
    let page = d.join("r.html");
    let page_s = page.to_string_lossy().into_owned();
    let o = bin()
        .args(["mil", "fit", &data, "--report", &page_s])
        .args(["--report-bag", "bag7"])
        .output()
        .unwrap();
    assert_ok(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("ROC curves") && html.contains("training bags (AUROC"));
    assert!(html.contains("primary instances (AUROC"));
    assert!(html.contains("Coefficients with 90% intervals") && html.contains("alpha"));
    assert!(html.contains("Instances of bag bag7") && html.contains("true primary"));
    assert_eq!(html.matches("<svg").count(), 2);
    // The default vMMIC says which of its intervals are still mean-field.
    assert!(html.contains("vb (linear-response covariance)"));
    assert!(html.contains("bag-level intervals (α, β, γ) are mean-field"));
    // The listed instances are sorted by P(primary), largest first.
    let table = &html[html.find("Instances of bag bag7").unwrap()..];
    let ps: Vec<f64> = table
        .split("<td>")
        .skip(1)
        .collect::<Vec<_>>()
        .chunks(4)
        .filter_map(|c| c.get(2)?.split('<').next()?.trim().parse().ok())
        .collect();
    assert!(
        !ps.is_empty() && ps.windows(2).all(|w| w[0] >= w[1]),
        "{ps:?}"
    );
    std::fs::remove_file(&page).unwrap();
    fails(
        &bin()
            .args([
                "mil",
                "fit",
                &data,
                "--report",
                &page_s,
                "--report-bag",
                "nope",
            ])
            .output()
            .unwrap(),
        "no bag named \"nope\"",
    );
    assert!(!page.exists());
}

/// `mil study` (Hu 2024 §2.3, Figs. 2.2–2.4): one small setting end to end
/// — the table's cells, the files of `--out-dir` (JSON, CSV and one SVG per
/// figure for a varied factor) — and one-line refusals of bad options.
#[test]
fn study_runs_a_setting_and_writes_its_figures() {
    // Preprocessing flags shared with fit/cv are refused, not ignored.
    for flags in [&["--standardise"][..], &["--components", "3"][..]] {
        let out = bin()
            .args(words("mil study --replicates 1"))
            .args(flags)
            .output()
            .unwrap();
        fails(&out, "--standardize/--components");
    }
    let dir = tmpdir("mil_study");
    let out_dir = dir.join("study");
    let out = bin()
        .args(common::QUICK_MIL_STUDY)
        .args(words(
            "--test-bags 60 --methods vmmic,si-mean --output json --out-dir",
        ))
        .arg(&out_dir)
        .output()
        .unwrap();
    let doc = json(&out);
    let cells = doc["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{doc}");
    for c in cells {
        assert_eq!(c["factor"], "bags");
        assert_eq!(c["level"], 250.0);
        let auc = c["mean_bag_auroc"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&auc), "{c}");
        assert!(c["mean_primary_auroc"].as_f64().unwrap().is_finite());
    }
    let vmmic = cells.iter().find(|c| c["method"] == "vmmic").unwrap();
    assert!(vmmic["mean_bag_auroc"].as_f64().unwrap() > 0.7, "{vmmic}");
    for f in [
        "study.json",
        "study.csv",
        "bag_auroc_bags.svg",
        "time_bags.svg",
        "primary_auroc_bags.svg",
    ] {
        let p = out_dir.join(f);
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(!text.is_empty(), "{f}");
    }
    let csv = std::fs::read_to_string(out_dir.join("study.csv")).unwrap();
    assert!(csv.starts_with("factor,level,method,replicates,bag_auroc,"));
    // One replicate: no sd over replicates (null, an empty CSV cell).
    assert!(cells.iter().all(|c| c["sd_bag_auroc"].is_null()), "{doc}");
    assert!(
        csv.lines().skip(1).all(|l| l.split(',').nth(5) == Some("")),
        "{csv}"
    );
    for (bad, needle) in [
        (["--factors", "speed"], "speed"),
        (["--methods", "svm"], "svm"),
        (["--replicates", "0"], "replicates"),
        (["--max-bags", "10"], "at most 10 training bags"),
    ] {
        let out = bin().args(["mil", "study"]).args(bad).output().unwrap();
        fails(&out, needle);
    }
}

#[test]
fn vb_starts_from_the_marginal_mode_the_prior_means_or_the_moments() {
    let dir = tmpdir("mil_vb_start");
    let narrow = simulate(&dir, 60);
    let wide = &common::mil_bags(&dir, "wide.csv", 30, 4, 50);
    let fit = |data: &str, extra: &[&str]| {
        bin()
            .args([
                "mil",
                "fit",
                data,
                "--output",
                "json",
                "--allow-nonconvergence",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let doc = json(&fit(&narrow, &[]));
    assert_eq!(doc["fit"]["vb_start"], "marginal");
    let doc = json(&fit(&narrow, &["--vb-start", "prior"]));
    assert_eq!(doc["fit"]["vb_start"], "prior");
    // 4 + 4 features: 28 pooled moments.
    let model = dir.join("moments.json");
    let doc = json(&fit(
        &narrow,
        &["--vb-start", "moments", "--out", model.to_str().unwrap()],
    ));
    assert_eq!(doc["fit"]["vb_start"], "moments");
    assert!(model.is_file());
    // 50 + 50 features: 2,650 pooled moments, refused before anything is
    // written; the marginal mode (the default) has no such limit.
    let refused = dir.join("refused.json");
    fails(
        &fit(
            wide,
            &["--vb-start", "moments", "--out", refused.to_str().unwrap()],
        ),
        "--components",
    );
    assert!(!refused.exists());
    let doc = json(&fit(wide, &["--max-iter", "20"]));
    assert_eq!(doc["fit"]["vb_start"], "marginal");
    fails(&fit(&narrow, &["--vb-start", "random"]), "--vb-start");
}

/// `--mixture K` fits K vMMIC optima and writes a model of their
/// equal-weight mixture that `predict` reads; the fit notes it; a mixture
/// of one, or `--mixture` with `--starts`, exit 2 with nothing written.
#[test]
fn a_mixture_of_optima_writes_a_model_that_predicts() {
    let dir = tmpdir("mil_mixture");
    let data = simulate(&dir, 60);
    let model = dir.join("mix.json");
    let out = fit_to(&data, &["--mixture", "3", "--output", "json"], &model);
    let fit = json(&out);
    assert_eq!(fit["fit"]["mixture_elbos"].as_array().unwrap().len(), 3);
    assert!(
        fit["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("mixture of 3 optima")),
        "{}",
        fit["notes"]
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(file["mixture"].as_array().unwrap().len(), 3);
    assert!(file.get("covariances").is_none());
    let out = bin()
        .args(["mil", "predict"])
        .arg(&model)
        .arg(&data)
        .args(["--output", "json"])
        .output()
        .unwrap();
    let pred = json(&out);
    assert_eq!(pred["bags"].as_array().unwrap().len(), 60);
    for (flags, named) in [
        (vec!["--mixture", "1"], "--mixture"),
        (vec!["--mixture", "3", "--starts", "2"], "--starts"),
    ] {
        let bad_model = dir.join("bad.json");
        let out = fit_to(&data, &flags, &bad_model);
        fails(&out, named);
        assert!(!bad_model.exists(), "{flags:?} wrote a model");
    }
}

#[test]
fn linear_response_widens_the_instance_level_and_keeps_the_means() {
    let dir = tmpdir("mil_linear_response");
    let data = simulate(&dir, 60);
    let read = |name: &str, flags: &[&str]| -> (serde_json::Value, Vec<(String, f64, f64)>) {
        let model = dir.join(name);
        let fit = json(&fit_to(
            &data,
            &[flags, &["--output", "json"]].concat(),
            &model,
        ));
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
        // The model file names its covariance as the fit document does.
        assert_eq!(file["covariance"], fit["fit"]["covariance"]);
        let params = file["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["mean"].as_f64().unwrap(),
                    p["sd"].as_f64().unwrap(),
                )
            })
            .collect();
        (fit, params)
    };
    let (mf_fit, mf) = read("mf.json", &["--covariance", "mean-field"]);
    let (lr_fit, lr) = read("lr.json", &["--covariance", "linear-response"]);
    assert_eq!(lr_fit["fit"]["covariance"], "linear-response");
    assert_eq!(mf_fit["fit"]["covariance"], "mean-field");
    // Linear response is the default: the same model file without the flag.
    let (default_fit, _) = read("default.json", &[]);
    assert_eq!(default_fit["fit"]["covariance"], "linear-response");
    assert_eq!(
        std::fs::read_to_string(dir.join("default.json")).unwrap(),
        std::fs::read_to_string(dir.join("lr.json")).unwrap()
    );
    // The same optimum: every mean, the ELBO and the bag level's sds agree;
    // the instance level's sds grow (mean-field's are those of a regression
    // on 240 observed latent variables).
    assert_eq!(mf_fit["fit"]["elbo"], lr_fit["fit"]["elbo"]);
    let instance_level =
        |n: &str| n == "a" || n == "c" || n.starts_with("b[") || n.starts_with("d[");
    let mut widened = 0;
    for ((name, m0, s0), (name1, m1, s1)) in mf.iter().zip(&lr) {
        assert_eq!(name, name1);
        assert_eq!(m0, m1, "{name}");
        if instance_level(name) {
            assert!(s1 > s0, "{name}: sd {s1} against mean-field {s0}");
            widened += 1;
        } else {
            assert_eq!(s0, s1, "{name}");
        }
    }
    assert!(widened >= 2, "{widened}");
    // Predictions from a mean-field model say so on standard error (a
    // model file without the key, written before it existed, too); from
    // the default model they do not.
    let predict_err = |model: &std::path::Path| {
        let out = bin()
            .args(["mil", "predict"])
            .arg(model)
            .arg(&data)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    assert_eq!(predict_err(&dir.join("lr.json")), "");
    let note = predict_err(&dir.join("mf.json"));
    assert!(
        note.starts_with("note: the model has mean-field covariances"),
        "{note}"
    );
    assert_eq!(note.lines().count(), 1);
    let mut old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("mf.json")).unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("covariance");
    std::fs::write(dir.join("old.json"), old.to_string()).unwrap();
    assert!(predict_err(&dir.join("old.json")).contains("names no covariance"));
    let out = fit_to(&data, &["--covariance", "lr"], &dir.join("bad.json"));
    fails(&out, "--covariance");
    assert!(!dir.join("bad.json").exists());
}

/// An out-of-range optimum count is reported under the flag the user
/// typed: `--mixture K` sets the count of starts internally, and its error
/// once named `--starts`.
#[test]
fn optimum_counts_are_refused_under_their_own_flag() {
    let dir = common::tmpdir("mil-counts");
    let data = simulate(&dir, 20);
    let model = dir.join("m.json");
    for (flags, needle) in [
        (["--mixture", "5000"], "--mixture: between 2 and 1000"),
        (["--mixture", "1"], "--mixture"),
        (["--starts", "5000"], "--starts: between 1 and 1000"),
    ] {
        common::fails(&fit_to(&data, &flags, &model), needle);
        assert!(!model.exists());
    }
}

/// Copy the long CSV `data` to `to`, replacing each filled feature cell by
/// `edit(column, value)` where that gives a value; returns `to`'s path.
fn edit_columns(
    data: &str,
    to: &std::path::Path,
    edit: impl Fn(&str, f64) -> Option<f64>,
) -> String {
    let text = std::fs::read_to_string(data).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut out = header.join(",") + "\n";
    for l in lines {
        let mut f: Vec<String> = l.split(',').map(String::from).collect();
        for (cell, name) in f.iter_mut().zip(&header) {
            if name.starts_with('m')
                && name.contains('_')
                && !cell.is_empty()
                && let Some(v) = edit(name, cell.parse().unwrap())
            {
                *cell = v.to_string();
            }
        }
        out.push_str(&(f.join(",") + "\n"));
    }
    std::fs::write(to, out).unwrap();
    to.to_str().unwrap().to_string()
}

/// A feature constant over its modality's instances (here one at 0 and one
/// at 2.5) is named in a note: its instance-level slope is not identified
/// apart from the intercept. Varying features draw no such note.
#[test]
fn constant_features_are_named_in_a_note() {
    let dir = tmpdir("mil_constant");
    let data = simulate(&dir, 60);
    let constant = edit_columns(&data, &dir.join("constant.csv"), |name, _| match name {
        "m0_f2" => Some(0.0),
        "m1_f4" => Some(2.5),
        _ => None,
    });
    let model = dir.join("m.json");
    for (file, noted) in [(constant.as_str(), true), (data.as_str(), false)] {
        let o = fit_to(file, &["--output", "json"], &model);
        assert_ok(&o);
        let notes = json(&o)["notes"].to_string();
        assert_eq!(
            notes.contains(
                "2 feature(s) constant over the training instances of their modality (m0_f2, \
                 m1_f4): their instance-level slopes (b, d) are not identified apart from the \
                 intercept"
            ),
            noted,
            "{file}: {notes}"
        );
    }
}

/// Features far from the unit scale the slope priors assume (here one in
/// units 10⁵ times too small and one 10³ times too large) are named in a
/// note with their sds; the simulated, unit-scale features and a
/// standardised fit draw none.
#[test]
fn features_off_the_priors_scale_are_named_in_a_note() {
    let dir = tmpdir("mil_off_scale");
    let data = simulate(&dir, 60);
    let scaled = edit_columns(&data, &dir.join("scaled.csv"), |name, x| match name {
        "m0_f3" => Some(x * 1e5),
        "m1_f1" => Some(x * 1e-3),
        _ => None,
    });
    let scaled = scaled.as_str();
    let model = dir.join("m.json");
    let note = "2 feature(s) far from the unit scale the slope priors assume (m0_f3 sd ";
    for (file, flags, noted) in [
        (scaled, &[][..], true),
        (scaled, &["--standardise"][..], false),
        (data.as_str(), &[][..], false),
    ] {
        let o = fit_to(file, &[flags, &["--output", "json"]].concat(), &model);
        assert_ok(&o);
        let notes = json(&o)["notes"].to_string();
        assert_eq!(notes.contains(note), noted, "{file} {flags:?}: {notes}");
        if noted {
            assert!(
                notes.contains("e4, m1_f1 sd 0.00") || notes.contains("e5, m1_f1 sd 0.00"),
                "{notes}"
            );
            assert!(
                notes.contains("(--standardize) or set --slope-var"),
                "{notes}"
            );
        }
    }
}

/// A model fitted without modality-1 instances keeps that modality's
/// prior; predicting bags that hold such instances says so (their
/// p_primary and share of p are the prior's), and bags without them draw
/// no note. The model file records its training instances per modality.
#[test]
fn predictions_from_an_unseen_modality_are_noted() {
    let dir = tmpdir("mil_unseen_modality");
    let data = simulate(&dir, 60);
    let text = std::fs::read_to_string(&data).unwrap();
    let mut lines = text.lines();
    let mut uni = String::from(lines.next().unwrap());
    uni.push('\n');
    for l in lines.filter(|l| l.split(',').nth(2) == Some("0")) {
        uni.push_str(l);
        uni.push('\n');
    }
    let uni_path = dir.join("uni.csv");
    std::fs::write(&uni_path, uni).unwrap();
    let uni_path = uni_path.to_str().unwrap();
    let model = dir.join("m.json");
    assert_ok(&fit_to(uni_path, &[], &model));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(m["training_instances"][1], 0, "{}", m["training_instances"]);
    let predict = |file: &str| {
        bin()
            .args(["mil", "predict", model.to_str().unwrap(), file])
            .output()
            .unwrap()
    };
    let o = predict(&data);
    assert_ok(&o);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "note: the model was fitted without modality-1 instances: that modality's \
             coefficients are the prior's"
        ),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = predict(uni_path);
    assert_ok(&o);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("without modality"));
}
