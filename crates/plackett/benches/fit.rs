//! Criterion benchmarks of the likelihood engines.
//!
//! `cargo bench -p plackett --bench fit`

use criterion::{Criterion, criterion_group, criterion_main};
use plackett::data::simulate::{Design, simulate};
use plackett::infer::{PointOptions, fit_point};
use plackett::io::{ReadOptions, read_path};
use plackett::model::pl::{Scope, sweep, wins};
use plackett::model::subsets::SubsetTables;
use rand::SeedableRng;
use std::hint::black_box;
use std::path::PathBuf;

fn nascar(c: &mut Criterion) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/nascar2002/results.csv");
    if !p.exists() {
        eprintln!("SKIP nascar benchmark: ../shared/data not found");
        return;
    }
    let opts = ReadOptions {
        ranking_col: "race".into(),
        rank_col: "position".into(),
        item_col: "driver".into(),
        ..Default::default()
    };
    let drop: Vec<String> = [
        "Andy Hillenburg",
        "Gary Bradberry",
        "Jason Hedlesky",
        "Randy Renfrow",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ds = read_path(p.to_str().unwrap(), &opts)
        .unwrap()
        .exclude(&drop)
        .unwrap();
    c.bench_function("nascar_mle_with_se", |b| {
        b.iter(|| fit_point(black_box(&ds), &PointOptions::default()).unwrap())
    });
}

fn sweeps(c: &mut Criterion) {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    let lam: Vec<f64> = (0..1000).map(|i| 1.0 + (i % 17) as f64).collect();
    let ds = simulate(&mut rng, &lam, 100_000, Design::SubRankings { len: 10 });
    let w = wins(&ds, Scope::All);
    let log_lam: Vec<f64> = lam.iter().map(|l| l.ln()).collect();
    c.bench_function("sweep_100k_rankings_x10", |b| {
        b.iter(|| sweep(black_box(&ds), &lam, &log_lam, &w, Scope::All))
    });
}

fn subset_recursion(c: &mut Criterion) {
    let mut g = c.benchmark_group("subset_recursion");
    for n in [2usize, 3, 4, 6, 8] {
        let lam: Vec<f64> = (1..=n).map(|x| x as f64).collect();
        let mut t = SubsetTables::default();
        g.bench_function(format!("group_{n}"), |b| {
            b.iter(|| {
                t.compute(black_box(&lam), 400.0);
                t.compute_reach(n);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, nascar, sweeps, subset_recursion);
criterion_main!(benches);
