//! `plackett fit`.

use crate::args::{Engine, Output, PriorArg};
use anyhow::{Result, bail};
use plackett::data::Dataset;
use plackett::document::Document;
use plackett::infer::Prior;
use plackett::infer::spec::{EngineKind, FitSpec};
use plackett::posterior::fit_report::FitReport;
use plackett::posterior::{Gauge, Posterior};

use crate::fit_args::{
    FitArgs, RANK_MARGINAL_RACES, choice_names, choice_set, compare_ids, compare_names, finish,
    load, load_with_universe, rank_marginals_csv,
};

fn gauge(a: &FitArgs, ds: &Dataset) -> Result<Gauge> {
    Ok(match &a.reference {
        None => Gauge::MeanCentred,
        Some(name) => match ds.items().get(name) {
            Some(id) => Gauge::Reference(id),
            None => {
                bail!("invalid option --reference: no item named {name:?} among the fitted items")
            }
        },
    })
}

/// Flags that only some engines read: (clap id, flag, engines). With
/// `--features` the engines are mle, map and vb and none of these but
/// `--no-se`, `--draws`, `--tol` and `--max-iter` apply.
const ENGINE_FLAGS: &[(&str, &str, &[Engine])] = {
    use Engine::*;
    &[
        ("algorithm", "--algorithm", &[Mle, Map]),
        ("prior", "--prior", &[Map]),
        ("prior_mean", "--prior-mean", &[Map]),
        ("prior_sd", "--prior-sd", &[Map]),
        ("prior_shape", "--prior-shape", &[Map, Gibbs, Ep, Vb]),
        ("prior_rate", "--prior-rate", &[Map, Gibbs, Ep, Vb]),
        ("pseudo", "--pseudo", &[Mle, Map]),
        ("no_se", "--no-se", &[Mle, Map]),
        ("vcov", "--vcov", &[Mle, Map, Vb]),
        ("quasi", "--quasi", &[Mle, Map, Vb]),
        ("tol", "--tol", &[Mle, Map, Ep, Vb]),
        ("max_iter", "--max-iter", &[Mle, Map, Ep, Vb]),
        (
            "allow_nonconvergence",
            "--allow-nonconvergence",
            &[Mle, Map, Ep, Vb],
        ),
        ("samples", "--samples", &[Gibbs]),
        ("burn_in", "--burn-in", &[Gibbs]),
        ("chains", "--chains", &[Gibbs]),
        ("draws", "--draws", &[Ep, Vb]),
        ("covariance", "--covariance", &[Vb]),
    ]
};

/// Refuse options the chosen engine would silently ignore, and values no
/// engine can use. `explicit` holds the clap ids given on the command line.
fn check_options(a: &FitArgs, explicit: &[String]) -> Result<()> {
    let given = |id: &str| explicit.iter().any(|e| e == id);
    for &(id, flag, engines) in ENGINE_FLAGS {
        if !given(id) {
            continue;
        }
        if a.features.is_some() {
            let with_features = ["no_se", "draws", "tol", "max_iter", "allow_nonconvergence"];
            if !with_features.contains(&id) {
                bail!(
                    "invalid option {flag}: not used with --features (the prior on the coefficients is set by --eta)"
                );
            }
        } else if !engines.contains(&a.engine) {
            let names: Vec<&str> = engines.iter().map(|e| e.as_str()).collect();
            bail!(
                "invalid option {flag}: only with --engine {} (this run uses --engine {})",
                names.join("|"),
                a.engine
            );
        }
    }
    if (given("prior_mean") || given("prior_sd")) && a.prior != PriorArg::Normal {
        bail!("invalid option --prior-mean/--prior-sd: only with --prior normal");
    }
    if given("prior")
        && a.prior == PriorArg::Normal
        && (given("prior_shape") || given("prior_rate"))
    {
        bail!(
            "invalid option --prior-shape/--prior-rate: the Gamma prior's; --prior normal uses --prior-mean and --prior-sd"
        );
    }
    // Values: the library's FitSpec checks them; its parameter names are
    // the flags' with '_' for '-'.
    spec_of(a, Gauge::MeanCentred).check()?;
    Ok(())
}

/// The flags as the library's [`FitSpec`] (no progress callback).
fn spec_of(a: &FitArgs, gauge: Gauge) -> FitSpec {
    FitSpec {
        engine: match a.engine {
            Engine::Mle => EngineKind::Mle,
            Engine::Map => EngineKind::Map,
            Engine::Gibbs => EngineKind::Gibbs,
            Engine::Ep => EngineKind::Ep,
            Engine::Vb => EngineKind::Vb,
        },
        map_prior: match a.prior {
            PriorArg::Normal => Prior::Normal {
                mean: a.prior_mean,
                sd: a.prior_sd,
            },
            PriorArg::Gamma => Prior::Gamma {
                shape: a.prior_shape,
                rate: a.prior_rate,
            },
        },
        gamma: (a.prior_shape, a.prior_rate),
        algorithm: a.algorithm.into(),
        pseudo: a.pseudo,
        gauge,
        tol: a.tol,
        max_iter: a.max_iter,
        standard_errors: !a.no_se,
        covariance: a.vcov.is_some() || a.quasi,
        samples: a.samples,
        burn_in: a.burn_in,
        chains: a.chains,
        draws: a.draws,
        vb_covariance: plackett::infer::vb::VbCovariance::parse(&a.covariance).unwrap_or_default(),
        seed: a.seed,
        observer: None,
    }
}

/// Translate the flags into the library's validated [`FitSpec`] and run
/// it. Adding an engine is one more `EngineKind` in the library, one more
/// implementation of [`Posterior`], one more `--engine` value here.
/// Also returns the sampler's progress bar, still up: the caller turns it
/// into a "writing…" spinner and clears it when everything is written, so
/// the seconds of summaries and report after the last sweep are not silent.
fn fit_engine(
    a: &FitArgs,
    ds: &Dataset,
    gauge: &Gauge,
) -> Result<(
    Box<dyn Posterior + Send + Sync>,
    Option<crate::progress::Progress>,
)> {
    let mut spec = spec_of(a, gauge.clone());
    let progress = (spec.engine == EngineKind::Gibbs).then(|| {
        crate::progress::Progress::new((a.burn_in + a.samples) as u64 * a.chains as u64, "sampling")
            .after("sampled; summarising the draws (R̂, ESS, intervals)")
    });
    spec.observer = progress.as_ref().map(|p| p.observer());
    let r = spec.run(ds)?;
    Ok((r, progress))
}

/// Run `plackett fit`; `explicit` lists the options given on the command
/// line (clap ids), so that options the engine would ignore are refused.
/// Refuse a flag in `flags` (clap id, spelling) given on a command line
/// that is not `what` (`--adherence`, `--components`).
fn only_with(explicit: &[String], flags: &[(&str, &str)], what: &str) -> Result<()> {
    for (id, flag) in flags {
        if explicit.iter().any(|e| e == id) {
            bail!("invalid option {flag}: only with {what}");
        }
    }
    Ok(())
}

pub fn run(a: &FitArgs, explicit: &[String]) -> Result<()> {
    if a.adherence {
        return crate::adherence::run(a, explicit);
    }
    only_with(
        explicit,
        &[
            ("adherence_shape", "--adherence-shape"),
            ("adherence_rate", "--adherence-rate"),
            ("fixed_adherence", "--fixed-adherence"),
        ],
        "--adherence",
    )?;
    if a.components.is_some() {
        return crate::mixture::run(a, explicit);
    }
    only_with(
        explicit,
        &[("starts", "--starts"), ("dirichlet", "--dirichlet")],
        "--components",
    )?;
    check_options(a, explicit)?;
    if a.features.is_none() {
        for (flag, set) in [
            ("--eta", a.eta.is_some()),
            ("--standardize", a.standardize.is_some()),
            ("--vi", a.vi.is_some()),
            ("--eta-grid", a.eta_grid.is_some()),
        ] {
            if set {
                bail!("invalid option {flag}: only with --features");
            }
        }
    }
    fit_one_population(a)
}

/// `plackett fit` of one population (neither `--components` nor
/// `--adherence`): an engine's posterior or a feature model, then the
/// extras the command line asks for, every file written at the end.
fn fit_one_population(a: &FitArgs) -> Result<()> {
    let ds = load(&a.data)?;
    let gauge = gauge(a, &ds)?;
    // Feature models keep their own report (coefficients, η); every other
    // engine answers through the one Posterior interface.
    let mut feature: Option<crate::features::FeatureOutcome> = None;
    let mut progress: Option<crate::progress::Progress> = None;
    let post: Option<Box<dyn Posterior + Send + Sync>> = if a.features.is_some() {
        None
    } else {
        let (p, bar) = fit_engine(a, &ds, &gauge)?;
        if let Some(b) = &bar {
            b.phase("writing the summaries, comparisons and report");
        }
        progress = bar;
        Some(p)
    };
    let mut report = match &post {
        Some(p) => FitReport::from_posterior(p.as_ref(), &ds, &gauge),
        None => {
            let o = crate::features::fit(a, &ds, &gauge)?;
            let r = o.report.clone();
            feature = Some(o);
            r
        }
    };
    // Library notes name parameters (`burn_in`); spell them as flags.
    for n in &mut report.notes {
        *n = crate::cli_text(n);
    }
    // An iterative engine that stopped at its cap has no estimate to
    // report as one (Gibbs's mixing diagnostics are notes, not this).
    if !report.converged && a.engine != Engine::Gibbs && !a.allow_nonconvergence {
        return Err(crate::NotConverged(format!(
            "the {} fit did not converge in {} iterations (tolerance {}); raise --max-iter, \
             or pass --allow-nonconvergence to report it anyway",
            report.engine,
            report.iterations,
            report
                .tolerance
                .map_or("-".to_string(), |t| format!("{t:e}"))
        ))
        .into());
    }
    // What the extras (comparisons, rank marginals, report) are computed
    // from: the engine's posterior or the feature model, through the one
    // Posterior interface.
    let fitted: &dyn Posterior = match (&post, &feature) {
        (Some(p), _) => p.as_ref(),
        (None, Some(o)) => o,
        (None, None) => unreachable!("a fit is an engine's posterior or a feature model"),
    };
    let source = fitted.draws();
    // Files written only after everything succeeded.
    let mut pending = extra_files(a, &ds, post.as_deref(), fitted, &mut report)?;
    compare(
        a,
        &ds,
        post.as_deref(),
        feature.as_ref(),
        &source,
        &mut report,
    )?;
    if let Some(page) = held_out_and_page(
        a,
        &ds,
        post.as_deref(),
        feature.as_ref(),
        fitted,
        &mut report,
    )? {
        pending.push(page);
    }
    let text = match a.output {
        Output::Json => report.to_json(),
        Output::Csv => report.to_csv(),
        Output::Table => report.to_table(),
    };
    // The spinner leaves the terminal before the table is printed.
    drop(progress);
    finish(a, text, pending, &report.notes)
}

/// The covariance matrix as CSV (`--vcov`): a header of item names, one
/// row per item.
fn vcov_csv(names: &[String], v: &plackett::nalgebra::DMatrix<f64>) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head = vec!["item".to_string()];
    head.extend(names.iter().cloned());
    w.write_record(&head)?;
    for (i, n) in names.iter().enumerate() {
        let mut row = vec![n.clone()];
        row.extend((0..names.len()).map(|j| v[(i, j)].to_string()));
        w.write_record(&row)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// Answer every `--compare`: a pair's win (and tie) probability, or the
/// first-choice probabilities of a set of three or more items, from the
/// engine's posterior or the feature model.
fn compare(
    a: &FitArgs,
    ds: &Dataset,
    post: Option<&(dyn Posterior + Send + Sync)>,
    feature: Option<&crate::features::FeatureOutcome>,
    source: &plackett::posterior::Draws,
    report: &mut FitReport,
) -> Result<()> {
    let names = ds.items().names();
    for pair in &a.compare {
        // A feature model chooses among any items of the features file,
        // observed or not (as its pairs do).
        if let Some(o) = feature
            && let Some(parts) = choice_names(pair)?
        {
            let probs = o.choice(names, &parts)?;
            let set: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
            let ids: Vec<usize> = (0..set.len()).collect();
            report
                .choices
                .push(plackett::posterior::fit_report::Choice::new(
                    &set, &ids, probs,
                ));
            continue;
        }
        if let Some(set) = choice_set(ds, pair)? {
            let (probs, tie) = match post {
                Some(p) => p.first_choice(&set),
                None => (source.choice_probabilities(&set), None),
            };
            report.choices.push(
                plackett::posterior::fit_report::Choice::new(names, &set, probs).with_tie(tie),
            );
            continue;
        }
        let (na, nb) = compare_names(pair)?;
        if let Some(o) = feature {
            report
                .comparisons
                .push(crate::features::compare(o, ds, na, nb)?);
            continue;
        }
        let (i, j) = compare_ids(ds, pair)?;
        let (probability, tie) = match post {
            Some(p) => p.pair_outcome(i as usize, j as usize),
            None => (source.prob_beats(i as usize, j as usize), None),
        };
        report
            .comparisons
            .push(plackett::posterior::fit_report::Comparison::new(
                na,
                nb,
                probability,
                tie,
            ));
    }
    Ok(())
}

/// `--test` (the held-out predictive log-likelihood, into `report`) and
/// `--report` (the HTML page, returned as its path and text).
fn held_out_and_page(
    a: &FitArgs,
    ds: &Dataset,
    post: Option<&(dyn Posterior + Send + Sync)>,
    feature: Option<&crate::features::FeatureOutcome>,
    fitted: &dyn Posterior,
    report: &mut FitReport,
) -> Result<Option<(String, String)>> {
    let source = fitted.draws();
    let mut test_data = None;
    if let Some(test_path) = &a.test {
        let mut ta = a.data.clone();
        ta.file = test_path.clone();
        let test = load_with_universe(&ta, ds.items(), "the training data")?;
        report.predictive_log_likelihood = Some(match post {
            Some(p) => p
                .predictive_log_likelihood(&test)
                .map_err(|e| anyhow::anyhow!("{test_path}: {}", crate::cli_text(&e.to_string())))?,
            None => source.predictive_log_likelihood(&test),
        });
        report.n_test_observations = Some(test.n_obs());
        test_data = Some(test);
    }
    if let Some(path) = &a.report {
        use plackett::report::fit::fit_page;
        let title = format!("plackett fit: {}", a.data.file);
        let data = Some(a.data.file.as_str());
        let extra = match feature {
            Some(o) => {
                let pairs = match &test_data {
                    Some(t) => (t, "Held-out observations (--test)"),
                    None => (
                        ds,
                        "Training observations (in-sample; pass --test for held-out pairs)",
                    ),
                };
                plackett::report::features::feature_sections(o, Some(pairs))
            }
            None => Vec::new(),
        };
        let page = fit_page(fitted, report, &title, data, a.seed, extra);
        return Ok(Some((path.clone(), page)));
    }
    Ok(None)
}

/// The files `--vcov`, `--model-out`, `--draws-out` and `--rank-marginals`
/// ask for (path, text), and `--quasi`'s quasi-variances into `report`.
fn extra_files(
    a: &FitArgs,
    ds: &Dataset,
    post: Option<&(dyn Posterior + Send + Sync)>,
    fitted: &dyn Posterior,
    report: &mut FitReport,
) -> Result<Vec<(String, String)>> {
    let names = ds.items().names();
    let mut pending = Vec::new();
    let source = fitted.draws();
    let has_draws = fitted.has_draws();
    if a.quasi {
        let Some(v) = post.and_then(|p| p.covariance()) else {
            bail!(
                "invalid option --quasi: no covariance for this fit (the information is singular beyond the gauge, or vb without its linear-response covariance)"
            );
        };
        let q = plackett::posterior::quasi::quasi_variances(v)?;
        report.quasi_variances = Some(plackett::posterior::fit_report::QuasiReport::new(names, &q));
    }
    if let Some(path) = &a.vcov {
        let Some(v) = post.and_then(|p| p.covariance()) else {
            bail!(
                "invalid option --vcov: no covariance for this fit (ties as events, the information singular beyond the gauge, or vb without its linear-response covariance)"
            );
        };
        pending.push((path.clone(), vcov_csv(names, v)?));
    }
    // A model of ties as events (Davidson–Luce) answers every question
    // below through its tie prevalences as well as its worths.
    let ties: &[plackett::posterior::TieParameter] = match post {
        Some(p) => p.tie_parameters(),
        None => &[],
    };
    if let Some(path) = &a.model_out {
        let m = plackett::posterior::SavedModel::new(&report.engine, names, &source, 4000, ties);
        pending.push((path.clone(), m.to_json()));
    }
    if let Some(path) = &a.draws_out {
        if !has_draws {
            bail!(
                "invalid option --draws-out: --engine {} has no posterior draws (use gibbs, ep or vb)",
                a.engine
            );
        }
        let text = if path.ends_with(".json") {
            source.to_json(names)
        } else {
            source.to_csv(names)
        };
        pending.push((path.clone(), text));
    }
    if let Some(path) = &a.rank_marginals {
        let all: Vec<u32> = (0..ds.n_items() as u32).collect();
        let rm = match post {
            Some(p) => p
                .rank_marginals(&all, RANK_MARGINAL_RACES, a.seed)
                .map_err(|e| anyhow::anyhow!("invalid option --rank-marginals: {e}"))?,
            None => source.rank_marginals(
                &all,
                (RANK_MARGINAL_RACES / source.len().max(1)).max(1),
                a.seed,
            ),
        };
        pending.push((path.clone(), rank_marginals_csv(names, &rm)));
    }
    Ok(pending)
}
