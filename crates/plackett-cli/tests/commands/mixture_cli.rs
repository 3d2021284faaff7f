//! `plackett fit --components`: finite PL mixtures end to end.

use crate::common;
use crate::common::then;

use common::{assert_ok, bin, fails, json, tmpdir};

/// Two populations of rankers over four items: one mostly ranks 1, 2, 3, 4
/// in that order, the other mostly the reverse (with a few rotations
/// each), written in PLMIX's wide layout with some top-2 rows.
fn two_populations(dir: &std::path::Path) -> String {
    let mut s = String::from("Rank_1,Rank_2,Rank_3,Rank_4\n");
    let a = ["1,2,3,4", "1,2,4,3", "2,1,3,4", "1,3,2,4", "1,2,0,0"];
    let b = ["4,3,2,1", "4,3,1,2", "3,4,2,1", "4,2,3,1", "4,3,0,0"];
    for k in 0..60 {
        s.push_str(a[k % a.len()]);
        s.push('\n');
        if k % 3 != 0 {
            s.push_str(b[k % b.len()]);
            s.push('\n');
        }
    }
    let p = dir.join("two.csv");
    std::fs::write(&p, s).unwrap();
    p.to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> std::process::Output {
    bin().arg("fit").args(args).output().unwrap()
}

#[test]
fn mixture_json_contract_and_bic_sweep() {
    let d = tmpdir("mixture-json");
    let f = two_populations(&d);
    let v = json(&run(&then(
        &[&f],
        "--format orderings --top-k --components 1:3 --output json",
    )));
    let choice = v["model_choice"].as_array().unwrap();
    assert_eq!(choice.len(), 3);
    let best = choice
        .iter()
        .min_by(|a, b| {
            a["bic"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["bic"].as_f64().unwrap())
        })
        .unwrap();
    assert_eq!(v["selected_components"], best["components"]);
    assert_eq!(v["selected_components"], 2, "two populations");
    assert!(
        choice
            .iter()
            .all(|r| r["dic"].is_null() && r["bpic"].is_null())
    );
    let comps = v["components"].as_array().unwrap();
    let w: f64 = comps.iter().map(|c| c["weight"].as_f64().unwrap()).sum();
    assert!((w - 1.0).abs() < 1e-12);
    assert!(comps.iter().all(|c| c["weight_sd"].is_null()));
    for c in comps {
        let items = c["items"].as_array().unwrap();
        assert_eq!(items.len(), 4);
        let s: f64 = items.iter().map(|i| i["worth"].as_f64().unwrap()).sum();
        assert!((s - 1.0).abs() < 1e-12);
        assert!(items[0]["name"].is_string() && items[0]["log_worth"].is_f64());
    }
    let n = v["n_observations"].as_u64().unwrap() as usize;
    let m = v["membership"].as_array().unwrap();
    assert_eq!(m.len(), n);
    for row in m {
        let p: f64 = row
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .sum();
        assert!((p - 1.0).abs() < 1e-9);
    }
    assert!(v["log_likelihood"].as_f64().unwrap() < 0.0);
    // The first population's rankers belong to the component ranking 1 on top.
    let top1 = comps
        .iter()
        .position(|c| {
            let it = c["items"].as_array().unwrap();
            it[0]["log_worth"].as_f64().unwrap() > it[3]["log_worth"].as_f64().unwrap()
        })
        .unwrap();
    assert!(m[0][top1].as_f64().unwrap() > 0.9);
}

#[test]
fn mixture_csv_table_compare_and_test() {
    let d = tmpdir("mixture-out");
    let f = two_populations(&d);
    let common = then(&[f.as_str()], "--format orderings --top-k --components 2");
    let out = run(&[&common[..], &["--output", "csv"]].concat());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("component,weight,item,worth,log_worth\n"));
    assert_eq!(text.lines().count(), 1 + 2 * 4);
    let out = run(&[&common[..], &["--compare", "1,4", "--test", &f]].concat());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("component 2 (weight"), "{table}");
    assert!(table.contains("P(1 beats 4)"), "{table}");
    assert!(table.contains("held-out log-likelihood"), "{table}");
    // The same seed gives the same bytes.
    let a = run(&[&common[..], &["--output", "json", "--seed", "9"]].concat()).stdout;
    let b = run(&[&common[..], &["--output", "json", "--seed", "9"]].concat()).stdout;
    assert_eq!(a, b);
}

/// Rank marginals for a ranker drawn from the mixture: each row a
/// distribution over places, and the first place's column the mixture's
/// exact first-choice probabilities `Σ_g ω_g λ_gi / Σ_j λ_gj` (from the
/// printed components) up to the races' Monte Carlo error; the two
/// populations put item 1 first and last in turn, so its place is bimodal.
#[test]
fn mixture_rank_marginals_match_the_components() {
    let d = tmpdir("mixture-rm");
    let f = two_populations(&d);
    let rm = d.join("rm.csv");
    let out = run(&[
        f.as_str(),
        "--format",
        "orderings",
        "--top-k",
        "--components",
        "2",
        "--output",
        "json",
        "--rank-marginals",
        rm.to_str().unwrap(),
    ]);
    let v = json(&out);
    let text = std::fs::read_to_string(&rm).unwrap();
    assert!(
        text.starts_with("item,place_1,place_2,place_3,place_4\n"),
        "{text}"
    );
    let rows: Vec<(String, Vec<f64>)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let mut it = l.split(',');
            let name = it.next().unwrap().to_string();
            (name, it.map(|x| x.parse().unwrap()).collect())
        })
        .collect();
    assert_eq!(rows.len(), 4);
    let comps = v["components"].as_array().unwrap();
    for (name, r) in &rows {
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{name}: {r:?}");
        let exact: f64 = comps
            .iter()
            .map(|c| {
                let items = c["items"].as_array().unwrap();
                let lw = |n: &str| {
                    items.iter().find(|i| i["name"] == n).unwrap()["log_worth"]
                        .as_f64()
                        .unwrap()
                };
                let z: f64 = items
                    .iter()
                    .map(|i| i["log_worth"].as_f64().unwrap().exp())
                    .sum();
                c["weight"].as_f64().unwrap() * lw(name).exp() / z
            })
            .sum();
        // 20,000 races per component: sd below 0.0036.
        assert!((r[0] - exact).abs() < 0.018, "{name}: {} vs {exact}", r[0]);
    }
    let one = &rows.iter().find(|(n, _)| n == "1").unwrap().1;
    assert!(one[0] > 0.3 && one[3] > 0.2 && one[1] < one[0], "{one:?}");
    // With --adherence instead of --components: a new ranker's places
    // (adherence_cli.rs checks them against exact first choices); with
    // both, refused before anything is written.
    let rm2 = d.join("rm2.csv");
    let adh = run(&[
        f.as_str(),
        "--format",
        "orderings",
        "--top-k",
        "--adherence",
        "--rank-marginals",
        rm2.to_str().unwrap(),
    ]);
    assert_ok(&adh);
    assert!(
        std::fs::read_to_string(&rm2)
            .unwrap()
            .starts_with("item,place_1,")
    );
    let rm3 = d.join("rm3.csv");
    fails(
        &run(&[
            f.as_str(),
            "--format",
            "orderings",
            "--top-k",
            "--adherence",
            "--components",
            "2",
            "--rank-marginals",
            rm3.to_str().unwrap(),
        ]),
        "not supported",
    );
    assert!(!rm3.exists());
}

#[test]
fn mixture_bad_options_fail_cleanly() {
    let d = tmpdir("mixture-bad");
    let f = two_populations(&d);
    let base = [f.as_str(), "--format", "orderings", "--top-k"];
    for (extra, needle) in [
        (vec!["--components", "0"], "--components"),
        (vec!["--components", "x"], "--components"),
        (vec!["--components", "3:1"], "--components"),
        (vec!["--components", "2", "--engine", "ep"], "not supported"),
        (
            vec!["--components", "2", "--engine", "gibbs", "--tol", "1e-5"],
            "--tol",
        ),
        (
            vec!["--components", "2", "--samples", "100"],
            "only with --engine gibbs",
        ),
        (
            vec!["--components", "2", "--prior-shape", "3"],
            "--prior-shape",
        ),
        (vec!["--components", "2", "--reference", "1"], "--reference"),
        (vec!["--components", "2", "--starts", "0"], "--starts"),
        (
            vec!["--components", "2", "--engine", "map", "--dirichlet", "0.5"],
            "--dirichlet",
        ),
        (
            vec![
                "--components",
                "2",
                "--engine",
                "map",
                "--prior-shape",
                "0.5",
            ],
            "--prior-shape",
        ),
        (vec!["--starts", "3"], "only with --components"),
        (
            vec!["--components", "2", "--compare", "1,9"],
            "no item named",
        ),
    ] {
        fails(&run(&[&base[..], &extra[..]].concat()), needle);
    }
    // Rows with a rank after an unranked position name the file and line.
    let bad = d.join("gap.csv");
    std::fs::write(&bad, "Rank_1,Rank_2,Rank_3\n1,2,3\n1,0,3\n").unwrap();
    fails(
        &run(&then(
            &[bad.to_str().unwrap()],
            "--format orderings --components 2",
        )),
        "gap.csv:3",
    );
}

/// PLMIX 2.2.0's maxima on its own data, through the CLI (skipped when
/// `../shared/data/plmix` is absent; the library test covers every target).
#[test]
fn plmix_gaming_through_the_cli() {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/plmix");
    if !dir.is_dir() {
        eprintln!("skipped: {} not found", dir.display());
        return;
    }
    let f = dir.join("d_gaming.csv");
    let v = json(&run(&then(
        &[f.to_str().unwrap()],
        "--format orderings --top-k --components 1:3 --output json",
    )));
    let ll: Vec<f64> = v["model_choice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["log_likelihood"].as_f64().unwrap())
        .collect();
    for (a, b) in ll.iter().zip([-546.822488, -521.682255, -506.957252]) {
        assert!((a - b).abs() < 1e-4, "{ll:?}");
    }
}

/// `--report` with `--components`: a self-contained page with one worth
/// chart per component, the membership histogram and (Gibbs) the
/// predictive checks; written only when the run succeeds.
#[test]
fn mixture_html_report() {
    let d = tmpdir("mixture-report");
    let f = two_populations(&d);
    let page = d.join("mix.html");
    let out = run(&[
        &f,
        "--format",
        "orderings",
        "--top-k",
        "--components",
        "2",
        "--engine",
        "gibbs",
        "--samples",
        "300",
        "--burn-in",
        "100",
        "--chains",
        "2",
        "--starts",
        "2",
        "--report",
        page.to_str().unwrap(),
        "--output",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"), "self-contained, no scripts");
    // One chart of both components over a shared item axis, each named
    // with its weight in the legend (issue 91 item 35: it was one chart
    // per component, on different ranges and item orders), and the data
    // file in the title.
    assert!(html.contains("component 1 (weight") && html.contains("component 2 (weight"));
    assert!(
        html.contains("<title>Plackett–Luce mixture of "),
        "the file in the title"
    );
    assert!(html.contains("Membership") && html.contains("Posterior predictive checks"));
    // The components' chart, the membership histogram, the top-1 check.
    assert!(
        html.matches("<svg").count() >= 3,
        "{}",
        html.matches("<svg").count()
    );
    // A failing run writes nothing.
    let page2 = d.join("not.html");
    fails(
        &run(&[
            &f,
            "--format",
            "orderings",
            "--components",
            "2",
            "--report",
            page2.to_str().unwrap(),
            "--out",
            d.join("no/such/dir/x.json").to_str().unwrap(),
        ]),
        "x.json",
    );
    assert!(!page2.exists());
}

/// Items 0–3 and 4–5 in two groups never compared, item 4 never losing,
/// and one single-item observation (dropped as uninformative).
fn disconnected(dir: &std::path::Path) -> String {
    let p = dir.join("d.json");
    std::fs::write(
        &p,
        "[[0,1],[1,0],[0,1],[2,3],[3,2],[2,3],[4,5,2],[0,1],[3,2],[1]]",
    )
    .unwrap();
    p.to_string_lossy().into_owned()
}

/// A mixture's maximum likelihood needs Hunter's (2004) Assumption 1 of
/// the pooled data, as the single-population MLE does: item 4 never loses,
/// so raising its worth in every component never lowers the likelihood and
/// the EM drifted to log-worths in the hundreds, reported as converged.
/// Refused now, with the mixture's remedies.
#[test]
fn mixture_mle_refuses_data_without_a_maximum() {
    let d = tmpdir("mixture-no-mle");
    let f = disconnected(&d);
    for g in ["1", "2", "3"] {
        fails(
            &run(&[&f, "--components", g]),
            "the mixture's maximum-likelihood estimate does not exist in any component \
             (comparison graph not strongly connected, Hunter 2004 Assumption 1): 1 item never \
             lost to anyone: 4; remedies: --engine map",
        );
    }
}

/// MAP mixtures carry the same data notes as a single-population fit:
/// observations dropped, and groups never compared (whose contrasts the
/// prior alone fixes) — for one component too, which had neither.
#[test]
fn mixture_reports_carry_the_data_notes() {
    let d = tmpdir("mixture-notes");
    let f = disconnected(&d);
    for g in ["1", "2"] {
        let v = json(&run(&[
            &f,
            "--engine",
            "map",
            "--components",
            g,
            "--output",
            "json",
        ]));
        let notes = v["notes"].to_string();
        assert!(
            notes.contains("1 uninformative observation was dropped"),
            "{g}: {notes}"
        );
        assert!(
            notes.contains(
                "the items fall into 2 groups never compared with each other (sizes 4, 2): worth \
                 contrasts between groups come from the prior alone"
            ),
            "{g}: {notes}"
        );
    }
}

/// Three components for seven rankings of three items: maximum likelihood
/// lets a component specialise in rankings that never choose an item
/// first, and that item's log-worth runs off to hundreds below the rest
/// while EM reports convergence. The report says those log-worths are not
/// estimates and names the items; MAP keeps them finite and draws no note.
#[test]
fn boundary_components_are_noted() {
    let d = tmpdir("mixture-boundary");
    let f = d.join("b.json");
    std::fs::write(
        &f,
        "[[0,1,2],[0,1,2],[2,1,0],[2,1,0],[1,0,2],[1,2,0],[0,2,1]]",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let v = json(&run(&then(&[f], "--components 3 --output json")));
    let notes: Vec<String> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    let boundary: Vec<&String> = notes.iter().filter(|n| n.contains("boundary")).collect();
    assert!(!boundary.is_empty(), "{notes:?}");
    for n in &boundary {
        assert!(
            n.contains("are 0 to double precision") && n.contains("--engine map"),
            "{n}"
        );
    }
    // Every flagged item is indeed more than 36 below its component's best.
    let comps = v["components"].as_array().unwrap();
    let flagged = comps
        .iter()
        .filter(|c| {
            let lw: Vec<f64> = c["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["log_worth"].as_f64().unwrap())
                .collect();
            let top = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            lw.iter().any(|&l| l - top < -36.0)
        })
        .count();
    assert_eq!(flagged, boundary.len(), "{notes:?}");
    let v = json(&run(&then(
        &[f],
        "--components 3 --engine map --output json",
    )));
    assert!(!v["notes"].to_string().contains("boundary"));
}
