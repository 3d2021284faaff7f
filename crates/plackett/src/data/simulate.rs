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

/// Draw one PL ordering of `set` with worths `lam` (best first); the same
/// draw as [`pl_order_log`] on `ln λ`. A worth that has already
/// underflowed to 0 cannot race: callers holding log-worths should pass
/// them to [`pl_order_log`].
pub fn pl_order<R: rand::Rng + ?Sized>(rng: &mut R, set: &[u32], lam: &[f64]) -> Vec<u32> {
    race(rng, set, |i| lam[i].ln())
}

/// Draw one PL ordering of `set` with log-worths `theta` (best first): an
/// exponential race whose arrival times `E_i/λ_i` are compared by their
/// logarithms `ln E_i − θ_i`, so that items whose worths would underflow
/// (log-worths more than about 745 below the largest) still race among
/// themselves instead of all arriving at +∞ in the order of `set`.
pub fn pl_order_log<R: rand::Rng + ?Sized>(rng: &mut R, set: &[u32], theta: &[f64]) -> Vec<u32> {
    race(rng, set, |i| theta[i])
}

fn race<R: rand::Rng + ?Sized>(
    rng: &mut R,
    set: &[u32],
    log_worth: impl Fn(usize) -> f64,
) -> Vec<u32> {
    let mut t: Vec<(f64, u32)> = set
        .iter()
        .map(|&i| (exp_draw(rng, 1.0).ln() - log_worth(i as usize), i))
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

/// One ordering (best first) and its tail under `design`, from PL with
/// log-worths `theta` over the items `all`.
fn draw_design<R: rand::Rng + ?Sized>(
    rng: &mut R,
    theta: &[f64],
    all: &[u32],
    design: Design,
    buf: &mut Vec<u32>,
) -> (Vec<u32>, Tail) {
    let n = all.len();
    match design {
        Design::Full => (pl_order_log(rng, all, theta), Tail::None),
        Design::SubRankings { len } => {
            let s = sample_subset(rng, n, len.min(n), buf);
            (pl_order_log(rng, &s, theta), Tail::None)
        }
        Design::Pairs => {
            let s = sample_subset(rng, n, 2, buf);
            (pl_order_log(rng, &s, theta), Tail::None)
        }
        Design::TopK { k } => {
            let mut o = pl_order_log(rng, all, theta);
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
    let theta: Vec<f64> = lam.iter().map(|l| l.ln()).collect();
    simulate_log_worths(rng, &theta, n_obs, design)
}

/// Simulate `n_obs` observations under `design` from PL with log-worths
/// `theta`, which may span more than a double's exponent range.
pub fn simulate_log_worths<R: rand::Rng + ?Sized>(
    rng: &mut R,
    theta: &[f64],
    n_obs: usize,
    design: Design,
) -> Dataset {
    let n = theta.len();
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    let mut buf = Vec::new();
    let all: Vec<u32> = (0..n as u32).collect();
    for _ in 0..n_obs {
        let (order, tail) = draw_design(rng, theta, &all, design, &mut buf);
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
    let thetas: Vec<Vec<f64>> = lams
        .iter()
        .map(|l| l.iter().map(|x| x.ln()).collect())
        .collect();
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
        let (order, tail) = draw_design(rng, &thetas[g], &all, design, &mut buf);
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
/// given), log-worths `θ_i = x_iᵀβ`, observations under `design`.
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
    let data = simulate_log_worths(&mut rng, theta.as_slice(), n_obs, design);
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

/// What `plackett simulate` draws (Python: `plackett.simulate`): rankings
/// from PL with known worths, or from PL regression on simulated item
/// features.
#[derive(Debug, Clone)]
pub struct SimulationSpec {
    /// Items (at least 2).
    pub items: usize,
    /// Observations.
    pub rankings: usize,
    /// Items per sub-ranking, or listed items of a top-k list.
    pub length: usize,
    /// `full`, `sub`, `topk` or `pairs`.
    pub design: String,
    /// True worths: `linear` (1, 2, …, n) or `lognormal` (log-worths
    /// N(0, 1)); replaced by `xᵀβ` with `features`.
    pub worths: String,
    /// Seed.
    pub seed: u64,
    /// PL regression: this many features per item, `x ~ N(0,
    /// feature_sd²)`, `β ~ N(0, I)`.
    pub features: Option<usize>,
    /// Standard deviation of the simulated features.
    pub feature_sd: f64,
}

impl Default for SimulationSpec {
    fn default() -> Self {
        SimulationSpec {
            items: 10,
            rankings: 100,
            length: 10,
            design: "sub".into(),
            worths: "lognormal".into(),
            seed: 1,
            features: None,
            feature_sd: 1.0,
        }
    }
}

/// A simulated data set with its truth.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The observations (items named 0, 1, …).
    pub data: Dataset,
    /// The true log-worths `ln λ` (not centred; kept as logarithms because
    /// `x_iᵀβ` with wide features would overflow a worth).
    pub theta: Vec<f64>,
    /// With features: the features (not standardised) and the true β.
    pub regression: Option<(super::features::Features, Vec<f64>)>,
}

impl Simulation {
    /// The true log-worths, mean-centred (`--truth`).
    pub fn log_worths(&self) -> Vec<f64> {
        let mean = self.theta.iter().sum::<f64>() / self.theta.len() as f64;
        self.theta.iter().map(|l| l - mean).collect()
    }

    /// The observations as choix-style JSON lists, best first.
    pub fn rankings_json(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        s.push('[');
        for (o, obs) in self.data.observations().enumerate() {
            if o > 0 {
                s.push_str(",\n");
            }
            s.push('[');
            for (k, m) in obs.members.iter().enumerate() {
                if k > 0 {
                    s.push(',');
                }
                let _ = write!(s, "{m}");
            }
            s.push(']');
        }
        s.push_str("]\n");
        s
    }

    /// The features as CSV (`item,x1,…,xD`), with features.
    pub fn features_csv(&self) -> Option<String> {
        use std::fmt::Write as _;
        let (f, _) = self.regression.as_ref()?;
        let mut csv = String::from("item");
        for n in &f.names {
            let _ = write!(csv, ",{n}");
        }
        csv.push('\n');
        for i in 0..f.x.nrows() {
            let _ = write!(csv, "{i}");
            for j in 0..f.x.ncols() {
                let _ = write!(csv, ",{}", f.x[(i, j)]);
            }
            csv.push('\n');
        }
        Some(csv)
    }

    /// The true coefficients as CSV (`name,beta`), with features.
    pub fn beta_csv(&self) -> Option<String> {
        use std::fmt::Write as _;
        let (f, beta) = self.regression.as_ref()?;
        let mut t = String::from("name,beta\n");
        for (n, v) in f.names.iter().zip(beta) {
            let _ = writeln!(t, "{n},{v}");
        }
        Some(t)
    }
}

/// Simulate `spec` (the same spec and seed give the same data).
pub fn simulate_spec(spec: &SimulationSpec) -> crate::Result<Simulation> {
    use crate::Error;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};
    let a = spec;
    if a.items < 2 {
        return Err(Error::param("items", "need at least 2 items"));
    }
    // The simulator keeps a worth per item and every ranking in memory.
    if a.items > 10_000_000 {
        return Err(Error::param(
            "items",
            format!("at most 10000000 items, got {}", a.items),
        ));
    }
    if a.rankings > 100_000_000 {
        return Err(Error::param(
            "rankings",
            format!("at most 100000000 rankings, got {}", a.rankings),
        ));
    }
    let design = match a.design.as_str() {
        "full" => Design::Full,
        "topk" => Design::TopK { k: a.length },
        "pairs" => Design::Pairs,
        "sub" => Design::SubRankings { len: a.length },
        other => {
            return Err(Error::param(
                "design",
                format!("expected full, sub, topk or pairs, got {other:?}"),
            ));
        }
    };
    if a.length < 1 && a.design == "topk" {
        return Err(Error::param("length", "top-k lists need at least 1 item"));
    }
    if a.length < 2 && a.design == "sub" {
        return Err(Error::param("length", "sub-rankings need at least 2 items"));
    }
    if a.length > a.items && a.design != "full" && a.design != "pairs" {
        return Err(Error::param(
            "length",
            format!("{} exceeds `items` {}", a.length, a.items),
        ));
    }
    // The dataset (ids, marks, offsets, weights) and its JSON text, before
    // any of it is built.
    let per = match a.design.as_str() {
        "full" => a.items,
        "pairs" => 2,
        _ => a.length,
    } as u128;
    crate::numerics::memory::ensure(
        a.rankings as u128 * (per * 16 + 48) + a.items as u128 * 64,
        "rankings",
        &format!("simulating {} rankings of {per} items", a.rankings),
        "simulate fewer or shorter rankings (several runs with different seeds add up)",
    )?;
    if !(a.feature_sd.is_finite() && a.feature_sd > 0.0) {
        return Err(Error::param(
            "feature_sd",
            format!(
                "must be positive, got {}",
                crate::error::show_number(a.feature_sd)
            ),
        ));
    }
    if let Some(d) = a.features {
        if d == 0 {
            return Err(Error::param("features", "need at least one feature"));
        }
        if d > 100_000 || a.items.saturating_mul(d) > 100_000_000 {
            return Err(Error::param(
                "features",
                format!("{d} features for {} items is too many here", a.items),
            ));
        }
        let p = regression_problem(a.items, d, a.rankings, design, a.feature_sd, None, a.seed);
        let f = &p.features;
        let theta: Vec<f64> = (0..a.items)
            .map(|i| (0..d).map(|j| f.x[(i, j)] * p.beta[j]).sum::<f64>())
            .collect();
        return Ok(Simulation {
            data: p.data,
            theta,
            regression: Some((p.features, p.beta)),
        });
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(a.seed);
    let theta: Vec<f64> = match a.worths.as_str() {
        "linear" => (1..=a.items).map(|x| (x as f64).ln()).collect(),
        "lognormal" => {
            let nd = Normal::<f64>::new(0.0, 1.0).expect("valid");
            (0..a.items).map(|_| nd.sample(&mut rng)).collect()
        }
        other => {
            return Err(Error::param(
                "worths",
                format!("expected linear or lognormal, got {other:?}"),
            ));
        }
    };
    let data = simulate_log_worths(&mut rng, &theta, a.rankings, design);
    Ok(Simulation {
        data,
        theta,
        regression: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_reproduces_for_its_seed_and_refuses_bad_settings() {
        let spec = SimulationSpec {
            items: 6,
            rankings: 30,
            length: 3,
            ..SimulationSpec::default()
        };
        let (a, b) = (simulate_spec(&spec).unwrap(), simulate_spec(&spec).unwrap());
        assert_eq!(a.rankings_json(), b.rankings_json());
        assert_eq!(a.data.n_obs(), 30);
        let t = a.log_worths();
        assert!(t.iter().sum::<f64>().abs() < 1e-12, "mean-centred");
        // Linear worths 1..n: the truth is ln i, centred.
        let lin = simulate_spec(&SimulationSpec {
            worths: "linear".into(),
            ..spec.clone()
        })
        .unwrap();
        let ln: Vec<f64> = (1..=6).map(|i| (i as f64).ln()).collect();
        let m = ln.iter().sum::<f64>() / 6.0;
        for (x, y) in lin.log_worths().iter().zip(&ln) {
            assert!((x - (y - m)).abs() < 1e-12);
        }
        // With features the worths are exp(xᵀβ) and the CSVs say so.
        let reg = simulate_spec(&SimulationSpec {
            features: Some(2),
            ..spec.clone()
        })
        .unwrap();
        let csv = reg.features_csv().unwrap();
        assert_eq!(csv.lines().count(), 7);
        assert!(csv.starts_with("item,x1,x2\n"));
        assert_eq!(reg.beta_csv().unwrap().lines().count(), 3);
        assert!(a.features_csv().is_none());
        for (bad, param) in [
            (
                SimulationSpec {
                    items: 1,
                    ..spec.clone()
                },
                "items",
            ),
            (
                SimulationSpec {
                    length: 1,
                    ..spec.clone()
                },
                "length",
            ),
            (
                SimulationSpec {
                    length: 9,
                    ..spec.clone()
                },
                "length",
            ),
            (
                SimulationSpec {
                    design: "x".into(),
                    ..spec.clone()
                },
                "design",
            ),
            (
                SimulationSpec {
                    worths: "x".into(),
                    ..spec.clone()
                },
                "worths",
            ),
            (
                SimulationSpec {
                    features: Some(0),
                    ..spec.clone()
                },
                "features",
            ),
            (
                SimulationSpec {
                    feature_sd: f64::NAN,
                    ..spec.clone()
                },
                "feature_sd",
            ),
        ] {
            let e = simulate_spec(&bad).unwrap_err().to_string();
            assert!(e.contains(&format!("`{param}`")), "{param}: {e}");
        }
    }

    /// Two items 1000 below a third in log-worth have worths that underflow
    /// next to it, yet between themselves keep the odds `λ_2/(λ_1 + λ_2)`
    /// of their own race (here 3/4), and the third wins every time.
    #[test]
    fn a_race_far_below_the_leader_keeps_its_odds() {
        use rand::SeedableRng;
        let theta = [0.0, -1000.0, -1000.0 + 3f64.ln()];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let n = 20_000;
        let mut second_first = 0;
        for _ in 0..n {
            let o = pl_order_log(&mut rng, &[0, 1, 2], &theta);
            assert_eq!(o[0], 0);
            second_first += usize::from(o[1] == 2);
        }
        let f = second_first as f64 / n as f64;
        let se = (0.75f64 * 0.25 / n as f64).sqrt();
        assert!((f - 0.75).abs() < 4.0 * se, "{f}");
    }

    /// Wide features put `xᵀβ` beyond a double's exponent range; the truth
    /// stays finite (it was NaN and −∞ when the worths were exponentiated)
    /// and the rankings follow it: the best item by `xᵀβ` leads every full
    /// ranking, the worst closes it.
    #[test]
    fn wide_features_keep_the_truth_finite_and_the_rankings_ordered() {
        let sim = simulate_spec(&SimulationSpec {
            items: 6,
            rankings: 40,
            design: "full".into(),
            features: Some(3),
            feature_sd: 300.0,
            ..SimulationSpec::default()
        })
        .unwrap();
        let t = sim.log_worths();
        assert!(t.iter().all(|x| x.is_finite()), "{t:?}");
        let spread = t.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            - t.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(spread > 1500.0, "the case is wide: {spread}");
        let mut by: Vec<usize> = (0..6).collect();
        by.sort_by(|&a, &b| t[b].total_cmp(&t[a]));
        // Gaps of hundreds in log-worth: the race's order is the truth's
        // for every ranking (a gap of 40 already fails with odds e⁻⁴⁰).
        let mut gaps: Vec<f64> = by.windows(2).map(|w| t[w[0]] - t[w[1]]).collect();
        gaps.sort_by(f64::total_cmp);
        assert!(gaps[0] > 40.0, "{gaps:?}");
        for obs in sim.data.observations() {
            let got: Vec<usize> = obs.members.iter().map(|&m| m as usize).collect();
            assert_eq!(got, by);
        }
    }
}
