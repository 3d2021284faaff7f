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
        let (order, tail) = match design {
            Design::Full => (pl_order(rng, &all, lam), Tail::None),
            Design::SubRankings { len } => {
                let s = sample_subset(rng, n, len.min(n), &mut buf);
                (pl_order(rng, &s, lam), Tail::None)
            }
            Design::Pairs => {
                let s = sample_subset(rng, n, 2, &mut buf);
                (pl_order(rng, &s, lam), Tail::None)
            }
            Design::TopK { k } => {
                let mut o = pl_order(rng, &all, lam);
                o.truncate(k.min(n));
                (o, Tail::Universe)
            }
        };
        let groups: Vec<Vec<u32>> = order.into_iter().map(|i| vec![i]).collect();
        b.push(&groups, tail, &[], 1.0)
            .expect("simulated data are valid");
    }
    b.finish()
}
