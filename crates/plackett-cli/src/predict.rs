//! `plackett predict`: posterior predictive probabilities of new rankings,
//! choices and pairs from a model saved by `plackett fit --model-out`.

use crate::args::Output;
use crate::fit::{DataArgs, choice_set, compare_ids, compare_names, load_with_universe};
use anyhow::{Result, bail};
use clap::Args;
use plackett::data::Items;
use plackett::io::output::{Choice, Comparison};
use plackett::posterior::SavedModel;
use serde_json::json;
use std::fmt::Write as _;

/// `plackett predict MODEL.json DATA`.
#[derive(Args, Debug)]
pub struct PredictArgs {
    /// Model file written by `plackett fit --model-out`.
    pub model: String,
    /// The observations to predict (read with the same options as `fit`, over the model's items).
    #[command(flatten)]
    pub data: DataArgs,
    /// Also: probability that A beats B, or with three or more items the probability that
    /// each is chosen first from the set (repeatable).
    #[arg(long, value_name = "A,B[,C…]")]
    pub compare: Vec<String>,
    /// Output format (csv: one row per observation).
    #[arg(long, value_enum, default_value_t = Output::Table)]
    pub output: Output,
    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
}

pub fn run(a: &PredictArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.model)
        .map_err(|e| anyhow::anyhow!("{}: cannot read the model: {e}", a.model))?;
    let model = SavedModel::from_json(&a.model, &text)?;
    let items = Items::from_names(&model.items).map_err(|e| anyhow::anyhow!("{}: {e}", a.model))?;
    let ds = load_with_universe(&a.data, &items).map_err(|e| {
        anyhow::anyhow!(
            "{}",
            format!("{e:#}")
                .replace(
                    "is not in the declared universe (`items`)",
                    "is not in the declared universe (--items)"
                )
                .replace(
                    "is not in the declared universe (--items)",
                    &format!(
                        "is not an item of the model {} (it has {} items)",
                        a.model,
                        items.len()
                    )
                )
        )
    })?;
    let logp = model
        .predict(&ds)
        .map_err(|e| anyhow::anyhow!("{}: {}", a.data.file, crate::cli_text(&e.to_string())))?;
    let names = &model.items;
    let ties = model.tie_model();
    let mut comparisons = Vec::new();
    let mut choices = Vec::new();
    for spec in &a.compare {
        if let Some(set) = choice_set(&ds, spec)? {
            let (probs, tie) = ties.choice(&model.draws, &set);
            choices.push(Choice::new(names, &set, probs).with_tie(tie));
            continue;
        }
        let (na, nb) = compare_names(spec)?;
        let (i, j) = compare_ids(&ds, spec)?;
        let [win, _, tie] = ties.outcomes(&model.draws, i as usize, j as usize);
        comparisons.push(Comparison::new(
            na,
            nb,
            win,
            (!ties.is_empty()).then_some(tie),
        ));
    }
    let weights: Vec<f64> = (0..ds.n_obs()).map(|o| ds.obs(o).weight).collect();
    let total: f64 = logp.iter().zip(&weights).map(|(l, w)| w * l).sum();
    let mut notes = Vec::new();
    if ds.dropped() > 0 {
        notes.push(format!(
            "{} uninformative observation(s) (a single item, or one unknown-order group) were \
             dropped: observation numbers count the others",
            ds.dropped()
        ));
    }
    let out = match a.output {
        Output::Json => {
            let obs: Vec<_> = logp
                .iter()
                .zip(&weights)
                .enumerate()
                .map(|(o, (l, w))| {
                    json!({"observation": o, "weight": w, "log_probability": l, "probability": l.exp()})
                })
                .collect();
            serde_json::to_string_pretty(&json!({
                "engine": model.engine,
                "n_items": names.len(),
                "draws": model.draws.len(),
                "ties": model.ties,
                "observations": obs,
                "total_log_probability": total,
                "comparisons": comparisons,
                "choices": choices,
                "notes": notes,
            }))? + "\n"
        }
        Output::Csv => {
            if !a.compare.is_empty() {
                bail!(
                    "invalid option --compare: not with --output csv (one row per observation); use table or json"
                );
            }
            let mut s = String::from("observation,weight,log_probability,probability\n");
            for (o, (l, w)) in logp.iter().zip(&weights).enumerate() {
                let _ = writeln!(s, "{o},{w},{l},{}", l.exp());
            }
            s
        }
        Output::Table => {
            let mut s = String::new();
            let _ = writeln!(
                s,
                "model: engine {}, {} items, {} draw(s) ({}); {} observation(s)",
                model.engine,
                names.len(),
                model.draws.len(),
                if model.draws.len() > 1 {
                    "posterior predictive: the mean over draws"
                } else {
                    "plug-in at the estimate"
                },
                ds.n_obs()
            );
            if !model.ties.is_empty() {
                let deltas: Vec<String> = model
                    .ties
                    .iter()
                    .map(|t| format!("delta_{} {:.6}", t.order, t.delta))
                    .collect();
                let _ = writeln!(s, "ties as events (Davidson–Luce): {}", deltas.join(", "));
            }
            let _ = writeln!(s, "total log-probability {total:.4}\n");
            let _ = writeln!(
                s,
                "{:>11} {:>8} {:>15} {:>12}",
                "observation", "weight", "log_probability", "probability"
            );
            for (o, (l, w)) in logp.iter().zip(&weights).enumerate() {
                let _ = writeln!(
                    s,
                    "{o:>11} {:>8} {l:>15.6} {:>12.6e}",
                    plackett::numerics::sig(*w, 6),
                    l.exp()
                );
            }
            for c in &comparisons {
                let _ = writeln!(
                    s,
                    "\nP({} beats {}) = {:.4}",
                    c.winner, c.loser, c.probability
                );
            }
            for c in &choices {
                s.push_str(&c.table());
            }
            for n in &notes {
                let _ = writeln!(s, "\nnote: {n}");
            }
            s
        }
    };
    match &a.out {
        Some(p) => crate::fit::write_outputs(&a.data.file, &[(p.clone(), out)]),
        None => crate::emit(&out),
    }
}
