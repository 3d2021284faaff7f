//! What every engine returns: per-item summaries in a stated gauge, draws
//! (MCMC, or sampled from a parametric posterior), diagnostics.

pub mod diagnostics;
pub mod draws;
pub mod fit_report;
pub mod fitted;
pub mod quasi;
pub mod saved;
pub mod saved_adherence;
pub mod saved_mixture;
pub mod summary;
pub mod ties;

pub use diagnostics::{ScalarDiagnostics, diagnose};
pub use draws::Draws;
pub use fitted::{FitInfo, Posterior, TieParameter, Trace};
pub use saved::SavedModel;
pub use saved_adherence::SavedAdherence;
pub use saved_mixture::{AnyModel, MixturePrediction, SavedMixture};
pub use summary::{Gauge, ItemSummary, Summary};
pub use ties::TieModel;
