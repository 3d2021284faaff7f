//! Cross-validation of PL regression (Guo et al. 2019 §5.2): L-partition (split
//! the observations) and N-partition (split the items; keep observations
//! whose items all fall on one side), k folds, repeated with seeds, over a
//! grid of prior precisions η, for MAP and a variational posterior.

use crate::data::Dataset;
use crate::data::features::Features;
use crate::error::Result;
use crate::eval::metrics::{comparison_auc, test_pairs, top_k_metric};
use crate::eval::predict::predict_pair;
use crate::infer::gaussian_vi::{ViOptions, vi};
use crate::infer::gaussian_vi_exact::{ExactViOptions, vi_exact};
use crate::infer::regression::fit_regression;
use crate::sampling::rng::stream;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;

/// How to split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Partition {
    /// Split observations.
    L,
    /// Split items.
    N,
}

pub use crate::infer::feature_fit::ViKind;

/// Cross-validation settings.
#[derive(Clone)]
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
    /// Told of each finished fold (progress bars); may cancel the run.
    pub observer: Option<crate::observer::SharedObserver>,
}

impl std::fmt::Debug for CvOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CvOptions")
            .field("folds", &self.folds)
            .field("repeats", &self.repeats)
            .field("seed", &self.seed)
            .field("etas", &self.etas)
            .field("top_k", &self.top_k)
            .field("vi", &self.vi)
            .finish()
    }
}

/// Mean test metrics per η for one method.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Curve {
    /// Comparison AUC per η.
    pub auc: Vec<f64>,
    /// Top-K per η.
    pub top_k: Vec<f64>,
    /// Mean log predictive probability of the test pairs' outcomes per η
    /// (a proper score: higher is better).
    pub log_score: Vec<f64>,
}

impl Curve {
    fn zeros(n: usize) -> Curve {
        Curve {
            auc: vec![0.0; n],
            top_k: vec![0.0; n],
            log_score: vec![0.0; n],
        }
    }
    fn add(&mut self, e: usize, m: Metrics) {
        self.auc[e] += m.auc;
        self.top_k[e] += m.top_k;
        self.log_score[e] += m.log_score;
    }
    fn scale(&mut self, s: f64) {
        for v in [&mut self.auc, &mut self.top_k, &mut self.log_score] {
            v.iter_mut().for_each(|x| *x /= s);
        }
    }
    /// Index of the largest value of a metric.
    pub fn argmax(v: &[f64]) -> usize {
        (0..v.len())
            .max_by(|&a, &b| v[a].total_cmp(&v[b]))
            .unwrap_or(0)
    }
}

/// Test metrics of one fit on one split.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    /// Comparison AUC.
    pub auc: f64,
    /// Top-K metric.
    pub top_k: f64,
    /// Mean log probability of the observed pair outcomes.
    pub log_score: f64,
}

impl std::ops::AddAssign for Metrics {
    fn add_assign(&mut self, o: Metrics) {
        self.auc += o.auc;
        self.top_k += o.top_k;
        self.log_score += o.log_score;
    }
}

/// Results of one partition type.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
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
    /// Mean test metrics of the variational posterior at the η chosen in
    /// each split by that split's bound.
    pub at_bound_vi: Metrics,
    /// Same for MAP at the bound-chosen η.
    pub at_bound_map: Metrics,
    /// `(μ, ϱ, won)` of every test pair under the variational posterior at
    /// the bound-chosen η (Guo et al. 2019 Fig. 4).
    pub pr_triples: Vec<(f64, f64, bool)>,
}

impl CvResult {
    /// Index of the η with the largest mean bound (η_L).
    pub fn best_bound(&self) -> usize {
        Curve::argmax(&self.bound)
    }
}

/// Random fold labels for `n` units.
fn split_indices(n: usize, folds: usize, rng: &mut crate::sampling::rng::Rng) -> Vec<usize> {
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

fn metrics(
    pairs: &[(u32, u32)],
    n_items: usize,
    k: usize,
    prob: &(dyn Fn(u32, u32) -> f64 + Sync),
) -> Metrics {
    let log_score = pairs
        .iter()
        .map(|&(w, l)| prob(w, l).max(1e-300).ln())
        .sum::<f64>()
        / pairs.len().max(1) as f64;
    Metrics {
        auc: comparison_auc(pairs, prob),
        top_k: top_k_metric(pairs, n_items, k, prob),
        log_score,
    }
}

/// One η on one split: (MAP metrics, VI metrics, bound, VI (μ, S)).
type EtaOutcome = (Metrics, Metrics, f64, DVector<f64>, DMatrix<f64>);

fn one_eta(
    train: &Dataset,
    feats: &Features,
    pairs: &[(u32, u32)],
    n_items: usize,
    eta: f64,
    opts: &CvOptions,
) -> Result<EtaOutcome> {
    let x = &feats.x;
    let row = |i: u32| -> Vec<f64> { x.row(i as usize).iter().copied().collect() };
    let m = fit_regression(train, feats, eta, 1e-8, None)?;
    let mu = DVector::from_column_slice(&m.beta_work);
    let zero = DMatrix::zeros(feats.d(), feats.d());
    let pm = |a: u32, b: u32| predict_pair(&row(a), &row(b), &mu, &zero).plug_in;
    let mm = metrics(pairs, n_items, opts.top_k, &pm);
    let (vmu, vcov, vb) = match opts.vi {
        ViKind::Exact => {
            let v = vi_exact(
                train,
                feats,
                &ExactViOptions {
                    eta,
                    seed: opts.seed,
                    ..Default::default()
                },
            )?;
            let b = *v.bound.last().unwrap_or(&f64::NAN);
            (v.mu, v.cov, b)
        }
        ViKind::Guo => {
            let v = vi(train, feats, &ViOptions::with_eta(eta))?;
            let b = v.bound_final();
            (v.mu, v.cov, b)
        }
    };
    let pv = |a: u32, b: u32| predict_pair(&row(a), &row(b), &vmu, &vcov).posterior;
    let mv = metrics(pairs, n_items, opts.top_k, &pv);
    Ok((mm, mv, vb, vmu, vcov))
}

/// Run the cross-validation for one partition type. Splits are drawn from
/// `opts.seed` and the repetition index; the η values of a split are
/// evaluated in parallel, so results do not depend on the thread count.
pub fn cross_validate(
    ds: &Dataset,
    feats: &Features,
    part: Partition,
    opts: &CvOptions,
) -> Result<CvResult> {
    use rayon::prelude::*;
    let ne = opts.etas.len();
    if ne == 0 {
        return Err(crate::error::Error::param(
            "eta_grid",
            "the η grid is empty",
        ));
    }
    if opts.folds < 2 {
        return Err(crate::error::Error::param(
            "folds",
            format!("need at least 2 folds, got {}", opts.folds),
        ));
    }
    // More folds than units leaves empty folds (and a fold per unit is
    // leave-one-out already); a count beyond that is a typo, not a design.
    let units = match part {
        Partition::L => ds.n_real_obs(),
        Partition::N => ds.n_items(),
    };
    if opts.folds > units {
        return Err(crate::error::Error::param(
            "folds",
            format!(
                "{} folds for {units} {} (at most one fold per {})",
                opts.folds,
                if part == Partition::L {
                    "observations"
                } else {
                    "items"
                },
                if part == Partition::L {
                    "observation"
                } else {
                    "item"
                },
            ),
        ));
    }
    if opts.repeats == 0 || opts.repeats > 10_000 {
        return Err(crate::error::Error::param(
            "repeats",
            format!("expected 1 to 10000 repeats, got {}", opts.repeats),
        ));
    }
    let mut map = Curve::zeros(ne);
    let mut vic = Curve::zeros(ne);
    let mut bound = vec![0.0; ne];
    let mut splits = 0usize;
    let (mut bv, mut bm) = (Metrics::default(), Metrics::default());
    let mut pr_triples = Vec::new();
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
                    let side = |o: usize, want: bool| {
                        ds.obs(o)
                            .members
                            .iter()
                            .all(|&i| (fold[i as usize] == f) == want)
                    };
                    (ds.subset(|o| side(o, false)), ds.subset(|o| side(o, true)))
                }
            };
            let pairs = test_pairs(&test);
            crate::observer::advance(opts.observer.as_ref(), 1)?;
            if pairs.is_empty() || train.n_obs() == 0 {
                continue;
            }
            splits += 1;
            let out: Vec<EtaOutcome> = opts
                .etas
                .par_iter()
                .map(|&eta| one_eta(&train, feats, &pairs, ds.n_items(), eta, opts))
                .collect::<Result<Vec<_>>>()?;
            for (e, o) in out.iter().enumerate() {
                map.add(e, o.0);
                vic.add(e, o.1);
                bound[e] += o.2;
            }
            let eb = Curve::argmax(&out.iter().map(|o| o.2).collect::<Vec<_>>());
            bm += out[eb].0;
            bv += out[eb].1;
            let (vmu, vcov) = (&out[eb].3, &out[eb].4);
            let row = |i: u32| -> Vec<f64> { feats.x.row(i as usize).iter().copied().collect() };
            for &(w, l) in &pairs {
                let (a, b) = if w < l { (w, l) } else { (l, w) };
                let p = predict_pair(&row(a), &row(b), vmu, vcov);
                pr_triples.push((p.mean, p.sd, a == w));
            }
        }
    }
    if splits == 0 {
        return Err(crate::error::Error::not_identifiable(format!(
            "no {} split has both training data and test pairs; use fewer folds{}",
            match part {
                Partition::L => "observation (L-partition)",
                Partition::N => "item (N-partition)",
            },
            if part == Partition::N {
                " or the L-partition (N keeps only observations whose items fall on one side)"
            } else {
                ""
            }
        )));
    }
    let s = splits as f64;
    map.scale(s);
    vic.scale(s);
    bound.iter_mut().for_each(|v| *v /= s);
    let avg = |m: Metrics| Metrics {
        auc: m.auc / s,
        top_k: m.top_k / s,
        log_score: m.log_score / s,
    };
    Ok(CvResult {
        partition: part,
        etas: opts.etas.clone(),
        map,
        vi: vic,
        bound,
        splits,
        at_bound_vi: avg(bv),
        at_bound_map: avg(bm),
        pr_triples,
    })
}
