//! Multiple-instance classification with two modalities: vMMIC (Hu 2024,
//! ch. 2), its Gibbs gold standard, baselines and the simulation study.
//!
//! A bag `i` has a binary label `y_i` and instances `j` of modality 0
//! (features `x_ij`) or 1 (`z_ij`). Latent primary-instance indicators
//! `δ_ij = 1(U_ij > 0)`, `U_ij ~ N(ν_ij, 1)` with
//! `ν_ij = a + x_ij b` or `c + z_ij d` (the inner probit), and the bag label
//! `y_i = 1(y*_i > 0)`, `y*_i ~ N(α + Σ_j δ_ij η_ij, 1)` with
//! `η_ij = x_ij β` or `z_ij γ` (the outer probit; Hu 2024, §2.2.1).
//! With one modality this is MICProB (Xiong et al. 2024).

pub mod bags;
pub mod baselines;
pub mod components;

pub use bags::{Bag, Bags, Scaling, read_bags};
pub use baselines::{Baseline, BaselineFit, fit_baseline};
pub use components::Components;
pub mod gibbs;
pub mod linear_response;
pub mod marginal;
pub mod moments;
pub mod params;
pub mod simulate;
pub mod study;
pub mod vb;

pub use gibbs::{GibbsStart, MilGibbsFit, MilGibbsOptions, RungCount, Tempering, fit_gibbs};
pub use linear_response::VbCovariance;
pub use params::{Layout, MilPriors};
pub use simulate::{MilDesign, simulate_bags, simulate_with};
pub use study::{Factor, StudyCell, StudyOptions, run_study};
pub use vb::{VbFit, VbOptions, VbStart, fit_vb, fit_vb_mixture};
pub mod cv;
pub mod model;
pub mod summary;
pub use cv::{
    MilCv, MilEngine, MilEngineSettings, MilFitInfo, MilMethod, Preprocess, cross_validate,
    cross_validate_methods, cv_document, fit_model, fit_model_warm, fit_model_with,
};
pub use model::{BagPrediction, MIL_MODEL_FORMAT, MilModel, VbComponent, primary_by_instance};
