//! Keyword extraction from Python (VBSS, Hu 2024 ch. 1): the library's
//! `plackett_text::extract` (one document) and `extract_many` (a batch,
//! in parallel), each document returned as the JSON of `plackett keywords
//! extract --output json` for the Python layer to shape.

use crate::err;
use plackett::infer::mcmc::McmcSettings;
use plackett::keywords::{
    AlphaModel, BssOptions, EvalOptions, Method, PriorScale, Probability, ThetaUpdate,
    VbCovariance, VbssGibbsOptions, VbssOptions, evaluate_observed,
};
use plackett_text::{
    BatchDocument, Engine, ExtractOptions, Input, Pipeline, WordFilter, extract_many_observed,
    extract_observed, read_candidate_corpus, read_corpus, read_external,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn choice<T: Copy>(name: &str, v: &str, options: &[(&str, T)]) -> PyResult<T> {
    options
        .iter()
        .find(|(k, _)| *k == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(k, _)| *k).collect();
            PyValueError::new_err(format!(
                "invalid option {name}: {v:?} (one of {})",
                names.join(", ")
            ))
        })
}

/// Score every candidate word of each of `documents` given its `known`
/// keywords or keyphrases; one JSON per document as `plackett keywords
/// extract --output json`. Without `batch`, one document runs as
/// `extract` (errors as such); with it, the documents run in parallel as
/// `keywords batch` does, each exactly as alone, and the first failing one
/// (in order) raises, named `documents[i]`. `report` needs a single
/// document.
#[pyfunction]
#[pyo3(signature = (documents, known, *, tokens = false, graph = false, fdr = 0.2, engine = "vb",
    probability = "latent", prior_scale = "code", theta_update = "block", alpha = "shared",
    window = 2, self_loops = false, damping = 0.85, min_count = 0, word_filter = "pos", tau = 0.1, sigma_a2 = 10.0,
    sigma_b2 = 10.0, tol = 1e-10, max_iter = 2000, samples = 2000, burn_in = 1000, chains = 4,
    seed = 1, alpha_init = 0.6, report = None, batch = false, baselines = false, edges = false, first_index = 0,
    covariance = "linear-response"))]
#[allow(clippy::too_many_arguments)]
pub fn extract_keywords(
    py: Python<'_>,
    documents: Vec<String>,
    known: Vec<Vec<String>>,
    tokens: bool,
    graph: bool,
    fdr: f64,
    engine: &str,
    probability: &str,
    prior_scale: &str,
    theta_update: &str,
    alpha: &str,
    window: usize,
    self_loops: bool,
    damping: f64,
    min_count: usize,
    word_filter: &str,
    tau: f64,
    sigma_a2: f64,
    sigma_b2: f64,
    tol: f64,
    max_iter: usize,
    samples: usize,
    burn_in: usize,
    chains: usize,
    seed: u64,
    alpha_init: f64,
    report: Option<String>,
    batch: bool,
    baselines: bool,
    edges: bool,
    first_index: usize,
    covariance: &str,
) -> PyResult<Vec<String>> {
    if documents.len() != known.len() {
        return Err(PyValueError::new_err(format!(
            "known: one list of known keywords per document ({}), got {}",
            documents.len(),
            known.len()
        )));
    }
    if report.is_some() && documents.len() != 1 {
        return Err(PyValueError::new_err(
            "invalid option report: a report shows one document",
        ));
    }
    let alpha = alpha_of(alpha)?;
    let engine_name = engine.to_string();
    let vb = vbss_options(
        alpha,
        theta_update,
        [tau, sigma_a2, sigma_b2, tol, alpha_init],
        max_iter,
        covariance,
    )?;
    let engine = match engine {
        "vb" => Engine::Vb(vb),
        "gibbs" => Engine::Gibbs(VbssGibbsOptions {
            tau,
            sigma_a2,
            sigma_b2,
            alpha,
            mcmc: McmcSettings {
                samples,
                burn_in,
                thin: 1,
                chains,
                seed,
            },
        }),
        other => {
            return Err(PyValueError::new_err(format!(
                "invalid option engine: {other:?} (one of vb, gibbs)"
            )));
        }
    };
    let opts = ExtractOptions {
        input: match (tokens, graph) {
            (true, true) => {
                return Err(PyValueError::new_err(
                    "invalid options tokens and graph: a document is one or the other",
                ));
            }
            (true, false) => Input::Tokens,
            (false, true) => Input::Graph,
            (false, false) => Input::Text,
        },
        source: "document".into(),
        pipeline: Pipeline {
            min_count_exclusive: min_count,
            filter: word_filter_of(word_filter)?,
            ..Default::default()
        },
        window,
        self_loops,
        damping,
        scale: prior_scale_of(prior_scale)?,
        probability: probability_of(probability)?,
        fdr,
        engine,
        baselines,
        edges,
    };
    // On the helper thread of `interrupt::run`, so that Ctrl-C stops a
    // Gibbs run within a sweep (the results come back whole, each
    // document's own error inside).
    let results = crate::interrupt::run(py, move |obs| {
        if let ([doc], [known], false) = (documents.as_slice(), known.as_slice(), batch) {
            return Ok(vec![extract_observed(doc, known, &opts, obs.as_ref())]);
        }
        let docs: Vec<BatchDocument> = documents
            .into_iter()
            .zip(known)
            .enumerate()
            .map(|(i, (text, known))| BatchDocument {
                // A chunk of a longer list names its documents by their
                // place in the whole list.
                source: format!("documents[{}]", first_index + i),
                listed_at: None,
                text,
                known,
            })
            .collect();
        let results = extract_many_observed(&docs, &opts, obs.as_ref());
        // A cancelled batch is one cancellation, not an error per document.
        if results
            .iter()
            .any(|r| matches!(r, Err(plackett::Error::Cancelled)))
        {
            return Err(plackett::Error::Cancelled);
        }
        Ok(results)
    })?;
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        let ex = r.map_err(err)?;
        // The page `plackett keywords extract --report` writes.
        if let Some(path) = &report {
            let page =
                plackett_text::report::render("plackett.extract_keywords", &engine_name, &ex);
            crate::write_page(std::path::Path::new(path), &page)?;
        }
        out.push(
            serde_json::to_string(&ex.document())
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
        );
    }
    Ok(out)
}

fn alpha_of(alpha: &str) -> PyResult<AlphaModel> {
    choice(
        "alpha",
        alpha,
        &[
            ("shared", AlphaModel::Shared),
            ("per-word", AlphaModel::PerWord),
        ],
    )
}

/// VBSS's settings; `[tau, sigma_a2, sigma_b2, tol, alpha_init]`.
fn vbss_options(
    alpha: AlphaModel,
    theta_update: &str,
    [tau, sigma_a2, sigma_b2, tol, alpha_init]: [f64; 5],
    max_iter: usize,
    covariance: &str,
) -> PyResult<VbssOptions> {
    Ok(VbssOptions {
        tau,
        sigma_a2,
        sigma_b2,
        alpha,
        alpha_init,
        theta_update: choice(
            "theta_update",
            theta_update,
            &[
                ("block", ThetaUpdate::Block),
                ("coordinate", ThetaUpdate::Coordinate),
                ("published", ThetaUpdate::Published),
            ],
        )?,
        tol,
        max_iter,
        covariance: VbCovariance::parse(covariance).map_err(err)?,
    })
}

/// The front-end's reading of `document`: its sentences, each a list of
/// tokens `{"word", "pos", "kept"}`, as JSON (`plackett keywords tag
/// --output json`, one document's `sentences`).
#[pyfunction]
#[pyo3(signature = (document, *, word_filter = "pos"))]
pub fn tag_text(py: Python<'_>, document: &str, word_filter: &str) -> PyResult<String> {
    let pipe = Pipeline {
        filter: word_filter_of(word_filter)?,
        ..Default::default()
    };
    let sentences = py.detach(|| pipe.tagged(document));
    serde_json::to_string(&sentences).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn word_filter_of(f: &str) -> PyResult<WordFilter> {
    choice(
        "word_filter",
        f,
        &[
            ("pos", WordFilter::PartOfSpeech),
            ("stopwords", WordFilter::StopWords),
            ("none", WordFilter::None),
        ],
    )
}

fn prior_scale_of(s: &str) -> PyResult<PriorScale> {
    choice(
        "prior_scale",
        s,
        &[
            ("code", PriorScale::Code),
            ("dissertation", PriorScale::Dissertation),
        ],
    )
}

fn probability_of(p: &str) -> PyResult<Probability> {
    choice(
        "probability",
        p,
        &[
            ("latent", Probability::Latent),
            ("plugin", Probability::Plugin),
            ("predictive", Probability::Predictive),
            ("forced", Probability::Forced),
        ],
    )
}

/// Hu 2024 §1.4's evaluation protocol on a corpus in the `docsutf8/` +
/// `keys/` layout; JSON as `plackett keywords evaluate --output json`.
#[pyfunction]
#[pyo3(signature = (corpus, *, candidates = None, known_count = 5,
    gamma = vec![0.05, 0.1, 0.15, 0.2, 0.25, 0.3],
    methods = "ss,textrank,positionrank,tfidf", forced = true, min_count = 2,
    word_filter = "pos", min_keywords = 11, window = 2, self_loops = false, damping = 0.85,
    prior_scale = "code", probability = "latent", theta_update = "block", alpha = "shared",
    tau = 0.1, sigma_a2 = 10.0, sigma_b2 = 10.0, tol = 1e-10, max_iter = 2000,
    bss_iterations = 50_000, bss_burn_in = 2_000, seed = 1, draws = 1, rates_from = "vbss", alpha_init = None, no_vbss = false, external = Vec::new(), report = None, keys = "whole"))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate_keywords(
    py: Python<'_>,
    corpus: &str,
    candidates: Option<String>,
    known_count: usize,
    gamma: Vec<f64>,
    methods: &str,
    forced: bool,
    min_count: usize,
    word_filter: &str,
    min_keywords: usize,
    window: usize,
    self_loops: bool,
    damping: f64,
    prior_scale: &str,
    probability: &str,
    theta_update: &str,
    alpha: &str,
    tau: f64,
    sigma_a2: f64,
    sigma_b2: f64,
    tol: f64,
    max_iter: usize,
    bss_iterations: usize,
    bss_burn_in: usize,
    seed: u64,
    draws: usize,
    rates_from: &str,
    alpha_init: Option<Bound<'_, PyAny>>,
    no_vbss: bool,
    external: Vec<(String, String)>,
    report: Option<std::path::PathBuf>,
    keys: &str,
) -> PyResult<String> {
    // A probability, or "article": 1 − k/|K| per document (the CLI's
    // `--alpha-init article`).
    let (alpha_init, alpha_mode) = match &alpha_init {
        None => (0.6, plackett::keywords::AlphaInit::Global),
        Some(v) if v.extract::<String>().is_ok_and(|s| s == "article") => {
            (0.6, plackett::keywords::AlphaInit::Article)
        }
        Some(v) => (
            v.extract::<f64>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(
                    "alpha_init: expected a probability in (0, 1) or \"article\"",
                )
            })?,
            plackett::keywords::AlphaInit::Global,
        ),
    };
    let keys: plackett_text::KeyRule = keys
        .parse()
        .map_err(|m| PyValueError::new_err(format!("invalid option keys: {m}")))?;
    let methods = methods
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(|m| {
            Method::parse(m).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "invalid option methods: unknown method {m:?} (vbss, ss, textrank, positionrank, tfidf, bss, vbss-code)"
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut opts = EvalOptions {
        k: known_count,
        min_keywords,
        gammas: gamma,
        window,
        self_loops,
        damping,
        scale: prior_scale_of(prior_scale)?,
        vbss: vbss_options(
            alpha_of(alpha)?,
            theta_update,
            [tau, sigma_a2, sigma_b2, tol, alpha_init],
            max_iter,
            // The evaluation reads no sds (it runs mean-field unless the
            // predictive probability is asked for).
            VbCovariance::default().name(),
        )?,
        probability: probability_of(probability)?,
        forced,
        methods,
        seed,
        no_vbss,
        draws,
        rates_from: choice(
            "rates_from",
            rates_from,
            &[
                ("vbss", Method::Vbss),
                ("vbss-code", Method::VbssCode),
                ("bss", Method::Bss),
            ],
        )?,
        bss: BssOptions {
            damping,
            iterations: bss_iterations,
            burn_in: bss_burn_in,
            seed,
            ..BssOptions::default()
        },
        external: Vec::new(),
        alpha_init: alpha_mode,
    };
    let pipe = Pipeline {
        min_count_exclusive: min_count,
        filter: word_filter_of(word_filter)?,
        ..Default::default()
    };
    for (name, file) in &external {
        opts.external
            .push(read_external(std::path::Path::new(file), name, &pipe).map_err(err)?);
    }
    let dir = std::path::PathBuf::from(corpus);
    let table = crate::interrupt::run(py, move |obs| {
        let c = match &candidates {
            Some(c) => read_candidate_corpus(&dir, std::path::Path::new(c), &pipe, keys)?,
            None => read_corpus(&dir, &pipe, keys)?,
        };
        evaluate_observed(&c, &opts, obs.as_ref())
    })?;
    if let Some(path) = report {
        let page =
            plackett::report::keywords::evaluate_page("plackett.evaluate_keywords", corpus, &table);
        crate::write_page(&path, &page)?;
    }
    serde_json::to_string(&table.document()).map_err(|e| PyValueError::new_err(e.to_string()))
}
