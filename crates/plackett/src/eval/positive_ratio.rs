//! The positive-ratio analysis of Guo et al. 2019 Fig. 4: test pairs binned by the
//! predictive mean μ = x_ijᵀμ and sd ϱ = (x_ijᵀ S x_ij)^{1/2} of the score
//! difference; in each bin the fraction of pairs that `i` won. A calibrated
//! posterior shows the ratio rising with μ and flattening towards 0.5 as ϱ
//! grows.

/// Binned positive ratios.
#[derive(Debug, Clone)]
pub struct PositiveRatio {
    /// Edges of the μ bins (`mu_bins + 1` values; the outer bins also hold
    /// values beyond them).
    pub mu_edges: Vec<f64>,
    /// Upper edges of the ϱ groups (quantiles; the last is the maximum).
    pub rho_edges: Vec<f64>,
    /// `counts[g][b] = (pairs, pairs won by i)` for ϱ group g and μ bin b.
    pub counts: Vec<Vec<(usize, usize)>>,
}

impl PositiveRatio {
    /// Positive ratio of a cell (NaN when empty).
    pub fn ratio(&self, g: usize, b: usize) -> f64 {
        let (n, p) = self.counts[g][b];
        if n == 0 {
            f64::NAN
        } else {
            p as f64 / n as f64
        }
    }

    /// Centre of μ bin `b`.
    pub fn mu_centre(&self, b: usize) -> f64 {
        0.5 * (self.mu_edges[b] + self.mu_edges[b + 1])
    }
}

/// Bin `(μ, ϱ, i won)` triples: `mu_bins` equal-width μ bins over the
/// central 98% of |μ| (symmetric about 0) and `rho_groups` ϱ groups of equal
/// size.
pub fn positive_ratio(
    preds: &[(f64, f64, bool)],
    mu_bins: usize,
    rho_groups: usize,
) -> PositiveRatio {
    let mu_bins = mu_bins.max(1);
    let rho_groups = rho_groups.max(1);
    let finite: Vec<&(f64, f64, bool)> = preds
        .iter()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    let mut abs: Vec<f64> = finite.iter().map(|p| p.0.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let m = if abs.is_empty() {
        1.0
    } else {
        abs[((abs.len() as f64 * 0.98) as usize).min(abs.len() - 1)].max(1e-9)
    };
    let mu_edges: Vec<f64> = (0..=mu_bins)
        .map(|k| -m + 2.0 * m * k as f64 / mu_bins as f64)
        .collect();
    let mut rhos: Vec<f64> = finite.iter().map(|p| p.1).collect();
    rhos.sort_by(f64::total_cmp);
    let rho_edges: Vec<f64> = (1..=rho_groups)
        .map(|g| {
            if rhos.is_empty() {
                0.0
            } else {
                rhos[((rhos.len() * g).div_ceil(rho_groups))
                    .saturating_sub(1)
                    .min(rhos.len() - 1)]
            }
        })
        .collect();
    let mut counts = vec![vec![(0usize, 0usize); mu_bins]; rho_groups];
    for p in finite {
        let b =
            (((p.0 + m) / (2.0 * m) * mu_bins as f64).floor().max(0.0) as usize).min(mu_bins - 1);
        let g = rho_edges
            .iter()
            .position(|&e| p.1 <= e)
            .unwrap_or(rho_groups - 1);
        counts[g][b].0 += 1;
        counts[g][b].1 += p.2 as usize;
    }
    PositiveRatio {
        mu_edges,
        rho_edges,
        counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_by_hand() {
        let preds = [
            (-1.0, 0.1, false),
            (-0.9, 0.2, true),
            (1.0, 0.1, true),
            (0.9, 0.3, true),
            (0.1, 0.3, false),
        ];
        let pr = positive_ratio(&preds, 2, 1);
        assert_eq!(pr.counts[0], vec![(2, 1), (3, 2)]);
        assert!((pr.ratio(0, 1) - 2.0 / 3.0).abs() < 1e-12);
        let pr = positive_ratio(&preds, 2, 2);
        // ϱ groups: {0.1, 0.1, 0.2} and {0.3, 0.3}.
        assert_eq!(pr.counts[0], vec![(2, 1), (1, 1)]);
        assert_eq!(pr.counts[1], vec![(0, 0), (2, 1)]);
    }
}
