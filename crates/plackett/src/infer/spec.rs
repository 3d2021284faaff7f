//! One validated description of a fit, for every ranking engine: what the
//! CLI's `plackett fit` and the Python package's `plackett.fit` both build
//! and run. [`FitSpec::check`] enforces the cross-field rules, with errors
//! naming the parameter; [`FitSpec::run`] is the only place that knows the
//! engines apart, and returns the one result interface, [`Posterior`].

use super::bayes::{BayesFit, GammaPrior};
use super::ep::{EpOptions, ep};
use super::gibbs::{GibbsOptions, gibbs};
use super::mcmc::McmcSettings;
use super::point::{Algorithm, PointFit, PointOptions, fit_point};
use super::prior::Prior;
use super::vb::{VbCovariance, VbOptions, vb};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::numerics::fixed_point::IterSettings;
use crate::observer::SharedObserver;
use crate::posterior::{Gauge, Posterior};

/// The ranking engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    /// Maximum likelihood with standard errors.
    Mle,
    /// Maximum a posteriori (Gamma or Normal prior).
    Map,
    /// Gibbs sampler (Caron & Doucet 2012).
    Gibbs,
    /// Power EP (Guiver & Snelson 2009).
    Ep,
    /// Mean-field VB with Gamma factors.
    Vb,
}

impl EngineKind {
    /// Lower-case name (`mle`, `map`, `gibbs`, `ep`, `vb`).
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Mle => "mle",
            EngineKind::Map => "map",
            EngineKind::Gibbs => "gibbs",
            EngineKind::Ep => "ep",
            EngineKind::Vb => "vb",
        }
    }

    /// Parse a lower-case name.
    pub fn parse(s: &str) -> Result<EngineKind> {
        Ok(match s {
            "mle" => EngineKind::Mle,
            "map" => EngineKind::Map,
            "gibbs" => EngineKind::Gibbs,
            "ep" => EngineKind::Ep,
            "vb" => EngineKind::Vb,
            _ => {
                return Err(Error::param(
                    "engine",
                    format!("unknown engine {s:?} (mle, map, gibbs, ep, vb)"),
                ));
            }
        })
    }

    /// Default convergence tolerance (what `tol: None` means).
    pub fn default_tol(self) -> f64 {
        if self == EngineKind::Ep { 1e-8 } else { 1e-10 }
    }
}

/// Everything a ranking fit needs besides the data.
#[derive(Clone)]
pub struct FitSpec {
    /// Engine.
    pub engine: EngineKind,
    /// MAP prior (`Prior::Gamma` or `Prior::Normal`); ignored by other
    /// engines (MLE is flat; the Bayesian engines use `gamma`).
    pub map_prior: Prior,
    /// Gamma(shape, rate) prior on the worths for gibbs, ep and vb.
    pub gamma: (f64, f64),
    /// Optimiser for mle/map.
    pub algorithm: Algorithm,
    /// Pseudo-rankings against a ghost item (mle/map).
    pub pseudo: Option<f64>,
    /// Gauge of the reported log-worths.
    pub gauge: Gauge,
    /// Convergence tolerance; `None`: the engine's default.
    pub tol: Option<f64>,
    /// Iteration cap; `None`: the engine's default.
    pub max_iter: Option<usize>,
    /// Standard errors for mle/map.
    pub standard_errors: bool,
    /// The full covariance matrix for mle/map.
    pub covariance: bool,
    /// Gibbs: kept draws per chain.
    pub samples: usize,
    /// Gibbs: burn-in sweeps per chain.
    pub burn_in: usize,
    /// Gibbs: chains.
    pub chains: usize,
    /// EP/VB: draws sampled from the approximate posterior.
    pub draws: usize,
    /// VB: the covariance its sds, intervals and draws come from (the
    /// linear-response correction by default; [`VbCovariance`]).
    pub vb_covariance: VbCovariance,
    /// Seed of every random stream.
    pub seed: u64,
    /// Told of progress (Gibbs sweeps, VB iterations); may cancel the run.
    pub observer: Option<SharedObserver>,
}

impl Default for FitSpec {
    fn default() -> Self {
        FitSpec {
            engine: EngineKind::Mle,
            map_prior: Prior::Gamma {
                shape: 2.0,
                rate: 1.0,
            },
            gamma: (2.0, 1.0),
            algorithm: Algorithm::Auto,
            pseudo: None,
            gauge: Gauge::MeanCentred,
            tol: None,
            max_iter: None,
            standard_errors: true,
            covariance: false,
            samples: 5000,
            burn_in: 1000,
            chains: 4,
            draws: 4000,
            vb_covariance: VbCovariance::default(),
            seed: 1,
            observer: None,
        }
    }
}

fn positive(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!(
                "expected a positive number, got {}",
                crate::error::show_number(v)
            ),
        ))
    }
}

pub use crate::numerics::gamma::MAX_GAMMA_PARAMETER;
use crate::numerics::gamma::{check_parameter, check_shape};

/// Most numbers (draws × items) a fit may store as posterior draws (2 GB).
pub const MAX_DRAW_VALUES: usize = 250_000_000;

impl FitSpec {
    /// Check every value and the rules between them.
    pub fn check(&self) -> Result<()> {
        if let Some(t) = self.tol {
            positive("tol", t)?;
        }
        if self.max_iter == Some(0) {
            return Err(Error::param("max_iter", "expected at least 1"));
        }
        check_shape("prior_shape", self.gamma.0)?;
        check_parameter("prior_rate", self.gamma.1)?;
        match self.map_prior {
            Prior::Gamma { shape, rate } => {
                check_shape("prior_shape", shape)?;
                check_parameter("prior_rate", rate)?;
            }
            Prior::Normal { mean, sd } => {
                positive("prior_sd", sd)?;
                if !mean.is_finite() {
                    return Err(Error::param("prior_mean", "expected a finite number"));
                }
            }
            Prior::Flat => {}
        }
        if let Some(w) = self.pseudo {
            positive("pseudo", w)?;
            if !matches!(self.engine, EngineKind::Mle | EngineKind::Map) {
                return Err(Error::param("pseudo", "only with the mle and map engines"));
            }
        }
        for (name, v) in [
            ("samples", self.samples),
            ("chains", self.chains),
            ("draws", self.draws),
        ] {
            if v == 0 {
                return Err(Error::param(name, "expected at least 1"));
            }
        }
        if self.draws > crate::sampling::mcmc::MAX_KEPT_DRAWS {
            return Err(Error::param(
                "draws",
                format!(
                    "at most {} draws from the approximate posterior, got {}",
                    crate::sampling::mcmc::MAX_KEPT_DRAWS,
                    self.draws
                ),
            ));
        }
        Ok(())
    }

    /// Check, then fit `ds` with the chosen engine.
    pub fn run(&self, ds: &Dataset) -> Result<Box<dyn Posterior + Send + Sync>> {
        Ok(Box::new(self.fit(ds)?))
    }

    /// Check, then fit `ds`; the result as a concrete, serialisable value.
    pub fn fit(&self, ds: &Dataset) -> Result<Fitted> {
        self.check()?;
        // Draws are stored per item: bound the whole array (2 GB).
        let kept = match self.engine {
            EngineKind::Gibbs => self.samples.saturating_mul(self.chains),
            EngineKind::Ep | EngineKind::Vb => self.draws,
            _ => 0,
        };
        if kept.saturating_mul(ds.n_items()) > MAX_DRAW_VALUES {
            return Err(Error::param(
                if self.engine == EngineKind::Gibbs {
                    "samples"
                } else {
                    "draws"
                },
                format!(
                    "{kept} draws of {} items would store more than {MAX_DRAW_VALUES} numbers; \
                     keep fewer draws",
                    ds.n_items()
                ),
            ));
        }
        let tol = self.tol.unwrap_or(self.engine.default_tol());
        let gamma = || GammaPrior::iid(ds.n_items(), self.gamma.0, self.gamma.1);
        Ok(match self.engine {
            EngineKind::Mle | EngineKind::Map => Fitted::Point(fit_point(
                ds,
                &PointOptions {
                    prior: if self.engine == EngineKind::Mle {
                        Prior::Flat
                    } else {
                        self.map_prior
                    },
                    pseudo: self.pseudo,
                    algorithm: self.algorithm,
                    tol,
                    max_iter: self.max_iter,
                    gauge: self.gauge.clone(),
                    standard_errors: self.standard_errors,
                    covariance: self.covariance,
                },
            )?),
            EngineKind::Gibbs => Fitted::Bayes(gibbs(
                ds,
                &GibbsOptions {
                    prior: gamma()?,
                    mcmc: McmcSettings::new(self.samples, self.burn_in, self.chains, self.seed),
                    rescale: true,
                    observer: self.observer.clone(),
                },
            )?),
            EngineKind::Ep => {
                let d = EpOptions::new(gamma()?);
                Fitted::Bayes(ep(
                    ds,
                    &EpOptions {
                        tol,
                        max_passes: self.max_iter.unwrap_or(d.max_passes),
                        draws: self.draws,
                        seed: self.seed,
                        ..d
                    },
                )?)
            }
            EngineKind::Vb => {
                let mut f = vb(
                    ds,
                    &VbOptions {
                        iter: IterSettings::new(tol, self.max_iter.unwrap_or(100_000)),
                        draws: self.draws,
                        seed: self.seed,
                        observer: self.observer.clone(),
                        covariance: self.vb_covariance,
                        ..VbOptions::new(gamma()?)
                    },
                )?;
                // `Posterior::covariance` is in the summary's gauge (`vb`
                // returns it mean-centred).
                if self.gauge != Gauge::MeanCentred {
                    f.covariance = f
                        .covariance
                        .map(|v| super::point::in_gauge(&v, &self.gauge));
                }
                Fitted::Bayes(f)
            }
        })
    }
}

/// The result of [`FitSpec::fit`]: a point estimate or a posterior, as a
/// concrete value that serialises (and so pickles, and crosses process
/// boundaries) and answers every [`Posterior`] query by delegation.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Fitted {
    /// MLE or MAP.
    Point(PointFit),
    /// Gibbs, EP or VB.
    Bayes(BayesFit),
    /// PL regression on item features (Guo et al. 2019).
    Features(Box<super::feature_run::FeatureOutcome>),
}

impl Fitted {
    fn inner(&self) -> &(dyn Posterior + Send + Sync) {
        match self {
            Fitted::Point(f) => f,
            Fitted::Bayes(f) => f,
            Fitted::Features(f) => f.as_ref(),
        }
    }
}

impl Posterior for Fitted {
    fn info(&self) -> crate::posterior::FitInfo {
        self.inner().info()
    }
    fn summary(&self, names: &[String], gauge: Gauge) -> crate::posterior::Summary {
        self.inner().summary(names, gauge)
    }
    fn draws(&self) -> std::borrow::Cow<'_, crate::posterior::Draws> {
        self.inner().draws()
    }
    fn point(&self) -> Option<&[f64]> {
        self.inner().point()
    }
    fn has_draws(&self) -> bool {
        self.inner().has_draws()
    }
    fn item_diagnostics(&self) -> Option<&[crate::posterior::ScalarDiagnostics]> {
        self.inner().item_diagnostics()
    }
    fn rhat_ess(&self) -> (Option<f64>, Option<f64>) {
        self.inner().rhat_ess()
    }
    fn tie_parameters(&self) -> &[crate::posterior::TieParameter] {
        self.inner().tie_parameters()
    }
    fn covariance(&self) -> Option<&nalgebra::DMatrix<f64>> {
        self.inner().covariance()
    }
    fn prob_beats(&self, i: usize, j: usize) -> f64 {
        self.inner().prob_beats(i, j)
    }
    fn rank_marginals(
        &self,
        set: &[u32],
        races: usize,
        seed: u64,
    ) -> crate::error::Result<Vec<Vec<f64>>> {
        self.inner().rank_marginals(set, races, seed)
    }
    fn predictive_log_likelihood(&self, test: &Dataset) -> crate::error::Result<f64> {
        self.inner().predictive_log_likelihood(test)
    }
}
