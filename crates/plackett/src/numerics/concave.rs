//! Maximisation of a smooth concave function of one variable: Newton's
//! method on its derivative with a bracketing safeguard (bisection when a
//! Newton step leaves the bracket, doubling outwards while the bracket is
//! open). Used by the coordinate-wise MM updates of the adherence model,
//! where each item's and each ranker's surrogate is concave.

/// The maximiser of a concave function on the open interval `(lo, hi)`
/// (either end may be infinite), from `start`. `d(x)` returns the first
/// and second derivatives `(f'(x), f''(x))`, `f'' ≤ 0`; a non-finite `f'`
/// is read as "past the maximiser on the right" (an overflow far out). The
/// iteration stops when a step is below `rel_tol · (1 + |x|)` or after
/// `max_iter` evaluations; the result always lies in `(lo, hi)`.
pub fn maximise(
    start: f64,
    mut lo: f64,
    mut hi: f64,
    rel_tol: f64,
    max_iter: usize,
    mut d: impl FnMut(f64) -> (f64, f64),
) -> f64 {
    let inside = |x: f64, lo: f64, hi: f64| x.is_finite() && x > lo && x < hi;
    let mut x = if inside(start, lo, hi) {
        start
    } else if lo.is_finite() && hi.is_finite() {
        0.5 * (lo + hi)
    } else if lo.is_finite() {
        lo + 1.0
    } else if hi.is_finite() {
        hi - 1.0
    } else {
        0.0
    };
    let mut width = 1.0f64;
    let mut dx = f64::INFINITY;
    for _ in 0..max_iter {
        let (g, h) = d(x);
        if g == 0.0 {
            return x;
        }
        if g > 0.0 {
            lo = x;
        } else {
            hi = x; // includes a non-finite derivative (NaN fails g > 0)
        }
        let newton = if g.is_finite() && h < 0.0 && h.is_finite() {
            x - g / h
        } else {
            f64::NAN
        };
        // Newton unless it leaves the bracket or is not at least halving
        // the step before last (rtsafe's rule: slow Newton steps bisect).
        let slow = lo.is_finite() && hi.is_finite() && (2.0 * g).abs() > (dx * h).abs();
        let next = if inside(newton, lo, hi) && !slow {
            newton
        } else {
            match (lo.is_finite(), hi.is_finite()) {
                (true, true) => 0.5 * (lo + hi),
                (true, false) => {
                    width *= 2.0;
                    lo + width
                }
                (false, true) => {
                    width *= 2.0;
                    hi - width
                }
                (false, false) => x,
            }
        };
        let step = (next - x).abs();
        dx = step;
        x = next;
        if step <= rel_tol * (1.0 + x.abs()) {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::maximise;

    #[test]
    fn finds_the_maximiser_of_smooth_concave_functions() {
        // f(x) = 3x − e^x: maximiser ln 3.
        let x = maximise(0.0, f64::NEG_INFINITY, f64::INFINITY, 1e-14, 100, |x| {
            (3.0 - x.exp(), -x.exp())
        });
        assert!((x - 3f64.ln()).abs() < 1e-12);
        // f(x) = 9 ln x − 10 x on (0, ∞): maximiser 0.9, from far away.
        let x = maximise(50.0, 0.0, f64::INFINITY, 1e-14, 200, |x| {
            (9.0 / x - 10.0, -9.0 / (x * x))
        });
        assert!((x - 0.9).abs() < 1e-12);
        // Overflowing derivative far right.
        // (Newton's steps on an exponential far from its root are ~1 long.)
        let x = maximise(720.0, f64::NEG_INFINITY, f64::INFINITY, 1e-14, 1000, |x| {
            (1.0 - x.exp(), -x.exp())
        });
        assert!(x.abs() < 1e-8, "{x}");
    }
}
