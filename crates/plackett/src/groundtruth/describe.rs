//! Dataset statistics of a selectors file (annotators per case, ranking
//! lengths, ties and block sizes: what Stutz et al. 2023's Appendix D
//! describes but does not count), printed by `plackett aggregate --describe`.

use crate::io::selectors::Selectors;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Counts of the released-data statistics.
#[derive(Debug, Clone, Default)]
pub struct Describe {
    /// Number of cases.
    pub cases: usize,
    /// Number of (non-empty) annotations.
    pub annotations: usize,
    /// Cases per number of annotators.
    pub annotators_per_case: BTreeMap<usize, usize>,
    /// Annotations per number of ranked conditions.
    pub ranked_per_annotation: BTreeMap<usize, usize>,
    /// Annotations per number of ranked blocks.
    pub blocks_per_annotation: BTreeMap<usize, usize>,
    /// Blocks per block size.
    pub block_sizes: BTreeMap<usize, usize>,
    /// Annotations with at least one tie.
    pub with_ties: usize,
    /// Unique conditions per case: mean, median, max.
    pub unique_per_case: (f64, f64, usize),
    /// Annotators per case: mean, median.
    pub annotators_mean_median: (f64, f64),
    /// Empty annotations dropped while reading.
    pub empty_dropped: usize,
}

fn median(mut v: Vec<usize>) -> f64 {
    v.sort_unstable();
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    }
}

/// Compute the statistics.
pub fn describe(sel: &Selectors) -> Describe {
    let mut d = Describe {
        cases: sel.cases.len(),
        empty_dropped: sel.empty_dropped,
        ..Default::default()
    };
    let mut uniq = Vec::new();
    let mut ann_counts = Vec::new();
    for case in &sel.cases {
        *d.annotators_per_case.entry(case.len()).or_default() += 1;
        ann_counts.push(case.len());
        let mut u: Vec<u32> = case.iter().flatten().flatten().copied().collect();
        u.sort_unstable();
        u.dedup();
        uniq.push(u.len());
        for ann in case {
            d.annotations += 1;
            let ranked: usize = ann.iter().map(|b| b.len()).sum();
            *d.ranked_per_annotation.entry(ranked).or_default() += 1;
            *d.blocks_per_annotation.entry(ann.len()).or_default() += 1;
            for b in ann {
                *d.block_sizes.entry(b.len()).or_default() += 1;
            }
            if ann.iter().any(|b| b.len() > 1) {
                d.with_ties += 1;
            }
        }
    }
    let n = d.cases.max(1) as f64;
    d.unique_per_case = (
        uniq.iter().sum::<usize>() as f64 / n,
        median(uniq.clone()),
        uniq.iter().copied().max().unwrap_or(0),
    );
    d.annotators_mean_median = (
        ann_counts.iter().sum::<usize>() as f64 / n,
        median(ann_counts),
    );
    d
}

impl Describe {
    /// Human-readable report.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let hist = |m: &BTreeMap<usize, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(s, "cases: {}", self.cases);
        let _ = writeln!(s, "annotations: {}", self.annotations);
        let _ = writeln!(
            s,
            "annotators per case: mean {:.2}, median {}, min {}, max {}",
            self.annotators_mean_median.0,
            self.annotators_mean_median.1,
            self.annotators_per_case.keys().next().unwrap_or(&0),
            self.annotators_per_case.keys().last().unwrap_or(&0)
        );
        let _ = writeln!(
            s,
            "  histogram (annotators: cases): {}",
            hist(&self.annotators_per_case)
        );
        let below3: usize = self
            .annotators_per_case
            .iter()
            .filter(|(k, _)| **k < 3)
            .map(|(_, v)| v)
            .sum();
        let _ = writeln!(s, "  cases with fewer than 3 annotators: {below3}");
        let _ = writeln!(
            s,
            "ranked conditions per annotation (conditions: annotations): {}",
            hist(&self.ranked_per_annotation)
        );
        let _ = writeln!(
            s,
            "ranked blocks per annotation (blocks: annotations): {}",
            hist(&self.blocks_per_annotation)
        );
        let _ = writeln!(s, "block sizes (size: blocks): {}", hist(&self.block_sizes));
        let _ = writeln!(
            s,
            "annotations with at least one tie: {} ({:.1}%)",
            self.with_ties,
            100.0 * self.with_ties as f64 / self.annotations.max(1) as f64
        );
        let _ = writeln!(
            s,
            "unique conditions per case: mean {:.2}, median {}, max {}",
            self.unique_per_case.0, self.unique_per_case.1, self.unique_per_case.2
        );
        if self.empty_dropped > 0 {
            let _ = writeln!(s, "empty annotations dropped: {}", self.empty_dropped);
        }
        s
    }
}
