//! Priors on worths used by MAP and the Bayesian engines.

use crate::error::{Error, Result};

/// Independent prior on each worth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Prior {
    /// No prior: maximum likelihood (scale fixed by a gauge).
    Flat,
    /// `λ_i ~ Gamma(shape, rate)` (rate parameterisation). MAP is the mode of
    /// the λ-density, the MM form of Guo et al. 2019 eq 7.
    Gamma {
        /// Shape `a`.
        shape: f64,
        /// Rate `b`.
        rate: f64,
    },
    /// `θ_i = log λ_i ~ Normal(mean, sd²)`.
    Normal {
        /// Prior mean of each log-worth.
        mean: f64,
        /// Prior standard deviation of each log-worth.
        sd: f64,
    },
}

impl Prior {
    /// `λ_i ~ Gamma(shape, rate)` (rate parameterisation; checked by
    /// [`Prior::check`] when a fit starts).
    pub fn gamma(shape: f64, rate: f64) -> Prior {
        Prior::Gamma { shape, rate }
    }

    /// Validate parameters.
    pub fn check(&self) -> Result<()> {
        match *self {
            Prior::Flat => Ok(()),
            Prior::Gamma { shape, rate } => {
                crate::numerics::gamma::check_shape("prior_shape", shape)?;
                crate::numerics::gamma::check_parameter("prior_rate", rate)
            }
            Prior::Normal { mean, sd } => {
                if !mean.is_finite() {
                    return Err(Error::param("prior_mean", "must be finite"));
                }
                if !(sd.is_finite() && sd > 0.0) {
                    return Err(Error::param("prior_sd", format!("must be > 0, got {sd}")));
                }
                // The precision 1/sd² enters every step: beyond these
                // bounds it overflows (a point mass) or vanishes (no prior).
                if !(1e-100..=1e100).contains(&sd) {
                    return Err(Error::param(
                        "prior_sd",
                        format!(
                            "must be between 1e-100 and 1e100, got {}; for no prior at all use \
                             the mle engine",
                            crate::numerics::sig(sd, 6)
                        ),
                    ));
                }
                Ok(())
            }
        }
    }

    /// Log-density term of one item in θ coordinates, up to a constant, in
    /// the convention whose maximiser is reported as MAP. For Gamma this is
    /// `(a−1)θ − bλ` (the λ-density mode); for Normal `−(θ−μ)²/2σ²`.
    pub fn log_density(&self, theta: f64) -> f64 {
        match *self {
            Prior::Flat => 0.0,
            Prior::Gamma { shape, rate } => (shape - 1.0) * theta - rate * theta.exp(),
            Prior::Normal { mean, sd } => -0.5 * ((theta - mean) / sd).powi(2),
        }
    }

    /// First derivative of [`log_density`](Self::log_density).
    pub fn grad(&self, theta: f64) -> f64 {
        match *self {
            Prior::Flat => 0.0,
            Prior::Gamma { shape, rate } => (shape - 1.0) - rate * theta.exp(),
            Prior::Normal { mean, sd } => -(theta - mean) / (sd * sd),
        }
    }

    /// Negative second derivative (prior precision in θ).
    pub fn neg_hess(&self, theta: f64) -> f64 {
        match *self {
            Prior::Flat => 0.0,
            Prior::Gamma { rate, .. } => rate * theta.exp(),
            Prior::Normal { sd, .. } => 1.0 / (sd * sd),
        }
    }

    /// True if the prior fixes the scale of the worths.
    pub fn is_proper(&self) -> bool {
        !matches!(self, Prior::Flat)
    }
}

#[cfg(test)]
mod tests {
    use super::Prior;

    /// A normal prior's precision 1/sd² must be a usable number: an sd of
    /// 1e-300 made it infinite and the fit failed with advice to add a
    /// prior; 1e300 made it 0 (no prior) with the same advice.
    #[test]
    fn a_normal_prior_sd_whose_precision_overflows_is_refused() {
        for sd in [1e-300, 1e-101, 1e101, 1e300] {
            let e = Prior::Normal { mean: 0.0, sd }
                .check()
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("`prior_sd`") && e.contains("between 1e-100 and 1e100"),
                "{e}"
            );
        }
        for sd in [1e-100, 1e-3, 1.0, 1e100] {
            Prior::Normal { mean: 0.0, sd }.check().unwrap();
        }
    }
}
