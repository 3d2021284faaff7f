//! Where the time of an MLE with standard errors goes, phase by phase.
//!
//! `cargo run --release --example se_timing -- rankings.json`

use plackett::data::graph::connectivity;
use plackett::infer::Prior;
use plackett::infer::mm::{MmOptions, mm};
use plackett::infer::newton::{covariance, standard_errors};
use plackett::io::{ReadOptions, read_path};
use plackett::model::information::information;
use plackett::model::pl::Scope;
use plackett::numerics::linalg::Cholesky;
use plackett::posterior::Gauge;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("a rankings file");
    let t = Instant::now();
    let ds = read_path(&path, &ReadOptions::default()).expect("readable");
    println!("read: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let c = connectivity(&ds);
    println!(
        "connectivity ({}): {:.1} ms",
        c.strongly_connected,
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let r = mm(
        &ds,
        &vec![0.0; ds.n_items()],
        &MmOptions {
            prior: Prior::Flat,
            fixed: None,
            iter: plackett::numerics::fixed_point::IterSettings::new(1e-10, 100_000),
            observer: None,
        },
    )
    .expect("MM runs");
    println!(
        "mm+squarem ({} sweeps): {:.1} ms",
        r.sweeps,
        t.elapsed().as_secs_f64() * 1e3
    );
    for _ in 0..2 {
        let t = Instant::now();
        let _ = plackett::model::information::information_lower(&ds, &r.theta, Scope::Real);
        println!(
            "information, lower triangle: {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    let t = Instant::now();
    let info = information(&ds, &r.theta, Scope::Real).expect("information");
    println!(
        "information ({}x{}): {:.1} ms",
        info.nrows(),
        info.ncols(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let keep: Vec<usize> = (0..ds.n_items()).collect();
    let t = Instant::now();
    let _ = covariance(&ds, &r.theta, Prior::Flat, &keep).expect("covariance");
    println!(
        "full covariance (information + Cholesky inverse): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let _ = standard_errors(&ds, &r.theta, Prior::Flat, &keep, &Gauge::MeanCentred).expect("se");
    println!(
        "standard errors (information + Cholesky + diagonal of the inverse): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let c = Cholesky::new(&info.map(|x| x + 1.0)).expect("spd");
    println!(
        "  Cholesky alone: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let _ = c.inverse_diagonal();
    println!(
        "  diagonal of the inverse alone: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
}
