//! Gaussian variational posterior over PL regression coefficients (Guo,
//! Dy, Erdoğmuş, Kalpathy-Cramer, Ostmo, Campbell, Chiang & Ioannidis;
//! seed 000 Alg. 1).
//!
//! Rankings are broken into top-queries (choice stages). A 2-item query is
//! bounded by Jaakkola & Jordan's bound (eq 12) with one variable `ζ_l`; a
//! query over `m > 2` items by Bouchard's bound (eq 13) with `α_l` and
//! `ξ_lj`. Alternating maximisation: the closed-form `(μ, S)` of eqs 17–18
//! given the bound variables, then `ζ` by eq 19 and an inner alternation of
//! `α` (eq 22) and `ξ` (eq 23), until eq 26. The bound `L̄_k` of eq 25 is
//! computed every iteration and never decreases.
//!
//! No explicit inverse is formed: with `L` the Cholesky factor of `S⁻¹`,
//! `μ` is a Cholesky solve, every quadratic form `xᵀSx` is `|L⁻¹x|²`, and
//! `log|S| = −2 Σ log L_ii`. The data term of `S⁻¹` is `2XᵀCX` with `C`
//! holding one coefficient per item and per compared pair; it is assembled
//! densely (`O(n²d)`) or pair by pair (`O(nnz·d²)`), whichever is cheaper.

use crate::data::features::Features;
use crate::data::{Dataset, Tail};
use crate::error::{Error, Result};
use nalgebra::{DMatrix, DVector};

/// `λ(x) = tanh(x/2) / (4x)`, with its limit 1/8 at 0.
#[inline]
pub fn jj_lambda(x: f64) -> f64 {
    let x = x.abs();
    if x < 1e-4 {
        0.125 - x * x / 96.0
    } else {
        (x / 2.0).tanh() / (4.0 * x)
    }
}

/// `log σ(x)`, stable.
#[inline]
pub fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Settings for [`vi`].
#[derive(Debug, Clone)]
pub struct ViOptions {
    /// Prior precision: `β ~ N(0, I/η)`.
    pub eta: f64,
    /// Stopping rule (eq 26): `‖Δξ‖² + ‖Δζ‖² ≤ ε²`.
    pub eps: f64,
    /// Maximum outer iterations.
    pub max_iter: usize,
    /// Maximum inner α/ξ alternations per outer iteration.
    pub max_inner: usize,
}

impl Default for ViOptions {
    fn default() -> Self {
        ViOptions {
            eta: 1.0,
            eps: 1e-6,
            max_iter: 1000,
            max_inner: 100,
        }
    }
}

/// The variational posterior `N(μ, S)` on the working feature scale.
#[derive(Debug, Clone)]
pub struct ViFit {
    /// Posterior mean.
    pub mu: DVector<f64>,
    /// Posterior covariance (computed once at the end, for reporting).
    pub cov: DMatrix<f64>,
    /// The bound `L̄_k` at every iteration (eq 25).
    pub bound: Vec<f64>,
    /// Outer iterations.
    pub iterations: usize,
    /// Whether eq 26 was met.
    pub converged: bool,
    /// Prior precision used.
    pub eta: f64,
}

impl ViFit {
    /// `L̄_∞`: the bound at the last iteration.
    pub fn bound_final(&self) -> f64 {
        *self.bound.last().unwrap_or(&f64::NAN)
    }
}

/// Choice stages as top-queries.
struct Queries {
    /// 2-item queries: (winner, loser, weight).
    pairs: Vec<(u32, u32, f64)>,
    /// Larger queries: winner, weight, and the set (winner included).
    multi_winner: Vec<u32>,
    multi_weight: Vec<f64>,
    multi_off: Vec<usize>,
    multi_items: Vec<u32>,
}

fn queries(ds: &Dataset) -> Result<Queries> {
    let mut q = Queries {
        pairs: Vec::new(),
        multi_winner: Vec::new(),
        multi_weight: Vec::new(),
        multi_off: vec![0],
        multi_items: Vec::new(),
    };
    let mut listed = vec![false; ds.universe()];
    for o in 0..ds.n_obs() {
        let obs = ds.obs(o);
        let Some(stages) = ds.fast_stages(o) else {
            return Err(Error::Unsupported(format!(
                "observation {} has a tied group; the Gaussian variational posterior (Guo et al.) is defined \
                 for untied rankings — use --engine mle or map for PL regression with ties",
                o + 1
            )));
        };
        let mem = obs.members;
        let unlisted: Vec<u32> = if obs.tail == Tail::Universe {
            for &m in mem {
                if (m as usize) < listed.len() {
                    listed[m as usize] = true;
                }
            }
            let u = (0..ds.universe() as u32)
                .filter(|&i| !listed[i as usize])
                .collect();
            for &m in mem {
                if (m as usize) < listed.len() {
                    listed[m as usize] = false;
                }
            }
            u
        } else {
            Vec::new()
        };
        for k in 0..stages {
            let size = mem.len() - k + unlisted.len();
            if size == 2 {
                let other = if mem.len() - k == 2 {
                    mem[k + 1]
                } else {
                    unlisted[0]
                };
                q.pairs.push((mem[k], other, obs.weight));
            } else {
                q.multi_winner.push(mem[k]);
                q.multi_weight.push(obs.weight);
                q.multi_items.extend_from_slice(&mem[k..]);
                q.multi_items.extend_from_slice(&unlisted);
                q.multi_off.push(q.multi_items.len());
            }
        }
    }
    Ok(q)
}

/// Run Alg. 1 of seed 000 on the working-scale features.
pub fn vi(ds: &Dataset, feats: &Features, opts: &ViOptions) -> Result<ViFit> {
    if !(opts.eta.is_finite() && opts.eta > 0.0) {
        return Err(Error::option(
            "--eta",
            format!(
                "the variational posterior needs a proper prior (η > 0), got {}",
                opts.eta
            ),
        ));
    }
    let q = queries(ds)?;
    let x = &feats.x;
    let (n, d) = x.shape();
    let n_multi = q.multi_winner.len();
    // Bound variables, initialised as the authors' code (ξ = ζ = 1, α = 0).
    let mut zeta = vec![1.0; q.pairs.len()];
    let mut xi = vec![1.0; q.multi_items.len()];
    let mut alpha = vec![0.0; n_multi];
    let nnz = n + 2 * q.pairs.len();
    let dense = (n * n * d + n * d * d) <= nnz * d * d;
    let mut bound = Vec::new();
    let mut converged = false;
    let mut it = 0;
    let mut u = vec![0.0; n];
    let mut v = vec![0.0; n];
    let (mut mu, mut chol_l);
    loop {
        it += 1;
        // ---- (16a) closed-form μ, S (eqs 17–18) --------------------------
        let mut diag = vec![0.0; n]; // C_ii
        let mut r = vec![0.0; n];
        for (l, &(c, cb, w)) in q.pairs.iter().enumerate() {
            let lam = w * jj_lambda(zeta[l]);
            diag[c as usize] += lam;
            diag[cb as usize] += lam;
            r[c as usize] += 0.5 * w;
            r[cb as usize] -= 0.5 * w;
        }
        for l in 0..n_multi {
            let w = q.multi_weight[l];
            r[q.multi_winner[l] as usize] += w;
            for s in q.multi_off[l]..q.multi_off[l + 1] {
                let j = q.multi_items[s] as usize;
                let lam = jj_lambda(xi[s]);
                diag[j] += w * lam;
                r[j] += w * (2.0 * lam * alpha[l] - 0.5);
            }
        }
        let mut prec = DMatrix::<f64>::zeros(d, d);
        if dense {
            let mut c = DMatrix::<f64>::zeros(n, n);
            for i in 0..n {
                c[(i, i)] = diag[i];
            }
            for (l, &(a, b, w)) in q.pairs.iter().enumerate() {
                let lam = w * jj_lambda(zeta[l]);
                c[(a as usize, b as usize)] -= lam;
                c[(b as usize, a as usize)] -= lam;
            }
            prec += x.transpose() * c * x * 2.0;
        } else {
            for i in 0..n {
                if diag[i] != 0.0 {
                    let xi_row = x.row(i);
                    prec += xi_row.transpose() * xi_row * (2.0 * diag[i]);
                }
            }
            for (l, &(a, b, w)) in q.pairs.iter().enumerate() {
                let lam = 2.0 * w * jj_lambda(zeta[l]);
                let (xa, xb) = (x.row(a as usize), x.row(b as usize));
                let cross = xa.transpose() * xb * lam;
                prec -= &cross + cross.transpose();
            }
        }
        for j in 0..d {
            prec[(j, j)] += opts.eta;
        }
        let rhs = x.transpose() * DVector::from_column_slice(&r);
        let chol = prec.cholesky().ok_or_else(|| {
            Error::Numerical("the variational precision matrix is not positive definite".into())
        })?;
        mu = chol.solve(&rhs);
        chol_l = chol.l();
        // ---- the bound L̄_k (eq 25) ----------------------------------------
        let mut m_sum = 0.0;
        for (l, &(_, _, w)) in q.pairs.iter().enumerate() {
            let z = zeta[l];
            m_sum += w * (log_sigmoid(z) - z / 2.0 + jj_lambda(z) * z * z);
        }
        for l in 0..n_multi {
            let (s0, s1) = (q.multi_off[l], q.multi_off[l + 1]);
            let a = alpha[l];
            let mut t = (s1 - s0) as f64 - 2.0;
            t *= a / 2.0;
            for s in s0..s1 {
                let z = xi[s];
                t += log_sigmoid(z) - z / 2.0 + jj_lambda(z) * (z * z - a * a);
            }
            m_sum += q.multi_weight[l] * t;
        }
        let log_det_s: f64 = -2.0 * (0..d).map(|j| chol_l[(j, j)].ln()).sum::<f64>();
        let log_det_s0 = -(d as f64) * opts.eta.ln();
        bound.push(m_sum + 0.5 * (log_det_s - log_det_s0) + 0.5 * mu.dot(&rhs));
        // ---- (16b) bound variables (eqs 19, 22, 23) ------------------------
        // y_i = L⁻¹ x_i, so x_iᵀ S x_i = |y_i|² and x_aᵀ S x_b = y_a·y_b.
        let y = chol_l
            .solve_lower_triangular(&x.transpose())
            .expect("triangular factor is invertible");
        for i in 0..n {
            u[i] = x.row(i).dot(&mu.transpose());
            v[i] = y.column(i).norm_squared();
        }
        let mut change = 0.0;
        for (l, &(a, b, _)) in q.pairs.iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            let quad = v[a] + v[b] - 2.0 * y.column(a).dot(&y.column(b));
            let new = (quad.max(0.0) + (u[a] - u[b]).powi(2)).sqrt();
            change += (new - zeta[l]).powi(2);
            zeta[l] = new;
        }
        for l in 0..n_multi {
            let (s0, s1) = (q.multi_off[l], q.multi_off[l + 1]);
            let m = (s1 - s0) as f64;
            let old: Vec<f64> = xi[s0..s1].to_vec();
            for _ in 0..opts.max_inner {
                let (mut num, mut den) = ((m - 2.0) / 4.0, 0.0);
                for s in s0..s1 {
                    let lam = jj_lambda(xi[s]);
                    num += lam * u[q.multi_items[s] as usize];
                    den += lam;
                }
                alpha[l] = num / den;
                let mut inner = 0.0f64;
                for s in s0..s1 {
                    let j = q.multi_items[s] as usize;
                    let new = (v[j] + (u[j] - alpha[l]).powi(2)).sqrt();
                    inner = inner.max((new - xi[s]).abs());
                    xi[s] = new;
                }
                if inner < 1e-12 {
                    break;
                }
            }
            for (k, s) in (s0..s1).enumerate() {
                change += (xi[s] - old[k]).powi(2);
            }
        }
        if change.sqrt() <= opts.eps {
            converged = true;
            break;
        }
        if it >= opts.max_iter {
            break;
        }
    }
    // Final (μ, S) for the final bound variables would be one more step; the
    // reported posterior is the one the last bound was computed for.
    let identity = DMatrix::<f64>::identity(d, d);
    let linv = chol_l
        .solve_lower_triangular(&identity)
        .expect("invertible");
    let cov = linv.transpose() * linv;
    Ok(ViFit {
        mu,
        cov,
        bound,
        iterations: it,
        converged,
        eta: opts.eta,
    })
}

/// `--eta auto`: the bound `L̄_∞` over a grid of η; returns the grid, the
/// bounds and the index of the best.
pub fn eta_by_bound(
    ds: &Dataset,
    feats: &Features,
    grid: &[f64],
    opts: &ViOptions,
) -> Result<(Vec<f64>, usize)> {
    let mut bounds = Vec::with_capacity(grid.len());
    for &eta in grid {
        let f = vi(
            ds,
            feats,
            &ViOptions {
                eta,
                ..opts.clone()
            },
        )?;
        bounds.push(f.bound_final());
    }
    let best = (0..grid.len())
        .max_by(|&a, &b| bounds[a].total_cmp(&bounds[b]))
        .expect("non-empty grid");
    Ok((bounds, best))
}

/// The default η grid: 25 values from 10⁻³ to 10³, evenly spaced in log.
pub fn default_eta_grid() -> Vec<f64> {
    (0..25)
        .map(|k| 10f64.powf(-3.0 + 6.0 * k as f64 / 24.0))
        .collect()
}
