//! The cross-validation of PL regression as one run and one document
//! (Guo et al. 2019 §5.2, Tables 3–4 layout): the partitions asked for, the
//! metric curves over η, and each method's score at its cross-validated
//! best η and at the η the training-fold bound picks (η_L). `plackett cv`
//! prints this document (JSON or the table) and Python's
//! `plackett.cross_validate` returns it.

use super::feature_cv::{Curve, CvOptions, CvResult, Metrics, Partition, ViKind, cross_validate};
use crate::data::Dataset;
use crate::data::features::Features;
use crate::error::{Error, Result};
use crate::numerics::sig;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The partitions of `name`: `l` (split observations), `n` (split items)
/// or `both`.
pub fn partitions(name: &str) -> Result<Vec<Partition>> {
    match name {
        "l" | "L" => Ok(vec![Partition::L]),
        "n" | "N" => Ok(vec![Partition::N]),
        "both" => Ok(vec![Partition::L, Partition::N]),
        other => Err(Error::param(
            "partition",
            format!("expected l, n or both, got {other:?}"),
        )),
    }
}

/// Check the counts of a cross-validation before any work.
pub fn check_options(opts: &CvOptions) -> Result<()> {
    if opts.folds < 2 {
        return Err(Error::param(
            "folds",
            format!("need at least 2, got {}", opts.folds),
        ));
    }
    if opts.repeats == 0 {
        return Err(Error::param("repeats", "need at least 1"));
    }
    if opts.top_k == 0 {
        return Err(Error::param("metric_k", "need at least 1"));
    }
    Ok(())
}

/// Cross-validate over each of `parts` in turn. When both are asked for and
/// the N-partition cannot be run (too few items on a side), it is skipped
/// with a note; any other failure is an error. Returns the results and the
/// notes (option names in backticks, for the caller's front end to spell).
pub fn run_partitions(
    ds: &Dataset,
    feats: &Features,
    parts: &[Partition],
    opts: &CvOptions,
) -> Result<(Vec<CvResult>, Vec<String>)> {
    check_options(opts)?;
    let mut results = Vec::new();
    let mut notes = Vec::new();
    for &p in parts {
        match cross_validate(ds, feats, p, opts) {
            Ok(r) => results.push(r),
            Err(e) if parts.len() > 1 && p == Partition::N && !matches!(e, Error::Cancelled) => {
                notes.push(format!("N-partition skipped: {e}"))
            }
            Err(e) => return Err(e),
        }
    }
    if opts.vi == ViKind::Guo {
        notes.push(
            "VI is Guo et al. (2019)'s Algorithm 1, whose Bouchard bound inflates coefficients on queries over more than two items (docs/features.md)"
                .into(),
        );
    }
    Ok((results, notes))
}

/// The metric curves of one method over the η grid.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CurveDoc {
    /// Comparison AUC.
    pub auc: Vec<f64>,
    /// Top-K metric (Guo et al. 2019 eqs 27–28).
    pub top_k: Vec<f64>,
    /// Mean log probability of the test pairs' outcomes.
    pub log_score: Vec<f64>,
}

impl From<&Curve> for CurveDoc {
    fn from(c: &Curve) -> Self {
        CurveDoc {
            auc: c.auc.clone(),
            top_k: c.top_k.clone(),
            log_score: c.log_score.clone(),
        }
    }
}

/// One row of Guo et al. 2019's Tables 3/4: the metric of VI and MAP at
/// their cross-validated best η and at η_L.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TableRow {
    /// VI at its best η.
    pub vi_at_eta_v: f64,
    /// MAP at its best η.
    pub map_at_eta_m: f64,
    /// VI at η_L.
    pub vi_at_eta_l: f64,
    /// MAP at η_L.
    pub map_at_eta_l: f64,
    /// VI's best η.
    pub eta_v: f64,
    /// MAP's best η.
    pub eta_m: f64,
    /// η_L: the largest mean training-fold bound's.
    pub eta_l: f64,
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

/// Mean test metrics.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MetricsDoc {
    /// Comparison AUC.
    pub auc: f64,
    /// Top-K metric.
    pub top_k: f64,
    /// Log score.
    pub log_score: f64,
}

impl From<Metrics> for MetricsDoc {
    fn from(m: Metrics) -> Self {
        MetricsDoc {
            auc: m.auc,
            top_k: m.top_k,
            log_score: m.log_score,
        }
    }
}

/// One partition's results.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PartitionDoc {
    /// `L` or `N`.
    pub partition: String,
    /// Splits evaluated.
    pub splits: usize,
    /// The η grid.
    pub etas: Vec<f64>,
    /// Mean training-fold bound per η.
    pub bound: Vec<f64>,
    /// η_L.
    pub eta_l: f64,
    /// VI's curves.
    pub vi: CurveDoc,
    /// MAP's curves.
    pub map: CurveDoc,
    /// Table row of the top-K metric.
    pub top_k_table: TableRow,
    /// Table row of the comparison AUC.
    pub auc_table: TableRow,
    /// Table row of the log score.
    pub log_score_table: TableRow,
    /// Mean test metrics when each split picks η by its own bound.
    pub per_split_bound_vi: MetricsDoc,
    /// The same for MAP.
    pub per_split_bound_map: MetricsDoc,
}

/// The document of `plackett cv --output json` (keys fixed).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CvDocument {
    /// `exact` or `guo`.
    pub vi: String,
    /// Folds.
    pub folds: usize,
    /// Repeats.
    pub repeats: usize,
    /// Seed.
    pub seed: u64,
    /// K of the top-K metric.
    pub top_k: usize,
    /// Items.
    pub n_items: usize,
    /// Observations.
    pub n_observations: usize,
    /// One entry per partition run.
    pub partitions: Vec<PartitionDoc>,
    /// Notes, in the caller's words.
    pub notes: Vec<String>,
    /// Wall time.
    pub seconds: f64,
}

fn part_name(p: Partition) -> &'static str {
    match p {
        Partition::L => "L",
        Partition::N => "N",
    }
}

impl CvDocument {
    /// The document of `results` (run on `ds` with `opts`).
    pub fn new(
        ds: &Dataset,
        opts: &CvOptions,
        results: &[CvResult],
        notes: Vec<String>,
        seconds: f64,
    ) -> CvDocument {
        CvDocument {
            vi: opts.vi.as_str().to_string(),
            folds: opts.folds,
            repeats: opts.repeats,
            seed: opts.seed,
            top_k: opts.top_k,
            n_items: ds.n_items(),
            n_observations: ds.n_real_obs(),
            partitions: results
                .iter()
                .map(|r| PartitionDoc {
                    partition: part_name(r.partition).to_string(),
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
            seconds,
        }
    }

    /// Pretty JSON, newline-terminated.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a cv document serialises") + "\n"
    }

    /// The text tables of `plackett cv` (Guo et al. 2019, Tables 3–4).
    pub fn to_table(&self) -> String {
        let j = self;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}-fold cross-validation × {}, seed {}; {} items, {} observations; VI = {} variational posterior\n\
             columns: each method at its cross-validated best η (best η), and both at the η whose \
             mean training-fold bound is highest (bound η; Guo et al. 2019's η_L)",
            j.folds,
            crate::io::output::count(j.repeats, "repeat", "repeats"),
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
                (|p: &PartitionDoc| &p.top_k_table) as fn(&PartitionDoc) -> &TableRow,
            ),
            ("Comparison AUC".to_string(), |p: &PartitionDoc| {
                &p.auc_table
            }),
            (
                "Held-out log score (mean log P of test pair outcomes)".to_string(),
                |p: &PartitionDoc| &p.log_score_table,
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
}
