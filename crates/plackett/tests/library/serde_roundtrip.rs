//! Every engine's result serialises and reads back bit for bit (the
//! Python package pickles results through this), non-finite numbers
//! included, and answers the same posterior queries afterwards.

use plackett::data::{DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::bayes::{BayesFit, GammaPrior};
use plackett::infer::gibbs::{GibbsOptions, gibbs};
use plackett::infer::mcmc::McmcSettings;
use plackett::infer::point::PointFit;
use plackett::infer::{PointOptions, fit_point};
use plackett::posterior::Posterior;

fn dataset() -> plackett::data::Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
    for r in [
        [0, 1, 2, 3],
        [1, 0, 3, 2],
        [2, 1, 0, 3],
        [3, 2, 1, 0],
        [0, 2, 1, 3],
    ] {
        let groups: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
        b.push(&groups, Tail::None, &[], 1.0).unwrap();
    }
    b.finish()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn point_fit_round_trips_with_covariance() {
    let ds = dataset();
    let mut fit = fit_point(
        &ds,
        &PointOptions {
            covariance: true,
            ..Default::default()
        },
    )
    .unwrap();
    fit.score_norm = f64::NAN; // a non-finite field must survive too
    let json = serde_json::to_string(&fit).unwrap();
    let back: PointFit = serde_json::from_str(&json).unwrap();
    assert_eq!(bits(&back.theta), bits(&fit.theta));
    assert!(back.score_norm.is_nan());
    assert_eq!(back.covariance, fit.covariance);
    assert_eq!(back.engine, fit.engine);
    assert_eq!(
        back.prob_beats(0, 1).to_bits(),
        fit.prob_beats(0, 1).to_bits()
    );
    assert_eq!(back.info(), fit.info());
}

#[test]
fn gibbs_fit_round_trips_with_draws_and_diagnostics() {
    let ds = dataset();
    let fit = gibbs(
        &ds,
        &GibbsOptions {
            prior: GammaPrior::iid(4, 2.0, 1.0).unwrap(),
            mcmc: McmcSettings::new(50, 20, 2, 3),
            rescale: true,
            observer: None,
        },
    )
    .unwrap();
    let json = serde_json::to_string(&fit).unwrap();
    let back: BayesFit = serde_json::from_str(&json).unwrap();
    let (a, b) = (fit.draws(), back.draws());
    assert_eq!((a.n_chains(), a.len()), (b.n_chains(), b.len()));
    for k in 0..a.len() {
        assert_eq!(bits(a.draw(k)), bits(b.draw(k)));
    }
    assert_eq!(back.diagnostics, fit.diagnostics);
    assert_eq!(back.info(), fit.info());
}

/// A dataset read back from outside (a pickle, a shipped shard) is checked
/// before use: the one written validates, and damaged copies are refused
/// with an error instead of an out-of-bounds access later.
#[test]
fn a_damaged_dataset_is_refused_by_validate() {
    let mut b = DatasetBuilder::new(Items::numbered(5), TieSemantics::UnknownOrder);
    b.push(&[vec![0], vec![1, 2]], Tail::None, &[], 2.0)
        .unwrap();
    b.push(&[vec![3]], Tail::Explicit, &[4, 0], 1.0).unwrap();
    b.push(&[vec![4], vec![2]], Tail::Universe, &[], 1.0)
        .unwrap();
    let ds = b.finish();
    ds.validate().unwrap();
    let (ghosted, _) = ds.with_ghost(0.5).unwrap();
    ghosted.validate().unwrap();
    let good: serde_json::Value = serde_json::to_value(&ds).unwrap();
    let damages: [(&str, serde_json::Value); 6] = [
        ("offsets", serde_json::json!([0, 3, 2, 8])),
        ("members", serde_json::json!([0, 1, 2, 3, 4, 0, 9, 2])),
        ("members", serde_json::json!([0, 1, 1, 3, 4, 0, 4, 2])),
        ("weights", serde_json::json!([2.0, 1.0])),
        ("weights", serde_json::json!([2.0, -1.0, 1.0])),
        ("fast_stages", serde_json::json!([0, 0, 0])),
    ];
    for (field, value) in damages {
        let mut v = good.clone();
        v[field] = value.clone();
        let back: plackett::data::Dataset = serde_json::from_value(v).unwrap();
        let e = back.validate().unwrap_err().to_string();
        assert!(e.contains("damaged dataset"), "{field} = {value}: {e}");
    }
}
