//! The `plackett mil fit --report` page (Hu 2024, ch. 2): ROC curves of
//! the training bags and, when the truth is known, of the primary
//! instances; the coefficients with their intervals; and the instances
//! that drove one bag.

use super::{HtmlReport, charts};
use crate::error::{Error, Result};
use crate::eval::metrics::roc_curve;
use crate::mil::{BagPrediction, Bags, MilFitInfo, MilModel};

/// Fewer repeats than this are a table, not a chart.
const MIN_REPEATS_PLOTTED: usize = 6;

/// What a multiple-instance report shows.
pub struct MilView<'a> {
    /// Page title.
    pub title: String,
    /// The training bags.
    pub bags: &'a Bags,
    /// The fitted model.
    pub model: &'a MilModel,
    /// Convergence facts and instance probabilities.
    pub info: &'a MilFitInfo,
    /// The training bags' predictions.
    pub pred: &'a [BagPrediction],
    /// Notes (warnings) in the caller's words.
    pub notes: &'a [String],
    /// Training bag AUROC and primary-instance AUROC
    /// ([`crate::mil::summary::fit_aurocs`]).
    pub aurocs: (f64, Option<f64>),
    /// The bag whose instances are listed; `None`: the most probable bag.
    pub bag: Option<&'a str>,
    /// How the caller's front end picks another bag (`--report-bag NAME`
    /// on the command line), said under the most probable bag's table.
    pub pick_bag: &'a str,
    /// How the chosen bag's instances are named.
    pub instance_rows: InstanceRows,
    /// The bags' names as the caller knows them, in the order of
    /// `bags.bags`; `None`: the names the data gave.
    pub bag_labels: Option<&'a [String]>,
}

/// How a report names instances: by the data row of a file (the CLI,
/// Python's long tables), or by their place in their bag (bags handed over
/// as arrays, where no file rows exist).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstanceRows {
    /// The 0-based data row of the file or table.
    DataRow,
    /// The 0-based position among the bag's instances of its modality,
    /// in data-row order (the order the caller gave them).
    InBag,
}

/// Instances listed for the chosen bag.
const TOP_INSTANCES: usize = 10;

use crate::eval::calibration::BINS;

/// Render the report; a named bag that the data do not hold is an error.
pub fn render(v: &MilView<'_>) -> Result<String> {
    let bags = v.bags;
    let chosen = match v.bag {
        Some(name) => bags
            .bags
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| {
                Error::param("report_bag", format!("no bag named {name:?} in the data"))
            })?,
        None => (0..v.pred.len())
            .max_by(|&a, &b| v.pred[a].p.total_cmp(&v.pred[b].p))
            .unwrap_or(0),
    };
    let mut r = HtmlReport::new(&v.title);
    let counts = bags.counts();
    let labels: Vec<bool> = bags.bags.iter().map(|b| b.label == Some(true)).collect();
    let p: Vec<f64> = v.pred.iter().map(|b| b.p).collect();
    let (bag_auc, primary_auc) = v.aurocs;
    let engine = match v.info.covariance.as_deref() {
        Some(c) => format!("{} ({c} covariance)", v.info.engine),
        None => v.info.engine.clone(),
    };
    let mut facts: Vec<(&str, String)> = vec![
        ("engine", engine),
        (
            "data",
            format!(
                "{} bags; {} instances of modality 0, {} of modality 1",
                bags.n_bags(),
                counts[0],
                counts[1]
            ),
        ),
    ];
    if let (Some(it), Some(c), Some(e)) = (v.info.iterations, v.info.converged, v.info.elbo) {
        facts.push((
            "convergence",
            format!("{it} sweeps, converged {c}, ELBO {e:.4}"),
        ));
    }
    if let (Some(rh), Some(e)) = (v.info.max_rhat, v.info.min_ess) {
        facts.push(("max split-R̂ / min bulk ESS", format!("{rh:.3} / {e:.0}")));
    }
    facts.push(("training bag AUROC", format!("{bag_auc:.4}")));
    if let Some(a) = primary_auc {
        facts.push((
            "primary-instance AUROC (against the file's truth)",
            format!("{a:.4}"),
        ));
    }
    r.facts(&facts);
    for n in v.notes {
        r.para(&format!("Note: {n}"));
    }

    r.heading("ROC curves");
    let mut series = vec![(
        format!("training bags (AUROC {bag_auc:.3})"),
        charts::thin_curve(roc_curve(&p, &labels)),
    )];
    if let (Some(t), Some(a)) = (bags.primary.as_ref(), primary_auc) {
        series.push((
            format!("primary instances (AUROC {a:.3})"),
            charts::thin_curve(roc_curve(&v.info.primary, t)),
        ));
    }
    r.figure(
        &charts::roc(&series),
        "Bags scored by their posterior predictive P(label = 1); instances (when the data \
         carry the true primary indicators) by their posterior probability of being primary. \
         These are training data; held-out performance is what mil cv measures.",
    );

    r.heading("Coefficients with 90% intervals");
    let mut params: Vec<&crate::mil::model::ParamSummary> = v.model.parameters.iter().collect();
    params.sort_by(|a, b| b.mean.total_cmp(&a.mean));
    let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    r.figure(
        &charts::forest(
            &names,
            &params.iter().map(|p| p.mean).collect::<Vec<_>>(),
            &params.iter().map(|p| p.lower).collect::<Vec<_>>(),
            &params.iter().map(|p| p.upper).collect::<Vec<_>>(),
            "posterior mean and 5%–95% interval",
        ),
        &format!(
            "Largest mean first. α, β, γ: the bag-level (outer) probit; a, b, c, d: which \
             instances are primary (inner probit; Hu 2024, §2.2.1).{}",
            match (v.info.engine.as_str(), v.info.instance_level_corrected()) {
                ("vb", true) => {
                    " VB's bag-level intervals (α, β, γ) are mean-field and far too narrow; \
                     the instance level's (a, b, c, d) are linear-response corrected, of the \
                     exact posterior's scale (docs/mil.md). Use the Gibbs engine for intervals."
                }
                ("vb", _) => {
                    " VB's mean-field intervals are far too narrow (docs/mil.md): read them as \
                     locations, and use the Gibbs engine for intervals."
                }
                _ => "",
            }
        ),
    );

    let b = &bags.bags[chosen];
    let shown = v.bag_labels.map_or(b.name.as_str(), |l| l[chosen].as_str());
    r.heading(&format!("Instances of bag {shown}"));
    r.para(&format!(
        "Label {}, posterior predictive P(label = 1) = {:.4}{}. The instances most likely to \
         be primary, that is, to have driven the label.",
        b.label
            .map_or("unknown".to_string(), |l| u8::from(l).to_string()),
        v.pred[chosen].p,
        if v.bag.is_none() {
            format!(" (the most probable bag; {} picks another)", v.pick_bag)
        } else {
            String::new()
        }
    ));
    let mut inst: Vec<usize> = (b.start..b.end).collect();
    inst.sort_by(|&i, &j| v.info.primary[j].total_cmp(&v.info.primary[i]));
    let mut header = vec![
        match v.instance_rows {
            InstanceRows::DataRow => "data row (from 0)",
            InstanceRows::InBag => "instance (from 0, within its bag and modality)",
        },
        "modality",
        "P(primary)",
    ];
    if bags.primary.is_some() {
        header.push("true primary");
    }
    let rows: Vec<Vec<String>> = inst
        .iter()
        .take(TOP_INSTANCES)
        .map(|&j| {
            let name = match v.instance_rows {
                InstanceRows::DataRow => bags.row[j],
                // The bag holds its instances in a canonical order, not
                // the caller's: rank by data row within the modality.
                InstanceRows::InBag => (b.start..b.end)
                    .filter(|&i| bags.modality[i] == bags.modality[j] && bags.row[i] < bags.row[j])
                    .count(),
            };
            let mut row = vec![
                name.to_string(),
                bags.modality[j].to_string(),
                format!("{:.4}", v.info.primary[j]),
            ];
            if let Some(t) = &bags.primary {
                row.push(if t[j] { "yes" } else { "no" }.into());
            }
            row
        })
        .collect();
    r.table(&header, &rows);
    Ok(r.render())
}

/// The `plackett mil cv --report` page (Python: `mil_cv(report=…)`): every
/// method's held-out bag AUROC over the repeats of stratified k-fold
/// cross-validation on the same folds, its ROC curve and the calibration
/// of its held-out probabilities.
pub fn cv_page(title: &str, bags: &Bags, cvs: &[crate::mil::MilCv]) -> Result<String> {
    let y = bags.training_labels("data")?;
    let mut r = HtmlReport::new(title);
    let repeats = cvs.first().map_or(0, |c| c.auroc.len());
    let folds = cvs.first().map_or(0, |c| c.folds);
    let positives = y.iter().filter(|&&v| v).count();
    r.facts(&[
        (
            "bags",
            format!("{} ({positives} positive, {} negative)", y.len(), y.len() - positives),
        ),
        (
            "protocol",
            format!(
                "stratified {folds}-fold cross-validation × {}, the same folds for every method; a repeat's held-out scores of all folds pooled into one AUROC",
                crate::io::output::count(repeats, "repeat", "repeats")
            ),
        ),
        (
            "methods",
            cvs.iter().map(|c| c.method.as_str()).collect::<Vec<_>>().join(", "),
        ),
    ]);
    let rows: Vec<Vec<String>> = cvs
        .iter()
        .map(|c| {
            let lo = c.auroc.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = c.auroc.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            vec![
                c.method.clone(),
                format!("{:.4}", c.mean_auroc),
                crate::stats::cell(c.sd_auroc, 4),
                format!("{lo:.4} – {hi:.4}"),
                format!("{:.4}", crate::stats::mean(&c.accuracy)),
                c.calibration
                    .map_or(String::new(), |k| format!("{:.4}", k.log_loss)),
                c.calibration
                    .map_or(String::new(), |k| format!("{:.4}", k.brier)),
                c.calibration
                    .map_or(String::new(), |k| format!("{:.4}", k.ece)),
            ]
        })
        .collect();
    r.table(
        &[
            "method",
            "bag AUROC (mean)",
            "sd over repeats",
            "range over repeats",
            "accuracy at 0.5",
            "log loss",
            "Brier (both classes)",
            "ECE",
        ],
        &rows,
    );

    r.heading("ROC curves of the held-out bags");
    let series: Vec<(String, Vec<(f64, f64)>)> = cvs
        .iter()
        .filter_map(|c| {
            let s = c.scores.first()?;
            Some((
                format!("{} (AUROC {:.3})", c.method, c.auroc[0]),
                charts::thin_curve(roc_curve(s, &y)),
            ))
        })
        .collect();
    r.figure(
        &charts::roc(&series),
        "The first repeat: every bag scored by the fit that did not see it. The legend's AUROC \
         is that repeat's; the table above gives the mean over repeats, so the two differ \
         when there are several.",
    );

    r.heading("Calibration of the held-out probabilities");
    let bins: Vec<(String, Vec<crate::eval::calibration::ReliabilityBin>)> = cvs
        .iter()
        .map(|c| {
            let pairs = c
                .scores
                .iter()
                .flat_map(|s| s.iter().zip(&y).map(|(&p, &t)| (p, t)));
            (
                c.method.clone(),
                crate::eval::calibration::reliability_bins(pairs),
            )
        })
        .collect();
    let mut cal: Vec<(String, Vec<(f64, f64)>)> = bins
        .iter()
        .map(|(m, b)| {
            (
                m.clone(),
                b.iter().map(|b| (b.mean_score, b.share_true)).collect(),
            )
        })
        .collect();
    cal.push((
        super::charts::PERFECT_CALIBRATION.into(),
        vec![(0.0, 0.0), (1.0, 1.0)],
    ));
    r.figure(
        &charts::xy(
            &cal,
            "predicted P(label = 1), binned",
            "observed share of positive bags",
            false,
            None,
        ),
        "Held-out bags of every repeat in ten bins of their predicted probability: the bin's \
         mean prediction against the share of positives in it. Points on the diagonal are \
         calibrated; a bin of few bags (counts below) is noisy, which makes the lines zigzag.",
    );
    let rows: Vec<Vec<String>> = bins
        .iter()
        .map(|(m, b)| {
            let mut row = vec![m.clone()];
            row.extend((0..BINS).map(|k| {
                b.iter()
                    .find(|b| b.bin == k)
                    .map_or("0".into(), |b| b.count.to_string())
            }));
            row
        })
        .collect();
    let heads: Vec<String> = (0..BINS)
        .map(|k| {
            let w = 1.0 / BINS as f64;
            format!("{:.1}–{:.1}", k as f64 * w, (k + 1) as f64 * w)
        })
        .collect();
    let mut header = vec!["bags per bin of predicted P"];
    header.extend(heads.iter().map(String::as_str));
    r.table(&header, &rows);
    if repeats > 1 {
        r.heading("Bag AUROC per repeat");
        r.para("Each repeat reshuffles the folds; the spread is the protocol's own noise.");
        if repeats < MIN_REPEATS_PLOTTED {
            // A line through a few points says less than the numbers.
            let rows: Vec<Vec<String>> = cvs
                .iter()
                .map(|c| {
                    let mut row = vec![c.method.clone()];
                    row.extend(c.auroc.iter().map(|a| format!("{a:.4}")));
                    row
                })
                .collect();
            let heads: Vec<String> = (1..=repeats).map(|k| format!("repeat {k}")).collect();
            let mut header = vec!["method"];
            header.extend(heads.iter().map(String::as_str));
            r.table(&header, &rows);
        } else {
            let per: Vec<(String, Vec<f64>)> = cvs
                .iter()
                .map(|c| (c.method.clone(), c.auroc.clone()))
                .collect();
            r.figure(&charts::lines(&per, "repeat", "bag AUROC", false), "");
        }
    }
    Ok(r.render())
}
