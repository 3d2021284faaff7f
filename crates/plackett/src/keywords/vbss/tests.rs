use super::*;
use crate::keywords::graph::WordGraph;
use crate::keywords::prior::PriorScale;
use rand::RngExt;

fn random_doc(seed: u64, n_tokens: usize, vocab: usize) -> (WordGraph, Vec<bool>) {
    let mut rng = crate::sampling::rng::stream(seed, &[7]);
    let toks: Vec<String> = (0..n_tokens)
        .map(|_| {
            // Zipf-ish vocabulary.
            let u: f64 = rng.random();
            format!("w{}", (u * u * vocab as f64) as usize)
        })
        .collect();
    let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
    let mut y = vec![false; g.len()];
    for i in 0..g.len().min(40) {
        if i % 5 == 0 {
            y[i] = true;
        }
    }
    (g, y)
}

#[test]
fn the_elbo_never_decreases_under_exact_updates() {
    // 50 random documents (issue 14's acceptance), each under both θ
    // steps and both α models.
    for seed in 0..50 {
        let (g, y) = random_doc(seed, 300, 60);
        let pr = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Dissertation).unwrap();
        for mode in [ThetaUpdate::Coordinate, ThetaUpdate::Block] {
            for alpha in [AlphaModel::Shared, AlphaModel::PerWord] {
                let o = VbssOptions {
                    theta_update: mode,
                    alpha,
                    max_iter: 5000,
                    ..Default::default()
                };
                let f = fit_vbss_with(&pr, &y, &o, false).unwrap();
                let fast = fit_vbss(&pr, &y, &o).unwrap();
                assert!(
                    (fast.final_elbo() - f.final_elbo()).abs() < 1e-6 * f.final_elbo().abs(),
                    "seed {seed} {mode:?} {alpha:?}: accelerated ELBO {} vs plain {}",
                    fast.final_elbo(),
                    f.final_elbo()
                );
                for w in fast.elbo.windows(2) {
                    assert!(w[1] >= w[0] - 1e-9 * w[0].abs().max(1.0));
                }
                for w in f.elbo.windows(2).skip(1) {
                    assert!(
                        w[1] >= w[0] - 1e-8 * w[0].abs().max(1.0),
                        "seed {seed} {mode:?} {alpha:?}: ELBO fell {} -> {}",
                        w[0],
                        w[1]
                    );
                }
            }
        }
    }
}

/// Each update maximises the ELBO over its own block: perturbing the
/// block's parameters after the update can only lower the ELBO.
#[test]
fn each_update_is_a_maximiser_of_the_elbo() {
    let (g, y) = random_doc(3, 200, 40);
    let pr = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Dissertation).unwrap();
    let o = VbssOptions {
        theta_update: ThetaUpdate::Coordinate,
        ..Default::default()
    };
    let mut st = State::new(&pr, &y, o);
    for _ in 0..3 {
        st.sweep();
    }
    let check = |st: &State, what: &str, f: &dyn Fn(&mut State, f64)| {
        let base = st.elbo();
        for h in [1e-3, -1e-3] {
            let mut s2 = State {
                p_dense: None,
                ..st.clone_shallow()
            };
            f(&mut s2, h);
            let l = s2.elbo();
            assert!(l <= base + 1e-9, "{what} {h}: {l} > {base}");
        }
    };
    st.update_a();
    check(&st, "mu_a", &|s, h| s.mu_a += h);
    check(&st, "s_a", &|s, h| s.s_a *= 1.0 + h);
    st.update_b();
    check(&st, "mu_b", &|s, h| s.mu_b += h);
    check(&st, "s_b", &|s, h| s.s_b *= 1.0 + h);
    st.update_sigma();
    check(&st, "b_sig", &|s, h| {
        s.b_sig *= 1.0 + h;
        s.kappa = s.a_sig / s.b_sig
    });
    st.update_theta();
    // Gauss–Seidel: the last coordinate updated is optimal given the rest.
    let last = st.n - 1;
    check(&st, "mu_t", &|s, h| s.mu_t[last] += h);
    check(&st, "s_t", &|s, h| s.s_t[5] *= 1.0 + h);
    st.update_alpha();
    check(&st, "alpha", &|s, h| s.alpha[0].0 *= 1.0 + h);
}

/// Central finite difference of the ELBO along coordinate `k` of the
/// packed variational parameters (positive ones on the log scale).
fn fd_along(st: &State, k: usize, h: f64) -> f64 {
    let x = st.pack();
    let at = |d: f64| {
        let mut s2 = st.clone_shallow();
        let mut xd = x.clone();
        xd[k] += d;
        s2.load(&xd);
        s2.elbo()
    };
    (at(h) - at(-h)) / (2.0 * h)
}

/// Every closed-form update (Hu 2024 §1.3.3, U1–U6 with the errata
/// fixed) sets its block where the ELBO's gradient in that block
/// vanishes: central finite differences of the ELBO along each of the
/// block's parameters, taken right after the update, are zero to
/// rounding, where just before it they are not. For `q(z_i)`, a
/// free-form factor, along its two shape parameters (the location `m`
/// and the log-weight `ln w` of the two-piece normal); for a block
/// `q(θ)` along every mean and both covariance coefficients. Shared and
/// per-word `α`, block and coordinate `θ` steps, three documents.
#[test]
fn each_update_zeroes_the_elbo_gradient_of_its_block() {
    let h = 1e-5;
    let tol = 2e-6;
    for seed in [3u64, 11, 29] {
        let (g, y) = random_doc(seed, 200, 40);
        let pr = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Code).unwrap();
        for mode in [ThetaUpdate::Block, ThetaUpdate::Coordinate] {
            for alpha in [AlphaModel::Shared, AlphaModel::PerWord] {
                let o = VbssOptions {
                    theta_update: mode,
                    alpha,
                    ..Default::default()
                };
                let mut st = State::new(&pr, &y, o);
                st.sweep();
                let n = st.n;
                let na = st.alpha.len();
                let th = 5 + 2 * na;
                let what = format!("seed {seed} {mode:?} {alpha:?}");
                // The packed coordinates of each block.
                let blocks: [(&str, Vec<usize>); 5] = [
                    ("q(theta)", {
                        let cov: Vec<usize> = match mode {
                            ThetaUpdate::Block => vec![th + n, th + n + 1],
                            _ => (th + n..th + 2 * n).collect(),
                        };
                        // Gauss–Seidel: each mean is optimal given the
                        // means after it as they were, so only the last
                        // one is stationary at the end of the pass.
                        let means: Vec<usize> = match mode {
                            ThetaUpdate::Block => (th..th + n).collect(),
                            _ => vec![th + n - 1],
                        };
                        means.into_iter().chain(cov).collect()
                    }),
                    ("q(a)", vec![0, 1]),
                    ("q(b)", vec![2, 3]),
                    ("q(sigma2)", vec![4]),
                    ("q(alpha)", (5..th).collect()),
                ];
                // q(z): each word's factor along (m, ln w).
                st.update_z();
                let base = st.elbo();
                for i in 0..n {
                    let (m, lw) = (st.m(i), st.e_ln_alpha[i]);
                    let with = |mm: f64, ww: f64| {
                        let mut s2 = st.clone_shallow();
                        s2.set_z(i, ZFactor::at(mm, ww, y[i]));
                        s2.elbo()
                    };
                    let dm = (with(m + h, lw) - with(m - h, lw)) / (2.0 * h);
                    assert!(dm.abs() < tol, "{what}: q(z_{i}) along m: {dm:e}");
                    if !y[i] {
                        let dw = (with(m, lw + h) - with(m, lw - h)) / (2.0 * h);
                        assert!(dw.abs() < tol, "{what}: q(z_{i}) along ln w: {dw:e}");
                    }
                    assert!((with(m, lw) - base).abs() < 1e-9 * base.abs());
                }
                for (name, coords) in &blocks {
                    let before = coords
                        .iter()
                        .map(|&k| fd_along(&st, k, h).abs())
                        .fold(0.0, f64::max);
                    match *name {
                        "q(theta)" => st.update_theta(),
                        "q(a)" => st.update_a(),
                        "q(b)" => st.update_b(),
                        "q(sigma2)" => st.update_sigma(),
                        _ => st.update_alpha(),
                    }
                    for &k in coords {
                        let d = fd_along(&st, k, h);
                        assert!(
                            d.abs() < tol,
                            "{what}: {name}, packed coordinate {k}: dELBO {d:e} after its update (largest {before:e} before)"
                        );
                    }
                    // The check has teeth: before the update the block
                    // was not at its optimum.
                    assert!(
                        before > 100.0 * tol,
                        "{what}: {name} already optimal ({before:e})"
                    );
                }
            }
        }
    }
}

impl State<'_> {
    fn clone_shallow(&self) -> Self {
        State {
            prior: self.prior,
            y: self.y,
            o: self.o,
            n: self.n,
            mu_a: self.mu_a,
            s_a: self.s_a,
            mu_b: self.mu_b,
            s_b: self.s_b,
            mu_t: self.mu_t.clone(),
            s_t: self.s_t.clone(),
            block: self.block,
            a_sig: self.a_sig,
            b_sig: self.b_sig,
            kappa: self.kappa,
            alpha: self.alpha.clone(),
            e_ln_alpha: self.e_ln_alpha.clone(),
            ez: self.ez.clone(),
            ez2: self.ez2.clone(),
            hz: self.hz.clone(),
            pi: self.pi.clone(),
            p_theta0: self.p_theta0.clone(),
            rot0: self.rot0.clone(),
            mu_rot: self.mu_rot.clone(),
            p_dense: None,
            tilt: self.tilt.clone(),
        }
    }
}

#[test]
fn fast_tails_match_the_accurate_functions() {
    for k in -700..=700 {
        let m = k as f64 * 0.05;
        let t = Tails::at(m);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * b.abs().max(1e-300) + 1e-300;
        assert!(close(t.ln_pos, ln_norm_cdf(m)), "ln Φ({m})");
        assert!(close(t.ln_neg, ln_norm_cdf(-m)), "ln Φ(−{m})");
        assert!(close(t.mills_pos, mills(m)), "mills({m})");
        assert!(close(t.mills_neg, mills(-m)), "mills(−{m})");
    }
}

#[test]
fn degenerate_labels_are_refused_with_a_reason() {
    let (g, _) = random_doc(1, 50, 20);
    let none = vec![false; g.len()];
    let pr = ThetaPrior::from_graph(&g, &none, 0.85, PriorScale::Dissertation).unwrap();
    let e = fit_vbss(&pr, &none, &VbssOptions::default()).unwrap_err();
    assert!(e.to_string().contains("no known keyword"));
    let all = vec![true; g.len()];
    let e = fit_vbss(&pr, &all, &VbssOptions::default()).unwrap_err();
    assert!(e.to_string().contains("nothing to infer"));
}
