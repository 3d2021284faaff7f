//! Importance scores of the baselines (Hu 2024, §1.4), on the same word
//! graph and candidates as VBSS: TextRank (Mihalcea & Tarau 2004), SS
//! (Li et al. 2010), PositionRank (Florescu & Caragea 2017) and TF-IDF
//! (pke's smoothed form; Boudin 2016). Higher is better for all.

use super::graph::WordGraph;
use super::prior::ThetaPrior;
use crate::error::{Error, Result};
use crate::numerics::linalg::lu_solve;
use nalgebra::{DMatrix, DVector};

/// The PageRank damping `d` (the probability of following an edge rather
/// than teleporting) must lie strictly between 0 and 1.
pub(crate) fn check_damping(d: f64) -> Result<()> {
    if !(d > 0.0 && d < 1.0) {
        return Err(Error::param(
            "damping",
            format!(
                "must lie strictly between 0 and 1, got {}",
                crate::error::show_number(d)
            ),
        ));
    }
    Ok(())
}

/// Solve the biased PageRank `θ = (1 − d) v + d Gᵀ θ` with `G = D⁻¹A`
/// (rows of isolated words are zero) directly.
fn biased_pagerank(graph: &WordGraph, teleport: &[f64], d: f64) -> Result<Vec<f64>> {
    check_damping(d)?;
    let n = graph.len();
    let deg = graph.degrees();
    // I − d Gᵀ: (Gᵀ)_ij = A_ji / D_jj.
    let m = DMatrix::from_fn(n, n, |i, j| {
        let g = if deg[j] > 0.0 {
            graph.adjacency[(j, i)] / deg[j]
        } else {
            0.0
        };
        (if i == j { 1.0 } else { 0.0 }) - d * g
    });
    let rhs = DVector::from_fn(n, |i, _| (1.0 - d) * teleport[i]);
    lu_solve(&m, &rhs)
        .map(|v| v.iter().copied().collect())
        .ok_or_else(|| Error::Numerical("the PageRank system is singular".into()))
}

/// [`biased_pagerank`] through the eigendecomposition the SS prior of the
/// same graph and damping already holds, in O(n²): with `A` symmetric,
/// `Gᵀ = A D⁻¹ = D^{1/2} Q D^{-1/2}` on the words with a neighbour, so
/// `I − dGᵀ = D^{1/2} B D^{-1/2}` and `θ = D^{1/2} B⁻¹ D^{-1/2} (1 − d) v`;
/// an isolated word keeps its teleport share, `θ_i = (1 − d) v_i`. Falls
/// back to the direct solve for any other prior.
fn biased_pagerank_given(
    prior: &ThetaPrior,
    graph: &WordGraph,
    teleport: &[f64],
    d: f64,
) -> Result<Vec<f64>> {
    if prior.graph_damping != Some(d) || prior.len() != graph.len() {
        return biased_pagerank(graph, teleport, d);
    }
    let deg = graph.degrees();
    let x: Vec<f64> = teleport
        .iter()
        .zip(&deg)
        .map(|(v, &dg)| {
            if dg > 0.0 {
                (1.0 - d) * v / dg.sqrt()
            } else {
                0.0
            }
        })
        .collect();
    let z = prior.solve_b(&x).expect("a graph prior");
    Ok(z.iter()
        .zip(&deg)
        .zip(teleport)
        .map(|((z, &dg), v)| {
            if dg > 0.0 {
                dg.sqrt() * z
            } else {
                (1.0 - d) * v
            }
        })
        .collect())
}

/// TextRank on the weighted co-occurrence graph: `θ = (1 − d) 1 + d Gᵀθ`
/// (Mihalcea & Tarau 2004; Hu 2024, §1.2.2).
pub fn text_rank(graph: &WordGraph, d: f64) -> Result<Vec<f64>> {
    biased_pagerank(graph, &vec![1.0; graph.len()], d)
}

/// [`text_rank`] reusing the eigendecomposition of the SS prior of the same
/// graph and damping (O(n²) instead of O(n³); the evaluation protocol has
/// that prior at hand for VBSS).
pub fn text_rank_given(prior: &ThetaPrior, graph: &WordGraph, d: f64) -> Result<Vec<f64>> {
    biased_pagerank_given(prior, graph, &vec![1.0; graph.len()], d)
}

/// SS (Li et al. 2010): `θ = (1 − d) y + d Qθ`, the prior mean of VBSS.
pub fn single_rank_ss(graph: &WordGraph, y: &[bool], d: f64) -> Result<Vec<f64>> {
    let pr =
        super::prior::ThetaPrior::from_graph(graph, y, d, super::prior::PriorScale::Dissertation)?;
    Ok(pr.theta0)
}

/// [`single_rank_ss`] from the SS prior of the same graph and labels,
/// built under `scale`, without a second eigendecomposition: SS's
/// `θ = (1 − d)B⁻¹y` is the prior mean under
/// [`PriorScale::Dissertation`](super::prior::PriorScale), and `1 − d` times
/// it under the code's scale.
pub fn single_rank_ss_given(
    prior: &ThetaPrior,
    scale: super::prior::PriorScale,
) -> Result<Vec<f64>> {
    let d = prior
        .graph_damping
        .ok_or_else(|| Error::param("prior", "SS needs a prior built from a word graph"))?;
    let c = match scale {
        super::prior::PriorScale::Dissertation => 1.0,
        super::prior::PriorScale::Code => 1.0 - d,
    };
    Ok(prior.theta0.iter().map(|t| c * t).collect())
}

/// PositionRank (Florescu & Caragea 2017): PageRank biased towards words
/// that occur early, the teleport weight of a word being the sum of the
/// inverse 1-based positions of its occurrences. Graphs without positions
/// (given as edges) fall back to TextRank.
pub fn position_rank(graph: &WordGraph, d: f64) -> Result<Vec<f64>> {
    match position_teleport(graph) {
        Some(v) => biased_pagerank(graph, &v, d),
        None => text_rank(graph, d),
    }
}

/// [`position_rank`] reusing the SS prior's eigendecomposition, as
/// [`text_rank_given`].
pub fn position_rank_given(prior: &ThetaPrior, graph: &WordGraph, d: f64) -> Result<Vec<f64>> {
    match position_teleport(graph) {
        Some(v) => biased_pagerank_given(prior, graph, &v, d),
        None => text_rank_given(prior, graph, d),
    }
}

/// PositionRank's teleport weights, scaled to sum to `n`; `None` for a
/// graph without positions.
fn position_teleport(graph: &WordGraph) -> Option<Vec<f64>> {
    let mut v: Vec<f64> = graph
        .positions
        .iter()
        .map(|ps| ps.iter().map(|&p| 1.0 / p as f64).sum())
        .collect();
    let total: f64 = v.iter().sum();
    if total <= 0.0 {
        return None;
    }
    let n = v.len() as f64;
    // Scaled to sum to n so that the scores are comparable with TextRank's.
    v.iter_mut().for_each(|x| *x *= n / total);
    Some(v)
}

/// TF-IDF with document frequencies from the other documents of the
/// corpus (leave-one-out), smoothed as pke does: `tf · log₂(N / df)` with
/// `N = 1 + #other documents` and `df = 1 + #other documents containing
/// the word`.
pub fn tf_idf(graph: &WordGraph, df_others: &[usize], n_others: usize) -> Vec<f64> {
    let n = (1 + n_others) as f64;
    graph
        .frequency
        .iter()
        .zip(df_others)
        .map(|(&tf, &df)| tf * (n / (1 + df) as f64).log2())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keywords::prior::PriorScale;

    #[test]
    fn text_rank_is_the_power_iteration_fixed_point() {
        let toks = ["a", "b", "c", "a", "d", "b", "e", "c", "a", "f", "g"];
        let g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        let tr = text_rank(&g, 0.85).unwrap();
        let deg = g.degrees();
        let mut x = vec![1.0; g.len()];
        for _ in 0..500 {
            x = (0..g.len())
                .map(|i| {
                    0.15 + 0.85
                        * (0..g.len())
                            .map(|j| g.adjacency[(j, i)] / deg[j] * x[j])
                            .sum::<f64>()
                })
                .collect();
        }
        for i in 0..g.len() {
            assert!((tr[i] - x[i]).abs() < 1e-10);
        }
        // The hub `a` ranks first.
        assert_eq!(crate::keywords::fdr::top_by_score(&tr, 1), vec![0]);
        let pr = position_rank(&g, 0.85).unwrap();
        assert!(pr[0] > pr[g.len() - 1]);
    }

    /// The O(n²) path through the SS prior's eigenvectors solves the same
    /// systems as the direct LU solve, isolated words included; a prior of
    /// another damping falls back to the direct solve.
    #[test]
    fn pagerank_through_the_prior_equals_the_direct_solve() {
        let toks = [
            "a", "b", "c", "a", "d", "b", "e", "c", "a", "f", "g", "h", "a", "c",
        ];
        let mut g = WordGraph::from_tokens(&toks, 2, false).unwrap();
        // Cut word "h" off: an isolated word.
        let h = g.index_of("h").unwrap();
        for j in 0..g.len() {
            g.adjacency[(h, j)] = 0.0;
            g.adjacency[(j, h)] = 0.0;
        }
        let mut y = vec![false; g.len()];
        y[0] = true;
        for d in [0.5, 0.85] {
            let prior = ThetaPrior::from_graph(&g, &y, d, PriorScale::Code).unwrap();
            let pairs = [
                (
                    text_rank(&g, d).unwrap(),
                    text_rank_given(&prior, &g, d).unwrap(),
                ),
                (
                    position_rank(&g, d).unwrap(),
                    position_rank_given(&prior, &g, d).unwrap(),
                ),
            ];
            // SS from either scale's prior is Li et al.'s θ = (1 − d)B⁻¹y.
            let ss = single_rank_ss(&g, &y, d).unwrap();
            for scale in [PriorScale::Code, PriorScale::Dissertation] {
                let pr = ThetaPrior::from_graph(&g, &y, d, scale).unwrap();
                for (u, v) in ss.iter().zip(&single_rank_ss_given(&pr, scale).unwrap()) {
                    assert!((u - v).abs() < 1e-12 * u.abs().max(1.0), "{u} vs {v}");
                }
            }
            for (direct, fast) in pairs {
                for (u, v) in direct.iter().zip(&fast) {
                    assert!((u - v).abs() < 1e-12 * u.abs().max(1.0), "{u} vs {v}");
                }
                assert!((fast[h] - direct[h]).abs() < 1e-15);
            }
            let other = ThetaPrior::from_graph(&g, &y, 0.3, PriorScale::Code).unwrap();
            assert_eq!(
                text_rank_given(&other, &g, d).unwrap(),
                text_rank(&g, d).unwrap()
            );
        }
    }
}
