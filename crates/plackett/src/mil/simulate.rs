//! The data-generating process of Hu 2024's simulation study (§2.3):
//! modality `w_ij ~ Bernoulli(1/(r + 1))`, `x_ij ~ N(0, I₁₆)`,
//! `z_ij ~ N(−1, I₁₆)`, `β = (−1⁸, 1⁸)`, `γ = (−0.5⁸, 0.5⁸)`, `b = 1¹⁶`,
//! `d = (−0.5⁸, 0.5⁸)`, primary indicators `δ_ij ~ Bernoulli(Φ(ν_ij))` and
//! labels `y_i ~ Bernoulli(Φ(α + Σ_j δ_ij η_ij))`.
//!
//! The dissertation gives the linear predictors as "probabilities"; the
//! probit reading is the model's own (and MICProB's public generator,
//! Xiong et al. 2024, uses `pnorm` at both levels). It does not give the
//! split of coefficient signs (we take eight of each) nor the bag
//! intercept α (we take MICProB's 0.5). The instance intercepts are set
//! from the target mean proportions of primary instances:
//! `a = √(1 + ‖b‖²) Φ⁻¹(PPI̅₀) = √17 Φ⁻¹(PPI̅₀)` and
//! `c = √(1 + ‖d‖²) Φ⁻¹(PPI̅₁) = √5 Φ⁻¹(PPI̅₁)` (z·d has mean 0 because the
//! entries of d sum to 0).

use super::bags::Bags;
use super::params::Layout;
use crate::error::{Error, Result};
use crate::numerics::probit::norm_cdf;
use crate::numerics::special::normal_quantile;
use crate::sampling::rng::stream;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

/// A simulation design (defaults: the basic setting of Hu 2024, §2.3).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MilDesign {
    /// Bags.
    pub bags: usize,
    /// Instances per bag.
    pub instances: usize,
    /// Modality ratio r (about r modality-0 instances per modality-1 one).
    pub ratio: f64,
    /// Mean proportion of primary instances in modality 0.
    pub ppi0: f64,
    /// Mean proportion of primary instances in modality 1.
    pub ppi1: f64,
    /// Features per modality (16 in the dissertation).
    pub features: usize,
    /// Bag intercept α.
    pub alpha: f64,
}

impl Default for MilDesign {
    fn default() -> Self {
        MilDesign {
            bags: 500,
            instances: 20,
            ratio: 4.0,
            ppi0: 0.35,
            ppi1: 0.35,
            features: 16,
            alpha: 0.5,
        }
    }
}

impl MilDesign {
    fn check(&self) -> Result<()> {
        if self.bags == 0 || self.bags > 10_000_000 {
            return Err(Error::param("bags", "between 1 and 10,000,000"));
        }
        if self.instances == 0 || self.instances > 100_000 {
            return Err(Error::param("instances", "between 1 and 100,000"));
        }
        if self.bags.saturating_mul(self.instances) > 50_000_000 {
            return Err(Error::param("bags", "bags × instances above 50,000,000"));
        }
        if !(self.ratio.is_finite() && self.ratio >= 0.0 && self.ratio <= 1e6) {
            return Err(Error::param("ratio", "must be between 0 and 1e6"));
        }
        for (n, p) in [("ppi0", self.ppi0), ("ppi1", self.ppi1)] {
            if !(p > 0.0 && p < 1.0) {
                return Err(Error::param(n, format!("a proportion in (0, 1), got {p}")));
            }
        }
        if self.features == 0 || self.features > 10_000 {
            return Err(Error::param("features", "between 1 and 10,000"));
        }
        if !self.alpha.is_finite() || self.alpha.abs() > 1e6 {
            return Err(Error::param("alpha", "must be finite"));
        }
        Ok(())
    }

    /// The true θ = (α, β, γ, a, b, c, d) of this design.
    pub fn truth(&self) -> Vec<f64> {
        let f = self.features;
        let half = |lo: f64, hi: f64| -> Vec<f64> {
            (0..f).map(|k| if k < f / 2 { lo } else { hi }).collect()
        };
        let (beta, gamma, b, d) = (
            half(-1.0, 1.0),
            half(-0.5, 0.5),
            vec![1.0; f],
            half(-0.5, 0.5),
        );
        let nb: f64 = b.iter().map(|v| v * v).sum();
        let nd: f64 = d.iter().map(|v| v * v).sum();
        let d_mean: f64 = -d.iter().sum::<f64>();
        let a = (1.0 + nb).sqrt() * normal_quantile(self.ppi0);
        // E[z·d] = −Σd (z has mean −1); zero for the balanced d.
        let c = (1.0 + nd).sqrt() * normal_quantile(self.ppi1) - d_mean;
        let mut t = vec![self.alpha];
        t.extend(&beta);
        t.extend(&gamma);
        t.push(a);
        t.extend(&b);
        t.push(c);
        t.extend(&d);
        t
    }
}

/// A small two-modality data set for unit tests: `bags` bags of 5
/// instances, 3 features per modality, twice as many instances of modality
/// 0 as of modality 1.
#[cfg(test)]
pub(crate) fn small_bags(bags: usize, seed: u64) -> Bags {
    let design = MilDesign {
        bags,
        instances: 5,
        ratio: 2.0,
        features: 3,
        ..MilDesign::default()
    };
    simulate_bags(&design, seed).expect("simulate")
}

/// Simulate `design` with `seed` (bag `i` uses its own random stream, so
/// the first `n` bags are the same whatever the total).
pub fn simulate_bags(design: &MilDesign, seed: u64) -> Result<Bags> {
    design.check()?;
    simulate_with(design, &design.truth(), seed)
}

/// Simulate bags of `design`'s shape (bags, instances, ratio, features)
/// from the model with parameters `theta` (layout for `design.features`
/// features in each modality) instead of the design's own.
pub fn simulate_with(design: &MilDesign, theta: &[f64], seed: u64) -> Result<Bags> {
    design.check()?;
    let f = design.features;
    let layout = Layout { d0: f, d1: f };
    if theta.len() != layout.len() {
        return Err(Error::Data(format!(
            "θ has {} entries, the layout needs {}",
            theta.len(),
            layout.len()
        )));
    }
    let names: Vec<String> = (1..=f).map(|k| format!("f{k}")).collect();
    let mut bags = Bags::new([names.clone(), names]);
    let p1 = 1.0 / (design.ratio + 1.0);
    let mut row = 0;
    for i in 0..design.bags {
        let mut rng = stream(seed, &[0x4d49_4c53, i as u64]);
        let mut inst = Vec::with_capacity(design.instances);
        let mut lin = theta[layout.alpha()];
        for _ in 0..design.instances {
            let m: u8 = u8::from(rng.random::<f64>() < p1);
            let shift = if m == 0 { 0.0 } else { -1.0 };
            let x: Vec<f64> = (0..f)
                .map(|_| {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    shift + z
                })
                .collect();
            let dot = |r: std::ops::Range<usize>| -> f64 {
                x.iter().zip(&theta[r]).map(|(a, b)| a * b).sum()
            };
            let nu = theta[layout.inst_intercept(m)] + dot(layout.inst_slopes(m));
            let delta = rng.random::<f64>() < norm_cdf(nu);
            if delta {
                lin += dot(layout.bag_slopes(m));
            }
            inst.push((m, x, row, Some(delta)));
            row += 1;
        }
        let y = rng.random::<f64>() < norm_cdf(lin);
        bags.push_bag(format!("bag{}", i + 1), Some(y), inst)?;
    }
    Ok(bags)
}
