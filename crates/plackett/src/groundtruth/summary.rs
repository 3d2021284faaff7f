//! The documents an aggregation or evaluation run produces — the JSON that
//! `plackett aggregate`/`evaluate` print and Python's `to_json()` returns,
//! the per-case CSV and the evaluation table — built in one place so that
//! every front end gives the same keys and the same numbers.

use super::irn::TieSplit;
use super::measures::{RiskMeasures, dataset_mean_sd, pearson};
use super::models::{Method, PlPrior, PrirnZero};
use super::run::{CaseResult, RunResult};
use crate::io::output::csv_field;
use serde_json::{Map, Value, json};

/// A short description of a method with its knobs (`pl (3 repetitions,
/// shape 0.0100 per class)`).
pub fn method_label(m: &Method) -> String {
    match m {
        Method::Irn { split } => format!(
            "irn ({})",
            if *split == TieSplit::Split {
                "split"
            } else {
                "no-split"
            }
        ),
        Method::Prirn { gamma, zero, .. } => format!(
            "prirn (gamma {}, {})",
            crate::error::show_number(*gamma),
            match zero {
                PrirnZero::Support => "support".to_string(),
                PrirnZero::Smooth(a) => format!("smooth {a}"),
            }
        ),
        Method::Pl { repeats, prior, .. } => format!(
            "pl ({repeats} repetition{}, {})",
            if *repeats == 1 { "" } else { "s" },
            match prior {
                PlPrior::Paper => "paper prior".to_string(),
                PlPrior::Exact { alpha } => format!("shape {alpha:.4} per class"),
            }
        ),
    }
}

/// The document envelope ([`crate::document`]) of an aggregation or an
/// evaluation. The engine is how plausibilities are drawn: `gibbs` (PL, a
/// chain per case with a fixed burn-in), `dirichlet` (PrIRN, exact draws)
/// or `closed-form` (IRN, a point mass). Exact draws and closed forms have
/// nothing to converge (`converged` is true). The per-case PL chains run
/// Stutz et al. 2023's fixed burn-in and keep no R̂ — `diagnostics` says
/// so, and `converged` reports only that every case ran to its end.
pub fn envelope(res: &RunResult, m: &Method, notes: &[String]) -> crate::document::Envelope {
    let mut d = Map::new();
    d.insert("samples_per_case".into(), json!(res.samples));
    let engine = match m {
        Method::Irn { .. } => "closed-form",
        Method::Prirn { .. } => "dirichlet",
        Method::Pl { burn_in, .. } => {
            d.insert("burn_in".into(), json!(burn_in));
            d.insert(
                "convergence_check".into(),
                json!("none per case: a fixed burn-in (Stutz et al. 2023, §4.4)"),
            );
            "gibbs"
        }
    };
    crate::document::Envelope {
        family: crate::document::Family::GroundTruth,
        engine: engine.into(),
        converged: true,
        iterations: match m {
            Method::Pl { burn_in, .. } => burn_in + res.samples,
            _ => 0,
        },
        n_observations: res.cases.len(),
        notes: notes.to_vec(),
        diagnostics: Value::Object(d),
    }
}

/// Per case: top-1 annotation certainty and agreement (NaN for one annotator).
fn certainty_and_agreement(res: &RunResult) -> (Vec<f64>, Vec<f64>) {
    res.cases
        .iter()
        .map(|r| (r.certainty[0], r.agreement.unwrap_or(f64::NAN)))
        .unzip()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The aggregation document: method, dataset-level certainty, and per case
/// its most plausible classes (mean and sd of the plausibility), annotation
/// certainties, agreement and (with risks) the risk measures.
pub fn aggregate_json(
    res: &RunResult,
    names: &[String],
    n_classes: usize,
    m: &Method,
    seed: u64,
    notes: &[String],
) -> Value {
    let cases_json: Vec<Value> = res
        .cases
        .iter()
        .map(|r| {
            let mut o = json!({
                "case": r.case,
                "n_annotators": r.n_annotators,
                "top": r.top.iter().map(|(id, m, s)| json!({"id": id, "class": names[*id as usize], "mean": m, "sd": s})).collect::<Vec<_>>(),
                "certainty_top1": r.certainty[0],
                "certainty_top2": r.certainty[1],
                "certainty_top3": r.certainty[2],
                "rank_certainty": r.rank_certainty,
                "agreement": r.agreement,
            });
            if let Some(rk) = &r.risk {
                o["risk_certainty_top1"] = json!(rk.certainty_top1);
                o["risk_certainty_mass"] = json!(rk.certainty_mass);
                o["expected_risk"] = json!({"mean": rk.expected_mean, "min": rk.expected_min, "max": rk.expected_max});
            }
            o
        })
        .collect();
    let (cert, agr) = certainty_and_agreement(res);
    let doc = json!({
        "method": method_label(m),
        "n_classes": n_classes,
        "samples": res.samples,
        "seed": seed,
        "annotation_certainty": mean(&cert),
        "certainty_agreement_correlation": pearson(&cert, &agr),
        "notes": notes,
        "cases": cases_json,
    });
    envelope(res, m, notes).wrap(&doc)
}

/// The per-case CSV of `plackett aggregate --output csv`.
pub fn aggregate_csv(res: &RunResult, names: &[String]) -> String {
    let mut s = String::from(
        "case,n_annotators,certainty_top1,certainty_top2,certainty_top3,agreement,top1_id,top1_class,top1_mean,top1_sd\n",
    );
    for r in &res.cases {
        let t = &r.top[0];
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            r.case,
            r.n_annotators,
            r.certainty[0],
            r.certainty[1],
            r.certainty[2],
            r.agreement.map_or(String::new(), |v| v.to_string()),
            t.0,
            csv_field(&names[t.0 as usize]),
            t.1,
            t.2
        ));
    }
    s
}

/// A standard metric against the point estimate (`pick`: the cases'
/// per-k values, e.g. `point_acc`) at the `q`-th set size, averaged over
/// the scored units as the UA metrics are.
pub fn point_mean(res: &RunResult, pick: fn(&CaseResult) -> &Vec<f64>, q: usize) -> f64 {
    res.cases
        .iter()
        .filter(|r| r.units > 0)
        .map(|r| pick(r).get(q).copied().unwrap_or(f64::NAN) * r.units as f64)
        .sum::<f64>()
        / res.n_units.max(1) as f64
}

/// The aggregation as the table of `plackett aggregate` (its default
/// output): one line per case with its annotators, agreement, annotation
/// certainties and three most plausible classes (mean ± sd), then the
/// dataset's certainty and the run's notes.
pub fn aggregate_table(res: &RunResult, names: &[String], m: &Method, notes: &[String]) -> String {
    use crate::io::output::short_name;
    let (cert, agr) = certainty_and_agreement(res);
    let mut s = format!(
        "{}: {}, {}\nannotation certainty (top-1, mean over cases) {:.4}\n\n",
        method_label(m),
        crate::io::output::count(res.cases.len(), "case", "cases"),
        crate::io::output::count(res.samples, "plausibility sample", "plausibility samples"),
        mean(&cert)
    );
    s.push_str(&format!(
        "{:>6}  {:>10}  {:>9}  {:>20}  most plausible classes (mean ± sd)\n",
        "case", "annotators", "agreement", "certainty top-1/2/3"
    ));
    for (r, a) in res.cases.iter().zip(&agr) {
        let top: Vec<String> = r
            .top
            .iter()
            .take(3)
            .map(|(id, m, sd)| format!("{} {m:.3} ± {sd:.3}", short_name(&names[*id as usize], 28)))
            .collect();
        s.push_str(&format!(
            "{:>6}  {:>10}  {:>9}  {:>20}  {}\n",
            r.case,
            r.n_annotators,
            if a.is_nan() {
                "n/a".to_string()
            } else {
                format!("{a:.3}")
            },
            format!(
                "{:.3} {:.3} {:.3}",
                r.certainty[0], r.certainty[1], r.certainty[2]
            ),
            top.join("; ")
        ));
    }
    for n in notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// Summaries of one evaluation run: UA metrics per k with their sd over
/// plausibility samples, standard top-k accuracy against the point
/// estimate, annotation certainty and (with risks) the risk measures.
pub fn evaluate_json(res: &RunResult, ks: &[usize], m: &Method, reliability: Option<f64>) -> Value {
    let n = res.n_units.max(1);
    let per_k = |sums: &Vec<Vec<f64>>| -> Value {
        let mut o = Map::new();
        for (q, k) in ks.iter().enumerate() {
            let (mean, sd) = dataset_mean_sd(&sums[q], n);
            o.insert(k.to_string(), json!({"mean": mean, "sd": sd}));
        }
        Value::Object(o)
    };
    // Standard metrics against the point estimate, averaged over the same
    // units as the UA metrics.
    let point_metric = |pick: fn(&CaseResult) -> &Vec<f64>| -> Value {
        let mut point = Map::new();
        for (q, k) in ks.iter().enumerate() {
            point.insert(k.to_string(), json!(point_mean(res, pick, q)));
        }
        Value::Object(point)
    };
    let (cert, agr) = certainty_and_agreement(res);
    let mut o = json!({
        "method": method_label(m),
        "reliability": reliability,
        "n_cases": res.cases.len(),
        "n_units": res.n_units,
        "samples": res.samples,
        "annotation_certainty": mean(&cert),
        "annotation_certainty_top2": mean(&res.cases.iter().map(|r| r.certainty[1]).collect::<Vec<_>>()),
        "annotation_certainty_top3": mean(&res.cases.iter().map(|r| r.certainty[2]).collect::<Vec<_>>()),
        "ua_topk_accuracy": per_k(&res.sums_acc),
        "topk_accuracy": point_metric(|r| &r.point_acc),
        "topk_set_accuracy": point_metric(|r| &r.point_set),
        "average_overlap": point_metric(|r| &r.point_ao),
        "ua_topk_set_accuracy": per_k(&res.sums_set),
        "ua_overlap": per_k(&res.sums_overlap),
        "ua_average_overlap": per_k(&res.sums_ao),
        "certainty_agreement_correlation": pearson(&cert, &agr),
        "cases_below_99_certainty": cert.iter().filter(|c| **c < 0.99).count(),
        "padded_cases": res.cases.iter().filter(|r| r.padded).count(),
        "point_estimate_fallback_cases": res.cases.iter().filter(|r| !r.point_is_ml).count(),
    });
    if res.cases.iter().all(|r| r.risk.is_some()) && !res.cases.is_empty() {
        let rk: Vec<RiskMeasures> = res.cases.iter().filter_map(|r| r.risk).collect();
        let f = |g: &dyn Fn(&RiskMeasures) -> f64| mean(&rk.iter().map(g).collect::<Vec<_>>());
        o["risk_certainty"] = json!({
            "top1": f(&|r| r.certainty_top1),
            "mass": f(&|r| r.certainty_mass),
            "cases_below_99_top1": rk.iter().filter(|r| r.certainty_top1 < 0.99).count(),
        });
        o["expected_risk"] = json!({
            "mean": f(&|r| r.expected_mean),
            "min": f(&|r| r.expected_min),
            "max": f(&|r| r.expected_max),
        });
    }
    o
}

/// One evaluation run per reliability value.
pub type EvaluationRun = (Option<f64>, Method, RunResult);

/// The evaluation document: the first reliability's summary at the top
/// level, with the notes, the predictions' label and (for a sweep) every
/// reliability's summary under `by_reliability`.
pub fn evaluate_document(
    runs: &[EvaluationRun],
    ks: &[usize],
    notes: &[String],
    predictions: &str,
) -> Value {
    let Some((r0, m0, res0)) = runs.first() else {
        return json!({});
    };
    let mut first = evaluate_json(res0, ks, m0, *r0);
    first["notes"] = json!(notes);
    first["predictions"] = json!(predictions);
    if runs.len() > 1 {
        first["by_reliability"] = Value::Array(
            runs.iter()
                .map(|(r, m, res)| evaluate_json(res, ks, m, *r))
                .collect(),
        );
    }
    envelope(res0, m0, notes).wrap(&first)
}

/// The evaluation document as the table of `plackett evaluate --output table`:
/// the metrics for every k, once per reliability of a sweep
/// (`--reliability 1,3` prints both, not only the first).
pub fn evaluate_table(v: &Value, ks: &[usize]) -> String {
    let mut s = format!(
        "{}: {} {}, {} scored units, {} samples\n",
        v["method"].as_str().unwrap_or(""),
        v["n_cases"],
        if v["n_cases"].as_u64() == Some(1) {
            "case"
        } else {
            "cases"
        },
        v["n_units"],
        v["samples"],
    );
    match v["by_reliability"].as_array() {
        Some(runs) => {
            for run in runs {
                s.push_str(&format!(
                    "\nreliability {}: annotation certainty (top-1) {:.4}\n",
                    run["reliability"]
                        .as_f64()
                        .map_or("-".to_string(), crate::error::show_number),
                    run["annotation_certainty"].as_f64().unwrap_or(f64::NAN)
                ));
                s.push_str(&metrics_rows(run, ks));
            }
        }
        None => {
            s.push_str(&format!(
                "annotation certainty (top-1) {:.4}\n",
                v["annotation_certainty"].as_f64().unwrap_or(f64::NAN)
            ));
            s.push_str(&metrics_rows(v, ks));
        }
    }
    if let Some(notes) = v["notes"].as_array() {
        for n in notes.iter().filter_map(|n| n.as_str()) {
            s.push_str(&format!("note: {n}\n"));
        }
    }
    s
}

/// The rows of one run's metrics, one per k.
fn metrics_rows(v: &Value, ks: &[usize]) -> String {
    let mut s = format!(
        "{:>3}  {:>17}  {:>9}  {:>17}  {:>17}\n",
        "k", "UA top-k acc", "top-k acc", "UA set acc", "UA avg overlap"
    );
    for k in ks {
        let k = k.to_string();
        let f = |key: &str| {
            format!(
                "{:.4} ± {:.4}",
                v[key][&k]["mean"].as_f64().unwrap_or(f64::NAN),
                v[key][&k]["sd"].as_f64().unwrap_or(f64::NAN)
            )
        };
        s.push_str(&format!(
            "{:>3}  {:>17}  {:>9.4}  {:>17}  {:>17}\n",
            k,
            f("ua_topk_accuracy"),
            v["topk_accuracy"][&k].as_f64().unwrap_or(f64::NAN),
            f("ua_topk_set_accuracy"),
            f("ua_average_overlap")
        ));
    }
    s
}
