//! In-library time of the NASCAR 2002 MLE with standard errors (the four
//! always-last drivers excluded), for bench/python_overhead.py.
//!
//! `cargo run --release --example nascar_timing -- data/nascar2002/results.csv`

use plackett::io::{ReadOptions, read_path};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("results.csv");
    let opts = ReadOptions {
        ranking_col: "race".into(),
        rank_col: "position".into(),
        item_col: "driver".into(),
        ..Default::default()
    };
    let ds = read_path(&path, &opts)
        .expect("readable")
        .exclude(&[
            "Andy Hillenburg",
            "Gary Bradberry",
            "Jason Hedlesky",
            "Randy Renfrow",
        ])
        .expect("excludable");
    let mut ts: Vec<f64> = (0..200)
        .map(|_| {
            let t = Instant::now();
            let f = plackett::fit_mle(&ds).expect("fit");
            std::hint::black_box(f);
            t.elapsed().as_secs_f64()
        })
        .collect();
    ts.sort_by(|a, b| a.total_cmp(b));
    println!(
        "Rust library fit_mle (same data): median {:.3} ms, best {:.3} ms",
        ts[ts.len() / 2] * 1e3,
        ts[0] * 1e3
    );
}
