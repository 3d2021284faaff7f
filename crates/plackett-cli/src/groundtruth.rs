//! `plackett aggregate` and `plackett evaluate`: differential diagnoses →
//! plausibilities → uncertainty-adjusted metrics.

use anyhow::{Result, bail};
use clap::Args;
use plackett::groundtruth::describe::describe;
use plackett::groundtruth::run::{Predictions, run};
use plackett::groundtruth::settings::{
    AggregateSettings, MethodName, classes_note, parse_index_list, parse_preset, parse_prirn_zero,
    parse_reliabilities, parse_tie_split, select_cases,
};
use plackett::groundtruth::summary::{
    EvaluationRun, aggregate_csv, aggregate_json, aggregate_table, evaluate_document,
    evaluate_table,
};
use plackett::io::selectors::{Selectors, parse_selectors};
use plackett::io::{ItemsSpec, read_text};

/// Options shared by `aggregate` and `evaluate`.
#[derive(Args, Debug, Clone)]
pub struct AggArgs {
    /// Class names (one per line) or a count K; default: max id + 1.
    #[arg(long, value_name = "FILE|K")]
    pub classes: Option<String>,
    /// Aggregation model.
    #[arg(long, default_value = "pl", value_parser = crate::args::choice::<MethodName>())]
    pub method: MethodName,
    /// Reliability: PL repetitions (integer; default 3), PrIRN concentration
    /// (default 30). A comma list evaluates several (evaluate).
    #[arg(long, value_name = "R[,R…]")]
    pub reliability: Option<String>,
    /// Plausibility samples per case.
    #[arg(long, default_value_t = 1000)]
    pub samples: usize,
    /// PL Gibbs burn-in sweeps per case.
    #[arg(long, default_value_t = 500)]
    pub burn_in: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// PL Gamma prior shape per class (default 1/K, exact collapse of
    /// never-ranked classes).
    #[arg(long, allow_negative_numbers = true)]
    pub prior_shape: Option<f64>,
    /// PL Gamma prior rate (the plausibilities do not depend on it).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub prior_rate: f64,
    /// IRN weight of a tied block i (1-based): `split` shares 1/i among its classes (Stutz et
    /// al. 2023, Eq. 3); `no-split` gives each class 1/i (their reference code). Default:
    /// split, or no-split with --preset paper.
    #[arg(long, value_parser = ["split", "no-split"])]
    pub irn_ties: Option<String>,
    /// PrIRN treatment of classes nobody ranked: `support` (literal
    /// Dirichlet on IRN's support) or `smooth:A` (add A to every class)
    /// [default: support, or smooth:0.01 with --preset paper].
    #[arg(long, value_name = "support|smooth:A")]
    pub prirn_zero: Option<String>,
    /// The reference code's choices (PL: shape 1 per ranked class and for
    /// the collapsed others, rate 1; IRN no-split; PrIRN smoothing 0.01).
    #[arg(long, value_parser = ["paper"])]
    pub preset: Option<String>,
    /// Only these case indices (comma-separated, 0-based).
    #[arg(long, value_name = "LIST")]
    pub cases: Option<String>,
    /// Risk level per class (0 low, 1 medium, 2 high; one per line).
    #[arg(long, value_name = "FILE")]
    pub risks: Option<String>,
    /// Output format: a table for people, or JSON (the documented keys) / CSV
    /// (aggregate: one row per case) for programs.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
    pub output: String,
    /// Write the output here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
    /// Self-contained HTML report.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
    /// Cases to plot individually in the report (default: the first of --cases).
    #[arg(long, value_name = "LIST")]
    pub plot_cases: Option<String>,
}

/// `plackett aggregate <SELECTORS.json>`.
#[derive(Args, Debug)]
pub struct AggregateArgs {
    /// Selectors JSON (case → annotator → block → class ids).
    pub file: String,
    #[command(flatten)]
    pub common: AggArgs,
    /// Print dataset statistics and exit.
    #[arg(long)]
    pub describe: bool,
}

/// `plackett evaluate`.
#[derive(Args, Debug)]
pub struct EvaluateArgs {
    /// Selectors JSON with the annotations (the input file, positional like every other
    /// command's; `--annotations FILE` still works).
    #[arg(
        value_name = "ANNOTATIONS",
        required_unless_present = "annotations_flag"
    )]
    pub annotations_file: Option<String>,
    /// The old spelling of the positional ANNOTATIONS.
    #[arg(
        long = "annotations",
        value_name = "FILE",
        hide = true,
        conflicts_with = "annotations_file"
    )]
    pub annotations_flag: Option<String>,
    /// N×K score matrix (whitespace-separated, one row per case), or
    /// `annotator:leave-one-out`.
    #[arg(long)]
    pub predictions: String,
    /// Prediction-set sizes.
    #[arg(long, default_value = "1,2,3", value_name = "K[,K…]")]
    pub k: String,
    #[command(flatten)]
    pub common: AggArgs,
}

/// The library's settings from the flags.
fn settings(a: &AggArgs) -> Result<AggregateSettings> {
    let s = AggregateSettings {
        method: a.method,
        samples: a.samples,
        burn_in: a.burn_in,
        seed: a.seed,
        prior_shape: a.prior_shape,
        prior_rate: a.prior_rate,
        irn_ties: a.irn_ties.as_deref().map(parse_tie_split).transpose()?,
        prirn_zero: a.prirn_zero.as_deref().map(parse_prirn_zero).transpose()?,
        paper: a
            .preset
            .as_deref()
            .map(parse_preset)
            .transpose()?
            .unwrap_or(false),
    };
    s.check()?;
    Ok(s)
}

fn load(path: &str, a: &AggArgs) -> Result<(Selectors, Vec<String>, Vec<String>)> {
    let (k, names) = match &a.classes {
        Some(c) => match ItemsSpec::from_arg(c)? {
            ItemsSpec::Names(n) => (Some(n.len()), n),
            ItemsSpec::Count(k) => (Some(k), (0..k).map(|i| i.to_string()).collect()),
        },
        None => (None, Vec::new()),
    };
    let text = read_text(path)?;
    let sel = parse_selectors(path, &text, k)?;
    let names = if names.is_empty() {
        (0..sel.n_classes).map(|i| i.to_string()).collect()
    } else {
        names
    };
    let mut notes = Vec::new();
    if a.classes.is_none() {
        notes.push(crate::cli_text(&classes_note(&sel)));
    }
    Ok((sel, names, notes))
}

fn reliabilities(a: &AggArgs) -> Result<Vec<Option<f64>>> {
    Ok(match &a.reliability {
        None => vec![None],
        Some(s) => parse_reliabilities(s)?.into_iter().map(Some).collect(),
    })
}

/// The cases to run (`--cases`) and the risk matrix (`--risks`), if any.
fn cases_and_risks(a: &AggArgs, sel: &Selectors) -> Result<(Vec<usize>, Option<Vec<u8>>)> {
    let cases = case_list(a, sel)?;
    let risks = a
        .risks
        .as_deref()
        .map(|p| plackett::io::selectors::read_risks(p, sel.n_classes))
        .transpose()?;
    Ok((cases, risks))
}

fn case_list(a: &AggArgs, sel: &Selectors) -> Result<Vec<usize>> {
    let given = a
        .cases
        .as_deref()
        .map(|s| parse_index_list(s, "cases"))
        .transpose()?;
    Ok(select_cases(sel, given.as_deref())?)
}

/// Run `plackett aggregate`.
pub fn run_aggregate(a: &AggregateArgs) -> Result<()> {
    let c = &a.common;
    let st = settings(c)?;
    let (sel, names, notes) = load(&a.file, c)?;
    if a.describe {
        return crate::deliver(&c.out, &describe(&sel).to_text());
    }
    let (cases, risks) = cases_and_risks(c, &sel)?;
    let rel = reliabilities(c)?;
    if rel.len() != 1 {
        bail!("invalid option --reliability: aggregate takes one value (evaluate sweeps several)");
    }
    let cfg = st.config(rel[0], sel.n_classes, &[1, 2, 3])?;
    let plot = plot_cases(c, &cases)?;
    let progress = crate::progress::Progress::new(cases.len() as u64, "cases");
    let res = run(
        &sel,
        &cases,
        &cfg,
        risks.as_deref(),
        &Predictions::None,
        &plot,
        Some(&progress.observer()),
    );
    progress.finish();
    let res = res?;
    let text = match c.output.as_str() {
        "csv" => aggregate_csv(&res, &names),
        "table" => aggregate_table(&res, &names, &cfg.method, &notes),
        _ => {
            let v = aggregate_json(&res, &names, sel.n_classes, &cfg.method, c.seed, &notes);
            serde_json::to_string_pretty(&v)? + "\n"
        }
    };
    if let Some(path) = &c.report {
        let page = plackett::report::groundtruth::aggregate_page(
            &format!("plackett aggregate: {}", a.file),
            &cfg.method,
            &res,
            &names,
        );
        crate::outputs::write(path, page.as_bytes())?;
    }
    crate::deliver(&c.out, &text)?;
    if c.output == "csv" {
        crate::notes_to_stderr(&notes);
    }
    Ok(())
}

fn plot_cases(c: &AggArgs, cases: &[usize]) -> Result<Vec<usize>> {
    Ok(match &c.plot_cases {
        Some(s) => parse_index_list(s, "plot_cases")?,
        None => {
            if c.report.is_some() {
                cases.iter().take(1).copied().collect()
            } else {
                Vec::new()
            }
        }
    })
}

impl EvaluateArgs {
    /// The annotations file, positional or by its old flag.
    fn annotations(&self) -> &str {
        self.annotations_file
            .as_deref()
            .or(self.annotations_flag.as_deref())
            .expect("clap requires one of the two")
    }
}

/// Run `plackett evaluate`.
pub fn run_evaluate(a: &EvaluateArgs) -> Result<()> {
    if a.common.output == "csv" {
        bail!(
            "invalid option --output: evaluate writes table or json (csv is aggregate's per-case form)"
        );
    }
    let c = &a.common;
    let st = settings(c)?;
    let ks = parse_index_list(&a.k, "k")?;
    let (sel, names, notes) = load(a.annotations(), c)?;
    let (cases, risks) = cases_and_risks(c, &sel)?;
    let preds = if a.predictions == "annotator:leave-one-out" {
        Predictions::LeaveOneAnnotatorOut
    } else if a.predictions.contains(':') && !std::path::Path::new(&a.predictions).exists() {
        bail!("invalid option --predictions: expected a score file or annotator:leave-one-out");
    } else {
        Predictions::Scores(plackett::io::selectors::read_scores(
            &a.predictions,
            cases.len(),
            sel.n_classes,
        )?)
    };
    let rels = reliabilities(c)?;
    let cfgs = rels
        .iter()
        .map(|r| st.evaluate_config(*r, sel.n_classes, &ks))
        .collect::<plackett::Result<Vec<_>>>()?;
    let plot = plot_cases(c, &cases)?;
    let units = if matches!(preds, Predictions::LeaveOneAnnotatorOut) {
        2
    } else {
        1
    };
    let progress =
        crate::progress::Progress::new((cases.len() * rels.len() * units) as u64, "cases");
    let mut runs: Vec<EvaluationRun> = Vec::new();
    for (r, cfg) in rels.iter().zip(cfgs) {
        let res = run(
            &sel,
            &cases,
            &cfg,
            risks.as_deref(),
            &preds,
            &plot,
            Some(&progress.observer()),
        );
        runs.push((*r, cfg.method, res?));
    }
    progress.finish();
    let doc = evaluate_document(&runs, &ks, &notes, &a.predictions);
    if let Some(path) = &c.report {
        let page = plackett::report::groundtruth::evaluate_page(
            &format!("plackett evaluate: {}", a.annotations()),
            &runs,
            &ks,
            &names,
        );
        crate::outputs::write(path, page.as_bytes())?;
    }
    let text = match c.output.as_str() {
        "table" => evaluate_table(&doc, &ks),
        _ => serde_json::to_string_pretty(&doc)? + "\n",
    };
    crate::deliver(&c.out, &text)
}
