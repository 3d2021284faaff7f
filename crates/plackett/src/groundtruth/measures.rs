//! Annotation certainty and uncertainty-adjusted metrics (Stutz et al.
//! 2023, §2.4–2.5 and Appendix C). Everything is a Monte Carlo average
//! over the plausibility samples of a case; ties in a sample's ranking are
//! broken towards the lower class id, and so are ties in a model's scores
//! (the `jax.lax.top_k` convention).

use super::samples::CaseSamples;

/// The `k` highest-scoring classes (lowest id first on ties).
pub fn top_k_of_scores(scores: &[f64], k: usize) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..scores.len() as u32).collect();
    idx.sort_by(|&a, &b| {
        scores[b as usize]
            .total_cmp(&scores[a as usize])
            .then(a.cmp(&b))
    });
    idx.truncate(k);
    idx
}

/// Largest frequency of one value among `keys` (the modal frequency).
fn modal_frequency<T: Ord + Clone>(mut keys: Vec<T>) -> f64 {
    let n = keys.len();
    if n == 0 {
        return f64::NAN;
    }
    keys.sort();
    let mut best = 1;
    let mut run = 1;
    for w in keys.windows(2) {
        if w[0] == w[1] {
            run += 1;
        } else {
            run = 1;
        }
        best = best.max(run);
    }
    best as f64 / n as f64
}

/// Top-j annotation certainty (Eq. 10): frequency of the modal *set* of the
/// j most plausible classes. `j = 1` is Eq. 9.
pub fn certainty_top_j(s: &CaseSamples, j: usize) -> f64 {
    let keys: Vec<Vec<u32>> = (0..s.len())
        .map(|m| {
            let mut v = s.ids(m)[..j].to_vec();
            v.sort_unstable();
            v
        })
        .collect();
    modal_frequency(keys)
}

/// Rank-k certainty (the reference code's `rankk_certainties`): frequency
/// of the modal class at rank k alone (1-based).
pub fn certainty_rank_k(s: &CaseSamples, k: usize) -> f64 {
    modal_frequency((0..s.len()).map(|m| s.ids(m)[k - 1]).collect())
}

/// Per-sample indicators of one case against a prediction ranking, for
/// every k in `ks`: top-1 of the sample in C_top-k (UA accuracy, Eq. 15),
/// top-k set of the sample equal to C_top-k (UA set accuracy, Eq. 17),
/// overlap |C_k ∩ Y_k|/k (Eq. 19), and average overlap @L (Eq. 20).
#[derive(Debug, Clone, Default)]
pub struct SampleScores {
    /// `[k][m]`.
    pub acc: Vec<Vec<f64>>,
    /// `[k][m]`.
    pub set_acc: Vec<Vec<f64>>,
    /// `[k][m]`.
    pub overlap: Vec<Vec<f64>>,
    /// Average overlap @k, `[k][m]`.
    pub avg_overlap: Vec<Vec<f64>>,
}

/// Score one case's samples against `pred` (a ranking of classes, best
/// first). `C_top-k` is the first `min(k, len)` predicted classes; set
/// accuracy and overlap compare it with the top-|C| classes of the sample
/// (Eqs 17–19), so a shorter prediction (an annotator who listed fewer
/// classes) is scored on its own size.
pub fn score_samples(s: &CaseSamples, pred: &[u32], ks: &[usize]) -> SampleScores {
    let m = s.len();
    let mut out = SampleScores {
        acc: vec![vec![0.0; m]; ks.len()],
        set_acc: vec![vec![0.0; m]; ks.len()],
        overlap: vec![vec![0.0; m]; ks.len()],
        avg_overlap: vec![vec![0.0; m]; ks.len()],
    };
    for i in 0..m {
        for (q, &k) in ks.iter().enumerate() {
            let [a, sa, o, ao] = score_ranking(s.ids(i), pred, k);
            out.acc[q][i] = a;
            out.set_acc[q][i] = sa;
            out.overlap[q][i] = o;
            out.avg_overlap[q][i] = ao;
        }
    }
    out
}

/// One ground-truth ranking `ids` (all classes, best first) against the
/// prediction ranking `pred` at set size `k`: top-k accuracy (the truth's
/// first class among the predicted k), set accuracy (the same k classes),
/// overlap @k and average overlap (mean of overlap @1…@k).
pub fn score_ranking(ids: &[u32], pred: &[u32], k: usize) -> [f64; 4] {
    let overlap = |k: usize| -> f64 {
        let c = &pred[..k.min(pred.len())];
        let kk = c.len();
        if kk == 0 {
            return 0.0;
        }
        ids[..kk].iter().filter(|x| c.contains(x)).count() as f64 / kk as f64
    };
    let c = &pred[..k.min(pred.len())];
    let acc = f64::from(u8::from(c.contains(&ids[0])));
    let mut a = ids[..c.len()].to_vec();
    let mut b = c.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    let set = f64::from(u8::from(a == b));
    let ao = (1..=k).map(overlap).sum::<f64>() / k as f64;
    [acc, set, overlap(k), ao]
}

/// Risk certainty under both readings of §5.8 and expected risk summaries.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct RiskMeasures {
    /// Modal frequency of the risk level of each sample's top-1 condition
    /// (the reference code's reading).
    pub certainty_top1: f64,
    /// Modal frequency of the risk level with the largest plausibility mass.
    pub certainty_mass: f64,
    /// Mean over samples of the expected risk Σ λ_k ρ(k).
    pub expected_mean: f64,
    /// Smallest expected risk over samples.
    pub expected_min: f64,
    /// Largest expected risk over samples.
    pub expected_max: f64,
}

/// Risk measures of one case (`risks[c]` ∈ {0, 1, 2}).
pub fn risk_measures(s: &CaseSamples, risks: &[u8]) -> RiskMeasures {
    let m = s.len();
    let top: Vec<u8> = (0..m).map(|i| risks[s.ids(i)[0] as usize]).collect();
    let mass: Vec<u8> = s
        .risk_mass
        .iter()
        .map(|r| {
            let mut best = 0;
            for k in 1..3 {
                if r[k] > r[best] {
                    best = k;
                }
            }
            best as u8
        })
        .collect();
    let er: Vec<f64> = s.risk_mass.iter().map(|r| r[1] + 2.0 * r[2]).collect();
    RiskMeasures {
        certainty_top1: modal_frequency(top),
        certainty_mass: modal_frequency(mass),
        expected_mean: er.iter().sum::<f64>() / m as f64,
        expected_min: er.iter().copied().fold(f64::INFINITY, f64::min),
        expected_max: er.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

pub use crate::stats::pearson;

/// Mean and population sd (ddof = 0, as the reference code) of the
/// per-sample dataset metric `F_m = (1/N) Σ_i f_{i,m}` (§5.10).
pub fn dataset_mean_sd(per_sample_sums: &[f64], n_cases: usize) -> (f64, f64) {
    let f: Vec<f64> = per_sample_sums.iter().map(|s| s / n_cases as f64).collect();
    let m = f.len() as f64;
    let mean = f.iter().sum::<f64>() / m;
    let sd = (f.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / m).sqrt();
    (mean, sd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(rows: &[&[u32]]) -> CaseSamples {
        let t = rows[0].len();
        let mut s = CaseSamples {
            t,
            ..Default::default()
        };
        for r in rows {
            s.top_ids.extend_from_slice(r);
            s.top_vals.extend((0..t).map(|k| 1.0 / (k + 1) as f64));
        }
        s
    }

    #[test]
    fn certainties_by_hand() {
        // Four samples: top-1 is 5,5,5,7 → certainty 3/4; top-2 sets {5,7},
        // {5,7}, {5,9}, {7,5} → {5,7} three times → 3/4; top-3 sets all
        // distinct except two → 2/4.
        let s = samples(&[&[5, 7, 9], &[5, 7, 9], &[5, 9, 7], &[7, 5, 2]]);
        assert_eq!(certainty_top_j(&s, 1), 0.75);
        assert_eq!(certainty_top_j(&s, 2), 0.75);
        assert_eq!(certainty_top_j(&s, 3), 0.75); // {5,7,9} three times
        assert_eq!(certainty_rank_k(&s, 2), 0.5); // 7,7,9,5
    }

    #[test]
    fn ua_metrics_by_hand() {
        let s = samples(&[&[5, 7, 9], &[7, 5, 9], &[9, 1, 2], &[5, 9, 7]]);
        let pred = [5u32, 9, 4];
        let sc = score_samples(&s, &pred, &[1, 2, 3]);
        // k=1: C = {5}: top-1 ∈ C for samples 1 and 4.
        assert_eq!(sc.acc[0], vec![1.0, 0.0, 0.0, 1.0]);
        // k=2: C = {5,9}: top-1 ∈ C: 1,0,1,1; top-2 set == {5,9}: only sample 4.
        assert_eq!(sc.acc[1], vec![1.0, 0.0, 1.0, 1.0]);
        assert_eq!(sc.set_acc[1], vec![0.0, 0.0, 0.0, 1.0]);
        // k=3: C = {5,9,4}: overlaps |C ∩ Y3|/3 = 2/3, 2/3, 1/3, 2/3.
        let o: Vec<f64> = sc.overlap[2].iter().map(|v| (v * 3.0).round()).collect();
        assert_eq!(o, vec![2.0, 2.0, 1.0, 2.0]);
        // AO@3 of sample 4 (Y = 5,9,7): (1/1 + 2/2 + 2/3)/3.
        assert!((sc.avg_overlap[2][3] - (1.0 + 1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        // Sample 3 (Y = 9,1,2): (0 + 1/2 + 1/3)/3.
        assert!((sc.avg_overlap[2][2] - (0.0 + 0.5 + 1.0 / 3.0) / 3.0).abs() < 1e-12);
    }

    #[test]
    fn single_sample_point_mass() {
        // A point mass (IRN) has certainty 1 and 0/1 UA metrics.
        let s = samples(&[&[3, 1, 2]]);
        assert_eq!(certainty_top_j(&s, 1), 1.0);
        assert_eq!(certainty_top_j(&s, 3), 1.0);
        let sc = score_samples(&s, &[1, 3, 0], &[1, 2]);
        assert_eq!(sc.acc[0], vec![0.0]);
        assert_eq!(sc.set_acc[1], vec![1.0]);
    }

    #[test]
    fn risk_by_hand() {
        // Classes 0 (low), 1 (medium), 2 (high).
        let mut s = samples(&[&[2, 0], &[0, 1], &[2, 1]]);
        s.risk_mass = vec![[0.3, 0.1, 0.6], [0.5, 0.4, 0.1], [0.2, 0.45, 0.35]];
        let r = risk_measures(&s, &[0, 1, 2]);
        // Top-1 risks: 2, 0, 2 → 2/3. Mass argmax: 2, 0, 1 → 1/3.
        assert!((r.certainty_top1 - 2.0 / 3.0).abs() < 1e-12);
        assert!((r.certainty_mass - 1.0 / 3.0).abs() < 1e-12);
        // Expected risks: 1.3, 0.6, 1.15.
        assert!((r.expected_mean - (1.3 + 0.6 + 1.15) / 3.0).abs() < 1e-12);
        assert!((r.expected_min - 0.6).abs() < 1e-12 && (r.expected_max - 1.3).abs() < 1e-12);
    }

    #[test]
    fn ties_in_scores_prefer_lower_ids() {
        assert_eq!(top_k_of_scores(&[0.1, 0.5, 0.5, 0.2], 2), vec![1, 2]);
        assert_eq!(top_k_of_scores(&[0.5, 0.5, 0.5], 1), vec![0]);
    }

    #[test]
    fn dataset_sd_is_population() {
        let (m, s) = dataset_mean_sd(&[2.0, 4.0], 2);
        assert!((m - 1.5).abs() < 1e-12 && (s - 0.5).abs() < 1e-12);
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 7.0]) - 0.9933992677987828).abs() < 1e-12);
    }
}
