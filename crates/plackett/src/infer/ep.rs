//! Power EP with α = −1 for PL under Gamma priors (Guiver & Snelson 2009,
//! §3.3–3.4), fully factorised Gamma posterior, one factor per choice stage.
//!
//! Messages `m_{a→i}(v) = v^{s} e^{−r v}` are stored as natural parameters
//! `(s, r)` and may be improper. For factor `a` (winner `k`, in-play set `S`)
//! and item `j ∈ S` the power-EP cavity is `g_{aj} = q_j·m_{a→j}` (eq 14),
//! `Gam(γ_j, δ_j)` with `γ_j = shape_j + s_{aj}`, `δ_j = rate_j + r_{aj}`. The
//! tilted distribution is a two-component Gamma mixture (eqs 15–17), its
//! first two moments (eq 18) give the projection `q'_j` (eq 19), and the
//! updates are `q_j ← q_j²/q'_j`, `m_{a→j} ← q_j/m_{j→a}` (eqs 20–21).
//!
//! A weighted observation is one site per stage raised to its weight `w`,
//! `f^w ≈ f̃^w`, updated by power EP with power `α/w` on the whole site
//! (Minka 2004, "Power EP", §2): its cavity removes one copy's message, so
//! the tilted distribution is the unweighted one, and the marginal moves by
//! `w` times the change of that message. The fixed points are those of `w`
//! repeated factors with equal messages (tested against the expansion), and
//! the cost is O(1) in `w`, fractional weights included. Unknown-order ties are
//! refused (the tilted distribution of a sum over orders is not a small
//! mixture); the Gibbs sampler, VB and MLE handle them.
//!
//! The log-evidence follows Minka (2005, §4.4) for power EP: each
//! approximate factor is rescaled by
//! `s_a = (∫ f_a^α q^{∖a} / ∫ f̃_a^α q^{∖a})^{1/α}` and
//! `log Z = log ∫ p₀ Π_a f̃_a + Σ_a log s_a`.

use super::bayes::{BayesFit, GammaPrior, draws_from_gammas};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::numerics::special::ln_gamma;

/// Settings for [`ep`].
#[derive(Debug, Clone)]
pub struct EpOptions {
    /// Gamma prior (the paper uses Gamma(3, 2)).
    pub prior: GammaPrior,
    /// Stop when no marginal shape or normalised mean changes by more than
    /// this (relative) over a pass.
    pub tol: f64,
    /// Maximum passes over the factors.
    pub max_passes: usize,
    /// Initial damping (1 = none); halved on failure, down to `min_damping`.
    pub damping: f64,
    /// Smallest damping tried before giving up.
    pub min_damping: f64,
    /// Draws sampled from the approximate posterior for intervals and
    /// downstream summaries.
    pub draws: usize,
    /// Seed for those draws.
    pub seed: u64,
    /// After each pass, rescale every likelihood message's rate so that the
    /// marginal means sum to `Σa/b`, the exact posterior mean of the total
    /// worth (PL likelihoods do not see the total). Removes the slow drift
    /// of the overall scale; the fixed point is unchanged (tested).
    pub rescale: bool,
}

impl EpOptions {
    /// The defaults `plackett fit --engine ep` uses, with `prior`: tolerance
    /// 1e-8, at most 5,000 passes, undamped at first (halved on failure down
    /// to 1/64), 4,000 draws with seed 1, total worth rescaled each pass.
    pub fn new(prior: GammaPrior) -> EpOptions {
        EpOptions {
            prior,
            tol: 1e-8,
            max_passes: 5000,
            damping: 1.0,
            min_damping: 1.0 / 64.0,
            draws: 4000,
            seed: 1,
            rescale: true,
        }
    }
}

struct Factors {
    /// Items of each factor; the first is the winner.
    items: Vec<u32>,
    off: Vec<usize>,
    /// Observation and stage of each factor (for messages).
    origin: Vec<(usize, usize)>,
    /// Weight of each factor's site (the observation's weight).
    weight: Vec<f64>,
}

/// Most message slots (item × stage pairs, unlisted items of top-k rankings
/// included) EP stores; each costs 20 bytes.
pub const MAX_EP_SLOTS: f64 = 30_000_000.0;

fn build_factors(ds: &Dataset) -> Result<Factors> {
    let universe = ds.universe();
    let slots: f64 = (0..ds.n_obs())
        .map(|o| {
            let obs = ds.obs(o);
            let k = ds.fast_stages(o).unwrap_or(0) as f64;
            let unlisted = if obs.tail == crate::data::Tail::Universe {
                let listed = obs
                    .members
                    .iter()
                    .filter(|&&i| (i as usize) < universe)
                    .count();
                universe.saturating_sub(listed) as f64
            } else {
                0.0
            };
            k * (obs.members.len() as f64 + unlisted) - k * (k - 1.0) / 2.0
        })
        .sum();
    if slots > MAX_EP_SLOTS {
        return Err(Error::Unsupported(format!(
            "EP keeps one message per item in play at every choice stage: these data need {} \
             (limit {}); use `engine=vb`, gibbs or mle",
            crate::numerics::sig(slots, 3),
            MAX_EP_SLOTS
        )));
    }
    let mut f = Factors {
        items: Vec::new(),
        off: vec![0],
        origin: Vec::new(),
        weight: Vec::new(),
    };
    let mut listed = vec![false; ds.universe()];
    for o in 0..ds.n_obs() {
        let obs = ds.obs(o);
        if ds.ties() == crate::data::TieSemantics::Event && obs.has_tie() {
            return Err(Error::Unsupported(format!(
                "observation {} has a tie read as an event; ties as events (Davidson–Luce) are \
                 fitted by `engine=mle` or map",
                o + 1
            )));
        }
        let Some(stages) = ds.fast_stages(o) else {
            return Err(Error::Unsupported(format!(
                "observation {} has an unknown-order tied group; EP does not support unknown-order \
                 ties — use `engine=gibbs` or `engine=mle` (or vb)",
                o + 1
            )));
        };
        let unlisted = ds.unlisted(&obs, &mut listed);
        for k in 0..stages {
            f.items.extend_from_slice(&obs.members[k..]);
            f.items.extend_from_slice(&unlisted);
            f.off.push(f.items.len());
            f.origin.push((o, k));
            f.weight.push(obs.weight);
        }
    }
    Ok(f)
}

/// Why one factor update failed.
struct Failure {
    factor: usize,
    item: u32,
    what: &'static str,
}

/// One damped update of factor `a`. All new messages are computed and
/// checked first and committed only if every distribution stays proper, so
/// a failed update leaves the state untouched.
#[allow(clippy::too_many_arguments)]
fn update(
    a: usize,
    f: &Factors,
    ms: &mut [f64],
    mr: &mut [f64],
    shape: &mut [f64],
    rate: &mut [f64],
    eps: f64,
    buf: &mut Vec<(f64, f64)>,
    new: &mut Vec<(f64, f64)>,
) -> std::result::Result<(), Failure> {
    let (s0, s1) = (f.off[a], f.off[a + 1]);
    let w = f.weight[a];
    buf.clear();
    new.clear();
    let mut sum_mu = 0.0;
    for (k, slot) in (s0..s1).enumerate() {
        let j = f.items[slot] as usize;
        let g = shape[j] + ms[slot];
        let d = rate[j] + mr[slot];
        if !(g > 0.0 && d > 0.0) || (k == 0 && g <= 1.0) {
            return Err(Failure {
                factor: a,
                item: j as u32,
                what: "cavity distribution is improper",
            });
        }
        if k > 0 {
            sum_mu += g / d;
        }
        buf.push((g, d));
    }
    let (gw, dw) = buf[0];
    let inv_w = dw / (gw - 1.0); // E[1/v_k] under the cavity
    for (k, slot) in (s0..s1).enumerate() {
        let j = f.items[slot] as usize;
        let (g, d) = buf[k];
        // The tilted marginal is p·Gam(a, b) + q·Gam(a+1, b) with p + q = 1
        // (eqs 15–17): a = γ−1 for the winner, γ otherwise. Its moments
        // (eq 18) are mean (a+q)/b and variance (a + q(2−q))/b², and the
        // projection (eq 19) is Gam((a+q)²/v, (a+q)/v) with v = a + q(2−q).
        // The message m = g/q' (eqs 20–21) is written out so that nothing
        // cancels: `g − shape'` and `δ − rate'` are O(1) while g is the
        // size of the data, and a weighted site multiplies them by w.
        let mu = g / d;
        let (cc, dd) = if k == 0 {
            (inv_w * sum_mu, 1.0)
        } else {
            (1.0 + inv_w * (sum_mu - mu), inv_w * mu)
        };
        let q = dd / (cc + dd);
        let a_t = if k == 0 { g - 1.0 } else { g };
        let v = a_t + q * (2.0 - q);
        if !(v > 0.0 && a_t + q > 0.0 && q.is_finite()) {
            return Err(Failure {
                factor: a,
                item: j as u32,
                what: "projection has no positive variance",
            });
        }
        let (ds_msg, dr_msg) = if k == 0 {
            // g − (g−1+q)²/v = (1−q)(g(1+q) − (1−q))/v
            (
                (1.0 - q) * (g * (1.0 + q) - (1.0 - q)) / v,
                d * q * (1.0 - q) / v,
            )
        } else {
            // g − (g+q)²/v = −q²(g+1)/v
            (-q * q * (g + 1.0) / v, d * q * (1.0 - q) / v)
        };
        // New message, damped in natural parameters.
        let s_new = (1.0 - eps) * ms[slot] + eps * ds_msg;
        let r_new = (1.0 - eps) * mr[slot] + eps * dr_msg;
        let sh = shape[j] + w * (s_new - ms[slot]);
        let rt = rate[j] + w * (r_new - mr[slot]);
        if !(sh > 0.0 && rt > 0.0) {
            return Err(Failure {
                factor: a,
                item: j as u32,
                what: "marginal would become improper",
            });
        }
        new.push((s_new, r_new));
    }
    for (k, slot) in (s0..s1).enumerate() {
        let j = f.items[slot] as usize;
        let (s_new, r_new) = new[k];
        shape[j] += w * (s_new - ms[slot]);
        rate[j] += w * (r_new - mr[slot]);
        ms[slot] = s_new;
        mr[slot] = r_new;
    }
    Ok(())
}

/// Multiply every likelihood message's rate by `k` (marginal rates become
/// `b + k·R_i`) with `k` chosen so that `Σ_i shape_i/rate_i = target`
/// (monotone in `k`; solved by bisection in log space).
fn rescale_messages(mr: &mut [f64], shape: &[f64], rate: &mut [f64], b0: f64, target: f64) {
    let r: Vec<f64> = rate.iter().map(|x| x - b0).collect();
    let total = |k: f64| -> f64 { shape.iter().zip(&r).map(|(a, ri)| a / (b0 + k * ri)).sum() };
    // Proper marginals need b + k·R_i > 0 for all i.
    let kmin = r
        .iter()
        .filter(|&&ri| ri < 0.0)
        .map(|&ri| -b0 / ri)
        .fold(0.0f64, f64::max);
    let (mut lo, mut hi) = (kmin.max(1e-12).ln(), 50.0f64);
    if !(total(lo.exp()) >= target && total(hi.exp()) <= target) {
        return; // constraint not reachable: leave the scale alone
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if total(mid.exp()) > target {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-15 {
            break;
        }
    }
    let k = (0.5 * (lo + hi)).exp();
    if !(k.is_finite() && k > 0.0) {
        return;
    }
    mr.iter_mut().for_each(|x| *x *= k);
    for i in 0..rate.len() {
        rate[i] = b0 + k * r[i];
    }
}

/// Run power EP.
pub fn ep(ds: &Dataset, opts: &EpOptions) -> Result<BayesFit> {
    let n = ds.n_items();
    if opts.prior.shapes.len() != n {
        return Err(Error::Data(
            "prior shapes do not match the number of items".into(),
        ));
    }
    if let Some(a) = opts.prior.shapes.iter().find(|&&a| a <= 1.0) {
        return Err(Error::param(
            "prior_shape",
            format!(
                "EP with alpha = -1 needs E[1/worth] under every cavity, which requires prior shape > 1 (got {a}); Guiver & Snelson use 3 — or use `engine=gibbs` or vb"
            ),
        ));
    }
    let f = build_factors(ds)?;
    let n_f = f.off.len() - 1;
    let b0 = opts.prior.rate;
    let mut buf = Vec::new();
    let mut newbuf = Vec::new();
    // A failed update means the messages have wandered where a cavity is
    // improper; damping later cannot repair that, so restart from the prior
    // with half the damping (Guiver & Snelson report no failures at
    // Gamma(3, 2); weaker priors sometimes need 1/2).
    let mut eps = opts.damping.clamp(opts.min_damping, 1.0);
    // Start from the VB solution written as messages: each factor sends its
    // winner a shape increment of 1 and every item in play the rate
    // increment 1/D̄ (D̄ the factor's in-play total at the VB means). The
    // marginals then start at the VB posterior, so every item's wins are in
    // its marginal from the first pass; from uniform messages (Guiver &
    // Snelson's start) an item that loses often before it first wins can
    // meet an improper cavity in pass 1, because α = −1 updates lower the
    // shape of losers. The fixed point does not depend on the start.
    let start = super::vb::vb(
        ds,
        &super::vb::VbOptions {
            prior: opts.prior.clone(),
            iter: crate::numerics::fixed_point::IterSettings::new(1e-8, 10_000),
            draws: 0,
            seed: 0,
            observer: None,
            covariance: super::vb::VbCovariance::MeanField,
        },
    )
    .ok()
    .and_then(|v| v.marginals)
    .map(|m| m.iter().map(|(a, b)| a / b).collect::<Vec<f64>>());
    let (ms0, mr0) = {
        let mut ms = vec![0.0; f.items.len()];
        let mut mr = vec![0.0; f.items.len()];
        if let Some(mean) = &start {
            for a in 0..n_f {
                let (s0, s1) = (f.off[a], f.off[a + 1]);
                let dbar: f64 = (s0..s1).map(|slot| mean[f.items[slot] as usize]).sum();
                ms[s0] = 1.0;
                for slot in s0..s1 {
                    mr[slot] = 1.0 / dbar;
                }
            }
        }
        (ms, mr)
    };
    let (shape0, rate0) = {
        let mut shape = opts.prior.shapes.clone();
        let mut rate = vec![b0; n];
        for a in 0..n_f {
            for slot in f.off[a]..f.off[a + 1] {
                let j = f.items[slot] as usize;
                shape[j] += f.weight[a] * ms0[slot];
                rate[j] += f.weight[a] * mr0[slot];
            }
        }
        (shape, rate)
    };
    let (ms, mr, shape, rate, trace, converged, passes) = loop {
        let mut ms = ms0.clone();
        let mut mr = mr0.clone();
        let mut shape = shape0.clone();
        let mut rate = rate0.clone();
        let mut trace = Vec::new();
        let mut converged = false;
        let mut passes = 0;
        let mut failure: Option<Failure> = None;
        while passes < opts.max_passes {
            passes += 1;
            let (old_s, old_r) = (shape.clone(), rate.clone());
            for a in 0..n_f {
                if let Err(e) = update(
                    a,
                    &f,
                    &mut ms,
                    &mut mr,
                    &mut shape,
                    &mut rate,
                    eps,
                    &mut buf,
                    &mut newbuf,
                ) {
                    failure = Some(e);
                    break;
                }
            }
            if failure.is_some() {
                break;
            }
            if opts.rescale {
                rescale_messages(
                    &mut mr,
                    &shape,
                    &mut rate,
                    b0,
                    opts.prior.shapes.iter().sum::<f64>() / b0,
                );
            }
            // Convergence on scale-free quantities: shapes and normalised
            // means. The overall scale is identified by the prior alone and
            // drifts slowly when the data dominate; it does not enter any
            // normalised output (and moves the evidence by ~1e-5 over
            // thousands of passes on 5,000 rankings).
            let tot_new: f64 = (0..n).map(|i| shape[i] / rate[i]).sum();
            let tot_old: f64 = (0..n).map(|i| old_s[i] / old_r[i]).sum();
            let change = (0..n)
                .map(|i| {
                    let m_new = shape[i] / rate[i] / tot_new;
                    let m_old = old_s[i] / old_r[i] / tot_old;
                    ((shape[i] - old_s[i]) / old_s[i])
                        .abs()
                        .max(((m_new - m_old) / m_old).abs())
                })
                .fold(0.0f64, f64::max);
            trace.push(change);
            if change < opts.tol {
                converged = true;
                break;
            }
        }
        match failure {
            None => break (ms, mr, shape, rate, trace, converged, passes),
            Some(e) => {
                if eps / 2.0 >= opts.min_damping {
                    eps /= 2.0;
                    continue;
                }
                let (o, k) = f.origin[e.factor];
                return Err(Error::Numerical(format!(
                    "EP failed at observation {}, stage {} (item {:?}) in pass {passes}: the {} even \
                     with damping {eps}; use a stronger prior (larger `prior_shape`) or `engine=gibbs` / vb",
                    o + 1,
                    k + 1,
                    ds.items().name(e.item),
                    e.what
                )));
            }
        }
    };
    {
        // Log-evidence (power EP, α = −1).
        let log_z_gamma = |g: f64, d: f64| ln_gamma(g) - g * d.ln();
        let mut log_z: f64 = (0..n)
            .map(|i| {
                let a0 = opts.prior.shapes[i];
                a0 * b0.ln() - ln_gamma(a0) + log_z_gamma(shape[i], rate[i])
            })
            .sum();
        for a in 0..n_f {
            let (s0, s1) = (f.off[a], f.off[a + 1]);
            let mut sum_mu = 0.0;
            let mut corr = 0.0;
            let (mut gw, mut dw) = (0.0, 0.0);
            for (k, slot) in (s0..s1).enumerate() {
                let j = f.items[slot] as usize;
                let g = shape[j] + ms[slot];
                let d = rate[j] + mr[slot];
                if k == 0 {
                    gw = g;
                    dw = d;
                } else {
                    sum_mu += g / d;
                }
                corr += log_z_gamma(shape[j], rate[j]) - log_z_gamma(g, d);
            }
            log_z += f.weight[a] * (corr - (1.0 + dw / (gw - 1.0) * sum_mu).ln());
        }
        let marginals: Vec<(f64, f64)> = shape.iter().copied().zip(rate.iter().copied()).collect();
        let mut notes = Vec::new();
        if eps < 1.0 {
            notes.push(format!(
                "EP restarted with damping {eps} to keep every cavity proper"
            ));
        }
        if !converged {
            notes.push(format!(
                "EP did not converge in {} passes (last relative change {:.2e})",
                passes,
                trace.last().copied().unwrap_or(f64::NAN)
            ));
        }
        Ok(BayesFit {
            engine: "ep".into(),
            draws: draws_from_gammas(&marginals, opts.draws, opts.seed),
            marginals: Some(marginals),
            covariance: None,
            converged,
            iterations: passes,
            tolerance: Some(opts.tol),
            log_evidence: Some(log_z),
            elbo: None,
            trace,
            diagnostics: None,
            notes,
        })
    }
}
