//! The simulation study of Hu 2024, §2.3 (Figs. 2.2–2.4): factors varied
//! one at a time around the basic setting (n = 500 bags, m = 20 instances,
//! ratio r = 4, PPI̅₀ = PPI̅₁ = 0.35), replicated training sets with 300
//! test bags each, and for every method the held-out bag AUROC (Fig. 2.2),
//! the fitting time (Fig. 2.3) and the AUROC of the test instances'
//! primary-instance probabilities against the simulated δ (Fig. 2.4).
//!
//! Levels (Hu 2024, §2.3): n ∈ {250, 500, 1000, 2000, 4000, 16000},
//! m ∈ {10, 20, 30, 40}, r ∈ {1, 2, 3, 4}, PPI̅₁ ∈ {0.1, 0.35, 0.6, 0.85}.
//! The dissertation ran 50 replicates; the number is an option here.
//! Every training and test set comes from its own seeded stream, so a
//! cell can be re-run on its own and gives the same numbers.

use super::baselines::fit_baseline;
use super::cv::{MilMethod, fit_model};
use super::simulate::{MilDesign, simulate_bags};
use crate::error::{Error, Result};
use crate::eval::metrics::auc;
use crate::sampling::rng::stream;
use rand::RngExt;

/// A factor of the study (the basic setting alone is [`Factor::Basic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Factor {
    /// The basic setting only.
    Basic,
    /// Number of training bags n.
    Bags,
    /// Instances per bag m.
    Instances,
    /// Modality ratio r.
    Ratio,
    /// Mean proportion of primary instances in modality 1.
    Ppi1,
}

impl Factor {
    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Factor::Basic => "basic",
            Factor::Bags => "bags",
            Factor::Instances => "instances",
            Factor::Ratio => "ratio",
            Factor::Ppi1 => "ppi1",
        }
    }

    /// Parse a name of [`Factor::name`].
    pub fn parse(s: &str) -> Option<Factor> {
        [
            Factor::Basic,
            Factor::Bags,
            Factor::Instances,
            Factor::Ratio,
            Factor::Ppi1,
        ]
        .into_iter()
        .find(|f| f.name() == s)
    }

    /// Hu 2024 §2.3's levels of this factor.
    pub fn levels(self) -> Vec<f64> {
        match self {
            Factor::Basic => vec![f64::NAN],
            Factor::Bags => vec![250.0, 500.0, 1000.0, 2000.0, 4000.0, 16000.0],
            Factor::Instances => vec![10.0, 20.0, 30.0, 40.0],
            Factor::Ratio => vec![1.0, 2.0, 3.0, 4.0],
            Factor::Ppi1 => vec![0.1, 0.35, 0.6, 0.85],
        }
    }

    /// The basic design with this factor at `level`.
    pub fn design(self, level: f64) -> MilDesign {
        let mut d = MilDesign::default();
        match self {
            Factor::Basic => {}
            Factor::Bags => d.bags = level as usize,
            Factor::Instances => d.instances = level as usize,
            Factor::Ratio => d.ratio = level,
            Factor::Ppi1 => d.ppi1 = level,
        }
        d
    }
}

/// Settings of [`run_study`].
#[derive(Debug, Clone)]
pub struct StudyOptions {
    /// Factors to vary (each at all its levels).
    pub factors: Vec<Factor>,
    /// Replicate training sets per setting.
    pub replicates: usize,
    /// Test bags per replicate (300 in Hu 2024).
    pub test_bags: usize,
    /// Settings with more training bags than this are skipped.
    pub max_bags: usize,
    /// Monte Carlo draws per test bag for the model's predictive
    /// probabilities.
    pub predict_draws: usize,
    /// Seed of every training and test set and prediction.
    pub seed: u64,
}

impl Default for StudyOptions {
    fn default() -> Self {
        StudyOptions {
            factors: vec![Factor::Basic],
            replicates: 20,
            test_bags: 300,
            max_bags: 16_000,
            predict_draws: 200,
            seed: 1,
        }
    }
}

/// One method at one setting, over the replicates.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StudyCell {
    /// The factor varied (`basic` for the basic setting).
    pub factor: &'static str,
    /// Its level (null for the basic setting).
    pub level: Option<f64>,
    /// The method (`vmmic`, `gibbs`, `milr`, `si-mean`, `si-max`).
    pub method: String,
    /// Held-out bag AUROC of each replicate (Fig. 2.2).
    pub bag_auroc: Vec<f64>,
    /// AUROC of the test instances' primary-instance scores against the
    /// simulated δ, each replicate (Fig. 2.4): the model's predictive
    /// `P(δ = 1)`; for the baselines their instance scores.
    pub primary_auroc: Vec<f64>,
    /// Seconds to fit, each replicate (Fig. 2.3).
    pub seconds: Vec<f64>,
    /// Means over replicates.
    pub mean_bag_auroc: f64,
    /// Sd over replicates (`None`, JSON null, with one replicate).
    pub sd_bag_auroc: Option<f64>,
    /// Mean primary-instance AUROC.
    pub mean_primary_auroc: f64,
    /// Mean seconds.
    pub mean_seconds: f64,
}

/// The settings the options cover: (factor, level), basic first, each
/// distinct design once (a factor's basic level is kept under its factor
/// so that each curve is whole).
pub fn settings(opts: &StudyOptions) -> Vec<(Factor, f64)> {
    let mut out = Vec::new();
    for &f in &opts.factors {
        for level in f.levels() {
            if f.design(level).bags <= opts.max_bags && !out.contains(&(f, level)) {
                out.push((f, level));
            }
        }
    }
    out
}

/// How many distinct designs the settings cover (each is run once; the
/// number of fits is this × replicates × methods).
pub fn distinct_designs(opts: &StudyOptions) -> usize {
    let mut seen: Vec<MilDesign> = Vec::new();
    for (f, level) in settings(opts) {
        let d = f.design(level);
        if !seen.contains(&d) {
            seen.push(d);
        }
    }
    seen.len()
}

/// Fit `method` on `train`, score `test`: (bag scores, instance scores).
fn fit_scores(
    method: &MilMethod,
    train: &super::Bags,
    test: &super::Bags,
    draws: usize,
    seed: u64,
) -> Result<(Vec<f64>, Vec<f64>)> {
    match method {
        MilMethod::Model(engine) => {
            let (model, _) = fit_model(train, engine)?;
            let pred = model.predict(test, draws, seed)?;
            // Aligned with `test.primary` (and the baselines' scores).
            let inst = super::model::primary_by_instance(test, &pred);
            Ok((pred.iter().map(|b| b.p).collect(), inst))
        }
        MilMethod::Baseline(b, priors) => {
            let fit = fit_baseline(
                train,
                *b,
                priors,
                super::cv::BASELINE_TOL,
                super::cv::BASELINE_MAX_ITER,
            )?;
            Ok((fit.bag_scores(test)?, fit.instance_scores(test)?))
        }
    }
}

/// Run the study: every setting × replicate × method. `observer` is told
/// of every finished fit and may cancel.
pub fn run_study(
    opts: &StudyOptions,
    methods: &[MilMethod],
    observer: Option<&crate::observer::SharedObserver>,
) -> Result<Vec<StudyCell>> {
    if opts.replicates == 0 || opts.replicates > 10_000 {
        return Err(Error::param("replicates", "between 1 and 10,000"));
    }
    if opts.test_bags < 2 || opts.test_bags > 1_000_000 {
        return Err(Error::param("test_bags", "between 2 and 1,000,000"));
    }
    if methods.is_empty() {
        return Err(Error::param("methods", "need at least one"));
    }
    let sets = settings(opts);
    if sets.is_empty() {
        return Err(Error::param(
            "max_bags",
            format!("no setting has at most {} training bags", opts.max_bags),
        ));
    }
    let mut cells = Vec::new();
    // A design's data depend on the design and the replicate only, not on
    // which factor it was reached through (the basic setting is a level of
    // every factor): each distinct design is run once.
    let mut done: Vec<(MilDesign, Vec<[Vec<f64>; 3]>)> = Vec::new();
    for &(factor, level) in &sets {
        let design = factor.design(level);
        let rows = match done.iter().find(|(d, _)| *d == design) {
            Some((_, rows)) => rows.clone(),
            None => {
                let rows = run_design(&design, opts, methods, observer)?;
                done.push((design, rows.clone()));
                rows
            }
        };
        for (m, [bag_auroc, primary_auroc, seconds]) in methods.iter().zip(rows) {
            let (mean_bag_auroc, sd_bag_auroc) = crate::stats::mean_sd_of_repeats(&bag_auroc);
            let mean = crate::stats::mean;
            cells.push(StudyCell {
                factor: factor.name(),
                level: (factor != Factor::Basic).then_some(level),
                method: m.name().to_string(),
                mean_primary_auroc: mean(&primary_auroc),
                mean_seconds: mean(&seconds),
                bag_auroc,
                primary_auroc,
                seconds,
                mean_bag_auroc,
                sd_bag_auroc,
            });
        }
    }
    Ok(cells)
}

/// Every replicate of one design: per method, (bag AUROCs, primary-instance
/// AUROCs, seconds).
fn run_design(
    design: &MilDesign,
    opts: &StudyOptions,
    methods: &[MilMethod],
    observer: Option<&crate::observer::SharedObserver>,
) -> Result<Vec<[Vec<f64>; 3]>> {
    let mut rows: Vec<[Vec<f64>; 3]> = vec![Default::default(); methods.len()];
    for r in 0..opts.replicates {
        let key = [
            0x5354_5544,
            design.bags as u64,
            design.instances as u64,
            design.ratio.to_bits(),
            design.ppi1.to_bits(),
            r as u64,
        ];
        let mut rng = stream(opts.seed, &key);
        let (s_train, s_test, s_pred): (u64, u64, u64) = (rng.random(), rng.random(), rng.random());
        let train = simulate_bags(design, s_train)?;
        let test = simulate_bags(
            &MilDesign {
                bags: opts.test_bags,
                ..*design
            },
            s_test,
        )?;
        let y = test.labels("test")?;
        let truth = test.primary.clone().expect("simulated δ");
        for (k, m) in methods.iter().enumerate() {
            let t = std::time::Instant::now();
            let (bag, inst) = fit_scores(m, &train, &test, opts.predict_draws, s_pred)?;
            let secs = t.elapsed().as_secs_f64();
            rows[k][0].push(auc(&bag, &y));
            rows[k][1].push(auc(&inst, &truth));
            rows[k][2].push(secs);
            crate::observer::advance(observer, 1)?;
        }
    }
    Ok(rows)
}

/// Factors from a comma-separated list of [`Factor::name`]s or `all`
/// (the command line's and Python's `factors`).
pub fn parse_factors(list: &str) -> Result<Vec<Factor>> {
    let mut out = Vec::new();
    for f in list.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        if f == "all" {
            out.extend([
                Factor::Basic,
                Factor::Bags,
                Factor::Instances,
                Factor::Ratio,
                Factor::Ppi1,
            ]);
        } else {
            out.push(Factor::parse(f).ok_or_else(|| {
                Error::param(
                    "factors",
                    format!(
                        "unknown factor '{}' (expected basic, bags, instances, ratio, ppi1 or all)",
                        crate::io::output::short_name(f, 40)
                    ),
                )
            })?);
        }
    }
    if out.is_empty() {
        return Err(Error::param("factors", "name at least one factor"));
    }
    Ok(out)
}

/// Methods from a comma-separated list (`vmmic`, `gibbs`, `milr`,
/// `si-mean`, `si-max`): the model's engines with these settings, the
/// baselines penalised by the same priors.
pub fn parse_methods(list: &str, engines: &super::MilEngineSettings) -> Result<Vec<MilMethod>> {
    use super::Baseline;
    let mut out = Vec::new();
    for m in list.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        out.push(match m {
            "vmmic" => MilMethod::Model(engines.engine("vb")?),
            "gibbs" => MilMethod::Model(engines.engine("gibbs")?),
            other => match Baseline::ALL.into_iter().find(|b| b.name() == other) {
                Some(b) => MilMethod::Baseline(b, engines.priors.check()?),
                None => {
                    return Err(Error::param(
                        "methods",
                        format!(
                            "unknown method '{}' (expected vmmic, gibbs, milr, si-mean, si-max)",
                            crate::io::output::short_name(other, 40)
                        ),
                    ));
                }
            },
        });
    }
    if out.is_empty() {
        return Err(Error::param("methods", "name at least one method"));
    }
    Ok(out)
}

/// The study's JSON document (the command line's `--output json` and
/// `study.json`, Python's `to_json()`).
pub fn study_document(opts: &StudyOptions, cells: &[StudyCell]) -> serde_json::Value {
    serde_json::json!({
        "replicates": opts.replicates,
        "test_bags": opts.test_bags,
        "seed": opts.seed,
        "cells": cells,
    })
}

/// One CSV row per setting and method: means over replicates.
pub fn study_csv(cells: &[StudyCell]) -> String {
    use std::fmt::Write as _;
    let mut csv = String::from(
        "factor,level,method,replicates,bag_auroc,bag_auroc_sd,primary_auroc,seconds\n",
    );
    for c in cells {
        let _ = writeln!(
            csv,
            "{},{},{},{},{:.4},{},{:.4},{:.3}",
            c.factor,
            c.level.map_or(String::new(), |l| format!("{l}")),
            c.method,
            c.bag_auroc.len(),
            c.mean_bag_auroc,
            c.sd_bag_auroc.map_or(String::new(), |s| format!("{s:.4}")),
            c.mean_primary_auroc,
            c.mean_seconds
        );
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_the_dissertations_and_the_cap_drops_large_n() {
        let opts = StudyOptions {
            factors: vec![Factor::Basic, Factor::Bags, Factor::Ppi1],
            max_bags: 1000,
            ..StudyOptions::default()
        };
        let s = settings(&opts);
        assert_eq!(s.len(), 1 + 3 + 4);
        // n = 500 and PPI̅₁ = 0.35 are the basic design.
        assert_eq!(distinct_designs(&opts), 1 + 2 + 3);
        assert_eq!(Factor::Ppi1.design(0.85).ppi1, 0.85);
        assert_eq!(Factor::Instances.design(30.0).instances, 30);
        assert_eq!(Factor::parse("ratio"), Some(Factor::Ratio));
        assert_eq!(Factor::parse("r"), None);
        assert_eq!(parse_factors("all").unwrap().len(), 5);
        assert!(parse_factors("basic, speed").is_err());
        assert!(parse_factors(" , ").is_err());
    }
}
