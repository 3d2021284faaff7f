//! The envelope every family's JSON document starts with.
//!
//! Whatever the family — rankings, item features, mixtures, adherence, the
//! PL-regression classifier, ground truth, keywords, MIL — its
//! `--output json` document (and the Python result built from it) opens
//! with the same seven keys, so that a pipeline can read any of them the
//! same way before it looks at the family's own keys:
//!
//! | key | meaning |
//! |---|---|
//! | `family` | which model family made the document ([`Family`]) |
//! | `engine` | the engine that fitted it (`mle`, `vb`, `gibbs`, `em`, …) |
//! | `converged` | iterative engines: the stopping rule was met before the iteration cap; samplers: every split-R̂ ≤ [`RHAT_MAX`] and every ESS ≥ [`ESS_MIN`] (Vehtari et al. 2021) |
//! | `iterations` | iterations of an iterative engine, sweeps of a sampler (per chain) |
//! | `n_observations` | the observations the fit used (rankings, rows, cases, bags, candidate words), an integer |
//! | `notes` | caveats a reader should see, in plain sentences |
//! | `diagnostics` | an object: `rhat_max`, `ess_min` and the thresholds for samplers; the tolerance and iteration cap for iterative engines where the family records them; family-specific checks |
//!
//! The family's own keys follow, unchanged: a key an existing document
//! already had keeps its name and meaning (they are documented
//! interfaces).

use serde::Serialize;
use serde_json::{Map, Value};

/// Largest split-R̂ a sampler may show and count as converged.
pub const RHAT_MAX: f64 = 1.01;
/// Smallest effective sample size a sampler may show and count as
/// converged (Vehtari et al. 2021: 100 per chain for 4 chains).
pub const ESS_MIN: f64 = 400.0;

/// The model family of a document (the envelope's `family`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Plackett–Luce worths of items from rankings (`plackett fit`).
    Ranking,
    /// Worths as a function of item features (`plackett fit --features`).
    Features,
    /// Mixtures of Plackett–Luce models (`plackett fit --components`).
    Mixture,
    /// Rankers' adherence to a shared ranking (`plackett fit --adherence`).
    Adherence,
    /// The PL-regression classifier (`plackett classify fit`).
    Classifier,
    /// Aggregating uncertain ground truth (`plackett aggregate`,
    /// `plackett evaluate`).
    GroundTruth,
    /// Keyword extraction by VBSS (`plackett keywords extract`).
    Keywords,
    /// Multiple-instance classification by vMMIC (`plackett mil fit`).
    Mil,
    /// Plackett–Luce trees: rankers partitioned by covariates (`plackett
    /// tree`).
    Tree,
}

impl Family {
    /// The name written in documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Ranking => "ranking",
            Family::Features => "features",
            Family::Mixture => "mixture",
            Family::Adherence => "adherence",
            Family::Classifier => "classifier",
            Family::GroundTruth => "ground_truth",
            Family::Keywords => "keywords",
            Family::Mil => "mil",
            Family::Tree => "tree",
        }
    }

    /// Every family, in the order of the table in `docs/architecture.md`.
    pub const ALL: [Family; 9] = [
        Family::Ranking,
        Family::Features,
        Family::Mixture,
        Family::Adherence,
        Family::Classifier,
        Family::GroundTruth,
        Family::Keywords,
        Family::Mil,
        Family::Tree,
    ];
}

/// The keys every document starts with, in order.
pub const ENVELOPE_KEYS: [&str; 7] = [
    "family",
    "engine",
    "converged",
    "iterations",
    "n_observations",
    "notes",
    "diagnostics",
];

/// The common head of a family's document.
#[derive(Clone, Debug, Serialize)]
pub struct Envelope {
    /// Which family made the document.
    pub family: Family,
    /// The engine that fitted it.
    pub engine: String,
    /// Whether the engine's convergence rule was met (see the module docs).
    pub converged: bool,
    /// Iterations or sweeps.
    pub iterations: usize,
    /// Observations the fit used.
    pub n_observations: usize,
    /// Caveats.
    pub notes: Vec<String>,
    /// An object of engine checks ([`mcmc_diagnostics`],
    /// [`iterative_diagnostics`], or the family's own).
    pub diagnostics: Value,
}

/// A family's result document: its envelope, then its own keys. The
/// ranking, feature, mixture and adherence reports implement it.
pub trait Document: Serialize {
    /// The document's envelope.
    fn envelope(&self) -> Envelope;

    /// Pretty JSON, opening with the envelope.
    fn to_json(&self) -> String {
        self.envelope().to_json(self)
    }
}

/// The [`Envelope`] of a report that keeps its run's facts in fields
/// named as the envelope's keys (`engine`, `iterations`, `n_observations`,
/// `notes`), with the family and the engine's `converged` and
/// `diagnostics`.
macro_rules! envelope_of {
    ($report:expr, $family:expr, $converged:expr, $diagnostics:expr $(,)?) => {
        $crate::document::Envelope {
            family: $family,
            engine: $report.engine.clone(),
            converged: $converged,
            iterations: $report.iterations,
            n_observations: $report.n_observations,
            notes: $report.notes.clone(),
            diagnostics: $diagnostics,
        }
    };
}
pub(crate) use envelope_of;

impl Envelope {
    /// The document `doc` (a JSON object, or a struct serialising to one)
    /// with the envelope's keys first. A key of `doc` that the envelope
    /// also has takes the envelope's value (they describe the same thing);
    /// every other key follows in `doc`'s order.
    pub fn wrap<T: Serialize + ?Sized>(&self, doc: &T) -> Value {
        let head = serde_json::to_value(self).expect("the envelope serialises");
        let Value::Object(mut out) = head else {
            unreachable!("the envelope is an object")
        };
        match serde_json::to_value(doc).expect("documents serialise") {
            Value::Object(body) => {
                for (k, v) in body {
                    if !out.contains_key(&k) {
                        out.insert(k, v);
                    }
                }
            }
            other => {
                out.insert("result".into(), other);
            }
        }
        Value::Object(out)
    }

    /// [`Envelope::wrap`] as pretty JSON text with a final newline.
    pub fn to_json<T: Serialize + ?Sized>(&self, doc: &T) -> String {
        serde_json::to_string_pretty(&self.wrap(doc)).expect("documents serialise") + "\n"
    }
}

/// A sampler's `diagnostics`: the worst split-R̂ and ESS over the
/// parameters it reports, and the thresholds `converged` compares them
/// with.
pub fn mcmc_diagnostics(rhat_max: f64, ess_min: f64) -> Value {
    let mut m = Map::new();
    m.insert("rhat_max".into(), finite_or_null(rhat_max));
    m.insert("ess_min".into(), finite_or_null(ess_min));
    m.insert("rhat_threshold".into(), RHAT_MAX.into());
    m.insert("ess_threshold".into(), ESS_MIN.into());
    Value::Object(m)
}

/// Whether a sampler's worst split-R̂ and ESS pass [`RHAT_MAX`] and
/// [`ESS_MIN`]: what `converged` means for a sampler.
pub fn mixing_passes(rhat: f64, ess: f64) -> bool {
    rhat <= RHAT_MAX && ess >= ESS_MIN
}

/// A sampler's envelope fields: `converged` by [`mixing_passes`] and
/// `diagnostics` by [`mcmc_diagnostics`], from its worst split-R̂ and ESS.
pub fn sampler_check(rhat_max: f64, ess_min: f64) -> (bool, Value) {
    (
        mixing_passes(rhat_max, ess_min),
        mcmc_diagnostics(rhat_max, ess_min),
    )
}

/// An iterative engine's `diagnostics`: the tolerance it stopped at (when
/// it has one) and its iteration cap.
pub fn iterative_diagnostics(tolerance: Option<f64>, max_iter: Option<usize>) -> Value {
    let mut m = Map::new();
    if let Some(t) = tolerance {
        m.insert("tolerance".into(), finite_or_null(t));
    }
    if let Some(n) = max_iter {
        m.insert("max_iter".into(), n.into());
    }
    Value::Object(m)
}

fn finite_or_null(x: f64) -> Value {
    if x.is_finite() { x.into() } else { Value::Null }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_keys_come_first_and_win() {
        let env = Envelope {
            family: Family::Mixture,
            engine: "em".into(),
            converged: true,
            iterations: 12,
            n_observations: 30,
            notes: vec!["a note".into()],
            diagnostics: iterative_diagnostics(Some(1e-8), Some(500)),
        };
        let doc = serde_json::json!({"zeta": 1, "engine": "em", "alpha": 2});
        let v = env.wrap(&doc);
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(&keys[..7], &ENVELOPE_KEYS);
        assert_eq!(&keys[7..], &["zeta", "alpha"]);
        assert_eq!(v["family"], "mixture");
        assert_eq!(v["diagnostics"]["max_iter"], 500);
    }

    #[test]
    fn family_names_are_distinct() {
        let mut names: Vec<_> = Family::ALL.iter().map(|f| f.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Family::ALL.len());
        for f in Family::ALL {
            assert_eq!(serde_json::to_value(f).unwrap(), f.as_str());
        }
    }
}
