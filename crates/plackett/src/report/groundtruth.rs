//! HTML reports of `aggregate` and `evaluate` (Stutz et al. 2023, Figs
//! 5–8), for the command line and Python alike.

use super::{HtmlReport, charts};
use crate::groundtruth::measures::dataset_mean_sd;
use crate::groundtruth::models::Method;
use crate::groundtruth::run::RunResult;
use crate::groundtruth::summary::method_label;

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(|a, b| a.total_cmp(b));
    v
}

/// Below this many cases the certainty and agreement charts would be a
/// dot or two on a bare axis: the page shows their numbers in a table.
const MIN_CASES_PLOTTED: usize = 5;

/// Certainty and agreement of a few cases, as a table.
fn few_cases(page: &mut HtmlReport, res: &RunResult) {
    page.heading("Annotation certainty and agreement per case");
    let f = |x: f64| format!("{x:.3}");
    let rows: Vec<Vec<String>> = res
        .cases
        .iter()
        .map(|r| {
            vec![
                r.case.to_string(),
                r.n_annotators.to_string(),
                f(r.certainty[0]),
                f(r.certainty[1]),
                f(r.certainty[2]),
                r.agreement.map_or("—".into(), f),
            ]
        })
        .collect();
    page.table(
        &[
            "case",
            "annotators",
            "top-1 certainty",
            "top-2 (set)",
            "top-3 (set)",
            "leave-one-out agreement",
        ],
        &rows,
    );
    page.para(&format!(
        "{} cases: too few to chart (Stutz et al. 2023, Figs. 7 and 14, sort and scatter hundreds). \
         Agreement needs at least two annotators.",
        res.cases.len()
    ));
}

/// Certainty per case (sorted curves) and against agreement (a scatter).
fn certainty_charts(page: &mut HtmlReport, res: &RunResult) {
    let cert1: Vec<f64> = res.cases.iter().map(|r| r.certainty[0]).collect();
    let cert2: Vec<f64> = res.cases.iter().map(|r| r.certainty[1]).collect();
    let cert3: Vec<f64> = res.cases.iter().map(|r| r.certainty[2]).collect();
    page.heading("Annotation certainty per case (as Stutz et al. 2023, Fig. 7 left)");
    page.figure(
        &charts::lines(
            &[("top-1".into(), sorted(cert1.clone())), ("top-2 (set)".into(), sorted(cert2)), ("top-3 (set)".into(), sorted(cert3))],
            "cases, sorted by certainty",
            "annotation certainty",
            false,
        ),
        "Each curve is sorted separately. Cases well below 1 are uncertain: annotators disagree or the case is ambiguous.",
    );
    let pts: Vec<(f64, f64)> = res
        .cases
        .iter()
        .filter_map(|r| r.agreement.map(|a| (a, r.certainty[0])))
        .collect();
    if !pts.is_empty() {
        page.heading(
            "Certainty against leave-one-annotator-out agreement (as Stutz et al. 2023, Fig. 14)",
        );
        page.figure(
            &charts::scatter(&pts, "annotator agreement", "top-1 certainty", false),
            "One dot per case with at least two annotators.",
        );
    }
}

/// The sections both pages share: certainty per case, certainty against
/// agreement, risk (when the run had risk levels) and the plausibility
/// samples of every case whose samples were kept.
fn common(page: &mut HtmlReport, res: &RunResult, names: &[String]) {
    if res.cases.len() < MIN_CASES_PLOTTED {
        few_cases(page, res);
    } else {
        certainty_charts(page, res);
    }
    if res.cases.iter().any(|r| r.risk.is_some()) {
        let pts: Vec<(f64, f64)> = res
            .cases
            .iter()
            .filter_map(|r| r.risk.map(|k| (r.certainty[0], k.certainty_top1)))
            .collect();
        page.heading("Risk (as Stutz et al. 2023, Fig. 8)");
        page.figure(
            &charts::scatter(
                &pts,
                "condition certainty (top-1)",
                "risk certainty (top-1 condition's risk)",
                true,
            ),
            "Risk certainty is at least condition certainty in most cases, but far from 1 in many.",
        );
        let er = |f: &dyn Fn(&crate::groundtruth::measures::RiskMeasures) -> f64| {
            res.cases
                .iter()
                .filter_map(|r| r.risk.as_ref().map(f))
                .collect::<Vec<f64>>()
        };
        page.figure(
            &charts::histogram(
                &[
                    ("mean".into(), er(&|r| r.expected_mean)),
                    ("min".into(), er(&|r| r.expected_min)),
                    ("max".into(), er(&|r| r.expected_max)),
                ],
                20,
                "expected risk (0 low, 1 medium, 2 high)",
            ),
            "Expected risk per case: mean, minimum and maximum over plausibility samples.",
        );
    }
    for r in res.cases.iter().filter(|r| r.samples.is_some()) {
        let s = r.samples.as_ref().expect("kept");
        let mut classes: Vec<u32> = r.top.iter().map(|t| t.0).collect();
        for m in 0..s.len() {
            for &c in s.ids(m) {
                if !classes.contains(&c) && classes.len() < 10 && c != u32::MAX {
                    classes.push(c);
                }
            }
        }
        let point: Vec<f64> = classes
            .iter()
            .map(|c| r.top.iter().find(|t| t.0 == *c).map_or(0.0, |t| t.1))
            .collect();
        let dots: Vec<Vec<f64>> = classes
            .iter()
            .map(|c| {
                (0..s.len())
                    .filter_map(|m| s.ids(m).iter().position(|x| x == c).map(|p| s.vals(m)[p]))
                    .collect()
            })
            .collect();
        let labels: Vec<String> = classes.iter().map(|&c| names[c as usize].clone()).collect();
        page.heading(&format!("Case {} (as Stutz et al. 2023, Fig. 5)", r.case));
        page.figure(
            &charts::plausibilities(&labels, &point, &dots),
            "Bars: posterior mean plausibility; dots: plausibility samples (where the class was among the sample's top classes).",
        );
    }
}

/// Report of `plackett aggregate` (`AggregateResult.report` in Python):
/// `names` are the classes; the cases whose plausibility samples the run
/// kept get a plot each.
pub fn aggregate_page(title: &str, method: &Method, res: &RunResult, names: &[String]) -> String {
    let mut page = HtmlReport::new(title);
    let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len().max(1) as f64;
    page.facts(&[
        ("method", method_label(method)),
        ("cases", res.cases.len().to_string()),
        ("samples per case", res.samples.to_string()),
        (
            "mean top-1 certainty",
            format!(
                "{:.4}",
                mean(res.cases.iter().map(|r| r.certainty[0]).collect())
            ),
        ),
    ]);
    common(&mut page, res, names);
    page.render()
}

/// Report of `plackett evaluate` (one run per reliability).
pub fn evaluate_page(
    title: &str,
    runs: &[(Option<f64>, Method, RunResult)],
    ks: &[usize],
    names: &[String],
) -> String {
    let mut page = HtmlReport::new(title);
    let (_, m0, r0) = &runs[0];
    page.facts(&[
        (
            "method (first reliability; per-case figures use it)",
            method_label(m0),
        ),
        ("cases", r0.cases.len().to_string()),
        ("scored units", r0.n_units.to_string()),
        ("samples per case", r0.samples.to_string()),
    ]);
    let n = r0.n_units.max(1);
    // Fig. 6: metrics across reliabilities with ±sd bands and the point estimate.
    let labels: Vec<String> = runs
        .iter()
        .map(|(r, _, _)| r.map_or("default".into(), |v| format!("{v}")))
        .collect();
    for (title, pick) in [
        ("UA top-k accuracy", 0usize),
        ("UA top-k set accuracy", 1),
        ("UA average overlap", 2),
    ] {
        let series: Vec<(String, Vec<f64>, Vec<f64>)> = ks
            .iter()
            .enumerate()
            .map(|(q, k)| {
                let mut means = Vec::new();
                let mut sds = Vec::new();
                for (_, _, res) in runs {
                    let sums = match pick {
                        0 => &res.sums_acc[q],
                        1 => &res.sums_set[q],
                        _ => &res.sums_ao[q],
                    };
                    let (mu, sd) = dataset_mean_sd(sums, res.n_units.max(1));
                    means.push(mu);
                    sds.push(sd);
                }
                (format!("k = {k}"), means, sds)
            })
            .collect();
        // The same metric against the point estimate, per k: it does not
        // depend on the reliability, so a dashed line across the panel.
        let values: fn(&crate::groundtruth::run::CaseResult) -> &Vec<f64> = match pick {
            0 => |c| &c.point_acc,
            1 => |c| &c.point_set,
            _ => |c| &c.point_ao,
        };
        let point: Vec<f64> = (0..ks.len())
            .map(|q| crate::groundtruth::summary::point_mean(r0, values, q))
            .collect();
        page.heading(&format!(
            "{title} across reliabilities (as Stutz et al. 2023, Fig. 6)"
        ));
        page.figure(
            &charts::errorbars(
                &labels,
                &series,
                Some(("against the point estimate", &point)),
                "reliability",
                title,
            ),
            "Dataset-level mean over cases with ± the sd over plausibility samples, per reliability; \
             the dashed line in each colour is the same metric against the point estimate (ML for PL, \
             IRN for PrIRN), which does not depend on the reliability.",
        );
    }
    let q = ks.len() - 1;
    let f: Vec<f64> = r0.sums_acc[q].iter().map(|s| s / n as f64).collect();
    page.heading(&format!(
        "Per-sample dataset UA top-{} accuracy (as Stutz et al. 2023, Fig. 7 right)",
        ks[q]
    ));
    page.figure(
        &charts::histogram(
            &[("F_m".into(), f.clone())],
            30,
            "UA top-k accuracy of one plausibility sample",
        ),
        &format!(
            "Spread between best and worst sample: {:.4}.",
            f.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                - f.iter().copied().fold(f64::INFINITY, f64::min)
        ),
    );
    let per_case: Vec<f64> = r0
        .cases
        .iter()
        .filter(|c| c.units > 0)
        .map(|c| c.ua_acc[q])
        .collect();
    page.heading(&format!(
        "UA top-{} accuracy per case (as Stutz et al. 2023, Fig. 7 middle)",
        ks[q]
    ));
    page.figure(
        &charts::lines(
            &[("per case".into(), sorted(per_case))],
            "cases, sorted",
            "UA top-k accuracy",
            false,
        ),
        "Sorted separately from certainty.",
    );
    common(&mut page, r0, names);
    page.render()
}
