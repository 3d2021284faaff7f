//! Moments of the truncated normals in vMMIC's local factors (Hu 2024,
//! Appendix B.1.8–10): q(U_ij) with the primary indicator integrated out,
//! and q(y*_i) truncated to the side of the bag's label.

use super::*;

/// Moments of `q(U) ∝ φ(U − μ)[e^Δ 1(U > 0) + 1(U ≤ 0)]`: `E[δ] = q(U > 0)`,
/// `E[U]` and `ln Z = ln(e^Δ Φ(μ) + Φ(−μ))` (this runs for every instance
/// on every sweep and every expansion-move evaluation). Where both tails
/// of `Φ` are far from underflow (|μ| ≤ 30: `Φ(−30) ≈ 5e-198`) from one
/// `erfc`, one `exp` (or `expm1`), one `exp` and one logarithm, with `Z` scaled by
/// `e^{−max(Δ, 0)}` so that nothing overflows: with `w = e^{−|Δ|}`,
/// `Z = e^Δ(Φ(μ) + wΦ(−μ))` for Δ ≥ 0 and `wΦ(μ) + Φ(−μ)` otherwise, and
/// `E[U] = μ + φ(μ)(e^Δ − 1)/Z` (tested against the log-space form to
/// 1e-13 relative); beyond, in log space
/// ([`u_moments_log`]).
pub(super) fn u_moments(mu: f64, delta: f64) -> (f64, f64, f64) {
    if mu.abs() > 30.0 || !delta.is_finite() {
        return u_moments_log(mu, delta);
    }
    let small = norm_cdf(-mu.abs());
    let (pp, pn) = if mu >= 0.0 {
        (1.0 - small, small)
    } else {
        (small, 1.0 - small)
    };
    // w = e^{−|Δ|} and w − 1, each without cancellation.
    let (w, wm1) = if delta.abs() < 0.5 {
        let wm1 = (-delta.abs()).exp_m1();
        (1.0 + wm1, wm1)
    } else {
        let w = (-delta.abs()).exp();
        (w, w - 1.0)
    };
    let phi = norm_pdf(mu);
    if delta >= 0.0 {
        let zs = pp + w * pn;
        // e^Δ − 1 = e^Δ(1 − w), divided by Z = e^Δ zs. ln Z: where Φ(−μ)
        // dominates, Z = 1 + Φ(μ)(e^Δ − 1) with Φ(μ)/w < Φ(−μ) ≤ 1, so
        // that ln Z near 0 keeps its digits.
        let ln_z = if pp >= w * pn {
            delta + zs.ln()
        } else {
            (-pp * wm1 / w).ln_1p()
        };
        (pp / zs, mu - phi * wm1 / zs, ln_z)
    } else {
        let zs = w * pp + pn;
        // Z = 1 + Φ(μ)(e^Δ − 1): through ln_1p while Z is near 1, else
        // directly (Z then has Φ(−μ) of its own digits).
        let x = pp * wm1;
        let ln_z = if x > -0.5 { x.ln_1p() } else { zs.ln() };
        (w * pp / zs, mu + phi * wm1 / zs, ln_z)
    }
}

/// [`u_moments`] in log space, for any `μ` (one `erfc` and three `exp`s).
pub(super) fn u_moments_log(mu: f64, delta: f64) -> (f64, f64, f64) {
    let (lp, lm) = ln_norm_cdf_pair(mu);
    let a = delta + lp - lm;
    let t = (-a.abs()).exp();
    // σ(a) and softplus(a) from the same exp(−|a|).
    let e = if a >= 0.0 {
        1.0 / (1.0 + t)
    } else {
        t / (1.0 + t)
    };
    let ln_z = lm + a.max(0.0) + t.ln_1p();
    let lphi = ln_norm_pdf(mu);
    // Inverse Mills ratios φ(μ)/Φ(±μ).
    let eu = e * (mu + (lphi - lp).exp()) + (1.0 - e) * (mu - (lphi - lm).exp());
    (e, eu, ln_z)
}

/// `E[y*]` and `ln Z` of `N(μ, 1)` truncated to the side of label `y`.
pub(super) fn ystar_moments(mu: f64, y: bool) -> (f64, f64) {
    let s = if y { 1.0 } else { -1.0 };
    let ln_z = ln_norm_cdf(s * mu);
    (mu + s * (ln_norm_pdf(mu) - ln_z).exp(), ln_z)
}
