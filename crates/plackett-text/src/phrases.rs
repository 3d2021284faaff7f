//! Keyphrases from selected keywords: runs of selected words that stand
//! next to each other in the text are collapsed into one multi-word
//! keyphrase, the post-processing step of TextRank (Mihalcea & Tarau 2004,
//! §3.1). VBSS (Hu 2024, ch. 1), like the dissertation's evaluation, scores
//! and selects single words; this turns its selection into the phrases a
//! reader tags a document with, and changes no word's probability.

use super::pipeline::Reading;
use plackett::keywords::WordGraph;
use std::collections::HashMap;

/// One keyphrase of [`keyphrases`] (`keywords extract --output json`'s
/// `phrases`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Keyphrase {
    /// Its most frequent form in the (lower-cased) text.
    pub phrase: String,
    /// Every form it takes in the text, most frequent first.
    pub forms: Vec<String>,
    /// The stems of its words, in order: the candidates it is made of.
    pub stems: Vec<String>,
    /// Occurrences in the text as a whole run (a run is maximal: the
    /// phrase's words with no other selected word beside them).
    pub count: usize,
    /// The smallest probability `p` among its words: a phrase is as
    /// credible as its least credible word.
    pub p_min: f64,
    /// Whether every word of it was given as known.
    pub known: bool,
}

/// The maximal runs of selected candidates in a text read by
/// [`Pipeline::reading`](crate::Pipeline::reading) — adjacent words of a
/// sentence, no punctuation mark between them, each kept by the word
/// filter and selected (`selected[i]` for candidate `i` of `graph`) —
/// grouped by their stems, most frequent first (then by `p_min`, then
/// alphabetically). `p` and `known` are per candidate of `graph`.
pub fn keyphrases(
    reading: &Reading,
    graph: &WordGraph,
    selected: &[bool],
    p: &[f64],
    known: &[bool],
) -> Vec<Keyphrase> {
    // The selected candidates by stem, looked up once per word of the
    // text (`WordGraph::index_of` scans every candidate).
    let chosen: HashMap<&str, usize> = (0..graph.len())
        .filter(|&i| selected[i])
        .map(|i| (graph.words[i].as_str(), i))
        .collect();
    // Stems → (form → count), in order of first occurrence.
    let mut found: Vec<(Vec<usize>, HashMap<String, usize>)> = Vec::new();
    let mut at: HashMap<Vec<usize>, usize> = HashMap::new();
    let mut flush = |run: &mut Vec<(usize, String)>| {
        if run.is_empty() {
            return;
        }
        let ids: Vec<usize> = run.iter().map(|(i, _)| *i).collect();
        let form = run
            .iter()
            .map(|(_, w)| w.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let k = *at.entry(ids.clone()).or_insert_with(|| {
            found.push((ids, HashMap::new()));
            found.len() - 1
        });
        *found[k].1.entry(form).or_default() += 1;
        run.clear();
    };
    for sentence in &reading.sentences {
        let mut run: Vec<(usize, String)> = Vec::new();
        for token in sentence {
            // A kept word has its stem; a mark or a dropped word has none.
            let id = reading
                .stem_of(&token.word)
                .filter(|_| token.kept)
                .and_then(|s| chosen.get(s).copied());
            match id {
                Some(i) => run.push((i, token.word.clone())),
                None => flush(&mut run),
            }
        }
        flush(&mut run);
    }
    let mut out: Vec<Keyphrase> = found
        .into_iter()
        .map(|(ids, forms)| {
            let mut forms: Vec<(String, usize)> = forms.into_iter().collect();
            forms.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            Keyphrase {
                phrase: forms[0].0.clone(),
                count: forms.iter().map(|f| f.1).sum(),
                forms: forms.into_iter().map(|f| f.0).collect(),
                stems: ids.iter().map(|&i| graph.words[i].clone()).collect(),
                p_min: ids.iter().map(|&i| p[i]).fold(f64::INFINITY, f64::min),
                known: ids.iter().all(|&i| known[i]),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| b.p_min.total_cmp(&a.p_min))
            .then_with(|| a.phrase.cmp(&b.phrase))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Pipeline;

    /// Runs break at unselected words, filtered words and punctuation, and
    /// group by stems across inflections.
    #[test]
    fn runs_of_selected_words_become_phrases() {
        let text = "Ranking models rank items. A ranking model, like ranking models, ranks. \
                    Models of ranking differ.";
        let pipeline = Pipeline {
            filter: crate::pipeline::WordFilter::StopWords,
            ..Pipeline::default()
        };
        let cands = pipeline.candidates(text);
        let g = WordGraph::from_tokens(&cands, 2, false).unwrap();
        let mut selected = vec![false; g.len()];
        let mut p = vec![0.1; g.len()];
        for w in ["rank", "model"] {
            let i = g.index_of(w).unwrap();
            selected[i] = true;
            p[i] = if w == "rank" { 0.9 } else { 0.6 };
        }
        let known: Vec<bool> = (0..g.len()).map(|i| g.words[i] == "rank").collect();
        let ph = keyphrases(&pipeline.reading(text), &g, &selected, &p, &known);
        let got: Vec<(&str, usize)> = ph.iter().map(|k| (k.phrase.as_str(), k.count)).collect();
        // "ranking models rank" is one run ("items" is not selected); the
        // comma ends "ranking model"; "a" and "like" are not candidates or
        // not selected; "of" splits "models of ranking" into two runs.
        // Most frequent first, then by p_min, then alphabetically.
        assert_eq!(
            got,
            [
                ("ranking", 2),
                ("ranking model", 2),
                ("models", 1),
                ("ranking models rank", 1)
            ]
        );
        assert_eq!(ph[0].forms, ["ranking", "ranks"]);
        assert_eq!(ph[1].forms, ["ranking model", "ranking models"]);
        assert_eq!(ph[1].stems, ["rank", "model"]);
        assert_eq!(ph[1].p_min, 0.6);
        assert_eq!(
            ph.iter().map(|k| k.known).collect::<Vec<_>>(),
            [true, false, false, false]
        );
    }
}
