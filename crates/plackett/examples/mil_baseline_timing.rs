//! Time of each baseline (MILR, si-mean/si-max) on one bag file, z-scored:
//! `cargo run --release --example mil_baseline_timing -- data/uci/musk2.csv`.
//! Prints method, iterations, converged, objective and seconds.

use plackett::mil::bags::read_bags;
use plackett::mil::{Baseline, MilPriors, fit_baseline};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("FILE");
    let bags = read_bags(&path).expect("read");
    let bags = bags.scaled(&bags.scaling()).expect("scale");
    for b in [Baseline::Milr, Baseline::SiMean] {
        let t = Instant::now();
        let fit = fit_baseline(&bags, b, &MilPriors::default(), 1e-7, 300).expect("fit");
        println!(
            "{:8} iterations {:4} converged {} objective {:.6} seconds {:.2}",
            b.name(),
            fit.iterations,
            fit.converged,
            fit.objective,
            t.elapsed().as_secs_f64()
        );
    }
}
