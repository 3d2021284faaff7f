//! Checks on SemEval-2010 (Kim et al. 2010) and the VBSS authors' own
//! candidate sequences (Hu 2024, Table 1.1). The corpora may not be
//! redistributed: they are read from `../shared/data/keywords/` when it
//! exists, and the tests skip with a message otherwise.

use plackett::keywords::WordGraph;
use plackett_text::{Pipeline, read_candidate_corpus, read_corpus};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn data() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/keywords");
    if p.join("semeval2010").is_dir() && p.join("semeval2010-vbss-candidates").is_dir() {
        Some(p)
    } else {
        eprintln!(
            "skipped: {} not present (SemEval-2010 cannot be shipped)",
            p.display()
        );
        None
    }
}

/// SemEval-2010 with the dissertation authors' own candidate sequences.
fn authors_candidates(d: &Path) -> plackett::keywords::Corpus {
    read_candidate_corpus(
        &d.join("semeval2010"),
        &d.join("semeval2010-vbss-candidates"),
        &Pipeline::default(),
        plackett_text::KeyRule::Whole,
    )
    .unwrap()
}

/// R's type-7 quantile of sorted data.
fn q7(x: &[f64], p: f64) -> f64 {
    let h = (x.len() - 1) as f64 * p;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    x[lo] + (h - lo as f64) * (x[hi] - x[lo])
}

#[test]
fn the_authors_candidates_reproduce_table_1_1() {
    let Some(d) = data() else { return };
    let c = authors_candidates(&d);
    assert_eq!(c.documents.len(), 239);
    let mut n: Vec<f64> = c
        .documents
        .iter()
        .map(|doc| WordGraph::from_tokens(&doc.tokens, 2, false).unwrap().len() as f64)
        .collect();
    n.sort_by(f64::total_cmp);
    let mean = n.iter().sum::<f64>() / n.len() as f64;
    // Hu 2024 Table 1.1, SemEval2010 #candidates: 128, 272.5, 305, 308.1, 334.5, 550.
    assert_eq!(n[0], 128.0);
    assert_eq!(q7(&n, 0.25), 272.5);
    assert_eq!(q7(&n, 0.5), 305.0);
    assert!((mean - 308.1).abs() < 0.05, "{mean}");
    assert_eq!(q7(&n, 0.75), 334.5);
    assert_eq!(n[n.len() - 1], 550.0);
    // Ground truth = stems of the keyphrases' words that are candidates:
    // 237 documents keep at least 11 (the dissertation reports 239 with
    // its own udpipe processing of the keyphrases; docs/keywords.md).
    let kept = c
        .documents
        .iter()
        .filter(|doc| {
            let v: HashSet<&str> = doc.tokens.iter().map(|s| s.as_str()).collect();
            doc.truth.iter().filter(|t| v.contains(t.as_str())).count() >= 11
        })
        .count();
    assert_eq!(kept, 237);
}

#[test]
fn our_front_end_against_the_authors_candidates() {
    let Some(d) = data() else { return };
    let pipe = Pipeline {
        min_count_exclusive: 2,
        ..Default::default()
    };
    let ours = read_corpus(&d.join("semeval2010"), &pipe, plackett_text::KeyRule::Whole).unwrap();
    let theirs = read_candidate_corpus(
        &d.join("semeval2010"),
        &d.join("semeval2010-vbss-candidates"),
        &pipe,
        plackett_text::KeyRule::Whole,
    )
    .unwrap();
    let mut jac = Vec::new();
    for t in &theirs.documents {
        let o = ours.documents.iter().find(|o| o.id == t.id).unwrap();
        let a: HashSet<&str> = o.tokens.iter().map(|s| s.as_str()).collect();
        let b: HashSet<&str> = t.tokens.iter().map(|s| s.as_str()).collect();
        jac.push(a.intersection(&b).count() as f64 / a.union(&b).count() as f64);
    }
    jac.sort_by(f64::total_cmp);
    let mean = jac.iter().sum::<f64>() / jac.len() as f64;
    eprintln!(
        "candidate-set Jaccard, ours vs the authors': mean {mean:.3}, min {:.3}, median {:.3}, max {:.3}",
        jac[0],
        q7(&jac, 0.5),
        jac[jac.len() - 1]
    );
    // Measured (docs/keywords.md); a regression guard, not a target.
    assert!(mean > 0.84, "{mean}");
}

/// Hu 2024 Table 1.5 (SemEval-2010, k = 5, known keywords forced into the
/// cut methods), γ = 0.05 … 0.3.
const TABLE_1_5_VBSS_P: [f64; 6] = [1.0, 0.979, 0.939, 0.908, 0.835, 0.749];
const TABLE_1_5_VBSS_R: [f64; 6] = [0.24, 0.28, 0.315, 0.351, 0.401, 0.463];
const TABLE_1_5_VBSS_F: [f64; 6] = [0.387, 0.434, 0.472, 0.506, 0.541, 0.573];
const TABLE_1_5_SS_F: [f64; 6] = [0.401, 0.431, 0.467, 0.498, 0.533, 0.563];
const TABLE_1_5_TR_F: [f64; 6] = [0.398, 0.422, 0.448, 0.471, 0.497, 0.517];

/// The dissertation's VBSS numbers are those of its authors' code (stale
/// unlabelled `E[z]`, swapped slope and intercept in the θ step), not of
/// its stated updates: `vbss-code` on the authors' candidates, with the cut
/// methods' rates set by it and 10 draws of the known keywords pooled,
/// lands within 0.03 of Table 1.5 in precision and F at every γ, and so do
/// SS and TextRank (docs/keywords.md).
#[test]
fn the_authors_code_reproduces_table_1_5() {
    use plackett::keywords::{EvalOptions, Method, evaluate};
    let Some(d) = data() else { return };
    let c = authors_candidates(&d);
    let opts = EvalOptions {
        methods: vec![
            Method::Ss,
            Method::TextRank,
            Method::TfIdf,
            Method::VbssCode,
        ],
        rates_from: Method::VbssCode,
        // VBSS itself is not part of the comparison (twenty times the cost).
        no_vbss: true,
        // The protocol: averaged over 10 draws of the known keywords.
        draws: 10,
        ..Default::default()
    };
    let t = evaluate(&c, &opts).unwrap();
    assert_eq!(t.documents, 237);
    assert_eq!(t.vbss_code_not_converged, 0);
    let col = |m: Method| t.methods.iter().position(|x| *x == m).unwrap();
    let (code, ss, tr, tfidf) = (
        col(Method::VbssCode),
        col(Method::Ss),
        col(Method::TextRank),
        col(Method::TfIdf),
    );
    for (gi, g) in t.gammas.iter().enumerate() {
        let row = &t.cells[gi];
        let v = &row[code];
        eprintln!(
            "γ = {g}: VBSS-code P/R/F {:.3}/{:.3}/{:.3} (Hu 2024 {}/{}/{}), SS F {:.3} ({}), TR F {:.3} ({})",
            v.precision,
            v.recall,
            v.f,
            TABLE_1_5_VBSS_P[gi],
            TABLE_1_5_VBSS_R[gi],
            TABLE_1_5_VBSS_F[gi],
            row[ss].f,
            TABLE_1_5_SS_F[gi],
            row[tr].f,
            TABLE_1_5_TR_F[gi]
        );
        assert!(
            (v.precision - TABLE_1_5_VBSS_P[gi]).abs() <= 0.03,
            "precision at γ = {g}"
        );
        assert!((v.f - TABLE_1_5_VBSS_F[gi]).abs() <= 0.03, "F at γ = {g}");
        // Recall: within 0.03 up to γ = 0.25; at γ = 0.3 it falls 0.032–0.033
        // short (the dissertation's ground truth holds 3% more keywords per
        // paper and its VBSS selects 14% more words there; docs/keywords.md).
        if *g < 0.29 {
            assert!(
                (v.recall - TABLE_1_5_VBSS_R[gi]).abs() <= 0.03,
                "recall at γ = {g}"
            );
        }
        assert!(
            (row[ss].f - TABLE_1_5_SS_F[gi]).abs() <= 0.03,
            "SS F at γ = {g}"
        );
        assert!(
            (row[tr].f - TABLE_1_5_TR_F[gi]).abs() <= 0.03,
            "TR F at γ = {g}"
        );
        if *g >= 0.1 {
            assert!(
                v.f > row[tr].f && v.f > row[tfidf].f,
                "VBSS-code F above TR and TF-IDF at γ = {g}"
            );
        }
    }
}

/// Hu 2024 Table 1.5's words selected per paper, from `S/T = R/P` with
/// the table's precision and recall and the dissertation's 20.82 keywords
/// per paper.
const TABLE_1_5_SELECTED: [f64; 6] = [5.0, 5.95, 6.98, 8.05, 10.0, 12.87];

/// The two published readings that close Table 1.5 (docs/keywords.md,
/// "Closing Table 1.5"): the first `E[α]` per article, `1 − k/|K|` (§1.3.4's
/// "roughly estimated proportion for unobserved keywords in the article"),
/// and the ground-truth keyphrases split at dashes (the authors'
/// `Preprocessing.R` runs udpipe over them). The authors' loop then keeps
/// all 239 papers and selects the table's number of words per paper within
/// 0.5, with precision within 0.03 and recall within 0.035 at every γ —
/// the acceptance, on the command line's own path.
#[test]
fn two_published_readings_close_table_1_5() {
    use plackett::keywords::{AlphaInit, EvalOptions, Method, evaluate};
    let Some(d) = data() else { return };
    let c = read_candidate_corpus(
        &d.join("semeval2010"),
        &d.join("semeval2010-vbss-candidates"),
        &Pipeline::default(),
        plackett_text::KeyRule::SplitDashes,
    )
    .unwrap();
    let opts = EvalOptions {
        methods: vec![Method::VbssCode],
        // Left at VBSS: with VBSS left out, vbss-code sets the rates.
        rates_from: Method::Vbss,
        no_vbss: true,
        draws: 10,
        alpha_init: AlphaInit::Article,
        ..Default::default()
    };
    let t = evaluate(&c, &opts).unwrap();
    assert_eq!(t.documents, 239);
    assert_eq!(t.rates_from, Method::VbssCode);
    for r in t.results() {
        let gi = t.gammas.iter().position(|g| *g == r.gamma).unwrap();
        eprintln!(
            "γ = {}: {:.2} words per paper (Table 1.5 {}), P {:.3} ({}), R {:.3} ({})",
            r.gamma,
            r.selected_per_document,
            TABLE_1_5_SELECTED[gi],
            r.precision,
            TABLE_1_5_VBSS_P[gi],
            r.recall,
            TABLE_1_5_VBSS_R[gi]
        );
        assert!((r.selected_per_document - TABLE_1_5_SELECTED[gi]).abs() <= 0.5);
        assert!((r.precision - TABLE_1_5_VBSS_P[gi]).abs() <= 0.03);
        assert!((r.recall - TABLE_1_5_VBSS_R[gi]).abs() <= 0.035);
    }
}

/// What the authors' code's `p̂` is (docs/keywords.md, "one level, SS's
/// order"): its slope ends near zero, every unlabelled word sits near one
/// level `Φ(E a)`, and the words the FDR rule adds at γ = 0.3 are mostly
/// the SS prior mean's top words.
#[test]
fn the_authors_code_puts_unlabelled_words_at_one_level_in_ss_order() {
    use plackett::keywords::{
        PriorScale, ThetaPrior, VbssOptions, bayesian_fdr_select, draw_known, fit_vbss_code,
        truth_indices,
    };
    let Some(d) = data() else { return };
    let c = authors_candidates(&d);
    let (mut slopes, mut spreads) = (Vec::new(), Vec::new());
    let (mut added, mut in_ss_top) = (0usize, 0usize);
    for (di, doc) in c.documents.iter().enumerate() {
        let g = WordGraph::from_tokens(&doc.tokens, 2, false).unwrap();
        let truth = truth_indices(&g, doc);
        if truth.len() < 11 {
            continue;
        }
        // The evaluation's own draw (seed 1, first draw).
        let y = draw_known(&truth, g.len(), 5, 1, di, 0);
        let prior = ThetaPrior::from_graph(&g, &y, 0.85, PriorScale::Code).unwrap();
        let f = fit_vbss_code(&prior, &y, &VbssOptions::default()).unwrap();
        slopes.push(f.b.abs());
        let unl: Vec<usize> = (0..g.len()).filter(|&i| !y[i]).collect();
        let p: Vec<f64> = unl.iter().map(|&i| f.p_plugin[i]).collect();
        let (lo, hi) = p
            .iter()
            .fold((1.0f64, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
        spreads.push(hi - lo);
        let sel: Vec<usize> = bayesian_fdr_select(&f.p_forced, 0.3)
            .into_iter()
            .filter(|&i| !y[i])
            .collect();
        let mut by_ss = unl.clone();
        by_ss.sort_by(|&a, &b| prior.theta0[b].total_cmp(&prior.theta0[a]));
        added += sel.len();
        in_ss_top += sel
            .iter()
            .filter(|i| by_ss[..sel.len()].contains(i))
            .count();
    }
    slopes.sort_by(f64::total_cmp);
    spreads.sort_by(f64::total_cmp);
    let (slope, spread) = (q7(&slopes, 0.5), q7(&spreads, 0.5));
    let share = in_ss_top as f64 / added as f64;
    eprintln!(
        "{} papers: median |E b| {slope:.4}, median spread of unlabelled p̂ {spread:.4}, {in_ss_top} of {added} added words at γ = 0.3 among SS's top ({share:.3})",
        slopes.len()
    );
    assert_eq!(slopes.len(), 237);
    assert!(slope < 0.005, "median |E b| {slope}");
    assert!(spread < 0.005, "median spread {spread}");
    assert!(share > 0.85, "share in SS's top {share}");
}
