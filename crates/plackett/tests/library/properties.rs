//! Invariants of the likelihood (architecture.md "Habits").

use plackett::data::{Dataset, DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::{PointOptions, fit_point};
use plackett::model::pl::{
    Scope, log_likelihood, log_likelihood_per_obs, log_likelihood_per_obs_wide,
};
use proptest::prelude::*;

type Obs = (Vec<Vec<u32>>, bool, f64); // groups, top-k, weight

fn build(n: usize, obs: &[Obs], perm: Option<&[u32]>) -> Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    for (g, topk, w) in obs {
        let g: Vec<Vec<u32>> = g
            .iter()
            .map(|grp| {
                grp.iter()
                    .map(|&i| perm.map_or(i, |p| p[i as usize]))
                    .collect()
            })
            .collect();
        let tail = if *topk { Tail::Universe } else { Tail::None };
        b.push(&g, tail, &[], *w).unwrap();
    }
    b.finish()
}

/// Random observations over `n` items: groups of size 1–3, optional top-k.
fn arb_obs(n: usize) -> impl Strategy<Value = Vec<Obs>> {
    let one = (
        Just(n),
        prop::sample::subsequence((0..n as u32).collect::<Vec<_>>(), 2..=n.min(6)),
        any::<bool>(),
        0.5f64..3.0,
        any::<u64>(),
    )
        .prop_map(|(_, items, topk, w, seed)| {
            // Shuffle and cut into groups deterministically from the seed.
            let mut items = items;
            let mut s = seed;
            for i in (1..items.len()).rev() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                items.swap(i, (s >> 33) as usize % (i + 1));
            }
            let mut groups = Vec::new();
            let mut k = 0;
            while k < items.len() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let len = 1 + ((s >> 40) as usize % 3).min(items.len() - k - 1);
                groups.push(items[k..k + len].to_vec());
                k += len;
            }
            (groups, topk, w)
        });
    prop::collection::vec(one, 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn loglik_invariant_to_relabelling_and_scale(
        obs in arb_obs(7),
        theta in prop::collection::vec(-3.0f64..3.0, 7),
        seed in any::<u64>(),
        shift in -20.0f64..20.0,
    ) {
        let n = 7;
        let mut perm: Vec<u32> = (0..n as u32).collect();
        let mut s = seed;
        for i in (1..n).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
            perm.swap(i, (s >> 33) as usize % (i + 1));
        }
        let a = build(n, &obs, None);
        let b = build(n, &obs, Some(&perm));
        let mut theta_p = vec![0.0; n];
        for i in 0..n { theta_p[perm[i] as usize] = theta[i]; }
        let la = log_likelihood(&a, &theta, Scope::All);
        let lb = log_likelihood(&b, &theta_p, Scope::All);
        prop_assert!((la - lb).abs() < 1e-9 * (1.0 + la.abs()), "{la} {lb}");
        let shifted: Vec<f64> = theta.iter().map(|t| t + shift).collect();
        let lc = log_likelihood(&a, &shifted, Scope::All);
        prop_assert!((la - lc).abs() < 1e-9 * (1.0 + la.abs()), "{la} {lc}");
    }

    /// The per-stage scaling for log-worths spread beyond one global scale
    /// gives the same per-observation log-likelihoods as the global scale
    /// where both apply (ties, top-k, weights).
    #[test]
    fn stagewise_scaling_equals_the_global_scale(
        obs in arb_obs(7),
        theta in prop::collection::vec(-30.0f64..30.0, 7),
    ) {
        let d = build(7, &obs, None);
        let a = log_likelihood_per_obs(&d, &theta);
        let b = log_likelihood_per_obs_wide(&d, &theta);
        for (x, y) in a.iter().zip(&b) {
            prop_assert!((x - y).abs() < 1e-9 * (1.0 + x.abs()), "{x} {y}");
        }
    }

    #[test]
    fn weight_two_equals_two_copies(
        obs in arb_obs(6),
        theta in prop::collection::vec(-2.0f64..2.0, 6),
        k in 0usize..12,
    ) {
        let k = k % obs.len();
        let mut doubled = obs.clone();
        doubled[k].2 *= 2.0;
        let mut copied = obs.clone();
        copied.push(obs[k].clone());
        let a = build(6, &doubled, None);
        let b = build(6, &copied, None);
        let la = log_likelihood(&a, &theta, Scope::All);
        let lb = log_likelihood(&b, &theta, Scope::All);
        prop_assert!((la - lb).abs() < 1e-9 * (1.0 + la.abs()));
    }

    /// Exact unknown-order likelihood = brute-force sum over the compatible
    /// orders of every group, for groups up to 7 items.
    #[test]
    fn tied_likelihood_equals_enumeration(
        lam in prop::collection::vec(0.05f64..5.0, 9),
        sizes in prop::collection::vec(1usize..=7, 1..3),
        topk in any::<bool>(),
    ) {
        let mut groups = Vec::new();
        let mut next = 0u32;
        for s in sizes {
            if next as usize + s > 9 { break; }
            groups.push((next..next + s as u32).collect::<Vec<u32>>());
            next += s as u32;
        }
        prop_assume!(!groups.is_empty() && (topk || groups.len() > 1 || next < 9));
        let tail = if topk { Tail::Universe } else { Tail::None };
        let mut b = DatasetBuilder::new(Items::numbered(9), TieSemantics::UnknownOrder);
        b.push(&groups, tail, &[], 1.0).unwrap();
        let d = b.finish();
        prop_assume!(d.n_obs() == 1);
        let theta: Vec<f64> = lam.iter().map(|l| l.ln()).collect();
        let got = log_likelihood(&d, &theta, Scope::All).exp();
        // Brute force: every order of every group, sequential PL choices.
        let unlisted: f64 = if topk { lam[next as usize..].iter().sum() } else { 0.0 };
        fn perms(v: &[u32]) -> Vec<Vec<u32>> {
            if v.len() <= 1 { return vec![v.to_vec()]; }
            let mut out = Vec::new();
            for i in 0..v.len() {
                let mut rest = v.to_vec();
                let x = rest.remove(i);
                for mut p in perms(&rest) { p.insert(0, x); out.push(p); }
            }
            out
        }
        let mut total = 1.0;
        for (gi, g) in groups.iter().enumerate() {
            let after: f64 = groups[gi + 1..].iter().flatten().map(|&i| lam[i as usize]).sum::<f64>() + unlisted;
            let mut s = 0.0;
            for p in perms(g) {
                let mut prob = 1.0;
                for k in 0..p.len() {
                    let d: f64 = p[k..].iter().map(|&i| lam[i as usize]).sum::<f64>() + after;
                    prob *= lam[p[k] as usize] / d;
                }
                s += prob;
            }
            total *= s;
        }
        prop_assert!((got - total).abs() < 1e-12 * total.max(1e-300) + 1e-300, "{got} {total}");
    }
}

#[test]
fn topk_and_subranking_differ_as_specified() {
    // λ = (1,2,3,4); the same listed items [4, 3] (1-based):
    // sub-ranking: 4/(4+3) = 4/7; top-2 of the universe: 4/10 · 3/6 = 1/5;
    // choice of 4 from {4,3,1}: 4/8.
    let theta: Vec<f64> = [1.0f64, 2.0, 3.0, 4.0].iter().map(|l| l.ln()).collect();
    let mk = |tail: Tail, explicit: &[u32]| {
        let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
        let groups = if tail == Tail::Explicit {
            vec![vec![3]]
        } else {
            vec![vec![3], vec![2]]
        };
        b.push(&groups, tail, explicit, 1.0).unwrap();
        b.finish()
    };
    let sub = log_likelihood(&mk(Tail::None, &[]), &theta, Scope::All).exp();
    let top = log_likelihood(&mk(Tail::Universe, &[]), &theta, Scope::All).exp();
    let choice = log_likelihood(&mk(Tail::Explicit, &[2, 0]), &theta, Scope::All).exp();
    assert!((sub - 4.0 / 7.0).abs() < 1e-15);
    assert!((top - 0.2).abs() < 1e-15);
    assert!((choice - 0.5).abs() < 1e-15);
}

#[test]
fn unknown_order_tie_likelihoods_are_exact() {
    // λ = (1,2,3,4): each probability is a short sum over the groups'
    // internal orders, done by hand (7/90, 13/630, 7/120, 2/15).
    let theta: Vec<f64> = [1.0f64, 2.0, 3.0, 4.0].iter().map(|l| l.ln()).collect();
    let p = |groups: Vec<Vec<u32>>| {
        let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
        b.push(&groups, Tail::None, &[], 1.0).unwrap();
        log_likelihood(&b.finish(), &theta, Scope::All).exp()
    };
    assert!((p(vec![vec![0, 1, 2], vec![3]]) - 7.0 / 90.0).abs() < 1e-12);
    assert!((p(vec![vec![0], vec![1, 2], vec![3]]) - 13.0 / 630.0).abs() < 1e-12);
    assert!((p(vec![vec![1, 3], vec![0], vec![2]]) - 7.0 / 120.0).abs() < 1e-12);
    assert!((p(vec![vec![3], vec![2], vec![1], vec![0]]) - 2.0 / 15.0).abs() < 1e-12);
}

#[test]
fn weight_two_gives_same_mle_as_copies() {
    let obs: Vec<Obs> = vec![
        (vec![vec![0], vec![1], vec![2]], false, 2.0),
        (vec![vec![2], vec![0]], false, 1.0),
        (vec![vec![1], vec![2], vec![0]], false, 1.0),
    ];
    let mut copies = obs.clone();
    copies[0].2 = 1.0;
    copies.push(copies[0].clone());
    let a = fit_point(&build(3, &obs, None), &PointOptions::default()).unwrap();
    let b = fit_point(&build(3, &copies, None), &PointOptions::default()).unwrap();
    for (x, y) in a.summary.items.iter().zip(&b.summary.items) {
        assert!((x.log_worth - y.log_worth).abs() < 1e-10);
        assert!((x.log_worth_se.unwrap() - y.log_worth_se.unwrap()).abs() < 1e-10);
    }
}

#[test]
fn map_algorithms_agree_and_zero_the_score() {
    use plackett::data::simulate::{Design, simulate};
    use plackett::infer::{Algorithm, Prior};
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    let lam: Vec<f64> = (1..=15).map(|x| x as f64).collect();
    let d = simulate(&mut rng, &lam, 60, Design::SubRankings { len: 4 });
    for prior in [
        Prior::Gamma {
            shape: 1.5,
            rate: 0.3,
        },
        Prior::Normal { mean: 0.5, sd: 0.7 },
    ] {
        let fit = |alg| {
            fit_point(
                &d,
                &PointOptions {
                    prior,
                    algorithm: alg,
                    ..Default::default()
                },
            )
            .unwrap()
        };
        let a = fit(Algorithm::Newton);
        let b = fit(Algorithm::Mm);
        assert!(a.converged && b.converged);
        assert_eq!(a.engine, "map");
        for (x, y) in a.theta.iter().zip(&b.theta) {
            assert!((x - y).abs() < 1e-8, "{prior:?}");
        }
        // The MAP is identified: shifting θ lowers the log-posterior.
        let lp = |t: &[f64]| {
            log_likelihood(&d, t, Scope::All) + t.iter().map(|&x| prior.log_density(x)).sum::<f64>()
        };
        let best = lp(&a.theta);
        for s in [-0.01, 0.01] {
            let moved: Vec<f64> = a.theta.iter().map(|t| t + s).collect();
            assert!(lp(&moved) < best);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// The observed information (Louis' identity for unknown-order groups,
    /// rank-3 universe update for top-k) equals the negative Hessian of the
    /// exact log-likelihood by central differences.
    #[test]
    fn information_equals_numerical_hessian(
        obs in arb_obs(6),
        theta in prop::collection::vec(-1.5f64..1.5, 6),
    ) {
        use plackett::model::information::information;
        let d = build(6, &obs, None);
        prop_assume!(d.n_obs() > 0);
        let info = information(&d, &theta, Scope::All).unwrap();
        let h = 1e-4;
        for a in 0..6 {
            for c in 0..6 {
                let mut v = 0.0;
                for (sa, sb, s) in [(1.0, 1.0, 1.0), (1.0, -1.0, -1.0), (-1.0, 1.0, -1.0), (-1.0, -1.0, 1.0)] {
                    let mut q = theta.clone();
                    q[a] += sa * h;
                    q[c] += sb * h;
                    v += s * log_likelihood(&d, &q, Scope::All);
                }
                let fd = -v / (4.0 * h * h);
                prop_assert!((fd - info[(a, c)]).abs() < 1e-5 * (1.0 + fd.abs()), "({a},{c}): {fd} vs {}", info[(a, c)]);
            }
        }
    }
}

/// Log-worths spread beyond e^700 (posterior draws under a Gamma(0.01)
/// prior of items that never win reach 753): a stage among items all far
/// below the largest is 0/0 under one global scale; computed stage by
/// stage it is exact, checked against the sequential choices written out.
#[test]
fn widely_spread_log_worths_keep_every_stage_exact() {
    let theta = [0.0, -800.0, -801.0, -1500.0, -2.0];
    let mut b = DatasetBuilder::new(Items::numbered(5), TieSemantics::UnknownOrder);
    b.push(&[vec![1], vec![2], vec![3]], Tail::None, &[], 1.0)
        .unwrap();
    b.push(&[vec![2], vec![3]], Tail::Universe, &[], 2.0)
        .unwrap();
    b.push(&[vec![0], vec![1]], Tail::None, &[], 1.0).unwrap();
    let d = b.finish();
    let got = log_likelihood_per_obs(&d, &theta);
    let lse = |xs: &[f64]| {
        let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
    };
    // B ≻ C ≻ D among themselves.
    let want0 = (-800.0 - lse(&[-800.0, -801.0, -1500.0])) + (-801.0 - lse(&[-801.0, -1500.0]));
    // Top-2 C ≻ D over all five items, weight 2.
    let want1 = 2.0 * ((-801.0 - lse(&theta)) + (-1500.0 - lse(&[0.0, -800.0, -1500.0, -2.0])));
    // A ≻ B.
    let want2 = 0.0 - lse(&[0.0, -800.0]);
    for (g, w) in got.iter().zip([want0, want1, want2]) {
        assert!(
            g.is_finite() && (g - w).abs() < 1e-12 * w.abs().max(1.0),
            "{g} vs {w}"
        );
    }
}
