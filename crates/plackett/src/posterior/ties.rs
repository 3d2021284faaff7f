//! Predictions of a model fitted with ties as events (the Davidson–Luce
//! model; Davidson 1970 for pairs, Firth, Kosmidis & Turner 2019 for
//! rankings): the tie prevalences `δ_k` enter every probability, not only
//! those of ties. A strict ranking is less likely than under Plackett–Luce
//! with the same worths, because a tie could have happened at every stage;
//! "A beats B" has three outcomes, not two.
//!
//! [`TieModel`] carries the prevalences next to the draws of the log-worths
//! (one draw for the point estimates that fit this model). Without tie
//! prevalences every answer is Plackett–Luce's, computed exactly as the
//! draws compute it.

use super::draws::Draws;
use super::fitted::TieParameter;
use crate::data::{Dataset, TieSemantics};
use crate::error::{Error, Result};
use crate::model::davidson;

/// The tie prevalences of a fitted model (none for Plackett–Luce).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TieModel {
    orders: Vec<usize>,
    log_delta: Vec<f64>,
}

impl TieModel {
    /// The model of a fit's tie parameters (empty: Plackett–Luce).
    pub fn new(params: &[TieParameter]) -> TieModel {
        TieModel {
            orders: params.iter().map(|p| p.order).collect(),
            log_delta: params.iter().map(|p| p.delta.ln()).collect(),
        }
    }

    /// Whether the model has no tie prevalences (Plackett–Luce).
    pub fn is_empty(&self) -> bool {
        self.orders.is_empty()
    }

    /// The tie orders the model can produce, ascending.
    pub fn orders(&self) -> &[usize] {
        &self.orders
    }

    /// Check that the model gives `test` a probability: a Plackett–Luce
    /// model cannot predict ties read as events, a Davidson–Luce model
    /// reads data only with ties as events, and a tie of an order the training
    /// data never showed has probability 0 (`δ_k = 0`, its estimate there).
    pub fn check(&self, test: &Dataset) -> Result<()> {
        let event = test.ties() == TieSemantics::Event;
        if self.is_empty() {
            if event && test.has_ties() {
                return Err(Error::Unsupported(
                    "the data hold ties read as events (`ties=event`), but the model has no tie \
                     prevalences (its training data held no ties read as events), so it cannot \
                     give a tie a probability (read the ties as unknown orders, or fit the model \
                     to data with ties read as events)"
                        .into(),
                ));
            }
            return Ok(());
        }
        // Read as unknown orders, tied groups would not be events (and a
        // tied pair would be dropped unseen): the model's probabilities are
        // of data read as it was fitted.
        if !event {
            return Err(Error::Unsupported(
                "the model reads ties as events (Davidson–Luce); read the data with `ties=event`"
                    .into(),
            ));
        }
        if let Some((o, k)) = davidson::unmodelled_tie(test, &self.orders) {
            return Err(Error::Data(format!(
                "observation {o} (counting from 0) holds a tie of {k} items, an order the model \
                 cannot produce (its training data had ties of {} items only, so δ_{k} = 0 and \
                 the observation's probability is 0)",
                self.orders
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(())
    }

    /// `[P(i ≻ j), P(j ≻ i), P(tie)]` in a comparison of `i` and `j`,
    /// averaged over the draws (Plackett–Luce: no tie).
    pub fn outcomes(&self, draws: &Draws, i: usize, j: usize) -> [f64; 3] {
        if self.is_empty() {
            let p = draws.prob_beats(i, j);
            return [p, 1.0 - p, 0.0];
        }
        let mut sum = [0.0; 3];
        for k in 0..draws.len() {
            let d = draws.draw(k);
            let (alone, tie) = davidson::first_choice(&[d[i], d[j]], &self.log_delta, &self.orders);
            for (s, p) in sum.iter_mut().zip([alone[0], alone[1], tie]) {
                *s += p;
            }
        }
        sum.map(|s| s / draws.len().max(1) as f64)
    }

    /// The first choice from `set`: for each item the probability (mean
    /// and sd over the draws; sd `None` for one draw) that it is chosen
    /// alone, and for a Davidson–Luce model the mean probability that the
    /// first choice is a tie (Plackett–Luce: [`Draws::choice_probabilities`]
    /// and no tie).
    pub fn choice(&self, draws: &Draws, set: &[usize]) -> (Vec<(f64, Option<f64>)>, Option<f64>) {
        if self.is_empty() {
            return (draws.choice_probabilities(set), None);
        }
        let (probs, tie) = draws.set_moments(set, |theta, p| {
            let (alone, tie) = davidson::first_choice(theta, &self.log_delta, &self.orders);
            p.copy_from_slice(&alone);
            tie
        });
        (probs, Some(tie))
    }

    /// Rank marginals under the Davidson–Luce model: `out[a][r]` = P(item
    /// `set[a]` finishes at place `r + 1` among `set`), tied items sharing
    /// their place (after a two-way tie for first the next item is third),
    /// by Monte Carlo over the draws, `races` rankings with ties per draw
    /// ([`davidson::sample_places`]; seeded, the same for any thread
    /// count). Each row sums to 1; a column may sum to more or less than 1.
    /// Plackett–Luce: [`Draws::rank_marginals`].
    pub fn rank_marginals(
        &self,
        draws: &Draws,
        set: &[u32],
        races: usize,
        seed: u64,
    ) -> Vec<Vec<f64>> {
        use rand::RngExt;
        if self.is_empty() {
            return draws.rank_marginals(set, races, seed);
        }
        draws.place_marginals(
            set,
            races,
            (seed, 0x444c_524d),
            || davidson::Sampler::new(&self.orders, &self.log_delta),
            |sc, theta, rng, places| {
                davidson::sample_places(theta, || rng.random::<f64>(), sc, places)
            },
        )
    }

    /// Each observation's predictive log-probability `log (1/M) Σ_m
    /// P(o | λ_m, δ)` over the draws, weighted (as a log-likelihood sums
    /// it) or at unit weight (`unit`), after [`TieModel::check`].
    pub fn log_probabilities(&self, draws: &Draws, test: &Dataset, unit: bool) -> Result<Vec<f64>> {
        self.check(test)?;
        if self.is_empty() {
            crate::model::pl::check_supported(test)?;
            return Ok(if unit {
                draws.predictive_unit_log_probabilities(test)
            } else {
                draws.predictive_log_probabilities(test)
            });
        }
        let per_draw: Vec<Vec<f64>> = (0..draws.len())
            .map(|k| {
                davidson::log_probabilities(
                    test,
                    draws.draw(k),
                    &self.log_delta,
                    &self.orders,
                    unit,
                )
            })
            .collect();
        let ln_m = (draws.len() as f64).ln();
        Ok((0..test.n_obs())
            .map(|o| {
                let col: Vec<f64> = per_draw.iter().map(|v| v[o]).collect();
                crate::numerics::log_sum_exp(&col) - ln_m
            })
            .collect())
    }
}
