//! Ties as events: the Davidson–Luce model (Davidson 1970 for pairs; the
//! PL generalisation of Firth, Kosmidis & Turner's PlackettLuce package).
//!
//! At each stage a set `S` of `k` items is chosen, level with each other,
//! from the remaining set `R`:
//!
//! ```text
//! P(S | R) = δ_k (Π_{i∈S} λ_i)^{1/k} / Σ_{k'∈K} δ_{k'} e_{k'}(λ_R^{1/k'}),   δ_1 = 1,
//! ```
//!
//! where `e_m` is the elementary symmetric polynomial of degree `m` and `K`
//! is `{1}` plus the tie orders that occur in the data: orders that never
//! occur have `δ_k = 0` (their MLE) and are left out of the parameters and
//! the denominators, so the covariance stays well defined (PlackettLuce
//! issue #42). `e_m` costs O(|R|·m) by the usual recursion, so denominators
//! over whole top-k universes are cheap.
//!
//! Log-worths are shifted by their maximum over `R` inside each stage (the
//! probability is invariant to a common shift), so every `λ^{1/k}` is ≤ 1.

use crate::data::Dataset;

/// Tie orders (≥ 2) of the groups that occur in the data, sorted.
pub fn tie_orders(ds: &Dataset) -> Vec<usize> {
    let mut seen = std::collections::BTreeSet::new();
    for obs in ds.observations() {
        for g in obs.groups() {
            if !g.is_tail && g.len() > 1 {
                seen.insert(g.len());
            }
        }
    }
    seen.into_iter().collect()
}

/// Elementary symmetric polynomials `e_0..=e_m` of `y`.
fn esp(y: &[f64], m: usize, out: &mut Vec<f64>) {
    out.clear();
    out.resize(m + 1, 0.0);
    out[0] = 1.0;
    for &v in y {
        for d in (1..=m).rev() {
            out[d] += v * out[d - 1];
        }
    }
}

/// The orders of a model with their prevalences, `(k, δ_k, index into
/// `log_delta`)`, led by `(1, 1, None)`.
fn with_order_one(orders: &[usize], log_delta: &[f64]) -> Vec<(usize, f64, Option<usize>)> {
    let mut ks: Vec<(usize, f64, Option<usize>)> = vec![(1, 1.0, None)];
    for (q, &k) in orders.iter().enumerate() {
        ks.push((k, log_delta[q].exp(), Some(q)));
    }
    ks
}

/// Scratch for [`for_each_stage`].
#[derive(Default)]
struct StageScratch {
    listed: Vec<bool>,
    r_ids: Vec<u32>,
    r_th: Vec<f64>,
}

/// Calls `stage(weight, chosen, remaining, c, shifted)` for every stage of
/// observation `o` at which a choice is made: the group chosen (`k` items,
/// level), the set it was chosen from (the group, later members and, for a
/// top-k observation, the unlisted items), the largest log-worth `c` in
/// that set and its log-worths shifted by it (the stage's probability is
/// invariant to the shift, and every `λ^{1/k}` is then ≤ 1). A single item
/// left to choose from itself has probability 1 and is skipped.
fn for_each_stage(
    ds: &Dataset,
    o: usize,
    theta: &[f64],
    sc: &mut StageScratch,
    mut stage: impl FnMut(f64, &[u32], &[u32], f64, &[f64]),
) {
    let StageScratch {
        listed,
        r_ids,
        r_th,
    } = sc;
    listed.resize(ds.universe(), false);
    let obs = ds.obs(o);
    let mem = obs.members;
    let unlisted = ds.unlisted(&obs, listed);
    for g in obs.groups() {
        if g.is_tail {
            continue;
        }
        let rest_after = mem.len() - g.end + unlisted.len();
        if g.len() == 1 && rest_after == 0 {
            continue; // a single item chosen from itself: probability 1
        }
        // Remaining set R: this group, later members, unlisted items.
        r_ids.clear();
        r_ids.extend_from_slice(&mem[g.start..]);
        r_ids.extend_from_slice(&unlisted);
        let c = r_ids
            .iter()
            .map(|&i| theta[i as usize])
            .fold(f64::NEG_INFINITY, f64::max);
        r_th.clear();
        r_th.extend(r_ids.iter().map(|&i| theta[i as usize] - c));
        stage(obs.weight, &mem[g.start..g.end], r_ids, c, r_th);
    }
}

/// `ln Σ_{k'∈K} δ_{k'} e_{k'}(exp(θ̃/k'))` over the shifted log-worths `r_th`
/// of a remaining set (orders above its size cannot occur and are skipped).
fn ln_denominator(
    r_th: &[f64],
    ks: &[(usize, f64, Option<usize>)],
    y: &mut Vec<f64>,
    e: &mut Vec<f64>,
) -> f64 {
    let mut z = 0.0;
    for &(kk, dk, _) in ks {
        if kk > r_th.len() {
            continue;
        }
        y.clear();
        y.extend(r_th.iter().map(|t| (t / kk as f64).exp()));
        esp(y, kk, e);
        z += dk * e[kk];
    }
    z.ln()
}

/// For order `k` over the shifted log-worths `r_th` of a remaining set:
/// `y = exp(θ̃/k)`, `e_0..=e_k(y)` and, row-major `|R| × k`, the
/// leave-one-out polynomials `e_m(y_{−j})`, `m < k`, by the downdating
/// recursion `e_m(y_{−j}) = e_m(y) − y_j e_{m−1}(y_{−j})` (clamped at 0
/// against rounding).
fn order_terms(r_th: &[f64], k: usize, y: &mut Vec<f64>, e: &mut Vec<f64>, minus: &mut Vec<f64>) {
    y.clear();
    y.extend(r_th.iter().map(|t| (t / k as f64).exp()));
    esp(y, k, e);
    minus.clear();
    for &yj in y.iter() {
        let row = minus.len();
        minus.push(1.0);
        for m in 1..k {
            let v = e[m] - yj * minus[row + m - 1];
            minus.push(v.max(0.0));
        }
    }
}

/// Log-likelihood and gradient with respect to `(θ, log δ_k for k in
/// orders)`, over the observations `0..end`.
pub fn loglik_grad(
    ds: &Dataset,
    theta: &[f64],
    log_delta: &[f64],
    orders: &[usize],
    end: usize,
) -> (f64, Vec<f64>, Vec<f64>) {
    let n = ds.n_items();
    let mut gt = vec![0.0; n];
    let mut gd = vec![0.0; orders.len()];
    let mut ll = 0.0;
    // All orders with their δ: (k, δ_k, index into log_delta or None for k = 1).
    let ks = with_order_one(orders, log_delta);
    let mut sc = StageScratch::default();
    let mut y: Vec<f64> = Vec::new();
    let mut e: Vec<f64> = Vec::new();
    let mut e_minus: Vec<f64> = Vec::new();
    let mut dz: Vec<f64> = Vec::new();
    for o in 0..end {
        for_each_stage(ds, o, theta, &mut sc, |w, chosen, r_ids, c, r_th| {
            let k = chosen.len();
            let r = r_ids.len();
            // Denominator Z = Σ_{k'} δ_{k'} e_{k'}(exp(θ̃/k')) and its
            // θ-derivatives dz_j = Σ_{k'} δ_{k'} (1/k') y_j e_{k'-1}(y_{-j}).
            let mut z = 0.0;
            dz.clear();
            dz.resize(r, 0.0);
            let mut ek = vec![0.0; ks.len()];
            for (q, &(kk, dk, _)) in ks.iter().enumerate() {
                if kk > r {
                    continue;
                }
                order_terms(r_th, kk, &mut y, &mut e, &mut e_minus);
                ek[q] = e[kk];
                z += dk * e[kk];
                for j in 0..r {
                    dz[j] += dk * y[j] * e_minus[j * kk + kk - 1] / kk as f64;
                }
            }
            let (dk_chosen, q_chosen) = ks
                .iter()
                .find(|x| x.0 == k)
                .map(|x| (x.1, x.2))
                .expect("every observed tie order is a parameter");
            let num: f64 = chosen.iter().map(|&i| theta[i as usize] - c).sum::<f64>() / k as f64;
            ll += w * (dk_chosen.ln() + num - z.ln());
            for &i in chosen {
                gt[i as usize] += w / k as f64;
            }
            for (j, &i) in r_ids.iter().enumerate() {
                gt[i as usize] -= w * dz[j] / z;
            }
            if let Some(q) = q_chosen {
                gd[q] += w;
            }
            for (q, &(_, dk, idx)) in ks.iter().enumerate() {
                if let Some(idx) = idx {
                    gd[idx] -= w * dk * ek[q] / z;
                }
            }
        });
    }
    (ll, gt, gd)
}

/// The negative Hessian of [`loglik_grad`]'s log-likelihood with respect to
/// `(θ, log δ_k for k in orders)`, over the observations `0..end`, as a
/// dense `(n + |orders|)²` matrix.
///
/// Each stage's `ln Z` is the log-partition function of a distribution over
/// the subsets `S` of the remaining set `R` with `|S| ∈ K`, `P(S) ∝ δ_{|S|}
/// Π_{i∈S} λ_i^{1/|S|}`, whose sufficient statistics are `1(i ∈ S)/|S|` for
/// `θ_i` and `1(|S| = k)` for `log δ_k`; the numerator is linear in the
/// parameters, so the stage's negative Hessian is the covariance of those
/// statistics under `P`. Within an order `k` the inclusion probabilities
/// are `P(i ∈ S) = y_i e_{k−1}(y_{−i}) / e_k(y)` and `P(i, j ∈ S) = y_i y_j
/// e_{k−2}(y_{−i,−j}) / e_k(y)` with `y = λ^{1/k}` (the leave-out
/// polynomials by the same downdating recursion as the gradient's). O(|R|²
/// k) per stage, against the `2(n + |orders|)` gradients of a difference
/// Hessian. Observations are summed in runs fixed by the data and added in
/// order, so the matrix is the same on any number of threads.
pub fn loglik_neg_hessian(
    ds: &Dataset,
    theta: &[f64],
    log_delta: &[f64],
    orders: &[usize],
    end: usize,
) -> nalgebra::DMatrix<f64> {
    use nalgebra::DMatrix;
    let n = ds.n_items();
    let p = n + orders.len();
    let ks = with_order_one(orders, log_delta);
    // Runs of observations, each with its own p × p matrix: as many as fit
    // in about 256 MB, at most 16, fixed by the data alone.
    let runs = ((1usize << 25) / (p * p).max(1)).clamp(1, 16);
    let chunk = end.div_ceil(runs).max(1);
    let parts = crate::numerics::chunked_map(end, chunk, |range| {
        let mut h = DMatrix::<f64>::zeros(p, p);
        let mut sc = StageScratch::default();
        let mut e = Vec::new();
        // Per order: y, e_{m}(y_{-j}) for m < k (row-major r × k).
        let mut ys: Vec<Vec<f64>> = vec![Vec::new(); ks.len()];
        let mut minus: Vec<Vec<f64>> = vec![Vec::new(); ks.len()];
        let mut ek = vec![0.0; ks.len()];
        let (mut mean, mut cov, mut f) = (Vec::new(), Vec::new(), Vec::new());
        let mut dmean = vec![0.0; ks.len()];
        for o in range {
            for_each_stage(ds, o, theta, &mut sc, |w, _chosen, r_ids, _c, r_th| {
                let r = r_ids.len();
                let mut z = 0.0;
                for (q, &(kk, dk, _)) in ks.iter().enumerate() {
                    ek[q] = 0.0;
                    if kk > r {
                        continue;
                    }
                    order_terms(r_th, kk, &mut ys[q], &mut e, &mut minus[q]);
                    ek[q] = e[kk];
                    z += dk * e[kk];
                }
                // Moments of the statistics under P: mean (θ part),
                // second moments in `cov`, then the covariance.
                mean.clear();
                mean.resize(r, 0.0);
                cov.clear();
                cov.resize(r * r, 0.0);
                for (q, &(kk, dk, _)) in ks.iter().enumerate() {
                    if kk > r {
                        dmean[q] = 0.0;
                        continue;
                    }
                    let a = dk / z;
                    dmean[q] = a * ek[q];
                    let (yq, mq) = (&ys[q], &minus[q]);
                    let kf = kk as f64;
                    for j in 0..r {
                        let incl = a * yq[j] * mq[j * kk + kk - 1];
                        mean[j] += incl / kf;
                        cov[j * r + j] += incl / (kf * kf);
                    }
                    if kk >= 2 {
                        for i in 0..r {
                            let row = &mq[i * kk..(i + 1) * kk];
                            for j in (i + 1)..r {
                                // e_m(y_{-i,-j}) = e_m(y_{-i}) − y_j e_{m−1}(y_{-i,-j}).
                                f.clear();
                                f.push(1.0);
                                for m in 1..=(kk - 2) {
                                    let v = row[m] - yq[j] * f[m - 1];
                                    f.push(v.max(0.0));
                                }
                                let both = a * yq[i] * yq[j] * f[kk - 2] / (kf * kf);
                                cov[i * r + j] += both;
                                cov[j * r + i] += both;
                            }
                        }
                    }
                }
                for i in 0..r {
                    let gi = r_ids[i] as usize;
                    for j in 0..r {
                        let gj = r_ids[j] as usize;
                        h[(gi, gj)] += w * (cov[i * r + j] - mean[i] * mean[j]);
                    }
                }
                for (q, &(kk, dk, idx)) in ks.iter().enumerate() {
                    let Some(u) = idx else { continue };
                    if kk > r {
                        continue;
                    }
                    let u = n + u;
                    let a = dk / z;
                    let (yq, mq) = (&ys[q], &minus[q]);
                    for j in 0..r {
                        let both = a * yq[j] * mq[j * kk + kk - 1] / kk as f64;
                        let v = w * (both - mean[j] * dmean[q]);
                        let gj = r_ids[j] as usize;
                        h[(gj, u)] += v;
                        h[(u, gj)] += v;
                    }
                    for (q2, &(kk2, _, idx2)) in ks.iter().enumerate() {
                        let Some(u2) = idx2 else { continue };
                        if kk2 > r {
                            continue;
                        }
                        let second = if q2 == q { dmean[q] } else { 0.0 };
                        h[(u, n + u2)] += w * (second - dmean[q] * dmean[q2]);
                    }
                }
            });
        }
        h
    });
    let mut total = DMatrix::<f64>::zeros(p, p);
    for h in parts {
        total += h;
    }
    total
}

/// The first tie order of `ds` that a model with tie orders `orders`
/// cannot produce, as `(observation, order)`: its probability under the
/// model is 0 (`δ_k = 0` for an order absent from the training data).
pub fn unmodelled_tie(ds: &Dataset, orders: &[usize]) -> Option<(usize, usize)> {
    ds.observations().enumerate().find_map(|(o, obs)| {
        obs.groups()
            .find(|g| !g.is_tail && g.len() > 1 && !orders.contains(&g.len()))
            .map(|g| (o, g.len()))
    })
}

/// Each observation's log-probability under the Davidson–Luce model at
/// log-worths `theta` and prevalences `exp(log_delta)` of `orders` —
/// weighted as [`loglik_grad`] sums them, or at unit weight (`unit`). The
/// data's tie orders must be among `orders` ([`unmodelled_tie`]).
pub fn log_probabilities(
    ds: &Dataset,
    theta: &[f64],
    log_delta: &[f64],
    orders: &[usize],
    unit: bool,
) -> Vec<f64> {
    let ks = with_order_one(orders, log_delta);
    let mut sc = StageScratch::default();
    let (mut y, mut e) = (Vec::new(), Vec::new());
    (0..ds.n_obs())
        .map(|o| {
            let mut lp = 0.0;
            for_each_stage(ds, o, theta, &mut sc, |w, chosen, _, c, r_th| {
                let k = chosen.len();
                let dk = ks.iter().find(|x| x.0 == k).map_or(0.0, |x| x.1);
                let num = chosen.iter().map(|&i| theta[i as usize] - c).sum::<f64>() / k as f64;
                let term = dk.ln() + num - ln_denominator(r_th, &ks, &mut y, &mut e);
                lp += if unit { term } else { w * term };
            });
            lp
        })
        .collect()
}

/// The first choice from a set with log-worths `theta` under the
/// Davidson–Luce model: each item's probability of being chosen alone,
/// `λ_i / Z`, and the probability that the first choice is a tie (of any
/// order in `orders` up to the set's size), `Σ_{k≥2} δ_k e_k / Z`. For two
/// items: `P(i ≻ j)`, `P(j ≻ i)` and `P(tie) = δ₂√(λ_iλ_j) / (λ_i + λ_j +
/// δ₂√(λ_iλ_j))` (Davidson 1970).
pub fn first_choice(theta: &[f64], log_delta: &[f64], orders: &[usize]) -> (Vec<f64>, f64) {
    let ks = with_order_one(orders, log_delta);
    let c = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let r_th: Vec<f64> = theta.iter().map(|t| t - c).collect();
    let (mut y, mut e) = (Vec::new(), Vec::new());
    let ln_z = ln_denominator(&r_th, &ks, &mut y, &mut e);
    let alone: Vec<f64> = r_th.iter().map(|t| (t - ln_z).exp()).collect();
    let tie = ks
        .iter()
        .filter(|x| x.0 > 1)
        .map(|x| ln_denominator(&r_th, &[*x], &mut y, &mut e))
        .map(|l| (l - ln_z).exp())
        .sum();
    (alone, tie)
}

/// The model and scratch of [`sample_places`]: the orders with their
/// prevalences, built once rather than on every draw of a ranking.
pub struct Sampler {
    ks: Vec<(usize, f64, Option<usize>)>,
    left: Vec<usize>,
    next: Vec<usize>,
    y: Vec<f64>,
    e: Vec<f64>,
    suffix: Vec<f64>,
    weights: Vec<f64>,
}

impl Sampler {
    /// A sampler for prevalences `exp(log_delta)` of tie orders `orders`.
    pub fn new(orders: &[usize], log_delta: &[f64]) -> Sampler {
        Sampler {
            ks: with_order_one(orders, log_delta),
            left: Vec::new(),
            next: Vec::new(),
            y: Vec::new(),
            e: Vec::new(),
            suffix: Vec::new(),
            weights: Vec::new(),
        }
    }
}

/// One ranking with ties drawn from the Davidson–Luce model at log-worths
/// `theta` and the prevalences of `sc` ([`Sampler::new`]), stage by stage:
/// the order `k` of the next group with probability `δ_k e_k(λ_R^{1/k}) /
/// Z` (the stage's denominator, module docs), then the group itself, a
/// `k`-subset `S` of the remaining set with probability `Π_{i∈S} λ_i^{1/k}
/// / e_k`, item by item from the suffix polynomials. Writes each item's
/// place to `places` (0-based, shared by tied items and counted as in a
/// sports table: after a two-way tie for first the next item is third, so
/// place 1 is then empty). `u` supplies uniforms on [0, 1).
pub fn sample_places(
    theta: &[f64],
    mut u: impl FnMut() -> f64,
    sc: &mut Sampler,
    places: &mut [usize],
) {
    sc.left.clear();
    sc.left.extend(0..theta.len());
    let mut placed = 0;
    while !sc.left.is_empty() {
        let r = sc.left.len();
        let c = sc
            .left
            .iter()
            .map(|&i| theta[i])
            .fold(f64::NEG_INFINITY, f64::max);
        // The order of the next group.
        sc.weights.clear();
        for &(kk, dk, _) in &sc.ks {
            let w = if kk > r {
                0.0
            } else {
                sc.y.clear();
                sc.y.extend(sc.left.iter().map(|&i| ((theta[i] - c) / kk as f64).exp()));
                esp(&sc.y, kk, &mut sc.e);
                dk * sc.e[kk]
            };
            sc.weights.push(w);
        }
        let total: f64 = sc.weights.iter().sum();
        let mut t = u() * total;
        // Rounding can leave `t` past the last weight: then the last order
        // with weight (order 1 always has some: the largest λ^{1/1} is 1).
        let mut q = sc.ks.len() - 1;
        for (idx, &w) in sc.weights.iter().enumerate() {
            if w > 0.0 && t < w {
                q = idx;
                break;
            }
            t -= w;
        }
        while sc.weights[q] == 0.0 {
            q -= 1;
        }
        let k = sc.ks[q].0;
        // The group: suffix[j * (k + 1) + m] = e_m(y_j, …, y_{r−1}).
        sc.y.clear();
        sc.y.extend(sc.left.iter().map(|&i| ((theta[i] - c) / k as f64).exp()));
        sc.suffix.clear();
        sc.suffix.resize((r + 1) * (k + 1), 0.0);
        sc.suffix[r * (k + 1)] = 1.0;
        for j in (0..r).rev() {
            let (head, tail) = sc.suffix.split_at_mut((j + 1) * (k + 1));
            let (row, next) = (&mut head[j * (k + 1)..], &tail[..k + 1]);
            row[0] = 1.0;
            for m in 1..=k {
                row[m] = next[m] + sc.y[j] * next[m - 1];
            }
        }
        let mut need = k;
        sc.next.clear();
        for j in 0..r {
            if need == 0 {
                sc.next.push(sc.left[j]);
                continue;
            }
            let all = sc.suffix[j * (k + 1) + need];
            let with = sc.y[j] * sc.suffix[(j + 1) * (k + 1) + need - 1];
            // Must take the rest once the rest are exactly what is needed.
            if r - j == need || u() * all < with {
                places[sc.left[j]] = placed;
                need -= 1;
            } else {
                sc.next.push(sc.left[j]);
            }
        }
        placed += k;
        std::mem::swap(&mut sc.left, &mut sc.next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DatasetBuilder, Items, Tail, TieSemantics};

    #[test]
    fn davidson_pair_probabilities() {
        // P(i ≻ j) = λi/(λi + λj + δ√(λiλj)), P(tie) = δ√(λiλj)/(…).
        let mut b = DatasetBuilder::new(Items::numbered(2), TieSemantics::Event);
        b.push(&[vec![0], vec![1]], Tail::None, &[], 1.0).unwrap();
        b.push(&[vec![0, 1]], Tail::None, &[], 1.0).unwrap();
        let d = b.finish();
        let (l0, l1, dl): (f64, f64, f64) = (2.0, 3.0, 0.7);
        let th = [l0.ln(), l1.ln()];
        let (ll, _, _) = loglik_grad(&d, &th, &[dl.ln()], &[2], d.n_obs());
        let den = l0 + l1 + dl * (l0 * l1).sqrt();
        let want = (l0 / den).ln() + (dl * (l0 * l1).sqrt() / den).ln();
        assert!((ll - want).abs() < 1e-13, "{ll} {want}");
    }

    /// Five items, weighted observations with ties of orders 2 and 3 and a
    /// top-k observation.
    fn mixed_ties() -> DatasetBuilder {
        let mut b = DatasetBuilder::new(Items::numbered(5), TieSemantics::Event);
        b.push(&[vec![0], vec![1, 2], vec![3]], Tail::None, &[], 1.5)
            .unwrap();
        b.push(&[vec![3, 4, 1], vec![0]], Tail::None, &[], 1.0)
            .unwrap();
        b.push(&[vec![2], vec![4, 0]], Tail::Universe, &[], 2.0)
            .unwrap();
        b
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let mut b = mixed_ties();
        b.push(&[vec![1], vec![2]], Tail::None, &[], 1.0).unwrap();
        let d = b.finish();
        let orders = tie_orders(&d);
        assert_eq!(orders, vec![2, 3]);
        let th = [0.3, -0.2, 0.9, 0.0, -1.1];
        let ld = [-0.4, 0.2];
        let (_, gt, gd) = loglik_grad(&d, &th, &ld, &orders, d.n_obs());
        let f = |t: &[f64], l: &[f64]| loglik_grad(&d, t, l, &orders, d.n_obs()).0;
        let h = 1e-6;
        for i in 0..5 {
            let (mut a, mut b2) = (th, th);
            a[i] += h;
            b2[i] -= h;
            let fd = (f(&a, &ld) - f(&b2, &ld)) / (2.0 * h);
            assert!((fd - gt[i]).abs() < 1e-7, "θ{i}: {fd} {}", gt[i]);
        }
        for q in 0..2 {
            let (mut a, mut b2) = (ld, ld);
            a[q] += h;
            b2[q] -= h;
            let fd = (f(&th, &a) - f(&th, &b2)) / (2.0 * h);
            assert!((fd - gd[q]).abs() < 1e-7, "δ{q}: {fd} {}", gd[q]);
        }
        // Invariant to a common shift of θ.
        let shifted: Vec<f64> = th.iter().map(|t| t + 3.7).collect();
        assert!((f(&th, &ld) - f(&shifted, &ld)).abs() < 1e-12);
    }

    /// The analytic negative Hessian against central differences of the
    /// exact gradient, on ties of orders 2 and 3, a top-k observation and
    /// weights, and at a second point with a tie of order 4 whose
    /// prevalence is large (where the leave-out polynomials cancel most).
    #[test]
    fn negative_hessian_matches_differences_of_the_gradient() {
        let mut b = mixed_ties();
        b.push(&[vec![1], vec![2]], Tail::None, &[], 1.0).unwrap();
        b.push(&[vec![0, 1, 2, 4], vec![3]], Tail::None, &[], 0.5)
            .unwrap();
        let d = b.finish();
        let orders = tie_orders(&d);
        assert_eq!(orders, vec![2, 3, 4]);
        for (th, ld) in [
            ([0.3, -0.2, 0.9, 0.0, -1.1], [-0.4, 0.2, -1.0]),
            ([2.5, -3.0, 0.1, 4.0, -0.5], [1.5, 2.0, 3.0]),
        ] {
            let h = loglik_neg_hessian(&d, &th, &ld, &orders, d.n_obs());
            let grad = |t: &[f64], l: &[f64]| {
                let (_, mut g, gd) = loglik_grad(&d, t, l, &orders, d.n_obs());
                g.extend(gd);
                g
            };
            let step = 1e-5;
            let mut worst: f64 = 0.0;
            for c in 0..8 {
                let (mut tp, mut tm, mut lp, mut lm) = (th, th, ld, ld);
                if c < 5 {
                    tp[c] += step;
                    tm[c] -= step;
                } else {
                    lp[c - 5] += step;
                    lm[c - 5] -= step;
                }
                let (gp, gm) = (grad(&tp, &lp), grad(&tm, &lm));
                for r in 0..8 {
                    let fd = -(gp[r] - gm[r]) / (2.0 * step);
                    worst = worst.max((fd - h[(r, c)]).abs());
                    assert!((h[(r, c)] - h[(c, r)]).abs() < 1e-14);
                }
            }
            assert!(worst < 1e-8, "largest difference {worst:e}");
            // The gauge: a common shift of θ leaves the likelihood alone.
            for r in 0..8 {
                let row: f64 = (0..5).map(|c| h[(r, c)]).sum();
                assert!(row.abs() < 1e-12, "row {r}: {row:e}");
            }
        }
    }

    /// Every ordered set partition of `items` (the outcomes of a
    /// Davidson–Luce ranking with ties of any order).
    fn ordered_partitions(items: &[u32]) -> Vec<Vec<Vec<u32>>> {
        if items.is_empty() {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        // The first group: every non-empty subset.
        for mask in 1..(1u32 << items.len()) {
            let first: Vec<u32> = (0..items.len())
                .filter(|&b| mask & (1 << b) != 0)
                .map(|b| items[b])
                .collect();
            let rest: Vec<u32> = (0..items.len())
                .filter(|&b| mask & (1 << b) == 0)
                .map(|b| items[b])
                .collect();
            for mut tail in ordered_partitions(&rest) {
                tail.insert(0, first.clone());
                out.push(tail);
            }
        }
        out
    }

    /// The model's outcomes of four items — all 75 ordered set partitions,
    /// ties of orders 2, 3 and 4 included — have probabilities summing to 1,
    /// so `log_probabilities` is a distribution over rankings with ties;
    /// with only order 2 modelled, the outcomes holding no larger tie sum
    /// to 1 on their own.
    #[test]
    fn outcome_probabilities_sum_to_one() {
        let th = [0.4, -0.3, 1.1, -0.8];
        for (orders, ld) in [(vec![2, 3, 4], vec![-0.2, 0.3, -1.0]), (vec![2], vec![0.5])] {
            let all = ordered_partitions(&[0, 1, 2, 3]);
            let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::Event);
            let mut kept = 0;
            for part in &all {
                if part
                    .iter()
                    .all(|g| g.len() == 1 || orders.contains(&g.len()))
                {
                    b.push(part, Tail::None, &[], 1.0).unwrap();
                    kept += 1;
                }
            }
            let d = b.finish();
            assert_eq!(d.n_obs(), kept);
            let lp = log_probabilities(&d, &th, &ld, &orders, true);
            let total: f64 = lp.iter().map(|l| l.exp()).sum();
            assert!((total - 1.0).abs() < 1e-12, "{orders:?}: {total}");
            // The first stage alone: choice alone plus a tie, also 1.
            let (alone, tie) = first_choice(&th, &ld, &orders);
            assert!((alone.iter().sum::<f64>() + tie - 1.0).abs() < 1e-12);
        }
        assert_eq!(ordered_partitions(&[0, 1, 2, 3]).len(), 75);
    }

    /// Places drawn by `sample_places` against the exact place marginals
    /// of four items, from the probabilities of all 75 rankings with ties
    /// (ties of orders 2 and 3 modelled; places shared by tied items).
    #[test]
    fn sampled_places_match_the_exact_marginals() {
        use rand::RngExt;
        let th = [0.4, -0.3, 1.1, -0.8];
        let (orders, ld) = (vec![2, 3], vec![-0.2, 0.3]);
        let all: Vec<_> = ordered_partitions(&[0, 1, 2, 3])
            .into_iter()
            .filter(|p| p.iter().all(|g| g.len() < 4))
            .collect();
        let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::Event);
        for part in &all {
            b.push(part, Tail::None, &[], 1.0).unwrap();
        }
        let d = b.finish();
        let lp = log_probabilities(&d, &th, &ld, &orders, true);
        let mut exact = [[0.0; 4]; 4];
        for (part, l) in all.iter().zip(&lp) {
            let mut place = 0;
            for g in part {
                for &i in g {
                    exact[i as usize][place] += l.exp();
                }
                place += g.len();
            }
        }
        let mut rng = crate::sampling::rng::stream(7, &[1]);
        let (n, mut counts) = (200_000, [[0.0; 4]; 4]);
        let (mut sc, mut places) = (Sampler::new(&orders, &ld), [0usize; 4]);
        for _ in 0..n {
            sample_places(&th, || rng.random::<f64>(), &mut sc, &mut places);
            for (i, &p) in places.iter().enumerate() {
                counts[i][p] += 1.0;
            }
        }
        for i in 0..4 {
            for p in 0..4 {
                let f = counts[i][p] / n as f64;
                // Binomial sd ≤ 0.0011: five of them.
                assert!(
                    (f - exact[i][p]).abs() < 0.0056,
                    "item {i} place {p}: {f} vs {}",
                    exact[i][p]
                );
            }
        }
        // Ties happen: item 2 (the best) shares first place sometimes.
        assert!(exact[2][0] > 0.3 && exact.iter().map(|r| r[1]).sum::<f64>() < 0.99);
    }

    /// Davidson's (1970) pair: `P(i ≻ j) = λ_i / (λ_i + λ_j + δ√(λ_iλ_j))`,
    /// `P(tie) = δ√(λ_iλ_j) / (…)`; and the per-observation values sum to
    /// the log-likelihood, weighted, or divide by the weight at unit weight.
    #[test]
    fn pair_outcomes_and_per_observation_values() {
        let (l0, l1, dl): (f64, f64, f64) = (2.0, 3.0, 0.7);
        let (alone, tie) = first_choice(&[l0.ln(), l1.ln()], &[dl.ln()], &[2]);
        let den = l0 + l1 + dl * (l0 * l1).sqrt();
        assert!((alone[0] - l0 / den).abs() < 1e-15);
        assert!((alone[1] - l1 / den).abs() < 1e-15);
        assert!((tie - dl * (l0 * l1).sqrt() / den).abs() < 1e-15);
        let d = mixed_ties().finish();
        let orders = tie_orders(&d);
        let th = [0.3, -0.2, 0.9, 0.0, -1.1];
        let ld = [-0.4, 0.2];
        let (ll, _, _) = loglik_grad(&d, &th, &ld, &orders, d.n_obs());
        let weighted = log_probabilities(&d, &th, &ld, &orders, false);
        assert!((weighted.iter().sum::<f64>() - ll).abs() < 1e-12);
        let unit = log_probabilities(&d, &th, &ld, &orders, true);
        for (o, (w, u)) in weighted.iter().zip(&unit).enumerate() {
            assert!((w / d.obs(o).weight - u).abs() < 1e-12);
        }
        assert_eq!(unmodelled_tie(&d, &orders), None);
        assert_eq!(unmodelled_tie(&d, &[2]), Some((1, 3)));
    }
}
