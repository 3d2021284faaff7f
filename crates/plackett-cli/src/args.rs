//! Typed values of the command-line flags: each flag's values are an enum,
//! parsed once by clap, so no string is matched again further down and no
//! unknown value can fall through to a default.

use clap::ValueEnum;
use plackett::data::TieSemantics;
use plackett::infer::Algorithm;
use plackett::io::Format;

/// `--engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// Maximum likelihood, with standard errors from the observed information.
    Mle,
    /// Maximum a posteriori under a Gamma or Normal prior.
    Map,
    /// Gibbs sampler (Caron & Doucet 2012), exact posterior by MCMC.
    Gibbs,
    /// Power expectation propagation (Guiver & Snelson 2009), with the log-evidence.
    Ep,
    /// Mean-field variational Bayes with Gamma factors, with the ELBO.
    Vb,
}

impl Engine {
    /// The flag value.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Mle => "mle",
            Engine::Map => "map",
            Engine::Gibbs => "gibbs",
            Engine::Ep => "ep",
            Engine::Vb => "vb",
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `--algorithm` (mle, map).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AlgorithmArg {
    /// SQUAREM-accelerated MM, finished by Newton if it stalls.
    Auto,
    /// Newton–Raphson from a few MM sweeps.
    Newton,
    /// MM (Hunter 2004) with SQUAREM.
    Mm,
    /// Iterative Luce spectral ranking (Maystre & Grossglauser 2015); MLE of untied data only.
    Ilsr,
}

impl From<AlgorithmArg> for Algorithm {
    fn from(a: AlgorithmArg) -> Algorithm {
        match a {
            AlgorithmArg::Auto => Algorithm::Auto,
            AlgorithmArg::Newton => Algorithm::Newton,
            AlgorithmArg::Mm => Algorithm::Mm,
            AlgorithmArg::Ilsr => Algorithm::Ilsr,
        }
    }
}

/// `--prior` (map).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PriorArg {
    /// Gamma(shape, rate) on the worths.
    Gamma,
    /// Normal(mean, sd) on the log-worths.
    Normal,
}

/// `--ties`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TiesArg {
    /// Tied items were ordered, but the order is unknown (marginalised exactly).
    Unknown,
    /// A tie is an event of its own (Davidson–Luce).
    Event,
}

impl From<TiesArg> for TieSemantics {
    fn from(t: TiesArg) -> TieSemantics {
        match t {
            TiesArg::Unknown => TieSemantics::UnknownOrder,
            TiesArg::Event => TieSemantics::Event,
        }
    }
}

/// `--output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// A table for people.
    Table,
    /// JSON (the documented keys).
    Json,
    /// CSV: one row per item (fit) or per observation (predict).
    Csv,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Long CSV: one row per (ranking, item).
    Csv,
    /// PrefLib .soc/.soi/.toc/.toi.
    Preflib,
    /// choix-style JSON lists or the object form.
    Json,
    /// Differential diagnoses: case → annotator → groups of ids (Stutz et al. 2023).
    Selectors,
    /// Pairwise counts: item, item, i_wins, j_wins[, ties].
    Pairs,
    /// Wide orderings: column k = the item at rank k; 0 or empty = unranked (PLMIX's layout).
    Orderings,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Csv => Format::Csv,
            FormatArg::Preflib => Format::Preflib,
            FormatArg::Json => Format::Json,
            FormatArg::Selectors => Format::Selectors,
            FormatArg::Pairs => Format::Pairs,
            FormatArg::Orderings => Format::Orderings,
        }
    }
}

/// `--output table|json` and `--out FILE`: the format of a command's
/// printed summary and where it goes, defined once for every command that
/// prints a table or JSON document and nothing else.
#[derive(clap::Args, Debug, Clone)]
pub struct Printed {
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub output: String,
    /// Write the printed result here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
}
