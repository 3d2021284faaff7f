//! Gibbs sampler: exact targets (quadrature, closed forms), reproducibility,
//! sparse data.

use crate::common;
use plackett::data::{DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::bayes::GammaPrior;
use plackett::infer::gibbs::{GibbsOptions, gibbs, sample_group_order};
use plackett::model::subsets::SubsetTables;

fn opts(n: usize, shape: f64, rate: f64, samples: usize, chains: usize, seed: u64) -> GibbsOptions {
    GibbsOptions {
        prior: GammaPrior::iid(n, shape, rate).unwrap(),
        mcmc: plackett::infer::mcmc::McmcSettings::new(samples, 500, chains, seed),
        rescale: true,
        observer: None,
    }
}

/// An `n`-point Gauss–Legendre rule mapped from [−1, 1] to [0, 1]:
/// `(node, weight)` pairs.
fn unit_nodes(n: usize) -> Vec<(f64, f64)> {
    let (x, w) = plackett::numerics::quadrature::gauss_legendre(n);
    x.iter()
        .zip(&w)
        .map(|(x, w)| (0.5 * (x + 1.0), 0.5 * w))
        .collect()
}

/// Posterior means of the normalised worths θ = λ/Σλ for the three
/// annotations of [`four_class_posterior_with_unknown_order_groups`] under
/// iid Gamma(1, ·) priors, by quadrature: θ is then uniform on the simplex
/// (Dirichlet(1, 1, 1, 1)), so the means are ratios of integrals of
/// `θ_i · L(θ)` over it, taken in stick-breaking coordinates
/// `θ = (u, (1−u)v, (1−u)(1−v)w, (1−u)(1−v)(1−w))` (Jacobian
/// `(1−u)²(1−v)`) with an `n`-point Gauss–Legendre rule per axis.
fn four_class_exact_means(n: usize) -> [f64; 4] {
    let nodes = unit_nodes(n);
    let (mut z, mut m) = (0.0, [0.0; 4]);
    for &(u, wu) in &nodes {
        for &(v, wv) in &nodes {
            for &(t, wt) in &nodes {
                let th = [
                    u,
                    (1.0 - u) * v,
                    (1.0 - u) * (1.0 - v) * t,
                    (1.0 - u) * (1.0 - v) * (1.0 - t),
                ];
                // {0} ≻ {1, 2} (either order) ≻ {3}; {1} ≻ rest; {0, 2} ≻ rest.
                let l1 = th[0]
                    * (th[1] / (1.0 - th[0]) * th[2] / (1.0 - th[0] - th[1])
                        + th[2] / (1.0 - th[0]) * th[1] / (1.0 - th[0] - th[2]));
                let l2 = th[1];
                let l3 = th[0] * th[2] / (1.0 - th[0]) + th[2] * th[0] / (1.0 - th[2]);
                let g = wu * wv * wt * (1.0 - u).powi(2) * (1.0 - v) * l1 * l2 * l3;
                z += g;
                for i in 0..4 {
                    m[i] += g * th[i];
                }
            }
        }
    }
    m.map(|x| x / z)
}

/// Stutz et al. 2023's model (Appendix B.2) on four classes: annotations
/// `{0} ≻ {1, 2}`, `{1}` and `{0, 2}` (groups of unknown order, every
/// unlisted class below), class 3 never ranked. The sampler's posterior
/// means of the normalised worths against the exact ones by quadrature.
#[test]
fn four_class_posterior_with_unknown_order_groups() {
    let want = four_class_exact_means(64);
    let coarse = four_class_exact_means(40);
    for (a, b) in want.iter().zip(coarse) {
        assert!(
            (a - b).abs() < 1e-6,
            "quadrature not converged: {want:?} against {coarse:?}"
        );
    }
    let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
    b.push(&[vec![0], vec![1, 2]], Tail::Universe, &[], 1.0)
        .unwrap();
    b.push(&[vec![1]], Tail::Universe, &[], 1.0).unwrap();
    b.push(&[vec![0, 2]], Tail::Universe, &[], 1.0).unwrap();
    let d = b.finish();
    let f = gibbs(&d, &opts(4, 1.0, 1.0, 25_000, 4, 1)).unwrap();
    let names: Vec<String> = (0..4).map(|i| i.to_string()).collect();
    let s = f.summary(&names, plackett::posterior::Gauge::MeanCentred);
    eprintln!("exact posterior means {want:?}");
    for (it, w) in s.items.iter().zip(want) {
        eprintln!("sampler {:.4} exact {w:.4}", it.worth);
        assert!((it.worth - w).abs() < 0.004, "{} vs {w}", it.worth);
    }
}

/// Vague Gamma(ε, ε) priors (ε = 10⁻³ is the classic choice) draw the
/// chains' starting log-worths thousands apart (ln U / ε), so that a stage
/// whose items all sat far below the largest had an in-play total of 0 and
/// a latent time of ∞, and the chain went to −∞ (salad printed NaN). Three
/// items, five full rankings in which each item wins a stage: the
/// sampler's posterior means of the shares θ = λ/Σλ against quadrature of
/// `Π θ_i^{ε−1} L(θ)` (the shares are Dirichlet(ε, ε, ε) a priori) in
/// stick-breaking coordinates `θ = (u, (1−u)v, (1−u)(1−v))`, Jacobian
/// `1 − u`.
#[test]
fn vague_priors_start_every_chain_within_double_range() {
    let rankings: [[u32; 3]; 5] = [[0, 1, 2], [0, 1, 2], [1, 0, 2], [2, 0, 1], [1, 2, 0]];
    let lik = |th: [f64; 3]| -> f64 {
        rankings
            .iter()
            .map(|r| th[r[0] as usize] * th[r[1] as usize] / (1.0 - th[r[0] as usize]))
            .product()
    };
    let exact = |eps: f64, n: usize| -> [f64; 3] {
        let nodes = unit_nodes(n);
        let (mut z, mut m) = (0.0, [0.0; 3]);
        for &(u, wu) in &nodes {
            for &(v, wv) in &nodes {
                let th = [u, (1.0 - u) * v, (1.0 - u) * (1.0 - v)];
                let prior: f64 = th.iter().map(|t| t.powf(eps - 1.0)).product();
                let g = wu * wv * (1.0 - u) * prior * lik(th);
                z += g;
                for i in 0..3 {
                    m[i] += g * th[i];
                }
            }
        }
        m.map(|x| x / z)
    };
    let mut b = DatasetBuilder::new(Items::numbered(3), TieSemantics::UnknownOrder);
    for r in &rankings {
        b.push(&[vec![r[0]], vec![r[1]], vec![r[2]]], Tail::None, &[], 1.0)
            .unwrap();
    }
    let d = b.finish();
    let names: Vec<String> = (0..3).map(|i| i.to_string()).collect();
    for eps in [1e-3, 1e-6] {
        let want = exact(eps, 96);
        let coarse = exact(eps, 64);
        for (a, c) in want.iter().zip(coarse) {
            assert!(
                (a - c).abs() < 1e-5,
                "quadrature: {want:?} against {coarse:?}"
            );
        }
        let f = gibbs(&d, &opts(3, eps, eps, 20_000, 4, 5)).unwrap();
        assert!(
            (0..f.draws.len()).all(|k| f.draws.draw(k).iter().all(|x| x.is_finite())),
            "non-finite draws at shape {eps}"
        );
        let s = f.summary(&names, plackett::posterior::Gauge::MeanCentred);
        for (it, w) in s.items.iter().zip(want) {
            eprintln!("shape {eps}: sampler {:.4} exact {w:.4}", it.worth);
            assert!(
                (it.worth - w).abs() < 0.006,
                "shape {eps}: {} vs {w}",
                it.worth
            );
        }
    }
}

/// First-element probabilities (13/49, 81/245, 99/245), χ² test.
#[test]
fn within_group_first_element_chi_square() {
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(42);
    let mut t = SubsetTables::default();
    let n = 200_000;
    let mut counts = [0f64; 3];
    let mut out = Vec::new();
    for _ in 0..n {
        out.clear();
        sample_group_order(
            &mut rng,
            &[0, 1, 2],
            &[1.0, 2.0, 3.0],
            4.0,
            &mut t,
            &mut out,
        );
        counts[out[0] as usize] += 1.0;
    }
    let p = [13.0 / 49.0, 81.0 / 245.0, 99.0 / 245.0];
    let chi2: f64 = (0..3)
        .map(|k| (counts[k] - n as f64 * p[k]).powi(2) / (n as f64 * p[k]))
        .sum();
    // χ²(2) upper 0.1% point is 13.8.
    assert!(chi2 < 13.8, "chi2 {chi2} counts {counts:?}");
}

#[test]
fn same_seed_same_draws_any_thread_count() {
    use plackett::data::simulate::{Design, simulate};
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
    let lam: Vec<f64> = (1..=8).map(|x| x as f64).collect();
    let d = simulate(&mut rng, &lam, 30, Design::SubRankings { len: 4 });
    let run = |threads: usize| {
        common::on_threads(threads, || {
            gibbs(&d, &opts(8, 2.0, 1.0, 300, 3, 77)).unwrap()
        })
    };
    let a = run(1);
    let b = run(2);
    let c = run(4);
    for k in 0..a.draws.len() {
        assert_eq!(a.draws.draw(k), b.draws.draw(k));
        assert_eq!(a.draws.draw(k), c.draws.draw(k));
    }
}

/// A tiny total prior shape makes every worth astronomically small under
/// `rescale` (the total mass is drawn from Gamma(Σ shapes): ln of it about
/// −1/Σ shapes), and the sampler's rescaling factor e^{−max ln λ} overflows;
/// the worth step then works in log space. Exact target: two items, item 0
/// beating item 1 three times and losing once, Gamma(ε) priors: the share
/// p = λ₀/(λ₀ + λ₁) is Beta(3 + ε, 1 + ε) a posteriori (prior Beta(ε, ε),
/// Bradley–Terry likelihood p³(1 − p)): mean 3/4, sd √(3/80). Exact down
/// to shapes of 1e-14 (0.05 off at 1e-16, where the log worths' offset
/// exceeds double precision: hence the floor `MIN_GAMMA_SHAPE`, 1e-10,
/// which the priors' checks enforce).
#[test]
fn tiny_prior_shapes_keep_the_exact_two_item_posterior() {
    use plackett::numerics::gamma::MIN_GAMMA_SHAPE;
    assert!(GammaPrior::iid(2, MIN_GAMMA_SHAPE / 10.0, 1.0).is_err());
    let mut b = DatasetBuilder::new(Items::numbered(2), TieSemantics::UnknownOrder);
    for (w, l) in [(0u32, 1u32), (0, 1), (0, 1), (1, 0)] {
        b.push(&[vec![w], vec![l]], Tail::None, &[], 1.0).unwrap();
    }
    let d = b.finish();
    for eps in [1e-6, 1e-8, MIN_GAMMA_SHAPE] {
        let f = gibbs(&d, &opts(2, eps, 1.0, 20_000, 4, 3)).unwrap();
        assert!(
            (0..f.draws.len()).all(|k| f.draws.draw(k).iter().all(|x| x.is_finite())),
            "non-finite draws at shape {eps}"
        );
        let names = ["0".to_string(), "1".to_string()];
        let s = f.summary(&names, plackett::posterior::Gauge::MeanCentred);
        let (mean, sd) = (s.items[0].worth, s.items[0].worth_sd.unwrap());
        // Monte Carlo error of the mean about 0.002 (80,000 draws, ESS a
        // few thousand); of the sd about as much.
        assert!((mean - 0.75).abs() < 0.01, "shape {eps}: mean {mean}");
        assert!(
            (sd - (3.0f64 / 80.0).sqrt()).abs() < 0.01,
            "shape {eps}: sd {sd}"
        );
    }
}
