//! `plackett`: the command-line front end. Argument parsing and output
//! formatting only; all statistics live in the `plackett` library. A
//! library so that tests can walk the command definitions ([`command`]);
//! the binary is `src/main.rs`.

// Tables index several columns in step.
#![allow(clippy::needless_range_loop)]

mod adherence;
mod args;
mod classify;
mod cv;
mod demo;
pub mod examples;
mod features;
mod fit;
mod fit_args;
mod groundtruth;
mod keywords;
mod mil;
mod mixture;
mod outputs;
mod predict;
mod progress;
mod simulate;
mod tree;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Bayesian and likelihood inference for Plackett–Luce models of rankings,
/// choices and comparisons.
#[derive(Parser)]
#[command(name = "plackett", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fit a Plackett–Luce model to rankings, choices or comparisons.
    Fit(Box<fit_args::FitArgs>),
    /// Probabilities of new rankings, choices and pairs from a model saved by `fit --model-out`.
    Predict(Box<predict::PredictArgs>),
    /// Simulate rankings from known worths, fit them, and compare.
    Demo(demo::DemoArgs),
    /// Aggregate differential diagnoses into plausibilities (IRN, PrIRN, Plackett–Luce).
    Aggregate(Box<groundtruth::AggregateArgs>),
    /// Score predictions against aggregated annotations with uncertainty-adjusted metrics.
    Evaluate(Box<groundtruth::EvaluateArgs>),
    /// Cross-validate PL regression on item features over a grid of prior precisions.
    Cv(Box<cv::CvArgs>),
    /// Plackett–Luce regression classifier (Archambeau & Caron 2012): fit, predict, cv, path.
    #[command(subcommand)]
    Classify(classify::ClassifyCommand),
    /// Simulate rankings from a PL model with known worths (JSON lists).
    Simulate(simulate::SimulateArgs),
    /// Multiple-instance classification of bags with two modalities (vMMIC, Hu 2024 ch. 2): fit, predict, simulate, cv, study.
    #[command(subcommand)]
    Mil(mil::MilCommand),
    /// Keyword extraction with a few known keywords (VBSS, Hu 2024 ch. 1): extract (one document), batch (many), evaluate, tag.
    #[command(subcommand)]
    Keywords(keywords::KeywordsCommand),
    /// Plackett–Luce trees: which rankers rank differently, found from their covariates.
    Tree(Box<tree::TreeArgs>),
}

/// A command's printed result: to `--out FILE` when given (as one of the
/// run's outputs, written when the run succeeds), else standard output.
pub fn deliver(out: &Option<String>, text: &str) -> anyhow::Result<()> {
    match out {
        Some(p) => outputs::write(p, text.as_bytes()),
        None => emit(text),
    }
}

/// Write to standard output; a closed pipe (`plackett … | head`) ends the
/// program quietly instead of panicking.
pub fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    progress::quiet();
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            // The reader has what it wanted; the files are the run's too.
            let code = if outputs::commit().is_ok() { 0 } else { 2 };
            std::process::exit(code)
        }
        Err(e) => Err(anyhow::anyhow!("standard output: {e}")),
    }
}

/// The options of subcommand `name` given on the command line (clap ids),
/// as opposed to defaults.
fn explicit(m: &clap::ArgMatches, name: &str) -> Vec<String> {
    m.subcommand_matches(name)
        .map(|s| {
            s.ids()
                .filter(|id| s.value_source(id.as_str()) == Some(ValueSource::CommandLine))
                .map(|id| id.as_str().to_string())
                .collect()
        })
        .unwrap_or_default()
}

use plackett::error::{ParamStyle, render_params};

/// Every (sub)command takes negative numbers as option values, so that
/// `--tol -1` reaches the option's own check ("expected a positive
/// number") instead of being read as an unknown flag.
fn with_negative_numbers(cmd: clap::Command) -> clap::Command {
    cmd.allow_negative_numbers(true)
        .mut_subcommands(with_negative_numbers)
}

/// A command-line usage error as one line and status 2, like every other
/// error (clap's own rendering spans several lines and echoes a value of any
/// length); help and version requests print as usual.
fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("invalid command line");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // "the following required arguments were not provided:" lists them on
    // the lines below: bring them onto this one.
    let listed: Vec<&str> = if first.ends_with(':') {
        text.lines()
            .skip_while(|l| !l.contains(first))
            .skip(1)
            .map(str::trim)
            .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
            .collect()
    } else {
        Vec::new()
    };
    let first = if listed.is_empty() {
        first.to_string()
    } else {
        format!("{first} {}", listed.join(", "))
    };
    let mut line: String = first.chars().take(300).collect();
    if first.chars().count() > 300 {
        line.push('…');
    }
    // Keep the hints that matter: the accepted values of a bad choice, and
    // clap's "did you mean" for a misspelt flag or command.
    if let Some(values) = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("[possible values:"))
    {
        line.push(' ');
        line.push_str(values);
    }
    if let Some(tip) = text
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("tip: "))
        .filter(|t| t.contains("similar"))
    {
        line.push_str("; ");
        line.push_str(tip);
    }
    eprintln!("error: {} (see --help)", plackett::error::one_line(&line));
    std::process::exit(2);
}

/// The notes of a CSV output, which has no place for them, on standard
/// error ("note: …"), after the output: a caveat must not vanish with the
/// output format. `notes` are in the CLI's words already.
pub fn notes_to_stderr<S: AsRef<str>>(notes: impl IntoIterator<Item = S>) {
    for n in notes {
        eprintln!("note: {}", n.as_ref());
    }
}

/// Library text (errors, notes) in the CLI's words: the library names its
/// parameters (`prior_shape`), the CLI spells them as flags (--prior-shape).
pub fn cli_text(s: &str) -> String {
    render_params(s, ParamStyle::Cli)
}

/// An iterative fit that stopped at its iteration cap: exit status 3.
#[derive(Debug)]
pub struct NotConverged(pub String);

impl std::fmt::Display for NotConverged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotConverged {}

/// The whole command-line definition, as the binary parses it.
pub fn command() -> clap::Command {
    examples::with_examples(with_negative_numbers(Cli::command()))
}

pub use outputs::{is_output, is_output_dir};

/// The program: parse, claim the outputs, run, commit the outputs.
pub fn main() {
    let cmd = command();
    let matches = match cmd.clone().try_get_matches() {
        Ok(m) => m,
        Err(e) => usage_error(e),
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| usage_error(e));
    progress::start_heartbeat("working");
    outputs::on_signal_clean_up();
    let result = outputs::begin(&cmd, &matches).and_then(|()| match cli.command {
        Command::Fit(a) => fit::run(&a, &explicit(&matches, "fit")),
        Command::Demo(a) => demo::run(&a),
        Command::Predict(a) => predict::run(&a),
        Command::Simulate(a) => simulate::run(&a),
        Command::Cv(a) => cv::run(&a),
        Command::Classify(c) => classify::run(&c),
        Command::Mil(c) => mil::run(&c),
        Command::Keywords(c) => keywords::run(&c),
        Command::Tree(a) => tree::run(&a),
        Command::Aggregate(a) => groundtruth::run_aggregate(&a),
        Command::Evaluate(a) => groundtruth::run_evaluate(&a),
    });
    // Every output replaces its target now, together, or (on an error)
    // none does.
    let result = result.and_then(|()| outputs::commit());
    progress::quiet();
    if let Err(e) = result {
        outputs::abandon();
        if let Some(nc) = e.downcast_ref::<NotConverged>() {
            // A distinct status: the input was fine, the engine stopped at
            // its iteration cap (docs/engines.md, "Exit status").
            eprintln!("error: {}", nc.0);
            std::process::exit(3);
        }
        // One line, then status 2 (bad input, or an estimate that does not exist).
        // The causes joined by ": ", leaving out a cause that its parent's
        // message already quotes (a library I/O error names the OS error).
        let mut joined = String::new();
        for cause in e.chain() {
            let c = cause.to_string();
            if !joined.contains(&c) {
                if !joined.is_empty() {
                    joined.push_str(": ");
                }
                joined.push_str(&c);
            }
        }
        let msg = cli_text(&plackett::error::one_line(&joined));
        eprintln!("error: {msg}");
        std::process::exit(2);
    }
}
