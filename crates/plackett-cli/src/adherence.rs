//! `plackett fit --adherence`: the PL model with a per-ranker adherence
//! (Raman & Joachims 2014, as R's PlackettLuce fits it). The CLI only
//! translates flags into the library's [`AdherenceOptions`] and prints its
//! [`AdherenceReport`] (as text, or as an HTML page with `--report`).

use crate::args::{Engine, Output};
use crate::fit_args::{
    FitArgs, RANK_MARGINAL_RACES, SINGLE_POPULATION_ONLY, choice_set, compare_ids, compare_names,
    finish, load, rank_marginals_csv,
};
use anyhow::{Result, bail};
use plackett::data::Dataset;
use plackett::document::Document;
use plackett::infer::adherence::{AdherenceOptions, fit_adherence};
use plackett::infer::adherence_gibbs::{AdherenceGibbsOptions, adherence_gibbs};
use plackett::infer::adherence_output::AdherenceReport;
use plackett::infer::mcmc::McmcSettings;
use plackett::posterior::SavedAdherence;
use plackett::posterior::fit_report::{Choice, Comparison};

/// Flags `fit` has that an adherence fit does not read, beyond
/// [`SINGLE_POPULATION_ONLY`].
const NOT_WITH_ADHERENCE: &[(&str, &str)] = &[
    ("test", "--test"),
    ("starts", "--starts"),
    ("dirichlet", "--dirichlet"),
];

/// Sampler flags, read by `--engine gibbs` only.
const SAMPLER_ONLY: &[(&str, &str)] = &[
    ("samples", "--samples"),
    ("burn_in", "--burn-in"),
    ("chains", "--chains"),
];

/// The adherence options the command line asks for, every flag checked
/// against the engine; and whether the engine samples.
fn options(a: &FitArgs, explicit: &[String]) -> Result<(AdherenceOptions, bool)> {
    let given = |id: &str| explicit.iter().any(|e| e == id);
    if a.components.is_some() {
        bail!("not supported: --adherence with --components (fit one or the other)");
    }
    let worth_prior = match a.engine {
        Engine::Mle => {
            for (id, flag) in [
                ("prior_shape", "--prior-shape"),
                ("prior_rate", "--prior-rate"),
            ] {
                if given(id) {
                    bail!("invalid option {flag}: only with --engine map (mle has no worth prior)");
                }
            }
            None
        }
        // The sampler's worth prior is the map engine's Gamma (a proper
        // posterior whatever the number of rankers).
        Engine::Map | Engine::Gibbs => Some((a.prior_shape, a.prior_rate)),
        other => bail!(
            "not supported: --adherence with --engine {other}; the adherence model is fitted by \
             mle or map, and sampled by gibbs"
        ),
    };
    let sampling = matches!(a.engine, Engine::Gibbs);
    if !sampling {
        for &(id, flag) in SAMPLER_ONLY {
            if given(id) {
                bail!("invalid option {flag}: only with --engine gibbs");
            }
        }
    }
    for &(id, flag) in SINGLE_POPULATION_ONLY.iter().chain(NOT_WITH_ADHERENCE) {
        if given(id) {
            bail!("invalid option {flag}: not used with --adherence");
        }
    }
    if !a.compare.is_empty() && matches!(a.output, Output::Csv) {
        bail!(
            "invalid option --compare: not with --output csv (one row per item and ranker); use \
             table or json"
        );
    }
    let fixed = match &a.fixed_adherence {
        None => None,
        Some(s) => Some(
            s.split(',')
                .map(|v| {
                    v.trim().parse::<f64>().map_err(|_| {
                        anyhow::anyhow!("invalid option --fixed-adherence: {v:?} is not a number")
                    })
                })
                .collect::<Result<Vec<f64>>>()?,
        ),
    };
    if fixed.is_some() && (given("adherence_shape") || given("adherence_rate")) {
        bail!("invalid option --adherence-shape/--adherence-rate: not used with --fixed-adherence");
    }
    let defaults = AdherenceOptions::default();
    let opts = AdherenceOptions {
        prior_shape: a.adherence_shape,
        prior_rate: a.adherence_rate,
        worth_prior,
        pseudo: a.pseudo,
        fixed,
        tol: a.tol.unwrap_or(defaults.tol),
        max_iter: a.max_iter.unwrap_or(defaults.max_iter),
        observer: None,
    };
    Ok((opts, sampling))
}

/// Run `plackett fit --adherence`.
pub fn run(a: &FitArgs, explicit: &[String]) -> Result<()> {
    let (opts, sampling) = options(a, explicit)?;
    let ds = load(&a.data)?;
    let fit = if sampling {
        if opts.fixed.is_some() {
            bail!(
                "not supported: --fixed-adherence with --engine gibbs (with fixed adherences \
                 there is nothing ranker-specific to sample; use mle or map)"
            );
        }
        let progress =
            crate::progress::Progress::new(((a.burn_in + a.samples) * a.chains) as u64, "sampling");
        let r = adherence_gibbs(
            &ds,
            &AdherenceGibbsOptions {
                model: opts.clone(),
                mcmc: McmcSettings::new(a.samples, a.burn_in, a.chains, a.seed),
                observer: Some(progress.observer()),
            },
        );
        progress.finish();
        r?
    } else {
        fit_adherence(&ds, &opts)?
    };
    let mut report = AdherenceReport::new(&ds, &fit, &opts);
    for n in &mut report.notes {
        *n = crate::cli_text(n);
    }
    // A new ranker's adherence is drawn from the prior the fit used;
    // fixed adherences have none (the model then predicts its rankers).
    let prior = fit.estimated.then_some((opts.prior_shape, opts.prior_rate));
    let model = (a.model_out.is_some() || !a.compare.is_empty() || a.rank_marginals.is_some())
        .then(|| plackett::posterior::SavedAdherence::new(&report.engine, &fit, prior, 4000))
        .transpose()?;
    // --compare answers for a new ranker, as `plackett predict --compare`
    // does by default (the same numbers; --as-ranker there for the fit's own).
    for (given, flag) in [
        (!a.compare.is_empty(), "--compare"),
        (a.rank_marginals.is_some(), "--rank-marginals"),
    ] {
        if given && prior.is_none() {
            bail!(
                "invalid option {flag}: with fixed adherences there is no prior for a new \
                 ranker; save the model with --model-out and use plackett predict --compare \
                 --as-ranker NAME for a ranker of the fit"
            );
        }
    }
    if let Some(model) = &model {
        (report.comparisons, report.choices) =
            compare(model, &ds, &a.compare, None, |e: plackett::Error| {
                anyhow::anyhow!(
                    "invalid option --compare: {}",
                    crate::cli_text(&e.to_string())
                )
            })?;
    }
    if !report.converged && !a.allow_nonconvergence {
        return Err(crate::NotConverged(format!(
            "the adherence fit did not converge in {} iterations (tolerance {:e}); raise \
             --max-iter, or pass --allow-nonconvergence to report it anyway",
            report.iterations, opts.tol
        ))
        .into());
    }
    let text = match a.output {
        Output::Json => report.to_json(),
        Output::Csv => report.to_csv(),
        Output::Table => report.to_table(),
    };
    let mut pending = Vec::new();
    if let (Some(path), Some(m)) = (&a.rank_marginals, &model) {
        // A new ranker's places, as --compare answers for a new ranker.
        let all: Vec<u32> = (0..fit.items.len() as u32).collect();
        let rm = m
            .rank_marginals(&all, RANK_MARGINAL_RACES, a.seed, None)
            .map_err(|e| {
                anyhow::anyhow!(
                    "invalid option --rank-marginals: {}",
                    crate::cli_text(&e.to_string())
                )
            })?;
        pending.push((path.clone(), rank_marginals_csv(&fit.items, &rm)));
    }
    if let (Some(path), Some(m)) = (&a.model_out, &model) {
        pending.push((path.clone(), m.to_json()));
    }
    if let Some(path) = &a.report {
        pending.push((
            path.clone(),
            plackett::report::adherence::adherence_html(
                &report,
                &format!("plackett fit --adherence: {}", a.data.file),
                Some(&a.data.file),
            ),
        ));
    }
    finish(a, text, pending, &report.notes)
}

/// `--compare` specs (`"A,B"` pairs, `"A,B,C…"` choice sets over `ds`'s
/// items, which are the model's) answered by an adherence model as ranker
/// `ranker` of it would choose, or a new ranker (`None`); what the model
/// cannot answer goes through `model_error`. Shared by `fit --adherence`
/// and `predict`.
pub(crate) fn compare(
    model: &SavedAdherence,
    ds: &Dataset,
    specs: &[String],
    ranker: Option<usize>,
    model_error: impl Fn(plackett::Error) -> anyhow::Error,
) -> Result<(Vec<Comparison>, Vec<Choice>)> {
    let mut comparisons = Vec::new();
    let mut choices = Vec::new();
    for spec in specs {
        if let Some(set) = choice_set(ds, spec)? {
            let probs = model
                .choice_probabilities(&set, ranker)
                .map_err(&model_error)?;
            choices.push(Choice::new(
                &model.items,
                &set,
                probs.into_iter().map(|p| (p, None)).collect(),
            ));
            continue;
        }
        let (na, nb) = compare_names(spec)?;
        let (i, j) = compare_ids(ds, spec)?;
        let win = model
            .prob_beats(i as usize, j as usize, ranker)
            .map_err(&model_error)?;
        comparisons.push(Comparison::new(na, nb, win, None));
    }
    Ok((comparisons, choices))
}
