//! The HTML report of one document's keyword extraction (`plackett keywords
//! extract --report`): the candidates ranked by their keyword probability
//! with the Bayesian FDR cut (Newton et al. 2004; Hu 2024 §1.3.5) and the
//! known keywords marked, then the table.

use super::extract::Extraction;
use plackett::report::{HtmlReport, charts};

/// Rows of the chart (the table lists every candidate).
const CHART_ROWS: usize = 60;

/// The page for `ex` (`engine` names the engine in the facts).
pub fn render(title: &str, engine: &str, ex: &Extraction) -> String {
    let mut r = HtmlReport::new(title);
    r.facts(&[
        ("candidate words", ex.n_candidates.to_string()),
        ("known keywords", ex.known.to_string()),
        (
            "engine",
            match engine {
                "gibbs" => "Gibbs sampler (exact posterior, Albert & Chib 1993)".to_string(),
                _ => "VBSS (Hu 2024, ch. 1)".to_string(),
            },
        ),
        ("probability the FDR rule reads", ex.probability.clone()),
        ("FDR level γ", ex.fdr.to_string()),
        ("selected", ex.selected.len().to_string()),
        ("iterations", ex.iterations.to_string()),
        (
            "ELBO",
            ex.elbo
                .map_or_else(|| "—".to_string(), |e| format!("{e:.4}")),
        ),
        ("converged", ex.converged.to_string()),
    ]);
    for n in &ex.notes {
        r.para(&format!("Note: {n}"));
    }
    let rows = &ex.candidates[..ex.candidates.len().min(CHART_ROWS)];
    let names: Vec<String> = rows
        .iter()
        .map(|c| {
            let w = c.words.join(", ");
            if w == c.stem {
                c.stem.clone()
            } else {
                format!("{} ({w})", c.stem)
            }
        })
        .collect();
    let p: Vec<f64> = rows.iter().map(|c| c.p).collect();
    let class: Vec<u8> = rows
        .iter()
        .map(|c| if c.known { 2 } else { u8::from(c.selected) })
        .collect();
    // The rule selects a top set of the ranking: the cut is its size.
    let cut = ex.candidates.iter().filter(|c| c.selected).count();
    r.heading("Candidates ranked by keyword probability");
    r.figure(
        &charts::ranked_bars(&names, &p, &class, Some(cut), &format!("p ({})", ex.probability)),
        &format!(
            "The {} best of {} candidates (stem, then the words of the text it stands for). Orange: \
             known keywords; blue: selected by the Bayesian FDR rule at γ = {}; grey: not selected. \
             The dashed line is the cut: the largest top set whose mean 1 − p stays below γ.",
            rows.len(),
            ex.n_candidates,
            ex.fdr
        ),
    );
    r.heading("Every candidate");
    let table: Vec<Vec<String>> = ex
        .candidates
        .iter()
        .map(|c| {
            vec![
                c.rank.to_string(),
                c.stem.clone(),
                c.words.join(", "),
                if c.known { "yes".into() } else { String::new() },
                format!("{:.4}", c.p),
                format!("{:.4}", c.sd),
                if c.selected {
                    "yes".into()
                } else {
                    String::new()
                },
                format!("{:.0}", c.frequency),
            ]
        })
        .collect();
    r.table(
        &[
            "rank",
            "stem",
            "words",
            "known",
            "p",
            "sd of Φ(a + bθ)",
            "selected",
            "frequency",
        ],
        &table,
    );
    r.render()
}
