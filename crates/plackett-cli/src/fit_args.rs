//! The options of `plackett fit` and the helpers its three wings (one
//! population, `--components`, `--adherence`) and `predict`/`cv` share:
//! below every command module, so that none of them imports another.

use crate::args::{AlgorithmArg, Engine, Output, PriorArg, TiesArg, choice};
use anyhow::{Result, bail};
use clap::Args;
use plackett::data::Dataset;
use plackett::io::output::csv_field;
use plackett::io::{Format, ItemsSpec, ReadOptions, read_path};

/// What to read and how (shared by `fit` and `cv`).
#[derive(Args, Debug, Clone)]
pub struct DataArgs {
    /// Input file (CSV, PrefLib .soc/.soi/.toc/.toi, JSON, or selectors JSON).
    pub file: String,
    /// Input format (default: from the extension).
    #[arg(long, value_parser = choice::<Format>())]
    pub format: Option<Format>,
    /// CSV column naming the ranking.
    #[arg(long, default_value = "ranking")]
    pub ranking_col: String,
    /// CSV column holding the rank (lower is better; equal ranks form a tied group).
    #[arg(long, default_value = "rank")]
    pub rank_col: String,
    /// CSV column naming the item.
    #[arg(long, default_value = "item")]
    pub item_col: String,
    /// CSV column with observation weights (optional; constant within a ranking).
    #[arg(long, default_value = "weight")]
    pub weight_col: String,
    /// CSV column naming who made each ranking (optional; read only by `fit --adherence`).
    #[arg(long, default_value = "ranker")]
    pub ranker_col: String,
    /// Rankings are top-k lists of the whole item universe (unlisted items rank below).
    #[arg(long)]
    pub top_k: bool,
    /// Declare the item universe: a file of names (one per line) or a count N (ids 0..N-1).
    #[arg(long, value_name = "FILE|N")]
    pub items: Option<String>,
    /// Reading of tied groups: unknown order, or ties as events (Davidson–Luce).
    #[arg(long, value_enum, default_value_t = TiesArg::Unknown)]
    pub ties: TiesArg,
    /// Drop these items from every observation before fitting (comma-separated names).
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub exclude: Option<String>,
    /// Pairs input: the two item columns (default: the first two columns).
    #[arg(long, value_name = "A,B", hide_short_help = true)]
    pub item_cols: Option<String>,
    /// Selectors input: use only this case (0-based).
    #[arg(long, hide_short_help = true)]
    pub case: Option<usize>,
}

/// Options of `plackett fit`.
#[derive(Args, Debug)]
pub struct FitArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Inference engine.
    #[arg(long, value_enum, default_value_t = Engine::Mle, help_heading = "Engine")]
    pub engine: Engine,
    /// Optimiser for mle/map.
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Auto, help_heading = "Point estimates (mle, map)")]
    pub algorithm: AlgorithmArg,
    /// Prior family for map: Gamma on worths, or Normal on log-worths.
    #[arg(long, value_enum, default_value_t = PriorArg::Gamma, help_heading = "Priors")]
    pub prior: PriorArg,
    /// Gamma prior shape on worths (map, gibbs, ep, vb).
    #[arg(
        long,
        default_value_t = 2.0,
        allow_negative_numbers = true,
        help_heading = "Priors"
    )]
    pub prior_shape: f64,
    /// Gamma prior rate on worths (map, gibbs, ep, vb).
    #[arg(
        long,
        default_value_t = 1.0,
        allow_negative_numbers = true,
        help_heading = "Priors"
    )]
    pub prior_rate: f64,
    /// Normal prior mean of log-worths (with --prior normal).
    #[arg(
        long,
        default_value_t = 0.0,
        allow_negative_numbers = true,
        help_heading = "Priors"
    )]
    pub prior_mean: f64,
    /// Normal prior sd of log-worths (with --prior normal; 1e-100 to 1e100).
    #[arg(
        long,
        default_value_t = 1.0,
        allow_negative_numbers = true,
        help_heading = "Priors"
    )]
    pub prior_sd: f64,
    /// Pseudo-rankings: W wins and W losses per item against a ghost item of worth 1.
    #[arg(
        long,
        value_name = "W",
        allow_negative_numbers = true,
        help_heading = "Point estimates (mle, map)"
    )]
    pub pseudo: Option<f64>,
    /// Report log-worths relative to this item (default: mean-centred).
    #[arg(long, value_name = "NAME", help_heading = "Output")]
    pub reference: Option<String>,
    /// Convergence tolerance [default: 1e-10 on the score's max-norm for mle/map and vb's
    /// relative ELBO change, 1e-8 on ep's relative marginal change; not used by gibbs].
    #[arg(
        long,
        value_name = "TOL",
        allow_negative_numbers = true,
        help_heading = "Convergence (mle, map, ep, vb)"
    )]
    pub tol: Option<f64>,
    /// Iteration cap [default: per engine: 100000 MM sweeps / 200 Newton steps, 5000 EP
    /// passes, 100000 VB iterations; not used by gibbs].
    #[arg(
        long,
        value_name = "N",
        help_heading = "Convergence (mle, map, ep, vb)"
    )]
    pub max_iter: Option<usize>,
    /// Skip standard errors (large problems).
    #[arg(long, help_heading = "Point estimates (mle, map)")]
    pub no_se: bool,
    /// Report a fit that did not reach its tolerance within --max-iter
    /// and exit 0; without it such a run writes nothing and exits 3.
    #[arg(long, help_heading = "Convergence (mle, map, ep, vb)")]
    pub allow_nonconvergence: bool,
    /// Quasi-variances of the log-worths with their worst relative errors
    /// (Firth & de Menezes 2004; PlackettLuce's qvcalc); mle, map, and vb
    /// with its linear-response covariance.
    #[arg(long, help_heading = "Point estimates (mle, map)")]
    pub quasi: bool,
    /// Write the covariance matrix of the log-worths, in the reported gauge, as CSV (mle, map; vb with its linear-response covariance).
    #[arg(value_hint = clap::ValueHint::FilePath,
        long,
        value_name = "FILE.csv",
        help_heading = "Point estimates (mle, map)"
    )]
    pub vcov: Option<String>,
    /// Posterior draws kept per chain (gibbs).
    #[arg(long, default_value_t = 5000, help_heading = "Gibbs sampler")]
    pub samples: usize,
    /// Burn-in sweeps per chain (gibbs).
    #[arg(long, default_value_t = 1000, help_heading = "Gibbs sampler")]
    pub burn_in: usize,
    /// Number of chains (gibbs).
    #[arg(long, default_value_t = 4, help_heading = "Gibbs sampler")]
    pub chains: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1, help_heading = "Engine")]
    pub seed: u64,
    /// Item features CSV (item,f1,f2,…) for PL regression.
    #[arg(long, help_heading = "Item features (PL regression)")]
    pub features: Option<String>,
    /// Prior precision of regression weights, or `auto` (chosen by the evidence over
    /// --eta-grid) [default: 1; not used by mle].
    #[arg(long, help_heading = "Item features (PL regression)")]
    pub eta: Option<String>,
    /// Standardise feature columns before fitting (coefficients are reported on the
    /// original scale) [default: on].
    #[arg(long, value_parser = ["on", "off"], help_heading = "Item features (PL regression)")]
    pub standardize: Option<String>,
    /// With --features and --engine vb (or --eta auto): Gaussian VI on the exact bound, or
    /// Guo et al. (2019)'s Algorithm 1 [default: exact].
    #[arg(hide_short_help = true, long, value_parser = ["exact", "guo"], help_heading = "Item features (PL regression)")]
    pub vi: Option<String>,
    /// With --eta auto: the η grid, LO:HI:N (log-spaced) or a comma list [default:
    /// 1e-3:1e3:25].
    #[arg(
        hide_short_help = true,
        long,
        value_name = "LO:HI:N",
        help_heading = "Item features (PL regression)"
    )]
    pub eta_grid: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Output::Table, help_heading = "Output")]
    pub output: Output,
    /// Draws sampled from the EP/VB approximate posterior (for intervals and exports).
    #[arg(
        hide_short_help = true,
        long,
        default_value_t = 4000,
        help_heading = "Bayesian outputs (gibbs, ep, vb)"
    )]
    pub draws: usize,
    /// vb: the covariance behind its sds, intervals, draws and --vcov. linear-response (the default): Giordano, Broderick & Jordan 2015's correction, the observed information at VB's means plus the Gamma prior's curvature; mean-field: the Gamma factors' own, whose nominal 90% intervals cover about 84% (docs/engines.md). Means and ELBO are the same either way.
    #[arg(
        hide_short_help = true,
        long,
        default_value = "linear-response",
        value_parser = ["mean-field", "linear-response"],
        help_heading = "Bayesian outputs (gibbs, ep, vb)"
    )]
    pub covariance: String,
    /// Export posterior draws of normalised log-worths (CSV, or JSON if the name ends in .json).
    #[arg(value_hint = clap::ValueHint::FilePath,
        hide_short_help = true,
        long,
        value_name = "FILE",
        help_heading = "Bayesian outputs (gibbs, ep, vb)"
    )]
    pub draws_out: Option<String>,
    /// Write the output to this file instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE", help_heading = "Output")]
    pub out: Option<String>,
    /// Save the fitted model (item names and draws of the normalised log-worths; one
    /// draw at the estimate for mle/map, at most 4,000 posterior draws otherwise; the
    /// tie prevalences with `--ties event`; with `--components`, the selected mixture's
    /// weights and log-worths; with `--adherence`, every ranker's adherence and their
    /// prior) for `plackett predict`.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "MODEL.json", help_heading = "Output")]
    pub model_out: Option<String>,
    /// Probability that A beats B (repeatable): `--compare "A,B"`; with three or
    /// more items, `--compare "A,B,C"`, the probability that each is chosen first
    /// from the set (choice probabilities, like choix's `probabilities`). With
    /// `--adherence`, as a new ranker would choose (adherence integrated over its prior).
    #[arg(long, value_name = "A,B[,C…]", help_heading = "Output")]
    pub compare: Vec<String>,
    /// Write rank marginals (P(item at each place in a race among all fitted items; under --ties event, rankings with ties, tied items sharing their place; with --components, for a ranker drawn from the fitted mixture; with --adherence, for a new ranker, its adherence drawn from the prior) as CSV.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.csv", help_heading = "Output")]
    pub rank_marginals: Option<String>,
    /// Held-out observations (same format options) for the posterior predictive log-likelihood.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub test: Option<String>,
    /// Write a self-contained HTML report.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html", help_heading = "Output")]
    pub report: Option<String>,
    /// Finite PL mixture (Mollica & Tardella 2017): G components, a range LO:HI
    /// (fit each, report the lowest BIC) or `auto` (1:5) [default: 1, one population].
    #[arg(
        long,
        value_name = "G|LO:HI|auto",
        help_heading = "Mixtures (heterogeneous rankers)"
    )]
    pub components: Option<String>,
    /// Random starts of the mixture EM (the best is kept).
    #[arg(
        hide_short_help = true,
        long,
        default_value_t = 10,
        value_name = "N",
        help_heading = "Mixtures (heterogeneous rankers)"
    )]
    pub starts: usize,
    /// Symmetric Dirichlet prior on the mixture weights (with --engine map; 1 = flat).
    #[arg(
        hide_short_help = true,
        long,
        default_value_t = 1.0,
        allow_negative_numbers = true,
        value_name = "ALPHA",
        help_heading = "Mixtures (heterogeneous rankers)"
    )]
    pub dirichlet: f64,
    /// Ranker adherence (Raman & Joachims 2014; PlackettLuce's adherence/gamma): one
    /// multiplier per ranker on the log-worths, with a Gamma prior; rankers from the
    /// long CSV's ranker column or the JSON's "rankers" (else one per ranking).
    #[arg(long, help_heading = "Adherence (heterogeneous rankers)")]
    pub adherence: bool,
    /// Gamma shape of each ranker's adherence (≥ 1; shape = rate puts its mean at 1).
    #[arg(
        hide_short_help = true,
        long,
        default_value_t = 10.0,
        allow_negative_numbers = true,
        value_name = "A",
        help_heading = "Adherence (heterogeneous rankers)"
    )]
    pub adherence_shape: f64,
    /// Gamma rate of each ranker's adherence (> 0).
    #[arg(
        hide_short_help = true,
        long,
        default_value_t = 10.0,
        allow_negative_numbers = true,
        value_name = "B",
        help_heading = "Adherence (heterogeneous rankers)"
    )]
    pub adherence_rate: f64,
    /// Fixed adherences, one per ranker in order of first appearance (no estimation).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "E1,E2,…",
        help_heading = "Adherence (heterogeneous rankers)"
    )]
    pub fixed_adherence: Option<String>,
}

fn parse_item_cols(s: Option<&str>) -> Result<Option<(String, String)>> {
    Ok(match s {
        None => None,
        Some(v) => {
            let p: Vec<&str> = v.split(',').map(|x| x.trim()).collect();
            if p.len() != 2 || p.iter().any(|x| x.is_empty()) {
                bail!("invalid option --item-cols: expected two column names \"A,B\"");
            }
            Some((p[0].to_string(), p[1].to_string()))
        }
    })
}

/// Read `a` over a fixed item set (a model's, or the training data's for
/// `--test`): an item outside it is named as not an item of `whose`, not
/// of a declared universe the user never declared.
pub(crate) fn load_with_universe(
    a: &DataArgs,
    items: &plackett::data::Items,
    whose: &str,
) -> Result<Dataset> {
    let opts = ReadOptions {
        universe_of: Some(whose.to_string()),
        ..read_options(a, Some(ItemsSpec::Names(items.names().to_vec())))?
    };
    Ok(read_path(&a.file, &opts)?)
}

/// The library's reader options for the data flags, over `items`.
fn read_options(a: &DataArgs, items: Option<ItemsSpec>) -> Result<ReadOptions> {
    Ok(ReadOptions {
        format: a.format,
        ranking_col: a.ranking_col.clone(),
        rank_col: a.rank_col.clone(),
        item_col: a.item_col.clone(),
        weight_col: a.weight_col.clone(),
        ranker_col: a.ranker_col.clone(),
        top_k: a.top_k,
        items,
        ties: a.ties.into(),
        case: a.case,
        item_cols: parse_item_cols(a.item_cols.as_deref())?,
        universe_of: None,
    })
}

/// Read the dataset named by the arguments, applying --exclude.
pub fn load(a: &DataArgs) -> Result<Dataset> {
    let items = match &a.items {
        Some(s) => Some(ItemsSpec::from_arg(s)?),
        None => None,
    };
    let opts = read_options(a, items)?;
    if a.case.is_some() && opts.format != Some(Format::Selectors) {
        bail!("invalid option --case: only with --format selectors");
    }
    let ds = read_path(&a.file, &opts)?;
    Ok(match &a.exclude {
        Some(list) => {
            let names: Vec<String> = list
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            ds.exclude(&names)?
        }
        None => ds,
    })
}

/// Races (rankings drawn) behind `--rank-marginals`: in all over the
/// draws of a posterior, per component of a mixture.
pub(crate) const RANK_MARGINAL_RACES: usize = 20_000;

/// The `--rank-marginals` CSV: one row per item, `place_1 … place_n`.
pub(crate) fn rank_marginals_csv(names: &[String], rm: &[Vec<f64>]) -> String {
    let mut text = String::from("item");
    for r in 1..=rm.len() {
        text.push_str(&format!(",place_{r}"));
    }
    text.push('\n');
    for (name, row) in names.iter().zip(rm) {
        text.push_str(&csv_field(name));
        for v in row {
            text.push_str(&format!(",{v}"));
        }
        text.push('\n');
    }
    text
}

/// Flags of `plackett fit` that only the single-population engines read
/// (algorithm, normal prior, standard errors, draws, features, gauge):
/// refused by the mixture and adherence fits.
pub(crate) const SINGLE_POPULATION_ONLY: &[(&str, &str)] = &[
    ("algorithm", "--algorithm"),
    ("prior", "--prior"),
    ("prior_mean", "--prior-mean"),
    ("prior_sd", "--prior-sd"),
    ("no_se", "--no-se"),
    ("vcov", "--vcov"),
    ("quasi", "--quasi"),
    ("draws", "--draws"),
    ("draws_out", "--draws-out"),
    ("features", "--features"),
    ("eta", "--eta"),
    ("standardize", "--standardize"),
    ("vi", "--vi"),
    ("eta_grid", "--eta-grid"),
    ("reference", "--reference"),
];

/// The two names of `--compare "A,B"`.
pub(crate) fn compare_names(pair: &str) -> Result<(&str, &str)> {
    let parts: Vec<&str> = pair.split(',').map(|x| x.trim()).collect();
    if parts.len() != 2 {
        bail!(
            "invalid option --compare: expected \"A,B\"{}, got {:?}",
            if parts.len() > 2 {
                " (sets of three or more items are for single-population fits)"
            } else {
                ""
            },
            pair
        );
    }
    if parts[0] == parts[1] {
        bail!(
            "invalid option --compare: an item compared with itself ({:?})",
            parts[0]
        );
    }
    Ok((parts[0], parts[1]))
}

/// The item ids of `--compare "A,B,C…"` when it names three or more items
/// (a choice set); `None` for a pair.
pub(crate) fn choice_set(ds: &Dataset, spec: &str) -> Result<Option<Vec<usize>>> {
    let Some(parts) = choice_names(spec)? else {
        return Ok(None);
    };
    parts
        .into_iter()
        .map(|nm| {
            ds.items()
                .get(nm)
                .map(|id| id as usize)
                .ok_or_else(|| anyhow::anyhow!("invalid option --compare: no item named {:?}", nm))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// The names of `--compare "A,B,C"` when it names a choice set (three or
/// more items, none twice); `None` for a pair.
pub(crate) fn choice_names(spec: &str) -> Result<Option<Vec<&str>>> {
    let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
    if parts.len() < 3 {
        return Ok(None);
    }
    if let Some(dup) = (1..parts.len()).find(|&k| parts[..k].contains(&parts[k])) {
        bail!(
            "invalid option --compare: {:?} appears twice in the set",
            parts[dup]
        );
    }
    Ok(Some(parts))
}

/// The two item ids of `--compare "A,B"` among the items of `ds`.
pub(crate) fn compare_ids(ds: &Dataset, pair: &str) -> Result<(u32, u32)> {
    let (a, b) = compare_names(pair)?;
    let id = |nm: &str| {
        ds.items()
            .get(nm)
            .ok_or_else(|| anyhow::anyhow!("invalid option --compare: no item named {nm:?}"))
    };
    Ok((id(a)?, id(b)?))
}

/// Finish a `fit`: write the files in `pending` and the document `text`
/// (to `--out`, else standard output once the files are written), all or
/// nothing; with `--output csv` the notes go to standard error.
pub(crate) fn finish(
    a: &FitArgs,
    text: String,
    mut pending: Vec<(String, String)>,
    notes: &[String],
) -> Result<()> {
    if let Some(p) = &a.out {
        pending.push((p.clone(), text.clone()));
    }
    write_outputs(&pending)?;
    if a.out.is_none() {
        crate::emit(&text)?;
    }
    if matches!(a.output, crate::args::Output::Csv) {
        crate::notes_to_stderr(notes);
    }
    Ok(())
}

/// Put `pending` (path, contents) in the run's outputs, which replace
/// their targets together when the run succeeds (`outputs`: no output may
/// replace an input, checked before the work).
pub(crate) fn write_outputs(pending: &[(String, String)]) -> Result<()> {
    let files: Vec<(&str, &[u8])> = pending
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_bytes()))
        .collect();
    crate::outputs::write_all(&files)
}
