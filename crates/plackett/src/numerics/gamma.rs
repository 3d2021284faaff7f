//! Gamma-distribution helpers: log-space draws for small shapes, moments.

use rand::RngExt;
use rand_distr::{Distribution, Gamma};

/// Draw `log G` with `G ~ Gamma(shape, rate)`.
///
/// For `shape < 1` the draw uses `G = G' · U^{1/shape}` with
/// `G' ~ Gamma(shape + 1)` (Marsaglia & Tsang 2000, §6), done in log space so
/// that shapes like 1/419 do not underflow to exact zeros
/// (`ground-truth-aggregation.md` §11.4).
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
