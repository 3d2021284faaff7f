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
use crate::model::pl::{self, Scope};
use crate::numerics::max_abs;

/// Settings for [`mm`].
#[derive(Debug, Clone)]
pub struct MmOptions {
    /// Prior (Flat = MLE).
    pub prior: Prior,
    /// Item whose log-worth stays at 0 (the ghost of pseudo-rankings).
    pub fixed: Option<u32>,
    /// Maximum number of MM map evaluations.
    pub max_iter: usize,
    /// Stop when the max-norm of the score is below this.
    pub tol: f64,
    /// Use SQUAREM extrapolation.
    pub accelerate: bool,
}

impl Default for MmOptions {
    fn default() -> Self {
        MmOptions {
            prior: Prior::Flat,
            fixed: None,
            max_iter: 100_000,
            tol: 1e-10,
            accelerate: true,
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

pub(crate) struct Mapper<'a> {
    pub ds: &'a Dataset,
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

impl Mapper<'_> {
    pub fn eval(&self, theta: &[f64]) -> Eval {
        let (lam, log_lam) = pl::scaled(theta);
        let shift = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sw = pl::sweep(self.ds, &lam, &log_lam, &self.wins, Scope::All);
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
        Eval {
            image,
            objective: obj,
            score,
        }
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

/// Run MM (optionally SQUAREM-accelerated) from `theta0`.
pub fn mm(ds: &Dataset, theta0: &[f64], opts: &MmOptions) -> MmResult {
    let map = Mapper {
        ds,
        wins: pl::wins(ds, Scope::All),
        prior: opts.prior,
        fixed: opts.fixed,
    };
    let mut theta = theta0.to_vec();
    let mut sweeps = 0;
    loop {
        let e0 = map.eval(&theta);
        sweeps += 1;
        let sn = max_abs(&e0.score);
        if sn <= opts.tol || sweeps >= opts.max_iter {
            return MmResult {
                theta,
                sweeps,
                converged: sn <= opts.tol,
                objective: e0.objective,
                score_norm: sn,
            };
        }
        if !opts.accelerate {
            theta = e0.image;
            continue;
        }
        // SQUAREM, scheme S3 with the monotone fallback.
        let t1 = e0.image;
        let e1 = map.eval(&t1);
        sweeps += 1;
        let t2 = e1.image;
        let r: Vec<f64> = t1.iter().zip(&theta).map(|(a, b)| a - b).collect();
        let v: Vec<f64> = t2
            .iter()
            .zip(&t1)
            .zip(&theta)
            .map(|((c, b), a)| c - 2.0 * b + a)
            .collect();
        let rn = r.iter().map(|x| x * x).sum::<f64>().sqrt();
        let vn = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if vn == 0.0 || !vn.is_finite() {
            theta = t2;
            continue;
        }
        let mut alpha = -(rn / vn);
        if alpha > -1.0 {
            alpha = -1.0;
        }
        let mut accepted = false;
        for _ in 0..6 {
            let tp: Vec<f64> = theta
                .iter()
                .zip(&r)
                .zip(&v)
                .map(|((t, r), v)| t - 2.0 * alpha * r + alpha * alpha * v)
                .collect();
            if tp.iter().all(|x| x.is_finite()) {
                let ep = map.eval(&tp);
                sweeps += 1;
                if ep.objective.is_finite() && ep.objective >= e0.objective {
                    theta = ep.image; // one stabilising MM step
                    accepted = true;
                    break;
                }
            }
            alpha = (alpha - 1.0) / 2.0;
            if alpha > -1.0 - 1e-12 {
                break;
            }
        }
        if !accepted {
            theta = t2;
        }
        if sweeps >= opts.max_iter {
            let e = map.eval(&theta);
            let sn = max_abs(&e.score);
            return MmResult {
                theta,
                sweeps: sweeps + 1,
                converged: sn <= opts.tol,
                objective: e.objective,
                score_norm: sn,
            };
        }
    }
}
