//! What the HTML reports say and draw (issue 17 item 13), checked on the
//! pages themselves: captions that match the data, no bare figure numbers,
//! axis labels, point estimates in every panel. Screenshots of these pages
//! were looked at in headless Chromium when the checks were written.

use crate::common;
use crate::common::then;
use crate::common::words;

use common::{assert_ok, bin, data, tmpdir};

fn s(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn fit_report_rank_marginals_caption_matches_the_data() {
    let d = tmpdir("report-fit");
    let page = d.join("salad.html");
    let salad = data("salad").join("rankings.csv");
    let o = bin()
        .args(then(
            &["fit", &s(&salad)],
            "--ranking-col judge --engine gibbs",
        ))
        .args(words("--samples 300 --burn-in 100 --report"))
        .arg(&s(&page))
        .output()
        .unwrap();
    assert_ok(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    // Four items: all of them are shown, and the caption says so (it
    // claimed "top and bottom five items").
    assert!(html.contains("all 4 items, best first"), "caption");
    assert!(!html.contains("top and bottom five"));
    assert!(html.contains("square-root scale at the right"));
    // The diagnostics table is sorted by R̂, worst first.
    assert!(html.contains("worst R̂ first"));
}

#[test]
fn fit_report_of_ties_as_events_shows_rank_marginals_with_shared_places() {
    let d = tmpdir("report-fit-ties");
    let page = d.join("pudding.html");
    let pud = data("pudding").join("pairs.csv");
    let o = bin()
        .args(then(&["fit", &s(&pud)], "--format pairs --ties event"))
        .args(["--report", &s(&page)])
        .output()
        .unwrap();
    assert_ok(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Rank marginals"), "panel");
    assert!(html.contains("all 6 items, best first"));
    assert!(html.contains("tied items share their place"), "caption");
}

#[test]
fn demo_report_labels_its_axis_and_does_not_promise_coverage() {
    let d = tmpdir("report-demo");
    let page = d.join("demo.html");
    let o = bin()
        .args(["demo", "--report", &s(&page)])
        .output()
        .unwrap();
    assert_ok(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("item (its true worth is its number)"));
    assert!(!html.contains("cover the truth"));
    assert!(html.contains("misses the truth about one time in twenty"));
}

/// One case (or a few) is a table of its numbers, not a chart of a dot on
/// a bare axis (issue 91 item 29); enough cases are charted.
#[test]
fn evaluate_report_of_one_case_is_a_table() {
    let d = tmpdir("report-eval-one");
    let derm = data("dermatology-ddx");
    let page = |cases: &str| {
        let p = d.join(format!("eval-{}.html", cases.len()));
        let o = bin()
            .args(["evaluate", &s(&derm.join("dermatology_selectors.json"))])
            .args(["--predictions", "annotator:leave-one-out"])
            .args(["--classes", &s(&derm.join("dermatology_conditions.txt"))])
            .args(["--cases", cases])
            .args(words("--samples 30 --output json"))
            .args(["--report", &s(&p)])
            .output()
            .unwrap();
        assert_ok(&o);
        std::fs::read_to_string(&p).unwrap()
    };
    let one = page("7");
    assert!(one.contains("Annotation certainty and agreement per case"));
    assert!(
        one.contains("<th>top-1 certainty</th>"),
        "a table of the case"
    );
    assert!(!one.contains("Annotation certainty per case (as Stutz"));
    let many = page("0,1,2,3,4,5");
    assert!(many.contains("Annotation certainty per case (as Stutz"));
}

#[test]
fn evaluate_report_shows_the_point_estimate_in_every_panel() {
    let d = tmpdir("report-eval");
    let page = d.join("eval.html");
    let derm = data("dermatology-ddx");
    let o = bin()
        .args(["evaluate", &s(&derm.join("dermatology_selectors.json"))])
        .args(["--predictions", "annotator:leave-one-out"])
        .args(["--classes", &s(&derm.join("dermatology_conditions.txt"))])
        .args(words("--cases 0,1,2,3,4 --samples 30 --reliability 1,3"))
        .args(["--output", "json", "--report", &s(&page)])
        .output()
        .unwrap();
    assert_ok(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    // Three panels, each with the point-estimate reference in its legend;
    // "point estimate" is no longer an x position joined to the
    // reliabilities by a line.
    assert_eq!(
        html.matches(">\nagainst the point estimate\n</text>")
            .count(),
        3
    );
    assert!(!html.contains(">\npoint estimate\n</text>"));
    assert!(html.contains(">\nreliability\n</text>"));
    // Figure numbers always name their paper.
    assert!(!html.contains("(Fig."));
    // Against the point estimate, set accuracy and average overlap at k = 1
    // are top-1 accuracy (one class either way).
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = v["topk_accuracy"]["1"].as_f64().unwrap();
    assert_eq!(v["topk_set_accuracy"]["1"].as_f64().unwrap(), a);
    assert_eq!(v["average_overlap"]["1"].as_f64().unwrap(), a);
    let (s3, o3) = (
        v["topk_set_accuracy"]["3"].as_f64().unwrap(),
        v["average_overlap"]["3"].as_f64().unwrap(),
    );
    assert!((0.0..=1.0).contains(&s3) && (0.0..=1.0).contains(&o3));
}
