//! Selecting keywords from posterior probabilities: Bayesian FDR control
//! (Newton et al. 2004; Hu 2024, §1.3.4) and fixed-size top-k cuts.

/// The authors' convention before selection (Hu 2024's and Wang et al.
/// 2023's code): every known keyword's probability set to 1, the others
/// kept.
pub fn forced(p: &[f64], known: &[bool]) -> Vec<f64> {
    p.iter()
        .zip(known)
        .map(|(&v, &k)| if k { 1.0 } else { v })
        .collect()
}

/// Indices of the words kept by Bayesian FDR control at level `gamma`.
///
/// `FDR̂(h) = Σ_i (1 − p_i) 1(p_i ≥ h) / Σ_i 1(p_i ≥ h)` is evaluated at
/// every distinct `p_i`; the selected set is `{i : p_i ≥ h*}` for the
/// smallest admissible threshold `h*` (`FDR̂(h*) ≤ γ`), i.e. the largest
/// set whose estimated FDR stays within `γ`. The dissertation's text says
/// both "the largest h" and "the smallest p̂_k"; only this reading agrees
/// with its Table 1.2, where VBSS selects 150–388 words over 30 documents
/// (the "largest h" would keep the top word alone). Because the running
/// mean of the sorted `1 − p` never decreases, this is also the largest
/// admissible prefix of the ranking. Ties enter or leave together. An
/// empty set when even the top word's `1 − p` exceeds `γ`.
pub fn bayesian_fdr_select(p: &[f64], gamma: f64) -> Vec<usize> {
    let order = top_by_score(p, p.len());
    let mut best = 0;
    let mut sum = 0.0;
    let mut k = 0;
    while k < order.len() {
        // The whole group of ties at this value.
        let v = p[order[k]];
        let mut e = k;
        while e < order.len() && p[order[e]] == v {
            sum += 1.0 - p[order[e]];
            e += 1;
        }
        if sum / e as f64 <= gamma + 1e-15 {
            best = e;
        }
        k = e;
    }
    let mut out = order[..best].to_vec();
    out.sort_unstable();
    out
}

/// Indices of the words kept when the known words are labelled: every
/// known word, and the unlabelled words [`bayesian_fdr_select`] keeps at
/// level `gamma` among the unlabelled ones alone — so the estimated FDR
/// `Σ (1 − p_i) / |S|` is over the selected *unlabelled* words `S`, the
/// only ones whose selection is a claim. Averaging over the known words
/// too (their `p = 1` adds nothing to the sum but one to the count, as
/// [`forced`] does for the published protocol) lets near-certain false
/// picks in on a short text with several known words.
pub fn fdr_select_unlabelled(p: &[f64], known: &[bool], gamma: f64) -> Vec<usize> {
    let free: Vec<usize> = (0..p.len()).filter(|&i| !known[i]).collect();
    let q: Vec<f64> = free.iter().map(|&i| p[i]).collect();
    let mut out: Vec<usize> = (0..p.len()).filter(|&i| known[i]).collect();
    out.extend(bayesian_fdr_select(&q, gamma).into_iter().map(|j| free[j]));
    out.sort_unstable();
    out
}

/// The `k` highest-scoring indices, best first; ties broken by the lower
/// index (the earlier first occurrence in the document), NaN last.
pub fn top_by_score(score: &[f64], k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..score.len()).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (score[a], score[b]);
        match (x.is_nan(), y.is_nan()) {
            (true, true) => a.cmp(&b),
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => y.total_cmp(&x).then(a.cmp(&b)),
        }
    });
    idx.truncate(k.min(score.len()));
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fdr_keeps_the_largest_admissible_prefix() {
        let p = [0.99, 0.2, 0.9, 0.8, 0.5];
        // Sorted 0.99, 0.9, 0.8, 0.5, 0.2: running FDR 0.01, 0.055, 0.1033,
        // 0.2025, 0.32.
        assert_eq!(bayesian_fdr_select(&p, 0.05), vec![0]);
        assert_eq!(bayesian_fdr_select(&p, 0.06), vec![0, 2]);
        assert_eq!(bayesian_fdr_select(&p, 0.2), vec![0, 2, 3]);
        assert_eq!(bayesian_fdr_select(&p, 0.21), vec![0, 2, 3, 4]);
        assert_eq!(bayesian_fdr_select(&p, 0.005), Vec::<usize>::new());
        // Ties enter together or not at all: 0.9 then both 0.6 -> 0.1, 0.3
        // (the first 0.6 alone would give 0.25).
        let t = [0.6, 0.9, 0.6];
        assert_eq!(bayesian_fdr_select(&t, 0.25), vec![1]);
        assert_eq!(bayesian_fdr_select(&t, 0.3), vec![0, 1, 2]);
    }

    #[test]
    fn known_words_do_not_dilute_the_unlabelled_fdr() {
        // Two known words (p = 1) and an unlabelled one at 0.05: averaged
        // with the known words its 0.95 becomes 0.317, under 0.4; alone it
        // is 0.95, over any sensible level.
        let p = [1.0, 1.0, 0.05, 0.9];
        let known = [true, true, false, false];
        assert_eq!(bayesian_fdr_select(&p, 0.4), vec![0, 1, 2, 3]);
        assert_eq!(fdr_select_unlabelled(&p, &known, 0.4), vec![0, 1, 3]);
        assert_eq!(fdr_select_unlabelled(&p, &known, 0.05), vec![0, 1]);
        assert_eq!(fdr_select_unlabelled(&p, &known, 0.6), vec![0, 1, 2, 3]);
    }

    #[test]
    fn top_breaks_ties_by_position() {
        assert_eq!(
            top_by_score(&[1.0, 3.0, 3.0, f64::NAN, 2.0], 4),
            vec![1, 2, 4, 0]
        );
    }
}
