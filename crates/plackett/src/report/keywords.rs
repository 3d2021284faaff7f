//! The page of `plackett keywords evaluate --report` and Python's
//! `evaluate_keywords(report=…)`: Hu 2024 §1.4's evaluation protocol drawn
//! — pooled precision, recall and F against the FDR level γ for every
//! method (Table 1.5's numbers as curves), realised against nominal FDR,
//! and VBSS's time per document against its size.

use super::{HtmlReport, charts};
use crate::keywords::evaluate::{Cell, EvalTable};

/// VBSS's time per document against its number of candidate words, on
/// log–log axes with the least-squares slope in the label (the
/// dissertation reports quadratic growth for its R code): `keywords
/// evaluate --timing-plot`.
pub fn timing_plot(t: &EvalTable) -> String {
    let pts: Vec<(f64, f64)> = t
        .per_document
        .iter()
        .filter(|d| d.seconds > 0.0)
        .map(|d| ((d.n as f64).log10(), d.seconds.log10()))
        .collect();
    charts::scatter(
        &pts,
        "log10 candidate words n",
        &match t.time_exponent() {
            Some(e) => format!("log10 VBSS seconds (slope {e:.2})"),
            None => "log10 VBSS seconds (n spans too narrow a range for a slope)".into(),
        },
        false,
    )
}

/// One `(γ, value)` curve per method.
fn against_gamma(t: &EvalTable, get: fn(&Cell) -> f64) -> Vec<(String, Vec<(f64, f64)>)> {
    t.labels
        .iter()
        .enumerate()
        .map(|(m, label)| {
            let curve = t
                .gammas
                .iter()
                .zip(&t.cells)
                .map(|(&g, row)| (g, get(&row[m])))
                .collect();
            (label.clone(), curve)
        })
        .collect()
}

/// Render the page; `corpus` names the corpus in the facts.
pub fn evaluate_page(title: &str, corpus: &str, t: &EvalTable) -> String {
    let mut r = HtmlReport::new(title);
    let mut facts: Vec<(&str, String)> = vec![
        ("corpus", corpus.to_string()),
        (
            "documents",
            format!(
                "{} kept of {} (at least the minimum of ground-truth keywords among their candidates)",
                t.documents, t.documents_given
            ),
        ),
        ("candidate words", t.candidates.to_string()),
        ("ground-truth keywords", t.keywords.to_string()),
        ("known keywords per document", t.k.to_string()),
        (
            "draws of the known keywords",
            format!("{} (pooled: counts are totals over the draws)", t.draws),
        ),
        (
            "cut methods",
            format!(
                "select at the rate r(γ) of {}{}",
                t.rates_from.label(),
                if t.forced {
                    ", the known keywords forced in (Hu 2024 Table 1.5's setting)"
                } else {
                    ""
                }
            ),
        ),
    ];
    let secs: Vec<String> = t
        .labels
        .iter()
        .zip(&t.seconds)
        .map(|(m, s)| format!("{m} {s:.2}"))
        .collect();
    facts.push((
        "seconds per method (CPU, summed over documents)",
        secs.join(", "),
    ));
    if t.vbss_not_converged > 0 {
        facts.push((
            "VBSS at its iteration limit",
            format!("{} document draw(s)", t.vbss_not_converged),
        ));
    }
    r.facts(&facts);

    type Get = fn(&Cell) -> f64;
    let measures: [(&str, &str, Get); 3] = [
        ("F-measure", "F", |c| c.f),
        ("Precision", "precision", |c| c.precision),
        ("Recall", "recall", |c| c.recall),
    ];
    for (heading, axis, get) in measures {
        r.heading(heading);
        let series = against_gamma(t, get);
        r.figure(
            &charts::xy(
                &series,
                "FDR level γ",
                &format!("pooled {axis}"),
                false,
                None,
            ),
            &format!("Pooled {axis} over the documents at each γ (micro-averaged)."),
        );
        let mut header: Vec<String> = vec!["γ".into()];
        header.extend(t.labels.iter().cloned());
        let rows: Vec<Vec<String>> = t
            .gammas
            .iter()
            .zip(&t.cells)
            .map(|(g, row)| {
                let mut cells = vec![format!("{g}")];
                cells.extend(row.iter().map(|c| format!("{:.3}", get(c))));
                cells
            })
            .collect();
        let h: Vec<&str> = header.iter().map(String::as_str).collect();
        r.table(&h, &rows);
    }

    r.heading("Realised against nominal FDR");
    let mut fdr = against_gamma(t, |c| c.realised_fdr);
    if let (Some(&lo), Some(&hi)) = (t.gammas.first(), t.gammas.last()) {
        fdr.push(("nominal (realised = γ)".into(), vec![(lo, lo), (hi, hi)]));
    }
    r.figure(
        &charts::xy(&fdr, "FDR level γ", "realised FDR (1 − precision)", false, None),
        "VBSS and BSS select by the Bayesian FDR rule at level γ (Newton et al. 2004; Hu 2024 §1.3.4): below the \
         line they control the FDR; the cut methods select as many words as the rule of the \
         method setting their rates and are shown for comparison.",
    );
    if t.per_document.iter().any(|d| d.seconds > 0.0) {
        r.heading("VBSS time per document");
        r.figure(
            &timing_plot(t),
            "One point per document (and draw): the eigendecomposition of the prior is O(n³) \
             once, every sweep O(n²).",
        );
    }
    r.render()
}
