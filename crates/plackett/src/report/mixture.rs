//! HTML report of a PL mixture fit (Mollica & Tardella 2017): model choice,
//! one worth chart per component, how sharply observations are assigned,
//! and PLMIX's two posterior predictive checks.

use super::{HtmlReport, charts};
use crate::infer::mixture_output::MixtureReport;
use crate::numerics::sig;

/// The self-contained page for `r`, fitted to `data` (a file name, named
/// in the title).
pub fn mixture_html(r: &MixtureReport, data: Option<&str>) -> String {
    let mut h = HtmlReport::new(&format!(
        "Plackett–Luce mixture{}: {} component{}",
        data.map_or(String::new(), |d| format!(" of {d}")),
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
        "Each component's log-worths (mean-centred within the component) on one item axis, a \
         colour per component; items in the order of the heaviest component, best first. Bars \
         are ±1.96 posterior sd where the engine gives them (Gibbs).",
    );
    // The shared item order: the heaviest component's, best first.
    let heaviest = (0..r.components.len())
        .max_by(|&a, &b| r.components[a].weight.total_cmp(&r.components[b].weight))
        .unwrap_or(0);
    let mut order: Vec<usize> = (0..r.n_items).collect();
    if let Some(c) = r.components.get(heaviest) {
        order.sort_by(|&a, &b| c.items[b].log_worth.total_cmp(&c.items[a].log_worth));
    }
    let names: Vec<String> = order
        .iter()
        .filter_map(|&i| r.components.first().map(|c| c.items[i].name.clone()))
        .collect();
    let series: Vec<charts::MethodSeries> = r
        .components
        .iter()
        .enumerate()
        .map(|(g, c)| {
            let mid: Vec<f64> = order.iter().map(|&i| c.items[i].log_worth).collect();
            let sd: Vec<f64> = order
                .iter()
                .map(|&i| c.items[i].log_worth_sd.unwrap_or(0.0))
                .collect();
            let lo = mid.iter().zip(&sd).map(|(m, s)| m - 1.96 * s).collect();
            let hi = mid.iter().zip(&sd).map(|(m, s)| m + 1.96 * s).collect();
            let weight = format!(
                "component {} (weight {}{})",
                g + 1,
                sig(c.weight, 3),
                c.weight_sd
                    .map_or(String::new(), |s| format!(", sd {}", sig(s, 2)))
            );
            (weight, mid, lo, hi)
        })
        .collect();
    h.figure(
        &charts::grouped_intervals(&names, &series, "item", "log-worth"),
        "One dot per component and item; the legend gives each component's weight.",
    );
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
