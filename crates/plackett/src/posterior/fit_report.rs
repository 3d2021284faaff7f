//! The ranking family's fit document: the JSON of the CLI contract, CSV and
//! a human-readable table (`plackett fit`).

use crate::io::output::{NAME_WIDTH, column_width, short_name, weighted_total};
use crate::posterior::{Gauge, ItemSummary};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// MCMC diagnostics block.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Diagnostics {
    /// Largest split-R̂ over items.
    pub rhat_max: Option<f64>,
    /// Smallest bulk/tail effective sample size over items.
    pub ess_min: Option<f64>,
}

/// A regression coefficient row (with `--features`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Coefficient {
    /// Feature name.
    pub name: String,
    /// Point estimate (mle, map).
    pub estimate: Option<f64>,
    /// Standard error (mle, map).
    pub se: Option<f64>,
    /// Posterior mean (Bayesian engines).
    pub mean: Option<f64>,
    /// Posterior sd (Bayesian engines).
    pub sd: Option<f64>,
}

/// Tie-prevalence parameter row (with `--ties event`): the engine's own type.
pub use crate::posterior::TieParameter;

/// Posterior (or plug-in) probability that one item beats another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// First item.
    pub winner: String,
    /// Second item.
    pub loser: String,
    /// P(winner ≻ loser); for ties as events, P(winner wins outright).
    pub probability: f64,
    /// For ties as events (Davidson–Luce): P(winner and loser tie).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_probability: Option<f64>,
    /// With `--features`: the plug-in probability `σ(x_abᵀβ̂)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plug_in: Option<f64>,
    /// With `--features`: mean of the log-worth difference `x_abᵀβ`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_mean: Option<f64>,
    /// With `--features`: its sd ϱ (posterior, or sampling sd for mle/map).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference_sd: Option<f64>,
}

impl Comparison {
    /// A comparison of `winner` and `loser` by its probability and, for
    /// ties as events, the probability of a tie.
    pub fn new(winner: &str, loser: &str, probability: f64, tie: Option<f64>) -> Comparison {
        Comparison {
            winner: winner.to_string(),
            loser: loser.to_string(),
            probability,
            tie_probability: tie,
            plug_in: None,
            difference_mean: None,
            difference_sd: None,
        }
    }

    /// For ties as events, the rest of the three outcomes after the
    /// probability: the loser's, the tie's, and the winner's given no tie.
    pub fn tie_note(&self) -> String {
        match self.tie_probability {
            Some(t) => format!(
                "   ({} beats {} {:.4}, tie {t:.4}; {} beats {} given no tie {:.4})",
                self.loser,
                self.winner,
                (1.0 - self.probability - t).max(0.0),
                self.winner,
                self.loser,
                self.probability / (1.0 - t)
            ),
            None => String::new(),
        }
    }
}

/// Choice probabilities over a set of items (`--compare "A,B,C"`): the
/// probability that each is chosen first from the set (Luce's choice axiom).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The items of the set, in the order given.
    pub set: Vec<String>,
    /// One entry per item of the set.
    pub items: Vec<ChoiceItem>,
    /// For ties as events (Davidson–Luce): the probability that the first
    /// choice is a tie (the items' own probabilities are then of being
    /// chosen alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_probability: Option<f64>,
}

impl Choice {
    /// With the probability that the first choice is a tie (ties as
    /// events; `None` otherwise).
    pub fn with_tie(mut self, tie: Option<f64>) -> Choice {
        self.tie_probability = tie;
        self
    }
}

/// One item's choice probability in a [`Choice`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceItem {
    /// Item name.
    pub name: String,
    /// Posterior mean (Bayesian engines) or plug-in value (mle, map) of
    /// `λ_i / Σ_{j ∈ set} λ_j`.
    pub probability: f64,
    /// Posterior sd (Bayesian engines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sd: Option<f64>,
}

impl Choice {
    /// The table rows: a heading, then each item's probability (and sd),
    /// names cut at 60 characters.
    pub fn table(&self) -> String {
        let mut s = format!("\nP(chosen first from {{{}}}):\n", self.set.join(", "));
        let w = self
            .items
            .iter()
            .map(|i| i.name.chars().count().min(60))
            .max()
            .unwrap_or(0);
        for it in &self.items {
            let name: String = it.name.chars().take(60).collect();
            let sd = it.sd.map_or(String::new(), |sd| format!("  (sd {sd:.4})"));
            let alone = if self.tie_probability.is_some() {
                "  (alone)"
            } else {
                ""
            };
            let _ = writeln!(s, "  {name:<w$}  {:.4}{sd}{alone}", it.probability);
        }
        if let Some(t) = self.tie_probability {
            let _ = writeln!(s, "  {:<w$}  {t:.4}", "a tie");
        }
        s
    }

    /// The choice probabilities `probs` (mean, sd) of `set` (item ids,
    /// names `names`), as [`Posterior::choice_probabilities`](crate::posterior::Posterior::choice_probabilities)
    /// returns them.
    pub fn new(names: &[String], set: &[usize], probs: Vec<(f64, Option<f64>)>) -> Choice {
        Choice {
            tie_probability: None,
            set: set.iter().map(|&i| names[i].clone()).collect(),
            items: set
                .iter()
                .zip(probs)
                .map(|(&i, (probability, sd))| ChoiceItem {
                    name: names[i].clone(),
                    probability,
                    sd,
                })
                .collect(),
        }
    }
}

/// The bound at one η (`--eta auto`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EtaPoint {
    /// Prior precision.
    pub eta: f64,
    /// Final variational bound.
    pub bound: f64,
}

/// Log-worth of an item that has features but no observations.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewItem {
    /// Item name.
    pub name: String,
    /// Log-worth `x_iᵀβ` in the report's gauge.
    pub log_worth: f64,
    /// Its standard error (mle, map).
    pub log_worth_se: Option<f64>,
    /// Its posterior sd (vb).
    pub log_worth_sd: Option<f64>,
    /// 95% interval.
    pub ci_low: Option<f64>,
    /// Upper end of the interval.
    pub ci_high: Option<f64>,
}

/// Feature scaling of one column.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeatureScaling {
    /// Feature name.
    pub name: String,
    /// Subtracted centre (0 without standardisation).
    pub centre: f64,
    /// Divisor (1 without standardisation).
    pub scale: f64,
}

/// What a feature fit adds to the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RegressionInfo {
    /// Whether the columns were standardised for fitting.
    pub standardized: bool,
    /// Scaling per column (coefficients are reported on the original scale).
    pub scaling: Vec<FeatureScaling>,
    /// Prior precision η used (null for mle).
    pub eta: Option<f64>,
    /// Which variational bound (vb, or map with `--eta auto`).
    pub vi: Option<String>,
    /// The bound over the η grid when `--eta auto`.
    pub eta_curve: Option<Vec<EtaPoint>>,
    /// Items of the features file that were not in the data.
    pub new_items: Vec<NewItem>,
    /// The likelihood-ratio test of the features model against free worths
    /// (mle only, when both maxima exist and the features constrain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lr_test: Option<LrTest>,
}

/// Likelihood-ratio test of the PL regression model (log-worth = xᵀβ)
/// against the free-worths model it is nested in: `2(ℓ_free − ℓ_features)`
/// referred to χ² with `(items − 1) − features` degrees of freedom (Wilks
/// 1938).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LrTest {
    /// Maximised log-likelihood of the free-worths model.
    pub free_log_likelihood: f64,
    /// The statistic `2(ℓ_free − ℓ_features)`.
    pub statistic: f64,
    /// Degrees of freedom.
    pub df: usize,
    /// `P(χ²_df ≥ statistic)`.
    pub p_value: f64,
}

/// Everything `plackett fit` reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FitReport {
    /// Engine name (mle, map, gibbs, ep, vb).
    pub engine: String,
    /// Algorithm used by the engine.
    pub algorithm: String,
    /// Items reported.
    pub n_items: usize,
    /// Informative observations used.
    pub n_observations: usize,
    /// Observations dropped as uninformative.
    pub dropped_observations: usize,
    /// Sum of the observations' weights, when any weight is not 1 (a
    /// weight column, PrefLib counts, pair counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_weight: Option<f64>,
    /// Tie semantics used for tied groups.
    pub ties: String,
    /// Gauge of `log_worth`.
    pub gauge: String,
    /// Convergence flag.
    pub converged: bool,
    /// Iterations (or sweeps, or samples).
    pub iterations: usize,
    /// Convergence tolerance the engine ran at (mle, map, ep, vb; none for
    /// gibbs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Log-likelihood at the estimate (mle, map).
    pub log_likelihood: Option<f64>,
    /// Deviance `−2ℓ` (mle, map).
    pub deviance: Option<f64>,
    /// AIC (mle, map).
    pub aic: Option<f64>,
    /// Log marginal likelihood (ep).
    pub log_evidence: Option<f64>,
    /// Evidence lower bound (vb).
    pub elbo: Option<f64>,
    /// MCMC diagnostics (gibbs).
    pub diagnostics: Diagnostics,
    /// Per-item rows, in item order.
    pub items: Vec<ItemSummary>,
    /// Regression coefficients (with `--features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coefficients: Option<Vec<Coefficient>>,
    /// Feature-model details (with `--features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regression: Option<RegressionInfo>,
    /// Tie parameters (with `--ties event`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_parameters: Option<Vec<TieParameter>>,
    /// `--compare` results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<Comparison>,
    /// `--compare` over three or more items: choice probabilities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
    /// Quasi-variances (`--quasi`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quasi_variances: Option<QuasiReport>,
    /// Posterior predictive log-likelihood of `--test` observations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predictive_log_likelihood: Option<f64>,
    /// Number of held-out observations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n_test_observations: Option<usize>,
    /// Notes and warnings.
    pub notes: Vec<String>,
}

/// One item's quasi-variance (Firth & de Menezes 2004).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QuasiItem {
    /// Item name.
    pub name: String,
    /// Quasi-variance.
    pub quasi_var: f64,
    /// Quasi standard error.
    pub quasi_se: f64,
}

/// Quasi-variances with their accuracy, as `qvcalc` prints them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QuasiReport {
    /// Per item, in item order.
    pub items: Vec<QuasiItem>,
    /// Worst relative errors (%) of the standard errors of simple contrasts
    /// (every pair of items), low and high.
    pub worst_relative_error_simple_pct: (f64, f64),
    /// Worst relative errors (%) over all contrasts, low and high.
    pub worst_relative_error_all_pct: (f64, f64),
}

impl QuasiReport {
    /// From the library's quasi-variances over `names`.
    pub fn new(names: &[String], q: &crate::posterior::quasi::QuasiVariances) -> Self {
        QuasiReport {
            items: names
                .iter()
                .zip(q.quasi_var.iter().zip(&q.quasi_se))
                .map(|(n, (v, s))| QuasiItem {
                    name: n.clone(),
                    quasi_var: *v,
                    quasi_se: *s,
                })
                .collect(),
            worst_relative_error_simple_pct: (
                100.0 * q.relative_error_simple.0,
                100.0 * q.relative_error_simple.1,
            ),
            worst_relative_error_all_pct: (
                100.0 * q.relative_error_all.0,
                100.0 * q.relative_error_all.1,
            ),
        }
    }
}

/// Gauge description for reports.
pub fn gauge_label(g: &Gauge, names: &[String]) -> String {
    match g {
        Gauge::MeanCentred => "mean-centred".into(),
        Gauge::Reference(r) => format!("relative to {}", names[*r as usize]),
    }
}

/// The columns of the per-item CSV (`--output csv`), a documented interface.
pub const ITEM_COLUMNS: [&str; 8] = [
    "item",
    "worth",
    "worth_sd",
    "log_worth",
    "log_worth_se",
    "log_worth_sd",
    "ci_low",
    "ci_high",
];

impl FitReport {
    /// The report of any engine, from the [`Posterior`](crate::posterior::Posterior)
    /// interface alone: what `plackett fit` prints and what the Python
    /// package's `to_json()` returns. Comparisons, held-out scores and
    /// feature sections are filled in by the caller.
    pub fn from_posterior(
        p: &dyn crate::posterior::Posterior,
        ds: &crate::data::Dataset,
        gauge: &Gauge,
    ) -> FitReport {
        let info = p.info();
        let (rhat, ess) = p.rhat_ess();
        let mut notes = info.notes.clone();
        notes.extend(crate::posterior::fitted::data_notes(ds));
        let ties = p.tie_parameters();
        FitReport {
            engine: info.engine.clone(),
            algorithm: info.algorithm.clone(),
            n_items: ds.n_items(),
            n_observations: ds.n_real_obs(),
            dropped_observations: ds.dropped(),
            total_weight: weighted_total(ds),
            ties: ds.ties().as_str().to_string(),
            gauge: gauge_label(gauge, ds.items().names()),
            converged: info.converged,
            iterations: info.iterations,
            tolerance: info.tolerance,
            log_likelihood: info.log_likelihood,
            deviance: info.deviance(),
            aic: info.aic(),
            log_evidence: info.log_evidence,
            elbo: info.elbo,
            diagnostics: Diagnostics {
                rhat_max: rhat,
                ess_min: ess,
            },
            items: p.summary(ds.items().names(), gauge.clone()).items,
            coefficients: None,
            regression: None,
            tie_parameters: (!ties.is_empty()).then(|| ties.to_vec()),
            comparisons: Vec::new(),
            choices: Vec::new(),
            quasi_variances: None,
            predictive_log_likelihood: None,
            n_test_observations: None,
            notes,
        }
    }

    /// CSV: one row per item.
    pub fn to_csv(&self) -> String {
        let f = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
        let rows = self.items.iter().map(|it| {
            [
                it.name.clone(),
                format!("{}", it.worth),
                f(it.worth_sd),
                format!("{}", it.log_worth),
                f(it.log_worth_se),
                f(it.log_worth_sd),
                f(it.ci_low),
                f(it.ci_high),
            ]
        });
        crate::io::output::csv_text(ITEM_COLUMNS, rows)
    }

    /// Human-readable table, items ranked by worth.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}",
            crate::io::output::fit_heading(
                (&self.engine, &self.algorithm),
                self.n_items,
                self.n_observations,
                self.total_weight,
                self.dropped_observations,
                &self.ties
            )
        );
        let _ = writeln!(
            s,
            "{}",
            crate::posterior::diagnostics::status_line(
                self.converged,
                self.iterations,
                self.diagnostics.rhat_max.zip(self.diagnostics.ess_min)
            )
        );
        if let (Some(ll), Some(dev), Some(aic)) = (self.log_likelihood, self.deviance, self.aic) {
            let _ = writeln!(
                s,
                "log-likelihood {ll:.4}   deviance {dev:.4}   AIC {aic:.4}"
            );
        }
        if let Some(e) = self.log_evidence {
            let _ = writeln!(s, "log-evidence {e:.4}");
        }
        if let Some(e) = self.elbo {
            let _ = writeln!(s, "ELBO {e:.4}");
        }
        let _ = writeln!(s, "log-worth gauge: {}", self.gauge);
        let _ = writeln!(s);
        let width = column_width(self.items.iter().map(|i| i.name.as_str()), 4);
        let bayes = self.items.iter().any(|i| i.log_worth_sd.is_some());
        let unc = if bayes { "sd" } else { "se" };
        let _ = writeln!(
            s,
            "{:>4}  {:<width$}  {:>9}  {:>9}  {:>8}  {:>19}",
            "rank", "item", "worth", "log_worth", unc, "95% interval"
        );
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        order.sort_by(|&a, &b| self.items[b].worth.total_cmp(&self.items[a].worth));
        for (r, &i) in order.iter().enumerate() {
            let it = &self.items[i];
            let u = it.log_worth_se.or(it.log_worth_sd);
            let ci = match (it.ci_low, it.ci_high) {
                (Some(a), Some(b)) => format!("[{:>8}, {:>8}]", cell(a), cell(b)),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "{:>4}  {:<width$}  {:>9.6}  {:>9}  {:>8}  {:>19}",
                r + 1,
                short_name(&it.name, NAME_WIDTH),
                it.worth,
                cell(it.log_worth),
                u.map_or("-".into(), cell),
                ci
            );
        }
        if let Some(q) = &self.quasi_variances {
            let _ = writeln!(s);
            let _ = writeln!(s, "quasi-variances (Firth & de Menezes 2004):");
            let w = column_width(q.items.iter().map(|i| i.name.as_str()), 4);
            let _ = writeln!(
                s,
                "  {:<w$}  {:>10}  {:>10}",
                "item", "quasi-var", "quasi-SE"
            );
            for it in &q.items {
                let _ = writeln!(
                    s,
                    "  {:<w$}  {:>10.6}  {:>10.5}",
                    short_name(&it.name, NAME_WIDTH),
                    it.quasi_var,
                    it.quasi_se
                );
            }
            let (a, b) = q.worst_relative_error_simple_pct;
            let (c, d) = q.worst_relative_error_all_pct;
            let _ = writeln!(
                s,
                "worst relative errors of SEs: simple contrasts {a:.1}% / {b:.1}%, all contrasts {c:.1}% / {d:.1}%"
            );
        }
        if let Some(tp) = &self.tie_parameters {
            let _ = writeln!(s);
            for t in tp {
                let _ = writeln!(
                    s,
                    "tie order {}: delta {:.6}{}",
                    t.order,
                    t.delta,
                    t.se.map_or(String::new(), |e| format!(" (se {e:.6})"))
                );
            }
        }
        if let Some(cs) = &self.coefficients {
            let _ = writeln!(s);
            for c in cs {
                let _ = writeln!(
                    s,
                    "coefficient {}: {}",
                    c.name,
                    match (c.estimate, c.se, c.mean, c.sd) {
                        (Some(e), se, _, _) => format!(
                            "{e:.6}{}",
                            se.map_or(String::new(), |x| format!(" (se {x:.6})"))
                        ),
                        (None, _, Some(m), sd) => format!(
                            "mean {m:.6}{}",
                            sd.map_or(String::new(), |x| format!(" (sd {x:.6})"))
                        ),
                        _ => "-".into(),
                    }
                );
            }
        }
        if let Some(r) = &self.regression {
            if let Some(e) = r.eta {
                let _ = writeln!(
                    s,
                    "prior precision eta = {}{}",
                    crate::numerics::sig(e, 4),
                    if r.eta_curve.is_some() {
                        " (chosen by the variational bound)"
                    } else {
                        ""
                    }
                );
            }
            if r.standardized {
                let _ = writeln!(
                    s,
                    "features standardised for fitting; coefficients on the original scale"
                );
            }
            if let Some(t) = &r.lr_test {
                let _ = writeln!(
                    s,
                    "likelihood-ratio test against free worths: statistic {:.4} on {} df, p = {} \
                     (free-worths log-likelihood {:.4})",
                    t.statistic,
                    t.df,
                    crate::numerics::sig(t.p_value, 4),
                    t.free_log_likelihood
                );
            }
            if !r.new_items.is_empty() {
                let _ = writeln!(s);
                let _ = writeln!(s, "items with features but no observations:");
                for it in &r.new_items {
                    let u = it.log_worth_se.or(it.log_worth_sd);
                    let _ = writeln!(
                        s,
                        "  {}: log_worth {:.4}{}",
                        it.name,
                        it.log_worth,
                        u.map_or(String::new(), |x| format!(
                            " ({} {x:.4})",
                            if it.log_worth_sd.is_some() {
                                "sd"
                            } else {
                                "se"
                            }
                        ))
                    );
                }
            }
        }
        if !self.comparisons.is_empty() {
            let _ = writeln!(s);
            for c in &self.comparisons {
                let extra = match (c.plug_in, c.difference_mean, c.difference_sd) {
                    (Some(p), Some(m), Some(sd)) => {
                        format!("   (plug-in {p:.4}; log-worth difference {m:.4} ± {sd:.4})")
                    }
                    (Some(p), Some(m), None) => {
                        format!("   (plug-in {p:.4}; log-worth difference {m:.4})")
                    }
                    _ => c.tie_note(),
                };
                let _ = writeln!(
                    s,
                    "P({} beats {}) = {:.4}{extra}",
                    c.winner, c.loser, c.probability
                );
            }
        }
        for c in &self.choices {
            s.push_str(&c.table());
        }
        if let (Some(p), Some(k)) = (self.predictive_log_likelihood, self.n_test_observations) {
            let _ = writeln!(
                s,
                "\nposterior predictive log-likelihood of {k} held-out observations: {p:.4}"
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}

/// A log-worth, standard error or interval bound for the fit's table: four
/// decimals, or three significant digits with an exponent from 10⁶ on (an
/// sd of 10⁵⁰ under a nearly flat prior would otherwise print fifty digits
/// and break the columns).
fn cell(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e6 {
        format!("{x:.2e}")
    } else {
        format!("{x:.4}")
    }
}

impl crate::document::Document for FitReport {
    /// The document envelope ([`crate::document`]): family `features` when
    /// the worths come from item features, else `ranking`.
    fn envelope(&self) -> crate::document::Envelope {
        use crate::document::{Family, iterative_diagnostics, mcmc_diagnostics};
        let diagnostics = match (self.diagnostics.rhat_max, self.diagnostics.ess_min) {
            (Some(r), Some(e)) => mcmc_diagnostics(r, e),
            _ => {
                let mut d = iterative_diagnostics(self.tolerance, None);
                // The keys the document always had (null off the samplers).
                d["rhat_max"] = serde_json::Value::Null;
                d["ess_min"] = serde_json::Value::Null;
                d
            }
        };
        crate::document::envelope_of!(
            self,
            if self.coefficients.is_some() || self.regression.is_some() {
                Family::Features
            } else {
                Family::Ranking
            },
            self.converged,
            diagnostics
        )
    }
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn huge_standard_errors_keep_the_table_columns() {
        assert_eq!(cell(-216.12847), "-216.1285");
        assert_eq!(cell(6.551e48), "6.55e48");
        assert_eq!(cell(-1.284e49), "-1.28e49");
        assert_eq!(cell(999_999.0), "999999.0000");
    }
}
