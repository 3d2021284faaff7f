//! Keyword extraction from Python (VBSS, Hu 2024 ch. 1): the library's
//! `plackett_text::extract`, returned as the JSON of `plackett keywords
//! extract --output json` for the Python layer to shape.

use crate::err;
use plackett::infer::mcmc::McmcSettings;
use plackett::keywords::{
    AlphaModel, PriorScale, Probability, ThetaUpdate, VbssGibbsOptions, VbssOptions,
};
use plackett_text::{Engine, ExtractOptions, Input, Pipeline, WordFilter, extract};
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
                "invalid option {name}: `{v}` (one of {})",
                names.join(", ")
            ))
        })
}

/// Score every candidate word of `document` given `known` keywords or
/// keyphrases; JSON as `plackett keywords extract --output json`.
#[pyfunction]
#[pyo3(signature = (document, known, *, tokens = false, gamma = 0.2, engine = "vb",
    probability = "latent", prior_scale = "code", theta_update = "block", alpha = "shared",
    window = 2, self_loops = false, damping = 0.85, min_count = 0, word_filter = "pos", tau = 0.1, sigma_a2 = 10.0,
    sigma_b2 = 10.0, tol = 1e-10, max_iter = 2000, samples = 2000, burn_in = 1000, chains = 4,
    seed = 1))]
#[allow(clippy::too_many_arguments)]
pub fn extract_keywords(
    py: Python<'_>,
    document: &str,
    known: Vec<String>,
    tokens: bool,
    gamma: f64,
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
) -> PyResult<String> {
    let alpha = choice(
        "alpha",
        alpha,
        &[
            ("shared", AlphaModel::Shared),
            ("per-word", AlphaModel::PerWord),
        ],
    )?;
    let vb = VbssOptions {
        tau,
        sigma_a2,
        sigma_b2,
        alpha,
        alpha_init: 0.6,
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
    };
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
                "invalid option engine: `{other}` (one of vb, gibbs)"
            )));
        }
    };
    let opts = ExtractOptions {
        input: if tokens { Input::Tokens } else { Input::Text },
        source: "document".into(),
        pipeline: Pipeline {
            min_count_exclusive: min_count,
            filter: choice(
                "word_filter",
                word_filter,
                &[
                    ("pos", WordFilter::PartOfSpeech),
                    ("stopwords", WordFilter::StopWords),
                    ("none", WordFilter::None),
                ],
            )?,
            ..Default::default()
        },
        window,
        self_loops,
        damping,
        scale: choice(
            "prior_scale",
            prior_scale,
            &[
                ("code", PriorScale::Code),
                ("dissertation", PriorScale::Dissertation),
            ],
        )?,
        probability: choice(
            "probability",
            probability,
            &[
                ("latent", Probability::Latent),
                ("plugin", Probability::Plugin),
                ("predictive", Probability::Predictive),
                ("forced", Probability::Forced),
            ],
        )?,
        gamma,
        engine,
    };
    let doc = document.to_string();
    let ex = py
        .detach(move || extract(&doc, &known, &opts))
        .map_err(err)?;
    serde_json::to_string(&ex).map_err(|e| PyValueError::new_err(e.to_string()))
}
