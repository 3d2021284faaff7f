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
//! Prints bags, instances, sweeps, seconds, final ELBO, two training bag
//! AUROCs, the primary-instance AUROC (against the simulated truth) and the
//! process's peak resident memory at the end of the fit. The two bag AUROCs differ in
//! kind: `fitted_auroc` ranks the training bags by the fit's own `p̂_i =
//! Φ(m_α + Σ_j E[δ_ij] E[η_ij])` (Hu 2024 §2.2.3's convergence quantity),
//! whose `E[δ]` are posterior given each bag's own label, so it is not a
//! predictive figure; `predictive_auroc` predicts the training bags as new
//! bags (the model with the default linear-response covariance, 500 draws
//! per bag, seed 1), the figure `plackett mil fit` prints as its training
//! bag AUROC. Neither prediction is timed.

use plackett::eval::metrics::auc;
use plackett::mil::{
    MilDesign, MilModel, VbOptions, VbStart, fit_vb, linear_response, simulate_bags,
};
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
    println!(
        "bags\tinstances\tsweeps\tseconds\telbo\tfitted_auroc\tpredictive_auroc\tprimary_auroc\tpeak_rss_mb"
    );
    for n in sizes {
        let design = MilDesign {
            bags: n,
            ..MilDesign::default()
        };
        let bags = simulate_bags(&design, 1).expect("simulate");
        let t = Instant::now();
        let fit = fit_vb(&bags, &opts).expect("fit");
        let secs = t.elapsed().as_secs_f64();
        // The fit's memory, before the untimed prediction below.
        let rss = peak_rss_mb();
        points.push((n as f64, secs.log10()));
        let y = bags.labels("sim").expect("labels");
        let truth = bags.primary.clone().expect("simulated truth");
        // As `plackett mil fit` predicts its training bags.
        let (lr, _) = linear_response::apply(&fit, &bags, opts.priors);
        let predicted = MilModel::from_vb(&lr, &bags, opts.priors)
            .predict(&bags, 500, 1)
            .expect("predict");
        let p: Vec<f64> = predicted.iter().map(|b| b.p).collect();
        println!(
            "{n}\t{}\t{}\t{secs:.2}\t{:.2}\t{:.4}\t{:.4}\t{:.4}\t{:.0}",
            bags.n_instances(),
            fit.iterations,
            fit.elbo.last().copied().unwrap_or(f64::NAN),
            auc(&fit.bag_p, &y),
            auc(&p, &y),
            auc(&fit.primary, &truth),
            rss
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
