//! HTML report of an adherence fit (Raman & Joachims 2014; the form R's
//! PlackettLuce fits, Turner et al. 2020): the consensus worths, every
//! ranker's adherence `η_r`, and how far each adherence is pulled to its
//! prior by the number of rankings behind it.

use super::{HtmlReport, charts};
use crate::infer::adherence_output::AdherenceReport;
use crate::numerics::sig;

/// At most this many rankers are drawn in the adherence chart (the
/// least and the most adherent halves); all of them are in the JSON and
/// CSV outputs.
const MAX_RANKERS_DRAWN: usize = 60;

/// A point and its 90% interval, or the point alone (MLE / MAP).
fn bar(mid: f64, interval: Option<[f64; 2]>) -> (f64, f64, f64) {
    match interval {
        Some([lo, hi]) => (mid, lo, hi),
        None => (mid, mid, mid),
    }
}

/// The self-contained page for `r`, titled `title`; `data` names the fitted
/// file where there is one.
pub fn adherence_html(r: &AdherenceReport, title: &str, data: Option<&str>) -> String {
    // Intervals come with posterior draws (the sampler), not with the MAP.
    let sampled = r.items.iter().any(|i| i.log_worth_interval.is_some());
    let mut h = HtmlReport::new(title);
    let counts = format!(
        "{} items, {} observations, {} rankers",
        r.n_items,
        r.n_observations,
        r.rankers.len()
    );
    let mut facts = vec![
        ("model", "Plackett–Luce with ranker adherence".to_string()),
        ("engine", r.engine.clone()),
        (
            "data",
            data.map_or(counts.clone(), |d| format!("{d} ({counts})")),
        ),
        (
            "adherence prior",
            match r.adherence_prior {
                Some([a, b]) => format!(
                    "Gamma(shape {}, rate {}): mean {}",
                    sig(a, 6),
                    sig(b, 6),
                    sig(a / b, 4)
                ),
                None => "none (adherences fixed)".to_string(),
            },
        ),
        ("log-likelihood", sig(r.log_likelihood, 10)),
        ("log-posterior", sig(r.log_posterior, 10)),
        (
            "converged",
            // A sampler converges by its mixing checks, not by a count of
            // iterations (issue 91 item 6).
            match &r.diagnostics {
                Some(d) if crate::document::mixing_passes(d.rhat_max, d.ess_min) => {
                    "yes: max split-R̂ ≤ 1.01 and min ESS ≥ 400".to_string()
                }
                Some(_) => {
                    "no: max split-R̂ > 1.01 or min ESS < 400 (run longer chains)".to_string()
                }
                None if r.converged => format!("yes, after {} iterations", r.iterations),
                None => format!("no: stopped at {} iterations", r.iterations),
            },
        ),
    ];
    if let Some(d) = &r.diagnostics {
        facts.push((
            "sampler",
            format!(
                "{} chains × {} draws; max split-R̂ {}, min ESS {}; scale-move acceptance {}",
                d.chains,
                d.draws_per_chain,
                sig(d.rhat_max, 4),
                sig(d.ess_min, 4),
                sig(d.scale_acceptance, 3)
            ),
        ));
    }
    h.facts(&facts);
    let what = if sampled {
        "posterior means; bars are 90% posterior intervals"
    } else {
        "the MAP (no intervals: use --engine gibbs for the posterior)"
    };

    h.heading("Consensus worths");
    h.para(&format!(
        "Each item's log-worth θ_i, best first ({what}). A ranker r chooses i from a set S \
         with probability exp(η_r θ_i) / Σ_j∈S exp(η_r θ_j)."
    ));
    let names: Vec<String> = r.items.iter().map(|i| i.name.clone()).collect();
    let (mid, lo, hi) = columns(
        r.items
            .iter()
            .map(|i| bar(i.log_worth, i.log_worth_interval)),
    );
    h.figure(
        &charts::forest(&names, &mid, &lo, &hi, "log-worth θ"),
        "Log-worths (mean-centred as fitted).",
    );

    h.heading("Adherence of each ranker");
    h.para(&if r.adherence_prior.is_some() {
        format!(
            "η_r > 1: the ranker follows the consensus order more closely than a typical one; \
             η_r < 1: more at random (η_r → 0: uniformly at random). Only the ratios between \
             rankers are identified by the data — the scale of θ and η trade off and the \
             prior fixes it ({what})."
        )
    } else {
        "The adherences were fixed (--fixed-adherence), not estimated: the worths are fitted \
         with each ranker's log-worths scaled by its η_r."
            .to_string()
    });
    let mut order: Vec<usize> = (0..r.rankers.len()).collect();
    order.sort_by(|&a, &b| r.rankers[a].adherence.total_cmp(&r.rankers[b].adherence));
    let drawn: Vec<usize> = if order.len() > MAX_RANKERS_DRAWN {
        let half = MAX_RANKERS_DRAWN / 2;
        order[..half]
            .iter()
            .chain(&order[order.len() - half..])
            .copied()
            .collect()
    } else {
        order.clone()
    };
    let names: Vec<String> = drawn.iter().map(|&k| r.rankers[k].name.clone()).collect();
    let (mid, lo, hi) = columns(drawn.iter().map(|&k| {
        let row = &r.rankers[k];
        bar(row.adherence, row.adherence_interval)
    }));
    let caption = if drawn.len() < order.len() {
        format!(
            "The {} least and {} most adherent of {} rankers, least first (all are in the \
             JSON and CSV outputs).",
            MAX_RANKERS_DRAWN / 2,
            MAX_RANKERS_DRAWN / 2,
            order.len()
        )
    } else {
        "Rankers, least adherent first.".to_string()
    };
    h.figure(
        &charts::forest(&names, &mid, &lo, &hi, "adherence η"),
        &caption,
    );
    // Shrinkage shows only where rankers differ in how many rankings they gave
    // (one ranking each, PlackettLuce's default, puts every point in a column).
    let varied = r
        .rankers
        .windows(2)
        .any(|w| w[0].observations != w[1].observations);
    if r.adherence_prior.is_some() && varied {
        let pts: Vec<(f64, f64)> = r
            .rankers
            .iter()
            .map(|k| (k.observations, k.adherence))
            .collect();
        h.figure(
            &charts::scatter(
                &pts,
                "rankings by the ranker (total weight)",
                "adherence η",
                false,
            ),
            "Adherence against the number of rankings behind it: a ranker with few rankings \
             stays near the prior mean, one with many is free to leave it.",
        );
    }
    let rows: Vec<Vec<String>> = order
        .iter()
        .take(10)
        .map(|&k| {
            let row = &r.rankers[k];
            vec![
                row.name.clone(),
                format!("{:.3}", row.adherence),
                row.adherence_interval
                    .map_or("–".to_string(), |[a, b]| format!("[{a:.3}, {b:.3}]")),
                sig(row.observations, 6),
            ]
        })
        .collect();
    if !rows.is_empty() {
        h.para("The least adherent rankers (the ones to look at first):");
        h.table(
            &["ranker", "adherence η", "90% interval", "rankings"],
            &rows,
        );
    }
    for n in &r.notes {
        h.para(&format!("Note: {n}"));
    }
    h.render()
}

/// Split (mid, lo, hi) triples into three columns.
fn columns(it: impl Iterator<Item = (f64, f64, f64)>) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut c = (Vec::new(), Vec::new(), Vec::new());
    for (m, l, h) in it {
        c.0.push(m);
        c.1.push(l);
        c.2.push(h);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::adherence_output::{AdherenceItem, RankerRow};

    fn report(n_rankers: usize, sampled: bool) -> AdherenceReport {
        AdherenceReport {
            model: "adherence".into(),
            engine: if sampled { "gibbs" } else { "map" }.into(),
            items: ["a & b", "c"]
                .iter()
                .enumerate()
                .map(|(i, n)| AdherenceItem {
                    name: n.to_string(),
                    worth: 0.5,
                    log_worth: i as f64,
                    log_worth_sd: sampled.then_some(0.1),
                    log_worth_interval: sampled.then_some([i as f64 - 0.2, i as f64 + 0.2]),
                })
                .collect(),
            rankers: (0..n_rankers)
                .map(|k| RankerRow {
                    name: format!("judge {k}"),
                    adherence: 0.5 + k as f64 / n_rankers as f64,
                    adherence_sd: sampled.then_some(0.1),
                    adherence_interval: sampled.then_some([0.1, 2.0]),
                    observations: (k % 7 + 1) as f64,
                })
                .collect(),
            adherence_prior: Some([10.0, 10.0]),
            log_likelihood: -12.5,
            log_posterior: -14.0,
            iterations: 9,
            converged: true,
            n_observations: 30,
            n_items: 2,
            notes: vec!["a note".into()],
            diagnostics: None,
            stopping: None,
            comparisons: Vec::new(),
            choices: Vec::new(),
        }
    }

    #[test]
    fn page_is_self_contained_and_escapes_names() {
        let html = adherence_html(&report(5, false), "fit", Some("x<y>.csv"));
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.contains("<script"));
        assert!(html.contains("x&lt;y&gt;.csv"));
        assert!(html.contains("Gamma(shape 10, rate 10)"));
        assert!(html.contains("prior fixes it"));
        assert!(html.contains("no intervals"));
        // Worths, adherences, the shrinkage scatter.
        assert_eq!(html.matches("<svg").count(), 3);
        // With one ranking per ranker there is nothing to scatter.
        let mut one_each = report(5, false);
        for k in &mut one_each.rankers {
            k.observations = 1.0;
        }
        assert_eq!(
            adherence_html(&one_each, "fit", None)
                .matches("<svg")
                .count(),
            2
        );
        // Fixed adherences: no prior, said so, no shrinkage chart.
        let mut fixed = report(5, false);
        fixed.adherence_prior = None;
        let html = adherence_html(&fixed, "fit", None);
        assert!(html.contains("none (adherences fixed)") && html.contains("were fixed"));
        assert!(!html.contains("prior fixes it"));
        assert_eq!(html.matches("<svg").count(), 2);
        assert!(html.contains("Note: a note"));
    }

    #[test]
    fn many_rankers_draw_the_two_tails() {
        let html = adherence_html(&report(500, true), "fit", Some("d.csv"));
        assert!(html.contains("30 least and 30 most adherent of 500 rankers"));
        assert!(html.contains("90% posterior intervals"));
        // The least adherent ranker is in the table, a middle one in no chart.
        assert!(html.contains("judge 0<"));
        assert!(!html.contains(">judge 250<"));
    }
}
