//! Document → candidate-word sequence (Hu 2024, §1.2.1).

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

/// Front-end settings.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Drop closed-class words.
    pub stop_words: bool,
    /// Keep only stems occurring more than this many times (the authors
    /// used 2 for full papers and 0 for abstracts).
    pub min_count_exclusive: usize,
    /// Drop tokens without a letter (numbers, stray symbols).
    pub letters_only: bool,
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline {
            stop_words: true,
            min_count_exclusive: 0,
            letters_only: true,
        }
    }
}

/// Lower-case and split into words: tabs, line breaks, `;`, `/`, `=` and
/// punctuation separate words; a dash between two letters or digits stays
/// inside its word (Hu 2024, §1.2.1, as the authors' code).
pub fn words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    // Unicode word boundaries split `a-b` into `a`, `-`, `b`; a dash that
    // touches a word on both sides is joined back.
    let mut joined: Vec<String> = Vec::new();
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
            && let Some(last) = joined.last_mut()
        {
            last.push('-');
            last.push_str(raw[i + 1]);
            i += 2;
            continue;
        }
        if w.chars().any(char::is_alphanumeric) {
            joined.push(w.to_string());
        } else {
            // A separator: mark it so that a following dash does not join.
            joined.push(String::new());
        }
        i += 1;
    }
    joined.retain(|w| !w.is_empty());
    joined
}

impl Pipeline {
    /// The candidate stems of `text`, in text order.
    pub fn candidates(&self, text: &str) -> Vec<String> {
        let mut toks: Vec<String> = words(text)
            .into_iter()
            .filter(|w| !self.letters_only || w.chars().any(char::is_alphabetic))
            .filter(|w| !(self.stop_words && is_filtered(w)))
            .map(|w| stem(&w))
            .filter(|s| !s.is_empty())
            .collect();
        if self.min_count_exclusive > 0 {
            let mut count: HashMap<&str, usize> = HashMap::new();
            for t in &toks {
                *count.entry(t.as_str()).or_default() += 1;
            }
            let keep: Vec<bool> = toks
                .iter()
                .map(|t| count[t.as_str()] > self.min_count_exclusive)
                .collect();
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
        // "are" stays a candidate, as in the authors' udpipe output (their
        // tagger reads it as a verb); "the", "of", "in" and the year go.
        assert_eq!(
            p.candidates("The services of the grid are scalable in 2024."),
            vec!["servic", "grid", "ar", "scalabl"]
        );
    }
}
