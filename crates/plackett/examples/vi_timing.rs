//! Timing of the feature-model engines on the Guo et al. 2019 benchmark shape
//! (d = 20, 200 items, 1,000 rankings of 5, β ~ N(0, I), prior N(0, I)).
use plackett::data::simulate::{Design, regression_problem};
use plackett::infer::gaussian_vi::{ViOptions, vi};
use plackett::infer::gaussian_vi_exact::{ExactViOptions, vi_exact};
use plackett::infer::regression::fit_regression;
use std::time::Instant;

fn main() {
    let eta: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let p = regression_problem(200, 20, 1000, Design::SubRankings { len: 5 }, 1.0, None, 11);
    let t = Instant::now();
    let g = vi(&p.data, &p.features, &ViOptions::with_eta(eta)).unwrap();
    println!(
        "Alg. 1: {:.3} s, {} iterations, converged {}",
        t.elapsed().as_secs_f64(),
        g.iterations,
        g.converged
    );
    let t = Instant::now();
    let e = vi_exact(&p.data, &p.features, &ExactViOptions::with_eta(eta)).unwrap();
    println!(
        "exact VI: {:.3} s, {} iterations",
        t.elapsed().as_secs_f64(),
        e.iterations
    );
    let t = Instant::now();
    let m = fit_regression(&p.data, &p.features, eta, 1e-10, None).unwrap();
    println!(
        "MAP: {:.3} s, {} iterations",
        t.elapsed().as_secs_f64(),
        m.iterations
    );
}
