//! `plackett fit --features`: PL regression (Guo et al. 2019) from the CLI.

use crate::fit_args::FitArgs;
use anyhow::{Result, bail};
use plackett::data::Dataset;
use plackett::infer::feature_fit::ViKind;
use plackett::infer::feature_run::{self, FeatureSettings};
use plackett::posterior::Gauge;
use plackett::posterior::fit_report::Comparison;

pub use plackett::infer::feature_run::FeatureOutcome;

/// Parse `--eta-grid LO:HI:N` (log-spaced) or a comma list.
pub fn parse_eta_grid(s: Option<&str>) -> Result<Vec<f64>> {
    Ok(feature_run::parse_eta_grid(s)?)
}

/// `--vi`.
pub fn vi_kind(s: Option<&str>) -> ViKind {
    match s {
        Some("guo") => ViKind::Guo,
        _ => ViKind::Exact,
    }
}

/// Fit a feature model as asked by the arguments (the library's
/// [`feature_run::run`], which Python's `fit(..., features=...)` calls too).
pub fn fit(a: &FitArgs, ds: &Dataset, gauge: &Gauge) -> Result<FeatureOutcome> {
    let path = a.features.as_deref().expect("called with --features");
    if a.pseudo.is_some() {
        bail!("invalid option --pseudo: not used with --features (use --engine map with --eta)");
    }
    let text = plackett::io::read_text(path)?;
    let settings = FeatureSettings {
        engine: a.engine.as_str().to_string(),
        standardize: a.standardize.as_deref() != Some("off"),
        eta: a.eta.clone(),
        eta_grid: a.eta_grid.clone(),
        vi: a.vi.clone(),
        tol: a.tol,
        max_iter: a.max_iter,
        seed: a.seed,
        draws: a.draws,
    };
    Ok(feature_run::run(&settings, path, &text, ds, gauge)?)
}

/// `--compare A,B` for a feature model: A and B may be any item of the
/// features file, observed or not.
pub fn compare(o: &FeatureOutcome, ds: &Dataset, a: &str, b: &str) -> Result<Comparison> {
    Ok(o.compare(ds.items().names(), a, b)?)
}
