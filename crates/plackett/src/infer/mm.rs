//! Hunter's MM algorithm (Hunter 2004, §4) for the PL MLE, its MAP forms,
//! and SQUAREM acceleration (Varadhan & Roland 2008).
//!
//! With per-item stage wins `W_i` and in-play coefficients `den_i`
//! ([`crate::model::pl`]) the minorise–maximise step maximises the separable
//! surrogate `Σ_i [W_i θ_i − den_i e^{θ_i} + log p(θ_i)]`:
//!
//! * flat prior: `λ_i ← W_i / den_i`;
//! * Gamma(a, b): `λ_i ← (a − 1 + W_i) / (b + den_i)` (Guo et al. 2019 eq 7);
//! * Normal(μ, σ²) on θ: a 1-D Newton solve per item.
//!
//! For unknown-order ties `den` is an expectation over within-group orders,
//! making the step an EM/MM step; it remains monotone.

use super::prior::Prior;
use crate::data::Dataset;
use crate::error::Result;
use crate::model::pl::{self, Scope};
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::observer::SharedObserver;

/// Settings for [`mm`].
#[derive(Clone)]
pub struct MmOptions {
    /// Prior (Flat = MLE).
    pub prior: Prior,
    /// Item whose log-worth stays at 0 (the ghost of pseudo-rankings).
    pub fixed: Option<u32>,
    /// Stop when the max-norm of the score is at most `iter.tol`; at most
    /// `iter.max_iter` map evaluations (data sweeps).
    pub iter: IterSettings,
    /// Progress and cancellation.
    pub observer: Option<SharedObserver>,
}

impl Default for MmOptions {
    fn default() -> Self {
        MmOptions {
            prior: Prior::Flat,
            fixed: None,
            iter: IterSettings::new(1e-10, 100_000),
            observer: None,
        }
    }
}

/// Result of [`mm`].
#[derive(Debug, Clone)]
pub struct MmResult {
    /// Log-worths (mean-centred for MLE without a fixed item).
    pub theta: Vec<f64>,
    /// Number of MM map evaluations (data sweeps).
    pub sweeps: usize,
    /// Whether the score tolerance was met.
    pub converged: bool,
    /// Objective (log-likelihood + log-prior) at `theta`.
    pub objective: f64,
    /// Max-norm of the score at `theta`.
    pub score_norm: f64,
}

/// Where the PL sweeps of MM and VB come from: one dataset, or shards
/// whose sweeps add up ([`Shards`]).
pub(crate) enum Source<'a> {
    Data(&'a Dataset),
    Shards(&'a mut dyn Shards),
}

/// A dataset split into shards held elsewhere (Dask workers): each sweep
/// returns every shard's [`pl::Sweep`] at the same scaled worths, in shard
/// order; their sums are the whole dataset's sweep. See [`mm_sharded`].
pub trait Shards {
    /// The shards' sweeps at worths `lam` (largest 1 for MM; VB's means at
    /// their own scale) with logs `log_lam`.
    fn sweep(&mut self, lam: &[f64], log_lam: &[f64]) -> Result<Vec<pl::Sweep>>;

    /// The observed information at log-worths `theta` summed over the
    /// shards, lower triangle filled ([`crate::model::information::information_lower`]
    /// is additive over observations): what VB's linear-response covariance
    /// needs ([`crate::infer::vb::vb_sharded`]). Shards that cannot give it
    /// leave the default, and the fit reports mean-field with a note.
    fn information_lower(&mut self, _theta: &[f64]) -> Result<nalgebra::DMatrix<f64>> {
        Err(crate::Error::Unsupported(
            "these shards do not report their information".into(),
        ))
    }
}

pub(crate) struct Mapper<'a> {
    pub source: Source<'a>,
    pub wins: Vec<f64>,
    pub prior: Prior,
    pub fixed: Option<u32>,
}

/// Output of one sweep: the MM image, the objective and the score at the input.
pub(crate) struct Eval {
    pub image: Vec<f64>,
    pub objective: f64,
    pub score: Vec<f64>,
}

impl Source<'_> {
    /// The PL sweep at worths `lam` (logs `log_lam`) with stage wins
    /// `wins`: over the dataset, or the shards' sweeps summed in shard
    /// order (each shard enters its own wins).
    pub(crate) fn sweep(
        &mut self,
        lam: &[f64],
        log_lam: &[f64],
        wins: &[f64],
    ) -> Result<pl::Sweep> {
        match self {
            Source::Data(ds) => Ok(pl::sweep(ds, lam, log_lam, wins, Scope::All)),
            Source::Shards(sh) => {
                let n = lam.len();
                let parts = sh.sweep(lam, log_lam)?;
                let mut total = pl::Sweep {
                    loglik: 0.0,
                    den: vec![0.0; n],
                };
                for p in parts {
                    if p.den.len() != n {
                        return Err(crate::Error::Data(format!(
                            "a shard's sweep has {} items, expected {n}",
                            p.den.len()
                        )));
                    }
                    total.loglik += p.loglik;
                    total.den.iter_mut().zip(&p.den).for_each(|(a, b)| *a += b);
                }
                Ok(total)
            }
        }
    }

    /// The observed information's lower triangle at log-worths `theta`.
    pub(crate) fn information_lower(&mut self, theta: &[f64]) -> Result<nalgebra::DMatrix<f64>> {
        match self {
            Source::Data(ds) => crate::model::information::information_lower(ds, theta, Scope::All),
            Source::Shards(sh) => sh.information_lower(theta),
        }
    }
}

impl Mapper<'_> {
    fn sweep(&mut self, lam: &[f64], log_lam: &[f64]) -> Result<pl::Sweep> {
        self.source.sweep(lam, log_lam, &self.wins)
    }

    pub fn eval(&mut self, theta: &[f64]) -> Result<Eval> {
        let (lam, log_lam) = pl::scaled(theta);
        let shift = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sw = self.sweep(&lam, &log_lam)?;
        let n = theta.len();
        let mut image = vec![0.0; n];
        let mut score = vec![0.0; n];
        let mut obj = sw.loglik;
        // den on the true scale: D scales with e^{shift}.
        let scale = (-shift).exp();
        for i in 0..n {
            let den = sw.den[i] * scale;
            obj += self.prior.log_density(theta[i]);
            score[i] = self.wins[i] - lam[i] * sw.den[i] + self.prior.grad(theta[i]);
            image[i] = match self.prior {
                Prior::Flat => self.wins[i].ln() - den.ln(),
                Prior::Gamma { shape, rate } => {
                    (shape - 1.0 + self.wins[i]).max(0.0).ln() - (rate + den).ln()
                }
                Prior::Normal { mean, sd } => solve_normal(self.wins[i], den, mean, sd, theta[i]),
            };
        }
        if let Some(f) = self.fixed {
            image[f as usize] = 0.0;
            score[f as usize] = 0.0;
        }
        if self.fixed.is_none() && !self.prior.is_proper() {
            crate::numerics::centre(&mut image);
        }
        Ok(Eval {
            image,
            objective: obj,
            score,
        })
    }
}

/// Maximise `Wθ − d·e^θ − (θ−μ)²/2σ²` (strictly concave) by safeguarded Newton.
fn solve_normal(w: f64, d: f64, mu: f64, sd: f64, start: f64) -> f64 {
    let prec = 1.0 / (sd * sd);
    let mut t = if start.is_finite() { start } else { mu };
    for _ in 0..100 {
        let e = d * t.exp();
        let g = w - e - (t - mu) * prec;
        let h = e + prec;
        let step = (g / h).clamp(-5.0, 5.0);
        t += step;
        if step.abs() < 1e-14 * (1.0 + t.abs()) {
            break;
        }
    }
    t
}

impl MonotoneMap for Mapper<'_> {
    fn eval(&mut self, theta: &[f64]) -> Result<Iterate> {
        let e = Mapper::eval(self, theta)?;
        // The score at θ is the convergence gap; the objective is at θ.
        let gap = pl::relative_score_norm(&e.score, &self.wins);
        Ok(Iterate::new(e.image, e.objective, Some(gap)))
    }
}

/// Run MM (optionally SQUAREM-accelerated, with SQUAREM's backtracking)
/// from `theta0` on the shared fixed-point executor.
pub fn mm(ds: &Dataset, theta0: &[f64], opts: &MmOptions) -> Result<MmResult> {
    let map = Mapper {
        source: Source::Data(ds),
        wins: pl::wins(ds, Scope::All),
        prior: opts.prior,
        fixed: opts.fixed,
    };
    run(map, theta0, opts)
}

/// MM on a dataset split into shards that only report their sweeps (the
/// sharded fit of `plackett.distributed.fit`): `wins` are the shards'
/// summed stage wins ([`pl::wins`]). The iterates, acceleration and
/// stopping rule are those of [`mm`], so the estimate equals the one-piece
/// fit up to the order of floating-point sums.
pub fn mm_sharded(
    shards: &mut dyn Shards,
    wins: Vec<f64>,
    theta0: &[f64],
    opts: &MmOptions,
) -> Result<MmResult> {
    if wins.len() != theta0.len() {
        return Err(crate::Error::Data(format!(
            "{} wins for {} items",
            wins.len(),
            theta0.len()
        )));
    }
    let map = Mapper {
        source: Source::Shards(shards),
        wins,
        prior: opts.prior,
        fixed: opts.fixed,
    };
    run(map, theta0, opts)
}

fn run(mut map: Mapper<'_>, theta0: &[f64], opts: &MmOptions) -> Result<MmResult> {
    let out = Executor::new(opts.iter)
        .backtracks(5)
        .observer(opts.observer.clone())
        .run(&mut map, theta0.to_vec())?;
    Ok(MmResult {
        converged: out.converged(),
        sweeps: out.evaluations,
        objective: out.last.objective,
        score_norm: out.last.gap.unwrap_or(f64::NAN),
        theta: out.x,
    })
}
