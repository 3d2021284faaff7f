//! `plackett cv`: cross-validation of PL regression over a grid of prior
//! precisions η, with the η chosen by the variational bound beside the
//! cross-validated one (Guo et al. 2019 §5.2, Tables 3–4 layout).

use crate::fit::{DataArgs, load};
use anyhow::{Result, bail};
use clap::Args;
use plackett::data::features::read_features_with_prior;
use plackett::eval::cv::{Curve, CvOptions, CvResult, Metrics, Partition, cross_validate};
use plackett::io::output::write_atomic;
use plackett::numerics::sig;
use serde::Serialize;
use std::fmt::Write as _;

/// Options of `plackett cv`.
#[derive(Args, Debug)]
pub struct CvArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Item features CSV (item,f1,f2,…).
    #[arg(long)]
    pub features: String,
    /// Standardise feature columns before fitting.
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub standardize: String,
    /// Folds per partition (Guo et al. 2019 uses 3).
    #[arg(long, default_value_t = 3)]
    pub folds: usize,
    /// Repetitions of the random partition.
    #[arg(long, default_value_t = 1)]
    pub repeats: usize,
    /// Random seed of the partitions (and of the exact bound's draws).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// L: split observations; N: split items (observations across the split are dropped).
    #[arg(long, default_value = "both", value_parser = ["l", "n", "both"])]
    pub partition: String,
    /// η grid: LO:HI:N (log-spaced) or a comma list.
    #[arg(long, default_value = "1e-3:1e3:13", value_name = "LO:HI:N")]
    pub eta_grid: String,
    /// K of the top-K metric (Guo et al. 2019 eqs 27–28); `--k` still works (evaluate's --k is
    /// a prediction-set size).
    #[arg(long = "metric-k", alias = "k", default_value_t = 10, value_name = "K")]
    pub metric_k: usize,
    /// Variational posterior: Gaussian VI on the exact bound, or Guo et al. (2019)'s Algorithm 1.
    #[arg(long, default_value = "exact", value_parser = ["exact", "guo"])]
    pub vi: String,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub output: String,
    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
    /// Write a self-contained HTML report (metric and bound curves, positive ratio).
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<String>,
}

#[derive(Serialize)]
struct CurveJson {
    auc: Vec<f64>,
    top_k: Vec<f64>,
    log_score: Vec<f64>,
}

impl From<&Curve> for CurveJson {
    fn from(c: &Curve) -> Self {
        CurveJson {
            auc: c.auc.clone(),
            top_k: c.top_k.clone(),
            log_score: c.log_score.clone(),
        }
    }
}

/// One row of Table 3/4: the metric of M-VI and MAP at their CV-best η and
/// at η_L.
#[derive(Serialize)]
struct TableRow {
    vi_at_eta_v: f64,
    map_at_eta_m: f64,
    vi_at_eta_l: f64,
    map_at_eta_l: f64,
    eta_v: f64,
    eta_m: f64,
    eta_l: f64,
}

fn table_row(r: &CvResult, pick: fn(&Curve) -> &Vec<f64>) -> TableRow {
    let (v, m) = (pick(&r.vi), pick(&r.map));
    let (iv, im, il) = (Curve::argmax(v), Curve::argmax(m), r.best_bound());
    TableRow {
        vi_at_eta_v: v[iv],
        map_at_eta_m: m[im],
        vi_at_eta_l: v[il],
        map_at_eta_l: m[il],
        eta_v: r.etas[iv],
        eta_m: r.etas[im],
        eta_l: r.etas[il],
    }
}

#[derive(Serialize)]
struct MetricsJson {
    auc: f64,
    top_k: f64,
    log_score: f64,
}

impl From<Metrics> for MetricsJson {
    fn from(m: Metrics) -> Self {
        MetricsJson {
            auc: m.auc,
            top_k: m.top_k,
            log_score: m.log_score,
        }
    }
}

#[derive(Serialize)]
struct PartitionJson {
    partition: &'static str,
    splits: usize,
    etas: Vec<f64>,
    bound: Vec<f64>,
    eta_l: f64,
    vi: CurveJson,
    map: CurveJson,
    top_k_table: TableRow,
    auc_table: TableRow,
    log_score_table: TableRow,
    /// Mean test metrics when each split picks η by its own bound.
    per_split_bound_vi: MetricsJson,
    per_split_bound_map: MetricsJson,
}

#[derive(Serialize)]
struct CvJson {
    vi: String,
    folds: usize,
    repeats: usize,
    seed: u64,
    top_k: usize,
    n_items: usize,
    n_observations: usize,
    partitions: Vec<PartitionJson>,
    notes: Vec<String>,
    seconds: f64,
}

fn part_name(p: Partition) -> &'static str {
    match p {
        Partition::L => "L",
        Partition::N => "N",
    }
}

/// Run `plackett cv`.
pub fn run(a: &CvArgs) -> Result<()> {
    let t0 = std::time::Instant::now();
    if a.folds < 2 {
        bail!("invalid option --folds: need at least 2, got {}", a.folds);
    }
    if a.repeats == 0 {
        bail!("invalid option --repeats: need at least 1");
    }
    if a.metric_k == 0 {
        bail!("invalid option --metric-k: need at least 1");
    }
    let etas = crate::features::parse_eta_grid(Some(&a.eta_grid))?;
    let ds = load(&a.data)?;
    let text = plackett::io::read_text(&a.features)?;
    let feats = read_features_with_prior(&a.features, &text, ds.items(), a.standardize == "on")?;
    let vi = crate::features::vi_kind(Some(&a.vi));
    let mut opts = CvOptions {
        folds: a.folds,
        repeats: a.repeats,
        seed: a.seed,
        etas,
        top_k: a.metric_k,
        vi,
        observer: None,
    };
    let parts: Vec<Partition> = match a.partition.as_str() {
        "l" => vec![Partition::L],
        "n" => vec![Partition::N],
        _ => vec![Partition::L, Partition::N],
    };
    let mut results = Vec::new();
    let mut notes = Vec::new();
    let total = (parts.len() * a.folds * a.repeats) as u64;
    let progress = crate::progress::Progress::new(total, "cross-validating");
    // The library advances the bar after every fold (it only moved after a
    // whole partition, 22 s in on a large problem).
    opts.observer = Some(progress.observer());
    for &p in &parts {
        match cross_validate(&ds, &feats, p, &opts) {
            Ok(r) => results.push(r),
            Err(e) if parts.len() > 1 && p == Partition::N => {
                notes.push(crate::cli_text(&format!("N-partition skipped: {e}")))
            }
            Err(e) => return Err(e.into()),
        }
    }
    progress.finish();
    if vi == plackett::infer::feature_fit::ViKind::Guo {
        notes.push(
            "VI is Guo et al. (2019)'s Algorithm 1, whose Bouchard bound inflates coefficients on queries over more than two items (docs/features.md)"
                .into(),
        );
    }
    let json = CvJson {
        vi: a.vi.clone(),
        folds: a.folds,
        repeats: a.repeats,
        seed: a.seed,
        top_k: a.metric_k,
        n_items: ds.n_items(),
        n_observations: ds.n_real_obs(),
        partitions: results
            .iter()
            .map(|r| PartitionJson {
                partition: part_name(r.partition),
                splits: r.splits,
                etas: r.etas.clone(),
                bound: r.bound.clone(),
                eta_l: r.etas[r.best_bound()],
                vi: (&r.vi).into(),
                map: (&r.map).into(),
                top_k_table: table_row(r, |c| &c.top_k),
                auc_table: table_row(r, |c| &c.auc),
                log_score_table: table_row(r, |c| &c.log_score),
                per_split_bound_vi: r.at_bound_vi.into(),
                per_split_bound_map: r.at_bound_map.into(),
            })
            .collect(),
        notes,
        seconds: t0.elapsed().as_secs_f64(),
    };
    let text = match a.output.as_str() {
        "json" => serde_json::to_string_pretty(&json)? + "\n",
        _ => table(&json),
    };
    if let Some(path) = &a.report {
        write_atomic(path, report(a, &json, &results).as_bytes())?;
    }
    match &a.out {
        Some(p) => write_atomic(p, text.as_bytes())?,
        None => crate::emit(&text)?,
    }
    Ok(())
}

fn table(j: &CvJson) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}-fold cross-validation x {} repeat(s), seed {}; {} items, {} observations; VI = {} variational posterior\n\
         columns: each method at its cross-validated best η (best η), and both at the η whose \
         mean training-fold bound is highest (bound η; Guo et al. 2019's η_L)",
        j.folds,
        j.repeats,
        j.seed,
        j.n_items,
        j.n_observations,
        if j.vi == "guo" {
            "Guo et al. 2019 Alg. 1"
        } else {
            "exact-bound Gaussian"
        }
    );
    for (title, pick) in [
        (
            format!("Top-K metric (K = {})", j.top_k),
            (|p: &PartitionJson| &p.top_k_table) as fn(&PartitionJson) -> &TableRow,
        ),
        ("Comparison AUC".to_string(), |p: &PartitionJson| {
            &p.auc_table
        }),
        (
            "Held-out log score (mean log P of test pair outcomes)".to_string(),
            |p: &PartitionJson| &p.log_score_table,
        ),
    ] {
        let _ = writeln!(s, "\n{title}");
        let _ = writeln!(
            s,
            "{:<10} {:>6} {:>13} {:>12} {:>12} {:>12} {:>11} {:>11} {:>9}",
            "partition",
            "splits",
            "VI best η",
            "MAP best η",
            "VI bound η",
            "MAP bound η",
            "best η VI",
            "best η MAP",
            "bound η"
        );
        // An undefined metric (an AUC with no test pair of either
        // outcome) reads "n/a", never "NaN".
        let cell = |x: f64| {
            if x.is_finite() {
                format!("{x:.4}")
            } else {
                "n/a".to_string()
            }
        };
        for p in &j.partitions {
            let t = pick(p);
            let _ = writeln!(
                s,
                "{:<10} {:>6} {:>13} {:>12} {:>12} {:>12} {:>11} {:>11} {:>9}",
                p.partition,
                p.splits,
                cell(t.vi_at_eta_v),
                cell(t.map_at_eta_m),
                cell(t.vi_at_eta_l),
                cell(t.map_at_eta_l),
                sig(t.eta_v, 3),
                sig(t.eta_m, 3),
                sig(t.eta_l, 3)
            );
        }
    }
    if j.partitions.iter().any(|p| {
        let t = &p.auc_table;
        [t.vi_at_eta_v, t.map_at_eta_m, t.vi_at_eta_l, t.map_at_eta_l]
            .iter()
            .any(|x| !x.is_finite())
    }) {
        let _ = writeln!(
            s,
            "\nnote: comparison AUC n/a: no test fold held compared pairs of both outcomes to rank \
             (fewer folds give larger test folds)"
        );
    }
    for n in &j.notes {
        let _ = writeln!(s, "\nnote: {n}");
    }
    let _ = writeln!(s, "\n{:.1} s", j.seconds);
    s
}

fn report(a: &CvArgs, j: &CvJson, results: &[CvResult]) -> String {
    use plackett::report::{HtmlReport, charts};
    let mut r = HtmlReport::new(&format!("plackett cv: {}", a.data.file));
    r.facts(&[
        (
            "data",
            format!(
                "{} ({} items, {} observations)",
                a.data.file, j.n_items, j.n_observations
            ),
        ),
        ("features", a.features.clone()),
        (
            "protocol",
            format!(
                "{}-fold x {} repeat(s), seed {}",
                j.folds, j.repeats, j.seed
            ),
        ),
        (
            "variational fit (VI)",
            if j.vi == "guo" {
                "Guo et al. 2019 Alg. 1".into()
            } else {
                "Gaussian VI on the exact bound".into()
            },
        ),
    ]);
    for n in &j.notes {
        r.para(&format!("Note: {n}"));
    }
    for (p, res) in j.partitions.iter().zip(results) {
        let eta_l = p.eta_l;
        let label = format!("bound η = {}", sig(eta_l, 3));
        r.heading(&format!("{}-partition ({} splits)", p.partition, p.splits));
        let pts = |v: &[f64]| -> Vec<(f64, f64)> {
            p.etas.iter().copied().zip(v.iter().copied()).collect()
        };
        r.figure(
            &charts::xy(
                &[("mean bound".into(), pts(&p.bound))],
                "η",
                "variational bound",
                true,
                Some((eta_l, &label)),
            ),
            "Mean final variational bound on the training folds against η (cf. Guo et al. 2019 Fig. 1).",
        );
        r.figure(
            &charts::xy(
                &[
                    ("VI".into(), pts(&p.vi.top_k)),
                    ("MAP".into(), pts(&p.map.top_k)),
                ],
                "η",
                &format!("top-{} metric", j.top_k),
                true,
                Some((eta_l, &label)),
            ),
            "Top-K metric on the test folds against η (cf. Guo et al. 2019 Fig. 2).",
        );
        r.figure(
            &charts::xy(
                &[
                    ("VI".into(), pts(&p.vi.auc)),
                    ("MAP".into(), pts(&p.map.auc)),
                ],
                "η",
                "comparison AUC",
                true,
                Some((eta_l, &label)),
            ),
            "Comparison AUC on the test folds against η (cf. Guo et al. 2019 Fig. 3).",
        );
        r.figure(
            &charts::xy(
                &[
                    ("VI".into(), pts(&p.vi.log_score)),
                    ("MAP".into(), pts(&p.map.log_score)),
                ],
                "η",
                "mean log P(outcome)",
                true,
                Some((eta_l, &label)),
            ),
            "Held-out log score of the test pairs against η.",
        );
        if !res.pr_triples.is_empty() {
            let pr = plackett::eval::positive_ratio::positive_ratio(&res.pr_triples, 8, 3);
            let (_, svg, cap) = plackett::report::features::positive_ratio(
                &pr,
                "Test pairs of every split, VI at the η chosen by that split's bound",
            );
            r.figure(&svg, &cap);
        }
        let rows: Vec<Vec<String>> = [
            ("top-K", &p.top_k_table),
            ("AUC", &p.auc_table),
            ("log score", &p.log_score_table),
        ]
        .iter()
        .map(|(name, t)| {
            vec![
                name.to_string(),
                format!("{:.4}", t.vi_at_eta_v),
                format!("{:.4}", t.map_at_eta_m),
                format!("{:.4}", t.vi_at_eta_l),
                format!("{:.4}", t.map_at_eta_l),
                sig(t.eta_v, 3),
                sig(t.eta_m, 3),
                sig(t.eta_l, 3),
            ]
        })
        .collect();
        r.para(
            "Each method at its cross-validated best η, and both at the η whose mean \
             training-fold bound is highest (bound η; Guo et al. 2019's η_L).",
        );
        r.table(
            &[
                "metric",
                "VI at its best η",
                "MAP at its best η",
                "VI at bound η",
                "MAP at bound η",
                "best η VI",
                "best η MAP",
                "bound η",
            ],
            &rows,
        );
    }
    r.render()
}
