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
    // Known keywords have p = 1 by definition and the unlabelled words
    // mostly p of a few hundredths: on one 0–1 axis the chart would show
    // the known words alone. The known words are listed; the bars are the
    // unlabelled candidates, on their own scale.
    let known: Vec<String> = ex
        .candidates
        .iter()
        .filter(|c| c.known)
        .map(|c| c.words.join("/"))
        .collect();
    let unlabelled: Vec<_> = ex.candidates.iter().filter(|c| !c.known).collect();
    let rows = &unlabelled[..unlabelled.len().min(CHART_ROWS)];
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
    let class: Vec<u8> = rows.iter().map(|c| u8::from(c.selected)).collect();
    // The rule selects a top set of the unlabelled words: the cut is its size.
    let cut = unlabelled.iter().filter(|c| c.selected).count();
    r.heading("Candidates ranked by keyword probability");
    r.para(&format!(
        "Known keywords ({}, labelled, p = 1): {}.",
        known.len(),
        known.join(", ")
    ));
    r.figure(
        &charts::ranked_bars(
            &names,
            &p,
            &class,
            Some(cut),
            &format!("p ({})", ex.probability),
        ),
        &format!(
            "The {} best of the {} unlabelled candidates (stem, then the words of the text it \
             stands for), on their own scale. Blue: selected by the Bayesian FDR rule at γ = {} \
             (over the unlabelled words); grey: not selected. The dashed line is the cut: the \
             largest top set whose mean 1 − p stays below γ.",
            rows.len(),
            unlabelled.len(),
            ex.fdr
        ),
    );
    if let Some(ph) = ex.phrases.as_ref().filter(|ph| !ph.is_empty()) {
        r.heading("Keyphrases");
        r.para(
            "The selected words' runs in the text (adjacent words of a sentence with no \
             punctuation between), collapsed into keyphrases as TextRank does (Mihalcea & \
             Tarau 2004, §3.1); p min is the smallest probability among a phrase's words.",
        );
        let rows: Vec<Vec<String>> = ph
            .iter()
            .map(|k| {
                vec![
                    k.phrase.clone(),
                    k.count.to_string(),
                    format!("{:.4}", k.p_min),
                    if k.known { "yes".into() } else { String::new() },
                    k.forms[1..].join(", "),
                ]
            })
            .collect();
        r.table(
            &["keyphrase", "count", "p min", "all known", "other forms"],
            &rows,
        );
    }
    let ranks = super::extract::baseline_ranks(ex);
    let baselines: Vec<(&str, &Vec<usize>)> = ["TextRank", "PositionRank", "SS"]
        .into_iter()
        .zip(&ranks)
        .filter_map(|(name, r)| r.as_ref().map(|r| (name, r)))
        .collect();
    if !baselines.is_empty() {
        // How far the baselines order the words as VBSS does: Spearman's ρ
        // over the candidates not known (the known ones lead VBSS's and
        // SS's lists by construction).
        let free: Vec<usize> = (0..ex.candidates.len())
            .filter(|&i| !ex.candidates[i].known)
            .collect();
        let by_p: Vec<f64> = free.iter().map(|&i| i as f64).collect();
        let rho: Vec<String> = baselines
            .iter()
            .map(|(name, r)| {
                let theirs: Vec<f64> = free.iter().map(|&i| r[i] as f64).collect();
                format!("{name} {:.3}", plackett::stats::spearman(&by_p, &theirs))
            })
            .collect();
        r.para(&format!(
            "Baselines on the same graph (--baselines): TextRank (Mihalcea & Tarau 2004), \
             PositionRank (Florescu & Caragea 2017) and SS (Li et al. 2010); the table gives \
             each candidate's rank by each. Spearman's ρ between their order and the order by p \
             over the {} candidates not known: {}.",
            free.len(),
            rho.join(", ")
        ));
    }
    r.heading("Every candidate");
    let table: Vec<Vec<String>> = ex
        .candidates
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mut row = vec![
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
            ];
            row.extend(baselines.iter().map(|(_, r)| r[k].to_string()));
            row
        })
        .collect();
    let mut header = vec![
        "rank".to_string(),
        "stem".into(),
        "words".into(),
        "known".into(),
        "p".into(),
        "sd of Φ(a + bθ)".into(),
        "selected".into(),
        "frequency".into(),
    ];
    header.extend(baselines.iter().map(|(name, _)| format!("{name} rank")));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    r.table(&header, &table);
    r.render()
}
