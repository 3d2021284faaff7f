//! Part-of-speech filter: a transformation-based (Brill 1995) tagger with
//! Universal POS tags, so that candidates can be restricted to nouns, verbs
//! and adjectives as the authors' udpipe step does (Hu 2024, §1.2.1).
//!
//! The trained model — a lexicon of each word's most frequent tag and an
//! ordered list of contextual patches — is the one the `harper-brill` crate
//! (version 3.0.0, Apache-2.0, part of Automattic's Harper) ships, vendored
//! in `model/brill_tagger.json` with its licence in `model/LICENSE-APACHE`.
//! Only the model is taken: the crate itself depends on a neural-network
//! stack for its chunker that keyword extraction does not need. The applier
//! below is ours; it evaluates the patches with the semantics the model was
//! trained under (documented at each criterion), since a patch list is only
//! meaningful with the evaluator that learned it.
//!
//! Works offline: the model is compiled into the binary.

use crate::stopwords::is_filtered;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Universal POS tags (Petrov et al. 2012; Universal Dependencies v2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[allow(clippy::upper_case_acronyms)]
pub enum Upos {
    ADJ,
    ADP,
    ADV,
    AUX,
    CCONJ,
    DET,
    INTJ,
    NOUN,
    NUM,
    PART,
    PRON,
    PROPN,
    PUNCT,
    SCONJ,
    SYM,
    VERB,
    X,
}

/// A condition on a position's context.
#[derive(Debug, Clone, Deserialize)]
enum Criterion {
    /// The token at `relative` has tag `is_tagged`.
    WordIsTaggedWith { relative: isize, is_tagged: Upos },
    /// Some token in the half-open span between the position and
    /// `max_relative` has the tag: `[i, i + r)` for `r > 0` (the position
    /// itself included), `[i + r, i)` for `r < 0` — the trained semantics.
    AnyWordIsTaggedWith {
        max_relative: isize,
        is_tagged: Upos,
    },
    /// The tokens on either side have these tags.
    SandwichTaggedWith {
        prev_word_tagged: Upos,
        post_word_tagged: Upos,
    },
    /// The token at `relative` agrees with `word`, compared
    /// case-insensitively over the shorter of the two (the trained
    /// semantics: a prefix match).
    WordIs { relative: isize, word: String },
    /// A chunker criterion; never holds for the tagger.
    NounPhraseAt {
        #[allow(dead_code)]
        is_np: bool,
        #[allow(dead_code)]
        relative: isize,
    },
    /// Both hold.
    Combined {
        a: Box<Criterion>,
        b: Box<Criterion>,
    },
}

/// `w` in lower case, borrowed when it already is (the front-end passes
/// lower-cased text).
fn lower(w: &str) -> std::borrow::Cow<'_, str> {
    if w.chars().any(char::is_uppercase) {
        std::borrow::Cow::Owned(w.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(w)
    }
}

fn offset(i: usize, r: isize) -> Option<usize> {
    i.checked_add_signed(r)
}

impl Criterion {
    fn holds(&self, words: &[String], tags: &[Option<Upos>], i: usize) -> bool {
        let tag_at = |k: usize| tags.get(k).copied().flatten();
        match self {
            Criterion::WordIsTaggedWith {
                relative,
                is_tagged,
            } => offset(i, *relative).and_then(tag_at) == Some(*is_tagged),
            Criterion::AnyWordIsTaggedWith {
                max_relative,
                is_tagged,
            } => offset(i, *max_relative)
                .is_some_and(|far| (far.min(i)..far.max(i)).any(|k| tag_at(k) == Some(*is_tagged))),
            Criterion::SandwichTaggedWith {
                prev_word_tagged,
                post_word_tagged,
            } => {
                i > 0
                    && tag_at(i - 1) == Some(*prev_word_tagged)
                    && tag_at(i + 1) == Some(*post_word_tagged)
            }
            Criterion::WordIs { relative, word } => offset(i, *relative)
                .and_then(|k| words.get(k))
                .is_some_and(|w| {
                    w.chars()
                        .zip(word.chars())
                        .all(|(a, b)| a.eq_ignore_ascii_case(&b))
                }),
            Criterion::NounPhraseAt { .. } => false,
            Criterion::Combined { a, b } => a.holds(words, tags, i) && b.holds(words, tags, i),
        }
    }
}

/// Retag `from` → `to` where the criterion holds.
#[derive(Debug, Clone, Deserialize)]
struct Patch {
    from: Upos,
    to: Upos,
    criteria: Criterion,
}

#[derive(Debug, Deserialize)]
struct Lexicon {
    mapping: HashMap<String, Upos>,
}

/// A Brill tagger: lexicon tags, then the patches in order.
#[derive(Debug, Deserialize)]
pub struct BrillTagger {
    base: Lexicon,
    patches: Vec<Patch>,
}

const MODEL: &str = include_str!("../model/brill_tagger.json");

impl BrillTagger {
    /// The vendored English model (parsed once per process).
    pub fn english() -> &'static BrillTagger {
        static T: OnceLock<BrillTagger> = OnceLock::new();
        T.get_or_init(|| serde_json::from_str(MODEL).expect("the vendored tagger model parses"))
    }

    /// Tags of a sentence's words; `None` for a word outside the lexicon
    /// that no patch could reach.
    pub fn tag(&self, words: &[String]) -> Vec<Option<Upos>> {
        let mut tags: Vec<Option<Upos>> = words
            .iter()
            .map(|w| self.base.mapping.get(lower(w).as_ref()).copied())
            .collect();
        // Each patch sweeps the sentence left to right and sees the tags it
        // has already changed, as in training.
        for p in &self.patches {
            for i in 0..words.len() {
                if tags[i] == Some(p.from) && p.criteria.holds(words, &tags, i) {
                    tags[i] = Some(p.to);
                }
            }
        }
        tags
    }

    /// Whether each word is kept as a candidate: tagged NOUN, VERB or ADJ
    /// (the authors' filter) or PROPN, or unknown to the lexicon, alphabetic
    /// and not a function word (open-class words the lexicon lacks are
    /// overwhelmingly nouns: technical terms).
    ///
    /// PROPN stays because the lexicon gives a word's most frequent tag in
    /// general English, and many of its PROPN entries are common nouns in
    /// technical text; measured against the authors' udpipe candidates on
    /// SemEval-2010, keeping PROPN raises the mean candidate-set Jaccard
    /// from 0.827 to 0.842, and dropping function words among the unknown
    /// words to 0.848 (docs/keywords.md).
    pub fn keep(&self, words: &[String]) -> Vec<bool> {
        Self::keep_tagged(words, &self.tag(words))
    }

    /// [`BrillTagger::keep`] for words already tagged by [`BrillTagger::tag`].
    pub fn keep_tagged(words: &[String], tags: &[Option<Upos>]) -> Vec<bool> {
        tags.iter()
            .copied()
            .zip(words)
            .map(|(t, w)| match t {
                Some(t) => matches!(t, Upos::NOUN | Upos::PROPN | Upos::VERB | Upos::ADJ),
                None => w.chars().any(char::is_alphabetic) && !is_filtered(&lower(w)),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_model_loads_and_tags_a_plain_sentence() {
        let t = BrillTagger::english();
        let w = s("the system ranks the documents quickly and returns a short list");
        // The tags harper-brill 3.0.0 itself gives (its lexicon reads
        // "ranks" as a noun); the applier agrees with that crate on all
        // 464,860 tokens of 60 SemEval-2010 papers (docs/keywords.md).
        use Upos::*;
        assert_eq!(
            t.tag(&w),
            [DET, NOUN, NOUN, DET, NOUN, ADV, CCONJ, VERB, DET, ADJ, NOUN].map(Some)
        );
        let keep = t.keep(&w);
        assert_eq!(
            keep,
            vec![
                false, true, true, false, true, false, false, true, false, true, true
            ]
        );
    }

    #[test]
    fn unknown_words_are_kept_as_nouns() {
        let t = BrillTagger::english();
        let w = s("the qwertyfication of zxcvb");
        assert_eq!(t.tag(&w)[1], None);
        assert_eq!(t.keep(&w), vec![false, true, false, true]);
        // Unknown function words are not (the lexicon lacks "amongst").
        let w = s("cannot qwertyfication");
        assert_eq!(t.tag(&w)[0], None);
        assert_eq!(t.keep(&w), vec![false, true]);
    }

    #[test]
    fn criteria_follow_the_trained_semantics() {
        let w = s("to go to town");
        let tags = vec![Some(Upos::PART), Some(Upos::VERB), Some(Upos::ADP), None];
        // The span [i, i + 2) includes the position itself.
        let any = Criterion::AnyWordIsTaggedWith {
            max_relative: 2,
            is_tagged: Upos::VERB,
        };
        assert!(any.holds(&w, &tags, 0));
        assert!(any.holds(&w, &tags, 1));
        assert!(!any.holds(&w, &tags, 2));
        // [i − 2, i) excludes it.
        let back = Criterion::AnyWordIsTaggedWith {
            max_relative: -2,
            is_tagged: Upos::ADP,
        };
        assert!(!back.holds(&w, &tags, 2));
        assert!(back.holds(&w, &tags, 3));
        // Off either end: never.
        let before = Criterion::WordIsTaggedWith {
            relative: -1,
            is_tagged: Upos::PART,
        };
        assert!(!before.holds(&w, &tags, 0));
        assert!(before.holds(&w, &tags, 1));
        let word = Criterion::WordIs {
            relative: 1,
            word: "GO".into(),
        };
        assert!(word.holds(&w, &tags, 0));
        assert!(!word.holds(&w, &tags, 3));
    }
}
