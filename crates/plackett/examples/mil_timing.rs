//! vMMIC timing on Hu 2024 §2.3's basic design (m = 20 instances per bag,
//! ratio 4, 16 + 16 features) at growing numbers of bags: the issue's
//! "16,000 bags in < 10 s on 2 cores" target and the time-vs-n series of
//! docs/mil.md (docs/benchmarks.md). Simulation is in memory and not
//! timed; each line is one whole `fit_vb` run at the default settings.
//!
//! ```text
//! cargo run --release --example mil_timing [-- 500 4000 16000 100000] [-- --plot FILE.svg] [-- --moments|--prior]
//! ```
//!
//! `--plot FILE.svg` also draws seconds against bags on log–log axes;
//! `--moments` starts from the method-of-moments direction
//! (`--vb-start moments`), `--prior` from the prior means, instead of the
//! marginal mode (the default).
//!
//! Prints bags, instances, sweeps, seconds, final ELBO, training bag
//! AUROC, primary-instance AUROC (against the simulated truth) and the
//! process's peak resident memory so far.

use plackett::eval::metrics::auc;
use plackett::mil::{MilDesign, VbOptions, VbStart, fit_vb, simulate_bags};
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plot = args
        .iter()
        .position(|a| a == "--plot")
        .map(|i| args.get(i + 1).expect("--plot FILE.svg").clone());
    let sizes: Vec<usize> = args
        .iter()
        .filter(|a| a.parse::<usize>().is_ok())
        .map(|a| a.parse().expect("bag counts"))
        .collect();
    let opts = VbOptions {
        start: if args.iter().any(|a| a == "--moments") {
            VbStart::Moments
        } else if args.iter().any(|a| a == "--prior") {
            VbStart::Prior
        } else {
            VbStart::Marginal
        },
        ..VbOptions::default()
    };
    let mut points = Vec::new();
    let sizes = if sizes.is_empty() {
        vec![500, 1000, 2000, 4000, 16000]
    } else {
        sizes
    };
    println!("bags\tinstances\tsweeps\tseconds\telbo\ttrain_auroc\tprimary_auroc\tpeak_rss_mb");
    for n in sizes {
        let design = MilDesign {
            bags: n,
            ..MilDesign::default()
        };
        let bags = simulate_bags(&design, 1).expect("simulate");
        let t = Instant::now();
        let fit = fit_vb(&bags, &opts).expect("fit");
        let secs = t.elapsed().as_secs_f64();
        points.push((n as f64, secs.log10()));
        let y = bags.labels("sim").expect("labels");
        let truth = bags.primary.clone().expect("simulated truth");
        println!(
            "{n}\t{}\t{}\t{secs:.2}\t{:.2}\t{:.4}\t{:.4}\t{:.0}",
            bags.n_instances(),
            fit.iterations,
            fit.elbo.last().copied().unwrap_or(f64::NAN),
            auc(&fit.bag_p, &y),
            auc(&fit.primary, &truth),
            peak_rss_mb()
        );
    }
    if let Some(path) = plot {
        let svg = plackett::report::charts::xy(
            &[("vMMIC, default settings".to_string(), points)],
            "training bags (log10)",
            "log10 seconds to fit",
            true,
            None,
        );
        std::fs::write(&path, svg).expect("write the plot");
    }
}
