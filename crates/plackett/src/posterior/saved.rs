//! A fitted model saved for prediction (`plackett fit --model-out`,
//! `plackett predict`): the item names and draws of the normalised
//! log-worths — one draw at the estimate for mle/map, posterior draws for
//! gibbs, ep and vb — which is all that posterior predictive probabilities
//! of new rankings, choices and pairs need.

use super::draws::Draws;
use crate::data::{Dataset, TieSemantics};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The `format` tag of a saved model file.
pub const MODEL_FORMAT: &str = "plackett-model";

/// A saved Plackett–Luce model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedModel {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// File layout version (1).
    pub version: u32,
    /// Engine that produced the draws (mle, map, gibbs, ep, vb).
    pub engine: String,
    /// Item names, in the draws' column order.
    pub items: Vec<String>,
    /// Normalised log-worths: one draw for a point estimate.
    pub draws: Draws,
}

impl SavedModel {
    /// A model from `draws` over `items`, thinned to at most `max_draws`.
    pub fn new(engine: &str, items: &[String], draws: &Draws, max_draws: usize) -> SavedModel {
        let step = draws.len().div_ceil(max_draws.max(1)).max(1);
        SavedModel {
            format: MODEL_FORMAT.into(),
            version: 1,
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
        if m.format != MODEL_FORMAT || m.version != 1 {
            return Err(Error::input(
                name,
                None,
                format!(
                    "not a plackett model file of version 1 (format {:?}, version {})",
                    m.format, m.version
                ),
            ));
        }
        if !m.draws.is_consistent() || m.draws.n_items() != m.items.len() {
            return Err(Error::input(
                name,
                None,
                "the model's draws do not match its items, or hold non-finite values",
            ));
        }
        Ok(m)
    }

    /// Serialise (the file `from_json` reads back).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a model serialises") + "\n"
    }

    /// Posterior predictive log-probability of each observation of `test`
    /// (read over this model's items, in this order), at unit weight.
    pub fn predict(&self, test: &Dataset) -> Result<Vec<f64>> {
        if test.items().names() != self.items.as_slice() {
            return Err(Error::Data(
                "the data must be read over the model's items, in the model's order".into(),
            ));
        }
        if test.ties() == TieSemantics::Event && test.has_ties() {
            return Err(Error::Unsupported(
                "predictions for ties read as events need the tie parameters, which saved models do \
                 not keep yet; use `ties=unknown`"
                    .into(),
            ));
        }
        crate::model::pl::check_supported(test)?;
        Ok(self.draws.predictive_unit_log_probabilities(test))
    }
}
