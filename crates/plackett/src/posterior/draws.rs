//! Posterior draws and everything computed from them: summaries in a gauge,
//! P(i ≻ j), rank marginals (Guiver & Snelson Fig. 2), posterior predictive
//! log-likelihood, diagnostics and export.
//!
//! Draws are stored as *normalised* log-worths `θ_i − log Σ_j e^{θ_j}`, the
//! identified part of the PL parameters; any gauge is a linear map of them.

use super::diagnostics::{ScalarDiagnostics, diagnose};
use super::summary::{Gauge, ItemSummary, Summary};
use crate::data::Dataset;
use crate::model::pl;
use crate::numerics::gamma::exp_draw;
use rayon::prelude::*;

/// Posterior draws of normalised log-worths, grouped by chain.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Draws {
    n_items: usize,
    n_chains: usize,
    per_chain: usize,
    /// Layout `[chain][draw][item]`.
    #[serde(with = "crate::io::float_serde::vec")]
    data: Vec<f64>,
}

/// One Plackett–Luce ranking of items with log-worths `theta` as an
/// exponential race (each item's time `Exp(λ_i)`, places in order of
/// arrival), each item's 0-based place written to `places`; `order` is
/// scratch of `theta`'s length. The times are compared by their
/// logarithms, `ln E_i − θ_i` with `E_i ~ Exp(1)` (the same order as
/// `E_i/λ_i` and needing no scale), so that items whose worths would
/// underflow next to the largest (log-worths more than 708 below it) still
/// race among themselves instead of all arriving at +∞ in index order.
pub(crate) fn exponential_race(
    order: &mut Vec<(f64, usize)>,
    theta: &[f64],
    rng: &mut crate::sampling::rng::Rng,
    places: &mut [usize],
) {
    order.clear();
    for (a, &th) in theta.iter().enumerate() {
        order.push((exp_draw(rng, 1.0).ln() - th, a));
    }
    order.sort_by(|x, y| x.0.total_cmp(&y.0));
    for (place, &(_, a)) in order.iter().enumerate() {
        places[a] = place;
    }
}

/// The largest magnitude a saved log-worth (or adherence) may have: beyond
/// it differences below 1 are lost to rounding and probabilities to
/// overflow, and no fit produces one — a file holding one is damaged or
/// edited, and is refused rather than predicting NaN or ±∞.
pub const MAX_SAVED_VALUE: f64 = 1e15;

impl Draws {
    /// From per-chain buffers of `per_chain × n_items` values each.
    pub fn from_chains(n_items: usize, chains: Vec<Vec<f64>>) -> Draws {
        let n_chains = chains.len();
        let per_chain = chains.first().map_or(0, |c| c.len() / n_items.max(1));
        let mut data = Vec::with_capacity(n_chains * per_chain * n_items);
        for c in chains {
            assert_eq!(c.len(), per_chain * n_items, "ragged chains");
            data.extend(c);
        }
        Draws {
            n_items,
            n_chains,
            per_chain,
            data,
        }
    }

    /// Normalise a log-worth vector in place (`θ − logsumexp θ`).
    pub fn normalise(theta: &mut [f64]) {
        let l = crate::numerics::log_sum_exp(theta);
        theta.iter_mut().for_each(|t| *t -= l);
    }

    /// Normalise every draw in place ([`Draws::normalise`]).
    pub(crate) fn normalise_each(&mut self) {
        let n = self.n_items.max(1);
        self.data.chunks_mut(n).for_each(Draws::normalise);
    }

    /// Number of items.
    pub fn n_items(&self) -> usize {
        self.n_items
    }
    /// Number of chains.
    pub fn n_chains(&self) -> usize {
        self.n_chains
    }
    /// Draws per chain.
    pub fn per_chain(&self) -> usize {
        self.per_chain
    }
    /// Total draws.
    pub fn len(&self) -> usize {
        self.n_chains * self.per_chain
    }
    /// True if there are no draws.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Draw `k` (chains concatenated).
    pub fn draw(&self, k: usize) -> &[f64] {
        &self.data[k * self.n_items..(k + 1) * self.n_items]
    }

    /// The series of item `i` in each chain.
    pub fn item_chains(&self, i: usize) -> Vec<Vec<f64>> {
        (0..self.n_chains)
            .map(|c| {
                (0..self.per_chain)
                    .map(|t| self.data[(c * self.per_chain + t) * self.n_items + i])
                    .collect()
            })
            .collect()
    }

    /// Split-R̂ and bulk/tail ESS of every item's normalised log-worth.
    pub fn diagnostics(&self) -> Vec<ScalarDiagnostics> {
        (0..self.n_items)
            .into_par_iter()
            .map(|i| diagnose(&self.item_chains(i)))
            .collect()
    }

    /// Per-item summary. `worth` is the posterior mean of the normalised
    /// worth; `log_worth` the posterior mean in the gauge, with sd and the
    /// central 95% interval of the draws.
    pub fn summary(&self, names: &[String], gauge: Gauge) -> Summary {
        let n = self.n_items;
        let m = self.len() as f64;
        let mut w_sum = vec![0.0; n];
        let mut w_sq = vec![0.0; n];
        let mut g: Vec<Vec<f64>> = vec![Vec::with_capacity(self.len()); n];
        for k in 0..self.len() {
            let d = self.draw(k);
            let shift = match gauge {
                Gauge::MeanCentred => d.iter().sum::<f64>() / n as f64,
                Gauge::Reference(r) => d[r as usize],
            };
            for i in 0..n {
                let w = d[i].exp();
                w_sum[i] += w;
                w_sq[i] += w * w;
                g[i].push(d[i] - shift);
            }
        }
        let items = (0..n)
            .map(|i| {
                let wm = w_sum[i] / m;
                let wsd = ((w_sq[i] / m - wm * wm).max(0.0) * m / (m - 1.0).max(1.0)).sqrt();
                let (mean, sd) = mean_sd(&g[i]);
                let (lo, hi) = central_interval(&mut g[i], 0.95);
                ItemSummary {
                    name: names[i].clone(),
                    worth: wm,
                    worth_sd: Some(wsd),
                    log_worth: mean,
                    log_worth_se: None,
                    log_worth_sd: Some(sd),
                    ci_low: Some(lo),
                    ci_high: Some(hi),
                }
            })
            .collect();
        Summary { items, gauge }
    }

    /// Posterior probability that `i` beats `j` in a pairwise comparison,
    /// `E[λ_i / (λ_i + λ_j)]`.
    pub fn prob_beats(&self, i: usize, j: usize) -> f64 {
        (0..self.len())
            .map(|k| {
                let d = self.draw(k);
                crate::numerics::sigmoid(d[i] - d[j])
            })
            .sum::<f64>()
            / self.len() as f64
    }

    /// Choice probabilities over `set` (Luce's choice axiom, the first stage
    /// of a PL ranking): for each item of `set`, the posterior mean and sd of
    /// `λ_i / Σ_{j ∈ set} λ_j` over the draws (sd `None` for a single draw,
    /// a point estimate's plug-in). The softmax is taken in log space, so
    /// extreme log-worths neither overflow nor give NaN.
    pub fn choice_probabilities(&self, set: &[usize]) -> Vec<(f64, Option<f64>)> {
        self.set_moments(set, |logits, p| {
            let lse = crate::numerics::log_sum_exp(logits);
            for (p, l) in p.iter_mut().zip(logits) {
                *p = (l - lse).exp();
            }
            0.0
        })
        .0
    }

    /// Posterior means and sds over the draws of per-draw probabilities
    /// over `set`: `f(θ, p)` reads the draw's log-worths of `set` (in its
    /// order) and writes one probability per item to `p`; its return value
    /// (a further probability, such as a tie's) is averaged too. Sds are
    /// `None` for a single draw.
    pub(crate) fn set_moments<F>(&self, set: &[usize], mut f: F) -> (Vec<(f64, Option<f64>)>, f64)
    where
        F: FnMut(&[f64], &mut [f64]) -> f64,
    {
        let s = set.len();
        let m = self.len();
        let mut sum = vec![0.0; s];
        let mut sq = vec![0.0; s];
        let mut extra = 0.0;
        let mut theta = vec![0.0; s];
        let mut p = vec![0.0; s];
        for k in 0..m {
            let d = self.draw(k);
            for (t, &i) in theta.iter_mut().zip(set) {
                *t = d[i];
            }
            extra += f(&theta, &mut p);
            for a in 0..s {
                sum[a] += p[a];
                sq[a] += p[a] * p[a];
            }
        }
        let mf = m.max(1) as f64;
        let moments = (0..s)
            .map(|a| {
                let mean = sum[a] / mf;
                let sd =
                    (m > 1).then(|| ((sq[a] / mf - mean * mean).max(0.0) * mf / (mf - 1.0)).sqrt());
                (mean, sd)
            })
            .collect();
        (moments, extra / mf)
    }

    /// Rank marginals: `out[a][r]` = P(item `set[a]` finishes at place `r+1`
    /// in a race among `set`), by Monte Carlo over the draws (`races`
    /// exponential races per draw, seeded).
    pub fn rank_marginals(&self, set: &[u32], races: usize, seed: u64) -> Vec<Vec<f64>> {
        let s = set.len();
        self.place_marginals(
            set,
            races,
            (seed, 0x52414e4b),
            || vec![(0.0, 0); s],
            exponential_race,
        )
    }

    /// Place marginals over the draws: for every draw, `races` outcomes of
    /// `race(scratch, θ_set, rng, places)`, which writes each item's
    /// 0-based place; `out[a][r]` is the share of outcomes with item
    /// `set[a]` at place `r`. Draws are taken in runs of 256, each run with
    /// its own random stream `(seed, tag, run)`, so the result is the same
    /// on any number of threads.
    pub(crate) fn place_marginals<S, M, F>(
        &self,
        set: &[u32],
        races: usize,
        (seed, tag): (u64, u64),
        scratch: M,
        race: F,
    ) -> Vec<Vec<f64>>
    where
        M: Fn() -> S + Sync,
        F: Fn(&mut S, &[f64], &mut crate::sampling::rng::Rng, &mut [usize]) + Sync,
    {
        let s = set.len();
        let total = self.len();
        let chunk = 256;
        let parts: Vec<Vec<f64>> = (0..total.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut rng = crate::sampling::rng::stream(seed, &[tag, c as u64]);
                let mut counts = vec![0.0; s * s];
                let mut sc = scratch();
                let (mut theta, mut places) = (vec![0.0; s], vec![0; s]);
                for k in c * chunk..((c + 1) * chunk).min(total) {
                    let d = self.draw(k);
                    for (t, &i) in theta.iter_mut().zip(set) {
                        *t = d[i as usize];
                    }
                    for _ in 0..races {
                        race(&mut sc, &theta, &mut rng, &mut places);
                        for (a, &p) in places.iter().enumerate() {
                            counts[a * s + p] += 1.0;
                        }
                    }
                }
                counts
            })
            .collect();
        let mut counts = vec![0.0; s * s];
        for p in parts {
            for (x, y) in counts.iter_mut().zip(p) {
                *x += y;
            }
        }
        let norm = (total * races) as f64;
        (0..s)
            .map(|a| (0..s).map(|r| counts[a * s + r] / norm).collect())
            .collect()
    }

    /// Posterior predictive log-likelihood of held-out observations:
    /// `Σ_o log( (1/M) Σ_m p(o | λ^(m)) )`. The held-out dataset must share
    /// the item universe (same ids).
    pub fn predictive_log_likelihood(&self, test: &Dataset) -> f64 {
        self.predictive_log_probabilities(test).iter().sum()
    }

    /// Each held-out observation's posterior predictive log-probability,
    /// `log (1/M) Σ_m P(o | λ_m)` over the draws (log-sum-exp; one draw: the
    /// plug-in `log P(o | λ̂)`), weighted as
    /// [`predictive_log_likelihood`](Self::predictive_log_likelihood) sums
    /// them.
    pub fn predictive_log_probabilities(&self, test: &Dataset) -> Vec<f64> {
        self.log_mean_probabilities(test, false)
    }

    /// Each observation's posterior predictive probability at unit weight,
    /// `log (1/M) Σ_m P(o | λ_m)`, whatever weight the observation carries
    /// (a count of identical rankings predicts one of them). Weights are
    /// positive (the readers refuse others).
    pub fn predictive_unit_log_probabilities(&self, test: &Dataset) -> Vec<f64> {
        self.log_mean_probabilities(test, true)
    }

    /// Per observation, the log-mean over the draws of its likelihood —
    /// weighted, or at unit weight (`unit`).
    fn log_mean_probabilities(&self, test: &Dataset, unit: bool) -> Vec<f64> {
        let weights: Vec<f64> = (0..test.n_obs()).map(|o| test.obs(o).weight).collect();
        let per_draw: Vec<Vec<f64>> = (0..self.len())
            .into_par_iter()
            .map(|k| {
                let mut v = pl::log_likelihood_per_obs(test, self.draw(k));
                if unit {
                    // Every term of an observation's log-likelihood carries
                    // its weight once: dividing gives the unit-weight value.
                    v.iter_mut().zip(&weights).for_each(|(l, w)| *l /= w);
                }
                v
            })
            .collect();
        let m = self.len() as f64;
        (0..test.n_obs())
            .map(|o| {
                let col: Vec<f64> = per_draw.iter().map(|v| v[o]).collect();
                crate::numerics::log_sum_exp(&col) - m.ln()
            })
            .collect()
    }

    /// Every `step`-th draw of each chain (`step ≥ 1`).
    pub fn thinned(&self, step: usize) -> Draws {
        let step = step.max(1);
        let chains = (0..self.n_chains)
            .map(|c| {
                (0..self.per_chain)
                    .step_by(step)
                    .flat_map(|t| self.draw(c * self.per_chain + t).iter().copied())
                    .collect()
            })
            .collect();
        Draws::from_chains(self.n_items, chains)
    }

    /// The layout is whole and every value finite (a file read back).
    /// Whether the shape fits the data and every value is finite and
    /// within ±[`MAX_SAVED_VALUE`] (what a model file may hold).
    pub(crate) fn is_consistent(&self) -> bool {
        self.n_chains
            .checked_mul(self.per_chain)
            .and_then(|d| d.checked_mul(self.n_items))
            == Some(self.data.len())
            && self.n_items > 0
            && !self.data.is_empty()
            && self.data.iter().all(|x| x.abs() <= MAX_SAVED_VALUE)
    }

    /// CSV export: `chain,draw,<item names…>` of normalised log-worths.
    pub fn to_csv(&self, names: &[String]) -> String {
        let mut header = vec!["chain".to_string(), "draw".to_string()];
        header.extend(names.iter().cloned());
        let rows = (0..self.n_chains).flat_map(|c| {
            (0..self.per_chain).map(move |t| {
                let mut row = vec![c.to_string(), t.to_string()];
                row.extend(
                    self.draw(c * self.per_chain + t)
                        .iter()
                        .map(|x| format!("{x}")),
                );
                row
            })
        });
        crate::io::output::csv_text(header, rows)
    }

    /// JSON export: `{"items": [...], "chains": [[[…per item…], …], …]}`.
    pub fn to_json(&self, names: &[String]) -> String {
        let chains: Vec<Vec<&[f64]>> = (0..self.n_chains)
            .map(|c| {
                (0..self.per_chain)
                    .map(|t| self.draw(c * self.per_chain + t))
                    .collect()
            })
            .collect();
        serde_json::to_string(&serde_json::json!({
            "quantity": "normalised log-worth (log of worth / sum of worths)",
            "items": names,
            "chains": chains,
        }))
        .expect("serialisable")
            + "\n"
    }
}

pub use crate::stats::{central_interval, mean_sd, quantile_sorted};

#[cfg(test)]
mod tests {
    use super::*;

    /// Items more than 708 log-units below the largest still race among
    /// themselves: with log-worths (0, −800, −801) the second finishes ahead
    /// of the third with probability e/(1 + e) = 0.731 (their times used to
    /// underflow to +∞ together and keep index order, 1.0).
    #[test]
    fn a_race_far_below_the_largest_keeps_its_odds() {
        let theta = [0.0, -800.0, -801.0];
        let mut rng = crate::sampling::rng::stream(7, &[1]);
        let (mut order, mut places) = (Vec::new(), vec![0; 3]);
        let n = 20_000;
        let mut ahead = 0;
        for _ in 0..n {
            exponential_race(&mut order, &theta, &mut rng, &mut places);
            assert_eq!(places[0], 0);
            ahead += usize::from(places[1] < places[2]);
        }
        let p = ahead as f64 / n as f64;
        let want = 1.0f64.exp() / (1.0 + 1.0f64.exp());
        // Binomial sd at n = 20,000: 0.0031; five of them.
        assert!((p - want).abs() < 0.016, "{p} vs {want}");
    }
}
