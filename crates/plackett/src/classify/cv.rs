//! Repeated random train/test splits for the classifier (Archambeau & Caron 2012 §4.2:
//! 20 random splits, misclassification rate, AUC for binary tasks, run time
//! and the smallest effective sample size of the Gibbs sampler).

use super::data::Table;
use super::model::{Engine, FitOptions, fit};
use crate::error::{Error, Result};
use crate::eval::calibration::{Calibration, calibration, most_probable};
use crate::eval::metrics::auc;
use crate::sampling::rng::stream;
use rand::RngExt;

/// Settings.
#[derive(Clone)]
pub struct ClassifierCvOptions {
    /// Number of random splits.
    pub splits: usize,
    /// Fraction of rows held out per split.
    pub test_fraction: f64,
    /// Seed of the splits (the fits use it too).
    pub seed: u64,
    /// How to fit.
    pub fit: FitOptions,
    /// K-fold cross-validation repeated R times (the vocabulary of
    /// `plackett cv` and `mil cv`) instead of `splits` random splits; each
    /// fold is one split.
    pub kfold: Option<KFold>,
}

/// The defaults `classify cv` reads: 20 random splits holding out a third
/// of the rows each (Archambeau & Caron 2012 §4.2), seed 1, the
/// classifier's default fit.
impl Default for ClassifierCvOptions {
    fn default() -> Self {
        ClassifierCvOptions {
            splits: 20,
            test_fraction: 1.0 / 3.0,
            seed: 1,
            fit: FitOptions::default(),
            kfold: None,
        }
    }
}

/// Stratified K-fold cross-validation, repeated.
#[derive(Debug, Clone, Copy)]
pub struct KFold {
    /// Folds per repeat (K ≥ 2).
    pub folds: usize,
    /// Repeats, each with its own shuffle.
    pub repeats: usize,
}

/// The test rows of every fold of every repeat: per repeat a seeded
/// shuffle, then rows sorted (stably) by class and dealt to the folds in
/// turn, so every fold holds each class in proportion.
pub fn kfold_rows(y: &[usize], k: KFold, seed: u64) -> Vec<Vec<usize>> {
    let n = y.len();
    let mut out = Vec::with_capacity(k.folds * k.repeats);
    for r in 0..k.repeats {
        let mut rng = stream(seed, &[0x4b46_4f4c, r as u64]);
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        order.sort_by_key(|&i| y[i]);
        let mut folds = vec![Vec::new(); k.folds];
        for (pos, &i) in order.iter().enumerate() {
            folds[pos % k.folds].push(i);
        }
        for mut f in folds {
            f.sort_unstable();
            out.push(f);
        }
    }
    out
}

/// One split.
#[derive(Debug, Clone)]
pub struct SplitResult {
    /// Held-out rows (0-based row indices of the table).
    pub test_rows: Vec<usize>,
    /// Fraction of held-out rows whose most probable class is wrong.
    pub misclassification: f64,
    /// AUC of P(second class) for binary tasks.
    pub auc: Option<f64>,
    /// Wall time of fit + prediction.
    pub seconds: f64,
    /// Smallest bulk ESS over the normalised weights (gibbs).
    pub min_ess: Option<f64>,
    /// Gibbs: smallest ESS by Archambeau & Caron (2012)'s estimator (raw draws, Geyer).
    pub min_ess_geyer: Option<f64>,
    /// Largest split-R̂ (gibbs).
    pub max_rhat: Option<f64>,
    /// Final (or mean sampled) Gamma shape.
    pub a: f64,
    /// Predicted probabilities of the held-out rows.
    pub probabilities: Vec<Vec<f64>>,
}

/// The test rows of split `s`: a seeded permutation's first ⌈n·f⌉ rows.
pub fn split_rows(n: usize, fraction: f64, seed: u64, s: usize) -> Vec<usize> {
    let mut rng = stream(seed, &[0x5350_4c54, s as u64]);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    let m = ((n as f64 * fraction).round() as usize).clamp(1, n - 1);
    let mut t = order[..m].to_vec();
    t.sort_unstable();
    t
}

/// Run the splits.
pub fn cross_validate(
    path: &str,
    class_col: &str,
    t: &Table,
    opts: &ClassifierCvOptions,
) -> Result<Vec<SplitResult>> {
    if opts.kfold.is_none() && !(opts.test_fraction > 0.0 && opts.test_fraction < 1.0) {
        return Err(Error::param(
            "test_fraction",
            format!(
                "must be in (0, 1), got {}",
                crate::error::show_number(opts.test_fraction)
            ),
        ));
    }
    if opts.kfold.is_none() && (opts.splits == 0 || opts.splits > 100_000) {
        return Err(Error::param(
            "splits",
            format!("expected 1 to 100000 splits, got {}", opts.splits),
        ));
    }
    let labels = t
        .labels
        .as_ref()
        .ok_or_else(|| Error::input(path, Some(1), "no class column"))?;
    let n = t.x.len();
    if n < 3 {
        return Err(Error::input(path, None, "need at least 3 rows to split"));
    }
    let (classes, y) = super::data::encode_classes(labels);
    let tests: Vec<Vec<usize>> = match opts.kfold {
        Some(k) => {
            if k.folds < 2 || k.folds > n {
                return Err(Error::param(
                    "folds",
                    format!(
                        "expected 2 to {n} folds (the number of rows), got {}",
                        k.folds
                    ),
                ));
            }
            if k.repeats == 0 || k.folds.saturating_mul(k.repeats) > 100_000 {
                return Err(Error::param(
                    "repeats",
                    format!(
                        "expected 1 or more repeats and at most 100000 splits in all, got {} × {}",
                        k.folds, k.repeats
                    ),
                ));
            }
            kfold_rows(&y, k, opts.seed)
        }
        None => (0..opts.splits)
            .map(|s| split_rows(n, opts.test_fraction, opts.seed, s))
            .collect(),
    };
    let mut out = Vec::with_capacity(tests.len());
    for (s, test) in tests.into_iter().enumerate() {
        let mut is_test = vec![false; n];
        test.iter().for_each(|&r| is_test[r] = true);
        let train: Vec<usize> = (0..n).filter(|&r| !is_test[r]).collect();
        let start = std::time::Instant::now();
        let mut fo = opts.fit.clone();
        // Held-out scores read the predictions alone, which average over
        // VB's Gamma factors whatever the covariance: skip the
        // linear-response covariance no split would read.
        fo.vb_covariance = super::model::VbCovariance::MeanField;
        fo.seed = crate::sampling::rng::stream(opts.seed, &[0x4649_5453, s as u64]).random();
        let f = fit(path, class_col, t, &train, &fo).map_err(|e| match e {
            Error::Input { loc, msg } => Error::Input {
                loc,
                msg: format!("split {}: {msg}", s + 1),
            },
            other => other,
        })?;
        let rows: Vec<Vec<f64>> = test
            .iter()
            .map(|&r| {
                f.model.preprocess.log_w(&t.x[r]).ok_or_else(|| {
                    Error::input(
                        path,
                        Some(t.lines[r]),
                        "a feature lies more than 700 training sds from its mean",
                    )
                })
            })
            .collect::<Result<_>>()?;
        let prob = f.model.predict_log_w(&rows);
        let seconds = start.elapsed().as_secs_f64();
        // The model's class order is that of the whole table (same encoder).
        debug_assert_eq!(f.model.classes, classes);
        let wrong = test
            .iter()
            .zip(&prob)
            .filter(|(r, pr)| most_probable(pr) != y[**r])
            .count();
        let auc_v = (classes.len() == 2).then(|| {
            let p1: Vec<f64> = prob.iter().map(|p| p[1]).collect();
            let y1: Vec<bool> = test.iter().map(|&r| y[r] == 1).collect();
            auc(&p1, &y1)
        });
        let (min_ess, min_ess_geyer, max_rhat) = match (f.gibbs(), opts.fit.engine) {
            (Some(g), Engine::Gibbs) => (
                Some(g.min_ess()),
                Some(g.min_ess_geyer()),
                Some(g.max_rhat()),
            ),
            _ => (None, None, None),
        };
        out.push(SplitResult {
            misclassification: wrong as f64 / test.len() as f64,
            auc: auc_v,
            seconds,
            min_ess,
            min_ess_geyer,
            max_rhat,
            a: f.model.a,
            probabilities: prob,
            test_rows: test,
        });
    }
    Ok(out)
}

/// The calibration of every held-out prediction of `splits`, pooled (rows
/// held out by several splits count once per split); `truth` holds the
/// table's classes encoded as the model's (`None` without held-out rows).
pub fn pooled_calibration(splits: &[SplitResult], truth: &[usize]) -> Option<Calibration> {
    calibration(
        splits
            .iter()
            .flat_map(|s| s.test_rows.iter().zip(&s.probabilities))
            .map(|(&r, p)| (p.as_slice(), truth[r])),
    )
}

/// The note `classify cv` adds when the held-out probabilities are far
/// from the frequencies they achieve (the predicted class's mean
/// probability 0.1 or more from the accuracy), with what to do; `None`
/// otherwise.
pub fn calibration_note(c: &Calibration) -> Option<String> {
    let gap = c.confidence_gap();
    if gap.abs() < 0.1 {
        return None;
    }
    let how = if gap < 0.0 {
        "underconfident"
    } else {
        "overconfident"
    };
    Some(format!(
        "held-out probabilities are {how}: the most probable class is right for {:.1}% of the held-out rows but is given {:.3} on average (expected calibration error {:.3}); they rank rows (AUC) but are not calibrated probabilities — recalibrate them before reading them as frequencies (docs/classify.md, \"Probabilities\")",
        100.0 * c.accuracy,
        c.mean_probability,
        c.ece
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note names the direction, and stays silent within 0.1.
    #[test]
    fn calibration_note_names_the_direction() {
        // The note on two-class rows `(P(second class), true class)`.
        let note = |rows: [(f64, usize); 2]| {
            let rows = rows.map(|(p, y)| ([1.0 - p, p], y));
            calibration_note(&calibration(rows.iter().map(|(p, y)| (&p[..], *y))).expect("rows"))
        };
        assert!(
            note([(0.6, 1), (0.4, 0)])
                .expect("note")
                .contains("underconfident")
        );
        assert!(
            note([(0.99, 1), (0.99, 0)])
                .expect("note")
                .contains("overconfident")
        );
        assert!(note([(0.95, 1), (0.05, 0)]).is_none());
    }
}
