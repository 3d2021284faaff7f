//! The exact-posterior gold standard for vMMIC: a Gibbs sampler for the
//! same two-level probit model and priors (Albert & Chib 1993 augmentation
//! at both levels; MICProB, Xiong et al. 2024, in the unimodal case).
//!
//! One sweep:
//!
//! 1. every `δ_ij` from `p(δ_ij | δ_i,−j, θ, y_i)` with `y*_i` and `U_ij`
//!    integrated out: `P(δ_ij = 1) ∝ Φ(ν_ij) Φ(±(μ_−j + η_ij))` against
//!    `Φ(−ν_ij) Φ(±μ_−j)`, where `μ_−j = α + Σ_{j'≠j} δ_ij' η_ij'` and the
//!    sign is that of the label (a partially collapsed step, van Dyk & Park
//!    2008: the variables integrated out are drawn right after);
//! 2. `y*_i` and every `U_ij` from their truncated normals;
//! 3. `(α, β, γ)` jointly from the Gaussian regression of `y*` on
//!    `(1, Σ_j δ_ij x_ij, Σ_j δ_ij z_ij)`, and `(a, b)`, `(c, d)` jointly
//!    from the regressions of `U` on `(1, x)` and `(1, z)`, each after a
//!    scale move (Liu & Wu 1999);
//! 4. `(a, b)` and `(c, d)` again with the residuals `U − ν` held fixed,
//!    so that `δ` moves with them (ancillarity–sufficiency interweaving,
//!    Yu & Meng 2011), by an elliptical slice move (Murray, Adams & MacKay
//!    2010).
//!
//! Optionally every chain runs as several rungs with the bag labels
//! tempered, swapping states between neighbours ([`Tempering`]; Geyer 1991,
//! Syed et al. 2022): the primary-instance configurations that single
//! chains do not cross are crossed at the hot rungs.
//!
//! Blocking the coefficients jointly (MICProB draws them jointly too) and
//! collapsing δ's step over `U` and `y*` are what keep the chain mixing
//! when bags are well separated; step 4 is what lets a weakly identified
//! instance level (a minority modality whose primary instances barely move
//! the bags) cross its posterior: on the small design of docs/mil.md the
//! chains' max R̂ fell from 1.31 to 1.03 with it. Chains run in parallel from their own
//! counter-based streams: the output depends on the seed alone.

use super::bags::Bags;
use super::params::{Layout, MilPriors};
use crate::error::{Error, Result};
use crate::numerics::linalg::Cholesky;
use crate::numerics::probit::{ln_norm_cdf, ln_norm_cdf_both, truncated_draw};
use crate::numerics::sigmoid;
use crate::numerics::slice::ellipse_slice;
use crate::observer::{self, SharedObserver};
use crate::posterior::diagnostics::{ScalarDiagnostics, diagnose};
use crate::sampling::mcmc::McmcSettings;
use crate::sampling::rng::{Rng, stream};
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

mod chain;
mod fit;
mod tempering;
#[cfg(test)]
mod tests;

use chain::*;
pub use fit::fit_gibbs;
use tempering::*;
pub use tempering::{RungCount, Tempering, auto_rungs, equalise_ladder, respace_ladder};

/// Sd of each chain's jitter around a given start ([`MilGibbsOptions::init`]):
/// the chains begin apart, so that R̂ can see whether they meet, but in the
/// start's primary-instance configuration.
const INIT_JITTER: f64 = 0.1;

/// Settings of [`fit_gibbs`].
#[derive(Clone)]
pub struct MilGibbsOptions {
    /// Priors (the same as VB's).
    pub priors: MilPriors,
    /// Draws, burn-in, thinning, chains, seed.
    pub mcmc: McmcSettings,
    /// Told of finished sweeps; may cancel.
    pub observer: Option<SharedObserver>,
    /// Where the chains start (θ in [`Layout`] order; each chain adds its
    /// own jitter); `None`: as `start` says.
    pub init: Option<Vec<f64>>,
    /// Where the chains start when `init` is not given.
    pub start: GibbsStart,
    /// Parallel tempering of the bag labels (one rung: none).
    pub tempering: Tempering,
}

/// Where the Gibbs chains start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GibbsStart {
    /// Around the mode of the bag labels' approximate marginal posterior
    /// ([`super::marginal`]), each chain jittered by `N(0, 0.1²)`: the
    /// chains do not cross between primary-instance configurations in
    /// runs of practical length (docs/mil.md), so where they start decides
    /// which one they describe, and this one classifies held-out bags and
    /// ranks instances better (Hu 2024 §2.3's basic setting, 20 data sets:
    /// bag AUROC 0.910 against 0.904 from dispersed starts, primary-instance
    /// AUROC 0.921 against 0.827). Dispersed starts if the mode cannot be
    /// found.
    #[default]
    Marginal,
    /// Every coordinate drawn from `N(0, 0.5²)`, independently per chain.
    Dispersed,
}

impl GibbsStart {
    /// The spelling [`GibbsStart::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            GibbsStart::Marginal => "marginal",
            GibbsStart::Dispersed => "dispersed",
        }
    }

    /// `marginal` or `dispersed` (the command line's `--gibbs-start`).
    pub fn parse(name: &str) -> Result<GibbsStart> {
        match name {
            "marginal" => Ok(GibbsStart::Marginal),
            "dispersed" => Ok(GibbsStart::Dispersed),
            other => Err(Error::param(
                "gibbs_start",
                format!(
                    "expected \"marginal\" or \"dispersed\", got {:?}",
                    crate::io::output::short_name(other, 40)
                ),
            )),
        }
    }
}

impl std::fmt::Debug for MilGibbsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MilGibbsOptions")
            .field("priors", &self.priors)
            .field("mcmc", &self.mcmc)
            .finish()
    }
}

impl Default for MilGibbsOptions {
    fn default() -> Self {
        MilGibbsOptions {
            priors: MilPriors::default(),
            mcmc: McmcSettings::new(2000, 2000, 4, 1),
            observer: None,
            init: None,
            start: GibbsStart::default(),
            tempering: Tempering::default(),
        }
    }
}

/// Result of [`fit_gibbs`].
#[derive(Debug, Clone)]
pub struct MilGibbsFit {
    /// Block positions in θ.
    pub layout: Layout,
    /// Per chain: kept draws of θ, row-major `samples × layout.len()`.
    pub draws: Vec<Vec<f64>>,
    /// Per training instance: `P(δ_ij = 1 | y)` (Rao–Blackwellised: the
    /// average of the conditional probabilities of step 1).
    pub primary: Vec<f64>,
    /// Diagnostics of every coordinate of θ.
    pub diagnostics: Vec<ScalarDiagnostics>,
    /// Where the chains started: `init`, `marginal` or `dispersed`.
    pub started_from: &'static str,
    /// With tempering: per adjacent pair of rungs (coldest pair first),
    /// the share of proposed swaps accepted, pooled over chains, on the
    /// final ladder (after the last adaptation, if the ladder adapts).
    pub swap_acceptance: Vec<f64>,
    /// Every rung's `τ` on the final ladder, coldest (1) first.
    pub temperatures: Vec<f64>,
    /// With tempering: the estimated global communication barrier
    /// `Λ = Σ_k r_k` over the final ladder's pairs (Syed et al. 2022); a
    /// ladder needs about `2Λ` rungs to carry states across it.
    pub barrier: Option<f64>,
}

impl MilGibbsFit {
    /// All kept draws of coordinate `k`, chain after chain.
    pub fn coordinate(&self, k: usize) -> Vec<f64> {
        let p = self.layout.len();
        self.draws
            .iter()
            .flat_map(|c| c.chunks(p).map(move |d| d[k]))
            .collect()
    }

    /// Posterior means of θ.
    pub fn mean(&self) -> Vec<f64> {
        (0..self.layout.len())
            .map(|k| crate::stats::mean(&self.coordinate(k)))
            .collect()
    }

    /// Posterior sds of θ.
    pub fn sd(&self) -> Vec<f64> {
        (0..self.layout.len())
            .map(|k| crate::stats::var(&self.coordinate(k)).sqrt())
            .collect()
    }

    /// All kept draws as rows of θ.
    pub fn rows(&self) -> Vec<Vec<f64>> {
        let p = self.layout.len();
        self.draws
            .iter()
            .flat_map(|c| c.chunks(p).map(|d| d.to_vec()))
            .collect()
    }
}
