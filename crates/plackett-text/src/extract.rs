//! One document → keyword probabilities and the FDR-selected set: the
//! whole `keywords extract` job (front-end, graph, prior, VBSS or its Gibbs
//! gold standard, selection), shared by the CLI and the Python package.

use super::pipeline::Pipeline;
use plackett::error::{Error, Result};
use plackett::keywords::{
    PriorScale, Probability, ThetaPrior, VbCovariance, VbssGibbsOptions, VbssOptions, WordGraph,
    fdr_select_unlabelled, fit_gibbs_observed, fit_vbss, position_rank_given, single_rank_ss_given,
    text_rank_given, top_by_score,
};
use serde_json::json;
use std::collections::HashMap;

/// What the document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Plain text, run through the front-end.
    Text,
    /// Already the candidate sequence (white-space separated; known
    /// keywords are then matched verbatim).
    Tokens,
    /// A weighted graph of your own: CSV lines `source,target[,weight]`
    /// (weight 1 when absent; names quoted as CSV quotes them; a header line
    /// `source,target[,weight]` is skipped; repeated edges add up; [`edges_csv`]
    /// writes this format). Known keywords are matched verbatim.
    Graph,
}

/// Parse the edge list of [`Input::Graph`]: CSV records
/// `source,target[,weight]` (fields may be quoted, so that a name can hold
/// a comma; blank lines are skipped, and so is a first record
/// `source,target[,weight]`, a header — only the whole of it, so that a
/// first edge from a word named "source" stays an edge). A `#` is data,
/// not a comment: hashtags are names a user's graph may well hold.
fn read_edges(text: &str, source: &str) -> Result<WordGraph> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut words: Vec<String> = Vec::new();
    let mut edges = Vec::new();
    let bad = |line: usize, msg: String| Error::Input {
        loc: plackett::error::Location {
            file: source.to_string(),
            line: Some(line),
            record: None,
        },
        msg,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut first = true;
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            bad(line, format!("not a CSV record: {e}"))
        })?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        if record.iter().all(str::is_empty) {
            continue;
        }
        let f: Vec<&str> = record.iter().collect();
        let header = f.len() >= 2
            && f[0].eq_ignore_ascii_case("source")
            && f[1].eq_ignore_ascii_case("target")
            && f.get(2).is_none_or(|w| w.eq_ignore_ascii_case("weight"));
        if std::mem::take(&mut first) && header {
            continue;
        }
        if !(2..=3).contains(&f.len()) || f[0].is_empty() || f[1].is_empty() {
            return Err(bad(line, "expected `source,target[,weight]`".into()));
        }
        let w = match f.get(2) {
            None => 1.0,
            Some(v) => v
                .parse::<f64>()
                .ok()
                .filter(|w| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| {
                    bad(
                        line,
                        format!("weight {v:?} is not a finite non-negative number"),
                    )
                })?,
        };
        let mut id = |name: &str| -> usize {
            if let Some(&i) = index.get(name) {
                return i;
            }
            index.insert(name.to_string(), words.len());
            words.push(name.to_string());
            words.len() - 1
        };
        let (i, j) = (id(f[0]), id(f[1]));
        edges.push((i, j, w));
    }
    if words.is_empty() {
        return Err(Error::Data(format!("{source}: no edges")));
    }
    WordGraph::from_edges(words, &edges)
}

/// One edge of a document's co-occurrence graph (Python
/// `KeywordResult.edges`, `keywords extract --graph-out`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Edge {
    /// One word (the earlier of the two in candidate order).
    pub source: String,
    /// The other word (the same word for a self-loop, or, with weight 0,
    /// for a word that co-occurs with no other).
    pub target: String,
    /// Co-occurrence count (the weight given, for a graph input).
    pub weight: f64,
}

/// The edges of `g`, each pair once in candidate order, then a
/// weight-0 loop for every isolated word, so that reading them back as
/// `--input graph` gives the same graph (candidates in another order only
/// where the edge list meets them in another order).
pub fn graph_edges(g: &WordGraph) -> Vec<Edge> {
    let n = g.len();
    let mut out = Vec::new();
    for i in 0..n {
        for j in i..n {
            let w = g.adjacency[(i, j)];
            if w > 0.0 {
                out.push(Edge {
                    source: g.words[i].clone(),
                    target: g.words[j].clone(),
                    weight: w,
                });
            }
        }
    }
    for i in g.isolated() {
        if g.adjacency[(i, i)] == 0.0 {
            out.push(Edge {
                source: g.words[i].clone(),
                target: g.words[i].clone(),
                weight: 0.0,
            });
        }
    }
    out
}

/// `edges` as the CSV `--input graph` reads: a `source,target,weight`
/// header, then one quoted-as-needed line per edge.
pub fn edges_csv(edges: &[Edge]) -> String {
    let mut s = String::from("source,target,weight\n");
    for e in edges {
        s.push_str(&format!(
            "{},{},{}\n",
            plackett::io::output::csv_field(&e.source),
            plackett::io::output::csv_field(&e.target),
            e.weight
        ));
    }
    s
}

/// The inference engine.
#[derive(Debug, Clone, Copy)]
pub enum Engine {
    /// VBSS (Hu 2024, Algorithm 1).
    Vb(VbssOptions),
    /// The exact posterior of the same model.
    Gibbs(VbssGibbsOptions),
}

/// Settings of [`extract`].
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Text, tokens or a graph.
    pub input: Input,
    /// The document's name in error messages (a file name).
    pub source: String,
    /// The front-end.
    pub pipeline: Pipeline,
    /// Co-occurrence window.
    pub window: usize,
    /// Keep self-co-occurrences.
    pub self_loops: bool,
    /// Damping `d`.
    pub damping: f64,
    /// `θ₀` scaling.
    pub scale: PriorScale,
    /// Which probability the FDR rule reads.
    pub probability: Probability,
    /// FDR level γ of the selection.
    pub fdr: f64,
    /// Engine and its settings.
    pub engine: Engine,
    /// Score every candidate by the baselines too (TextRank, PositionRank,
    /// SS on the same graph): [`Candidate::textrank`] and its siblings.
    pub baselines: bool,
    /// Return the co-occurrence graph ([`Extraction::edges`]).
    pub edges: bool,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            input: Input::Text,
            source: "<document>".into(),
            pipeline: Pipeline::default(),
            window: 2,
            self_loops: false,
            damping: 0.85,
            scale: PriorScale::Code,
            probability: Probability::Latent,
            fdr: 0.2,
            engine: Engine::Vb(VbssOptions::default()),
            baselines: false,
            edges: false,
        }
    }
}

/// One candidate word's results (`plackett keywords extract --output
/// json`'s `candidates` rows).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Candidate {
    /// The candidate: a Porter stem with the text front-end, the token or
    /// node name as given otherwise.
    pub stem: String,
    /// The words of the text it stands for, most frequent first (with
    /// tokens or a graph as input, the candidate itself).
    pub words: Vec<String>,
    /// 1-based rank by `p`.
    pub rank: usize,
    /// Whether it was given as known.
    pub known: bool,
    /// Whether the FDR rule selected it.
    pub selected: bool,
    /// The probability the rule read (`probability` says which).
    pub p: f64,
    /// Posterior sd of the word's keyword probability `Φ(a + bθ)` (under
    /// `q` for VBSS, over the draws for Gibbs), whose posterior mean is
    /// `p_predictive`.
    pub sd: f64,
    /// `Φ(a + bθ)` at the means (VB) or its posterior mean (Gibbs).
    pub p_plugin: f64,
    /// `Φ(a + bθ)` averaged over the posterior.
    pub p_predictive: f64,
    /// `P(y* = 1 | y)`.
    pub p_latent: f64,
    /// Posterior mean of `θ`.
    pub theta_mean: f64,
    /// Posterior sd of `θ`.
    pub theta_sd: f64,
    /// Occurrences in the candidate sequence.
    pub frequency: f64,
    /// With [`ExtractOptions::baselines`]: TextRank's score (Mihalcea &
    /// Tarau 2004) on the same weighted graph, `θ = (1 − d)1 + dGᵀθ`
    /// (the scores sum to the number of candidates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub textrank: Option<f64>,
    /// With [`ExtractOptions::baselines`]: PositionRank's score (Florescu &
    /// Caragea 2017), TextRank teleporting to early words; none for a graph
    /// input, which has no positions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positionrank: Option<f64>,
    /// With [`ExtractOptions::baselines`]: SS's score (Li et al. 2010),
    /// `θ = (1 − d)y + dQθ`, the graph-smoothed known labels VBSS's prior
    /// is centred on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ss: Option<f64>,
}

/// The note every VB extraction with the default linear-response
/// covariance carries: VBSS's probabilities agree with the exact
/// posterior's, its sds are still about two thirds of it
/// (docs/keywords.md, "VB against the exact posterior"). Outputs that
/// print no `sd` may leave it out.
pub const VB_SD_NOTE: &str = "vb: sd is VB's with its linear-response correction and still too \
     small, about two thirds of the exact posterior's (mean-field alone: a third; on full papers \
     the probabilities themselves were within about 0.001 of it on average, docs/keywords.md); \
     the gibbs engine gives the exact posterior's sds";

/// The same note for `--covariance mean-field` (Hu 2024's VBSS as
/// stated): its sds are about a third of the exact posterior's.
pub const VB_SD_NOTE_MEAN_FIELD: &str = "vb: sd is mean-field VB's and too small, about a third \
     of the exact posterior's (on full papers the probabilities themselves were within about \
     0.001 of it on average, docs/keywords.md); the default linear-response covariance gives \
     about two thirds, the gibbs engine the exact posterior's sds";

/// Fewer candidate words than this make a "short text": VB's accuracy
/// was measured on full papers (hundreds of candidates; docs/keywords.md),
/// and on a 37-word abstract its mean probability of the unlabelled words
/// was 0.006 against the exact posterior's 0.021 (largest difference 0.12).
pub const SHORT_TEXT_CANDIDATES: usize = 150;

/// The sd caveat of a VB fit with this covariance.
pub fn vb_sd_note(covariance: VbCovariance) -> &'static str {
    match covariance {
        VbCovariance::LinearResponse => VB_SD_NOTE,
        VbCovariance::MeanField => VB_SD_NOTE_MEAN_FIELD,
    }
}

/// Whether a note is a VB fit's sd caveat (summaries that print no sds
/// leave it out).
pub fn is_vb_sd_note(note: &str) -> bool {
    note == VB_SD_NOTE || note == VB_SD_NOTE_MEAN_FIELD
}

/// Result of [`extract`]: the JSON of `plackett keywords extract --output
/// json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Extraction {
    /// Every candidate, best first.
    pub candidates: Vec<Candidate>,
    /// The FDR level γ of the selection.
    pub fdr: f64,
    /// VBSS: sweeps run; Gibbs: sweeps per chain (burn-in and kept).
    pub iterations: usize,
    /// VBSS: the final ELBO; Gibbs: none.
    pub elbo: Option<f64>,
    /// Number of candidate words.
    pub n_candidates: usize,
    /// Known keywords among them.
    pub known: usize,
    /// `latent`, `plugin`, `predictive` or `forced`.
    pub probability: String,
    /// Selected words, in candidate order.
    pub selected: Vec<String>,
    /// Engine details (parameters, ELBO or MCMC diagnostics).
    pub fit: serde_json::Value,
    /// Whether VBSS met its stopping rule (always true for Gibbs).
    pub converged: bool,
    /// Seconds of inference.
    pub seconds: f64,
    /// Notes for the user.
    pub notes: Vec<String>,
    /// Text input only: the selected words' runs in the text, collapsed
    /// into keyphrases ([`keyphrases`](crate::phrases::keyphrases),
    /// Mihalcea & Tarau 2004, §3.1), most frequent first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phrases: Option<Vec<crate::phrases::Keyphrase>>,
    /// With [`ExtractOptions::edges`]: the co-occurrence graph
    /// ([`graph_edges`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<Edge>>,
}

impl Extraction {
    /// The document envelope ([`plackett::document`]): family `keywords`,
    /// one observation per candidate word. Gibbs: `converged` is whether
    /// the word probabilities' worst split-R̂ and ESS pass the thresholds
    /// (the `converged` field above stays true: the sampler ran to its
    /// end).
    pub fn envelope(&self) -> plackett::document::Envelope {
        use plackett::document::{Envelope, Family, iterative_diagnostics, sampler_check};
        let engine = self.fit["engine"].as_str().unwrap_or("vb").to_string();
        let mcmc = (
            self.fit["max_rhat"].as_f64(),
            self.fit["min_ess_bulk"].as_f64(),
        );
        let (converged, diagnostics) = match mcmc {
            (Some(r), Some(e)) => sampler_check(r, e),
            _ => (self.converged, iterative_diagnostics(None, None)),
        };
        Envelope {
            family: Family::Keywords,
            engine,
            converged,
            iterations: self.iterations,
            n_observations: self.n_candidates,
            notes: self.notes.clone(),
            diagnostics,
        }
    }

    /// The JSON document of `plackett keywords extract --output json`:
    /// the envelope, then this result's fields.
    pub fn document(&self) -> serde_json::Value {
        self.envelope().wrap(self)
    }
}

/// Each candidate's rank (1 = best; ties in the order of the rows) by
/// TextRank, PositionRank and SS, in the order of `ex.candidates`; `None`
/// for a baseline not computed (the table and the report of
/// `keywords extract --baselines`).
pub fn baseline_ranks(ex: &Extraction) -> [Option<Vec<usize>>; 3] {
    let of = |score: &dyn Fn(&Candidate) -> Option<f64>| -> Option<Vec<usize>> {
        let s: Vec<f64> = ex.candidates.iter().map(score).collect::<Option<_>>()?;
        let order = top_by_score(&s, s.len());
        let mut rank = vec![0; s.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r + 1;
        }
        Some(rank)
    };
    [of(&|c| c.textrank), of(&|c| c.positionrank), of(&|c| c.ss)]
}

fn probability_name(p: Probability) -> &'static str {
    match p {
        Probability::Latent => "latent",
        Probability::Plugin => "plugin",
        Probability::Predictive => "predictive",
        Probability::Forced => "forced",
    }
}

/// A document's text: UTF-8 (an error naming the offset of the first
/// invalid byte otherwise), a leading byte-order mark dropped. `name` is
/// how errors call the file.
pub fn read_document(path: &std::path::Path, name: &str) -> Result<String> {
    plackett::io::refuse_devices(&path.to_string_lossy())
        .map_err(|_| Error::input(name, None, "is a device, not a data file"))?;
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: name.to_string(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::input(
            name,
            None,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    Ok(text.trim_start_matches('\u{feff}').to_string())
}

/// Score every candidate word of a document given the known keywords or
/// keyphrases (each word stemmed like the text), and select by Bayesian FDR.
/// Errors about the document are located at `opts.source` (`doc.txt: known
/// keyword …`), as its graph input's already are.
pub fn extract(document: &str, known: &[String], opts: &ExtractOptions) -> Result<Extraction> {
    extract_observed(document, known, opts, None)
}

/// [`extract`], telling `observer` of every Gibbs sweep (the engine that
/// runs long), so that a front end can cancel it (Python's Ctrl-C).
pub fn extract_observed(
    document: &str,
    known: &[String],
    opts: &ExtractOptions,
    observer: Option<&plackett::observer::SharedObserver>,
) -> Result<Extraction> {
    extract_unlocated(document, known, opts, observer).map_err(|e| match e {
        Error::Data(m) => Error::input(&opts.source, None, m),
        e => e,
    })
}

fn extract_unlocated(
    document: &str,
    known: &[String],
    opts: &ExtractOptions,
    observer: Option<&plackett::observer::SharedObserver>,
) -> Result<Extraction> {
    if !(opts.fdr > 0.0 && opts.fdr < 1.0) {
        return Err(Error::param(
            "fdr",
            format!("must lie strictly between 0 and 1, got {}", opts.fdr),
        ));
    }
    match &opts.engine {
        Engine::Vb(o) => o.check()?,
        Engine::Gibbs(o) => {
            o.mcmc.check()?;
        }
    }
    // Surface forms per stem, with their counts (text input only).
    let mut forms: HashMap<String, HashMap<String, usize>> = HashMap::new();
    // One reading of a text serves the candidates and the keyphrases.
    let reading = (opts.input == Input::Text).then(|| opts.pipeline.reading(document));
    let g = if opts.input == Input::Graph {
        read_edges(document, &opts.source)?
    } else {
        let tokens: Vec<String> = match opts.input {
            Input::Text => opts
                .pipeline
                .candidate_words_in(reading.as_ref().expect("read above for text input"))
                .into_iter()
                .map(|(w, s)| {
                    *forms.entry(s.clone()).or_default().entry(w).or_default() += 1;
                    s
                })
                .collect(),
            _ => document
                .split_whitespace()
                .map(|t| t.trim_matches('"').to_string())
                .filter(|t| !t.is_empty())
                .collect(),
        };
        if tokens.is_empty() {
            // Say so when the frequency filter emptied the document: the
            // remedy is an option, not the text.
            let why = match (&reading, opts.pipeline.min_count_exclusive) {
                (Some(r), n)
                    if n > 0 && {
                        let unfiltered = Pipeline {
                            min_count_exclusive: 0,
                            ..opts.pipeline.clone()
                        };
                        !unfiltered.candidate_words_in(r).is_empty()
                    } =>
                {
                    format!(
                        "every candidate stem occurs {n} time(s) or fewer, and `min_count` ({n}) \
                         keeps only stems occurring more often"
                    )
                }
                _ => "empty after normalisation and filtering".to_string(),
            };
            return Err(Error::Data(format!("no candidate words ({why})")));
        }
        WordGraph::from_tokens(&tokens, opts.window, opts.self_loops)?
    };
    if known.iter().all(|p| p.trim().is_empty()) {
        return Err(Error::Data(
            "no known keywords given: VBSS learns from positive–unlabelled data and needs at \
             least one"
                .into(),
        ));
    }
    let mut y = vec![false; g.len()];
    let mut missing = Vec::new();
    // Phrases of several words, each shown with the words it labels.
    let mut split = Vec::new();
    for phrase in known.iter().filter(|p| !p.trim().is_empty()) {
        let stems: Vec<String> = match opts.input {
            Input::Text => opts.pipeline.phrase_stems(phrase),
            Input::Tokens => phrase.split_whitespace().map(str::to_string).collect(),
            Input::Graph => vec![phrase.trim().to_string()],
        };
        if stems.len() > 1 {
            split.push(format!(
                "\"{}\" → {}",
                plackett::io::output::short_name(phrase.trim(), 60),
                stems.join(", ")
            ));
        }
        let mut found = false;
        let first = stems.first().cloned();
        for s in stems {
            match g.index_of(&s) {
                Some(i) => {
                    y[i] = true;
                    found = true;
                }
                None => missing.push(s),
            }
        }
        // A keyphrase counts if one of its words is a candidate (the others
        // are noted below); one with none is not in the document.
        if !found {
            let phrase = plackett::io::output::short_name(phrase.trim(), 60);
            let filtered = match (&reading, &first) {
                (Some(r), Some(s)) => opts.pipeline.why_not_candidate(r, s),
                _ => None,
            };
            return Err(Error::Data(match filtered {
                Some(why) => format!("known keyword \"{phrase}\" is not a candidate word: {why}"),
                None => format!(
                    "known keyword \"{phrase}\" is not in the document (none of its words is a \
                     candidate word{})",
                    match opts.input {
                        Input::Text => " after normalisation, filtering and stemming",
                        _ => "",
                    }
                ),
            }));
        }
    }
    missing.sort();
    missing.dedup();
    let prior = ThetaPrior::from_graph(&g, &y, opts.damping, opts.scale)?;
    // The baselines through the prior's eigenvectors (O(n²) each), as
    // `keywords evaluate` scores them.
    let baselines = if opts.baselines {
        let positions = opts.input != Input::Graph;
        Some((
            text_rank_given(&prior, &g, opts.damping)?,
            if positions {
                Some(position_rank_given(&prior, &g, opts.damping)?)
            } else {
                None
            },
            single_rank_ss_given(&prior, opts.scale)?,
        ))
    } else {
        None
    };
    let mut notes = Vec::new();
    if !split.is_empty() {
        notes.push(format!(
            "known keyphrases are labelled word by word (VBSS labels words, Hu 2024 §1.3): {}",
            split.join("; ")
        ));
    }
    if !missing.is_empty() {
        notes.push(format!(
            "known keyword stems that are not candidates (ignored): {}",
            missing.join(", ")
        ));
    }
    let iso = g.isolated();
    if !iso.is_empty() {
        notes.push(format!(
            "{} candidate words co-occur with no other candidate; their prior mean is their own label",
            iso.len()
        ));
    }
    let start = std::time::Instant::now();
    let (p, plugin, predictive, p_sd, latent, theta, fit, converged, iterations, elbo) = match &opts
        .engine
    {
        Engine::Gibbs(go) => {
            let f = fit_gibbs_observed(&prior, &y, go, observer)?;
            if f.p_worst.rhat > 1.01 || f.p_worst.ess_bulk < 400.0 {
                notes.push(format!(
                    "MCMC warning: max split-R̂ {:.3}, min bulk ESS {:.0} over the word probabilities; run longer (burn_in, samples)",
                    f.p_worst.rhat, f.p_worst.ess_bulk
                ));
            }
            let p = match opts.probability {
                Probability::Latent => f.p_latent.clone(),
                Probability::Forced => f
                    .p_mean
                    .iter()
                    .zip(&y)
                    .map(|(&p, &k)| if k { 1.0 } else { p })
                    .collect(),
                _ => f.p_mean.clone(),
            };
            let diag: Vec<_> = ["a", "b", "sigma2", "alpha"]
                .iter()
                .zip(&f.diagnostics)
                .map(|(k, d)| {
                    json!({"parameter": k, "rhat": d.rhat, "ess_bulk": d.ess_bulk, "ess_tail": d.ess_tail})
                })
                .collect();
            let fit = json!({
                "engine": "gibbs",
                "a": {"mean": f.scalars[0].0, "sd": f.scalars[0].1},
                "b": {"mean": f.scalars[1].0, "sd": f.scalars[1].1},
                "sigma2": {"mean": f.scalars[2].0, "sd": f.scalars[2].1},
                "alpha": {"mean": f.scalars[3].0, "sd": f.scalars[3].1},
                "diagnostics": diag,
                "max_rhat": f.p_worst.rhat,
                "min_ess_bulk": f.p_worst.ess_bulk,
            });
            let sweeps = go.mcmc.burn_in + go.mcmc.samples * go.mcmc.thin;
            (
                p,
                f.p_mean.clone(),
                f.p_mean,
                f.p_sd,
                f.p_latent,
                f.theta,
                fit,
                true,
                sweeps,
                None,
            )
        }
        Engine::Vb(o) => {
            let f = fit_vbss(&prior, &y, o)?;
            // The probabilities are close to the exact posterior's, their
            // sds are not: say so wherever `sd` is printed.
            notes.push(vb_sd_note(f.covariance).to_string());
            if g.len() < SHORT_TEXT_CANDIDATES {
                notes.push(format!(
                    "vb on a short text ({} candidate words): VB's probabilities were measured \
                     against the exact posterior's on full papers only, and on short texts they \
                     can be several times smaller; check with engine gibbs (seconds at this size; \
                     docs/keywords.md)",
                    g.len()
                ));
            }
            if f.covariance != o.covariance {
                notes.push(
                    "vb: the linear-response covariance is not available here (the published θ update optimises no ELBO, or its system was singular): sds and p_predictive are mean-field".to_string(),
                );
            }
            if !f.converged {
                notes.push(format!(
                    "VBSS stopped at max_iter {} before the mean change of p̂ fell below tol {}",
                    o.max_iter, o.tol
                ));
            }
            if f.slope_unclear() {
                notes.push(format!(
                    "VBSS's slope b is not clear of 0 (E b = {:.3}, mean-field sd {:.3}): the graph barely separates the unlabelled words under VB, and mean-field VB can flatten probabilities the exact posterior tells apart; compare the exact posterior (engine gibbs; docs/keywords.md)",
                    f.b.0, f.b_sd_mean_field
                ));
            }
            let p = f.probabilities(opts.probability).to_vec();
            let fit = json!({
                "engine": "vb",
                "covariance": f.covariance.name(),
                "iterations": f.iterations,
                "converged": f.converged,
                "elbo": f.final_elbo(),
                "a": {"mean": f.a.0, "sd": f.a.1},
                "b": {"mean": f.b.0, "sd": f.b.1},
                "sigma2": {"shape": f.sigma2.0, "scale": f.sigma2.1},
                "alpha": f.alpha.iter().map(|(x, y)| json!({"beta_a": x, "beta_b": y})).collect::<Vec<_>>(),
            });
            let theta = f
                .theta_mean
                .iter()
                .zip(&f.theta_sd)
                .map(|(m, s)| (*m, *s))
                .collect();
            let (c, it, elbo) = (f.converged, f.iterations, f.final_elbo());
            (
                p,
                f.p_plugin,
                f.p_predictive,
                f.p_sd,
                f.p_latent,
                theta,
                fit,
                c,
                it,
                Some(elbo),
            )
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    // The FDR is over the unlabelled words: known words are labelled, not
    // selected (`fdr_select_unlabelled`).
    let selected = fdr_select_unlabelled(&p, &y, opts.fdr);
    let mut is_sel = vec![false; p.len()];
    for &i in &selected {
        is_sel[i] = true;
    }
    let surface = |stem: &str| -> Vec<String> {
        match forms.get(stem) {
            None => vec![stem.to_string()],
            Some(f) => {
                let mut v: Vec<(&String, &usize)> = f.iter().collect();
                v.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
                v.into_iter().map(|(w, _)| w.clone()).collect()
            }
        }
    };
    let candidates = top_by_score(&p, p.len())
        .into_iter()
        .enumerate()
        .map(|(k, i)| Candidate {
            stem: g.words[i].clone(),
            words: surface(&g.words[i]),
            rank: k + 1,
            known: y[i],
            selected: is_sel[i],
            p: p[i],
            sd: p_sd[i],
            p_plugin: plugin[i],
            p_predictive: predictive[i],
            p_latent: latent[i],
            theta_mean: theta[i].0,
            theta_sd: theta[i].1,
            frequency: g.frequency[i],
            textrank: baselines.as_ref().map(|b| b.0[i]),
            positionrank: baselines.as_ref().and_then(|b| b.1.as_ref().map(|v| v[i])),
            ss: baselines.as_ref().map(|b| b.2[i]),
        })
        .collect();
    Ok(Extraction {
        candidates,
        fdr: opts.fdr,
        iterations,
        elbo,
        n_candidates: g.len(),
        known: y.iter().filter(|&&v| v).count(),
        probability: probability_name(opts.probability).into(),
        selected: selected.iter().map(|&i| g.words[i].clone()).collect(),
        fit,
        converged,
        seconds,
        notes,
        phrases: reading
            .as_ref()
            .map(|r| crate::phrases::keyphrases(r, &g, &is_sel, &p, &y)),
        edges: opts.edges.then(|| graph_edges(&g)),
    })
}
