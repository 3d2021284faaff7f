//! One PL-regression run (Guo et al. 2019) as every front end asks for it:
//! settings named like the CLI's flags, the features file read for the
//! right engine, the fit, and the [`FitReport`] with coefficients, the
//! feature scaling, the η curve and predictions for items that appear only
//! in the features file. `plackett fit --features` and Python's
//! `plackett.fit(..., features=...)` both call [`run`], so they print the
//! same JSON.

use super::feature_fit::{
    EtaChoice, FeatureEngine, FeatureFit, FeatureFitOptions, ViKind, fit_features,
};
use super::gaussian_vi::default_eta_grid;
use crate::data::Dataset;
use crate::data::features::Features;
use crate::error::{Error, Result};
use crate::io::features::{read_features, read_features_with_prior};
use crate::posterior::fit_report::{
    Coefficient, Comparison, Diagnostics, EtaPoint, FeatureScaling, FitReport, NewItem,
    RegressionInfo, gauge_label,
};
use crate::posterior::fitted::point_draws;
use crate::posterior::summary::Z975;
use crate::posterior::{Draws, FitInfo, Gauge, Posterior, Summary, Trace};
use std::borrow::Cow;

/// What a feature fit is asked for, with the CLI's defaults.
#[derive(Debug, Clone)]
pub struct FeatureSettings {
    /// `mle`, `map` or `vb`.
    pub engine: String,
    /// Centre and scale the feature columns (`--standardize on`, default).
    pub standardize: bool,
    /// Prior precision η of `β ~ N(0, I/η)`: a positive number or `auto`
    /// (default 1; not with `mle`).
    pub eta: Option<String>,
    /// The `auto` grid: `LO:HI:N` (log-spaced) or a comma list.
    pub eta_grid: Option<String>,
    /// `exact` (default) or `guo`.
    pub vi: Option<String>,
    /// Newton tolerance (default 1e-10).
    pub tol: Option<f64>,
    /// Iteration cap.
    pub max_iter: Option<usize>,
    /// Seed of the exact-bound sample averages and of the draws.
    pub seed: u64,
    /// Posterior draws to keep (VB).
    pub draws: usize,
}

impl Default for FeatureSettings {
    fn default() -> Self {
        FeatureSettings {
            engine: "mle".into(),
            standardize: true,
            eta: None,
            eta_grid: None,
            vi: None,
            tol: None,
            max_iter: None,
            seed: 1,
            draws: 4000,
        }
    }
}

fn invalid(param: &str, msg: impl Into<String>) -> Error {
    Error::InvalidParam {
        param: param.into(),
        msg: msg.into(),
    }
}

/// Parse an η grid: `LO:HI:N` (N log-spaced values) or a comma list;
/// `None` gives the default grid.
pub fn parse_eta_grid(s: Option<&str>) -> Result<Vec<f64>> {
    let Some(s) = s else {
        return Ok(default_eta_grid());
    };
    let bad = || {
        invalid(
            "eta_grid",
            format!(
                "expected LO:HI:N (N log-spaced values) or a comma-separated list of positive numbers, got {s:?}"
            ),
        )
    };
    let grid: Vec<f64> = if s.contains(':') {
        let p: Vec<&str> = s.split(':').collect();
        if p.len() != 3 {
            return Err(bad());
        }
        let lo: f64 = p[0].trim().parse().map_err(|_| bad())?;
        let hi: f64 = p[1].trim().parse().map_err(|_| bad())?;
        let n: usize = p[2].trim().parse().map_err(|_| bad())?;
        if !(lo > 0.0 && hi > lo && hi.is_finite() && (2..=1000).contains(&n)) {
            return Err(bad());
        }
        (0..n)
            .map(|k| (lo.ln() + (hi.ln() - lo.ln()) * k as f64 / (n - 1) as f64).exp())
            .collect()
    } else {
        s.split(',')
            .map(|v| v.trim().parse::<f64>().map_err(|_| bad()))
            .collect::<Result<Vec<_>>>()?
    };
    if grid.is_empty() || grid.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(bad());
    }
    Ok(grid)
}

impl FeatureSettings {
    /// The variational family asked for.
    pub fn vi_kind(&self) -> Result<ViKind> {
        match self.vi.as_deref() {
            None | Some("exact") => Ok(ViKind::Exact),
            Some("guo") => Ok(ViKind::Guo),
            Some(other) => Err(invalid(
                "vi",
                format!("expected exact or guo, got {other:?}"),
            )),
        }
    }

    fn engine(&self, vi: ViKind) -> Result<FeatureEngine> {
        match self.engine.as_str() {
            "mle" => Ok(FeatureEngine::Mle),
            "map" => Ok(FeatureEngine::Map),
            "vb" => Ok(FeatureEngine::Vb(vi)),
            other => Err(invalid(
                "engine",
                format!(
                    "{other} does not take `features`; use mle, map or vb (gibbs and ep model item worths without features)"
                ),
            )),
        }
    }

    fn eta_choice(&self) -> Result<EtaChoice> {
        if self.engine == "mle" && self.eta.is_some() {
            return Err(invalid(
                "eta",
                "the MLE has no prior; use `engine=map` or vb",
            ));
        }
        let eta = match self.eta.as_deref() {
            None => EtaChoice::Fixed(1.0),
            Some("auto") => EtaChoice::Auto(parse_eta_grid(self.eta_grid.as_deref())?),
            Some(v) => match v.trim().parse::<f64>() {
                Ok(e) if e.is_finite() && e > 0.0 => EtaChoice::Fixed(e),
                _ => {
                    return Err(invalid(
                        "eta",
                        format!("expected a positive number or auto, got {v:?}"),
                    ));
                }
            },
        };
        if self.eta_grid.is_some() && !matches!(eta, EtaChoice::Auto(_)) {
            return Err(invalid("eta_grid", "only with `eta=auto`"));
        }
        Ok(eta)
    }
}

/// A feature fit with everything a front end shows of it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FeatureOutcome {
    /// The report (`plackett fit --features`'s JSON).
    pub report: FitReport,
    /// The features as read (working scale).
    pub feats: Features,
    /// The fitted Gaussian or point belief about β.
    pub fit: FeatureFit,
    /// Posterior draws of the item log-worths (VB).
    pub draws: Option<Draws>,
    /// Normalised log-worths `x_iᵀβ̂` of the dataset's items, at the
    /// estimate (MLE, MAP) or the posterior mean (VB).
    pub theta: Vec<f64>,
    /// The gauge of the report's summary.
    pub gauge: Gauge,
    /// Number and seed of the posterior draws (VB), so that choice
    /// probabilities over items the draws do not hold reuse the same β
    /// draws. (Absent from results saved before it existed: 0 draws.)
    #[serde(default)]
    pub draw_settings: (usize, u64),
}

/// Read the features file `path` (contents `text`) for the items of `ds`
/// and fit the model the settings ask for.
pub fn run(
    s: &FeatureSettings,
    path: &str,
    text: &str,
    ds: &Dataset,
    gauge: &Gauge,
) -> Result<FeatureOutcome> {
    let vi = s.vi_kind()?;
    let engine = s.engine(vi)?;
    let eta = s.eta_choice()?;
    if let Some(t) = s.tol
        && !(t.is_finite() && t > 0.0)
    {
        return Err(invalid(
            "tol",
            format!("expected a positive number, got {t}"),
        ));
    }
    // The MLE needs identifiable coefficients; a prior pins down the rest.
    let feats = if engine == FeatureEngine::Mle {
        read_features(path, text, ds.items(), s.standardize)?
    } else {
        read_features_with_prior(path, text, ds.items(), s.standardize)?
    };
    let tol = s.tol.unwrap_or(1e-10);
    let fit = fit_features(
        ds,
        &feats,
        &FeatureFitOptions {
            engine,
            eta,
            vi,
            tol,
            max_iter: s.max_iter,
            seed: s.seed,
        },
    )?;
    let draws = fit.draws(&feats, s.draws.max(1), s.seed);
    let summary = fit.summary(&feats, ds.items().names(), gauge.clone(), draws.as_ref());
    let coefficients = fit
        .coefficients(&feats)
        .into_iter()
        .map(|c| Coefficient {
            name: c.name,
            estimate: (!fit.bayesian).then_some(c.value),
            se: if fit.bayesian { None } else { c.sd },
            mean: fit.bayesian.then_some(c.value),
            sd: if fit.bayesian { c.sd } else { None },
        })
        .collect();
    let new_items = feats
        .extra
        .iter()
        .map(|(name, raw)| {
            let (lw, sd) = fit.log_worth_of(&feats, gauge, &feats.transform(raw));
            NewItem {
                name: name.clone(),
                log_worth: lw,
                log_worth_se: if fit.bayesian { None } else { sd },
                log_worth_sd: if fit.bayesian { sd } else { None },
                ci_low: sd.map(|s| lw - Z975 * s),
                ci_high: sd.map(|s| lw + Z975 * s),
            }
        })
        .collect();
    let d = feats.d() as f64;
    let mut notes = fit.notes.clone();
    if feats.rank_deficit > 0 {
        notes.push(format!(
            "{} direction(s) of the coefficients are not identified by the data (collinear features, or more features than items − 1); the prior alone determines them",
            feats.rank_deficit
        ));
    }
    notes.extend(crate::posterior::fitted::data_notes_for(
        ds,
        crate::posterior::fitted::Linkage::Features,
    ));
    let lr_test = match (engine, fit.log_likelihood) {
        (FeatureEngine::Mle, Some(l)) => likelihood_ratio(ds, l, feats.d(), &mut notes),
        _ => None,
    };
    let report = FitReport {
        engine: fit.engine.to_string(),
        algorithm: fit.algorithm.clone(),
        n_items: ds.n_items(),
        n_observations: ds.n_real_obs(),
        dropped_observations: ds.dropped(),
        total_weight: crate::io::output::weighted_total(ds),
        ties: ds.ties().as_str().to_string(),
        gauge: gauge_label(gauge, ds.items().names()),
        converged: fit.converged,
        iterations: fit.iterations,
        tolerance: Some(tol),
        log_likelihood: fit.log_likelihood,
        deviance: fit.log_likelihood.map(|l| -2.0 * l),
        // AIC for maximum likelihood only: a MAP or VB fit's objective is
        // not the maximised likelihood.
        aic: fit
            .log_likelihood
            .filter(|_| engine == FeatureEngine::Mle)
            .map(|l| -2.0 * l + 2.0 * d),
        log_evidence: None,
        elbo: fit.elbo,
        diagnostics: Diagnostics::default(),
        items: summary.items,
        coefficients: Some(coefficients),
        regression: Some(RegressionInfo {
            standardized: s.standardize,
            scaling: (0..feats.d())
                .map(|j| FeatureScaling {
                    name: feats.names[j].clone(),
                    centre: feats.centre[j],
                    scale: feats.scale[j],
                })
                .collect(),
            eta: (fit.eta > 0.0).then_some(fit.eta),
            vi: (fit.bayesian || fit.eta_curve.is_some()).then(|| vi.as_str().to_string()),
            eta_curve: fit.eta_curve.as_ref().map(|c| {
                c.grid
                    .iter()
                    .zip(&c.bound)
                    .map(|(&eta, &bound)| EtaPoint { eta, bound })
                    .collect()
            }),
            new_items,
            lr_test,
        }),
        tie_parameters: None,
        comparisons: Vec::new(),
        choices: Vec::new(),
        quasi_variances: None,
        predictive_log_likelihood: None,
        n_test_observations: None,
        notes,
    };
    let mut theta = fit.log_worths(&feats);
    Draws::normalise(&mut theta);
    Ok(FeatureOutcome {
        report,
        feats,
        fit,
        draws,
        theta,
        gauge: gauge.clone(),
        draw_settings: (s.draws.max(1), s.seed),
    })
}

impl FeatureOutcome {
    /// The working-scale feature row of an item: an item of the data, or
    /// one that appears only in the features file.
    pub fn row(&self, names: &[String], name: &str) -> Option<Vec<f64>> {
        if let Some(i) = names.iter().position(|n| n == name) {
            return Some(FeatureFit::row(&self.feats, i));
        }
        self.feats
            .extra
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, raw)| self.feats.transform(raw))
    }

    /// [`Self::row`], or the error `--compare` reports for an unknown name.
    fn named_row(&self, names: &[String], name: &str) -> Result<Vec<f64>> {
        self.row(names, name).ok_or_else(|| {
            invalid(
                "compare",
                format!("no item named {name:?} in the data or the features file"),
            )
        })
    }

    /// P(a ≻ b) for any two items of the features file, observed or not:
    /// posterior (VB) or plug-in (MLE, MAP), with the log-worth difference.
    /// `names` are the fitted dataset's items, in id order.
    pub fn compare(&self, names: &[String], a: &str, b: &str) -> Result<Comparison> {
        let p = self
            .fit
            .predict_pair(&self.named_row(names, a)?, &self.named_row(names, b)?);
        Ok(Comparison {
            winner: a.to_string(),
            loser: b.to_string(),
            probability: if self.fit.bayesian {
                p.posterior
            } else {
                p.plug_in
            },
            tie_probability: None,
            plug_in: Some(p.plug_in),
            difference_mean: Some(p.mean),
            difference_sd: self.fit.cov.as_ref().map(|_| p.sd),
        })
    }

    /// P(each item of `set` is chosen first from it), Luce's choice axiom
    /// over log-worths `xᵀβ`, for any items of the features file, observed
    /// or not: the plug-in value (MLE, MAP) or the posterior mean and sd
    /// over the β draws of the fit (VB; the draws `--draws-out` writes, so
    /// for items of the data this equals the draws' choice probabilities).
    /// `names` are the fitted dataset's items, in id order.
    pub fn choice(&self, names: &[String], set: &[&str]) -> Result<Vec<(f64, Option<f64>)>> {
        let rows = set
            .iter()
            .map(|name| self.named_row(names, name))
            .collect::<Result<Vec<_>>>()?;
        let d = self.feats.d();
        let x = nalgebra::DMatrix::from_fn(rows.len(), d, |i, j| rows[i][j]);
        let all: Vec<usize> = (0..rows.len()).collect();
        // A result saved before the settings were kept: as many draws as
        // it holds, under the default seed.
        let (n, seed) = match self.draw_settings {
            (0, _) => (self.draws.as_ref().map_or(1, |d| d.len()), 1),
            kept => kept,
        };
        let draws = match self.fit.draws_of_rows(&x, n, seed) {
            Some(dr) => dr,
            None => point_draws(&(&x * &self.fit.mu).iter().copied().collect::<Vec<_>>()),
        };
        Ok(draws.choice_probabilities(&all))
    }
}

/// A feature model answers the same questions as every other engine
/// (summary, draws, P(i ≻ j), rank marginals, predictive log-likelihood)
/// for the items of the data it was fitted to.
impl Posterior for FeatureOutcome {
    fn info(&self) -> FitInfo {
        FitInfo {
            engine: self.fit.engine.to_string(),
            algorithm: self.fit.algorithm.clone(),
            converged: self.fit.converged,
            iterations: self.fit.iterations,
            tolerance: self.report.tolerance,
            log_likelihood: self.fit.log_likelihood,
            n_parameters: Some(self.feats.d()),
            log_evidence: None,
            elbo: self.fit.elbo,
            trace: self.fit.bayesian.then(|| Trace {
                label: "variational bound".into(),
                values: self.fit.bound_trace.clone(),
                log_scale: false,
            }),
            notes: self.report.notes.clone(),
        }
    }

    fn summary(&self, names: &[String], gauge: Gauge) -> Summary {
        self.fit
            .summary(&self.feats, names, gauge, self.draws.as_ref())
    }

    fn draws(&self) -> Cow<'_, Draws> {
        match &self.draws {
            Some(d) => Cow::Borrowed(d),
            None => Cow::Owned(point_draws(&self.theta)),
        }
    }

    fn point(&self) -> Option<&[f64]> {
        (!self.fit.bayesian).then_some(self.theta.as_slice())
    }

    fn has_draws(&self) -> bool {
        self.draws.is_some()
    }
}

/// The likelihood-ratio test of a features MLE (log-likelihood
/// `features_ll`, `d` coefficients) against the free-worths MLE on the same
/// data; `None`, with a note saying why, when the free-worths maximum does
/// not exist or the features do not constrain the worths.
fn likelihood_ratio(
    ds: &Dataset,
    features_ll: f64,
    d: usize,
    notes: &mut Vec<String>,
) -> Option<crate::posterior::fit_report::LrTest> {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let free_parameters = ds.n_items().saturating_sub(1);
    if d >= free_parameters {
        notes.push(format!(
            "no likelihood-ratio test against free worths: {d} feature(s) for {} item(s) do not \
             constrain the worths",
            ds.n_items()
        ));
        return None;
    }
    let df = free_parameters - d;
    let free = match crate::fit_mle(ds).map(|p| p.info().log_likelihood) {
        Ok(Some(l)) => l,
        Ok(None) | Err(_) => {
            notes.push(
                "no likelihood-ratio test against free worths: their maximum-likelihood \
                 estimate does not exist on these data"
                    .into(),
            );
            return None;
        }
    };
    // The features model is nested in the free one, so its maximum is not
    // higher; rounding can make the difference a hair negative.
    let statistic = (2.0 * (free - features_ll)).max(0.0);
    let p_value = ChiSquared::new(df as f64).ok()?.sf(statistic);
    Some(crate::posterior::fit_report::LrTest {
        free_log_likelihood: free,
        statistic,
        df,
        p_value,
    })
}
