//! Model files are a trust boundary: a model file (or a pickle of one)
//! edited or damaged anywhere — one number replaced by anything, one array
//! cut short — is refused by its loader, or loads and predicts finite
//! numbers. Never a panic, never NaN or ±∞ from a model that was accepted.

use plackett::classify::Fitted;
use plackett::data::{DatasetBuilder, Items, Tail, TieSemantics};
use plackett::mil::*;
use plackett::posterior::{AnyModel, SavedAdherence, SavedMixture, SavedModel};
use proptest::prelude::*;
use serde_json::Value;

/// Replace the `target`-th floating-point leaf (in document order) by `new`.
fn set_float(v: &mut Value, seen: &mut usize, target: usize, new: f64) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if *seen == target {
                *v = serde_json::json!(new);
            }
            *seen += 1;
        }
        Value::Array(a) => a.iter_mut().for_each(|x| set_float(x, seen, target, new)),
        Value::Object(o) => o.values_mut().for_each(|x| set_float(x, seen, target, new)),
        _ => {}
    }
}

/// Drop the last element of the `target`-th non-empty array.
fn cut_array(v: &mut Value, seen: &mut usize, target: usize) {
    match v {
        Value::Array(a) if !a.is_empty() => {
            if *seen == target {
                a.pop();
                *seen += 1;
                return;
            }
            *seen += 1;
            a.iter_mut().for_each(|x| cut_array(x, seen, target));
        }
        Value::Object(o) => o.values_mut().for_each(|x| cut_array(x, seen, target)),
        _ => {}
    }
}

fn damaged(good: &Value, pick: usize, value: f64, cut: bool) -> String {
    let mut v = good.clone();
    if cut {
        cut_array(&mut v, &mut 0, pick % 40);
    } else {
        set_float(&mut v, &mut 0, pick % 200, value);
    }
    v.to_string()
}

fn rankings() -> plackett::data::Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
    for r in [[0u32, 1, 2, 3], [1, 0, 3, 2], [2, 1, 0, 3], [3, 2, 1, 0]] {
        let g: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
        b.push(&g, Tail::None, &[], 1.0).unwrap();
    }
    b.finish()
}

fn ranking_model() -> Value {
    serde_json::json!({
        "format": "plackett-model", "version": 1, "engine": "gibbs",
        "items": ["0", "1", "2", "3"],
        "draws": {"n_items": 4, "n_chains": 1, "per_chain": 2,
                  "data": [0.5, -0.25, 0.125, -0.375, 0.25, 0.0, -0.5, 0.25]}
    })
}

fn mil_parts() -> (Bags, Value) {
    let bags = simulate_bags(
        &MilDesign {
            bags: 16,
            instances: 3,
            features: 2,
            ..Default::default()
        },
        2,
    )
    .unwrap();
    let engine = MilEngine::Vb(VbOptions {
        max_iter: 50,
        ..VbOptions::default()
    });
    let (model, _) = fit_model_with(&bags, &engine, Preprocess::from_options(true, None)).unwrap();
    (bags, serde_json::to_value(&model).unwrap())
}

fn values() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(5e-324),
        Just(1e308),
        Just(-1e308),
        Just(1e15),
        Just(-1.0),
        any::<f64>().prop_filter("JSON holds finite numbers", |x| x.is_finite()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn damaged_ranking_model_files_are_refused_or_predict_finite_numbers(
        pick in 0usize..1000, value in values(), cut in any::<bool>()
    ) {
        let text = damaged(&ranking_model(), pick, value, cut);
        if let Ok(m) = SavedModel::from_json("m.json", &text) {
            if let Ok(lp) = m.predict(&rankings()) {
                prop_assert!(lp.iter().all(|x| x.is_finite()), "{text}: {lp:?}");
            }
        }
        // The loader that dispatches on the format tag never panics either.
        let _ = AnyModel::from_json("m.json", &text);
    }

    #[test]
    fn damaged_mil_model_files_are_refused_or_predict_finite_numbers(
        pick in 0usize..1000, value in values(), cut in any::<bool>()
    ) {
        let (bags, good) = mil_parts();
        let text = damaged(&good, pick, value, cut);
        if let Ok(m) = MilModel::from_json("m.json", &text) {
            if m.check_bags(&bags, "bags").is_ok() {
                if let Ok(pred) = m.predict(&bags, 20, 1) {
                    for b in &pred {
                        prop_assert!(b.p.is_finite() && b.p_plugin.is_finite(), "{text}");
                        prop_assert!(b.instances.iter().all(|i| i.p_primary.is_finite()), "{text}");
                    }
                }
            }
        }
    }

    /// Every loader, on text that is JSON-ish noise or a model file of
    /// another kind cut anywhere: an error, never a panic.
    #[test]
    fn every_model_loader_survives_arbitrary_text(
        text in "[\\[\\]{}\":,0-9a-z.eE+ -]{0,300}", cut in 0usize..400
    ) {
        let whole = ranking_model().to_string();
        let cut_text = &whole[..cut.min(whole.len())];
        for t in [text.as_str(), cut_text] {
            let _ = SavedModel::from_json("m.json", t);
            let _ = SavedAdherence::from_json("m.json", t);
            let _ = SavedMixture::from_json("m.json", t);
            let _ = AnyModel::from_json("m.json", t);
            let _ = MilModel::from_json("m.json", t);
            let _ = Fitted::from_json("m.json", t);
        }
    }
}
