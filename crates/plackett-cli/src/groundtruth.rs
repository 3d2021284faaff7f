//! `plackett aggregate` and `plackett evaluate`: differential diagnoses →
//! plausibilities → uncertainty-adjusted metrics.

use anyhow::{Context, Result, bail};
use clap::Args;
use plackett::groundtruth::describe::describe;
use plackett::groundtruth::irn::TieSplit;
use plackett::groundtruth::measures::{dataset_mean_sd, pearson};
use plackett::groundtruth::models::{Method, PlPrior, PrirnZero};
use plackett::groundtruth::run::{Predictions, RunConfig, RunResult, run};
use plackett::io::output::write_atomic;
use plackett::io::selectors::{Selectors, parse_selectors};
use plackett::io::{ItemsSpec, read_text};
use serde_json::{Map, Value, json};

/// Options shared by `aggregate` and `evaluate`.
#[derive(Args, Debug, Clone)]
pub struct AggArgs {
    /// Class names (one per line) or a count K; default: max id + 1.
    #[arg(long, value_name = "FILE|K")]
    pub classes: Option<String>,
    /// Aggregation model.
    #[arg(long, default_value = "pl", value_parser = ["pl", "prirn", "irn"])]
    pub method: String,
    /// Reliability: PL repetitions (integer; default 3), PrIRN concentration
    /// (default 30). A comma list evaluates several (evaluate).
    #[arg(long, value_name = "R[,R…]")]
    pub reliability: Option<String>,
    /// Plausibility samples per case.
    #[arg(long, default_value_t = 1000)]
    pub samples: usize,
    /// PL Gibbs burn-in sweeps per case.
    #[arg(long, default_value_t = 500)]
    pub burn_in: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// PL Gamma prior shape per class (default 1/K, exact collapse of
    /// never-ranked classes).
    #[arg(long, allow_negative_numbers = true)]
    pub prior_shape: Option<f64>,
    /// PL Gamma prior rate (the plausibilities do not depend on it).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub prior_rate: f64,
    /// IRN weight of a tied block: shared (paper Eq. 3) or 1/i each (reference code).
    #[arg(long, value_parser = ["split", "no-split"])]
    pub irn_ties: Option<String>,
    /// PrIRN treatment of classes nobody ranked: `support` (literal
    /// Dirichlet on IRN's support) or `smooth:A` (add A to every class).
    #[arg(long, value_name = "support|smooth:A")]
    pub prirn_zero: Option<String>,
    /// The reference code's choices (PL: shape 1 per ranked class and for
    /// the collapsed others, rate 1; IRN no-split; PrIRN smoothing 0.01).
    #[arg(long, value_parser = ["paper"])]
    pub preset: Option<String>,
    /// Only these case indices (comma-separated, 0-based).
    #[arg(long, value_name = "LIST")]
    pub cases: Option<String>,
    /// Risk level per class (0 low, 1 medium, 2 high; one per line).
    #[arg(long, value_name = "FILE")]
    pub risks: Option<String>,
    /// Output format.
    #[arg(long, default_value = "json", value_parser = ["json", "csv", "table"])]
    pub output: String,
    /// Write the output here instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
    /// Self-contained HTML report.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<String>,
    /// Cases to plot individually in the report (default: the first of --cases).
    #[arg(long, value_name = "LIST")]
    pub plot_cases: Option<String>,
}

/// `plackett aggregate <SELECTORS.json>`.
#[derive(Args, Debug)]
pub struct AggregateArgs {
    /// Selectors JSON (case → annotator → block → class ids).
    pub file: String,
    #[command(flatten)]
    pub common: AggArgs,
    /// Print dataset statistics and exit.
    #[arg(long)]
    pub describe: bool,
}

/// `plackett evaluate`.
#[derive(Args, Debug)]
pub struct EvaluateArgs {
    /// Selectors JSON with the annotations.
    #[arg(long)]
    pub annotations: String,
    /// N×K score matrix (whitespace-separated, one row per case), or
    /// `annotator:leave-one-out`.
    #[arg(long)]
    pub predictions: String,
    /// Prediction-set sizes.
    #[arg(long, default_value = "1,2,3", value_name = "K[,K…]")]
    pub k: String,
    #[command(flatten)]
    pub common: AggArgs,
}

fn parse_list(s: &str, flag: &str) -> Result<Vec<usize>> {
    s.split(',')
        .map(|x| {
            x.trim().parse::<usize>().with_context(|| {
                format!("invalid option {flag}: {x:?} is not a non-negative integer")
            })
        })
        .collect()
}

fn load(path: &str, a: &AggArgs) -> Result<(Selectors, Vec<String>, Vec<String>)> {
    let (k, names) = match &a.classes {
        Some(c) => match ItemsSpec::from_arg(c)? {
            ItemsSpec::Names(n) => (Some(n.len()), n),
            ItemsSpec::Count(k) => (Some(k), (0..k).map(|i| i.to_string()).collect()),
        },
        None => (None, Vec::new()),
    };
    let text = read_text(path)?;
    let sel = parse_selectors(path, &text, k)?;
    let names = if names.is_empty() {
        (0..sel.n_classes).map(|i| i.to_string()).collect()
    } else {
        names
    };
    let mut notes = Vec::new();
    if a.classes.is_none() {
        notes.push(format!(
            "number of classes K = {} taken from the largest id; pass --classes to declare it (it sets the prior of never-ranked classes)",
            sel.n_classes
        ));
    }
    Ok((sel, names, notes))
}

/// Method for one reliability value.
fn method(a: &AggArgs, reliability: Option<f64>, k: usize) -> Result<Method> {
    let paper = a.preset.is_some();
    let split = match a.irn_ties.as_deref() {
        Some("split") => TieSplit::Split,
        Some(_) => TieSplit::NoSplit,
        None if paper => TieSplit::NoSplit,
        None => TieSplit::Split,
    };
    Ok(match a.method.as_str() {
        "irn" => Method::Irn { split },
        "prirn" => {
            let gamma = reliability.unwrap_or(30.0);
            if !(gamma.is_finite() && gamma > 0.0) {
                bail!("invalid option --reliability: PrIRN concentration must be positive");
            }
            let zero = match a.prirn_zero.as_deref() {
                Some("support") => PrirnZero::Support,
                Some(z) if z.starts_with("smooth:") => {
                    let v: f64 = z[7..]
                        .parse()
                        .with_context(|| format!("invalid option --prirn-zero: {z:?}"))?;
                    if !(v.is_finite() && v > 0.0) {
                        bail!("invalid option --prirn-zero: smoothing must be positive");
                    }
                    PrirnZero::Smooth(v)
                }
                Some(z) => bail!("invalid option --prirn-zero: {z:?} (support or smooth:A)"),
                None if paper => PrirnZero::Smooth(0.01),
                None => PrirnZero::Support,
            };
            Method::Prirn { gamma, split, zero }
        }
        _ => {
            let r = reliability.unwrap_or(3.0);
            if r < 1.0 || r.fract() != 0.0 {
                bail!(
                    "invalid option --reliability: PL reliability is a whole number of repetitions (got {r})"
                );
            }
            let prior = if paper {
                if a.prior_shape.is_some() {
                    bail!(
                        "invalid option --prior-shape: --preset paper fixes the prior (shape 1 per ranked class and for the others)"
                    );
                }
                PlPrior::Paper
            } else {
                let alpha = a.prior_shape.unwrap_or(1.0 / k as f64);
                if !(alpha.is_finite() && alpha > 0.0) {
                    bail!("invalid option --prior-shape: must be positive");
                }
                PlPrior::Exact { alpha }
            };
            Method::Pl {
                repeats: r as usize,
                prior,
                rate: a.prior_rate,
                burn_in: a.burn_in,
            }
        }
    })
}

fn reliabilities(a: &AggArgs) -> Result<Vec<Option<f64>>> {
    Ok(match &a.reliability {
        None => vec![None],
        Some(s) => s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<f64>()
                    .map(Some)
                    .with_context(|| format!("invalid option --reliability: {x:?}"))
            })
            .collect::<Result<Vec<_>>>()?,
    })
}

fn case_list(a: &AggArgs, sel: &Selectors) -> Result<Vec<usize>> {
    Ok(match &a.cases {
        None => (0..sel.cases.len()).collect(),
        Some(s) => {
            let v = parse_list(s, "--cases")?;
            if let Some(&c) = v.iter().find(|&&c| c >= sel.cases.len()) {
                bail!(
                    "invalid option --cases: case {c} out of range (the file has {} cases)",
                    sel.cases.len()
                );
            }
            v
        }
    })
}

fn method_label(m: &Method) -> String {
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
            "prirn (gamma {gamma}, {})",
            match zero {
                PrirnZero::Support => "support".to_string(),
                PrirnZero::Smooth(a) => format!("smooth {a}"),
            }
        ),
        Method::Pl { repeats, prior, .. } => format!(
            "pl ({repeats} repetitions, {})",
            match prior {
                PlPrior::Paper => "paper prior".to_string(),
                PlPrior::Exact { alpha } => format!("shape {alpha:.4} per class"),
            }
        ),
    }
}

fn finish(out: &Option<String>, text: &str) -> Result<()> {
    match out {
        Some(p) => write_atomic(p, text.as_bytes())?,
        None => crate::emit(text)?,
    }
    Ok(())
}

/// Refuse values no aggregation can use (zero samples gave all-zero
/// plausibilities with exit 0, and an index panic in `evaluate`).
fn check_common(c: &AggArgs) -> Result<()> {
    if c.samples == 0 {
        bail!("invalid option --samples: expected at least 1");
    }
    if let Some(s) = c.prior_shape
        && !(s.is_finite() && s > 0.0)
    {
        bail!("invalid option --prior-shape: expected a positive number, got {s}");
    }
    if !(c.prior_rate.is_finite() && c.prior_rate > 0.0) {
        bail!(
            "invalid option --prior-rate: expected a positive number, got {}",
            c.prior_rate
        );
    }
    Ok(())
}

/// Run `plackett aggregate`.
pub fn run_aggregate(a: &AggregateArgs) -> Result<()> {
    let c = &a.common;
    check_common(c)?;
    let (sel, names, notes) = load(&a.file, c)?;
    if a.describe {
        return finish(&c.out, &describe(&sel).to_text());
    }
    let cases = case_list(c, &sel)?;
    let risks = c
        .risks
        .as_deref()
        .map(|p| plackett::io::selectors::read_risks(p, sel.n_classes))
        .transpose()?;
    let rel = reliabilities(c)?;
    if rel.len() != 1 {
        bail!("invalid option --reliability: aggregate takes one value (evaluate sweeps several)");
    }
    let m = method(c, rel[0], sel.n_classes)?;
    let cfg = RunConfig {
        method: m.clone(),
        samples: c.samples,
        seed: c.seed,
        ks: vec![1, 2, 3],
        irn_split: irn_split(c),
        top: 5,
    };
    let plot = plot_cases(c, &cases)?;
    let progress = crate::progress::Progress::new(cases.len() as u64, "cases");
    let res = run(
        &sel,
        &cases,
        &cfg,
        risks.as_deref(),
        &Predictions::None,
        &plot,
        Some(&progress.observer()),
    );
    progress.finish();
    let res = res?;
    let text = match c.output.as_str() {
        "csv" => {
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
        _ => {
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
            let cert: Vec<f64> = res.cases.iter().map(|r| r.certainty[0]).collect();
            let agr: Vec<f64> = res
                .cases
                .iter()
                .map(|r| r.agreement.unwrap_or(f64::NAN))
                .collect();
            let v = json!({
                "method": method_label(&m),
                "n_classes": sel.n_classes,
                "samples": res.samples,
                "seed": c.seed,
                "annotation_certainty": cert.iter().sum::<f64>() / cert.len().max(1) as f64,
                "certainty_agreement_correlation": pearson(&cert, &agr),
                "notes": notes,
                "cases": cases_json,
            });
            serde_json::to_string_pretty(&v)? + "\n"
        }
    };
    if let Some(path) = &c.report {
        let page = crate::gtreport::aggregate_page(
            &format!("plackett aggregate: {}", a.file),
            &method_label(&m),
            &res,
            &names,
            risks.as_deref(),
        );
        write_atomic(path, page.as_bytes())?;
    }
    finish(&c.out, &text)
}

fn irn_split(c: &AggArgs) -> TieSplit {
    match c.irn_ties.as_deref() {
        Some("split") => TieSplit::Split,
        Some(_) => TieSplit::NoSplit,
        None if c.preset.is_some() => TieSplit::NoSplit,
        None => TieSplit::Split,
    }
}

fn plot_cases(c: &AggArgs, cases: &[usize]) -> Result<Vec<usize>> {
    Ok(match &c.plot_cases {
        Some(s) => parse_list(s, "--plot-cases")?,
        None => {
            if c.report.is_some() {
                cases.iter().take(1).copied().collect()
            } else {
                Vec::new()
            }
        }
    })
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Summaries of one run for `plackett evaluate`.
fn evaluate_json(res: &RunResult, ks: &[usize], m: &Method, reliability: Option<f64>) -> Value {
    let n = res.n_units.max(1);
    let per_k = |sums: &Vec<Vec<f64>>| -> Value {
        let mut o = Map::new();
        for (q, k) in ks.iter().enumerate() {
            let (mean, sd) = dataset_mean_sd(&sums[q], n);
            o.insert(k.to_string(), json!({"mean": mean, "sd": sd}));
        }
        Value::Object(o)
    };
    // Standard accuracy against the point estimate, averaged over the same
    // units as the UA metrics.
    let mut point = Map::new();
    for (q, k) in ks.iter().enumerate() {
        let v: f64 = res
            .cases
            .iter()
            .filter(|r| r.units > 0)
            .map(|r| r.point_acc[q] * r.units as f64)
            .sum::<f64>()
            / n as f64;
        point.insert(k.to_string(), json!(v));
    }
    let cert: Vec<f64> = res.cases.iter().map(|r| r.certainty[0]).collect();
    let agr: Vec<f64> = res
        .cases
        .iter()
        .map(|r| r.agreement.unwrap_or(f64::NAN))
        .collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
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
        "topk_accuracy": Value::Object(point),
        "ua_topk_set_accuracy": per_k(&res.sums_set),
        "ua_overlap": per_k(&res.sums_overlap),
        "ua_average_overlap": per_k(&res.sums_ao),
        "certainty_agreement_correlation": pearson(&cert, &agr),
        "cases_below_99_certainty": cert.iter().filter(|c| **c < 0.99).count(),
        "padded_cases": res.cases.iter().filter(|r| r.padded).count(),
        "point_estimate_fallback_cases": res.cases.iter().filter(|r| !r.point_is_ml).count(),
    });
    if res.cases.iter().all(|r| r.risk.is_some()) && !res.cases.is_empty() {
        let rk: Vec<_> = res.cases.iter().map(|r| r.risk.expect("risk")).collect();
        let f = |g: &dyn Fn(&plackett::groundtruth::measures::RiskMeasures) -> f64| {
            mean(&rk.iter().map(g).collect::<Vec<_>>())
        };
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

/// Run `plackett evaluate`.
pub fn run_evaluate(a: &EvaluateArgs) -> Result<()> {
    let c = &a.common;
    check_common(c)?;
    let (sel, names, notes) = load(&a.annotations, c)?;
    let cases = case_list(c, &sel)?;
    let ks = parse_list(&a.k, "--k")?;
    if ks.is_empty() || ks.contains(&0) {
        bail!("invalid option --k: sizes must be positive");
    }
    let risks = c
        .risks
        .as_deref()
        .map(|p| plackett::io::selectors::read_risks(p, sel.n_classes))
        .transpose()?;
    let preds = if a.predictions == "annotator:leave-one-out" {
        Predictions::LeaveOneAnnotatorOut
    } else if a.predictions.contains(':') && !std::path::Path::new(&a.predictions).exists() {
        bail!("invalid option --predictions: expected a score file or annotator:leave-one-out");
    } else {
        Predictions::Scores(plackett::io::selectors::read_scores(
            &a.predictions,
            cases.len(),
            sel.n_classes,
        )?)
    };
    let rels = reliabilities(c)?;
    let plot = plot_cases(c, &cases)?;
    let mut runs = Vec::new();
    let units = if matches!(preds, Predictions::LeaveOneAnnotatorOut) {
        2
    } else {
        1
    };
    let progress =
        crate::progress::Progress::new((cases.len() * rels.len() * units) as u64, "cases");
    for r in &rels {
        let m = method(c, *r, sel.n_classes)?;
        let cfg = RunConfig {
            method: m.clone(),
            samples: c.samples,
            seed: c.seed,
            ks: ks.clone(),
            irn_split: irn_split(c),
            top: 5,
        };
        let res = run(
            &sel,
            &cases,
            &cfg,
            risks.as_deref(),
            &preds,
            &plot,
            Some(&progress.observer()),
        );
        runs.push((*r, m, res?));
    }
    progress.finish();
    let mut first = evaluate_json(&runs[0].2, &ks, &runs[0].1, runs[0].0);
    first["notes"] = json!(notes);
    first["predictions"] = json!(a.predictions);
    if runs.len() > 1 {
        first["by_reliability"] = Value::Array(
            runs.iter()
                .map(|(r, m, res)| evaluate_json(res, &ks, m, *r))
                .collect(),
        );
    }
    if let Some(path) = &c.report {
        let page = crate::gtreport::evaluate_page(
            &format!("plackett evaluate: {}", a.annotations),
            &runs,
            &method_label,
            &ks,
            &names,
            risks.as_deref(),
        );
        write_atomic(path, page.as_bytes())?;
    }
    let text = match c.output.as_str() {
        "table" => table(&first, &ks),
        _ => serde_json::to_string_pretty(&first)? + "\n",
    };
    finish(&c.out, &text)
}

fn table(v: &Value, ks: &[usize]) -> String {
    let mut s = format!(
        "{}: {} cases, {} scored units, {} samples\nannotation certainty (top-1) {:.4}\n",
        v["method"].as_str().unwrap_or(""),
        v["n_cases"],
        v["n_units"],
        v["samples"],
        v["annotation_certainty"].as_f64().unwrap_or(f64::NAN)
    );
    s.push_str(&format!(
        "{:>3}  {:>17}  {:>9}  {:>17}  {:>17}\n",
        "k", "UA top-k acc", "top-k acc", "UA set acc", "UA avg overlap"
    ));
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
