//! Principal components of each modality's features, whitened: the
//! dimension reduction that mean-field vMMIC needs on wide features.
//!
//! Why: under q(β) the expected cost of making an instance primary
//! includes the variance of its contribution, `x_ijᵀ V_β x_ij`, which grows
//! with the number of features. When the bags cannot pin down β (Musk 1:
//! 92 bags, 166 features) that cost exceeds every gain and VB settles where
//! no instance is primary (docs/mil.md). Reducing each modality to its
//! leading principal components, as Hu 2024 §2.4 reduces image and text
//! embeddings before vMMIC, removes the failure. The components are fitted
//! on the training bags only (z-scores, then the eigenvectors of their
//! covariance), scaled to unit training variance, signed so that each
//! component's largest loading is positive (a deterministic output), and
//! kept in the model file so that new bags are projected alike.

use super::bags::{Bags, Scaling};
use crate::error::{Error, Result};
use crate::numerics::linalg::symmetric_eigen;
use nalgebra::DMatrix;

/// A fitted projection of each modality's features onto its leading
/// principal components.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Components {
    /// The input feature names of each modality (what new bags must have).
    pub input_names: [Vec<String>; 2],
    /// The z-scores applied before projecting.
    pub scaling: Scaling,
    /// Per modality: one row per component, `v_k / √λ_k` over the
    /// z-scored inputs.
    pub loadings: [Vec<Vec<f64>>; 2],
    /// Per modality: the share of the z-scored features' total variance
    /// the components keep.
    pub explained: [f64; 2],
}

impl Components {
    /// Fit on `bags`: each modality present keeps `min(k, d, n − 1)`
    /// components (`n` its instances).
    pub fn fit(bags: &Bags, k: usize) -> Result<Components> {
        if k == 0 {
            return Err(Error::param("components", "need at least one"));
        }
        let scaling = bags.scaling();
        let z = bags.scaled(&scaling)?;
        let counts = bags.counts();
        let mut loadings = [Vec::new(), Vec::new()];
        let mut explained = [0.0; 2];
        for m in 0..2u8 {
            let (d, n) = (bags.width(m), counts[m as usize]);
            if d == 0 || n == 0 {
                continue;
            }
            let mut cov = DMatrix::<f64>::zeros(d, d);
            for j in (0..z.n_instances()).filter(|&j| z.modality[j] == m) {
                let x = z.features(j);
                for c in 0..d {
                    for r in c..d {
                        cov[(r, c)] += x[r] * x[c];
                    }
                }
            }
            cov /= (n.max(2) - 1) as f64;
            let eig = symmetric_eigen(&cov).ok_or_else(|| {
                Error::Data(format!(
                    "modality {m}: the principal components did not converge"
                ))
            })?;
            let total: f64 = eig.eigenvalues.iter().map(|l| l.max(0.0)).sum();
            let top = eig.eigenvalues[d - 1];
            let keep = k.min(d).min(n.saturating_sub(1).max(1));
            for c in (0..d).rev().take(keep) {
                let l = eig.eigenvalues[c];
                // Whitening a direction without variance would divide by
                // rounding noise.
                if l.is_nan() || l <= 1e-10 * top.max(f64::MIN_POSITIVE) {
                    break;
                }
                let v = eig.eigenvectors.column(c);
                let big = v
                    .iter()
                    .copied()
                    .fold(0.0_f64, |a, x| if x.abs() > a.abs() { x } else { a });
                let sign = if big < 0.0 { -1.0 } else { 1.0 };
                loadings[m as usize].push(v.iter().map(|x| sign * x / l.sqrt()).collect());
                explained[m as usize] += l / total;
            }
        }
        Ok(Components {
            input_names: bags.feature_names.clone(),
            scaling,
            loadings,
            explained,
        })
    }

    /// The component names of modality `m`: `pc1`, `pc2`, …
    pub fn names(&self, m: usize) -> Vec<String> {
        (1..=self.loadings[m].len())
            .map(|k| format!("pc{k}"))
            .collect()
    }

    /// `bags` with each instance's features replaced by its component
    /// scores (labels, rows and the truth of δ kept).
    pub fn apply(&self, bags: &Bags) -> Result<Bags> {
        for m in 0..2u8 {
            let want = self.input_names[m as usize].len();
            if bags.counts()[m as usize] > 0 && bags.width(m) != want {
                return Err(Error::Data(format!(
                    "modality {m} has {} features, the projection {want}",
                    bags.width(m)
                )));
            }
        }
        let mut out = Bags::new([self.names(0), self.names(1)]);
        let mut z = Vec::new();
        for bag in &bags.bags {
            let instances = (bag.start..bag.end)
                .map(|j| {
                    let m = bags.modality[j] as usize;
                    // z-scores, then the loadings: one pass, no scaled copy.
                    z.clear();
                    z.extend(
                        bags.features(j)
                            .iter()
                            .zip(&self.scaling.mean[m])
                            .zip(&self.scaling.sd[m])
                            .map(|((x, a), sd)| (x - a) / sd),
                    );
                    let f = self.loadings[m]
                        .iter()
                        .map(|w| w.iter().zip(&z).map(|(a, b)| a * b).sum())
                        .collect();
                    (m as u8, f, bags.row[j], bags.primary.as_ref().map(|p| p[j]))
                })
                .collect();
            out.push_bag_as_given(bag.name.clone(), bag.label, instances)?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mil::simulate::{MilDesign, simulate_bags};

    #[test]
    fn components_are_uncorrelated_with_unit_variance_on_the_training_bags() {
        let bags = simulate_bags(
            &MilDesign {
                bags: 40,
                instances: 6,
                ..Default::default()
            },
            3,
        )
        .unwrap();
        let c = Components::fit(&bags, 4).unwrap();
        let p = c.apply(&bags).unwrap();
        assert_eq!(p.feature_names[0], ["pc1", "pc2", "pc3", "pc4"]);
        for m in 0..2u8 {
            let rows: Vec<&[f64]> = (0..p.n_instances())
                .filter(|&j| p.modality[j] == m)
                .map(|j| p.features(j))
                .collect();
            let n = rows.len() as f64;
            for a in 0..4 {
                for b in 0..4 {
                    let s: f64 = rows.iter().map(|r| r[a] * r[b]).sum::<f64>() / (n - 1.0);
                    let want = if a == b { 1.0 } else { 0.0 };
                    assert!((s - want).abs() < 1e-9, "modality {m} ({a},{b}): {s}");
                }
            }
            assert!(c.explained[m as usize] > 0.0 && c.explained[m as usize] < 1.0);
        }
        // Labels, rows and the truth of δ survive.
        assert_eq!(p.row, bags.row);
        assert_eq!(p.primary, bags.primary);
        assert_eq!(
            p.bags.iter().map(|b| b.label).collect::<Vec<_>>(),
            bags.bags.iter().map(|b| b.label).collect::<Vec<_>>()
        );
    }

    #[test]
    fn more_components_than_features_keeps_them_all() {
        let bags = simulate_bags(
            &MilDesign {
                bags: 30,
                instances: 5,
                ..Default::default()
            },
            4,
        )
        .unwrap();
        let c = Components::fit(&bags, 1000).unwrap();
        assert_eq!(c.loadings[0].len(), bags.width(0));
        assert!((c.explained[0] - 1.0).abs() < 1e-9);
        assert!(Components::fit(&bags, 0).is_err());
    }
}
