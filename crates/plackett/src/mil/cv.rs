//! Repeated k-fold cross-validation of bag classification (bag AUROC, the
//! metric of Hu 2024, §2.3–2.4), and the one entry point that fits either
//! engine into a [`MilModel`].

use super::bags::Bags;
use super::baselines::{Baseline, fit_baseline};
use super::gibbs::{MilGibbsOptions, fit_gibbs};
use super::linear_response::VbCovariance;
use super::model::MilModel;
use super::params::MilPriors;
use super::vb::{VbOptions, fit_vb, fit_vb_mixture};
use crate::error::{Error, Result};
use crate::eval::calibration::{calibration, most_probable};
use crate::eval::metrics::auc;
use crate::sampling::rng::stream;
use rand::RngExt;
use rayon::prelude::*;

/// An engine with its settings.
#[derive(Debug, Clone)]
pub enum MilEngine {
    /// vMMIC (variational).
    Vb(VbOptions),
    /// The Gibbs sampler.
    Gibbs(MilGibbsOptions),
}

impl MilEngine {
    /// Tell `observer` of the engine's sweeps (it may cancel the fit).
    pub fn observe(&mut self, observer: Option<crate::observer::SharedObserver>) {
        match self {
            MilEngine::Vb(o) => o.observer = observer,
            MilEngine::Gibbs(o) => o.observer = observer,
        }
    }
}

/// Both engines' settings as one flat set (the command line's and
/// Python's options): priors, VB's stopping rule and starts, the
/// sampler's draws; one seed.
#[derive(Debug, Clone, Copy)]
pub struct MilEngineSettings {
    /// Priors (checked by [`MilEngineSettings::vb`] and `gibbs`).
    pub priors: MilPriors,
    /// VB: stopping tolerance.
    pub tol: f64,
    /// VB: sweep cap.
    pub max_iter: usize,
    /// VB: random starts.
    pub starts: usize,
    /// VB: predict from the equal-weight mixture of every start's optimum
    /// ([`VbOptions::mixture`]).
    pub mixture: bool,
    /// VB: where the first start is.
    pub vb_start: super::vb::VbStart,
    /// VB: mean-field or linear-response covariance of the instance level.
    pub covariance: super::linear_response::VbCovariance,
    /// Gibbs: where the chains start.
    pub gibbs_start: super::gibbs::GibbsStart,
    /// Gibbs: draws, burn-in, thinning, chains, and the seed of both.
    pub mcmc: crate::sampling::mcmc::McmcSettings,
    /// Gibbs: parallel tempering of the bag labels (one rung: none).
    pub tempering: super::gibbs::Tempering,
}

/// The defaults of `mil fit`, `mil cv`, `mil study` and their Python
/// functions: vMMIC's own (`VbOptions::default()`: tolerance 1e-4, at most
/// 5,000 sweeps, one start from the marginal fits, linear-response
/// covariance) and the sampler's (4 chains × 1,000 draws after 1,000
/// burn-in, unthinned, untempered), seed 1.
impl Default for MilEngineSettings {
    fn default() -> Self {
        let vb = VbOptions::default();
        MilEngineSettings {
            priors: vb.priors,
            tol: vb.tol,
            max_iter: vb.max_iter,
            starts: vb.starts,
            mixture: vb.mixture,
            vb_start: vb.start,
            covariance: vb.covariance,
            gibbs_start: Default::default(),
            mcmc: crate::sampling::mcmc::McmcSettings {
                samples: 1000,
                burn_in: 1000,
                thin: 1,
                chains: 4,
                seed: vb.seed,
            },
            tempering: Default::default(),
        }
    }
}

impl MilEngineSettings {
    /// vMMIC's options.
    pub fn vb(&self) -> Result<VbOptions> {
        Ok(VbOptions {
            priors: self.priors.check()?,
            tol: self.tol,
            max_iter: self.max_iter,
            starts: self.starts,
            mixture: self.mixture,
            seed: self.mcmc.seed,
            init: None,
            start: self.vb_start,
            observer: None,
            covariance: self.covariance,
        })
    }

    /// The Gibbs sampler's options.
    pub fn gibbs(&self) -> Result<MilGibbsOptions> {
        Ok(MilGibbsOptions {
            priors: self.priors.check()?,
            mcmc: self.mcmc.check()?,
            observer: None,
            init: None,
            start: self.gibbs_start,
            tempering: self.tempering.check()?,
        })
    }

    /// The engine `name`: `vb` or `gibbs`.
    pub fn engine(&self, name: &str) -> Result<MilEngine> {
        match name {
            "vb" => Ok(MilEngine::Vb(self.vb()?)),
            "gibbs" => Ok(MilEngine::Gibbs(self.gibbs()?)),
            other => Err(Error::param(
                "engine",
                format!(
                    "expected \"vb\" or \"gibbs\", got {:?}",
                    crate::io::output::short_name(other, 40)
                ),
            )),
        }
    }
}

/// What a fit returns besides the model: convergence facts for reports.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct MilFitInfo {
    /// `vb` or `gibbs`.
    pub engine: String,
    /// VB: sweeps (map evaluations) run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<usize>,
    /// VB: whether the stopping rule held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub converged: Option<bool>,
    /// VB: the final ELBO.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elbo: Option<f64>,
    /// VB: where coordinate ascent started (`init`, `marginal`, `prior`,
    /// `moments`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vb_start: Option<String>,
    /// VB mixture ([`VbOptions::mixture`]): every component's final ELBO,
    /// the first start's first; `iterations` then counts every
    /// component's sweeps, `converged` holds if each converged, and
    /// `elbo` is the first component's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixture_elbos: Option<Vec<f64>>,
    /// VB: the covariance reported and predicted with, `linear-response`
    /// (the instance level corrected) or `mean-field`
    /// ([`VbOptions::covariance`]); absent for Gibbs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covariance: Option<String>,
    /// VB with the linear-response covariance: modalities whose correction
    /// was not positive definite and kept their mean-field covariance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mean_field_kept: Vec<u8>,
    /// Gibbs: where the chains started (`init`, `marginal`, `dispersed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gibbs_start: Option<String>,
    /// Gibbs: sweeps per chain (burn-in and kept, thinning included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweeps: Option<usize>,
    /// Gibbs: the largest split-R̂ over θ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rhat: Option<f64>,
    /// Gibbs: the smallest bulk ESS over θ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_ess: Option<f64>,
    /// Gibbs with tempering: the rungs per chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperatures: Option<usize>,
    /// Gibbs with tempering: per adjacent pair of rungs, coldest first,
    /// the share of swaps accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swap_acceptance: Option<Vec<f64>>,
    /// Gibbs with tempering: every rung's τ on the final ladder, coldest
    /// (1) first (geometric, or re-spaced during the burn-in when
    /// [`super::Tempering::adapt`] is set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ladder: Option<Vec<f64>>,
    /// Gibbs with tempering: the estimated communication barrier Λ (Syed
    /// et al. 2022); about 2Λ rungs carry states across the ladder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barrier: Option<f64>,
    /// Per training instance: posterior probability of being primary
    /// given the labels.
    pub primary: Vec<f64>,
}

/// What is done to the features before a fit: fitted on the training bags
/// only, kept in the model file and applied to new bags alike.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Preprocess {
    /// Nothing.
    #[default]
    None,
    /// Z-scores (`--standardise`): the coefficients are then per training
    /// sd; the instance probabilities are unaffected.
    Standardise,
    /// Z-scores, then each modality's leading `k` principal components,
    /// whitened (`--components k`; [`super::components`]): what mean-field
    /// vMMIC needs on wide features.
    Components(usize),
}

impl Preprocess {
    /// From the front ends' two options: `components` wins (it z-scores
    /// first anyway).
    pub fn from_options(standardise: bool, components: Option<usize>) -> Preprocess {
        match (components, standardise) {
            (Some(k), _) => Preprocess::Components(k),
            (None, true) => Preprocess::Standardise,
            (None, false) => Preprocess::None,
        }
    }
}

/// A fitted [`Preprocess`].
enum Transform {
    Scale(super::bags::Scaling),
    Project(super::components::Components),
}

impl Transform {
    fn fit(train: &Bags, prep: Preprocess) -> Result<Option<Transform>> {
        Ok(match prep {
            Preprocess::None => None,
            Preprocess::Standardise => Some(Transform::Scale(train.scaling())),
            Preprocess::Components(k) => Some(Transform::Project(
                super::components::Components::fit(train, k)?,
            )),
        })
    }

    fn apply(&self, bags: &Bags) -> Result<Bags> {
        match self {
            Transform::Scale(s) => bags.scaled(s),
            Transform::Project(c) => c.apply(bags),
        }
    }
}

/// Fit `bags` with `engine` after the preprocessing `prep`, which the model
/// keeps and applies to new bags.
pub fn fit_model_with(
    bags: &Bags,
    engine: &MilEngine,
    prep: Preprocess,
) -> Result<(MilModel, MilFitInfo)> {
    let Some(t) = Transform::fit(bags, prep)? else {
        return fit_model(bags, engine);
    };
    let (mut model, info) = fit_model(&t.apply(bags)?, engine)?;
    match t {
        Transform::Scale(s) => model.scaling = Some(s),
        Transform::Project(c) => model.components = Some(c),
    }
    Ok((model, info))
}

/// [`fit_model_with`] started at `start`'s coefficient means instead of
/// the engine's own start (a warm start): vMMIC's coordinate ascent from
/// there ([`VbOptions::init`]), or every Gibbs chain jittered around it
/// ([`MilGibbsOptions::init`]). The posterior is multimodal in the
/// primary-instance configuration and neither engine crosses between
/// configurations readily, so an earlier fit (e.g. the sampler's mean for
/// vMMIC, or vMMIC's for the sampler) decides which one is described
/// (docs/mil.md). `start` must read the same features (`path` names the
/// bags in errors) with the same kind of preprocessing.
pub fn fit_model_warm(
    bags: &Bags,
    engine: &MilEngine,
    prep: Preprocess,
    start: &MilModel,
    path: &str,
) -> Result<(MilModel, MilFitInfo)> {
    start.check_bags(bags, path)?;
    // Only the kind matters: a start is a start, but one in other units
    // (raw against z-scores or components) is a user's mistake.
    let this = match prep {
        Preprocess::None => "no preprocessing",
        Preprocess::Standardise => "`standardize`",
        Preprocess::Components(_) => "`components`",
    };
    let had = match (&start.components, &start.scaling) {
        (Some(_), _) => "`components`",
        (None, Some(_)) => "`standardize`",
        (None, None) => "no preprocessing",
    };
    if had != this {
        return Err(Error::param(
            "init",
            format!(
                "the starting model was fitted with {had}, this fit uses {this}: its coefficients are in other units"
            ),
        ));
    }
    let warm = match engine {
        MilEngine::Vb(o) => MilEngine::Vb(VbOptions {
            init: Some(start.mean()),
            ..o.clone()
        }),
        MilEngine::Gibbs(o) => MilEngine::Gibbs(MilGibbsOptions {
            init: Some(start.mean()),
            ..o.clone()
        }),
    };
    fit_model_with(bags, &warm, prep)
}

impl MilFitInfo {
    /// Whether every modality's instance-level covariance is the
    /// linear-response correction (none kept mean-field): what the notes
    /// and the report say about which intervals are still too narrow.
    pub fn instance_level_corrected(&self) -> bool {
        self.covariance.as_deref() == Some(VbCovariance::LinearResponse.name())
            && self.mean_field_kept.is_empty()
    }

    /// The facts of a VB fit: one optimum, or every component of a
    /// mixture (`mixture`; sweeps summed, converged if each did, the first
    /// component's ELBO and start, the training instances' probabilities
    /// averaged).
    fn vb(fits: &[super::VbFit], mixture: bool) -> MilFitInfo {
        let first = &fits[0];
        let k = fits.len() as f64;
        MilFitInfo {
            engine: "vb".into(),
            iterations: Some(fits.iter().map(|f| f.iterations).sum()),
            converged: Some(fits.iter().all(|f| f.converged)),
            elbo: first.elbo.last().copied(),
            vb_start: Some(first.started_from.to_string()),
            mixture_elbos: mixture.then(|| first.start_elbos.clone()),
            covariance: None,
            mean_field_kept: Vec::new(),
            gibbs_start: None,
            sweeps: None,
            max_rhat: None,
            min_ess: None,
            temperatures: None,
            swap_acceptance: None,
            ladder: None,
            barrier: None,
            primary: (0..first.primary.len())
                .map(|j| fits.iter().map(|f| f.primary[j]).sum::<f64>() / k)
                .collect(),
        }
    }
}

/// Fit `bags` with `engine`.
pub fn fit_model(bags: &Bags, engine: &MilEngine) -> Result<(MilModel, MilFitInfo)> {
    // Dense matrices over the features, asked for before the fit: vMMIC's
    // per-modality covariance blocks (a few d × d), the sampler's
    // regression precision and its factor (p × p, p = 3 + 2(d⁰ + d¹)).
    let [d0, d1] = [0, 1].map(|k| bags.feature_names[k].len() as u128);
    let p = 3 + 2 * (d0 + d1);
    let (bytes, held) = match engine {
        MilEngine::Vb(_) => (32 * (d0 * d0 + d1 * d1), "vMMIC's covariance blocks"),
        MilEngine::Gibbs(_) => (24 * p * p, "the sampler's regression precision"),
    };
    crate::numerics::memory::ensure(
        bytes,
        "components",
        &format!("{held} over {d0} + {d1} features"),
        "reduce the features first (`components=K` keeps K principal components per \
         modality) or select fewer columns",
    )?;
    match engine {
        MilEngine::Vb(o) => {
            let fits = if o.mixture {
                fit_vb_mixture(bags, o)?
            } else {
                vec![fit_vb(bags, o)?]
            };
            let mut info = MilFitInfo::vb(&fits, o.mixture);
            info.covariance = Some(o.covariance.name().into());
            let fits = match o.covariance {
                VbCovariance::MeanField => fits,
                VbCovariance::LinearResponse => {
                    let mut kept = Vec::new();
                    let fits = fits
                        .iter()
                        .map(|f| {
                            let (g, k) = super::linear_response::apply(f, bags, o.priors);
                            kept.extend(k);
                            g
                        })
                        .collect();
                    kept.sort_unstable();
                    kept.dedup();
                    info.mean_field_kept = kept;
                    fits
                }
            };
            let mut model = if o.mixture {
                MilModel::from_vb_mixture(&fits, bags, o.priors)
            } else {
                MilModel::from_vb(&fits[0], bags, o.priors)
            };
            model.covariance = info.covariance.clone();
            model.mean_field_kept = info.mean_field_kept.clone();
            Ok((model, info))
        }
        MilEngine::Gibbs(o) => {
            let f = fit_gibbs(bags, o)?;
            let tempered = f.temperatures.len() > 1;
            let info = MilFitInfo {
                engine: "gibbs".into(),
                gibbs_start: Some(f.started_from.to_string()),
                sweeps: Some(o.mcmc.burn_in + o.mcmc.samples * o.mcmc.thin),
                max_rhat: Some(
                    f.diagnostics
                        .iter()
                        .map(|d| d.rhat)
                        .fold(f64::NAN, f64::max),
                ),
                min_ess: Some(
                    f.diagnostics
                        .iter()
                        .map(|d| d.ess_bulk)
                        .fold(f64::NAN, f64::min),
                ),
                // The final ladder's length: an automatic count may have
                // moved away from `o.tempering.rungs`.
                temperatures: tempered.then_some(f.temperatures.len()),
                swap_acceptance: tempered.then(|| f.swap_acceptance.clone()),
                ladder: tempered.then(|| f.temperatures.clone()),
                barrier: f.barrier,
                primary: f.primary.clone(),
                ..Default::default()
            };
            Ok((MilModel::from_gibbs(&f, bags, o.priors), info))
        }
    }
}

/// Baselines in cross-validation stop when their objective changes by less
/// than this, relatively (MILR's EM crawls on wide data such as Musk's 166
/// features; scores settle long before).
pub(crate) const BASELINE_TOL: f64 = 1e-7;
/// and after at most this many EM iterations / Newton steps.
pub(crate) const BASELINE_MAX_ITER: usize = 300;

/// A method `cross_validate` compares: one of the model's engines or a
/// baseline.
#[derive(Debug, Clone)]
pub enum MilMethod {
    /// vMMIC or its Gibbs sampler.
    Model(MilEngine),
    /// MILR or single-instance logistic regression
    /// ([`crate::mil::baselines`]), penalised by these priors.
    Baseline(Baseline, MilPriors),
}

impl MilMethod {
    /// Tell `observer` of the model's sweeps (the baselines are quick).
    pub fn observe(&mut self, observer: Option<crate::observer::SharedObserver>) {
        if let MilMethod::Model(e) = self {
            e.observe(observer);
        }
    }

    /// The method's name in tables (`vmmic`, `gibbs`, `milr`, `si-mean`,
    /// `si-max`).
    pub fn name(&self) -> &'static str {
        match self {
            MilMethod::Model(MilEngine::Vb(_)) => "vmmic",
            MilMethod::Model(MilEngine::Gibbs(_)) => "gibbs",
            MilMethod::Baseline(b, _) => b.name(),
        }
    }

    /// Fit on `train`, score `test` (posterior predictive probabilities
    /// for the model, the baseline's bag scores otherwise).
    fn fit_score(
        &self,
        train: &Bags,
        test: &Bags,
        prep: Preprocess,
        draws: usize,
        seed: u64,
    ) -> Result<Vec<f64>> {
        match self {
            MilMethod::Model(engine) => {
                let (model, _) = fit_model_with(train, engine, prep)?;
                Ok(model
                    .predict(test, draws, seed)?
                    .into_iter()
                    .map(|b| b.p)
                    .collect())
            }
            MilMethod::Baseline(b, priors) => match Transform::fit(train, prep)? {
                Some(t) => fit_baseline(
                    &t.apply(train)?,
                    *b,
                    priors,
                    BASELINE_TOL,
                    BASELINE_MAX_ITER,
                )?
                .bag_scores(&t.apply(test)?),
                None => fit_baseline(train, *b, priors, BASELINE_TOL, BASELINE_MAX_ITER)?
                    .bag_scores(test),
            },
        }
    }
}

/// Result of [`cross_validate`] for one method.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MilCv {
    /// The method (`vmmic`, `gibbs`, `milr`, `si-mean`, `si-max`).
    pub method: String,
    /// Folds per repeat.
    pub folds: usize,
    /// Bag AUROC of each repeat (held-out predictions of all folds pooled).
    pub auroc: Vec<f64>,
    /// Accuracy at 0.5 of each repeat.
    pub accuracy: Vec<f64>,
    /// Mean AUROC over repeats.
    pub mean_auroc: f64,
    /// Sd of the AUROC over repeats (`None`, JSON null, with one repeat).
    pub sd_auroc: Option<f64>,
    /// Calibration of the held-out probabilities, every repeat's pooled
    /// (each bag as the two-class prediction `[1 − p, p]`: its Brier score
    /// sums both classes, twice `mean (p − y)²`; `accuracy` is the mean of
    /// [`MilCv::accuracy`]). The baselines' scores are probabilities too.
    pub calibration: Option<crate::eval::calibration::Calibration>,
    /// Per repeat, every bag's held-out score (P(label = 1) for the model),
    /// in the order of the bags: what the report's curves are drawn from.
    /// Not in the document (`mil cv --output json` stays one line per
    /// number of interest).
    #[serde(skip)]
    pub scores: Vec<Vec<f64>>,
}

/// Repeated `folds`-fold cross-validation of one engine (see
/// [`cross_validate_methods`]).
pub fn cross_validate(
    bags: &Bags,
    engine: &MilEngine,
    folds: usize,
    repeats: usize,
    predict_draws: usize,
    seed: u64,
) -> Result<MilCv> {
    let mut out = cross_validate_methods(
        bags,
        &[MilMethod::Model(engine.clone())],
        Preprocess::None,
        folds,
        repeats,
        predict_draws,
        seed,
        None,
    )?;
    Ok(out.remove(0))
}

/// The document `plackett mil cv --output json` prints (and Python's
/// `mil_cv(...).to_json()`): the engine's name (`vb` or `gibbs`), the
/// model's own result under `"cv"` and every method's, the model first,
/// under `"methods"`.
pub fn cv_document(engine: &str, cvs: &[MilCv]) -> serde_json::Value {
    serde_json::json!({"engine": engine, "cv": cvs.first(), "methods": cvs})
}

/// Repeated `folds`-fold cross-validation of several methods on the same
/// folds (bags shuffled by `seed` and the repeat, folds stratified by
/// label); a method's AUROC pools the held-out scores of all folds of a
/// repeat. The preprocessing `prep` is fitted on each training fold and
/// applied to it and to its held-out fold. `observer` is told of every
/// finished (repeat, fold, method) fit (progress bars) and may cancel.
#[allow(clippy::too_many_arguments)]
pub fn cross_validate_methods(
    bags: &Bags,
    methods: &[MilMethod],
    prep: Preprocess,
    folds: usize,
    repeats: usize,
    predict_draws: usize,
    seed: u64,
    observer: Option<&crate::observer::SharedObserver>,
) -> Result<Vec<MilCv>> {
    let y = bags.training_labels("data")?;
    if folds < 2 || folds > bags.n_bags() {
        return Err(Error::param(
            "folds",
            format!("between 2 and the number of bags ({})", bags.n_bags()),
        ));
    }
    if repeats == 0 || repeats > 1000 {
        return Err(Error::param("repeats", "between 1 and 1000"));
    }
    if methods.is_empty() {
        return Err(Error::param("methods", "need at least one"));
    }
    let mut aurocs = vec![Vec::new(); methods.len()];
    let mut accs = vec![Vec::new(); methods.len()];
    let mut held_out: Vec<Vec<Vec<f64>>> = vec![Vec::new(); methods.len()];
    for r in 0..repeats {
        let mut rng = stream(seed, &[0x4d49_4c43, r as u64]);
        // Stratified: shuffle each class, deal round-robin into folds.
        let mut fold_of = vec![0usize; bags.n_bags()];
        let mut next = 0;
        for class in [false, true] {
            let mut idx: Vec<usize> = (0..bags.n_bags()).filter(|&i| y[i] == class).collect();
            for k in (1..idx.len()).rev() {
                let j = rng.random_range(0..=k);
                idx.swap(k, j);
            }
            for i in idx {
                fold_of[i] = next % folds;
                next += 1;
            }
        }
        let mut p = vec![vec![0.0; bags.n_bags()]; methods.len()];
        // Every (fold, method) fit of a repeat in parallel: each is seeded
        // by its repeat and fold alone, so the scores do not depend on the
        // thread count; the first error in (fold, method) order is the one
        // reported (a failing fit does not stop the others, so that this is
        // the same error on any number of threads). A job builds its own
        // training and test subsets, so that memory grows with the threads,
        // not with the folds; once the observer cancels, the jobs not yet
        // started return at once.
        let tests: Vec<Vec<usize>> = (0..folds)
            .map(|f| (0..bags.n_bags()).filter(|&i| fold_of[i] == f).collect())
            .collect();
        let jobs: Vec<(usize, usize)> = (0..folds)
            .flat_map(|f| (0..methods.len()).map(move |k| (f, k)))
            .collect();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let scores: Vec<Result<Vec<f64>>> = jobs
            .par_iter()
            .map(|&(f, k)| {
                use std::sync::atomic::Ordering::Relaxed;
                if stop.load(Relaxed) {
                    return Err(Error::Cancelled);
                }
                let run = || -> Result<Vec<f64>> {
                    crate::observer::advance(observer, 0)?;
                    let train: Vec<usize> =
                        (0..bags.n_bags()).filter(|&i| fold_of[i] != f).collect();
                    let (tr, te) = (bags.subset(&train), bags.subset(&tests[f]));
                    let s = methods[k].fit_score(
                        &tr,
                        &te,
                        prep,
                        predict_draws,
                        seed ^ (r * folds + f) as u64,
                    )?;
                    crate::observer::advance(observer, 1)?;
                    Ok(s)
                };
                let out = run();
                if matches!(out, Err(Error::Cancelled)) {
                    stop.store(true, Relaxed);
                }
                out
            })
            .collect();
        // The first failure in job order, else a cancellation.
        let mut done = Vec::with_capacity(jobs.len());
        let (mut failure, mut cancelled) = (None, false);
        for s in scores {
            match s {
                Ok(v) => done.push(v),
                Err(Error::Cancelled) => cancelled = true,
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        if cancelled {
            return Err(Error::Cancelled);
        }
        for (&(f, k), s) in jobs.iter().zip(done) {
            for (i, s) in tests[f].iter().zip(s) {
                p[k][*i] = s;
            }
        }
        for k in 0..methods.len() {
            aurocs[k].push(auc(&p[k], &y));
            // The predicted label is the more probable one (of two equal,
            // the positive: `most_probable`'s rule, so that this accuracy
            // and the calibration's agree).
            accs[k].push(
                p[k].iter()
                    .zip(&y)
                    .filter(|&(&p, &y)| (most_probable(&[1.0 - p, p]) == 1) == y)
                    .count() as f64
                    / y.len() as f64,
            );
        }
        for (k, pk) in p.into_iter().enumerate() {
            held_out[k].push(pk);
        }
    }
    Ok(methods
        .iter()
        .zip(aurocs.into_iter().zip(accs).zip(held_out))
        .map(|(m, ((auroc, accuracy), scores))| {
            let (mean_auroc, sd_auroc) = crate::stats::mean_sd_of_repeats(&auroc);
            let rows: Vec<([f64; 2], usize)> = scores
                .iter()
                .flat_map(|rep| {
                    rep.iter()
                        .zip(&y)
                        .map(|(&p, &t)| ([1.0 - p, p], usize::from(t)))
                })
                .collect();
            let calibration = calibration(rows.iter().map(|(p, t)| (&p[..], *t)));
            MilCv {
                calibration,
                method: m.name().to_string(),
                folds,
                auroc,
                accuracy,
                mean_auroc,
                sd_auroc,
                scores,
            }
        })
        .collect())
}
