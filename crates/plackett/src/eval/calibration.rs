//! Calibration of probabilistic predictions: do the probabilities mean what
//! they say? Reliability bins, the expected calibration error (Naeini,
//! Cooper & Hauskrecht 2015), the Brier score (Brier 1950) and the log loss.
//!
//! A classifier can rank well (a high AUC) and still give probabilities
//! far from the frequencies it achieves; these are the numbers that say so.

use serde::Serialize;

/// Equal-width bins of a reliability diagram over [0, 1].
pub const BINS: usize = 10;

/// Smallest probability the log loss reads: a true class given probability
/// 0 counts as `−ln ε` (machine epsilon, as scikit-learn's `log_loss`
/// clips), not as an infinite loss.
pub const LOG_LOSS_FLOOR: f64 = f64::EPSILON;

/// One non-empty bin of a reliability diagram.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReliabilityBin {
    /// Its index: scores in `[bin/BINS, (bin+1)/BINS)` (the last bin
    /// closed at 1).
    pub bin: usize,
    /// Pairs in the bin.
    pub count: usize,
    /// Their mean score.
    pub mean_score: f64,
    /// The share of them whose outcome came true.
    pub share_true: f64,
}

/// `(score, outcome)` pairs in [`BINS`] equal-width bins of the score (a
/// score of exactly 1 in the last), the non-empty bins in ascending order;
/// each bin's sums in the pairs' order.
pub fn reliability_bins(pairs: impl IntoIterator<Item = (f64, bool)>) -> Vec<ReliabilityBin> {
    let (mut sum, mut hit, mut n) = ([0.0f64; BINS], [0usize; BINS], [0usize; BINS]);
    for (p, t) in pairs {
        let b = ((p * BINS as f64) as usize).min(BINS - 1);
        sum[b] += p;
        hit[b] += usize::from(t);
        n[b] += 1;
    }
    (0..BINS)
        .filter(|&b| n[b] > 0)
        .map(|b| ReliabilityBin {
            bin: b,
            count: n[b],
            mean_score: sum[b] / n[b] as f64,
            share_true: hit[b] as f64 / n[b] as f64,
        })
        .collect()
}

/// Expected calibration error of reliability bins: `Σ_b (n_b / N) |mean
/// score_b − share_b|` (Naeini, Cooper & Hauskrecht 2015). 0 without pairs.
pub fn expected_calibration_error(bins: &[ReliabilityBin]) -> f64 {
    let total: usize = bins.iter().map(|b| b.count).sum();
    if total == 0 {
        return 0.0;
    }
    bins.iter()
        .map(|b| b.count as f64 * (b.mean_score - b.share_true).abs())
        .sum::<f64>()
        / total as f64
}

/// The most probable class of a probability vector (of equal maxima the
/// last, as every classifier command of this project decides it).
pub fn most_probable(p: &[f64]) -> usize {
    (0..p.len())
        .max_by(|&i, &j| p[i].total_cmp(&p[j]))
        .unwrap_or(0)
}

/// How well class probabilities match what happened, over a set of rows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Calibration {
    /// Rows scored.
    pub rows: usize,
    /// Share of rows whose most probable class is the true one.
    pub accuracy: f64,
    /// Mean probability of the most probable class: about the accuracy
    /// when the probabilities are calibrated, below it when they are
    /// underconfident.
    pub mean_probability: f64,
    /// Expected calibration error of the most probable class's probability
    /// against being right, in [`BINS`] bins ([`expected_calibration_error`]).
    pub ece: f64,
    /// Brier score, `mean_i Σ_k (p_ik − 1[y_i = k])²` (Brier 1950; for two
    /// classes twice the one-probability form `mean (p_i − y_i)²`; as
    /// scikit-learn's `brier_score_loss(…, scale_by_half=False)`).
    pub brier: f64,
    /// Log loss, `mean_i −ln max(p_{i,y_i}, ε)` ([`LOG_LOSS_FLOOR`]).
    pub log_loss: f64,
    /// Rows whose true class had probability 0 (counted at the floor).
    pub zero_probability_rows: usize,
}

/// [`Calibration`] of `(class probabilities, true class)` rows; `None`
/// without rows.
pub fn calibration<'a>(rows: impl IntoIterator<Item = (&'a [f64], usize)>) -> Option<Calibration> {
    let (mut n, mut right, mut top, mut brier, mut loss, mut zero) =
        (0usize, 0usize, 0.0, 0.0, 0.0, 0);
    let mut pairs = Vec::new();
    for (p, y) in rows {
        let best = most_probable(p);
        n += 1;
        right += usize::from(best == y);
        top += p[best];
        pairs.push((p[best], best == y));
        brier += p
            .iter()
            .enumerate()
            .map(|(k, &pk)| {
                let d = pk - f64::from(u8::from(k == y));
                d * d
            })
            .sum::<f64>();
        let py = p[y];
        if py <= 0.0 {
            zero += 1;
        }
        loss -= py.max(LOG_LOSS_FLOOR).ln();
    }
    (n > 0).then(|| {
        let nf = n as f64;
        Calibration {
            rows: n,
            accuracy: right as f64 / nf,
            mean_probability: top / nf,
            ece: expected_calibration_error(&reliability_bins(pairs)),
            brier: brier / nf,
            log_loss: loss / nf,
            zero_probability_rows: zero,
        }
    })
}

impl Calibration {
    /// A one-line reading for people.
    pub fn describe(&self) -> String {
        format!(
            "predicted class right {:.3}, its mean probability {:.3} (ECE {:.3}); log loss {:.3}, Brier {:.3}",
            self.accuracy, self.mean_probability, self.ece, self.log_loss, self.brier
        )
    }

    /// Mean probability of the predicted class minus the accuracy: near 0
    /// when the probabilities are calibrated, negative when they are
    /// underconfident, positive when overconfident.
    pub fn confidence_gap(&self) -> f64 {
        self.mean_probability - self.accuracy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bin knows its index: a bin's mean score need not say which bin it
    /// is (the MIL report's bags-per-bin table reads the index).
    #[test]
    fn bins_carry_their_index() {
        let b = reliability_bins([(0.05, true), (0.95, false), (1.0, true), (0.1, false)]);
        let got: Vec<(usize, usize)> = b.iter().map(|b| (b.bin, b.count)).collect();
        assert_eq!(got, vec![(0, 1), (1, 1), (9, 2)]);
        assert_eq!(b[2].share_true, 0.5);
    }

    /// Two rows, three classes, by hand.
    #[test]
    fn a_small_case_by_hand() {
        let a = [0.7, 0.2, 0.1];
        let b = [0.25, 0.25, 0.5];
        let c = calibration([(&a[..], 0), (&b[..], 1)]).expect("rows");
        assert_eq!(c.rows, 2);
        assert_eq!(c.accuracy, 0.5);
        assert!((c.mean_probability - 0.6).abs() < 1e-15);
        // Brier: (0.09 + 0.04 + 0.01) + (0.0625 + 0.5625 + 0.25).
        assert!((c.brier - (0.14 + 0.875) / 2.0).abs() < 1e-15);
        assert!((c.log_loss - (-(0.7f64.ln()) - 0.25f64.ln()) / 2.0).abs() < 1e-15);
        // Bins 7 (0.7, right) and 5 (0.5, wrong): |0.7 − 1| and |0.5 − 0|.
        assert!((c.ece - (0.3 + 0.5) / 2.0).abs() < 1e-15);
        assert_eq!(c.zero_probability_rows, 0);
        assert!(calibration(std::iter::empty()).is_none());
    }

    /// A true class at probability 0 is counted and floored, never infinite.
    #[test]
    fn zero_probability_is_floored() {
        let p = [1.0, 0.0];
        let c = calibration([(&p[..], 1)]).expect("rows");
        assert_eq!(c.zero_probability_rows, 1);
        assert!((c.log_loss + LOG_LOSS_FLOOR.ln()).abs() < 1e-12);
        assert_eq!(c.brier, 2.0);
        assert_eq!(c.accuracy, 0.0);
    }

    /// Outcomes drawn with the stated probabilities: the ECE and the
    /// confidence gap are small; the same outcomes under probabilities
    /// pulled towards 1/2 are underconfident.
    #[test]
    fn calibrated_draws_pass_and_shrunk_ones_are_flagged() {
        use rand::RngExt;
        let mut rng = crate::sampling::rng::stream(5, &[1]);
        let mut rows = Vec::new();
        for _ in 0..20_000 {
            let p1: f64 = rng.random_range(0.0..1.0);
            let y = usize::from(rng.random_range(0.0..1.0) < p1);
            rows.push(([1.0 - p1, p1], y));
        }
        let c = calibration(rows.iter().map(|(p, y)| (&p[..], *y))).expect("rows");
        assert!(c.ece < 0.02, "ECE {}", c.ece);
        assert!(c.confidence_gap().abs() < 0.02);
        let shrunk: Vec<([f64; 2], usize)> = rows
            .iter()
            .map(|(p, y)| {
                let q = 0.5 + 0.3 * (p[1] - 0.5);
                ([1.0 - q, q], *y)
            })
            .collect();
        let s = calibration(shrunk.iter().map(|(p, y)| (&p[..], *y))).expect("rows");
        assert!(s.confidence_gap() < -0.1, "{}", s.confidence_gap());
    }
}
