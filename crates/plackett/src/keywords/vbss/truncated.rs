//! Moments of the truncated normals of VBSS's latent utilities `z_i`
//! (Hu 2024, §1.3.2): positive for a known keyword, a two-part mixture for
//! an unlabelled word (a keyword that went unobserved, or a non-keyword).

use super::*;

/// `ln Φ(±m)` and the inverse Mills ratios `φ(m)/Φ(±m)` from one `erfc`
/// (the smaller tail `Φ(−|m|)`, the larger as its complement, exact to
/// rounding because it is at least 1/2) and one `exp` where both tails are
/// representable (|m| ≤ 30), else from the asymptotic forms of
/// `numerics::probit`: the `q(z)` step needs all four for every word in
/// every sweep.
pub(super) struct Tails {
    pub(super) ln_pos: f64,
    pub(super) ln_neg: f64,
    pub(super) mills_pos: f64,
    pub(super) mills_neg: f64,
}

impl Tails {
    pub(super) fn at(m: f64) -> Tails {
        if m.abs() <= 30.0 {
            let small = norm_cdf(-m.abs());
            let (pp, pn) = if m >= 0.0 {
                (1.0 - small, small)
            } else {
                (small, 1.0 - small)
            };
            let phi = crate::numerics::probit::norm_pdf(m);
            // ln Φ near 1 through ln(1 − Φ(−m)) without cancellation.
            let ln = |p: f64, q: f64| if p > 0.5 { (-q).ln_1p() } else { p.ln() };
            Tails {
                ln_pos: ln(pp, pn),
                ln_neg: ln(pn, pp),
                mills_pos: phi / pp,
                mills_neg: phi / pn,
            }
        } else {
            Tails {
                ln_pos: ln_norm_cdf(m),
                ln_neg: ln_norm_cdf(-m),
                mills_pos: mills(m),
                mills_neg: mills(-m),
            }
        }
    }
}

/// The moments of one `q(z_i)` that the ELBO reads: for a known keyword
/// `N(m, 1)` truncated to `z > 0`; otherwise the two-piece density
/// `[1(z ≤ 0) + w 1(z > 0)] φ(z − m) / C`, `ln w = E[ln α]`,
/// `C = Φ(−m) + wΦ(m)` (Hu 2024, §1.3.3, U1, with the sign of `E[ln α]`
/// fixed). The update evaluates it at the model's `m = E[a] + E[b]E[θ_i]`;
/// the finite-difference tests move `m` and `ln w` away from there.
#[derive(Debug, Clone, Copy)]
pub(super) struct ZFactor {
    pub(super) ez: f64,
    /// `E[z²]`.
    pub(super) ez2: f64,
    /// Entropy of `q(z_i)`.
    pub(super) hz: f64,
    /// `q(z_i > 0)` of an unlabelled word (0 for a known keyword, whose
    /// label is not a latent variable).
    pub(super) pi: f64,
}

impl ZFactor {
    pub(super) fn at(m: f64, ln_w: f64, known: bool) -> ZFactor {
        let t = Tails::at(m);
        if known {
            let ez = m + t.mills_pos;
            ZFactor {
                ez,
                ez2: 1.0 + m * ez,
                hz: 0.5 * (LN_2PI + 1.0) + t.ln_pos - 0.5 * m * t.mills_pos,
                pi: 0.0,
            }
        } else {
            let lo = ln_w + t.ln_pos - t.ln_neg;
            let pi = crate::numerics::sigmoid(lo);
            let ep = m + t.mills_pos;
            let en = m - t.mills_neg;
            let ez = (1.0 - pi) * en + pi * ep;
            let ez2 = (1.0 - pi) * (1.0 + m * en) + pi * (1.0 + m * ep);
            let ln_c = log_add_exp(t.ln_neg, ln_w + t.ln_pos);
            ZFactor {
                ez,
                ez2,
                hz: ln_c - pi * ln_w + 0.5 * LN_2PI + 0.5 * (ez2 - 2.0 * m * ez + m * m),
                pi,
            }
        }
    }
}
