//! The documents a multiple-instance fit and prediction produce — what
//! `plackett mil fit|predict --output json` print and Python's `to_json()`
//! returns — built in one place so that every front end gives the same
//! keys and numbers.

use super::bags::Bags;
use super::cv::MilFitInfo;
use super::model::{BagPrediction, MilModel};
use crate::eval::metrics::auc;
use serde_json::{Value, json};

/// Below this swap acceptance between adjacent rungs, states hardly travel
/// between the posterior and the hot rungs, and tempering buys little.
const MIN_SWAP_ACCEPTANCE: f64 = 0.05;

/// Notes on predictions from a model file: a vMMIC model whose instance
/// level is mean-field (`--covariance mean-field`, or a file written
/// before model files named their covariance) carries instance-level
/// intervals about 25 times narrower than the exact posterior's on Hu
/// 2024's design, and the Monte Carlo bag probabilities and each
/// instance's `p_primary` average over them. Parameters are named in the
/// library's backtick form (`error::render_params` spells them for a front
/// end).
///
/// `counts` are the instances of modality 0 and 1 in the bags predicted
/// (`None`: notes for any bags): a modality the model was fitted without
/// keeps its prior, so those instances' `p_primary` and their share of
/// `p` come from the prior alone.
pub fn predict_notes(model: &MilModel, counts: Option<[usize; 2]>) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(trained) = model.training_instances {
        for m in 0..2 {
            if trained[m] == 0 && counts.is_none_or(|c| c[m] > 0) {
                notes.push(format!(
                    "the model was fitted without modality-{m} instances: that modality's \
                     coefficients are the prior's, so its instances' p_primary and their share of \
                     p come from the prior alone"
                ));
            }
        }
    }
    if model.engine == "vb" && !model.instance_level_corrected() {
        let corrected = super::VbCovariance::LinearResponse.name();
        let what = match model.covariance.as_deref() {
            Some(c) if c == corrected => "keeps a mean-field covariance in some modality",
            Some(_) => "has mean-field covariances (Hu 2024's vMMIC)",
            None => "names no covariance (written before 2026-11-28: mean-field)",
        };
        notes.push(format!(
            "the model {what}: its instance-level uncertainty is far narrower than the \
             exact posterior's, and p and p_primary average over it; refit with the \
             default `covariance={corrected}`"
        ));
    }
    notes
}

/// [`fit_notes`] for a fit to `bags`, plus a note on features that are
/// constant over their modality's training instances: at the instance level
/// such a feature only shifts the intercept (`a` or `c`), so its slope is
/// not identified apart from it; at the bag level it still counts the
/// primary instances (`β_k·x·Σ_j δ_ij`) unless the constant is 0, where it
/// multiplies nothing at either level and its rows repeat the prior. A
/// fit to the features as they are (`model` neither standardised nor
/// projected them) also gets a note on features far from the unit scale
/// the slope priors assume ([`Bags::off_scale_features`]).
pub fn fit_notes_for(info: &MilFitInfo, bags: &Bags, model: &MilModel) -> Vec<String> {
    let mut notes = fit_notes(info, bags.counts());
    if model.scaling.is_none() && model.components.is_none() {
        // The prior sd of a feature's share of the linear predictor is
        // √slope_var · sd: below 0.2 it pins the effect near 0, above 2000
        // it does not regularise at all.
        let prior_sd = model.priors.slope_var.sqrt();
        let off = bags.off_scale_features(0.2 / prior_sd, 2000.0 / prior_sd);
        if !off.is_empty() {
            let shown: Vec<String> = off
                .iter()
                .map(|(name, sd)| {
                    let sd = if (1e-3..1e4).contains(sd) {
                        crate::numerics::sig(*sd, 2)
                    } else {
                        format!("{sd:.1e}")
                    };
                    format!("{name} sd {sd}")
                })
                .collect();
            notes.push(format!(
                "{} feature(s) far from the unit scale the slope priors assume ({}): a feature of \
                 sd s gets prior sd {}·s on its share of the linear predictor, which pins a \
                 small-scale feature's effect near 0 and leaves a large-scale one unregularised; \
                 standardise the features (`standardize`) or set `slope_var`",
                off.len(),
                crate::io::output::first_few(&shown, 6),
                crate::numerics::sig(prior_sd, 3)
            ));
        }
    }
    let constant = bags.constant_features();
    if !constant.is_empty() {
        notes.push(format!(
            "{} feature(s) constant over the training instances of their modality ({}): \
             their instance-level slopes (b, d) are not identified apart from the intercept (a, \
             c), and one constant at 0 says nothing at either level (its rows repeat the prior); \
             drop them",
            constant.len(),
            crate::io::output::first_few(&constant, 8)
        ));
    }
    notes
}

/// Warnings about a fit: a modality without instances (its coefficients
/// keep their prior), Gibbs chains that disagree, tempering rungs too far
/// apart, VB's known weaknesses (under-dispersed sds; the degenerate
/// optimum with no primary instance, Hu 2024 §2.2 on Musk). `counts` are
/// the training instances of modality 0 and 1 ([`Bags::counts`]).
pub fn fit_notes(info: &MilFitInfo, counts: [usize; 2]) -> Vec<String> {
    let mut notes = Vec::new();
    // The layout always holds both instance intercepts (a unimodal file has
    // `c`, with no γ or d), so a modality the data lack is still printed:
    // say that its rows are the prior, not an estimate.
    for (m, coefs) in [(0, "beta, a, b"), (1, "gamma, c, d")] {
        if counts[m] == 0 {
            notes.push(format!(
                "no modality-{m} instances: the data say nothing about that modality's \
                 coefficients ({coefs}, where present); their rows repeat the prior"
            ));
        }
    }
    for m in &info.mean_field_kept {
        notes.push(format!(
            "linear-response covariance: modality {m}'s corrected precision is not positive \
             definite (instances whose bag-level evidence and instance-level predictor pull \
             apart carry negative information); that modality keeps its mean-field covariance"
        ));
    }
    if let (Some(r), Some(e)) = (info.max_rhat, info.min_ess)
        && (r > 1.01 || e < 400.0)
    {
        notes.push(format!(
            "MCMC warning: max split-R̂ {r:.3}, min bulk ESS {e:.0}: the chains disagree; run \
             longer (`burn_in`, `samples`, `thin`) or with tempering (`temperatures`) before \
             reading coefficients or intervals"
        ));
    }
    if let Some(a) = &info.swap_acceptance
        && let Some((k, v)) = a
            .iter()
            .enumerate()
            .find(|(_, v)| v.is_nan() || **v < MIN_SWAP_ACCEPTANCE)
    {
        notes.push(format!(
            "tempering: rungs {k} and {} swapped in only {:.0}% of proposals: too few rungs \
             for this range; add rungs (`temperatures`) or raise `hottest`",
            k + 1,
            100.0 * v
        ));
    }
    // Syed et al. 2022's rule of thumb: about 2Λ rungs carry states across
    // a barrier Λ; say so only when the ladder is clearly short of it.
    if let (Some(k), Some(b)) = (info.temperatures, info.barrier)
        && ((k + 1) as f64) < 2.0 * b
    {
        notes.push(format!(
            "tempering: the communication barrier is Λ = {b:.1}, so about {:.0} rungs would \
             suffice and this ladder has {k}; add rungs (`temperatures`), or let the burn-in \
             choose them (`temperatures auto`)",
            (2.0 * b).ceil()
        ));
    }
    if info.vb_start.as_deref() == Some("init") {
        notes.push("vb started at the coefficient means of the `init` model".into());
    }
    if info.gibbs_start.as_deref() == Some("init") {
        notes.push(
            "the Gibbs chains started around the coefficient means of the `init` model".into(),
        );
    }
    if let Some(e) = &info.mixture_elbos {
        let (lo, hi) = e
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        notes.push(format!(
            "vb mixture of {} optima (ELBO {lo:.2} to {hi:.2}), weighted equally: predictions \
             and instance probabilities average them, and the coefficient sds include the \
             spread between them",
            e.len()
        ));
    }
    if info.engine == "vb" {
        // The linear-response correction reaches the instance level only;
        // the bag level's sds stay mean-field (1–6% of the exact
        // posterior's on Hu 2024's basic setting, docs/mil.md).
        notes.push(if info.instance_level_corrected() {
            "vb: the bag level's sds (alpha, beta, gamma) are mean-field and far too small, the \
             instance level's are linear-response corrected; coefficient means can be far from \
             the posterior's (docs/mil.md); use `engine=gibbs` for coefficient intervals"
                .into()
        } else {
            "vb: mean-field sds are too small and coefficient means can be far from the \
             posterior's (docs/mil.md); use `engine=gibbs` for coefficient intervals"
                .into()
        });
        if info.primary.iter().all(|&p| p < 1e-3) {
            notes.push(
                "vb: no instance is primary (every probability below 0.001): a degenerate \
                 mean-field optimum, common with many features per instance from the prior \
                 means (docs/mil.md, Musk); the bag probabilities carry no signal — start at \
                 the marginal mode (`vb_start` marginal, the default), reduce the features \
                 (`components`) or use `engine=gibbs`"
                    .into(),
            );
        }
    }
    notes
}

/// Training bag AUROC of `pred` and, when the bags carry the true `primary`
/// column, the primary-instance AUROC of the fit's instance probabilities.
pub fn fit_aurocs(bags: &Bags, info: &MilFitInfo, pred: &[BagPrediction]) -> (f64, Option<f64>) {
    let p: Vec<f64> = pred.iter().map(|b| b.p).collect();
    let labels: Vec<bool> = bags.bags.iter().map(|b| b.label == Some(true)).collect();
    (
        auc(&p, &labels),
        bags.primary.as_ref().map(|t| auc(&info.primary, t)),
    )
}

/// The fit document: engine, sizes, parameters, convergence, training
/// AUROCs, notes, and per bag its probability and every instance's
/// posterior probability of being primary (rows as in the input file,
/// from 0). `notes` are [`fit_notes`] in the caller's vocabulary, `aurocs`
/// are [`fit_aurocs`] (computed once by the caller, who also prints them).
pub fn fit_document(
    bags: &Bags,
    model: &MilModel,
    info: &MilFitInfo,
    pred: &[BagPrediction],
    notes: &[String],
    aurocs: (f64, Option<f64>),
    seconds: f64,
) -> Value {
    let (train_auc, primary_auc) = aurocs;
    let bags_json: Vec<Value> = bags
        .bags
        .iter()
        .zip(pred)
        .map(|(b, bp)| {
            json!({
                "bag": b.name,
                "label": b.label.map(u8::from),
                "p": bp.p,
                "instances": bags.in_row_order(b).into_iter().map(|j| json!({
                    "row": bags.row[j],
                    "modality": bags.modality[j],
                    "p_primary": info.primary[j],
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let counts = bags.counts();
    // With `--components`, what the coefficients refer to.
    let components = model.components.as_ref().map(|c| {
        json!({
            "kept": [c.loadings[0].len(), c.loadings[1].len()],
            "of": [c.input_names[0].len(), c.input_names[1].len()],
            "explained": c.explained,
        })
    });
    let doc = json!({
        "notes": notes,
        "components": components,
        "engine": info.engine,
        "bags": bags.n_bags(),
        "instances": [counts[0], counts[1]],
        "parameters": model.parameters,
        "fit": info,
        "training_auroc": train_auc,
        "primary_auroc": primary_auc,
        "seconds": seconds,
        "predictions": bags_json,
    });
    envelope(bags, info, notes).wrap(&doc)
}

/// The document envelope ([`crate::document`]) of a fit: family `mil`,
/// one observation per bag; Gibbs's `converged` is whether the worst
/// split-R̂ and ESS over θ pass the thresholds.
pub fn envelope(bags: &Bags, info: &MilFitInfo, notes: &[String]) -> crate::document::Envelope {
    use crate::document::{Envelope, Family, iterative_diagnostics, sampler_check};
    let (converged, iterations, diagnostics) = match (info.max_rhat, info.min_ess) {
        (Some(r), Some(e)) => {
            let (converged, diagnostics) = sampler_check(r, e);
            (converged, info.sweeps.unwrap_or(0), diagnostics)
        }
        _ => (
            info.converged.unwrap_or(true),
            info.iterations.unwrap_or(0),
            iterative_diagnostics(None, None),
        ),
    };
    Envelope {
        family: Family::Mil,
        engine: info.engine.clone(),
        converged,
        iterations,
        n_observations: bags.n_bags(),
        notes: notes.to_vec(),
        diagnostics,
    }
}

/// The prediction document of `mil predict --output json`.
pub fn predict_document(pred: &[BagPrediction]) -> Value {
    json!({ "bags": pred })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gibbs_info(swaps: Option<Vec<f64>>) -> MilFitInfo {
        MilFitInfo {
            engine: "gibbs".into(),
            gibbs_start: Some("marginal".into()),
            sweeps: Some(100),
            max_rhat: Some(1.001),
            min_ess: Some(1000.0),
            temperatures: swaps.as_ref().map(|s| s.len() + 1),
            swap_acceptance: swaps,
            ladder: None,
            barrier: None,
            primary: vec![0.5],
            ..Default::default()
        }
    }

    /// A pair of rungs that rarely swaps is named; healthy ladders and
    /// untempered fits get no tempering note.
    #[test]
    fn a_ladder_with_a_rarely_swapping_pair_is_named() {
        let notes = fit_notes(&gibbs_info(Some(vec![0.5, 0.3, 0.01])), [3, 2]);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("rungs 2 and 3") && n.contains("1%")),
            "{notes:?}"
        );
        assert!(fit_notes(&gibbs_info(Some(vec![0.5, 0.2])), [3, 2]).is_empty());
        // A ladder of 10 rungs across a barrier of 6.2 is short of 2Λ.
        let mut short = gibbs_info(Some(vec![0.4; 9]));
        short.barrier = Some(6.2);
        let notes = fit_notes(&short, [3, 2]);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("Λ = 6.2") && n.contains("13 rungs") && n.contains("has 10")),
            "{notes:?}"
        );
        short.barrier = Some(5.0);
        assert!(fit_notes(&short, [3, 2]).is_empty());
        assert!(fit_notes(&gibbs_info(None), [3, 2]).is_empty());
    }

    /// A unimodal fit says that modality 1's intercept `c` is its prior.
    #[test]
    fn a_modality_kept_mean_field_is_named() {
        let info = MilFitInfo {
            mean_field_kept: vec![1],
            ..gibbs_info(None)
        };
        let notes = fit_notes(&info, [5, 3]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("modality 1's corrected precision is not positive definite"),
            "{notes:?}"
        );
    }

    /// vMMIC's note on its sds says which level is still mean-field.
    #[test]
    fn the_vb_note_names_the_levels_whose_sds_are_mean_field() {
        let vb = |covariance: &str| MilFitInfo {
            engine: "vb".into(),
            covariance: Some(covariance.into()),
            gibbs_start: None,
            sweeps: None,
            max_rhat: None,
            min_ess: None,
            ..gibbs_info(None)
        };
        let notes = fit_notes(&vb("linear-response"), [5, 3]);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("bag level's sds") && n.contains("linear-response corrected")),
            "{notes:?}"
        );
        let notes = fit_notes(&vb("mean-field"), [5, 3]);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("mean-field sds are too small")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_missing_modality_is_named() {
        let notes = fit_notes(&gibbs_info(None), [5, 0]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("no modality-1 instances") && notes[0].contains("c, d"));
        let notes = fit_notes(&gibbs_info(None), [0, 5]);
        assert!(notes[0].contains("no modality-0 instances"), "{notes:?}");
    }
}
