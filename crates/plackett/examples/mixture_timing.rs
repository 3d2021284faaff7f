//! Mixture EM and Gibbs timing on simulated data (docs/benchmarks.md, "PL
//! mixtures"): 100,000 top-5 rankings of 20 items from a G = 3 mixture (the
//! issue's "< 5 s on 2 cores" target) and 10,000 of them (the PLMIX
//! comparison size), plus PLMIX's d_apa when `../shared/data/plmix` is
//! present.
//!
//! ```text
//! cargo run --release --example mixture_timing [-- --starts N] [-- --write DIR] [-- --gibbs] [-- --tol T]
//! ```
//!
//! `--write DIR` also writes the 10,000-ranking data set in PLMIX's
//! orderings layout (`DIR/sim10k_top5_of20.csv`) so that
//! `bench/plmix_compare.sh` can run PLMIX on the very same rankings.
//! `--gibbs` times the mixture Gibbs sampler per sweep: two runs that
//! differ only in the number of kept draws, so the EM starts for the pivot
//! and the predictive checks cancel in the difference.

use plackett::data::Dataset;
use plackett::data::simulate::{Design, simulate_mixture};
use plackett::infer::mcmc::McmcSettings;
use plackett::infer::mixture::{MixtureOptions, fit_mixture};
use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, mixture_gibbs};
use plackett::infer::rng::stream;
use plackett::io::{Format, ReadOptions, read_path};
use std::io::Write;
use std::time::Instant;

fn time_em(label: &str, ds: &Dataset, g: usize, starts: usize, tol: Option<f64>) {
    // The median of fifteen fits (the first also warms up the thread pool and
    // the caches), each a whole run from its random start(s).
    let mut times = Vec::new();
    let mut fit = None;
    for _ in 0..15 {
        let t = Instant::now();
        let f = fit_mixture(
            ds,
            &MixtureOptions {
                components: g,
                starts,
                tol: tol.unwrap_or(MixtureOptions::default().tol),
                ..MixtureOptions::default()
            },
        )
        .expect("fits");
        times.push(t.elapsed().as_secs_f64());
        fit = Some(f);
    }
    let f = fit.expect("fifteen fits");
    times.sort_by(f64::total_cmp);
    let s = times[7];
    let evals: usize = f.starts.iter().map(|s| s.iterations).sum();
    println!(
        "{label}: EM G={g}, {starts} start(s): {s:.4} s, median of 15 ({:.4} s per run, {:.3} ms per EM evaluation over {evals}), loglik {:.6}, weights {:?}",
        s / starts as f64,
        1e3 * s / evals as f64,
        f.log_likelihood,
        f.weights
            .iter()
            .map(|w| (w * 1e4).round() / 1e4)
            .collect::<Vec<_>>()
    );
}

fn time_gibbs(label: &str, ds: &Dataset, g: usize) {
    let run = |samples: usize| {
        let t = Instant::now();
        mixture_gibbs(
            ds,
            &MixtureGibbsOptions::plmix(g, McmcSettings::new(samples, 100, 1, 1)),
        )
        .expect("samples");
        t.elapsed().as_secs_f64()
    };
    let (lo, hi) = (500, 2500);
    let (a, b) = (run(lo), run(hi));
    println!(
        "{label}: Gibbs G={g}: {:.4} ms per sweep ({lo} vs {hi} draws: {a:.3} s vs {b:.3} s)",
        1e3 * (b - a) / (hi - lo) as f64
    );
}

/// PLMIX's layout: `Rank_1 … Rank_K`, the 1-based item at each rank, 0
/// after the listed ones.
fn write_orderings(path: &std::path::Path, ds: &Dataset) {
    let n = ds.n_items();
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("writable"));
    let head: Vec<String> = (1..=n).map(|k| format!("\"Rank_{k}\"")).collect();
    writeln!(f, "{}", head.join(",")).expect("writable");
    for obs in ds.observations() {
        let mut row: Vec<String> = obs
            .members
            .iter()
            .map(|&m| {
                let id: usize = ds.items().name(m).parse().expect("numbered items");
                (id + 1).to_string()
            })
            .collect();
        row.resize(n, "0".into());
        writeln!(f, "{}", row.join(",")).expect("writable");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let starts: usize = value("--starts").map_or(1, |s| s.parse().expect("a number of starts"));
    let write = value("--write").map(std::path::PathBuf::from);
    let gibbs = args.iter().any(|a| a == "--gibbs");
    // `--tol T`: the EM's relative tolerance on the objective (default
    // 1e-13); a looser one compares runs at PLMIX's final accuracy.
    let tol: Option<f64> = value("--tol").map(|s| s.parse().expect("a tolerance"));
    let n = 20;
    let theta: Vec<Vec<f64>> = (0..3)
        .map(|g| {
            (0..n)
                .map(|i| ((i * (g + 2) + 3 * g) % n) as f64 / 5.0 - 2.0)
                .collect()
        })
        .collect();
    let lams: Vec<Vec<f64>> = theta
        .iter()
        .map(|t| t.iter().map(|x| x.exp()).collect())
        .collect();
    let sizes: &[usize] = if write.is_some() {
        &[10_000]
    } else {
        &[10_000, 100_000]
    };
    for &n_obs in sizes {
        let (ds, _) = simulate_mixture(
            &mut stream(11, &[n_obs as u64]),
            &[0.5, 0.3, 0.2],
            &lams,
            n_obs,
            Design::TopK { k: 5 },
            0.0,
        );
        if let Some(dir) = &write {
            write_orderings(&dir.join("sim10k_top5_of20.csv"), &ds);
        }
        let label = format!("simulated {n_obs} top-5 of 20");
        time_em(&label, &ds, 3, starts, tol);
        if gibbs && n_obs == 10_000 {
            time_gibbs(&label, &ds, 3);
        }
    }
    let apa = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/plmix/d_apa.csv");
    if apa.is_file() {
        let ds = read_path(
            apa.to_str().expect("utf-8 path"),
            &ReadOptions {
                format: Some(Format::Orderings),
                top_k: true,
                ..ReadOptions::default()
            },
        )
        .expect("readable");
        time_em("d_apa (15,449 x 5)", &ds, 2, starts, tol);
        if gibbs {
            time_gibbs("d_apa (15,449 x 5)", &ds, 2);
        }
    }
}
