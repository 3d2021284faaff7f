//! Baselines for multiple-instance classification, on the unimodal
//! zero-padded representation of Hu 2024, §2.3 (a modality-0 instance is
//! `[1, x, 0]`, a modality-1 instance `[1, 0, z]`):
//!
//! * **MILR** (Chen et al. 2017, the R package `milr`): instance
//!   probabilities `p_ij = σ(w·v_ij)` and the noisy-or bag link
//!   `P(y_i = 1) = 1 − Π_j (1 − p_ij)`, fitted by EM (the instance labels
//!   are the missing data: all 0 in a negative bag; in a positive bag
//!   `E[z_ij] = p_ij / P(y_i = 1)`), each M-step a weighted logistic
//!   regression solved by Newton's method, the EM steps accelerated by
//!   SQUAREM (Varadhan & Roland 2008) under the likelihood;
//! * **single-instance logistic regression** (`si-mean`, `si-max`): every
//!   instance inherits its bag's label, one logistic regression, and a bag
//!   is scored by the mean or the maximum of its instances' probabilities.
//!
//! Both are penalised by the Gaussian priors vMMIC uses for its outer
//! regression (slopes N(0, `slope_var`), intercept N(0, `intercept_var`)),
//! so that separable data have finite estimates and the comparison is like
//! for like. (`milr` itself defaults to no penalty.)

use super::bags::Bags;
use super::params::MilPriors;
use crate::error::{Error, Result};
use crate::numerics::fixed_point::{Executor, IterSettings, Iterate, MonotoneMap};
use crate::numerics::linalg::{Cholesky, add_gram_cols};
use crate::numerics::sigmoid;
use nalgebra::{DMatrix, DVector};

/// A baseline method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Baseline {
    /// Multiple-instance logistic regression with the noisy-or link (Chen
    /// et al. 2017).
    Milr,
    /// Single-instance logistic regression, bag score = mean instance
    /// probability.
    SiMean,
    /// Single-instance logistic regression, bag score = largest instance
    /// probability.
    SiMax,
}

impl Baseline {
    /// Every baseline.
    pub const ALL: [Baseline; 3] = [Baseline::Milr, Baseline::SiMean, Baseline::SiMax];

    /// The name used in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Milr => "milr",
            Baseline::SiMean => "si-mean",
            Baseline::SiMax => "si-max",
        }
    }
}

/// A fitted baseline: the weights of `[1, x, 0]` / `[1, 0, z]`.
#[derive(Debug, Clone)]
pub struct BaselineFit {
    /// Which baseline.
    pub method: Baseline,
    /// Intercept, then modality 0's slopes, then modality 1's.
    pub weights: Vec<f64>,
    /// Newton steps (single-instance) or EM map evaluations, SQUAREM's
    /// included (MILR) run.
    pub iterations: usize,
    /// The penalised log-likelihood the method maximises, at the end.
    pub objective: f64,
    /// Whether the stopping rule held.
    pub converged: bool,
}

fn linear(bags: &Bags, w: &[f64], j: usize) -> f64 {
    let d0 = bags.width(0);
    let off = if bags.modality[j] == 0 { 1 } else { 1 + d0 };
    w[0] + bags
        .features(j)
        .iter()
        .zip(&w[off..])
        .map(|(x, b)| x * b)
        .sum::<f64>()
}

/// `ln(1 + eˣ)` without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// Prior precisions of the weights.
fn penalty(bags: &Bags, pri: &MilPriors) -> Vec<f64> {
    let k = 1 + bags.width(0) + bags.width(1);
    let mut p = vec![1.0 / pri.slope_var; k];
    p[0] = 1.0 / pri.intercept_var;
    p
}

/// Instances per block of the Hessian's Gram product.
const GRAM_BLOCK: usize = 512;

/// Newton steps per EM M-step (a partial maximisation of the surrogate
/// still raises it, so EM's objective still never falls).
const M_STEPS: usize = 5;

/// Maximise `Σ_j [t_j ln σ(w·v_j) + (1 − t_j) ln(1 − σ(w·v_j))] − ½ Σ_k λ_k w_k²`
/// over `w` by Newton's method from `w` (the objective is concave; steps
/// are halved until it rises). Returns the objective and the steps.
///
/// The Hessian's data part `Σ_j p_j(1 − p_j) v_j v_jᵀ` is one Gram product
/// per block of instances through faer's kernel (the columns
/// `√(p_j(1 − p_j)) v_j`, zero-padded to the other modality's width), in a
/// fixed block order, so the result does not depend on the thread count.
fn weighted_logistic(
    bags: &Bags,
    targets: &[f64],
    lambda: &[f64],
    w: &mut [f64],
    max_steps: usize,
) -> (f64, usize) {
    let d0 = bags.width(0);
    let k = w.len();
    let objective = |w: &[f64]| -> f64 {
        let mut f = 0.0;
        for (j, &t) in targets.iter().enumerate() {
            let e = linear(bags, w, j);
            // t ln σ(e) + (1 − t) ln σ(−e) = t e − ln(1 + eᵉ)
            f += t * e - softplus(e);
        }
        f - 0.5 * w.iter().zip(lambda).map(|(w, l)| l * w * w).sum::<f64>()
    };
    let mut f = objective(w);
    let mut steps = 0;
    let n = targets.len();
    let mut cols = vec![0.0; k * GRAM_BLOCK.min(n.max(1))];
    for _ in 0..max_steps {
        let mut gram = vec![0.0; k * k];
        let mut g = DVector::<f64>::zeros(k);
        for (kk, l) in lambda.iter().enumerate() {
            g[kk] = -l * w[kk];
        }
        for block in (0..n).step_by(GRAM_BLOCK) {
            let end = (block + GRAM_BLOCK).min(n);
            let used = &mut cols[..k * (end - block)];
            used.iter_mut().for_each(|c| *c = 0.0);
            for (j, col) in (block..end).zip(used.chunks_exact_mut(k)) {
                let p = sigmoid(linear(bags, w, j));
                let r = targets[j] - p;
                let sv = (p * (1.0 - p)).sqrt();
                let off = if bags.modality[j] == 0 { 1 } else { 1 + d0 };
                let x = bags.features(j);
                g[0] += r;
                col[0] = sv;
                for (a, xa) in x.iter().enumerate() {
                    g[off + a] += r * xa;
                    col[off + a] = sv * xa;
                }
            }
            add_gram_cols(used, k, &mut gram);
        }
        let mut h = DMatrix::from_vec(k, k, gram);
        for (kk, l) in lambda.iter().enumerate() {
            h[(kk, kk)] += *l;
        }
        let Some(ch) = Cholesky::new(&h) else { break };
        let step = ch.solve(&g);
        let decrement = step.dot(&g);
        steps += 1;
        let mut t = 1.0;
        let mut improved = false;
        let old = w.to_vec();
        for _ in 0..30 {
            for (wk, (o, s)) in w.iter_mut().zip(old.iter().zip(step.iter())) {
                *wk = o + t * s;
            }
            let fnew = objective(w);
            if fnew >= f - 1e-12 * f.abs() {
                improved = fnew > f;
                f = fnew;
                break;
            }
            t *= 0.5;
        }
        if !improved || decrement < 1e-12 * (1.0 + f.abs()) {
            if !improved {
                w.copy_from_slice(&old);
            }
            break;
        }
    }
    (f, steps)
}

/// MILR's EM as a monotone map for the shared executor (SQUAREM-accelerated,
/// Varadhan & Roland 2008): at `w`, the objective is the penalised noisy-or
/// log-likelihood and the image is one E-step (`E[z_ij | y_i]`: 0 in a
/// negative bag, `p_ij / P(y_i = 1)` in a positive one) followed by
/// [`M_STEPS`] Newton steps on the weighted logistic regression. Plain EM
/// crawls when bags are large (Musk 2: 300 EM steps left it unconverged).
struct MilrEm<'a> {
    bags: &'a Bags,
    y: &'a [bool],
    lambda: &'a [f64],
    targets: Vec<f64>,
}

impl MonotoneMap for MilrEm<'_> {
    fn eval(&mut self, w: &[f64]) -> Result<Iterate> {
        let f = milr_objective(self.bags, self.y, self.lambda, w);
        if !f.is_finite() {
            return Err(Error::Numerical(
                "MILR's log-likelihood is not finite".into(),
            ));
        }
        for (i, b) in self.bags.bags.iter().enumerate() {
            let targets = &mut self.targets[b.start..b.end];
            if !self.y[i] {
                targets.iter_mut().for_each(|t| *t = 0.0);
                continue;
            }
            // One linear predictor per instance, used twice.
            let eta: Vec<f64> = (b.start..b.end).map(|j| linear(self.bags, w, j)).collect();
            let ln_p0: f64 = eta.iter().map(|&e| -softplus(e)).sum();
            let p1 = -ln_p0.exp_m1();
            for (t, &e) in targets.iter_mut().zip(&eta) {
                let p = sigmoid(e);
                *t = if p1 > 0.0 { (p / p1).min(1.0) } else { 1.0 };
            }
        }
        let mut next = w.to_vec();
        weighted_logistic(self.bags, &self.targets, self.lambda, &mut next, M_STEPS);
        Ok(Iterate::new(next, f, None))
    }
}

/// The noisy-or log-likelihood of the bags at `w`, penalised.
fn milr_objective(bags: &Bags, y: &[bool], lambda: &[f64], w: &[f64]) -> f64 {
    let mut f = 0.0;
    for (i, b) in bags.bags.iter().enumerate() {
        // ln P(y_i = 0) = Σ_j ln(1 − p_ij) = −Σ_j softplus(η_ij).
        let ln_p0: f64 = (b.start..b.end)
            .map(|j| -softplus(linear(bags, w, j)))
            .sum();
        f += if y[i] {
            // ln(1 − e^{ln p0}), stable for ln p0 near 0 and very negative.
            if ln_p0 > -std::f64::consts::LN_2 {
                (-ln_p0.exp_m1()).ln()
            } else {
                (-ln_p0.exp()).ln_1p()
            }
        } else {
            ln_p0
        };
    }
    f - 0.5 * w.iter().zip(lambda).map(|(w, l)| l * w * w).sum::<f64>()
}

/// Fit a baseline to labelled bags.
pub fn fit_baseline(
    bags: &Bags,
    method: Baseline,
    priors: &MilPriors,
    tol: f64,
    max_iter: usize,
) -> Result<BaselineFit> {
    priors.check()?;
    if !(tol.is_finite() && tol > 0.0) {
        return Err(Error::param("tol", format!("must be positive, got {tol}")));
    }
    if max_iter == 0 {
        return Err(Error::param("max_iter", "need at least one iteration"));
    }
    let y = bags.training_labels("data")?;
    let lambda = penalty(bags, priors);
    let mut w = vec![0.0; lambda.len()];
    match method {
        Baseline::SiMean | Baseline::SiMax => {
            let mut targets = vec![0.0; bags.n_instances()];
            for (i, b) in bags.bags.iter().enumerate() {
                for t in &mut targets[b.start..b.end] {
                    *t = if y[i] { 1.0 } else { 0.0 };
                }
            }
            let (objective, iterations) =
                weighted_logistic(bags, &targets, &lambda, &mut w, max_iter);
            Ok(BaselineFit {
                method,
                weights: w,
                iterations,
                objective,
                converged: iterations < max_iter,
            })
        }
        Baseline::Milr => {
            let mut em = MilrEm {
                bags,
                y: &y,
                lambda: &lambda,
                targets: vec![0.0; bags.n_instances()],
            };
            let out = Executor::new(IterSettings::new(tol, max_iter)).run(&mut em, w)?;
            Ok(BaselineFit {
                method,
                converged: out.converged(),
                iterations: out.evaluations,
                objective: out.last.objective,
                weights: out.x,
            })
        }
    }
}

impl BaselineFit {
    /// Each instance's probability (of the bag label for `si-…`, of being
    /// a positive instance for MILR).
    pub fn instance_scores(&self, bags: &Bags) -> Result<Vec<f64>> {
        self.check_widths(bags)?;
        Ok((0..bags.n_instances())
            .map(|j| sigmoid(linear(bags, &self.weights, j)))
            .collect())
    }

    /// Each bag's score: the noisy-or probability (MILR), the mean or the
    /// largest instance probability (single-instance).
    pub fn bag_scores(&self, bags: &Bags) -> Result<Vec<f64>> {
        self.check_widths(bags)?;
        Ok(bags
            .bags
            .iter()
            .map(|b| {
                let range = b.start..b.end;
                match self.method {
                    Baseline::Milr => {
                        let ln_p0: f64 = range
                            .map(|j| -softplus(linear(bags, &self.weights, j)))
                            .sum();
                        -ln_p0.exp_m1()
                    }
                    Baseline::SiMean => {
                        range
                            .map(|j| sigmoid(linear(bags, &self.weights, j)))
                            .sum::<f64>()
                            / b.len() as f64
                    }
                    Baseline::SiMax => range
                        .map(|j| sigmoid(linear(bags, &self.weights, j)))
                        .fold(0.0, f64::max),
                }
            })
            .collect())
    }

    fn check_widths(&self, bags: &Bags) -> Result<()> {
        if 1 + bags.width(0) + bags.width(1) != self.weights.len() {
            return Err(Error::Data(format!(
                "the bags have {} + {} features, the fit {}",
                bags.width(0),
                bags.width(1),
                self.weights.len() - 1
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mil::simulate::{MilDesign, simulate_bags, small_bags};

    fn data() -> Bags {
        small_bags(60, 5)
    }

    /// Central-difference gradient of `f` at `w`.
    fn gradient(f: &dyn Fn(&[f64]) -> f64, w: &[f64]) -> Vec<f64> {
        (0..w.len())
            .map(|k| {
                let h = 1e-5;
                let (mut a, mut b) = (w.to_vec(), w.to_vec());
                a[k] += h;
                b[k] -= h;
                (f(&a) - f(&b)) / (2.0 * h)
            })
            .collect()
    }

    /// Both fits stop where the gradient of the penalised log-likelihood
    /// they claim to maximise vanishes (computed by finite differences of
    /// the likelihood written directly, not through the fitting code's
    /// algebra), and EM's objective never falls.
    #[test]
    fn fits_are_stationary_points_of_their_likelihoods() {
        let bags = data();
        let y = bags.labels("t").unwrap();
        let pri = MilPriors::default();
        let lambda = penalty(&bags, &pri);
        let milr = fit_baseline(&bags, Baseline::Milr, &pri, 1e-13, 5000).unwrap();
        assert!(milr.converged);
        let direct = |w: &[f64]| -> f64 {
            let mut f = 0.0;
            for (i, b) in bags.bags.iter().enumerate() {
                let p0: f64 = (b.start..b.end)
                    .map(|j| 1.0 - 1.0 / (1.0 + (-linear(&bags, w, j)).exp()))
                    .product();
                f += if y[i] { (1.0 - p0).ln() } else { p0.ln() };
            }
            f - 0.5 * w.iter().zip(&lambda).map(|(w, l)| l * w * w).sum::<f64>()
        };
        assert!((direct(&milr.weights) - milr.objective).abs() < 1e-9);
        for g in gradient(&direct, &milr.weights) {
            assert!(g.abs() < 1e-3, "milr gradient {g}");
        }
        let si = fit_baseline(&bags, Baseline::SiMean, &pri, 1e-10, 100).unwrap();
        let direct_si = |w: &[f64]| -> f64 {
            let mut f = 0.0;
            for (i, b) in bags.bags.iter().enumerate() {
                for j in b.start..b.end {
                    let p = 1.0 / (1.0 + (-linear(&bags, w, j)).exp());
                    f += if y[i] { p.ln() } else { (1.0 - p).ln() };
                }
            }
            f - 0.5 * w.iter().zip(&lambda).map(|(w, l)| l * w * w).sum::<f64>()
        };
        for g in gradient(&direct_si, &si.weights) {
            assert!(g.abs() < 1e-6, "single-instance gradient {g}");
        }
        // EM never lowers the objective.
        let mut last = f64::NEG_INFINITY;
        for it in 1..30 {
            let f = fit_baseline(&bags, Baseline::Milr, &pri, 1e-300, it)
                .unwrap()
                .objective;
            assert!(f >= last - 1e-10, "EM step {it}: {last} -> {f}");
            last = f;
        }
    }

    #[test]
    fn scores_are_probabilities_and_widths_are_checked() {
        let bags = data();
        let pri = MilPriors::default();
        for m in Baseline::ALL {
            let fit = fit_baseline(&bags, m, &pri, 1e-8, 500).unwrap();
            for p in fit.bag_scores(&bags).unwrap() {
                assert!((0.0..=1.0).contains(&p), "{p}");
            }
        }
        let other = simulate_bags(
            &MilDesign {
                bags: 10,
                features: 2,
                ..MilDesign::default()
            },
            1,
        )
        .unwrap();
        let fit = fit_baseline(&bags, Baseline::Milr, &pri, 1e-8, 50).unwrap();
        assert!(fit.bag_scores(&other).is_err());
    }
}
