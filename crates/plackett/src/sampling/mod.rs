//! The sampling layer, below every engine and result type: seeded random
//! streams ([`rng`]), MCMC run settings ([`mcmc`]), the ranking priors
//! ([`prior`]) and which covariance a variational fit reports
//! ([`linear_response`]). Engines of every family and the posterior summaries draw
//! on it; it draws on nothing but `numerics` and `error`
//! (docs/architecture.md, "The frame renovation").

pub mod linear_response;
pub mod mcmc;
pub mod prior;
pub mod rng;
