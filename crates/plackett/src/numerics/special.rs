//! Special functions not provided by `statrs`.

/// Trigamma function ψ'(x) for x > 0: recurrence `ψ'(x) = ψ'(x+1) + 1/x²`
/// up to x ≥ 10, then the asymptotic series
/// `1/x + 1/2x² + 1/6x³ − 1/30x⁵ + 1/42x⁷ − 1/30x⁹ + 5/66x¹¹`
/// (Abramowitz & Stegun 6.4.12; truncation error below 3e-14).
pub fn trigamma(mut x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let mut acc = 0.0;
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc + 1.0 / x
        + x2 / 2.0
        + (1.0 / x)
            * x2
            * (1.0 / 6.0
                - x2 * (1.0 / 30.0 - x2 * (1.0 / 42.0 - x2 * (1.0 / 30.0 - x2 * 5.0 / 66.0))))
}

/// The `x > 0` with `ψ'(x) = v` for `v > 0` (ψ' falls from ∞ to 0 on
/// `(0, ∞)`): bisection in `ln x` to a relative 1e-14, so it cannot
/// diverge; NaN for `v` not positive and finite.
pub fn inverse_trigamma(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return f64::NAN;
    }
    // ψ'(x) ≈ 1/x² near 0 and 1/x far out bracket the root within e^±2.
    let guess = if v > 1.0 { v.sqrt().recip() } else { v.recip() };
    let (mut lo, mut hi) = (guess.ln() - 2.0, guess.ln() + 2.0);
    while trigamma(lo.exp()) < v && lo > -750.0 {
        lo -= 2.0;
    }
    while trigamma(hi.exp()) > v && hi < 750.0 {
        hi += 2.0;
    }
    for _ in 0..200 {
        if hi - lo <= 1e-14 * hi.abs().max(1.0) {
            break;
        }
        let mid = 0.5 * (lo + hi);
        if trigamma(mid.exp()) > v {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// The shape from which [`ln_gamma_quantile_of_normal`] returns Wilson &
/// Hilferty's (1931) quantile instead of solving for the exact one.
pub const WILSON_HILFERTY_SHAPE: f64 = 1e5;

/// The log of the standard Gamma(`a`, 1) quantile at probability `Φ(v)`:
/// `ln x` with `P(a, x) = Φ(v)` (a Gaussian copula's transform to a Gamma
/// margin, in log space because for small shapes the quantile itself
/// underflows). Deep in the lower tail, `x < 10⁻¹⁰⁰`, it is the series'
/// `(ln Φ(v) + ln Γ(a + 1)) / a` (relative error of order `x`); elsewhere
/// Newton in `ln x` on statrs's regularised incomplete gamma (its lower
/// tail for `v ≤ 0`, its upper tail above, so that neither probability
/// rounds to 1), started at Wilson & Hilferty (1931)'s cube root or at
/// that series, which a handful of steps need. NaN if the steps do not
/// settle (not seen for shapes 0.02–5·10⁴ and `|v| ≤ 8`; tested). From
/// [`WILSON_HILFERTY_SHAPE`] on, Wilson & Hilferty's cube root itself.
pub fn ln_gamma_quantile_of_normal(a: f64, v: f64) -> f64 {
    use crate::numerics::probit::{ln_norm_cdf, norm_cdf};
    use statrs::function::gamma::{checked_gamma_lr, checked_gamma_ur};
    let lg = ln_gamma(a);
    let series = (ln_norm_cdf(v) + ln_gamma(a + 1.0)) / a;
    if v <= 0.0 && series < -230.0 {
        return series;
    }
    let c = 1.0 / (9.0 * a);
    let wh = 1.0 - c + v * c.sqrt();
    // Large shapes: statrs's incomplete gamma costs grow with `a` (seconds
    // per call at 10⁵, minutes at 10⁸), while Wilson & Hilferty's error in
    // `ln x` falls as `a^{-3/2}`: at most 1.5·10⁻⁷ from `a = 10⁵` on for
    // `|v| ≤ 8` (against scipy's `gamma.ppf`; tested against Newton below).
    if a >= WILSON_HILFERTY_SHAPE && wh > 0.0 {
        return a.ln() + 3.0 * wh.ln();
    }
    let mut t = if wh > 0.0 && (a >= 0.5 || v > 0.0) {
        a.ln() + 3.0 * wh.ln()
    } else {
        series.min(a.ln())
    };
    let (u, q) = (norm_cdf(v), norm_cdf(-v));
    for _ in 0..200 {
        let x = t.exp();
        let f = if v <= 0.0 {
            checked_gamma_lr(a, x).map(|p| p - u)
        } else {
            checked_gamma_ur(a, x).map(|p| q - p)
        };
        let Ok(f) = f else { break };
        // dP/d ln x = x · density.
        let step = f / (a * t - x - lg).exp();
        if !step.is_finite() {
            break;
        }
        let step = step.clamp(-2.0, 2.0);
        t -= step;
        if step.abs() <= 1e-13 * t.abs().max(1.0) {
            return t;
        }
    }
    f64::NAN
}

/// Digamma ψ(x) (re-exported from statrs for one import path).
pub fn digamma(x: f64) -> f64 {
    statrs::function::gamma::digamma(x)
}

/// `ln Γ(x)`.
pub fn ln_gamma(x: f64) -> f64 {
    statrs::function::gamma::ln_gamma(x)
}

/// Standard normal quantile.
pub fn normal_quantile(p: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::new(0.0, 1.0).expect("valid").inverse_cdf(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The probability it inverts: the CDF at the quantile equals `Φ(v)`
    /// (the upper tail for `v > 0`) to 10⁻⁹ relative, and where the
    /// quantile underflows the series is the answer.
    #[test]
    fn ln_gamma_quantile_of_normal_inverts_the_cdf() {
        use crate::numerics::probit::{ln_norm_cdf, norm_cdf};
        use statrs::function::gamma::{gamma_lr, gamma_ur};
        let shapes = (0..120).map(|i| 0.02 * (5e4f64 / 0.02).powf(i as f64 / 119.0));
        for a in shapes.chain([0.1, 0.5, 0.97, 1.0, 2.3, 10.0, 150.0]) {
            for v in (0..161).map(|i| -8.0 + 0.1 * i as f64) {
                let t = ln_gamma_quantile_of_normal(a, v);
                assert!(t.is_finite(), "a {a}, v {v}: {t}");
                let x = t.exp();
                if x < 1e-100 {
                    let series = (ln_norm_cdf(v) + ln_gamma(a + 1.0)) / a;
                    assert!((t - series).abs() <= 1e-12 * t.abs(), "a {a}, v {v}");
                    continue;
                }
                let (p, target) = if v <= 0.0 {
                    (gamma_lr(a, x), norm_cdf(v))
                } else {
                    (gamma_ur(a, x), norm_cdf(-v))
                };
                assert!(
                    (p - target).abs() <= 1e-9 * target,
                    "a {a}, v {v}: {p} vs {target}"
                );
            }
        }
    }

    /// From [`WILSON_HILFERTY_SHAPE`] on the quantile is Wilson &
    /// Hilferty's: the exact CDF at it is `Φ(v + δ)` with `|δ| ≤ 10⁻⁴`
    /// (an interval endpoint off by a ten-thousandth of an sd), and it
    /// returns in microseconds where Newton on statrs's incomplete gamma
    /// took minutes at `a = 10⁸`.
    #[test]
    fn large_shapes_use_wilson_hilferty_within_a_ten_thousandth_of_an_sd() {
        use crate::numerics::probit::norm_cdf;
        use statrs::function::gamma::{gamma_lr, gamma_ur};
        for a in [WILSON_HILFERTY_SHAPE, 4e5] {
            for v in (0..25).map(|i| -6.0 + 0.5 * i as f64) {
                let x = ln_gamma_quantile_of_normal(a, v).exp();
                let (p, target) = if v <= 0.0 {
                    (gamma_lr(a, x), norm_cdf(v))
                } else {
                    (gamma_ur(a, x), norm_cdf(-v))
                };
                let density = (-0.5 * v * v).exp() / (2.0 * std::f64::consts::PI).sqrt();
                assert!(
                    (p - target).abs() <= 1e-4 * density,
                    "a {a}, v {v}: {p} vs {target}"
                );
            }
        }
        let t = ln_gamma_quantile_of_normal(1e10, 1.0);
        assert!((t - (1e10f64.ln() + 1e-5)).abs() < 1e-9, "{t}");
    }

    #[test]
    fn inverse_trigamma_inverts() {
        for x in [1e-6, 0.01, 0.3, 1.0, 2.5, 40.0, 1e4, 1e7] {
            let y = inverse_trigamma(trigamma(x));
            assert!((y - x).abs() <= 1e-12 * x, "{x}: {y}");
        }
        assert!(inverse_trigamma(0.0).is_nan() && inverse_trigamma(f64::NAN).is_nan());
    }

    #[test]
    fn trigamma_values() {
        let pi2_6 = std::f64::consts::PI.powi(2) / 6.0;
        assert!((trigamma(1.0) - pi2_6).abs() < 1e-13);
        assert!((trigamma(0.5) - std::f64::consts::PI.powi(2) / 2.0).abs() < 1e-12);
        // Against a central difference of digamma.
        for x in [0.01, 0.3, 2.5, 17.0, 400.0] {
            let h = 1e-5 * x;
            let fd = (digamma(x + h) - digamma(x - h)) / (2.0 * h);
            assert!((trigamma(x) - fd).abs() < 1e-6 * trigamma(x), "{x}");
        }
    }
}
