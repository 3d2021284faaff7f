//! The page of `plackett classify fit --report` and Python's
//! `PLClassifier.report`: the Plackett–Luce regression classifier of
//! Archambeau & Caron 2012 — its facts, every class's normalised weights
//! with their intervals, and how it classifies the rows it is shown
//! (confusion matrix, probability of the true class, one-vs-rest ROC).

use super::{HtmlReport, charts};
use crate::classify::model::{Engine, EngineFit, FitOutcome, FitSummary};
use crate::classify::path::ClassifierPath;
use crate::eval::calibration::most_probable;
use crate::eval::metrics::{auc, roc_curve};
use crate::numerics::sig;

/// What the page shows.
pub struct ClassifyView<'a> {
    /// Page title.
    pub title: String,
    /// The fit.
    pub outcome: &'a FitOutcome,
    /// Its summary on the rows the page scores
    /// ([`FitOutcome::summary`]).
    pub summary: &'a FitSummary,
    /// The classes as the caller names them, in the model's order;
    /// `None`: the model's own names.
    pub class_names: Option<&'a [String]>,
    /// What the scored rows are ("the training rows", "the rows passed to
    /// report(X, y)").
    pub rows: &'a str,
}

/// ROC curves of each class's probability against membership of that
/// class (two classes: the second class's only, one curve says it all),
/// labelled `name (what x.xxx)`; classes all or none of the rows belong to
/// have no curve.
fn one_vs_rest(
    names: &[String],
    probs: &[&[f64]],
    truth: &[usize],
    what: &str,
) -> Vec<(String, Vec<(f64, f64)>)> {
    let k = names.len();
    (0..k)
        .filter(|&c| k > 2 || c == 1)
        .filter_map(|c| {
            let score: Vec<f64> = probs.iter().map(|p| p[c]).collect();
            let is: Vec<bool> = truth.iter().map(|&y| y == c).collect();
            if is.iter().all(|&b| b) || !is.iter().any(|&b| b) {
                return None;
            }
            Some((
                format!("{} ({what} {:.3})", names[c], auc(&score, &is)),
                charts::thin_curve(roc_curve(&score, &is)),
            ))
        })
        .collect()
}

/// Render the page.
pub fn fit_page(v: &ClassifyView<'_>) -> String {
    let model = &v.outcome.model;
    let s = v.summary;
    let (k, p) = (model.k(), model.p());
    let names: Vec<String> = match v.class_names {
        Some(n) => n.to_vec(),
        None => model.classes.clone(),
    };
    let mut r = HtmlReport::new(&v.title);
    let doc = &s.doc;
    let num = |key: &str| doc.get(key).and_then(|x| x.as_f64());
    let mut facts: Vec<(&str, String)> = vec![
        (
            "engine",
            match model.engine {
                Engine::Em => "em: the MAP by EM (Archambeau & Caron 2012 §3.2)".into(),
                Engine::Gibbs => "gibbs: posterior draws (Archambeau & Caron 2012 §3.3)".into(),
                Engine::Vb => "vb: variational Bayes (Archambeau & Caron 2012 §3.4)".into(),
            },
        ),
        ("rows scored", format!("{} ({})", s.truth.len(), v.rows)),
        ("classes", names.join(", ")),
        (
            "transformed features",
            format!("{p} ({})", model.transforms.join(", ")),
        ),
        (
            "Gamma prior on the weights",
            format!("a = {}, b = {}", sig(model.a, 4), sig(model.b, 4)),
        ),
        (
            "misclassification (most probable class)",
            format!(
                "{:.4}",
                num("training_misclassification").unwrap_or(f64::NAN)
            ),
        ),
    ];
    // Calibration of these rows' probabilities (the training rows from the
    // command line; any labelled rows from Python's report).
    if let Some(c) = crate::eval::calibration::calibration(
        s.probabilities
            .iter()
            .zip(&s.truth)
            .map(|(p, &y)| (p.as_slice(), y)),
    ) {
        facts.push(("calibration on these rows", c.describe()));
    }
    match &v.outcome.engine {
        EngineFit::Em(e) => {
            facts.push((
                "iterations",
                format!("{} (converged: {})", e.iterations, e.converged),
            ));
            facts.push(("exact zeros", e.zeros().to_string()));
            if let Some(l) = e.objective.last() {
                facts.push(("log-posterior", format!("{l:.4}")));
            }
        }
        EngineFit::Gibbs(g) => {
            facts.push((
                "draws",
                format!("{} chains × {} kept", g.draws.len(), g.per_chain()),
            ));
            facts.push((
                "mixing of the normalised weights",
                format!(
                    "max split-R̂ {:.3}, min bulk ESS {:.0}",
                    g.max_rhat(),
                    g.min_ess()
                ),
            ));
            if let Some(acc) = g.a_acceptance {
                facts.push(("acceptance of the a step", format!("{acc:.3}")));
            }
        }
        EngineFit::Vb(f) => {
            facts.push((
                "iterations",
                format!("{} (converged: {})", f.iterations, f.converged),
            ));
            if let Some(l) = f.free_energy.last() {
                facts.push(("free energy", format!("{l:.4}")));
            }
        }
    }
    if let Some(t) = num("seconds") {
        facts.push(("seconds", format!("{t:.3}")));
    }
    r.facts(&facts);
    for n in &s.notes {
        r.para(&format!("Note: {n}"));
    }

    r.heading("Weights");
    let (lo, hi) = match &s.intervals {
        Some((lo, hi)) => (lo.concat(), hi.concat()),
        None => (model.weights.concat(), model.weights.concat()),
    };
    let what = match model.engine {
        Engine::Em => "the MAP (exact zeros where the prior's shape a < 1 removed a transform)",
        Engine::Gibbs => "the posterior mean with a 95% interval from the kept draws",
        Engine::Vb if model.q_log_cov.is_some() => {
            "the posterior mean with a 95% interval from 2,000 draws of the variational posterior \
             with its linear-response covariance (as wide as the exact posterior's on Iris and Wine)"
        }
        Engine::Vb => {
            "the posterior mean with a 95% interval from 2,000 draws of the mean-field variational \
             posterior (about half as wide as the exact posterior's; use gibbs or the default \
             linear-response covariance for weight intervals)"
        }
    };
    r.para(&format!(
        "Normalised weights λ/Σλ over all classes and transforms: {what}. A class's \
         probability for a row is its weights against the row's transformed features \
         W = (exp(x), exp(−x), 1, …) relative to the other classes' (Archambeau & Caron 2012, \
         eq. 2); a large weight on exp(+x) favours the class where x is large."
    ));
    for (c, name) in names.iter().enumerate() {
        let range = c * p..(c + 1) * p;
        r.figure(
            &charts::forest(
                &model.transforms,
                &model.weights[c],
                &lo[range.clone()],
                &hi[range],
                "normalised weight",
            ),
            &format!("Class {name}."),
        );
    }

    r.heading(&format!("Classification of {}", v.rows));
    let mut confusion = vec![vec![0usize; k]; k];
    for (prob, &y) in s.probabilities.iter().zip(&s.truth) {
        confusion[y][most_probable(prob)] += 1;
    }
    let mut header: Vec<String> = vec!["true class \\ predicted".into()];
    header.extend(names.iter().cloned());
    header.push("rows".into());
    header.push("correct".into());
    let rows: Vec<Vec<String>> = (0..k)
        .map(|y| {
            let n: usize = confusion[y].iter().sum();
            let mut row = vec![names[y].clone()];
            row.extend(confusion[y].iter().map(|c| c.to_string()));
            row.push(n.to_string());
            row.push(if n > 0 {
                format!("{:.3}", confusion[y][y] as f64 / n as f64)
            } else {
                "–".into()
            });
            row
        })
        .collect();
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    r.table(&header_refs, &rows);
    r.para(
        "Rows are classified to their most probable class (the posterior predictive for gibbs \
         and vb, the plug-in for em). On the training rows this is in-sample; `classify cv` \
         (or scikit-learn's cross_val_score from Python) measures held-out performance.",
    );
    let true_prob: Vec<(String, Vec<f64>)> = (0..k)
        .map(|c| {
            (
                names[c].clone(),
                s.probabilities
                    .iter()
                    .zip(&s.truth)
                    .filter(|(_, y)| **y == c)
                    .map(|(prob, _)| prob[c])
                    .collect(),
            )
        })
        .filter(|(_, v): &(String, Vec<f64>)| !v.is_empty())
        .collect();
    r.figure(
        &charts::histogram(&true_prob, 20, "probability of the true class"),
        "Each row's predicted probability of its own class, by class: mass near 1 is \
         confident and right, near 0 confident and wrong.",
    );
    let probs: Vec<&[f64]> = s.probabilities.iter().map(Vec::as_slice).collect();
    let roc = one_vs_rest(&names, &probs, &s.truth, "AUC");
    if !roc.is_empty() {
        r.figure(
            &charts::roc(&roc),
            if k == 2 {
                "ROC curve of the positive class's probability."
            } else {
                "One-vs-rest ROC curves: each class's probability against membership of that class."
            },
        );
    }
    if let EngineFit::Gibbs(g) = &v.outcome.engine
        && g.a_acceptance.is_some()
    {
        r.heading("The Gamma shape a");
        let series: Vec<(String, Vec<f64>)> = g
            .a_draws
            .iter()
            .enumerate()
            .map(|(i, d)| (format!("chain {}", i + 1), d.clone()))
            .collect();
        r.figure(
            &charts::lines(&series, "kept draw", "a", false),
            "Draws of the prior's shape a (sampled under p(a) ∝ 1/a): the chains should overlap.",
        );
    }
    r.render()
}

/// The page of `plackett classify cv --report`: the held-out
/// misclassification of every split, the pooled held-out ROC curves and
/// the calibration of the held-out predictions (Archambeau & Caron 2012's
/// protocol of repeated random splits, or stratified k-fold).
/// `calibration` is the splits' pooled calibration
/// ([`pooled_calibration`](crate::classify::cv::pooled_calibration)), which
/// the caller has computed for its own output.
pub fn cv_page(
    title: &str,
    protocol: &str,
    classes: &[String],
    truth: &[usize],
    splits: &[crate::classify::cv::SplitResult],
    calibration: Option<&crate::eval::calibration::Calibration>,
) -> String {
    let k = classes.len();
    let mut r = HtmlReport::new(title);
    let mis: Vec<f64> = splits.iter().map(|s| s.misclassification).collect();
    let (mm, ms) = crate::stats::mean_sd_of_repeats(&mis);
    let mut facts: Vec<(&str, String)> = vec![
        ("protocol", protocol.to_string()),
        ("rows", truth.len().to_string()),
        ("classes", classes.join(", ")),
        (
            "held-out misclassification",
            format!(
                "{}{}",
                crate::stats::mean_pm(mm, ms),
                if ms.is_some() {
                    " (sd over splits)"
                } else {
                    " (one split)"
                }
            ),
        ),
    ];
    let aucs: Vec<f64> = splits.iter().filter_map(|s| s.auc).collect();
    if !aucs.is_empty() {
        let (am, asd) = crate::stats::mean_sd_of_repeats(&aucs);
        facts.push(("held-out AUC", crate::stats::mean_pm(am, asd)));
    }
    if let Some(c) = calibration {
        facts.push(("held-out calibration", c.describe()));
    }
    let secs: Vec<f64> = splits.iter().map(|s| s.seconds).collect();
    facts.push((
        "seconds per split (fit and prediction)",
        format!("{:.3}", crate::stats::mean(&secs)),
    ));
    r.facts(&facts);
    r.heading("Held-out misclassification per split");
    r.figure(
        &charts::histogram(
            &[("splits".to_string(), mis)],
            20,
            "held-out misclassification",
        ),
        "Each split's share of held-out rows whose most probable class is wrong.",
    );
    // Every held-out prediction of every split, pooled.
    let pooled: Vec<(&[f64], usize)> = splits
        .iter()
        .flat_map(|s| s.test_rows.iter().zip(&s.probabilities))
        .map(|(&row, p)| (p.as_slice(), truth[row]))
        .collect();
    r.heading("Held-out ROC curves");
    let (probs, ys): (Vec<&[f64]>, Vec<usize>) = pooled.iter().copied().unzip();
    let roc = one_vs_rest(classes, &probs, &ys, "pooled AUC");
    r.figure(
        &charts::roc(&roc),
        if k == 2 {
            "Every held-out row of every split, scored by its probability of the second class."
        } else {
            "Every held-out row of every split, one-vs-rest for each class."
        },
    );
    r.heading("Calibration of the held-out predictions");
    let pts = super::reliability(pooled.iter().map(|(p, y)| {
        let best = most_probable(p);
        (p[best], best == *y)
    }));
    r.figure(
        &charts::xy(
            &[
                ("held-out rows".to_string(), pts),
                (
                    super::charts::PERFECT_CALIBRATION.to_string(),
                    vec![(0.0, 0.0), (1.0, 1.0)],
                ),
            ],
            "probability of the predicted class, binned",
            "share predicted right",
            false,
            None,
        ),
        "Held-out rows in ten bins of the probability of their most probable class: the bin's \
         mean probability against the share classified right. On the diagonal the \
         probabilities mean what they say; below it they are overconfident, above it \
         underconfident (the expected calibration error is the bins' mean distance from it, \
         weighted by their rows).",
    );
    r.render()
}

/// The path plot of `classify path --plot` (SVG): every class and
/// transform's normalised weight against `a`, log scale.
pub fn path_svg(path: &ClassifierPath) -> String {
    let p = path.transforms.len();
    let series: Vec<(String, Vec<(f64, f64)>)> = (0..path.classes.len() * p)
        .map(|q| {
            (
                format!("{} / {}", path.classes[q / p], path.transforms[q % p]),
                path.points.iter().map(|pt| (pt.a, pt.weights[q])).collect(),
            )
        })
        .collect();
    // The weights that matter (largest anywhere on the path) in the
    // palette, the rest grey: 27 near-identical colours could not be
    // matched to the legend.
    let mut series = series;
    let peak = |s: &(String, Vec<(f64, f64)>)| s.1.iter().map(|p| p.1).fold(0.0, f64::max);
    series.sort_by(|a, b| peak(b).total_cmp(&peak(a)));
    super::charts::xy_highlighted(&series, "a", "normalised weight", true, None, Some(6))
}
