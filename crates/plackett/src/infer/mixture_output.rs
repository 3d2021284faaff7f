//! The report of a finite PL mixture fit (`plackett fit --components`):
//! one document for the CLI's JSON/CSV/table and Python's `to_json()`.
//!
//! JSON keys (fixed): `log_likelihood` (at the estimate), `components`
//! (`weight`, `weight_sd` for Bayesian engines, `items` with `name`,
//! `worth`, `log_worth`), `membership` (per observation, P(component)),
//! `model_choice` (per G fitted: `components`, `log_likelihood`, `bic`,
//! `dic`, `bpic`), `selected_components`.

use crate::data::Dataset;
use crate::infer::mixture::MixtureFit;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One item within a component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentItem {
    /// Item name.
    pub name: String,
    /// Worth normalised to sum to one within the component.
    pub worth: f64,
    /// Log-worth, mean-centred within the component (posterior mean for
    /// the Gibbs sampler).
    pub log_worth: f64,
    /// Posterior sd of the log-worth (Gibbs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub log_worth_sd: Option<f64>,
}

/// One mixture component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentReport {
    /// Mixture weight ω_g.
    pub weight: f64,
    /// Posterior sd of the weight (Bayesian engines; `null` for EM).
    pub weight_sd: Option<f64>,
    /// The items, in data order.
    pub items: Vec<ComponentItem>,
}

/// One row of the model-choice table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelChoiceRow {
    /// G.
    pub components: usize,
    /// Maximised log-likelihood.
    pub log_likelihood: f64,
    /// BIC `−2ℓ + k ln N` (PLMIX's definition, N = number of rankings).
    pub bic: f64,
    /// AIC `−2ℓ + 2k`.
    pub aic: f64,
    /// DIC (Gibbs only).
    pub dic: Option<f64>,
    /// BPIC (Gibbs only).
    pub bpic: Option<f64>,
    /// Free parameters `G(n − 1) + G − 1`.
    pub n_parameters: usize,
    /// Whether the best start met the stopping rule.
    pub converged: bool,
}

/// Everything `plackett fit --components` reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixtureReport {
    /// `mle`, `map` or `gibbs`.
    pub engine: String,
    /// What was run.
    pub algorithm: String,
    /// Items.
    pub n_items: usize,
    /// Observations fitted.
    pub n_observations: usize,
    /// Uninformative observations dropped when reading.
    pub dropped_observations: usize,
    /// Tie reading.
    pub ties: String,
    /// G of the reported fit.
    pub selected_components: usize,
    /// How G was chosen (`given`, or `bic` over a range).
    pub selection: String,
    /// Log-likelihood at the estimate.
    pub log_likelihood: f64,
    /// BIC of the reported fit.
    pub bic: f64,
    /// DIC of the reported fit (Gibbs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dic: Option<f64>,
    /// BPIC of the reported fit (Gibbs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bpic: Option<f64>,
    /// Largest split-R̂ after relabelling (Gibbs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rhat_max: Option<f64>,
    /// Smallest ESS after relabelling (Gibbs).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ess_min: Option<f64>,
    /// Posterior predictive checks (Gibbs): top-1 and paired-comparison
    /// frequencies against their posterior predictive intervals.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub predictive_checks: Option<crate::infer::mixture_ppc::PredictiveChecks>,
    /// Whether the best start met the stopping rule.
    pub converged: bool,
    /// Map evaluations of the best start.
    pub iterations: usize,
    /// Random starts run.
    pub starts: usize,
    /// Components, in decreasing order of weight.
    pub components: Vec<ComponentReport>,
    /// Per observation (data order), P(component g | observation).
    pub membership: Vec<Vec<f64>>,
    /// One row per G fitted.
    pub model_choice: Vec<ModelChoiceRow>,
    /// P(winner ≻ loser) under the mixture, for `--compare`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub comparisons: Vec<crate::posterior::fit_report::Comparison>,
    /// Held-out mixture log-likelihood (`--test`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub predictive_log_likelihood: Option<f64>,
    /// Held-out observations.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub n_test_observations: Option<usize>,
    /// Notes for the user.
    pub notes: Vec<String>,
}

impl MixtureReport {
    /// The report of a sweep over G (one fit, or several): with several,
    /// the fit of lowest DIC (Gibbs) or BIC (EM) is reported (the earliest
    /// on a tie).
    pub fn from_sweep(ds: &Dataset, fits: &[MixtureFit]) -> (Self, usize) {
        let bayes = fits.iter().all(|f| f.posterior.is_some());
        let score = |f: &MixtureFit| match &f.posterior {
            Some(p) if bayes => p.dic,
            _ => f.bic(),
        };
        let selected = fits
            .iter()
            .enumerate()
            .min_by(|x, y| score(x.1).total_cmp(&score(y.1)).then(x.0.cmp(&y.0)))
            .map(|(k, _)| k)
            .expect("at least one fit");
        let selection = if fits.len() == 1 {
            "given".to_string()
        } else {
            format!(
                "lowest {} over {}:{}",
                if bayes { "DIC" } else { "BIC" },
                fits[0].components(),
                fits[fits.len() - 1].components()
            )
        };
        (Self::new(ds, fits, selected, &selection), selected)
    }

    /// The report of `fits[selected]`, with every fit in the model-choice
    /// table; `selection` says how G was chosen.
    pub fn new(ds: &Dataset, fits: &[MixtureFit], selected: usize, selection: &str) -> Self {
        let f = &fits[selected];
        let names = ds.items().names();
        let components = f
            .weights
            .iter()
            .zip(&f.log_worths)
            .enumerate()
            .map(|(k, (&w, t))| {
                let m = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let z: f64 = t.iter().map(|x| (x - m).exp()).sum();
                let post = f.posterior.as_ref();
                ComponentReport {
                    weight: w,
                    weight_sd: post.map(|p| p.weight_sd[k]),
                    items: names
                        .iter()
                        .zip(t)
                        .enumerate()
                        .map(|(i, (n, &x))| ComponentItem {
                            name: n.clone(),
                            worth: (x - m).exp() / z,
                            log_worth: x,
                            log_worth_sd: post.map(|p| p.log_worth_sd[k][i]),
                        })
                        .collect(),
                }
            })
            .collect();
        let model_choice = fits
            .iter()
            .map(|g| ModelChoiceRow {
                components: g.components(),
                log_likelihood: g.log_likelihood,
                bic: g.bic(),
                aic: g.aic(),
                dic: g.posterior.as_ref().map(|p| p.dic),
                bpic: g.posterior.as_ref().map(|p| p.bpic),
                n_parameters: g.n_parameters,
                converged: g.converged,
            })
            .collect();
        let algorithm = if let Some(p) = &f.posterior {
            format!(
                "Gibbs (labels, latent arrival times), {} chains x {} draws, relabelled to the EM mode",
                p.chains, p.draws_per_chain
            )
        } else if f.components() == 1 {
            "the single-population point engine (G = 1)".to_string()
        } else {
            format!(
                "EM, one MM step per component in each M-step, SQUAREM; best of {} random starts",
                f.starts.len()
            )
        };
        MixtureReport {
            engine: f.engine.clone(),
            algorithm,
            n_items: ds.n_items(),
            n_observations: ds.n_real_obs(),
            dropped_observations: ds.dropped(),
            ties: ds.ties().as_str().to_string(),
            selected_components: f.components(),
            selection: selection.to_string(),
            log_likelihood: f.log_likelihood,
            bic: f.bic(),
            dic: f.posterior.as_ref().map(|p| p.dic),
            bpic: f.posterior.as_ref().map(|p| p.bpic),
            rhat_max: f.posterior.as_ref().map(|p| p.rhat_max),
            ess_min: f.posterior.as_ref().map(|p| p.ess_min),
            predictive_checks: f.posterior.as_ref().and_then(|p| p.checks.clone()),
            converged: f.converged,
            iterations: f.iterations,
            starts: f.starts.len(),
            components,
            membership: f.membership.clone(),
            model_choice,
            comparisons: Vec::new(),
            predictive_log_likelihood: None,
            n_test_observations: None,
            notes: f.notes.clone(),
        }
    }

    /// P(a ≻ b) in a paired comparison under the mixture:
    /// `Σ_g ω_g λ_ga / (λ_ga + λ_gb)`.
    pub fn prob_beats(&self, a: usize, b: usize) -> f64 {
        self.components
            .iter()
            .map(|c| {
                let d = c.items[b].log_worth - c.items[a].log_worth;
                c.weight / (1.0 + d.exp())
            })
            .sum()
    }

    /// CSV: one row per (component, item).
    pub fn to_csv(&self) -> String {
        let rows = self.components.iter().enumerate().flat_map(|(g, c)| {
            c.items.iter().map(move |it| {
                [
                    (g + 1).to_string(),
                    c.weight.to_string(),
                    it.name.clone(),
                    it.worth.to_string(),
                    it.log_worth.to_string(),
                ]
            })
        });
        crate::io::output::csv_text(["component", "weight", "item", "worth", "log_worth"], rows)
    }

    /// A table for the terminal.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}",
            crate::io::output::fit_heading(
                (&self.engine, &self.algorithm),
                self.n_items,
                self.n_observations,
                None,
                self.dropped_observations,
                &self.ties
            )
        );
        let _ = writeln!(
            s,
            "{} ({}), log-likelihood {:.6}, BIC {:.3}, {}",
            match self.selected_components {
                1 => "1 component".to_string(),
                g => format!("{g} components"),
            },
            self.selection,
            self.log_likelihood,
            self.bic,
            crate::posterior::diagnostics::status_line(
                self.converged,
                self.iterations,
                self.rhat_max.zip(self.ess_min)
            )
        );
        if let (Some(d), Some(b)) = (self.dic, self.bpic) {
            let _ = writeln!(
                s,
                "DIC {d:.3}, BPIC {b:.3}; max split-R̂ {:.3}, min ESS {:.0} (after relabelling)",
                self.rhat_max.unwrap_or(f64::NAN),
                self.ess_min.unwrap_or(f64::NAN)
            );
        }
        if self.model_choice.len() > 1 {
            let _ = writeln!(
                s,
                "\n{:>10} {:>16} {:>14} {:>14} {:>14} {:>14}",
                "components", "log-likelihood", "BIC", "AIC", "DIC", "BPIC"
            );
            let opt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.3}"));
            for r in &self.model_choice {
                let _ = writeln!(
                    s,
                    "{:>10} {:>16.6} {:>14.3} {:>14.3} {:>14} {:>14}{}",
                    r.components,
                    r.log_likelihood,
                    r.bic,
                    r.aic,
                    opt(r.dic),
                    opt(r.bpic),
                    if r.components == self.selected_components {
                        "  <- selected"
                    } else {
                        ""
                    }
                );
            }
        }
        let width = self
            .components
            .first()
            .map_or(4, |c| {
                c.items
                    .iter()
                    .map(|i| i.name.chars().count())
                    .max()
                    .unwrap_or(4)
            })
            .max(4);
        for (g, c) in self.components.iter().enumerate() {
            match c.weight_sd {
                Some(sd) => {
                    let _ = writeln!(
                        s,
                        "\ncomponent {} (weight {:.4} ± {sd:.4})",
                        g + 1,
                        c.weight
                    );
                }
                None => {
                    let _ = writeln!(s, "\ncomponent {} (weight {:.4})", g + 1, c.weight);
                }
            }
            let _ = writeln!(
                s,
                "{:<width$} {:>10} {:>10} {:>10}",
                "item", "worth", "log_worth", "sd"
            );
            let mut order: Vec<usize> = (0..c.items.len()).collect();
            order.sort_by(|&a, &b| c.items[b].log_worth.total_cmp(&c.items[a].log_worth));
            for i in order {
                let it = &c.items[i];
                let sd = it
                    .log_worth_sd
                    .map_or("-".to_string(), |v| format!("{v:.4}"));
                let _ = writeln!(
                    s,
                    "{:<width$} {:>10.4} {:>10.4} {:>10}",
                    it.name, it.worth, it.log_worth, sd
                );
            }
        }
        if let Some(pc) = &self.predictive_checks {
            let _ = writeln!(
                s,
                "\nposterior predictive checks ({} replicates): top-1 frequencies",
                pc.replicates
            );
            let _ = writeln!(
                s,
                "{:<width$} {:>10} {:>10} {:>21}",
                "item", "observed", "predicted", "95% interval"
            );
            for r in &pc.top1 {
                let out = r.observed < r.low || r.observed > r.high;
                let _ = writeln!(
                    s,
                    "{:<width$} {:>10.0} {:>10.1} {:>21}{}",
                    r.item,
                    r.observed,
                    r.mean,
                    format!("[{:.0}, {:.0}]", r.low, r.high),
                    if out { "  *" } else { "" }
                );
            }
            let outside: Vec<_> = pc
                .pairs
                .iter()
                .filter(|r| r.observed < r.low || r.observed > r.high)
                .collect();
            let _ = writeln!(
                s,
                "paired comparisons: {} of {} frequencies outside their 95% predictive interval",
                outside.len(),
                pc.pairs.len()
            );
            for r in outside.iter().take(10) {
                let _ = writeln!(
                    s,
                    "  {} above {}: observed {:.0}, predicted {:.1} [{:.0}, {:.0}]",
                    r.item,
                    r.other.as_deref().unwrap_or(""),
                    r.observed,
                    r.mean,
                    r.low,
                    r.high
                );
            }
        }
        for c in &self.comparisons {
            let _ = writeln!(
                s,
                "\nP({} beats {}) = {:.4}",
                c.winner, c.loser, c.probability
            );
        }
        if let Some(p) = self.predictive_log_likelihood {
            let _ = writeln!(
                s,
                "\nheld-out log-likelihood {p:.4} over {} observations",
                self.n_test_observations.unwrap_or(0)
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}

impl crate::document::Document for MixtureReport {
    /// The document envelope ([`crate::document`]).
    fn envelope(&self) -> crate::document::Envelope {
        use crate::document::{Family, iterative_diagnostics, sampler_check};
        let (converged, diagnostics) = match (self.rhat_max, self.ess_min) {
            (Some(r), Some(e)) => sampler_check(r, e),
            _ => (self.converged, iterative_diagnostics(None, None)),
        };
        crate::document::envelope_of!(self, Family::Mixture, converged, diagnostics)
    }
}
