//! Typed values of the command-line flags: each flag's values are an enum,
//! parsed once by clap, so no string is matched again further down and no
//! unknown value can fall through to a default.

use clap::ValueEnum;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use plackett::choice::Choice;
use plackett::data::TieSemantics;
use plackett::infer::Algorithm;

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

/// The clap parser of a library [`Choice`]: its values, spellings and help
/// lines come from the library's one definition (`plackett::choices!`), and
/// an unknown value is refused with clap's "possible values" list (exit 2).
/// Use as `#[arg(long, value_parser = choice::<T>())]` with a field of type
/// `T` (or `Option<T>`).
pub fn choice<T: Choice>() -> ChoiceParser<T> {
    ChoiceParser(std::marker::PhantomData)
}

/// See [`choice`].
#[derive(Clone, Copy, Debug)]
pub struct ChoiceParser<T>(std::marker::PhantomData<T>);

impl<T: Choice> ChoiceParser<T> {
    fn values() -> impl Iterator<Item = PossibleValue> {
        T::ALL
            .iter()
            .map(|c| PossibleValue::new(c.name()).help(c.help().trim_end_matches('.')))
    }
}

impl<T: Choice> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let name = PossibleValuesParser::new(Self::values()).parse_ref(cmd, arg, value)?;
        // The spelling was just checked against T::ALL's names.
        T::parse(&name).map_err(|_| clap::Error::new(clap::error::ErrorKind::InvalidValue))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::values()))
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
