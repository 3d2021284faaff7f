//! Settings shared by every Markov chain Monte Carlo engine (the ranking
//! Gibbs sampler, the classifier's sampler, and the samplers to come).

use crate::error::{Error, Result};

/// Draws, burn-in, thinning, chains and seed of a sampler. The output is
/// a function of these alone (not of the thread count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct McmcSettings {
    /// Draws kept per chain.
    pub samples: usize,
    /// Sweeps discarded per chain before the first kept draw.
    pub burn_in: usize,
    /// Keep every `thin`-th sweep after burn-in.
    pub thin: usize,
    /// Independent chains (split-R̂ compares them).
    pub chains: usize,
    /// Seed of every chain's random stream.
    pub seed: u64,
}

/// Most kept draws over all chains an MCMC run may store (per item).
pub const MAX_KEPT_DRAWS: usize = 10_000_000;
/// Most sweeps (burn-in and kept, thinned, over all chains) a run may do.
pub const MAX_SWEEPS: usize = 1_000_000_000;

impl McmcSettings {
    /// `samples` draws per chain after `burn_in`, no thinning.
    pub fn new(samples: usize, burn_in: usize, chains: usize, seed: u64) -> McmcSettings {
        McmcSettings {
            samples,
            burn_in,
            thin: 1,
            chains,
            seed,
        }
    }

    /// The settings if valid: at least one chain, at least four draws per
    /// chain (split-R̂ halves each chain, and a half of one draw has no
    /// variance), `thin ≥ 1`, and a sweep count that fits in memory terms.
    pub fn check(self) -> Result<McmcSettings> {
        if self.chains == 0 {
            return Err(Error::param("chains", "need at least one chain"));
        }
        if self.samples < 4 {
            return Err(Error::param(
                "samples",
                format!(
                    "need at least 4 draws per chain (split-R̂ and ESS compare chain halves), got {}",
                    self.samples
                ),
            ));
        }
        if self.thin == 0 {
            return Err(Error::param("thin", "must be at least 1"));
        }
        // Kept draws are stored (per item), and every sweep costs time: a
        // count no analysis needs is refused before it aborts on memory or
        // runs for days.
        if self
            .samples
            .checked_mul(self.chains)
            .is_none_or(|s| s > MAX_KEPT_DRAWS)
        {
            return Err(Error::param(
                "samples",
                format!(
                    "{} draws × {} chains is too many to keep (at most {MAX_KEPT_DRAWS} in all); \
                     use `thin` for longer runs",
                    self.samples, self.chains
                ),
            ));
        }
        if self
            .samples
            .checked_mul(self.thin)
            .and_then(|s| s.checked_add(self.burn_in))
            .and_then(|s| s.checked_mul(self.chains))
            .is_none_or(|s| s > MAX_SWEEPS)
        {
            return Err(Error::param(
                "burn_in",
                format!(
                    "burn_in + samples × thin over all chains is more than {MAX_SWEEPS} sweeps"
                ),
            ));
        }
        Ok(self)
    }

    /// Sweeps per chain: burn-in plus `samples × thin`.
    pub fn sweeps(&self) -> usize {
        self.burn_in + self.samples * self.thin.max(1)
    }

    /// Whether `sweep` (0-based) is kept.
    pub fn keeps(&self, sweep: usize) -> bool {
        sweep >= self.burn_in && (sweep - self.burn_in).is_multiple_of(self.thin.max(1))
    }
}

impl Default for McmcSettings {
    fn default() -> Self {
        McmcSettings::new(5000, 1000, 4, 1)
    }
}
