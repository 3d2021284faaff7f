//! Variational Bayes with a Gamma mean-field posterior over worths and the
//! exponential augmentation of the Gibbs sampler (the Archambeau & Caron 2012 §3.4 pattern
//! applied to the featureless model).
//!
//! With `q(λ) = Π Gamma(α_i, β_i)` the optimal factor over the latent times
//! (and over the internal orders of unknown-order groups) is the augmented
//! model's conditional with `E[λ]` in every denominator; then
//!
//! * `α_i = a_i + W_i` (stage wins),
//! * `β_i = b + E[den_i]`, the PL sweep's in-play coefficient at `E[λ] = α/β`,
//!
//! and the evidence lower bound after each update is
//!
//! ```text
//! ELBO = Σ_i W_i E log λ_i + [ℓ_sweep(E λ) − Σ_i W_i log E λ_i]
//!      + Σ_i [a_i log b − log Γ(a_i) + (a_i − 1) E log λ_i − b E λ_i + H(Gamma(α_i, β_i))]
//! ```
//!
//! (`ℓ_sweep(E λ) − Σ W log Eλ` is `−Σ_s w_s log D̄_s + Σ_G w log R(G)`).
//! Coordinate ascent makes this non-decreasing; every iteration's value is
//! kept in the trace.
//!
//! **Linear-response covariance** (Giordano, Broderick & Jordan 2015; the
//! default, [`VbCovariance`]). Tilting the log density by `tᵀ log λ` moves
//! the shapes to `α + t` and the rates to the fixed point of
//! `β = b + den(α/β)`; differentiating that fixed point gives
//! `dE[log λ]/dt = diag(ψ'(α)) − diag(1/β)(I + J A)⁻¹ J diag(1/β)` with
//! `J = ∂den/∂m` at `m = α/β` and `A = diag(α/β²)`. The log-likelihood's
//! score in `θ = log λ` is `W − m ⊙ den(m)`, so `diag(m) J diag(m) = I(θ) −
//! diag(m ⊙ den)` with `I(θ)` the observed information (Louis' identity for
//! unknown-order groups, [`crate::model::information`]), and at the fixed
//! point `m ⊙ den = α − b m`. The correction then collapses to
//!
//! ```text
//! Σ_LR = diag(ψ'(α) − 1/α) + (I(θ) + b diag(m))⁻¹,
//! ```
//!
//! a Laplace-type covariance at VB's mean (the Gamma prior's curvature in
//! `θ` is `b e^θ`) plus the small positive `ψ'(α) − 1/α ≈ 1/(2α²)`:
//! symmetric, positive definite, one Cholesky factor. Draws are then
//! `N(E log λ, Σ_LR)` and normalised; the means are mean-field VB's.
//!
//! The likelihood part of the bound is invariant to a common rescaling of
//! all worths (every stage has one winner), so the overall scale is pinned
//! by the prior alone and plain coordinate ascent creeps along it. Each
//! iteration therefore also takes the exact maximiser over `β → β/c`:
//! `c = Σ a_i / (b Σ_i α_i/β_i)`, which is another coordinate step, so the
//! bound stays monotone.

use super::bayes::{BayesFit, GammaPrior, draws_from_gammas};
pub use super::linear_response::VbCovariance;
use super::mm::{Shards, Source};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::pl::{self, Scope};
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::numerics::linalg::Cholesky;
use crate::numerics::special::{digamma, ln_gamma, trigamma};
use crate::observer::SharedObserver;
use crate::posterior::Draws;
use nalgebra::DMatrix;

/// The note a mean-field VB fit carries: the Gamma marginals are too
/// narrow (docs/engines.md, "Calibration and coverage": nominal 90%
/// intervals of mean-centred log-worths covered 0.844 of 900 simulated
/// truths, EP's 0.916).
pub const VB_INTERVALS_NOTE: &str = "vb: mean-field intervals are too narrow (nominal 90% \
     intervals of log-worths covered 84% of simulated true values, the linear-response \
     covariance's 90%, ep's 92%; docs/engines.md); use ep, gibbs or, where it can be \
     computed, the linear-response covariance where interval widths matter";

/// The note a linear-response VB fit carries (docs/engines.md,
/// "Calibration and coverage").
pub const VB_LINEAR_RESPONSE_NOTE: &str = "vb: intervals from the linear-response covariance \
     (Giordano, Broderick & Jordan 2015) about VB's means, Gaussian in log-worth; \
     nominal 90% intervals covered 90% of simulated true values (mean-field 84%, ep 92%; \
     docs/engines.md)";

/// Settings for [`vb`].
#[derive(Clone)]
pub struct VbOptions {
    /// Gamma prior.
    pub prior: GammaPrior,
    /// Stop when no rate changes by more than `iter.tol` (relative);
    /// `iter.max_iter` caps the updates.
    pub iter: IterSettings,
    /// Draws sampled from the approximate posterior.
    pub draws: usize,
    /// Seed for those draws.
    pub seed: u64,
    /// Progress and cancellation.
    pub observer: Option<SharedObserver>,
    /// The covariance the sds, intervals and draws come from: the
    /// linear-response correction (default) or the mean-field factors'
    /// own. Means and ELBO are the same either way.
    pub covariance: VbCovariance,
}

impl VbOptions {
    /// The defaults `plackett fit --engine vb` uses, with `prior`:
    /// tolerance 1e-10, at most 100,000 iterations, 4,000 draws with seed 1,
    /// the linear-response covariance.
    pub fn new(prior: GammaPrior) -> VbOptions {
        VbOptions {
            prior,
            iter: IterSettings::new(1e-10, 100_000),
            draws: 4000,
            seed: 1,
            observer: None,
            covariance: VbCovariance::LinearResponse,
        }
    }
}

/// Most items for which the linear-response covariance is computed (an
/// `n × n` information matrix and its Cholesky factor: 200 MB and a few
/// seconds at this size); above it the fit reports mean-field with a note.
pub const MAX_LINEAR_RESPONSE_ITEMS: usize = 5000;

/// `Σ_LR = diag(ψ'(α) − 1/α) + (I(θ) + b diag(m))⁻¹` at `m = α/β` (module
/// doc), the covariance of `log λ` under the linear response. `Err` with
/// the reason when it cannot be had (too many items, an unknown-order
/// group too large for the exact information, a matrix not positive
/// definite).
pub fn linear_response_covariance(
    ds: &Dataset,
    prior: &GammaPrior,
    alpha: &[f64],
    beta: &[f64],
) -> Result<DMatrix<f64>> {
    linear_response_from(&mut Source::Data(ds), prior, alpha, beta)
}

fn linear_response_from(
    source: &mut Source<'_>,
    prior: &GammaPrior,
    alpha: &[f64],
    beta: &[f64],
) -> Result<DMatrix<f64>> {
    let n = alpha.len();
    if n > MAX_LINEAR_RESPONSE_ITEMS {
        return Err(Error::Numerical(format!(
            "{n} items, more than the {MAX_LINEAR_RESPONSE_ITEMS} the linear-response covariance is computed for"
        )));
    }
    let mean: Vec<f64> = (0..n).map(|i| alpha[i] / beta[i]).collect();
    let theta: Vec<f64> = mean.iter().map(|m| m.ln()).collect();
    let mut h = source.information_lower(&theta)?;
    if h.nrows() != n || h.ncols() != n {
        return Err(Error::Data(format!(
            "an information matrix of {} × {} for {n} items",
            h.nrows(),
            h.ncols()
        )));
    }
    for i in 0..n {
        h[(i, i)] += prior.rate * mean[i];
    }
    let chol = Cholesky::new(&h).ok_or_else(|| {
        Error::Numerical("the linear-response matrix is not positive definite".into())
    })?;
    let mut v = chol.inverse();
    for i in 0..n {
        v[(i, i)] += trigamma(alpha[i]) - 1.0 / alpha[i];
    }
    // faer's inverse is symmetric up to rounding: make it exactly so.
    for j in 0..n {
        for i in j + 1..n {
            let x = 0.5 * (v[(i, j)] + v[(j, i)]);
            v[(i, j)] = x;
            v[(j, i)] = x;
        }
    }
    Ok(v)
}

/// `m` independent draws of normalised log-worths from `N(mean, cov)`,
/// seeded (one standard-normal stream; `L Z` as triangular products over
/// fixed blocks of draws, in parallel, the same bits on any number of
/// threads).
pub fn draws_from_gaussian(mean: &[f64], cov: &DMatrix<f64>, m: usize, seed: u64) -> Result<Draws> {
    use rand_distr::{Distribution, StandardNormal};
    use rayon::prelude::*;
    const BLOCK: usize = 64;
    let n = mean.len();
    let l = Cholesky::new(cov)
        .ok_or_else(|| Error::Numerical("covariance not positive definite".into()))?
        .l();
    let mut rng = super::rng::stream(seed, &[0x4c52_4e4f]);
    let z: Vec<f64> = (0..n * m)
        .map(|_| StandardNormal.sample(&mut rng))
        .collect();
    let mut data = vec![0.0; n * m];
    if n > 0 && m > 0 {
        data.par_chunks_mut(n * BLOCK)
            .zip(z.par_chunks(n * BLOCK))
            .for_each(|(out, zb)| crate::numerics::linalg::lower_triangular_mul_cols(&l, zb, out));
    }
    for row in data.chunks_mut(n.max(1)) {
        row.iter_mut().zip(mean).for_each(|(x, mu)| *x += mu);
        Draws::normalise(row);
    }
    Ok(Draws::from_chains(n, vec![data]))
}

/// The ELBO at rates `beta` from the log-likelihood of the PL sweep at
/// the means `α/β` (the sweep the rate update needs anyway).
fn elbo(sweep_loglik: f64, prior: &GammaPrior, wins: &[f64], alpha: &[f64], beta: &[f64]) -> f64 {
    let n = alpha.len();
    let b = prior.rate;
    let mut e = sweep_loglik;
    for i in 0..n {
        let mean = alpha[i] / beta[i];
        let elog = digamma(alpha[i]) - beta[i].ln();
        let a = prior.shapes[i];
        e += wins[i] * (elog - mean.ln());
        e += a * b.ln() - ln_gamma(a) + (a - 1.0) * elog - b * mean;
        e += alpha[i] - beta[i].ln() + ln_gamma(alpha[i]) + (1.0 - alpha[i]) * digamma(alpha[i]);
    }
    e
}

/// One coordinate-ascent update of the rates `β` (with the exact step
/// along the scale direction) as a [`MonotoneMap`]; the shapes
/// `α = a + W` are fixed. Objective: the ELBO at the input; gap: the
/// largest relative change of a rate.
struct RateMap<'a, 's> {
    source: &'a mut Source<'s>,
    prior: &'a GammaPrior,
    wins: &'a [f64],
    alpha: &'a [f64],
}

impl MonotoneMap for RateMap<'_, '_> {
    fn eval(&mut self, beta: &[f64]) -> Result<Iterate> {
        let (n, b, alpha) = (beta.len(), self.prior.rate, self.alpha);
        let mean: Vec<f64> = (0..n).map(|i| alpha[i] / beta[i]).collect();
        let log_mean: Vec<f64> = mean.iter().map(|m| m.ln()).collect();
        let sw = self.source.sweep(&mean, &log_mean, self.wins)?;
        let mut nb: Vec<f64> = (0..n).map(|i| b + sw.den[i]).collect();
        // Exact step along the scale direction.
        let c = self.prior.shapes.iter().sum::<f64>()
            / (b * (0..n).map(|i| alpha[i] / nb[i]).sum::<f64>());
        nb.iter_mut().for_each(|x| *x /= c);
        let change = (0..n)
            .map(|i| ((nb[i] - beta[i]) / beta[i]).abs())
            .fold(0.0f64, f64::max);
        let e = elbo(sw.loglik, self.prior, self.wins, alpha, beta);
        Ok(Iterate::new(nb, e, Some(change)))
    }

    /// Log-rates: every extrapolated point is a valid set of rates.
    fn to_coords(&self, beta: &[f64]) -> Vec<f64> {
        beta.iter().map(|v| v.ln()).collect()
    }

    fn coords_to_point(&self, c: Vec<f64>, _: &[f64]) -> Option<Vec<f64>> {
        let x: Vec<f64> = c.iter().map(|v| v.exp()).collect();
        x.iter().all(|v| v.is_finite() && *v > 0.0).then_some(x)
    }
}

/// Run coordinate-ascent VB on the shared fixed-point executor
/// ([`crate::numerics::fixed_point`]; SQUAREM in log-rates when
/// `iter.accelerate`, the ELBO trace non-decreasing either way).
pub fn vb(ds: &Dataset, opts: &VbOptions) -> Result<BayesFit> {
    pl::check_supported(ds)?;
    let wins = pl::wins(ds, Scope::All);
    run(&mut Source::Data(ds), wins, opts)
}

/// [`vb`] over shards that each report their PL sweeps (and, for the
/// linear-response covariance, their observed information; a shard
/// source without it gives the mean-field covariance with a note):
/// `wins` are the shards' stage wins, summed. The same fixed point as
/// [`vb`] on the union of the shards, up to the order of the sums.
pub fn vb_sharded(shards: &mut dyn Shards, wins: Vec<f64>, opts: &VbOptions) -> Result<BayesFit> {
    run(&mut Source::Shards(shards), wins, opts)
}

fn run(source: &mut Source<'_>, wins: Vec<f64>, opts: &VbOptions) -> Result<BayesFit> {
    let n = wins.len();
    if opts.prior.shapes.len() != n {
        return Err(Error::Data(
            "prior shapes do not match the number of items".into(),
        ));
    }
    let alpha: Vec<f64> = (0..n).map(|i| opts.prior.shapes[i] + wins[i]).collect();
    let mut map = RateMap {
        source: &mut *source,
        prior: &opts.prior,
        wins: &wins,
        alpha: &alpha,
    };
    let out = Executor::new(opts.iter)
        .observer(opts.observer.clone())
        .run(&mut map, vec![opts.prior.rate; n])?;
    let (converged, it, trace) = (out.converged(), out.evaluations, out.trace);
    let beta = out.x;
    if beta.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return Err(Error::Numerical("VB produced a non-positive rate".into()));
    }
    let marginals: Vec<(f64, f64)> = alpha.iter().copied().zip(beta.iter().copied()).collect();
    let mut notes = Vec::new();
    if !converged {
        notes.push(format!("VB did not converge in {it} iterations"));
    }
    let lr = match opts.covariance {
        VbCovariance::MeanField => None,
        VbCovariance::LinearResponse => {
            let mean: Vec<f64> = marginals
                .iter()
                .map(|&(a, b)| digamma(a) - b.ln())
                .collect();
            let fit = linear_response_from(source, &opts.prior, &alpha, &beta).and_then(|v| {
                let d = draws_from_gaussian(&mean, &v, opts.draws, opts.seed)?;
                Ok((v, d))
            });
            match fit {
                Ok(x) => Some(x),
                Err(e) => {
                    notes.push(format!(
                        "vb: no linear-response covariance ({e}); reporting mean-field"
                    ));
                    None
                }
            }
        }
    };
    let (draws, covariance) = match lr {
        Some((v, d)) => {
            notes.push(VB_LINEAR_RESPONSE_NOTE.to_string());
            // Kept mean-centred: the overall scale is not reported (the
            // draws are normalised), and `FitSpec::fit` moves it to the
            // gauge asked for.
            let centred = super::point::in_gauge(&v, &crate::posterior::Gauge::MeanCentred);
            (d, Some(centred))
        }
        None => {
            // Every interval printed from these marginals carries their known bias.
            notes.push(VB_INTERVALS_NOTE.to_string());
            (draws_from_gammas(&marginals, opts.draws, opts.seed), None)
        }
    };
    Ok(BayesFit {
        engine: "vb".into(),
        draws,
        covariance,
        marginals: Some(marginals),
        converged,
        iterations: it,
        tolerance: Some(opts.iter.tol),
        log_evidence: None,
        elbo: trace.last().copied(),
        trace,
        diagnostics: None,
        notes,
    })
}
