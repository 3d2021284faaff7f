//! Gamma-distribution helpers: log-space draws for small shapes, moments.

use rand::RngExt;
use rand_distr::{Distribution, Gamma};

/// Smallest shape a Gamma prior on worths or weights may have. The
/// samplers draw `ln G` as `ln G' + ln U / shape` for small shapes, and
/// under the ranking sampler's rescaling (Caron & Doucet 2012) every log
/// worth carries the log total mass, about `−1/Σ shapes`: from shapes near
/// 1e-16 on, double precision no longer holds the differences between log
/// worths (`tiny_prior_shapes_keep_the_exact_two_item_posterior` in
/// tests/library/gibbs.rs is exact to 1e-14 and off by 0.05 at 1e-16), and
/// subnormal shapes turn draws into −∞. 1e-10 keeps six orders of margin.
pub const MIN_GAMMA_SHAPE: f64 = 1e-10;

/// Largest Gamma shape or rate a prior may have, in every family: beyond
/// it the prior's normalising constants (`ln Γ(shape)`, in the ELBO and
/// the evidence) carry no significant digits, draws of the weights it
/// governs leave double precision, and a prior that concentrated (its
/// coefficient of variation `1/√shape` below 10⁻⁵) swamps any data.
pub const MAX_GAMMA_PARAMETER: f64 = 1e10;

/// `Ok` if `v` is a usable Gamma rate (or the positive side of a shape):
/// finite, between `1 /` [`MAX_GAMMA_PARAMETER`] and
/// [`MAX_GAMMA_PARAMETER`]; the error names `name`.
pub fn check_parameter(name: &str, v: f64) -> crate::error::Result<()> {
    let shown = crate::error::show_number(v);
    if !(v.is_finite() && v > 0.0) {
        return Err(crate::error::Error::param(
            name,
            format!("expected a positive number, got {shown}"),
        ));
    }
    if v < 1.0 / MAX_GAMMA_PARAMETER {
        // The mirror of the upper bound: a rate this small puts the prior
        // mean beyond 10¹⁰ times the shape, and a subnormal one overflows
        // its reciprocal (a VB update's `a / b`) to infinity.
        return Err(crate::error::Error::param(
            name,
            format!(
                "expected at least {:e} (a Gamma prior this diffuse puts its mean beyond \
                 double precision's useful range), got {shown}",
                1.0 / MAX_GAMMA_PARAMETER
            ),
        ));
    }
    if v > MAX_GAMMA_PARAMETER {
        return Err(crate::error::Error::param(
            name,
            format!(
                "expected at most {MAX_GAMMA_PARAMETER:e} (a Gamma prior this concentrated swamps \
                 any data and its normalising constant has no significant digits), got {shown}"
            ),
        ));
    }
    Ok(())
}

/// `Ok` if `shape` is a usable Gamma prior shape: [`check_parameter`]'s
/// bounds and the samplers' floor [`MIN_GAMMA_SHAPE`]; the error names
/// `name`.
pub fn check_shape(name: &str, shape: f64) -> crate::error::Result<()> {
    if shape.is_finite() && shape > 0.0 && shape < MIN_GAMMA_SHAPE {
        let shown = crate::error::show_number(shape);
        return Err(crate::error::Error::param(
            name,
            format!(
                "a Gamma shape must be at least {MIN_GAMMA_SHAPE:e} (smaller ones put the \
                 draws' logarithms beyond double precision), got {shown}"
            ),
        ));
    }
    check_parameter(name, shape)
}

/// Draw `log G` with `G ~ Gamma(shape, rate)`.
///
/// For `shape < 1` the draw uses `G = G' · U^{1/shape}` with
/// `G' ~ Gamma(shape + 1)` (Marsaglia & Tsang 2000, §6), done in log space so
/// that shapes like 1/419 (a prior of total shape 1 over Stutz et al. 2023's
/// 419 classes) do not underflow to exact zeros.
pub fn ln_gamma_draw<R: rand::Rng + ?Sized>(rng: &mut R, shape: f64, rate: f64) -> f64 {
    debug_assert!(shape > 0.0 && rate > 0.0);
    if shape >= 1.0 {
        let g: f64 = Gamma::new(shape, 1.0).expect("positive shape").sample(rng);
        g.ln() - rate.ln()
    } else {
        let g: f64 = Gamma::new(shape + 1.0, 1.0)
            .expect("positive shape")
            .sample(rng);
        let u: f64 = 1.0 - rng.random::<f64>(); // in (0, 1]
        g.ln() + u.ln() / shape - rate.ln()
    }
}

/// Draw `G ~ Gamma(shape, rate)` (may underflow to 0 for tiny shapes; use
/// [`ln_gamma_draw`] where that matters).
pub fn gamma_draw<R: rand::Rng + ?Sized>(rng: &mut R, shape: f64, rate: f64) -> f64 {
    Gamma::new(shape, 1.0 / rate)
        .expect("positive shape and rate")
        .sample(rng)
}

/// Draw `E ~ Exp(rate)` as `−log(U)/rate` with `U ∈ (0, 1]`, so never `inf`.
#[inline]
pub fn exp_draw<R: rand::Rng + ?Sized>(rng: &mut R, rate: f64) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    -u.ln() / rate
}
