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
use crate::numerics::squarem;

/// Settings.
#[derive(Debug, Clone)]
pub struct EmOptions {
    /// Gamma prior shape.
    pub a: f64,
    /// Gamma prior rate (sets the scale only; predictions do not depend on it).
    pub b: f64,
    /// Stop when the largest change of a weight, relative to the largest
    /// weight, is below this.
    pub tol: f64,
    /// Iteration cap (EM maps).
    pub max_iter: usize,
    /// SQUAREM acceleration (same fixed point, monotone).
    pub accelerate: bool,
}

impl Default for EmOptions {
    fn default() -> Self {
        EmOptions {
            a: 1.0,
            b: 1.0,
            tol: 1e-9,
            max_iter: 50_000,
            accelerate: true,
        }
    }
}

/// Result of [`em`].
#[derive(Debug, Clone)]
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

/// `Σ_i log P(Y_i | x_i, λ)` (any scale of λ).
pub fn log_likelihood(data: &ClassData, lam: &[f64]) -> f64 {
    let (p, k) = (data.p, data.k);
    let mut col = vec![0.0; p];
    for c in 0..k {
        for j in 0..p {
            col[j] += lam[c * p + j];
        }
    }
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
    let mut col = vec![0.0; p];
    for cl in 0..k {
        for j in 0..p {
            col[j] += lam[cl * p + j];
        }
    }
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
            return Err(Error::NotIdentifiable(format!(
                "with a = {a} every weight of class {} is set to zero (too few rows of that class for this much sparsity); use a larger --a",
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

/// Run EM from `init` (default: uniform weights); the result is normalised.
///
/// The iteration is accelerated with SQUAREM in log-weight coordinates on
/// the current support ([`crate::numerics::squarem`]); an extrapolated
/// point is kept only if it changes no support and its objective is at
/// least that of two plain EM steps, so `objective` stays non-decreasing
/// between support changes and the fixed point is the plain EM one.
pub fn em(data: &ClassData, opts: &EmOptions, init: Option<&[f64]>) -> Result<EmFit> {
    if !(opts.a.is_finite() && opts.a > 0.0) {
        return Err(Error::option(
            "--a",
            format!("the Gamma shape must be positive, got {}", opts.a),
        ));
    }
    if !(opts.b.is_finite() && opts.b > 0.0) {
        return Err(Error::option(
            "--b",
            format!("the Gamma rate must be positive, got {}", opts.b),
        ));
    }
    let m = data.k * data.p;
    let a = opts.a;
    let mut cur: Vec<f64> = match init {
        Some(v) => {
            let s: f64 = v.iter().sum();
            v.iter().map(|x| x / s).collect()
        }
        None => vec![1.0 / m as f64; m],
    };
    let mut step = em_map(data, a, &cur)?;
    let mut objective = vec![step.objective];
    let mut support_changes = Vec::new();
    let mut converged = false;
    let mut it = 0;
    let logs = |x: &[f64]| -> Vec<f64> {
        x.iter()
            .map(|&v| if v > 0.0 { v.ln() } else { f64::NEG_INFINITY })
            .collect()
    };
    while it < opts.max_iter {
        if !step.dropped && rel_change(&step.next, &cur) <= opts.tol {
            converged = true;
            cur = step.next;
            objective.push(log_posterior(data, &cur, a, opts.b));
            break;
        }
        let p1 = std::mem::take(&mut step.next);
        let dropped1 = step.dropped;
        let s1 = em_map(data, a, &p1)?;
        it += 1;
        let mut accepted = None;
        if opts.accelerate && !dropped1 && !s1.dropped {
            // Extrapolate ln λ̄ over the support (zeros stay zero).
            let (l0, l1, l2) = (logs(&cur), logs(&p1), logs(&s1.next));
            let sup: Vec<usize> = (0..m).filter(|&q| cur[q] > 0.0).collect();
            let pick = |l: &[f64]| -> Vec<f64> { sup.iter().map(|&q| l[q]).collect() };
            if let Some(e) = squarem::extrapolate(&pick(&l0), &pick(&l1), &pick(&l2)) {
                let mx = e.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mut pe = vec![0.0; m];
                for (&q, &v) in sup.iter().zip(&e) {
                    pe[q] = (v - mx).exp();
                }
                let tot: f64 = pe.iter().sum();
                pe.iter_mut().for_each(|v| *v /= tot);
                if pe.iter().zip(&cur).all(|(x, c)| (*x > 0.0) == (*c > 0.0)) {
                    let se = em_map(data, a, &pe)?; // stabilising step
                    if !se.dropped {
                        let ss = em_map(data, a, &se.next)?;
                        let s2 = em_map(data, a, &s1.next)?;
                        it += 2;
                        if ss.objective.is_finite() && ss.objective >= s2.objective {
                            accepted = Some((se.next, ss));
                        } else {
                            accepted = Some((s1.next.clone(), s2));
                        }
                    }
                }
            }
        }
        if dropped1 {
            support_changes.push(objective.len());
        }
        match accepted {
            Some((p, s)) => {
                objective.push(s1.objective);
                cur = p;
                step = s;
            }
            None => {
                cur = p1;
                step = s1;
            }
        }
        objective.push(step.objective);
        if objective.len() >= 2 && objective[objective.len() - 2] == step.objective && !dropped1 {
            // Converged to the last bit in the objective.
            converged = rel_change(&step.next, &cur) <= opts.tol.sqrt();
            if converged {
                break;
            }
        }
    }
    Ok(EmFit {
        lambda: cur,
        objective,
        support_changes,
        iterations: it,
        converged,
    })
}
