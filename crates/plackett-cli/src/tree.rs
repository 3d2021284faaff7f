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
    /// Pseudo-rankings per node fit: W wins and W losses per item against a ghost item.
    #[arg(long, value_name = "W", default_value_t = 0.5, help_heading = "Tree")]
    pub pseudo: f64,
    /// Report log-worths relative to this item (default: mean-centred).
    #[arg(long, value_name = "NAME", help_heading = "Output")]
    pub reference: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Output::Table, help_heading = "Output")]
    pub output: Output,
    /// Save the tree (for `plackett predict`-style routing of new rankers).
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "MODEL.json", help_heading = "Output")]
    pub model_out: Option<String>,
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
        ..TreeSpec::default()
    };
    let tree = spec.fit(&ds, &cov)?;
    if let Some(path) = &a.model_out {
        crate::outputs::write(path, plackett::tree::saved_json(&tree).as_bytes())?;
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
