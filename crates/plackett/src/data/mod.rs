//! Items, observations, the flat dataset, validation and connectivity.

pub mod collapse;
pub mod covariates;
pub mod dataset;
pub mod features;
pub mod graph;
pub mod items;
pub mod simulate;

pub use dataset::{Dataset, DatasetBuilder, Group, Observation, Tail, TieSemantics};
pub use items::Items;
