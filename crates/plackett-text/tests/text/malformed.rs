//! Bad keyword-extraction input never panics: arbitrary text (any Unicode,
//! control characters, no words), known keywords that are or are not in it,
//! token streams and edge lists from their own alphabets, outside score
//! files. Each either extracts or returns an error; the CLI and Python turn
//! the error into exit 2 or `ValueError`.

use plackett::infer::mcmc::McmcSettings;
use plackett::keywords::VbssGibbsOptions;
use plackett_text::{Engine, ExtractOptions, Input, Pipeline, WordFilter, extract, read_external};
use proptest::prelude::*;

/// A few of the document's own words (so that some runs get past the
/// "known keyword not in the text" check) or made-up ones.
fn known_from(doc: &str, picks: &[usize], made_up: &[String]) -> Vec<String> {
    let words: Vec<&str> = doc.split_whitespace().collect();
    let mut known: Vec<String> = picks
        .iter()
        .filter(|_| !words.is_empty())
        .map(|&p| words[p % words.len()].to_string())
        .collect();
    known.extend(made_up.iter().cloned());
    known
}

/// The result of a successful extraction is a set of probabilities, and
/// its keyphrases account for every occurrence of a selected word once.
fn check(ex: &plackett_text::Extraction) -> Result<(), TestCaseError> {
    for c in &ex.candidates {
        prop_assert!(c.p.is_finite() && (0.0..=1.0).contains(&c.p), "p = {}", c.p);
        prop_assert!(c.sd.is_finite() && c.sd >= 0.0, "sd = {}", c.sd);
        // Non-negative in exact arithmetic; the eigenvector solves leave
        // rounding of order 1e-17 either side of zero.
        for b in [c.textrank, c.positionrank, c.ss].into_iter().flatten() {
            prop_assert!(b.is_finite() && b > -1e-12, "baseline score {b}");
        }
    }
    if let Some(phrases) = &ex.phrases {
        let mut seen: std::collections::HashMap<&str, f64> = Default::default();
        for k in phrases {
            prop_assert!(k.count > 0 && !k.stems.is_empty() && k.forms[0] == k.phrase);
            for s in &k.stems {
                *seen.entry(s.as_str()).or_default() += k.count as f64;
            }
        }
        for c in &ex.candidates {
            let n = seen.get(c.stem.as_str()).copied().unwrap_or(0.0);
            prop_assert_eq!(n, if c.selected { c.frequency } else { 0.0 }, "{}", c.stem);
        }
    }
    let _ = plackett_text::report::render("fuzz", "vb", ex);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Arbitrary Unicode text through the whole front-end and VBSS, with
    /// every word filter.
    #[test]
    fn text_never_panics(
        doc in "\\PC{0,200}",
        picks in prop::collection::vec(any::<usize>(), 0..4),
        made_up in prop::collection::vec("\\PC{0,8}", 0..2),
        filter in prop::sample::select(vec![WordFilter::PartOfSpeech, WordFilter::StopWords, WordFilter::None]),
    ) {
        let opts = ExtractOptions {
            pipeline: Pipeline { filter, min_count_exclusive: 0, ..Pipeline::default() },
            baselines: true,
            edges: true,
            ..ExtractOptions::default()
        };
        if let Ok(ex) = extract(&doc, &known_from(&doc, &picks, &made_up), &opts) {
            check(&ex)?;
        }
    }

    /// Text from a small vocabulary, so that words repeat, graphs form and
    /// the known keywords are usually found; VBSS and, now and then, the
    /// Gibbs sampler.
    #[test]
    fn word_soup_never_panics(
        doc in "((graph|rank|model|the|of|data|posterior|a|keyword|Bayes|x1|—|\\.|,|\n) ){0,60}",
        picks in prop::collection::vec(any::<usize>(), 1..4),
        window in 1usize..4,
        self_loops in any::<bool>(),
        gibbs in prop::sample::select(vec![false, false, false, true]),
        fdr in prop::sample::select(vec![0.05, 0.2, 0.5, 0.99]),
    ) {
        let engine = if gibbs {
            Engine::Gibbs(VbssGibbsOptions { mcmc: McmcSettings::new(20, 20, 2, 1), ..VbssGibbsOptions::default() })
        } else {
            ExtractOptions::default().engine
        };
        let opts = ExtractOptions {
            pipeline: Pipeline { filter: WordFilter::None, min_count_exclusive: 0, ..Pipeline::default() },
            window,
            self_loops,
            fdr,
            engine,
            ..ExtractOptions::default()
        };
        if let Ok(ex) = extract(&doc, &known_from(&doc, &picks, &[]), &opts) {
            check(&ex)?;
        }
    }

    /// Pre-tokenised input (`--input tokens`).
    #[test]
    fn tokens_never_panic(
        doc in "((a|b|c|d|\"|\"e\") ){0,40}",
        picks in prop::collection::vec(any::<usize>(), 0..4),
    ) {
        let opts = ExtractOptions { input: Input::Tokens, ..ExtractOptions::default() };
        if let Ok(ex) = extract(&doc, &known_from(&doc, &picks, &[]), &opts) {
            check(&ex)?;
        }
    }

    /// Edge lists (`--input graph`) from their own alphabet: missing
    /// fields, bad and non-finite weights, self-loops, isolated pairs.
    #[test]
    fn edge_lists_never_panic(
        header in any::<bool>(),
        rows in prop::collection::vec(
            (
                prop_oneof![40 => prop::sample::select(vec!["a", "b", "c", "d"]), 1 => Just(""), 2 => prop::sample::select(vec!["\"a,b\"", "\"", "\"x", "#d", "\"q\"\"\""])],
                prop_oneof![40 => prop::sample::select(vec!["a", "b", "c", "d"]), 1 => Just(""), 2 => prop::sample::select(vec!["\"a,b\"", "\"", "\"x", "#d", "\"q\"\"\""])],
                prop_oneof![
                    20 => Just(String::new()),
                    20 => (0.0f64..3.0).prop_map(|w| format!(",{w}")),
                    1 => prop::sample::select(vec![",-1", ",nan", ",inf", ",1e999", ",0", ",x", ",1,2"]).prop_map(String::from),
                ],
            ),
            0..12,
        ),
        known in prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d", "e"]), 0..3),
    ) {
        let mut edges = String::from(if header { "source,target\n" } else { "" });
        for (a, b, w) in rows {
            edges += &format!("{a},{b}{w}\n");
        }
        let opts = ExtractOptions { input: Input::Graph, baselines: true, edges: true, ..ExtractOptions::default() };
        let known: Vec<String> = known.into_iter().map(String::from).collect();
        if let Ok(ex) = extract(&edges, &known, &opts) {
            check(&ex)?;
        }
    }

    /// Outside scores (`keywords evaluate --external NAME=FILE`) from JSON's
    /// alphabet.
    #[test]
    fn external_scores_never_panic(s in "[\\[\\]{}:,\" 0-9.eadxnul-]{0,80}") {
        let dir = std::env::temp_dir().join(format!("plackett-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("scores.json");
        std::fs::write(&path, &s).unwrap();
        let _ = read_external(&path, "x", &Pipeline::default());
    }
}
