//! What the Bayesian engines (Gibbs, EP, VB) return.

use super::prior::Prior;
use crate::error::Result;
use crate::posterior::{Draws, Gauge, ScalarDiagnostics, Summary};

/// Gamma prior shapes per item (common rate). The usual case is one shape
/// for every item; per-item shapes serve the exact collapse of never-ranked
/// classes in the ground-truth aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct GammaPrior {
    /// Shape per item.
    pub shapes: Vec<f64>,
    /// Common rate.
    pub rate: f64,
}

impl GammaPrior {
    /// Same Gamma(shape, rate) for `n` items.
    pub fn iid(n: usize, shape: f64, rate: f64) -> Result<GammaPrior> {
        Prior::Gamma { shape, rate }.check()?;
        Ok(GammaPrior {
            shapes: vec![shape; n],
            rate,
        })
    }
    /// Per-item shapes.
    pub fn per_item(shapes: Vec<f64>, rate: f64) -> Result<GammaPrior> {
        for &s in &shapes {
            crate::numerics::gamma::check_shape("prior_shape", s)?;
        }
        Prior::Gamma { shape: 1.0, rate }.check()?;
        Ok(GammaPrior { shapes, rate })
    }
}

/// Result of a Bayesian engine (serialisable: a saved fit reads back
/// bit for bit).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BayesFit {
    /// `"gibbs"`, `"ep"` or `"vb"`.
    pub engine: std::borrow::Cow<'static, str>,
    /// Posterior draws (MCMC for Gibbs; independent draws from the
    /// Gamma-factorised approximation for EP and VB).
    pub draws: Draws,
    /// Gamma marginals `(shape, rate)` per item (EP, VB).
    pub marginals: Option<Vec<(f64, f64)>>,
    /// The covariance of the log-worths from VB's linear response
    /// ([`crate::infer::vb`]): mean-centred as [`crate::infer::vb::vb`]
    /// returns it, in the gauge asked for after
    /// [`crate::infer::spec::FitSpec::fit`]. When present, the summary's
    /// sds come from it (any gauge: only contrasts are read) instead of the
    /// marginals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covariance: Option<nalgebra::DMatrix<f64>>,
    /// Converged (EP/VB tolerance met; Gibbs: R̂ ≤ 1.01 and ESS ≥ 400).
    pub converged: bool,
    /// Sweeps per chain (Gibbs) or passes/iterations (EP, VB).
    pub iterations: usize,
    /// Tolerance the engine ran at (EP, VB).
    pub tolerance: Option<f64>,
    /// Log marginal likelihood (EP).
    pub log_evidence: Option<f64>,
    /// Evidence lower bound (VB).
    pub elbo: Option<f64>,
    /// Convergence trace: ELBO per iteration (VB), largest relative change
    /// of a marginal's shape or normalised mean per pass (EP).
    #[serde(with = "crate::io::float_serde::vec")]
    pub trace: Vec<f64>,
    /// Per-item MCMC diagnostics (Gibbs).
    pub diagnostics: Option<Vec<ScalarDiagnostics>>,
    /// Notes and warnings.
    pub notes: Vec<String>,
}

impl BayesFit {
    /// Per-item summary in `gauge`.
    ///
    /// Gibbs: everything from the draws. EP/VB: `worth`/`worth_sd` are the
    /// Gamma marginals' means and sds rescaled so that the means sum to one
    /// (Guiver & Snelson §3.4 and Table 1); `log_worth` mean and sd are exact
    /// under the factorised approximation (`E log λ = ψ(α) − log β`,
    /// `Var = ψ'(α)`), intervals from the draws. With a linear-response
    /// covariance (VB's default) the sds come from it instead, the worth's
    /// by the delta method.
    pub fn summary(&self, names: &[String], gauge: Gauge) -> Summary {
        let mut s = self.draws.summary(names, gauge.clone());
        if let Some(m) = &self.marginals {
            use crate::numerics::special::{digamma, trigamma};
            let n = m.len();
            let total: f64 = m.iter().map(|(a, b)| a / b).sum();
            let e: Vec<f64> = m.iter().map(|(a, b)| digamma(*a) - b.ln()).collect();
            let v: Vec<f64> = m.iter().map(|(a, _)| trigamma(*a)).collect();
            let vbar: f64 = v.iter().sum::<f64>() / (n * n) as f64;
            let emean = e.iter().sum::<f64>() / n as f64;
            // Linear response: sds from the covariance (contrasts, so any
            // gauge), the worth's by the delta method through
            // `w = softmax(log λ)`: Var(w_i) ≈ w_i² Var(θ_i − Σ_k w_k θ_k).
            let lr_sd = self.covariance.as_ref().map(|c| {
                let w: Vec<f64> = m.iter().map(|(a, b)| a / b / total).collect();
                let cw = crate::numerics::linalg::mat_vec(c, &w, false);
                let wcw: f64 = w.iter().zip(&cw).map(|(x, y)| x * y).sum();
                let worth_sd: Vec<f64> = (0..n)
                    .map(|i| w[i] * (c[(i, i)] - 2.0 * cw[i] + wcw).max(0.0).sqrt())
                    .collect();
                (crate::posterior::Summary::gauge_sds(c, &gauge), worth_sd)
            });
            for (i, it) in s.items.iter_mut().enumerate() {
                let (a, b) = m[i];
                it.worth = a / b / total;
                it.worth_sd = Some(a.sqrt() / b / total);
                match gauge {
                    Gauge::MeanCentred => {
                        it.log_worth = e[i] - emean;
                        it.log_worth_sd =
                            Some((v[i] * (1.0 - 2.0 / n as f64) + vbar).max(0.0).sqrt());
                    }
                    Gauge::Reference(r) => {
                        let r = r as usize;
                        it.log_worth = e[i] - e[r];
                        it.log_worth_sd = Some(if i == r { 0.0 } else { (v[i] + v[r]).sqrt() });
                    }
                }
                if let Some((sd, wsd)) = &lr_sd {
                    it.worth_sd = Some(wsd[i]);
                    it.log_worth_sd = Some(sd[i]);
                }
            }
        }
        s
    }
}

impl crate::posterior::Posterior for BayesFit {
    fn info(&self) -> crate::posterior::FitInfo {
        use crate::posterior::Trace;
        let (algorithm, trace) = match &*self.engine {
            "gibbs" => (
                format!(
                    "gibbs, {} chains x {} draws",
                    self.draws.n_chains(),
                    self.draws.per_chain()
                ),
                None,
            ),
            "ep" => (
                "power EP (alpha = -1)".to_string(),
                Some(Trace {
                    label: "largest relative change of a marginal per pass".into(),
                    values: self.trace.clone(),
                    log_scale: true,
                }),
            ),
            _ => (
                if self.covariance.is_some() {
                    "mean-field VB, linear-response covariance".to_string()
                } else {
                    "mean-field VB".to_string()
                },
                Some(Trace {
                    label: "ELBO".into(),
                    values: self.trace.clone(),
                    log_scale: false,
                }),
            ),
        };
        crate::posterior::FitInfo {
            engine: self.engine.to_string(),
            algorithm,
            converged: self.converged,
            iterations: self.iterations,
            tolerance: self.tolerance,
            log_likelihood: None,
            n_parameters: None,
            log_evidence: self.log_evidence,
            elbo: self.elbo,
            trace,
            notes: self.notes.clone(),
        }
    }

    fn summary(&self, names: &[String], gauge: Gauge) -> Summary {
        BayesFit::summary(self, names, gauge)
    }

    fn draws(&self) -> std::borrow::Cow<'_, Draws> {
        std::borrow::Cow::Borrowed(&self.draws)
    }

    fn item_diagnostics(&self) -> Option<&[crate::posterior::ScalarDiagnostics]> {
        self.diagnostics.as_deref()
    }

    fn covariance(&self) -> Option<&nalgebra::DMatrix<f64>> {
        self.covariance.as_ref()
    }
}

/// Independent draws of normalised log-worths from a product of Gamma
/// marginals (the EP/VB approximate posterior), `m` of them, seeded.
pub fn draws_from_gammas(marginals: &[(f64, f64)], m: usize, seed: u64) -> Draws {
    use crate::numerics::gamma::ln_gamma_draw;
    let n = marginals.len();
    let mut rng = super::rng::stream(seed, &[0x4741_4d4d]);
    let mut data = Vec::with_capacity(m * n);
    let mut row = vec![0.0; n];
    for _ in 0..m {
        for (i, &(a, b)) in marginals.iter().enumerate() {
            row[i] = ln_gamma_draw(&mut rng, a, b);
        }
        Draws::normalise(&mut row);
        data.extend_from_slice(&row);
    }
    Draws::from_chains(n, vec![data])
}
