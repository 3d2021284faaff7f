//! `plackett fit --components`: finite Plackett–Luce mixtures (Mollica &
//! Tardella 2017) by EM (mle), MAP (map) or Gibbs sampling (gibbs), one G
//! or a BIC (DIC for gibbs) sweep over a range. The CLI only translates flags into the library's
//! [`MixtureOptions`] and prints its [`MixtureReport`].

use crate::args::{Engine, Output};
use crate::fit_args::{
    FitArgs, SINGLE_POPULATION_ONLY, compare_ids, compare_names, finish, load, load_with_universe,
};
use anyhow::{Result, bail};
use plackett::document::Document;
use plackett::infer::mcmc::McmcSettings;
use plackett::infer::mixture::{MixtureOptions, fit_range, mixture_log_likelihood};
use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, gibbs_range};
use plackett::infer::mixture_output::MixtureReport;
use plackett::posterior::fit_report::Comparison;

/// `--components G | LO:HI | auto` as an inclusive range and whether it
/// was a single G.
pub fn parse_components(s: &str) -> Result<(usize, usize)> {
    let bad = || {
        anyhow::anyhow!(
            "invalid option --components: expected a number of components G ≥ 1, a range LO:HI or auto, got {s:?}"
        )
    };
    let s = s.trim();
    if s == "auto" {
        return Ok((1, 5));
    }
    let (lo, hi) = match s.split_once(':') {
        Some((a, b)) => (
            a.trim().parse::<usize>().map_err(|_| bad())?,
            b.trim().parse::<usize>().map_err(|_| bad())?,
        ),
        None => {
            let g = s.parse::<usize>().map_err(|_| bad())?;
            (g, g)
        }
    };
    if lo == 0 || hi < lo || hi > 50 {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// Flags `fit` has that a mixture fit does not read, beyond
/// [`SINGLE_POPULATION_ONLY`].
const NOT_WITH_MIXTURES: &[(&str, &str)] = &[("pseudo", "--pseudo")];

/// Refuse the flags `--components` with this engine does not read.
fn check_flags(a: &FitArgs, explicit: &[String]) -> Result<()> {
    let given = |id: &str| explicit.iter().any(|e| e == id);
    let sampler_flags = [
        ("samples", "--samples"),
        ("burn_in", "--burn-in"),
        ("chains", "--chains"),
    ];
    if a.engine == Engine::Gibbs {
        for (id, flag) in [
            ("tol", "--tol"),
            ("max_iter", "--max-iter"),
            ("allow_nonconvergence", "--allow-nonconvergence"),
        ] {
            if given(id) {
                bail!("invalid option {flag}: not used by --engine gibbs");
            }
        }
    } else {
        for (id, flag) in sampler_flags {
            if given(id) {
                bail!("invalid option {flag}: only with --engine gibbs");
            }
        }
    }
    for &(id, flag) in SINGLE_POPULATION_ONLY.iter().chain(NOT_WITH_MIXTURES) {
        if given(id) {
            bail!("invalid option {flag}: not used with --components");
        }
    }
    if a.engine == Engine::Mle {
        for (id, flag) in [
            ("prior_shape", "--prior-shape"),
            ("prior_rate", "--prior-rate"),
            ("dirichlet", "--dirichlet"),
        ] {
            if given(id) {
                bail!("invalid option {flag}: only with --engine map or gibbs (mle has no prior)");
            }
        }
    }
    Ok(())
}

/// Run `plackett fit --components …`.
pub fn run(a: &FitArgs, explicit: &[String]) -> Result<()> {
    let (lo, hi) = parse_components(a.components.as_deref().unwrap_or(""))?;
    match a.engine {
        Engine::Mle | Engine::Map | Engine::Gibbs => {}
        other => {
            bail!("not supported: --components with --engine {other}; use mle (EM), map or gibbs")
        }
    }
    check_flags(a, explicit)?;
    let (shape, rate, dirichlet) = match a.engine {
        Engine::Map | Engine::Gibbs => (a.prior_shape, a.prior_rate, a.dirichlet),
        _ => (1.0, 0.0, 1.0),
    };
    let opts = MixtureOptions {
        components: lo,
        prior_shape: shape,
        prior_rate: rate,
        dirichlet,
        starts: a.starts,
        seed: a.seed,
        tol: a.tol.unwrap_or(MixtureOptions::default().tol),
        max_iter: a.max_iter.unwrap_or(MixtureOptions::default().max_iter),
        observer: None,
    };
    let ds = load(&a.data)?;
    let fits = if a.engine == Engine::Gibbs {
        let mcmc = McmcSettings::new(a.samples, a.burn_in, a.chains, a.seed);
        let progress = crate::progress::Progress::new(
            ((a.burn_in + a.samples) * a.chains * (hi - lo + 1)) as u64,
            "sampling",
        );
        let r = gibbs_range(
            &ds,
            lo..=hi,
            &MixtureGibbsOptions {
                components: lo,
                prior_shape: shape,
                prior_rate: rate,
                dirichlet,
                mcmc,
                starts: a.starts,
                observer: Some(progress.observer()),
            },
        );
        progress.finish();
        r?
    } else {
        fit_range(&ds, lo..=hi, &opts)?
    };
    let (mut report, selected) = MixtureReport::from_sweep(&ds, &fits);
    for n in &mut report.notes {
        *n = crate::cli_text(n);
    }
    if !report.converged && a.engine != Engine::Gibbs && !a.allow_nonconvergence {
        return Err(crate::NotConverged(format!(
            "the mixture EM did not converge in {} iterations (tolerance {:e}); raise --max-iter, \
             or pass --allow-nonconvergence to report it anyway",
            report.iterations, opts.tol
        ))
        .into());
    }
    for pair in &a.compare {
        let (i, j) = compare_ids(&ds, pair)?;
        let (na, nb) = compare_names(pair)?;
        report.comparisons.push(Comparison::new(
            na,
            nb,
            report.prob_beats(i as usize, j as usize),
            None,
        ));
    }
    if let Some(test_path) = &a.test {
        let mut ta = a.data.clone();
        ta.file = test_path.clone();
        let test = load_with_universe(&ta, ds.items(), "the training data")?;
        let f = &fits[selected];
        let (ll, _) = mixture_log_likelihood(&test, &f.weights, &f.log_worths)?;
        report.predictive_log_likelihood = Some(ll);
        report.n_test_observations = Some(test.n_obs());
    }
    let text = match a.output {
        Output::Json => report.to_json(),
        Output::Csv => report.to_csv(),
        Output::Table => report.to_table(),
    };
    let mut pending = Vec::new();
    if let Some(p) = &a.report {
        pending.push((
            p.clone(),
            plackett::report::mixture::mixture_html(&report, Some(&a.data.file)),
        ));
    }
    // The selected G's estimate, as `--test` scores held-out data.
    let f = &fits[selected];
    let saved = plackett::posterior::SavedMixture::new(
        &f.engine,
        ds.items().names(),
        &f.weights,
        &f.log_worths,
    );
    if let Some(p) = &a.model_out {
        pending.push((p.clone(), saved.to_json()));
    }
    if let Some(p) = &a.rank_marginals {
        let all: Vec<u32> = (0..ds.n_items() as u32).collect();
        let rm = saved.rank_marginals(&all, crate::fit_args::RANK_MARGINAL_RACES, a.seed);
        pending.push((
            p.clone(),
            crate::fit_args::rank_marginals_csv(ds.items().names(), &rm),
        ));
    }
    finish(a, text, pending, &report.notes)
}
