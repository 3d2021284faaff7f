//! One entry point for PL regression `log λ_i = x_iᵀβ` (Guo et al. 2019):
//! MLE and MAP by Newton
//! ([`super::regression`]), and a Gaussian variational posterior either on
//! the exact bound ([`super::gaussian_vi_exact`], the default) or by Guo
//! et al. 2019's Algorithm 1 ([`super::gaussian_vi`]). Every engine ends in the same
//! object: a Gaussian (or point) belief about β on the working feature
//! scale, from which coefficients, item log-worths, predictions for new
//! items and posterior draws are all derived the same way.

use super::gaussian_vi::{ViOptions, vi};
use super::gaussian_vi_exact::{ExactViOptions, vi_exact};
use super::regression::fit_regression;
use crate::data::Dataset;
use crate::data::features::Features;
use crate::error::{Error, Result};
use crate::eval::predict::{PairPrediction, predict_pair};
use crate::numerics::linalg::Cholesky;
use crate::numerics::sig;
use crate::posterior::summary::Z975;
use crate::posterior::{Draws, Gauge, ItemSummary, Summary};
use nalgebra::{DMatrix, DVector};

/// Which Gaussian variational posterior.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ViKind {
    /// Gaussian VI on the exact evidence lower bound (default).
    Exact,
    /// Guo et al. (2019)'s Algorithm 1 (Jaakkola–Jordan and Bouchard bounds).
    Guo,
}

impl ViKind {
    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            ViKind::Exact => "exact",
            ViKind::Guo => "guo",
        }
    }
}

/// Engine for a feature model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureEngine {
    /// Maximum likelihood.
    Mle,
    /// MAP under `β ~ N(0, I/η)`.
    Map,
    /// Gaussian variational posterior under `β ~ N(0, I/η)`.
    Vb(ViKind),
}

/// How η is set.
#[derive(Debug, Clone, PartialEq)]
pub enum EtaChoice {
    /// This value.
    Fixed(f64),
    /// Maximise the variational bound over this grid (Guo et al. 2019 Fig. 1).
    Auto(Vec<f64>),
}

/// Settings of [`fit_features`].
#[derive(Debug, Clone)]
pub struct FeatureFitOptions {
    /// Engine.
    pub engine: FeatureEngine,
    /// Prior precision (ignored by MLE).
    pub eta: EtaChoice,
    /// Which bound `--eta auto` maximises (and which VI `vb` runs).
    pub vi: ViKind,
    /// Newton tolerance on the score (mle, map).
    pub tol: f64,
    /// Iteration cap (`None`: the engine's default).
    pub max_iter: Option<usize>,
    /// Seed of the exact-bound sample averages.
    pub seed: u64,
}

impl Default for FeatureFitOptions {
    fn default() -> Self {
        FeatureFitOptions {
            engine: FeatureEngine::Mle,
            eta: EtaChoice::Fixed(1.0),
            vi: ViKind::Exact,
            tol: 1e-10,
            max_iter: None,
            seed: 1,
        }
    }
}

/// The bound as a function of η (`--eta auto`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EtaCurve {
    /// Grid.
    pub grid: Vec<f64>,
    /// Final bound per grid value.
    pub bound: Vec<f64>,
    /// Index of the maximiser.
    pub best: usize,
    /// Which bound.
    pub vi: ViKind,
}

/// A fitted feature model: a Gaussian (posterior) or a point with an
/// asymptotic covariance, on the working feature scale.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FeatureFit {
    /// `mle`, `map` or `vb`.
    pub engine: std::borrow::Cow<'static, str>,
    /// Human-readable algorithm.
    pub algorithm: String,
    /// Whether (μ, S) is a posterior (vb) rather than estimate and
    /// sampling covariance (mle, map).
    pub bayesian: bool,
    /// β estimate or posterior mean (working scale).
    pub mu: DVector<f64>,
    /// Covariance (working scale); `None` when singular.
    pub cov: Option<DMatrix<f64>>,
    /// η used (0 for MLE).
    pub eta: f64,
    /// Bound-vs-η curve when η was chosen automatically.
    pub eta_curve: Option<EtaCurve>,
    /// Log-likelihood at the estimate (mle, map).
    pub log_likelihood: Option<f64>,
    /// Final variational bound (vb).
    pub elbo: Option<f64>,
    /// The bound per iteration (vb): `L̄_k` of eq 25, or the exact bound.
    pub bound_trace: Vec<f64>,
    /// Converged.
    pub converged: bool,
    /// Iterations.
    pub iterations: usize,
    /// Notes for the user.
    pub notes: Vec<String>,
}

/// Settings of the exact-bound VI at prior precision `eta` (its default
/// iteration cap unless `max_iter` is given).
fn exact_options(eta: f64, seed: u64, max_iter: Option<usize>) -> ExactViOptions {
    let d = ExactViOptions::default();
    ExactViOptions {
        eta,
        seed,
        max_iter: max_iter.unwrap_or(d.max_iter),
        ..d
    }
}

/// The bound used to choose η for one value.
fn bound_at(ds: &Dataset, feats: &Features, eta: f64, kind: ViKind, seed: u64) -> Result<f64> {
    Ok(match kind {
        ViKind::Exact => {
            let f = vi_exact(ds, feats, &exact_options(eta, seed, None))?;
            *f.bound.last().unwrap_or(&f64::NAN)
        }
        ViKind::Guo => vi(ds, feats, &ViOptions::with_eta(eta))?.bound_final(),
    })
}

/// The bound over a grid of η (Guo et al. 2019 Fig. 1): evaluations in parallel,
/// each deterministic, so the curve does not depend on the thread count.
pub fn eta_curve(
    ds: &Dataset,
    feats: &Features,
    grid: &[f64],
    kind: ViKind,
    seed: u64,
) -> Result<EtaCurve> {
    use rayon::prelude::*;
    if grid.is_empty() {
        return Err(Error::param("eta_grid", "the η grid is empty"));
    }
    let bound: Vec<f64> = grid
        .par_iter()
        .map(|&eta| bound_at(ds, feats, eta, kind, seed))
        .collect::<Result<Vec<_>>>()?;
    let best = (0..grid.len())
        .max_by(|&a, &b| bound[a].total_cmp(&bound[b]))
        .expect("non-empty");
    Ok(EtaCurve {
        grid: grid.to_vec(),
        bound,
        best,
        vi: kind,
    })
}

/// Fit a feature model.
pub fn fit_features(
    ds: &Dataset,
    feats: &Features,
    opts: &FeatureFitOptions,
) -> Result<FeatureFit> {
    let mut notes = Vec::new();
    let (eta, curve) = match (&opts.engine, &opts.eta) {
        (FeatureEngine::Mle, _) => (0.0, None),
        (_, EtaChoice::Fixed(e)) => {
            if !(e.is_finite() && *e > 0.0) {
                return Err(Error::param(
                    "eta",
                    format!("must be a positive number or auto, got {e}"),
                ));
            }
            (*e, None)
        }
        (_, EtaChoice::Auto(grid)) => {
            let c = eta_curve(ds, feats, grid, opts.vi, opts.seed)?;
            let e = c.grid[c.best];
            if c.best == 0 || c.best + 1 == c.grid.len() {
                notes.push(format!(
                    "η = {} maximises the bound at the edge of the grid [{}, {}]; widen `eta_grid`",
                    sig(e, 4),
                    sig(c.grid[0], 3),
                    sig(c.grid[c.grid.len() - 1], 3)
                ));
            }
            (e, Some(c))
        }
    };
    match opts.engine {
        FeatureEngine::Mle | FeatureEngine::Map => {
            let f = fit_regression(ds, feats, eta, opts.tol, opts.max_iter)?;
            if !f.converged {
                notes.push(format!(
                    "Newton did not reach the tolerance in {} iterations",
                    f.iterations
                ));
            }
            if f.cov_work.is_none() {
                notes.push("the information about β is singular: no standard errors".into());
            }
            Ok(FeatureFit {
                engine: if eta == 0.0 { "mle" } else { "map" }.into(),
                algorithm: if eta == 0.0 {
                    "Newton (PL regression)".into()
                } else {
                    format!("Newton (PL regression, prior N(0, I/{}))", sig(eta, 4))
                },
                bayesian: false,
                mu: DVector::from_column_slice(&f.beta_work),
                cov: f.cov_work.clone(),
                eta,
                eta_curve: curve,
                log_likelihood: Some(f.log_likelihood),
                elbo: None,
                bound_trace: Vec::new(),
                converged: f.converged,
                iterations: f.iterations,
                notes,
            })
        }
        FeatureEngine::Vb(kind) => {
            let (f, algorithm) = match kind {
                ViKind::Exact => (
                    vi_exact(ds, feats, &exact_options(eta, opts.seed, opts.max_iter))?,
                    format!(
                        "Gaussian VI on the exact bound, prior N(0, I/{})",
                        sig(eta, 4)
                    ),
                ),
                ViKind::Guo => {
                    let f = vi(
                        ds,
                        feats,
                        &ViOptions {
                            eta,
                            max_iter: opts.max_iter.unwrap_or(1000),
                            ..Default::default()
                        },
                    )?;
                    if ds
                        .observations()
                        .any(|o| o.members.len() > 2 || !matches!(o.tail, crate::data::Tail::None))
                    {
                        notes.push(
                            "Algorithm 1 (Bouchard bound) inflates coefficients and under-states their sd on \
                             queries over more than two items; see docs/features.md (use `vi=exact`)"
                                .into(),
                        );
                    }
                    (
                        f,
                        format!(
                            "Gaussian VI, Guo et al. 2019 Alg. 1, prior N(0, I/{})",
                            sig(eta, 4)
                        ),
                    )
                }
            };
            let (mu, cov, trace, converged, iterations) =
                (f.mu, f.cov, f.bound, f.converged, f.iterations);
            if !converged {
                notes.push(format!(
                    "the variational fit did not converge in {iterations} iterations"
                ));
            }
            Ok(FeatureFit {
                engine: "vb".into(),
                algorithm,
                bayesian: true,
                mu,
                cov: Some(cov),
                eta,
                eta_curve: curve,
                log_likelihood: None,
                elbo: trace.last().copied(),
                bound_trace: trace,
                converged,
                iterations,
                notes,
            })
        }
    }
}

/// A coefficient on the original feature scale.
#[derive(Debug, Clone)]
pub struct CoefficientSummary {
    /// Feature name.
    pub name: String,
    /// Estimate or posterior mean.
    pub value: f64,
    /// Standard error or posterior sd.
    pub sd: Option<f64>,
}

impl FeatureFit {
    /// Coefficients on the original feature scale.
    pub fn coefficients(&self, feats: &Features) -> Vec<CoefficientSummary> {
        let b = feats.to_original(self.mu.as_slice());
        let cov = self.cov.as_ref().map(|c| feats.cov_to_original(c));
        (0..feats.d())
            .map(|j| CoefficientSummary {
                name: feats.names[j].clone(),
                value: b[j],
                sd: cov.as_ref().map(|c| c[(j, j)].max(0.0).sqrt()),
            })
            .collect()
    }

    /// Log-worths `Xμ` of the dataset's items (no gauge).
    pub fn log_worths(&self, feats: &Features) -> Vec<f64> {
        (&feats.x * &self.mu).iter().copied().collect()
    }

    /// Working-scale feature row of a dataset item.
    pub fn row(feats: &Features, i: usize) -> Vec<f64> {
        feats.x.row(i).iter().copied().collect()
    }

    /// The gauge's reference row: the mean row (mean-centred) or the
    /// reference item's row.
    fn gauge_row(feats: &Features, gauge: &Gauge) -> Vec<f64> {
        match gauge {
            Gauge::MeanCentred => {
                let n = feats.x.nrows() as f64;
                (0..feats.d())
                    .map(|j| feats.x.column(j).sum() / n)
                    .collect()
            }
            Gauge::Reference(r) => Self::row(feats, *r as usize),
        }
    }

    /// Log-worth of a working-scale row in the gauge: (value, sd).
    pub fn log_worth_of(&self, feats: &Features, gauge: &Gauge, row: &[f64]) -> (f64, Option<f64>) {
        let g = Self::gauge_row(feats, gauge);
        let c = DVector::from_iterator(row.len(), row.iter().zip(&g).map(|(a, b)| a - b));
        let m = c.dot(&self.mu);
        let sd = self
            .cov
            .as_ref()
            .map(|s| (c.transpose() * s * &c)[(0, 0)].max(0.0).sqrt());
        (m, sd)
    }

    /// Per-item summary of the dataset's items. Log-worth means and sds are
    /// exact (linear in β); for the variational posterior, normalised worths
    /// are averaged over `draws`.
    pub fn summary(
        &self,
        feats: &Features,
        names: &[String],
        gauge: Gauge,
        draws: Option<&Draws>,
    ) -> Summary {
        let theta = self.log_worths(feats);
        let m = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = theta.iter().map(|t| (t - m).exp()).sum();
        let from_draws = draws.map(|d| d.summary(names, gauge.clone()));
        let items = (0..names.len())
            .map(|i| {
                let (lw, sd) = self.log_worth_of(feats, &gauge, &Self::row(feats, i));
                let (worth, worth_sd) = match &from_draws {
                    Some(s) => (s.items[i].worth, s.items[i].worth_sd),
                    None => ((theta[i] - m).exp() / z, None),
                };
                ItemSummary {
                    name: names[i].clone(),
                    worth,
                    worth_sd,
                    log_worth: lw,
                    log_worth_se: if self.bayesian { None } else { sd },
                    log_worth_sd: if self.bayesian { sd } else { None },
                    ci_low: sd.map(|s| lw - Z975 * s),
                    ci_high: sd.map(|s| lw + Z975 * s),
                }
            })
            .collect();
        Summary { items, gauge }
    }

    /// Draws of normalised log-worths of the dataset's items from the
    /// variational posterior (`None` for point estimates).
    pub fn draws(&self, feats: &Features, n: usize, seed: u64) -> Option<Draws> {
        self.draws_of_rows(&feats.x, n, seed)
    }

    /// Draws of normalised log-worths `Xβ` of the rows of `x` (working
    /// scale, any items: the dataset's or the features file's others) from
    /// the variational posterior, the same β draws as [`Self::draws`] for
    /// the same `n` and `seed` (`None` for point estimates).
    pub fn draws_of_rows(&self, x: &DMatrix<f64>, n: usize, seed: u64) -> Option<Draws> {
        use rand_distr::{Distribution, StandardNormal};
        if !self.bayesian {
            return None;
        }
        let cov = self.cov.as_ref()?;
        let d = self.mu.len();
        let l = Cholesky::new(cov)?.l();
        let mut rng = super::rng::stream(seed, &[0x4645_4154]);
        let items = x.nrows();
        let mut out = Vec::with_capacity(n * items);
        for _ in 0..n {
            let e = DVector::from_fn(d, |_, _| StandardNormal.sample(&mut rng));
            let b = &self.mu + &l * e;
            let mut t: Vec<f64> = (x * b).iter().copied().collect();
            Draws::normalise(&mut t);
            out.extend(t);
        }
        Some(Draws::from_chains(items, vec![out]))
    }

    /// P(a ≻ b) for working-scale rows: plug-in and, for the posterior,
    /// Gauss–Hermite over β.
    pub fn predict_pair(&self, xa: &[f64], xb: &[f64]) -> PairPrediction {
        let d = self.mu.len();
        let zero;
        let cov = match &self.cov {
            Some(c) => c,
            None => {
                zero = DMatrix::zeros(d, d);
                &zero
            }
        };
        predict_pair(xa, xb, &self.mu, cov)
    }
}

impl FeatureFit {
    /// `(μ_ab, ϱ_ab, a won)` for test pairs `(winner, loser)` of dataset
    /// items, each presented with the lower id first (as in the comparison
    /// AUC), for the positive-ratio analysis of Guo et al. 2019 Fig. 4.
    pub fn pair_triples(&self, feats: &Features, pairs: &[(u32, u32)]) -> Vec<(f64, f64, bool)> {
        pairs
            .iter()
            .map(|&(w, l)| {
                let (a, b) = if w < l { (w, l) } else { (l, w) };
                let p =
                    self.predict_pair(&Self::row(feats, a as usize), &Self::row(feats, b as usize));
                (p.mean, p.sd, a == w)
            })
            .collect()
    }
}
