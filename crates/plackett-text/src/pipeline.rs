//! Document → candidate-word sequence (Hu 2024, §1.2.1).

use super::pos::BrillTagger;
use super::stopwords::is_filtered;
use std::collections::HashMap;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

fn stemmer() -> &'static nltk_porter::PorterStemmer {
    static S: OnceLock<nltk_porter::PorterStemmer> = OnceLock::new();
    S.get_or_init(|| nltk_porter::PorterStemmer::new(nltk_porter::Mode::Original))
}

/// The Porter (1980) stem of a lower-case word.
pub fn stem(word: &str) -> String {
    stemmer().stem(word)
}

/// Which words can be candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordFilter {
    /// Nouns, verbs and adjectives by the part-of-speech tagger (the
    /// authors' udpipe filter; `pos`), words it does not know kept as
    /// nouns.
    PartOfSpeech,
    /// Every word but closed-class (function) words and "-ly" adverbs (the
    /// fallback; `stopwords`).
    StopWords,
    /// Every word (`none`).
    None,
}

impl std::str::FromStr for WordFilter {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "pos" => Ok(WordFilter::PartOfSpeech),
            "stopwords" => Ok(WordFilter::StopWords),
            "none" => Ok(WordFilter::None),
            _ => Err(format!(
                "unknown word filter '{s}' (expected pos, stopwords or none)"
            )),
        }
    }
}

/// Front-end settings.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Which words can be candidates.
    pub filter: WordFilter,
    /// Keep only stems occurring more than this many times (the authors
    /// used 2 for full papers and 0 for abstracts).
    pub min_count_exclusive: usize,
    /// Drop tokens without a letter (numbers, stray symbols).
    pub letters_only: bool,
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline {
            filter: WordFilter::PartOfSpeech,
            min_count_exclusive: 0,
            letters_only: true,
        }
    }
}

/// Lower-case and split into words: tabs, line breaks, `;`, `/`, `=` and
/// punctuation separate words; a dash between two letters or digits stays
/// inside its word (Hu 2024, §1.2.1, as the authors' code).
pub fn words(text: &str) -> Vec<String> {
    cased_words(&text.to_lowercase())
}

/// [`words`] without lower-casing (the tagger reads capitals).
fn cased_words(lower: &str) -> Vec<String> {
    cased_tokens(lower)
        .into_iter()
        .filter(|(_, word)| *word)
        .map(|(t, _)| t)
        .collect()
}

/// The words of [`cased_words`] with the punctuation marks between them
/// (`false`: a mark; white space dropped).
fn cased_tokens(lower: &str) -> Vec<(String, bool)> {
    // Unicode word boundaries split `a-b` into `a`, `-`, `b`; a dash that
    // touches a word on both sides is joined back.
    let mut joined: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    let raw: Vec<&str> = lower.split_word_bounds().collect();
    while i < raw.len() {
        let w = raw[i];
        if w == "-"
            && i > 0
            && i + 1 < raw.len()
            && raw[i - 1].chars().all(char::is_alphanumeric)
            && raw[i + 1].chars().all(char::is_alphanumeric)
            && !raw[i - 1].is_empty()
            && let Some((last, true)) = joined.last_mut()
        {
            last.push('-');
            last.push_str(raw[i + 1]);
            i += 2;
            continue;
        }
        // A separator is kept as a mark (empty for white space) so that a
        // following dash does not join.
        let word = w.chars().any(char::is_alphanumeric);
        joined.push((if word { w } else { w.trim() }.to_string(), word));
        i += 1;
    }
    joined.retain(|(w, _)| !w.is_empty());
    joined
}

/// The words of each sentence (sentences end at `.`, `!` or `?` before a
/// space or line break, and at blank lines): the tagger reads its context
/// within a sentence.
pub fn sentences(text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = sentence_spans(text)
        .into_iter()
        .map(|(a, b)| cased_words(&text[a..b]))
        .collect();
    out.retain(|s| !s.is_empty());
    out
}

/// Sentence boundaries of [`sentences`], as byte ranges of `text`.
fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = text.as_bytes();
    for i in 0..b.len() {
        let end_mark = matches!(b[i], b'.' | b'!' | b'?')
            && b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace());
        let blank = b[i] == b'\n' && b.get(i + 1) == Some(&b'\n');
        if end_mark || blank {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    out.push((start, b.len()));
    out
}

/// A text as [`Pipeline::reading`] reads it.
#[derive(Debug, Clone)]
pub struct Reading {
    /// Its sentences' tokens, as [`Pipeline::read`] gives them.
    pub sentences: Vec<Vec<TaggedToken>>,
    /// The stem of every word the filter keeps.
    stems: HashMap<String, String>,
}

impl Reading {
    /// The stem of a kept word (`None` for a word the filter drops).
    pub fn stem_of(&self, word: &str) -> Option<&str> {
        self.stems.get(word).map(String::as_str)
    }
}

/// One token of [`Pipeline::tagged`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TaggedToken {
    /// The token as the front-end reads it (lower-cased).
    pub word: String,
    /// Its Universal POS tag: the tagger's for a word (`None` when the
    /// tagger does not know it), `PUNCT` for a punctuation mark.
    pub pos: Option<String>,
    /// Whether the word filter keeps it as a candidate (before stemming
    /// and the frequency filter).
    pub kept: bool,
}

impl Pipeline {
    /// The words of `text` that pass the word filter, in text order.
    pub fn filtered_words(&self, text: &str) -> Vec<String> {
        let kept: Vec<String> = match self.filter {
            WordFilter::PartOfSpeech => {
                let tagger = BrillTagger::english();
                // Lower-cased once: the tagger reads words case-insensitively.
                sentences(&text.to_lowercase())
                    .into_iter()
                    .flat_map(|s| {
                        let keep = tagger.keep(&s);
                        s.into_iter().zip(keep).filter(|(_, k)| *k).map(|(w, _)| w)
                    })
                    .collect()
            }
            WordFilter::StopWords => words(text)
                .into_iter()
                .filter(|w| !is_filtered(w))
                .collect(),
            WordFilter::None => words(text),
        };
        kept.into_iter()
            .filter(|w| !self.letters_only || w.chars().any(char::is_alphabetic))
            .collect()
    }

    /// The sentences of `text` as the front-end reads them, every word with
    /// its part-of-speech tag and whether the word filter keeps it, and the
    /// punctuation marks between words (`keywords tag`; e.g. to feed
    /// another keyword extractor the same tokens and tags).
    pub fn tagged(&self, text: &str) -> Vec<Vec<TaggedToken>> {
        self.read(text, true)
    }

    /// [`Pipeline::tagged`], with the tags left out (`pos: None` for every
    /// word) unless `tags`: the one reading of a text that
    /// [`Pipeline::candidate_words_in`] and the keyphrases share. (The
    /// part-of-speech filter tags the words either way; a reading without
    /// `tags` saves naming each tag.)
    pub fn read(&self, text: &str, tags: bool) -> Vec<Vec<TaggedToken>> {
        let lower = text.to_lowercase();
        let tagger = BrillTagger::english();
        let named = tags;
        let tags = tags || self.filter == WordFilter::PartOfSpeech;
        let mut out = Vec::new();
        for (a, b) in sentence_spans(&lower) {
            let toks = cased_tokens(&lower[a..b]);
            let words: Vec<String> = toks.iter().filter(|t| t.1).map(|t| t.0.clone()).collect();
            if words.is_empty() {
                continue;
            }
            let tags = if tags {
                tagger.tag(&words)
            } else {
                vec![None; words.len()]
            };
            let keep = match self.filter {
                WordFilter::PartOfSpeech => BrillTagger::keep_tagged(&words, &tags),
                WordFilter::StopWords => words.iter().map(|w| !is_filtered(w)).collect(),
                WordFilter::None => vec![true; words.len()],
            };
            let mut k = 0;
            let sentence = toks
                .into_iter()
                .map(|(word, is_word)| {
                    if !is_word {
                        return TaggedToken {
                            word,
                            pos: Some("PUNCT".into()),
                            kept: false,
                        };
                    }
                    let t = TaggedToken {
                        kept: keep[k]
                            && (!self.letters_only || word.chars().any(char::is_alphabetic)),
                        pos: if named {
                            tags[k].map(|u| format!("{u:?}"))
                        } else {
                            None
                        },
                        word,
                    };
                    k += 1;
                    t
                })
                .collect();
            out.push(sentence);
        }
        out
    }

    /// The candidate stems of `text`, in text order.
    pub fn candidates(&self, text: &str) -> Vec<String> {
        self.candidate_words(text)
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    }

    /// The candidates of `text` in text order, each as (the word as it
    /// stands in the lower-cased text, its stem): the surface forms a stem
    /// stands for.
    pub fn candidate_words(&self, text: &str) -> Vec<(String, String)> {
        // Each distinct word stemmed once: stemming is most of the
        // front-end's time on a full paper.
        let mut stems: HashMap<String, String> = HashMap::new();
        let toks: Vec<(String, String)> = self
            .filtered_words(text)
            .into_iter()
            .map(|w| {
                let s = stems.entry(w.clone()).or_insert_with(|| stem(&w)).clone();
                (w, s)
            })
            .filter(|(_, s)| !s.is_empty())
            .collect();
        self.min_count_filter(toks)
    }

    /// The text read once ([`Pipeline::read`], no tags it does not need)
    /// with the stem of every kept word, each distinct word stemmed once:
    /// what [`Pipeline::candidate_words_in`] and the keyphrases share.
    pub fn reading(&self, text: &str) -> Reading {
        let sentences = self.read(text, false);
        let mut stems: HashMap<String, String> = HashMap::new();
        for t in sentences.iter().flatten().filter(|t| t.kept) {
            if !stems.contains_key(&t.word) {
                stems.insert(t.word.clone(), stem(&t.word));
            }
        }
        Reading { sentences, stems }
    }

    /// [`Pipeline::candidate_words`] from a [`Reading`] of the text
    /// instead of the text: the same words (tested).
    pub fn candidate_words_in(&self, reading: &Reading) -> Vec<(String, String)> {
        let toks: Vec<(String, String)> = reading
            .sentences
            .iter()
            .flatten()
            .filter_map(|t| {
                let s = reading.stem_of(&t.word)?;
                (t.kept && !s.is_empty()).then(|| (t.word.clone(), s.to_string()))
            })
            .collect();
        self.min_count_filter(toks)
    }

    /// Why `target`, a stem of a known keyword, is not a candidate of the
    /// text read as `reading`, if its words occur there: the frequency
    /// filter (kept, but not often enough) or the word filter (a
    /// part-of-speech or function-word filter, or no letter). `None` if no
    /// word of the text has that stem. Parameters in the library's
    /// backtick form.
    pub fn why_not_candidate(&self, reading: &Reading, target: &str) -> Option<String> {
        let words = reading.sentences.iter().flatten();
        let kept = words
            .clone()
            .filter(|t| t.kept && reading.stem_of(&t.word) == Some(target))
            .count();
        if kept > 0 {
            return Some(format!(
                "its stem \"{target}\" occurs {kept} time(s), and `min_count` ({}) keeps only \
                 stems occurring more often",
                self.min_count_exclusive
            ));
        }
        let t = words
            .filter(|t| !t.kept && t.pos.as_deref() != Some("PUNCT"))
            .find(|t| stem(&t.word) == target)?;
        Some(format!(
            "\"{}\" occurs, but {}",
            plackett::io::output::short_name(&t.word, 40),
            match self.filter {
                WordFilter::PartOfSpeech => {
                    "the part-of-speech filter keeps nouns, verbs and adjectives only \
                     (`word_filter=stopwords` keeps every word but function words)"
                }
                WordFilter::StopWords => "it is a function word (`word_filter=none` keeps it)",
                WordFilter::None => "it has no letter",
            }
        ))
    }

    /// Drop the words whose stem occurs `min_count_exclusive` times or
    /// fewer.
    fn min_count_filter(&self, mut toks: Vec<(String, String)>) -> Vec<(String, String)> {
        if self.min_count_exclusive > 0 {
            // Counted on borrowed stems, then filtered in place.
            let keep: Vec<bool> = {
                let mut count: HashMap<&str, usize> = HashMap::new();
                for (_, s) in &toks {
                    *count.entry(s.as_str()).or_default() += 1;
                }
                toks.iter()
                    .map(|(_, s)| count[s.as_str()] > self.min_count_exclusive)
                    .collect()
            };
            let mut k = keep.into_iter();
            toks.retain(|_| k.next().unwrap_or(false));
        }
        toks
    }

    /// The stems of a keyphrase's words (the ground-truth and known-keyword
    /// side: each word of a phrase, stemmed the same way as the text; the
    /// word filter is not applied, since the candidate set decides).
    pub fn phrase_stems(&self, phrase: &str) -> Vec<String> {
        words(phrase)
            .into_iter()
            .filter(|w| w.chars().any(char::is_alphabetic))
            .map(|w| stem(&w))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The candidates read off [`Pipeline::read`] (the path `extract`
    /// takes, sharing one reading with the keyphrases) are
    /// [`Pipeline::candidate_words`]'s (the path `evaluate` takes), for
    /// every filter and frequency cut, on the shipped texts and on edge
    /// cases of punctuation, dashes, digits and sentence ends.
    #[test]
    fn candidates_from_a_reading_equal_those_from_the_text() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/text");
        let mut texts: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert!(texts.len() >= 2);
        texts.extend(
            [
                "Large-scale grid scheduling, as we show, works. \n\nThe 3.5 GHz \"node\" fails; it is slow!",
                "e.g. the x-ray -- and a b-tree... p1 and dr1, Δ and δ1? Yes.",
                "",
                "...",
                "Data data DATA data-driven data.",
            ]
            .map(String::from),
        );
        for text in &texts {
            for filter in [
                WordFilter::PartOfSpeech,
                WordFilter::StopWords,
                WordFilter::None,
            ] {
                for min in [0, 1, 2] {
                    let p = Pipeline {
                        filter,
                        min_count_exclusive: min,
                        ..Pipeline::default()
                    };
                    assert_eq!(
                        p.candidate_words_in(&p.reading(text)),
                        p.candidate_words(text),
                        "{filter:?} {min}"
                    );
                }
            }
        }
    }

    #[test]
    fn tagged_tokens_are_the_filters_words_with_marks_between() {
        let text = "Large-scale grid scheduling, as we show, works. \n\nThe 3.5 GHz \"node\" fails; it is slow!";
        for filter in [
            WordFilter::PartOfSpeech,
            WordFilter::StopWords,
            WordFilter::None,
        ] {
            let p = Pipeline {
                filter,
                ..Pipeline::default()
            };
            let tagged = p.tagged(text);
            let kept: Vec<String> = tagged
                .iter()
                .flatten()
                .filter(|t| t.kept)
                .map(|t| t.word.clone())
                .collect();
            assert_eq!(kept, p.filtered_words(text), "{filter:?}");
            let words: Vec<Vec<String>> = tagged
                .iter()
                .map(|s| {
                    s.iter()
                        .filter(|t| t.pos.as_deref() != Some("PUNCT"))
                        .map(|t| t.word.clone())
                        .collect()
                })
                .collect();
            assert_eq!(words, sentences(&text.to_lowercase()));
        }
        let t = Pipeline::default().tagged(text);
        assert_eq!(t[0][0].word, "large-scale");
        let marks: Vec<&str> = t
            .iter()
            .flatten()
            .filter(|t| t.pos.as_deref() == Some("PUNCT"))
            .map(|t| t.word.as_str())
            .collect();
        assert_eq!(marks, [",", ",", ".", "\"", "\"", ";", "!"]);
    }

    #[test]
    fn sentences_end_at_full_stops_and_blank_lines() {
        assert_eq!(
            sentences("A grid. It scales!\n\nNew part e.g. here 3.5 x"),
            vec![
                vec!["A", "grid"],
                vec!["It", "scales"],
                vec!["New", "part", "e.g"],
                vec!["here", "3.5", "x"]
            ]
        );
    }

    #[test]
    fn porter_stems_as_the_authors_candidates() {
        // Stems seen in the authors' SemEval-2010 candidate files.
        for (w, s) in [
            ("services", "servic"),
            ("discovery", "discoveri"),
            ("deploy", "deploi"),
            ("confidence", "confid"),
            ("confident", "confid"),
            ("scalable", "scalabl"),
        ] {
            assert_eq!(stem(w), s, "{w}");
        }
    }

    #[test]
    fn normalisation_keeps_intra_word_dashes_only() {
        assert_eq!(
            words("Peer-to-peer grids; QoS-based/UDDI = x - y."),
            vec!["peer-to-peer", "grids", "qos-based", "uddi", "x", "y"]
        );
        let p = Pipeline::default();
        // "the", "of", "in" and the year go; "are" is an auxiliary.
        assert_eq!(
            p.candidates("The services of the grid are scalable in 2024."),
            vec!["servic", "grid", "scalabl"]
        );
        // The function-word fallback keeps "are" (udpipe reads it as a verb
        // in some of the authors' output).
        let f = Pipeline {
            filter: WordFilter::StopWords,
            ..Default::default()
        };
        assert_eq!(
            f.candidates("The services of the grid are scalable in 2024."),
            vec!["servic", "grid", "ar", "scalabl"]
        );
    }
}
