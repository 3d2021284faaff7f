//! The evaluation protocol of Hu 2024 §1.4: `k` known keywords drawn at
//! random from each document's ground truth, VBSS selecting by Bayesian
//! FDR at each γ, every other method cut at the same overall selection
//! rate (the matched-count rule), optionally with the known keywords
//! forced in, and precision, recall and F pooled over the corpus.

use super::bss::{BssOptions, fit_bss};
use super::fdr::{bayesian_fdr_select, forced, top_by_score};
use super::graph::WordGraph;
use super::prior::{PriorScale, ThetaPrior};
use super::scores::{position_rank_given, text_rank_given, tf_idf};
use super::vbss::{Probability, VbssOptions, fit_vbss};
use super::vbss_code::fit_vbss_code;
use crate::error::{Error, Result};
use crate::sampling::rng::stream;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// One document: its candidate tokens in text order (already normalised,
/// filtered and stemmed) and its ground-truth keywords (the same units).
#[derive(Debug, Clone)]
pub struct Document {
    /// Identifier (file stem).
    pub id: String,
    /// Candidate tokens in text order.
    pub tokens: Vec<String>,
    /// Ground-truth keywords (need not all be candidates).
    pub truth: Vec<String>,
}

/// A set of documents.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// The documents, in a fixed order (sorted by id by the readers).
    pub documents: Vec<Document>,
}

/// The methods of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// VBSS with its own FDR selection (Hu 2024).
    Vbss,
    /// SS (Li et al. 2010).
    Ss,
    /// TextRank (Mihalcea & Tarau 2004).
    TextRank,
    /// PositionRank (Florescu & Caragea 2017).
    PositionRank,
    /// TF-IDF with leave-one-out document frequencies.
    TfIdf,
    /// BSS (Wang et al. 2023) with its own FDR selection (slow: 50,000
    /// MCMC iterations per document by default).
    Bss,
    /// VBSS as its authors' published code computes it, with their FDR
    /// convention (reproduction only: see [`super::vbss_code`]).
    VbssCode,
    /// Scores computed elsewhere ([`EvalOptions::external`], by index).
    External(usize),
}

impl Method {
    /// Every method, VBSS first.
    pub const ALL: [Method; 5] = [
        Method::Vbss,
        Method::Ss,
        Method::TextRank,
        Method::PositionRank,
        Method::TfIdf,
    ];

    /// Display name (the dissertation's column heading).
    pub fn label(self) -> &'static str {
        match self {
            Method::Vbss => "VBSS",
            Method::Ss => "SS",
            Method::TextRank => "TR",
            Method::PositionRank => "PosR",
            Method::TfIdf => "TF-IDF",
            Method::Bss => "BSS",
            Method::VbssCode => "VBSS-code",
            Method::External(_) => "external",
        }
    }

    /// The CLI spelling and the `method` key of the JSON results.
    pub fn key(self) -> &'static str {
        match self {
            Method::Vbss => "vbss",
            Method::Ss => "ss",
            Method::TextRank => "textrank",
            Method::PositionRank => "positionrank",
            Method::TfIdf => "tfidf",
            Method::Bss => "bss",
            Method::VbssCode => "vbss-code",
            Method::External(_) => "external",
        }
    }

    /// Parse a CLI spelling.
    pub fn parse(s: &str) -> Option<Method> {
        match s.to_ascii_lowercase().as_str() {
            "vbss" => Some(Method::Vbss),
            "ss" => Some(Method::Ss),
            "textrank" | "tr" => Some(Method::TextRank),
            "positionrank" | "posr" => Some(Method::PositionRank),
            "tfidf" | "tf-idf" => Some(Method::TfIdf),
            "bss" => Some(Method::Bss),
            "vbss-code" => Some(Method::VbssCode),
            _ => None,
        }
    }
}

/// Settings of [`evaluate`], defaulting to Hu 2024 §1.4.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// Known keywords drawn per document.
    pub k: usize,
    /// Documents with fewer ground-truth keywords among their candidates
    /// are left out.
    pub min_keywords: usize,
    /// FDR levels.
    pub gammas: Vec<f64>,
    /// Co-occurrence window.
    pub window: usize,
    /// Keep self-co-occurrences on the diagonal.
    pub self_loops: bool,
    /// Damping `d`.
    pub damping: f64,
    /// `θ₀` scaling.
    pub scale: PriorScale,
    /// VBSS settings.
    pub vbss: VbssOptions,
    /// Which VBSS probability the FDR rule reads.
    pub probability: Probability,
    /// Force the known keywords into the cut of the other methods.
    pub forced: bool,
    /// Methods besides VBSS (which runs unless `no_vbss`).
    pub methods: Vec<Method>,
    /// Leave VBSS out (another method must then set the rates,
    /// `rates_from`): e.g. to reproduce the authors' code alone, at a
    /// twentieth of the cost.
    pub no_vbss: bool,
    /// Seed of the known-keyword draws.
    pub seed: u64,
    /// Independent draws of the known keywords per document; the table
    /// pools documents and draws (Hu 2024 averages over repeated draws).
    /// The first draw is the same for every count.
    pub draws: usize,
    /// The method whose own FDR selection sets the cut methods' rate
    /// `r(γ)`: VBSS (default), or `vbss-code` or `bss` when among the
    /// methods (Hu 2024's tables take the rate from its own VBSS runs, i.e.
    /// from its code).
    pub rates_from: Method,
    /// BSS settings (when [`Method::Bss`] is among the methods).
    pub bss: BssOptions,
    /// Methods run elsewhere (e.g. YAKE from Python), evaluated as cut
    /// methods on the same candidates.
    pub external: Vec<ExternalScores>,
    /// The start of VBSS's (and `vbss-code`'s) `E[α]`: one value for every
    /// document (`vbss.alpha_init`), or per article.
    pub alpha_init: AlphaInit,
}

/// Where the iteration's first `E[α]` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AlphaInit {
    /// `vbss.alpha_init` for every document (0.6 by default: Hu 2024
    /// §1.3.4's "typically between 0.5 and 0.7").
    #[default]
    Global,
    /// Per document `1 − k/|K|`, `k` the known keywords and `|K|` the
    /// ground-truth keywords among its candidates: §1.3.4's "a roughly
    /// estimated proportion for unobserved keywords in the article", which
    /// an evaluation, knowing the ground truth, can compute (floored at
    /// 0.001 when every keyword is known).
    Article,
}

impl AlphaInit {
    /// The starting `E[α]` of a document with `truth` ground-truth
    /// keywords among its candidates, `k` of them known.
    pub fn start(self, global: f64, k: usize, truth: usize) -> f64 {
        match self {
            AlphaInit::Global => global,
            AlphaInit::Article if truth == 0 => global,
            AlphaInit::Article => (1.0 - k as f64 / truth as f64).max(1e-3),
        }
    }
}

/// Word scores of an outside method: per document id, scored phrases
/// (higher is better). A candidate word's score is the best score of any
/// phrase containing it (each phrase word reduced to the candidates' units
/// by `reduce`); words in no phrase rank last.
#[derive(Debug, Clone)]
pub struct ExternalScores {
    /// Column heading.
    pub name: String,
    /// Document id → word → score (already reduced to candidate units).
    pub scores: HashMap<String, HashMap<String, f64>>,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            k: 5,
            min_keywords: 11,
            gammas: vec![0.05, 0.1, 0.15, 0.2, 0.25, 0.3],
            window: 2,
            self_loops: false,
            damping: 0.85,
            scale: PriorScale::Code,
            vbss: VbssOptions::default(),
            probability: Probability::Latent,
            forced: true,
            methods: Method::ALL.to_vec(),
            seed: 1,
            no_vbss: false,
            draws: 1,
            rates_from: Method::Vbss,
            bss: BssOptions::default(),
            external: Vec::new(),
            alpha_init: AlphaInit::Global,
        }
    }
}

/// Pooled counts and rates of one method at one γ.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Cell {
    /// Words selected over the corpus.
    pub selected: usize,
    /// Of them, ground-truth keywords.
    pub true_positives: usize,
    /// Known keywords among the selected.
    pub observed_recovered: usize,
    /// `TP / selected` (1 when nothing was selected).
    pub precision: f64,
    /// `TP / Σ|K|`.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f: f64,
    /// `1 − precision`.
    pub realised_fdr: f64,
    /// Standard deviation of F over the draws (`None`, JSON null, for one
    /// draw).
    pub f_sd: Option<f64>,
}

/// One method at one γ, flat (the `results` of `keywords evaluate --output
/// json`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ResultRow {
    /// `vbss`, `ss`, `textrank`, `positionrank`, `tfidf`, `bss`, or the
    /// name of external scores.
    pub method: String,
    /// FDR level γ.
    pub gamma: f64,
    /// Known keywords per document.
    pub k: usize,
    /// Pooled precision.
    pub precision: f64,
    /// Pooled recall.
    pub recall: f64,
    /// Pooled F.
    pub f: f64,
    /// Whether the run forced the known keywords into the cut methods'
    /// selections (VBSS and BSS select by their own FDR rule either way).
    pub forced: bool,
    /// `1 − precision`.
    pub realised_fdr: f64,
    /// Words selected over the corpus.
    pub selected: usize,
    /// Words selected per document (known ones included), averaged over
    /// documents and draws: `selected / (documents × draws)`.
    pub selected_per_document: f64,
}

/// The comparison table.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EvalTable {
    /// Documents kept (≥ `min_keywords` ground-truth keywords among the
    /// candidates) and given.
    pub documents: usize,
    /// Documents in the corpus.
    pub documents_given: usize,
    /// The least number of ground-truth keywords among a document's
    /// candidates for it to be kept (Hu 2024 §1.4: 11).
    pub min_keywords: usize,
    /// Σ n over kept documents.
    pub candidates: usize,
    /// Σ |K|.
    pub keywords: usize,
    /// Known keywords per document.
    pub k: usize,
    /// Draws of the known keywords per document (documents, candidates
    /// and keywords count one draw; the cells pool all).
    pub draws: usize,
    /// FDR levels.
    pub gammas: Vec<f64>,
    /// Overall selection rate `r(γ)` of [`EvalTable::rates_from`] (mean
    /// over draws).
    pub rates: Vec<f64>,
    /// The method whose selections set `r(γ)`.
    pub rates_from: Method,
    /// Methods, in column order.
    pub methods: Vec<Method>,
    /// Column headings.
    pub labels: Vec<String>,
    /// `cells[g][m]`.
    pub cells: Vec<Vec<Cell>>,
    /// Seconds per method over the corpus (summed over documents).
    pub seconds: Vec<f64>,
    /// Document draws where VBSS stopped at its iteration limit.
    pub vbss_not_converged: usize,
    /// Document draws where `vbss-code` stopped at its iteration limit.
    pub vbss_code_not_converged: usize,
    /// Whether the cut methods had the known keywords forced in.
    pub forced: bool,
    /// VBSS per document: candidates, seconds, map evaluations.
    pub per_document: Vec<DocTiming>,
}

/// VBSS's cost on one document.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DocTiming {
    /// Document id.
    pub id: String,
    /// Candidate words `n`.
    pub n: usize,
    /// Seconds of prior construction, VBSS and selection.
    pub seconds: f64,
    /// VBSS map evaluations.
    pub iterations: usize,
}

/// How many times the largest document's candidate count must exceed the
/// smallest's for [`EvalTable::time_exponent`] to fit a slope.
pub const MIN_N_SPAN: f64 = 2.0;

impl EvalTable {
    /// Least-squares slope of log seconds on log n over the documents
    /// (the growth exponent of VBSS's per-document time), or `None` when
    /// it cannot be estimated: fewer than three timed documents, or
    /// candidate counts spanning less than a factor of
    /// [`MIN_N_SPAN`] (a slope over a narrow range of n is timer noise).
    pub fn time_exponent(&self) -> Option<f64> {
        let pts: Vec<(f64, f64)> = self
            .per_document
            .iter()
            .filter(|d| d.n > 0 && d.seconds > 0.0)
            .map(|d| ((d.n as f64).ln(), d.seconds.ln()))
            .collect();
        let m = pts.len() as f64;
        let (lo, hi) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| {
                (l.min(p.0), h.max(p.0))
            });
        if m < 3.0 || hi - lo < MIN_N_SPAN.ln() {
            return None;
        }
        let (mx, my) = pts
            .iter()
            .fold((0.0, 0.0), |(a, b), p| (a + p.0 / m, b + p.1 / m));
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        Some(sxy / sxx)
    }
}

struct DocResult {
    id: String,
    /// VBSS's map evaluations and convergence, when it ran.
    vbss_run: Option<(usize, bool)>,
    n: usize,
    truth: HashSet<usize>,
    observed: Vec<usize>,
    /// Per method with its own FDR rule (VBSS, BSS): the set per γ.
    own_sel: Vec<Option<Vec<Vec<usize>>>>,
    rankings: Vec<Vec<usize>>,
    seconds: Vec<f64>,
    code_converged: bool,
}

/// The words method `mi` selects in one document at level `gi`: its own
/// FDR set, or the top `round(n·r)` of its ranking (known keywords first
/// when `forced`).
fn chosen_words(d: &DocResult, mi: usize, gi: usize, r: f64, forced: bool) -> Vec<usize> {
    if let Some(own) = &d.own_sel[mi] {
        return own[gi].clone();
    }
    let c = (d.n as f64 * r).round() as usize;
    if forced {
        let extra = c.saturating_sub(d.observed.len());
        let mut s = d.observed.clone();
        s.extend(
            d.rankings[mi]
                .iter()
                .filter(|i| !d.observed.contains(i))
                .take(extra),
        );
        s
    } else {
        d.rankings[mi][..c.min(d.n)].to_vec()
    }
}

fn cell(selected: usize, tp: usize, obs: usize, truth: usize) -> Cell {
    let precision = if selected == 0 {
        1.0
    } else {
        tp as f64 / selected as f64
    };
    let recall = tp as f64 / truth.max(1) as f64;
    let f = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Cell {
        f_sd: None,
        selected,
        true_positives: tp,
        observed_recovered: obs,
        precision,
        recall,
        f,
        realised_fdr: 1.0 - precision,
    }
}

/// The candidate indices in `graph` of `doc`'s ground-truth keywords, each
/// once, ascending (ground-truth words that are not candidates drop out).
pub fn truth_indices(graph: &WordGraph, doc: &Document) -> Vec<usize> {
    let mut truth: Vec<usize> = doc
        .truth
        .iter()
        .filter_map(|t| graph.index_of(t))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    truth.sort_unstable();
    truth
}

/// The known-keyword labels of draw `draw` of document `di` (Hu 2024
/// §1.4: `k` of its ground-truth candidates `truth`, drawn from the seeded
/// stream the evaluation uses, so a table can be re-derived document by
/// document); `n` candidates.
pub fn draw_known(
    truth: &[usize],
    n: usize,
    k: usize,
    seed: u64,
    di: usize,
    draw: usize,
) -> Vec<bool> {
    // Draw 0 keeps the single-draw stream, so its table is the same
    // whatever the number of draws.
    let mut rng = if draw == 0 {
        stream(seed, &[0x4b57, di as u64])
    } else {
        stream(seed, &[0x4b57, di as u64, draw as u64])
    };
    let mut pool = truth.to_vec();
    pool.shuffle(&mut rng);
    let mut y = vec![false; n];
    for &i in &pool[..k.min(pool.len())] {
        y[i] = true;
    }
    y
}

/// Run the protocol on a corpus.
pub fn evaluate(corpus: &Corpus, opts: &EvalOptions) -> Result<EvalTable> {
    evaluate_observed(corpus, opts, None)
}

/// Most draws of the known keywords one evaluation pools.
pub const MAX_DRAWS: usize = 10_000;

/// [`evaluate`], telling `observer` of every document taken up (progress
/// bars; it may cancel the run).
pub fn evaluate_observed(
    corpus: &Corpus,
    opts: &EvalOptions,
    observer: Option<&crate::observer::SharedObserver>,
) -> Result<EvalTable> {
    let (methods, rate_index) = methods_of(opts)?;
    let scoring = Scoring {
        opts,
        methods: &methods,
        df: document_frequencies(corpus),
        n_documents: corpus.documents.len(),
    };
    // Documents in parallel, their draws in turn.
    let results: Vec<Result<Vec<DocResult>>> = corpus
        .documents
        .par_iter()
        .enumerate()
        .map(|(di, doc)| scoring.document(di, doc, observer))
        .collect();
    let mut by_draw: Vec<Vec<DocResult>> = (0..opts.draws).map(|_| Vec::new()).collect();
    for r in results {
        for (t, d) in r?.into_iter().enumerate() {
            by_draw[t].push(d);
        }
    }
    pool(opts, methods, rate_index, &by_draw, corpus.documents.len())
}

/// Check the evaluation's options; the methods in table order (VBSS first
/// unless left out, then the listed ones, then the external columns) and
/// the index of the one whose selections set the cut methods' rates.
/// The method whose own selections set the rates: `rates_from`, except
/// that with VBSS left out and the rates left at VBSS (the default), the
/// one other method with an FDR selection of its own (`vbss-code` or
/// `bss`) sets them — the reproduction of Hu 2024's tables from the
/// authors' code alone needs no further option.
fn rates_source(opts: &EvalOptions, methods: &[Method]) -> Method {
    if !(opts.no_vbss && opts.rates_from == Method::Vbss) {
        return opts.rates_from;
    }
    let own: Vec<Method> = methods
        .iter()
        .copied()
        .filter(|m| matches!(m, Method::VbssCode | Method::Bss))
        .collect();
    match own[..] {
        [m] => m,
        _ => opts.rates_from,
    }
}

fn methods_of(opts: &EvalOptions) -> Result<(Vec<Method>, usize)> {
    opts.vbss.check()?;
    if opts.k == 0 {
        return Err(Error::param("known_count", "must be at least 1"));
    }
    if opts.min_keywords <= opts.k {
        return Err(Error::param(
            "min_keywords",
            format!(
                "must exceed `known_count` = {} so that some keywords stay unobserved",
                opts.k
            ),
        ));
    }
    // Each draw evaluates the whole corpus again (100 draws of SemEval-2010
    // without VBSS take 20 s), so ten thousand is far beyond any use; a
    // count near usize::MAX overflowed an allocation.
    if opts.draws == 0 || opts.draws > MAX_DRAWS {
        return Err(Error::param(
            "draws",
            format!("between 1 and {MAX_DRAWS}, got {}", opts.draws),
        ));
    }
    if opts.gammas.is_empty() || opts.gammas.iter().any(|g| !(*g > 0.0 && *g < 1.0)) {
        return Err(Error::param(
            "gamma",
            "each level must lie strictly between 0 and 1",
        ));
    }
    // BSS's own checks name its fields; here they are the evaluation's
    // `bss_iterations` / `bss_burn_in`, and bad counts fail before the
    // first document is fitted rather than inside it.
    if opts.methods.contains(&Method::Bss) {
        opts.bss.check_counts("bss_iterations", "bss_burn_in")?;
    }
    if opts.no_vbss && opts.methods.contains(&Method::Vbss) {
        return Err(Error::param(
            "methods",
            "VBSS is both listed and left out (`no_vbss`)",
        ));
    }
    let mut methods = if opts.no_vbss {
        Vec::new()
    } else {
        vec![Method::Vbss]
    };
    for m in &opts.methods {
        if !methods.contains(m) && !matches!(m, Method::External(_)) {
            methods.push(*m);
        }
    }
    methods.extend((0..opts.external.len()).map(Method::External));
    if methods.is_empty() {
        return Err(Error::param(
            "methods",
            "nothing to evaluate: VBSS is left out and no other method is given",
        ));
    }
    let rates_from = rates_source(opts, &methods);
    let rate_index = match rates_from {
        Method::Vbss | Method::VbssCode | Method::Bss => methods
            .iter()
            .position(|m| *m == rates_from)
            .ok_or_else(|| {
                Error::param(
                    "rates_from",
                    format!(
                        "the selection rates come from {}, which is not among the methods",
                        rates_from.key()
                    ),
                )
            })?,
        m => {
            return Err(Error::param(
                "rates_from",
                format!(
                    "{} has no FDR selection of its own to set the rates (vbss, vbss-code or bss)",
                    m.key()
                ),
            ));
        }
    };
    Ok((methods, rate_index))
}

/// Document frequencies over the whole corpus (TF-IDF, leave-one-out).
fn document_frequencies(corpus: &Corpus) -> HashMap<&str, usize> {
    let mut df: HashMap<&str, usize> = HashMap::new();
    for d in &corpus.documents {
        let vocab: HashSet<&str> = d.tokens.iter().map(|s| s.as_str()).collect();
        for w in vocab {
            *df.entry(w).or_default() += 1;
        }
    }
    df
}

/// What scoring one document needs of the whole evaluation.
struct Scoring<'a> {
    opts: &'a EvalOptions,
    methods: &'a [Method],
    df: HashMap<&'a str, usize>,
    n_documents: usize,
}

/// One method's scores of one draw, and what it reports besides.
struct MethodRun {
    score: Vec<f64>,
    /// The method's own FDR selection per γ (VBSS, VBSS-code, BSS).
    own: Option<Vec<Vec<usize>>>,
    /// VBSS's map evaluations and convergence.
    vbss_run: Option<(usize, bool)>,
    /// Whether the reference-code iteration converged.
    code_converged: Option<bool>,
}

impl Scoring<'_> {
    /// Every draw of document `di` (none if it has too few ground-truth
    /// keywords among its candidates). The prior's eigendecomposition does
    /// not depend on the known keywords, so later draws reuse it.
    fn document(
        &self,
        di: usize,
        doc: &Document,
        observer: Option<&crate::observer::SharedObserver>,
    ) -> Result<Vec<DocResult>> {
        let opts = self.opts;
        let in_doc = |e: Error| Error::Data(format!("document {}: {e}", doc.id));
        let g =
            WordGraph::from_tokens(&doc.tokens, opts.window, opts.self_loops).map_err(in_doc)?;
        let truth = truth_indices(&g, doc);
        if truth.len() < opts.min_keywords {
            crate::observer::advance(observer, opts.draws)?;
            return Ok(Vec::new());
        }
        let mut base: Option<ThetaPrior> = None;
        let mut out = Vec::with_capacity(opts.draws);
        for draw in 0..opts.draws {
            crate::observer::advance(observer, 1)?;
            let y = draw_known(&truth, g.len(), opts.k, opts.seed, di, draw);
            let observed: Vec<usize> = (0..y.len()).filter(|&i| y[i]).collect();
            let n_methods = self.methods.len();
            let mut seconds = vec![0.0; n_methods];
            let mut rankings = vec![Vec::new(); n_methods];
            let t = Instant::now();
            let prior = match &base {
                None => ThetaPrior::from_graph(&g, &y, opts.damping, opts.scale),
                Some(b) => b.with_labels(&y, opts.scale),
            }
            .map_err(in_doc)?;
            // VBSS's time includes the prior's eigendecomposition (the
            // other methods reuse it).
            let prior_seconds = t.elapsed().as_secs_f64();
            let mut own_sel: Vec<Option<Vec<Vec<usize>>>> = vec![None; n_methods];
            let mut code_converged = true;
            let mut vbss_run = None;
            for (mi, m) in self.methods.iter().enumerate() {
                let t = Instant::now();
                let run = self
                    .method(*m, di, doc, &g, &prior, &y, truth.len())
                    .map_err(in_doc)?;
                vbss_run = vbss_run.or(run.vbss_run);
                code_converged &= run.code_converged.unwrap_or(true);
                // Methods with their own FDR selection are not cut by rank.
                match run.own {
                    Some(own) => own_sel[mi] = Some(own),
                    None => rankings[mi] = top_by_score(&run.score, run.score.len()),
                }
                seconds[mi] = t.elapsed().as_secs_f64()
                    + if *m == Method::Vbss {
                        prior_seconds
                    } else {
                        0.0
                    };
            }
            out.push(DocResult {
                id: doc.id.clone(),
                vbss_run,
                n: g.len(),
                truth: truth.iter().copied().collect(),
                observed,
                own_sel,
                rankings,
                seconds,
                code_converged,
            });
            if base.is_none() {
                base = Some(prior);
            }
        }
        Ok(out)
    }

    /// Method `m`'s scores of the candidates of `g` given the known
    /// keywords `y`, and its own selections if it has an FDR rule.
    #[allow(clippy::too_many_arguments)]
    fn method(
        &self,
        m: Method,
        di: usize,
        doc: &Document,
        g: &WordGraph,
        prior: &ThetaPrior,
        y: &[bool],
        truth: usize,
    ) -> Result<MethodRun> {
        let opts = self.opts;
        let vbss_opts = VbssOptions {
            alpha_init: opts.alpha_init.start(opts.vbss.alpha_init, opts.k, truth),
            ..opts.vbss
        };
        let select = |p: &[f64]| -> Vec<Vec<usize>> {
            opts.gammas
                .iter()
                .map(|&gm| bayesian_fdr_select(p, gm))
                .collect()
        };
        let scores = |score: Vec<f64>| MethodRun {
            score,
            own: None,
            vbss_run: None,
            code_converged: None,
        };
        Ok(match m {
            Method::Vbss => {
                // The evaluation reads probabilities only, and only the
                // predictive one depends on the covariance: spare every
                // other run the linear-response solve.
                let mut vbss = vbss_opts;
                if opts.probability != Probability::Predictive {
                    vbss.covariance = super::vbss::VbCovariance::MeanField;
                }
                let fit = fit_vbss(prior, y, &vbss)?;
                let p = fit.probabilities(opts.probability);
                MethodRun {
                    own: Some(select(p)),
                    score: p.to_vec(),
                    vbss_run: Some((fit.iterations, fit.converged)),
                    code_converged: None,
                }
            }
            Method::External(e) => {
                let sc = opts.external[e].scores.get(&doc.id);
                scores(
                    g.words
                        .iter()
                        .map(|w| {
                            sc.and_then(|m| m.get(w))
                                .copied()
                                .unwrap_or(f64::NEG_INFINITY)
                        })
                        .collect(),
                )
            }
            Method::Bss => {
                let o = BssOptions {
                    seed: opts.bss.seed ^ (di as u64).wrapping_mul(0x9E37_79B9),
                    ..opts.bss
                };
                let f = fit_bss(g, y, &o)?;
                // The authors' rule: known keywords forced to 1.
                let p = forced(&f.p_median, y);
                MethodRun {
                    own: Some(select(&p)),
                    score: p,
                    vbss_run: None,
                    code_converged: None,
                }
            }
            Method::VbssCode => {
                let f = fit_vbss_code(prior, y, &vbss_opts)?;
                MethodRun {
                    own: Some(select(&f.p_forced)),
                    code_converged: Some(f.converged),
                    score: f.p_forced,
                    vbss_run: None,
                }
            }
            // SS is VBSS's prior mean.
            Method::Ss => scores(prior.theta0.clone()),
            Method::TextRank => scores(text_rank_given(prior, g, opts.damping)?),
            Method::PositionRank => scores(position_rank_given(prior, g, opts.damping)?),
            Method::TfIdf => {
                let dfo: Vec<usize> = g
                    .words
                    .iter()
                    .map(|w| self.df.get(w.as_str()).copied().unwrap_or(1) - 1)
                    .collect();
                scores(tf_idf(g, &dfo, self.n_documents - 1))
            }
        })
    }
}

/// The table: per γ the rate set by method `rate_index`'s selections, and
/// every method's precision, recall and F pooled over documents and draws
/// (`by_draw[t]`: draw `t`'s documents, the same documents in every draw).
fn pool(
    opts: &EvalOptions,
    methods: Vec<Method>,
    rate_index: usize,
    by_draw: &[Vec<DocResult>],
    documents_given: usize,
) -> Result<EvalTable> {
    if by_draw[0].is_empty() {
        return Err(Error::Data(format!(
            "no document has at least {} ground-truth keywords among its candidates (`min_keywords`; \
             with the text front end, short documents may also want a lower `min_count`, which keeps \
             only stems seen more than that many times)",
            opts.min_keywords
        )));
    }
    // Which documents are kept does not depend on the draw.
    let docs = &by_draw[0];
    let candidates: usize = docs.iter().map(|d| d.n).sum();
    let keywords: usize = docs.iter().map(|d| d.truth.len()).sum();
    let mut rates = Vec::new();
    let mut cells = Vec::new();
    for gi in 0..opts.gammas.len() {
        let mut rate = 0.0;
        // Per method: pooled counts and the F of each draw.
        let mut pooled = vec![(0usize, 0usize, 0usize); methods.len()];
        let mut fs = vec![Vec::new(); methods.len()];
        for draw_docs in by_draw {
            let total: usize = draw_docs
                .iter()
                .map(|d| d.own_sel[rate_index].as_ref().expect("own selection")[gi].len())
                .sum();
            let r = total as f64 / candidates as f64;
            rate += r / opts.draws as f64;
            for mi in 0..methods.len() {
                let (mut sel, mut tp, mut obs) = (0, 0, 0);
                for d in draw_docs {
                    let chosen = chosen_words(d, mi, gi, r, opts.forced);
                    sel += chosen.len();
                    tp += chosen.iter().filter(|i| d.truth.contains(i)).count();
                    obs += chosen.iter().filter(|i| d.observed.contains(i)).count();
                }
                fs[mi].push(cell(sel, tp, obs, keywords).f);
                let p = &mut pooled[mi];
                *p = (p.0 + sel, p.1 + tp, p.2 + obs);
            }
        }
        rates.push(rate);
        let row = pooled
            .iter()
            .zip(&fs)
            .map(|(&(sel, tp, obs), f)| {
                let mut c = cell(sel, tp, obs, keywords * opts.draws);
                c.f_sd = crate::stats::mean_sd_of_repeats(f).1;
                c
            })
            .collect();
        cells.push(row);
    }
    let seconds = (0..methods.len())
        .map(|mi| docs.iter().map(|d| d.seconds[mi]).sum())
        .collect();
    Ok(EvalTable {
        documents: docs.len(),
        documents_given,
        min_keywords: opts.min_keywords,
        candidates,
        keywords,
        k: opts.k,
        draws: opts.draws,
        rates_from: methods[rate_index],
        gammas: opts.gammas.clone(),
        rates,
        labels: methods
            .iter()
            .map(|m| match m {
                Method::External(e) => opts.external[*e].name.clone(),
                m => m.label().to_string(),
            })
            .collect(),
        methods,
        cells,
        seconds,
        vbss_not_converged: by_draw
            .iter()
            .flatten()
            .filter(|d| d.vbss_run.is_some_and(|(_, c)| !c))
            .count(),
        vbss_code_not_converged: by_draw
            .iter()
            .flatten()
            .filter(|d| !d.code_converged)
            .count(),
        forced: opts.forced,
        per_document: docs
            .iter()
            .filter_map(|d| {
                let (iterations, _) = d.vbss_run?;
                Some(DocTiming {
                    id: d.id.clone(),
                    n: d.n,
                    seconds: d.seconds[0],
                    iterations,
                })
            })
            .collect(),
    })
}

impl EvalTable {
    /// Every cell as one flat row, γ by γ and method by method (the
    /// `results` of [`EvalTable::document`]).
    pub fn results(&self) -> Vec<ResultRow> {
        self.gammas
            .iter()
            .zip(&self.cells)
            .flat_map(|(&gamma, row)| {
                self.methods
                    .iter()
                    .zip(&self.labels)
                    .zip(row)
                    .map(move |((m, label), c)| ResultRow {
                        // An external method's label is its name.
                        method: match m {
                            Method::External(_) => label.clone(),
                            m => m.key().to_string(),
                        },
                        gamma,
                        k: self.k,
                        precision: c.precision,
                        recall: c.recall,
                        f: c.f,
                        forced: self.forced,
                        realised_fdr: c.realised_fdr,
                        selected: c.selected,
                        selected_per_document: c.selected as f64
                            / (self.documents * self.draws).max(1) as f64,
                    })
            })
            .collect()
    }

    /// The JSON document of `keywords evaluate --output json` (CLI and
    /// Python): the table's fields and its flat `results` rows.
    pub fn document(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("the table has string keys only");
        v["results"] = serde_json::to_value(self.results()).expect("rows have string keys only");
        v
    }

    /// " (counting each draw)" when documents were drawn more than once.
    fn draws_note(&self) -> &'static str {
        if self.draws > 1 {
            " (counting each draw)"
        } else {
            ""
        }
    }

    /// The dissertation's layout (Hu 2024, Table 1.5): one block per
    /// measure, rows γ, columns methods; then selections and timing.
    pub fn render(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "{} documents of {} kept (≥ {} keywords among candidates), {} candidates, {} keywords, k = {} known per document{}{}\n",
            self.documents,
            self.documents_given,
            self.min_keywords,
            self.candidates,
            self.keywords,
            self.k,
            if self.draws > 1 {
                format!(
                    "; {} draws of the known keywords, pooled (counts are totals over the draws)",
                    self.draws
                )
            } else {
                String::new()
            },
            if self.forced {
                "; known keywords forced into the other methods' cuts"
            } else {
                ""
            }
        ));
        let head = |s: &mut String, title: &str| {
            s.push_str(&format!("\n{title}\n{:>6}", "γ"));
            for m in &self.labels {
                s.push_str(&format!(" {:>8}", m));
            }
            s.push('\n');
        };
        type Get = fn(&Cell) -> String;
        let blocks: [(&str, Get); 6] = [
            ("Precision", |c| format!("{:.3}", c.precision)),
            ("Recall", |c| format!("{:.3}", c.recall)),
            ("F-measure", |c| format!("{:.3}", c.f)),
            ("Realised FDR (1 − precision)", |c| {
                format!("{:.3}", c.realised_fdr)
            }),
            ("Words selected", |c| c.selected.to_string()),
            ("Known keywords recovered", |c| {
                c.observed_recovered.to_string()
            }),
        ];
        let mut blocks = blocks.to_vec();
        if self.draws > 1 {
            blocks.insert(
                3,
                ("F-measure: sd over the draws", |c| {
                    crate::stats::cell(c.f_sd, 3)
                }),
            );
        }
        for (title, get) in blocks {
            head(&mut s, title);
            for (gi, g) in self.gammas.iter().enumerate() {
                s.push_str(&format!("{g:>6}"));
                for c in &self.cells[gi] {
                    s.push_str(&format!(" {:>8}", get(c)));
                }
                s.push('\n');
            }
        }
        s.push_str(&format!(
            "\nSelection rate r(γ) set by {}:",
            self.rates_from.label()
        ));
        for (g, r) in self.gammas.iter().zip(&self.rates) {
            s.push_str(&format!(" {g}: {:.4}", r));
        }
        s.push_str("\nSeconds (summed over documents):");
        for (m, t) in self.labels.iter().zip(&self.seconds) {
            s.push_str(&format!(" {} {:.3}", m, t));
        }
        s.push('\n');
        if !self.per_document.is_empty() {
            s.push_str(&match self.time_exponent() {
                Some(e) => format!(
                    "VBSS time per document grows as n^{e:.2} (least squares on log–log over {} documents)\n",
                    self.per_document.len()
                ),
                None => format!(
                    "VBSS time per document vs n: not estimated (needs 3 documents whose candidate counts span a factor of {MIN_N_SPAN})\n"
                ),
            });
        }
        if self.vbss_not_converged > 0 {
            s.push_str(&format!(
                "note: VBSS reached its iteration limit on {} documents{}\n",
                self.vbss_not_converged,
                self.draws_note()
            ));
        }
        if self.vbss_code_not_converged > 0 {
            s.push_str(&format!(
                "note: VBSS-code reached its iteration limit on {} documents{}\n",
                self.vbss_code_not_converged,
                self.draws_note()
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `1 − k/|K|` per article; the global value otherwise, and for an
    /// article without ground truth; floored when every keyword is known.
    #[test]
    fn alpha_init_per_article() {
        assert_eq!(AlphaInit::Global.start(0.6, 5, 20), 0.6);
        assert_eq!(AlphaInit::Article.start(0.6, 5, 20), 0.75);
        assert_eq!(AlphaInit::Article.start(0.6, 5, 0), 0.6);
        assert_eq!(AlphaInit::Article.start(0.6, 5, 5), 1e-3);
    }

    /// With VBSS left out and the rates at their default, the one method
    /// with selections of its own sets them; two such methods leave the
    /// choice to the caller (an error names `rates_from`).
    #[test]
    fn rates_default_to_the_one_selecting_method_when_vbss_is_left_out() {
        let mut o = EvalOptions {
            methods: vec![Method::Ss, Method::VbssCode],
            no_vbss: true,
            ..Default::default()
        };
        let (methods, i) = methods_of(&o).unwrap();
        assert_eq!(methods[i], Method::VbssCode);
        o.methods.push(Method::Bss);
        assert!(
            methods_of(&o)
                .unwrap_err()
                .to_string()
                .contains("rates_from")
        );
        o.no_vbss = false;
        o.methods = vec![Method::VbssCode];
        let (methods, i) = methods_of(&o).unwrap();
        assert_eq!(methods[i], Method::Vbss);
    }

    fn table(times: &[(usize, f64)]) -> EvalTable {
        EvalTable {
            documents: times.len(),
            documents_given: times.len(),
            min_keywords: 11,
            candidates: 0,
            keywords: 0,
            k: 5,
            draws: 1,
            gammas: vec![],
            rates: vec![],
            rates_from: Method::Vbss,
            methods: vec![],
            labels: vec![],
            cells: vec![],
            seconds: vec![],
            vbss_not_converged: 0,
            vbss_code_not_converged: 0,
            forced: false,
            per_document: times
                .iter()
                .map(|&(n, seconds)| DocTiming {
                    id: String::new(),
                    n,
                    seconds,
                    iterations: 1,
                })
                .collect(),
        }
    }

    /// Quadratic timings give slope 2; candidate counts within a factor of
    /// two of each other, or fewer than three documents, give no slope
    /// (and the text table says so instead of printing noise).
    #[test]
    fn the_time_exponent_needs_a_range_of_n() {
        let quad = table(&[(100, 1e-4), (200, 4e-4), (400, 1.6e-3)]);
        assert!((quad.time_exponent().unwrap() - 2.0).abs() < 1e-9);
        let narrow = table(&[(17, 1e-3), (18, 1e-4), (19, 2e-3)]);
        assert_eq!(narrow.time_exponent(), None);
        assert!(narrow.render().contains("not estimated"));
        assert_eq!(table(&[(10, 1e-3), (400, 1e-2)]).time_exponent(), None);
        assert_eq!(table(&[(10, 1e-3); 5]).time_exponent(), None);
    }
}
