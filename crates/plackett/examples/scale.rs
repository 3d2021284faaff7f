//! Scale benchmark (issue: 10,000,000 rankings × 10 items over 100,000 items).
//!
//! `cargo run --release --example scale -- [items] [rankings] [length] [seed]`
//!
//! Simulates sub-rankings from PL with log-normal worths in memory, checks
//! connectivity, fits the MLE by SQUAREM-accelerated MM to a score max-norm
//! of 1e-8, and reports peak RSS, time per data sweep, and the time of one
//! streaming pass over the same number of bytes (the memory-bandwidth floor).

use plackett::data::graph::connectivity;
use plackett::data::simulate::{Design, simulate};
use plackett::infer::mm::{MmOptions, mm};
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("integer"))
        .collect();
    let n = *args.first().unwrap_or(&100_000);
    let m = *args.get(1).unwrap_or(&10_000_000);
    let len = *args.get(2).unwrap_or(&10);
    let seed = *args.get(3).unwrap_or(&1) as u64;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let nd = Normal::<f64>::new(0.0, 1.0).unwrap();
    let lam: Vec<f64> = (0..n).map(|_| nd.sample(&mut rng).exp()).collect();
    let t = Instant::now();
    let ds = simulate(&mut rng, &lam, m, Design::SubRankings { len });
    println!(
        "simulated {m} rankings x {len} over {n} items in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    println!("peak RSS after simulation: {:.0} MB", peak_rss_mb());
    let t = Instant::now();
    let c = connectivity(&ds);
    println!(
        "connectivity: strongly connected = {} ({:.2} s); peak RSS {:.0} MB",
        c.strongly_connected,
        t.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
    let t = Instant::now();
    let r = mm(
        &ds,
        &vec![0.0; n],
        &MmOptions {
            iter: plackett::numerics::fixed_point::IterSettings::new(1e-8, 100_000),
            ..Default::default()
        },
    )
    .expect("MM runs");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "MM+SQUAREM: converged = {} after {} sweeps in {:.2} s ({:.3} s per sweep); score max-norm {:.2e}",
        r.converged,
        r.sweeps,
        secs,
        secs / r.sweeps as f64,
        r.score_norm
    );
    let truth: Vec<f64> = lam.iter().map(|l| l.ln()).collect();
    let mt = truth.iter().sum::<f64>() / n as f64;
    let rmse = (r
        .theta
        .iter()
        .zip(&truth)
        .map(|(a, b)| (a - (b - mt)).powi(2))
        .sum::<f64>()
        / n as f64)
        .sqrt();
    println!("RMSE of log-worths against the truth: {rmse:.4}");
    println!("peak RSS: {:.0} MB", peak_rss_mb());
    // Bandwidth floor: one streaming pass over the bytes a sweep must read
    // (4-byte ids + 1-byte marks per member, offset + weight per ranking).
    let bytes = ds.n_members() * 5 + ds.n_obs() * 16;
    let buf = vec![1u64; bytes / 8];
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..3 {
        acc = acc.wrapping_add(buf.iter().fold(0u64, |a, &x| a.wrapping_add(x)));
    }
    let stream = t.elapsed().as_secs_f64() / 3.0;
    println!(
        "one streaming pass over {:.0} MB: {:.3} s single-threaded (checksum {acc}); sweep/stream = {:.1}",
        bytes as f64 / 1e6,
        stream,
        secs / r.sweeps as f64 / stream
    );
}
