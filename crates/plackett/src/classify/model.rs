//! A fitted classifier: what `plackett classify fit` writes as JSON and
//! `predict` reads back, and the fitting entry point shared by the CLI and
//! cross-validation.

use super::data::{Preprocess, Table, encode_classes, training_data};
use super::em::{EmFit, EmOptions, em};
use super::gibbs::{ClassifierGibbsOptions, GibbsFit, Shape, gibbs};
use super::vb::{ClassifierVbOptions, VbFit, vb};
use crate::choice::Choice;
use crate::error::{Error, Result};
use crate::numerics::gamma::ln_gamma_draw;
use crate::numerics::linalg::Cholesky;
use crate::sampling::mcmc::McmcSettings;
use crate::sampling::rng::stream;
use nalgebra::DMatrix;

use crate::observer::SharedObserver;
pub use crate::sampling::linear_response::VbCovariance;
use serde::{Deserialize, Serialize};

crate::choices! {
    /// Inference engine.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Engine("engine") {
        /// EM for the MAP, exact zeros (Archambeau & Caron 2012 eqs 9–10).
        Em = "em",
        /// Gibbs sampler, posterior mean and median (eqs 11–13).
        Gibbs = "gibbs",
        /// Variational Bayes, posterior mean (eqs 18–19).
        Vb = "vb",
    }
}

/// Format tag of model files.
pub use crate::io::model_file::CLASSIFIER_FORMAT as MODEL_FORMAT;

/// A fitted model (serialisable).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Fitted {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// Engine.
    pub engine: Engine,
    /// Class names, in the order of the weight rows and of predictions.
    pub classes: Vec<String>,
    /// Name of the class column in the training file.
    pub class_col: String,
    /// Standardisation and transforms.
    pub preprocess: Preprocess,
    /// Names of the transformed features (columns of the weights).
    pub transforms: Vec<String>,
    /// Gamma shape used (the final value when learnt; for Gibbs with a
    /// sampled shape, its posterior mean).
    pub a: f64,
    /// Gamma rate.
    pub b: f64,
    /// `K × p` normalised weights `λ/Σλ`: the MAP (em) or the posterior
    /// mean (gibbs, vb).
    pub weights: Vec<Vec<f64>>,
    /// Gibbs: kept posterior draws of the normalised weights (each `K p`,
    /// row-major), thinned to at most `keep_draws`.
    pub draws: Option<Vec<Vec<f64>>>,
    /// VB: the Gamma factors `q(λ_kj) = Gam(shape, rate)`.
    pub q_shape: Option<Vec<Vec<f64>>>,
    /// VB: rates of the Gamma factors.
    pub q_rate: Option<Vec<Vec<f64>>>,
    /// VB with its linear-response covariance (the default): the
    /// `K p × K p` covariance of `ln λ` (index `k p + j`) that the weights'
    /// intervals read, about the means `ψ(q_shape) − ln q_rate`
    /// ([`super::linear_response`], [`Fitted::interval_draws`]). Absent:
    /// the Gamma factors' own. Predictions read the Gamma factors either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q_log_cov: Option<Vec<Vec<f64>>>,
    /// Seed for the Monte Carlo predictive of VB.
    pub seed: u64,
}

/// How far a model file's normalised weights (and each stored draw) may
/// sum from 1: JSON round-trips f64 exactly, so only the rounding of the
/// normalisation itself (about `K p` ulps) is expected.
const WEIGHT_SUM_TOL: f64 = 1e-6;

/// Lower and upper ends of the normalised weights' intervals, each `K × p`
/// like [`Fitted::weights`].
pub type WeightIntervals = (Vec<Vec<f64>>, Vec<Vec<f64>>);

/// The level of the weight intervals `classify fit` reports.
pub const WEIGHT_INTERVAL_LEVEL: f64 = 0.95;

/// Draws used for VB's posterior predictive.
const VB_PREDICTIVE_DRAWS: usize = 2000;

impl Fitted {
    /// Number of classes.
    pub fn k(&self) -> usize {
        self.classes.len()
    }

    /// Number of transformed features.
    pub fn p(&self) -> usize {
        self.transforms.len()
    }

    /// Parse a model file's text (what `classify fit --model-out` writes),
    /// checking that every array has the shape the classes and transforms
    /// imply and every number is in its domain, so that prediction cannot
    /// index past an array or divide by a zero standard deviation.
    pub fn from_json(path: &str, text: &str) -> Result<Fitted> {
        let m: Fitted = serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
            // A file of another kind is named for what it is.
            use crate::io::model_file::{ModelFamily, other_family};
            if let Some(msg) = other_family(text, ModelFamily::Classifier) {
                return Error::input(path, None, msg);
            }
            Error::input(
                path,
                Some(e.line()),
                format!(
                    "not a plackett classifier model: {}",
                    crate::error::json_message(&e)
                ),
            )
        })?;
        let bad = |msg: String| Err(Error::input(path, None, msg));
        if m.format != MODEL_FORMAT {
            return bad(format!(
                "model format {:?}, expected {MODEL_FORMAT:?} (written by `plackett classify fit --model-out`)",
                m.format
            ));
        }
        let (k, d) = (m.k(), m.preprocess.features.len());
        if k < 2 {
            return bad(format!("{k} classes; a classifier has at least 2"));
        }
        if d == 0 || m.preprocess.mean.len() != d || m.preprocess.sd.len() != d {
            return bad(format!(
                "preprocess: {d} features with {} means and {} sds; expected one of each per feature",
                m.preprocess.mean.len(),
                m.preprocess.sd.len()
            ));
        }
        if m.preprocess.mean.iter().any(|v| !v.is_finite())
            || m.preprocess.sd.iter().any(|v| !(v.is_finite() && *v > 0.0))
        {
            return bad("preprocess: means must be finite and sds finite and positive".into());
        }
        let p = m.p();
        if m.preprocess.p() != p {
            return bad(format!(
                "{p} transforms, but {d} features{} give {}",
                if m.preprocess.pairwise {
                    " with pairwise terms"
                } else {
                    ""
                },
                m.preprocess.p()
            ));
        }
        // Normalised weights λ/Σλ: non-negative, summing to 1 over all
        // classes and transforms (which also keeps every class score
        // `Σ_j W_j λ_cj` at most 1, so no sum can overflow).
        let normalised = |w: &mut dyn Iterator<Item = &f64>| {
            let (mut sum, mut ok) = (0.0, true);
            for v in w {
                ok &= v.is_finite() && *v >= 0.0;
                sum += v;
            }
            ok && (sum - 1.0).abs() <= WEIGHT_SUM_TOL
        };
        if m.weights.len() != k
            || m.weights.iter().any(|r| r.len() != p)
            || !normalised(&mut m.weights.iter().flatten())
        {
            return bad(format!(
                "weights must be {k} rows (classes) of {p} (transforms) non-negative numbers \
                 summing to 1 (λ/Σλ)"
            ));
        }
        if let Some(draws) = &m.draws
            && (draws.is_empty()
                || draws
                    .iter()
                    .any(|r| r.len() != k * p || !normalised(&mut r.iter())))
        {
            return bad(format!(
                "draws must each hold {} non-negative numbers summing to 1 ({k} classes × {p} \
                 transforms)",
                k * p
            ));
        }
        let gamma_ok = |q: &Option<Vec<Vec<f64>>>| {
            q.as_ref().is_none_or(|rows| {
                rows.len() == k
                    && rows
                        .iter()
                        .all(|r| r.len() == p && r.iter().all(|v| v.is_finite() && *v > 0.0))
            })
        };
        if m.q_shape.is_some() != m.q_rate.is_some()
            || !gamma_ok(&m.q_shape)
            || !gamma_ok(&m.q_rate)
        {
            return bad(format!(
                "q_shape and q_rate come together, each {k} rows of {p} finite positive numbers"
            ));
        }
        if let Some(c) = &m.q_log_cov {
            let kp = k * p;
            let square = m.q_shape.is_some()
                && c.len() == kp
                && c.iter()
                    .all(|r| r.len() == kp && r.iter().all(|v| v.is_finite()));
            // Written symmetric to the bit; a hand edit must keep it so.
            let symmetric = square
                && (0..kp).all(|i| {
                    (0..i).all(|j| (c[i][j] - c[j][i]).abs() <= 1e-12 * (c[i][i] * c[j][j]).sqrt())
                });
            if !symmetric || m.log_cov().and_then(|c| Cholesky::new(&c)).is_none() {
                return bad(format!(
                    "q_log_cov must come with q_shape and q_rate and be a symmetric positive-definite \
                     {kp} × {kp} matrix (the covariance of ln λ, {k} classes × {p} transforms)"
                ));
            }
        }
        if !(m.a.is_finite() && m.a > 0.0 && m.b.is_finite() && m.b > 0.0) {
            return bad(format!(
                "a = {} and b = {} must be finite and positive",
                m.a, m.b
            ));
        }
        // VB predicts from draws of q: Gamma factors far outside anything a
        // fit produces can underflow every draw, so the draws themselves
        // are checked (2,000 draws of K p Gammas: milliseconds).
        if m.q_shape.is_some()
            && m.predictive_weights()
                .iter()
                .any(|w| !normalised(&mut w.iter()))
        {
            return bad(
                "q_shape and q_rate give Gamma draws that cannot be normalised (underflow)".into(),
            );
        }
        Ok(m)
    }

    /// The weight vectors predictions average over, each `K p` row-major
    /// normalised weights: the point (em), the kept draws (gibbs), 2,000
    /// draws from q (vb, seeded by the model's seed).
    pub fn predictive_weights(&self) -> Vec<Vec<f64>> {
        let (k, p) = (self.k(), self.p());
        match self.engine {
            Engine::Em => vec![self.weights.concat()],
            Engine::Gibbs => self
                .draws
                .clone()
                .unwrap_or_else(|| vec![self.weights.concat()]),
            Engine::Vb => match (&self.q_shape, &self.q_rate) {
                (Some(sh), Some(rt)) => {
                    let mut rng = stream(self.seed, &[0x5642_5052]);
                    (0..VB_PREDICTIVE_DRAWS)
                        .map(|_| {
                            let ln: Vec<f64> = (0..k * p)
                                .map(|q| {
                                    ln_gamma_draw(&mut rng, sh[q / p][q % p], rt[q / p][q % p])
                                })
                                .collect();
                            let t = crate::numerics::log_sum_exp(&ln);
                            ln.iter().map(|v| (v - t).exp()).collect()
                        })
                        .collect()
                }
                _ => vec![self.weights.concat()],
            },
        }
    }

    /// The draws the weights' intervals read, each `K p` row-major
    /// normalised weights: the kept draws (gibbs), the point (em), and for
    /// vb 2,000 draws of its linear-response posterior
    /// ([`super::linear_response::draws`], seeded by the model's seed) or,
    /// without that covariance, of its Gamma factors. Predictions keep
    /// reading [`Fitted::predictive_weights`]: on Iris, Wine and breast
    /// cancer the Gamma factors' predictive is as close to the Gibbs
    /// sampler's as the linear-response one or closer (docs/classify.md).
    pub fn interval_draws(&self) -> Vec<Vec<f64>> {
        if let (Engine::Vb, Some(cov), Some(sh), Some(rt)) =
            (self.engine, self.log_cov(), &self.q_shape, &self.q_rate)
        {
            let mut rng = stream(self.seed, &[0x4c52_4457]);
            if let Some(d) = super::linear_response::draws(
                &sh.concat(),
                &rt.concat(),
                &cov,
                VB_PREDICTIVE_DRAWS,
                &mut rng,
            ) {
                return d;
            }
        }
        self.predictive_weights()
    }

    /// `q_log_cov` as a matrix (rows as stored; a ragged file's missing
    /// entries NaN, which every factorisation refuses).
    fn log_cov(&self) -> Option<DMatrix<f64>> {
        let c = self.q_log_cov.as_ref()?;
        let m = c.len();
        Some(DMatrix::from_fn(m, m, |i, j| {
            c[i].get(j).copied().unwrap_or(f64::NAN)
        }))
    }

    /// Equal-tailed `level` intervals of the normalised weights, `(lower,
    /// upper)`, each `K × p` like [`Fitted::weights`], from
    /// [`Fitted::interval_draws`]; `None` for em (a point has none).
    pub fn weight_intervals(&self, level: f64) -> Option<WeightIntervals> {
        if self.engine == Engine::Em {
            return None;
        }
        let draws = self.interval_draws();
        let p = self.p();
        let mut lo = vec![vec![0.0; p]; self.k()];
        let mut hi = lo.clone();
        let mut col: Vec<f64> = Vec::with_capacity(draws.len());
        for q in 0..self.k() * p {
            col.clear();
            col.extend(draws.iter().map(|d| d[q]));
            (lo[q / p][q % p], hi[q / p][q % p]) = crate::stats::central_interval(&mut col, level);
        }
        Some((lo, hi))
    }

    /// Class probabilities of rows given as `log W` (posterior predictive
    /// for gibbs and vb, plug-in for em).
    pub fn predict_log_w(&self, rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let (k, p) = (self.k(), self.p());
        let weights = self.predictive_weights();
        rows.iter()
            .map(|lw| {
                let mx = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let w: Vec<f64> = lw.iter().map(|v| (v - mx).exp()).collect();
                let mut prob = vec![0.0; k];
                for lam in &weights {
                    let s: Vec<f64> = (0..k)
                        .map(|c| (0..p).map(|j| w[j] * lam[c * p + j]).sum::<f64>())
                        .collect();
                    let tot: f64 = s.iter().sum();
                    if tot > 0.0 {
                        prob.iter_mut().zip(&s).for_each(|(a, b)| *a += b / tot);
                    } else {
                        prob.iter_mut().for_each(|a| *a += 1.0 / k as f64);
                    }
                }
                prob.iter().map(|v| v / weights.len() as f64).collect()
            })
            .collect()
    }

    /// Class probabilities of the rows of a table (its feature columns are
    /// the model's, matched by name in any order).
    pub fn predict(&self, path: &str, t: &Table) -> Result<Vec<Vec<f64>>> {
        // Columns are matched by name, in any order.
        let t = t.aligned_to(path, &self.preprocess.features)?;
        let rows: Vec<Vec<f64>> =
            t.x.iter()
                .zip(&t.lines)
                .map(|(r, &line)| {
                    self.preprocess.log_w(r).ok_or_else(|| {
                        Error::input(
                            path,
                            Some(line),
                            "a feature lies more than 700 training sds from its mean",
                        )
                    })
                })
                .collect::<Result<_>>()?;
        Ok(self.predict_log_w(&rows))
    }
}

/// Settings of [`fit`]. Its [`Default`] is the one set of defaults the
/// CLI (`classify fit`, `classify cv`) and Python (`PLClassifier`) both
/// read: variational Bayes at the shape a = 1 (fast, with linear-response
/// weight intervals as wide as the sampler's, docs/classify.md), and for
/// `gibbs` 4 chains × 5,000 kept draws thinned by 2 after 5,000 burn-in
/// sweeps, which pass R̂ ≤ 1.01 and ESS ≥ 400 on the Iris, Wine and
/// breast-cancer examples.
#[derive(Clone)]
pub struct FitOptions {
    /// Engine.
    pub engine: Engine,
    /// Gamma shape; `None`: 1 for em, learnt for gibbs (p(a) ∝ 1/a,
    /// Metropolis) and vb (type-II maximum likelihood).
    pub a: Option<f64>,
    /// Gamma rate.
    pub b: f64,
    /// Add the pairwise transforms.
    pub pairwise: bool,
    /// Gibbs: kept draws per chain.
    pub samples: usize,
    /// Gibbs: burn-in sweeps.
    pub burn_in: usize,
    /// Gibbs: chains.
    pub chains: usize,
    /// Gibbs: keep every `thin`-th sweep after burn-in.
    pub thin: usize,
    /// Gibbs: total-mass move.
    pub rescale: bool,
    /// Seed.
    pub seed: u64,
    /// Gibbs: draws stored in the model file.
    pub keep_draws: usize,
    /// Told of progress (Gibbs sweeps, EM/VB iterations); may cancel.
    pub observer: Option<SharedObserver>,
    /// VB: the covariance of `ln λ` its weight intervals read: the
    /// linear-response correction (default) or the Gamma factors' own
    /// (Archambeau & Caron 2012's VB as stated). Means, free energy and
    /// predictions are the same either way.
    pub vb_covariance: VbCovariance,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            engine: Engine::Vb,
            a: Some(1.0),
            b: 1.0,
            pairwise: false,
            samples: 5000,
            burn_in: 5000,
            chains: 4,
            thin: 2,
            rescale: true,
            seed: 1,
            keep_draws: 1000,
            observer: None,
            vb_covariance: VbCovariance::LinearResponse,
        }
    }
}

/// The engine-specific details of a classifier fit: exactly one engine ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum EngineFit {
    /// EM for the MAP (Archambeau & Caron 2012 §3.2).
    Em(EmFit),
    /// Gibbs sampler (§3.3).
    Gibbs(GibbsFit),
    /// Variational Bayes (§3.4).
    Vb(VbFit),
}

/// A fit with its engine's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FitOutcome {
    /// The model (what `classify predict` reads back).
    pub model: Fitted,
    /// What the engine reports besides the model.
    pub engine: EngineFit,
    /// What the fit says about itself (VB: which covariance its intervals
    /// and predictions read, and why not the linear-response one).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The note every VB fit of the classifier carries: the mean-field
/// posterior's weight intervals are too narrow (docs/classify.md, "VB's
/// weight intervals": 95% intervals of the normalised weights a median
/// 0.44 (Iris) and 0.49 (Wine) times as wide as the Gibbs sampler's).
pub const VB_WEIGHT_INTERVALS_NOTE: &str = "vb: the weights' intervals are mean-field and too \
     narrow (95% intervals of the normalised weights about half as wide as the exact \
     posterior's: a median 0.44 on Iris, 0.49 on Wine against gibbs; docs/classify.md); \
     read weight intervals from gibbs";

/// The note a VB fit of the classifier with its linear-response covariance
/// carries (docs/classify.md, "VB's weight intervals").
pub const VB_LINEAR_RESPONSE_NOTE: &str = "vb: weight intervals from the linear-response \
     covariance of ln λ (Giordano, Broderick & Jordan 2015) about VB's means, as wide as the \
     exact posterior's (95% intervals a median 0.97 on Iris, 1.02 on Wine times gibbs'; the \
     Gamma factors' own are about half as wide); predictions average over the Gamma factors \
     (docs/classify.md)";

/// The note a VB fit with its linear-response covariance carries when the
/// Gamma shape `a` was learnt (docs/classify.md, "VB's weight
/// intervals"): held at its type-II estimate, very sparse, the intervals
/// stay too narrow.
pub const VB_LINEAR_RESPONSE_LEARNT_A_NOTE: &str = "vb: weight intervals from the \
     linear-response covariance of ln λ (Giordano, Broderick & Jordan 2015) with the learnt \
     shape a held at its estimate, and still too narrow (95% intervals a median 0.46 on Iris, \
     0.28 on Wine times those of gibbs with a sampled; the Gamma factors' own 0.36, 0.28); fix a \
     (--prior-shape 1, the default) or use gibbs where interval widths matter (docs/classify.md)";

/// What `classify fit` reports about a fit on labelled rows: the JSON
/// document of `--output json`, its notes, and every row's class
/// probabilities with its true class (a row of the model's weights).
#[derive(Debug, Clone)]
pub struct FitSummary {
    /// `engine`, `classes`, `n`, `features`, `transforms`, `a`, `b`,
    /// `weights`, `weight_intervals` (`{level, lower, upper}`, null for
    /// em), `training_misclassification`, `seconds`, the engine's own
    /// keys, `notes`.
    pub doc: serde_json::Value,
    /// Warnings (MCMC mixing).
    pub notes: Vec<String>,
    /// Class probabilities of every row, columns in the model's class order.
    pub probabilities: Vec<Vec<f64>>,
    /// Every row's class, as a row of the model.
    pub truth: Vec<usize>,
    /// 95% intervals of the normalised weights, `(lower, upper)`, each
    /// `K × p` ([`Fitted::weight_intervals`]); `None` for em.
    pub intervals: Option<WeightIntervals>,
}

impl FitOutcome {
    /// The document envelope ([`crate::document`]) of a fit on `n_rows`
    /// rows: Gibbs's `converged` is whether the normalised weights' worst
    /// split-R̂ and bulk ESS pass the thresholds; EM's and VB's, whether
    /// they met their tolerance before the iteration cap. Its notes are
    /// the fit's own ([`FitOutcome::summary`] adds the mixing warning).
    pub fn envelope(&self, n_rows: usize) -> crate::document::Envelope {
        use crate::document::{iterative_diagnostics, sampler_check};
        let (converged, iterations, diagnostics) = match &self.engine {
            EngineFit::Em(e) => (e.converged, e.iterations, iterative_diagnostics(None, None)),
            EngineFit::Vb(v) => (v.converged, v.iterations, iterative_diagnostics(None, None)),
            EngineFit::Gibbs(g) => {
                let (converged, diagnostics) = sampler_check(g.max_rhat(), g.min_ess());
                // Sweeps per chain, as every sampler reports them.
                let sweeps = if g.sweeps > 0 {
                    g.sweeps
                } else {
                    g.per_chain()
                };
                (converged, sweeps, diagnostics)
            }
        };
        crate::document::Envelope {
            family: crate::document::Family::Classifier,
            engine: self.model.engine.name().to_string(),
            converged,
            iterations,
            n_observations: n_rows,
            notes: self.notes.clone(),
            diagnostics,
        }
    }

    /// The summary of the fit scored on the labelled rows of `t` (`path`
    /// names it in messages): what `plackett classify fit` prints and its
    /// report shows. `seconds`: the fit's wall time, if measured.
    pub fn summary(&self, path: &str, t: &Table, seconds: Option<f64>) -> Result<FitSummary> {
        let model = &self.model;
        let labels = t
            .labels
            .as_ref()
            .ok_or_else(|| Error::input(path, Some(1), "no class column"))?;
        let truth: Vec<usize> = labels
            .iter()
            .zip(&t.lines)
            .map(|(l, &line)| {
                model.classes.iter().position(|c| c == l).ok_or_else(|| {
                    Error::input(
                        path,
                        Some(line),
                        format!("class {l:?} is not one of the model's classes"),
                    )
                })
            })
            .collect::<Result<_>>()?;
        let probabilities = model.predict(path, t)?;
        let wrong = probabilities
            .iter()
            .zip(&truth)
            .filter(|(p, y)| {
                (0..p.len())
                    .max_by(|&i, &j| p[i].total_cmp(&p[j]))
                    .unwrap_or(0)
                    != **y
            })
            .count();
        let n = t.x.len();
        let intervals = model.weight_intervals(WEIGHT_INTERVAL_LEVEL);
        let mut doc = serde_json::json!({
            "engine": model.engine.name(),
            "classes": model.classes,
            "n": n,
            "features": model.preprocess.features,
            "transforms": model.transforms,
            "a": model.a,
            "b": model.b,
            "weights": model.weights,
            "weight_intervals": intervals.as_ref().map(|(lo, hi)| serde_json::json!({
                "level": WEIGHT_INTERVAL_LEVEL,
                "lower": lo,
                "upper": hi,
            })),
            "training_misclassification": wrong as f64 / n as f64,
            "seconds": seconds,
        });
        let o = doc.as_object_mut().expect("object");
        match &self.engine {
            EngineFit::Em(e) => {
                o.insert("iterations".into(), serde_json::json!(e.iterations));
                o.insert("converged".into(), serde_json::json!(e.converged));
                o.insert("zeros".into(), serde_json::json!(e.zeros()));
                o.insert(
                    "log_posterior".into(),
                    serde_json::json!(e.objective.last()),
                );
            }
            EngineFit::Gibbs(g) => {
                o.insert("min_ess".into(), serde_json::json!(g.min_ess()));
                o.insert("min_ess_geyer".into(), serde_json::json!(g.min_ess_geyer()));
                o.insert("max_rhat".into(), serde_json::json!(g.max_rhat()));
                o.insert("a_acceptance".into(), serde_json::json!(g.a_acceptance));
                o.insert(
                    "draws".into(),
                    serde_json::json!(g.per_chain() * g.draws.len()),
                );
            }
            EngineFit::Vb(v) => {
                let cov = if model.q_log_cov.is_some() {
                    VbCovariance::LinearResponse
                } else {
                    VbCovariance::MeanField
                };
                o.insert("covariance".into(), serde_json::json!(cov.name()));
                o.insert("iterations".into(), serde_json::json!(v.iterations));
                o.insert("converged".into(), serde_json::json!(v.converged));
                o.insert(
                    "free_energy".into(),
                    serde_json::json!(v.free_energy.last()),
                );
            }
        }
        let mut notes: Vec<String> = Vec::new();
        if let Some(g) = self.gibbs()
            && (g.max_rhat() > 1.01 || g.min_ess() < 400.0)
        {
            notes.push(format!(
                "MCMC warning: max split-R̂ {:.3}, min bulk ESS {:.0} over the normalised weights; predictive probabilities mix much faster than individual weights, but run longer chains (or fix the Gamma shape a) before reading single weights",
                g.max_rhat(),
                g.min_ess()
            ));
        }
        notes.extend(self.notes.iter().cloned());
        o.insert("notes".into(), serde_json::json!(notes));
        let mut env = self.envelope(n);
        env.notes = notes.clone();
        let doc = env.wrap(&doc);
        Ok(FitSummary {
            doc,
            notes,
            probabilities,
            truth,
            intervals,
        })
    }

    /// The Gibbs details, if the Gibbs sampler ran.
    pub fn gibbs(&self) -> Option<&GibbsFit> {
        match &self.engine {
            EngineFit::Gibbs(g) => Some(g),
            _ => None,
        }
    }
}

/// Fit on the rows `rows` of a table with class labels.
pub fn fit(
    path: &str,
    class_col: &str,
    t: &Table,
    rows: &[usize],
    opts: &FitOptions,
) -> Result<FitOutcome> {
    let labels = t
        .labels
        .as_ref()
        .ok_or_else(|| Error::input(path, Some(1), "no class column"))?;
    let (classes, _) = encode_classes(labels);
    if classes.len() < 2 {
        return Err(Error::input(
            path,
            None,
            format!("only one class ({:?}): nothing to classify", classes[0]),
        ));
    }
    let (pre, data) = training_data(path, t, rows, &classes, opts.pairwise)?;
    if let Some(c) = data.counts().iter().position(|&c| c == 0) {
        return Err(Error::input(
            path,
            None,
            format!("class {:?} has no training rows", classes[c]),
        ));
    }
    let (k, p) = (data.k, data.p);
    let rows_of = |v: &[f64]| -> Vec<Vec<f64>> { v.chunks(p).map(|c| c.to_vec()).collect() };
    let normalise = |v: &[f64]| -> Vec<f64> {
        let s: f64 = v.iter().sum();
        v.iter().map(|x| x / s).collect()
    };
    let mut model = Fitted {
        format: MODEL_FORMAT.into(),
        engine: opts.engine,
        classes,
        class_col: class_col.to_string(),
        transforms: pre.names(),
        preprocess: pre,
        a: opts.a.unwrap_or(1.0),
        b: opts.b,
        weights: Vec::new(),
        draws: None,
        q_shape: None,
        q_rate: None,
        q_log_cov: None,
        seed: opts.seed,
    };
    let mut notes = Vec::new();
    let engine = match opts.engine {
        Engine::Em => {
            let f = em(
                &data,
                &EmOptions {
                    a: opts.a.unwrap_or(1.0),
                    b: opts.b,
                    observer: opts.observer.clone(),
                    ..Default::default()
                },
                None,
            )?;
            model.weights = rows_of(&normalise(&f.lambda));
            EngineFit::Em(f)
        }
        Engine::Gibbs => {
            let f = gibbs(
                &data,
                &ClassifierGibbsOptions {
                    a: match opts.a {
                        Some(a) => Shape::Fixed(a),
                        None => Shape::Sampled(1.0),
                    },
                    b: opts.b,
                    mcmc: McmcSettings {
                        thin: opts.thin,
                        ..McmcSettings::new(opts.samples, opts.burn_in, opts.chains, opts.seed)
                    },
                    rescale: opts.rescale,
                    observer: opts.observer.clone(),
                },
            )?;
            model.weights = rows_of(&f.mean());
            let all: Vec<&[f64]> = f.draws.iter().flat_map(|c| c.chunks(k * p)).collect();
            let step = all.len().div_ceil(opts.keep_draws.max(1)).max(1);
            model.draws = Some(all.iter().step_by(step).map(|d| d.to_vec()).collect());
            if opts.a.is_none() {
                let ad: Vec<f64> = f.a_draws.concat();
                model.a = ad.iter().sum::<f64>() / ad.len().max(1) as f64;
            }
            EngineFit::Gibbs(f)
        }
        Engine::Vb => {
            let f = vb(
                &data,
                &ClassifierVbOptions {
                    a: opts.a.unwrap_or(1.0),
                    b: opts.b,
                    learn_a: opts.a.is_none(),
                    observer: opts.observer.clone(),
                    ..Default::default()
                },
            )?;
            model.weights = rows_of(&f.normalised_mean());
            model.q_shape = Some(rows_of(&f.shape));
            model.q_rate = Some(rows_of(&f.rate));
            model.a = f.a;
            match opts.vb_covariance {
                VbCovariance::MeanField => notes.push(VB_WEIGHT_INTERVALS_NOTE.to_string()),
                VbCovariance::LinearResponse => {
                    match super::linear_response::linear_response_covariance(&data, &f) {
                        Ok(c) => {
                            model.q_log_cov =
                                Some(c.row_iter().map(|r| r.iter().copied().collect()).collect());
                            notes.push(if opts.a.is_none() {
                                VB_LINEAR_RESPONSE_LEARNT_A_NOTE.to_string()
                            } else {
                                VB_LINEAR_RESPONSE_NOTE.to_string()
                            });
                        }
                        Err(why) => notes.push(format!(
                            "{VB_WEIGHT_INTERVALS_NOTE} (no linear-response covariance: {why})"
                        )),
                    }
                }
            }
            EngineFit::Vb(f)
        }
    };
    Ok(FitOutcome {
        model,
        engine,
        notes,
    })
}
