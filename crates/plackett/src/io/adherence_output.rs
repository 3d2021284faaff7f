//! Output of the adherence model ([`crate::infer::adherence`]): JSON, CSV
//! and a terminal table, shared by the CLI and the Python package.

use crate::data::Dataset;
use crate::infer::adherence::{AdherenceFit, AdherenceOptions};
use crate::io::output::short_name;
use std::fmt::Write;

/// One item's worth.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AdherenceItem {
    /// Item name.
    pub name: String,
    /// Worth, normalised to sum to 1 over the items.
    pub worth: f64,
    /// Log-worth (mean-centred; under a worth prior on the prior's scale).
    pub log_worth: f64,
}

/// One ranker's adherence.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RankerRow {
    /// Ranker name.
    pub name: String,
    /// Adherence `η_r` (estimated MAP or fixed).
    pub adherence: f64,
    /// Total weight of the ranker's observations.
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
}

impl AdherenceReport {
    /// The report of `fit` on `ds` with `opts`.
    pub fn new(ds: &Dataset, fit: &AdherenceFit, opts: &AdherenceOptions) -> AdherenceReport {
        let m = fit
            .log_worths
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = fit.log_worths.iter().map(|t| (t - m).exp()).sum();
        let mut items: Vec<AdherenceItem> = fit
            .items
            .iter()
            .zip(&fit.log_worths)
            .map(|(n, &t)| AdherenceItem {
                name: n.clone(),
                worth: (t - m).exp() / z,
                log_worth: t,
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
        AdherenceReport {
            model: "adherence".into(),
            engine: if opts.worth_prior.is_some() {
                "map"
            } else {
                "mle"
            }
            .into(),
            items,
            rankers: fit
                .rankers
                .iter()
                .zip(&fit.adherence)
                .zip(weight)
                .map(|((n, &a), w)| RankerRow {
                    name: n.clone(),
                    adherence: a,
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
            notes: fit.notes.clone(),
        }
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("serialisable") + "\n"
    }

    /// CSV: the items, then the rankers (`kind` column tells them apart).
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["kind", "name", "worth", "log_worth", "adherence"])
            .expect("write");
        for it in &self.items {
            w.write_record([
                "item",
                &it.name,
                &it.worth.to_string(),
                &it.log_worth.to_string(),
                "",
            ])
            .expect("write");
        }
        for r in &self.rankers {
            w.write_record(["ranker", &r.name, "", "", &r.adherence.to_string()])
                .expect("write");
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
            "log-likelihood {:.6}, log-posterior {:.6}, converged {} after {} iterations{}",
            self.log_likelihood,
            self.log_posterior,
            self.converged,
            self.iterations,
            match self.adherence_prior {
                Some([a, b]) => format!("; adherence prior Gamma({a}, {b})"),
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
        let _ = writeln!(
            s,
            "\n{:<width$} {:>10} {:>10}",
            "item", "worth", "log-worth"
        );
        for it in &self.items {
            let _ = writeln!(
                s,
                "{:<width$} {:>10.4} {:>10.4}",
                short_name(&it.name, 60),
                it.worth,
                it.log_worth
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
            "\n{:<width$} {:>10} {:>12}",
            "ranker", "adherence", "observations"
        );
        for (k, &r) in shown.iter().enumerate() {
            if self.rankers.len() > 20 && k == 10 {
                let _ = writeln!(s, "{:<width$}", "…");
            }
            let row = &self.rankers[r];
            let _ = writeln!(
                s,
                "{:<width$} {:>10.4} {:>12}",
                short_name(&row.name, 60),
                row.adherence,
                row.observations
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}
