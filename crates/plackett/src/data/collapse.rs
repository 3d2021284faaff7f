//! Weighted-row collapse: identical observations become one row whose
//! weight is their total weight.
//!
//! Every likelihood the project fits is a product over observations of a
//! factor that depends on the observation only, raised to its weight
//! ([`crate::data::dataset`]), so the collapse is exact and
//! parameter-free, and it commutes with splitting data into shards:
//! collapse each shard, join the shards, collapse again. 15,449 APA
//! ballots are 205 distinct rows.

use super::dataset::{Dataset, Tail};
use crate::error::{Error, Result};
use rustc_hash::{FxHashMap, FxHashSet};

/// What makes two rows identical: tail, members, group marks, ranker.
type RowKey<'a> = (Tail, &'a [u32], &'a [u8], Option<u32>);

impl Dataset {
    /// Observation `o`'s [`RowKey`].
    fn row_key(&self, o: usize) -> RowKey<'_> {
        let raw = self.raw();
        let (a, b) = (raw.offsets[o], raw.offsets[o + 1]);
        (
            raw.tails[o],
            &raw.members[a..b],
            &raw.marks[a..b],
            self.ranker(o),
        )
    }
}

impl Dataset {
    /// Identical observations (same groups in the same order, same tail,
    /// same tie reading) merged into one weighted row, in order of first
    /// appearance. Deterministic; the result has no pseudo-observations.
    pub fn collapse(&self) -> Dataset {
        Dataset::collapse_all(&[self]).expect("one dataset joins with itself")
    }

    /// The collapsed dataset when it saves at least a quarter of the rows
    /// (what the point engines iterate on), else `None`.
    pub fn collapse_if_worthwhile(&self) -> Option<Dataset> {
        if self.n_obs() < 8 || self.n_real_obs() != self.n_obs() {
            return None;
        }
        // Count the distinct rows before building anything: most data sets
        // of distinct rankings are not worth collapsing.
        let mut seen: FxHashSet<RowKey<'_>> =
            FxHashSet::with_capacity_and_hasher(self.n_obs(), Default::default());
        for o in 0..self.n_obs() {
            seen.insert(self.row_key(o));
        }
        if 4 * seen.len() > 3 * self.n_obs() {
            return None;
        }
        Some(self.collapse())
    }

    /// Identical observations without merging them: the observations that
    /// stand for the others (the first of each kind, in order) and, for
    /// every observation, the index of its representative in that list.
    /// Identical means the same groups in the same order, tail, ranker and
    /// weight (the weight too, so that a value computed per observation is
    /// bit for bit the one its representative gets).
    pub fn identical_rows(&self) -> (Vec<usize>, Vec<usize>) {
        let weights = self.raw().weights;
        let mut seen: FxHashMap<(RowKey<'_>, u64), usize> = FxHashMap::default();
        let mut reps = Vec::new();
        let rows = (0..self.n_real_obs())
            .map(|o| {
                let key = (self.row_key(o), weights[o].to_bits());
                *seen.entry(key).or_insert_with(|| {
                    reps.push(o);
                    reps.len() - 1
                })
            })
            .collect();
        (reps, rows)
    }

    /// The observations of several datasets over the same items and tie
    /// reading (shards of one dataset), collapsed into weighted rows; rows
    /// appear in order of first appearance over `parts` in order.
    pub fn collapse_all(parts: &[&Dataset]) -> Result<Dataset> {
        Dataset::collapse_indexed(parts).map(|(d, _)| d)
    }

    /// [`Dataset::collapse_if_worthwhile`] with, for every observation of
    /// `self`, the row of the collapsed dataset that holds it (a sampler
    /// works on the rows and reports per observation).
    pub fn collapse_with_rows(&self) -> Option<(Dataset, Vec<usize>)> {
        if self.n_obs() < 8 || self.n_real_obs() != self.n_obs() {
            return None;
        }
        let (c, rows) = Dataset::collapse_indexed(&[self]).expect("one dataset joins with itself");
        (4 * c.n_obs() <= 3 * self.n_obs()).then_some((c, rows))
    }

    /// The collapse and, for each input observation in order (over
    /// `parts`), the index of its row.
    fn collapse_indexed(parts: &[&Dataset]) -> Result<(Dataset, Vec<usize>)> {
        let first = parts
            .first()
            .ok_or_else(|| Error::Data("no datasets to join".into()))?;
        for p in &parts[1..] {
            if p.items().names() != first.items().names() || p.ties() != first.ties() {
                return Err(Error::Data(
                    "shards must share their items (in the same order) and tie reading".into(),
                ));
            }
            if p.ranker_names() != first.ranker_names() || p.has_rankers() != first.has_rankers() {
                return Err(Error::Data(
                    "shards must share their rankers (in the same order)".into(),
                ));
            }
        }
        let mut out = first.empty_like();
        // Rankers are part of the key: an adherence model gives each ranker
        // its own multiplier, so rows of different rankers stay apart.
        let mut seen: FxHashMap<RowKey<'_>, usize> = FxHashMap::default();
        let (mut max_group, mut dropped) = (0, 0);
        let mut rows = Vec::new();
        for &p in parts {
            let raw = p.raw();
            max_group = max_group.max(p.max_group());
            dropped += p.dropped();
            for o in 0..p.n_real_obs() {
                let key = p.row_key(o);
                match seen.get(&key) {
                    Some(&row) => {
                        out.add_weight(row, raw.weights[o]);
                        rows.push(row);
                    }
                    None => {
                        seen.insert(key, out.n_obs());
                        rows.push(out.n_obs());
                        out.copy_observation(p, o);
                    }
                }
            }
        }
        out.seal(max_group, dropped);
        Ok((out, rows))
    }
}

#[cfg(test)]
mod tests {
    use crate::data::{DatasetBuilder, Items, Tail, TieSemantics};
    use crate::model::pl::{Scope, log_likelihood};

    #[test]
    fn identical_rows_need_the_same_ranking_ranker_and_weight() {
        let mut b = DatasetBuilder::new(Items::numbered(3), TieSemantics::UnknownOrder);
        let rows: [(&str, &[&[u32]], f64); 6] = [
            ("a", &[&[0], &[1], &[2]], 1.0),
            ("a", &[&[0], &[1], &[2]], 1.0),
            ("b", &[&[0], &[1], &[2]], 1.0),
            ("a", &[&[0], &[1], &[2]], 2.0),
            ("a", &[&[0], &[1, 2]], 1.0),
            ("a", &[&[0], &[1], &[2]], 1.0),
        ];
        for (r, g, w) in rows {
            b.push_by(r, g, Tail::None, &[], w).unwrap();
        }
        let (reps, rows) = b.finish().identical_rows();
        assert_eq!(reps, [0, 2, 3, 4]);
        assert_eq!(rows, [0, 0, 1, 2, 3, 0]);
    }

    #[test]
    fn collapse_keeps_the_likelihood_and_merges_duplicates() {
        let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
        let rows: [&[&[u32]]; 5] = [
            &[&[0], &[1], &[2]],
            &[&[3], &[1, 2]],
            &[&[0], &[1], &[2]],
            &[&[2], &[0]],
            &[&[3], &[1, 2]],
        ];
        for (k, r) in rows.iter().enumerate() {
            b.push(r, Tail::None, &[], 1.0 + k as f64).unwrap();
        }
        let ds = b.finish();
        let c = ds.collapse();
        assert_eq!(c.n_obs(), 3);
        assert_eq!(c.total_weight(), ds.total_weight());
        let theta = [0.3, -0.2, 0.1, -0.2];
        let (l0, l1) = (
            log_likelihood(&ds, &theta, Scope::All),
            log_likelihood(&c, &theta, Scope::All),
        );
        assert!((l0 - l1).abs() < 1e-12 * l0.abs(), "{l0} vs {l1}");
        let halves = [ds.subset(|o| o < 2), ds.subset(|o| o >= 2)];
        let j = crate::data::Dataset::collapse_all(&[&halves[0], &halves[1]]).unwrap();
        assert_eq!(j.n_obs(), 3);
        assert_eq!(j.raw().weights, c.raw().weights);
    }
}
