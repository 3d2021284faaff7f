//! Evaluation metrics of Guo et al. 2019 §5.2: comparison AUC and the top-K metric
//! (eqs 27–28). Rankings in the test set are broken into all their ordered
//! pairs (i ranked above j).

use crate::data::{Dataset, Tail};

/// Every (winner, loser) pair implied by the observations (within listed
/// items; ties contribute no pair).
pub fn test_pairs(ds: &Dataset) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for obs in ds.observations() {
        let groups: Vec<_> = obs.groups().collect();
        for (a, ga) in groups.iter().enumerate() {
            if ga.is_tail {
                continue;
            }
            for gb in &groups[a + 1..] {
                for &i in &obs.members[ga.start..ga.end] {
                    for &j in &obs.members[gb.start..gb.end] {
                        out.push((i, j));
                    }
                }
            }
        }
        let _ = Tail::None;
    }
    out
}

/// Area under the ROC curve of probabilities `p` for labels `y` (ties
/// averaged; Mann–Whitney). NaN without both classes.
pub fn auc(p: &[f64], y: &[bool]) -> f64 {
    let ranks = crate::stats::mid_ranks(p);
    let n1 = y.iter().filter(|&&v| v).count() as f64;
    let n0 = y.len() as f64 - n1;
    if n1 == 0.0 || n0 == 0.0 {
        return f64::NAN;
    }
    let s: f64 = (0..y.len()).filter(|&i| y[i]).map(|i| ranks[i]).sum();
    (s - n1 * (n1 + 1.0) / 2.0) / (n1 * n0)
}

/// The ROC curve of scores `p` for labels `y`: `(false-positive rate,
/// true-positive rate)` from (0, 0) to (1, 1), one point per distinct
/// score (tied scores move both rates at once, so the trapezoids under the
/// curve sum to [`auc`]). Empty without both classes.
pub fn roc_curve(p: &[f64], y: &[bool]) -> Vec<(f64, f64)> {
    let n1 = y.iter().filter(|&&v| v).count() as f64;
    let n0 = y.len() as f64 - n1;
    if n1 == 0.0 || n0 == 0.0 {
        return Vec::new();
    }
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
    let mut out = vec![(0.0, 0.0)];
    let (mut tp, mut fp) = (0.0, 0.0);
    let mut k = 0;
    while k < idx.len() {
        let mut e = k;
        while e < idx.len() && p[idx[e]] == p[idx[k]] {
            if y[idx[e]] {
                tp += 1.0;
            } else {
                fp += 1.0;
            }
            e += 1;
        }
        out.push((fp / n0, tp / n1));
        k = e;
    }
    out
}

/// Comparison AUC: each test pair is presented as "does the lower-id item
/// win", scored by the predicted probability of that.
pub fn comparison_auc(pairs: &[(u32, u32)], prob: &dyn Fn(u32, u32) -> f64) -> f64 {
    let mut p = Vec::with_capacity(pairs.len());
    let mut y = Vec::with_capacity(pairs.len());
    for &(w, l) in pairs {
        let (a, b) = if w < l { (w, l) } else { (l, w) };
        p.push(prob(a, b));
        y.push(a == w);
    }
    auc(&p, &y)
}

/// The top-K metric (eqs 27–28): the true value (empirical win rate over
/// test pairs) of the K items with the largest predicted value, over the
/// best achievable.
pub fn top_k_metric(
    pairs: &[(u32, u32)],
    n_items: usize,
    k: usize,
    prob: &dyn Fn(u32, u32) -> f64,
) -> f64 {
    let mut wins = vec![0.0; n_items];
    let mut pred = vec![0.0; n_items];
    let mut count = vec![0.0; n_items];
    for &(w, l) in pairs {
        let pw = prob(w, l);
        wins[w as usize] += 1.0;
        count[w as usize] += 1.0;
        count[l as usize] += 1.0;
        pred[w as usize] += pw;
        pred[l as usize] += 1.0 - pw;
    }
    let items: Vec<usize> = (0..n_items).filter(|&i| count[i] > 0.0).collect();
    if items.is_empty() {
        return f64::NAN;
    }
    let val = |v: &[f64], i: usize| v[i] / count[i];
    let mut by_pred = items.clone();
    by_pred.sort_by(|&a, &b| val(&pred, b).total_cmp(&val(&pred, a)).then(a.cmp(&b)));
    let mut by_true = items.clone();
    by_true.sort_by(|&a, &b| val(&wins, b).total_cmp(&val(&wins, a)).then(a.cmp(&b)));
    let k = k.min(items.len());
    let w_hat: f64 = by_pred[..k].iter().map(|&i| val(&wins, i)).sum();
    let w_best: f64 = by_true[..k].iter().map(|&i| val(&wins, i)).sum();
    if w_best == 0.0 {
        f64::NAN
    } else {
        w_hat / w_best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_by_hand() {
        assert_eq!(
            auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true]),
            0.75
        );
        assert_eq!(auc(&[0.5, 0.5], &[false, true]), 0.5);
        assert!(auc(&[0.5], &[true]).is_nan());
    }

    #[test]
    fn top_k_by_hand() {
        // Items 0..3; true win rates: 0: 2/2, 1: 1/3, 2: 1/2, 3: 0/1.
        let pairs = [(0u32, 1u32), (0, 2), (2, 1), (1, 3)];
        // A predictor preferring lower ids: picks {0, 1} for K = 2.
        let p = |a: u32, b: u32| if a < b { 0.9 } else { 0.1 };
        let t = top_k_metric(&pairs, 4, 2, &p);
        // Best {0, 2}: 1 + 1/2; chosen {0, 1}: 1 + 1/3.
        assert!((t - (1.0 + 1.0 / 3.0) / 1.5).abs() < 1e-12);
    }

    /// The trapezoids under the ROC curve sum to the Mann–Whitney AUC,
    /// ties included; the curve runs from (0, 0) to (1, 1).
    #[test]
    fn roc_curve_integrates_to_the_auc() {
        let p = [0.9, 0.8, 0.8, 0.7, 0.4, 0.4, 0.4, 0.2, 0.1];
        let y = [true, true, false, true, false, true, false, false, false];
        let c = roc_curve(&p, &y);
        assert_eq!(c.first(), Some(&(0.0, 0.0)));
        assert_eq!(c.last(), Some(&(1.0, 1.0)));
        let area: f64 = c
            .windows(2)
            .map(|w| (w[1].0 - w[0].0) * (w[1].1 + w[0].1) / 2.0)
            .sum();
        assert!((area - auc(&p, &y)).abs() < 1e-12, "{area} {}", auc(&p, &y));
        assert!(roc_curve(&p, &[true; 9]).is_empty());
    }
}
