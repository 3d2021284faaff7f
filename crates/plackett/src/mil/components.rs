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
            let rows: Vec<usize> = (0..z.n_instances())
                .filter(|&j| z.modality[j] == m)
                .collect();
            let (values, vectors) = principal_axes(&z, &rows, d, m)?;
            let total: f64 = values.iter().map(|l| l.max(0.0)).sum();
            let top = values.last().copied().unwrap_or(0.0);
            let keep = k.min(d).min(n.saturating_sub(1).max(1));
            for c in (0..values.len()).rev().take(keep) {
                let l = values[c];
                // Whitening a direction without variance would divide by
                // rounding noise.
                if l.is_nan() || l <= 1e-10 * top.max(f64::MIN_POSITIVE) {
                    break;
                }
                let v = vectors(c);
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

/// The eigenvalues (ascending) of the covariance of modality `m`'s scaled
/// features (instances `rows` of `z`, `d` features) and a function giving
/// the unit eigenvector of each. With more features than instances the
/// `n × n` Gram matrix `Z Zᵀ` is decomposed instead of the `d × d`
/// covariance (the same non-zero eigenvalues; eigenvectors `Zᵀu/√((n−1)λ)`),
/// so that memory grows with `n·d`, not `d²`: 12 instances of 100,000
/// features need 10 MB, not 80 GB.
#[allow(clippy::type_complexity)]
fn principal_axes<'a>(
    z: &'a Bags,
    rows: &'a [usize],
    d: usize,
    m: u8,
) -> Result<(Vec<f64>, Box<dyn Fn(usize) -> Vec<f64> + 'a>)> {
    let n = rows.len();
    let scale = (n.max(2) - 1) as f64;
    let failed = || {
        Error::Data(format!(
            "modality {m}: the principal components did not converge"
        ))
    };
    if d <= n {
        crate::numerics::memory::ensure(
            16 * (d as u128) * (d as u128),
            "components",
            &format!("the covariance of {d} features"),
            "select fewer columns",
        )?;
        let mut cov = DMatrix::<f64>::zeros(d, d);
        for &j in rows {
            let x = z.features(j);
            for c in 0..d {
                for r in c..d {
                    cov[(r, c)] += x[r] * x[c];
                }
            }
        }
        cov /= scale;
        let eig = symmetric_eigen(&cov).ok_or_else(failed)?;
        let values = eig.eigenvalues.iter().copied().collect();
        let vectors = eig.eigenvectors;
        return Ok((
            values,
            Box::new(move |c| vectors.column(c).iter().copied().collect()),
        ));
    }
    let mut gram = DMatrix::<f64>::zeros(n, n);
    for a in 0..n {
        let xa = z.features(rows[a]);
        for b in 0..=a {
            let xb = z.features(rows[b]);
            let dot: f64 = xa.iter().zip(xb).map(|(u, v)| u * v).sum();
            gram[(a, b)] = dot / scale;
        }
    }
    let eig = symmetric_eigen(&gram).ok_or_else(failed)?;
    let values: Vec<f64> = eig.eigenvalues.iter().copied().collect();
    let (u, lambda) = (eig.eigenvectors, values.clone());
    Ok((
        values,
        Box::new(move |c| {
            let mut v = vec![0.0; d];
            for a in 0..n {
                let w = u[(a, c)];
                for (vi, xi) in v.iter_mut().zip(z.features(rows[a])) {
                    *vi += w * xi;
                }
            }
            let norm = (scale * lambda[c].max(f64::MIN_POSITIVE)).sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mil::simulate::{MilDesign, simulate_bags};

    /// With more features than instances the Gram matrix stands in for the
    /// covariance: the same eigenvalues and axes as the covariance's own
    /// decomposition, and whitened scores as before.
    #[test]
    fn more_features_than_instances_decompose_the_gram_matrix() {
        let bags = simulate_bags(
            &MilDesign {
                bags: 4,
                instances: 4,
                features: 40,
                ..Default::default()
            },
            5,
        )
        .unwrap();
        let z = bags.scaled(&bags.scaling()).unwrap();
        for m in 0..2u8 {
            let rows: Vec<usize> = (0..z.n_instances())
                .filter(|&j| z.modality[j] == m)
                .collect();
            let (n, d) = (rows.len(), z.width(m));
            assert!(n < d && n > 1, "{n} instances of {d} features");
            let (values, vectors) = principal_axes(&z, &rows, d, m).unwrap();
            let mut cov = DMatrix::<f64>::zeros(d, d);
            for &j in &rows {
                let x = z.features(j);
                for r in 0..d {
                    for c in 0..d {
                        cov[(r, c)] += x[r] * x[c] / (n - 1) as f64;
                    }
                }
            }
            let top = values[n - 1];
            for c in (0..n).rev().filter(|&c| values[c] > 1e-9 * top) {
                let v = nalgebra::DVector::from_vec(vectors(c));
                assert!((v.norm() - 1.0).abs() < 1e-10);
                let resid = (&cov * &v - &v * values[c]).norm();
                assert!(resid < 1e-8 * top, "modality {m} axis {c}: {resid}");
            }
        }
        let c = Components::fit(&bags, 3).unwrap();
        let p = c.apply(&bags).unwrap();
        let rows: Vec<&[f64]> = (0..p.n_instances())
            .filter(|&j| p.modality[j] == 0)
            .map(|j| p.features(j))
            .collect();
        let n = rows.len() as f64;
        for a in 0..3 {
            let s: f64 = rows.iter().map(|r| r[a] * r[a]).sum::<f64>() / (n - 1.0);
            assert!((s - 1.0).abs() < 1e-9, "pc{} variance {s}", a + 1);
        }
    }

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
