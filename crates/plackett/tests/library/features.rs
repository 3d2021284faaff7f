//! PL regression with item features (Guo et al. 2019; PlackettLuce's salad example).
#![allow(clippy::needless_range_loop)]

use crate::common;
use common::{data_dir, path, salad_rankings};
use plackett::infer::regression::fit_regression;
use plackett::io::features::read_features;

#[test]
fn salad_regression_mle() {
    let dir = data_dir();
    let ds = salad_rankings();
    let text = std::fs::read_to_string(path(&dir, "salad/features.csv")).unwrap();
    let f = read_features("features.csv", &text, ds.items(), false).unwrap();
    let r = fit_regression(&ds, &f, 0.0, 1e-10, None).unwrap();
    assert!(r.converged);
    let se = r.se.clone().unwrap();
    eprintln!("beta {:?} se {:?} deviance {}", r.beta, se, r.deviance());
    assert!((r.beta[0] - 3.27405).abs() < 1e-4);
    assert!((r.beta[1] - 0.27389).abs() < 1e-4);
    assert!((se[0] - 0.57665).abs() < 1e-3);
    assert!((se[1] - 0.04506).abs() < 1e-3);
    assert!((r.deviance() - 152.905).abs() < 1e-3);
    // Standardisation changes the working scale, not the MLE on the original scale.
    let fs = read_features("features.csv", &text, ds.items(), true).unwrap();
    let rs = fit_regression(&ds, &fs, 0.0, 1e-10, None).unwrap();
    for (k, s) in se.iter().enumerate() {
        assert!((rs.beta[k] - r.beta[k]).abs() < 1e-7);
        assert!((rs.se.as_ref().unwrap()[k] - s).abs() < 1e-7);
    }
}

use nalgebra::{DMatrix, DVector};
use plackett::data::Dataset;
use plackett::data::features::Features;
use plackett::data::simulate::{Design, regression_problem};
use plackett::infer::gaussian_vi::{ViOptions, jj_lambda, vi};
use plackett::infer::gaussian_vi_exact::{ExactViOptions, vi_exact};
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

/// Synthetic PL-regression data: X ~ N(0, 1), β ~ N(0, I), `m` rankings of
/// `len` random items (pairs for `len = 2`).
pub fn synthetic(
    n: usize,
    d: usize,
    m: usize,
    len: usize,
    seed: u64,
) -> (Dataset, Features, Vec<f64>) {
    let design = if len == 2 {
        Design::Pairs
    } else {
        Design::SubRankings { len }
    };
    let p = regression_problem(n, d, m, design, 1.0, None, seed);
    (p.data, p.features, p.beta)
}

fn monotone(trace: &[f64]) -> bool {
    trace.windows(2).all(|w| w[1] >= w[0] - 1e-9 * w[0].abs())
}

/// Pairs only: the VI is Jaakkola–Jordan Bayesian logistic regression on
/// feature differences. Independent implementation (Bishop 2006, eqs
/// 10.156–10.163, explicit inverses).
#[test]
fn pairs_reduce_to_jaakkola_jordan_logistic_regression() {
    let (ds, f, _) = synthetic(30, 4, 150, 2, 3);
    let eta = 0.7;
    for accelerate in [false, true] {
        let fit = vi(
            &ds,
            &f,
            &ViOptions {
                eta,
                eps: 1e-12,
                max_iter: 10_000,
                max_inner: 100,
                accelerate,
            },
        )
        .unwrap();
        assert!(fit.converged);
        assert!(monotone(&fit.bound));
        // φ_n = x_winner − x_loser, t_n = 1.
        let phis: Vec<DVector<f64>> = ds
            .observations()
            .map(|o| (f.x.row(o.members[0] as usize) - f.x.row(o.members[1] as usize)).transpose())
            .collect();
        let s0_inv = DMatrix::<f64>::identity(4, 4) * eta;
        let mut xi = vec![1.0; phis.len()];
        let (mut m, mut s) = (DVector::zeros(4), DMatrix::zeros(4, 4));
        for _ in 0..10_000 {
            let mut p = s0_inv.clone();
            let mut r = DVector::zeros(4);
            for (k, phi) in phis.iter().enumerate() {
                p += phi * phi.transpose() * (2.0 * jj_lambda(xi[k]));
                r += phi * 0.5;
            }
            s = p.try_inverse().unwrap();
            m = &s * r;
            let mut delta = 0.0f64;
            for (k, phi) in phis.iter().enumerate() {
                let new = (phi.transpose() * (&s + &m * m.transpose()) * phi)[(0, 0)].sqrt();
                delta = delta.max((new - xi[k]).abs());
                xi[k] = new;
            }
            if delta < 1e-13 {
                break;
            }
        }
        for j in 0..4 {
            assert!(
                (fit.mu[j] - m[j]).abs() < 1e-8,
                "mean {j}: {} vs {}",
                fit.mu[j],
                m[j]
            );
            for k in 0..4 {
                assert!((fit.cov[(j, k)] - s[(j, k)]).abs() < 1e-8);
            }
        }
    }
}

/// SQUAREM (default) and the plain alternation of Guo et al. 2019 reach the same
/// fixed point, and both keep L̄_k non-decreasing.
#[test]
fn accelerated_alg1_reaches_the_plain_fixed_point() {
    for (n, d, m, len, seed) in [
        (200, 20, 1000, 5, 1),
        (50, 4, 200, 3, 7),
        (80, 6, 150, 8, 8),
    ] {
        let (ds, f, _) = synthetic(n, d, m, len, seed);
        let run = |accelerate| {
            vi(
                &ds,
                &f,
                &ViOptions {
                    eta: 1.0,
                    eps: 1e-9,
                    max_iter: 20_000,
                    accelerate,
                    ..Default::default()
                },
            )
            .unwrap()
        };
        let (plain, fast) = (run(false), run(true));
        assert!(plain.converged && fast.converged);
        assert!(monotone(&plain.bound) && monotone(&fast.bound));
        let dmu = (&plain.mu - &fast.mu).amax();
        let dcov = (&plain.cov - &fast.cov).amax();
        eprintln!(
            "n={n} d={d} len={len}: plain {} rounds, SQUAREM {} rounds; max |Δμ| {dmu:.1e}, max |ΔS| {dcov:.1e}, bounds {:.9} / {:.9}",
            plain.iterations,
            fast.iterations,
            plain.bound_final(),
            fast.bound_final()
        );
        assert!(dmu < 1e-6 && dcov < 1e-8, "{dmu} {dcov}");
        assert!(
            (plain.bound_final() - fast.bound_final()).abs() < 1e-6 * plain.bound_final().abs()
        );
    }
}

#[test]
fn bound_never_decreases_and_exact_vi_near_map() {
    let problems: Vec<(&str, Design, usize, usize, usize)> = vec![
        (
            "rankings of 5",
            Design::SubRankings { len: 5 },
            200,
            20,
            1000,
        ),
        ("rankings of 4", Design::SubRankings { len: 4 }, 60, 3, 80),
        ("pairs", Design::Pairs, 40, 6, 300),
        (
            "rankings of 8",
            Design::SubRankings { len: 8 },
            100,
            10,
            200,
        ),
        ("top-3 of 30", Design::TopK { k: 3 }, 30, 4, 100),
        ("full rankings of 12", Design::Full, 12, 2, 30),
    ];
    for (k, (name, design, n, d, m)) in problems.into_iter().enumerate() {
        let p = regression_problem(n, d, m, design, 1.0, None, 1 + k as u64);
        let (ds, f) = (&p.data, &p.features);
        let fit = vi(ds, f, &ViOptions::with_eta(1.0)).unwrap();
        assert!(fit.converged, "{name}");
        assert!(monotone(&fit.bound), "{name}: bound decreased");
        let ex = vi_exact(ds, f, &ExactViOptions::default()).unwrap();
        assert!(ex.converged, "{name}");
        assert!(monotone(&ex.bound), "{name}: exact bound decreased");
        let map = fit_regression(ds, f, 1.0, 1e-10, None).unwrap();
        let gap = |mu: &DVector<f64>, cov: &DMatrix<f64>| {
            (0..d)
                .map(|j| (mu[j] - map.beta_work[j]).abs() / cov[(j, j)].sqrt())
                .fold(0.0f64, f64::max)
        };
        let (g_guo, g_ex) = (gap(&fit.mu, &fit.cov), gap(&ex.mu, &ex.cov));
        eprintln!(
            "{name} (n={n}, d={d}, m={m}): max |mean − MAP| / sd: Alg. 1 (Guo) {g_guo:.2} ({} rounds), exact VI {g_ex:.3} ({} it.)",
            fit.iterations, ex.iterations
        );
        assert!(g_ex < 0.5, "{name}: exact VI far from MAP: {g_ex}");
        if matches!(design, Design::Pairs) {
            // Pairs only: Jaakkola–Jordan is tight enough to stay near MAP.
            assert!(g_guo < 0.5, "{g_guo}");
        }
    }
}

/// Acceptance: d = 20, 200 items, 1,000 rankings of 5, β ~ N(0, I): the
/// posterior mean lies within 2 sd of the truth for ≥ 90% of coordinates.
#[test]
fn synthetic_recovery_within_two_sd() {
    let (ds, f, beta) = synthetic(200, 20, 1000, 5, 2026);
    let ex = vi_exact(&ds, &f, &ExactViOptions::default()).unwrap();
    let guo = vi(&ds, &f, &ViOptions::default()).unwrap();
    let within = |mu: &DVector<f64>, cov: &DMatrix<f64>| {
        (0..20)
            .filter(|&j| (mu[j] - beta[j]).abs() <= 2.0 * cov[(j, j)].sqrt())
            .count() as f64
            / 20.0
    };
    let (w_ex, w_guo) = (within(&ex.mu, &ex.cov), within(&guo.mu, &guo.cov));
    let slope = |mu: &DVector<f64>| {
        let num: f64 = (0..20).map(|j| mu[j] * beta[j]).sum();
        num / beta.iter().map(|b| b * b).sum::<f64>()
    };
    eprintln!(
        "within 2 sd: exact VI {:.0}%, Alg. 1 {:.0}%; regression of mean on truth: exact {:.3}, Alg. 1 {:.3}",
        100.0 * w_ex,
        100.0 * w_guo,
        slope(&ex.mu),
        slope(&guo.mu)
    );
    assert!(w_ex >= 0.9, "{w_ex}");
}

/// Coverage of nominal 90% intervals over 50 replications (β ~ N(0, I),
/// fitted with the matching prior, so an exact posterior covers at 90%).
#[test]
fn coverage_of_ninety_percent_intervals_over_fifty_replications() {
    const Z95: f64 = 1.644_853_626_951_472_2;
    let (mut hit_ex, mut hit_guo, mut total) = (0usize, 0usize, 0usize);
    let (mut two_ex, mut two_guo) = (0usize, 0usize);
    for r in 0..50u64 {
        let (ds, f, beta) = synthetic(200, 20, 1000, 5, 10_000 + r);
        let ex = vi_exact(
            &ds,
            &f,
            &ExactViOptions {
                seed: r,
                ..Default::default()
            },
        )
        .unwrap();
        let guo = vi(&ds, &f, &ViOptions::default()).unwrap();
        for j in 0..20 {
            total += 1;
            hit_ex += ((ex.mu[j] - beta[j]).abs() <= Z95 * ex.cov[(j, j)].sqrt()) as usize;
            hit_guo += ((guo.mu[j] - beta[j]).abs() <= Z95 * guo.cov[(j, j)].sqrt()) as usize;
            two_ex += ((ex.mu[j] - beta[j]).abs() <= 2.0 * ex.cov[(j, j)].sqrt()) as usize;
            two_guo += ((guo.mu[j] - beta[j]).abs() <= 2.0 * guo.cov[(j, j)].sqrt()) as usize;
        }
    }
    let (c_ex, c_guo) = (hit_ex as f64 / total as f64, hit_guo as f64 / total as f64);
    let (w_ex, w_guo) = (two_ex as f64 / total as f64, two_guo as f64 / total as f64);
    eprintln!(
        "coverage of nominal 90% intervals, 50 x 20 coordinates: exact VI {c_ex:.3}, Alg. 1 {c_guo:.3}"
    );
    eprintln!("means within 2 sd of the truth: exact VI {w_ex:.3}, Alg. 1 {w_guo:.3}");
    assert!(w_ex >= 0.9, "{w_ex}");
    // 1,000 coordinates: the binomial sd at 0.9 is 0.0095.
    assert!(c_ex > 0.85 && c_ex < 0.95, "{c_ex}");
}

/// The exact posterior for d ≤ 5 by a long random-walk Metropolis run,
/// against both Gaussian approximations: means and sds.
#[test]
fn variational_posteriors_against_random_walk_metropolis() {
    use plackett::model::pl::{Scope, log_likelihood};
    for (name, n, d, m, design, seed) in [
        (
            "rankings of 4",
            30,
            3,
            40,
            Design::SubRankings { len: 4 },
            5u64,
        ),
        ("pairs", 25, 5, 150, Design::Pairs, 6u64),
    ] {
        let p = regression_problem(n, d, m, design, 1.0, None, seed);
        let (ds, f) = (&p.data, &p.features);
        let eta = 1.0;
        let logpost = |b: &DVector<f64>| -> f64 {
            let theta: Vec<f64> = (&f.x * b).iter().copied().collect();
            log_likelihood(ds, &theta, Scope::All) - 0.5 * eta * b.norm_squared()
        };
        let map = fit_regression(ds, f, eta, 1e-10, None).unwrap();
        let lap = map.cov_work.clone().unwrap();
        let chol = lap.cholesky().unwrap().l() * (2.38 / (d as f64).sqrt());
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut b = DVector::from_column_slice(&map.beta_work);
        let mut lp = logpost(&b);
        let (burn, keep) = (20_000, 400_000);
        let batches = 40;
        let mut sum = DVector::<f64>::zeros(d);
        let mut sq = DVector::<f64>::zeros(d);
        let mut batch_means = vec![DVector::<f64>::zeros(d); batches];
        let mut accepted = 0usize;
        for t in 0..burn + keep {
            let e = DVector::from_fn(d, |_, _| StandardNormal.sample(&mut rng));
            let prop = &b + &chol * e;
            let lq = logpost(&prop);
            let u: f64 = rand::RngExt::random(&mut rng);
            if u.ln() < lq - lp {
                b = prop;
                lp = lq;
                accepted += 1;
            }
            if t >= burn {
                sum += &b;
                sq += b.component_mul(&b);
                batch_means[(t - burn) * batches / keep] += &b / (keep / batches) as f64;
            }
        }
        let mean = &sum / keep as f64;
        let sd = (&sq / keep as f64 - mean.component_mul(&mean)).map(|v| v.max(0.0).sqrt());
        // Batch-means Monte Carlo standard error of the mean.
        let mcse: Vec<f64> = (0..d)
            .map(|j| {
                let bm: Vec<f64> = batch_means.iter().map(|v| v[j]).collect();
                let mb = bm.iter().sum::<f64>() / batches as f64;
                (bm.iter().map(|x| (x - mb).powi(2)).sum::<f64>()
                    / (batches - 1) as f64
                    / batches as f64)
                    .sqrt()
            })
            .collect();
        let ex = vi_exact(ds, f, &ExactViOptions::with_eta(eta)).unwrap();
        let guo = vi(ds, f, &ViOptions::with_eta(eta)).unwrap();
        eprintln!(
            "{name} (d={d}): RWM acceptance {:.2}",
            accepted as f64 / (burn + keep) as f64
        );
        for j in 0..d {
            let (se, sg) = (ex.cov[(j, j)].sqrt(), guo.cov[(j, j)].sqrt());
            eprintln!(
                "  β{j}: MCMC {:.4} ± {:.4} (mcse {:.4}) | exact VI {:.4} ± {:.4} (sd ratio {:.3}) | Alg. 1 {:.4} ± {:.4} (sd ratio {:.3}) | Laplace sd ratio {:.3}",
                mean[j],
                sd[j],
                mcse[j],
                ex.mu[j],
                se,
                se / sd[j],
                guo.mu[j],
                sg,
                sg / sd[j],
                map.cov_work.as_ref().unwrap()[(j, j)].sqrt() / sd[j]
            );
            assert!(
                (ex.mu[j] - mean[j]).abs() <= 0.1 * sd[j] + 4.0 * mcse[j],
                "{name} β{j}: exact VI mean {} vs MCMC {}",
                ex.mu[j],
                mean[j]
            );
            let ratio = se / sd[j];
            assert!(
                (0.85..1.1).contains(&ratio),
                "{name} β{j}: exact VI sd ratio {ratio}"
            );
        }
    }
}

/// η by the bound vs cross-validation on the synthetic problem (L-partition,
/// 5 folds, held-out log score of test pairs under the posterior).
#[test]
fn eta_by_bound_within_one_grid_step_of_cv_best() {
    use plackett::infer::feature_cv::{Curve, CvOptions, Partition, ViKind, cross_validate};
    let (ds, f, _) = synthetic(200, 20, 1000, 5, 11);
    let etas: Vec<f64> = (0..13).map(|k| 10f64.powf(-2.0 + k as f64 / 3.0)).collect();
    let r = cross_validate(
        &ds,
        &f,
        Partition::L,
        &CvOptions {
            folds: 5,
            repeats: 1,
            seed: 3,
            etas: etas.clone(),
            top_k: 20,
            vi: ViKind::Exact,
            observer: None,
        },
    )
    .unwrap();
    let eb = r.best_bound();
    let ec = Curve::argmax(&r.vi.log_score);
    eprintln!(
        "eta_L = {:.4}, CV-best (VI log score) = {:.4}; top-K argmax {:.4}, AUC argmax {:.4}",
        etas[eb],
        etas[ec],
        etas[Curve::argmax(&r.vi.top_k)],
        etas[Curve::argmax(&r.vi.auc)]
    );
    assert_eq!(r.splits, 5);
    assert!(
        eb.abs_diff(ec) <= 1,
        "eta_L {} vs CV-best {}",
        etas[eb],
        etas[ec]
    );
}

/// Choice probabilities of a VB feature model use the fit's own β draws:
/// over items of the data they equal the draws' choice probabilities, and
/// a result saved before the draw settings were kept (no
/// `draw_settings`) still answers from as many draws as it holds.
#[test]
fn feature_choices_reuse_the_fits_draws_and_old_results_still_answer() {
    use plackett::infer::feature_run::{FeatureOutcome, FeatureSettings, run};
    use plackett::posterior::{Gauge, Posterior};
    let d = data_dir();
    let ds = salad_rankings();
    let f = path(&d, "salad/features.csv");
    let text = std::fs::read_to_string(&f).unwrap();
    let s = FeatureSettings {
        engine: "vb".into(),
        draws: 500,
        seed: 7,
        ..Default::default()
    };
    let o = run(&s, &f, &text, &ds, &Gauge::MeanCentred).unwrap();
    let names = ds.items().names().to_vec();
    let mine = o.choice(&names, &["A", "C", "D"]).unwrap();
    let ids: Vec<usize> = ["A", "C", "D"]
        .iter()
        .map(|n| names.iter().position(|m| m == n).unwrap())
        .collect();
    let theirs = o.draws().choice_probabilities(&ids);
    for ((p, sd), (q, sq)) in mine.iter().zip(&theirs) {
        assert!((p - q).abs() < 1e-14 && (sd.unwrap() - sq.unwrap()).abs() < 1e-14);
    }
    let mut v = serde_json::to_value(&o).unwrap();
    v.as_object_mut().unwrap().remove("draw_settings");
    let old: FeatureOutcome = serde_json::from_value(v).unwrap();
    let again = old.choice(&names, &["A", "C", "D"]).unwrap();
    assert_eq!(again.len(), 3);
    assert!((again.iter().map(|x| x.0).sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(again.iter().all(|x| x.1.unwrap() > 0.0));
}
