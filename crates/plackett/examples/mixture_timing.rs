//! Mixture EM timing on simulated data (docs/benchmarks.md, "PL mixtures"):
//! 100,000 top-5 rankings of 20 items from a G = 3 mixture (the issue's
//! "< 5 s on 2 cores" target) and 10,000 of them (the PLMIX comparison
//! size), plus PLMIX's d_apa when `../shared/data/plmix` is present.
//!
//! `cargo run --release --example mixture_timing [-- STARTS]`

use plackett::data::simulate::{Design, simulate_mixture};
use plackett::infer::mixture::{MixtureOptions, fit_mixture};
use plackett::infer::rng::stream;
use plackett::io::{Format, ReadOptions, read_path};
use std::time::Instant;

fn time(label: &str, ds: &plackett::data::Dataset, g: usize, starts: usize) {
    let t = Instant::now();
    let f = fit_mixture(
        ds,
        &MixtureOptions {
            components: g,
            starts,
            ..MixtureOptions::default()
        },
    )
    .expect("fits");
    let s = t.elapsed().as_secs_f64();
    let evals: usize = f.starts.iter().map(|s| s.iterations).sum();
    println!(
        "{label}: G={g}, {starts} start(s): {s:.3} s ({:.3} ms per EM evaluation over {evals}), loglik {:.6}, weights {:?}",
        1e3 * s / evals as f64,
        f.log_likelihood,
        f.weights
            .iter()
            .map(|w| (w * 1e4).round() / 1e4)
            .collect::<Vec<_>>()
    );
}

fn main() {
    let starts: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("a number of starts"))
        .unwrap_or(1);
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
    for n_obs in [10_000, 100_000] {
        let (ds, _) = simulate_mixture(
            &mut stream(11, &[n_obs as u64]),
            &[0.5, 0.3, 0.2],
            &lams,
            n_obs,
            Design::TopK { k: 5 },
            0.0,
        );
        time(&format!("simulated {n_obs} top-5 of 20"), &ds, 3, starts);
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
        time("d_apa (15,449 x 5)", &ds, 2, starts);
    }
}
