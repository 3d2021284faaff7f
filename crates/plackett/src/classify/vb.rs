//! Variational Bayes for the PL regression classifier (Archambeau & Caron 2012 §3.4, eqs
//! 18–19): `q(C) q(Z) q(λ)` with `q(λ_kj) = Gam(a_kj, b_kj)`,
//! `ρ_ij ∝ W_ij exp⟨ln λ_{Y_i j}⟩`, `⟨z_i⟩ = 1 / W_iᵀ Σ_l ⟨λ_l⟩`,
//! `a_kj = a + Σ_{i: Y_i = k} ρ_ij`, `b_kj = b + Σ_i ⟨z_i⟩ W_ij`.
//!
//! The free energy is computed every sweep and never decreases (each block
//! update maximises it exactly). Optionally `a` is set by type-II maximum
//! likelihood under `p(a) ∝ 1/a` (§3.5): `g(a) = Kp(a ln b − ln Γ(a)) +
//! (a − 1) Σ⟨ln λ_kj⟩ − ln a` is concave (`g'' = −Kp ψ'(a) + 1/a² < 0`), so a
//! safeguarded Newton search on `g'` finds its maximiser; the objective
//! then includes `ln p(a)` and still never decreases.

use super::data::ClassData;
use crate::error::Result;
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::numerics::special::{digamma, ln_gamma, trigamma};
use crate::observer::SharedObserver;

/// Settings.
#[derive(Clone)]
pub struct ClassifierVbOptions {
    /// Gamma prior shape (the starting value when `learn_a`).
    pub a: f64,
    /// Gamma prior rate.
    pub b: f64,
    /// Type-II maximum likelihood for `a`.
    pub learn_a: bool,
    /// Stop when the free energy changes by at most `iter.tol`,
    /// relatively; `iter.max_iter` caps the sweeps; SQUAREM when
    /// `iter.accelerate` (same fixed point, monotone free energy).
    pub iter: IterSettings,
    /// Progress and cancellation.
    pub observer: Option<SharedObserver>,
}

impl Default for ClassifierVbOptions {
    fn default() -> Self {
        ClassifierVbOptions {
            a: 1.0,
            b: 1.0,
            learn_a: true,
            iter: IterSettings::new(1e-10, 20_000),
            observer: None,
        }
    }
}

/// Result of [`vb`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct VbFit {
    /// Posterior shapes `a_kj`, row-major `K × p`.
    pub shape: Vec<f64>,
    /// Posterior rates `b_kj`.
    pub rate: Vec<f64>,
    /// Final `a`.
    pub a: f64,
    /// Negative free energy (plus `ln p(a)` when learning `a`) per sweep.
    pub free_energy: Vec<f64>,
    /// Sweeps.
    pub iterations: usize,
    /// Tolerance met.
    pub converged: bool,
}

impl VbFit {
    /// `E_q[ln λ]`, row-major `K × p` ([`expected_log`]).
    pub fn mean_log_weights(&self) -> Vec<f64> {
        expected_log(&self.shape, &self.rate)
    }

    /// Posterior means of the normalised weights, `E[λ_kj] / Σ E[λ]`.
    pub fn normalised_mean(&self) -> Vec<f64> {
        let m: Vec<f64> = self
            .shape
            .iter()
            .zip(&self.rate)
            .map(|(a, b)| a / b)
            .collect();
        let s: f64 = m.iter().sum();
        m.iter().map(|v| v / s).collect()
    }
}

/// Maximise `g(a)` (see the module doc) given `m = Kp` and `S = Σ⟨ln λ⟩`.
fn best_a(m: f64, b: f64, s: f64, start: f64) -> f64 {
    let g1 = |a: f64| m * (b.ln() - digamma(a)) + s - 1.0 / a;
    let g2 = |a: f64| -m * trigamma(a) + 1.0 / (a * a);
    let (mut lo, mut hi) = (1e-8f64, 1e8f64);
    let mut a = start.clamp(lo, hi);
    for _ in 0..200 {
        let d = g1(a);
        if d > 0.0 {
            lo = a;
        } else {
            hi = a;
        }
        let h = g2(a);
        let mut next = if h < 0.0 { a - d / h } else { f64::NAN };
        if !(next.is_finite() && next > lo && next < hi) {
            next = (lo * hi).sqrt(); // bisection in log a
        }
        if (next - a).abs() <= 1e-13 * a {
            return next;
        }
        a = next;
    }
    a
}

/// The variational factors of `q(λ)` and the shape `a`: the state the
/// coordinate ascent iterates on.
#[derive(Clone)]
struct State {
    shape: Vec<f64>,
    rate: Vec<f64>,
    a: f64,
}

impl State {
    fn to_flat(&self) -> Vec<f64> {
        let mut v = Vec::with_capacity(2 * self.shape.len() + 1);
        v.extend_from_slice(&self.shape);
        v.extend_from_slice(&self.rate);
        v.push(self.a);
        v
    }

    fn from_flat(v: &[f64], m: usize) -> State {
        State {
            shape: v[..m].to_vec(),
            rate: v[m..2 * m].to_vec(),
            a: v[2 * m],
        }
    }
}

/// `E ln λ = ψ(shape) − ln rate` under the Gamma factors `q(λ)`.
pub fn expected_log(shape: &[f64], rate: &[f64]) -> Vec<f64> {
    shape
        .iter()
        .zip(rate)
        .map(|(a, b)| digamma(*a) - b.ln())
        .collect()
}

/// `q(C)` and `q(Z)` given `q(λ) = Gam(shape, rate)` (eq 18): the
/// selector probabilities `ρ` (row-major `n × p`) and `⟨z_i⟩`.
pub(crate) fn local_factors(
    data: &ClassData,
    shape: &[f64],
    rate: &[f64],
    rho: &mut [f64],
    ez: &mut [f64],
) {
    let (p, k, n) = (data.p, data.k, data.n);
    let eln = expected_log(shape, rate);
    let col = column_sums(shape, rate, k, p);
    for i in 0..n {
        let w = data.row(i);
        let y = data.y[i];
        let r = &mut rho[i * p..(i + 1) * p];
        let mut mx = f64::NEG_INFINITY;
        for j in 0..p {
            r[j] = w[j].ln() + eln[y * p + j];
            mx = mx.max(r[j]);
        }
        let z: f64 = r.iter().map(|v| (v - mx).exp()).sum();
        let ln_z = mx + z.ln();
        r.iter_mut().for_each(|v| *v = (*v - ln_z).exp());
        ez[i] = 1.0 / w.iter().zip(&col).map(|(a, b)| a * b).sum::<f64>();
    }
}

/// One sweep of eqs 18–19 (and the type-II update of `a`) from `st`;
/// returns the new state and the negative free energy at the factors it
/// leaves (`q(C), q(Z)` from `st`, `q(λ)` and `a` new).
///
/// `tilt`: the log density tilted by `tᵀ ln λ` (the linear response's
/// defining perturbation, [`super::linear_response`]): it adds `t` to the
/// shapes and `tᵀ E ln λ` to the objective.
fn sweep(
    data: &ClassData,
    opts: &ClassifierVbOptions,
    st: &State,
    rho: &mut [f64],
    ez: &mut [f64],
    tilt: Option<&[f64]>,
) -> (State, f64) {
    let (p, k, n) = (data.p, data.k, data.n);
    let m = k * p;
    local_factors(data, &st.shape, &st.rate, rho, ez);
    // q(λ) given q(C), q(Z) (eq 19).
    let mut cnt = vec![0.0; m];
    let mut t = vec![0.0; p];
    for i in 0..n {
        let w = data.row(i);
        let y = data.y[i];
        for j in 0..p {
            cnt[y * p + j] += rho[i * p + j];
            t[j] += ez[i] * w[j];
        }
    }
    let mut next = State {
        shape: vec![0.0; m],
        rate: vec![0.0; m],
        a: st.a,
    };
    for c in 0..k {
        for j in 0..p {
            next.shape[c * p + j] = st.a + cnt[c * p + j];
            next.rate[c * p + j] = opts.b + t[j];
        }
    }
    if let Some(tilt) = tilt {
        next.shape.iter_mut().zip(tilt).for_each(|(s, t)| *s += t);
    }
    if opts.learn_a {
        let s: f64 = expected_log(&next.shape, &next.rate).iter().sum();
        next.a = best_a(m as f64, opts.b, s, st.a);
    }
    let mut fe = neg_free_energy(data, rho, ez, &next.shape, &next.rate, next.a, opts.b)
        - if opts.learn_a { next.a.ln() } else { 0.0 };
    if let Some(tilt) = tilt {
        fe += expected_log(&next.shape, &next.rate)
            .iter()
            .zip(tilt)
            .map(|(e, t)| t * e)
            .sum::<f64>();
    }
    (next, fe)
}

/// Coordinate ascent as a [`MonotoneMap`] on `(shape, rate, a)` laid
/// flat; the objective is the free energy the sweep leaves.
struct VbMap<'a> {
    data: &'a ClassData,
    opts: &'a ClassifierVbOptions,
    m: usize,
    rho: Vec<f64>,
    ez: Vec<f64>,
    tilt: Option<&'a [f64]>,
}

impl MonotoneMap for VbMap<'_> {
    fn eval(&mut self, x: &[f64]) -> Result<Iterate> {
        let st = State::from_flat(x, self.m);
        let (next, fe) = sweep(
            self.data,
            self.opts,
            &st,
            &mut self.rho,
            &mut self.ez,
            self.tilt,
        );
        // No gap: stop on the relative change of the free energy.
        Ok(Iterate::new(next.to_flat(), fe, None))
    }

    /// `(ln shape, ln rate, ln a)`: every entry is positive, so any
    /// extrapolated point is a valid state.
    fn to_coords(&self, x: &[f64]) -> Vec<f64> {
        x.iter().map(|v| v.ln()).collect()
    }

    fn coords_to_point(&self, c: Vec<f64>, _: &[f64]) -> Option<Vec<f64>> {
        let x: Vec<f64> = c.iter().map(|v| v.exp()).collect();
        x.iter().all(|v| v.is_finite() && *v > 0.0).then_some(x)
    }
}

/// Run VB.
///
/// Coordinate ascent is slow when the posterior is sparse (thousands of
/// sweeps on 30-feature data), so it runs on the shared fixed-point
/// executor ([`crate::numerics::fixed_point`]) with SQUAREM in the
/// log-coordinates of `(shape, rate, a)`: an extrapolated state is kept
/// only if the free energy its sweep reaches is at least that of the plain
/// sweep. The recorded free energy therefore never decreases, and the
/// fixed point is the one of plain coordinate ascent.
pub fn vb(data: &ClassData, opts: &ClassifierVbOptions) -> Result<VbFit> {
    vb_tilted(data, opts, None)
}

/// [`vb`] for the log density tilted by `tᵀ ln λ` (`tilt`: `K p` numbers,
/// row-major like the shapes); `None` is the model itself.
pub(crate) fn vb_tilted(
    data: &ClassData,
    opts: &ClassifierVbOptions,
    tilt: Option<&[f64]>,
) -> Result<VbFit> {
    super::check_gamma(opts.a, opts.b)?;
    let (p, k, n) = (data.p, data.k, data.n);
    let m = k * p;
    // Start from q(λ) = Gamma(1, b) (a flat start that does not depend on a).
    let start = State {
        shape: vec![1.0; m],
        rate: vec![opts.b; m],
        a: opts.a,
    };
    // q(C): ρ_ij for row i over the features of its class (row-major n × p).
    let mut map = VbMap {
        data,
        opts,
        m,
        rho: vec![0.0; n * p],
        ez: vec![0.0; n],
        tilt,
    };
    let out = Executor::new(opts.iter)
        .observer(opts.observer.clone())
        .run(&mut map, start.to_flat())?;
    // The free energy of the last evaluation belongs to its image.
    let cur = State::from_flat(&out.last.next, m);
    let converged = out.converged();
    Ok(VbFit {
        shape: cur.shape,
        rate: cur.rate,
        a: cur.a,
        free_energy: out.trace,
        iterations: out.evaluations,
        converged,
    })
}

fn column_sums(shape: &[f64], rate: &[f64], k: usize, p: usize) -> Vec<f64> {
    let mut col = vec![0.0; p];
    for c in 0..k {
        for j in 0..p {
            col[j] += shape[c * p + j] / rate[c * p + j];
        }
    }
    col
}

/// `−F = E_q[ln p(Y, C, Z, λ | a)] + H(q)` (eq 14) at the given factors.
/// Per row: `Σ_j ρ_ij (ln W_ij + ⟨ln λ_{Y_i j}⟩ − ln ρ_ij)` (selector and
/// its entropy) `− ⟨z_i⟩ W_iᵀΣ⟨λ⟩ + 1 + ln⟨z_i⟩` (arrival time and the
/// entropy of its exponential factor); per weight: the Gamma prior's
/// expected log density plus the entropy of `q(λ_kj)`.
pub fn neg_free_energy(
    data: &ClassData,
    rho: &[f64],
    ez: &[f64],
    shape: &[f64],
    rate: &[f64],
    a: f64,
    b: f64,
) -> f64 {
    let (p, k) = (data.p, data.k);
    let eln = expected_log(shape, rate);
    let col = column_sums(shape, rate, k, p);
    let mut fe = 0.0;
    for i in 0..data.n {
        let w = data.row(i);
        let y = data.y[i];
        for j in 0..p {
            let r = rho[i * p + j];
            if r > 0.0 {
                fe += r * (w[j].ln() + eln[y * p + j] - r.ln());
            }
        }
        let s: f64 = w.iter().zip(&col).map(|(a, b)| a * b).sum();
        fe += -ez[i] * s + 1.0 + ez[i].ln();
    }
    for q in 0..shape.len() {
        let (aq, bq) = (shape[q], rate[q]);
        fe += a * b.ln() - ln_gamma(a) + (a - 1.0) * eln[q] - b * aq / bq;
        fe += aq - bq.ln() + ln_gamma(aq) + (1.0 - aq) * digamma(aq);
    }
    fe
}
