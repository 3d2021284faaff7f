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

/// R's type-7 quantile of sorted data.
fn q7(x: &[f64], p: f64) -> f64 {
    let h = (x.len() - 1) as f64 * p;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    x[lo] + (h - lo as f64) * (x[hi] - x[lo])
}

#[test]
fn the_authors_candidates_reproduce_table_1_1() {
    let Some(d) = data() else { return };
    let c = read_candidate_corpus(
        &d.join("semeval2010"),
        &d.join("semeval2010-vbss-candidates"),
        &Pipeline::default(),
    )
    .unwrap();
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
    let ours = read_corpus(&d.join("semeval2010"), &pipe).unwrap();
    let theirs = read_candidate_corpus(
        &d.join("semeval2010"),
        &d.join("semeval2010-vbss-candidates"),
        &pipe,
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
