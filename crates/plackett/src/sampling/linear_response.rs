//! Which covariance a variational engine reports: its mean-field factors'
//! own, or their linear-response correction (Giordano, Broderick & Jordan
//! 2015), `Σ_LR = dE_q[w]/dt` under a tilt `tᵀw` of the log density —
//! exact for a Gaussian posterior, and the cure for the under-dispersion
//! of a factorisation that separates latent variables from the parameters
//! they inform. The ranking VB ([`crate::infer::vb`], its worths, in
//! closed form), the classifier's VB ([`crate::classify::linear_response`],
//! its weights), vMMIC (`mil::linear_response`, its instance level) and
//! VBSS (`keywords::vbss`, its `(θ, a, b)`) implement it; means and ELBO
//! are the same either way.

use crate::error::{Error, Result};

/// Which covariance a VB fit reports (and predicts with, where a
/// prediction averages over it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VbCovariance {
    /// The mean-field factors' own: the papers' algorithms as stated
    /// (Hu 2024's vMMIC, Appendix B.1, and VBSS, §1.3).
    MeanField,
    /// The linear-response correction, the default: mean-field's sds are
    /// 1/25 (vMMIC's instance level) to 1/3 (VBSS's keyword probabilities)
    /// of the exact posterior's (docs/mil.md, docs/keywords.md), the
    /// ranking VB's nominal 90% intervals cover 84% (docs/engines.md), and
    /// the classifier's weight intervals are about half as wide as the
    /// exact posterior's (docs/classify.md).
    #[default]
    LinearResponse,
}

impl VbCovariance {
    /// `mean-field` or `linear-response`.
    pub fn parse(name: &str) -> Result<VbCovariance> {
        match name {
            "mean-field" => Ok(VbCovariance::MeanField),
            "linear-response" => Ok(VbCovariance::LinearResponse),
            other => Err(Error::param(
                "covariance",
                format!(
                    "expected \"mean-field\" or \"linear-response\", got {:?}",
                    crate::error::show_name(other)
                ),
            )),
        }
    }

    /// The name [`VbCovariance::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            VbCovariance::MeanField => "mean-field",
            VbCovariance::LinearResponse => "linear-response",
        }
    }
}
