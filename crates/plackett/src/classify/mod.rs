//! Plackett–Luce regression classifier (Archambeau & Caron 2012).
//!
//! `P(Y_i = k | x_i) = W_iᵀλ_k / Σ_l W_iᵀλ_l` with non-negative weights
//! `λ_kj` and transformed features `W_ij = K_j(x_i) ≥ 0` (§2): `exp(x_j)`,
//! `exp(−x_j)` and an offset 1, optionally `exp(±(x_a + x_b))` for pairs of
//! features (§5). With exponential arrival times `Z_i` and feature selectors
//! `C_i` (§3.1) the complete likelihood is conjugate to a Gamma(a, b) prior
//! on every `λ_kj`, which gives EM/MAP with exact zeros for a < 1
//! ([`em`]), a Gibbs sampler drawing only Exponential, Gamma and discrete
//! variables ([`gibbs`]) and a variational scheme ([`vb`]).
//!
//! The Gamma and exponential draws, the seeded streams and the MCMC
//! diagnostics are the ones of the ranking engines
//! ([`crate::numerics::gamma`], [`crate::sampling::rng`],
//! [`crate::posterior::diagnostics`]).

pub mod cv;
pub mod data;
pub mod em;
pub mod gibbs;
pub mod linear_response;
pub mod model;
pub mod path;
pub mod vb;

pub use data::{ClassData, Preprocess, Table, read_table};
pub use model::{Engine, Fitted};

/// The Gamma(a, b) prior on the classifier's weights: the rule every
/// family's Gamma prior follows ([`crate::numerics::gamma::check_shape`],
/// [`check_parameter`](crate::numerics::gamma::check_parameter)).
fn check_gamma(a: f64, b: f64) -> crate::Result<()> {
    crate::numerics::gamma::check_shape("prior_shape", a)?;
    check_rate(b)
}

/// The Gamma prior's rate `b`.
fn check_rate(b: f64) -> crate::Result<()> {
    if !(b.is_finite() && b > 0.0) {
        return Err(crate::Error::param(
            "prior_rate",
            format!(
                "the Gamma rate must be positive, got {}",
                crate::error::show_number(b)
            ),
        ));
    }
    crate::numerics::gamma::check_parameter("prior_rate", b)
}
