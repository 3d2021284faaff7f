//! Repeated k-fold cross-validation of bag classification (bag AUROC, the
//! metric of Hu 2024, §2.3–2.4), and the one entry point that fits either
//! engine into a [`MilModel`].

use super::bags::Bags;
use super::gibbs::{MilGibbsOptions, fit_gibbs};
use super::model::MilModel;
use super::vb::{VbOptions, fit_vb};
use crate::error::{Error, Result};
use crate::eval::metrics::auc;
use crate::infer::rng::stream;
use rand::RngExt;

/// An engine with its settings.
#[derive(Debug, Clone)]
pub enum MilEngine {
    /// vMMIC (variational).
    Vb(VbOptions),
    /// The Gibbs sampler.
    Gibbs(MilGibbsOptions),
}

/// What a fit returns besides the model: convergence facts for reports.
#[derive(Debug, Clone, serde::Serialize)]
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
    /// Gibbs: the largest split-R̂ over θ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rhat: Option<f64>,
    /// Gibbs: the smallest bulk ESS over θ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_ess: Option<f64>,
    /// Per training instance: posterior probability of being primary
    /// given the labels.
    pub primary: Vec<f64>,
}

/// Fit `bags` with `engine`.
pub fn fit_model(bags: &Bags, engine: &MilEngine) -> Result<(MilModel, MilFitInfo)> {
    match engine {
        MilEngine::Vb(o) => {
            let f = fit_vb(bags, o)?;
            let info = MilFitInfo {
                engine: "vb".into(),
                iterations: Some(f.iterations),
                converged: Some(f.converged),
                elbo: f.elbo.last().copied(),
                max_rhat: None,
                min_ess: None,
                primary: f.primary.clone(),
            };
            Ok((MilModel::from_vb(&f, bags, o.priors), info))
        }
        MilEngine::Gibbs(o) => {
            let f = fit_gibbs(bags, o)?;
            let info = MilFitInfo {
                engine: "gibbs".into(),
                iterations: None,
                converged: None,
                elbo: None,
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
                primary: f.primary.clone(),
            };
            Ok((MilModel::from_gibbs(&f, bags, o.priors), info))
        }
    }
}

/// Result of [`cross_validate`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct MilCv {
    /// Folds per repeat.
    pub folds: usize,
    /// Bag AUROC of each repeat (held-out predictions of all folds pooled).
    pub auroc: Vec<f64>,
    /// Accuracy at 0.5 of each repeat.
    pub accuracy: Vec<f64>,
    /// Mean AUROC over repeats.
    pub mean_auroc: f64,
    /// Sd of the AUROC over repeats.
    pub sd_auroc: f64,
}

/// Repeated `folds`-fold cross-validation (bags shuffled by `seed` and the
/// repeat, folds stratified by label).
pub fn cross_validate(
    bags: &Bags,
    engine: &MilEngine,
    folds: usize,
    repeats: usize,
    predict_draws: usize,
    seed: u64,
) -> Result<MilCv> {
    let y = bags.labels("data")?;
    if folds < 2 || folds > bags.n_bags() {
        return Err(Error::param(
            "folds",
            format!("between 2 and the number of bags ({})", bags.n_bags()),
        ));
    }
    if repeats == 0 || repeats > 1000 {
        return Err(Error::param("repeats", "between 1 and 1000"));
    }
    let mut aurocs = Vec::new();
    let mut accs = Vec::new();
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
        let mut p = vec![0.0; bags.n_bags()];
        for f in 0..folds {
            let train: Vec<usize> = (0..bags.n_bags()).filter(|&i| fold_of[i] != f).collect();
            let test: Vec<usize> = (0..bags.n_bags()).filter(|&i| fold_of[i] == f).collect();
            let (model, _) = fit_model(&bags.subset(&train), engine)?;
            let pred = model.predict(
                &bags.subset(&test),
                predict_draws,
                seed ^ (r * folds + f) as u64,
            )?;
            for (i, bp) in test.iter().zip(pred) {
                p[*i] = bp.p;
            }
        }
        aurocs.push(auc(&p, &y));
        accs.push(
            p.iter().zip(&y).filter(|(p, y)| (**p > 0.5) == **y).count() as f64 / y.len() as f64,
        );
    }
    let (mean_auroc, sd_auroc) = crate::stats::mean_sd(&aurocs);
    Ok(MilCv {
        folds,
        auroc: aurocs,
        accuracy: accs,
        mean_auroc,
        sd_auroc,
    })
}
