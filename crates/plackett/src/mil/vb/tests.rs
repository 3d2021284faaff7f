use super::*;
use crate::mil::simulate::{MilDesign, simulate_bags, small_bags};

fn small() -> Bags {
    small_bags(40, 11)
}

/// The fast moments of q(U) agree with the log-space ones over the
/// range the fast path serves, extreme shifts included.
#[test]
fn fast_u_moments_match_the_log_space_ones() {
    for k in -300..=300 {
        let mu = k as f64 * 0.1;
        for dl in [
            -800.0, -40.0, -5.0, -0.3, -1e-9, 0.0, 1e-9, 0.2, 3.0, 35.0, 900.0,
        ] {
            let (e, eu, lz) = u_moments(mu, dl);
            let (e2, eu2, lz2) = u_moments_log(mu, dl);
            let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * (1.0 + b.abs());
            assert!(
                close(e, e2, 1e-13),
                "E[δ] at μ = {mu}, Δ = {dl}: {e} vs {e2}"
            );
            assert!(
                close(eu, eu2, 1e-11),
                "E[U] at μ = {mu}, Δ = {dl}: {eu} vs {eu2}"
            );
            assert!(
                close(lz, lz2, 1e-13),
                "ln Z at μ = {mu}, Δ = {dl}: {lz} vs {lz2}"
            );
        }
    }
}

/// The fused instance-level step equals V4–V7 one after another, on
/// two modalities and on one (the other's intercept then goes to its
/// prior mean).
#[test]
fn the_fused_instance_level_step_equals_v4_to_v7() {
    let two = small();
    let mut one = Bags::new([two.feature_names[0].clone(), Vec::new()]);
    for b in &two.bags {
        let inst: Vec<_> = (b.start..b.end)
            .filter(|&j| two.modality[j] == 0)
            .map(|j| (0u8, two.features(j).to_vec(), j, None))
            .collect();
        if !inst.is_empty() {
            one.push_bag(b.name.clone(), b.label, inst).unwrap();
        }
    }
    for bags in [&two, &one] {
        let y = bags.labels("t").unwrap();
        let mut st = State::new(
            bags,
            y,
            MilPriors::default(),
            &start(&Layout::of(bags), 5, 0),
        );
        for _ in 0..3 {
            st.sweep();
        }
        st.m[st.lay.inst_intercept(1)] = 0.7;
        let mut one_by_one = st.clone();
        for m in 0..2u8 {
            one_by_one.update_inst_intercept(m);
            one_by_one.update_inst_slopes(m);
        }
        st.update_inst_level();
        for (a, b) in st.m.iter().zip(&one_by_one.m) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
        for (a, b) in st.nu.iter().zip(&one_by_one.nu) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }
}

/// The expansion moves' line search evaluates the ELBO of a moved state
/// without building it; applying the move and computing the ELBO must
/// give the same number (the search's acceptance test is the monotone
/// map's safeguard): to the bit for the inner moves, whose per-bag sums
/// must also equal the moved state's (they become the next move's
/// cache), and up to rounding for the outer scale, which rescales the
/// cached sums.
#[test]
fn a_move_evaluated_in_place_equals_the_move_applied() {
    let bags = small();
    let y = bags.labels("t").unwrap();
    let mut st = State::new(
        &bags,
        y,
        MilPriors::default(),
        &start(&Layout::of(&bags), 3, 1),
    );
    for _ in 0..5 {
        st.sweep();
    }
    let moves = [
        Move::OuterScale,
        Move::InnerScale(0),
        Move::InnerShift(0),
        Move::InnerScale(1),
        Move::InnerShift(1),
    ];
    for mv in moves {
        for h in [-0.3, 0.05, 0.7] {
            let mut kept = st.shares();
            let predicted = st.move_elbo(mv, h, &st.shares(), Some(&mut kept));
            let mut moved = st.clone();
            moved.apply_move(mv, h);
            let applied = moved.elbo();
            if !matches!(mv, Move::OuterScale) {
                // The search's shares become the next move's cache.
                let fresh = moved.shares();
                let fields = |c: &Share| [c.es, c.var_eta, c.var_q, c.quad, c.inst];
                for (a, b) in kept.iter().flatten().zip(fresh.iter().flatten()) {
                    assert_eq!(fields(a), fields(b), "{mv:?} at {h}: cached shares");
                }
            }
            if matches!(mv, Move::OuterScale) {
                assert!(
                    (predicted - applied).abs() <= 1e-12 * applied.abs(),
                    "{mv:?} at {h}: {predicted} vs {applied}"
                );
            } else {
                assert_eq!(predicted, applied, "{mv:?} at {h}");
            }
        }
    }
}

/// Every coordinate update maximises the ELBO as computed over its own
/// block: after the update, moving that block's parameters either way
/// lowers the ELBO. This ties the updates (Hu 2024, Appendix B.1, with
/// the exact δ/U step) to the ELBO formula term by term.
#[test]
fn each_update_maximises_the_elbo_over_its_block() {
    let bags = small();
    let y = bags.labels("t").unwrap();
    let lay = Layout::of(&bags);
    let init: Vec<f64> = (0..lay.len()).map(|k| 0.1 * ((k as f64).sin())).collect();
    let mut st = State::new(&bags, y, MilPriors::default(), &init);
    for _ in 0..5 {
        st.sweep();
    }
    // Perturb coordinate(s) through `f`, check the ELBO drops, restore.
    fn check(st: &mut State, what: &str, f: &dyn Fn(&mut State, f64)) {
        let base = st.elbo();
        for sgn in [-1.0, 1.0] {
            f(st, sgn * 1e-4);
            let moved = st.elbo();
            f(st, -sgn * 1e-4);
            assert!(moved < base + 1e-10, "{what}: {moved} > {base}");
        }
    }
    st.update_alpha();
    check(&mut st, "alpha", &|s, d| s.m[0] += d);
    for m in 0..2u8 {
        st.update_bag_slopes(m);
        let r = st.lay.bag_slopes(m);
        for k in r.clone() {
            check(&mut st, "bag slope", &|s, d| {
                s.m[k] += d;
                s.refresh_eta();
            });
        }
        st.update_inst_intercept(m);
        let k = st.lay.inst_intercept(m);
        check(&mut st, "inst intercept", &|s, d| {
            s.m[k] += d;
            s.refresh_nu(Some(m));
        });
        st.update_inst_slopes(m);
        for k in st.lay.inst_slopes(m) {
            check(&mut st, "inst slope", &|s, d| {
                s.m[k] += d;
                s.refresh_nu(Some(m));
            });
        }
    }
    for i in [0usize, 7, 23] {
        st.update_ystar(i);
        check(&mut st, "y*", &|s, d| s.set_ystar(i, s.mu_star[i] + d));
        st.update_bag(i);
        let b = bags.bags[i].clone();
        // The last instance of the bag was updated last: its factor is
        // optimal given all others.
        let j = b.end - 1;
        for field in 0..2 {
            check(&mut st, "q(U)", &|s, d| {
                let (mu, dl) = (s.mu_u[j], s.delta[j]);
                if field == 0 {
                    s.set_u(j, mu + d, dl);
                } else {
                    s.set_u(j, mu, dl + d);
                }
            });
        }
    }
}

/// Every coordinate update (Hu 2024, Appendix B.1, V1–V10 with its
/// errata corrected (docs/mil.md) and the exact δ/U step) sets its block where the
/// ELBO's gradient in that block vanishes: right after the update the
/// central finite difference of the ELBO along each of the block's
/// means, along its covariance scaled (`V ↦ e^h V`) and along a
/// symmetric direction of the covariance is zero to rounding; for the
/// local factors along `q(y*_i)`'s location and `q(U_ij)`'s location
/// and log-odds shift. Just before the global updates the gradient is
/// not zero, so the check has teeth.
#[test]
fn each_update_zeroes_the_finite_difference_gradient_of_its_block() {
    let bags = small();
    let y = bags.labels("t").unwrap();
    let lay = Layout::of(&bags);
    let init: Vec<f64> = (0..lay.len()).map(|k| 0.1 * ((k as f64).sin())).collect();
    let mut st = State::new(&bags, y, MilPriors::default(), &init);
    st.sweep();
    let h = 1e-5;
    let tol = 1e-5;
    // dELBO/dh of `f(state, h)` by central differences on clones.
    let fd = |st: &State, f: &dyn Fn(&mut State, f64)| {
        let at = |d: f64| {
            let mut s2 = st.clone();
            f(&mut s2, d);
            s2.elbo()
        };
        (at(h) - at(-h)) / (2.0 * h)
    };
    // The directions of a Gaussian block: each mean (with `refresh`
    // bringing the cached predictors up to date), the covariance scaled,
    // and the covariance along a fixed symmetric direction.
    type Dir<'f> = Box<dyn Fn(&mut State, f64) + 'f>;
    let directions = |means: std::ops::Range<usize>,
                      cov: usize,
                      refresh: &'static dyn Fn(&mut State)|
     -> Vec<(String, Dir<'static>)> {
        let mut out: Vec<(String, Dir<'static>)> = Vec::new();
        for k in means {
            out.push((
                format!("mean {k}"),
                Box::new(move |s: &mut State, d: f64| {
                    s.m[k] += d;
                    refresh(s);
                }),
            ));
        }
        out.push((
            "covariance scale".into(),
            Box::new(move |s: &mut State, d: f64| {
                s.v[cov] *= d.exp();
                refresh(s);
            }),
        ));
        out.push((
            "covariance direction".into(),
            Box::new(move |s: &mut State, d: f64| {
                let n = s.v[cov].nrows();
                for r in 0..n {
                    for c in 0..n {
                        let e = 1.0 / (1.0 + (r + c) as f64) * if r == c { 1.0 } else { 0.3 };
                        s.v[cov][(r, c)] += d * e * s.v[cov][(r.min(c), r.min(c))];
                    }
                }
                refresh(s);
            }),
        ));
        out
    };
    fn none(_: &mut State) {}
    fn eta(s: &mut State) {
        s.refresh_eta();
        s.refresh_quads(0, true);
        s.refresh_quads(1, true);
    }
    fn nu0(s: &mut State) {
        s.refresh_nu(Some(0));
        s.refresh_quads(0, false);
    }
    fn nu1(s: &mut State) {
        s.refresh_nu(Some(1));
        s.refresh_quads(1, false);
    }
    let check =
        |st: &mut State, what: &str, dirs: Vec<(String, Dir)>, update: &dyn Fn(&mut State)| {
            let before = dirs
                .iter()
                .map(|(_, f)| fd(st, f).abs())
                .fold(0.0, f64::max);
            update(st);
            for (name, f) in &dirs {
                let g = fd(st, f);
                assert!(
                    g.abs() < tol,
                    "{what}, {name}: dELBO {g:e} after the update (largest {before:e} before)"
                );
            }
            assert!(
                before > 100.0 * tol,
                "{what}: already optimal before its update ({before:e})"
            );
        };
    check(
        &mut st,
        "q(alpha)",
        directions(lay.alpha()..lay.alpha() + 1, ALPHA, &none),
        &|s| s.update_alpha(),
    );
    check(
        &mut st,
        "q(beta)",
        directions(lay.beta(), BETA, &eta),
        &|s| s.update_bag_slopes(0),
    );
    check(
        &mut st,
        "q(gamma)",
        directions(lay.gamma(), GAMMA, &eta),
        &|s| s.update_bag_slopes(1),
    );
    for (m, refresh, ia, is) in [
        (0u8, &nu0 as &'static dyn Fn(&mut State), A, B),
        (1, &nu1, C, D),
    ] {
        let k = lay.inst_intercept(m);
        check(
            &mut st,
            "q(a or c)",
            directions(k..k + 1, ia, refresh),
            &|s| s.update_inst_intercept(m),
        );
        check(
            &mut st,
            "q(b or d)",
            directions(lay.inst_slopes(m), is, refresh),
            &|s| s.update_inst_slopes(m),
        );
    }
    for i in [0usize, 7, 23] {
        st.update_ystar(i);
        let g = fd(&st, &|s, d| s.set_ystar(i, s.mu_star[i] + d));
        assert!(g.abs() < tol, "q(y*_{i}): {g:e}");
        st.update_bag(i);
        // The last instance of the bag was updated last: its factor is
        // optimal given all others.
        let j = bags.bags[i].end - 1;
        let gm = fd(&st, &|s, d| s.set_u(j, s.mu_u[j] + d, s.delta[j]));
        let gd = fd(&st, &|s, d| s.set_u(j, s.mu_u[j], s.delta[j] + d));
        assert!(gm.abs() < tol && gd.abs() < tol, "q(U_{j}): {gm:e}, {gd:e}");
    }
}

/// Parallel work is cut by bag count, not by threads: one thread and
/// four give the same fit to the last bit (600 bags: three runs of
/// bags and the moves' parallel passes all in play).
#[test]
fn the_fit_does_not_depend_on_the_number_of_threads() {
    let design = MilDesign {
        bags: 600,
        instances: 5,
        ratio: 2.0,
        features: 3,
        ..MilDesign::default()
    };
    let bags = simulate_bags(&design, 5).unwrap();
    // From the prior means the run lasts past the plain warm-up, so
    // that the expansion moves are in play; the moment start adds its
    // regression, the marginal mode its L-BFGS climb.
    for start in [VbStart::Prior, VbStart::Moments, VbStart::Marginal] {
        let opts = VbOptions {
            max_iter: 70,
            start,
            ..VbOptions::default()
        };
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| fit_vb(&bags, &opts).unwrap())
        };
        let (a, b) = (run(1), run(4));
        if start == VbStart::Prior {
            assert!(a.iterations > EXPANSION_WARMUP);
        }
        assert_eq!(a.mean, b.mean);
        assert_eq!(a.primary, b.primary);
        assert_eq!(a.elbo, b.elbo);
    }
}

/// A warm start at a converged fit's means returns to that optimum
/// at once; a start of the wrong length or with a NaN is refused.
#[test]
fn a_warm_start_at_an_optimum_stays_there() {
    let bags = small();
    let opts = VbOptions {
        tol: 1e-10,
        max_iter: 20_000,
        ..VbOptions::default()
    };
    let cold = fit_vb(&bags, &opts).unwrap();
    assert!(cold.converged);
    let warm = fit_vb(
        &bags,
        &VbOptions {
            init: Some(cold.mean.clone()),
            ..opts.clone()
        },
    )
    .unwrap();
    assert!(warm.converged);
    assert!(
        warm.iterations < cold.iterations,
        "{} vs {}",
        warm.iterations,
        cold.iterations
    );
    let (a, b) = (cold.elbo.last().unwrap(), warm.elbo.last().unwrap());
    assert!((a - b).abs() < 1e-6 * a.abs(), "ELBO {a} vs {b}");
    for (p, q) in cold.bag_p.iter().zip(&warm.bag_p) {
        assert!((p - q).abs() < 1e-4, "{p} vs {q}");
    }
    let short = VbOptions {
        init: Some(vec![0.0; 3]),
        ..opts.clone()
    };
    assert!(
        fit_vb(&bags, &short)
            .unwrap_err()
            .to_string()
            .contains("init")
    );
    let mut nan = cold.mean.clone();
    nan[0] = f64::NAN;
    let bad = VbOptions {
        init: Some(nan),
        ..opts
    };
    assert!(
        fit_vb(&bags, &bad)
            .unwrap_err()
            .to_string()
            .contains("init")
    );
}

/// On 20 simulated problems (Hu 2024 §2.3's design, small): plain
/// CAVI sweeps never lower the ELBO, nor do the accelerated runs
/// (SQUAREM under the ELBO plus the parameter-expansion moves, which
/// start after the warm-up).
#[test]
fn the_elbo_never_decreases_on_20_simulated_problems() {
    for seed in 0..20u64 {
        let design = MilDesign {
            bags: 30 + 2 * seed as usize,
            instances: 3 + (seed as usize % 4),
            ratio: 1.0 + (seed % 4) as f64,
            features: 2 + (seed as usize % 3),
            ..MilDesign::default()
        };
        let bags = simulate_bags(&design, 100 + seed).unwrap();
        let opts = VbOptions {
            max_iter: 120,
            tol: 1e-12,
            ..VbOptions::default()
        };
        let plain = fit_vb_with(&bags, &opts, false).unwrap();
        assert!(plain.elbo.len() > 50, "seed {seed}");
        let acc = fit_vb(&bags, &opts).unwrap();
        for (what, fit) in [("plain", &plain), ("accelerated", &acc)] {
            for w in fit.elbo.windows(2) {
                assert!(
                    w[1] >= w[0] - 1e-9 * w[0].abs(),
                    "seed {seed}, {what}: {} -> {}",
                    w[0],
                    w[1]
                );
            }
        }
    }
}
