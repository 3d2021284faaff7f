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
    let mut ks: Vec<(usize, f64, Option<usize>)> = vec![(1, 1.0, None)];
    for (q, &k) in orders.iter().enumerate() {
        ks.push((k, log_delta[q].exp(), Some(q)));
    }
    let mut listed = vec![false; ds.universe()];
    let mut r_ids: Vec<u32> = Vec::new();
    let mut r_th: Vec<f64> = Vec::new();
    let mut y: Vec<f64> = Vec::new();
    let mut e: Vec<f64> = Vec::new();
    let mut e_minus: Vec<f64> = Vec::new();
    let mut dz: Vec<f64> = Vec::new();
    for o in 0..end {
        let obs = ds.obs(o);
        let w = obs.weight;
        let mem = obs.members;
        let unlisted = ds.unlisted(&obs, &mut listed);
        let groups: Vec<_> = obs.groups().collect();
        for (gi, g) in groups.iter().enumerate() {
            if g.is_tail {
                continue;
            }
            let k = g.len();
            let rest_after = mem.len() - g.end + unlisted.len();
            if k == 1 && rest_after == 0 {
                continue; // a single item chosen from itself: probability 1
            }
            // Remaining set R: this group, later members, unlisted items.
            r_ids.clear();
            r_ids.extend_from_slice(&mem[g.start..]);
            r_ids.extend_from_slice(&unlisted);
            let r = r_ids.len();
            let c = r_ids
                .iter()
                .map(|&i| theta[i as usize])
                .fold(f64::NEG_INFINITY, f64::max);
            r_th.clear();
            r_th.extend(r_ids.iter().map(|&i| theta[i as usize] - c));
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
                y.clear();
                y.extend(r_th.iter().map(|t| (t / kk as f64).exp()));
                esp(&y, kk, &mut e);
                ek[q] = e[kk];
                z += dk * e[kk];
                for j in 0..r {
                    // e_m(y_{-j}) = e_m(y) − y_j e_{m−1}(y_{-j}), m = 0..kk−1.
                    e_minus.clear();
                    e_minus.push(1.0);
                    for m in 1..kk {
                        let v = e[m] - y[j] * e_minus[m - 1];
                        e_minus.push(v.max(0.0));
                    }
                    dz[j] += dk * y[j] * e_minus[kk - 1] / kk as f64;
                }
            }
            let (dk_chosen, q_chosen) = ks
                .iter()
                .find(|x| x.0 == k)
                .map(|x| (x.1, x.2))
                .expect("every observed tie order is a parameter");
            let num: f64 = mem[g.start..g.end]
                .iter()
                .map(|&i| theta[i as usize] - c)
                .sum::<f64>()
                / k as f64;
            ll += w * (dk_chosen.ln() + num - z.ln());
            for &i in &mem[g.start..g.end] {
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
            let _ = gi;
        }
    }
    (ll, gt, gd)
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

    #[test]
    fn gradient_matches_finite_differences() {
        let mut b = DatasetBuilder::new(Items::numbered(5), TieSemantics::Event);
        b.push(&[vec![0], vec![1, 2], vec![3]], Tail::None, &[], 1.5)
            .unwrap();
        b.push(&[vec![3, 4, 1], vec![0]], Tail::None, &[], 1.0)
            .unwrap();
        b.push(&[vec![2], vec![4, 0]], Tail::Universe, &[], 2.0)
            .unwrap();
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
}
