//! Output of the adherence model ([`crate::infer::adherence`]): JSON, CSV
//! and a terminal table, shared by the CLI and the Python package.

use crate::data::Dataset;
use crate::infer::adherence::{AdherenceFit, AdherenceOptions};
use crate::io::output::short_name;
use crate::posterior::fit_report::{Choice, Comparison};
use std::fmt::Write;

/// One item's worth.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AdherenceItem {
    /// Item name.
    pub name: String,
    /// Worth, normalised to sum to 1 over the items.
    pub worth: f64,
    /// Log-worth (mean-centred; under a worth prior on the prior's scale);
    /// the posterior mean for the sampler.
    pub log_worth: f64,
    /// Posterior sd of the log-worth (sampler only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_worth_sd: Option<f64>,
    /// 90% equal-tailed posterior interval of the log-worth (sampler only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_worth_interval: Option<[f64; 2]>,
}

/// One ranker's adherence.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RankerRow {
    /// Ranker name.
    pub name: String,
    /// Adherence `η_r` (estimated MAP, fixed, or the posterior mean for
    /// the sampler).
    pub adherence: f64,
    /// Posterior sd of the adherence (sampler only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adherence_sd: Option<f64>,
    /// 90% equal-tailed posterior interval of the adherence (sampler only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adherence_interval: Option<[f64; 2]>,
    /// Total weight of the ranker's observations: their number with unit
    /// weights (written as an integer then).
    #[serde(with = "crate::io::float_serde::count")]
    pub observations: f64,
}

/// The report of an adherence fit.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AdherenceReport {
    /// `"adherence"`.
    pub model: String,
    /// `mle` (no worth prior) or `map` (Gamma worth prior).
    pub engine: String,
    /// Items, best first.
    pub items: Vec<AdherenceItem>,
    /// Rankers, in order of first appearance.
    pub rankers: Vec<RankerRow>,
    /// Gamma prior of the adherences `[shape, rate]` (`null` when fixed).
    pub adherence_prior: Option<[f64; 2]>,
    /// Log-likelihood of the real observations at the estimate.
    pub log_likelihood: f64,
    /// The maximised objective (PlackettLuce's log-posterior: priors
    /// without normalising constants, pseudo-rankings included).
    pub log_posterior: f64,
    /// Map evaluations.
    pub iterations: usize,
    /// Whether the stopping rule held.
    pub converged: bool,
    /// Observations and items.
    pub n_observations: usize,
    /// Items.
    pub n_items: usize,
    /// Notes.
    pub notes: Vec<String>,
    /// The sampler's diagnostics (sampler only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<AdherenceDiagnostics>,
    /// The point fit's stopping rule, `[tol, max_iter]` (also in the
    /// envelope's `diagnostics`; absent for the sampler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopping: Option<(f64, usize)>,
    /// `--compare A,B`: P(A ≻ B) for a new ranker, its adherence
    /// integrated over the prior (what the population predicts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<Comparison>,
    /// `--compare` over three or more items: a new ranker's first choice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
}

/// Convergence diagnostics of the adherence sampler.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AdherenceDiagnostics {
    /// Largest split-R̂ over log-worths and adherences.
    pub rhat_max: f64,
    /// Smallest bulk/tail effective sample size.
    pub ess_min: f64,
    /// Chains.
    pub chains: usize,
    /// Draws kept per chain.
    pub draws_per_chain: usize,
    /// Acceptance rate of the scale move.
    pub scale_acceptance: f64,
}

impl AdherenceReport {
    /// The report of `fit` on `ds` with `opts`.
    pub fn new(ds: &Dataset, fit: &AdherenceFit, opts: &AdherenceOptions) -> AdherenceReport {
        let post = fit.posterior.as_ref();
        // Point values: the MAP, or the posterior means for the sampler.
        let log_worths = post.map_or(&fit.log_worths, |p| &p.log_worth_mean);
        let adherence = post.map_or(&fit.adherence, |p| &p.adherence_mean);
        let m = log_worths.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = log_worths.iter().map(|t| (t - m).exp()).sum();
        let mut items: Vec<AdherenceItem> = fit
            .items
            .iter()
            .zip(log_worths)
            .enumerate()
            .map(|(i, (n, &t))| AdherenceItem {
                name: n.clone(),
                worth: (t - m).exp() / z,
                log_worth: t,
                log_worth_sd: post.map(|p| p.log_worth_sd[i]),
                log_worth_interval: post.map(|p| p.log_worth_interval[i]),
            })
            .collect();
        items.sort_by(|a, b| b.log_worth.total_cmp(&a.log_worth));
        let mut weight = vec![0.0; fit.rankers.len()];
        for o in 0..ds.n_real_obs() {
            let r = ds.ranker(o).map_or(o, |r| r as usize);
            if r < weight.len() {
                weight[r] += ds.obs(o).weight;
            }
        }
        let mut notes = fit.notes.clone();
        if post.is_some() {
            notes.push(
                "log-likelihood and log-posterior are at the MAP (the sampler's start); worths \
                 and adherences are posterior means"
                    .into(),
            );
        }
        AdherenceReport {
            model: "adherence".into(),
            engine: if post.is_some() {
                "gibbs"
            } else if opts.worth_prior.is_some() {
                "map"
            } else {
                "mle"
            }
            .into(),
            items,
            rankers: fit
                .rankers
                .iter()
                .zip(adherence)
                .zip(weight)
                .enumerate()
                .map(|(r, ((n, &a), w))| RankerRow {
                    name: n.clone(),
                    adherence: a,
                    adherence_sd: post.map(|p| p.adherence_sd[r]),
                    adherence_interval: post.map(|p| p.adherence_interval[r]),
                    observations: w,
                })
                .collect(),
            adherence_prior: fit.estimated.then_some([opts.prior_shape, opts.prior_rate]),
            log_likelihood: fit.log_likelihood,
            log_posterior: fit.log_posterior,
            iterations: fit.iterations,
            converged: fit.converged,
            n_observations: ds.n_real_obs(),
            n_items: fit.items.len(),
            notes,
            diagnostics: post.map(|p| AdherenceDiagnostics {
                rhat_max: p.rhat_max,
                ess_min: p.ess_min,
                chains: p.chains,
                draws_per_chain: p.draws_per_chain,
                scale_acceptance: p.scale_acceptance,
            }),
            stopping: post.is_none().then_some((opts.tol, opts.max_iter)),
            comparisons: Vec::new(),
            choices: Vec::new(),
        }
    }

    /// CSV: the items, then the rankers (`kind` column tells them apart).
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
        let bayes = self.diagnostics.is_some();
        if bayes {
            w.write_record([
                "kind",
                "name",
                "worth",
                "log_worth",
                "adherence",
                "sd",
                "q05",
                "q95",
            ])
            .expect("write");
        } else {
            w.write_record(["kind", "name", "worth", "log_worth", "adherence"])
                .expect("write");
        }
        for it in &self.items {
            let mut row = vec![
                "item".to_string(),
                it.name.clone(),
                it.worth.to_string(),
                it.log_worth.to_string(),
                String::new(),
            ];
            if bayes {
                row.push(opt(it.log_worth_sd));
                row.push(opt(it.log_worth_interval.map(|q| q[0])));
                row.push(opt(it.log_worth_interval.map(|q| q[1])));
            }
            w.write_record(&row).expect("write");
        }
        for r in &self.rankers {
            let mut row = vec![
                "ranker".to_string(),
                r.name.clone(),
                String::new(),
                String::new(),
                r.adherence.to_string(),
            ];
            if bayes {
                row.push(opt(r.adherence_sd));
                row.push(opt(r.adherence_interval.map(|q| q[0])));
                row.push(opt(r.adherence_interval.map(|q| q[1])));
            }
            w.write_record(&row).expect("write");
        }
        String::from_utf8(w.into_inner().expect("flush")).expect("utf-8")
    }

    /// A table for the terminal: worths, then the rankers sorted by
    /// adherence (the 10 lowest and 10 highest when there are many).
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "adherence model, engine {}, {} items, {} observations, {} rankers",
            self.engine,
            self.n_items,
            self.n_observations,
            self.rankers.len()
        );
        let _ = writeln!(
            s,
            "log-likelihood {:.6}, log-posterior {:.6}, {}{}",
            self.log_likelihood,
            self.log_posterior,
            match &self.diagnostics {
                // A sampler: its mixing, on the posterior line below.
                Some(_) => format!("{} sweeps per chain", self.iterations),
                None => crate::posterior::diagnostics::status_line(
                    self.converged,
                    self.iterations,
                    None
                ),
            },
            match self.adherence_prior {
                Some([a, b]) => format!(
                    "; adherence prior Gamma({}, {})",
                    crate::error::show_number(a),
                    crate::error::show_number(b)
                ),
                None => "; adherence fixed".to_string(),
            }
        );
        let width = self
            .items
            .iter()
            .map(|i| short_name(&i.name, 60).chars().count())
            .chain(
                self.rankers
                    .iter()
                    .map(|r| short_name(&r.name, 60).chars().count()),
            )
            .max()
            .unwrap_or(4)
            .max(6);
        if let Some(d) = &self.diagnostics {
            let _ = writeln!(
                s,
                "posterior: {} chains × {} draws, max split-R̂ {:.3}, min ESS {:.0} ({}), scale-move acceptance {:.2}",
                d.chains,
                d.draws_per_chain,
                d.rhat_max,
                d.ess_min,
                if crate::posterior::diagnostics::mixing_passes(d.rhat_max, d.ess_min) {
                    "mixing checks pass"
                } else {
                    "mixing checks FAIL"
                },
                d.scale_acceptance
            );
        }
        let sd_head = if self.diagnostics.is_some() {
            format!(" {:>8} {:>19}", "sd", "90% interval")
        } else {
            String::new()
        };
        let sd_cols = |sd: Option<f64>, q: Option<[f64; 2]>| match (sd, q) {
            (Some(sd), Some([lo, hi])) => format!(" {sd:>8.4} [{lo:>8.4}, {hi:>8.4}]"),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "\n{:<width$} {:>10} {:>10}{sd_head}",
            "item", "worth", "log-worth"
        );
        for it in &self.items {
            let _ = writeln!(
                s,
                "{:<width$} {:>10.4} {:>10.4}{}",
                short_name(&it.name, 60),
                it.worth,
                it.log_worth,
                sd_cols(it.log_worth_sd, it.log_worth_interval)
            );
        }
        let mut order: Vec<usize> = (0..self.rankers.len()).collect();
        order.sort_by(|&a, &b| {
            self.rankers[a]
                .adherence
                .total_cmp(&self.rankers[b].adherence)
        });
        let shown: Vec<usize> = if order.len() > 20 {
            order[..10]
                .iter()
                .chain(&order[order.len() - 10..])
                .copied()
                .collect()
        } else {
            order
        };
        let _ = writeln!(
            s,
            "\n{:<width$} {:>10} {:>12}{sd_head}",
            "ranker", "adherence", "observations"
        );
        for (k, &r) in shown.iter().enumerate() {
            if self.rankers.len() > 20 && k == 10 {
                let _ = writeln!(s, "{:<width$}", "…");
            }
            let row = &self.rankers[r];
            let _ = writeln!(
                s,
                "{:<width$} {:>10.4} {:>12}{}",
                short_name(&row.name, 60),
                row.adherence,
                row.observations,
                sd_cols(row.adherence_sd, row.adherence_interval)
            );
        }
        if !(self.comparisons.is_empty() && self.choices.is_empty()) {
            let _ = writeln!(
                s,
                "\nas a new ranker would choose (adherence integrated over its prior):"
            );
        }
        for c in &self.comparisons {
            let _ = writeln!(
                s,
                "P({} beats {}) = {:.4}",
                c.winner, c.loser, c.probability
            );
        }
        for c in &self.choices {
            s.push_str(&c.table());
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}

impl crate::document::Document for AdherenceReport {
    /// The document envelope ([`crate::document`]); a sampler's
    /// `diagnostics` keep their chains, draws and scale-move acceptance.
    fn envelope(&self) -> crate::document::Envelope {
        use crate::document::{Family, iterative_diagnostics, sampler_check};
        let (converged, diagnostics) = match &self.diagnostics {
            Some(d) => {
                let (converged, mut v) = sampler_check(d.rhat_max, d.ess_min);
                v["chains"] = d.chains.into();
                v["draws_per_chain"] = d.draws_per_chain.into();
                v["scale_acceptance"] = d.scale_acceptance.into();
                (converged, v)
            }
            None => (
                self.converged,
                iterative_diagnostics(self.stopping.map(|s| s.0), self.stopping.map(|s| s.1)),
            ),
        };
        crate::document::envelope_of!(self, Family::Adherence, converged, diagnostics)
    }
}
