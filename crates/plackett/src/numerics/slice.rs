//! Univariate slice sampling with stepping out and shrinkage (Neal 2003,
//! "Slice sampling", Ann. Statist. 31(3), §4, Figs. 3 and 5): an exact
//! MCMC update for a one-dimensional conditional known up to a constant,
//! with no tuning beyond an initial width; and its multivariate Gaussian-
//! prior counterpart, elliptical slice sampling (Murray, Adams & MacKay
//! 2010), which needs no width at all.

use rand::{Rng, RngExt};

/// One slice-sampling update of `x0` for the log-density `log_f` (which
/// may return `−∞` outside its support, e.g. below a bound). `width` is the
/// initial bracket width; stepping out is limited to `max_steps` widths on
/// each side. `x0` must have a finite log-density.
pub fn slice_step<R: Rng + ?Sized>(
    rng: &mut R,
    x0: f64,
    log_f: impl Fn(f64) -> f64,
    width: f64,
    max_steps: usize,
) -> f64 {
    let f0 = log_f(x0);
    debug_assert!(
        f0.is_finite(),
        "slice sampling from a point of zero density"
    );
    // The slice: {x : log f(x) > f0 − Exp(1)}.
    let level = f0 + rng.random::<f64>().max(f64::MIN_POSITIVE).ln();
    let u: f64 = rng.random();
    let mut lo = x0 - width * u;
    let mut hi = lo + width;
    let j = (rng.random::<f64>() * max_steps as f64).floor() as usize;
    let mut k = max_steps.saturating_sub(1) - j.min(max_steps.saturating_sub(1));
    let mut j = j;
    while j > 0 && log_f(lo) > level {
        lo -= width;
        j -= 1;
    }
    while k > 0 && log_f(hi) > level {
        hi += width;
        k -= 1;
    }
    // Shrink towards x0 until a point inside the slice is drawn.
    loop {
        let x = lo + rng.random::<f64>() * (hi - lo);
        if log_f(x) > level {
            return x;
        }
        if x < x0 {
            lo = x;
        } else {
            hi = x;
        }
        if hi - lo < 1e-14 * (1.0 + x0.abs()) {
            return x0;
        }
    }
}

/// The angle search of one elliptical slice move (Murray, Adams & MacKay
/// 2010, Fig. 2): for `f` with a Gaussian prior `N(0, Σ)` and `ν ~ N(0, Σ)`
/// drawn by the caller, the next state is `f cos t + ν sin t`; `loglik(cos
/// t, sin t)` is the log-likelihood there. Returns the accepted `(cos t,
/// sin t)`, or `(1, 0)` (stay) if the bracket collapses first — with a
/// continuous or piecewise-constant likelihood that happens only for a
/// state exactly on a boundary. Callers evaluate the likelihood on the
/// ellipse from precomputed predictors at `f` and at `ν`, which is why the
/// point is passed as its two coefficients.
pub fn ellipse_slice<R: Rng + ?Sized>(
    rng: &mut R,
    mut loglik: impl FnMut(f64, f64) -> f64,
) -> (f64, f64) {
    let level = loglik(1.0, 0.0) + rng.random::<f64>().max(f64::MIN_POSITIVE).ln();
    let mut angle = rng.random::<f64>() * std::f64::consts::TAU;
    let (mut lo, mut hi) = (angle - std::f64::consts::TAU, angle);
    for _ in 0..200 {
        let (c, s) = (angle.cos(), angle.sin());
        if loglik(c, s) > level {
            return (c, s);
        }
        if angle < 0.0 {
            lo = angle;
        } else {
            hi = angle;
        }
        angle = lo + rng.random::<f64>() * (hi - lo);
    }
    (1.0, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::rng::stream;

    /// Draws from a Gamma(3, 2) log-density (support x > 0) and a standard
    /// normal have the right first two moments.
    #[test]
    fn slice_sampler_moments() {
        let mut rng = stream(5, &[1]);
        let (a, b) = (3.0, 2.0);
        let gamma = |x: f64| {
            if x <= 0.0 {
                f64::NEG_INFINITY
            } else {
                (a - 1.0) * x.ln() - b * x
            }
        };
        let mut x = 1.0;
        let (mut s, mut s2) = (0.0, 0.0);
        let n = 200_000;
        for _ in 0..n {
            x = slice_step(&mut rng, x, gamma, 1.0, 50);
            s += x;
            s2 += x * x;
        }
        let m = s / n as f64;
        let v = s2 / n as f64 - m * m;
        assert!((m - 1.5).abs() < 0.02, "mean {m}");
        assert!((v - 0.75).abs() < 0.03, "variance {v}");
        let mut y = 3.0;
        let (mut s, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            y = slice_step(&mut rng, y, |x| -0.5 * x * x, 2.0, 50);
            s += y;
            s2 += y * y;
        }
        let m = s / n as f64;
        assert!(m.abs() < 0.02 && (s2 / n as f64 - 1.0).abs() < 0.03);
    }

    /// Prior N(0, 1), likelihood N(2; f, 1): the chain of elliptical slice
    /// moves has the posterior N(1, 1/2)'s mean and variance.
    #[test]
    fn ellipse_slice_samples_a_gaussian_posterior() {
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = stream(7, &[1]);
        let mut f = 0.0f64;
        let (mut s1, mut s2) = (0.0, 0.0);
        let n = 200_000;
        for _ in 0..n {
            let nu: f64 = StandardNormal.sample(&mut rng);
            let (c, s) = ellipse_slice(&mut rng, |c, s| -0.5 * (2.0 - (f * c + nu * s)).powi(2));
            f = f * c + nu * s;
            s1 += f;
            s2 += f * f;
        }
        let mean = s1 / n as f64;
        let var = s2 / n as f64 - mean * mean;
        assert!((mean - 1.0).abs() < 0.02, "mean {mean}");
        assert!((var - 0.5).abs() < 0.02, "variance {var}");
    }
}
