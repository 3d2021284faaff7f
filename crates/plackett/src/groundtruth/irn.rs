//! Inverse rank normalisation (IRN; Stutz et al. 2023, §2.3.1, Eqs 3–5) and
//! the leave-one-annotator-out agreement of their Appendix E.

use crate::io::selectors::Annotation;

/// How a tied block shares its rank's weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TieSplit {
    /// Paper Eq. 3: block `i` (1-based) has total weight `1/i`, shared
    /// equally among its classes.
    Split,
    /// Reference code: every class in block `i` gets `1/i`.
    NoSplit,
}

/// Unnormalised IRN̄ summed over the annotations (Eq. 4), as sorted
/// `(class, score)` pairs; annotation `skip` is left out if given.
pub fn irn_unnormalised(
    anns: &[Annotation],
    split: TieSplit,
    skip: Option<usize>,
) -> Vec<(u32, f64)> {
    let mut acc: Vec<(u32, f64)> = Vec::new();
    for (r, ann) in anns.iter().enumerate() {
        if Some(r) == skip {
            continue;
        }
        for (i, block) in ann.iter().enumerate() {
            let w = 1.0 / (i + 1) as f64;
            let w = match split {
                TieSplit::Split => w / block.len() as f64,
                TieSplit::NoSplit => w,
            };
            for &c in block {
                match acc.iter_mut().find(|x| x.0 == c) {
                    Some(x) => x.1 += w,
                    None => acc.push((c, w)),
                }
            }
        }
    }
    acc.sort_by_key(|x| x.0);
    acc
}

/// Normalised IRN (Eq. 5): sum over annotators first, normalise once.
pub fn irn(anns: &[Annotation], split: TieSplit) -> Vec<(u32, f64)> {
    let mut v = irn_unnormalised(anns, split, None);
    let total: f64 = v.iter().map(|x| x.1).sum();
    if total > 0.0 {
        v.iter_mut().for_each(|x| x.1 /= total);
    }
    v
}

/// Classes with the largest IRN score (all of them if tied).
pub fn irn_argmax(scores: &[(u32, f64)]) -> Vec<u32> {
    let m = scores.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
    scores.iter().filter(|x| x.1 == m).map(|x| x.0).collect()
}

/// Leave-one-annotator-out agreement (§5.9): the fraction of annotators
/// whose ranked classes contain the top-1 IRN label of the others (a hit if
/// any tied top-1 label is covered). `None` for a single annotator.
pub fn agreement(anns: &[Annotation], split: TieSplit) -> Option<f64> {
    let r = anns.len();
    if r < 2 {
        return None;
    }
    let mut hits = 0usize;
    for k in 0..r {
        let others = irn_unnormalised(anns, split, Some(k));
        let top = irn_argmax(&others);
        if top.iter().any(|c| anns[k].iter().any(|b| b.contains(c))) {
            hits += 1;
        }
    }
    Some(hits as f64 / r as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The case of Stutz et al. 2023's Fig. 3 with ids
    /// 171 Hemangioma, 245 Melanoma, 348 Pyogenic granuloma,
    /// 29 Angiokeratoma, 40 Atypical Nevus, 244 Melanocytic Nevus,
    /// 276 O/E ecchymoses, 371 Skin Tag.
    pub fn fig3() -> Vec<Annotation> {
        vec![
            vec![vec![348], vec![171], vec![245]],
            vec![vec![29], vec![40]],
            vec![vec![171], vec![244, 245, 276]],
            vec![vec![171, 245, 371]],
            vec![vec![245]],
            vec![vec![171], vec![245], vec![244]],
        ]
    }

    fn get(v: &[(u32, f64)], c: u32) -> f64 {
        v.iter().find(|x| x.0 == c).unwrap().1
    }

    #[test]
    fn fig3_table_both_readings() {
        let a = fig3();
        let u = irn_unnormalised(&a, TieSplit::Split, None);
        for (c, want) in [
            (171, 17.0 / 6.0),
            (245, 7.0 / 3.0),
            (348, 1.0),
            (29, 1.0),
            (40, 0.5),
            (244, 0.5),
            (371, 1.0 / 3.0),
            (276, 1.0 / 6.0),
        ] {
            assert!((get(&u, c) - want).abs() < 1e-12, "{c}");
        }
        let n = irn(&a, TieSplit::Split);
        assert!((get(&n, 171) - 17.0 / 52.0).abs() < 1e-12);
        assert!((get(&n, 245) - 14.0 / 52.0).abs() < 1e-12);
        let u = irn_unnormalised(&a, TieSplit::NoSplit, None);
        for (c, want) in [
            (171, 3.5),
            (245, 10.0 / 3.0),
            (244, 5.0 / 6.0),
            (371, 1.0),
            (276, 0.5),
        ] {
            assert!((get(&u, c) - want).abs() < 1e-12, "{c}");
        }
        let n = irn(&a, TieSplit::NoSplit);
        assert!((get(&n, 171) - 0.3).abs() < 1e-12);
        assert!((get(&n, 245) - 0.3 * 20.0 / 21.0).abs() < 1e-12); // 10/3 ÷ 35/3
        // Majority label Hemangioma under both readings.
        assert_eq!(irn_argmax(&irn(&a, TieSplit::Split)), vec![171]);
        assert_eq!(irn_argmax(&irn(&a, TieSplit::NoSplit)), vec![171]);
    }

    #[test]
    fn normalising_per_annotator_first_would_flip_to_melanoma() {
        // The wrong order (normalise each annotator, then average) gives
        // Hemangioma 0.303 and Melanoma 0.3165; Eq. 4–5 must not.
        let a = fig3();
        let mut avg: Vec<(u32, f64)> = Vec::new();
        for ann in &a {
            for (c, v) in irn(std::slice::from_ref(ann), TieSplit::Split) {
                match avg.iter_mut().find(|x| x.0 == c) {
                    Some(x) => x.1 += v / a.len() as f64,
                    None => avg.push((c, v / a.len() as f64)),
                }
            }
        }
        assert!((get(&avg, 171) - 0.303).abs() < 1e-3 && (get(&avg, 245) - 0.3165).abs() < 1e-3);
        assert_eq!(irn_argmax(&avg), vec![245]);
        assert_eq!(irn_argmax(&irn(&a, TieSplit::Split)), vec![171]);
    }

    #[test]
    fn agreement_hand_case() {
        // Others' top-1 for each annotator of Fig. 3 (split IRN).
        let a = fig3();
        let g = agreement(&a, TieSplit::Split).unwrap();
        // A0 (Pyogenic, Hemangioma, Melanoma) covers the others' top (Hemangioma): hit.
        // A1 (Angiokeratoma, Atypical Nevus): miss. A2 has Hemangioma: hit.
        // A3 has Hemangioma and Melanoma: hit. A4 (Melanoma): others' top is
        // Hemangioma: miss. A5 has Hemangioma: hit. → 4/6.
        assert!((g - 4.0 / 6.0).abs() < 1e-12, "{g}");
        assert_eq!(agreement(&a[..1], TieSplit::Split), None);
    }
}
