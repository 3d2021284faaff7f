//! `plackett classify fit|predict|cv|path`: the Plackett–Luce regression
//! classifier of Archambeau & Caron 2012.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use plackett::choice::Choice;
use plackett::classify::cv::{ClassifierCvOptions, cross_validate};
use plackett::classify::model::{Engine, FitOptions, Fitted, fit};
use plackett::classify::path::ClassifierPath;
use plackett::classify::read_table;
use plackett::io::output::{NAME_WIDTH, column_width, short_name};
use plackett::io::read_text;
use plackett::stats::{mean, mean_pm, mean_sd_of_repeats};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// `plackett classify …`.
#[derive(Subcommand, Debug)]
pub enum ClassifyCommand {
    /// Fit the classifier and (optionally) write the model file.
    Fit(Box<FitArgs>),
    /// Class probabilities for new rows from a model file.
    Predict(PredictArgs),
    /// Repeated random train/test splits (or stratified k-fold): held-out misclassification, AUC and calibration (log loss, Brier score, expected calibration error).
    Cv(Box<CvArgs>),
    /// Regularisation path over the Gamma shape a (Archambeau & Caron 2012 Fig. 2).
    Path(PathArgs),
}

/// What `fit`, `cv` and `path` share besides the data: the Gamma rate and
/// the feature transforms (one definition of each flag).
#[derive(Args, Debug, Clone)]
pub struct Design {
    /// Gamma prior rate b, which sets the unidentified total mass only (`--b` still works).
    #[arg(
        long = "prior-rate",
        alias = "b",
        value_name = "B",
        default_value_t = DEFAULTS.b
    )]
    pub b: f64,
    /// Add the pairwise transforms exp(±(x_a + x_b)) (Archambeau & Caron 2012 §5).
    #[arg(long)]
    pub pairwise: bool,
}

/// The classifier's defaults, defined once in the library.
static DEFAULTS: std::sync::LazyLock<FitOptions> = std::sync::LazyLock::new(FitOptions::default);

/// Model options shared by fit and cv.
#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// Training CSV: numeric feature columns and a class column.
    pub file: String,
    /// Name of the class column.
    #[arg(long, default_value = "class")]
    pub class_col: String,
    /// Inference engine (the default, vb, gives weight intervals as wide as gibbs' in a
    /// fraction of the time; docs/classify.md).
    #[arg(long, default_value_t = DEFAULTS.engine, value_parser = crate::args::choice::<Engine>())]
    pub engine: Engine,
    /// Gamma prior shape a (the same flag as `fit`'s; `--a` still works), or `learn`: sampled
    /// under p(a) ∝ 1/a by gibbs (Archambeau & Caron 2012 §3.3), type-II ML by vb. The default
    /// is the same model for every engine; a learnt a is small (≈ 0.007 on Wine), very sparse,
    /// and its weights mix slowly (docs/classify.md).
    #[arg(
        long = "prior-shape",
        alias = "a",
        value_name = "A|learn",
        default_value_t = DEFAULTS.a.map_or("learn".into(), |a| a.to_string())
    )]
    pub a: String,
    #[command(flatten)]
    pub design: Design,
    /// Gibbs: kept draws per chain.
    #[arg(long, default_value_t = DEFAULTS.samples)]
    pub samples: usize,
    /// Gibbs: burn-in sweeps per chain.
    #[arg(long, default_value_t = DEFAULTS.burn_in)]
    pub burn_in: usize,
    /// Gibbs: chains.
    #[arg(long, default_value_t = DEFAULTS.chains)]
    pub chains: usize,
    /// Gibbs: keep every N-th sweep after burn-in (the default 2 passes R̂ ≤ 1.01 and ESS ≥ 400
    /// on the Iris, Wine and breast-cancer examples).
    #[arg(long, default_value_t = DEFAULTS.thin)]
    pub thin: usize,
    /// Gibbs: turn off the total-mass move.
    #[arg(long)]
    pub no_rescale: bool,
    /// Random seed.
    #[arg(long, default_value_t = DEFAULTS.seed)]
    pub seed: u64,
    /// vb: the covariance of the log-weights behind its weight intervals (the report's, the model
    /// file's q_log_cov). linear-response (the default): Giordano, Broderick & Jordan 2015's
    /// correction, as wide as the Gibbs sampler's; mean-field: the Gamma factors' own (Archambeau
    /// & Caron 2012 §3.4 as stated), about half as wide (docs/classify.md). Weights and
    /// predictions, and so cv's scores, are the same either way.
    #[arg(long, value_name = "KIND", value_parser = ["linear-response", "mean-field"])]
    pub covariance: Option<String>,
}

impl ModelArgs {
    /// Gibbs sweeps over all chains (burn-in, then kept draws × thinning).
    fn sweeps(&self) -> usize {
        self.samples
            .saturating_mul(self.thin.max(1))
            .saturating_add(self.burn_in)
            .saturating_mul(self.chains)
    }

    /// The shape: a number, or None for `learn`.
    fn shape(&self) -> Result<Option<f64>> {
        if self.a.trim() == "learn" {
            if self.engine == Engine::Em {
                bail!(
                    "invalid option --prior-shape: em fixes the shape (learn it with --engine gibbs \
                     or vb, or scan it with `classify path`)"
                );
            }
            return Ok(None);
        }
        match self.a.trim().parse::<f64>() {
            Ok(a) if a.is_finite() && a > 0.0 => Ok(Some(a)),
            _ => bail!(
                "invalid option --prior-shape: expected a positive number or learn, got {:?}",
                plackett::io::output::short_name(&self.a, 40)
            ),
        }
    }

    fn options(&self) -> Result<FitOptions> {
        let a = self.shape()?;
        if !(self.design.b.is_finite() && self.design.b > 0.0) {
            bail!(
                "invalid option --prior-rate: the Gamma rate must be positive, got {}",
                self.design.b
            );
        }
        if self.samples == 0 || self.chains == 0 {
            bail!("invalid option --samples/--chains: need at least one");
        }
        let vb_covariance = match &self.covariance {
            None => Default::default(),
            Some(_) if self.engine != Engine::Vb => {
                bail!("invalid option --covariance: only --engine vb has a choice of covariance")
            }
            Some(c) => plackett::infer::linear_response::VbCovariance::parse(c)?,
        };
        Ok(FitOptions {
            vb_covariance,
            engine: self.engine,
            a,
            b: self.design.b,
            pairwise: self.design.pairwise,
            samples: self.samples,
            burn_in: self.burn_in,
            chains: self.chains,
            thin: self.thin,
            rescale: !self.no_rescale,
            seed: self.seed,
            ..FitOptions::default()
        })
    }
}

/// `plackett classify fit`.
#[derive(Args, Debug)]
pub struct FitArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Write the fitted model (JSON) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "MODEL.json")]
    pub model_out: Option<String>,
    #[command(flatten)]
    pub printed: crate::args::Printed,
    /// Write an HTML report (facts, every class's weights with intervals,
    /// confusion matrix, probability of the true class, ROC curves) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
}

/// `plackett classify predict`.
#[derive(Args, Debug)]
pub struct PredictArgs {
    /// Model file written by `classify fit --model-out` (as every other
    /// `predict` takes it; `--model MODEL` still works).
    #[arg(value_name = "MODEL")]
    pub model_pos: String,
    /// Rows to classify (same feature columns; a class column is ignored).
    #[arg(value_name = "FILE")]
    pub file_pos: Option<String>,
    /// The model file, the older spelling.
    #[arg(long = "model", value_name = "MODEL.json", hide = true)]
    pub model_flag: Option<String>,
    /// Output format.
    #[arg(long, default_value = "csv", value_parser = ["csv", "json"])]
    pub output: String,
    /// Write the output here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
}

/// `plackett classify cv`.
#[derive(Args, Debug)]
pub struct CvArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Number of random train/test splits (Archambeau & Caron 2012's protocol). A split
    /// is one train/test partition in every cross-validation command.
    #[arg(long, default_value_t = ClassifierCvOptions::default().splits)]
    pub splits: usize,
    /// Held-out fraction per split: a number in (0, 1) or a fraction such as 1/3.
    #[arg(long, default_value = "1/3", value_parser = parse_fraction)]
    pub test_fraction: f64,
    /// Stratified K-fold cross-validation instead of random splits (as `plackett cv` and
    /// `mil cv`): K folds, each one split [default: off].
    #[arg(long, value_name = "K", conflicts_with_all = ["splits", "test_fraction"])]
    pub folds: Option<usize>,
    /// With --folds: repeat the K folds R times, each with its own shuffle.
    #[arg(long, value_name = "R", default_value_t = 1, requires = "folds")]
    pub repeats: usize,
    #[command(flatten)]
    pub printed: crate::args::Printed,
    /// Write the held-out row indices of every split (JSON lists, 0-based data rows) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.json")]
    pub splits_out: Option<String>,
    /// Write an HTML report (misclassification over splits, pooled held-out ROC curves,
    /// calibration of the held-out predictions) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
}

/// `plackett classify path`.
#[derive(Args, Debug)]
pub struct PathArgs {
    /// Training CSV.
    pub file: String,
    /// Name of the class column.
    #[arg(long, default_value = "class")]
    pub class_col: String,
    /// em: MAP (exact zeros); vb: posterior mean; gibbs: posterior mean and median.
    #[arg(long, default_value = "em", value_parser = crate::args::choice::<Engine>())]
    pub engine: Engine,
    /// Values of the Gamma shape a: LO:HI:N (log-spaced) or a comma list; fitted from the
    /// largest down (`--a-grid` still works).
    #[arg(
        long = "prior-shape-grid",
        alias = "a-grid",
        default_value = "0.01:10:25",
        value_name = "LO:HI:N"
    )]
    pub a_grid: String,
    #[command(flatten)]
    pub design: Design,
    /// Random seed (gibbs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the path (CSV: a, class, feature, weight[, median]) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.csv")]
    pub out: String,
    /// Write an SVG plot of the path here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.svg")]
    pub plot: Option<String>,
}

/// Run `plackett classify …`.
pub fn run(c: &ClassifyCommand) -> Result<()> {
    match c {
        ClassifyCommand::Fit(a) => run_fit(a),
        ClassifyCommand::Predict(a) => run_predict(a),
        ClassifyCommand::Cv(a) => run_cv(a),
        ClassifyCommand::Path(a) => run_path(a),
    }
}

fn load(path: &str, class_col: &str) -> Result<plackett::classify::Table> {
    let text = read_text(path)?;
    Ok(read_table(path, &text, class_col, true)?)
}

fn run_fit(a: &FitArgs) -> Result<()> {
    let m = &a.model;
    let mut opts = m.options()?;
    let t = load(&m.file, &m.class_col)?;
    let rows: Vec<usize> = (0..t.x.len()).collect();
    let progress = crate::progress::Progress::new(m.sweeps() as u64, "sampling");
    if opts.engine == Engine::Gibbs {
        opts.observer = Some(progress.observer());
    }
    let start = std::time::Instant::now();
    let f = fit(&m.file, &m.class_col, &t, &rows, &opts);
    progress.finish();
    let f = f?;
    let seconds = start.elapsed().as_secs_f64();
    let model = &f.model;
    let summary = f.summary(&m.file, &t, Some(seconds))?;
    let notes: Vec<String> = summary.notes.iter().map(|n| crate::cli_text(n)).collect();
    let mut doc = summary.doc.clone();
    doc["notes"] = json!(notes);
    let text = match a.printed.output.as_str() {
        "json" => serde_json::to_string_pretty(&doc)? + "\n",
        _ => fit_table(model, &doc, &notes),
    };
    // The model and the page are written together, or neither.
    let model_text = serde_json::to_string(model)? + "\n";
    let page = a.report.as_ref().map(|_| {
        plackett::report::classify::fit_page(&plackett::report::classify::ClassifyView {
            title: format!("plackett classify fit {}", m.file),
            outcome: &f,
            summary: &summary,
            class_names: None,
            rows: "the training rows",
        })
    });
    let mut files: Vec<(&str, &[u8])> = Vec::new();
    if let Some(p) = &a.model_out {
        files.push((p, model_text.as_bytes()));
    }
    if let (Some(p), Some(page)) = (&a.report, &page) {
        files.push((p, page.as_bytes()));
    }
    crate::outputs::write_all(&files)?;
    crate::deliver(&a.printed.out, &text)
}

fn fit_table(model: &Fitted, s: &Value, notes: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PL regression classifier, engine {}, {} rows, {} classes, {} transformed features, a = {:.4}",
        model.engine.name(),
        s["n"],
        model.classes.len(),
        model.transforms.len(),
        model.a
    );
    // The engine's status as `fit` prints it: a sampler's sweeps and
    // mixing checks, an optimiser's stopping rule; then the objective.
    let num = |key: &str| s.get(key).and_then(Value::as_f64);
    let iterations = s["iterations"].as_u64().unwrap_or(0) as usize;
    let mixing = num("max_rhat").zip(num("min_ess"));
    let converged = s["converged"].as_bool().unwrap_or(false);
    let _ = writeln!(
        out,
        "{}",
        plackett::posterior::diagnostics::status_line(converged, iterations, mixing)
    );
    if let Some(e) = num("min_ess_geyer") {
        let _ = writeln!(out, "min ESS by Archambeau & Caron 2012's estimator {e:.0}");
    }
    if let Some(acc) = num("a_acceptance") {
        let _ = writeln!(out, "acceptance of the moves of a {acc:.2}");
    }
    if let Some(z) = s.get("zeros").and_then(Value::as_u64) {
        let _ = writeln!(out, "exact zeros among the weights {z}");
    }
    for (key, label) in [
        ("log_posterior", "log posterior"),
        ("free_energy", "free energy"),
    ] {
        if let Some(v) = num(key) {
            let _ = writeln!(out, "{label} {v:.4}");
        }
    }
    let _ = writeln!(
        out,
        "training misclassification: {:.4}",
        s["training_misclassification"].as_f64().unwrap_or(f64::NAN)
    );
    let _ = writeln!(
        out,
        "\nnormalised weights λ/Σλ ({}):",
        if model.engine == Engine::Em {
            "MAP"
        } else {
            "posterior mean; 95% intervals in --output json's weight_intervals and --report"
        }
    );
    let w = column_width(model.transforms.iter().map(String::as_str), 8);
    let _ = write!(out, "{:<w$}", "feature");
    for c in &model.classes {
        let _ = write!(out, " {:>12}", truncate(c, 12));
    }
    out.push('\n');
    for (j, name) in model.transforms.iter().enumerate() {
        let _ = write!(out, "{:<w$}", short_name(name, NAME_WIDTH));
        for row in &model.weights {
            let _ = write!(out, " {:>12.6}", row[j]);
        }
        out.push('\n');
    }
    for n in notes {
        let _ = writeln!(out, "\nnote: {n}");
    }
    out
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

impl PredictArgs {
    /// (model, rows): `MODEL FILE`, or `--model MODEL FILE`.
    fn paths(&self) -> Result<(&str, &str)> {
        match (&self.model_flag, &self.file_pos) {
            (None, Some(f)) => Ok((&self.model_pos, f)),
            (Some(m), None) => Ok((m, &self.model_pos)),
            (None, None) => {
                bail!("classify predict takes MODEL FILE: the model file, then the rows")
            }
            (Some(_), Some(_)) => {
                bail!(
                    "invalid option --model: give the model either as --model or as the first argument"
                )
            }
        }
    }
}

fn run_predict(a: &PredictArgs) -> Result<()> {
    let (model_path, file) = a.paths()?;
    let text = read_text(model_path)?;
    let model = Fitted::from_json(model_path, &text)?;
    let data = read_text(file)?;
    let t = read_table(file, &data, &model.class_col, false)?;
    let prob = model.predict(file, &t)?;
    let best = |p: &[f64]| {
        (0..p.len())
            .max_by(|&i, &j| p[i].total_cmp(&p[j]))
            .unwrap_or(0)
    };
    let out = match a.output.as_str() {
        "json" => {
            let rows: Vec<Value> = prob
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let m: serde_json::Map<String, Value> = model
                        .classes
                        .iter()
                        .zip(p)
                        .map(|(c, v)| (c.clone(), json!(v)))
                        .collect();
                    json!({"row": i, "predicted": model.classes[best(p)], "probabilities": m})
                })
                .collect();
            serde_json::to_string_pretty(&json!({"classes": model.classes, "rows": rows}))? + "\n"
        }
        _ => {
            let mut w = csv::Writer::from_writer(Vec::new());
            let mut header = vec!["row".to_string(), "predicted".to_string()];
            header.extend(model.classes.iter().map(|c| format!("p_{c}")));
            w.write_record(&header)?;
            for (i, p) in prob.iter().enumerate() {
                // Data rows from 0, as `predict` and `mil predict` number them.
                let mut rec = vec![i.to_string(), model.classes[best(p)].clone()];
                rec.extend(p.iter().map(|v| format!("{v}")));
                w.write_record(&rec)?;
            }
            String::from_utf8(w.into_inner().context("csv")?)?
        }
    };
    match &a.out {
        Some(p) => crate::outputs::write(p, out.as_bytes())?,
        None => crate::emit(&out)?,
    }
    Ok(())
}

fn run_cv(a: &CvArgs) -> Result<()> {
    let m = &a.model;
    let mut opts = m.options()?;
    let t = load(&m.file, &m.class_col)?;
    let start = std::time::Instant::now();
    // Gibbs over many splits runs for a while: a bar on a terminal (the
    // other engines take well under a second per split).
    let kfold = a.folds.map(|folds| plackett::classify::cv::KFold {
        folds,
        repeats: a.repeats,
    });
    let n_splits = kfold.map_or(a.splits, |k| k.folds.saturating_mul(k.repeats));
    let progress = crate::progress::Progress::new(
        (m.sweeps() as u64).saturating_mul(n_splits as u64),
        "cross-validating (sampling)",
    );
    if opts.engine == Engine::Gibbs {
        opts.observer = Some(progress.observer());
    }
    let res = cross_validate(
        &m.file,
        &m.class_col,
        &t,
        &ClassifierCvOptions {
            splits: a.splits,
            test_fraction: a.test_fraction,
            seed: m.seed,
            fit: opts,
            kfold,
        },
    );
    progress.finish();
    let res = res?;
    let seconds = start.elapsed().as_secs_f64();
    let mis: Vec<f64> = res.iter().map(|r| r.misclassification).collect();
    // Sds over splits: none (JSON null) for a single split.
    let (mm, ms) = mean_sd_of_repeats(&mis);
    let aucs: Vec<f64> = res.iter().filter_map(|r| r.auc).collect();
    let auc = (!aucs.is_empty()).then(|| {
        let (am, asd) = mean_sd_of_repeats(&aucs);
        json!({"mean": am, "sd": asd})
    });
    let ess: Vec<f64> = res.iter().filter_map(|r| r.min_ess).collect();
    let min_ess = (!ess.is_empty()).then(|| mean(&ess));
    let ess_g: Vec<f64> = res.iter().filter_map(|r| r.min_ess_geyer).collect();
    let min_ess_geyer = (!ess_g.is_empty()).then(|| mean(&ess_g));
    let fit_secs: Vec<f64> = res.iter().map(|r| r.seconds).collect();
    let fs = mean(&fit_secs);
    let a_vals: Vec<f64> = res.iter().map(|r| r.a).collect();
    let (a_mean, a_sd) = mean_sd_of_repeats(&a_vals);
    // The same mixing check as `classify fit`, over the splits' samplers.
    let mut notes: Vec<String> = Vec::new();
    let poor: Vec<&plackett::classify::cv::SplitResult> = res
        .iter()
        .filter(|r| r.max_rhat.is_some_and(|x| x > 1.01) || r.min_ess.is_some_and(|e| e < 400.0))
        .collect();
    if !poor.is_empty() {
        let worst_rhat = poor
            .iter()
            .filter_map(|r| r.max_rhat)
            .fold(f64::NEG_INFINITY, f64::max);
        let worst_ess = poor
            .iter()
            .filter_map(|r| r.min_ess)
            .fold(f64::INFINITY, f64::min);
        notes.push(format!(
            "MCMC warning: {} of {} splits' samplers did not pass split-R̂ ≤ 1.01 and bulk ESS ≥ 400 over the normalised weights (worst: R̂ {worst_rhat:.3}, ESS {worst_ess:.0}); predictive probabilities, which the misclassification and AUC use, mix much faster than single weights, but run longer chains (--samples, --thin) or fix --prior-shape before reading weights",
            poor.len(),
            res.len()
        ));
    }
    let (classes, truth) =
        plackett::classify::data::encode_classes(t.labels.as_ref().expect("required"));
    let calibration = plackett::classify::cv::pooled_calibration(&res, &truth);
    notes.extend(
        calibration
            .as_ref()
            .and_then(plackett::classify::cv::calibration_note),
    );
    let out = json!({
        "engine": m.engine,
        "splits": res.len(),
        "test_fraction": if kfold.is_some() { Value::Null } else { json!(a.test_fraction) },
        "protocol": match kfold {
            Some(k) => format!(
                "stratified {}-fold × {}",
                k.folds,
                plackett::io::output::count(k.repeats, "repeat", "repeats")
            ),
            None => format!("{} random splits, test fraction {}", a.splits, plackett::numerics::sig(a.test_fraction, 3)),
        },
        "misclassification": {"mean": mm, "sd": ms},
        "auc": auc,
        "seconds": seconds,
        "seconds_per_split": fs,
        "min_ess": min_ess,
        "seconds_per_ess": min_ess.map(|e| fs / e),
        "min_ess_geyer": min_ess_geyer,
        "seconds_per_ess_geyer": min_ess_geyer.map(|e| fs / e),
        "max_rhat": res.iter().filter_map(|r| r.max_rhat).reduce(f64::max),
        "a": {"mean": a_mean, "sd": a_sd},
        "calibration": calibration,
        "per_split": res.iter().map(|r| json!({
            "misclassification": r.misclassification, "auc": r.auc, "seconds": r.seconds,
            "min_ess": r.min_ess, "min_ess_geyer": r.min_ess_geyer, "a": r.a})).collect::<Vec<_>>(),
        "notes": notes,
    });
    // The splits file and the page are written together, or neither.
    let splits_text = {
        let splits: Vec<&Vec<usize>> = res.iter().map(|r| &r.test_rows).collect();
        serde_json::to_string(&splits)? + "\n"
    };
    let page = a.report.as_ref().map(|_| {
        plackett::report::classify::cv_page(
            &format!("plackett classify cv {}", m.file),
            out["protocol"].as_str().unwrap_or(""),
            &classes,
            &truth,
            &res,
            calibration.as_ref(),
        )
    });
    let mut files: Vec<(&str, &[u8])> = Vec::new();
    if let Some(p) = &a.splits_out {
        files.push((p, splits_text.as_bytes()));
    }
    if let (Some(p), Some(page)) = (&a.report, &page) {
        files.push((p, page.as_bytes()));
    }
    crate::outputs::write_all(&files)?;
    let text = match a.printed.output.as_str() {
        "json" => serde_json::to_string_pretty(&out)? + "\n",
        _ => cv_table(&out, m.seed, calibration.as_ref()),
    };
    crate::deliver(&a.printed.out, &text)
}

/// The table `classify cv` prints, from its JSON document.
fn cv_table(
    out: &Value,
    seed: u64,
    calibration: Option<&plackett::eval::calibration::Calibration>,
) -> String {
    let num = |v: &Value| v.as_f64();
    let (mm, ms) = (
        num(&out["misclassification"]["mean"]).unwrap_or(f64::NAN),
        num(&out["misclassification"]["sd"]),
    );
    let fs = num(&out["seconds_per_split"]).unwrap_or(f64::NAN);
    let seconds = num(&out["seconds"]).unwrap_or(f64::NAN);
    let (min_ess, min_ess_geyer) = (num(&out["min_ess"]), num(&out["min_ess_geyer"]));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} splits ({}), engine {}, seed {}",
        out["splits"],
        out["protocol"].as_str().unwrap_or(""),
        out["engine"].as_str().unwrap_or(""),
        seed
    );
    let over = if ms.is_some() {
        " (sd over splits)"
    } else {
        ""
    };
    let _ = writeln!(s, "misclassification {}{over}", mean_pm(mm, ms));
    if let Some(v) = &out["auc"].as_object() {
        let m = v["mean"].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(s, "AUC {}", mean_pm(m, v["sd"].as_f64()));
    }
    let am = out["a"]["mean"].as_f64().unwrap_or(f64::NAN);
    let _ = writeln!(s, "Gamma shape a: {}", mean_pm(am, out["a"]["sd"].as_f64()));
    if let Some(c) = &calibration {
        let _ = writeln!(s, "held-out calibration (pooled): {}", c.describe());
    }
    let _ = write!(s, "time per split {fs:.3} s");
    if let Some(e) = min_ess {
        let _ = write!(s, ", min bulk ESS {e:.1}, time/ESS {:.4} s", fs / e);
    }
    if let Some(e) = min_ess_geyer {
        let _ = write!(
            s,
            " (Archambeau & Caron 2012 estimator: min ESS {e:.1}, time/ESS {:.4} s)",
            fs / e
        );
    }
    let _ = writeln!(s, "; total {seconds:.2} s");
    for n in out["notes"].as_array().into_iter().flatten() {
        let n = n.as_str().unwrap_or("");
        let _ = writeln!(s, "note: {n}");
    }
    s
}

fn run_path(a: &PathArgs) -> Result<()> {
    let grid = crate::features::parse_eta_grid(Some(&a.a_grid)).map_err(|e| {
        anyhow::anyhow!(
            "{}",
            e.to_string().replace("`eta_grid`", "`prior_shape_grid`")
        )
    })?;
    if !(a.design.b.is_finite() && a.design.b > 0.0) {
        bail!(
            "invalid option --prior-rate: the Gamma rate must be positive, got {}",
            a.design.b
        );
    }
    let engine = a.engine;
    let t = load(&a.file, &a.class_col)?;
    let path = ClassifierPath::fit(
        &a.file,
        &t,
        engine,
        &grid,
        a.design.b,
        a.design.pairwise,
        a.seed,
    )?;
    let csv_text = path.to_csv()?;
    let svg = a
        .plot
        .as_ref()
        .map(|_| plackett::report::classify::path_svg(&path));
    crate::outputs::write(&a.out, csv_text.as_bytes())?;
    if let (Some(p), Some(s)) = (&a.plot, svg) {
        crate::outputs::write(p, s.as_bytes())?;
    }
    let mut s = path.to_table();
    if let Some(r) = &path.stopped {
        let _ = writeln!(s, "note: {}", crate::cli_text(r));
    }
    crate::emit(&s)
}

/// A number, or `p/q` (so that a default of one third reads `1/3`, not
/// 0.3333333333333333).
fn parse_fraction(s: &str) -> std::result::Result<f64, String> {
    let v = match s.split_once('/') {
        Some((p, q)) => {
            let (p, q): (f64, f64) = (
                p.trim()
                    .parse()
                    .map_err(|_| format!("not a fraction: {s:?}"))?,
                q.trim()
                    .parse()
                    .map_err(|_| format!("not a fraction: {s:?}"))?,
            );
            p / q
        }
        None => s
            .trim()
            .parse()
            .map_err(|_| format!("not a number: {s:?}"))?,
    };
    Ok(v)
}
