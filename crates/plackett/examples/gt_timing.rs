//! Per-case time of the PL aggregation (issue: compare with the JAX
//! reference's 13–36 s per case). One thread, every case in turn:
//! 500 burn-in + 1,000 kept Gibbs sweeps, reliability 3, certainty and UA
//! metrics against a synthetic prediction row.
//!
//! `cargo run --release --example gt_timing -- data/dermatology-ddx/dermatology_selectors.json`

use plackett::groundtruth::measures::{certainty_top_j, score_samples};
use plackett::groundtruth::models::{Method, PlPrior, sample_case};
use plackett::io::selectors::parse_selectors;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("selectors file");
    let text = std::fs::read_to_string(&path).unwrap();
    let sel = parse_selectors(&path, &text, Some(419)).unwrap();
    let m = Method::Pl {
        repeats: 3,
        prior: PlPrior::Exact { alpha: 1.0 / 419.0 },
        rate: 1.0,
        burn_in: 500,
    };
    let mut times = Vec::with_capacity(sel.cases.len());
    let mut check = 0.0;
    for (c, anns) in sel.cases.iter().enumerate() {
        let t = Instant::now();
        let (s, _, _) = sample_case(anns, 419, &m, 1000, 1, c, None, 3).unwrap();
        let pred: Vec<u32> = anns[0]
            .iter()
            .flatten()
            .copied()
            .chain(0..3)
            .take(3)
            .collect();
        let sc = score_samples(&s, &pred, &[1, 2, 3]);
        check += certainty_top_j(&s, 1) + sc.acc[2].iter().sum::<f64>();
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize] * 1e3;
    let total: f64 = times.iter().sum();
    println!(
        "{} cases, one thread: total {:.2} s (checksum {check:.3})",
        times.len(),
        total
    );
    println!(
        "per case (ms): min {:.2}, 10% {:.2}, median {:.2}, mean {:.2}, 90% {:.2}, 99% {:.2}, max {:.2}",
        q(0.0),
        q(0.1),
        q(0.5),
        total / times.len() as f64 * 1e3,
        q(0.9),
        q(0.99),
        q(1.0)
    );
    println!(
        "speed-up against 13 s / 36 s per case (JAX reference): {:.0}× / {:.0}× at the median",
        13.0 / (q(0.5) / 1e3),
        36.0 / (q(0.5) / 1e3)
    );
}
