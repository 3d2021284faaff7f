//! The Gibbs gold standard of vMMIC on Hu 2024 §2.3's basic setting (500
//! bags × 20 instances, ratio 4, 16 + 16 features): sweeps per second and
//! the time to 1,000 effective draws of the bag intercept α
//! (docs/mil.md, docs/benchmarks.md). Simulation is not timed.
//!
//! ```text
//! cargo run --release --example mil_gibbs_timing [-- SAMPLES BURN_IN CHAINS]
//! ```

use plackett::infer::mcmc::McmcSettings;
use plackett::mil::{MilDesign, MilGibbsOptions, MilPriors, fit_gibbs, simulate_bags};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("SAMPLES BURN_IN CHAINS"))
        .collect();
    let (samples, burn_in, chains) = match args.as_slice() {
        [s, b, c] => (*s, *b, *c),
        _ => (1000, 1000, 4),
    };
    let bags = simulate_bags(&MilDesign::default(), 11).expect("simulate");
    let opts = MilGibbsOptions {
        priors: MilPriors::default(),
        mcmc: McmcSettings {
            samples,
            burn_in,
            thin: 1,
            chains,
            seed: 1,
        },
        observer: None,
        tempering: plackett::mil::Tempering {
            rungs: std::env::var("RUNGS").map_or(1, |v| v.parse().expect("RUNGS")),
            hottest: std::env::var("HOTTEST").map_or(0.03, |v| v.parse().expect("HOTTEST")),
            adapt: std::env::var("LADDER").is_ok_and(|v| v == "adaptive"),
            auto: std::env::var("RUNGS_AUTO").is_ok_and(|v| v == "1"),
        },
        ..MilGibbsOptions::default()
    };
    let t = Instant::now();
    let fit = fit_gibbs(&bags, &opts).expect("fit");
    let secs = t.elapsed().as_secs_f64();
    let sweeps = ((samples + burn_in) * chains) as f64;
    let alpha = &fit.diagnostics[fit.layout.alpha()];
    let worst = fit
        .diagnostics
        .iter()
        .map(|d| d.rhat)
        .fold(f64::NAN, f64::max);
    let min_ess = fit
        .diagnostics
        .iter()
        .map(|d| d.ess_bulk)
        .fold(f64::NAN, f64::min);
    // Effective draws accrue during the kept sweeps only.
    let kept_secs = secs * samples as f64 / (samples + burn_in) as f64;
    println!(
        "bags 500, instances {}, {chains} chains × ({burn_in} burn-in + {samples} kept) sweeps in {secs:.1} s: {:.0} sweeps/s",
        bags.n_instances(),
        sweeps / secs
    );
    println!(
        "α: R̂ {:.3}, bulk ESS {:.0}, tail ESS {:.0}; time to 1,000 effective draws of α {:.1} s (kept sweeps only)",
        alpha.rhat,
        alpha.ess_bulk,
        alpha.ess_tail,
        kept_secs * 1000.0 / alpha.ess_bulk
    );
    println!("all of θ: max R̂ {worst:.3}, min bulk ESS {min_ess:.0}");
    let lay = fit.layout;
    let block = |k: usize| -> String {
        let named = [
            ("β", lay.beta()),
            ("γ", lay.gamma()),
            ("b", lay.b()),
            ("d", lay.d()),
        ];
        if k == lay.alpha() {
            return "α".into();
        }
        if k == lay.a() {
            return "a".into();
        }
        if k == lay.c() {
            return "c".into();
        }
        named
            .iter()
            .find(|(_, r)| r.contains(&k))
            .map_or("?".into(), |(n, r)| format!("{n}{}", k - r.start + 1))
    };
    let mut order: Vec<usize> = (0..lay.len()).collect();
    order.sort_by(|&x, &y| fit.diagnostics[y].rhat.total_cmp(&fit.diagnostics[x].rhat));
    let worst: Vec<String> = order[..6]
        .iter()
        .map(|&k| {
            let p = lay.len();
            let means: Vec<String> = fit
                .draws
                .iter()
                .map(|c| {
                    let v: Vec<f64> = c.chunks(p).map(|d| d[k]).collect();
                    format!("{:.2}", v.iter().sum::<f64>() / v.len() as f64)
                })
                .collect();
            format!(
                "{} R̂ {:.2} (chain means {})",
                block(k),
                fit.diagnostics[k].rhat,
                means.join(" ")
            )
        })
        .collect();
    println!("worst: {}", worst.join("; "));
    if !fit.swap_acceptance.is_empty() {
        let acc: Vec<String> = fit
            .swap_acceptance
            .iter()
            .map(|a| format!("{a:.2}"))
            .collect();
        println!("swap acceptance (coldest pair first): {}", acc.join(" "));
        let taus: Vec<String> = fit.temperatures.iter().map(|t| format!("{t:.4}")).collect();
        println!(
            "ladder τ: {}; communication barrier Λ {:.2}",
            taus.join(" "),
            fit.barrier.unwrap_or(f64::NAN)
        );
    }
}
