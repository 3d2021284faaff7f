//! The standard normal pieces of probit models (Albert & Chib 1993; Hu
//! 2024, ch. 2): `Φ`, `ln Φ`, the inverse Mills ratio and its
//! truncated-normal moments, and a truncated-normal sampler.
//!
//! Everything stays accurate deep in the tails, where a naive
//! `φ(x)/Φ(x)` is `0/0`: below `x = −37` (where `Φ` underflows) `ln Φ`
//! and the Mills ratio switch to their asymptotic series.

use rand::Rng;
use rand::RngExt;
use rand_distr::{Distribution, Exp1, StandardNormal};

const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// `ln φ(x)`, the log standard normal density.
pub fn ln_norm_pdf(x: f64) -> f64 {
    -0.5 * x * x - LN_SQRT_2PI
}

/// Standard normal density.
pub fn norm_pdf(x: f64) -> f64 {
    (-0.5 * x * x - LN_SQRT_2PI).exp()
}

/// Standard normal distribution function `Φ(x)` (relative accuracy in the
/// lower tail, through `erfc`).
pub fn norm_cdf(x: f64) -> f64 {
    // libm's erfc (musl's, within an ulp or two); statrs' erfc is only good
    // to about 1e-10 relative, which a probit likelihood would notice.
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// `u < Φ(x)`, exactly as `u < norm_cdf(x)` decides it, but for most `u`
/// without the `erfc`: a Bernoulli(Φ(x)) draw from a uniform `u`, the
/// inner loop of Monte Carlo predictions. See [`PhiTable::lt`]; loops
/// should fetch [`phi_table`] once and call that.
pub fn lt_norm_cdf(u: f64, x: f64) -> bool {
    phi_table().lt(u, x)
}

/// `Φ` tabulated on `[−8, 8]` at steps of 1/64 for a cheap, bounded
/// approximation by linear interpolation ([`PhiTable::lt`]).
#[derive(Debug)]
pub struct PhiTable {
    values: Vec<f64>,
}

/// Grid of [`PhiTable`]: `x_i = PHI_TABLE_LO + i / PHI_TABLE_STEPS`.
const PHI_TABLE_LO: f64 = -8.0;
const PHI_TABLE_STEPS: f64 = 64.0;
const PHI_TABLE_LEN: usize = 16 * 64 + 1;

/// How far [`PhiTable::approx`] may be from `Φ` before [`PhiTable::lt`]
/// would decide wrongly: the interpolation error is at most
/// `h²/8 · max|Φ''| = (1/64)²/8 · φ(1) = 7.4e-6` on the grid's range (and
/// `Φ(−8) = 6.2e-16` outside it), so twice that bound plus rounding in the
/// evaluation (about 1e-16) cannot matter.
const LT_NORM_CDF_MARGIN: f64 = 1.6e-5;

/// The table, computed by [`norm_cdf`] on first use.
pub fn phi_table() -> &'static PhiTable {
    static TABLE: std::sync::OnceLock<PhiTable> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| PhiTable {
        values: (0..PHI_TABLE_LEN)
            .map(|i| norm_cdf(PHI_TABLE_LO + i as f64 / PHI_TABLE_STEPS))
            .collect(),
    })
}

impl PhiTable {
    /// `Φ(x)` to within 7.4e-6 absolute: linear interpolation in the table
    /// (0 below the grid, 1 above it; 0 for NaN).
    #[inline]
    fn approx(&self, x: f64) -> f64 {
        let t = (x - PHI_TABLE_LO) * PHI_TABLE_STEPS;
        if t.is_nan() || t < 0.0 {
            return 0.0;
        }
        let i = t as usize;
        if i >= PHI_TABLE_LEN - 1 {
            return 1.0;
        }
        let (a, b) = (self.values[i], self.values[i + 1]);
        a + (t - i as f64) * (b - a)
    }

    /// `u < Φ(x)`, exactly as `u < norm_cdf(x)` decides it: the table
    /// decides every `u` farther than 1.6·10⁻⁵ (`LT_NORM_CDF_MARGIN`) from its
    /// approximation of `Φ(x)`, and only the rest, about three draws in
    /// a hundred thousand, pay for the `erfc`.
    #[inline]
    pub fn lt(&self, u: f64, x: f64) -> bool {
        let approx = self.approx(x);
        if u < approx - LT_NORM_CDF_MARGIN {
            true
        } else if u > approx + LT_NORM_CDF_MARGIN {
            false
        } else {
            u < norm_cdf(x)
        }
    }
}

/// Owen's (1956) `T(h, a) = (1/2π) ∫₀^a exp(−h²(1 + x²)/2) / (1 + x²) dx`
/// for `0 ≤ a ≤ 1`, by composite Simpson's rule (the integrand is smooth
/// and bounded on the short interval: 256 panels give about 1e-13).
pub fn owens_t(h: f64, a: f64) -> f64 {
    const PANELS: usize = 256;
    if a <= 0.0 {
        return 0.0;
    }
    let f = |x: f64| {
        let q = 1.0 + x * x;
        (-0.5 * h * h * q).exp() / q
    };
    let step = a / PANELS as f64;
    let mut s = f(0.0) + f(a);
    for k in 1..PANELS {
        s += f(k as f64 * step) * if k % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * step / 3.0 / (2.0 * std::f64::consts::PI)
}

/// `E[Φ(X)]` and `sd[Φ(X)]` for `X ~ N(m, v)`: the mean is `Φ(h)` with
/// `h = m/√(1 + v)`, and `E[Φ(X)²] = P(Z₁ ≤ X, Z₂ ≤ X)` is the bivariate
/// normal probability `Φ₂(h, h; ρ = v/(1 + v)) = Φ(h) − 2 T(h, √((1 − ρ)/(1 +
/// ρ)))` (Owen 1956).
pub fn probit_mean_sd(m: f64, v: f64) -> (f64, f64) {
    let v = v.max(0.0);
    let h = m / (1.0 + v).sqrt();
    let mean = norm_cdf(h);
    let rho = v / (1.0 + v);
    let second = mean - 2.0 * owens_t(h, ((1.0 - rho) / (1.0 + rho)).sqrt());
    (mean, (second - mean * mean).max(0.0).sqrt())
}

/// `ln Φ(x)`, finite for every finite `x`.
pub fn ln_norm_cdf(x: f64) -> f64 {
    // Above 0.53 (Φ = 0.702) the branch below always takes `ln(1 − Φ(−x))`:
    // go there directly and save the `erfc` of `Φ(x)`, the bulk of the
    // samplers' time (the same bits; tested).
    if x > 0.53 {
        return (-norm_cdf(-x)).ln_1p();
    }
    if x > -37.0 {
        let p = norm_cdf(x);
        if p > 0.7 {
            // ln(1 − Φ(−x)) without cancellation.
            (-norm_cdf(-x)).ln_1p()
        } else {
            p.ln()
        }
    } else {
        // Φ(x) = φ(x)/(−x) · (1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸ …).
        let r = 1.0 / (x * x);
        let series = 1.0 - r * (1.0 - r * (3.0 - r * (15.0 - 105.0 * r)));
        -0.5 * x * x - LN_SQRT_2PI - (-x).ln() + series.ln()
    }
}

/// `(ln Φ(x), ln Φ(−x))`, bit for bit the two calls of [`ln_norm_cdf`],
/// with one `erfc` where `|x| > 0.53` (both come from `Φ(−|x|)` there).
/// The Gibbs samplers' draws depend on the exact bits, so they use this
/// rather than [`ln_norm_cdf_pair`], which rounds differently near 0.
pub fn ln_norm_cdf_both(x: f64) -> (f64, f64) {
    let t = -x.abs();
    if t < -0.53 && t > -37.0 {
        let q = norm_cdf(t);
        let (tail, other) = (q.ln(), (-q).ln_1p());
        if x > 0.0 {
            (other, tail)
        } else {
            (tail, other)
        }
    } else {
        (ln_norm_cdf(x), ln_norm_cdf(-x))
    }
}

/// `(ln Φ(x), ln Φ(−x))` with one `erfc`: the tail side is computed
/// directly (or by the series of [`ln_norm_cdf`] beyond 37 sds) and the
/// other as `ln(1 − tail)`. The variational updates of probit models need
/// both for every latent variable on every sweep.
pub fn ln_norm_cdf_pair(x: f64) -> (f64, f64) {
    // `tail` = Φ(−|x|), the smaller of the two.
    let t = -x.abs();
    let (ln_tail, other) = if t > -37.0 {
        let q = norm_cdf(t);
        (q.ln(), (-q).ln_1p())
    } else {
        // Φ(t) < 1e-299: ln(1 − Φ(t)) = −Φ(t) to double precision.
        let l = ln_norm_cdf(t);
        (l, -l.exp())
    };
    if x >= 0.0 {
        (other, ln_tail)
    } else {
        (ln_tail, other)
    }
}

/// Inverse Mills ratio `φ(x)/Φ(x)` (→ `−x` as `x → −∞`, → 0 as `x → ∞`).
pub fn mills(x: f64) -> f64 {
    if x > -37.0 {
        norm_pdf(x) / norm_cdf(x)
    } else {
        (-0.5 * x * x - LN_SQRT_2PI - ln_norm_cdf(x)).exp()
    }
}

/// Mean of `N(μ, 1)` truncated to `(0, ∞)` (`upper = true`) or `(−∞, 0]`.
pub fn truncated_mean(mu: f64, upper: bool) -> f64 {
    if upper {
        mu + mills(mu)
    } else {
        mu - mills(-mu)
    }
}

/// `E[X²]` of `N(μ, 1)` truncated at 0 on either side: `1 + μ E[X]` (the
/// boundary term of the integration by parts vanishes at 0).
pub fn truncated_second_moment(mu: f64, mean: f64) -> f64 {
    1.0 + mu * mean
}

/// A draw of `Z ~ N(0, 1)` conditioned on `Z ≥ lo`: plain rejection when
/// the region is likely, otherwise Robert's (1995) translated-exponential
/// proposal with its optimal rate (acceptance above 0.7 at every `lo`).
fn standard_above<R: Rng + ?Sized>(rng: &mut R, lo: f64) -> f64 {
    // NaN or +∞ has no draw to reject towards: returned as is (it
    // propagates to the caller's finiteness checks) instead of looping.
    if lo.is_nan() || lo == f64::INFINITY {
        return lo;
    }
    if lo < 0.45 {
        loop {
            let z: f64 = StandardNormal.sample(rng);
            if z >= lo {
                return z;
            }
        }
    }
    // Robert's (1995) optimal rate, (lo + √(lo² + 4))/2; beyond 10¹⁵⁰ the
    // root as a hypotenuse, since lo² overflows to ∞ there (which rejected
    // every proposal for ever).
    let rate = if lo < 1e150 {
        0.5 * (lo + (lo * lo + 4.0).sqrt())
    } else {
        0.5 * lo + 0.5 * lo.hypot(2.0)
    };
    loop {
        let e: f64 = Exp1.sample(rng);
        let z = lo + e / rate;
        let d = z - rate;
        if rng.random::<f64>() <= (-0.5 * d * d).exp() {
            return z;
        }
    }
}

/// A draw of `N(μ, 1)` truncated to `(0, ∞)` (`upper = true`) or
/// `(−∞, 0]`: the latent variable of a probit observation.
pub fn truncated_draw<R: Rng + ?Sized>(rng: &mut R, mu: f64, upper: bool) -> f64 {
    if upper {
        mu + standard_above(rng, -mu)
    } else {
        mu - standard_above(rng, mu)
    }
}

#[cfg(test)]
mod tests {
    /// Truncated draws return at every mean a double can hold (the rate's
    /// lo² overflowed beyond 10¹⁵⁴ and the rejection loop never ended), and
    /// a NaN mean comes back as NaN instead of hanging.
    #[test]
    fn truncated_draws_end_at_extreme_means() {
        use super::truncated_draw;
        let mut rng = crate::sampling::rng::stream(1, &[]);
        for mu in [1e3, 1e100, 1e160, 1e200, 1e308, f64::MAX] {
            let z = truncated_draw(&mut rng, mu, false);
            assert!(z <= 0.0, "{mu}: {z}");
            let z = truncated_draw(&mut rng, -mu, true);
            assert!(z >= 0.0, "{mu}: {z}");
        }
        assert!(truncated_draw(&mut rng, f64::NAN, true).is_nan());
    }

    #[test]
    fn probit_mean_sd_matches_quadrature_and_its_limits() {
        // v = 0: X is the point m, so Φ(X) has no spread.
        let (p, sd) = probit_mean_sd(0.7, 0.0);
        // (The variance is accurate to about 1e-11; the sd is its root.)
        assert!((p - norm_cdf(0.7)).abs() < 1e-15 && sd * sd < 1e-10, "{sd}");
        // T(h, 1) = Φ(h)(1 − Φ(h))/2 (Owen 1956).
        for h in [-2.0f64, -0.3, 0.0, 1.1, 3.0] {
            let t = owens_t(h, 1.0);
            let want = 0.5 * norm_cdf(h) * (1.0 - norm_cdf(h));
            assert!((t - want).abs() < 1e-12, "{h}: {t} vs {want}");
        }
        // Against a fine midpoint rule over X ~ N(m, v).
        for (m, v) in [(0.3f64, 0.5f64), (-1.2, 2.0), (2.0, 9.0), (0.0, 0.01)] {
            let (mut e1, mut e2, mut w) = (0.0, 0.0, 0.0);
            let n = 200_000;
            for k in 0..n {
                let z = -10.0 + 20.0 * (k as f64 + 0.5) / n as f64;
                let d = norm_pdf(z);
                let p = norm_cdf(m + v.sqrt() * z);
                e1 += d * p;
                e2 += d * p * p;
                w += d;
            }
            let (e1, e2) = (e1 / w, e2 / w);
            let (p, sd) = probit_mean_sd(m, v);
            assert!((p - e1).abs() < 1e-9, "mean {m} {v}");
            assert!(
                (sd - (e2 - e1 * e1).sqrt()).abs() < 1e-8,
                "sd {m} {v}: {sd}"
            );
        }
    }

    use super::*;
    use crate::sampling::rng::stream;

    #[test]
    fn cdf_and_log_cdf_match_reference_values() {
        // Φ(−1.96) = 0.024997895148220428 (R 4.2: pnorm(-1.96)).
        assert!((norm_cdf(-1.96) / 0.024_997_895_148_220_428 - 1.0).abs() < 1e-13);
        // ln Φ(−40) = −804.6084420137538 (R 4.2: pnorm(-40, log.p = TRUE));
        // ln Φ(5) = −2.8665161296376358e-7 (pnorm(5, log.p = TRUE)).
        assert!((ln_norm_cdf(-40.0) + 804.608_442_013_753_8).abs() < 1e-9);
        // Continuity across the switch to the series.
        let (a, b) = (ln_norm_cdf(-36.999_999), ln_norm_cdf(-37.000_001));
        assert!((a - b).abs() < 1e-4);
        assert!((ln_norm_cdf(5.0) - (-2.866_516_129_637_636e-7)).abs() < 1e-18);
        for x in [-300.0, -37.0, -5.0, 0.0, 3.0, 40.0] {
            assert!(mills(x).is_finite() && ln_norm_cdf(x).is_finite(), "{x}");
        }
        assert!((mills(-1e4) - 1e4).abs() < 1e-3);
    }

    /// The shortcut above 0.53 gives the bits of the two-step rule it
    /// skips (`Φ(x)` first, then `ln(1 − Φ(−x))` when `Φ(x) > 0.7`).
    #[test]
    fn the_upper_shortcut_of_the_log_cdf_changes_no_bit() {
        let two_step = |x: f64| {
            let p = norm_cdf(x);
            if p > 0.7 {
                (-norm_cdf(-x)).ln_1p()
            } else {
                p.ln()
            }
        };
        let mut x = 0.4f64;
        while x < 45.0 {
            assert_eq!(ln_norm_cdf(x).to_bits(), two_step(x).to_bits(), "{x}");
            x += 1.37e-4;
        }
        assert_eq!(
            ln_norm_cdf(f64::INFINITY).to_bits(),
            two_step(f64::INFINITY).to_bits()
        );
        // Both signs at once: the bits of two single calls.
        let mut x = -45.0f64;
        while x < 45.0 {
            let (a, b) = ln_norm_cdf_both(x);
            assert_eq!(a.to_bits(), ln_norm_cdf(x).to_bits(), "{x}");
            assert_eq!(b.to_bits(), ln_norm_cdf(-x).to_bits(), "{x}");
            x += 1.37e-4;
        }
        for x in [
            0.53,
            -0.53,
            37.0,
            -37.0,
            0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let (a, b) = ln_norm_cdf_both(x);
            assert_eq!(
                (a.to_bits(), b.to_bits()),
                (ln_norm_cdf(x).to_bits(), ln_norm_cdf(-x).to_bits())
            );
        }
    }

    #[test]
    fn the_paired_log_cdf_matches_two_single_calls() {
        for x in [
            -400.0, -38.0, -37.0, -8.0, -1.0, -1e-9, 0.0, 1e-9, 0.5, 3.0, 9.0, 40.0,
        ] {
            let (p, m) = ln_norm_cdf_pair(x);
            let (p1, m1) = (ln_norm_cdf(x), ln_norm_cdf(-x));
            for (a, b) in [(p, p1), (m, m1)] {
                assert!(
                    (a - b).abs() <= 1e-14 * b.abs().max(1e-300) + 1e-300,
                    "{x}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn truncated_draws_have_the_closed_form_moments() {
        let mut rng = stream(7, &[1]);
        for &(mu, upper) in &[
            (0.3, true),
            (-2.0, true),
            (-6.0, true),
            (1.5, false),
            (7.0, false),
        ] {
            let n = 200_000;
            let (mut s, mut s2) = (0.0, 0.0);
            for _ in 0..n {
                let x = truncated_draw(&mut rng, mu, upper);
                assert!(if upper { x > 0.0 } else { x <= 0.0 });
                s += x;
                s2 += x * x;
            }
            let m = truncated_mean(mu, upper);
            let m2 = truncated_second_moment(mu, m);
            let sd = (m2 - m * m).sqrt();
            assert!(
                ((s / n as f64) - m).abs() < 5.0 * sd / (n as f64).sqrt(),
                "{mu} {upper}"
            );
            assert!(((s2 / n as f64) - m2).abs() < 0.02 * m2.max(0.05), "{mu}");
        }
    }

    #[test]
    fn the_phi_table_is_within_its_bound_and_lt_norm_cdf_decides_exactly() {
        use rand::SeedableRng;
        // The interpolation bound, on a dense grid (and beyond the table).
        let table = phi_table();
        let mut worst: f64 = 0.0;
        for k in -1_200_000..=1_200_000 {
            let x = k as f64 * 1e-5;
            worst = worst.max((table.approx(x) - norm_cdf(x)).abs());
        }
        assert!(worst <= 7.4e-6, "{worst}");
        assert!(worst * 2.0 < LT_NORM_CDF_MARGIN);
        assert_eq!(table.approx(f64::NAN), 0.0);
        // Exactly the comparison with Φ: random points, and uniforms placed
        // at Φ(x) and one ulp either side (where the exact path decides).
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..200_000 {
            let x: f64 = 20.0 * (rng.random::<f64>() - 0.5);
            let u: f64 = rng.random();
            assert_eq!(lt_norm_cdf(u, x), u < norm_cdf(x), "u {u}, x {x}");
            let p = norm_cdf(x);
            for v in [
                p,
                f64::from_bits(p.to_bits() + 1),
                f64::from_bits(p.to_bits() - 1),
            ] {
                assert_eq!(lt_norm_cdf(v, x), v < p, "u {v}, x {x}");
            }
        }
        for x in [
            -40.0,
            -38.5,
            -8.0,
            -8.0 - 1e-12,
            -7.99,
            0.0,
            7.99,
            8.0,
            8.5,
            f64::NAN,
            40.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            for u in [0.0, 1e-300, 0.5, 1.0 - 1e-16] {
                assert_eq!(lt_norm_cdf(u, x), u < norm_cdf(x), "u {u}, x {x}");
            }
        }
    }
}
