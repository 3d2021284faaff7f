//! EM for the MAP of the PL regression classifier (Archambeau & Caron 2012 §3.2, eqs 9–10).
//!
//! The likelihood depends on the weights only through the normalised
//! `λ̄ = λ/Λ`, `Λ = Σλ`; under iid Gamma(a, b) weights, `Λ ~ Gam(Kpa, b)` and
//! `λ̄ ~ Dirichlet(a, …, a)` independently, and the posterior factorises the
//! same way (§3.5). The MAP in (Λ, λ̄) coordinates is `Λ = (Kpa − 1)/b` (the
//! paper's `Λ^MAP`) and the mode of `f(λ̄) = ℓ(λ̄) + (a − 1) Σ ln λ̄_kj` on
//! the simplex. Eq 10 taken literally in λ coordinates has no positive
//! fixed point for the total mass when a ≤ 1 (the λ-density lacks the
//! Jacobian `Λ^{Kp−1}`), so every weight decays towards 0 together until it
//! underflows; we therefore run the same EM on the simplex:
//!
//! E-step (eq 9): `⟨n_kj⟩ = Σ_{i: Y_i = k} W_ij λ̄_kj / W_iᵀλ̄_k`, and the
//! tangent of `−ln W_iᵀΣλ̄` gives `t_j = Σ_i W_ij / W_iᵀΣ_l λ̄_l`.
//! M-step: maximise `Σ (a − 1 + ⟨n_kj⟩) ln λ̄_kj − Σ_j t_j Σ_k λ̄_kj` on the
//! simplex: `λ̄_kj = (a − 1 + ⟨n_kj⟩) / (t_j + μ)` with the multiplier μ
//! solving `Σ λ̄ = 1` — eq 10 with `b` replaced by μ — and exactly 0 when
//! `a − 1 + ⟨n_kj⟩ ≤ 0` (the exact-zero rule).
//!
//! This is an MM algorithm, so `f` never decreases while the support is
//! fixed. With a < 1 the Dirichlet density is unbounded at every face
//! `λ̄_kj = 0`: "MAP" then means the fixed point of EM with its zero rule. A
//! weight set to zero stays zero (its expected count is 0), so the support
//! only shrinks; the reported objective is `f` on the current support.

use super::data::ClassData;
use crate::error::{Error, Result};
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::observer::SharedObserver;

/// Settings.
#[derive(Clone)]
pub struct EmOptions {
    /// Gamma prior shape.
    pub a: f64,
    /// Gamma prior rate (sets the scale only; predictions do not depend on it).
    pub b: f64,
    /// Stop when the largest change of a weight, relative to the largest
    /// weight, is at most `iter.tol`; `iter.max_iter` caps the EM maps;
    /// SQUAREM when `iter.accelerate` (same fixed point, monotone).
    pub iter: IterSettings,
    /// Progress and cancellation.
    pub observer: Option<SharedObserver>,
}

impl Default for EmOptions {
    fn default() -> Self {
        EmOptions {
            a: 1.0,
            b: 1.0,
            iter: IterSettings::new(1e-9, 50_000),
            observer: None,
        }
    }
}

/// Result of [`em`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EmFit {
    /// Weights, row-major `K × p`.
    pub lambda: Vec<f64>,
    /// Log-posterior on the current support, per iteration (starting value
    /// first).
    pub objective: Vec<f64>,
    /// Iterations (1-based) at which weights were set to zero.
    pub support_changes: Vec<usize>,
    /// Iterations run.
    pub iterations: usize,
    /// Tolerance met.
    pub converged: bool,
}

impl EmFit {
    /// Number of exact zeros.
    pub fn zeros(&self) -> usize {
        self.lambda.iter().filter(|&&v| v == 0.0).count()
    }
}

/// `Σ_k λ_kj` per feature `j` (weights row-major `K × p`): the
/// denominator of every row's class probabilities.
fn feature_totals(lam: &[f64], k: usize, p: usize) -> Vec<f64> {
    let mut col = vec![0.0; p];
    for c in 0..k {
        for j in 0..p {
            col[j] += lam[c * p + j];
        }
    }
    col
}

/// `Σ_i log P(Y_i | x_i, λ)` (any scale of λ).
pub fn log_likelihood(data: &ClassData, lam: &[f64]) -> f64 {
    let p = data.p;
    let col = feature_totals(lam, data.k, p);
    let mut ll = 0.0;
    for i in 0..data.n {
        let w = data.row(i);
        let ly = &lam[data.y[i] * p..(data.y[i] + 1) * p];
        let num: f64 = w.iter().zip(ly).map(|(a, b)| a * b).sum();
        let den: f64 = w.iter().zip(&col).map(|(a, b)| a * b).sum();
        ll += num.ln() - den.ln();
    }
    ll
}

/// `f(λ̄) = ℓ(λ̄) + (a − 1) Σ_{λ̄_kj > 0} ln λ̄_kj` for `λ` normalised to sum 1
/// (the log-posterior of the normalised weights up to a constant, on the
/// support).
pub fn log_posterior(data: &ClassData, lam: &[f64], a: f64, _b: f64) -> f64 {
    let tot: f64 = lam.iter().sum();
    let prior: f64 = lam
        .iter()
        .filter(|&&v| v > 0.0)
        .map(|&v| (a - 1.0) * (v / tot).ln())
        .sum();
    log_likelihood(data, lam) + prior
}

/// Solve `Σ_kj c_kj / (t_j + μ) = 1` for μ > −min t (over active entries),
/// the left side decreasing in μ.
fn multiplier(c: &[f64], t: &[f64], p: usize) -> f64 {
    let tmin = (0..c.len())
        .filter(|&q| c[q] > 0.0)
        .map(|q| t[q % p])
        .fold(f64::INFINITY, f64::min);
    let g = |mu: f64| -> (f64, f64) {
        let mut s = 0.0;
        let mut ds = 0.0;
        for q in 0..c.len() {
            if c[q] > 0.0 {
                let d = t[q % p] + mu;
                s += c[q] / d;
                ds -= c[q] / (d * d);
            }
        }
        (s - 1.0, ds)
    };
    // Bracket: at μ → −tmin⁺ the sum → ∞; at μ = Σc − tmin it is ≤ 1.
    let total: f64 = c.iter().filter(|&&v| v > 0.0).sum();
    let (mut lo, mut hi) = (-tmin, total - tmin + 1.0);
    let mut mu = 0.0f64.clamp(lo + 1e-300, hi);
    if mu.is_nan() || mu <= lo {
        mu = 0.5 * (lo + hi);
    }
    for _ in 0..200 {
        let (v, dv) = g(mu);
        if v > 0.0 {
            lo = mu;
        } else {
            hi = mu;
        }
        let mut next = mu - v / dv;
        if !(next.is_finite() && next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - mu).abs() <= 1e-15 * (1.0 + mu.abs()) {
            return next;
        }
        mu = next;
    }
    mu
}

/// Weights below this (the normalised weights sum to 1) are set to exactly
/// zero: with a ≥ 1 a weight whose maximum is on the boundary decays
/// geometrically, and subnormal floating point would slow every later
/// iteration by two orders of magnitude while changing no probability.
const FLUSH: f64 = 1e-200;

/// One EM map at `lam` (normalised): returns `f(lam)` (on its support) and
/// the next iterate, and whether the next iterate has fewer non-zero
/// weights.
struct Step {
    next: Vec<f64>,
    objective: f64,
    dropped: bool,
}

fn em_map(data: &ClassData, a: f64, lam: &[f64]) -> Result<Step> {
    let (p, k) = (data.p, data.k);
    let m = k * p;
    let mut n = vec![0.0; m];
    let mut t = vec![0.0; p];
    let col = feature_totals(lam, k, p);
    // E-step (eq 9); the log-likelihood comes for free.
    let mut ll = 0.0;
    for i in 0..data.n {
        let w = data.row(i);
        let y = data.y[i];
        let ly = &lam[y * p..(y + 1) * p];
        let sy: f64 = w.iter().zip(ly).map(|(a, b)| a * b).sum();
        let s: f64 = w.iter().zip(&col).map(|(a, b)| a * b).sum();
        ll += sy.ln() - s.ln();
        let ny = &mut n[y * p..(y + 1) * p];
        for j in 0..p {
            ny[j] += w[j] * ly[j] / sy;
            t[j] += w[j] / s;
        }
    }
    let prior: f64 = lam
        .iter()
        .filter(|&&v| v > 0.0)
        .map(|&v| (a - 1.0) * v.ln())
        .sum();
    // M-step on the simplex, with the exact-zero rule.
    let mut c = vec![0.0; m];
    for q in 0..m {
        let num = a - 1.0 + n[q];
        c[q] = if lam[q] > 0.0 && num > 0.0 { num } else { 0.0 };
    }
    for cl in 0..k {
        if c[cl * p..(cl + 1) * p].iter().all(|&v| v == 0.0) {
            return Err(Error::not_identifiable(format!(
                "with a = {a} every weight of class {} is set to zero (too few rows of that class for this much sparsity); use a larger `a`",
                cl + 1
            )));
        }
    }
    let mu = multiplier(&c, &t, p);
    let mut next: Vec<f64> = (0..m)
        .map(|q| {
            if c[q] > 0.0 {
                c[q] / (t[q % p] + mu)
            } else {
                0.0
            }
        })
        .collect();
    let s: f64 = next.iter().sum();
    next.iter_mut().for_each(|v| {
        *v /= s;
        if *v < FLUSH {
            *v = 0.0;
        }
    });
    let dropped = (0..m).any(|q| lam[q] > 0.0 && next[q] == 0.0);
    Ok(Step {
        next,
        objective: ll + prior,
        dropped,
    })
}

/// Largest change relative to the largest weight.
fn rel_change(x: &[f64], y: &[f64]) -> f64 {
    let mx = y.iter().copied().fold(0.0f64, f64::max);
    x.iter()
        .zip(y)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f64, f64::max)
        / mx
}

/// The EM map as a [`MonotoneMap`] on the normalised weights.
struct EmMap<'a> {
    data: &'a ClassData,
    a: f64,
    /// Objective of the previous evaluation (the "last bit" rule).
    prev: Option<f64>,
}

impl MonotoneMap for EmMap<'_> {
    fn eval(&mut self, lam: &[f64]) -> Result<Iterate> {
        let step = em_map(self.data, self.a, lam)?;
        let mut gap = rel_change(&step.next, lam);
        // Converged to the last bit in the objective: the weights cannot
        // move further at this precision; accept them at √tol.
        if self.prev == Some(step.objective) {
            gap = gap * gap;
        }
        self.prev = Some(step.objective);
        Ok(Iterate {
            next: step.next,
            objective: step.objective,
            gap: Some(gap),
            regular: !step.dropped,
        })
    }

    /// Log-weights on the support (zeros stay zero: coordinate 0, equal in
    /// every iterate of one extrapolation, which never spans a support change).
    fn to_coords(&self, lam: &[f64]) -> Vec<f64> {
        lam.iter()
            .map(|&v| if v > 0.0 { v.ln() } else { 0.0 })
            .collect()
    }

    fn coords_to_point(&self, c: Vec<f64>, like: &[f64]) -> Option<Vec<f64>> {
        let mx = c
            .iter()
            .zip(like)
            .filter(|(_, l)| **l > 0.0)
            .map(|(c, _)| *c)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut pe: Vec<f64> = c
            .iter()
            .zip(like)
            .map(|(c, l)| if *l > 0.0 { (c - mx).exp() } else { 0.0 })
            .collect();
        let tot: f64 = pe.iter().sum();
        pe.iter_mut().for_each(|v| *v /= tot);
        // An extrapolation that underflows a weight would change the support.
        pe.iter()
            .zip(like)
            .all(|(x, l)| (*x > 0.0) == (*l > 0.0))
            .then_some(pe)
    }
}

/// Run EM from `init` (default: uniform weights); the result is normalised.
///
/// The iteration runs on the shared fixed-point executor
/// ([`crate::numerics::fixed_point`]), accelerated with SQUAREM in
/// log-weight coordinates on the current support: an extrapolated point is
/// kept only if it changes no support and its objective is at least that
/// of the plain step, so `objective` stays non-decreasing between support
/// changes and the fixed point is the plain EM one.
pub fn em(data: &ClassData, opts: &EmOptions, init: Option<&[f64]>) -> Result<EmFit> {
    super::check_gamma(opts.a, opts.b)?;
    let m = data.k * data.p;
    let start: Vec<f64> = match init {
        Some(v) => {
            let s: f64 = v.iter().sum();
            v.iter().map(|x| x / s).collect()
        }
        None => vec![1.0 / m as f64; m],
    };
    let mut map = EmMap {
        data,
        a: opts.a,
        prev: None,
    };
    let out = Executor::new(opts.iter)
        .observer(opts.observer.clone())
        .run(&mut map, start)?;
    let converged = out.converged();
    let mut objective = out.trace;
    // Report the converged image (one more EM map past the last check).
    let lambda = if converged {
        let l = out.last.next;
        objective.push(log_posterior(data, &l, opts.a, opts.b));
        l
    } else {
        out.x
    };
    Ok(EmFit {
        lambda,
        objective,
        support_changes: out.marks,
        iterations: out.evaluations,
        converged,
    })
}
