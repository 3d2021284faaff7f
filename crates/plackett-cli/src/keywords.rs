//! `plackett keywords extract|batch|evaluate|tag`: keyword extraction with
//! a few known keywords (VBSS, Hu 2024 ch. 1) for one document or many,
//! its Gibbs gold standard, and the dissertation's evaluation protocol
//! against graph baselines.

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use plackett::infer::mcmc::McmcSettings;
use plackett::keywords::{
    AlphaModel, EvalOptions, Method, PriorScale, Probability, ThetaUpdate, VbssGibbsOptions,
    VbssOptions, evaluate_observed,
};
use plackett_text::{
    Engine, ExtractOptions, Extraction, Input, Pipeline, extract, extract_many, is_vb_sd_note,
    read_candidate_corpus, read_corpus, read_document, read_external, read_manifest,
};
use serde_json::json;
use std::path::Path;

/// `plackett keywords …`.
#[derive(Subcommand, Debug)]
pub enum KeywordsCommand {
    /// Score every candidate word of one document given a few known keywords; select by Bayesian FDR; collapse the selected words' runs in the text into keyphrases.
    Extract(Box<ExtractArgs>),
    /// Score many documents, each with its own known keywords, listed in a CSV manifest (columns file, known); documents run in parallel, each exactly as extract alone.
    Batch(Box<BatchArgs>),
    /// Run the evaluation protocol of Hu 2024 §1.4 on a corpus (docsutf8/ + keys/): VBSS against SS, TextRank, PositionRank and TF-IDF.
    Evaluate(Box<EvaluateArgs>),
    /// Show how the front-end reads documents: sentences, words, part-of-speech tags (Universal POS) and which words the word filter keeps as candidates.
    Tag(TagArgs),
}

/// `plackett keywords tag`.
#[derive(Args, Debug)]
pub struct TagArgs {
    /// Plain-text documents (UTF-8).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Which words can be candidates (as for extract).
    #[arg(long, default_value = "pos", value_parser = ["pos", "stopwords", "none"])]
    pub word_filter: String,
    /// text: one sentence per line, each token as word/TAG (`?`: a word the tagger does not know), candidates marked `+`; json: {"documents": [{"file", "sentences": [[{"word", "pos", "kept"}, …], …]}]}.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub output: String,
    /// Write the output here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
}

/// Model settings shared by extract and evaluate.
#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// Co-occurrence window: words 1..=N positions apart are linked (Hu 2024's "two-word window" is N = 2).
    #[arg(long, default_value_t = 2)]
    pub window: usize,
    /// Count a word co-occurring with itself (the authors' code keeps the diagonal).
    #[arg(long)]
    pub self_loops: bool,
    /// Damping d of the SS prior and of TextRank/PositionRank.
    #[arg(long, default_value_t = 0.85)]
    pub damping: f64,
    /// θ₀ = B⁻¹y as the authors' code, or (1 − d) B⁻¹y as the dissertation writes it (under which VB's slope collapses and its probabilities drift from the exact posterior's: docs/keywords.md).
    #[arg(long, default_value = "code", value_parser = ["dissertation", "code"])]
    pub prior_scale: String,
    /// Shape = scale τ of the IG(τ, τ) prior on σ² (Hu 2024: 0.1).
    #[arg(long, default_value_t = 0.1)]
    pub tau: f64,
    /// Prior variance of the intercept a.
    #[arg(long, default_value_t = 10.0)]
    pub sigma_a2: f64,
    /// Prior variance of the slope b.
    #[arg(long, default_value_t = 10.0)]
    pub sigma_b2: f64,
    /// One probability α of a keyword going unobserved (the dissertation's experiments) or one per word.
    #[arg(long, default_value = "shared", value_parser = ["shared", "per-word"])]
    pub alpha: String,
    /// Initial E[α], the share of keywords expected to be unobserved (Hu 2024: "typically between 0.5 and 0.7"); keywords evaluate also takes `article`: 1 − k/|K| per document from its ground truth (Hu 2024 §1.3.4's "roughly estimated proportion for unobserved keywords in the article").
    #[arg(long, default_value = "0.6", value_parser = alpha_init_arg, value_name = "P|article")]
    pub alpha_init: AlphaInitArg,
    /// θ update: block (exact, full-covariance q(θ); ELBO never falls), coordinate (exact mean-field), published (Hu 2024 §1.3.3, marginal prior variances).
    #[arg(long, default_value = "block", value_parser = ["block", "coordinate", "published"])]
    pub theta_update: String,
    /// Stop when the mean absolute change of p̂ is below this (Hu 2024: 1e-10).
    #[arg(long, default_value_t = 1e-10)]
    pub tol: f64,
    /// Most sweeps, SQUAREM extrapolations included (Hu 2024: 500 plain sweeps).
    #[arg(long, default_value_t = 2000)]
    pub max_iter: usize,
    /// vb: the covariance behind sd, theta_sd, the sds of a and b and p_predictive. linear-response (the default): Giordano, Broderick & Jordan 2015's correction of the (θ, a, b) covariance, about two thirds of the exact posterior's sd of Φ(a + bθ); mean-field: the factors' own (Hu 2024's VBSS), about a third of it. Means, the ELBO and the default selection are the same either way (docs/keywords.md).
    #[arg(long, default_value = "linear-response", value_parser = ["linear-response", "mean-field"])]
    pub covariance: String,
    /// Which probability the FDR rule reads: latent, the posterior probability that the word is a keyword given the known ones (1 for a known keyword; Newton et al. 2004's rule is defined on it); plugin Φ(E a + E b E θ), the dissertation's p̂ (selects nothing at usual γ on SemEval-2010: docs/keywords.md); predictive, Φ(a + bθ) averaged over q; forced, the plug-in with known keywords set to 1 (the BSS and VBSS authors' code).
    #[arg(long, default_value = "latent", value_parser = ["latent", "plugin", "predictive", "forced"])]
    pub probability: String,
}

/// `--alpha-init`: a starting E[α], or `article` (evaluations only).
#[derive(Debug, Clone, Copy)]
pub enum AlphaInitArg {
    Value(f64),
    Article,
}

fn alpha_init_arg(s: &str) -> std::result::Result<AlphaInitArg, String> {
    if s == "article" {
        return Ok(AlphaInitArg::Article);
    }
    s.parse::<f64>()
        .map(AlphaInitArg::Value)
        .map_err(|_| format!("expected a probability in (0, 1) or `article`, got {s:?}"))
}

impl ModelArgs {
    fn vbss(&self) -> VbssOptions {
        VbssOptions {
            tau: self.tau,
            sigma_a2: self.sigma_a2,
            sigma_b2: self.sigma_b2,
            alpha: self.alpha_model(),
            alpha_init: match self.alpha_init {
                AlphaInitArg::Value(v) => v,
                // Per article in an evaluation (EvalOptions::alpha_init).
                AlphaInitArg::Article => VbssOptions::default().alpha_init,
            },
            theta_update: match self.theta_update.as_str() {
                "coordinate" => ThetaUpdate::Coordinate,
                "published" => ThetaUpdate::Published,
                _ => ThetaUpdate::Block,
            },
            tol: self.tol,
            max_iter: self.max_iter,
            // clap admits only the names the library parses.
            covariance: plackett::keywords::VbCovariance::parse(&self.covariance)
                .unwrap_or_default(),
        }
    }
    fn alpha_model(&self) -> AlphaModel {
        if self.alpha == "per-word" {
            AlphaModel::PerWord
        } else {
            AlphaModel::Shared
        }
    }
    fn scale(&self) -> PriorScale {
        if self.prior_scale == "code" {
            PriorScale::Code
        } else {
            PriorScale::Dissertation
        }
    }
    fn probability(&self) -> Probability {
        match self.probability.as_str() {
            "predictive" => Probability::Predictive,
            "latent" => Probability::Latent,
            "forced" => Probability::Forced,
            _ => Probability::Plugin,
        }
    }
}

/// `plackett keywords extract`.
#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// The document: plain text (UTF-8), or with --input tokens a sequence of candidate words separated by white space.
    pub file: String,
    /// Known keywords or keyphrases, comma-separated (each word is stemmed like the text).
    #[arg(long, value_name = "LIST")]
    pub known: String,
    #[command(flatten)]
    pub doc: DocArgs,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
    pub output: String,
    /// Rows of the table (all with json/csv).
    #[arg(long, default_value_t = 30)]
    pub top: usize,
    /// Write the output here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
    /// Exit 0 even if VBSS stopped at --max-iter.
    #[arg(long)]
    pub allow_nonconvergence: bool,
    /// Write a self-contained HTML report: the candidates ranked by p as bars with the FDR cut and the known keywords marked, and the table.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
    /// Write the document's co-occurrence graph here as CSV (source,target,weight; an isolated word as a weight-0 loop): the format --input graph reads, for networkx, igraph or an edited rerun.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.csv")]
    pub graph_out: Option<String>,
}

/// `plackett keywords batch`.
#[derive(Args, Debug)]
pub struct BatchArgs {
    /// The manifest: CSV with a header naming the columns file (a document, relative to the manifest's folder unless absolute) and known (its known keywords, comma-separated; quote the field). Other columns are ignored.
    pub manifest: String,
    #[command(flatten)]
    pub doc: DocArgs,
    /// table: one line per document (its selected words); json: {"documents": [{"file", …extract's keys…} or {"file", "error"}]}; csv: extract's CSV rows with a leading file column.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
    pub output: String,
    /// Write the output here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
    /// Exit 0 even if VBSS stopped at --max-iter on some documents.
    #[arg(long)]
    pub allow_nonconvergence: bool,
    /// Report a document that fails (a known keyword not in it, no candidates) and go on with the others, instead of stopping with nothing written.
    #[arg(long)]
    pub keep_going: bool,
}

/// Per-document settings shared by extract and batch.
#[derive(Args, Debug)]
pub struct DocArgs {
    /// text: run the front-end (normalise, keep nouns, verbs and adjectives (--word-filter), Porter-stem); tokens: the file already holds the candidate sequence; graph: your own weighted word graph as CSV lines source,target[,weight] (known keywords then name nodes verbatim).
    #[arg(long, default_value = "text", value_parser = ["text", "tokens", "graph"])]
    pub input: String,
    /// Keep only stems occurring more than N times (Hu 2024 used 2 for full papers, 0 for abstracts).
    #[arg(long, default_value_t = 0)]
    pub min_count: usize,
    /// Which words can be candidates: pos (nouns, verbs and adjectives by the built-in part-of-speech tagger, as Hu 2024's udpipe step), stopwords (all but function words), none.
    #[arg(long, default_value = "pos", value_parser = ["pos", "stopwords", "none"])]
    pub word_filter: String,

    /// FDR level γ of the selection: the largest set whose estimated FDR, the mean of 1 − p over it, stays below γ (Newton et al. 2004; Hu 2024 §1.3.5). --gamma is an alias.
    #[arg(long, alias = "gamma", default_value_t = 0.2)]
    pub fdr: f64,
    /// vb: VBSS; gibbs: the exact posterior of the same model by Albert–Chib Gibbs sampling (slower; the gold standard).
    #[arg(long, default_value = "vb", value_parser = ["vb", "gibbs"])]
    pub engine: String,
    #[command(flatten)]
    pub model: ModelArgs,
    /// gibbs: kept draws per chain.
    #[arg(long, default_value_t = 2000)]
    pub samples: usize,
    /// gibbs: burn-in sweeps per chain.
    #[arg(long, default_value_t = 1000)]
    pub burn_in: usize,
    /// gibbs: chains.
    #[arg(long, default_value_t = 4)]
    pub chains: usize,
    /// Random seed (gibbs; every document of a batch uses it, as extract would).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Score every candidate by the baselines as well, on the same graph: TextRank (Mihalcea & Tarau 2004), PositionRank (Florescu & Caragea 2017; not for --input graph, which has no positions) and SS (Li et al. 2010). JSON keys textrank, positionrank, ss; CSV columns of the same names; the table shows each one's rank.
    #[arg(long)]
    pub baselines: bool,
}

impl DocArgs {
    /// The front-end's and the engine's settings for document `source`.
    fn options(&self, source: &str) -> Result<ExtractOptions> {
        if let AlphaInitArg::Article = self.model.alpha_init {
            bail!(
                "invalid option `--alpha-init`: `article` (1 − k/|K|) needs the article's ground truth, which only `keywords evaluate` has; give a probability"
            );
        }
        let vb = self.model.vbss();
        let engine = if self.engine == "gibbs" {
            Engine::Gibbs(VbssGibbsOptions {
                tau: vb.tau,
                sigma_a2: vb.sigma_a2,
                sigma_b2: vb.sigma_b2,
                alpha: vb.alpha,
                mcmc: McmcSettings {
                    samples: self.samples,
                    burn_in: self.burn_in,
                    thin: 1,
                    chains: self.chains,
                    seed: self.seed,
                },
            })
        } else {
            Engine::Vb(vb)
        };
        Ok(ExtractOptions {
            input: match self.input.as_str() {
                "tokens" => Input::Tokens,
                "graph" => Input::Graph,
                _ => Input::Text,
            },
            source: source.to_string(),
            pipeline: Pipeline {
                min_count_exclusive: self.min_count,
                filter: self.word_filter.parse().map_err(anyhow::Error::msg)?,
                ..Default::default()
            },
            window: self.model.window,
            self_loops: self.model.self_loops,
            damping: self.model.damping,
            scale: self.model.scale(),
            probability: self.model.probability(),
            fdr: self.fdr,
            engine,
            baselines: self.baselines,
            edges: false,
        })
    }

    /// The exit-3 error of a run that stopped at --max-iter.
    fn not_converged(&self, what: &str) -> anyhow::Error {
        crate::NotConverged(format!(
            "VBSS stopped at --max-iter {} before the mean change of p̂ fell below --tol {:e}{what}; raise --max-iter or pass --allow-nonconvergence",
            self.model.max_iter, self.model.tol
        ))
        .into()
    }
}

/// The columns of `--output csv` after the optional file column (the
/// baselines' with `--baselines`).
fn csv_header(baselines: bool) -> String {
    let mut h = String::from(
        "stem,words,rank,known,selected,p,sd,p_plugin,p_predictive,p_latent,theta_mean,theta_sd,frequency",
    );
    if baselines {
        h.push_str(",textrank,positionrank,ss");
    }
    h
}

/// `ex`'s candidates as CSV rows, each starting with `prefix` (empty, or a
/// quoted file name and a comma).
fn csv_rows(ex: &Extraction, prefix: &str, s: &mut String) {
    let f = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    for w in &ex.candidates {
        // The baselines' columns, with --baselines.
        let baselines = w.textrank.map_or(String::new(), |tr| {
            format!(",{tr},{},{}", f(w.positionrank), f(w.ss))
        });
        s.push_str(&format!(
            "{prefix}{},{},{},{},{},{},{},{},{},{},{},{},{}{baselines}\n",
            plackett::io::output::csv_field(&w.stem),
            plackett::io::output::csv_field(&w.words.join(" ")),
            w.rank,
            u8::from(w.known),
            u8::from(w.selected),
            w.p,
            w.sd,
            w.p_plugin,
            w.p_predictive,
            w.p_latent,
            w.theta_mean,
            w.theta_sd,
            w.frequency
        ));
    }
}

/// `plackett keywords evaluate`.
#[derive(Args, Debug)]
pub struct EvaluateArgs {
    /// Corpus folder with docsutf8/<id>.txt and keys/<id>.key (one keyphrase per line).
    pub corpus: String,
    /// Use pre-computed candidate sequences from this folder (docs/ + map.tsv: file<TAB>id), e.g. the VBSS authors' own, instead of the front-end.
    #[arg(long, value_name = "DIR")]
    pub candidates: Option<String>,
    /// Front-end: keep only stems occurring more than N times (Hu 2024: 2 for full papers, 0 for abstracts).
    #[arg(long, default_value_t = 2)]
    pub min_count: usize,
    /// Front-end: which words can be candidates: pos (nouns, verbs and adjectives by the built-in part-of-speech tagger, as Hu 2024's udpipe step), stopwords (all but function words), none.
    #[arg(long, default_value = "pos", value_parser = ["pos", "stopwords", "none"])]
    pub word_filter: String,
    /// How a ground-truth keyphrase becomes keywords: whole (its words as the documents' are read; a hyphenated word is one keyword) or split-dashes (split at dashes first, as the Hu 2024 authors' Preprocessing.R does by running udpipe over the keyphrases; docs/keywords.md).
    #[arg(long, default_value = "whole", value_parser = clap::builder::ValueParser::new(str::parse::<plackett_text::KeyRule>))]
    pub keys: plackett_text::KeyRule,

    /// Known keywords drawn at random per document (Hu 2024: 5; 3 and 7 in its sensitivity
    /// study). `--k` still works (elsewhere --k is a prediction-set size).
    #[arg(
        long = "known-count",
        alias = "k",
        default_value_t = 5,
        value_name = "K"
    )]
    pub k: usize,
    /// Leave out documents with fewer ground-truth keywords among their candidates (Hu 2024: 11).
    #[arg(long, default_value_t = 11)]
    pub min_keywords: usize,
    /// FDR levels, comma-separated.
    #[arg(long, default_value = "0.05,0.1,0.15,0.2,0.25,0.3")]
    pub gamma: String,
    /// Methods besides VBSS, comma-separated (ss, textrank, positionrank, tfidf; bss: Wang et al. 2023's MCMC, slow; vbss-code: VBSS as Hu 2024's published code computes it, for reproducing the dissertation's tables: docs/keywords.md).
    #[arg(long, default_value = "ss,textrank,positionrank,tfidf")]
    pub methods: String,
    /// Leave VBSS out (needs --rates-from vbss-code or bss): e.g. Hu 2024's Table 1.5 from the authors' code alone, at a twentieth of the time.
    #[arg(long)]
    pub no_vbss: bool,
    /// Do not force the known keywords into the cuts of the other methods (Hu 2024 Table 1.4 instead of Table 1.5).
    #[arg(long)]
    pub not_forced: bool,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Seed of the known-keyword draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Independent draws of the k known keywords per document, pooled in the table (the first draw is the same for any count).
    #[arg(long, default_value_t = 1)]
    pub draws: usize,
    /// Which method's own FDR selections set the other methods' cut rate r(γ): vbss, or vbss-code or bss when among --methods (Hu 2024's tables take it from the authors' code, i.e. vbss-code).
    #[arg(long, default_value = "vbss", value_parser = ["vbss", "vbss-code", "bss"])]
    pub rates_from: String,
    /// bss: MCMC iterations per document (Wang et al. 2023's code: 50,000; at most 1,000,000).
    #[arg(long, default_value_t = 50_000)]
    pub bss_iterations: usize,
    /// bss: burn-in iterations (Wang et al. 2023's code: 2,000).
    #[arg(long, default_value_t = 2_000)]
    pub bss_burn_in: usize,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub output: String,
    /// Write the output here instead of standard output.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE")]
    pub out: Option<String>,
    /// An outside method's scores as another column, NAME=FILE.json with {"<doc id>": [["phrase", score], …]} (higher better; a word scores as the best phrase containing it). Repeatable. bench/keywords_yake.py writes YAKE's.
    #[arg(long, value_name = "NAME=FILE.json")]
    pub external: Vec<String>,
    /// Write a log–log plot of VBSS's time per document against its number of candidates (SVG).
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.svg")]
    pub timing_plot: Option<String>,
    /// Write an HTML report here: precision, recall and F against γ for every method, realised
    /// against nominal FDR, VBSS's time per document, with the tables.
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
}

/// Run `plackett keywords …`.
pub fn run(c: &KeywordsCommand) -> Result<()> {
    match c {
        KeywordsCommand::Extract(a) => run_extract(a),
        KeywordsCommand::Batch(a) => run_batch(a),
        KeywordsCommand::Evaluate(a) => run_evaluate(a),
        KeywordsCommand::Tag(a) => run_tag(a),
    }
}

fn deliver(out: &Option<String>, text: &str) -> Result<()> {
    match out {
        Some(path) => Ok(crate::outputs::write_all(&[(
            path.as_str(),
            text.as_bytes(),
        )])?),
        None => crate::emit(text),
    }
}

fn read_text(path: &str) -> Result<String> {
    Ok(read_document(Path::new(path), path)?)
}

fn run_tag(a: &TagArgs) -> Result<()> {
    let pipe = Pipeline {
        filter: a.word_filter.parse().map_err(anyhow::Error::msg)?,
        ..Default::default()
    };
    // Every file is read before anything is written.
    let mut docs = Vec::new();
    for f in &a.files {
        docs.push((f, pipe.tagged(&read_text(f)?)));
    }
    let text = if a.output == "json" {
        let docs: Vec<_> = docs
            .iter()
            .map(|(f, s)| json!({"file": f, "sentences": s}))
            .collect();
        serde_json::to_string(&json!({"documents": docs}))? + "\n"
    } else {
        let mut out = String::new();
        for (f, sentences) in &docs {
            if a.files.len() > 1 {
                out += &format!("# {f}\n");
            }
            for s in sentences {
                let line: Vec<String> = s
                    .iter()
                    .map(|t| {
                        format!(
                            "{}/{}{}",
                            t.word,
                            t.pos.as_deref().unwrap_or("?"),
                            if t.kept { "+" } else { "" }
                        )
                    })
                    .collect();
                out += &line.join(" ");
                out += "\n";
            }
        }
        out
    };
    deliver(&a.out, &text)
}

fn run_extract(a: &ExtractArgs) -> Result<()> {
    let mut opts = a.doc.options(&a.file)?;
    opts.edges = a.graph_out.is_some();
    let text = read_text(&a.file)?;
    let known: Vec<String> = a.known.split(',').map(str::to_string).collect();
    let mut ex = extract(&text, &known, &opts)?;
    // The graph goes to its own file, not into the output.
    let graph = ex.edges.take().map(|e| plackett_text::edges_csv(&e));
    if !ex.converged && !a.allow_nonconvergence {
        return Err(a.doc.not_converged(""));
    }
    let out = match a.output.as_str() {
        "json" => {
            let mut v = ex.document();
            v["file"] = json!(a.file);
            serde_json::to_string_pretty(&v)? + "\n"
        }
        "csv" => {
            let mut s = format!("{}\n", csv_header(a.doc.baselines));
            csv_rows(&ex, "", &mut s);
            s
        }
        _ => {
            let mut s = format!(
                "{}: {} candidate words, {} known; engine {}; {} selected at FDR γ = {} ({} probability)\n",
                a.file,
                ex.n_candidates,
                ex.known,
                a.doc.engine,
                ex.selected.len(),
                ex.fdr,
                ex.probability
            );
            let ranks = a.doc.baselines.then(|| plackett_text::baseline_ranks(&ex));
            s.push_str(&format!(
                "{:>4}  {:<16} {:<28} {:>6} {:>8} {:>7} {:>9}{}\n",
                "rank",
                "stem",
                "words",
                "known",
                "p",
                "sd",
                "selected",
                if ranks.is_some() {
                    format!(" {:>8} {:>8} {:>8}", "TextRank", "PosRank", "SS")
                } else {
                    String::new()
                }
            ));
            for (k, w) in ex.candidates.iter().take(a.top).enumerate() {
                let rank_of =
                    |r: &Option<Vec<usize>>| r.as_ref().map_or("-".into(), |v| v[k].to_string());
                s.push_str(&format!(
                    "{:>4}  {:<16} {:<28} {:>6} {:>8.4} {:>7.4} {:>9}{}\n",
                    w.rank,
                    plackett::io::output::short_name(&w.stem, 16),
                    plackett::io::output::short_name(&w.words.join(", "), 28),
                    if w.known { "yes" } else { "" },
                    w.p,
                    w.sd,
                    if w.selected { "yes" } else { "" },
                    ranks.as_ref().map_or(String::new(), |r| format!(
                        " {:>8} {:>8} {:>8}",
                        rank_of(&r[0]),
                        rank_of(&r[1]),
                        rank_of(&r[2])
                    ))
                ));
            }
            if ranks.is_some() {
                s.push_str("TextRank, PosRank, SS: the word's rank by that baseline's score on the same graph (1 = best)\n");
            }
            if let Some(ph) = ex.phrases.as_ref().filter(|ph| !ph.is_empty()) {
                const SHOWN: usize = 12;
                let list: Vec<String> = ph
                    .iter()
                    .take(SHOWN)
                    .map(|k| format!("{} ({})", k.phrase, k.count))
                    .collect();
                s.push_str(&format!(
                    "keyphrases (runs of selected words in the text, with their counts): {}{}\n",
                    list.join("; "),
                    if ph.len() > SHOWN {
                        format!("; … {} more (--output json)", ph.len() - SHOWN)
                    } else {
                        String::new()
                    }
                ));
            }
            for n in &ex.notes {
                s.push_str(&format!("note: {}\n", crate::cli_text(n)));
            }
            s
        }
    };
    // Nothing is written unless everything is ready: the report and the
    // output file together, or neither.
    let mut files: Vec<(&str, String)> = Vec::new();
    if let Some(path) = &a.report {
        let title = format!("plackett keywords extract: {}", a.file);
        files.push((
            path,
            plackett_text::report::render(&title, &a.doc.engine, &ex),
        ));
    }
    if let (Some(path), Some(graph)) = (&a.graph_out, graph) {
        files.push((path, graph));
    }
    let stdout = match &a.out {
        Some(path) => {
            files.push((path, out));
            None
        }
        None => Some(out),
    };
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
    crate::outputs::write_all(&refs)?;
    stdout.map_or(Ok(()), |t| crate::emit(&t))?;
    if a.output == "csv" {
        crate::notes_to_stderr(ex.notes.iter().map(|n| crate::cli_text(n)));
    }
    Ok(())
}

fn run_batch(a: &BatchArgs) -> Result<()> {
    let opts = a.doc.options(&a.manifest)?;
    let docs = read_manifest(Path::new(&a.manifest))?;
    let mut results = extract_many(&docs, &opts);
    // Option errors are every document's: stop on the first whatever
    // --keep-going says; without it, on the first failing document.
    if let Some(i) = results.iter().position(|r| {
        r.as_ref()
            .is_err_and(|e| !a.keep_going || matches!(e, plackett::Error::InvalidParam { .. }))
    }) && let Err(e) = results.swap_remove(i)
    {
        return Err(e.into());
    }
    let unconverged: Vec<&str> = docs
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.as_ref().is_ok_and(|ex| !ex.converged))
        .map(|(d, _)| d.source.as_str())
        .collect();
    if let Some(first) = unconverged.first()
        && !a.allow_nonconvergence
    {
        return Err(a.doc.not_converged(&format!(
            " on {} of {} documents (first: {first})",
            unconverged.len(),
            docs.len()
        )));
    }
    let failed = results.iter().filter(|r| r.is_err()).count();
    let out = match a.output.as_str() {
        "json" => {
            let rows: Vec<serde_json::Value> = docs
                .iter()
                .zip(&results)
                .map(|(d, r)| match r {
                    Ok(ex) => {
                        let mut v = ex.document();
                        v["file"] = json!(d.source);
                        v["known_given"] = json!(d.known);
                        Ok(v)
                    }
                    Err(e) => Ok(json!({"file": d.source, "error": e.to_string()})),
                })
                .collect::<Result<_>>()?;
            serde_json::to_string_pretty(&json!({
                "manifest": a.manifest,
                "n_documents": docs.len(),
                "failed": failed,
                "documents": rows,
            }))? + "\n"
        }
        "csv" => {
            let mut s = format!("file,{}\n", csv_header(a.doc.baselines));
            for (d, r) in docs.iter().zip(&results) {
                if let Ok(ex) = r {
                    let prefix = format!("{},", plackett::io::output::csv_field(&d.source));
                    csv_rows(ex, &prefix, &mut s);
                }
            }
            s
        }
        _ => {
            let mut s = format!(
                "{}: {} documents; engine {}; FDR γ = {} ({} probability)\n",
                a.manifest,
                docs.len(),
                a.doc.engine,
                a.doc.fdr,
                a.doc.model.probability
            );
            for (d, r) in docs.iter().zip(&results) {
                match r {
                    Ok(ex) => {
                        let new: Vec<String> = ex
                            .candidates
                            .iter()
                            .filter(|w| w.selected && !w.known)
                            .map(|w| w.words.first().unwrap_or(&w.stem).clone())
                            .collect();
                        s.push_str(&format!(
                            "{}: {} candidates, {} known, {} selected{}{}\n",
                            d.source,
                            ex.n_candidates,
                            ex.known,
                            ex.selected.len(),
                            if new.is_empty() { "" } else { "; new: " },
                            new.join(", ")
                        ));
                        // This summary prints no sds: their caveat is noise here.
                        let notes = ex.notes.iter().filter(|n| !is_vb_sd_note(n));
                        for n in notes {
                            s.push_str(&format!("  note: {}\n", crate::cli_text(n)));
                        }
                    }
                    Err(e) => s.push_str(&format!("failed: {e}\n")),
                }
            }
            s
        }
    };
    if failed > 0 && a.output != "table" {
        eprintln!(
            "note: {failed} of {} documents failed (--keep-going); {}",
            docs.len(),
            if a.output == "json" {
                "their \"error\" says why"
            } else {
                "their rows are missing"
            }
        );
    }
    deliver(&a.out, &out)?;
    if a.output == "csv" {
        // The rows' caveats: the shared VB one once, the rest by document.
        let scored: Vec<_> = docs
            .iter()
            .zip(&results)
            .filter_map(|(d, r)| Some((d, r.as_ref().ok()?)))
            .collect();
        // Every document runs with the same options: one caveat for all.
        let shared = scored
            .iter()
            .find_map(|(_, ex)| ex.notes.iter().find(|n| is_vb_sd_note(n)));
        let own = scored.iter().flat_map(|(d, ex)| {
            ex.notes
                .iter()
                .filter(|n| !is_vb_sd_note(n))
                .map(move |n| format!("{}: {}", d.source, crate::cli_text(n)))
        });
        let shared = shared.map(|n| crate::cli_text(n));
        crate::notes_to_stderr(shared.into_iter().chain(own));
    }
    Ok(())
}

fn run_evaluate(a: &EvaluateArgs) -> Result<()> {
    let gammas: Vec<f64> = a
        .gamma
        .split(',')
        .map(|s| {
            s.trim().parse::<f64>().map_err(|_| {
                anyhow::anyhow!("invalid option `--gamma`: {:?} is not a number", s.trim())
            })
        })
        .collect::<Result<_>>()?;
    let mut methods = Vec::new();
    for m in a.methods.split(',').filter(|s| !s.trim().is_empty()) {
        match Method::parse(m.trim()) {
            Some(x) => methods.push(x),
            None => bail!(
                "invalid option `--methods`: unknown method {:?} (vbss, ss, textrank, positionrank, tfidf, bss, vbss-code)",
                m.trim()
            ),
        }
    }
    let opts = EvalOptions {
        k: a.k,
        min_keywords: a.min_keywords,
        gammas,
        window: a.model.window,
        self_loops: a.model.self_loops,
        damping: a.model.damping,
        scale: a.model.scale(),
        vbss: a.model.vbss(),
        probability: a.model.probability(),
        forced: !a.not_forced,
        methods,
        seed: a.seed,
        no_vbss: a.no_vbss,
        draws: a.draws,
        rates_from: Method::parse(&a.rates_from).expect("clap checked the spelling"),
        bss: plackett::keywords::BssOptions {
            damping: a.model.damping,
            iterations: a.bss_iterations,
            burn_in: a.bss_burn_in,
            seed: a.seed,
            ..plackett::keywords::BssOptions::default()
        },
        external: Vec::new(),
        alpha_init: match a.model.alpha_init {
            AlphaInitArg::Article => plackett::keywords::AlphaInit::Article,
            AlphaInitArg::Value(_) => plackett::keywords::AlphaInit::Global,
        },
    };
    let keys = a.keys;
    let pipe = Pipeline {
        min_count_exclusive: a.min_count,
        filter: a.word_filter.parse().map_err(anyhow::Error::msg)?,
        ..Default::default()
    };
    let mut opts = opts;
    for e in &a.external {
        let Some((name, file)) = e.split_once('=') else {
            bail!("invalid option `--external`: {e:?} is not NAME=FILE.json");
        };
        opts.external
            .push(read_external(Path::new(file), name, &pipe)?);
    }
    let dir = Path::new(&a.corpus);
    let start = std::time::Instant::now();
    let corpus = match &a.candidates {
        Some(c) => read_candidate_corpus(dir, Path::new(c), &pipe, keys)?,
        None => read_corpus(dir, &pipe, keys)?,
    };
    let read_s = start.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let progress = crate::progress::Progress::new(
        (corpus.documents.len() * a.draws.max(1)) as u64,
        "documents",
    );
    let table = evaluate_observed(&corpus, &opts, Some(&progress.observer()));
    progress.finish();
    let table = table?;
    let eval_s = t.elapsed().as_secs_f64();
    let plot = a
        .timing_plot
        .as_ref()
        .map(|_| plackett::report::keywords::timing_plot(&table));
    let page = a.report.as_ref().map(|_| {
        plackett::report::keywords::evaluate_page(
            &format!("plackett keywords evaluate {}", a.corpus),
            &a.corpus,
            &table,
        )
    });
    let text = if a.output == "json" {
        let mut v = table.document();
        v["seconds_reading"] = json!(read_s);
        v["seconds_wall"] = json!(eval_s);
        serde_json::to_string_pretty(&v)? + "\n"
    } else {
        format!(
            "{}\nread and pre-processed in {read_s:.2} s; evaluated in {eval_s:.2} s (wall)\n",
            table.render()
        )
    };
    // The plot, the page and the output file are written together.
    let mut files: Vec<(&str, &[u8])> = Vec::new();
    if let (Some(path), Some(svg)) = (&a.timing_plot, &plot) {
        files.push((path.as_str(), svg.as_bytes()));
    }
    if let (Some(path), Some(page)) = (&a.report, &page) {
        files.push((path.as_str(), page.as_bytes()));
    }
    if files.is_empty() {
        return deliver(&a.out, &text);
    }
    if let Some(o) = &a.out {
        files.push((o.as_str(), text.as_bytes()));
        Ok(crate::outputs::write_all(&files)?)
    } else {
        crate::outputs::write_all(&files)?;
        crate::emit(&text)
    }
}
