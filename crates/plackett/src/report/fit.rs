//! The `plackett fit --report` page.

use super::{HtmlReport, charts};
use crate::posterior::fit_report::FitReport;
use crate::posterior::{Draws, ItemSummary, Posterior, ScalarDiagnostics, TieModel};

/// What a fit report shows; built by [`fit_page`] from any engine's result.
pub struct FitView<'a> {
    /// Page title.
    pub title: String,
    /// Key facts (engine, data, convergence, evidence…).
    pub facts: Vec<(&'static str, String)>,
    /// Per-item summary rows (log-worths in the report's gauge).
    pub items: &'a [ItemSummary],
    /// Posterior draws (Bayesian engines), for rank marginals and traces.
    pub draws: Option<&'a Draws>,
    /// Point log-worths (MLE/MAP), for rank marginals of the estimate.
    pub point: Option<&'a [f64]>,
    /// Per-item MCMC diagnostics (Gibbs).
    pub diagnostics: Option<&'a [ScalarDiagnostics]>,
    /// Convergence curve: (label, values, log scale).
    pub trace: Option<(&'a str, &'a [f64], bool)>,
    /// Notes.
    pub notes: &'a [String],
    /// Seed for Monte Carlo rank marginals.
    pub seed: u64,
    /// Further sections (heading, SVG, caption), shown after the item
    /// intervals (e.g. a feature model's coefficients).
    pub extra: Vec<super::features::Section>,
    /// The tie prevalences of a Davidson–Luce fit (empty otherwise): its
    /// rank marginals are of rankings with ties.
    pub ties: TieModel,
}

/// Render the report.
pub fn render(v: &FitView<'_>) -> String {
    let items = v.items;
    let n = items.len();
    let mut r = HtmlReport::new(&v.title);
    r.facts(&v.facts);
    for note in v.notes {
        r.para(&format!("Note: {note}"));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| items[b].worth.total_cmp(&items[a].worth));

    r.heading("Log-worths with 95% intervals");
    // Ordered by the plotted value: a posterior's mean worth and mean
    // log-worth can order two close items differently.
    let mut by_log: Vec<usize> = (0..n).collect();
    by_log.sort_by(|&a, &b| items[b].log_worth.total_cmp(&items[a].log_worth));
    let names: Vec<String> = by_log.iter().map(|&i| items[i].name.clone()).collect();
    let mid: Vec<f64> = by_log.iter().map(|&i| items[i].log_worth).collect();
    let lo: Vec<f64> = by_log
        .iter()
        .map(|&i| items[i].ci_low.unwrap_or(f64::NAN))
        .collect();
    let hi: Vec<f64> = by_log
        .iter()
        .map(|&i| items[i].ci_high.unwrap_or(f64::NAN))
        .collect();
    r.figure(
        &charts::forest(&names, &mid, &lo, &hi, "log-worth"),
        "Items ordered by log-worth; dots are point estimates or posterior means, bars 95% intervals.",
    );

    for (heading, svg, caption) in &v.extra {
        r.heading(heading);
        r.figure(svg, caption);
    }

    // Rank marginals for the top and bottom five (Guiver & Snelson Fig. 2).
    let draws_owned;
    let draws = match (v.draws, v.point) {
        (Some(d), _) => Some((d, (20_000 / d.len().max(1)).clamp(1, 20))),
        (None, Some(p)) => {
            let mut t = p.to_vec();
            Draws::normalise(&mut t);
            draws_owned = Draws::from_chains(t.len(), vec![t]);
            Some((&draws_owned, 20_000))
        }
        _ => None,
    };
    if let Some((d, races)) = draws {
        let all: Vec<u32> = (0..n as u32).collect();
        // Thin the draws to at most 4,000 for speed.
        let step = (d.len() / 4000).max(1);
        let thinned = if step > 1 {
            let rows: Vec<f64> = (0..d.len())
                .step_by(step)
                .flat_map(|k| d.draw(k).to_vec())
                .collect();
            Draws::from_chains(n, vec![rows])
        } else {
            d.clone()
        };
        let rm = v.ties.rank_marginals(&thinned, &all, races * step, v.seed);
        let mut picks: Vec<usize> = order.iter().take(5).copied().collect();
        for &i in order.iter().rev().take(5).collect::<Vec<_>>().iter().rev() {
            if !picks.contains(i) {
                picks.push(*i);
            }
        }
        let rows: Vec<Vec<f64>> = picks.iter().map(|&i| rm[i].clone()).collect();
        let labels: Vec<String> = picks.iter().map(|&i| items[i].name.clone()).collect();
        r.heading("Rank marginals");
        let which = if picks.len() == n {
            format!("all {n} items, best first")
        } else {
            format!("the five best and five worst of the {n} items")
        };
        r.figure(
            &charts::heatmap(
                &labels,
                &rows,
                &format!("place in a race among all {n} items"),
            ),
            &format!(
                "P(item finishes at each place), {which}; brighter is more probable, on the \
                 square-root scale at the right (cf. Guiver & Snelson 2009, Fig. 2).{}",
                if v.ties.is_empty() {
                    ""
                } else {
                    " Rankings with ties drawn from the Davidson–Luce model: tied items share \
                     their place, and the next item's place counts them (after a two-way tie \
                     for first, third)."
                }
            ),
        );
    }

    if let (Some(d), Some(diag)) = (v.draws, v.diagnostics) {
        r.heading("MCMC traces");
        for &i in order.iter().take(3) {
            // At most 500 points per chain keep the page light.
            let series: Vec<(String, Vec<f64>)> = d
                .item_chains(i)
                .into_iter()
                .enumerate()
                .map(|(c, xs)| {
                    let step = xs.len().div_ceil(500).max(1);
                    (
                        format!("chain {}", c + 1),
                        xs.into_iter().step_by(step).collect(),
                    )
                })
                .collect();
            r.figure(
                &charts::lines(
                    &series,
                    "kept draw (thinned for display)",
                    "ln(worth / total worth)",
                    false,
                ),
                &format!(
                    "Trace of {} (one line per chain), as the sampler draws it: the log of its \
                     share of the total worth, ln(λ_i / Σ_j λ_j). The log-worths above are \
                     centred on their mean instead, so the two scales differ by a constant.",
                    items[i].name
                ),
            );
        }
        r.heading("Convergence diagnostics");
        // Worst mixing first: the table is read for its R̂.
        let mut by_rhat = order.clone();
        by_rhat.sort_by(|&a, &b| diag[b].rhat.total_cmp(&diag[a].rhat));
        let rows: Vec<Vec<String>> = by_rhat
            .iter()
            .map(|&i| {
                vec![
                    items[i].name.clone(),
                    format!("{:.4}", diag[i].rhat),
                    format!("{:.0}", diag[i].ess_bulk),
                    format!("{:.0}", diag[i].ess_tail),
                ]
            })
            .collect();
        r.para("Rank-normalised split-R̂ (warn above 1.01) and bulk/tail effective sample sizes (warn below 400), Vehtari et al. (2021); worst R̂ first.");
        r.table(&["item", "split-R̂", "bulk ESS", "tail ESS"], &rows);
    }

    if let Some((label, ys, log)) = v.trace {
        r.heading("Convergence");
        if ys.len() < MIN_TRACE_PLOTTED {
            // Two points drawn as a line look like a steep descent.
            r.para(&format!(
                "{} iteration{}: {label} {}.",
                ys.len(),
                if ys.len() == 1 { "" } else { "s" },
                ys.iter()
                    .map(|y| crate::numerics::sig(*y, 8))
                    .collect::<Vec<_>>()
                    .join(", then ")
            ));
        } else {
            r.figure(
                &charts::lines(&[(label.to_string(), ys.to_vec())], "iteration", label, log),
                label,
            );
        }
    }

    r.heading("Estimates");
    let rows: Vec<Vec<String>> = order
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let it = &items[i];
            let f = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.4}"));
            vec![
                (k + 1).to_string(),
                it.name.clone(),
                format!("{:.6}", it.worth),
                f(it.worth_sd),
                format!("{:.4}", it.log_worth),
                f(it.log_worth_se.or(it.log_worth_sd)),
                f(it.ci_low),
                f(it.ci_high),
            ]
        })
        .collect();
    r.table(
        &[
            "rank",
            "item",
            "worth",
            "worth sd",
            "log-worth",
            "se/sd",
            "2.5%",
            "97.5%",
        ],
        &rows,
    );
    r.render()
}

/// The key facts of a fit's page from its report (engine, data, ties,
/// gauge, convergence, log-likelihood, evidence, ELBO, R̂ / ESS); `data`
/// names the file the observations came from, if any.
pub fn facts(report: &FitReport, data: Option<&str>) -> Vec<(&'static str, String)> {
    let counts = format!(
        "{} items, {} observations",
        report.n_items, report.n_observations
    );
    let mut facts = vec![
        (
            "engine",
            format!("{} ({})", report.engine, report.algorithm),
        ),
        (
            "data",
            match data {
                Some(file) => format!("{file} ({counts})"),
                None => counts,
            },
        ),
        ("tie semantics", report.ties.clone()),
        ("log-worth gauge", report.gauge.clone()),
        (
            "converged",
            format!(
                "{} after {} iterations",
                report.converged, report.iterations
            ),
        ),
    ];
    if let Some(ll) = report.log_likelihood {
        facts.push(("log-likelihood", format!("{ll:.4}")));
    }
    if let Some(e) = report.log_evidence {
        facts.push(("log-evidence", format!("{e:.4}")));
    }
    if let Some(e) = report.elbo {
        facts.push(("ELBO", format!("{e:.4}")));
    }
    if let (Some(r), Some(e)) = (report.diagnostics.rhat_max, report.diagnostics.ess_min) {
        facts.push(("max split-R̂ / min ESS", format!("{r:.4} / {e:.0}")));
    }
    facts
}

/// Fewer iterations than this are listed, not drawn.
const MIN_TRACE_PLOTTED: usize = 5;

/// The page of any engine's fit (`plackett fit --report`,
/// `FitResult.report` in Python): the facts and estimates of `report`
/// (whose notes are shown as given, in the caller's words), the draws,
/// point, diagnostics, convergence trace and tie parameters through the
/// one [`Posterior`] interface; `extra` sections (a feature model's,
/// [`super::features::feature_sections`]) after the intervals; `seed`
/// for the Monte Carlo rank marginals.
pub fn fit_page(
    post: &dyn Posterior,
    report: &FitReport,
    title: &str,
    data: Option<&str>,
    seed: u64,
    extra: Vec<super::features::Section>,
) -> String {
    let draws = post.draws();
    let info = post.info();
    render(&FitView {
        title: title.to_string(),
        facts: facts(report, data),
        items: &report.items,
        draws: post.has_draws().then_some(draws.as_ref()),
        point: post.point(),
        diagnostics: post.item_diagnostics(),
        trace: info
            .trace
            .as_ref()
            .map(|t| (t.label.as_str(), t.values.as_slice(), t.log_scale)),
        notes: &report.notes,
        seed,
        extra,
        ties: TieModel::new(post.tie_parameters()),
    })
}
