//! `plackett tree`: Plackett–Luce trees end to end — the JSON contract
//! (issue keys), the saved model, and bad input (one line, exit 2,
//! nothing written).

use crate::common::{assert_ok, bin, data, fails, json, tmpdir};

fn tree_args(cov: &str) -> Vec<String> {
    vec![
        "tree".into(),
        data("tricot-sim")
            .join("rankings.csv")
            .to_string_lossy()
            .into_owned(),
        "--ranking-col".into(),
        "trial".into(),
        "--item-col".into(),
        "variety".into(),
        "--ranker-col".into(),
        "farmer".into(),
        "--covariates".into(),
        cov.into(),
        "--covariate-key".into(),
        "farmer".into(),
    ]
}

fn shipped_cov() -> String {
    data("tricot-sim")
        .join("covariates.csv")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn tree_json_contract_and_saved_model() {
    let d = tmpdir("tree-json");
    let model = d.join("tree.json");
    let out = bin()
        .args(tree_args(&shipped_cov()))
        .args(["--minsize", "80", "--output", "json", "--model-out"])
        .arg(&model)
        .output()
        .unwrap();
    assert_ok(&out);
    let v = json(&out);
    assert_eq!(v["family"], "tree");
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 5);
    assert!(nodes[0]["parent"].is_null());
    assert_eq!(nodes[0]["split"]["variable"], "night_temp");
    assert_eq!(nodes[0]["split"]["threshold"], 17.99);
    assert_eq!(nodes[2]["split"]["variable"], "region");
    let leaf = &nodes[1];
    assert_eq!(leaf["terminal"], true);
    assert_eq!(leaf["n"], 308);
    let items = leaf["items"].as_array().unwrap();
    assert_eq!(items.len(), 8);
    assert!(
        items
            .iter()
            .all(|i| i["log_worth_se"].as_f64().unwrap() > 0.0)
    );
    for t in nodes[0]["tests"].as_array().unwrap() {
        assert!(
            t["variable"].is_string() && t["statistic"].is_number() && t["p_value"].is_number()
        );
    }
    assert!((v["log_likelihood"].as_f64().unwrap() + 1993.8722).abs() < 1e-3);
    assert!(v["aic"].is_number());
    let saved = std::fs::read_to_string(&model).unwrap();
    assert!(saved.contains("\"format\": \"plackett-tree-model/1\""));
    // New rankers routed by the saved tree: leaf, log-worths, P(A beats B).
    let new = d.join("new.csv");
    std::fs::write(
        &new,
        "farmer,night_temp,region\nn1,16.5,north\nn2,20.1,east\nn3,,west\n",
    )
    .unwrap();
    let out = bin()
        .args(["predict", model.to_str().unwrap(), new.to_str().unwrap()])
        .args([
            "--covariate-key",
            "farmer",
            "--compare",
            "Amani,Chapa",
            "--output",
            "json",
        ])
        .output()
        .unwrap();
    assert_ok(&out);
    let p = json(&out);
    let rankers = p["rankers"].as_array().unwrap();
    assert_eq!(rankers[0]["node"], 2);
    assert_eq!(rankers[1]["node"], 4);
    assert!(rankers[2]["node"].is_null());
    assert!(
        rankers[2]["reason"]
            .as_str()
            .unwrap()
            .contains("night_temp")
    );
    let leaf4 = nodes[3]["items"].as_array().unwrap();
    let lw = |n: &str| {
        leaf4.iter().find(|i| i["name"] == n).unwrap()["log_worth"]
            .as_f64()
            .unwrap()
    };
    let want = 1.0 / (1.0 + (lw("Chapa") - lw("Amani")).exp());
    let got = rankers[1]["comparisons"][0]["p_a_beats_b"]
        .as_f64()
        .unwrap();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    // A covariate table without a split variable is refused, naming it.
    std::fs::write(&new, "farmer,region\nn1,north\n").unwrap();
    let out = bin()
        .args([
            "predict",
            model.to_str().unwrap(),
            new.to_str().unwrap(),
            "--covariate-key",
            "farmer",
        ])
        .output()
        .unwrap();
    fails(&out, "no covariate column \"night_temp\"");
}

#[test]
fn tree_bad_input_is_one_line_and_writes_nothing() {
    let d = tmpdir("tree-bad");
    let model = d.join("never.json");
    let run = |cov: &str, extra: &[&str]| {
        bin()
            .args(tree_args(cov))
            .args(extra)
            .arg("--model-out")
            .arg(&model)
            .output()
            .unwrap()
    };
    // The key column is not in the covariate file.
    let mut args = tree_args(&shipped_cov());
    *args.last_mut().unwrap() = "id".into();
    let out = bin()
        .args(args)
        .arg("--model-out")
        .arg(&model)
        .output()
        .unwrap();
    fails(&out, "no key column \"id\"");
    // Rankers without covariates.
    let few = d.join("few.csv");
    std::fs::write(&few, "farmer,night_temp\nF001,15\nF002,19\n").unwrap();
    fails(
        &run(few.to_str().unwrap(), &[]),
        "598 ranker(s) of the rankings have no row",
    );
    // A repeated key.
    let dup = d.join("dup.csv");
    std::fs::write(&dup, "farmer,x\nF001,1\nF001,2\n").unwrap();
    fails(&run(dup.to_str().unwrap(), &[]), "dup.csv:3");
    // Options out of range.
    fails(&run(&shipped_cov(), &["--alpha", "0"]), "--alpha");
    fails(&run(&shipped_cov(), &["--minsize", "0"]), "--minsize");
    fails(&run(&shipped_cov(), &["--prune", "cp"]), "--prune");
    fails(
        &run(&shipped_cov(), &["--reference", "Nobody"]),
        "--reference",
    );
    assert!(!model.exists(), "nothing is written on failure");
}

#[test]
fn tree_notes_what_it_cannot_use() {
    let d = tmpdir("tree-notes");
    // A constant covariate and a single-level factor are not tested; a
    // missing value drops its ranker with a note; minsize above half the
    // data leaves the root alone, with a note.
    let src = std::fs::read_to_string(data("tricot-sim").join("covariates.csv")).unwrap();
    let mut text = String::from("farmer,night_temp,one_level,constant\n");
    for (k, line) in src.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        let t = if k == 0 { "NA" } else { f[1] };
        text.push_str(&format!("{},{t},same,3\n", f[0]));
    }
    let cov = d.join("cov.csv");
    std::fs::write(&cov, text).unwrap();
    let out = bin()
        .args(tree_args(cov.to_str().unwrap()))
        .args(["--output", "json"])
        .output()
        .unwrap();
    assert_ok(&out);
    let v = json(&out);
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("1 ranker(s) with a missing covariate value"),
        "{notes}"
    );
    let tests = v["nodes"][0]["tests"].as_array().unwrap();
    assert!(tests[1]["statistic"].is_null() && tests[2]["statistic"].is_null());
    assert_eq!(v["nodes"][0]["n"], 599);
    let out = bin()
        .args(tree_args(cov.to_str().unwrap()))
        .args(["--minsize", "400", "--output", "json"])
        .output()
        .unwrap();
    assert_ok(&out);
    let v = json(&out);
    assert_eq!(v["nodes"].as_array().unwrap().len(), 1);
    assert!(v["notes"].to_string().contains("fewer than twice minsize"));
}
