//! The fit: chains (and their rungs) in parallel from their own
//! counter-based streams, burn-in with the ladder's adaptation, kept draws
//! and their diagnostics.

use super::*;

/// Sample the posterior of the two-level probit model.
pub fn fit_gibbs(bags: &Bags, opts: &MilGibbsOptions) -> Result<MilGibbsFit> {
    opts.priors.check()?;
    let mcmc = opts.mcmc.check()?;
    // Bags of one label have a proper posterior, which the sampler draws
    // (simulation-based calibration needs every data set); the front ends
    // refuse them for a classifier (`Bags::training_labels`).
    let y = bags.labels("data")?;
    let layout = Layout::of(bags);
    let (init, started_from) = match (&opts.init, opts.start) {
        (Some(x), _) => {
            layout.check_start(x, &opts.priors)?;
            (Some(x.clone()), "init")
        }
        (None, GibbsStart::Marginal) => {
            match crate::mil::marginal::marginal_mode(bags, &y, opts.priors) {
                Some(x) => (Some(x), "marginal"),
                None => (None, "dispersed"),
            }
        }
        (None, GibbsStart::Dispersed) => (None, "dispersed"),
    };
    opts.tempering.check()?;
    let inst_precision = instance_precisions(bags, opts.priors);
    let mut chains: Vec<TemperedChain<'_>> = (0..mcmc.chains)
        .map(|c| TemperedChain::new(bags, &y, opts, &inst_precision, init.as_deref(), &mcmc, c))
        .collect();
    // The geometric ladder every chain starts on.
    let mut tau = opts.tempering.temperatures();
    let adapt = (opts.tempering.adapt || opts.tempering.auto) && tau.len() > 2;
    let mut ends = if adapt {
        adaptation_points(mcmc.burn_in)
    } else {
        Vec::new()
    };
    let n_adapt = ends.len();
    ends.push(mcmc.sweeps());
    let mut from = 0;
    for (round, &to) in ends.iter().enumerate() {
        // Chains run in lockstep rounds, each from its own streams, so the
        // output does not depend on the number of threads.
        chains
            .par_iter_mut()
            .map(|ch| ch.advance(&y, &mcmc, opts.observer.as_ref(), from, to))
            .collect::<Result<Vec<()>>>()?;
        from = to;
        if round < n_adapt {
            let rates: Vec<f64> = pooled_pairs(&chains)
                .iter()
                .map(PairStats::rejection_rate)
                .collect();
            // The same length (equalise_ladder), or ⌈2Λ̂⌉ rungs for an
            // automatic count.
            let k = opts
                .tempering
                .auto
                .then(|| auto_rungs(&rates))
                .flatten()
                .unwrap_or(tau.len());
            let new = respace_ladder(&tau, &rates, k);
            if new.len() == tau.len() {
                chains.iter_mut().for_each(|ch| ch.set_ladder(&new));
            } else {
                for (c, ch) in chains.iter_mut().enumerate() {
                    ch.resize(&tau, &new, mcmc.seed, c, round);
                }
            }
            tau = new;
        }
    }
    let pairs = pooled_pairs(&chains);
    let mut draws = Vec::new();
    let mut primary = vec![0.0; bags.n_instances()];
    for ch in chains {
        draws.push(ch.draws);
        for (a, b) in primary.iter_mut().zip(&ch.rungs[0].prob_sum) {
            *a += b;
        }
    }
    let kept = (mcmc.samples * mcmc.chains) as f64;
    primary.iter_mut().for_each(|v| *v /= kept);
    let mut fit = MilGibbsFit {
        layout,
        draws,
        primary,
        diagnostics: Vec::new(),
        started_from,
        swap_acceptance: pairs.iter().map(PairStats::acceptance).collect(),
        barrier: (tau.len() > 1).then(|| pairs.iter().map(PairStats::rejection_rate).sum()),
        temperatures: tau,
    };
    let p = layout.len();
    fit.diagnostics = (0..p)
        .map(|k| {
            let per: Vec<Vec<f64>> = fit
                .draws
                .iter()
                .map(|c| c.chunks(p).map(|d| d[k]).collect())
                .collect();
            diagnose(&per)
        })
        .collect();
    Ok(fit)
}
