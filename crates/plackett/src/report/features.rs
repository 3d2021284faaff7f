//! Report sections of a feature model: coefficient intervals, the bound
//! against η (Guo et al. 2019 Fig. 1) and the positive ratio by predictive mean and
//! sd (Guo et al. 2019 Fig. 4).

use super::charts;
use crate::data::features::Features;
use crate::eval::positive_ratio::PositiveRatio;
use crate::infer::feature_fit::{EtaCurve, FeatureFit};
use crate::numerics::sig;
use crate::posterior::summary::Z975;

/// A report section: heading, inline SVG, caption.
pub type Section = (String, String, String);

/// Coefficient forest plot on the original feature scale, largest first.
pub fn coefficients(fit: &FeatureFit, feats: &Features) -> Section {
    let mut c = fit.coefficients(feats);
    // Largest coefficient first: the plot is read by its values.
    c.sort_by(|a, b| b.value.total_cmp(&a.value));
    let names: Vec<String> = c.iter().map(|c| c.name.clone()).collect();
    let mid: Vec<f64> = c.iter().map(|c| c.value).collect();
    let lo: Vec<f64> = c
        .iter()
        .map(|c| c.sd.map_or(f64::NAN, |s| c.value - Z975 * s))
        .collect();
    let hi: Vec<f64> = c
        .iter()
        .map(|c| c.sd.map_or(f64::NAN, |s| c.value + Z975 * s))
        .collect();
    (
        "Coefficients with 95% intervals".into(),
        charts::forest(
            &names,
            &mid,
            &lo,
            &hi,
            "coefficient (original feature scale)",
        ),
        if fit.bayesian {
            "Posterior means and ±1.96 posterior sd of the Gaussian variational posterior.".into()
        } else {
            "Estimates and ±1.96 standard errors from the observed information (plus the prior precision for MAP).".into()
        },
    )
}

/// The bound against η.
pub fn eta_curve(c: &EtaCurve) -> Section {
    let pts: Vec<(f64, f64)> = c
        .grid
        .iter()
        .copied()
        .zip(c.bound.iter().copied())
        .collect();
    let label = format!("chosen η = {}", sig(c.grid[c.best], 4));
    (
        "Variational bound against the prior precision η".into(),
        charts::xy(
            &[(format!("bound ({})", c.vi.as_str()), pts)],
            "η",
            "final bound",
            true,
            Some((c.grid[c.best], &label)),
        ),
        format!(
            "The final bound after convergence for each η of the grid (cf. Guo et al. 2019 Fig. 1); η = {} maximises it.",
            sig(c.grid[c.best], 4)
        ),
    )
}

/// Positive ratio by μ bin, one line per ϱ group.
pub fn positive_ratio(pr: &PositiveRatio, what: &str) -> Section {
    let mut series = Vec::new();
    let mut lo = 0.0;
    for (g, &hi) in pr.rho_edges.iter().enumerate() {
        let pts: Vec<(f64, f64)> = (0..pr.mu_edges.len() - 1)
            .filter(|&b| pr.counts[g][b].0 >= 5)
            .map(|b| (pr.mu_centre(b), pr.ratio(g, b)))
            .collect();
        series.push((format!("ϱ in ({}, {}]", sig(lo, 3), sig(hi, 3)), pts));
        lo = hi;
    }
    (
        "Positive ratio by predictive mean and sd".into(),
        charts::xy(
            &series,
            "predictive mean μ of the score difference",
            "fraction won",
            false,
            None,
        ),
        format!(
            "{what}: pairs (i, j) binned by μ = x_ijᵀμ and by terciles of ϱ = (x_ijᵀ S x_ij)^½; the fraction won by i \
             per bin (bins with at least 5 pairs). A calibrated posterior rises with μ and flattens towards 0.5 as ϱ grows \
             (cf. Guo et al. 2019 Fig. 4)."
        ),
    )
}

/// The sections a feature model (Guo et al. 2019) adds to its fit's page:
/// the coefficients, the bound against η when one was searched, and the
/// positive ratio of the pairs of `pairs` (a dataset and what to call it,
/// e.g. held-out or training observations) when the fit has a covariance.
pub fn feature_sections(
    o: &crate::infer::feature_run::FeatureOutcome,
    pairs: Option<(&crate::data::Dataset, &str)>,
) -> Vec<Section> {
    let mut out = vec![coefficients(&o.fit, &o.feats)];
    if let Some(c) = &o.fit.eta_curve {
        out.push(eta_curve(c));
    }
    if let Some((ds, what)) = pairs {
        let pairs = crate::eval::metrics::test_pairs(ds);
        if !pairs.is_empty() && o.fit.cov.is_some() {
            let triples = o.fit.pair_triples(&o.feats, &pairs);
            let pr = crate::eval::positive_ratio::positive_ratio(&triples, 8, 3);
            out.push(positive_ratio(&pr, what));
        }
    }
    out
}
