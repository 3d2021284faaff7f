//! PL regression with item features (seed 000; PlackettLuce's salad example).

mod common;
use common::{data_dir, path};
use plackett::data::features::read_features;
use plackett::infer::regression::fit_regression;
use plackett::io::{ReadOptions, read_path};

#[test]
fn salad_regression_mle() {
    let Some(dir) = data_dir("salad_regression_mle") else {
        return;
    };
    let ds = read_path(
        &path(&dir, "salad/rankings.csv"),
        &ReadOptions {
            ranking_col: "judge".into(),
            ..Default::default()
        },
    )
    .unwrap();
    let text = std::fs::read_to_string(path(&dir, "salad/features.csv")).unwrap();
    let f = read_features("features.csv", &text, ds.items(), false).unwrap();
    let r = fit_regression(&ds, &f, 0.0, 1e-10, 0).unwrap();
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
    let rs = fit_regression(&ds, &fs, 0.0, 1e-10, 0).unwrap();
    for (k, s) in se.iter().enumerate() {
        assert!((rs.beta[k] - r.beta[k]).abs() < 1e-7);
        assert!((rs.se.as_ref().unwrap()[k] - s).abs() < 1e-7);
    }
}

use nalgebra::{DMatrix, DVector};
use plackett::data::features::Features;
use plackett::data::{Dataset, DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::gaussian_vi::{ViOptions, jj_lambda, vi};
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

/// Synthetic PL-regression data: X ~ N(0, 1), β ~ N(0, I/η), `m` rankings of
/// `len` random items.
pub fn synthetic(
    n: usize,
    d: usize,
    m: usize,
    len: usize,
    seed: u64,
) -> (Dataset, Features, Vec<f64>) {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let nd = Normal::<f64>::new(0.0, 1.0).unwrap();
    let x = DMatrix::from_fn(n, d, |_, _| nd.sample(&mut rng));
    let beta: Vec<f64> = (0..d).map(|_| nd.sample(&mut rng)).collect();
    let theta = &x * DVector::from_column_slice(&beta);
    let lam: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    let mut buf = Vec::new();
    for _ in 0..m {
        let s = plackett::data::simulate::sample_subset(&mut rng, n, len, &mut buf);
        let order = plackett::data::simulate::pl_order(&mut rng, &s, &lam);
        let g: Vec<Vec<u32>> = order.iter().map(|&i| vec![i]).collect();
        b.push(&g, Tail::None, &[], 1.0).unwrap();
    }
    let f = Features {
        names: (0..d).map(|j| format!("f{j}")).collect(),
        x,
        centre: vec![0.0; d],
        scale: vec![1.0; d],
        extra: Vec::new(),
    };
    (b.finish(), f, beta)
}

/// Pairs only: the VI is Jaakkola–Jordan Bayesian logistic regression on
/// feature differences. Independent implementation (Bishop 2006, eqs
/// 10.156–10.163, explicit inverses).
#[test]
fn pairs_reduce_to_jaakkola_jordan_logistic_regression() {
    let (ds, f, _) = synthetic(30, 4, 150, 2, 3);
    let eta = 0.7;
    let fit = vi(
        &ds,
        &f,
        &ViOptions {
            eta,
            eps: 1e-12,
            max_iter: 10_000,
            max_inner: 100,
        },
    )
    .unwrap();
    assert!(fit.converged);
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

#[test]
fn bound_never_decreases_and_exact_vi_near_map() {
    use plackett::infer::gaussian_vi_exact::{ExactViOptions, vi_exact};
    for (n, d, m, len, seed) in [
        (200, 20, 1000, 5, 1),
        (60, 3, 80, 4, 2),
        (40, 6, 300, 2, 3),
        (100, 10, 200, 8, 4),
    ] {
        let (ds, f, _) = synthetic(n, d, m, len, seed);
        let fit = vi(
            &ds,
            &f,
            &ViOptions {
                eta: 1.0,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(fit.converged, "({n},{d},{m},{len})");
        for w in fit.bound.windows(2) {
            assert!(
                w[1] >= w[0] - 1e-9 * w[0].abs(),
                "bound decreased: {} -> {}",
                w[0],
                w[1]
            );
        }
        let ex = vi_exact(&ds, &f, &ExactViOptions::default()).unwrap();
        assert!(ex.converged);
        for w in ex.elbo.windows(2) {
            assert!(
                w[1] >= w[0] - 1e-9 * w[0].abs(),
                "exact bound decreased: {} -> {}",
                w[0],
                w[1]
            );
        }
        let map = fit_regression(&ds, &f, 1.0, 1e-10, 0).unwrap();
        let gap = |mu: &DVector<f64>, cov: &DMatrix<f64>| {
            (0..d)
                .map(|j| (mu[j] - map.beta_work[j]).abs() / cov[(j, j)].sqrt())
                .fold(0.0f64, f64::max)
        };
        let (g_guo, g_ex) = (gap(&fit.mu, &fit.cov), gap(&ex.mu, &ex.cov));
        eprintln!(
            "n={n} d={d} m={m} len={len}: max |mean − MAP| / sd: Alg. 1 (Guo) {g_guo:.2} ({} it.), exact VI {g_ex:.3} ({} it.)",
            fit.iterations, ex.iterations
        );
        assert!(g_ex < 0.5, "exact VI far from MAP: {g_ex}");
        if len == 2 {
            // Pairs only: Jaakkola–Jordan is tight enough to stay near MAP.
            assert!(g_guo < 0.5, "{g_guo}");
        }
    }
}
