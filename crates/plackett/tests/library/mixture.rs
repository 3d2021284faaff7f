//! Finite Plackett–Luce mixtures (Mollica & Tardella 2017) against R's
//! PLMIX 2.2.0, built from source and run here (multistart MAP with a flat
//! prior = MLE, eps 1e-14): log-likelihoods to 1e-4, weights to 1e-3.

use crate::common;

use plackett::data::Dataset;
use plackett::infer::mixture::{MixtureOptions, fit_mixture};
use plackett::io::{Format, ReadOptions, read_path};

fn plmix(name: &str) -> Option<Dataset> {
    let dir = common::plmix_dir()?;
    let opts = ReadOptions {
        format: Some(Format::Orderings),
        top_k: true,
        ..ReadOptions::default()
    };
    Some(read_path(&common::path(&dir, &format!("{name}.csv")), &opts).unwrap())
}

fn check(name: &str, g: usize, loglik: f64, weights: &[f64]) {
    let Some(ds) = plmix(name) else { return };
    let fit = fit_mixture(
        &ds,
        &MixtureOptions {
            components: g,
            starts: 10,
            ..MixtureOptions::default()
        },
    )
    .unwrap();
    eprintln!(
        "{name} G={g}: loglik {:.6} (PLMIX {loglik}), weights {:?}, iterations {}, starts {:?}",
        fit.log_likelihood,
        fit.weights,
        fit.iterations,
        fit.starts
            .iter()
            .map(|s| s.log_likelihood)
            .collect::<Vec<_>>()
    );
    assert!(
        (fit.log_likelihood - loglik).abs() < 1e-4,
        "{name} G={g}: {} vs PLMIX {loglik}",
        fit.log_likelihood
    );
    for (a, b) in fit.weights.iter().zip(weights) {
        assert!(
            (a - b).abs() < 1e-3,
            "{name} G={g}: weights {:?} vs {weights:?}",
            fit.weights
        );
    }
    assert!(fit.converged);
}

#[test]
fn plmix_gaming_two_and_three_components() {
    check("d_gaming", 1, -546.822488, &[1.0]);
    check("d_gaming", 2, -521.682255, &[0.7265, 0.2735]);
    check("d_gaming", 3, -506.957252, &[0.5056, 0.2988, 0.1956]);
}

#[test]
fn plmix_carconf_two_components_and_bic() {
    check("d_carconf", 2, -2622.942185, &[0.7696, 0.2304]);
    let Some(ds) = plmix("d_carconf") else { return };
    let one = fit_mixture(
        &ds,
        &MixtureOptions {
            components: 1,
            ..MixtureOptions::default()
        },
    )
    .unwrap();
    assert!((one.bic() - 5308.741).abs() < 1e-3, "BIC {}", one.bic());
}

#[test]
fn plmix_apa_two_components() {
    check("d_apa", 1, -51598.306362, &[1.0]);
    check("d_apa", 2, -50377.769046, &[0.7052, 0.2948]);
}

use plackett::data::simulate::{Design, simulate_mixture};
use plackett::infer::mixture::{MixtureFit, fit_range, mixture_log_likelihood};
use plackett::infer::rng::stream;
use rayon::prelude::*;

fn perms(g: usize) -> Vec<Vec<usize>> {
    if g == 1 {
        return vec![vec![0]];
    }
    let mut out = Vec::new();
    for p in perms(g - 1) {
        for k in 0..g {
            let mut q = p.clone();
            q.insert(k, g - 1);
            out.push(q);
        }
    }
    out
}

/// Worths from log-worths, per component.
fn worths(theta: &[Vec<f64>]) -> Vec<Vec<f64>> {
    theta
        .iter()
        .map(|t| t.iter().map(|x| x.exp()).collect())
        .collect()
}

fn centred(t: &[f64]) -> Vec<f64> {
    let m = t.iter().sum::<f64>() / t.len() as f64;
    t.iter().map(|x| x - m).collect()
}

/// RMSE of the log-worths and largest weight error, under the labelling of
/// the fitted components that best matches the truth.
fn errors(fit: &MixtureFit, w: &[f64], theta: &[Vec<f64>]) -> (f64, f64) {
    let g = w.len();
    perms(g)
        .into_iter()
        .map(|p| {
            let mut se = 0.0;
            let mut cnt = 0.0;
            let mut werr: f64 = 0.0;
            for k in 0..g {
                let a = &fit.log_worths[p[k]];
                let b = centred(&theta[k]);
                se += a.iter().zip(&b).map(|(x, y)| (x - y).powi(2)).sum::<f64>();
                cnt += a.len() as f64;
                werr = werr.max((fit.weights[p[k]] - w[k]).abs());
            }
            ((se / cnt).sqrt(), werr)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap()
}

fn truth(g: usize, n: usize, separated: bool) -> (Vec<f64>, Vec<Vec<f64>>) {
    let base: Vec<f64> = (0..n)
        .map(|i| -1.5 + 3.0 * i as f64 / (n - 1) as f64)
        .collect();
    let mut thetas = vec![base.clone()];
    if separated {
        thetas.push(base.iter().rev().copied().collect());
        // Third: the middle items on top.
        thetas.push(base.iter().map(|x| 1.0 - 2.0 * x.abs()).collect());
    } else {
        // Mild departures from the first component.
        thetas.push(
            base.iter()
                .enumerate()
                .map(|(i, x)| x + if i % 2 == 0 { 0.6 } else { -0.6 })
                .collect(),
        );
        thetas.push(
            base.iter()
                .enumerate()
                .map(|(i, x)| x + if i < n / 2 { 0.6 } else { -0.6 })
                .collect(),
        );
    }
    thetas.truncate(g);
    let w = match g {
        2 => vec![0.6, 0.4],
        _ => vec![0.5, 0.3, 0.2],
    };
    (w, thetas)
}

/// EM recovers simulated mixtures: G = 2 and 3, well and poorly separated,
/// full and top-3 rankings, with unknown-order ties. The estimate's
/// likelihood is never below the truth's (it is the maximiser), and the
/// well-separated worths and weights are close to the truth.
#[test]
fn em_recovers_simulated_mixtures() {
    let cases = [
        (2, true, Design::Full, 0.0, 2000),
        (3, true, Design::Full, 0.0, 3000),
        (2, true, Design::TopK { k: 3 }, 0.0, 3000),
        (3, true, Design::TopK { k: 3 }, 0.15, 6000),
        (2, true, Design::Full, 0.2, 2000),
        (2, false, Design::Full, 0.0, 3000),
        (3, false, Design::Full, 0.1, 4000),
    ];
    for (case, &(g, sep, design, ties, n_obs)) in cases.iter().enumerate() {
        let (w, theta) = truth(g, 8, sep);
        let lams = worths(&theta);
        let mut rng = stream(2024, &[case as u64]);
        let (ds, _) = simulate_mixture(&mut rng, &w, &lams, n_obs, design, ties);
        let fit = fit_mixture(
            &ds,
            &MixtureOptions {
                components: g,
                starts: 8,
                ..MixtureOptions::default()
            },
        )
        .unwrap();
        let (ll_true, _) = mixture_log_likelihood(&ds, &w, &theta).unwrap();
        let (rmse, werr) = errors(&fit, &w, &theta);
        eprintln!(
            "G={g} separated={sep} {design:?} ties={ties} n={n_obs}: log-worth RMSE {rmse:.3}, weight error {werr:.3}, \
             loglik {:.2} vs truth {ll_true:.2}",
            fit.log_likelihood
        );
        assert!(fit.converged);
        assert!(
            fit.log_likelihood >= ll_true - 1e-6,
            "EM below the truth's likelihood"
        );
        if sep {
            assert!(
                rmse < 0.15 && werr < 0.05,
                "case {case}: RMSE {rmse}, weight error {werr}"
            );
        }
    }
}

/// BIC picks the true number of components in well-separated data
/// (≥ 80% of replications).
#[test]
fn bic_picks_the_true_number_of_components() {
    let (w, theta) = truth(2, 6, true);
    let lams = worths(&theta);
    let reps = 20;
    let mut hits = 0;
    for r in 0..reps {
        let mut rng = stream(7, &[r]);
        let (ds, _) = simulate_mixture(&mut rng, &w, &lams, 400, Design::Full, 0.0);
        let fits = fit_range(
            &ds,
            1..=3,
            &MixtureOptions {
                starts: 5,
                seed: r,
                ..MixtureOptions::default()
            },
        )
        .unwrap();
        let best = fits
            .iter()
            .min_by(|a, b| a.bic().total_cmp(&b.bic()))
            .unwrap();
        hits += (best.components() == 2) as usize;
    }
    eprintln!("BIC picked G = 2 in {hits}/{reps} replications");
    assert!(hits * 10 >= reps as usize * 8, "{hits}/{reps}");
}

/// One component is the single-population engine's fit, bit for bit.
#[test]
fn one_component_is_the_single_population_fit() {
    use plackett::infer::spec::{EngineKind, FitSpec, Fitted};
    let (w, theta) = truth(2, 6, true);
    let lams = worths(&theta);
    let (ds, _) = simulate_mixture(
        &mut stream(3, &[]),
        &w,
        &lams,
        300,
        Design::TopK { k: 3 },
        0.1,
    );
    let mix = fit_mixture(
        &ds,
        &MixtureOptions {
            components: 1,
            ..MixtureOptions::default()
        },
    )
    .unwrap();
    let Fitted::Point(p) = FitSpec {
        engine: EngineKind::Mle,
        standard_errors: false,
        ..FitSpec::default()
    }
    .fit(&ds)
    .unwrap() else {
        panic!()
    };
    assert_eq!(mix.log_likelihood, p.log_likelihood);
    assert_eq!(mix.log_worths[0], centred(&p.theta));
    assert!(mix.membership.iter().all(|m| m == &[1.0]));
}

/// The same seed gives the same fit whatever the number of threads.
#[test]
fn deterministic_across_thread_counts() {
    let (w, theta) = truth(3, 8, true);
    let lams = worths(&theta);
    let (ds, _) = simulate_mixture(
        &mut stream(5, &[]),
        &w,
        &lams,
        1500,
        Design::TopK { k: 4 },
        0.1,
    );
    let run = |threads| {
        common::on_threads(threads, || {
            fit_mixture(
                &ds,
                &MixtureOptions {
                    components: 3,
                    starts: 4,
                    ..MixtureOptions::default()
                },
            )
            .unwrap()
        })
    };
    assert_eq!(run(1), run(3));
}

mod gibbs {
    use super::*;
    use plackett::infer::mcmc::McmcSettings;
    use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, mixture_gibbs};

    pub fn run(ds: &Dataset, g: usize, samples: usize, seed: u64) -> MixtureFit {
        mixture_gibbs(
            ds,
            &MixtureGibbsOptions {
                starts: 10,
                ..MixtureGibbsOptions::plmix(g, McmcSettings::new(samples, 1000, 4, seed))
            },
        )
        .unwrap()
    }

    /// PLMIX's DIC1 (11,000 iterations, Gamma(1, 0.001) priors): our DIC
    /// is the same definition (`D̄ + p_D`, `p_D = D̄ − D(MAP)`). G = 1 and
    /// G = 3 agree within ±2; at G = 2 our DIC is 3.8 (d_gaming) and 7
    /// (d_carconf) lower than PLMIX's, with the sampler checked against
    /// exact importance sampling below — recorded in docs/mixtures.md, not
    /// asserted.
    #[test]
    fn plmix_dic_on_gaming_and_carconf() {
        // d_apa (no DIC target; G = 3 is multimodal): the mode check alone.
        let cases: [(&str, &[Option<f64>]); 3] = [
            ("d_gaming", &[Some(1103.6), None, Some(1055.9)]),
            ("d_carconf", &[Some(5288.4), None, Some(5280.0)]),
            ("d_apa", &[None, None]),
        ];
        for (name, targets) in cases {
            let Some(ds) = plmix(name) else { return };
            for (k, &target) in targets.iter().enumerate() {
                let f = run(&ds, k + 1, 2000, 11);
                let p = f.posterior.as_ref().unwrap();
                eprintln!(
                    "{name} G={}: DIC {:.2} (PLMIX {target:?}), BPIC {:.2}, D̄ {:.2}, D(mode) {:.2}, R̂ {:.3}, ESS {:.0}",
                    k + 1,
                    p.dic,
                    p.bpic,
                    p.mean_deviance,
                    p.deviance_at_mode,
                    p.rhat_max,
                    p.ess_min
                );
                if let Some(t) = target {
                    assert!((p.dic - t).abs() < 2.0, "{name} G={}: DIC {}", k + 1, p.dic);
                }
                // The posterior concentrates around the mode EM finds: every
                // posterior-mean weight within 3 sd of the MAP's.
                let mode = fit_mixture(
                    &ds,
                    &MixtureOptions {
                        components: k + 1,
                        prior_shape: 1.0,
                        prior_rate: 0.001,
                        ..MixtureOptions::default()
                    },
                )
                .unwrap();
                for ((m, s), w) in f.weights.iter().zip(&p.weight_sd).zip(&mode.weights) {
                    assert!(
                        (m - w).abs() <= 3.0 * s + 1e-9,
                        "{name} G={}: weight {m} ± {s} vs MAP {w}",
                        k + 1
                    );
                }
            }
        }
    }
}

/// The mixture Gibbs sampler against exact posterior expectations on a tiny
/// problem: importance sampling from the (proper) prior, 400,000 draws, for
/// label-invariant quantities — the posterior mean deviance, the mean of
/// the larger weight and the mean of item 0's largest log-worth ratio.
#[test]
fn mixture_gibbs_matches_importance_sampling_on_a_tiny_problem() {
    use plackett::data::{DatasetBuilder, Items, Tail, TieSemantics};
    use plackett::infer::mcmc::McmcSettings;
    use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, mixture_gibbs};
    use plackett::numerics::gamma::ln_gamma_draw;
    let rows: [&[u32]; 8] = [
        &[0, 1, 2],
        &[0, 1, 2],
        &[0, 2, 1],
        &[2, 1, 0],
        &[2, 1, 0],
        &[1, 2, 0],
        &[0, 1],
        &[2, 0],
    ];
    let mut b = DatasetBuilder::new(Items::numbered(3), TieSemantics::UnknownOrder);
    for r in rows {
        let g: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
        b.push(&g, Tail::None, &[], 1.0).unwrap();
    }
    let ds = b.finish();
    let (a, rate, alpha) = (2.0, 1.0, 2.0);
    // Label-invariant summaries of one state.
    let stats = |w: &[f64], t: &[Vec<f64>]| -> [f64; 3] {
        let (d, _) = mixture_log_likelihood(&ds, w, t).unwrap();
        let big = w[0].max(w[1]);
        let r = t
            .iter()
            .map(|x| x[0] - x[2])
            .fold(f64::NEG_INFINITY, f64::max);
        [-2.0 * d, big, r]
    };
    let mut rng = stream(99, &[]);
    let n_is = 400_000;
    let mut logw = Vec::with_capacity(n_is);
    let mut vals = Vec::with_capacity(n_is);
    for _ in 0..n_is {
        let g1 = ln_gamma_draw(&mut rng, alpha, 1.0);
        let g2 = ln_gamma_draw(&mut rng, alpha, 1.0);
        let m = g1.max(g2);
        let s = ((g1 - m).exp() + (g2 - m).exp()).ln() + m;
        let w = [(g1 - s).exp(), (g2 - s).exp()];
        let t: Vec<Vec<f64>> = (0..2)
            .map(|_| (0..3).map(|_| ln_gamma_draw(&mut rng, a, rate)).collect())
            .collect();
        let (ll, _) = mixture_log_likelihood(&ds, &w, &t).unwrap();
        logw.push(ll);
        vals.push(stats(&w, &t));
    }
    let mx = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let wts: Vec<f64> = logw.iter().map(|l| (l - mx).exp()).collect();
    let tot: f64 = wts.iter().sum();
    let ess = tot * tot / wts.iter().map(|w| w * w).sum::<f64>();
    let exact: Vec<f64> = (0..3)
        .map(|k| vals.iter().zip(&wts).map(|(v, w)| v[k] * w).sum::<f64>() / tot)
        .collect();
    let fit = mixture_gibbs(
        &ds,
        &MixtureGibbsOptions {
            components: 2,
            prior_shape: a,
            prior_rate: rate,
            dirichlet: alpha,
            mcmc: McmcSettings::new(20_000, 1000, 4, 5),
            starts: 5,
            observer: None,
        },
    )
    .unwrap();
    let p = fit.posterior.as_ref().unwrap();
    let mut sums = [0.0; 3];
    let mut cnt = 0.0;
    for (cw, ct) in p.weight_draws.iter().zip(&p.log_worth_draws) {
        for (w, t) in cw.iter().zip(ct) {
            let s = stats(w, t);
            for k in 0..3 {
                sums[k] += s[k];
            }
            cnt += 1.0;
        }
    }
    let gibbs: Vec<f64> = sums.iter().map(|s| s / cnt).collect();
    eprintln!(
        "importance sampling (ESS {ess:.0}): {exact:?}; Gibbs: {gibbs:?}; Gibbs D̄ {}",
        p.mean_deviance
    );
    assert!((gibbs[0] - exact[0]).abs() < 0.1, "mean deviance");
    assert!((gibbs[1] - exact[1]).abs() < 0.01, "larger weight");
    assert!(
        (gibbs[2] - exact[2]).abs() < 0.05,
        "largest log-worth ratio"
    );
}

/// Simulation-based calibration of the mixture Gibbs sampler (Talts et al.
/// 2018) on a small G = 2 problem, on label-invariant functions of the
/// parameters: the larger weight, the weight-averaged log-worth contrast
/// of items 0 and 2, and the largest contrast of items 0 and 1 over the
/// components. Ranks of the truth among 49 thinned draws, 10 bins: χ² with
/// 9 df below 27.88 (p = 0.001) for each; 90% central intervals cover the
/// truth at 85–95%.
#[test]
fn mixture_gibbs_sbc() {
    use plackett::infer::mcmc::McmcSettings;
    use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, mixture_gibbs};
    use plackett::numerics::gamma::ln_gamma_draw;
    let (a, rate, alpha) = (2.0, 1.0, 2.0);
    let (reps, draws, thin) = (200usize, 49usize, 6usize);
    let f = |w: &[f64], t: &[Vec<f64>]| -> [f64; 3] {
        [
            w[0].max(w[1]),
            w.iter().zip(t).map(|(w, t)| w * (t[0] - t[2])).sum(),
            t.iter()
                .map(|t| t[0] - t[1])
                .fold(f64::NEG_INFINITY, f64::max),
        ]
    };
    let results: Vec<([usize; 3], [bool; 3])> = (0..reps)
        .into_par_iter()
        .map(|r| {
            let mut rng = stream(404, &[r as u64]);
            let g1 = ln_gamma_draw(&mut rng, alpha, 1.0);
            let g2 = ln_gamma_draw(&mut rng, alpha, 1.0);
            let m = g1.max(g2);
            let s = ((g1 - m).exp() + (g2 - m).exp()).ln() + m;
            let w = [(g1 - s).exp(), (g2 - s).exp()];
            let t: Vec<Vec<f64>> = (0..2)
                .map(|_| (0..4).map(|_| ln_gamma_draw(&mut rng, a, rate)).collect())
                .collect();
            let lams: Vec<Vec<f64>> = t
                .iter()
                .map(|t| t.iter().map(|x| x.exp()).collect())
                .collect();
            let (ds, _) = simulate_mixture(&mut rng, &w, &lams, 40, Design::Full, 0.0);
            let fit = mixture_gibbs(
                &ds,
                &MixtureGibbsOptions {
                    components: 2,
                    prior_shape: a,
                    prior_rate: rate,
                    dirichlet: alpha,
                    mcmc: McmcSettings {
                        samples: draws,
                        burn_in: 200,
                        thin,
                        chains: 1,
                        seed: r as u64,
                    },
                    starts: 3,
                    observer: None,
                },
            )
            .unwrap();
            let p = fit.posterior.unwrap();
            let truth = f(&w, &t);
            let mut ranks = [0usize; 3];
            let mut inside = [false; 3];
            for q in 0..3 {
                let mut v: Vec<f64> = p.weight_draws[0]
                    .iter()
                    .zip(&p.log_worth_draws[0])
                    .map(|(w, t)| f(w, t)[q])
                    .collect();
                ranks[q] = v.iter().filter(|&&x| x < truth[q]).count();
                v.sort_by(|a, b| a.total_cmp(b));
                let lo = v[(0.05 * (v.len() - 1) as f64).round() as usize];
                let hi = v[(0.95 * (v.len() - 1) as f64).round() as usize];
                inside[q] = lo <= truth[q] && truth[q] <= hi;
            }
            (ranks, inside)
        })
        .collect();
    for q in 0..3 {
        let h = plackett::stats::rank_histogram(results.iter().map(|(r, _)| r[q]), draws, 10);
        let chi2 = plackett::stats::uniform_chi2(&h);
        let cov = results.iter().filter(|(_, i)| i[q]).count() as f64 / reps as f64;
        eprintln!("mixture SBC quantity {q}: {h:?} χ² {chi2:.1}, 90% coverage {cov:.3}");
        assert!(
            chi2 < 27.88,
            "quantity {q}: ranks not uniform, χ² = {chi2:.1}, {h:?}"
        );
        assert!((0.85..=0.95).contains(&cov), "quantity {q}: coverage {cov}");
    }
}

/// Posterior predictive checks see a missing component: on well-separated
/// G = 2 data (top-3 of 6 items, some unknown-order ties), the G = 2
/// posterior reproduces the top-1 and paired-comparison frequencies (few
/// outside their 95% intervals) while the G = 1 posterior does not.
#[test]
fn predictive_checks_detect_a_missing_component() {
    use plackett::infer::mcmc::McmcSettings;
    use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, mixture_gibbs};
    let (w, theta) = truth(2, 6, true);
    let lams = worths(&theta);
    let (ds, _) = simulate_mixture(
        &mut stream(8, &[]),
        &w,
        &lams,
        600,
        Design::TopK { k: 3 },
        0.1,
    );
    let outside = |g: usize| {
        let f = mixture_gibbs(
            &ds,
            &MixtureGibbsOptions {
                components: g,
                prior_shape: 2.0,
                prior_rate: 1.0,
                dirichlet: 1.0,
                mcmc: McmcSettings::new(500, 200, 2, 3),
                starts: 5,
                observer: None,
            },
        )
        .unwrap();
        let c = f.posterior.unwrap().checks.unwrap();
        let rows: Vec<_> = c.top1.iter().chain(&c.pairs).collect();
        let out = rows
            .iter()
            .filter(|r| r.observed < r.low || r.observed > r.high)
            .count();
        (out, rows.len())
    };
    let (o2, n2) = outside(2);
    let (o1, n1) = outside(1);
    eprintln!("outside 95% predictive intervals: G=2 {o2}/{n2}, G=1 {o1}/{n1}");
    assert!((o2 as f64) <= 0.1 * n2 as f64, "G=2: {o2}/{n2}");
    assert!((o1 as f64) >= 0.2 * n1 as f64, "G=1: {o1}/{n1}");
}

/// Frequentist coverage of the mixture sampler's 90% intervals at fixed
/// truths, after relabelling (Mollica & Tardella 2017; pivotal reordering):
/// 100 replications of each of three designs — G = 2 on full rankings,
/// G = 2 on top-3 rankings with unknown-order ties, G = 3 on full
/// rankings — and every component-specific quantity (each weight and each
/// centred log-worth of each component, the fit's components matched to
/// the truth's by the closest labelling). Pooled coverage must be near the
/// nominal 90%.
#[test]
fn mixture_gibbs_covers_the_truth_after_relabelling() {
    use plackett::infer::mcmc::McmcSettings;
    use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, mixture_gibbs};
    let designs = [
        ("G=2 full", 2, Design::Full, 0.0, 300),
        ("G=2 top-3, ties", 2, Design::TopK { k: 3 }, 0.15, 500),
        ("G=3 full", 3, Design::Full, 0.0, 600),
    ];
    let reps = 100;
    for (d, &(label, g, design, ties, n_obs)) in designs.iter().enumerate() {
        let (w, theta) = truth(g, 6, true);
        let lams = worths(&theta);
        let truth_c: Vec<Vec<f64>> = theta.iter().map(|t| centred(t)).collect();
        // Per replication: (weights inside, weights total, worths inside, worths total).
        let counts: Vec<(usize, usize, usize, usize)> = (0..reps)
            .into_par_iter()
            .map(|r| {
                let mut rng = stream(77, &[d as u64, r as u64]);
                let (ds, _) = simulate_mixture(&mut rng, &w, &lams, n_obs, design, ties);
                let fit = mixture_gibbs(
                    &ds,
                    &MixtureGibbsOptions {
                        components: g,
                        prior_shape: 1.0,
                        prior_rate: 0.001,
                        dirichlet: 1.0,
                        mcmc: McmcSettings {
                            samples: 800,
                            burn_in: 200,
                            thin: 1,
                            chains: 1,
                            seed: r as u64,
                        },
                        starts: 4,
                        observer: None,
                    },
                )
                .unwrap();
                let p = fit.posterior.as_ref().unwrap();
                // Match the fit's labels (the pivot's) to the truth's.
                let best = perms(g)
                    .into_iter()
                    .min_by(|a, b| {
                        let cost = |q: &Vec<usize>| -> f64 {
                            (0..g)
                                .map(|k| {
                                    fit.log_worths[q[k]]
                                        .iter()
                                        .zip(&truth_c[k])
                                        .map(|(x, y)| (x - y).powi(2))
                                        .sum::<f64>()
                                })
                                .sum()
                        };
                        cost(a).total_cmp(&cost(b))
                    })
                    .unwrap();
                let interval = |mut v: Vec<f64>, t: f64| -> bool {
                    v.sort_by(|a, b| a.total_cmp(b));
                    let lo = v[(0.05 * (v.len() - 1) as f64).round() as usize];
                    let hi = v[(0.95 * (v.len() - 1) as f64).round() as usize];
                    lo <= t && t <= hi
                };
                let mut c = (0, 0, 0, 0);
                for k in 0..g {
                    let j = best[k];
                    let ws: Vec<f64> = p.weight_draws[0].iter().map(|x| x[j]).collect();
                    c.0 += usize::from(interval(ws, w[k]));
                    c.1 += 1;
                    for i in 0..6 {
                        let ts: Vec<f64> = p.log_worth_draws[0].iter().map(|x| x[j][i]).collect();
                        c.2 += usize::from(interval(ts, truth_c[k][i]));
                        c.3 += 1;
                    }
                }
                c
            })
            .collect();
        let sum = counts.iter().fold((0, 0, 0, 0), |a, c| {
            (a.0 + c.0, a.1 + c.1, a.2 + c.2, a.3 + c.3)
        });
        let cw = sum.0 as f64 / sum.1 as f64;
        let ct = sum.2 as f64 / sum.3 as f64;
        let pooled = (sum.0 + sum.2) as f64 / (sum.1 + sum.3) as f64;
        eprintln!(
            "mixture Gibbs coverage, {label} (n = {n_obs}, {reps} replications): \
             weights {cw:.3}, log-worths {ct:.3}, pooled {pooled:.3} (nominal 0.90)"
        );
        // Binomial sd of the pooled rate is ≤ 0.01 here (replications are
        // independent; quantities within one are correlated, so allow more).
        assert!(
            (0.85..=0.95).contains(&pooled),
            "{label}: pooled coverage {pooled}"
        );
        assert!((0.80..=0.97).contains(&cw), "{label}: weight coverage {cw}");
    }
}

/// DIC (PLMIX's DIC1, from the sampler) picks the true number of
/// components among 1 to 4 in ≥ 80% of well-separated replications, for a
/// true G of 2 and of 3.
#[test]
fn dic_picks_the_true_number_of_components() {
    use plackett::infer::mcmc::McmcSettings;
    use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, gibbs_range};
    for (g_true, n_obs) in [(2usize, 400usize), (3, 600)] {
        let (w, theta) = truth(g_true, 6, true);
        let lams = worths(&theta);
        let reps = 20u64;
        let picks: Vec<usize> = (0..reps)
            .into_par_iter()
            .map(|r| {
                let mut rng = stream(8, &[g_true as u64, r]);
                let (ds, _) = simulate_mixture(&mut rng, &w, &lams, n_obs, Design::Full, 0.0);
                let fits = gibbs_range(
                    &ds,
                    1..=4,
                    &MixtureGibbsOptions {
                        components: 1,
                        prior_shape: 1.0,
                        prior_rate: 0.001,
                        dirichlet: 1.0,
                        mcmc: McmcSettings {
                            samples: 600,
                            burn_in: 200,
                            thin: 1,
                            chains: 1,
                            seed: r,
                        },
                        starts: 4,
                        observer: None,
                    },
                )
                .unwrap();
                fits.iter()
                    .min_by(|a, b| {
                        let d = |f: &MixtureFit| f.posterior.as_ref().unwrap().dic;
                        d(a).total_cmp(&d(b))
                    })
                    .unwrap()
                    .components()
            })
            .collect();
        let hits = picks.iter().filter(|&&g| g == g_true).count();
        eprintln!("DIC picked G = {g_true} in {hits}/{reps} replications: {picks:?}");
        assert!(hits * 10 >= reps as usize * 8, "{hits}/{reps}");
    }
}
