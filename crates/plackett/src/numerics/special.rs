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
