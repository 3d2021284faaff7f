//! `plackett tree`: Plackett–Luce trees (model-based recursive
//! partitioning of rankers by covariates; Turner, van Etten, Firth &
//! Kosmidis 2020). Translates flags into `plackett::tree::TreeSpec`,
//! formats the result.

use crate::args::Output;
use crate::fit_args::{DataArgs, load};
use anyhow::{Context, Result, bail};
use clap::Args;
use plackett::document::Document;
use plackett::io::covariates::{CovariateOptions, read_covariates};
use plackett::posterior::Gauge;
use plackett::tree::document::TreeDocument;
use plackett::tree::{PlTree, Prune, SplitRule, TreeSpec};

/// Options of `plackett tree`.
#[derive(Args, Debug)]
pub struct TreeArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Covariate CSV: one row per ranker, a key column and the partitioning variables.
    #[arg(long, value_name = "FILE.csv", help_heading = "Covariates")]
    pub covariates: String,
    /// Column of the covariate CSV naming the ranker (matched to the rankings' --ranker-col).
    #[arg(
        long,
        value_name = "COL",
        default_value = "ranker",
        help_heading = "Covariates"
    )]
    pub covariate_key: String,
    /// Read these columns as unordered categories even if numeric (comma-separated).
    #[arg(long, value_name = "COL[,COL…]", help_heading = "Covariates")]
    pub categorical: Option<String>,
    /// An ordered categorical column with its levels, lowest first (repeatable).
    #[arg(long, value_name = "COL=L1,L2,…", help_heading = "Covariates")]
    pub ordered: Vec<String>,
    /// Use only these covariate columns (default: every column but the key).
    #[arg(long, value_name = "COL[,COL…]", help_heading = "Covariates")]
    pub partition_by: Option<String>,
    /// Significance level of the (Bonferroni-adjusted) instability tests.
    #[arg(long, default_value_t = TreeSpec::default().alpha, help_heading = "Tree")]
    pub alpha: f64,
    /// Smallest node, in rankers [default: 10 per item].
    #[arg(long, value_name = "N", help_heading = "Tree")]
    pub minsize: Option<usize>,
    /// Deepest level (the root is level 1) [default: no limit].
    #[arg(long, value_name = "D", help_heading = "Tree")]
    pub maxdepth: Option<usize>,
    /// Do not adjust p-values over the tested covariates.
    #[arg(long, help_heading = "Tree")]
    pub no_bonferroni: bool,
    /// Post-prune splits that do not lower AIC or BIC.
    #[arg(long, value_name = "aic|bic", help_heading = "Tree")]
    pub prune: Option<String>,
    /// Numeric covariates with more distinct values: zoom in with K thresholds a round
    /// instead of trying every value [default: every value, as pltree].
    #[arg(long, value_name = "K", help_heading = "Tree")]
    pub max_thresholds: Option<usize>,
    /// Pseudo-rankings per node fit: W wins and W losses per item against a ghost item.
    #[arg(long, value_name = "W", default_value_t = 0.5, help_heading = "Tree")]
    pub pseudo: f64,
    /// Report log-worths relative to this item (default: mean-centred).
    #[arg(long, value_name = "NAME", help_heading = "Output")]
    pub reference: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Output::Table, help_heading = "Output")]
    pub output: Output,
    /// Save the tree (`plackett predict MODEL.json NEW_RANKERS.csv` routes new rankers).
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "MODEL.json", help_heading = "Output")]
    pub model_out: Option<String>,
    /// Write an HTML report: the tree drawn, leaves' worths, the instability tests.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html", help_heading = "Output")]
    pub report: Option<String>,
}

fn list(s: &Option<String>) -> Vec<String> {
    s.as_deref()
        .map(|s| {
            s.split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Run `plackett tree`.
pub fn run(a: &TreeArgs) -> Result<()> {
    if a.output == Output::Csv {
        bail!("invalid option --output csv: a tree is printed as a table or JSON");
    }
    let ds = load(&a.data)?;
    let mut ordered = Vec::new();
    for o in &a.ordered {
        let Some((col, levels)) = o.split_once('=') else {
            bail!("invalid option --ordered {o:?}: expected COL=L1,L2,…");
        };
        let levels: Vec<String> = levels.split(',').map(|l| l.trim().to_string()).collect();
        if levels.len() < 2 || levels.iter().any(|l| l.is_empty()) {
            bail!("invalid option --ordered {o:?}: give at least two non-empty levels");
        }
        ordered.push((col.trim().to_string(), levels));
    }
    let opts = CovariateOptions {
        key: a.covariate_key.clone(),
        categorical: list(&a.categorical),
        ordered,
        columns: list(&a.partition_by),
    };
    let text = std::fs::read_to_string(&a.covariates)
        .with_context(|| format!("cannot read {}", a.covariates))?;
    let cov = read_covariates(&a.covariates, &text, &opts)?;
    let gauge = match &a.reference {
        Some(name) => match ds.items().get(name) {
            Some(id) => Gauge::Reference(id),
            None => bail!("invalid option --reference: no item named {name:?} in the data"),
        },
        None => Gauge::MeanCentred,
    };
    let prune = match a.prune.as_deref() {
        None => Prune::None,
        Some("aic") => Prune::Aic,
        Some("bic") => Prune::Bic,
        Some(other) => bail!("invalid option --prune {other:?}: expected aic or bic"),
    };
    let spec = TreeSpec {
        alpha: a.alpha,
        bonferroni: !a.no_bonferroni,
        minsize: a.minsize,
        maxdepth: a.maxdepth,
        pseudo: Some(a.pseudo),
        gauge,
        prune,
        max_thresholds: a.max_thresholds,
        ..TreeSpec::default()
    };
    let tree = spec.fit(&ds, &cov)?;
    if let Some(path) = &a.model_out {
        crate::outputs::write(path, plackett::tree::saved_json(&tree).as_bytes())?;
    }
    if let Some(path) = &a.report {
        let page =
            plackett::report::tree::tree_html(&tree, "Plackett–Luce tree", Some(&a.data.file));
        crate::outputs::write(path, page.as_bytes())?;
    }
    let doc = TreeDocument::new(&tree);
    match a.output {
        Output::Json => crate::emit(&doc.to_json()),
        _ => crate::emit(&table(&tree)),
    }
}

fn fmt_p(p: Option<f64>) -> String {
    match p {
        None => "-".into(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}

fn rule_text(rule: &SplitRule, left: bool) -> String {
    match rule {
        SplitRule::Threshold {
            variable,
            threshold,
        } => {
            format!("{variable} {} {}", if left { "<=" } else { ">" }, threshold)
        }
        SplitRule::Levels {
            variable,
            left_levels,
            right_levels,
        } => format!(
            "{variable} in {{{}}}",
            if left { left_levels } else { right_levels }.join(", ")
        ),
    }
}

/// The tree as text: one line per node, indented, then each leaf's items.
fn table(tree: &PlTree) -> String {
    let mut out = format!(
        "Plackett–Luce tree: {} rankers, {} rankings, {} items, minsize {}\n\n",
        tree.n_rankers,
        tree.nodes[0].n_rankings,
        tree.items.len(),
        tree.minsize
    );
    fn walk(tree: &PlTree, id: usize, label: String, indent: usize, out: &mut String) {
        let node = &tree.nodes[id - 1];
        let pad = "  ".repeat(indent);
        let best = node
            .tests
            .iter()
            .filter(|t| t.p_value.is_some())
            .min_by(|a, b| {
                a.p_value
                    .partial_cmp(&b.p_value)
                    .expect("p-values are numbers")
            });
        let test = best
            .map(|t| format!(", smallest p: {} = {}", t.variable, fmt_p(t.p_value)))
            .unwrap_or_default();
        out.push_str(&format!(
            "{pad}[{id}] {label}: {} rankers{}{}\n",
            node.n,
            if node.is_terminal() { " (leaf)" } else { "" },
            test
        ));
        if let Some(rule) = &node.split {
            walk(
                tree,
                node.children[0],
                rule_text(rule, true),
                indent + 1,
                out,
            );
            walk(
                tree,
                node.children[1],
                rule_text(rule, false),
                indent + 1,
                out,
            );
        }
    }
    walk(tree, 1, "root".into(), 0, &mut out);
    out.push_str("\nInstability tests (statistic, adjusted p) per inner node:\n");
    for node in tree.nodes.iter().filter(|n| !n.is_terminal()) {
        let cells: Vec<String> = node
            .tests
            .iter()
            .map(|t| {
                format!(
                    "{} {} (p {})",
                    t.variable,
                    t.statistic.map_or("-".into(), |s| format!("{s:.3}")),
                    fmt_p(t.p_value)
                )
            })
            .collect();
        out.push_str(&format!("  [{}] {}\n", node.id, cells.join("; ")));
    }
    let leaves: Vec<_> = tree.leaves().collect();
    out.push_str("\nLog-worths per leaf (standard errors):\n");
    let w = tree
        .items
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    out.push_str(&format!("{:w$}", "item"));
    for l in &leaves {
        out.push_str(&format!("  {:>18}", format!("[{}] n={}", l.id, l.n)));
    }
    out.push('\n');
    for (i, name) in tree.items.iter().enumerate() {
        out.push_str(&format!("{name:w$}"));
        for l in &leaves {
            let s = &l.summary.as_ref().expect("leaves carry summaries").items[i];
            let se = s.log_worth_se.map_or("-".into(), |v| format!("{v:.3}"));
            out.push_str(&format!("  {:>18}", format!("{:.3} ({se})", s.log_worth)));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "\nlog-likelihood {:.3}, AIC {:.3} ({} parameters)\n",
        tree.log_likelihood(),
        tree.aic(),
        tree.n_parameters()
    ));
    for n in &tree.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

/// `plackett predict TREE.json NEW_RANKERS.csv`: each new ranker's leaf and
/// log-worths, and with `--compare A,B` the probability that A beats B for
/// that ranker (the leaf's Bradley–Terry probability).
pub fn predict(a: &TreePredict, text: &str) -> Result<()> {
    let tree = plackett::tree::load_saved(a.model, text)?;
    let cov_text =
        std::fs::read_to_string(a.file).with_context(|| format!("cannot read {}", a.file))?;
    let cov = read_covariates(a.file, &cov_text, &tree.covariate_options(a.covariate_key))?;
    let mut pairs = Vec::new();
    for spec in a.compare {
        let (x, y) = crate::fit_args::compare_names(spec)?;
        let find = |n: &str| {
            tree.items.iter().position(|i| i == n).ok_or_else(|| {
                anyhow::anyhow!("invalid option --compare: no item named {n:?} in the tree")
            })
        };
        pairs.push((x.to_string(), y.to_string(), find(x)?, find(y)?));
    }
    let routes = tree.route_table(&cov);
    let mut rows = Vec::new();
    for (r, route) in routes.iter().enumerate() {
        let (node, reason, lw) = match route {
            Ok(id) => {
                let s = tree.nodes[id - 1]
                    .summary
                    .as_ref()
                    .expect("leaves carry summaries");
                (
                    Some(*id),
                    None,
                    Some(s.items.iter().map(|i| i.log_worth).collect::<Vec<f64>>()),
                )
            }
            Err(e) => (None, Some(e.clone()), None),
        };
        let comparisons: Vec<serde_json::Value> = pairs
            .iter()
            .map(|(x, y, i, j)| {
                let p = lw.as_ref().map(|t| 1.0 / (1.0 + (t[*j] - t[*i]).exp()));
                serde_json::json!({"a": x, "b": y, "p_a_beats_b": p})
            })
            .collect();
        rows.push((cov.keys[r].clone(), node, reason, lw, comparisons));
    }
    let out = match a.output {
        Output::Json => {
            let doc = serde_json::json!({
                "family": "tree",
                "items": tree.items,
                "rankers": rows.iter().map(|(k, node, reason, lw, comp)| serde_json::json!({
                    "ranker": k,
                    "node": node,
                    "reason": reason,
                    "log_worth": lw,
                    "comparisons": comp,
                })).collect::<Vec<_>>(),
            });
            serde_json::to_string_pretty(&doc)? + "\n"
        }
        Output::Csv => {
            let mut t = String::from("ranker,node");
            for i in &tree.items {
                t.push(',');
                t.push_str(&plackett::io::output::csv_field(&format!("log_worth_{i}")));
            }
            for (x, y, _, _) in &pairs {
                t.push(',');
                t.push_str(&plackett::io::output::csv_field(&format!(
                    "p_{x}_beats_{y}"
                )));
            }
            t.push('\n');
            for (k, node, _, lw, comp) in &rows {
                t.push_str(&plackett::io::output::csv_field(k));
                t.push(',');
                t.push_str(&node.map_or(String::new(), |n| n.to_string()));
                for v in lw
                    .clone()
                    .unwrap_or_else(|| vec![f64::NAN; tree.items.len()])
                {
                    t.push(',');
                    if v.is_finite() {
                        t.push_str(&v.to_string());
                    }
                }
                for c in comp {
                    t.push(',');
                    if let Some(p) = c["p_a_beats_b"].as_f64() {
                        t.push_str(&p.to_string());
                    }
                }
                t.push('\n');
            }
            t
        }
        Output::Table => {
            let w = rows
                .iter()
                .map(|r| r.0.chars().count())
                .max()
                .unwrap_or(6)
                .max(6);
            let mut t = format!("{:w$}  node  {}\n", "ranker", "best item (log-worth)");
            for (k, node, reason, lw, comp) in &rows {
                match (node, lw) {
                    (Some(n), Some(lw)) => {
                        let best = (0..lw.len())
                            .max_by(|&i, &j| lw[i].total_cmp(&lw[j]))
                            .expect("items");
                        let mut line =
                            format!("{k:w$}  {n:>4}  {} ({:.3})", tree.items[best], lw[best]);
                        for c in comp {
                            line.push_str(&format!(
                                "; P({} beats {}) {:.4}",
                                c["a"].as_str().unwrap_or(""),
                                c["b"].as_str().unwrap_or(""),
                                c["p_a_beats_b"].as_f64().unwrap_or(f64::NAN)
                            ));
                        }
                        t.push_str(&line);
                    }
                    _ => t.push_str(&format!(
                        "{k:w$}     -  not routed: {}",
                        reason.as_deref().unwrap_or("")
                    )),
                }
                t.push('\n');
            }
            t
        }
    };
    match a.out {
        Some(p) => crate::outputs::write(p, out.as_bytes()),
        None => crate::emit(&out),
    }
}

/// What `plackett predict` hands over for a tree model.
pub struct TreePredict<'a> {
    /// The model file's name.
    pub model: &'a str,
    /// The covariate table of new rankers.
    pub file: &'a str,
    /// Its key column.
    pub covariate_key: &'a str,
    /// `--compare` pairs.
    pub compare: &'a [String],
    /// Output format.
    pub output: Output,
    /// `--out`.
    pub out: Option<&'a String>,
}
