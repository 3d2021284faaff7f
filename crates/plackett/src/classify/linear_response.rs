//! A linear-response covariance for the classifier's VB (Giordano,
//! Broderick & Jordan 2015), the default of `classify fit --engine vb`.
//!
//! Archambeau & Caron 2012's `q(λ) q(C) q(Z)` (§3.4) separates the weights
//! from the selectors and arrival times that couple them, so the Gamma
//! factors' own intervals are about half as wide as the exact posterior's
//! (docs/classify.md). Linear response reads the covariance off how the
//! optimum's means move when the log density is tilted by `tᵀ ln λ`:
//! `Σ_LR = dE_q[ln λ]/dt` at `t = 0`, exact for a Gaussian posterior.
//!
//! The tilt adds `t` to the shapes; everything else moves through the fixed
//! point of eqs 18–19. With `u = E ln λ = ψ(α) − ln β`, `m = E λ = α/β`:
//!
//! * `α = a + t + cnt(u)`, `∂cnt/∂u = C`, block diagonal over the classes,
//!   `C_k = Σ_{i: Y_i = k} (diag ρ_i − ρ_i ρ_iᵀ)` (the selectors' covariance);
//! * `β_kj = b + Σ_i ⟨z_i⟩ W_ij` for every class `k`, `∂β_kj/∂m_k'j' = D_jj'`
//!   with `D = −Σ_i ⟨z_i⟩² W_i W_iᵀ` (the arrival times' response), so
//!   `∂β/∂m = E = 1_K 1_Kᵀ ⊗ D`;
//! * `du = Ψ dα − B⁻¹ dβ` and `dm = B⁻¹(dα − M dβ)` (`Ψ = diag ψ'(α)`,
//!   `B = diag β`, `M = diag m`).
//!
//! Eliminating `dβ = E (B + M E)⁻¹ dα` gives `du = R dα` with
//! `R = Ψ − B⁻¹ E (B + M E)⁻¹`, and `dα = dt + C R dα`, so
//!
//! ```text
//! Σ_LR = R (I − C R)⁻¹,
//! ```
//!
//! symmetric (`R` is, by the push-through identity, and so is
//! `R (I − C R)⁻¹ = (R⁻¹ − C)⁻¹`). Mean-field's covariance is `Ψ`, the
//! first term alone. The Gamma shape `a` is held at its type-II estimate
//! (an empirical-Bayes plug-in, as the fit itself is); with a learnt,
//! very sparse shape the intervals then stay too narrow (docs/classify.md),
//! and the fit says so. Means and the free
//! energy do not change: only the covariance that the weights' intervals
//! and the predictive draws read.
//!
//! **Draws** ([`draws`]). Linear response gives the first two moments of
//! `ln λ`, not its shape, and the exact posterior's log-weights are skewed
//! to the left (skewness about −1.2 on Iris and Wine under the Gibbs
//! sampler: a long tail towards zero weight), as the log of a Gamma is. A
//! Gaussian in `ln λ` has the right sds there (a median 1.03 times the
//! sampler's) but a right tail too long, and its 95% intervals of the
//! normalised weights come out about 1.6 times the sampler's. The draws
//! therefore keep VB's own family: each `λ_kj` a Gamma whose shape is
//! widened to `ψ'(α'_kj) = Σ_LR,kk` with `E ln λ_kj = ψ(α') − ln β'`
//! unchanged, and the dependence among them a Gaussian copula with the
//! correlations of `Σ_LR` (docs/classify.md, "VB's weight intervals").

use super::data::ClassData;
use super::vb::{VbFit, expected_log, local_factors};
use crate::numerics::linalg::{Cholesky, add_gram_cols, lower_triangular_mul_cols, lu_solve_mat};
use crate::numerics::special::{digamma, inverse_trigamma, ln_gamma_quantile_of_normal, trigamma};
use nalgebra::DMatrix;
use rand::Rng;

/// Most weights (`K p`, classes × transforms) for which the
/// linear-response covariance is computed (two `K p × K p` LU inverses:
/// about a second and 100 MB at this size); above it the fit keeps the
/// mean-field covariance and says so.
pub const MAX_LINEAR_RESPONSE_WEIGHTS: usize = 2000;

/// `Σ_LR` of `ln λ` (`K p × K p`, index `k p + j`) at VB's optimum (module
/// doc). `Err` with the reason when it cannot be had: too many weights, a
/// singular system, or a result that is not positive definite.
pub fn linear_response_covariance(
    data: &ClassData,
    fit: &VbFit,
) -> std::result::Result<DMatrix<f64>, String> {
    let (p, k, n) = (data.p, data.k, data.n);
    let m = k * p;
    if m > MAX_LINEAR_RESPONSE_WEIGHTS {
        return Err(format!(
            "{m} weights (classes × transforms), more than the \
             {MAX_LINEAR_RESPONSE_WEIGHTS} the linear-response covariance is computed for"
        ));
    }
    let (alpha, beta) = (&fit.shape, &fit.rate);
    let mut rho = vec![0.0; n * p];
    let mut ez = vec![0.0; n];
    local_factors(data, alpha, beta, &mut rho, &mut ez);
    // C: the selectors' covariance, one p × p block per class,
    // `diag(Σ ρ_i) − Σ ρ_i ρ_iᵀ`; D = −Σ ⟨z_i⟩² W_i W_iᵀ: sums of rank-one
    // terms, each as one product.
    let mut blocks: Vec<DMatrix<f64>> = Vec::with_capacity(k);
    for class in 0..k {
        let rows: Vec<usize> = (0..n).filter(|&i| data.y[i] == class).collect();
        let z: Vec<f64> = rows
            .iter()
            .flat_map(|&i| rho[i * p..(i + 1) * p].iter().copied())
            .collect();
        let mut gram = vec![0.0; p * p];
        if !z.is_empty() {
            add_gram_cols(&z, p, &mut gram);
        }
        let mut block = -DMatrix::from_column_slice(p, p, &gram);
        for &i in &rows {
            for j in 0..p {
                block[(j, j)] += rho[i * p + j];
            }
        }
        blocks.push(block);
    }
    let zw: Vec<f64> = (0..n)
        .flat_map(|i| {
            let z = ez[i];
            data.row(i).iter().map(move |w| z * w)
        })
        .collect();
    let mut gram = vec![0.0; p * p];
    add_gram_cols(&zw, p, &mut gram);
    let d = -DMatrix::from_column_slice(p, p, &gram);
    let mean: Vec<f64> = alpha.iter().zip(beta).map(|(a, b)| a / b).collect();
    let singular = || "the linear-response system is singular".to_string();
    // E (B + M E)⁻¹ = Yᵀ with (B + E M) Y = E (E symmetric, B and M
    // diagonal): one factorisation and a solve, no inverse.
    let e = DMatrix::from_fn(m, m, |q, r| d[(q % p, r % p)]);
    let bem = DMatrix::from_fn(m, m, |q, r| {
        e[(q, r)] * mean[r] + if q == r { beta[q] } else { 0.0 }
    });
    let y = lu_solve_mat(&bem, &e).ok_or_else(singular)?;
    // R = Ψ − B⁻¹ Yᵀ.
    let rm = DMatrix::from_fn(m, m, |q, r| {
        -y[(r, q)] / beta[q] + if q == r { trigamma(alpha[q]) } else { 0.0 }
    });
    // Σ = R (I − C R)⁻¹ = (I − R C)⁻¹ R, with R C over C's diagonal
    // blocks only (K blocks of p × p, not a dense K p × K p product).
    let mut a = DMatrix::<f64>::identity(m, m);
    for (class, block) in blocks.iter().enumerate() {
        let prod = rm.columns(class * p, p) * block;
        let mut dst = a.columns_mut(class * p, p);
        dst -= prod;
    }
    let sigma = lu_solve_mat(&a, &rm).ok_or_else(singular)?;
    // Symmetric in exact arithmetic; average away the rounding.
    let sigma = (&sigma + sigma.transpose()) * 0.5;
    if Cholesky::new(&sigma).is_none() {
        return Err("the linear-response covariance is not positive definite".into());
    }
    Ok(sigma)
}

/// `n` draws of the normalised weights `λ/Σλ` (each `K p`, row-major)
/// from the linear-response posterior (module doc: Gamma marginals with
/// `Σ_LR`'s log-variances about VB's `E ln λ`, a Gaussian copula with its
/// correlations). `None` if `cov` is not a positive-definite `K p × K p`
/// matrix. The bits depend on `rng` alone, not on the thread count.
pub fn draws<R: Rng>(
    shape: &[f64],
    rate: &[f64],
    cov: &DMatrix<f64>,
    n: usize,
    rng: &mut R,
) -> Option<Vec<Vec<f64>>> {
    use rand_distr::{Distribution, StandardNormal};
    use rayon::prelude::*;
    let m = shape.len();
    if m == 0 || cov.nrows() != m || cov.ncols() != m || rate.len() != m {
        return None;
    }
    let sd: Vec<f64> = (0..m).map(|q| cov[(q, q)].sqrt()).collect();
    let corr = DMatrix::from_fn(m, m, |q, r| cov[(q, r)] / (sd[q] * sd[r]));
    let l = Cholesky::new(&corr)?.l();
    // The widened marginals: ψ'(α') = Σ_qq, ψ(α') − ln β' = ψ(α) − ln β.
    let mean = expected_log(shape, rate);
    let marginals: Vec<(f64, f64)> = (0..m)
        .map(|q| {
            let a = inverse_trigamma(sd[q] * sd[q]);
            (a, digamma(a) - mean[q])
        })
        .collect();
    if marginals
        .iter()
        .any(|(a, b)| !(a.is_finite() && *a > 0.0 && b.is_finite()))
    {
        return None;
    }
    let z: Vec<f64> = (0..n * m).map(|_| StandardNormal.sample(rng)).collect();
    let mut x = vec![0.0; z.len()];
    lower_triangular_mul_cols(&l, &z, &mut x);
    let out: Vec<Vec<f64>> = x
        .par_chunks(m)
        .map(|d| {
            // Each correlated normal through Φ to its Gamma quantile, in
            // log space (held within ±8 sds, a chance of 10⁻¹⁵, where the
            // quantile is tested).
            let ln: Vec<f64> = d
                .iter()
                .zip(&marginals)
                .map(|(&v, &(a, ln_b))| ln_gamma_quantile_of_normal(a, v.clamp(-8.0, 8.0)) - ln_b)
                .collect();
            let t = crate::numerics::log_sum_exp(&ln);
            ln.iter().map(|v| (v - t).exp()).collect()
        })
        .collect();
    out.iter()
        .all(|w| w.iter().all(|v| v.is_finite()))
        .then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::vb::{ClassifierVbOptions, vb_tilted};
    use crate::numerics::fixed_point::IterSettings;
    use rand::{RngExt, SeedableRng};

    /// A small problem from the model: `K = 3` classes, 2 features as the
    /// transforms `exp(±x)` and an offset (`p = 5`), 90 rows.
    fn small(seed: u64) -> ClassData {
        let (k, d, n) = (3, 2, 90);
        let p = 2 * d + 1;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let lam: Vec<f64> = (0..k * p).map(|_| rng.random::<f64>() + 0.05).collect();
        let mut w = Vec::with_capacity(n * p);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let x: Vec<f64> = (0..d).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
            let row: Vec<f64> = x
                .iter()
                .flat_map(|v| [v.exp(), (-v).exp()])
                .chain(std::iter::once(1.0))
                .collect();
            let s: Vec<f64> = (0..k)
                .map(|c| (0..p).map(|j| row[j] * lam[c * p + j]).sum())
                .collect();
            let u = rng.random::<f64>() * s.iter().sum::<f64>();
            let (mut acc, mut cls) = (0.0, k - 1);
            for (c, v) in s.iter().enumerate() {
                acc += v;
                if u < acc {
                    cls = c;
                    break;
                }
            }
            w.extend(row);
            y.push(cls);
        }
        ClassData { w, n, p, y, k }
    }

    /// The defining property of linear response: tilting `ln p` by
    /// `h e_q ᵀ ln λ` and re-running VB moves `E ln λ` by `h Σ_LR e_q` to
    /// first order. Central differences against the closed form, every
    /// column, with `a` held (the fit's own, type-II estimate).
    #[test]
    fn the_closed_form_equals_the_tilted_fits_response() {
        for seed in [1, 2] {
            let data = small(seed);
            let learnt = vb_tilted(&data, &ClassifierVbOptions::default(), None).unwrap();
            let opts = ClassifierVbOptions {
                a: learnt.a,
                learn_a: false,
                iter: IterSettings::new(1e-16, 200_000),
                ..ClassifierVbOptions::default()
            };
            let base = vb_tilted(&data, &opts, None).unwrap();
            let sigma = linear_response_covariance(&data, &base).unwrap();
            let m = data.k * data.p;
            let h = 1e-5;
            let mut worst: f64 = 0.0;
            for q in 0..m {
                let mut t = vec![0.0; m];
                t[q] = h;
                let up = vb_tilted(&data, &opts, Some(&t))
                    .unwrap()
                    .mean_log_weights();
                t[q] = -h;
                let down = vb_tilted(&data, &opts, Some(&t))
                    .unwrap()
                    .mean_log_weights();
                for r in 0..m {
                    let fd = (up[r] - down[r]) / (2.0 * h);
                    let rel = (fd - sigma[(r, q)]).abs() / sigma[(q, q)].sqrt().max(1e-300);
                    worst = worst.max(rel / sigma[(r, r)].sqrt());
                }
            }
            eprintln!("seed {seed}: worst |FD − Σ_LR| / (sd_q sd_r) = {worst:.2e}");
            assert!(worst < 1e-6, "seed {seed}: {worst}");
            // And wider than mean-field's on the diagonal.
            let wider = (0..m)
                .filter(|&q| sigma[(q, q)] > trigamma(base.shape[q]))
                .count();
            eprintln!("seed {seed}: {wider} of {m} variances above mean-field's");
        }
    }
}
