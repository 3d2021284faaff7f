//! `plackett mil fit|predict|simulate|cv|study`: multiple-instance classification
//! with two modalities (vMMIC, Hu 2024 ch. 2, and its Gibbs gold standard).

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use plackett::infer::mcmc::McmcSettings;
use plackett::io::output::short_name;
use plackett::mil::{
    Baseline, GibbsStart, MilDesign, MilEngine, MilEngineSettings, MilMethod, MilModel, MilPriors,
    Preprocess, VbStart, cross_validate_methods, fit_model_warm, fit_model_with, read_bags,
    simulate_bags,
};
use std::fmt::Write as _;

/// `plackett mil …`.
#[derive(Subcommand, Debug)]
pub enum MilCommand {
    /// Fit vMMIC (--engine vb) or its Gibbs gold standard to labelled bags.
    Fit(Box<FitArgs>),
    /// Bag probabilities and each instance's probability of being primary, from a model file.
    Predict(PredictArgs),
    /// Simulate bags from the design of Hu 2024 §2.3 (long CSV with the true δ in `primary`).
    Simulate(SimulateArgs),
    /// Repeated k-fold cross-validation: bag AUROC, accuracy and the calibration of the held-out probabilities (log loss, Brier score, expected calibration error).
    Cv(Box<CvArgs>),
    /// Hu 2024 §2.3's simulation study (Figs. 2.2–2.4): factors varied one
    /// at a time around the basic setting, replicated, with held-out bag
    /// AUROC, primary-instance AUROC and fitting time for every method
    Study(Box<StudyArgs>),
}

/// The engines' defaults, defined once in the library (Python reads them
/// too).
static MIL: std::sync::LazyLock<MilEngineSettings> =
    std::sync::LazyLock::new(MilEngineSettings::default);

/// Engine options shared by fit and cv.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// vb: vMMIC's coordinate ascent (fast); gibbs: the exact-posterior sampler (slow, the gold standard).
    #[arg(long, default_value = "vb", value_parser = ["vb", "gibbs"])]
    pub engine: String,
    /// Prior variance of the intercepts α, a, c (Hu 2024 §2.2.1: 16).
    #[arg(long, default_value_t = MIL.priors.intercept_var)]
    pub intercept_var: f64,
    /// Prior variance of every slope β, γ, b, d (Hu 2024 §2.2.1: 4).
    #[arg(long, default_value_t = MIL.priors.slope_var)]
    pub slope_var: f64,
    /// vb: stop when the mean absolute change of the training bag probabilities is below this (Hu 2024 §2.2.3; docs/mil.md).
    #[arg(long, default_value_t = MIL.tol)]
    pub tol: f64,
    /// vb: most sweeps.
    #[arg(long, default_value_t = MIL.max_iter)]
    pub max_iter: usize,
    /// vb: random starts (the highest ELBO wins).
    #[arg(long, default_value_t = MIL.starts)]
    pub starts: usize,
    /// vb: fit K optima — the first from --vb-start, the others from starts drawn around it (each coefficient plus N(0, 0.5²)) — and predict from their equal-weight mixture (Yao, Vehtari & Gelman 2022). The posterior is multimodal in which instances are primary and coordinate ascent keeps the configuration it starts in; the mixture averages over several, as a sampler's chains do. About K times the work; on Hu 2024's basic setting 8, 16 and 32 optima raise the held-out bag AUROC from 0.912 to 0.918, 0.919 and 0.919 (the untempered sampler: 0.920; docs/mil.md).
    #[arg(long, value_name = "K", conflicts_with = "starts")]
    pub mixture: Option<usize>,
    /// vb: where coordinate ascent starts. marginal: the mode of the bag labels' approximate marginal posterior with the primary indicators integrated out (the prior means if it cannot be found); prior: every coefficient at its prior mean; moments: the instance slopes along a method-of-moments direction read from the bags' pooled first and second moments (at most 2,000 pooled features, d + d(d+1)/2 per modality). On Hu 2024's simulation design marginal classifies bags and ranks instances best at every setting; on small low-dimensional sets compare prior in cross-validation (docs/mil.md).
    #[arg(long, default_value = "marginal", value_parser = ["marginal", "prior", "moments"])]
    pub vb_start: String,
    /// vb: the covariance the model reports and predicts with. linear-response (the default): the instance level's linear-response correction (Giordano, Broderick & Jordan 2015) with the bag level held, about the exact posterior's scale; mean-field: the factors' own (Hu 2024, Appendix B.1, the dissertation's vMMIC), whose instance-level sds are 20–30 times smaller than the exact posterior's. Means and ELBO are the same either way; the bag level's sds are mean-field in both (docs/mil.md).
    #[arg(long, default_value = "linear-response", value_parser = ["mean-field", "linear-response"])]
    pub covariance: String,
    /// gibbs: where the chains start. marginal: around the mode of the bag labels' approximate marginal posterior (the primary indicators integrated out), each chain jittered; dispersed: every coefficient drawn from N(0, 0.5²). The chains do not cross between primary-instance configurations in runs of practical length, so the start decides which one they describe (docs/mil.md).
    #[arg(long, default_value = "marginal", value_parser = ["marginal", "dispersed"])]
    pub gibbs_start: String,
    /// gibbs: kept draws per chain.
    #[arg(long, default_value_t = MIL.mcmc.samples)]
    pub samples: usize,
    /// gibbs: burn-in sweeps per chain.
    #[arg(long, default_value_t = MIL.mcmc.burn_in)]
    pub burn_in: usize,
    /// gibbs: keep every n-th sweep.
    #[arg(long, default_value_t = MIL.mcmc.thin)]
    pub thin: usize,
    /// gibbs: chains.
    #[arg(long, default_value_t = MIL.mcmc.chains)]
    pub chains: usize,
    /// gibbs: parallel tempering with K rungs per chain (1: none; each rung costs a sweep), or auto. Rung k samples the posterior with the bag labels' probit noise inflated to variance 1/τ_k, τ from 1 down to --hottest (geometric, or re-spaced by --ladder adaptive); adjacent rungs swap states after every sweep; fit prints the swap acceptance and the communication barrier Λ, and notes when the ladder has clearly fewer than 2Λ rungs. auto starts from 8 rungs on the adaptive ladder and moves to ⌈2Λ⌉ rungs at every adaptation of the burn-in (Syed et al. 2022). On Hu 2024's basic setting 10 rungs down to 0.03 take max split-R̂ from 2.2 to 1.2 for the same sweeps and 1,000 effective draws of α from 24 to 14 minutes; its barrier Λ ≈ 6.5 asks for about 13 rungs, which bring max split-R̂ to 1.13–1.17 (docs/mil.md).
    #[arg(long, value_name = "K|auto", default_value = "1")]
    pub temperatures: plackett::mil::RungCount,
    /// gibbs: τ of the hottest rung, in (0, 1); aim for swap acceptance above 0.2 between every pair (printed by fit).
    #[arg(long, default_value_t = MIL.tempering.hottest)]
    pub hottest: f64,
    /// gibbs with tempering: geometric keeps τ geometric from 1 to --hottest; adaptive re-spaces the interior rungs during the burn-in (after 1/32, 1/16, …, 1/2 of it) so that every adjacent pair rejects swaps equally often (Syed et al. 2022), and fit prints the communication barrier Λ (about 2Λ rungs suffice).
    #[arg(long, default_value = "geometric", value_parser = ["geometric", "adaptive"])]
    pub ladder: String,
    /// Random seed.
    #[arg(long, default_value_t = MIL.mcmc.seed)]
    pub seed: u64,
    /// Z-score every feature on the training bags first (the model file keeps the scaling and applies it to new bags; coefficients are then per sd). Use it for features on large or mixed scales (e.g. Musk's).
    #[arg(long = "standardize", alias = "standardise")]
    pub standardise: bool,
    /// Replace each modality's features by their leading K principal components (fitted on the training bags after z-scoring, whitened; the model file keeps the projection and applies it to new bags). From its default start vMMIC does not need it (Musk 1, 10-fold CV × 5: bag AUROC 0.916 on all 166 z-scored features, 0.869 on 10 components); from the prior means it does (0.510 on all 166 features, 0.905 on 10): docs/mil.md.
    #[arg(long, value_name = "K")]
    pub components: Option<usize>,
}

impl EngineArgs {
    /// The preprocessing these flags ask for.
    fn prep(&self) -> Preprocess {
        Preprocess::from_options(self.standardise, self.components)
    }

    fn engine(&self) -> Result<MilEngine> {
        Ok(self.settings().engine(&self.engine)?)
    }

    /// Both engines' settings from these flags.
    fn settings(&self) -> MilEngineSettings {
        MilEngineSettings {
            priors: MilPriors {
                intercept_var: self.intercept_var,
                slope_var: self.slope_var,
            },
            tol: self.tol,
            max_iter: self.max_iter,
            starts: self.mixture.unwrap_or(self.starts),
            mixture: self.mixture.is_some(),
            vb_start: VbStart::parse(&self.vb_start).expect("clap checked the name"),
            covariance: plackett::mil::VbCovariance::parse(&self.covariance)
                .expect("clap checked the name"),
            gibbs_start: GibbsStart::parse(&self.gibbs_start).expect("clap checked the name"),
            mcmc: McmcSettings {
                samples: self.samples,
                burn_in: self.burn_in,
                thin: self.thin,
                chains: self.chains,
                seed: self.seed,
            },
            tempering: plackett::mil::Tempering::from_options(
                self.temperatures,
                self.hottest,
                &self.ladder,
            )
            .expect("clap checked the name"),
        }
    }
}

/// `plackett mil fit`.
#[derive(Args, Debug)]
pub struct FitArgs {
    /// Bags: long CSV (bag,label,modality,m0_…,m1_…) or JSON.
    pub file: String,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Write the model file (JSON) here (`--out` still works).
    #[arg(
        value_hint = clap::ValueHint::FilePath,
        long = "model-out",
        alias = "out",
        value_name = "MODEL.json"
    )]
    pub out: Option<String>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub output: String,
    /// Exit 0 even if vb stopped at --max-iter before its stopping rule held.
    #[arg(long)]
    pub allow_nonconvergence: bool,
    /// Write a self-contained HTML report: ROC curves, coefficient intervals, and the
    /// instances that drove one bag.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
    /// The bag whose instances the report lists [default: the most probable bag].
    #[arg(long, value_name = "NAME", requires = "report")]
    pub report_bag: Option<String>,
    /// Start at this model file's coefficient means instead of the engine's own start (a warm
    /// start; same features and preprocessing): vb's coordinate ascent from there, or every
    /// Gibbs chain jittered around it. The posterior is multimodal in which instances are
    /// primary and neither engine crosses readily between such configurations, so the start
    /// decides which one a fit describes (docs/mil.md).
    #[arg(long, value_name = "MODEL.json")]
    pub init: Option<String>,
}

/// `plackett mil predict`.
#[derive(Args, Debug)]
pub struct PredictArgs {
    /// Model file written by `mil fit --model-out`.
    pub model: String,
    /// Bags to predict (labels, if present, are ignored).
    pub file: String,
    /// Output format.
    #[arg(long, default_value = "csv", value_parser = ["csv", "json"])]
    pub output: String,
    /// Monte Carlo draws per bag for the posterior predictive probability.
    #[arg(long, default_value_t = 1000)]
    pub draws: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the output here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
}

/// `plackett mil simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Bags.
    #[arg(long, default_value_t = 500)]
    pub bags: usize,
    /// Instances per bag.
    #[arg(long, default_value_t = 20)]
    pub instances: usize,
    /// Modality ratio r: an instance is of modality 1 with probability 1/(r + 1).
    #[arg(long, default_value_t = 4.0)]
    pub ratio: f64,
    /// Mean proportion of primary instances in modality 0.
    #[arg(long, default_value_t = 0.35)]
    pub ppi0: f64,
    /// Mean proportion of primary instances in modality 1.
    #[arg(long, default_value_t = 0.35)]
    pub ppi1: f64,
    /// Features per modality.
    #[arg(long, default_value_t = 16)]
    pub features: usize,
    /// Bag intercept α (not given by Hu 2024; MICProB's generator uses 0.5).
    #[arg(long, default_value_t = 0.5, allow_hyphen_values = true)]
    pub alpha: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the CSV here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.csv")]
    pub out: Option<String>,
}

/// `plackett mil cv`.
#[derive(Args, Debug)]
pub struct CvArgs {
    /// Labelled bags.
    pub file: String,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Folds.
    #[arg(long, default_value_t = 10)]
    pub folds: usize,
    /// Repeats of the whole k-fold split.
    #[arg(long, default_value_t = 1)]
    pub repeats: usize,
    /// Monte Carlo draws per held-out bag.
    #[arg(long, default_value_t = 500)]
    pub draws: usize,
    /// Also run the baselines on the same folds: MILR (noisy-or link, Chen et al. 2017) and single-instance logistic regression scored by the mean (si-mean) and the largest (si-max) instance probability, on the zero-padded features of Hu 2024 §2.3, penalised by the same priors.
    #[arg(long)]
    pub baselines: bool,
    #[command(flatten)]
    pub printed: crate::args::Printed,
    /// Write an HTML report (AUROC per method, held-out ROC curves,
    /// calibration of the held-out probabilities) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
}

/// Run `plackett mil …`.
#[derive(Args, Debug)]
pub struct StudyArgs {
    /// Factors to vary, comma-separated: basic, bags (n = 250 … 16000),
    /// instances (m = 10 … 40), ratio (r = 1 … 4), ppi1 (0.1 … 0.85), or all
    #[arg(long, default_value = "basic")]
    pub factors: String,
    /// Methods, comma-separated: vmmic, gibbs, milr, si-mean, si-max
    #[arg(long, default_value = "vmmic,milr,si-mean,si-max")]
    pub methods: String,
    /// Replicate training sets per setting (Hu 2024 used 50)
    #[arg(long, default_value_t = 20)]
    pub replicates: usize,
    /// Test bags per replicate
    #[arg(long, default_value_t = 300)]
    pub test_bags: usize,
    /// Skip settings with more training bags than this
    #[arg(long, default_value_t = 16000)]
    pub max_bags: usize,
    /// Monte Carlo draws per test bag for the model's predictive probabilities
    #[arg(long, default_value_t = 200)]
    pub draws: usize,
    /// Engine settings (priors, tolerances, Gibbs draws, seed); --methods chooses the engines (--engine is ignored; --standardize and --components are refused)
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Write study.json, study.csv and one SVG per factor and figure here
    #[arg(value_hint = clap::ValueHint::DirPath, long, value_name = "DIR")]
    pub out_dir: Option<String>,
    #[command(flatten)]
    pub printed: crate::args::Printed,
}

pub fn run(c: &MilCommand) -> Result<()> {
    match c {
        MilCommand::Fit(a) => run_fit(a),
        MilCommand::Predict(a) => run_predict(a),
        MilCommand::Simulate(a) => run_simulate(a),
        MilCommand::Cv(a) => run_cv(a),
        MilCommand::Study(a) => run_study_cmd(a),
    }
}

fn run_fit(a: &FitArgs) -> Result<()> {
    let mut engine = a.engine.engine()?;
    let bags = read_bags(&a.file)?;
    // Every bag needs a label to fit, and both labels must occur (a one-line
    // error names the file and the first unlabelled bag).
    bags.training_labels(&a.file)?;
    if let Some(name) = &a.report_bag
        && !bags.bags.iter().any(|b| &b.name == name)
    {
        bail!(
            "invalid option --report-bag: no bag named {:?} in {}",
            short_name(name, 60),
            a.file
        );
    }
    // The sampler counts sweeps on a terminal bar (VB is quick).
    let progress = match &mut engine {
        MilEngine::Gibbs(g) => {
            let p = crate::progress::Progress::new(
                (g.mcmc.sweeps() as u64).saturating_mul(g.mcmc.chains as u64),
                "sampling",
            );
            g.observer = Some(p.observer());
            Some(p)
        }
        _ => None,
    };
    let warm = match &a.init {
        Some(path) => {
            let text = plackett::io::read_text(path)?;
            Some(MilModel::from_json(path, &text)?)
        }
        None => None,
    };
    let start = std::time::Instant::now();
    let fitted = match &warm {
        Some(m) => fit_model_warm(&bags, &engine, a.engine.prep(), m, &a.file),
        None => fit_model_with(&bags, &engine, a.engine.prep()),
    };
    drop(progress);
    let (model, info) = fitted?;
    let seconds = start.elapsed().as_secs_f64();
    let pred = model.predict(&bags, 500, a.engine.seed)?;
    let notes: Vec<String> = plackett::mil::summary::fit_notes_for(&info, &bags, &model)
        .iter()
        .map(|n| crate::cli_text(n))
        .collect();
    let (train_auc, primary_auc) = plackett::mil::summary::fit_aurocs(&bags, &info, &pred);
    let summary = plackett::mil::summary::fit_document(
        &bags,
        &model,
        &info,
        &pred,
        &notes,
        (train_auc, primary_auc),
        seconds,
    );
    let text = match a.output.as_str() {
        "json" => serde_json::to_string_pretty(&summary)? + "\n",
        _ => fit_table(&bags, &model, &info, &notes, (train_auc, primary_auc)),
    };
    if info.converged == Some(false) && !a.allow_nonconvergence {
        return Err(crate::NotConverged(format!(
            "vb stopped at --max-iter {} before the bag probabilities settled (--tol {:e}); raise --max-iter, or pass --allow-nonconvergence to keep the result",
            a.engine.max_iter, a.engine.tol
        ))
        .into());
    }
    // Every file is written only after everything has succeeded.
    let mut files: Vec<(String, String)> = Vec::new();
    if let Some(out) = &a.out {
        files.push((out.clone(), serde_json::to_string_pretty(&model)? + "\n"));
    }
    if let Some(path) = &a.report {
        let page = plackett::report::mil::render(&plackett::report::mil::MilView {
            title: format!("plackett mil fit: {}", a.file),
            bags: &bags,
            model: &model,
            info: &info,
            pred: &pred,
            notes: &notes,
            aurocs: (train_auc, primary_auc),
            bag: a.report_bag.as_deref(),
            pick_bag: "--report-bag NAME",
            instance_rows: plackett::report::mil::InstanceRows::DataRow,
            bag_labels: None,
        })?;
        files.push((path.clone(), page));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_bytes()))
        .collect();
    crate::outputs::write_all(&refs)?;
    crate::emit(&text)
}

/// The table `mil fit` prints: the model, its engine's convergence or
/// mixing, the training AUROCs, notes and every parameter's posterior.
fn fit_table(
    bags: &plackett::mil::Bags,
    model: &MilModel,
    info: &plackett::mil::MilFitInfo,
    notes: &[String],
    (train_auc, primary_auc): (f64, Option<f64>),
) -> String {
    let counts = bags.counts();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Multiple-instance probit model (Hu 2024, ch. 2), engine {}: {} bags, {} + {} instances",
        info.engine,
        bags.n_bags(),
        counts[0],
        counts[1]
    );
    if let Some(c) = &model.components {
        for m in 0..2 {
            if !c.loadings[m].is_empty() {
                let _ = writeln!(
                    s,
                    "modality {m}: {} principal components of {} features ({:.1}% of their standardised variance); coefficients are per component",
                    c.loadings[m].len(),
                    c.input_names[m].len(),
                    100.0 * c.explained[m]
                );
            }
        }
    }
    if let (Some(it), Some(c), Some(e)) = (info.iterations, info.converged, info.elbo) {
        match &info.mixture_elbos {
            Some(k) => {
                let _ = writeln!(
                    s,
                    "sweeps {it} over {} optima, every one converged {c}, ELBO of the first {e:.4}",
                    k.len()
                );
            }
            None => {
                let _ = writeln!(s, "sweeps {it}, converged {c}, ELBO {e:.4}");
            }
        }
    }
    if let (Some(r), Some(e)) = (info.max_rhat, info.min_ess) {
        let _ = writeln!(s, "max split-R̂ {r:.3}, min bulk ESS {e:.0}");
    }
    if let (Some(k), Some(a)) = (info.temperatures, &info.swap_acceptance) {
        let acc: Vec<String> = a.iter().map(|v| format!("{v:.2}")).collect();
        let _ = writeln!(
            s,
            "tempering: {k} rungs per chain, swap acceptance (coldest pair first) {}",
            acc.join(" ")
        );
        if let (Some(l), Some(b)) = (&info.ladder, info.barrier) {
            let taus: Vec<String> = l.iter().map(|t| format!("{t:.3}")).collect();
            let _ = writeln!(
                s,
                "ladder τ {}; communication barrier Λ {b:.2} (about {:.0} rungs suffice)",
                taus.join(" "),
                (2.0 * b).ceil().max(2.0)
            );
        }
    }
    let _ = writeln!(s, "training bag AUROC {train_auc:.4}");
    for n in notes {
        let _ = writeln!(s, "note: {n}");
    }
    if let Some(pa) = primary_auc {
        let _ = writeln!(
            s,
            "primary-instance AUROC against the file's `primary` column {pa:.4}"
        );
    }
    let w = model
        .parameters
        .iter()
        .map(|p| short_name(&p.name, 40).chars().count())
        .max()
        .unwrap_or(5)
        .max(9);
    let _ = writeln!(
        s,
        "{:<w$}  {:>10} {:>9} {:>10} {:>10}",
        "parameter", "mean", "sd", "5%", "95%"
    );
    for p in &model.parameters {
        let _ = writeln!(
            s,
            "{:<w$}  {:>10.4} {:>9.4} {:>10.4} {:>10.4}",
            short_name(&p.name, 40),
            p.mean,
            p.sd,
            p.lower,
            p.upper
        );
    }
    s
}

fn run_predict(a: &PredictArgs) -> Result<()> {
    let text = plackett::io::read_text(&a.model)?;
    let model = MilModel::from_json(&a.model, &text)?;
    let bags = read_bags(&a.file)?;
    model.check_bags(&bags, &a.file)?;
    let pred = model.predict(&bags, a.draws, a.seed)?;
    for n in plackett::mil::summary::predict_notes(&model, Some(bags.counts())) {
        eprintln!("note: {}", crate::cli_text(&n));
    }
    let out = match a.output.as_str() {
        "json" => {
            serde_json::to_string_pretty(&plackett::mil::summary::predict_document(&pred))? + "\n"
        }
        _ => {
            let mut s = String::from("bag,row,modality,p,p_plugin,p_primary\n");
            for b in &pred {
                let name = if b.bag.contains([',', '"', '\n']) {
                    format!("\"{}\"", b.bag.replace('"', "\"\""))
                } else {
                    b.bag.clone()
                };
                for i in &b.instances {
                    let _ = writeln!(
                        s,
                        "{name},{},{},{},{},{}",
                        i.row, i.modality, b.p, b.p_plugin, i.p_primary
                    );
                }
            }
            s
        }
    };
    match &a.out {
        Some(p) => Ok(crate::outputs::write_all(&[(p.as_str(), out.as_bytes())])?),
        None => crate::emit(&out),
    }
}

fn run_simulate(a: &SimulateArgs) -> Result<()> {
    let design = MilDesign {
        bags: a.bags,
        instances: a.instances,
        ratio: a.ratio,
        ppi0: a.ppi0,
        ppi1: a.ppi1,
        features: a.features,
        alpha: a.alpha,
    };
    let bags = simulate_bags(&design, a.seed)?;
    let csv = bags.to_csv();
    match &a.out {
        Some(p) => Ok(crate::outputs::write_all(&[(p.as_str(), csv.as_bytes())])?),
        None => crate::emit(&csv),
    }
}

fn run_cv(a: &CvArgs) -> Result<()> {
    let engine = a.engine.engine()?;
    let priors = MilPriors {
        intercept_var: a.engine.intercept_var,
        slope_var: a.engine.slope_var,
    };
    let bags = read_bags(&a.file)?;
    bags.training_labels(&a.file)?;
    let mut methods = vec![MilMethod::Model(engine)];
    if a.baselines {
        methods.extend(Baseline::ALL.map(|b| MilMethod::Baseline(b, priors)));
    }
    let progress = crate::progress::Progress::new(
        (a.folds
            .saturating_mul(a.repeats)
            .saturating_mul(methods.len())) as u64,
        "cross-validating (fits)",
    );
    let cvs = cross_validate_methods(
        &bags,
        &methods,
        a.engine.prep(),
        a.folds,
        a.repeats,
        a.draws,
        a.engine.seed,
        Some(&progress.observer()),
    );
    progress.finish();
    let cvs = cvs?;
    let text = match a.printed.output.as_str() {
        "json" => {
            serde_json::to_string_pretty(&plackett::mil::cv_document(&a.engine.engine, &cvs))?
                + "\n"
        }
        _ => {
            let mut t = format!(
                "{}-fold cross-validation × {}, {} bags (same folds for every method)\n{:<8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
                a.folds,
                a.repeats,
                bags.n_bags(),
                "method",
                "bag AUROC",
                "sd",
                "accuracy",
                "log loss",
                "Brier",
                "ECE"
            );
            for cv in &cvs {
                let c = |f: fn(&plackett::eval::calibration::Calibration) -> f64| {
                    cv.calibration.as_ref().map_or(f64::NAN, f)
                };
                t += &format!(
                    "{:<8} {:>10.4} {:>10} {:>10.4} {:>10.4} {:>10.4} {:>10.4}\n",
                    cv.method,
                    cv.mean_auroc,
                    plackett::stats::cell(cv.sd_auroc, 4),
                    plackett::stats::mean(&cv.accuracy),
                    c(|c| c.log_loss),
                    c(|c| c.brier),
                    c(|c| c.ece)
                );
            }
            t += "(log loss, Brier score summed over both classes and expected calibration error of the held-out probabilities, every repeat pooled)\n";
            t
        }
    };
    if let Some(p) = &a.report {
        let page =
            plackett::report::mil::cv_page(&format!("plackett mil cv {}", a.file), &bags, &cvs)?;
        crate::outputs::write_all(&[(p.as_str(), page.as_bytes())])?;
    }
    crate::deliver(&a.printed.out, &text)
}

fn run_study_cmd(a: &StudyArgs) -> Result<()> {
    use plackett::mil::study::{
        Factor, StudyOptions, parse_factors, parse_methods, run_study, study_csv, study_document,
    };
    if a.engine.prep() != Preprocess::None {
        // The design's features are standard normal already, and the
        // primary-instance AUROC reads the simulated features directly.
        bail!(
            "invalid option --standardize/--components: mil study fits the simulated features as they are (standard normal by design)"
        );
    }
    let factors = parse_factors(&a.factors)?;
    let methods = parse_methods(&a.methods, &a.engine.settings())?;
    if a.draws == 0 || a.draws > 1_000_000 {
        bail!("--draws: between 1 and 1,000,000");
    }
    let opts = StudyOptions {
        factors,
        replicates: a.replicates,
        test_bags: a.test_bags,
        max_bags: a.max_bags,
        predict_draws: a.draws,
        seed: a.engine.seed,
    };
    let designs = plackett::mil::study::distinct_designs(&opts);
    let progress = crate::progress::Progress::new(
        (designs
            .saturating_mul(a.replicates)
            .saturating_mul(methods.len())) as u64,
        "simulation study (fits)",
    );
    let cells = run_study(&opts, &methods, Some(&progress.observer()));
    progress.finish();
    let cells = cells?;
    let level = |c: &plackett::mil::StudyCell| c.level.map_or("-".to_string(), |l| format!("{l}"));
    let csv = study_csv(&cells);
    let doc = study_document(&opts, &cells);
    if let Some(dir) = &a.out_dir {
        let mut files: Vec<(String, Vec<u8>)> = vec![
            (
                format!("{dir}/study.json"),
                (serde_json::to_string_pretty(&doc)? + "\n").into_bytes(),
            ),
            (format!("{dir}/study.csv"), csv.clone().into_bytes()),
        ];
        for f in &opts.factors {
            if *f == Factor::Basic {
                continue;
            }
            let names: Vec<String> = methods.iter().map(|m| m.name().to_string()).collect();
            let series =
                |get: &dyn Fn(&plackett::mil::StudyCell) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
                    names
                        .iter()
                        .map(|n| {
                            let pts = cells
                                .iter()
                                .filter(|c| c.factor == f.name() && &c.method == n)
                                .map(|c| (c.level.unwrap_or(f64::NAN), get(c)))
                                .collect();
                            (n.clone(), pts)
                        })
                        .collect()
                };
            let x_label = match f {
                Factor::Bags => "training bags n (log scale)",
                Factor::Instances => "instances per bag m",
                Factor::Ratio => "modality ratio r",
                _ => "mean proportion of primary instances in modality 1",
            };
            let log_x = *f == Factor::Bags;
            let charts = [
                (
                    "bag_auroc",
                    series(&|c| c.mean_bag_auroc),
                    "held-out bag AUROC (Hu 2024, Fig. 2.2)",
                ),
                (
                    "time",
                    series(&|c| c.mean_seconds.max(1e-6).log2()),
                    "log2 seconds to fit (Hu 2024, Fig. 2.3)",
                ),
                (
                    "primary_auroc",
                    series(&|c| c.mean_primary_auroc),
                    "primary-instance AUROC (Hu 2024, Fig. 2.4)",
                ),
            ];
            for (stem, s, y_label) in charts {
                let svg = plackett::report::charts::xy(&s, x_label, y_label, log_x, None);
                files.push((format!("{dir}/{stem}_{}.svg", f.name()), svg.into_bytes()));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{dir}: {e}"))?;
        let refs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(p, b)| (p.as_str(), b.as_slice()))
            .collect();
        crate::outputs::write_all(&refs)?;
    }
    let text = match a.printed.output.as_str() {
        "json" => serde_json::to_string_pretty(&doc)? + "\n",
        _ => {
            let mut t = format!(
                "Simulation study (Hu 2024, §2.3): {} per setting, {} each; means over replicates\n{:<10} {:>7} {:<8} {:>10} {:>7} {:>14} {:>9}\n",
                plackett::io::output::count(a.replicates, "replicate", "replicates"),
                plackett::io::output::count(a.test_bags, "test bag", "test bags"),
                "factor",
                "level",
                "method",
                "bag AUROC",
                "sd",
                "primary AUROC",
                "seconds"
            );
            for c in &cells {
                let _ = writeln!(
                    t,
                    "{:<10} {:>7} {:<8} {:>10.4} {:>7} {:>14.4} {:>9.2}",
                    c.factor,
                    level(c),
                    c.method,
                    c.mean_bag_auroc,
                    plackett::stats::cell(c.sd_bag_auroc, 4),
                    c.mean_primary_auroc,
                    c.mean_seconds
                );
            }
            t
        }
    };
    crate::deliver(&a.printed.out, &text)
}
