//! Keyword extraction with a few known keywords: VBSS (Hu 2024, ch. 1),
//! its Albert–Chib Gibbs gold standard, the graph-based baselines and the
//! evaluation protocol of Hu 2024 §1.4.
//!
//! This module is pure numerics on a weighted word graph and labels: it
//! has no text dependencies. A document's candidate words (stems, in text
//! order) become a [`WordGraph`] by co-occurrence counting; a few of them
//! are known keywords (`y_i = 1`); every candidate gets a posterior
//! probability of being a keyword and a Bayesian FDR rule picks the set.
//! The text front-end (normalisation, part-of-speech filter, stemming)
//! lives in the separate `plackett-text` crate.

pub mod bss;
pub mod evaluate;
pub mod fdr;
pub mod gibbs;
pub mod graph;
pub mod prior;
pub mod scores;
pub mod vbss;
pub mod vbss_code;

pub use bss::{BssFit, BssOptions, fit_bss};
pub use evaluate::{
    AlphaInit, Corpus, DocTiming, Document, EvalOptions, EvalTable, ExternalScores, Method,
    draw_known, evaluate, evaluate_observed, truth_indices,
};
pub use fdr::{bayesian_fdr_select, fdr_select_unlabelled, forced, top_by_score};
pub use gibbs::{VbssGibbsFit, VbssGibbsOptions, fit_gibbs, fit_gibbs_observed};
pub use graph::WordGraph;
pub use prior::{PriorScale, ThetaPrior};
pub use scores::{
    position_rank, position_rank_given, single_rank_ss, single_rank_ss_given, text_rank,
    text_rank_given, tf_idf,
};
pub use vbss::{
    AlphaModel, Probability, ThetaUpdate, VbCovariance, VbssFit, VbssOptions, fit_vbss,
};
pub use vbss_code::{VbssCodeFit, fit_vbss_code};
