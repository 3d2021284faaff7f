//! `plackett predict`: posterior predictive probabilities of new rankings,
//! choices and pairs from a model saved by `plackett fit --model-out` — one
//! population (with its tie prevalences for ties as events), a finite
//! mixture, whose predictions add each observation's membership
//! probabilities, or an adherence model, which predicts each ranker by its
//! own adherence and a new ranker by the adherence prior.

use crate::args::Output;
use crate::fit_args::{DataArgs, choice_set, compare_ids, compare_names, load_with_universe};
use anyhow::{Result, bail};
use clap::Args;
use plackett::data::{Dataset, Items};
use plackett::posterior::fit_report::{Choice, Comparison};
use plackett::posterior::{AnyModel, SavedAdherence, SavedMixture, SavedModel};
use serde_json::json;
use std::fmt::Write as _;

/// `plackett predict MODEL.json DATA`.
#[derive(Args, Debug)]
pub struct PredictArgs {
    /// Model file written by `plackett fit --model-out` (one population, or a mixture
    /// from `--components`).
    pub model: String,
    /// The observations to predict (read with the same options as `fit`, over the model's items).
    #[command(flatten)]
    pub data: DataArgs,
    /// Also: probability that A beats B, or with three or more items the probability that
    /// each is chosen first from the set (repeatable).
    #[arg(long, value_name = "A,B[,C…]")]
    pub compare: Vec<String>,
    /// Adherence models: --compare as this ranker of the model would choose (default: a
    /// new ranker, whose adherence is integrated over the prior).
    #[arg(long, value_name = "NAME")]
    pub as_ranker: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Output::Table)]
    pub output: Output,
    /// Write the output to this file instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
    /// Tree models (`tree --model-out`): the data file is a covariate table of new rankers;
    /// this column names them.
    #[arg(long, value_name = "COL", default_value = "ranker")]
    pub covariate_key: String,
}

/// Which kind of model predicted.
enum Kind {
    Single,
    Mixture,
    Adherence,
}

/// What any kind of model predicts for the data.
struct Predicted {
    kind: Kind,
    /// The engine that fitted the model.
    engine: String,
    /// Number of items.
    n_items: usize,
    /// The table's first line.
    heading: String,
    /// Further lines under it (tie prevalences, mixture weights).
    about: Vec<String>,
    /// JSON keys describing the model.
    model_keys: serde_json::Map<String, serde_json::Value>,
    /// Each observation's log-probability at unit weight.
    logp: Vec<f64>,
    /// A mixture's membership probabilities, one row per observation.
    membership: Option<Vec<Vec<f64>>>,
    comparisons: Vec<Comparison>,
    choices: Vec<Choice>,
    /// Each observation's weight.
    weights: Vec<f64>,
    /// Each observation written out (`B > A = C`): which pair or ranking
    /// and its outcome.
    labels: Vec<String>,
    /// Uninformative observations the reader dropped.
    dropped: usize,
}

impl Predicted {
    /// What every model kind's predictions share: the observations' weights,
    /// labels and the reader's dropped count come from the data; the kind's
    /// heading, notes, model keys and memberships are filled in by the
    /// caller.
    fn of(
        kind: Kind,
        engine: &str,
        n_items: usize,
        ds: &Dataset,
        logp: Vec<f64>,
        (comparisons, choices): (Vec<Comparison>, Vec<Choice>),
    ) -> Predicted {
        Predicted {
            kind,
            engine: engine.to_string(),
            n_items,
            heading: String::new(),
            about: Vec::new(),
            model_keys: serde_json::Map::new(),
            logp,
            membership: None,
            comparisons,
            choices,
            weights: weights(ds),
            labels: (0..ds.n_obs()).map(|o| ds.describe(o)).collect(),
            dropped: ds.dropped(),
        }
    }
}

pub fn run(a: &PredictArgs) -> Result<()> {
    let text = plackett::io::read_text(&a.model)?;
    if plackett::io::model_file::family_of(&text)
        == Some(plackett::io::model_file::ModelFamily::Tree)
    {
        if a.as_ranker.is_some() {
            bail!("invalid option --as-ranker: only with a model saved by fit --adherence");
        }
        let args = crate::tree::TreePredict {
            model: &a.model,
            file: &a.data.file,
            covariate_key: &a.covariate_key,
            compare: &a.compare,
            output: a.output,
            out: a.out.as_ref(),
        };
        return crate::tree::predict(&args, &text);
    }
    let p = match AnyModel::from_json(&a.model, &text)? {
        AnyModel::Single(m) => single(a, &m)?,
        AnyModel::Mixture(m) => mixture(a, &m)?,
        AnyModel::Adherence(m) => adherence(a, &m)?,
    };
    if a.as_ranker.is_some() && !matches!(p.kind, Kind::Adherence) {
        bail!("invalid option --as-ranker: only with a model saved by fit --adherence");
    }
    let (out, notes) = render(a, &p)?;
    match &a.out {
        Some(path) => crate::outputs::write(path, out.as_bytes())?,
        None => crate::emit(&out)?,
    }
    if matches!(a.output, Output::Csv) {
        crate::notes_to_stderr(&notes);
    }
    Ok(())
}

/// The data of `a`, read over a model's item `names`.
fn load_over(a: &PredictArgs, names: &[String]) -> Result<Dataset> {
    let items = Items::from_names(names).map_err(|e| anyhow::anyhow!("{}: {e}", a.model))?;
    load_with_universe(&a.data, &items, &format!("the model {}", a.model))
}

/// A library error about the data, as one line naming the data file.
fn data_error(a: &PredictArgs, e: plackett::Error) -> anyhow::Error {
    anyhow::anyhow!("{}: {}", a.data.file, crate::cli_text(&e.to_string()))
}

fn single(a: &PredictArgs, model: &SavedModel) -> Result<Predicted> {
    let ds = load_over(a, &model.items)?;
    let logp = model.predict(&ds).map_err(|e| data_error(a, e))?;
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
    let mut about = Vec::new();
    if !model.ties.is_empty() {
        let deltas: Vec<String> = model
            .ties
            .iter()
            .map(|t| format!("delta_{} {:.6}", t.order, t.delta))
            .collect();
        about.push(format!(
            "ties as events (Davidson–Luce): {}",
            deltas.join(", ")
        ));
    }
    let mut model_keys = serde_json::Map::new();
    model_keys.insert("draws".into(), json!(model.draws.len()));
    model_keys.insert("ties".into(), json!(model.ties));
    Ok(Predicted {
        heading: format!(
            "model: engine {}, {} items, {} ({}); {}",
            model.engine,
            names.len(),
            plackett::io::output::count(model.draws.len(), "draw", "draws"),
            draws_phrase(model.draws.len()),
            plackett::io::output::count(ds.n_obs(), "observation", "observations")
        ),
        about,
        model_keys,
        ..Predicted::of(
            Kind::Single,
            &model.engine,
            names.len(),
            &ds,
            logp,
            (comparisons, choices),
        )
    })
}

/// What a model's predictions are, by its number of draws.
fn draws_phrase(draws: usize) -> &'static str {
    if draws > 1 {
        "posterior predictive: the mean over draws"
    } else {
        "plug-in at the estimate"
    }
}

fn weights(ds: &Dataset) -> Vec<f64> {
    (0..ds.n_obs()).map(|o| ds.obs(o).weight).collect()
}

fn mixture(a: &PredictArgs, model: &SavedMixture) -> Result<Predicted> {
    let ds = load_over(a, &model.items)?;
    let pred = model.predict(&ds).map_err(|e| data_error(a, e))?;
    let names = &model.items;
    let mut comparisons = Vec::new();
    let mut choices = Vec::new();
    for spec in &a.compare {
        if let Some(set) = choice_set(&ds, spec)? {
            let probs = model.choice_probabilities(&set);
            choices.push(Choice::new(
                names,
                &set,
                probs.into_iter().map(|p| (p, None)).collect(),
            ));
            continue;
        }
        let (na, nb) = compare_names(spec)?;
        let (i, j) = compare_ids(&ds, spec)?;
        comparisons.push(Comparison::new(
            na,
            nb,
            model.prob_beats(i as usize, j as usize),
            None,
        ));
    }
    let g = model.components();
    let weights_text: Vec<String> = model.weights.iter().map(|w| format!("{w:.4}")).collect();
    let mut model_keys = serde_json::Map::new();
    model_keys.insert("components".into(), json!(g));
    model_keys.insert("weights".into(), json!(model.weights));
    Ok(Predicted {
        heading: format!(
            "model: engine {}, mixture of {g} components, {} items (plug-in at the estimate); {}",
            model.engine,
            names.len(),
            plackett::io::output::count(ds.n_obs(), "observation", "observations")
        ),
        about: vec![format!("component weights {}", weights_text.join(", "))],
        model_keys,
        membership: Some(pred.membership),
        ..Predicted::of(
            Kind::Mixture,
            &model.engine,
            names.len(),
            &ds,
            pred.log_probability,
            (comparisons, choices),
        )
    })
}

fn adherence(a: &PredictArgs, model: &SavedAdherence) -> Result<Predicted> {
    let ds = load_over(a, &model.items)?;
    let logp = model.predict(&ds).map_err(|e| data_error(a, e))?;
    let names = &model.items;
    let ranker = match &a.as_ranker {
        None => None,
        Some(r) => Some(model.ranker_index(r).ok_or_else(|| {
            anyhow::anyhow!(
                "invalid option --as-ranker: {r:?} is not a ranker of the model {} (it has {})",
                a.model,
                model.rankers.len()
            )
        })?),
    };
    let who = match &a.as_ranker {
        Some(r) => format!("as ranker {r} would choose"),
        None => "as a new ranker would choose (adherence integrated over the prior)".to_string(),
    };
    // What the model cannot answer (no prior for a new ranker) names it.
    let model_error =
        |e: plackett::Error| anyhow::anyhow!("{}: {}", a.model, crate::cli_text(&e.to_string()));
    let (comparisons, choices) =
        crate::adherence::compare(model, &ds, &a.compare, ranker, model_error)?;
    let new = model.new_rankers(&ds);
    let known = ds.n_obs() - new;
    let mut about = vec![match model.prior {
        Some([s, r]) => format!(
            "{} by rankers of the model, at their adherence; {new} by new \
             rankers (or without a ranker column), adherence integrated over the prior \
             Gamma({s}, {r})",
            plackett::io::output::count(known, "observation", "observations")
        ),
        None => format!(
            "{} by rankers of the model, at their fixed adherence",
            plackett::io::output::count(known, "observation", "observations")
        ),
    }];
    if !a.compare.is_empty() {
        about.push(format!("comparisons: {who}"));
    }
    let mut model_keys = serde_json::Map::new();
    model_keys.insert("model".into(), json!("adherence"));
    model_keys.insert("draws".into(), json!(model.log_worths.len()));
    model_keys.insert("rankers".into(), json!(model.rankers.len()));
    model_keys.insert("adherence_prior".into(), json!(model.prior));
    model_keys.insert("new_ranker_observations".into(), json!(new));
    model_keys.insert("compare_as".into(), json!(a.as_ranker));
    Ok(Predicted {
        heading: format!(
            "model: adherence, engine {}, {} items, {}, {} ({}); {}",
            model.engine,
            names.len(),
            plackett::io::output::count(model.rankers.len(), "ranker", "rankers"),
            plackett::io::output::count(model.log_worths.len(), "draw", "draws"),
            draws_phrase(model.log_worths.len()),
            plackett::io::output::count(ds.n_obs(), "observation", "observations")
        ),
        about,
        model_keys,
        ..Predicted::of(
            Kind::Adherence,
            &model.engine,
            names.len(),
            &ds,
            logp,
            (comparisons, choices),
        )
    })
}

/// A probability in the table: six decimals, or three significant digits
/// in scientific notation below 10⁻⁶ (a long ranking's probability would
/// otherwise print as 0.000000).
fn probability_cell(p: f64) -> String {
    if p != 0.0 && p < 1e-6 {
        format!("{p:>11.3e}")
    } else {
        format!("{p:>11.6}")
    }
}

/// The output text, and its notes (in it but for CSV).
fn render(a: &PredictArgs, p: &Predicted) -> Result<(String, Vec<String>)> {
    let total: f64 = p.logp.iter().zip(&p.weights).map(|(l, w)| w * l).sum();
    let mut notes = Vec::new();
    if p.dropped > 0 {
        notes.push(format!(
            "{} dropped (a single item, or one unknown-order group): observation numbers \
             count the others",
            plackett::io::output::count(
                p.dropped,
                "uninformative observation was",
                "uninformative observations were"
            )
        ));
    }
    let g = p
        .membership
        .as_ref()
        .map_or(0, |m| m.first().map_or(0, Vec::len));
    let text = match a.output {
        Output::Json => {
            let obs: Vec<_> = p
                .logp
                .iter()
                .zip(&p.weights)
                .enumerate()
                .map(|(o, (l, w))| {
                    let mut v = json!({"observation": o, "ranking": p.labels[o], "weight": w, "log_probability": l, "probability": l.exp()});
                    if let Some(m) = &p.membership {
                        v["membership"] = json!(m[o]);
                    }
                    v
                })
                .collect();
            let mut doc = serde_json::Map::new();
            doc.insert("engine".into(), json!(p.engine));
            doc.insert("n_items".into(), json!(p.n_items));
            for (k, v) in &p.model_keys {
                doc.insert(k.clone(), v.clone());
            }
            doc.insert("observations".into(), json!(obs));
            doc.insert("total_log_probability".into(), json!(total));
            doc.insert("comparisons".into(), json!(p.comparisons));
            doc.insert("choices".into(), json!(p.choices));
            doc.insert("notes".into(), json!(notes));
            serde_json::to_string_pretty(&serde_json::Value::Object(doc))? + "\n"
        }
        Output::Csv => {
            if !a.compare.is_empty() {
                bail!(
                    "invalid option --compare: not with --output csv (one row per observation); use table or json"
                );
            }
            let mut s = String::from("observation,weight,log_probability,probability");
            for k in 1..=g {
                let _ = write!(s, ",membership_{k}");
            }
            s.push_str(",ranking\n");
            for (o, (l, w)) in p.logp.iter().zip(&p.weights).enumerate() {
                let _ = write!(s, "{o},{w},{l},{}", l.exp());
                if let Some(m) = &p.membership {
                    for x in &m[o] {
                        let _ = write!(s, ",{x}");
                    }
                }
                let _ = writeln!(s, ",{}", plackett::io::output::csv_field(&p.labels[o]));
            }
            s
        }
        Output::Table => {
            let mut s = String::new();
            let _ = writeln!(s, "{}", p.heading);
            for line in &p.about {
                let _ = writeln!(s, "{line}");
            }
            let _ = writeln!(s, "total log-probability {total:.4}\n");
            let _ = write!(
                s,
                "{:>5} {:>8} {:>15} {:>11}",
                "#", "weight", "log_probability", "probability"
            );
            for k in 1..=g {
                let _ = write!(s, " {:>8}", format!("P(g={k})"));
            }
            s.push_str("  observation (best first; = tied)\n");
            for (o, (l, w)) in p.logp.iter().zip(&p.weights).enumerate() {
                let _ = write!(
                    s,
                    "{o:>5} {:>8} {l:>15.6} {}",
                    plackett::numerics::sig(*w, 6),
                    probability_cell(l.exp())
                );
                if let Some(m) = &p.membership {
                    for x in &m[o] {
                        let _ = write!(s, " {x:>8.4}");
                    }
                }
                let _ = writeln!(
                    s,
                    "  {}",
                    plackett::io::output::short_name(&p.labels[o], 80)
                );
            }
            for c in &p.comparisons {
                let _ = writeln!(
                    s,
                    "\nP({} beats {}) = {:.4}{}",
                    c.winner,
                    c.loser,
                    c.probability,
                    c.tie_note()
                );
            }
            for c in &p.choices {
                s.push_str(&c.table());
            }
            for n in &notes {
                let _ = writeln!(s, "\nnote: {n}");
            }
            s
        }
    };
    Ok((text, notes))
}
