//! Cross-validation of PL regression (seed 000 §5.2): L-partition (split
//! the observations) and N-partition (split the items; keep observations
//! whose items all fall on one side), k folds, repeated with seeds, over a
//! grid of prior precisions η, for MAP and a variational posterior.

use super::metrics::{comparison_auc, test_pairs, top_k_metric};
use super::predict::predict_pair;
use crate::data::Dataset;
use crate::data::features::Features;
use crate::error::Result;
use crate::infer::gaussian_vi::{ViOptions, vi};
use crate::infer::gaussian_vi_exact::{ExactViOptions, vi_exact};
use crate::infer::regression::fit_regression;
use crate::infer::rng::stream;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;

/// How to split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    /// Split observations.
    L,
    /// Split items.
    N,
}

/// Which variational posterior to evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViKind {
    /// Gaussian VI on the exact bound.
    Exact,
    /// Seed 000's Algorithm 1.
    Guo,
}

/// Cross-validation settings.
#[derive(Debug, Clone)]
pub struct CvOptions {
    /// Folds.
    pub folds: usize,
    /// Repetitions of the random partition.
    pub repeats: usize,
    /// Seed.
    pub seed: u64,
    /// η grid.
    pub etas: Vec<f64>,
    /// K of the top-K metric.
    pub top_k: usize,
    /// Variational posterior.
    pub vi: ViKind,
}

/// Mean test metrics per η for one method.
#[derive(Debug, Clone, Default)]
pub struct Curve {
    /// AUC per η.
    pub auc: Vec<f64>,
    /// Top-K per η.
    pub top_k: Vec<f64>,
}

/// Results of one partition type.
#[derive(Debug, Clone)]
pub struct CvResult {
    /// Partition.
    pub partition: Partition,
    /// η grid.
    pub etas: Vec<f64>,
    /// MAP curves.
    pub map: Curve,
    /// Variational curves.
    pub vi: Curve,
    /// Mean variational bound on the training data per η (its maximiser is
    /// η_L).
    pub bound: Vec<f64>,
    /// Splits evaluated.
    pub splits: usize,
    /// Mean test metrics at the η chosen per split by the bound (VI, MAP):
    /// (auc, top_k).
    pub at_bound_vi: (f64, f64),
    /// Same for MAP.
    pub at_bound_map: (f64, f64),
}

impl CvResult {
    /// Index of the η with the best mean top-K for a curve.
    pub fn best(curve: &Curve) -> usize {
        (0..curve.top_k.len()).max_by(|&a, &b| curve.top_k[a].total_cmp(&curve.top_k[b])).unwrap_or(0)
    }
    /// Index of the η with the largest mean bound.
    pub fn best_bound(&self) -> usize {
        (0..self.bound.len()).max_by(|&a, &b| self.bound[a].total_cmp(&self.bound[b])).unwrap_or(0)
    }
}

/// Restrict features to the items of a subset (same ids).
fn split_indices(n: usize, folds: usize, rng: &mut crate::infer::rng::Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    let mut fold = vec![0; n];
    for (k, &i) in order.iter().enumerate() {
        fold[i] = k % folds;
    }
    fold
}

/// Run the cross-validation for one partition type.
pub fn cross_validate(ds: &Dataset, feats: &Features, part: Partition, opts: &CvOptions) -> Result<CvResult> {
    let ne = opts.etas.len();
    let mut map = Curve { auc: vec![0.0; ne], top_k: vec![0.0; ne] };
    let mut vic = Curve { auc: vec![0.0; ne], top_k: vec![0.0; ne] };
    let mut bound = vec![0.0; ne];
    let mut splits = 0usize;
    let (mut bv, mut bm) = ((0.0, 0.0), (0.0, 0.0));
    for r in 0..opts.repeats {
        let mut rng = stream(opts.seed, &[r as u64, part as u64]);
        let fold = match part {
            Partition::L => split_indices(ds.n_real_obs(), opts.folds, &mut rng),
            Partition::N => split_indices(ds.n_items(), opts.folds, &mut rng),
        };
        for f in 0..opts.folds {
            let (train, test) = match part {
                Partition::L => (ds.subset(|o| fold[o] != f), ds.subset(|o| fold[o] == f)),
                Partition::N => {
                    let side = |o: usize, want: bool| ds.obs(o).members.iter().all(|&i| (fold[i as usize] == f) == want);
                    (ds.subset(|o| side(o, false)), ds.subset(|o| side(o, true)))
                }
            };
            let pairs = test_pairs(&test);
            if pairs.is_empty() || train.n_obs() == 0 {
                continue;
            }
            splits += 1;
            let x = &feats.x;
            let row = |i: u32| -> Vec<f64> { x.row(i as usize).iter().copied().collect() };
            let mut per_eta_vi = vec![(0.0, 0.0); ne];
            let mut per_eta_map = vec![(0.0, 0.0); ne];
            let mut per_eta_bound = vec![0.0; ne];
            for (e, &eta) in opts.etas.iter().enumerate() {
                let m = fit_regression(&train, feats, eta, 1e-8, 0)?;
                let mu = DVector::from_column_slice(&m.beta_work);
                let zero = DMatrix::zeros(feats.d(), feats.d());
                let pm = |a: u32, b: u32| predict_pair(&row(a), &row(b), &mu, &zero).plug_in;
                per_eta_map[e] = (comparison_auc(&pairs, &pm), top_k_metric(&pairs, ds.n_items(), opts.top_k, &pm));
                let (vmu, vcov, vb) = match opts.vi {
                    ViKind::Exact => {
                        let v = vi_exact(&train, feats, &ExactViOptions { eta, seed: opts.seed, ..Default::default() })?;
                        let b = *v.elbo.last().unwrap_or(&f64::NAN);
                        (v.mu, v.cov, b)
                    }
                    ViKind::Guo => {
                        let v = vi(&train, feats, &ViOptions { eta, ..Default::default() })?;
                        let b = v.bound_final();
                        (v.mu, v.cov, b)
                    }
                };
                let pv = |a: u32, b: u32| predict_pair(&row(a), &row(b), &vmu, &vcov).posterior;
                per_eta_vi[e] = (comparison_auc(&pairs, &pv), top_k_metric(&pairs, ds.n_items(), opts.top_k, &pv));
                per_eta_bound[e] = vb;
            }
            for e in 0..ne {
                map.auc[e] += per_eta_map[e].0;
                map.top_k[e] += per_eta_map[e].1;
                vic.auc[e] += per_eta_vi[e].0;
                vic.top_k[e] += per_eta_vi[e].1;
                bound[e] += per_eta_bound[e];
            }
            let eb = (0..ne).max_by(|&a, &b| per_eta_bound[a].total_cmp(&per_eta_bound[b])).unwrap_or(0);
            bv = (bv.0 + per_eta_vi[eb].0, bv.1 + per_eta_vi[eb].1);
            bm = (bm.0 + per_eta_map[eb].0, bm.1 + per_eta_map[eb].1);
        }
    }
    let s = splits.max(1) as f64;
    for c in [&mut map, &mut vic] {
        c.auc.iter_mut().for_each(|v| *v /= s);
        c.top_k.iter_mut().for_each(|v| *v /= s);
    }
    bound.iter_mut().for_each(|v| *v /= s);
    Ok(CvResult {
        partition: part,
        etas: opts.etas.clone(),
        map,
        vi: vic,
        bound,
        splits,
        at_bound_vi: (bv.0 / s, bv.1 / s),
        at_bound_map: (bm.0 / s, bm.1 / s),
    })
}
