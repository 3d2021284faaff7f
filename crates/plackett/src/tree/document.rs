//! The JSON document of `plackett tree` (the common envelope, then the
//! tree's keys: `nodes`, `log_likelihood`, `aic`).

use crate::document::{Document, Envelope, Family};
use crate::tree::instability::InstabilityTest;
use crate::tree::{PlTree, SplitRule};
use serde::Serialize;

/// One item of a leaf.
#[derive(Serialize)]
pub struct LeafItem {
    /// Item name.
    pub name: String,
    /// Log-worth in the tree's gauge.
    pub log_worth: f64,
    /// Its standard error (observed information of the leaf's rankings).
    pub log_worth_se: Option<f64>,
    /// Quasi standard error (Firth & de Menezes 2004; `null` with fewer
    /// than three items).
    pub quasi_se: Option<f64>,
    /// Normalised worth (sums to 1 over the items).
    pub worth: f64,
}

/// One node.
#[derive(Serialize)]
pub struct NodeDoc {
    /// Node id (root 1, depth first).
    pub id: usize,
    /// Parent id (`null` for the root).
    pub parent: Option<usize>,
    /// Rankers in the node.
    pub n: usize,
    /// Rankings in the node.
    pub n_rankings: usize,
    /// Whether the node is a leaf.
    pub terminal: bool,
    /// The split (inner nodes), else `null`.
    pub split: Option<SplitRule>,
    /// The instability test of every covariate (empty where none ran).
    pub tests: Vec<InstabilityTest>,
    /// Log-likelihood of the node's rankings at its own fit.
    pub log_likelihood: f64,
    /// Why a leaf stopped.
    pub stop: Option<String>,
    /// Items with log-worths (leaves only).
    pub items: Option<Vec<LeafItem>>,
}

/// The document.
#[derive(Serialize)]
pub struct TreeDocument {
    /// Nodes in id order.
    pub nodes: Vec<NodeDoc>,
    /// Total log-likelihood over the leaves.
    pub log_likelihood: f64,
    /// AIC with `k` log-worths per leaf and one parameter per split.
    pub aic: f64,
    /// Parameters counted in `aic`.
    pub n_parameters: usize,
    /// Rankers used.
    pub n_rankers: usize,
    /// The `minsize` the tree was grown with.
    pub minsize: usize,
    /// The envelope's fields.
    #[serde(skip)]
    pub notes: Vec<String>,
    #[serde(skip)]
    n_observations: usize,
    #[serde(skip)]
    converged: bool,
}

impl TreeDocument {
    /// The document of a fitted tree.
    pub fn new(tree: &PlTree) -> TreeDocument {
        TreeDocument {
            nodes: tree
                .nodes
                .iter()
                .map(|n| NodeDoc {
                    id: n.id,
                    parent: n.parent,
                    n: n.n,
                    n_rankings: n.n_rankings,
                    terminal: n.is_terminal(),
                    split: n.split.clone(),
                    tests: n.tests.clone(),
                    log_likelihood: n.log_likelihood,
                    stop: n.stop.clone(),
                    items: n.summary.as_ref().map(|s| {
                        s.items
                            .iter()
                            .enumerate()
                            .map(|(k, i)| LeafItem {
                                name: i.name.clone(),
                                log_worth: i.log_worth,
                                log_worth_se: i.log_worth_se,
                                quasi_se: n
                                    .quasi_se
                                    .as_ref()
                                    .map(|q| q[k])
                                    .filter(|v| v.is_finite()),
                                worth: i.worth,
                            })
                            .collect()
                    }),
                })
                .collect(),
            log_likelihood: tree.log_likelihood(),
            aic: tree.aic(),
            n_parameters: tree.n_parameters(),
            n_rankers: tree.n_rankers,
            minsize: tree.minsize,
            notes: tree.notes.clone(),
            n_observations: tree.nodes[0].n_rankings,
            converged: tree.nodes.iter().all(|n| n.converged),
        }
    }
}

impl Document for TreeDocument {
    fn envelope(&self) -> Envelope {
        Envelope {
            family: Family::Tree,
            engine: "mle".into(),
            converged: self.converged,
            iterations: 0,
            n_observations: self.n_observations,
            notes: self.notes.clone(),
            diagnostics: serde_json::json!({}),
        }
    }
}
