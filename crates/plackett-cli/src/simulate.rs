//! `plackett simulate`: rankings from a PL model with known worths.

use anyhow::{Result, bail};
use clap::Args;
use plackett::data::simulate::{SimulationSpec, simulate_spec};

/// Options of `plackett simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Number of items.
    #[arg(long, default_value_t = 10)]
    pub items: usize,
    /// Number of observations.
    #[arg(long, default_value_t = 100)]
    pub rankings: usize,
    /// Items per ranking (sub-rankings), listed items (top-k); ignored for full and pairs.
    #[arg(long, default_value_t = 10)]
    pub length: usize,
    /// Observation design.
    #[arg(long, default_value = "sub", value_parser = ["full", "sub", "topk", "pairs"])]
    pub design: String,
    /// True worths: `linear` (1, 2, …, n) or `lognormal` (log-worths ~ N(0, 1)).
    #[arg(long, default_value = "lognormal", value_parser = ["linear", "lognormal"])]
    pub worths: String,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the rankings (choix-style JSON lists) here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long)]
    pub out: Option<String>,
    /// Write the true log-worths (mean-centred, one per line) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long)]
    pub truth: Option<String>,
    /// PL regression: D features per item, x ~ N(0, feature_sd²), β ~ N(0, I),
    /// log-worths xᵀβ (replaces --worths); needs --features-out.
    #[arg(long, value_name = "D")]
    pub features: Option<usize>,
    /// Standard deviation of the simulated features.
    #[arg(long, default_value_t = 1.0)]
    pub feature_sd: f64,
    /// Write the simulated features CSV (item,x1,…,xD; items named 0..n-1) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub features_out: Option<String>,
    /// Write the true coefficients (name,beta CSV) here.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub beta_out: Option<String>,
}

/// Run `plackett simulate`.
pub fn run(a: &SimulateArgs) -> Result<()> {
    if a.features.is_some() != a.features_out.is_some() {
        bail!("invalid option --features: --features D and --features-out FILE go together");
    }
    if a.beta_out.is_some() && a.features.is_none() {
        bail!("invalid option --beta-out: only with --features");
    }
    let sim = simulate_spec(&SimulationSpec {
        items: a.items,
        rankings: a.rankings,
        length: a.length,
        design: a.design.clone(),
        worths: a.worths.clone(),
        seed: a.seed,
        features: a.features,
        feature_sd: a.feature_sd,
    })?;
    // Every file is written only after everything has succeeded.
    let mut files: Vec<(String, String)> = Vec::new();
    if let (Some(path), Some(csv)) = (&a.features_out, sim.features_csv()) {
        files.push((path.clone(), csv));
    }
    if let (Some(path), Some(csv)) = (&a.beta_out, sim.beta_csv()) {
        files.push((path.clone(), csv));
    }
    if let Some(t) = &a.truth {
        let text: String = sim.log_worths().iter().map(|l| format!("{l}\n")).collect();
        files.push((t.clone(), text));
    }
    let rankings = sim.rankings_json();
    if let Some(p) = &a.out {
        files.push((p.clone(), rankings.clone()));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_bytes()))
        .collect();
    crate::outputs::write_all(&refs)?;
    if a.out.is_none() {
        crate::emit(&rankings)?;
    }
    Ok(())
}
