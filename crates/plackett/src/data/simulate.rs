//! Synthetic data from a PL model with known worths (exponential race:
//! `argsort` of independent `Exp(λ_i)` arrival times is PL(λ); Stutz et al.
//! §4.4.5).

use super::dataset::{Dataset, DatasetBuilder, Tail, TieSemantics};
use super::items::Items;
use crate::numerics::gamma::exp_draw;
use rand::RngExt;

/// How simulated observations are formed.
#[derive(Debug, Clone, Copy)]
pub enum Design {
    /// Full rankings of every item.
    Full,
    /// Sub-rankings of `len` items drawn uniformly without replacement.
    SubRankings {
        /// Items per ranking.
        len: usize,
    },
    /// Top-`k` lists of the whole universe.
    TopK {
        /// Listed items per ranking.
        k: usize,
    },
    /// Pairwise comparisons of uniformly drawn pairs.
    Pairs,
}

/// Draw one PL ordering of `set` with worths `lam` (best first).
pub fn pl_order<R: rand::Rng + ?Sized>(rng: &mut R, set: &[u32], lam: &[f64]) -> Vec<u32> {
    let mut t: Vec<(f64, u32)> = set
        .iter()
        .map(|&i| (exp_draw(rng, lam[i as usize]), i))
        .collect();
    t.sort_by(|a, b| a.0.total_cmp(&b.0));
    t.into_iter().map(|x| x.1).collect()
}

/// `k` distinct items out of `n` (partial Fisher–Yates).
pub fn sample_subset<R: rand::Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    k: usize,
    buf: &mut Vec<u32>,
) -> Vec<u32> {
    if buf.len() != n {
        *buf = (0..n as u32).collect();
    }
    for i in 0..k {
        let j = rng.random_range(i..n);
        buf.swap(i, j);
    }
    buf[..k].to_vec()
}

/// One ordering (best first) and its tail under `design`, from PL(`lam`)
/// over the items `all`.
fn draw_design<R: rand::Rng + ?Sized>(
    rng: &mut R,
    lam: &[f64],
    all: &[u32],
    design: Design,
    buf: &mut Vec<u32>,
) -> (Vec<u32>, Tail) {
    let n = all.len();
    match design {
        Design::Full => (pl_order(rng, all, lam), Tail::None),
        Design::SubRankings { len } => {
            let s = sample_subset(rng, n, len.min(n), buf);
            (pl_order(rng, &s, lam), Tail::None)
        }
        Design::Pairs => {
            let s = sample_subset(rng, n, 2, buf);
            (pl_order(rng, &s, lam), Tail::None)
        }
        Design::TopK { k } => {
            let mut o = pl_order(rng, all, lam);
            o.truncate(k.min(n));
            (o, Tail::Universe)
        }
    }
}

/// Simulate `n_obs` observations from PL(`lam`) under `design`.
pub fn simulate<R: rand::Rng + ?Sized>(
    rng: &mut R,
    lam: &[f64],
    n_obs: usize,
    design: Design,
) -> Dataset {
    let n = lam.len();
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    let mut buf = Vec::new();
    let all: Vec<u32> = (0..n as u32).collect();
    for _ in 0..n_obs {
        let (order, tail) = draw_design(rng, lam, &all, design, &mut buf);
        let groups: Vec<Vec<u32>> = order.into_iter().map(|i| vec![i]).collect();
        b.push(&groups, tail, &[], 1.0)
            .expect("simulated data are valid");
    }
    b.finish()
}

/// Simulate `n_obs` observations from a finite PL mixture: each draws its
/// component from `weights`, then an ordering from PL(`lams[g]`) under
/// `design`; with probability `tie_prob` each ranked item after the first
/// joins the group before it (an unknown-order tie: a coarsening that does
/// not depend on the hidden order, so the PL likelihood of the tied data is
/// the sum over the orders it hides). Returns the data and each
/// observation's component.
pub fn simulate_mixture<R: rand::Rng + ?Sized>(
    rng: &mut R,
    weights: &[f64],
    lams: &[Vec<f64>],
    n_obs: usize,
    design: Design,
    tie_prob: f64,
) -> (Dataset, Vec<usize>) {
    let n = lams[0].len();
    let total: f64 = weights.iter().sum();
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    let mut buf = Vec::new();
    let all: Vec<u32> = (0..n as u32).collect();
    let mut labels = Vec::with_capacity(n_obs);
    for _ in 0..n_obs {
        let mut u = rng.random::<f64>() * total;
        let mut g = 0;
        while g + 1 < weights.len() && u >= weights[g] {
            u -= weights[g];
            g += 1;
        }
        let (order, tail) = draw_design(rng, &lams[g], &all, design, &mut buf);
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for (k, i) in order.into_iter().enumerate() {
            if k > 0 && tie_prob > 0.0 && rng.random::<f64>() < tie_prob {
                groups.last_mut().expect("k > 0").push(i);
            } else {
                groups.push(vec![i]);
            }
        }
        // One group holding everything in play says nothing: split off
        // its last item so every observation is kept (and labelled).
        let listed: usize = groups.iter().map(Vec::len).sum();
        if groups.len() == 1 && (tail == Tail::None || listed == n) {
            let last = groups[0].pop().expect("non-empty");
            groups.push(vec![last]);
        }
        b.push(&groups, tail, &[], 1.0)
            .expect("simulated data are valid");
        labels.push(g);
    }
    let ds = b.finish();
    debug_assert_eq!(ds.n_obs(), labels.len());
    (ds, labels)
}

/// A simulated PL-regression problem (Guo et al. 2019 §4): features
/// `x_i ~ N(0, feature_sd² I)`, true coefficients `β ~ N(0, I)` (unless
/// given), worths `λ_i = exp(x_iᵀβ)`, observations under `design`.
#[derive(Debug, Clone)]
pub struct RegressionProblem {
    /// The observations.
    pub data: Dataset,
    /// Features (not standardised).
    pub features: super::features::Features,
    /// The true coefficients.
    pub beta: Vec<f64>,
}

/// Simulate a [`RegressionProblem`]; the same seed gives the same problem.
pub fn regression_problem(
    n_items: usize,
    d: usize,
    n_obs: usize,
    design: Design,
    feature_sd: f64,
    beta: Option<Vec<f64>>,
    seed: u64,
) -> RegressionProblem {
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let x = nalgebra::DMatrix::from_fn(n_items, d, |_, _| {
        feature_sd * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut rng)
    });
    let beta = beta.unwrap_or_else(|| (0..d).map(|_| StandardNormal.sample(&mut rng)).collect());
    let theta = &x * nalgebra::DVector::from_column_slice(&beta);
    let mx = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lam: Vec<f64> = theta.iter().map(|t| (t - mx).exp()).collect();
    let data = simulate(&mut rng, &lam, n_obs, design);
    RegressionProblem {
        data,
        features: super::features::Features {
            names: (1..=d).map(|j| format!("x{j}")).collect(),
            x,
            centre: vec![0.0; d],
            scale: vec![1.0; d],
            extra: Vec::new(),
            rank_deficit: 0,
        },
        beta,
    }
}
