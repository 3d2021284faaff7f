//! HTML report of a Plackett–Luce tree (`plackett tree --report`): the
//! tree drawn as `plot.pltree` draws it — inner nodes with their splitting
//! variable and adjusted p-value, edges labelled with the split, and under
//! every leaf a dot plot of its log-worths with 95% intervals on one
//! common axis — then the instability tests of every inner node and each
//! leaf's table.

use super::{HtmlReport, esc};
use crate::numerics::sig;
use crate::posterior::summary::Z975;
use crate::tree::{PlTree, SplitRule};
use std::fmt::Write;

const PANEL_W: f64 = 230.0;
const ROW_H: f64 = 15.0;
const LEVEL_H: f64 = 90.0;
const LABEL_W: f64 = 95.0;

fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".into(),
        Some(p) if p < 1e-4 => format!("p < 0.0001 ({})", sig(p, 2)),
        Some(p) => format!("p = {:.4}", p),
    }
}

fn edge_label(rule: &SplitRule, left: bool) -> String {
    match rule {
        SplitRule::Threshold { threshold, .. } => {
            format!("{} {}", if left { "≤" } else { ">" }, sig(*threshold, 6))
        }
        SplitRule::Levels {
            left_levels,
            right_levels,
            ..
        } => {
            let l = if left { left_levels } else { right_levels };
            let s = l.join(", ");
            if s.chars().count() > 28 {
                format!("{}…", s.chars().take(27).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// The tree as an SVG picture.
pub fn tree_svg(tree: &PlTree) -> String {
    let leaves: Vec<usize> = tree.leaves().map(|n| n.id).collect();
    let depth = tree.nodes.iter().map(|n| n.depth).max().unwrap_or(1);
    // Horizontal position: leaves left to right, inner nodes midway.
    let mut x = vec![0.0; tree.nodes.len() + 1];
    fn place(tree: &PlTree, id: usize, next: &mut f64, x: &mut [f64]) {
        let node = &tree.nodes[id - 1];
        if node.children.is_empty() {
            x[id] = *next + PANEL_W / 2.0;
            *next += PANEL_W + 20.0;
        } else {
            for &c in &node.children {
                place(tree, c, next, x);
            }
            x[id] = node.children.iter().map(|&c| x[c]).sum::<f64>() / node.children.len() as f64;
        }
    }
    let mut next = 10.0;
    place(tree, 1, &mut next, &mut x);
    let width = next.max(300.0);
    let y_of = |d: usize| 30.0 + (d - 1) as f64 * LEVEL_H;
    let panels_top = y_of(depth) + 40.0;
    let n_items = tree.items.len();
    let panel_h = n_items as f64 * ROW_H + 40.0;
    let height = panels_top + panel_h + 20.0;
    // Common axis over every leaf's intervals.
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for id in &leaves {
        for it in &tree.nodes[id - 1]
            .summary
            .as_ref()
            .expect("leaves carry summaries")
            .items
        {
            let half = it.log_worth_se.unwrap_or(0.0) * Z975;
            lo = lo.min(it.log_worth - half);
            hi = hi.max(it.log_worth + half);
        }
    }
    if !(hi > lo) {
        lo -= 1.0;
        hi += 1.0;
    }
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" \
         width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    for node in &tree.nodes {
        let (nx, ny) = (
            x[node.id],
            if node.children.is_empty() {
                panels_top - 18.0
            } else {
                y_of(node.depth)
            },
        );
        for (k, &c) in node.children.iter().enumerate() {
            let child = &tree.nodes[c - 1];
            let cy = if child.children.is_empty() {
                panels_top - 30.0
            } else {
                y_of(child.depth) - 14.0
            };
            let _ = write!(
                s,
                "<line x1=\"{nx:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{cy:.1}\" stroke=\"#888\"/>",
                ny + 16.0,
                x[c]
            );
            let rule = node.split.as_ref().expect("inner nodes split");
            let (lx, ly) = ((nx + x[c]) / 2.0, (ny + 16.0 + cy) / 2.0);
            let _ = write!(
                s,
                "<text x=\"{lx:.1}\" y=\"{ly:.1}\" text-anchor=\"middle\" fill=\"#333\" \
                 paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\">{}</text>",
                esc(&edge_label(rule, k == 0))
            );
        }
        if let Some(rule) = &node.split {
            let p = node
                .tests
                .iter()
                .find(|t| t.variable == rule.variable())
                .and_then(|t| t.p_value);
            let _ = write!(
                s,
                "<ellipse cx=\"{nx:.1}\" cy=\"{ny:.1}\" rx=\"78\" ry=\"17\" fill=\"#eef3fb\" stroke=\"#4a6fa5\"/>\
                 <text x=\"{nx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"bold\">{} {}</text>\
                 <text x=\"{nx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                ny - 2.0,
                node.id,
                esc(rule.variable()),
                ny + 11.0,
                esc(&p_text(p))
            );
        }
    }
    // Leaf panels.
    for id in &leaves {
        let node = &tree.nodes[id - 1];
        let left = x[*id] - PANEL_W / 2.0;
        let top = panels_top;
        let plot_l = left + LABEL_W;
        let plot_w = PANEL_W - LABEL_W - 8.0;
        let sx = |v: f64| plot_l + (v - lo) / (hi - lo) * plot_w;
        let _ = write!(
            s,
            "<rect x=\"{left:.1}\" y=\"{:.1}\" width=\"{PANEL_W}\" height=\"{panel_h:.1}\" fill=\"none\" stroke=\"#bbb\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"bold\">Node {} (n = {})</text>",
            top - 12.0,
            x[*id],
            top - 17.0 + 0.0,
            node.id,
            node.n
        );
        let zero = sx(0.0);
        let _ = write!(
            s,
            "<line x1=\"{zero:.1}\" y1=\"{:.1}\" x2=\"{zero:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
            top,
            top + n_items as f64 * ROW_H
        );
        let summ = node.summary.as_ref().expect("leaves carry summaries");
        for (k, it) in summ.items.iter().enumerate() {
            let y = top + 10.0 + k as f64 * ROW_H;
            let half = it.log_worth_se.unwrap_or(0.0) * Z975;
            let name: String = it.name.chars().take(14).collect();
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\
                 <line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#4a6fa5\"/>\
                 <circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"#1f3b66\"/>",
                plot_l - 4.0,
                y + 4.0,
                esc(&name),
                sx(it.log_worth - half),
                sx(it.log_worth + half),
                sx(it.log_worth)
            );
        }
        let axis_y = top + n_items as f64 * ROW_H + 4.0;
        let _ = write!(
            s,
            "<line x1=\"{plot_l:.1}\" y1=\"{axis_y:.1}\" x2=\"{:.1}\" y2=\"{axis_y:.1}\" stroke=\"#555\"/>\
             <text x=\"{plot_l:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">log-worth</text>",
            plot_l + plot_w,
            axis_y + 13.0,
            sig(lo, 2),
            plot_l + plot_w,
            axis_y + 13.0,
            sig(hi, 2),
            plot_l + plot_w / 2.0,
            axis_y + 26.0
        );
    }
    s.push_str("</svg>");
    s
}

/// The self-contained page of a tree, titled `title`.
pub fn tree_html(tree: &PlTree, title: &str, data: Option<&str>) -> String {
    let mut h = HtmlReport::new(title);
    let leaves = tree.leaves().count();
    h.facts(&[
        (
            "model",
            "Plackett–Luce tree (model-based recursive partitioning; Turner et al. 2020)".into(),
        ),
        (
            "data",
            format!(
                "{}{} rankers, {} rankings, {} items",
                data.map(|d| format!("{d}: ")).unwrap_or_default(),
                tree.n_rankers,
                tree.nodes[0].n_rankings,
                tree.items.len()
            ),
        ),
        ("nodes", format!("{} ({} leaves)", tree.nodes.len(), leaves)),
        ("minsize", tree.minsize.to_string()),
        ("log-likelihood", sig(tree.log_likelihood(), 10)),
        (
            "AIC",
            format!(
                "{} ({} parameters)",
                sig(tree.aic(), 10),
                tree.n_parameters()
            ),
        ),
    ]);
    h.heading("The tree");
    h.figure(
        &tree_svg(tree),
        "Inner nodes: the splitting covariate and its adjusted p-value; edges: the split. \
         Leaves: log-worths with 95% intervals (standard errors from each leaf's observed \
         information), on one axis for every leaf.",
    );
    h.heading("Instability tests");
    h.para(
        "Each covariate's test at every inner node (sup-LM for numeric covariates, χ² over \
         levels for categorical ones; p adjusted over the covariates tested at the node). The \
         split is on the smallest adjusted p below alpha. docs/trees.md explains the tests.",
    );
    let mut rows = Vec::new();
    for n in tree.nodes.iter().filter(|n| !n.is_terminal()) {
        for t in &n.tests {
            rows.push(vec![
                n.id.to_string(),
                t.variable.clone(),
                t.statistic.map_or("-".into(), |v| sig(v, 6)),
                t.df.map_or("-".into(), |v| v.to_string()),
                t.p_value_raw.map_or("-".into(), |v| sig(v, 4)),
                t.p_value.map_or("-".into(), |v| sig(v, 4)),
            ]);
        }
    }
    h.table(
        &["node", "covariate", "statistic", "df", "p", "adjusted p"],
        &rows,
    );
    h.heading("Leaves");
    let mut header = vec!["item".to_string()];
    for l in tree.leaves() {
        header.push(format!("node {} (n = {})", l.id, l.n));
    }
    let rows: Vec<Vec<String>> = (0..tree.items.len())
        .map(|i| {
            let mut r = vec![tree.items[i].clone()];
            for l in tree.leaves() {
                let it = &l.summary.as_ref().expect("leaves carry summaries").items[i];
                r.push(format!(
                    "{} ({})",
                    sig(it.log_worth, 4),
                    it.log_worth_se.map_or("-".into(), |v| sig(v, 3))
                ));
            }
            r
        })
        .collect();
    let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
    h.table(&hdr, &rows);
    if !tree.notes.is_empty() {
        h.heading("Notes");
        for n in &tree.notes {
            h.para(n);
        }
    }
    h.render()
}
