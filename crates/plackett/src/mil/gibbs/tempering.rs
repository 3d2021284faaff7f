//! Tempering of the bag labels (Geyer 1991; Syed et al. 2022): the rungs'
//! ladder, its adaptation during the burn-in, the automatic rung count, and
//! the swaps between adjacent rungs of one chain.

use super::*;

/// Parallel tempering of the bag-level likelihood (Geyer 1991), with the
/// deterministic even–odd swap schedule of non-reversible parallel
/// tempering (Syed, Bouchard-Côté, Deligiannidis & Doucet 2022).
///
/// Rung `k` of `K` samples `p(θ) Π p(δ_ij | θ) Π_i Φ(±√τ_k μ_i)` with
/// `τ_k = hottest^{k/(K−1)}`, i.e. the outer probit's noise inflated to
/// variance `1/τ_k`: every rung is the same Albert–Chib sampler with the
/// bag design scaled by `√τ_k`, and rung 0 (`τ = 1`) is the posterior.
/// Only the bag labels are tempered, not the primary indicators' own
/// probit, so the hottest rung samples (nearly) the prior and moves
/// between primary-instance configurations freely. Adjacent rungs swap
/// their `(θ, δ)` after every sweep with the Metropolis probability of
/// the exchange; `y*` and `U` are redrawn by the next sweep before
/// anything conditions on them, so the swap acts on the chain's marginal
/// in `(θ, δ)` and leaves every rung's target unchanged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tempering {
    /// Rungs per chain (1: no tempering). Each costs a sweep.
    pub rungs: usize,
    /// `τ` of the hottest rung, in (0, 1).
    pub hottest: f64,
    /// Re-space the interior rungs during the burn-in so that every
    /// adjacent pair rejects swaps equally often ([`equalise_ladder`];
    /// Syed et al. 2022, §5.3); `false`: keep the geometric ladder.
    pub adapt: bool,
    /// Choose the number of rungs during the burn-in: `rungs` is the pilot
    /// ladder, and at every adaptation of the (then adaptive) ladder the
    /// chains move to `⌈2Λ̂⌉` rungs (at least 3, at most 64) for the
    /// barrier `Λ̂` just measured ([`auto_rungs`]; Syed et al. 2022, §5.3).
    pub auto: bool,
}

impl Default for Tempering {
    fn default() -> Self {
        // 0.03: on Hu 2024's basic setting the lowest τ at which 10 rungs
        // still swap in a fifth of their proposals (docs/mil.md).
        Tempering {
            rungs: 1,
            hottest: 0.03,
            adapt: false,
            auto: false,
        }
    }
}

impl Tempering {
    /// The automatic rung count with its pilot ladder of
    /// [`Tempering::AUTO_PILOT`] rungs (adaptive), down to `hottest`.
    pub fn auto(hottest: f64) -> Tempering {
        Tempering {
            rungs: Tempering::AUTO_PILOT,
            hottest,
            adapt: true,
            auto: true,
        }
    }

    /// Rungs of the pilot ladder of an automatic rung count: enough to
    /// measure a barrier of up to about 7 (a pair's rejection rate is at
    /// most 1, so a ladder of K rungs cannot measure more than K − 1);
    /// larger barriers are found by the next rounds on the larger ladder.
    pub const AUTO_PILOT: usize = 8;

    /// Checked: at least one rung (three for an automatic count), `hottest`
    /// in (0, 1).
    pub fn check(self) -> Result<Tempering> {
        if self.rungs == 0 || self.rungs > 64 {
            return Err(Error::param(
                "temperatures",
                format!("expected 1 to 64 rungs, got {}", self.rungs),
            ));
        }
        if self.auto && self.rungs < 3 {
            return Err(Error::param(
                "temperatures",
                format!(
                    "an automatic rung count starts from a pilot ladder of at least 3 rungs, got {}",
                    self.rungs
                ),
            ));
        }
        if !(self.hottest > 0.0 && self.hottest < 1.0) {
            return Err(Error::param(
                "hottest",
                format!("expected a value in (0, 1), got {}", self.hottest),
            ));
        }
        Ok(self)
    }

    /// The ladder's kind by name, as the front ends spell it: `geometric`
    /// (fixed) or `adaptive` (re-spaced during the burn-in).
    pub fn ladder(self, name: &str) -> Result<Tempering> {
        Ok(Tempering {
            adapt: ladder_adapts(name)?,
            ..self
        })
    }

    /// `τ_k` for every rung of the geometric ladder, coldest (1) first.
    pub fn temperatures(&self) -> Vec<f64> {
        if self.rungs == 1 {
            return vec![1.0];
        }
        (0..self.rungs)
            .map(|k| self.hottest.powf(k as f64 / (self.rungs - 1) as f64))
            .collect()
    }
}

/// Whether the ladder named `name` (`geometric` or `adaptive`) adapts.
pub(super) fn ladder_adapts(name: &str) -> Result<bool> {
    match name {
        "geometric" => Ok(false),
        "adaptive" => Ok(true),
        _ => Err(Error::param(
            "ladder",
            format!("expected geometric or adaptive, got {name:?}"),
        )),
    }
}

/// The number of tempering rungs as the front ends take it: a count, or
/// `auto` (chosen during the burn-in from the measured barrier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RungCount {
    /// This many rungs per chain (1: no tempering).
    Fixed(usize),
    /// [`Tempering::auto`].
    Auto,
}

impl std::str::FromStr for RungCount {
    type Err = Error;
    fn from_str(s: &str) -> Result<RungCount> {
        match s.trim() {
            "auto" => Ok(RungCount::Auto),
            t => t.parse::<usize>().map(RungCount::Fixed).map_err(|_| {
                Error::param(
                    "temperatures",
                    format!(
                        "expected a number of rungs or auto, got {:?}",
                        crate::io::output::short_name(t, 40)
                    ),
                )
            }),
        }
    }
}

impl Tempering {
    /// The tempering the front ends' `temperatures`, `hottest` and `ladder`
    /// describe; `auto` implies the adaptive ladder. Only the ladder's name
    /// is checked here; [`Tempering::check`] (run by [`fit_gibbs`]) checks
    /// the rest.
    pub fn from_options(rungs: RungCount, hottest: f64, ladder: &str) -> Result<Tempering> {
        Ok(match rungs {
            RungCount::Fixed(k) => Tempering {
                rungs: k,
                hottest,
                adapt: false,
                auto: false,
            }
            .ladder(ladder)?,
            RungCount::Auto => {
                // Checked, then overruled: an automatic count adapts.
                ladder_adapts(ladder)?;
                Tempering::auto(hottest)
            }
        })
    }
}

/// `Σ_i ln Φ(±s μ_i)`: the bag labels' log-likelihood at scale `s` given
/// the bags' `μ` (y* integrated out).
pub(super) fn labels_loglik(y: &[bool], mu: &[f64], s: f64) -> f64 {
    y.iter()
        .zip(mu)
        .map(|(&yi, &m)| ln_norm_cdf(if yi { s * m } else { -s * m }))
        .sum()
}

impl Chain<'_> {
    /// Every bag's `μ_i = α + Σ_j δ_ij η_ij` in the current `(θ, δ)`.
    pub(super) fn bag_means(&self) -> Vec<f64> {
        let alpha = self.theta[self.lay.alpha()];
        self.bags
            .bags
            .iter()
            .map(|b| {
                alpha
                    + (b.start..b.end)
                        .filter(|&j| self.delta[j])
                        .map(|j| self.eta[j])
                        .sum::<f64>()
            })
            .collect()
    }

    /// Exchange the states of two rungs (not their scales or sums).
    pub(super) fn exchange(&mut self, other: &mut Chain<'_>) {
        std::mem::swap(&mut self.theta, &mut other.theta);
        std::mem::swap(&mut self.delta, &mut other.delta);
        std::mem::swap(&mut self.u, &mut other.u);
        std::mem::swap(&mut self.ystar, &mut other.ystar);
        std::mem::swap(&mut self.eta, &mut other.eta);
        std::mem::swap(&mut self.nu, &mut other.nu);
    }
}

/// Swap statistics of one adjacent pair of rungs since the ladder last
/// changed.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PairStats {
    pub(super) accepted: usize,
    pub(super) proposed: usize,
    /// Σ over proposals of the rejection probability `1 − min(1, e^r)`:
    /// Syed et al. 2022's estimator of the pair's barrier, with less
    /// variance than counting rejections.
    pub(super) rejection: f64,
}

impl PairStats {
    pub(super) fn add(&mut self, o: PairStats) {
        self.accepted += o.accepted;
        self.proposed += o.proposed;
        self.rejection += o.rejection;
    }

    /// Share of proposed swaps accepted (NaN before any proposal).
    pub(super) fn acceptance(&self) -> f64 {
        self.accepted as f64 / self.proposed as f64
    }

    /// Mean rejection probability per proposal (NaN before any proposal).
    pub(super) fn rejection_rate(&self) -> f64 {
        self.rejection / self.proposed as f64
    }
}

/// One chain of the sampler: its rungs (one without tempering), kept draws
/// from the coldest, and per adjacent pair the swap statistics since the
/// ladder last changed.
pub(super) struct TemperedChain<'a> {
    pub(super) rungs: Vec<Chain<'a>>,
    pub(super) rngs: Vec<Rng>,
    pub(super) swap_rng: Rng,
    pub(super) draws: Vec<f64>,
    pub(super) pairs: Vec<PairStats>,
}

impl<'a> TemperedChain<'a> {
    pub(super) fn new(
        bags: &'a Bags,
        y: &'a [bool],
        opts: &MilGibbsOptions,
        inst_precision: &'a [DMatrix<f64>; 2],
        init: Option<&[f64]>,
        mcmc: &McmcSettings,
        c: usize,
    ) -> TemperedChain<'a> {
        let mut rngs: Vec<Rng> = (0..opts.tempering.rungs)
            .map(|k| {
                if k == 0 {
                    stream(mcmc.seed, &[0x4d49_4c47, c as u64])
                } else {
                    stream(mcmc.seed, &[0x4d49_4c47, c as u64, k as u64])
                }
            })
            .collect();
        let rungs = rngs
            .iter_mut()
            .map(|rng| Chain::new(bags, y, opts.priors, inst_precision, init, rng))
            .collect();
        let mut chain = TemperedChain {
            rungs,
            rngs,
            swap_rng: stream(mcmc.seed, &[0x4d49_4c53, c as u64]),
            draws: Vec::with_capacity(mcmc.samples * Layout::of(bags).len()),
            pairs: Vec::new(),
        };
        chain.set_ladder(&opts.tempering.temperatures());
        chain
    }

    /// Run sweeps `from..to` of the whole run (burn-in included), each
    /// followed by the swaps of the even–odd schedule.
    pub(super) fn advance(
        &mut self,
        y: &[bool],
        mcmc: &McmcSettings,
        observer: Option<&SharedObserver>,
        from: usize,
        to: usize,
    ) -> Result<()> {
        for s in from..to {
            let keep = mcmc.keeps(s);
            for (k, (ch, rng)) in self.rungs.iter_mut().zip(self.rngs.iter_mut()).enumerate() {
                ch.sweep(rng, keep && k == 0)?;
            }
            // Deterministic even–odd schedule: pairs (0,1), (2,3), … after
            // even sweeps, (1,2), (3,4), … after odd ones.
            let mut k = s % 2;
            while k + 1 < self.rungs.len() {
                let (lo, hi) = self.rungs.split_at_mut(k + 1);
                let (a, b) = (&mut lo[k], &mut hi[0]);
                let (mu_a, mu_b) = (a.bag_means(), b.bag_means());
                let log_ratio = labels_loglik(y, &mu_a, b.scale) + labels_loglik(y, &mu_b, a.scale)
                    - labels_loglik(y, &mu_a, a.scale)
                    - labels_loglik(y, &mu_b, b.scale);
                let pair = &mut self.pairs[k];
                pair.proposed += 1;
                pair.rejection += 1.0 - log_ratio.min(0.0).exp();
                if self.swap_rng.random::<f64>().ln() < log_ratio {
                    a.exchange(b);
                    pair.accepted += 1;
                }
                k += 2;
            }
            if keep {
                self.draws.extend_from_slice(&self.rungs[0].theta);
            }
            observer::advance(observer, 1)?;
        }
        Ok(())
    }

    /// Put the rungs at temperatures `tau` (their states stay; each rung
    /// scales its bag design by `√τ`) and restart the swap statistics.
    pub(super) fn set_ladder(&mut self, tau: &[f64]) {
        for (ch, &t) in self.rungs.iter_mut().zip(tau) {
            ch.scale = t.sqrt();
        }
        self.pairs = vec![PairStats::default(); tau.len().saturating_sub(1)];
    }

    /// Move from ladder `old` to ladder `new` (of another length; an
    /// automatic rung count during the burn-in): rung 0 keeps its state
    /// and stream, every other new rung copies the state of the old rung
    /// nearest to it in `ln τ` and draws from a fresh stream keyed by the
    /// chain, the rung and the adaptation round.
    pub(super) fn resize(&mut self, old: &[f64], new: &[f64], seed: u64, c: usize, round: usize) {
        let nearest = |t: f64| {
            (0..old.len())
                .min_by(|&a, &b| {
                    (old[a].ln() - t.ln())
                        .abs()
                        .total_cmp(&(old[b].ln() - t.ln()).abs())
                })
                .unwrap_or(0)
        };
        let mut rungs = vec![self.rungs[0].clone()];
        let mut rngs = vec![self.rngs[0].clone()];
        for (k, &t) in new.iter().enumerate().skip(1) {
            rungs.push(self.rungs[nearest(t)].clone());
            rngs.push(stream(
                seed,
                &[0x4d49_4c47, c as u64, k as u64, 0x5253_495a, round as u64],
            ));
        }
        self.rungs = rungs;
        self.rngs = rngs;
        self.set_ladder(new);
    }
}

/// Where the adaptive ladder is re-spaced: after sweeps `B/32, B/16, B/8,
/// B/4, B/2` of a burn-in of `B` (rounds of doubling length, Syed et al.
/// 2022 §5.3), leaving out rounds shorter than 16 sweeps; the second half
/// of the burn-in and every kept sweep run on the final ladder.
pub(super) fn adaptation_points(burn_in: usize) -> Vec<usize> {
    let mut at: Vec<usize> = (1..=5)
        .rev()
        .map(|r| burn_in >> r)
        .filter(|&b| b >= 16)
        .collect();
    at.dedup();
    at
}

/// The ladder that spaces the rungs evenly in the communication barrier
/// (Syed, Bouchard-Côté, Deligiannidis & Doucet 2022, §5.3): with rejection
/// rates `r_k` between rungs `k` and `k + 1`, the cumulative barrier
/// `Λ(τ_k) = Σ_{j<k} r_j` is interpolated linearly in `ln τ` and inverted at
/// `Λ(hottest)·i/(K − 1)`. The ends (1 and the hottest τ) stay put. Every
/// rate is floored at 10⁻³ so that `Λ` is strictly increasing; a ladder
/// whose rates are all unknown is returned as it is.
pub fn equalise_ladder(tau: &[f64], rejection: &[f64]) -> Vec<f64> {
    respace_ladder(tau, rejection, tau.len())
}

/// [`equalise_ladder`] with `rungs` rungs instead of `tau.len()` (at least
/// 3): the barrier measured on `tau` spread evenly over a ladder of another
/// length. A ladder whose rates are unknown is returned as it is.
pub fn respace_ladder(tau: &[f64], rejection: &[f64], rungs: usize) -> Vec<f64> {
    let k = tau.len();
    if k < 2 || rungs < 3 || rejection.len() + 1 != k || rejection.iter().any(|r| !r.is_finite()) {
        return tau.to_vec();
    }
    let u: Vec<f64> = tau.iter().map(|t| t.ln()).collect();
    let mut lambda = vec![0.0; k];
    for j in 0..k - 1 {
        lambda[j + 1] = lambda[j] + rejection[j].max(1e-3);
    }
    let total = lambda[k - 1];
    let mut out = Vec::with_capacity(rungs);
    out.push(tau[0]);
    let mut seg = 0;
    for i in 1..rungs - 1 {
        let target = total * i as f64 / (rungs - 1) as f64;
        while seg + 1 < k - 1 && lambda[seg + 1] < target {
            seg += 1;
        }
        let w = (target - lambda[seg]) / (lambda[seg + 1] - lambda[seg]);
        out.push((u[seg] + w * (u[seg + 1] - u[seg])).exp());
    }
    out.push(tau[k - 1]);
    out
}

/// The number of rungs an automatic count moves to after measuring the
/// rejection rates `rejection` of a ladder: `⌈2Λ̂⌉` for the barrier
/// `Λ̂ = Σ r_k`, between 3 and 64 (Syed et al. 2022, §5.3: about 2Λ rungs
/// carry states across a barrier Λ); `None` while a rate is unknown.
pub fn auto_rungs(rejection: &[f64]) -> Option<usize> {
    if rejection.is_empty() || rejection.iter().any(|r| !r.is_finite()) {
        return None;
    }
    let barrier: f64 = rejection.iter().sum();
    Some(((2.0 * barrier).ceil() as usize).clamp(3, 64))
}

/// Every chain's swap statistics, pair by pair, summed in chain order.
pub(super) fn pooled_pairs(chains: &[TemperedChain<'_>]) -> Vec<PairStats> {
    let mut out = vec![PairStats::default(); chains.first().map_or(0, |c| c.pairs.len())];
    for ch in chains {
        for (t, p) in out.iter_mut().zip(&ch.pairs) {
            t.add(*p);
        }
    }
    out
}
