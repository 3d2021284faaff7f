//! Likelihoods, scores and information matrices.

pub mod davidson;
pub mod information;
pub mod mixture_pass;
pub mod pl;
pub mod subsets;
