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
    /// PL regression: D features per item, x ~ N(0, feature_sd²), β ~ N(0, I),
    /// log-worths xᵀβ (replaces --worths); needs --features-out.
    #[arg(long, value_name = "D")]
    pub features: Option<usize>,
    /// Standard deviation of the simulated features.
    #[arg(long, default_value_t = 1.0)]
    pub feature_sd: f64,
    /// Write the simulated features CSV (item,x1,…,xD; items named 0..n-1) here.
    #[arg(long, value_name = "FILE")]
    pub features_out: Option<String>,
    /// Write the true coefficients (name,beta CSV) here.
    #[arg(long, value_name = "FILE")]
    pub beta_out: Option<String>,
}

/// Run `plackett simulate`.
pub fn run(a: &SimulateArgs) -> Result<()> {
    if a.items < 2 {
        bail!("invalid option --items: need at least 2 items");
    }
    // The simulator keeps a worth per item and every ranking in memory.
    if a.items > 10_000_000 {
        bail!(
            "invalid option --items: at most 10000000 items, got {}",
            a.items
        );
    }
    if a.rankings > 100_000_000 {
        bail!(
            "invalid option --rankings: at most 100000000 rankings, got {}",
            a.rankings
        );
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
    if a.features.is_some() != a.features_out.is_some() {
        bail!("invalid option --features: --features D and --features-out FILE go together");
    }
    if a.beta_out.is_some() && a.features.is_none() {
        bail!("invalid option --beta-out: only with --features");
    }
    if !(a.feature_sd.is_finite() && a.feature_sd > 0.0) {
        bail!(
            "invalid option --feature-sd: must be positive, got {}",
            a.feature_sd
        );
    }
    let design = match a.design.as_str() {
        "full" => Design::Full,
        "topk" => Design::TopK { k: a.length },
        "pairs" => Design::Pairs,
        _ => Design::SubRankings { len: a.length },
    };
    let mut pending: Vec<(String, String)> = Vec::new();
    let (ds, lam) = if let Some(d) = a.features {
        if d == 0 {
            bail!("invalid option --features: need at least one feature");
        }
        let p = plackett::data::simulate::regression_problem(
            a.items,
            d,
            a.rankings,
            design,
            a.feature_sd,
            None,
            a.seed,
        );
        let f = &p.features;
        let mut csv = String::from("item");
        for n in &f.names {
            let _ = write!(csv, ",{n}");
        }
        csv.push('\n');
        for i in 0..a.items {
            let _ = write!(csv, "{i}");
            for j in 0..d {
                let _ = write!(csv, ",{}", f.x[(i, j)]);
            }
            csv.push('\n');
        }
        pending.push((a.features_out.clone().expect("checked"), csv));
        if let Some(b) = &a.beta_out {
            let mut t = String::from("name,beta\n");
            for (n, v) in f.names.iter().zip(&p.beta) {
                let _ = writeln!(t, "{n},{v}");
            }
            pending.push((b.clone(), t));
        }
        let lam: Vec<f64> = (0..a.items)
            .map(|i| (0..d).map(|j| f.x[(i, j)] * p.beta[j]).sum::<f64>().exp())
            .collect();
        (p.data, lam)
    } else {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(a.seed);
        let lam = worths(a, &mut rng);
        (simulate(&mut rng, &lam, a.rankings, design), lam)
    };
    write_rankings(a, &ds, &lam, pending)
}

fn worths(a: &SimulateArgs, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    match a.worths.as_str() {
        "linear" => (1..=a.items).map(|x| x as f64).collect(),
        _ => {
            let nd = Normal::<f64>::new(0.0, 1.0).expect("valid");
            (0..a.items).map(|_| nd.sample(rng).exp()).collect()
        }
    }
}

fn write_rankings(
    a: &SimulateArgs,
    ds: &plackett::data::Dataset,
    lam: &[f64],
    pending: Vec<(String, String)>,
) -> Result<()> {
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
    for (path, text) in &pending {
        write_atomic(path, text.as_bytes())?;
    }
    match &a.out {
        Some(p) => write_atomic(p, s.as_bytes())?,
        None => crate::emit(&s)?,
    }
    Ok(())
}
