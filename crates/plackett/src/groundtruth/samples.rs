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
//! `T`-th largest tracked value), and otherwise draws just the three
//! risk-level sums of the split, `Dirichlet(α_split·n_r)`. The decision
//! depends on `O` and the tracked values only, so either way the result is
//! an exact draw.

use crate::numerics::gamma::ln_gamma_draw;

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
    logs: Vec<f64>,
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
            logs: Vec::new(),
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
        let by_value = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
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
            // Full split of O over the other classes, in log space (tiny
            // concentrations such as 1/419 would underflow otherwise).
            self.logs.clear();
            for _ in 0..self.others.len() {
                self.logs.push(ln_gamma_draw(rng, self.alpha_split, 1.0));
            }
            let l = crate::numerics::log_sum_exp(&self.logs);
            for (k, &c) in self.others.iter().enumerate() {
                let v = other * (self.logs[k] - l).exp();
                if let Some(r) = &self.risks {
                    risk[r[c as usize].min(2) as usize] += v;
                }
                self.cand.push((c, v));
            }
            let keep = t.min(self.cand.len());
            self.cand.select_nth_unstable_by(keep - 1, by_value);
            self.cand.truncate(keep);
            self.cand.sort_by(by_value);
        } else {
            if self.risks.is_some() && other > 0.0 {
                // Only the risk-level sums of the split: Dirichlet(α·n_r).
                let mut g = [0.0f64; 3];
                let mut tot = 0.0;
                for r in 0..3 {
                    if self.other_risk_counts[r] > 0 {
                        g[r] = ln_gamma_draw(
                            rng,
                            self.alpha_split * self.other_risk_counts[r] as f64,
                            1.0,
                        );
                    } else {
                        g[r] = f64::NEG_INFINITY;
                    }
                }
                let l = crate::numerics::log_sum_exp(&g);
                for r in 0..3 {
                    if g[r].is_finite() {
                        let v = other * (g[r] - l).exp();
                        risk[r] += v;
                        tot += v;
                    }
                }
                let _ = tot;
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
}
