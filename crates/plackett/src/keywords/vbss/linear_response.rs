//! A linear-response covariance for VBSS (Giordano, Broderick & Jordan
//! 2015): the spread of `(θ, a, b)` that mean-field VB under-states.
//!
//! Mean-field VBSS factorises the latent utilities `z` from `(θ, a, b)`,
//! so `q(θ)`, `q(a)` and `q(b)` are as tight as if every `z_i` were
//! observed; against the exact posterior (the Gibbs engine) the sd of a
//! word's keyword probability `Φ(a + bθ_i)` is about a third of the truth
//! (docs/keywords.md). Linear response reads the covariance off how the
//! optimum's means move when the log density is tilted by `tᵀw`,
//! `w = (θ, a, b)`: `Σ_LR = dE_q[w]/dt` at `t = 0`, which is exact for a
//! Gaussian posterior and corrects the factorisation's under-dispersion
//! where the means are accurate.
//!
//! The tilted optimum solves the CAVI fixed-point equations with `t` added
//! to the linear terms of the `θ`, `a` and `b` updates (Hu 2024, §1.3.3,
//! U2–U4). Differentiating them at the optimum, with `q(z_i)` eliminated
//! through its sensitivities (`∂E[z_i]/∂m_i = Var_q z_i`,
//! `∂E[z_i]/∂E[ln α] = ∂q(z_i > 0)/∂m_i`) and every second moment the
//! updates read carried along (`E[b²]`, `tr Σ_θ` and `tr(PΣ_θ)` through
//! `E[b²]` and `κ = E[1/σ²]`; `E[ln α]` through `q(α)`), gives one linear
//! system `M dx = (dt, 0)` in `x = (μ_θ, μ_a, μ_b, E[b²], κ, E[ln α])`; the
//! `(θ, a, b)` block of `M⁻¹` is `Σ_LR`, computed as the inverse of the
//! symmetric Schur complement that eliminating the last three leaves (one
//! Cholesky factor). It changes no mean, no ELBO and no selection (the FDR
//! rule reads `q(y*_i = 1)`): only the sds and the predictive probability,
//! which read the covariance. Against the exact posterior its sds are
//! about two thirds of the truth, mean-field's a third (docs/keywords.md,
//! "A linear-response covariance").

use super::*;
use crate::numerics::linalg::Cholesky;
use crate::numerics::special::trigamma;
use nalgebra::{DMatrix, DVector};

/// How word `i`'s `q(z_i)` moves with its location `m_i` and with `E[ln α]`
/// (`ℓ`): `(∂E z/∂m, ∂E z/∂ℓ = ∂π/∂m, ∂π/∂ℓ)`. `q(z)` is an exponential
/// family in `m` with statistic `z` and in `ℓ` with statistic `1(z > 0)`,
/// so these are the variance and covariances of those statistics.
fn z_sensitivities(m: f64, ln_w: f64, known: bool) -> (f64, f64, f64) {
    let t = Tails::at(m);
    // Variances of N(m, 1) truncated to z > 0 and to z ≤ 0, in the forms
    // without the cancellation of E[z²] − E[z]².
    let v_pos = (1.0 - t.mills_pos * (m + t.mills_pos)).max(0.0);
    if known {
        return (v_pos, 0.0, 0.0);
    }
    let v_neg = (1.0 - t.mills_neg * (t.mills_neg - m)).max(0.0);
    let pi = crate::numerics::sigmoid(ln_w + t.ln_pos - t.ln_neg);
    let gap = t.mills_pos + t.mills_neg; // E[z | z > 0] − E[z | z ≤ 0]
    let w = pi * (1.0 - pi);
    ((1.0 - pi) * v_neg + pi * v_pos + w * gap * gap, w * gap, w)
}

/// What a VBSS fit reads of `Σ_LR`: the marginal variances of `θ`, and the
/// columns of `a` and `b` (their covariances with every `θ_i` and each
/// other), indexed `(θ_1 … θ_n, a, b)`.
pub(super) struct ResponseCovariance {
    pub(super) theta_var: Vec<f64>,
    pub(super) a: Vec<f64>,
    pub(super) b: Vec<f64>,
}

impl State<'_> {
    /// The linear-response covariance at the current (converged) state;
    /// `None` for the published `θ` step, or where `S` (below) is not
    /// positive definite — not a strict local maximum of the ELBO.
    pub(super) fn linear_response(&self) -> Option<ResponseCovariance> {
        if self.o.theta_update == ThetaUpdate::Published {
            return None;
        }
        let n = self.n;
        let chol = Cholesky::new(&self.response_precision())?;
        let theta_var: Vec<f64> = chol.inverse_diagonal()[..n].to_vec();
        let unit = |k: usize| DVector::from_fn(n + 2, |i, _| if i == k { 1.0 } else { 0.0 });
        let a: Vec<f64> = chol.solve(&unit(n)).iter().copied().collect();
        let b: Vec<f64> = chol.solve(&unit(n + 1)).iter().copied().collect();
        let finite = theta_var.iter().chain(&a).chain(&b).all(|v| v.is_finite());
        (finite && theta_var.iter().all(|&v| v > 0.0) && a[n] > 0.0 && b[n + 1] > 0.0)
            .then_some(ResponseCovariance { theta_var, a, b })
    }

    /// `S = Σ_LR⁻¹`: the linearised fixed-point system `M` in
    /// `(μ_θ, μ_a, μ_b | E[b²], κ, E[ln α])`, with the last three (which
    /// no tilt touches) eliminated, `S = M_ww − M_wx M_xx⁻¹ M_xw`. Each of
    /// the first `n + 2` rows of `M` is the derivative of the ELBO's
    /// gradient in that mean, so `S` is symmetric (tested) and, at a strict
    /// maximum, positive definite: one Cholesky factor gives `Σ_LR`'s
    /// diagonal and the two columns a fit needs, in a third of the work
    /// and memory of inverting `M`.
    fn response_precision(&self) -> DMatrix<f64> {
        let n = self.n;
        let (mb, ma) = (self.mu_b, self.mu_a);
        let c1 = self.e_b2();
        let k = self.kappa;
        let shape = self.o.tau + n as f64 / 2.0;
        // tr Σ_θ and tr(PΣ_θ) as functions of (c1, κ): their derivatives.
        let (mut t1, mut t2, mut r2) = (0.0, 0.0, 0.0);
        let spectrum: &[f64] = if self.o.theta_update == ThetaUpdate::Block {
            &self.prior.precision_eigenvalues
        } else {
            &self.prior.p_diag
        };
        let mut tr_sigma = 0.0;
        for &p in spectrum {
            let d = 1.0 / (c1 + k * p);
            tr_sigma += d;
            t1 -= d * d;
            t2 -= p * d * d;
            r2 -= p * p * d * d;
        }
        // ∂tr(PΣ)/∂c1 = ∂tr Σ/∂κ.
        let r1 = t2;
        let ett = self.mu_t.iter().map(|m| m * m).sum::<f64>() + tr_sigma;
        let s_b = 1.0 / (ett + 1.0 / self.o.sigma_b2);
        let shared = self.alpha.len() == 1;
        // Per word: g = dE[z]/dm (with a per-word q(α) eliminated), h =
        // ∂E[z]/∂ℓ = ∂π/∂m, s = ∂π/∂ℓ (shared α only).
        let mut g = vec![0.0; n];
        let mut h = vec![0.0; n];
        let mut s = vec![0.0; n];
        for i in 0..n {
            let (v, hi, si) = z_sensitivities(self.m(i), self.e_ln_alpha[i], self.y[i]);
            if shared {
                (g[i], h[i], s[i]) = (v, hi, si);
            } else if self.y[i] {
                g[i] = v;
            } else {
                // ℓ_i = ψ(1 + π_i) − ψ(2 + π_i) moves with π_i alone.
                let (a1, b1) = self.alpha[i];
                let kk = trigamma(a1) - trigamma(a1 + b1);
                g[i] = v + hi * kk * hi / (1.0 - kk * si);
            }
        }
        let dev: Vec<f64> = self
            .mu_t
            .iter()
            .zip(&self.prior.theta0)
            .map(|(m, t)| m - t)
            .collect();
        let p_dev = self.prior.apply_precision(&dev);
        let (ia, ib) = (n, n + 1);
        let w = n + 2;
        // M_ww, filled in place: the θ block κP through one product.
        let mut m = DMatrix::<f64>::zeros(w, w);
        scaled_precision_into(self.prior, k, &mut m);
        // Rows θ_i: (c1 I + κP)μ_θ = μ_b(E z − μ_a) + κPθ₀ + t_θ.
        for i in 0..n {
            m[(i, i)] += c1 - mb * mb * g[i];
            m[(i, ia)] = mb * (1.0 - g[i]);
            m[(i, ib)] = -mb * g[i] * self.mu_t[i] - (self.ez[i] - ma);
        }
        // The sums over words the a and b rows and their columns share.
        let sum_t: f64 = self.mu_t.iter().sum();
        let sum_gt: f64 = (0..n).map(|j| g[j] * self.mu_t[j]).sum();
        let sum_gtt: f64 = (0..n).map(|j| g[j] * self.mu_t[j] * self.mu_t[j]).sum();
        let sum_h: f64 = h.iter().sum();
        let sum_ht: f64 = (0..n).map(|j| h[j] * self.mu_t[j]).sum();
        // Row a: (n + 1/σ_a²)μ_a = Σ E z − μ_b Σ μ_θ + t_a.
        for j in 0..n {
            m[(ia, j)] = mb * (1.0 - g[j]);
        }
        m[(ia, ia)] = n as f64 + 1.0 / self.o.sigma_a2 - g.iter().sum::<f64>();
        m[(ia, ib)] = sum_t - sum_gt;
        // Row b: (E[θᵀθ] + 1/σ_b²)μ_b = μ_θᵀE z − μ_a Σ μ_θ + t_b.
        for j in 0..n {
            let t = self.mu_t[j];
            m[(ib, j)] = 2.0 * mb * t - (self.ez[j] - ma) - t * g[j] * mb;
        }
        m[(ib, ia)] = sum_t - sum_gt;
        m[(ib, ib)] = ett + 1.0 / self.o.sigma_b2 - sum_gtt;
        // M_wx: the w rows' coefficients of (E[b²], κ, ℓ).
        let mut m_wx = [vec![0.0; w], vec![0.0; w], vec![0.0; w]];
        for i in 0..n {
            m_wx[0][i] = self.mu_t[i];
            m_wx[1][i] = p_dev[i];
            m_wx[2][i] = -mb * h[i];
        }
        m_wx[2][ia] = -sum_h;
        m_wx[0][ib] = mb * t1;
        m_wx[1][ib] = mb * t2;
        m_wx[2][ib] = -sum_ht;
        // M_xw and M_xx: E[b²] = μ_b² + 1/(E[θᵀθ] + 1/σ_b²);
        // κ = (τ + n/2)/(τ + g(μ_θ, Σ_θ)); ℓ = ψ(1 + Σ π) − ψ(2 + Σ π +
        // #known) (shared α; per-word α was eliminated above, so ℓ stays
        // put).
        let mut m_xw = [vec![0.0; w], vec![0.0; w], vec![0.0; w]];
        let f = k * k / shape;
        for j in 0..n {
            m_xw[0][j] = 2.0 * s_b * s_b * self.mu_t[j];
            m_xw[1][j] = f * p_dev[j];
        }
        m_xw[0][ib] = -2.0 * mb;
        let mut m_xx = nalgebra::Matrix3::<f64>::zeros();
        m_xx[(0, 0)] = 1.0 + s_b * s_b * t1;
        m_xx[(0, 1)] = s_b * s_b * t2;
        m_xx[(1, 0)] = 0.5 * f * r1;
        m_xx[(1, 1)] = 1.0 + 0.5 * f * r2;
        if shared {
            let (a1, b1) = self.alpha[0];
            let kk = trigamma(a1) - trigamma(a1 + b1);
            for j in 0..n {
                m_xw[2][j] = -kk * h[j] * mb;
            }
            m_xw[2][ia] = -kk * sum_h;
            m_xw[2][ib] = -kk * sum_ht;
            m_xx[(2, 2)] = 1.0 - kk * s.iter().sum::<f64>();
        } else {
            m_xx[(2, 2)] = 1.0;
        }
        // S = M_ww − M_wx (M_xx⁻¹ M_xw): a rank-three update.
        let inv = m_xx
            .try_inverse()
            .unwrap_or_else(|| nalgebra::Matrix3::from_element(f64::NAN));
        let fx: Vec<Vec<f64>> = (0..3)
            .map(|r| {
                (0..w)
                    .map(|j| (0..3).map(|c| inv[(r, c)] * m_xw[c][j]).sum())
                    .collect()
            })
            .collect();
        for j in 0..w {
            for i in 0..w {
                m[(i, j)] -= m_wx[0][i] * fx[0][j] + m_wx[1][i] * fx[1][j] + m_wx[2][i] * fx[2][j];
            }
        }
        m
    }
}

/// `out[..n, ..n] = κP` for the prior's `P = V diag(p) Vᵀ`, through one
/// symmetric product of `V diag(κp)` and `Vᵀ` written in place.
fn scaled_precision_into(prior: &ThetaPrior, kappa: f64, out: &mut DMatrix<f64>) {
    let mut vp = prior.vectors.clone();
    for (k, p) in prior.precision_eigenvalues.iter().enumerate() {
        vp.column_mut(k).scale_mut(kappa * p);
    }
    let stride = out.nrows();
    crate::numerics::linalg::symmetric_product_into(
        &vp,
        &prior.vectors,
        out.as_mut_slice(),
        stride,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keywords::{PriorScale, WordGraph};

    fn document(seed: u64) -> (ThetaPrior, Vec<bool>) {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let toks: Vec<String> = (0..260)
            .map(|_| {
                let u: f64 = rng.random();
                format!("w{}", (u * u * 60.0) as usize)
            })
            .collect();
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let y: Vec<bool> = (0..g.len()).map(|i| i % 7 == 1).collect();
        let prior = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Code).unwrap();
        (prior, y)
    }

    /// The means of the tilted optimum: `E_q[(θ, a, b)]` after fitting with
    /// `t` added to the linear terms.
    fn tilted_means(prior: &ThetaPrior, y: &[bool], o: &VbssOptions, t: &[f64]) -> Vec<f64> {
        let mut st = State::new(prior, y, *o);
        st.tilt = t.to_vec();
        for _ in 0..20_000 {
            let before = st.pack();
            st.sweep();
            let after = st.pack();
            let change = before
                .iter()
                .zip(&after)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            if change < 1e-13 {
                break;
            }
        }
        st.update_z();
        let mut w = st.mu_t.clone();
        w.push(st.mu_a);
        w.push(st.mu_b);
        w
    }

    /// `Σ_LR` is the derivative of the tilted optimum's means: central
    /// finite differences of whole fits, column by column, for both α
    /// models and both exact `θ` steps; and it is symmetric.
    #[test]
    fn linear_response_is_the_derivative_of_the_tilted_means() {
        for (seed, alpha, theta) in [
            (1, AlphaModel::Shared, ThetaUpdate::Block),
            (2, AlphaModel::PerWord, ThetaUpdate::Block),
            (3, AlphaModel::Shared, ThetaUpdate::Coordinate),
        ] {
            let (prior, y) = document(seed);
            let n = y.len();
            let o = VbssOptions {
                alpha,
                theta_update: theta,
                ..VbssOptions::default()
            };
            let base = tilted_means(&prior, &y, &o, &vec![0.0; n + 2]);
            let mut st = State::new(&prior, &y, o);
            for _ in 0..20_000 {
                st.sweep();
            }
            st.update_z();
            for (j, v) in st.mu_t.iter().enumerate() {
                assert!((v - base[j]).abs() < 1e-9, "not converged");
            }
            // S as built, before any symmetrising: symmetric by itself.
            let prec = st.response_precision();
            let asym = (0..n + 2)
                .flat_map(|i| (0..n + 2).map(move |j| (i, j)))
                .map(|(i, j)| (prec[(i, j)] - prec[(j, i)]).abs())
                .fold(0.0, f64::max)
                / prec.iter().map(|v| v.abs()).fold(0.0, f64::max);
            let cov = Cholesky::new(&prec).expect("positive definite").inverse();
            let scale = cov.iter().map(|v| v.abs()).fold(0.0, f64::max);
            // What a fit reads of it is the same covariance.
            let lr = st.linear_response().expect("a covariance");
            for i in 0..n + 2 {
                if i < n {
                    assert!((lr.theta_var[i] - cov[(i, i)]).abs() < 1e-10 * scale);
                }
                assert!((lr.a[i] - cov[(i, n)]).abs() < 1e-10 * scale);
                assert!((lr.b[i] - cov[(i, n + 1)]).abs() < 1e-10 * scale);
            }
            let h = 1e-4;
            let mut worst: f64 = 0.0;
            for j in [0, 3, n / 2, n - 1, n, n + 1] {
                let mut tp = vec![0.0; n + 2];
                tp[j] = h;
                let up = tilted_means(&prior, &y, &o, &tp);
                tp[j] = -h;
                let dn = tilted_means(&prior, &y, &o, &tp);
                for i in 0..n + 2 {
                    let fd = (up[i] - dn[i]) / (2.0 * h);
                    worst = worst.max((fd - cov[(i, j)]).abs() / scale);
                }
            }
            eprintln!(
                "{alpha:?} {theta:?}: n {n}, sd(a) {:.4} (mean-field {:.4}), sd(b) {:.4} \
                 (mean-field {:.4}); |FD − Σ_LR| / max|Σ| {worst:.2e}, asymmetry {:.2e}",
                cov[(n, n)].sqrt(),
                st.s_a.sqrt(),
                cov[(n + 1, n + 1)].sqrt(),
                st.s_b.sqrt(),
                asym
            );
            assert!(worst < 1e-5, "finite differences disagree: {worst}");
            assert!(asym < 1e-12, "not symmetric: {asym}");
        }
    }

    /// The published θ step optimises no ELBO: its fit reports mean-field
    /// sds and says so; the exact steps report the linear-response ones,
    /// wider than mean-field's, with the same probabilities.
    #[test]
    fn the_published_step_falls_back_to_mean_field() {
        let (prior, y) = document(4);
        let fit = |theta_update, covariance| {
            let o = VbssOptions {
                theta_update,
                covariance,
                ..VbssOptions::default()
            };
            fit_vbss(&prior, &y, &o).unwrap()
        };
        let published = fit(ThetaUpdate::Published, VbCovariance::LinearResponse);
        assert_eq!(published.covariance, VbCovariance::MeanField);
        let lr = fit(ThetaUpdate::Block, VbCovariance::LinearResponse);
        let mf = fit(ThetaUpdate::Block, VbCovariance::MeanField);
        assert_eq!(lr.covariance, VbCovariance::LinearResponse);
        assert_eq!(mf.covariance, VbCovariance::MeanField);
        assert_eq!(lr.p_latent, mf.p_latent);
        assert_eq!(lr.b_sd_mean_field, mf.b.1);
        assert!(lr.b.1 > mf.b.1 && lr.a.1 > mf.a.1);
        let wider = (0..y.len()).filter(|&i| lr.p_sd[i] > mf.p_sd[i]).count();
        assert!(wider * 10 >= 9 * y.len(), "{wider} of {} wider", y.len());
    }
}
