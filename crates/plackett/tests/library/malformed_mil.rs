//! Bad multiple-instance input never panics: the bag readers (long CSV and
//! JSON), the model-file reader, and every engine on whatever those readers
//! accept, including extreme feature values. Each either works or returns
//! an error; the CLI and Python turn the error into exit 2 or `ValueError`.

use plackett::infer::mcmc::McmcSettings;
use plackett::mil::bags::{read_bags_csv, read_bags_json};
use plackett::mil::*;
use proptest::prelude::*;

/// Every engine, briefly, on bags a reader accepted.
fn fit_everything(bags: &Bags) {
    let vb = VbOptions {
        max_iter: 30,
        ..VbOptions::default()
    };
    if let Ok(fit) = fit_vb(bags, &vb) {
        let model = MilModel::from_vb(&fit, bags, vb.priors);
        let _ = model
            .check_bags(bags, "fuzz")
            .and_then(|_| model.predict(bags, 5, 1));
        // The model file must read back whatever was written.
        let json = serde_json::to_string(&model).expect("model serialises");
        MilModel::from_json("fuzz.json", &json).expect("a written model reads back");
    }
    // A vMMIC mixture of two optima, its model file and predictions.
    let mix = VbOptions {
        max_iter: 30,
        starts: 2,
        mixture: true,
        ..VbOptions::default()
    };
    if let Ok((model, _)) = fit_model(bags, &MilEngine::Vb(mix)) {
        let _ = model.predict(bags, 5, 1);
        let json = serde_json::to_string(&model).expect("model serialises");
        MilModel::from_json("fuzz.json", &json).expect("a written mixture reads back");
    }
    let gibbs = MilGibbsOptions {
        mcmc: McmcSettings::new(5, 5, 1, 1),
        ..MilGibbsOptions::default()
    };
    let _ = fit_gibbs(bags, &gibbs);
    for b in [Baseline::Milr, Baseline::SiMean, Baseline::SiMax] {
        let _ = fit_baseline(bags, b, &MilPriors::default(), 1e-6, 20);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Neither bag reader nor the model reader panics on arbitrary bytes.
    #[test]
    fn mil_readers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = read_bags_csv("fuzz.csv", &text);
        let _ = read_bags_json("fuzz.json", &text);
        let _ = MilModel::from_json("fuzz.json", &text);
    }

    /// Files of the long CSV's shape, each field mostly valid and now and
    /// then bad (labels not 0/1 or disagreeing within a bag, unknown
    /// modalities, the other modality's cell filled, empty, non-numeric and
    /// non-finite cells, a primary column filled on some rows only), so that
    /// many files parse and reach the engines and the rest reach every value
    /// check.
    #[test]
    fn long_csv_files_never_panic(
        labels in prop::collection::vec(prop::sample::select(vec!["0", "1", "0", "1", "0", "1", ""]), 4),
        rows in prop::collection::vec(
            (
                0usize..4,
                prop_oneof![80 => Just(None), 1 => prop::sample::select(vec!["2", "x", "0", "1"]).prop_map(Some)],
                prop_oneof![40 => Just("0"), 40 => Just("1"), 1 => prop::sample::select(vec!["2", "", "-1"])],
                prop_oneof![80 => (-3.0f64..3.0).prop_map(|v| format!("{v}")), 1 => prop::sample::select(vec!["", "nan", "inf", "1e999", "x", "1e300"]).prop_map(String::from)],
                prop_oneof![80 => Just(false), 1 => Just(true)],
                prop_oneof![40 => Just(Some(true)), 40 => Just(Some(false)), 1 => Just(None)],
            ),
            1..16,
        ),
        primary in any::<bool>(),
    ) {
        let mut text = String::from(if primary {
            "bag,label,modality,m0_a,m1_b,primary\n"
        } else {
            "bag,label,modality,m0_a,m1_b\n"
        });
        for (bag, label, modality, value, both, p) in rows {
            let label = label.unwrap_or(labels[bag]);
            let (x, z) = match (modality, both) {
                ("0", false) => (value.as_str(), ""),
                ("1", false) => ("", value.as_str()),
                _ => (value.as_str(), value.as_str()),
            };
            text += &format!("b{bag},{label},{modality},{x},{z}");
            if primary {
                text += match p {
                    Some(true) => ",1",
                    Some(false) => ",0",
                    None => ",",
                };
            }
            text += "\n";
        }
        if let Ok(bags) = read_bags_csv("fuzz.csv", &text) {
            fit_everything(&bags);
        }
    }

    /// The JSON form, built from mostly valid pieces.
    #[test]
    fn bags_json_files_never_panic(
        bags in prop::collection::vec(
            (
                prop_oneof![60 => prop::sample::select(vec!["\"a\"", "\"b\"", "\"c\""]), 1 => prop::sample::select(vec!["1", "null"])],
                prop_oneof![30 => Just("0"), 30 => Just("1"), 1 => prop::sample::select(vec!["null", "2", "\"1\"", "0.5"])],
                prop::collection::vec(
                    (
                        prop_oneof![30 => Just("0"), 30 => Just("1"), 1 => prop::sample::select(vec!["2", "\"0\""])],
                        prop_oneof![
                            60 => (-3.0f64..3.0).prop_map(|v| format!("[{v}]")),
                            1 => prop::sample::select(vec!["[]", "[1, 2]", "[null]", "[1e999]", "3"]).prop_map(String::from),
                        ],
                    ),
                    0..4,
                ),
            ),
            0..6,
        ),
        features in prop::sample::select(vec![
            "",
            "\"features\": {\"m0\": [\"x\"], \"m1\": [\"z\"]}, ",
            "\"features\": {\"m0\": [\"x\"]}, ",
            "\"features\": {\"m2\": []}, ",
        ]),
    ) {
        let body: Vec<String> = bags
            .iter()
            .map(|(name, label, inst)| {
                let inst: Vec<String> = inst
                    .iter()
                    .map(|(m, f)| format!("{{\"modality\": {m}, \"features\": {f}}}"))
                    .collect();
                format!("{{\"bag\": {name}, \"label\": {label}, \"instances\": [{}]}}", inst.join(", "))
            })
            .collect();
        let text = format!("{{{features}\"bags\": [{}]}}", body.join(", "));
        if let Ok(bags) = read_bags_json("fuzz.json", &text) {
            fit_everything(&bags);
        }
    }

    /// Huge, tiny and constant features in valid files: the engines either
    /// fit or say why, never panic or return NaN probabilities.
    #[test]
    fn extreme_features_never_panic(
        scale in prop::sample::select(vec![0.0, 1e-300, 1.0, 1e150, 1e300, f64::MAX]),
        values in prop::collection::vec(-3.0f64..3.0, 8),
    ) {
        let mut text = String::from("bag,label,modality,m0_a,m1_b\n");
        for (r, v) in values.iter().enumerate() {
            let bag = r / 2;
            let label = bag % 2;
            if r % 2 == 0 {
                text += &format!("b{bag},{label},0,{:e},\n", v * scale);
            } else {
                text += &format!("b{bag},{label},1,,{:e}\n", v * scale);
            }
        }
        let bags = read_bags_csv("fuzz.csv", &text);
        if let Ok(bags) = bags {
            fit_everything(&bags);
            let vb = VbOptions { max_iter: 30, ..VbOptions::default() };
            if let Ok(fit) = fit_vb(&bags, &vb) {
                let model = MilModel::from_vb(&fit, &bags, vb.priors);
                if let Ok(pred) = model.predict(&bags, 5, 1) {
                    for p in &pred {
                        prop_assert!(p.p.is_finite() && (0.0..=1.0).contains(&p.p), "{}", p.p);
                    }
                }
            }
        }
    }
}
