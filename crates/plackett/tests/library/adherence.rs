//! The adherence model (Raman & Joachims 2014, as R's PlackettLuce fits
//! it, Turner et al. 2020): PlackettLuce's own reference fit reproduced,
//! reductions to the ordinary model, and recovery of simulated adherences.

use crate::common;

use plackett::data::simulate::pl_order;
use plackett::data::{Dataset, DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::adherence::{AdherenceOptions, fit_adherence};
use plackett::infer::rng::stream;
use plackett::infer::{PointOptions, Prior, fit_point};

/// PlackettLuce's test-adherence.R "fake triple comparisons": 8 rankings
/// of apple, banana, orange, pear (items in order, best first).
fn fake_triples() -> Dataset {
    let mut items = Items::new();
    for n in ["apple", "banana", "orange", "pear"] {
        items.intern(n);
    }
    let mut b = DatasetBuilder::new(items, TieSemantics::UnknownOrder);
    let rows: [&[u32]; 8] = [
        &[0, 1, 2],
        &[1, 2, 3],
        &[1, 0, 3],
        &[0, 1, 2],
        &[2, 0, 3],
        &[0, 3, 2],
        &[0, 1],
        &[1, 2],
    ];
    for r in rows {
        let g: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
        b.push(&g, Tail::None, &[], 1.0).unwrap();
    }
    b.finish()
}

/// PlackettLuce 0.4 (tests/testthat/_snaps/adherence.md, "estimated
/// adherence works w/ npseudo != 0 [fake triples]"):
/// `PlackettLuce(R, gamma = list(shape = 100, rate = 100))` with its
/// default `npseudo = 0.5`. Worths are printed relative to the ghost item,
/// eight significant digits. PlackettLuce alternates BFGS fits and stops
/// when the log-posterior changes by less than 1e-7 relative (8e-5 here),
/// so its printed point is not the exact maximiser: ours has a log-posterior
/// 1.9e-7 higher (−810.73244073 vs −810.73244092), adherences within 3e-5
/// and log-worth ratios within 1.6e-4 of the printed ones, the slack of a
/// flat optimum stopped at that tolerance.
#[test]
fn reproduces_plackettluce_estimated_adherence_with_pseudo_rankings() {
    let ds = fake_triples();
    let f = fit_adherence(
        &ds,
        &AdherenceOptions {
            prior_shape: 100.0,
            prior_rate: 100.0,
            pseudo: Some(0.5),
            ..AdherenceOptions::default()
        },
    )
    .unwrap();
    assert!(f.converged);
    let worth: [f64; 4] = [2.20098389, 1.47977409, 0.2832371, 0.19216854];
    let adherence = [
        0.99560284, 0.99597636, 0.99080292, 0.99560284, 0.97604704, 0.99166396, 0.99157188,
        0.99266463,
    ];
    for i in 0..4 {
        for j in 0..4 {
            let ours = f.log_worths[i] - f.log_worths[j];
            let theirs = (worth[i] / worth[j]).ln();
            assert!(
                (ours - theirs).abs() < 3e-4,
                "log({i}/{j}): {ours} vs {theirs}"
            );
        }
    }
    for (r, (a, b)) in f.adherence.iter().zip(adherence).enumerate() {
        assert!((a - b).abs() < 5e-5, "ranker {}: {a} vs {b}", r + 1);
    }
    println!(
        "loglik {:.8} (PlackettLuce -7.46763542), log-posterior {:.8} (-810.73244092)",
        f.log_likelihood, f.log_posterior
    );
    assert!((f.log_likelihood - -7.46763542).abs() < 3e-4);
    // At least as high as PlackettLuce's (a better maximum), and close.
    assert!(f.log_posterior >= -810.73244092 - 1e-9);
    assert!(f.log_posterior - -810.73244092 < 1e-6);
}

fn centred(t: &[f64]) -> Vec<f64> {
    let m = t.iter().sum::<f64>() / t.len() as f64;
    t.iter().map(|x| x - m).collect()
}

/// Simulated data: `per` full rankings of `n` items by each of the
/// rankers, ranker `r` with adherence `eta[r]`, in ranker order; ranker
/// names "r1", "r2", ….
fn simulate(theta: &[f64], eta: &[f64], per: usize, seed: u64, ties_every: usize) -> Dataset {
    let n = theta.len();
    let mut rng = stream(seed, &[7]);
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    let all: Vec<u32> = (0..n as u32).collect();
    let mut k = 0;
    for (r, &e) in eta.iter().enumerate() {
        let lam: Vec<f64> = theta.iter().map(|t| (e * t).exp()).collect();
        for _ in 0..per {
            let order = pl_order(&mut rng, &all, &lam);
            let mut g: Vec<Vec<u32>> = order.iter().map(|&i| vec![i]).collect();
            k += 1;
            if ties_every > 0 && k % ties_every == 0 {
                // An unknown-order tie of the 2nd and 3rd places.
                let third = g.remove(2);
                g[1].extend(third);
            }
            b.push_by(&format!("r{}", r + 1), &g, Tail::None, &[], 1.0)
                .unwrap();
        }
    }
    b.finish()
}

/// Fixed adherence 1 for every ranker is the ordinary model: the MLE, and
/// under a Gamma worth prior the MAP, of the existing point engine — on
/// full rankings with unknown-order ties, and on top-k data.
#[test]
fn unit_adherence_reduces_to_the_ordinary_fits() {
    let theta: Vec<f64> = (0..6).map(|i| 0.4 * i as f64 - 1.0).collect();
    let ds = simulate(&theta, &[1.0; 5], 8, 3, 4);
    let topk = {
        let mut b = DatasetBuilder::new(Items::numbered(6), TieSemantics::UnknownOrder);
        for o in 0..ds.n_obs() {
            let m = ds.obs(o).members;
            let g: Vec<Vec<u32>> = m[..3].iter().map(|&i| vec![i]).collect();
            b.push_by(&format!("r{}", o % 5), &g, Tail::Universe, &[], 1.0)
                .unwrap();
        }
        b.finish()
    };
    for data in [&ds, &topk] {
        let n_rankers = data.ranker_names().len();
        for prior in [None, Some((2.0, 0.5))] {
            let f = fit_adherence(
                data,
                &AdherenceOptions {
                    fixed: Some(vec![1.0; n_rankers]),
                    worth_prior: prior,
                    ..AdherenceOptions::default()
                },
            )
            .unwrap();
            let p = fit_point(
                data,
                &PointOptions {
                    prior: prior.map_or(Prior::Flat, |(shape, rate)| Prior::Gamma { shape, rate }),
                    tol: 1e-14,
                    ..PointOptions::default()
                },
            )
            .unwrap();
            let (a, b) = match prior {
                None => (centred(&f.log_worths), centred(&p.theta)),
                Some(_) => (f.log_worths.clone(), p.theta.clone()),
            };
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-7, "{prior:?}: {x} vs {y}");
            }
            assert!((f.log_likelihood - p.log_likelihood).abs() < 1e-8);
            assert!(
                f.trace
                    .windows(2)
                    .all(|w| w[1] >= w[0] - 1e-12 * w[0].abs())
            );
        }
    }
}

/// A prior concentrated at 1 (Gamma(1e8, 1e8)) estimates adherences of 1
/// and the ordinary MLE.
#[test]
fn a_concentrated_adherence_prior_gives_the_mle() {
    let theta: Vec<f64> = (0..5).map(|i| 0.5 * i as f64).collect();
    let ds = simulate(&theta, &[0.5, 1.0, 2.0], 10, 5, 0);
    let f = fit_adherence(
        &ds,
        &AdherenceOptions {
            prior_shape: 1e8,
            prior_rate: 1e8,
            ..AdherenceOptions::default()
        },
    )
    .unwrap();
    let p = fit_point(&ds, &PointOptions::default()).unwrap();
    for (x, y) in f.log_worths.iter().zip(centred(&p.theta)) {
        assert!((x - y).abs() < 1e-5, "{x} vs {y}");
    }
    assert!(f.adherence.iter().all(|e| (e - 1.0).abs() < 1e-5));
}

/// Rankers of known adherence (0.4, 1, 2.5; 12 rankers, 40 full rankings
/// of 8 items each) are recovered up to the model's common scale (θ → cθ,
/// η → η/c leaves the likelihood unchanged; the prior pins it loosely):
/// the relative adherences η_r / geomean(η) within 20% of the truth's (each group's mean within 8%), and
/// the log-worth contrasts (rescaled by the same factor) within 0.1.
#[test]
fn recovers_simulated_adherences() {
    let theta: Vec<f64> = (0..8).map(|i| 0.35 * i as f64 - 1.2).collect();
    let eta: Vec<f64> = (0..12).map(|r| [0.4, 1.0, 2.5][r % 3]).collect();
    let ds = simulate(&theta, &eta, 40, 11, 0);
    let f = fit_adherence(
        &ds,
        &AdherenceOptions {
            prior_shape: 2.0,
            prior_rate: 2.0,
            ..AdherenceOptions::default()
        },
    )
    .unwrap();
    assert!(f.converged);
    let geo = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    let (g_hat, g_true) = (geo(&f.adherence), geo(&eta));
    let mut worst: f64 = 0.0;
    for (r, (&a, &b)) in f.adherence.iter().zip(&eta).enumerate() {
        assert_eq!(f.rankers[r], format!("r{}", r + 1));
        let rel = (a / g_hat) / (b / g_true);
        println!("ranker {r}: true {b}, relative {rel:.3}");
        worst = worst.max((rel - 1.0).abs());
    }
    println!("worst relative adherence error {worst:.3}");
    // Each ranker's η is informed by 280 choices: a relative sd of about
    // 7%; 0.2 is about three of them.
    assert!(worst < 0.2, "{worst}");
    for group in 0..3 {
        let m: f64 = (0..12)
            .filter(|r| r % 3 == group)
            .map(|r| (f.adherence[r] / g_hat) / (eta[r] / g_true))
            .sum::<f64>()
            / 4.0;
        assert!((m - 1.0).abs() < 0.08, "group {group}: {m}");
    }
    let c = g_hat / g_true; // η̂ ≈ c η  ⇒  θ̂ ≈ θ / c
    for (x, y) in f.log_worths.iter().zip(centred(&theta)) {
        assert!((x * c - y).abs() < 0.1, "{x} vs {y}");
    }
}

/// Rankers with several rankings: a grouped fit with fixed adherences is
/// the ungrouped fit with each ranker's adherence copied to its rankings
/// (PlackettLuce's "fixed adherence works for grouped_rankings"); and the
/// estimate does not depend on the number of threads.
#[test]
fn grouped_rankers_and_thread_count() {
    let theta: Vec<f64> = (0..5).map(|i| 0.3 * i as f64).collect();
    let eta = [0.75, 1.0, 1.25];
    let ds = simulate(&theta, &eta, 6, 2, 3);
    let grouped = fit_adherence(
        &ds,
        &AdherenceOptions {
            fixed: Some(eta.to_vec()),
            ..AdherenceOptions::default()
        },
    )
    .unwrap();
    let ungrouped_ds = ds.subset(|_| true); // same observations…
    let ungrouped_ds = {
        // …each its own ranker.
        let mut b = DatasetBuilder::new(Items::numbered(5), TieSemantics::UnknownOrder);
        for o in 0..ungrouped_ds.n_obs() {
            let obs = ungrouped_ds.obs(o);
            let g: Vec<Vec<u32>> = obs
                .groups()
                .map(|g| obs.members[g.start..g.end].to_vec())
                .collect();
            b.push(&g, Tail::None, &[], 1.0).unwrap();
        }
        b.finish()
    };
    let per_ranking: Vec<f64> = (0..ds.n_obs())
        .map(|o| eta[ds.ranker(o).unwrap() as usize])
        .collect();
    let ungrouped = fit_adherence(
        &ungrouped_ds,
        &AdherenceOptions {
            fixed: Some(per_ranking),
            ..AdherenceOptions::default()
        },
    )
    .unwrap();
    for (x, y) in grouped.log_worths.iter().zip(&ungrouped.log_worths) {
        assert!((x - y).abs() < 1e-8, "{x} vs {y}");
    }
    assert!((grouped.log_likelihood - ungrouped.log_likelihood).abs() < 1e-9);
    let run = |threads: usize| {
        common::on_threads(threads, || {
            fit_adherence(&ds, &AdherenceOptions::default()).unwrap()
        })
    };
    let (a, b) = (run(1), run(3));
    assert_eq!(a.log_worths, b.log_worths);
    assert_eq!(a.adherence, b.adherence);
}

mod sampler {
    //! The adherence posterior sampler (latent times + slice updates + a
    //! scale move): simulation-based calibration, agreement with an
    //! independent random-walk Metropolis sampler, and recovery.
    use super::*;
    use plackett::infer::adherence_gibbs::{AdherenceGibbsOptions, adherence_gibbs};
    use plackett::infer::mcmc::McmcSettings;
    use plackett::numerics::gamma::ln_gamma_draw;
    use rand::RngExt;
    use rand_distr::{Distribution, StandardNormal};
    use rayon::prelude::*;

    fn options(
        model: AdherenceOptions,
        samples: usize,
        thin: usize,
        chains: usize,
        seed: u64,
    ) -> AdherenceGibbsOptions {
        AdherenceGibbsOptions {
            model,
            mcmc: McmcSettings {
                samples,
                burn_in: 200,
                thin,
                chains,
                seed,
            },
            observer: None,
        }
    }

    /// SBC (Talts et al. 2018) on a small problem with proper priors:
    /// λ_i ~ Gamma(2, 1), η_r ~ Gamma(4, 4), 4 items, 5 rankers with 4 full
    /// rankings each. Ranks of the truth among 99 thinned draws for θ_1,
    /// θ_1 − θ_4 and η_1 must be uniform (χ² over 10 bins, 200 replications).
    #[test]
    fn adherence_sampler_sbc() {
        let (a, b, s, r) = (2.0, 1.0, 4.0, 4.0);
        let (reps, draws, thin) = (200usize, 99usize, 4usize);
        let results: Vec<[usize; 3]> = (0..reps)
            .into_par_iter()
            .map(|rep| {
                let mut rng = stream(9090, &[rep as u64]);
                let theta: Vec<f64> = (0..4).map(|_| ln_gamma_draw(&mut rng, a, b)).collect();
                let eta: Vec<f64> = (0..5)
                    .map(|_| ln_gamma_draw(&mut rng, s, r).exp())
                    .collect();
                let ds = simulate(&theta, &eta, 4, 1000 + rep as u64, 0);
                let fit = adherence_gibbs(
                    &ds,
                    &options(
                        AdherenceOptions {
                            prior_shape: s,
                            prior_rate: r,
                            worth_prior: Some((a, b)),
                            ..AdherenceOptions::default()
                        },
                        draws,
                        thin,
                        1,
                        rep as u64,
                    ),
                )
                .unwrap();
                let p = fit.posterior.unwrap();
                let truth = [theta[0], theta[0] - theta[3], eta[0]];
                let q = |d: usize, k: usize| -> f64 {
                    match k {
                        0 => p.log_worth_draws[0][d][0],
                        1 => p.log_worth_draws[0][d][0] - p.log_worth_draws[0][d][3],
                        _ => p.adherence_draws[0][d][0],
                    }
                };
                let mut ranks = [0usize; 3];
                for (k, rk) in ranks.iter_mut().enumerate() {
                    *rk = (0..draws).filter(|&d| q(d, k) < truth[k]).count();
                }
                ranks
            })
            .collect();
        for k in 0..3 {
            let h = plackett::stats::rank_histogram(results.iter().map(|rk| rk[k]), draws, 10);
            let chi2 = plackett::stats::uniform_chi2(&h);
            eprintln!("adherence SBC quantity {k}: {h:?} χ² {chi2:.1}");
            // χ²(9): P(> 27.9) = 0.001.
            assert!(chi2 < 27.9, "quantity {k}: χ² {chi2}, ranks {h:?}");
        }
    }

    /// Log posterior of the adherence model with a Gamma(a, b) worth
    /// prior, computed directly from the rankings (for the Metropolis
    /// reference): parameters are θ (= log λ) and log η.
    fn log_post(
        x: &[f64],
        rankings: &[(usize, Vec<u32>)],
        n: usize,
        pr: (f64, f64, f64, f64),
    ) -> f64 {
        let (a, b, s, r) = pr;
        let (theta, leta) = x.split_at(n);
        let mut l = 0.0;
        for t in theta {
            l += a * t - b * t.exp();
        }
        for le in leta {
            // η ~ Gamma(s, r) in log η: s log η − r η.
            l += s * le - r * le.exp();
        }
        for (rk, order) in rankings {
            let e = leta[*rk].exp();
            let mut rest: Vec<f64> = order.iter().map(|&i| e * theta[i as usize]).collect();
            while rest.len() > 1 {
                let m = rest.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let lse = m + rest.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
                l += rest[0] - lse;
                rest.remove(0);
            }
        }
        l
    }

    /// The sampler's posterior means and sds agree with a long adaptive
    /// random-walk Metropolis run on the same posterior (written here from
    /// the model's definition, sharing no code with the sampler).
    #[test]
    fn adherence_sampler_matches_random_walk_metropolis() {
        let theta = [0.8, 0.2, -0.3, -0.7];
        let eta = [0.5, 1.0, 2.0];
        let ds = simulate(&theta, &eta, 6, 77, 0);
        let pr = (2.0, 1.0, 3.0, 3.0);
        let fit = adherence_gibbs(
            &ds,
            &options(
                AdherenceOptions {
                    prior_shape: pr.2,
                    prior_rate: pr.3,
                    worth_prior: Some((pr.0, pr.1)),
                    ..AdherenceOptions::default()
                },
                4000,
                2,
                4,
                5,
            ),
        )
        .unwrap();
        let p = fit.posterior.unwrap();
        assert!(p.rhat_max < 1.01, "R̂ {}", p.rhat_max);
        // The rankings as (ranker, order).
        let rankings: Vec<(usize, Vec<u32>)> = (0..ds.n_obs())
            .map(|o| (ds.ranker(o).unwrap() as usize, ds.obs(o).members.to_vec()))
            .collect();
        let n = 4;
        let d = n + eta.len();
        let mut rng = stream(31, &[0]);
        let mut x = vec![0.0; d];
        let mut lp = log_post(&x, &rankings, n, pr);
        let (mut sum, mut sum2) = (vec![0.0; d], vec![0.0; d]);
        let (burn, iters) = (50_000, 1_000_000);
        let step = 0.35;
        let mut kept = 0.0;
        for it in 0..burn + iters {
            // One coordinate at a time, Gaussian steps.
            let k = it % d;
            let z: f64 = StandardNormal.sample(&mut rng);
            let mut y = x.clone();
            y[k] += step * z;
            let ly = log_post(&y, &rankings, n, pr);
            if rng.random::<f64>().ln() < ly - lp {
                x = y;
                lp = ly;
            }
            if it >= burn && k == d - 1 {
                kept += 1.0;
                for j in 0..d {
                    let v = if j < n { x[j] } else { x[j].exp() };
                    sum[j] += v;
                    sum2[j] += v * v;
                }
            }
        }
        for j in 0..d {
            let m = sum[j] / kept;
            let sd = (sum2[j] / kept - m * m).sqrt();
            let (gm, gsd) = if j < n {
                (p.log_worth_mean[j], p.log_worth_sd[j])
            } else {
                (p.adherence_mean[j - n], p.adherence_sd[j - n])
            };
            eprintln!("parameter {j}: Metropolis {m:.4} ± {sd:.4}, sampler {gm:.4} ± {gsd:.4}");
            assert!(
                (m - gm).abs() < 0.08 * sd + 0.01,
                "mean of {j}: {m} vs {gm}"
            );
            assert!((sd - gsd).abs() < 0.08 * sd, "sd of {j}: {sd} vs {gsd}");
        }
    }
}
