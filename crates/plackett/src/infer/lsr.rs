//! Iterative Luce spectral ranking (I-LSR; Maystre & Grossglauser 2015).
//!
//! Each choice stage with winner `w`, in-play set `S` and weight `c` adds a
//! transition rate `c / Σ_S λ` from every loser in `S` to `w`. The MLE is the
//! fixed point at which `λ` is the stationary distribution of the chain built
//! at `λ` (their Theorem 1). Every outer iteration rebuilds the rates at the
//! current estimate and solves the balance equations
//! `π_w · out_w = Σ_j π_j q_{jw}` by Gauss–Seidel sweeps warm-started at the
//! previous solution.
//!
//! Top-k tails are never materialised: every unlisted item of an observation
//! sends the same rate to each winner, so its inflow is that rate times the
//! unlisted mass, and its outflow is a per-observation constant.

use crate::data::{Dataset, Tail};
use crate::error::{Error, Result};
use crate::model::pl::{self, Scope};
use crate::numerics::max_abs;

/// Result of [`ilsr`].
#[derive(Debug, Clone)]
pub struct LsrResult {
    /// Mean-centred log-worths.
    pub theta: Vec<f64>,
    /// Outer iterations.
    pub iterations: usize,
    /// Whether the score tolerance was met.
    pub converged: bool,
    /// Log-likelihood at `theta`.
    pub loglik: f64,
    /// Max-norm of the score.
    pub score_norm: f64,
}

struct Chain {
    /// CSR by target: incoming (source, rate).
    start: Vec<usize>,
    src: Vec<u32>,
    rate: Vec<f64>,
    out: Vec<f64>,
    /// Universe part: per (winner, rate, observation) of top-k observations.
    uni: Vec<(u32, f64, usize)>,
}

/// Visit every transition of the chain built at `pi`: `edge(w, j, t)` for
/// an explicit loser `j` sending rate `t` to winner `w`, `uni(w, t, o)` for
/// the rate every unlisted item of top-k observation `o` sends to `w`.
/// Returns the total outflow of each item.
fn visit(
    ds: &Dataset,
    pi: &[f64],
    mut edge: impl FnMut(u32, u32, f64),
    mut uni: impl FnMut(u32, f64, usize),
) -> Vec<f64> {
    let n = ds.n_items();
    let total: f64 = pi[..ds.universe()].iter().sum();
    let mut out = vec![0.0; n];
    let mut uni_out = 0.0;
    let mut suffix = Vec::new();
    for o in 0..ds.n_obs() {
        let obs = ds.obs(o);
        let mem = obs.members;
        let rem = if obs.tail == Tail::Universe {
            pl::unlisted_sum(ds, mem, pi, total)
        } else {
            0.0
        };
        suffix.clear();
        suffix.resize(mem.len() + 1, 0.0);
        suffix[mem.len()] = rem;
        for k in (0..mem.len()).rev() {
            suffix[k] = suffix[k + 1] + pi[mem[k] as usize];
        }
        let ranked = obs.ranked_len();
        let last = if obs.tail == Tail::None {
            ranked - 1
        } else {
            ranked
        };
        let mut c_obs = 0.0;
        for k in 0..last {
            let w = mem[k];
            let t = obs.weight / suffix[k];
            for &j in &mem[k + 1..] {
                edge(w, j, t);
                out[j as usize] += t;
            }
            if obs.tail == Tail::Universe {
                uni(w, t, o);
                c_obs += t;
            }
        }
        if obs.tail == Tail::Universe {
            uni_out += c_obs;
            for &j in mem {
                if (j as usize) < ds.universe() {
                    out[j as usize] -= c_obs;
                }
            }
            // Listed items are not unlisted losers of their own observation,
            // but winners at later stages were losers at earlier ones, which
            // the explicit edges above already count.
        }
    }
    for x in out[..ds.universe()].iter_mut() {
        *x += uni_out;
    }
    out
}

/// The chain as sparse incoming lists (for chains too large for LU).
fn build(ds: &Dataset, pi: &[f64]) -> Chain {
    let n = ds.n_items();
    let mut edges: Vec<(u32, u32, f64)> = Vec::new();
    let mut uni = Vec::new();
    let out = visit(
        ds,
        pi,
        |w, j, t| edges.push((w, j, t)),
        |w, t, o| uni.push((w, t, o)),
    );
    edges.sort_unstable_by_key(|e| e.0);
    let mut start = vec![0usize; n + 1];
    for e in &edges {
        start[e.0 as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    Chain {
        start,
        src: edges.iter().map(|e| e.1).collect(),
        rate: edges.iter().map(|e| e.2).collect(),
        out,
        uni,
    }
}

/// Stationary distribution of a small chain by one LU solve of the balance
/// equations `A π = 0` (`A_{wj} = q_{jw}`, `A_{ww} = −out_w`), the last
/// equation replaced by `Σπ = 1`. The rates are accumulated straight into
/// the dense matrix: no edge list, no sort.
fn stationary_dense(ds: &Dataset, pi: &mut [f64]) -> Result<()> {
    let n = pi.len();
    let u = ds.universe();
    let mut a = nalgebra::DMatrix::<f64>::zeros(n, n);
    // Per top-k observation, the rate its unlisted items send to each
    // winner: added to the winner's row over the whole universe, then
    // taken back from the listed columns.
    let mut uni_rows: Vec<(u32, f64, usize)> = Vec::new();
    let out = visit(
        ds,
        pi,
        |w, j, t| a[(w as usize, j as usize)] += t,
        |w, t, o| uni_rows.push((w, t, o)),
    );
    let mut row_add = vec![0.0; n];
    for &(w, t, o) in &uni_rows {
        row_add[w as usize] += t;
        for &m in ds.obs(o).members {
            if (m as usize) < u {
                a[(w as usize, m as usize)] -= t;
            }
        }
    }
    for w in 0..n {
        if row_add[w] != 0.0 {
            for j in 0..u {
                a[(w, j)] += row_add[w];
            }
        }
        a[(w, w)] -= out[w];
    }
    let mut b = nalgebra::DVector::<f64>::zeros(n);
    for j in 0..n {
        a[(n - 1, j)] = 1.0;
    }
    b[n - 1] = 1.0;
    let x = crate::numerics::linalg::lu_solve(&a, &b).ok_or_else(|| {
        Error::Numerical("I-LSR: singular Markov chain (data not connected)".into())
    })?;
    pi.copy_from_slice(x.as_slice());
    Ok(())
}

/// Largest chain solved by a dense LU decomposition.
const DENSE_MAX: usize = 2_000;

fn unlisted_inflow(ds: &Dataset, ch: &Chain, pi: &[f64], uni_in: &mut [f64]) {
    uni_in.iter_mut().for_each(|x| *x = 0.0);
    if !ch.uni.is_empty() {
        let total: f64 = pi[..ds.universe()].iter().sum();
        for &(w, t, o) in &ch.uni {
            let rem = pl::unlisted_sum(ds, ds.obs(o).members, pi, total);
            uni_in[w as usize] += t * rem;
        }
    }
}

/// Stationary distribution of a large chain, in place (warm start from
/// `pi`).
fn stationary(ds: &Dataset, ch: &Chain, pi: &mut [f64], tol: f64) -> Result<()> {
    let n = pi.len();
    // Large chains: Gauss–Seidel on the lazy chain (relaxation ½), which is
    // aperiodic, so periodic comparison cycles cannot make it oscillate.
    let mut uni_in = vec![0.0; n];
    for _ in 0..100_000 {
        unlisted_inflow(ds, ch, pi, &mut uni_in);
        let mut change = 0.0f64;
        for w in 0..n {
            let mut inflow = uni_in[w];
            for e in ch.start[w]..ch.start[w + 1] {
                inflow += pi[ch.src[e] as usize] * ch.rate[e];
            }
            let new = 0.5 * pi[w] + 0.5 * inflow / ch.out[w];
            change = change.max(((new - pi[w]) / pi[w]).abs());
            pi[w] = new;
        }
        let s: f64 = pi.iter().sum();
        pi.iter_mut().for_each(|x| *x /= s);
        if change < tol {
            return Ok(());
        }
    }
    Err(Error::Numerical(
        "I-LSR: the stationary distribution did not converge".into(),
    ))
}

/// I-LSR from `theta0` (untied data only).
pub fn ilsr(ds: &Dataset, theta0: &[f64], tol: f64, max_iter: usize) -> Result<LsrResult> {
    if ds.has_ties() {
        return Err(Error::Unsupported(
            "I-LSR is defined for untied rankings; use `algorithm=mm` or newton for tied groups"
                .into(),
        ));
    }
    if ds.n_obs() > ds.n_real_obs() {
        return Err(Error::Unsupported(
            "I-LSR does not fix a ghost item; use `algorithm=mm` or newton with `pseudo`".into(),
        ));
    }
    let wins = pl::wins(ds, Scope::All);
    let (lam, _) = pl::scaled(theta0);
    let s: f64 = lam.iter().sum();
    let mut pi: Vec<f64> = lam.iter().map(|l| l / s).collect();
    let mut it = 0;
    loop {
        let theta: Vec<f64> = pi.iter().map(|p| p.ln()).collect();
        let (g, ll) = pl::score(ds, &theta, &wins, Scope::All);
        let sn = max_abs(&g);
        if sn <= tol || it >= max_iter {
            let mut theta = theta;
            crate::numerics::centre(&mut theta);
            return Ok(LsrResult {
                theta,
                iterations: it,
                converged: sn <= tol,
                loglik: ll,
                score_norm: sn,
            });
        }
        it += 1;
        if pi.len() <= DENSE_MAX {
            stationary_dense(ds, &mut pi)?;
        } else {
            let ch = build(ds, &pi);
            stationary(ds, &ch, &mut pi, 1e-13)?;
        }
        if pi.iter().any(|p| !(p.is_finite() && *p > 0.0)) {
            return Err(Error::Numerical(
                "I-LSR produced a non-positive stationary probability".into(),
            ));
        }
    }
}
