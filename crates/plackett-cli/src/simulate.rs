//! `plackett simulate`: rankings from a PL model with known worths.

use anyhow::{Result, bail};
use clap::Args;
use plackett::data::simulate::{Design, simulate};
use plackett::io::output::write_atomic;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt::Write as _;

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
    #[arg(long)]
    pub out: Option<String>,
    /// Write the true log-worths (mean-centred, one per line) here.
    #[arg(long)]
    pub truth: Option<String>,
}

/// Run `plackett simulate`.
pub fn run(a: &SimulateArgs) -> Result<()> {
    if a.items < 2 {
        bail!("invalid option --items: need at least 2 items");
    }
    if a.length < 2 && a.design == "sub" {
        bail!("invalid option --length: sub-rankings need at least 2 items");
    }
    if a.length > a.items && a.design != "full" && a.design != "pairs" {
        bail!(
            "invalid option --length: {} exceeds --items {}",
            a.length,
            a.items
        );
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(a.seed);
    let lam: Vec<f64> = match a.worths.as_str() {
        "linear" => (1..=a.items).map(|x| x as f64).collect(),
        _ => {
            let nd = Normal::<f64>::new(0.0, 1.0).expect("valid");
            (0..a.items).map(|_| nd.sample(&mut rng).exp()).collect()
        }
    };
    let design = match a.design.as_str() {
        "full" => Design::Full,
        "topk" => Design::TopK { k: a.length },
        "pairs" => Design::Pairs,
        _ => Design::SubRankings { len: a.length },
    };
    let ds = simulate(&mut rng, &lam, a.rankings, design);
    let mut s = String::with_capacity(a.rankings * a.length * 6 + 2);
    s.push('[');
    for (o, obs) in ds.observations().enumerate() {
        if o > 0 {
            s.push_str(",\n");
        }
        s.push('[');
        for (k, m) in obs.members.iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            let _ = write!(s, "{m}");
        }
        s.push(']');
    }
    s.push_str("]\n");
    if let Some(t) = &a.truth {
        let logs: Vec<f64> = lam.iter().map(|l| l.ln()).collect();
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let text: String = logs.iter().map(|l| format!("{}\n", l - mean)).collect();
        write_atomic(t, text.as_bytes())?;
    }
    match &a.out {
        Some(p) => write_atomic(p, s.as_bytes())?,
        None => crate::emit(&s)?,
    }
    Ok(())
}
