//! A fitted model saved for prediction (`plackett fit --model-out`,
//! `plackett predict`): the item names and draws of the normalised
//! log-worths — one draw at the estimate for mle/map, posterior draws for
//! gibbs, ep and vb — and, for a model of ties as events (Davidson–Luce),
//! its tie prevalences: all that predictive probabilities of new rankings,
//! choices and pairs need.

use super::draws::Draws;
use super::fitted::TieParameter;
use super::ties::TieModel;
use crate::data::Dataset;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The `format` tag of a saved model file.
pub use crate::io::model_file::RANKING_FORMAT as MODEL_FORMAT;

/// A saved Plackett–Luce model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedModel {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// File layout version: 1, or 2 for a model with tie prevalences (which
    /// a reader of version 1 must not take for Plackett–Luce).
    pub version: u32,
    /// Engine that produced the draws (mle, map, gibbs, ep, vb).
    pub engine: String,
    /// Item names, in the draws' column order.
    pub items: Vec<String>,
    /// Normalised log-worths: one draw for a point estimate.
    pub draws: Draws,
    /// Tie prevalences δ_k of a model of ties as events (Davidson–Luce;
    /// version 2); absent for Plackett–Luce.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ties: Vec<TieParameter>,
}

impl SavedModel {
    /// A model from `draws` over `items`, thinned to at most `max_draws`,
    /// with the fit's tie prevalences `ties` (empty unless ties were read as
    /// events).
    pub fn new(
        engine: &str,
        items: &[String],
        draws: &Draws,
        max_draws: usize,
        ties: &[TieParameter],
    ) -> SavedModel {
        let step = draws.len().div_ceil(max_draws.max(1)).max(1);
        SavedModel {
            format: MODEL_FORMAT.into(),
            version: if ties.is_empty() { 1 } else { 2 },
            ties: ties.to_vec(),
            engine: engine.into(),
            items: items.to_vec(),
            draws: if step > 1 {
                draws.thinned(step)
            } else {
                draws.clone()
            },
        }
    }

    /// Read a model file's text (`name` for messages), checking that it is
    /// one: the format tag, one column per item, finite values.
    pub fn from_json(name: &str, text: &str) -> Result<SavedModel> {
        let m: SavedModel =
            serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
                Error::input(
                    name,
                    None,
                    format!(
                        "not a plackett model file (written by fit's model output): {}",
                        crate::error::json_message(&e)
                    ),
                )
            })?;
        if m.format != MODEL_FORMAT || !(m.version == 1 || m.version == 2) {
            return Err(Error::input(
                name,
                None,
                format!(
                    "not a plackett model file of version 1 or 2 (format {:?}, version {})",
                    m.format, m.version
                ),
            ));
        }
        if (m.version == 2) == m.ties.is_empty() {
            return Err(Error::input(
                name,
                None,
                "tie prevalences (`ties`) belong in a model file of version 2, and only there",
            ));
        }
        let mut last = 1;
        for t in &m.ties {
            if t.order <= last || !(t.delta.is_finite() && t.delta > 0.0) {
                return Err(Error::input(
                    name,
                    None,
                    format!(
                        "tie prevalence of order {} is invalid: orders must be at least 2 and \
                         ascending, each delta finite and positive (got {})",
                        t.order, t.delta
                    ),
                ));
            }
            last = t.order;
        }
        if !m.draws.is_consistent() || m.draws.n_items() != m.items.len() {
            return Err(Error::input(
                name,
                None,
                "the model's draws do not match its items, or hold values that are not finite or beyond ±1e15 (a damaged or edited file)",
            ));
        }
        Ok(m)
    }

    /// Serialise (the file `from_json` reads back).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a model serialises") + "\n"
    }

    /// The tie prevalences as a model for predictions (empty for
    /// Plackett–Luce).
    pub fn tie_model(&self) -> TieModel {
        TieModel::new(&self.ties)
    }

    /// Posterior predictive log-probability of each observation of `test`
    /// (read over this model's items, in this order), at unit weight; under
    /// the Davidson–Luce model for a model of ties as events.
    pub fn predict(&self, test: &Dataset) -> Result<Vec<f64>> {
        if test.items().names() != self.items.as_slice() {
            return Err(Error::Data(
                "the data must be read over the model's items, in the model's order".into(),
            ));
        }
        self.tie_model().log_probabilities(&self.draws, test, true)
    }
}
