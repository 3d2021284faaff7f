//! Inspec (Hulth 2003) against Hu 2024's Table A.1.2. The corpus may not be
//! redistributed: it is read from `../shared/data/keywords/inspec` when it
//! exists, and the tests skip with a message otherwise.

use plackett::keywords::{EvalOptions, Method, evaluate};
use plackett_text::{Pipeline, read_corpus};
use std::path::Path;

/// Hu 2024 Table A.1.2, VBSS F at γ = 0.05 … 0.3.
const TABLE_A_1_2_VBSS_F: [f64; 6] = [0.426, 0.492, 0.546, 0.585, 0.601, 0.581];

/// The authors' code (`vbss-code`, 10 draws of 5 known keywords, our
/// front-end without a frequency filter, as the dissertation for
/// abstracts) lands within 0.03 of the published VBSS F at every γ; our
/// VBSS, the posterior of the stated model, keeps its realised FDR at or
/// below every nominal level, which the code does not (docs/keywords.md).
#[test]
fn inspec_against_table_a_1_2() {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/keywords/inspec");
    if !d.join("docsutf8").is_dir() {
        eprintln!(
            "skipped: {} not present (Inspec cannot be shipped)",
            d.display()
        );
        return;
    }
    let c = read_corpus(&d, &Pipeline::default(), plackett_text::KeyRule::Whole).unwrap();
    let code = evaluate(
        &c,
        &EvalOptions {
            methods: vec![Method::VbssCode],
            rates_from: Method::VbssCode,
            no_vbss: true,
            draws: 10,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(code.documents > 1400, "{} abstracts kept", code.documents);
    for (gi, g) in code.gammas.iter().enumerate() {
        let f = code.cells[gi][0].f;
        eprintln!(
            "γ = {g}: VBSS-code F {f:.3} (Hu 2024 {})",
            TABLE_A_1_2_VBSS_F[gi]
        );
        assert!((f - TABLE_A_1_2_VBSS_F[gi]).abs() <= 0.03, "F at γ = {g}");
    }
    let ours = evaluate(
        &c,
        &EvalOptions {
            methods: Vec::new(),
            ..Default::default()
        },
    )
    .unwrap();
    for (gi, g) in ours.gammas.iter().enumerate() {
        let fdr = ours.cells[gi][0].realised_fdr;
        eprintln!("γ = {g}: VBSS realised FDR {fdr:.3}");
        assert!(fdr <= *g, "realised FDR at γ = {g}");
    }
}
