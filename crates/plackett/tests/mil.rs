//! vMMIC and its Gibbs gold standard (Hu 2024, ch. 2): simulation-based
//! calibration of the sampler, VB against the sampler, data checks.

use plackett::infer::mcmc::McmcSettings;
use plackett::infer::rng::stream;
use plackett::mil::*;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

/// Simulation-based calibration (Talts et al. 2018) of the Gibbs sampler:
/// θ from the prior, bags from the model, the rank of the true value among
/// the posterior draws is uniform if the sampler is right.
#[test]
fn gibbs_sampler_passes_simulation_based_calibration() {
    let design = MilDesign {
        bags: 30,
        instances: 3,
        ratio: 1.0,
        features: 1,
        ..MilDesign::default()
    };
    let pri = MilPriors {
        intercept_var: 1.0,
        slope_var: 1.0,
    };
    let lay = Layout { d0: 1, d1: 1 };
    let reps = 200;
    let draws = 99;
    let ranks: Vec<Vec<usize>> = (0..reps)
        .into_par_iter()
        .map(|r| {
            let mut rng = stream(2024, &[r as u64]);
            let theta: Vec<f64> = (0..lay.len())
                .map(|k| {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    z * pri.var(&lay, k).sqrt()
                })
                .collect();
            let bags = simulate_with(&design, &theta, 1000 + r as u64).unwrap();
            let fit = fit_gibbs(
                &bags,
                &MilGibbsOptions {
                    priors: pri,
                    mcmc: McmcSettings {
                        samples: draws,
                        burn_in: 300,
                        thin: 10,
                        chains: 1,
                        seed: r as u64,
                    },
                    observer: None,
                },
            )
            .unwrap();
            (0..lay.len())
                .map(|k| fit.coordinate(k).iter().filter(|&&v| v < theta[k]).count())
                .collect()
        })
        .collect();
    // 10 bins of the 100 possible ranks 0..=99.
    let names = ["alpha", "beta", "gamma", "a", "b", "c", "d"];
    for k in 0..lay.len() {
        let mut bins = [0usize; 10];
        for r in &ranks {
            bins[(r[k] / 10).min(9)] += 1;
        }
        let e = reps as f64 / 10.0;
        let chi2: f64 = bins.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
        eprintln!("SBC {}: bins {bins:?} chi2 {chi2:.1}", names[k]);
        // χ²₉ 99.9% quantile.
        assert!(chi2 < 27.88, "{}: χ² {chi2:.1}, bins {bins:?}", names[k]);
    }
}
