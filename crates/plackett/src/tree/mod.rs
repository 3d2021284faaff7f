//! Plackett–Luce trees: model-based recursive partitioning of rankers by
//! their covariates (Zeileis, Hothorn & Hornik 2008, MOB; Strobl,
//! Wickelmaier & Zeileis 2011 for Bradley–Terry trees; Turner, van Etten,
//! Firth & Kosmidis 2020 for Plackett–Luce trees, R's `pltree`).
//!
//! At each node: fit the Plackett–Luce model to the node's rankings (the
//! point engine, with PlackettLuce's 0.5 pseudo-rankings by default), test
//! the stability of the per-ranker score contributions against every
//! covariate ([`instability`]), and, if the smallest adjusted p-value is
//! below `alpha`, split on that covariate where the two refitted halves'
//! log-likelihoods sum highest ([`split`]); recurse until a node is
//! smaller than `2·minsize` rankers or `maxdepth` is reached. The defaults
//! are `pltree`'s (α = 0.05, Bonferroni on, trim 0.1, `minsize` 10 per
//! parameter), so that the same data give the same tree.
//!
//! Contract: [`TreeSpec`] (checked settings) → [`TreeSpec::fit`] →
//! [`PlTree`] (nodes, leaves' worths, prediction) →
//! [`document::TreeDocument`] (the JSON of `plackett tree`).

pub mod document;
pub mod instability;
pub mod split;

use crate::data::Dataset;
use crate::data::covariates::{Column, Covariates, MISSING_LEVEL};
use crate::error::{Error, Result};
use crate::infer::{PointOptions, Prior, fit_point};
use crate::model::pl;
use crate::posterior::{Gauge, Summary};
use instability::{InstabilityTest, NodeColumn, ScoreProcess, test_covariates};
use serde::{Deserialize, Serialize};

/// Largest number of levels of an unordered covariate: its binary
/// partitions (`2^(L−1) − 1`, each two refits) are searched exhaustively.
pub const MAX_UNORDERED_LEVELS: usize = 12;

/// Post-pruning of a grown tree (as `mob`'s `prune`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Prune {
    /// Keep every split the tests made.
    None,
    /// Remove splits that do not lower AIC (a split costs its children's
    /// parameters and one for the split point).
    Aic,
    /// As `Aic` with BIC's `ln n` per parameter (`n` the node's rankers).
    Bic,
}

/// Settings of a Plackett–Luce tree.
#[derive(Clone, Debug)]
pub struct TreeSpec {
    /// Significance level of the (adjusted) instability tests.
    pub alpha: f64,
    /// Adjust p-values over the tested covariates (Bonferroni/Šidák).
    pub bonferroni: bool,
    /// Smallest number of rankers in a node; `None`: 10 per item (`mob`'s
    /// default, 10 per parameter).
    pub minsize: Option<usize>,
    /// Deepest level (the root is level 1); `None`: no limit.
    pub maxdepth: Option<usize>,
    /// Fraction of rankers trimmed from each end of a numeric covariate's
    /// order in the sup-LM statistic.
    pub trim: f64,
    /// Pseudo-rankings against a ghost item per node fit (PlackettLuce's
    /// 0.5 by default), so sparse nodes have a fit; `None` for the MLE.
    pub pseudo: Option<f64>,
    /// Prior of the node fits (`Flat`: MLE, with `pseudo`).
    pub prior: Prior,
    /// Gauge of the reported log-worths.
    pub gauge: Gauge,
    /// Post-pruning.
    pub prune: Prune,
    /// Largest number of thresholds tried per round on a numeric covariate
    /// (`None`: every distinct value, as `partykit`; see
    /// [`split::best_split`] for the zooming search beyond).
    pub max_thresholds: Option<usize>,
}

impl Default for TreeSpec {
    fn default() -> Self {
        TreeSpec {
            alpha: 0.05,
            bonferroni: true,
            minsize: None,
            maxdepth: None,
            trim: 0.1,
            pseudo: Some(0.5),
            prior: Prior::Flat,
            gauge: Gauge::MeanCentred,
            prune: Prune::None,
            max_thresholds: None,
        }
    }
}

/// How a node splits its rankers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SplitRule {
    /// Numeric: rankers with `variable ≤ threshold` go left.
    Threshold {
        /// Covariate name.
        variable: String,
        /// Largest value on the left.
        threshold: f64,
    },
    /// Categorical: rankers whose level is in `left_levels` go left.
    Levels {
        /// Covariate name.
        variable: String,
        /// Levels sent left.
        left_levels: Vec<String>,
        /// Levels sent right (those the node saw; others cannot be routed).
        right_levels: Vec<String>,
    },
}

impl SplitRule {
    /// The covariate the rule reads.
    pub fn variable(&self) -> &str {
        match self {
            SplitRule::Threshold { variable, .. } | SplitRule::Levels { variable, .. } => variable,
        }
    }
}

/// One node of a fitted tree.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TreeNode {
    /// Node id (1 = root, numbered depth first as `partykit` does).
    pub id: usize,
    /// Parent id (`None` for the root).
    pub parent: Option<usize>,
    /// Level (root 1).
    pub depth: usize,
    /// Rankers in the node.
    pub n: usize,
    /// Rankings in the node.
    pub n_rankings: usize,
    /// The split, for inner nodes.
    pub split: Option<SplitRule>,
    /// Child ids (left, right) for inner nodes.
    pub children: Vec<usize>,
    /// Instability tests (empty when the node was too small or too deep to
    /// be tested).
    pub tests: Vec<InstabilityTest>,
    /// Log-likelihood of the node's rankings at its fit (pseudo-rankings
    /// excluded, as `PlackettLuce`'s `loglik`).
    pub log_likelihood: f64,
    /// The node's log-worths (any gauge; see [`PlTree::leaf_summary`]).
    pub theta: Vec<f64>,
    /// Per-item summary in the tree's gauge with standard errors (leaves).
    pub summary: Option<Summary>,
    /// Why the node is a leaf.
    pub stop: Option<String>,
    /// Whether the node's fit converged.
    pub converged: bool,
    /// Quasi standard errors of the leaf's log-worths (Firth & de Menezes
    /// 2004, as `qvcalc` on a `pltree` leaf): one per item, so that
    /// `√(qse_i² + qse_j²)` approximates the standard error of any
    /// difference; `None` for inner nodes and leaves of fewer than three
    /// items.
    #[serde(default)]
    pub quasi_se: Option<Vec<f64>>,
}

impl TreeNode {
    /// Whether the node is a leaf.
    pub fn is_terminal(&self) -> bool {
        self.children.is_empty()
    }
}

/// A fitted Plackett–Luce tree.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlTree {
    /// Nodes in id order (`nodes[id − 1]`).
    pub nodes: Vec<TreeNode>,
    /// Item names.
    pub items: Vec<String>,
    /// Covariate names the tree was grown on, with their kinds.
    pub covariates: Vec<(String, String)>,
    /// Levels of each categorical covariate (empty for numeric ones).
    pub levels: Vec<Vec<String>>,
    /// The `minsize` used.
    pub minsize: usize,
    /// Rankers used (with rankings and complete covariates).
    pub n_rankers: usize,
    /// Notes for the user.
    pub notes: Vec<String>,
}

impl PlTree {
    /// Leaves in id order.
    pub fn leaves(&self) -> impl Iterator<Item = &TreeNode> {
        self.nodes.iter().filter(|n| n.is_terminal())
    }

    /// Total log-likelihood over the leaves.
    pub fn log_likelihood(&self) -> f64 {
        self.leaves().map(|n| n.log_likelihood).sum()
    }

    /// Number of parameters as `pltree`'s `logLik`: `k` free log-worths per
    /// leaf and one per split.
    pub fn n_parameters(&self) -> usize {
        let leaves = self.leaves().count();
        leaves * (self.items.len() - 1) + (self.nodes.len() - leaves)
    }

    /// AIC `−2ℓ + 2·df`.
    pub fn aic(&self) -> f64 {
        -2.0 * self.log_likelihood() + 2.0 * self.n_parameters() as f64
    }

    /// The leaf a ranker with these covariate values falls in, following
    /// each split by name; `Err` naming the variable when a value needed is
    /// missing or a level unseen at that node.
    pub fn route(
        &self,
        value: impl Fn(&str) -> Option<CovariateValue>,
    ) -> std::result::Result<usize, String> {
        let mut id = 1;
        loop {
            let node = &self.nodes[id - 1];
            let Some(rule) = &node.split else {
                return Ok(id);
            };
            let v = value(rule.variable());
            let left = match (rule, v) {
                (SplitRule::Threshold { threshold, .. }, Some(CovariateValue::Number(x))) => {
                    x <= *threshold
                }
                (
                    SplitRule::Levels {
                        left_levels,
                        right_levels,
                        variable,
                    },
                    Some(CovariateValue::Level(l)),
                ) => {
                    if left_levels.contains(&l) {
                        true
                    } else if right_levels.contains(&l) {
                        false
                    } else {
                        return Err(format!(
                            "{variable} = {l:?} was not seen at node {id}, which splits on it"
                        ));
                    }
                }
                (rule, None) => return Err(format!("{} is missing", rule.variable())),
                (rule, Some(_)) => {
                    return Err(format!("{} has the wrong kind of value", rule.variable()));
                }
            };
            id = node.children[if left { 0 } else { 1 }];
        }
    }
}

/// A covariate value of a new ranker, for [`PlTree::route`].
#[derive(Clone, Debug, PartialEq)]
pub enum CovariateValue {
    /// A number.
    Number(f64),
    /// A level name.
    Level(String),
}

/// The rankings joined to the covariates: which covariate row each
/// observation's ranker is.
struct Joined<'a> {
    ds: &'a Dataset,
    cov: &'a Covariates,
    /// Covariate row of each observation (`None`: dropped).
    obs_row: Vec<Option<usize>>,
    /// Rows used, in table order.
    rows: Vec<usize>,
}

fn join<'a>(ds: &'a Dataset, cov: &'a Covariates, notes: &mut Vec<String>) -> Result<Joined<'a>> {
    if !ds.has_rankers() {
        return Err(Error::param(
            "ranker_col",
            "the rankings name no rankers: a tree partitions rankers, so each ranking needs \
             its ranker (a ranker column)",
        ));
    }
    let index: std::collections::HashMap<&str, usize> = cov
        .keys
        .iter()
        .enumerate()
        .map(|(r, k)| (k.as_str(), r))
        .collect();
    let mut ranker_row = Vec::with_capacity(ds.ranker_names().len());
    let mut unknown = Vec::new();
    for name in ds.ranker_names() {
        match index.get(name.as_str()) {
            Some(&r) => ranker_row.push(Some(r)),
            None => {
                unknown.push(name.as_str());
                ranker_row.push(None);
            }
        }
    }
    if !unknown.is_empty() {
        return Err(Error::param(
            "covariates",
            format!(
                "{} ranker(s) of the rankings have no row in the covariate table (key column \
                 {:?}): {}{}",
                unknown.len(),
                cov.key,
                unknown
                    .iter()
                    .take(5)
                    .map(|s| format!("{s:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if unknown.len() > 5 { ", …" } else { "" }
            ),
        ));
    }
    let mut has_rankings = vec![false; cov.len()];
    for o in 0..ds.n_real_obs() {
        if let Some(r) = ds
            .ranker(o)
            .and_then(|k| ranker_row.get(k as usize).copied().flatten())
        {
            has_rankings[r] = true;
        }
    }
    let incomplete: Vec<usize> = (0..cov.len())
        .filter(|&r| has_rankings[r] && cov.row_incomplete(r))
        .collect();
    if !incomplete.is_empty() {
        notes.push(format!(
            "{} ranker(s) with a missing covariate value were left out, with their rankings \
             (as pltree's default na.action, na.omit), e.g. {:?}",
            incomplete.len(),
            cov.keys[incomplete[0]]
        ));
    }
    let unused = has_rankings.iter().filter(|h| !**h).count();
    if unused > 0 {
        notes.push(format!(
            "{unused} covariate row(s) have no rankings and were not used"
        ));
    }
    let keep: Vec<bool> = (0..cov.len())
        .map(|r| has_rankings[r] && !cov.row_incomplete(r))
        .collect();
    let obs_row = (0..ds.n_real_obs())
        .map(|o| {
            ds.ranker(o)
                .and_then(|k| ranker_row.get(k as usize).copied().flatten())
                .filter(|&r| keep[r])
        })
        .collect();
    let rows: Vec<usize> = (0..cov.len()).filter(|&r| keep[r]).collect();
    if rows.is_empty() {
        return Err(Error::param(
            "covariates",
            "no ranker has both rankings and a complete covariate row",
        ));
    }
    Ok(Joined {
        ds,
        cov,
        obs_row,
        rows,
    })
}

impl Joined<'_> {
    /// The node's dataset: the observations of the rankers whose
    /// covariate rows are marked in `in_node`.
    fn node_data(&self, in_node: &[bool]) -> Dataset {
        self.ds
            .subset(|o| self.obs_row[o].is_some_and(|r| in_node[r]))
    }
}

impl TreeSpec {
    /// Check the settings.
    pub fn check(&self) -> Result<()> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(Error::param("alpha", "must be in (0, 1)"));
        }
        if !(self.trim > 0.0 && self.trim < 0.5) {
            return Err(Error::param("trim", "must be in (0, 0.5)"));
        }
        if self.minsize == Some(0) {
            return Err(Error::param("minsize", "must be at least 1"));
        }
        if self.max_thresholds.is_some_and(|k| k < 3) {
            return Err(Error::param("max_thresholds", "must be at least 3"));
        }
        if self.maxdepth == Some(0) {
            return Err(Error::param(
                "maxdepth",
                "must be at least 1 (the root alone)",
            ));
        }
        if let Some(w) = self.pseudo
            && !(w.is_finite() && w > 0.0)
        {
            return Err(Error::param("pseudo", "must be positive"));
        }
        self.prior.check()
    }

    /// Node fits: Newton (a few dense steps on the node's information) up
    /// to [`crate::infer::point::NEWTON_MAX`] items, 16× faster than the
    /// MM-first default on the beans tree; the default algorithm beyond.
    fn point_options(&self, standard_errors: bool, n_items: usize) -> PointOptions {
        PointOptions {
            prior: self.prior,
            pseudo: if self.prior.is_proper() {
                None
            } else {
                self.pseudo
            },
            gauge: self.gauge.clone(),
            standard_errors,
            algorithm: if n_items <= crate::infer::point::NEWTON_MAX {
                crate::infer::Algorithm::Newton
            } else {
                crate::infer::Algorithm::Auto
            },
            ..Default::default()
        }
    }

    /// Grow the tree on rankings `ds` (whose rankers name rows of `cov`).
    pub fn fit(&self, ds: &Dataset, cov: &Covariates) -> Result<PlTree> {
        self.check()?;
        if ds.ties() == crate::data::TieSemantics::Event && ds.has_ties() {
            return Err(Error::Unsupported(
                "trees over rankings with ties as events (Davidson–Luce) are not yet supported; \
                 use the default tie semantics"
                    .into(),
            ));
        }
        for (name, col) in cov.names.iter().zip(&cov.columns) {
            if let Column::Factor {
                levels,
                ordered: false,
                ..
            } = col
                && levels.len() > MAX_UNORDERED_LEVELS
            {
                return Err(Error::param(
                    "categorical",
                    format!(
                        "covariate {name:?} has {} levels; unordered covariates are split by an \
                         exhaustive search over their 2^(L−1) − 1 partitions, up to {} levels: \
                         declare it ordered, or group its levels",
                        levels.len(),
                        MAX_UNORDERED_LEVELS
                    ),
                ));
            }
        }
        let mut notes = Vec::new();
        let joined = join(ds, cov, &mut notes)?;
        let n_items = ds.n_items();
        let minsize = self.minsize.unwrap_or(10 * n_items);
        if joined.rows.len() < 2 * minsize {
            notes.push(format!(
                "{} rankers are fewer than twice minsize ({minsize}): the tree is the root alone",
                joined.rows.len()
            ));
        }
        let mut grower = Grower {
            spec: self,
            joined: &joined,
            minsize,
            nodes: Vec::new(),
        };
        let rows = joined.rows.clone();
        grower.grow(rows, None, 1)?;
        let mut nodes = grower.nodes;
        if self.prune != Prune::None {
            prune(&mut nodes, self.prune, n_items);
        }
        // Leaves: refit with standard errors in the asked gauge.
        let names: Vec<String> = (0..n_items)
            .map(|i| ds.items().name(i as u32).to_string())
            .collect();
        let leaf_ids: Vec<usize> = nodes
            .iter()
            .filter(|n| n.children.is_empty())
            .map(|n| n.id)
            .collect();
        for id in leaf_ids {
            let rows = rows_of(&joined, &nodes, id);
            let mut in_node = vec![false; cov.len()];
            rows.iter().for_each(|&r| in_node[r] = true);
            let data = joined.node_data(&in_node);
            let opts = PointOptions {
                covariance: true,
                ..self.point_options(true, n_items)
            };
            let fit = fit_point(&data, &opts)?;
            let node = &mut nodes[id - 1];
            node.quasi_se = fit
                .covariance
                .as_ref()
                .and_then(|v| crate::posterior::quasi::quasi_variances(v).ok())
                .map(|q| q.quasi_se);
            node.summary = Some(Summary::from_point_se(
                &names,
                &fit.theta,
                fit.summary
                    .items
                    .iter()
                    .map(|s| s.log_worth_se)
                    .collect::<Option<Vec<f64>>>(),
                self.gauge.clone(),
            ));
        }
        Ok(PlTree {
            nodes,
            items: names,
            covariates: cov
                .names
                .iter()
                .zip(&cov.columns)
                .map(|(n, c)| (n.clone(), c.kind().to_string()))
                .collect(),
            levels: cov
                .columns
                .iter()
                .map(|c| match c {
                    Column::Factor { levels, .. } => levels.clone(),
                    Column::Numeric { .. } => Vec::new(),
                })
                .collect(),
            minsize,
            n_rankers: joined.rows.len(),
            notes,
        })
    }
}

/// The covariate rows that reach node `id`, by following the splits from
/// the root.
fn rows_of(j: &Joined, nodes: &[TreeNode], id: usize) -> Vec<usize> {
    j.rows
        .iter()
        .copied()
        .filter(|&r| {
            let mut at = 1;
            while at != id {
                let node = &nodes[at - 1];
                let Some(rule) = &node.split else {
                    return false;
                };
                let left = goes_left(j.cov, rule, r);
                at = node.children[if left { 0 } else { 1 }];
                if at > id {
                    return false;
                }
            }
            true
        })
        .collect()
}

fn goes_left(cov: &Covariates, rule: &SplitRule, r: usize) -> bool {
    let c = cov
        .column(rule.variable())
        .expect("split on a covariate of the table");
    match (rule, &cov.columns[c]) {
        (SplitRule::Threshold { threshold, .. }, Column::Numeric { values }) => {
            values[r] <= *threshold
        }
        (SplitRule::Levels { left_levels, .. }, Column::Factor { levels, codes, .. }) => {
            codes[r] != MISSING_LEVEL && left_levels.contains(&levels[codes[r] as usize])
        }
        _ => unreachable!("a rule matches its column's kind"),
    }
}

struct Grower<'a> {
    spec: &'a TreeSpec,
    joined: &'a Joined<'a>,
    minsize: usize,
    nodes: Vec<TreeNode>,
}

impl Grower<'_> {
    fn grow(&mut self, rows: Vec<usize>, parent: Option<usize>, depth: usize) -> Result<usize> {
        let cov = self.joined.cov;
        let id = self.nodes.len() + 1;
        let mut in_node = vec![false; cov.len()];
        rows.iter().for_each(|&r| in_node[r] = true);
        let data = self.joined.node_data(&in_node);
        let fit = fit_point(
            &data,
            &self.spec.point_options(false, self.joined.ds.n_items()),
        )?;
        let mut node = TreeNode {
            id,
            parent,
            depth,
            n: rows.len(),
            n_rankings: data.n_real_obs(),
            split: None,
            children: Vec::new(),
            tests: Vec::new(),
            log_likelihood: fit.log_likelihood,
            theta: fit.theta.clone(),
            summary: None,
            stop: None,
            converged: fit.converged,
            quasi_se: None,
        };
        if rows.len() < 2 * self.minsize {
            node.stop = Some(format!("fewer than 2 × minsize ({}) rankers", self.minsize));
            self.nodes.push(node);
            return Ok(id);
        }
        if self.spec.maxdepth.is_some_and(|d| depth >= d) {
            node.stop = Some("maximum depth".into());
            self.nodes.push(node);
            return Ok(id);
        }
        // Per-ranker scores, the first item's column dropped (the reference
        // of `pltree`'s estimating functions; the statistics do not depend
        // on which column is dropped).
        let mut pos = vec![usize::MAX; cov.len()];
        for (p, &r) in rows.iter().enumerate() {
            pos[r] = p;
        }
        let n_items = data.n_items();
        let obs_row: Vec<usize> = {
            // The node dataset keeps the rankers' ids; map them to rows.
            let ranker_row = ranker_rows(self.joined);
            (0..data.n_real_obs())
                .map(|o| ranker_row[data.ranker(o).expect("rankers") as usize].expect("joined"))
                .collect()
        };
        let scores = pl::unit_scores(&data, &fit.theta, rows.len(), |o| Some(pos[obs_row[o]]));
        let k = n_items - 1;
        let reduced: Vec<f64> = scores
            .chunks(n_items)
            .flat_map(|r| r[1..].iter().copied())
            .collect();
        let Some(process) = ScoreProcess::new(reduced, rows.len(), k) else {
            node.stop = Some(
                "instability tests undefined: the scores' cross product is singular (an item no \
                 ranking of the node informs)"
                    .into(),
            );
            self.nodes.push(node);
            return Ok(id);
        };
        let columns: Vec<NodeColumn> = cov
            .columns
            .iter()
            .map(|c| NodeColumn::gather(c, &rows))
            .collect();
        let mut tests =
            test_covariates(&process, &cov.names, &columns, self.spec.trim, self.minsize);
        if !self.spec.bonferroni {
            for t in &mut tests {
                t.p_value = t.p_value_raw;
            }
        }
        let best = tests
            .iter()
            .enumerate()
            .filter_map(|(j, t)| t.p_value.map(|p| (j, p)))
            .fold(None, |acc: Option<(usize, f64)>, (j, p)| match acc {
                Some((_, q)) if q <= p => acc,
                _ => Some((j, p)),
            });
        node.tests = tests;
        let Some((best, p)) = best else {
            node.stop = Some("every covariate is constant in the node".into());
            self.nodes.push(node);
            return Ok(id);
        };
        if p > self.spec.alpha {
            node.stop = Some(format!(
                "no significant instability (smallest adjusted p = {})",
                crate::numerics::sig(p, 4)
            ));
            self.nodes.push(node);
            return Ok(id);
        }
        let found = split::best_split(
            self.joined.ds,
            &self.joined.obs_row,
            &rows,
            &cov.columns[best],
            self.minsize,
            &self.spec.point_options(false, self.joined.ds.n_items()),
            self.spec.max_thresholds,
        );
        let Some(found) = found else {
            node.stop = Some(format!(
                "no admissible split in {:?} (each side needs minsize rankers)",
                cov.names[best]
            ));
            self.nodes.push(node);
            return Ok(id);
        };
        let rule = found.rule(&cov.names[best], &cov.columns[best]);
        let (left, right): (Vec<usize>, Vec<usize>) = rows
            .iter()
            .partition(|&&r| found.goes_left(&cov.columns[best], r));
        node.split = Some(rule);
        self.nodes.push(node);
        let l = self.grow(left, Some(id), depth + 1)?;
        let r = self.grow(right, Some(id), depth + 1)?;
        self.nodes[id - 1].children = vec![l, r];
        Ok(id)
    }
}

fn ranker_rows(j: &Joined) -> Vec<Option<usize>> {
    let index: std::collections::HashMap<&str, usize> = j
        .cov
        .keys
        .iter()
        .enumerate()
        .map(|(r, k)| (k.as_str(), r))
        .collect();
    j.ds.ranker_names()
        .iter()
        .map(|n| index.get(n.as_str()).copied())
        .collect()
}

/// Post-prune bottom-up: an inner node whose children are both leaves
/// loses them when the split does not lower the criterion (as `mob`'s
/// `prune`; node ids are renumbered afterwards).
fn prune(nodes: &mut Vec<TreeNode>, how: Prune, n_items: usize) {
    let k = (n_items - 1) as f64;
    loop {
        let mut changed = false;
        for i in 0..nodes.len() {
            let kids = nodes[i].children.clone();
            if kids.is_empty() || !kids.iter().all(|&c| nodes[c - 1].children.is_empty()) {
                continue;
            }
            let pen = match how {
                Prune::Aic => 2.0,
                Prune::Bic => (nodes[i].n as f64).ln(),
                Prune::None => unreachable!(),
            };
            let parent = -2.0 * nodes[i].log_likelihood + pen * k;
            let split: f64 = kids
                .iter()
                .map(|&c| -2.0 * nodes[c - 1].log_likelihood)
                .sum::<f64>()
                + pen * (2.0 * k + 1.0);
            if split >= parent {
                nodes[i].children.clear();
                nodes[i].split = None;
                nodes[i].stop = Some(
                    match how {
                        Prune::Aic => "pruned: the split did not lower AIC",
                        _ => "pruned: the split did not lower BIC",
                    }
                    .into(),
                );
                changed = true;
            }
        }
        if !changed {
            break;
        }
        // Drop unreachable nodes and renumber depth first.
        let mut keep = Vec::new();
        fn walk(nodes: &[TreeNode], id: usize, out: &mut Vec<usize>) {
            out.push(id);
            for &c in &nodes[id - 1].children {
                walk(nodes, c, out);
            }
        }
        walk(nodes, 1, &mut keep);
        let mut new_id = vec![0; nodes.len() + 1];
        for (k, &old) in keep.iter().enumerate() {
            new_id[old] = k + 1;
        }
        let mut out: Vec<TreeNode> = keep.iter().map(|&old| nodes[old - 1].clone()).collect();
        for n in &mut out {
            n.id = new_id[n.id];
            n.parent = n.parent.map(|p| new_id[p]);
            n.children = n.children.iter().map(|&c| new_id[c]).collect();
        }
        *nodes = out;
    }
}

pub use crate::io::model_file::TREE_FORMAT;

/// A saved tree as JSON (tagged with [`TREE_FORMAT`]).
pub fn saved_json(tree: &PlTree) -> String {
    #[derive(Serialize)]
    struct Saved<'a> {
        format: &'static str,
        #[serde(flatten)]
        tree: &'a PlTree,
    }
    serde_json::to_string_pretty(&Saved {
        format: TREE_FORMAT,
        tree,
    })
    .expect("trees serialise")
        + "\n"
}

/// Read a tree saved by [`saved_json`] (`plackett tree --model-out`); a
/// file of another kind is named for what it is.
pub fn load_saved(name: &str, text: &str) -> Result<PlTree> {
    use crate::io::model_file::{ModelFamily, other_family};
    if let Some(msg) = other_family(text, ModelFamily::Tree) {
        return Err(Error::input(name, None, msg));
    }
    let mut v: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| Error::input(name, Some(e.line()), format!("not JSON: {e}")))?;
    let tag = v.get("format").and_then(|t| t.as_str()).map(str::to_string);
    if tag.as_deref() != Some(TREE_FORMAT) {
        return Err(Error::input(
            name,
            None,
            format!("not a saved tree (its \"format\" is {tag:?}, expected {TREE_FORMAT:?})"),
        ));
    }
    if let Some(o) = v.as_object_mut() {
        o.remove("format");
    }
    let tree: PlTree = serde_json::from_value(v)
        .map_err(|e| Error::input(name, None, format!("damaged tree file: {e}")))?;
    if tree.nodes.is_empty()
        || tree.nodes.iter().enumerate().any(|(k, n)| {
            n.id != k + 1
                || n.children
                    .iter()
                    .any(|&c| c <= n.id || c > tree.nodes.len())
                || (n.children.is_empty() != n.split.is_none())
                || (n.children.is_empty()
                    && n.summary
                        .as_ref()
                        .is_none_or(|s| s.items.len() != tree.items.len()))
        })
    {
        return Err(Error::input(
            name,
            None,
            "damaged tree file: inconsistent nodes",
        ));
    }
    Ok(tree)
}

impl PlTree {
    /// The covariates the tree splits on, each once, in node order.
    pub fn split_variables(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in &self.nodes {
            if let Some(r) = &n.split
                && !out.iter().any(|v| v == r.variable())
            {
                out.push(r.variable().to_string());
            }
        }
        out
    }

    /// Route every row of a covariate table of new rankers: the leaf id, or
    /// why the row cannot be routed.
    pub fn route_table(&self, cov: &Covariates) -> Vec<std::result::Result<usize, String>> {
        (0..cov.len())
            .map(|r| {
                self.route(|name| {
                    let c = cov.column(name)?;
                    match &cov.columns[c] {
                        Column::Numeric { values } => {
                            (!values[r].is_nan()).then(|| CovariateValue::Number(values[r]))
                        }
                        Column::Factor { levels, codes, .. } => (codes[r] != MISSING_LEVEL)
                            .then(|| CovariateValue::Level(levels[codes[r] as usize].clone())),
                    }
                })
            })
            .collect()
    }

    /// How to read a covariate table of new rankers for [`PlTree::route_table`]:
    /// the split variables only, categorical ones as categories.
    pub fn covariate_options(&self, key: &str) -> crate::io::covariates::CovariateOptions {
        let vars = self.split_variables();
        crate::io::covariates::CovariateOptions {
            key: key.to_string(),
            categorical: self
                .covariates
                .iter()
                .filter(|(n, k)| k != "numeric" && vars.contains(n))
                .map(|(n, _)| n.clone())
                .collect(),
            ordered: Vec::new(),
            columns: vars,
        }
    }
}
