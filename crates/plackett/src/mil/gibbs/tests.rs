use super::*;

/// The barrier of a synthetic path: local rejection density `λ(u)` on
/// `u = −ln τ`, concentrated near the cold end, integrated between
/// rungs (Syed et al. 2022: a pair's rejection rate is `∫ λ` between
/// its two rungs when they are close).
fn rates(tau: &[f64]) -> Vec<f64> {
    let big_lambda = |t: f64| {
        let u = -t.ln();
        // Λ(u) = 3 (1 − e^{−2u}): most of the barrier within u < 1.
        3.0 * (1.0 - (-2.0 * u).exp())
    };
    tau.windows(2)
        .map(|w| big_lambda(w[1]) - big_lambda(w[0]))
        .collect()
}

#[test]
fn equalised_ladder_spaces_the_barrier_evenly() {
    let hottest: f64 = 0.01;
    let k = 8;
    let mut tau: Vec<f64> = (0..k)
        .map(|i| hottest.powf(i as f64 / (k - 1) as f64))
        .collect();
    let before = rates(&tau);
    let spread = |r: &[f64]| {
        r.iter().cloned().fold(f64::MIN, f64::max) / r.iter().cloned().fold(f64::MAX, f64::min)
    };
    assert!(spread(&before) > 10.0, "{before:?}");
    for _ in 0..6 {
        tau = equalise_ladder(&tau, &rates(&tau));
        assert_eq!(tau[0], 1.0);
        assert_eq!(tau[k - 1], hottest);
        assert!(tau.windows(2).all(|w| w[1] < w[0]), "{tau:?}");
    }
    let after = rates(&tau);
    assert!(spread(&after) < 1.05, "{after:?}");
    // The total barrier is the path's, whatever the ladder.
    let total: f64 = after.iter().sum();
    assert!((total - before.iter().sum::<f64>()).abs() < 1e-12);
}

/// A ladder re-spaced to another length spreads the same barrier evenly
/// over its new pairs, and the automatic count asks ⌈2Λ⌉ rungs of it.
#[test]
fn respaced_ladders_of_other_lengths_share_the_barrier_evenly() {
    let hottest: f64 = 0.01;
    let tau: Vec<f64> = (0..5).map(|i| hottest.powf(i as f64 / 4.0)).collect();
    let total: f64 = rates(&tau).iter().sum();
    for k in [3, 9, 17] {
        let mut new = respace_ladder(&tau, &rates(&tau), k);
        // A few rounds on the new ladder, as the burn-in does.
        for _ in 0..6 {
            new = equalise_ladder(&new, &rates(&new));
        }
        assert_eq!(new.len(), k);
        assert_eq!((new[0], new[k - 1]), (1.0, hottest));
        assert!(new.windows(2).all(|w| w[1] < w[0]), "{new:?}");
        let r = rates(&new);
        let each = total / (k - 1) as f64;
        assert!(r.iter().all(|x| (x - each).abs() < 0.02 * each), "{r:?}");
    }
    // The synthetic path's barrier is 3 (1 − 0.01²) ≈ 3: six rungs.
    assert_eq!(auto_rungs(&rates(&tau)), Some(6));
    assert_eq!(auto_rungs(&[0.1, 0.1]), Some(3));
    assert_eq!(auto_rungs(&[1.0; 63]), Some(64));
    assert_eq!(auto_rungs(&[0.5, f64::NAN]), None);
    assert_eq!(auto_rungs(&[]), None);
}

#[test]
fn a_ladder_with_equal_rates_or_unknown_rates_stays() {
    let tau = [1.0, 0.5, 0.2, 0.05];
    let same = equalise_ladder(&tau, &[0.3, 0.3, 0.3]);
    for (a, b) in same.iter().zip(tau) {
        assert!((a - b).abs() < 1e-12, "{same:?}");
    }
    assert_eq!(equalise_ladder(&tau, &[0.3, f64::NAN, 0.3]), tau);
    assert_eq!(equalise_ladder(&[1.0, 0.1], &[0.9]), [1.0, 0.1]);
    // Zero rates (rungs that always swap) still give a decreasing ladder.
    let z = equalise_ladder(&tau, &[0.0, 0.0, 0.6]);
    assert!(z.windows(2).all(|w| w[1] < w[0]), "{z:?}");
}

#[test]
fn the_ladder_adapts_in_rounds_of_doubling_length() {
    assert_eq!(adaptation_points(2000), [62, 125, 250, 500, 1000]);
    assert_eq!(adaptation_points(300), [18, 37, 75, 150]);
    assert_eq!(adaptation_points(40), [20]);
    assert!(adaptation_points(20).is_empty());
}

/// A precision the prior cannot hold positive definite in floating point
/// (a rank-one design of features at 10⁸ over slope priors of variance 4:
/// the prior's 0.25 is below the rounding of the design's 10¹⁶) is an
/// error that says what to do, not a bare "not positive definite".
#[test]
fn a_precision_swamped_by_huge_features_asks_for_standardised_features() {
    let v = [1.0e8, -0.7e8, 0.4e8];
    let p = DMatrix::from_fn(3, 3, |r, c| v[r] * v[c] + if r == c { 0.25 } else { 0.0 });
    let mut rng = stream(1, &[]);
    match draw_gaussian(&mut rng, &p, &DVector::zeros(3)) {
        Err(Error::Numerical(m)) => assert!(m.contains("`standardize`"), "{m}"),
        other => panic!("expected a numerical error, got {other:?}"),
    }
    // The same design at unit scale draws.
    let v = [1.0, -0.7, 0.4];
    let p = DMatrix::from_fn(3, 3, |r, c| v[r] * v[c] + if r == c { 0.25 } else { 0.0 });
    assert!(draw_gaussian(&mut rng, &p, &DVector::zeros(3)).is_ok());
}
