//! HTML report of a PL mixture fit (Mollica & Tardella 2017): model choice,
//! one worth chart per component, how sharply observations are assigned,
//! and PLMIX's two posterior predictive checks.

use super::{HtmlReport, charts};
use crate::infer::mixture_output::MixtureReport;
use crate::numerics::sig;

/// The self-contained page for `r`.
pub fn mixture_html(r: &MixtureReport) -> String {
    let mut h = HtmlReport::new(&format!(
        "Plackett–Luce mixture: {} component{}",
        r.selected_components,
        if r.selected_components == 1 { "" } else { "s" }
    ));
    let opt = |v: Option<f64>, d: usize| v.map_or("–".to_string(), |x| sig(x, d));
    h.facts(&[
        ("engine", format!("{} ({})", r.engine, r.algorithm)),
        ("observations", r.n_observations.to_string()),
        ("items", r.n_items.to_string()),
        (
            "components",
            format!("{} ({})", r.selected_components, r.selection),
        ),
        ("log-likelihood", sig(r.log_likelihood, 10)),
        ("BIC", sig(r.bic, 8)),
        (
            "DIC / BPIC",
            format!("{} / {}", opt(r.dic, 8), opt(r.bpic, 8)),
        ),
        (
            "max split-R̂ / min ESS",
            format!("{} / {}", opt(r.rhat_max, 4), opt(r.ess_min, 4)),
        ),
    ]);
    if r.model_choice.len() > 1 {
        h.heading("Model choice");
        let rows: Vec<Vec<String>> = r
            .model_choice
            .iter()
            .map(|m| {
                vec![
                    format!(
                        "{}{}",
                        m.components,
                        if m.components == r.selected_components {
                            " (selected)"
                        } else {
                            ""
                        }
                    ),
                    sig(m.log_likelihood, 10),
                    sig(m.bic, 8),
                    sig(m.aic, 8),
                    opt(m.dic, 8),
                    opt(m.bpic, 8),
                ]
            })
            .collect();
        h.table(
            &["components", "log-likelihood", "BIC", "AIC", "DIC", "BPIC"],
            &rows,
        );
    }
    h.heading("Worths per component");
    h.para(
        "Each component's log-worths (mean-centred within the component), best first; bars \
         are ±1.96 posterior sd where the engine gives them (Gibbs).",
    );
    for (g, c) in r.components.iter().enumerate() {
        let mut items = c.items.clone();
        items.sort_by(|a, b| b.log_worth.total_cmp(&a.log_worth));
        let names: Vec<String> = items.iter().map(|i| i.name.clone()).collect();
        let mid: Vec<f64> = items.iter().map(|i| i.log_worth).collect();
        let sd: Vec<f64> = items
            .iter()
            .map(|i| i.log_worth_sd.unwrap_or(0.0))
            .collect();
        let lo: Vec<f64> = mid.iter().zip(&sd).map(|(m, s)| m - 1.96 * s).collect();
        let hi: Vec<f64> = mid.iter().zip(&sd).map(|(m, s)| m + 1.96 * s).collect();
        h.figure(
            &charts::forest(&names, &mid, &lo, &hi, "log-worth"),
            &format!(
                "Component {} — weight {}{}",
                g + 1,
                sig(c.weight, 4),
                c.weight_sd
                    .map_or(String::new(), |s| format!(" (sd {})", sig(s, 3)))
            ),
        );
    }
    if !r.membership.is_empty() && r.selected_components > 1 {
        h.heading("Membership");
        let best: Vec<f64> = r
            .membership
            .iter()
            .map(|p| p.iter().copied().fold(0.0, f64::max))
            .collect();
        let mut counts = vec![0usize; r.selected_components];
        for p in &r.membership {
            let k = (0..p.len())
                .max_by(|&a, &b| p[a].total_cmp(&p[b]))
                .unwrap_or(0);
            counts[k] += 1;
        }
        h.figure(
            &charts::histogram(
                &[("observations".to_string(), best)],
                20,
                "largest membership probability of an observation",
            ),
            "How sharply each observation is assigned: near 1 = clearly one component, \
             near 1/G = ambiguous.",
        );
        let rows: Vec<Vec<String>> = counts
            .iter()
            .enumerate()
            .map(|(g, c)| vec![(g + 1).to_string(), c.to_string()])
            .collect();
        h.table(
            &["component", "observations assigned (largest probability)"],
            &rows,
        );
    }
    if let Some(pc) = &r.predictive_checks {
        h.heading("Posterior predictive checks");
        h.para(&format!(
            "PLMIX's two checks over {} replicated data sets: the observed count (dot) against \
             its 95% posterior predictive interval (bar). Items or pairs outside their \
             interval are what the mixture fails to reproduce.",
            pc.replicates
        ));
        // Most often ranked first at the top.
        let mut top1 = pc.top1.clone();
        top1.sort_by(|a, b| b.observed.total_cmp(&a.observed));
        let names: Vec<String> = top1.iter().map(|c| c.item.clone()).collect();
        h.figure(
            &charts::forest(
                &names,
                &top1.iter().map(|c| c.observed).collect::<Vec<_>>(),
                &top1.iter().map(|c| c.low).collect::<Vec<_>>(),
                &top1.iter().map(|c| c.high).collect::<Vec<_>>(),
                "times ranked first",
            ),
            "Top-1 frequencies: observed (dot) and 95% predictive interval (bar).",
        );
        let mut pairs = pc.pairs.clone();
        pairs.sort_by(|a, b| a.p_value.total_cmp(&b.p_value));
        let rows: Vec<Vec<String>> = pairs
            .iter()
            .take(20)
            .map(|c| {
                vec![
                    format!("{} ≻ {}", c.item, c.other.clone().unwrap_or_default()),
                    sig(c.observed, 6),
                    sig(c.mean, 6),
                    format!("[{}, {}]", sig(c.low, 6), sig(c.high, 6)),
                    sig(c.p_value, 3),
                ]
            })
            .collect();
        h.table(
            &[
                "pair (paired comparisons)",
                "observed",
                "predictive mean",
                "95% interval",
                "p-value",
            ],
            &rows,
        );
        if pairs.len() > 20 {
            h.para(&format!(
                "The 20 pairs of smallest p-value of {}; all are in the JSON output.",
                pairs.len()
            ));
        }
    }
    for n in &r.notes {
        h.para(&format!("Note: {n}"));
    }
    h.render()
}
