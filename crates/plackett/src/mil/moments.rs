//! A method-of-moments starting point for vMMIC's instance level.
//!
//! Which instances are primary is decided by the instance-level
//! regressions `ν = a + x b` (and `c + z d`), and it is their *direction*
//! that coordinate ascent from the prior means gets wrong on Hu 2024
//! §2.3's design: started at the true (a, b, c, d) with the bag level at
//! zero, vMMIC reaches the held-out bag AUROC of a start at all true
//! coefficients, while the true bag level with the instance level at zero
//! does worse than the default (docs/mil.md). The bag level needs no help;
//! the instance direction does.
//!
//! The direction can be read off the bag labels without fitting the
//! latent model. The bag's expected linear predictor is
//! `E[α + Σ_j δ_j η_j | x] = α + Σ_j Φ(a + x_j b) x_j β`; linearising
//! `Φ(a + x b) ≈ Φ(a) + φ(a) x b` gives
//! `α + Φ(a) s·β + φ(a) ⟨S, (bβᵀ + βbᵀ)/2⟩` with the bag's pooled moments
//! `s = Σ_j x_j` and `S = Σ_j x_j x_jᵀ`. A ridge least-squares regression
//! of the labels on `(s, vech S)` per modality therefore estimates
//! `w ∝ β` and a symmetric `W ∝ (bβᵀ + βbᵀ)/2`, from which
//! `b ∝ (2 W w − w (wᵀ W w)/|w|²)/|w|²` (the component of `b` along `β`
//! is recovered from `wᵀ W w = (b·β)|β|²`). Only the direction is used:
//! vMMIC starts with `b` of unit length along it, everything else at the
//! prior means, and finds the scales itself.

use super::bags::Bags;
use super::params::Layout;
use crate::numerics::linalg::Cholesky;
use nalgebra::{DMatrix, DVector};

/// Pooled features, both modalities together (`d + d(d+1)/2` per
/// modality: 20 features give 230), above which the start is not
/// computed: the regression would need far more bags than a study has.
/// Reduce wide features first (`--components`).
pub const MAX_POOLED: usize = 2_000;

/// Ridge on the pooled moments, relative to the mean diagonal of their
/// centred Gram matrix: enough to keep the system well posed when there
/// are fewer bags than pooled features, small enough not to flatten the
/// direction.
const RIDGE: f64 = 1e-2;

/// Pooled features of a modality of width `d`.
fn pooled(d: usize) -> usize {
    d + d * (d + 1) / 2
}

/// Pooled features of `bags` (both modalities): what [`MAX_POOLED`]
/// bounds.
pub fn pooled_features(bags: &Bags) -> usize {
    pooled(bags.width(0)) + pooled(bags.width(1))
}

/// The method-of-moments start (module docs) in [`Layout`] order, or
/// `None` when it cannot be computed: the pooled features exceed
/// [`MAX_POOLED`], a label is missing, or the labels do not vary. A
/// modality without instances keeps its prior means.
pub fn moment_start(bags: &Bags) -> Option<Vec<f64>> {
    let layout = Layout::of(bags);
    let widths = [layout.d0, layout.d1];
    let offsets = [0, pooled(widths[0])];
    let p = pooled_features(bags);
    if p == 0 || p > MAX_POOLED {
        return None;
    }
    let n = bags.n_bags();
    let y: Vec<f64> = bags
        .bags
        .iter()
        .map(|b| b.label.map(|l| f64::from(u8::from(l))))
        .collect::<Option<_>>()?;
    let mut f = DMatrix::<f64>::zeros(n, p);
    for (i, b) in bags.bags.iter().enumerate() {
        for j in b.start..b.end {
            let m = bags.modality[j] as usize;
            let x = bags.features(j);
            let d = widths[m];
            let off = offsets[m];
            for k in 0..d {
                f[(i, off + k)] += x[k];
            }
            let mut q = off + d;
            for k in 0..d {
                for l in k..d {
                    f[(i, q)] += x[k] * x[l];
                    q += 1;
                }
            }
        }
    }
    let ybar = y.iter().sum::<f64>() / n as f64;
    if ybar == 0.0 || ybar == 1.0 {
        return None;
    }
    for c in 0..p {
        let mean = f.column(c).sum() / n as f64;
        f.column_mut(c).add_scalar_mut(-mean);
    }
    let yc = DVector::from_iterator(n, y.iter().map(|v| v - ybar));
    let mut gram = f.transpose() * &f;
    let ridge = RIDGE * gram.trace() / p as f64;
    if !(ridge.is_finite() && ridge > 0.0) {
        return None;
    }
    for k in 0..p {
        gram[(k, k)] += ridge;
    }
    let w = Cholesky::new(&gram)?.solve(&(f.transpose() * yc));
    let mut start = vec![0.0; layout.len()];
    for m in 0..2u8 {
        let d = widths[m as usize];
        if d == 0 || bags.counts()[m as usize] == 0 {
            continue;
        }
        let off = offsets[m as usize];
        let beta = DVector::from_iterator(d, (0..d).map(|k| w[off + k]));
        // vech S's coefficient of x_k x_l (k < l) is 2 W_kl.
        let mut big_w = DMatrix::<f64>::zeros(d, d);
        let mut q = off + d;
        for k in 0..d {
            for l in k..d {
                let v = if k == l { w[q] } else { w[q] / 2.0 };
                big_w[(k, l)] = v;
                big_w[(l, k)] = v;
                q += 1;
            }
        }
        let nb2 = beta.norm_squared();
        if !nb2.is_finite() || nb2 == 0.0 {
            continue;
        }
        let wb = &big_w * &beta;
        let along = beta.dot(&wb) / nb2;
        let b = (wb * 2.0 - &beta * along) / nb2;
        let norm = b.norm();
        if !(norm.is_finite() && norm > 0.0) {
            continue;
        }
        for (k, idx) in layout.inst_slopes(m).enumerate() {
            start[idx] = b[k] / norm;
        }
    }
    Some(start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mil::simulate::{MilDesign, simulate_bags};

    fn cosine(a: &[f64], b: &[f64]) -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let na: f64 = a.iter().map(|v| v * v).sum::<f64>().sqrt();
        let nb: f64 = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        dot / (na * nb)
    }

    #[test]
    fn the_moments_point_along_the_true_instance_slopes() {
        // Hu 2024 §2.3's basic setting with more bags, so that the
        // regression's sampling error is small: the direction of b (the
        // majority modality) is recovered closely.
        let design = MilDesign {
            bags: 4000,
            ..MilDesign::default()
        };
        let bags = simulate_bags(&design, 3).unwrap();
        let start = moment_start(&bags).unwrap();
        let lay = Layout::of(&bags);
        let truth = design.truth();
        let cb = cosine(&start[lay.b()], &truth[lay.b()]);
        assert!(cb > 0.95, "cos(b̂, b) = {cb}");
        assert!((start[lay.b()].iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-12);
        // Only the instance slopes move.
        assert_eq!(start[lay.alpha()], 0.0);
        assert!(start[lay.beta()].iter().all(|&v| v == 0.0));
        assert_eq!(start[lay.a()], 0.0);
    }

    #[test]
    fn too_wide_or_unlabelled_data_gives_no_start() {
        let design = MilDesign {
            bags: 30,
            features: 50,
            ..MilDesign::default()
        };
        let bags = simulate_bags(&design, 1).unwrap();
        assert!(
            moment_start(&bags).is_none(),
            "2,650 pooled features > {MAX_POOLED}"
        );
        let mut small = simulate_bags(
            &MilDesign {
                bags: 30,
                ..MilDesign::default()
            },
            1,
        )
        .unwrap();
        assert!(moment_start(&small).is_some());
        small.bags[0].label = None;
        assert!(moment_start(&small).is_none());
    }
}
