//! Observed information `I(θ) = −∂²ℓ/∂θ∂θᵀ` of the PL log-likelihood.
//!
//! For a stage with in-play set `S`, weight `w` and `D = Σ_S λ`, the
//! contribution is `(w/D)·diag(λ_S) − (w/D²)·λ_S λ_Sᵀ`. Summed over stages
//! the diagonal part is `diag(λ ⊙ den)` (the sweep's in-play coefficients), and
//! the outer part has, for every pair of items, a coefficient `coef(j,k)` =
//! `Σ w/D²` over stages where both are in play.
//!
//! Unknown-order groups: by Louis' identity the observed information is the
//! expected complete-data information minus the covariance of the
//! complete-data score over the latent within-group orders. The score's
//! random part is `−λ ⊙ den(σ)`, so the covariance adds `λ_jλ_k Cov(den_j,
//! den_k)` to the outer coefficients. `den_j(σ)` is, for a member `j` of the
//! group, `X_j = Σ_{A on the path, j∈A} w/D_A`, and for every item after the
//! group the common `T = Σ_{A on the path} w/D_A`; their moments come from a
//! forward–backward pass over the subset lattice (O(n²·2^n) per group; groups
//! above [`MAX_LOUIS`] items are refused).
//!
//! Top-k universes: every unlisted item of an observation shares one
//! coefficient, so the unlisted block is handled as a rank-3 update
//! `α λ_Uλ_Uᵀ + β λ_Uᵀ + λ_U βᵀ` plus corrections on listed items; the cost is
//! O(n²) once plus O(m²) per observation of m listed items.

use super::pl::{Scope, Scratch, Weights, sweep_obs, unlisted_sum};
use super::subsets::SubsetTables;
use crate::data::{Dataset, Tail};
use crate::error::{Error, Result};
use nalgebra::DMatrix;

/// Largest unknown-order group for which exact standard errors are computed.
pub const MAX_LOUIS: usize = 12;

/// Pair coefficients of one stage group.
struct GroupCoef {
    /// `gg[i*n+k]`: both members in play.
    gg: Vec<f64>,
    /// member `i` with any item after the group.
    ga: Vec<f64>,
    /// two items after the group.
    aa: f64,
}

fn group_coef(tab: &SubsetTables, n: usize, w: f64) -> GroupCoef {
    let size = 1usize << n;
    let full = size - 1;
    let t: Vec<f64> = (0..size)
        .map(|a| {
            if a == 0 {
                0.0
            } else {
                w * (-tab.log_den[a]).exp()
            }
        })
        .collect();
    let p = &tab.reach;
    let mut gg = vec![0.0; n * n];
    let mut ga = vec![0.0; n];
    let mut aa = 0.0;
    // Expected complete-data outer coefficients: Σ_A P(A) w/D_A² over stages
    // where both are in play.
    for a in 1..=full {
        let c = p[a] * t[a] * t[a] / w;
        if c == 0.0 {
            continue;
        }
        aa += c;
        for i in 0..n {
            if a >> i & 1 == 1 {
                ga[i] += c;
                for k in 0..n {
                    if a >> k & 1 == 1 {
                        gg[i * n + k] += c;
                    }
                }
            }
        }
    }
    if n > 1 {
        // Forward–backward moments of Y_k = Σ_{A on path} f_k(A), with
        // f_k(A) = t_A·[k∈A] (k<n) and f_n(A) = t_A.
        let nv = n + 1;
        // Unit-weight stage terms: a weight-w observation contributes
        // w × (the covariance of one copy), not the covariance of w·X.
        let f = |k: usize, a: usize| -> f64 {
            if k == n || a >> k & 1 == 1 {
                t[a] / w
            } else {
                0.0
            }
        };
        // F[k][A] = E[Σ_{C strictly below A on the path} f_k(C) | at A].
        let mut big_f = vec![0.0; nv * size];
        for a in 1..=full {
            let log_norm = tab.log_r[a] + tab.log_den[a];
            let mut bits = a;
            while bits != 0 {
                let b = bits & bits.wrapping_neg();
                let c = a ^ b;
                bits ^= b;
                if c == 0 {
                    continue;
                }
                let pt = (tab.log_r[c] - log_norm).exp();
                for k in 0..nv {
                    big_f[k * size + a] += pt * (f(k, c) + big_f[k * size + c]);
                }
            }
        }
        let mut mean = vec![0.0; nv];
        let mut second = vec![0.0; nv * nv];
        for a in 1..=full {
            if p[a] == 0.0 {
                continue;
            }
            for i in 0..nv {
                let fi = f(i, a);
                mean[i] += p[a] * fi;
                for k in 0..nv {
                    let fk = f(k, a);
                    second[i * nv + k] +=
                        p[a] * (fi * fk + fi * big_f[k * size + a] + fk * big_f[i * size + a]);
                }
            }
        }
        let cov = |i: usize, k: usize| w * (second[i * nv + k] - mean[i] * mean[k]);
        for i in 0..n {
            for k in 0..n {
                gg[i * n + k] += cov(i, k);
            }
            ga[i] += cov(i, n);
        }
        aa += cov(n, n);
    }
    GroupCoef { gg, ga, aa }
}

/// One block of observations' contributions: the outer-product terms in
/// the lower triangle of `info`, the in-play coefficients `den`, and the
/// top-k universe terms.
struct Partial {
    info: DMatrix<f64>,
    den: Vec<f64>,
    cu_total: f64,
    alpha: f64,
    beta: Vec<f64>,
}

fn accumulate(
    ds: &Dataset,
    range: std::ops::Range<usize>,
    lam: &[f64],
    total: f64,
) -> Result<Partial> {
    let n = ds.n_items();
    let mut part = Partial {
        info: DMatrix::<f64>::zeros(n, n),
        den: vec![0.0; n],
        cu_total: 0.0,
        alpha: 0.0,
        beta: vec![0.0; n],
    };
    let info = &mut part.info;
    // Only the in-play coefficients are needed here, not the likelihood:
    // deferring the unit-weight log-products skips one `ln` per observation.
    let mut s = Scratch {
        defer_unit: true,
        ..Scratch::default()
    };
    let mut tab = SubsetTables::default();
    // Per observation: group index of each member, pair coefficients.
    let mut gidx: Vec<usize> = Vec::new();
    let mut coefs: Vec<GroupCoef> = Vec::new();
    let mut aa_before: Vec<f64> = Vec::new();
    let mut pos_in_group: Vec<usize> = Vec::new();
    let mut suffix: Vec<f64> = Vec::new();
    let mut cum2: Vec<f64> = Vec::new();
    for o in range {
        let (_, cu) = sweep_obs(ds, o, lam, total, &mut part.den, &mut s, Weights::of(ds, o));
        part.cu_total += cu;
        let obs = ds.obs(o);
        let mem = obs.members;
        let m = mem.len();
        let w = obs.weight;
        let rem = if obs.tail == Tail::Universe {
            unlisted_sum(ds, mem, lam, total)
        } else {
            0.0
        };
        suffix.clear();
        suffix.resize(m + 1, 0.0);
        suffix[m] = rem;
        for k in (0..m).rev() {
            suffix[k] = suffix[k + 1] + lam[mem[k] as usize];
        }
        if let Some(stages) = ds.fast_stages(o) {
            // Untied: items at positions p ≤ q are both in play at stages
            // 0..=min(p, stages−1); coef = cumulative Σ w/D² up to there.
            cum2.clear();
            let mut c = 0.0;
            for k in 0..stages {
                c += w / (suffix[k] * suffix[k]);
                cum2.push(c);
            }
            let aa_total = c;
            let q = |p: usize| -> f64 { if p < stages { cum2[p] } else { aa_total } };
            let uni = obs.tail == Tail::Universe;
            for p in 0..m {
                let ip = mem[p] as usize;
                let lp = lam[ip];
                let qp = q(p);
                for r in p..m {
                    let ir = mem[r] as usize;
                    let mut coef = qp; // min(p, r) = p
                    if uni && ip < ds.universe() && ir < ds.universe() {
                        coef += aa_total - qp - q(r);
                    }
                    let v = lp * lam[ir] * coef;
                    info[(ip.max(ir), ip.min(ir))] -= v;
                }
            }
            if uni {
                part.alpha += aa_total;
                for p in 0..m {
                    let ip = mem[p] as usize;
                    if ip < ds.universe() {
                        part.beta[ip] += lam[ip] * (q(p) - aa_total);
                    }
                }
            }
            continue;
        }
        gidx.clear();
        gidx.resize(m, usize::MAX);
        pos_in_group.clear();
        pos_in_group.resize(m, 0);
        coefs.clear();
        aa_before.clear();
        let n_ranked = obs.groups().filter(|g| !g.is_tail).count();
        let mut acc = 0.0;
        for (gi, g) in obs.groups().enumerate() {
            let trivial = g.is_tail || (gi + 1 == n_ranked && obs.tail == Tail::None);
            if trivial {
                continue; // members stay "after every stage group"
            }
            let ng = g.len();
            if ng > MAX_LOUIS {
                return Err(Error::Unsupported(format!(
                    "standard errors need the information matrix; observation {} has an \
                     unknown-order group of {ng} items (limit {MAX_LOUIS})",
                    o + 1
                )));
            }
            let lam_g: Vec<f64> = mem[g.start..g.end]
                .iter()
                .map(|&i| lam[i as usize])
                .collect();
            tab.compute(&lam_g, suffix[g.end]);
            tab.compute_reach(ng);
            let c = group_coef(&tab, ng, w);
            for k in g.start..g.end {
                gidx[k] = coefs.len();
                pos_in_group[k] = k - g.start;
            }
            aa_before.push(acc);
            acc += c.aa;
            coefs.push(c);
        }
        let aa_total = acc;
        // coef with "an item after every stage group" for member j.
        let q = |j: usize| -> f64 {
            match gidx[j] {
                usize::MAX => aa_total,
                g => aa_before[g] + coefs[g].ga[pos_in_group[j]],
            }
        };
        for j in 0..m {
            let ij = mem[j] as usize;
            for k in j..m {
                let ik = mem[k] as usize;
                let coef = match (gidx[j], gidx[k]) {
                    (usize::MAX, _) | (_, usize::MAX) => {
                        if gidx[j] == usize::MAX && gidx[k] == usize::MAX {
                            aa_total
                        } else if gidx[j] == usize::MAX {
                            q(k)
                        } else {
                            q(j)
                        }
                    }
                    (gj, gk) if gj == gk => {
                        let ng = coefs[gj].ga.len();
                        aa_before[gj] + coefs[gj].gg[pos_in_group[j] * ng + pos_in_group[k]]
                    }
                    (gj, gk) => {
                        let (first, _) = if gj < gk { (j, k) } else { (k, j) };
                        q(first)
                    }
                };
                let mut v = lam[ij] * lam[ik] * coef;
                if obs.tail == Tail::Universe && ij < ds.universe() && ik < ds.universe() {
                    // Undo the part the rank-3 universe update will add.
                    v += lam[ij] * lam[ik] * (aa_total - q(j) - q(k));
                }
                info[(ij.max(ik), ij.min(ik))] -= v;
            }
        }
        if obs.tail == Tail::Universe {
            part.alpha += aa_total;
            for j in 0..m {
                let ij = mem[j] as usize;
                if ij < ds.universe() {
                    part.beta[ij] += lam[ij] * (q(j) - aa_total);
                }
            }
        }
    }
    Ok(part)
}

/// Blocks of observations whose partial information matrices are summed:
/// a fixed number (never the thread count), so the result is the same on
/// any machine; one block when the data are small or the matrix large.
fn n_blocks(n_items: usize, n_obs: usize) -> usize {
    if n_obs >= 40_000 && n_items <= 2_000 {
        2
    } else {
        1
    }
}

/// Observed information at log-worths `theta` over the observations in
/// `scope`. Dense `n × n`; the caller fixes the gauge.
///
/// Observations are processed in a fixed number of blocks in parallel,
/// each accumulating only the lower triangle; the blocks are summed in
/// order, so the result does not depend on the thread count.
pub fn information(ds: &Dataset, theta: &[f64], scope: Scope) -> Result<DMatrix<f64>> {
    let mut info = information_lower(ds, theta, scope)?;
    let n = info.nrows();
    for j in 0..n {
        for k in j + 1..n {
            info[(j, k)] = info[(k, j)];
        }
    }
    Ok(info)
}

/// [`information`] with only the lower triangle (diagonal included) filled
/// in; the strict upper triangle is zero. What a Cholesky factorisation
/// reads, without the cost of mirroring.
pub fn information_lower(ds: &Dataset, theta: &[f64], scope: Scope) -> Result<DMatrix<f64>> {
    use rayon::prelude::*;
    let n = ds.n_items();
    let (lam, _) = super::pl::scaled(theta);
    let end = match scope {
        Scope::All => ds.n_obs(),
        Scope::Real => ds.n_real_obs(),
    };
    let total: f64 = lam[..ds.universe()].iter().sum();
    let b = n_blocks(n, end);
    let parts: Vec<Partial> = (0..b)
        .into_par_iter()
        .map(|k| accumulate(ds, k * end / b..(k + 1) * end / b, &lam, total))
        .collect::<Result<_>>()?;
    let mut parts = parts.into_iter();
    let Partial {
        mut info,
        mut den,
        mut cu_total,
        mut alpha,
        mut beta,
    } = parts.next().expect("at least one block");
    for p in parts {
        // Lower triangle only, column by column (contiguous).
        for j in 0..n {
            let (dst, src) = (
                &mut info.as_mut_slice()[j * n + j..(j + 1) * n],
                &p.info.as_slice()[j * n + j..(j + 1) * n],
            );
            dst.iter_mut().zip(src).for_each(|(a, b)| *a += b);
        }
        den.iter_mut().zip(&p.den).for_each(|(a, b)| *a += b);
        beta.iter_mut().zip(&p.beta).for_each(|(a, b)| *a += b);
        cu_total += p.cu_total;
        alpha += p.alpha;
    }
    if cu_total != 0.0 {
        for x in den[..ds.universe()].iter_mut() {
            *x += cu_total;
        }
    }
    if alpha != 0.0 {
        let u = ds.universe();
        for j in 0..u {
            for k in j..u {
                info[(k, j)] -= alpha * lam[j] * lam[k] + beta[j] * lam[k] + lam[j] * beta[k];
            }
        }
    }
    for i in 0..n {
        info[(i, i)] += lam[i] * den[i];
    }
    Ok(info)
}
