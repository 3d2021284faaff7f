//! A finite Plackett–Luce mixture saved for prediction (`plackett fit
//! --components G --model-out`, `plackett predict`): the item names, the
//! component weights ω and each component's log-worths λ_g — the estimate
//! that `fit --test` scores held-out data with. A new observation's
//! probability is `Σ_g ω_g PL(o | λ_g)` and its membership probabilities
//! `P(g | o) ∝ ω_g PL(o | λ_g)` (Mollica & Tardella 2017): which population
//! a new ranker most likely belongs to.

use super::ties::TieModel;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::pl;
use crate::numerics::{log_sum_exp, sigmoid};
use serde::{Deserialize, Serialize};

/// The `format` tag of a saved mixture file.
pub use crate::io::model_file::MIXTURE_FORMAT;

/// Largest deviation of the saved weights' sum from 1 that a file may show.
const WEIGHT_SUM_TOL: f64 = 1e-6;

/// A saved finite Plackett–Luce mixture.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedMixture {
    /// Always [`MIXTURE_FORMAT`].
    pub format: String,
    /// File layout version (1).
    pub version: u32,
    /// Engine of the fit (mle, map, gibbs).
    pub engine: String,
    /// Item names, in the order of every component's log-worths.
    pub items: Vec<String>,
    /// Component weights ω, summing to 1.
    pub weights: Vec<f64>,
    /// Per component, the log-worths (any gauge).
    pub log_worths: Vec<Vec<f64>>,
}

/// Predictions of a mixture for each observation of a dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct MixturePrediction {
    /// `log Σ_g ω_g PL(o | λ_g)` at unit weight.
    pub log_probability: Vec<f64>,
    /// `P(g | o)`, one row per observation.
    pub membership: Vec<Vec<f64>>,
}

impl SavedMixture {
    /// A mixture over `items` with `weights` and per-component `log_worths`.
    pub fn new(
        engine: &str,
        items: &[String],
        weights: &[f64],
        log_worths: &[Vec<f64>],
    ) -> SavedMixture {
        SavedMixture {
            format: MIXTURE_FORMAT.into(),
            version: 1,
            engine: engine.into(),
            items: items.to_vec(),
            weights: weights.to_vec(),
            log_worths: log_worths.to_vec(),
        }
    }

    /// Read a mixture file's text (`name` for messages), checking that it
    /// is one: the format tag, one log-worth per item in every component,
    /// finite values, weights non-negative and summing to 1.
    pub fn from_json(name: &str, text: &str) -> Result<SavedMixture> {
        let bad = |msg: String| Error::input(name, None, msg);
        let m: SavedMixture = serde_json::from_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| {
                bad(format!(
                    "not a plackett mixture model file (written by fit --components G --model-out): {}",
                    crate::error::json_message(&e)
                ))
            })?;
        if m.format != MIXTURE_FORMAT || m.version != 1 {
            return Err(bad(format!(
                "not a plackett mixture model file of version 1 (format {:?}, version {})",
                m.format, m.version
            )));
        }
        if m.items.is_empty() || m.weights.is_empty() || m.weights.len() != m.log_worths.len() {
            return Err(bad(format!(
                "the mixture needs items and one weight per component ({} weights, {} components)",
                m.weights.len(),
                m.log_worths.len()
            )));
        }
        if let Some(g) = m.log_worths.iter().position(|t| {
            t.len() != m.items.len()
                || t.iter()
                    .any(|x| !(x.abs() <= super::draws::MAX_SAVED_VALUE))
        }) {
            return Err(bad(format!(
                "component {} needs {} finite log-worths within ±1e15, one per item",
                g + 1,
                m.items.len()
            )));
        }
        let sum: f64 = m.weights.iter().sum();
        if m.weights.iter().any(|w| !(w.is_finite() && *w >= 0.0))
            || (sum - 1.0).abs() > WEIGHT_SUM_TOL
        {
            return Err(bad(format!(
                "the weights must be non-negative and sum to 1 (they sum to {sum})"
            )));
        }
        Ok(m)
    }

    /// Serialise (the file `from_json` reads back).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a mixture serialises") + "\n"
    }

    /// Number of components.
    pub fn components(&self) -> usize {
        self.weights.len()
    }

    /// Each observation of `test` (read over this model's items, in this
    /// order): its log-probability at unit weight and its membership
    /// probabilities. Ties read as events are refused (the mixture has no
    /// tie prevalences).
    pub fn predict(&self, test: &Dataset) -> Result<MixturePrediction> {
        if test.items().names() != self.items.as_slice() {
            return Err(Error::Data(
                "the data must be read over the model's items, in the model's order".into(),
            ));
        }
        TieModel::default().check(test)?;
        pl::check_supported(test)?;
        // Every term of an observation's log-likelihood carries its weight
        // once: dividing gives the unit-weight value (as `Draws` does).
        let per_component: Vec<Vec<f64>> = self
            .log_worths
            .iter()
            .map(|t| {
                let mut v = pl::log_likelihood_per_obs(test, t);
                for (l, o) in v.iter_mut().zip(0..) {
                    *l /= test.obs(o).weight;
                }
                v
            })
            .collect();
        let log_w: Vec<f64> = self.weights.iter().map(|w| w.ln()).collect();
        let mut log_probability = Vec::with_capacity(test.n_obs());
        let mut membership = Vec::with_capacity(test.n_obs());
        let mut joint = vec![0.0; self.components()];
        for o in 0..test.n_obs() {
            for (g, j) in joint.iter_mut().enumerate() {
                *j = log_w[g] + per_component[g][o];
            }
            let lse = log_sum_exp(&joint);
            log_probability.push(lse);
            membership.push(joint.iter().map(|j| (j - lse).exp()).collect());
        }
        Ok(MixturePrediction {
            log_probability,
            membership,
        })
    }

    /// P(i ≻ j) for a ranker drawn from the population: `Σ_g ω_g λ_gi /
    /// (λ_gi + λ_gj)` (what `fit --components --compare` prints).
    pub fn prob_beats(&self, i: usize, j: usize) -> f64 {
        self.weights
            .iter()
            .zip(&self.log_worths)
            .map(|(w, t)| w * sigmoid(t[i] - t[j]))
            .sum()
    }

    /// Choice probabilities over `set` for a ranker drawn from the
    /// population: `Σ_g ω_g λ_gi / Σ_{j ∈ set} λ_gj`.
    pub fn choice_probabilities(&self, set: &[usize]) -> Vec<f64> {
        let mut out = vec![0.0; set.len()];
        for (w, t) in self.weights.iter().zip(&self.log_worths) {
            let logits: Vec<f64> = set.iter().map(|&i| t[i]).collect();
            let lse = log_sum_exp(&logits);
            for (o, l) in out.iter_mut().zip(&logits) {
                *o += w * (l - lse).exp();
            }
        }
        out
    }

    /// Rank marginals for a ranker drawn from the population: `out[a][r] =
    /// Σ_g ω_g P(set[a] finishes at place r + 1 | λ_g)`, each component's
    /// term by `races` exponential races among `set` (seeded; component
    /// `g` on its own stream), so that the Monte Carlo error of every
    /// component counts by its weight. Each row sums to 1.
    pub fn rank_marginals(&self, set: &[u32], races: usize, seed: u64) -> Vec<Vec<f64>> {
        let s = set.len();
        let mut out = vec![vec![0.0; s]; s];
        for (g, (w, t)) in self.weights.iter().zip(&self.log_worths).enumerate() {
            let one = super::Draws::from_chains(t.len(), vec![t.clone()]);
            let rm = one.place_marginals(
                set,
                races,
                (seed, 0x4d49_5852 ^ ((g as u64) << 32)),
                Vec::new,
                super::draws::exponential_race,
            );
            for (o, r) in out.iter_mut().zip(rm) {
                o.iter_mut().zip(r).for_each(|(x, y)| *x += w * y);
            }
        }
        out
    }
}

/// A model file of any kind, told apart by its `format` tag.
#[derive(Debug, Clone)]
pub enum AnyModel {
    /// One population (`plackett-model`).
    Single(super::SavedModel),
    /// A finite mixture (`plackett-mixture-model`).
    Mixture(SavedMixture),
    /// Rankers of different adherence (`plackett-adherence-model`).
    Adherence(super::SavedAdherence),
}

impl AnyModel {
    /// Read a model file of any kind (`name` for messages).
    pub fn from_json(name: &str, text: &str) -> Result<AnyModel> {
        use crate::io::model_file::{ModelFamily, family_of_tag, mismatch};
        let format = serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}'))
            .ok()
            .and_then(|v| v.get("format").and_then(|f| f.as_str().map(str::to_string)));
        // A classifier's or a multiple-instance model's file is named for
        // what it is (the same parse of the text that reads the tag).
        if let Some(msg) = format
            .as_deref()
            .and_then(family_of_tag)
            .and_then(|f| mismatch(f, ModelFamily::Rankings))
        {
            return Err(Error::input(name, None, msg));
        }
        match format.as_deref() {
            Some(MIXTURE_FORMAT) => SavedMixture::from_json(name, text).map(AnyModel::Mixture),
            Some(super::saved_adherence::ADHERENCE_FORMAT) => {
                super::SavedAdherence::from_json(name, text).map(AnyModel::Adherence)
            }
            _ => super::SavedModel::from_json(name, text).map(AnyModel::Single),
        }
    }
}
