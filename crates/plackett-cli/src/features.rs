//! `plackett fit --features`: PL regression (Guo et al. 2019) from the CLI.

use crate::fit::FitArgs;
use anyhow::{Result, bail};
use plackett::data::Dataset;
use plackett::data::features::{Features, read_features, read_features_with_prior};
use plackett::infer::feature_fit::{
    EtaChoice, FeatureEngine, FeatureFit, FeatureFitOptions, ViKind, fit_features,
};
use plackett::infer::gaussian_vi::default_eta_grid;
use plackett::io::output::{
    Coefficient, Comparison, Diagnostics, EtaPoint, FeatureScaling, FitReport, NewItem,
    RegressionInfo, gauge_label,
};
use plackett::posterior::summary::Z975;
use plackett::posterior::{Draws, Gauge};

/// Everything the rest of `fit` needs from a feature fit.
pub struct FeatureOutcome {
    pub report: FitReport,
    pub feats: Features,
    pub fit: FeatureFit,
    pub draws: Option<Draws>,
}

/// Parse `--eta-grid LO:HI:N` (log-spaced) or a comma list.
pub fn parse_eta_grid(s: Option<&str>) -> Result<Vec<f64>> {
    let Some(s) = s else {
        return Ok(default_eta_grid());
    };
    let bad = || {
        anyhow::anyhow!(
            "invalid option --eta-grid: expected LO:HI:N (N log-spaced values) or a comma-separated list of positive numbers, got {s:?}"
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

/// `--vi`.
pub fn vi_kind(s: Option<&str>) -> ViKind {
    match s {
        Some("guo") => ViKind::Guo,
        _ => ViKind::Exact,
    }
}

/// Fit a feature model as asked by the arguments.
pub fn fit(a: &FitArgs, ds: &Dataset, gauge: &Gauge) -> Result<FeatureOutcome> {
    let path = a.features.as_deref().expect("called with --features");
    let text = plackett::io::read_text(path)?;
    let standardize = a.standardize.as_deref() != Some("off");
    let feats = if a.engine == crate::args::Engine::Mle {
        read_features(path, &text, ds.items(), standardize)?
    } else {
        read_features_with_prior(path, &text, ds.items(), standardize)?
    };
    let vi = vi_kind(a.vi.as_deref());
    let engine = match a.engine.as_str() {
        "mle" => FeatureEngine::Mle,
        "map" => FeatureEngine::Map,
        "vb" => FeatureEngine::Vb(vi),
        other => bail!(
            "invalid option --engine: {other} does not take --features; use mle, map or vb (gibbs and ep model item worths without features)"
        ),
    };
    if a.engine == crate::args::Engine::Mle && a.eta.is_some() {
        bail!("invalid option --eta: the MLE has no prior; use --engine map or vb");
    }
    if a.pseudo.is_some() {
        bail!("invalid option --pseudo: not used with --features (use --engine map with --eta)");
    }
    let eta = match a.eta.as_deref() {
        None => EtaChoice::Fixed(1.0),
        Some("auto") => EtaChoice::Auto(parse_eta_grid(a.eta_grid.as_deref())?),
        Some(v) => match v.trim().parse::<f64>() {
            Ok(e) if e.is_finite() && e > 0.0 => EtaChoice::Fixed(e),
            _ => bail!("invalid option --eta: expected a positive number or auto, got {v:?}"),
        },
    };
    if a.eta_grid.is_some() && !matches!(eta, EtaChoice::Auto(_)) {
        bail!("invalid option --eta-grid: only with --eta auto");
    }
    let fit = fit_features(
        ds,
        &feats,
        &FeatureFitOptions {
            engine,
            eta,
            vi,
            tol: a.tol.unwrap_or(1e-10),
            max_iter: a.max_iter,
            seed: a.seed,
        },
    )?;
    let draws = fit.draws(&feats, a.draws.max(1), a.seed);
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
    if ds.dropped() > 0 {
        notes.push(format!(
            "{} uninformative observation(s) dropped",
            ds.dropped()
        ));
    }
    let report = FitReport {
        engine: fit.engine.to_string(),
        algorithm: fit.algorithm.clone(),
        n_items: ds.n_items(),
        n_observations: ds.n_real_obs(),
        dropped_observations: ds.dropped(),
        ties: ds.ties().as_str().to_string(),
        gauge: gauge_label(gauge, ds.items().names()),
        converged: fit.converged,
        iterations: fit.iterations,
        tolerance: Some(a.tol.unwrap_or(1e-10)),
        log_likelihood: fit.log_likelihood,
        deviance: fit.log_likelihood.map(|l| -2.0 * l),
        aic: fit.log_likelihood.map(|l| -2.0 * l + 2.0 * d),
        log_evidence: None,
        elbo: fit.elbo,
        diagnostics: Diagnostics::default(),
        items: summary.items,
        coefficients: Some(coefficients),
        regression: Some(RegressionInfo {
            standardized: standardize,
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
        }),
        tie_parameters: None,
        comparisons: Vec::new(),
        quasi_variances: None,
        predictive_log_likelihood: None,
        n_test_observations: None,
        notes,
    };
    Ok(FeatureOutcome {
        report,
        feats,
        fit,
        draws,
    })
}

/// `--compare A,B` for a feature model: A and B may be any item of the
/// features file, observed or not.
pub fn compare(o: &FeatureOutcome, ds: &Dataset, a: &str, b: &str) -> Result<Comparison> {
    let row = |name: &str| -> Result<Vec<f64>> {
        if let Some(i) = ds.items().get(name) {
            return Ok(FeatureFit::row(&o.feats, i as usize));
        }
        match o.feats.extra.iter().find(|(n, _)| n == name) {
            Some((_, raw)) => Ok(o.feats.transform(raw)),
            None => bail!(
                "invalid option --compare: no item named {name:?} in the data or the features file"
            ),
        }
    };
    let p = o.fit.predict_pair(&row(a)?, &row(b)?);
    Ok(Comparison {
        winner: a.to_string(),
        loser: b.to_string(),
        probability: if o.fit.bayesian {
            p.posterior
        } else {
            p.plug_in
        },
        plug_in: Some(p.plug_in),
        difference_mean: Some(p.mean),
        difference_sd: o.fit.cov.as_ref().map(|_| p.sd),
    })
}
