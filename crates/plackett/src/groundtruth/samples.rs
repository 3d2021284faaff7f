//! Compact plausibility samples: for every posterior sample of a case only
//! the top-`T` classes (ids and values) and the three risk-level masses are
//! kept, so memory does not grow with the 419 classes.
//!
//! Both Bayesian aggregation models produce samples over the *tracked*
//! classes (those someone ranked, or IRN's support) plus one mass `O` for
//! all other classes `U`, whose split is Dirichlet(α_split·1) independently
//! of everything else (exact by the aggregation property of the Dirichlet
//! and of independent Gammas). [`Expander`] draws that split only when
//! some class of `U` could enter the top `T` (when `O` is at least the
//! `T`-th largest tracked value), and then only as far as the top `T`
//! needs it (size-biased picks until the mass left cannot reach the top
//! `T`; `Expander::split_top`); otherwise it draws just the three
//! risk-level sums of the split, `Dirichlet(α_split·n_r)`. Each decision
//! depends only on what has been drawn so far, so either way the result
//! is an exact draw.

use crate::numerics::gamma::ln_gamma_draw;
use rand::RngExt;

/// Per-sample top lists and risk masses of one case.
#[derive(Debug, Clone, Default)]
pub struct CaseSamples {
    /// Classes kept per sample.
    pub t: usize,
    /// `m × t` class ids, best first (ties: lowest id first).
    pub top_ids: Vec<u32>,
    /// `m × t` plausibilities.
    pub top_vals: Vec<f64>,
    /// Mass on each risk level per sample (if risks are known).
    pub risk_mass: Vec<[f64; 3]>,
}

impl CaseSamples {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.top_ids.len().checked_div(self.t).unwrap_or(0)
    }
    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Top ids of sample `m`.
    pub fn ids(&self, m: usize) -> &[u32] {
        &self.top_ids[m * self.t..(m + 1) * self.t]
    }
    /// Top values of sample `m`.
    pub fn vals(&self, m: usize) -> &[f64] {
        &self.top_vals[m * self.t..(m + 1) * self.t]
    }
}

/// Best first: higher value, then lower class id.
fn by_value(a: &(u32, f64), b: &(u32, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Adds to `risk` the mass `other · e^{ln_share}` of the unranked classes
/// counted in `counts` (per risk level), split over the levels as
/// `Dirichlet(α·n_r)` (the aggregation property of the symmetric split).
fn split_by_level<R: rand::Rng + ?Sized>(
    rng: &mut R,
    alpha: f64,
    counts: [usize; 3],
    other: f64,
    ln_share: f64,
    risk: &mut [f64; 3],
) {
    let mut g = [f64::NEG_INFINITY; 3];
    for r in 0..3 {
        if counts[r] > 0 {
            g[r] = ln_gamma_draw(rng, alpha * counts[r] as f64, 1.0);
        }
    }
    let l = crate::numerics::log_sum_exp(&g);
    for r in 0..3 {
        if g[r].is_finite() {
            risk[r] += other * (ln_share + g[r] - l).exp();
        }
    }
}

/// Turns (tracked values, other mass) into exact top-`T` lists.
#[derive(Debug, Clone)]
pub struct Expander {
    /// Tracked class ids (in the order of the value vectors).
    pub tracked: Vec<u32>,
    /// The other classes, sorted by id.
    pub others: Vec<u32>,
    /// Dirichlet concentration of each other class in the split of `O`.
    pub alpha_split: f64,
    /// Risk level (0, 1, 2) per class, if known.
    pub risks: Option<Vec<u8>>,
    /// Classes kept per sample.
    pub t: usize,
    other_risk_counts: [usize; 3],
    /// Scratch.
    cand: Vec<(u32, f64)>,
    pool: Vec<u32>,
}

impl Expander {
    /// Set up for one case over `n_classes` classes.
    pub fn new(
        tracked: Vec<u32>,
        n_classes: usize,
        alpha_split: f64,
        risks: Option<Vec<u8>>,
        t: usize,
    ) -> Expander {
        let mut is_tracked = vec![false; n_classes];
        for &c in &tracked {
            is_tracked[c as usize] = true;
        }
        let others: Vec<u32> = (0..n_classes as u32)
            .filter(|&c| !is_tracked[c as usize])
            .collect();
        let mut other_risk_counts = [0usize; 3];
        if let Some(r) = &risks {
            for &c in &others {
                other_risk_counts[r[c as usize].min(2) as usize] += 1;
            }
        }
        Expander {
            tracked,
            others,
            alpha_split,
            risks,
            t,
            other_risk_counts,
            cand: Vec::new(),
            pool: Vec::new(),
        }
    }

    /// Append one sample: `vals` are the tracked classes' plausibilities and
    /// `other` the mass of all other classes (they sum to one).
    pub fn push<R: rand::Rng + ?Sized>(
        &mut self,
        rng: &mut R,
        vals: &[f64],
        other: f64,
        out: &mut CaseSamples,
    ) {
        let t = self.t;
        out.t = t;
        self.cand.clear();
        self.cand
            .extend(self.tracked.iter().copied().zip(vals.iter().copied()));
        self.cand.sort_by(by_value);
        let vt = if self.cand.len() >= t {
            self.cand[t - 1].1
        } else {
            0.0
        };
        let mut risk = [0.0f64; 3];
        if let Some(r) = &self.risks {
            for &(c, v) in &self.cand {
                risk[r[c as usize].min(2) as usize] += v;
            }
        }
        let need_split =
            other > 0.0 && !self.others.is_empty() && (other >= vt || self.cand.len() < t);
        if need_split {
            self.split_top(rng, other, &mut risk);
        } else {
            if self.risks.is_some() && other > 0.0 {
                // Only the risk-level sums of the split.
                let counts = self.other_risk_counts;
                split_by_level(rng, self.alpha_split, counts, other, 0.0, &mut risk);
            }
            // Fewer tracked classes than T (and O = 0): pad with other
            // classes at value 0, lowest id first.
            let mut k = 0;
            while self.cand.len() < t && k < self.others.len() {
                self.cand.push((self.others[k], 0.0));
                k += 1;
            }
            self.cand.truncate(t);
        }
        for k in 0..t {
            let (c, v) = self.cand.get(k).copied().unwrap_or((u32::MAX, 0.0));
            out.top_ids.push(c);
            out.top_vals.push(v);
        }
        if self.risks.is_some() {
            out.risk_mass.push(risk);
        }
    }

    /// The split of `other` over the unranked classes, as far as the top
    /// `t` and the risk masses need it: `self.cand` (the tracked classes,
    /// sorted best first) becomes the top `t` of tracked and unranked
    /// classes together, and the unranked classes' mass is added to `risk`
    /// by level.
    ///
    /// The split `O·W`, `W ~ Dirichlet(α, …, α)` over the `n` unranked
    /// classes, is drawn in size-biased order: the first class picked with
    /// probability `W_j` is uniform over the `n` (by symmetry), its share
    /// is `Beta(α + 1, (n − 1)α)`, and the rest, renormalised, is
    /// `Dirichlet(α, …, α)` over the other `n − 1`, independent of it
    /// (`W_j · Dir(w; α) = Dir(w; α + e_j) / n`, and the neutrality of the
    /// Dirichlet: the finite form of the stick-breaking of a size-biased
    /// permutation). Picking stops
    /// once the mass left is below the `t`-th largest value so far: no
    /// class not yet picked can then enter the top `t`, and the mass left
    /// splits over the risk levels as `Dirichlet(α·n_r)` over the classes
    /// not picked (aggregation). Every sample is therefore an exact draw of
    /// the full split's top `t` and risk sums, at a few Beta draws instead
    /// of one Gamma draw per unranked class (415 of them per sample in the
    /// dermatology cases, where that loop took three quarters of `plackett
    /// evaluate --method pl`'s time).
    fn split_top<R: rand::Rng + ?Sized>(&mut self, rng: &mut R, other: f64, risk: &mut [f64; 3]) {
        let t = self.t;
        let a = self.alpha_split;
        self.cand.truncate(t);
        self.pool.clear();
        self.pool.extend_from_slice(&self.others);
        let mut left = self.other_risk_counts;
        // Log of the share of `other` not yet picked.
        let mut ln_rest = 0.0f64;
        while !self.pool.is_empty() {
            if self.cand.len() == t {
                // A relative margin so that rounding in the later shares
                // cannot lift one of them to the threshold.
                let bound = other * ln_rest.exp() * (1.0 + 1e-12);
                if bound < self.cand[t - 1].1 {
                    break;
                }
            }
            let c = self.pool.swap_remove(rng.random_range(0..self.pool.len()));
            let ln_share = if self.pool.is_empty() {
                // The last class takes whatever is left.
                let s = ln_rest;
                ln_rest = f64::NEG_INFINITY;
                s
            } else {
                let g1 = ln_gamma_draw(rng, a + 1.0, 1.0);
                let g2 = ln_gamma_draw(rng, a * self.pool.len() as f64, 1.0);
                let l = crate::numerics::log_add_exp(g1, g2);
                let s = ln_rest + (g1 - l);
                ln_rest += g2 - l;
                s
            };
            let v = other * ln_share.exp();
            if let Some(r) = &self.risks {
                let level = r[c as usize].min(2) as usize;
                risk[level] += v;
                left[level] -= 1;
            }
            let at = self
                .cand
                .partition_point(|x| by_value(x, &(c, v)) == std::cmp::Ordering::Less);
            if at < t {
                self.cand.insert(at, (c, v));
                self.cand.truncate(t);
            }
        }
        if self.risks.is_some() && ln_rest > f64::NEG_INFINITY {
            // The classes never picked: their mass by risk level.
            split_by_level(rng, a, left, other, ln_rest, risk);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::rng::stream;

    /// The split drawn in full, as the expander did before it drew it in
    /// size-biased order: one Gamma(α) per unranked class, normalised.
    fn full_split(
        rng: &mut impl rand::Rng,
        e: &Expander,
        vals: &[f64],
        other: f64,
    ) -> (Vec<(u32, f64)>, [f64; 3]) {
        let logs: Vec<f64> = e
            .others
            .iter()
            .map(|_| ln_gamma_draw(rng, e.alpha_split, 1.0))
            .collect();
        let l = crate::numerics::log_sum_exp(&logs);
        let mut all: Vec<(u32, f64)> = e
            .tracked
            .iter()
            .copied()
            .zip(vals.iter().copied())
            .collect();
        all.extend(
            e.others
                .iter()
                .zip(&logs)
                .map(|(&c, &g)| (c, other * (g - l).exp())),
        );
        let mut risk = [0.0; 3];
        let r = e.risks.as_ref().unwrap();
        for &(c, v) in &all {
            risk[r[c as usize] as usize] += v;
        }
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(e.t);
        (all, risk)
    }

    /// Two-sample Kolmogorov–Smirnov statistic.
    fn ks(mut a: Vec<f64>, mut b: Vec<f64>) -> f64 {
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        let (mut i, mut j, mut d) = (0, 0, 0.0f64);
        // Step past every copy of the next value in both (ties: the
        // tracked classes' fixed values recur in many samples).
        while i < a.len() && j < b.len() {
            let v = a[i].min(b[j]);
            while i < a.len() && a[i] <= v {
                i += 1;
            }
            while j < b.len() && b[j] <= v {
                j += 1;
            }
            d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
        }
        d
    }

    /// The size-biased split gives the full split's top `T` and risk sums
    /// in distribution: top values and risk masses by a two-sample KS test,
    /// how often an unranked class reaches the top and which one by
    /// frequency, for a small concentration (the dermatology cases' order
    /// of magnitude) and for the flat Dirichlet.
    #[test]
    fn the_size_biased_split_draws_what_the_full_split_draws() {
        let n_classes = 60;
        let risks: Vec<u8> = (0..n_classes).map(|c| (c * 7 % 3) as u8).collect();
        let tracked = vec![5u32, 11];
        let vals = [0.35, 0.2];
        let other = 0.45;
        let m = 20_000;
        for (case, &alpha) in [0.01, 1.0].iter().enumerate() {
            let mut e = Expander::new(tracked.clone(), n_classes, alpha, Some(risks.clone()), 3);
            let mut rng = stream(7, &[case as u64, 1]);
            let mut out = CaseSamples::default();
            for _ in 0..m {
                e.push(&mut rng, &vals, other, &mut out);
            }
            let mut rng = stream(7, &[case as u64, 2]);
            let full: Vec<_> = (0..m)
                .map(|_| full_split(&mut rng, &e, &vals, other))
                .collect();
            // 99.9% two-sample KS bound: 1.95 √(2/m).
            let bound = 1.95 * (2.0 / m as f64).sqrt();
            for k in 0..3 {
                let ours: Vec<f64> = (0..m).map(|s| out.vals(s)[k]).collect();
                let theirs: Vec<f64> = full.iter().map(|f| f.0[k].1).collect();
                let d = ks(ours, theirs);
                assert!(
                    d < bound,
                    "alpha {alpha}: top-{} value KS {d} (bound {bound})",
                    k + 1
                );
            }
            for r in 0..3 {
                let ours: Vec<f64> = out.risk_mass.iter().map(|x| x[r]).collect();
                let theirs: Vec<f64> = full.iter().map(|f| f.1[r]).collect();
                let sums = out
                    .risk_mass
                    .iter()
                    .all(|x| (x.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                assert!(sums, "alpha {alpha}: risk masses do not sum to 1");
                let d = ks(ours, theirs);
                assert!(
                    d < bound,
                    "alpha {alpha}: risk level {r} mass KS {d} (bound {bound})"
                );
            }
            // Unranked classes in the top 3: how often, and each equally.
            let count = |ids: &mut dyn Iterator<Item = u32>| {
                let mut c = vec![0usize; n_classes];
                for id in ids {
                    c[id as usize] += 1;
                }
                c
            };
            let ours = count(&mut (0..m).flat_map(|s| out.ids(s).to_vec()));
            let theirs = count(
                &mut full
                    .iter()
                    .flat_map(|f| f.0.iter().map(|x| x.0).collect::<Vec<_>>()),
            );
            let unranked = |c: &[usize]| {
                c.iter()
                    .enumerate()
                    .filter(|(i, _)| !tracked.contains(&(*i as u32)))
                    .map(|x| *x.1)
                    .sum::<usize>() as f64
            };
            let (po, pt) = (unranked(&ours) / m as f64, unranked(&theirs) / m as f64);
            let se = ((po * (3.0 - po) + pt * (3.0 - pt)) / m as f64).sqrt();
            assert!(
                (po - pt).abs() < 4.0 * se,
                "alpha {alpha}: unranked classes in the top 3 {po} against {pt}"
            );
            // Each unranked class equally often (χ² over the 58, 99.9%: 96.9 for 57 df).
            let expect = unranked(&ours) / (n_classes - tracked.len()) as f64;
            let chi2: f64 = (0..n_classes)
                .filter(|c| !tracked.contains(&(*c as u32)))
                .map(|c| (ours[c] as f64 - expect).powi(2) / expect)
                .sum();
            assert!(
                chi2 < 96.9,
                "alpha {alpha}: unranked classes not picked uniformly (chi2 {chi2})"
            );
        }
    }

    /// With fewer classes than `T` every class is listed, and the sample's
    /// values and risk masses add up to one.
    #[test]
    fn a_split_over_fewer_classes_than_t_lists_them_all() {
        let risks = vec![0u8, 1, 2, 1];
        let mut e = Expander::new(vec![2], 4, 0.5, Some(risks), 6);
        let mut rng = stream(3, &[0]);
        let mut out = CaseSamples::default();
        for _ in 0..100 {
            e.push(&mut rng, &[0.4], 0.6, &mut out);
        }
        for s in 0..100 {
            let ids = out.ids(s);
            let mut listed: Vec<u32> = ids[..4].to_vec();
            listed.sort();
            assert_eq!(listed, vec![0, 1, 2, 3]);
            assert_eq!(&ids[4..], &[u32::MAX, u32::MAX]);
            assert!((out.vals(s).iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!((out.risk_mass[s].iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}
