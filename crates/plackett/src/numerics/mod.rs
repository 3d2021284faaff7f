//! Small numerical kernels shared by the engines.

pub mod concave;
pub mod fixed_point;
pub mod gamma;
pub mod linalg;
pub mod memory;
pub mod probit;
pub mod quadrature;
pub mod slice;
pub mod special;
pub mod squarem;
pub mod sup_lm;

/// `Σ_k f(range_k)` over `0..n` cut into ranges of `chunk`, the ranges
/// evaluated in parallel and their results added in order: the same bits
/// whatever the number of threads (the cut depends on `n` only).
pub fn chunked_sum<F>(n: usize, chunk: usize, f: F) -> f64
where
    F: Fn(std::ops::Range<usize>) -> f64 + Sync,
{
    chunked_map(n, chunk, f).iter().sum()
}

/// `f` of each range of `0..n` cut into ranges of `chunk` (the last may be
/// shorter), evaluated in parallel, in order.
pub fn chunked_map<T, F>(n: usize, chunk: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(std::ops::Range<usize>) -> T + Sync,
{
    use rayon::prelude::*;
    let chunk = chunk.max(1);
    (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| f(c * chunk..((c + 1) * chunk).min(n)))
        .collect()
}

/// Stable `log(Σ exp(x_i))`; `-inf` for an empty slice.
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    m + xs.iter().map(|&x| (x - m).exp()).sum::<f64>().ln()
}

/// Stable `log(exp(a) + exp(b))`.
#[inline]
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// Worths `λ = exp(θ − max θ)`: the largest is 1, so sums neither overflow
/// nor (for the items that matter) underflow. The shift is returned so that
/// log-likelihoods can be reported on the original scale when needed.
pub fn worths_from_log(theta: &[f64], out: &mut [f64]) -> f64 {
    let m = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (o, &t) in out.iter_mut().zip(theta) {
        *o = (t - m).exp();
    }
    m
}

/// Subtract the mean (the mean-centred gauge).
pub fn centre(theta: &mut [f64]) {
    if theta.is_empty() {
        return;
    }
    let m = theta.iter().sum::<f64>() / theta.len() as f64;
    theta.iter_mut().for_each(|t| *t -= m);
}

/// Max-norm of a vector.
pub fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// Logistic function.
#[inline]
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `x` rounded to `digits` significant digits, printed in the shortest form
/// (like C's `%g` without trailing zeros): positional between 1e-4 and
/// 1e15, with an exponent beyond (`1e-300`, not three hundred zeros).
pub fn sig(x: f64, digits: usize) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let r: f64 = format!("{:.*e}", digits.saturating_sub(1), x)
        .parse()
        .unwrap_or(x);
    if (1e-4..1e15).contains(&r.abs()) {
        format!("{r}")
    } else {
        format!("{r:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::sig;

    #[test]
    fn sig_prints_extremes_with_an_exponent() {
        assert_eq!(sig(0.5, 15), "0.5");
        assert_eq!(sig(1.0, 6), "1");
        assert_eq!(sig(0.123456789, 3), "0.123");
        assert_eq!(sig(1e-300, 15), "1e-300");
        assert_eq!(sig(-2.5e20, 6), "-2.5e20");
        assert_eq!(sig(1e-4, 6), "0.0001");
        assert_eq!(sig(f64::NAN, 3), "NaN");
    }
}
