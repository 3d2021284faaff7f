//! Gaussian quadrature rules by the Golub–Welsch eigenvalue method (Golub &
//! Welsch 1969): the nodes are the eigenvalues of the orthogonal
//! polynomials' Jacobi matrix, the weights the squared first components of
//! its eigenvectors times the weight function's mass.

use crate::numerics::linalg;
use nalgebra::DMatrix;

/// Nodes and weights of the Jacobi matrix with diagonal `diag` and
/// off-diagonal `off` (`off[k]` joins `k` and `k + 1`), the weights scaled
/// to sum to `mass`, sorted by node.
fn golub_welsch(diag: &[f64], off: &[f64], mass: f64) -> (Vec<f64>, Vec<f64>) {
    let n = diag.len();
    let mut j = DMatrix::<f64>::zeros(n, n);
    for (k, &d) in diag.iter().enumerate() {
        j[(k, k)] = d;
    }
    for (k, &b) in off.iter().enumerate() {
        j[(k + 1, k)] = b;
        j[(k, k + 1)] = b;
    }
    let e = linalg::symmetric_eigen(&j).expect("the Golub–Welsch matrix is finite and symmetric");
    let mut pairs: Vec<(f64, f64)> = (0..n)
        .map(|k| (e.eigenvalues[k], mass * e.eigenvectors[(0, k)].powi(2)))
        .collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    pairs.into_iter().unzip()
}

/// Gauss–Hermite nodes and weights (physicists' convention, weight e^{−x²}):
/// `∫ f(x) e^{−x²} dx ≈ Σ_k w_k f(x_k)`, exact for polynomials of degree
/// below `2n`.
pub fn gauss_hermite(n: usize) -> (Vec<f64>, Vec<f64>) {
    let off: Vec<f64> = (1..n).map(|k| (k as f64 / 2.0).sqrt()).collect();
    golub_welsch(&vec![0.0; n], &off, std::f64::consts::PI.sqrt())
}

/// Gauss–Legendre nodes and weights on `[−1, 1]` (weight 1), exact for
/// polynomials of degree below `2n`.
pub fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    let off: Vec<f64> = (1..n)
        .map(|k| {
            let k = k as f64;
            k / (4.0 * k * k - 1.0).sqrt()
        })
        .collect();
    golub_welsch(&vec![0.0; n], &off, 2.0)
}

/// A rule for expectations under a Gamma(`shape`, `rate`) distribution,
/// `E f(η) ≈ Σ_k w_k f(η_k)`: 8-point Gauss–Legendre on each of the panels
/// between the distribution's quantiles `4^{-20}, …, 1/4, 1/2, 3/4, …,
/// 1 − 4^{-20}` (and from 0), weights `w_k` the Legendre weights times the
/// density. The panels are graded towards both ends, so neither the
/// density's behaviour at 0 (`η^{shape−1}`) nor an integrand that varies
/// on a scale other than the prior's (a Gauss–Laguerre rule converges
/// slowly when `f` has poles near the real axis) spoils it; the mass above
/// the last quantile, `4^{-20} ≈ 9·10^{-13}`, is left out. `shape ≥ 1`,
/// `rate > 0`.
pub fn gamma_expectation_rule(shape: f64, rate: f64) -> (Vec<f64>, Vec<f64>) {
    use statrs::distribution::{Continuous, ContinuousCDF, Gamma};
    const LEVELS: i32 = 20;
    let g = Gamma::new(shape, rate).expect("a valid Gamma distribution");
    let mut probs: Vec<f64> = (1..=LEVELS).rev().map(|k| 0.25f64.powi(k)).collect();
    probs.push(0.5);
    probs.extend((1..=LEVELS).map(|k| 1.0 - 0.25f64.powi(k)));
    let mut cuts = vec![0.0];
    cuts.extend(probs.iter().map(|&p| g.inverse_cdf(p)));
    let (x, w) = gauss_legendre(8);
    let mut nodes = Vec::with_capacity(8 * (cuts.len() - 1));
    let mut weights = Vec::with_capacity(nodes.capacity());
    for c in cuts.windows(2) {
        let (mid, half) = (0.5 * (c[0] + c[1]), 0.5 * (c[1] - c[0]));
        if half <= 0.0 {
            continue;
        }
        for (xi, wi) in x.iter().zip(&w) {
            let eta = mid + half * xi;
            nodes.push(eta);
            weights.push(wi * half * g.pdf(eta));
        }
    }
    (nodes, weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::function::gamma::ln_gamma;

    /// `E η^p` under Gamma(shape, rate), exactly: Γ(shape + p) / (Γ(shape) rate^p).
    fn moment(shape: f64, rate: f64, p: i32) -> f64 {
        (ln_gamma(shape + p as f64) - ln_gamma(shape) - p as f64 * rate.ln()).exp()
    }

    #[test]
    fn the_gamma_rule_integrates_moments_up_to_its_last_quantile() {
        use statrs::distribution::{ContinuousCDF, Gamma};
        for (shape, rate) in [
            (1.0, 1.0),
            (10.0, 10.0),
            (2.0, 0.5),
            (100.0, 100.0),
            (1.5, 7.0),
        ] {
            let (x, w) = gamma_expectation_rule(shape, rate);
            // The rule stops at the quantile 1 − 4^{-20}: E[η^p; η ≤ q] =
            // E η^p · P(Gamma(shape + p, rate) ≤ q), exactly.
            let q = Gamma::new(shape, rate)
                .unwrap()
                .inverse_cdf(1.0 - 0.25f64.powi(20));
            for p in 0..=8 {
                let rule: f64 = x.iter().zip(&w).map(|(x, w)| w * x.powi(p)).sum();
                let exact =
                    moment(shape, rate, p) * Gamma::new(shape + p as f64, rate).unwrap().cdf(q);
                assert!(
                    (rule - exact).abs() <= 1e-12 * exact,
                    "Gamma({shape}, {rate}), E η^{p}: {rule} against {exact}"
                );
            }
            let mass: f64 = w.iter().sum();
            // 4^{-20} = 9.1e-13 left out above the last quantile.
            assert!((mass - 1.0).abs() < 2e-12, "mass {mass}");
        }
    }

    #[test]
    fn the_gamma_rule_matches_simpson_on_a_smooth_function() {
        // E[1 / (1 + e^{2 − 3η})] under Gamma(4, 2), against composite
        // Simpson on [0, 40] (the density is below 1e-25 beyond).
        let (shape, rate) = (4.0_f64, 2.0_f64);
        let f = |eta: f64| 1.0 / (1.0 + (2.0 - 3.0 * eta).exp());
        let density = |eta: f64| {
            if eta <= 0.0 {
                0.0
            } else {
                (shape * rate.ln() + (shape - 1.0) * eta.ln() - rate * eta - ln_gamma(shape)).exp()
            }
        };
        let n = 200_000;
        let h = 40.0 / n as f64;
        let mut s = 0.0;
        for k in 0..=n {
            let c = if k == 0 || k == n {
                1.0
            } else if k % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let eta = k as f64 * h;
            s += c * f(eta) * density(eta);
        }
        let reference = s * h / 3.0;
        // The logistic has poles at η = (2 ± iπ)/3, near the real axis.
        let (x, w) = gamma_expectation_rule(shape, rate);
        let q: f64 = x.iter().zip(&w).map(|(x, w)| w * f(*x)).sum();
        assert!((q - reference).abs() < 1e-11, "{q} against {reference}");
    }
}
