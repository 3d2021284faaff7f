//! Small descriptive statistics shared by every module: one definition of
//! each (sample variance with n − 1, type-7 quantiles as R, numpy and
//! ArviZ use by default).

/// Arithmetic mean; NaN for an empty slice.
pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Sample variance (divisor n − 1); NaN for fewer than two values.
pub fn var(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() as f64 - 1.0)
}

/// Mean and sample standard deviation over repeats, the sd `None` for a
/// single value (one repeat says nothing about the spread; printing 0
/// would say there is none).
pub fn mean_sd_of_repeats(x: &[f64]) -> (f64, Option<f64>) {
    let (m, s) = mean_sd(x);
    (m, (x.len() > 1).then_some(s))
}

/// `mean ± sd` to 4 decimals, or the mean alone when there is no sd (one
/// repeat).
pub fn mean_pm(mean: f64, sd: Option<f64>) -> String {
    match sd {
        Some(s) => format!("{mean:.4} ± {s:.4}"),
        None => format!("{mean:.4}"),
    }
}

/// An optional statistic as a cell: `{:.digits$}`, or `-` when absent.
pub fn cell(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

/// Mean and sample standard deviation (divisor n − 1, or 1 for a single
/// value, whose sd is then 0).
pub fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = mean(x);
    let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, v.sqrt())
}

/// Quantile of sorted data by linear interpolation between order
/// statistics (R's type 7); NaN for empty data.
pub fn quantile_sorted(x: &[f64], q: f64) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    let h = (x.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    x[lo] + (h - lo as f64) * (x[hi] - x[lo])
}

/// Central interval of probability `p` (sorts `x`; type-7 quantiles).
pub fn central_interval(x: &mut [f64], p: f64) -> (f64, f64) {
    x.sort_by(|a, b| a.total_cmp(b));
    (
        quantile_sorted(x, (1.0 - p) / 2.0),
        quantile_sorted(x, (1.0 + p) / 2.0),
    )
}

/// Pearson correlation of two equally long series (pairs with a non-finite
/// value skipped); NaN for fewer than two pairs.
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let pairs: Vec<(f64, f64)> = x
        .iter()
        .zip(y)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(a, b)| (*a, *b))
        .collect();
    let n = pairs.len() as f64;
    if n < 2.0 {
        return f64::NAN;
    }
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = pairs.iter().map(|p| (p.1 - my).powi(2)).sum();
    sxy / (sxx * syy).sqrt()
}

/// Mid-ranks (1-based; tied values share the mean of their positions).
pub fn mid_ranks(x: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; x.len()];
    let mut k = 0;
    while k < idx.len() {
        let mut e = k + 1;
        while e < idx.len() && x[idx[e]] == x[idx[k]] {
            e += 1;
        }
        let r = (k + 1 + e) as f64 / 2.0;
        for &i in &idx[k..e] {
            ranks[i] = r;
        }
        k = e;
    }
    ranks
}

/// Spearman's rank correlation: Pearson's on the mid-ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    pearson(&mid_ranks(x), &mid_ranks(y))
}

/// The rank histogram of simulation-based calibration (Talts et al. 2018):
/// each rank of a true value among `draws` posterior draws (0..=draws)
/// counted in `bins` equal bins.
pub fn rank_histogram(
    ranks: impl IntoIterator<Item = usize>,
    draws: usize,
    bins: usize,
) -> Vec<usize> {
    let mut h = vec![0usize; bins];
    for r in ranks {
        h[(r.min(draws) * bins / (draws + 1)).min(bins - 1)] += 1;
    }
    h
}

/// Pearson's χ² statistic of counts against equal expected counts (with
/// `k` counts, `k − 1` degrees of freedom; 27.88 is χ²₉'s 99.9% point).
pub fn uniform_chi2(counts: &[usize]) -> f64 {
    let e = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
    counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mid_ranks_and_spearman_by_hand() {
        assert_eq!(mid_ranks(&[0.3, 0.1, 0.3, 0.2]), vec![3.5, 1.0, 3.5, 2.0]);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 40.0]), 1.0);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0);
    }

    #[test]
    fn rank_histogram_bins_ranks_evenly() {
        // 99 draws: ranks 0..=99, ten to a bin.
        let h = rank_histogram(0..100, 99, 10);
        assert_eq!(h, vec![10; 10]);
        assert_eq!(uniform_chi2(&h), 0.0);
        assert_eq!(rank_histogram([0, 0, 199], 199, 4), vec![2, 0, 0, 1]);
        // χ² of (20, 0) against (10, 10): 10 + 10.
        assert_eq!(uniform_chi2(&[20, 0]), 20.0);
    }

    #[test]
    fn against_hand_values() {
        let x = [1.0, 2.0, 4.0, 7.0];
        assert_eq!(mean(&x), 3.5);
        assert!((var(&x) - 7.0).abs() < 1e-12);
        assert_eq!(mean_sd(&[5.0]), (5.0, 0.0));
        // Over repeats, one value has no sd rather than a zero one.
        assert_eq!(mean_sd_of_repeats(&[5.0]), (5.0, None));
        let (m, s) = mean_sd_of_repeats(&x);
        assert_eq!(m, 3.5);
        assert!((s.unwrap() - 7f64.sqrt()).abs() < 1e-12);
        assert_eq!(
            (cell(None, 4), cell(Some(0.12345), 3)),
            ("-".into(), "0.123".into())
        );
        // R: quantile(c(1,2,4,7), c(.1,.5,.9)) = 1.3, 3.0, 6.1
        assert!((quantile_sorted(&x, 0.1) - 1.3).abs() < 1e-12);
        assert!((quantile_sorted(&x, 0.5) - 3.0).abs() < 1e-12);
        assert!((quantile_sorted(&x, 0.9) - 6.1).abs() < 1e-12);
        assert!((pearson(&x, &[2.0, 4.0, 8.0, 14.0]) - 1.0).abs() < 1e-12);
        assert!(pearson(&[1.0], &[1.0]).is_nan());
    }
}
