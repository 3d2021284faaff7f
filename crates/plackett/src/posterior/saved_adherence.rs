//! An adherence model saved for prediction (`plackett fit --adherence
//! --model-out`, `plackett predict`): the log-worths θ and every ranker's
//! adherence η_r — one draw at the MAP, posterior draws from the sampler —
//! and the adherences' Gamma prior. A ranker `r` ranks by Plackett–Luce
//! with log-worths `η_r θ` (Raman & Joachims 2014; Turner et al. 2020), so:
//!
//! * an observation of a ranker the model has seen has probability
//!   `(1/M) Σ_m PL(o | η_r^(m) θ^(m))` over the draws (one draw: plug-in);
//! * an observation of a ranker it has not seen integrates that ranker's
//!   adherence over its prior, `(1/M) Σ_m ∫ PL(o | η θ^(m)) Gamma(η) dη`,
//!   by Gauss–Legendre panels between the prior's quantiles
//!   ([`crate::numerics::quadrature::gamma_expectation_rule`]). A model with fixed
//!   adherences has no such prior and predicts only its own rankers.

use super::draws::{Draws, exponential_race};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::pl;
use crate::numerics::gamma::gamma_draw;
use crate::numerics::quadrature::gamma_expectation_rule;
use crate::numerics::{log_add_exp, log_sum_exp};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The `format` tag of a saved adherence model file.
pub use crate::io::model_file::ADHERENCE_FORMAT;

/// Largest spread of scaled log-worths `η (θ_max − θ_min)` a prediction
/// evaluates (`e^{-600}` is still a normal number).
const MAX_SPREAD: f64 = 600.0;

/// A saved adherence model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedAdherence {
    /// Always [`ADHERENCE_FORMAT`].
    pub format: String,
    /// File layout version (1).
    pub version: u32,
    /// Engine of the fit (mle, map, gibbs).
    pub engine: String,
    /// Item names, in the draws' column order.
    pub items: Vec<String>,
    /// Log-worths θ, normalised (any shift of θ leaves `η θ`'s
    /// probabilities unchanged): one draw at the MAP.
    pub log_worths: Draws,
    /// Ranker names, in the adherence draws' column order.
    pub rankers: Vec<String>,
    /// Each ranker's adherence η_r, draw by draw alongside `log_worths`
    /// (the same chains and draws; columns are rankers).
    pub adherence: Draws,
    /// Gamma(shape, rate) prior of an adherence; absent when the
    /// adherences were fixed.
    pub prior: Option<[f64; 2]>,
}

/// Who ranked an observation, as the model sees it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Who {
    /// A ranker of the model (its column).
    Known(usize),
    /// A ranker the model has not seen.
    New,
}

impl SavedAdherence {
    /// Read an adherence model file's text (`name` for messages), checking
    /// that it is one: the format tag, one log-worth per item and one
    /// adherence per ranker in every draw, finite values, positive
    /// adherences, a proper prior.
    pub fn from_json(name: &str, text: &str) -> Result<SavedAdherence> {
        let bad = |msg: String| Error::input(name, None, msg);
        let m: SavedAdherence =
            serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
                bad(format!(
                    "not a plackett adherence model file (written by fit --adherence \
                     --model-out): {}",
                    crate::error::json_message(&e)
                ))
            })?;
        if m.format != ADHERENCE_FORMAT || m.version != 1 {
            return Err(bad(format!(
                "not a plackett adherence model file of version 1 (format {:?}, version {})",
                m.format, m.version
            )));
        }
        if !m.log_worths.is_consistent() || m.log_worths.n_items() != m.items.len() {
            return Err(bad(
                "the model's log-worths do not match its items, or hold values that are not finite or beyond ±1e15 (a damaged or edited file)".into(),
            ));
        }
        if !m.adherence.is_consistent()
            || m.adherence.n_items() != m.rankers.len()
            || m.adherence.n_chains() != m.log_worths.n_chains()
            || m.adherence.per_chain() != m.log_worths.per_chain()
        {
            return Err(bad(
                "the model's adherences do not match its rankers and log-worth draws".into(),
            ));
        }
        // Rankers are looked up by name: two of one name would make one of
        // them unreachable (and which one answers depend on the lookup).
        let mut seen = std::collections::HashSet::with_capacity(m.rankers.len());
        if let Some(d) = m.rankers.iter().find(|r| !seen.insert(r.as_str())) {
            return Err(bad(format!(
                "ranker {:?} appears twice in the model's rankers",
                crate::error::show_name(d)
            )));
        }
        if (0..m.adherence.len()).any(|k| m.adherence.draw(k).iter().any(|&e| e <= 0.0)) {
            return Err(bad("an adherence in the model is not positive".into()));
        }
        if let Some([a, b]) = m.prior
            && !(a.is_finite() && a >= 1.0 && b.is_finite() && b > 0.0)
        {
            return Err(bad(format!(
                "the adherence prior Gamma({}, {}) is invalid: shape must be at least 1 and \
                 rate positive",
                crate::error::show_number(a),
                crate::error::show_number(b)
            )));
        }
        Ok(m)
    }

    /// Serialise (the file `from_json` reads back).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a model serialises") + "\n"
    }

    /// The rule over a new ranker's adherence (nodes, log-weights), or an
    /// error naming why the model has none.
    fn prior_rule(&self) -> Result<(Vec<f64>, Vec<f64>)> {
        let [a, b] = self.prior.ok_or_else(|| {
            Error::Data(
                "this model's adherences were fixed, so it has no prior for a ranker it has \
                 not seen: predict its own rankers only"
                    .into(),
            )
        })?;
        let (x, w) = gamma_expectation_rule(a, b);
        // The likelihood scales worths `λ^η` so that the largest is 1; past
        // a spread of about 745 in `η θ` the smallest underflow. The rule's
        // far nodes reach there with weights that add nothing (e^{-50} and
        // less for the priors fits use); refuse a prior that puts real mass
        // there rather than print an overflowed probability.
        let spread = (0..self.log_worths.len())
            .map(|k| {
                let d = self.log_worths.draw(k);
                let hi = d.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let lo = d.iter().copied().fold(f64::INFINITY, f64::min);
                hi - lo
            })
            .fold(0.0, f64::max);
        let eta_max = if spread > 0.0 {
            MAX_SPREAD / spread
        } else {
            f64::INFINITY
        };
        let dropped: f64 = x
            .iter()
            .zip(&w)
            .filter(|(x, _)| **x > eta_max)
            .map(|(_, w)| w)
            .sum();
        if dropped > 1e-12 {
            return Err(Error::Numerical(format!(
                "the adherence prior Gamma({}, {}) puts {dropped:.1e} of its mass on \
                 adherences above {eta_max:.3}, where the log-worths' spread of {spread:.1} \
                 times the adherence underflows; a new ranker cannot be predicted reliably",
                crate::error::show_number(a),
                crate::error::show_number(b)
            )));
        }
        Ok(x.into_iter()
            .zip(w)
            .filter(|(x, w)| *x <= eta_max && *w > 0.0)
            .map(|(x, w)| (x, w.ln()))
            .unzip())
    }

    /// The (adherence, log-weight) pairs that stand for ranker `who` under
    /// draw `k`: its own adherence, or the prior's nodes.
    fn etas(&self, who: Who, k: usize, rule: &(Vec<f64>, Vec<f64>)) -> Vec<(f64, f64)> {
        match who {
            Who::Known(r) => vec![(self.adherence.draw(k)[r], 0.0)],
            Who::New => rule.0.iter().copied().zip(rule.1.iter().copied()).collect(),
        }
    }

    /// Each observation's ranker as the model sees it: a ranker of the
    /// model by name, else new. Data without rankers are all new rankers
    /// (the model's rankers, if numbered, numbered other observations).
    fn who(&self, test: &Dataset) -> Vec<Who> {
        let names: std::collections::HashMap<&str, usize> = self
            .rankers
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        (0..test.n_obs())
            .map(|o| {
                test.ranker(o)
                    .and_then(|r| test.ranker_names().get(r as usize))
                    .and_then(|n| names.get(n.as_str()))
                    .map_or(Who::New, |&r| Who::Known(r))
            })
            .collect()
    }

    /// How many observations of `test` come from rankers the model has not
    /// seen.
    pub fn new_rankers(&self, test: &Dataset) -> usize {
        self.who(test).iter().filter(|w| **w == Who::New).count()
    }

    /// Posterior predictive log-probability of each observation of `test`
    /// (read over this model's items, in this order), at unit weight: under
    /// its ranker's adherence when the model knows the ranker, else
    /// integrated over the adherence prior.
    pub fn predict(&self, test: &Dataset) -> Result<Vec<f64>> {
        if test.items().names() != self.items.as_slice() {
            return Err(Error::Data(
                "the data must be read over the model's items, in the model's order".into(),
            ));
        }
        pl::check_supported(test)?;
        let who = self.who(test);
        let rule = if who.contains(&Who::New) {
            self.prior_rule()?
        } else {
            (Vec::new(), Vec::new())
        };
        let mut groups: Vec<Who> = who.clone();
        groups.sort();
        groups.dedup();
        let ln_m = (self.log_worths.len() as f64).ln();
        let mut out = vec![f64::NAN; test.n_obs()];
        for g in groups {
            let members: Vec<usize> = (0..test.n_obs()).filter(|&o| who[o] == g).collect();
            // Identical observations (the same ranking at the same weight)
            // get the same prediction: each kind is evaluated once, at
            // every draw and node (pairs and short rankings repeat a lot).
            let (reps, row_of) = test.subset(|o| who[o] == g).identical_rows();
            let mut keep = vec![false; test.n_obs()];
            for &r in &reps {
                keep[members[r]] = true;
            }
            let sub = test.subset(|o| keep[o]);
            let weights: Vec<f64> = (0..sub.n_obs()).map(|o| sub.obs(o).weight).collect();
            // Per draw, each observation's unit-weight log-probability with
            // the adherence integrated out: the nodes' terms (plus their
            // log-weights) added as they come, so a draw holds one value per
            // observation however many nodes the prior's rule has.
            let terms: Vec<Vec<f64>> = (0..self.log_worths.len())
                .into_par_iter()
                .map(|k| {
                    let theta = self.log_worths.draw(k);
                    let mut acc = vec![f64::NEG_INFINITY; sub.n_obs()];
                    for (eta, lw) in self.etas(g, k, &rule) {
                        let scaled: Vec<f64> = theta.iter().map(|t| eta * t).collect();
                        let v = pl::log_likelihood_per_obs(&sub, &scaled);
                        for ((a, l), w) in acc.iter_mut().zip(v).zip(&weights) {
                            *a = log_add_exp(*a, l / w + lw);
                        }
                    }
                    acc
                })
                .collect();
            let per_rep: Vec<f64> = (0..sub.n_obs())
                .map(|i| {
                    let col: Vec<f64> = terms.iter().map(|v| v[i]).collect();
                    log_sum_exp(&col) - ln_m
                })
                .collect();
            for (&o, &r) in members.iter().zip(&row_of) {
                out[o] = per_rep[r];
            }
        }
        // A probability above 1 or not a number is an underflow of a
        // ranker's extreme adherence (known rankers are not guarded above).
        if let Some(o) = out.iter().position(|l| !(l.is_finite() && *l <= 1e-9)) {
            return Err(Error::Numerical(format!(
                "observation {}'s predicted log-probability is {}: the model's adherence \
                 times its log-worths' spread is too large to evaluate",
                o + 1,
                out[o]
            )));
        }
        Ok(out)
    }

    /// The probability that each item of `set` is chosen first from it, by
    /// ranker `ranker` of the model, or by a new ranker (`None`: its
    /// adherence integrated over the prior): the mean over the draws (and
    /// the prior's nodes) of `softmax(η θ_set)`.
    pub fn choice_probabilities(&self, set: &[usize], ranker: Option<usize>) -> Result<Vec<f64>> {
        let who = self.ranker_of(ranker)?;
        let rule = match who {
            Who::New => self.prior_rule()?,
            Who::Known(_) => (Vec::new(), Vec::new()),
        };
        let m = self.log_worths.len() as f64;
        let mut acc = vec![0.0; set.len()];
        for k in 0..self.log_worths.len() {
            let theta = self.log_worths.draw(k);
            for (eta, lw) in self.etas(who, k, &rule) {
                let z: Vec<f64> = set.iter().map(|&i| eta * theta[i]).collect();
                let lse = log_sum_exp(&z);
                for (a, zi) in acc.iter_mut().zip(&z) {
                    *a += (zi - lse + lw).exp() / m;
                }
            }
        }
        Ok(acc)
    }

    /// Rank marginals of ranker `ranker` of the model, or of a new ranker
    /// (`None`: every race draws the ranker's adherence from the prior):
    /// `out[a][r]` = P(item `set[a]` finishes at place `r + 1` in a race
    /// among `set`), by about `races` exponential races spread over the
    /// draws (at least one per draw; seeded, the same on any number of
    /// threads). Each row and each column sums to 1.
    pub fn rank_marginals(
        &self,
        set: &[u32],
        races: usize,
        seed: u64,
        ranker: Option<usize>,
    ) -> Result<Vec<Vec<f64>>> {
        let per_draw = (races / self.log_worths.len().max(1)).max(1);
        match self.ranker_of(ranker)? {
            Who::Known(r) => {
                // The ranker races on η_r θ, draw by draw.
                let scaled: Vec<f64> = (0..self.log_worths.len())
                    .flat_map(|k| {
                        let eta = self.adherence.draw(k)[r];
                        self.log_worths.draw(k).iter().map(move |t| eta * t)
                    })
                    .collect();
                let d = Draws::from_chains(self.items.len(), vec![scaled]);
                Ok(d.rank_marginals(set, per_draw, seed))
            }
            Who::New => {
                // Refuses a prior whose adherences would underflow the
                // worths' spread, as the predictions do.
                self.prior_rule()?;
                let [a, b] = self.prior.expect("prior_rule checked it");
                type Scratch = (Vec<(f64, usize)>, Vec<f64>);
                Ok(self.log_worths.place_marginals(
                    set,
                    per_draw,
                    (seed, 0x4144_4845),
                    Scratch::default,
                    |(order, scaled): &mut Scratch, theta, rng, places| {
                        let eta = gamma_draw(rng, a, b);
                        scaled.clear();
                        scaled.extend(theta.iter().map(|t| eta * t));
                        exponential_race(order, scaled, rng, places);
                    },
                ))
            }
        }
    }

    /// `P(i beats j)` for ranker `ranker` of the model or a new one
    /// (`None`), as [`Self::choice_probabilities`] of the pair.
    pub fn prob_beats(&self, i: usize, j: usize, ranker: Option<usize>) -> Result<f64> {
        Ok(self.choice_probabilities(&[i, j], ranker)?[0])
    }

    /// A ranker index checked against the model's rankers.
    fn ranker_of(&self, ranker: Option<usize>) -> Result<Who> {
        match ranker {
            None => Ok(Who::New),
            Some(r) if r < self.rankers.len() => Ok(Who::Known(r)),
            Some(r) => Err(Error::param(
                "ranker",
                format!(
                    "ranker {r} is out of range (the model has {})",
                    self.rankers.len()
                ),
            )),
        }
    }

    /// A ranker's index by name.
    pub fn ranker_index(&self, name: &str) -> Option<usize> {
        self.rankers.iter().position(|r| r == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DatasetBuilder, Items, Tail, TieSemantics};
    use crate::infer::adherence::{AdherenceFit, AdherenceOptions, fit_adherence};

    /// Three rankers, four items, three full rankings each; with the
    /// rankers named (`named`) or not.
    fn rankings(named: bool) -> Dataset {
        let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
        for (ranker, r) in [
            ("r1", [0, 1, 2, 3]),
            ("r1", [0, 2, 1, 3]),
            ("r1", [1, 0, 2, 3]),
            ("r2", [3, 2, 1, 0]),
            ("r2", [0, 1, 3, 2]),
            ("r2", [2, 0, 3, 1]),
            ("r3", [0, 1, 2, 3]),
            ("r3", [0, 1, 2, 3]),
            ("r3", [1, 0, 3, 2]),
        ] {
            let groups: Vec<[u32; 1]> = r.iter().map(|&i| [i]).collect();
            if named {
                b.push_by(ranker, &groups, Tail::None, &[], 1.0).unwrap();
            } else {
                b.push(&groups, Tail::None, &[], 1.0).unwrap();
            }
        }
        b.finish()
    }

    fn data() -> Dataset {
        rankings(true)
    }

    fn fitted() -> (SavedAdherence, AdherenceFit) {
        let opts = AdherenceOptions::default();
        let fit = fit_adherence(&data(), &opts).unwrap();
        let m = SavedAdherence::new("mle", &fit, Some((opts.prior_shape, opts.prior_rate)), 4000)
            .unwrap();
        (m, fit)
    }

    #[test]
    fn a_known_ranker_ranks_by_its_scaled_worths() {
        let (m, fit) = fitted();
        let ds = data();
        let lp = m.predict(&ds).unwrap();
        for o in 0..ds.n_obs() {
            let r = ds.ranker(o).unwrap() as usize;
            let scaled: Vec<f64> = fit
                .log_worths
                .iter()
                .map(|t| fit.adherence[r] * t)
                .collect();
            let sub = ds.subset(|p| p == o);
            let direct = pl::log_likelihood_per_obs(&sub, &scaled)[0];
            assert!(
                (lp[o] - direct).abs() < 1e-12,
                "{o}: {} against {direct}",
                lp[o]
            );
        }
    }

    #[test]
    fn a_new_ranker_integrates_its_adherence_over_the_prior() {
        let (m, fit) = fitted();
        let ds = data();
        let unnamed = rankings(false);
        let lp = m.predict(&unnamed).unwrap();
        assert_eq!(m.new_rankers(&unnamed), ds.n_obs());
        let [a, b] = m.prior.unwrap();
        for o in 0..ds.n_obs() {
            let sub = unnamed.subset(|p| p == o);
            // Gamma(10, 10) puts less than 1e-12 beyond η = 6.
            let reference = simpson_log_predictive(&sub, &fit.log_worths, a, b, 6.0, 20_000);
            assert!(
                (lp[o] - reference).abs() < 1e-9,
                "{o}: {} against {reference}",
                lp[o]
            );
        }
    }

    /// Rank marginals by races against exact first choices: the first
    /// place's column is the choice probability over the whole set (a new
    /// ranker's integrated over the prior, a known ranker's at its
    /// adherence), within Monte Carlo error; rows and columns sum to 1;
    /// the same for a seed; a fixed-adherence model has no new ranker.
    #[test]
    fn rank_marginals_match_exact_first_choices() {
        let (m, _) = fitted();
        let all: Vec<u32> = (0..4).collect();
        let idx: Vec<usize> = (0..4).collect();
        for ranker in [None, Some(0), Some(1)] {
            let rm = m.rank_marginals(&all, 200_000, 7, ranker).unwrap();
            let exact = m.choice_probabilities(&idx, ranker).unwrap();
            for (a, row) in rm.iter().enumerate() {
                // sd of a share of 200,000 races is at most 0.0011.
                assert!(
                    (row[0] - exact[a]).abs() < 0.005,
                    "{ranker:?} item {a}: {} against {}",
                    row[0],
                    exact[a]
                );
                assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                assert!((rm.iter().map(|r| r[a]).sum::<f64>() - 1.0).abs() < 1e-12);
            }
            assert_eq!(rm, m.rank_marginals(&all, 200_000, 7, ranker).unwrap());
        }
        // A pair: the first place is P(i beats j).
        let pair = m.rank_marginals(&[0, 3], 200_000, 3, None).unwrap();
        let p = m.prob_beats(0, 3, None).unwrap();
        assert!((pair[0][0] - p).abs() < 0.005, "{} against {p}", pair[0][0]);
        let mut fixed = m.clone();
        fixed.prior = None;
        assert!(fixed.rank_marginals(&all, 1000, 1, None).is_err());
        assert!(fixed.rank_marginals(&all, 1000, 1, Some(2)).is_ok());
        assert!(m.rank_marginals(&all, 1000, 1, Some(3)).is_err());
    }

    /// Repeated rankings are evaluated once; each observation's prediction
    /// is bit for bit the one it gets alone.
    #[test]
    fn repeated_rankings_predict_as_each_alone() {
        let (m, _) = fitted();
        for named in [false, true] {
            let ds = rankings(named);
            let lp = m.predict(&ds).unwrap();
            for o in 0..ds.n_obs() {
                let alone = m.predict(&ds.subset(|p| p == o)).unwrap()[0];
                assert_eq!(lp[o].to_bits(), alone.to_bits(), "{named} {o}");
            }
        }
    }

    /// `log ∫ PL(o | η θ) Gamma(η; a, b) dη` by composite Simpson on
    /// `[0, upper]` with `n` intervals.
    fn simpson_log_predictive(
        sub: &Dataset,
        theta: &[f64],
        a: f64,
        b: f64,
        upper: f64,
        n: usize,
    ) -> f64 {
        use statrs::distribution::{Continuous, Gamma};
        let prior = Gamma::new(a, b).unwrap();
        // (At 0 the density is `rate` for shape 1, else 0.)
        let density = |eta: f64| prior.pdf(eta);
        let f = |eta: f64| {
            let scaled: Vec<f64> = theta.iter().map(|t| eta * t).collect();
            pl::log_likelihood_per_obs(sub, &scaled)[0].exp() * density(eta)
        };
        let h = upper / n as f64;
        let mut s = f(0.0) + f(upper);
        for k in 1..n {
            s += f(k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
        }
        (s * h / 3.0).ln()
    }

    #[test]
    fn a_diffuse_prior_and_spread_worths_integrate_as_well() {
        // Log-worths 6 apart and an Exponential(1/2) adherence prior: the
        // integrand's poles come near the real axis and its mass spreads
        // over η ∈ (0, 30); Simpson on [0, 80] is the reference.
        let theta = vec![3.0, 1.0, -0.5, -3.0];
        let m = SavedAdherence {
            format: ADHERENCE_FORMAT.into(),
            version: 1,
            engine: "map".into(),
            items: (0..4).map(|i| i.to_string()).collect(),
            log_worths: Draws::from_chains(4, vec![theta.clone()]),
            rankers: vec!["only".into()],
            adherence: Draws::from_chains(1, vec![vec![1.0]]),
            prior: Some([1.0, 0.5]),
        };
        let ds = rankings(false);
        let lp = m.predict(&ds).unwrap();
        for o in 0..ds.n_obs() {
            let sub = ds.subset(|p| p == o);
            let reference = simpson_log_predictive(&sub, &theta, 1.0, 0.5, 80.0, 40_000);
            assert!(
                (lp[o] - reference).abs() < 1e-7,
                "{o}: {} against {reference}",
                lp[o]
            );
        }
    }

    #[test]
    fn fixed_adherences_predict_their_own_rankers_only() {
        let opts = AdherenceOptions {
            fixed: Some(vec![0.5, 1.0, 2.0]),
            ..AdherenceOptions::default()
        };
        let fit = fit_adherence(&data(), &opts).unwrap();
        let m = SavedAdherence::new("mle", &fit, Some((10.0, 10.0)), 4000).unwrap();
        assert!(m.prior.is_none());
        assert!(m.predict(&data()).is_ok());
        let unnamed = rankings(false);
        let e = m.predict(&unnamed).unwrap_err().to_string();
        assert!(e.contains("no prior for a ranker it has not seen"), "{e}");
        assert!(m.choice_probabilities(&[0, 1], None).is_err());
        let p = m.choice_probabilities(&[0, 1, 2], Some(2)).unwrap();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_new_rankers_choices_sum_to_one_and_flatten_the_consensus() {
        let (m, fit) = fitted();
        let p = m.choice_probabilities(&[0, 1, 2, 3], None).unwrap();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // The consensus ranker (η = 1) against the prior mean of η = 1:
        // averaging the softmax over η changes it, but keeps the order.
        let z: Vec<f64> = fit.log_worths.clone();
        let lse = log_sum_exp(&z);
        let consensus: Vec<f64> = z.iter().map(|t| (t - lse).exp()).collect();
        let order = |v: &[f64]| {
            let mut i: Vec<usize> = (0..v.len()).collect();
            i.sort_by(|a, b| v[*b].total_cmp(&v[*a]));
            i
        };
        assert_eq!(order(&p), order(&consensus));
        let pb = m.prob_beats(0, 3, None).unwrap();
        assert!(pb > 0.5 && pb < 1.0);
    }

    #[test]
    fn the_file_reads_back_and_bad_files_are_refused() {
        let (m, _) = fitted();
        let back = SavedAdherence::from_json("m.json", &m.to_json()).unwrap();
        assert_eq!(back.predict(&data()).unwrap(), m.predict(&data()).unwrap());
        let mut v: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
        v["prior"] = serde_json::json!([0.5, 1.0]);
        let e = SavedAdherence::from_json("m.json", &v.to_string()).unwrap_err();
        assert!(e.to_string().contains("shape must be at least 1"), "{e}");
        let mut v: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
        v["rankers"] = serde_json::json!(["r1"]);
        let e = SavedAdherence::from_json("m.json", &v.to_string()).unwrap_err();
        assert!(e.to_string().contains("do not match its rankers"), "{e}");
        let e = SavedAdherence::from_json("m.json", "{}").unwrap_err();
        assert!(e.to_string().starts_with("m.json"), "{e}");
    }
}
