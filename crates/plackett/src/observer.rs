//! Observers of long computations: progress bars, objective traces and
//! cancellation (Ctrl-C) without the engines knowing about any of them.
//!
//! Every engine that loops — the fixed-point executor
//! ([`crate::numerics::fixed_point`]), the Gibbs samplers, the
//! ground-truth replicate runner — reports to an optional
//! [`SharedObserver`]. An observer returns [`ControlFlow::Break`] to stop
//! the run; the engine then returns [`crate::Error::Cancelled`].

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Receives progress events from an engine. Methods are called from the
/// engine's worker threads (hence `Send + Sync`, `&self`); both default to
/// "continue", so an observer implements only what it needs.
pub trait Observer: Send + Sync {
    /// `units` more units of work finished (sampler sweeps, cases).
    fn advance(&self, units: usize) -> ControlFlow<()> {
        let _ = units;
        ControlFlow::Continue(())
    }

    /// A fixed-point engine accepted its `iteration`-th iterate, whose
    /// objective (log-likelihood, log-posterior or ELBO) is `objective`.
    fn iterate(&self, iteration: usize, objective: f64) -> ControlFlow<()> {
        let _ = (iteration, objective);
        ControlFlow::Continue(())
    }
}

/// How engines hold an observer.
pub type SharedObserver = Arc<dyn Observer>;

/// Forward `advance` to an optional observer; `Err(Cancelled)` on a break.
pub fn advance(obs: Option<&SharedObserver>, units: usize) -> crate::Result<()> {
    match obs.map(|o| o.advance(units)) {
        Some(ControlFlow::Break(())) => Err(crate::Error::Cancelled),
        _ => Ok(()),
    }
}

/// An observer that stops the run once a flag is raised (e.g. by a Ctrl-C
/// handler or another thread).
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(pub Arc<AtomicBool>);

impl CancelFlag {
    /// Raise the flag: the observed run stops at its next report.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn flow(&self) -> ControlFlow<()> {
        if self.0.load(Ordering::Relaxed) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl Observer for CancelFlag {
    fn advance(&self, _: usize) -> ControlFlow<()> {
        self.flow()
    }
    fn iterate(&self, _: usize, _: f64) -> ControlFlow<()> {
        self.flow()
    }
}
