//! Criterion benchmarks of the likelihood engines.
//!
//! `cargo bench --manifest-path bench/criterion/Cargo.toml` (from the repository root)

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
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/nascar2002/results.csv");
    let opts = ReadOptions {
        ranking_col: "race".into(),
        rank_col: "position".into(),
        item_col: "driver".into(),
        ..Default::default()
    };
    // The four drivers who never beat anyone: without them the MLE exists.
    let drop = ["Andy Hillenburg", "Gary Bradberry", "Jason Hedlesky", "Randy Renfrow"];
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

/// Exact log-likelihood of every dermatology annotation (9,602 top-k lists
/// with unknown-order groups) at a worth vector over the 419 classes.
fn dermatology_likelihood(c: &mut Criterion) {
    use plackett::io::{Format, ItemsSpec};
    use plackett::model::pl::{Scope, log_likelihood};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/dermatology-ddx");
    let opts = ReadOptions {
        format: Some(Format::Selectors),
        items: Some(ItemsSpec::Count(419)),
        ..Default::default()
    };
    let ds = read_path(
        dir.join("dermatology_selectors.json").to_str().unwrap(),
        &opts,
    )
    .unwrap();
    let theta: Vec<f64> = (0..419)
        .map(|i| ((i * 37 % 101) as f64 / 50.0) - 1.0)
        .collect();
    c.bench_function("dermatology_exact_loglik_9602_annotations", |b| {
        b.iter(|| log_likelihood(black_box(&ds), &theta, Scope::All))
    });
}

/// Gibbs step A: one draw of a group's internal order, per group size.
fn group_order_sampler(c: &mut Criterion) {
    use plackett::infer::gibbs::sample_group_order;
    let mut g = c.benchmark_group("within_group_order_draw");
    let mut rng = plackett::infer::rng::stream(1, &[]);
    let mut t = SubsetTables::default();
    let mut out = Vec::new();
    for n in [2usize, 3, 4, 5, 6, 8] {
        let ids: Vec<u32> = (0..n as u32).collect();
        let lam: Vec<f64> = (1..=n).map(|x| x as f64).collect();
        g.bench_function(format!("size_{n}"), |b| {
            b.iter(|| {
                out.clear();
                sample_group_order(&mut rng, black_box(&ids), &lam, 400.0, &mut t, &mut out);
            })
        });
    }
    g.finish();
}

/// Archambeau & Caron 2012 Table 3 setting: the PL-regression Gibbs sampler, 10,000
/// sweeps (5,000 burn-in), one chain, on Wine (all 178 rows).
fn classifier_gibbs_wine(c: &mut Criterion) {
    use plackett::classify::data::{encode_classes, training_data};
    use plackett::classify::gibbs::{ClassifierGibbsOptions, gibbs};
    use plackett::classify::read_table;
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/uci/wine.csv");
    let path = p.to_str().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let t = read_table(path, &text, "class", true).unwrap();
    let (classes, _) = encode_classes(t.labels.as_ref().unwrap());
    let rows: Vec<usize> = (0..t.x.len()).collect();
    let (_, data) = training_data(path, &t, &rows, &classes, false).unwrap();
    let mut g = c.benchmark_group("classifier_gibbs");
    g.sample_size(10);
    g.bench_function("wine_10k_sweeps_1_chain", |b| {
        b.iter(|| {
            gibbs(
                black_box(&data),
                &ClassifierGibbsOptions {
                    mcmc: plackett::infer::mcmc::McmcSettings {
                        chains: 1,
                        ..ClassifierGibbsOptions::default().mcmc
                    },
                    ..Default::default()
                },
            )
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    classifier_gibbs_wine,
    nascar,
    sweeps,
    subset_recursion,
    dermatology_likelihood,
    group_order_sampler
);
criterion_main!(benches);
