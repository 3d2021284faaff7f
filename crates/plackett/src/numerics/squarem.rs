//! SQUAREM extrapolation (Varadhan & Roland 2008, scheme S3) for monotone
//! fixed-point iterations (EM, MM, coordinate-ascent VB).
//!
//! From three successive iterates `p0, p1 = F(p0), p2 = F(p1)`, with
//! `r = p1 − p0` and `v = p2 − 2p1 + p0`, the S3 step length is
//! `α = −‖r‖/‖v‖` and the extrapolated point `p0 − 2αr + α²v`. The caller
//! applies one more map to it (the stabilising step) and keeps the result
//! only if its objective is at least that of `p2`, so the accepted
//! sequence stays monotone and converges to the same fixed point.

/// The S3 extrapolation of `p0, p1, p2`, or `None` when it would not move
/// past `p2` (`α ≥ −1`, which is just `p2`), when `v = 0`, or when the
/// result is not finite.
pub fn extrapolate(p0: &[f64], p1: &[f64], p2: &[f64]) -> Option<Vec<f64>> {
    let (r, v, alpha) = step_length(p0, p1, p2)?;
    point(p0, &r, &v, alpha)
}

/// `r = p1 − p0`, `v = p2 − 2p1 + p0` and the S3 step length
/// `α = −‖r‖/‖v‖`, or `None` when `α ≥ −1` (no move past `p2`) or `v` is
/// zero or not finite.
pub fn step_length(p0: &[f64], p1: &[f64], p2: &[f64]) -> Option<(Vec<f64>, Vec<f64>, f64)> {
    let r: Vec<f64> = p1.iter().zip(p0).map(|(a, b)| a - b).collect();
    let v: Vec<f64> = (0..p0.len()).map(|k| p2[k] - 2.0 * p1[k] + p0[k]).collect();
    let rr: f64 = r.iter().map(|x| x * x).sum();
    let vv: f64 = v.iter().map(|x| x * x).sum();
    if !(vv > 0.0 && vv.is_finite() && rr.is_finite()) {
        return None;
    }
    let alpha = -(rr / vv).sqrt();
    (alpha < -1.0).then_some((r, v, alpha))
}

/// The extrapolated point `p0 − 2αr + α²v`, or `None` if not finite.
pub fn point(p0: &[f64], r: &[f64], v: &[f64], alpha: f64) -> Option<Vec<f64>> {
    let out: Vec<f64> = (0..p0.len())
        .map(|k| p0[k] - 2.0 * alpha * r[k] + alpha * alpha * v[k])
        .collect();
    out.iter().all(|x| x.is_finite()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_for_a_linear_contraction() {
        // F(x) = c + ρ(x − c): S3 with the exact α lands on the fixed point.
        let (c, rho) = ([1.0, -2.0], 0.9);
        let f =
            |x: &[f64]| -> Vec<f64> { x.iter().zip(&c).map(|(x, c)| c + rho * (x - c)).collect() };
        let p0 = vec![5.0, 3.0];
        let p1 = f(&p0);
        let p2 = f(&p1);
        let e = extrapolate(&p0, &p1, &p2).unwrap();
        assert!(
            (e[0] - 1.0).abs() < 1e-12 && (e[1] + 2.0).abs() < 1e-12,
            "{e:?}"
        );
        assert!(extrapolate(&p2, &p2, &p2).is_none());
    }
}
