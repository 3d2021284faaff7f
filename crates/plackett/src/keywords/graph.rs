//! The word co-occurrence graph of a document (Hu 2024, §1.2.1; Mihalcea
//! & Tarau 2004): nodes are the distinct candidate words, the weight of an
//! edge counts how often two candidates occur within a window of each
//! other in the filtered token sequence.

use crate::error::{Error, Result};
use nalgebra::DMatrix;
use std::collections::HashMap;

/// Largest number of distinct candidates a document may have. The VBSS
/// prior needs a dense n × n eigendecomposition (O(n³) time) and a fit
/// holds about six n × n matrices at its peak: `keywords extract` on 5,342
/// candidates took 59 s and 1.4 GB on 2 cores (4,405: 43 s, 0.97 GB), so
/// the limit costs about 7 GB and a quarter of an hour, where the earlier
/// 20,000 would have needed about 19 GB — more memory than most machines
/// have, and an out-of-memory kill is no message.
pub const MAX_CANDIDATES: usize = 12_000;

/// A document as a weighted, undirected word graph.
#[derive(Debug, Clone)]
pub struct WordGraph {
    /// Candidate words, in order of first occurrence.
    pub words: Vec<String>,
    /// Symmetric non-negative adjacency `A` (co-occurrence counts).
    pub adjacency: DMatrix<f64>,
    /// Term frequency of each candidate in the sequence.
    pub frequency: Vec<f64>,
    /// 1-based positions of each candidate's occurrences in the sequence
    /// (PositionRank's teleport vector; empty for graphs given as edges).
    pub positions: Vec<Vec<usize>>,
}

impl WordGraph {
    /// Count co-occurrences in `tokens`: a pair counts once for every two
    /// occurrences 1..=`window` positions apart, as quanteda's
    /// `fcm(context = "window", window = 2)` that the authors used (Hu
    /// 2024, §1.2.1: "a two-word window"). A word co-occurring with itself
    /// is dropped unless `self_loops`, which keeps it on the diagonal (the
    /// authors' code does not zero the diagonal).
    pub fn from_tokens<S: AsRef<str>>(
        tokens: &[S],
        window: usize,
        self_loops: bool,
    ) -> Result<WordGraph> {
        if window == 0 {
            return Err(Error::param("window", "must be at least 1"));
        }
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut words = Vec::new();
        let mut seq = Vec::with_capacity(tokens.len());
        for t in tokens {
            let t = t.as_ref();
            let next = index.len();
            let id = *index.entry(t).or_insert_with(|| {
                words.push(t.to_string());
                next
            });
            seq.push(id);
        }
        let n = words.len();
        if n > MAX_CANDIDATES {
            return Err(Error::Data(format!(
                "{n} distinct candidate words; at most {MAX_CANDIDATES} are supported (the prior is a dense n × n matrix: about 7 GB of memory at the limit); filter rare words first (--min-count, Python min_count)"
            )));
        }
        dense_memory(n)?;
        let mut adjacency = DMatrix::zeros(n, n);
        let mut frequency = vec![0.0; n];
        let mut positions = vec![Vec::new(); n];
        for (p, &i) in seq.iter().enumerate() {
            frequency[i] += 1.0;
            positions[i].push(p + 1);
            for &j in seq.iter().skip(p + 1).take(window) {
                if i == j {
                    if self_loops {
                        adjacency[(i, i)] += 1.0;
                    }
                } else {
                    adjacency[(i, j)] += 1.0;
                    adjacency[(j, i)] += 1.0;
                }
            }
        }
        Ok(WordGraph {
            words,
            adjacency,
            frequency,
            positions,
        })
    }

    /// A graph given as weighted edges between named words (a user's own
    /// graph: any symmetric non-negative weights). Repeated edges add up.
    pub fn from_edges(words: Vec<String>, edges: &[(usize, usize, f64)]) -> Result<WordGraph> {
        let n = words.len();
        if n > MAX_CANDIDATES {
            return Err(Error::Data(format!(
                "{n} words; at most {MAX_CANDIDATES} are supported (the prior is a dense n × n matrix: about 7 GB of memory at the limit)"
            )));
        }
        dense_memory(n)?;
        let mut adjacency = DMatrix::zeros(n, n);
        for &(i, j, w) in edges {
            if i >= n || j >= n {
                return Err(Error::Data(format!("edge ({i}, {j}) names no word")));
            }
            if !(w.is_finite() && w >= 0.0) {
                return Err(Error::Data(format!(
                    "edge weight {w} between {:?} and {:?} is not a finite non-negative number",
                    words[i], words[j]
                )));
            }
            adjacency[(i, j)] += w;
            if i != j {
                adjacency[(j, i)] += w;
            }
        }
        Ok(WordGraph {
            frequency: vec![1.0; n],
            positions: vec![Vec::new(); n],
            words,
            adjacency,
        })
    }

    /// Number of candidates `n`.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the graph has no candidates.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Weighted degrees `D_ii = Σ_j A_ij`.
    pub fn degrees(&self) -> Vec<f64> {
        (0..self.len())
            .map(|i| self.adjacency.column(i).sum())
            .collect()
    }

    /// Candidates without any co-occurrence partner (degree 0).
    pub fn isolated(&self) -> Vec<usize> {
        self.degrees()
            .iter()
            .enumerate()
            .filter(|(_, d)| **d == 0.0)
            .map(|(i, _)| i)
            .collect()
    }

    /// `Q = D^{-1/2} A D^{-1/2}` (Zhou et al. 2004's normalisation, used by
    /// SS and VBSS). An isolated word gets a zero row and column: it has no
    /// neighbours to smooth with, so its prior mean is its own label.
    pub fn normalised(&self) -> DMatrix<f64> {
        let s: Vec<f64> = self
            .degrees()
            .iter()
            .map(|&d| if d > 0.0 { 1.0 / d.sqrt() } else { 0.0 })
            .collect();
        DMatrix::from_fn(self.len(), self.len(), |i, j| {
            s[i] * self.adjacency[(i, j)] * s[j]
        })
    }

    /// Index of a word, if it is a candidate.
    pub fn index_of(&self, word: &str) -> Option<usize> {
        self.words.iter().position(|w| w == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_two_counts_pairs_one_or_two_apart() {
        // a b c a: pairs (a,b) d1, (a,c) d2, (b,c) d1, (b,a) d2, (c,a) d1.
        let g = WordGraph::from_tokens(&["a", "b", "c", "a"], 2, false).unwrap();
        assert_eq!(g.words, vec!["a", "b", "c"]);
        assert_eq!(g.adjacency[(0, 1)], 2.0);
        assert_eq!(g.adjacency[(0, 2)], 2.0);
        assert_eq!(g.adjacency[(1, 2)], 1.0);
        assert_eq!(g.adjacency[(0, 0)], 0.0);
        assert_eq!(g.frequency, vec![2.0, 1.0, 1.0]);
        assert_eq!(g.positions[0], vec![1, 4]);
        let adjacent = WordGraph::from_tokens(&["a", "b", "c", "a"], 1, false).unwrap();
        assert_eq!(adjacent.adjacency[(0, 2)], 1.0);
        let loops = WordGraph::from_tokens(&["a", "a", "b"], 2, true).unwrap();
        assert_eq!(loops.adjacency[(0, 0)], 1.0);
    }

    #[test]
    fn more_candidates_than_the_limit_are_refused_before_any_matrix() {
        // Refused before the n × n adjacency is allocated, so this costs
        // the token list only.
        let words: Vec<String> = (0..=MAX_CANDIDATES).map(|i| format!("w{i}")).collect();
        let e = WordGraph::from_tokens(&words, 2, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("12001 distinct candidate words; at most 12000"),
            "{e}"
        );
        assert!(e.contains("--min-count"), "{e}");
        let e = WordGraph::from_edges(words, &[]).unwrap_err().to_string();
        assert!(e.contains("12001 words; at most 12000"), "{e}");
        let fits: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
        assert!(WordGraph::from_tokens(&fits, 2, false).is_ok());
    }

    #[test]
    fn isolated_words_get_a_zero_row_in_q() {
        let g = WordGraph::from_tokens(&["a"], 2, false).unwrap();
        assert_eq!(g.isolated(), vec![0]);
        assert_eq!(g.normalised()[(0, 0)], 0.0);
    }
}

/// The dense `n × n` matrices of a graph of `n` words and its prior (the
/// adjacency, its normalised form, the eigendecomposition and its
/// workspace: about five of them), asked for before any is built, so that a
/// long document is an error naming the remedy, not an abort.
fn dense_memory(n: usize) -> Result<()> {
    crate::numerics::memory::ensure(
        40 * (n as u128) * (n as u128),
        "min_count",
        &format!("the dense word graph and prior of {n} candidate words"),
        "keep fewer candidate words (--min-count, Python min_count; or a stricter word filter)",
    )
}
