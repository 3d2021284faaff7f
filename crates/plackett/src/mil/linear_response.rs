//! A linear-response covariance for vMMIC's instance level (Giordano,
//! Broderick & Jordan 2015), `--covariance linear-response`.
//!
//! Mean-field vMMIC gives the instance-level coefficients `(a, b)` (and
//! `(c, d)`) the covariance of a probit regression whose latent `U_ij`
//! were all observed: `q(b)`'s precision is `Σ_j x_ij x_ijᵀ` plus the
//! prior, so its sds shrink like one over the square root of the number of
//! instances although which instances are primary is known only through
//! the bag labels. Against the Gibbs sampler they are 20–30 times too small
//! on Hu 2024's basic setting (docs/mil.md).
//!
//! Linear response corrects a mean-field covariance by how the optimum's
//! means move when the log density is tilted, `Σ_LR = (I − V H)⁻¹ V`
//! (`V` the factors' covariances, `H` the Hessian of `E_q[ln p]` in the
//! factors' means). For one modality's inner regression, with the bag
//! level and each instance's bag-level evidence `Δ_ij` held where vMMIC
//! left them, the local factors are
//! `q(U_ij) ∝ φ(U − μ_ij)[e^{Δ_ij}1(U > 0) + 1(U ≤ 0)]` with
//! `μ_ij = E[a] + x_ij E[b]`; `∂E[U_ij]/∂μ_ij = Var_q(U_ij)`, and
//! eliminating them leaves the joint precision of `(a, b)`
//!
//! `P_LR = Σ_j (1 − Var_q U_ij) z_ij z_ijᵀ + P₀`,  `z_ij = (1, x_ij)`,
//!
//! where mean-field has `Σ_j z_ij z_ijᵀ + P₀`. `1 − Var_q U = E[U](E[U] − μ)`
//! is the observed information of a probit observation with a soft label
//! (with a known label it is the probit's own `φ(μ)/Φ(μ) · (μ + φ(μ)/Φ(μ))`):
//! an instance far from its decision boundary, or one whose primary status
//! the bag labels leave open, carries little. A weight can be negative
//! (where the bag-level evidence and `μ` pull apart, `Var_q U > 1`); when
//! the sum is not positive definite the modality keeps its mean-field
//! covariance and the fit says so.
//!
//! What is held fixed is the coupling through the bag level (`Δ_ij` moves
//! with the instance level in the full linear response); the correction is
//! the instance level's own. It changes no mean and no ELBO: only the
//! instance-level covariances that predictions and summaries read.

use super::bags::Bags;
use super::params::{MilPriors, predictors};
use super::vb::{A, B, C, D, VbFit};
use crate::numerics::linalg::Cholesky;
use crate::numerics::probit::truncated_mean;
use nalgebra::{DMatrix, DVector};

pub use crate::sampling::linear_response::VbCovariance;

/// One modality's linear-response precision of `(intercept, slopes)`, or
/// `None` if the modality has no instances.
pub fn precision(
    fit: &VbFit,
    bags: &Bags,
    priors: MilPriors,
    modality: u8,
) -> Option<DMatrix<f64>> {
    let d = fit.layout.inst_slopes(modality).len();
    let mut p = DMatrix::<f64>::zeros(d + 1, d + 1);
    let mut any = false;
    let mut z = DVector::<f64>::zeros(d + 1);
    z[0] = 1.0;
    for j in (0..bags.n_instances()).filter(|&j| bags.modality[j] == modality) {
        any = true;
        let x = bags.features(j);
        z.rows_mut(1, d).copy_from_slice(x);
        let mu = predictors(bags, &fit.layout, &fit.mean, j).1;
        // q(U) is E[δ]·N(μ, 1) truncated above 0 plus the rest truncated
        // below: its mean from the two pieces' (exact, whatever Δ was).
        let e = fit.primary[j];
        let eu = e * truncated_mean(mu, true) + (1.0 - e) * truncated_mean(mu, false);
        let w = eu * (eu - mu);
        p.ger(w, &z, &z, 1.0);
    }
    any.then(|| p + priors.precision(d))
}

/// `fit` with each modality's instance-level covariance blocks (a, b or
/// c, d) replaced by the marginal blocks of its linear-response covariance,
/// and the modalities whose linear-response precision was not positive
/// definite (kept mean-field).
pub fn apply(fit: &VbFit, bags: &Bags, priors: MilPriors) -> (VbFit, Vec<u8>) {
    let mut out = fit.clone();
    let mut kept = Vec::new();
    for (m, ia, ib) in [(0u8, A, B), (1, C, D)] {
        let Some(p) = precision(fit, bags, priors, m) else {
            continue;
        };
        match Cholesky::new(&p) {
            Some(ch) => {
                let cov = ch.inverse();
                let d = cov.nrows() - 1;
                out.blocks[ia] = DMatrix::from_element(1, 1, cov[(0, 0)]);
                out.blocks[ib] = cov.view((1, 1), (d, d)).into_owned();
            }
            None => kept.push(m),
        }
    }
    (out, kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mil::{Layout, MilDesign, VbOptions, fit_vb, simulate_bags};
    use crate::numerics::probit::{ln_norm_cdf, norm_cdf};

    /// Simulated bags of Hu 2024's design, small: 3 features per modality.
    fn small(bags: usize, instances: usize, seed: u64) -> Bags {
        let design = MilDesign {
            bags,
            instances,
            features: 3,
            ..MilDesign::default()
        };
        simulate_bags(&design, seed).unwrap()
    }

    /// The defining property of linear response: tilting `ln p` by `t θ_k`
    /// and re-solving the instance level's fixed point (bag level and Δ
    /// held) moves the means by `t Σ_LR e_k` to first order. Checked by
    /// central differences against the closed form, for every coordinate of
    /// (a, b).
    #[test]
    fn the_closed_form_equals_the_tilted_fixed_points_response() {
        let bags = small(60, 5, 3);
        let priors = MilPriors::default();
        let fit = fit_vb(
            &bags,
            &VbOptions {
                tol: 1e-9,
                ..VbOptions::default()
            },
        )
        .unwrap();
        let lay: Layout = fit.layout;
        let (ia, sl) = (lay.a(), lay.b());
        let d = sl.len();
        let inst: Vec<usize> = (0..bags.n_instances())
            .filter(|&j| bags.modality[j] == 0)
            .collect();
        let zs: Vec<DVector<f64>> = inst
            .iter()
            .map(|&j| {
                DVector::from_iterator(
                    d + 1,
                    std::iter::once(1.0).chain(bags.features(j).iter().copied()),
                )
            })
            .collect();
        let m0 = DVector::from_iterator(
            d + 1,
            std::iter::once(fit.mean[ia]).chain(sl.clone().map(|k| fit.mean[k])),
        );
        // Δ of every instance, recovered from E[δ] = e^Δ Φ(μ) / Z at the optimum.
        let deltas: Vec<f64> = inst
            .iter()
            .zip(&zs)
            .map(|(&j, z)| {
                let mu = z.dot(&m0);
                let e = fit.primary[j];
                (e / (1.0 - e)).ln() - ln_norm_cdf(mu) + ln_norm_cdf(-mu)
            })
            .collect();
        let eu = |mu: f64, delta: f64| -> f64 {
            if delta.is_infinite() {
                return truncated_mean(mu, delta > 0.0);
            }
            let c = delta.exp() * norm_cdf(mu);
            let e = c / (c + norm_cdf(-mu));
            e * truncated_mean(mu, true) + (1.0 - e) * truncated_mean(mu, false)
        };
        // Mean-field precision of (a, b) taken jointly (their fixed point is
        // the same as the separate factors' alternation).
        let mut p0 = priors.precision(d);
        for z in &zs {
            p0 += z * z.transpose();
        }
        let ch0 = Cholesky::new(&p0).unwrap();
        let solve = |tilt: &DVector<f64>| -> DVector<f64> {
            let mut m = m0.clone();
            for _ in 0..20_000 {
                let mut rhs = tilt.clone();
                for (z, &dl) in zs.iter().zip(&deltas) {
                    rhs += z * eu(z.dot(&m), dl);
                }
                let next = ch0.solve(&rhs);
                let moved = (&next - &m).amax();
                m = next;
                if moved < 1e-14 {
                    break;
                }
            }
            m
        };
        let base = solve(&DVector::zeros(d + 1));
        let lr = Cholesky::new(&precision(&fit, &bags, priors, 0).unwrap())
            .unwrap()
            .inverse();
        let h = 1e-4;
        for k in 0..=d {
            let mut t = DVector::zeros(d + 1);
            t[k] = h;
            let up = solve(&t);
            let down = solve(&(-t));
            let col = (up - down) / (2.0 * h);
            for i in 0..=d {
                let (got, want) = (col[i], lr[(i, k)]);
                assert!(
                    (got - want).abs() <= 1e-4 * want.abs().max(lr[(i, i)].abs()),
                    "Σ_LR[{i},{k}]: tilted response {got}, closed form {want}"
                );
            }
        }
        // The base point is the fit's own (the fixed point held).
        assert!((&base - &m0).amax() < 1e-3, "{}", (&base - &m0).amax());
    }

    /// Where the instances' information is negative enough that the
    /// corrected precision is not positive definite, the modality keeps its
    /// mean-field blocks and is reported: here every instance is left
    /// undecided (`E[δ] = ½`) under long instance slopes, so that
    /// `Var_q U > 1` for nearly all of them.
    #[test]
    fn a_precision_that_is_not_positive_definite_keeps_mean_field() {
        let bags = small(40, 4, 5);
        let priors = MilPriors::default();
        let fit = fit_vb(&bags, &VbOptions::default()).unwrap();
        let (good, kept) = apply(&fit, &bags, priors);
        assert!(kept.is_empty(), "{kept:?}");
        assert!(good.blocks[4][(0, 0)] > fit.blocks[4][(0, 0)]);
        let mut odd = fit.clone();
        odd.primary.iter_mut().for_each(|e| *e = 0.5);
        for k in odd.layout.b().chain(odd.layout.d()) {
            odd.mean[k] = 10.0 * odd.mean[k].signum().max(0.5);
        }
        assert!(Cholesky::new(&precision(&odd, &bags, priors, 0).unwrap()).is_none());
        let (out, kept) = apply(&odd, &bags, priors);
        assert!(kept.contains(&0), "{kept:?}");
        assert_eq!(out.blocks[3], odd.blocks[3]);
        assert_eq!(out.blocks[4], odd.blocks[4]);
    }
}
