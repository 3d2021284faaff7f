//! A fitted multiple-instance model, its JSON model file, and prediction
//! for new bags (Hu 2024, §2.2.3).
//!
//! Prediction averages over the posterior instead of plugging in point
//! estimates: an instance's probability of being primary is
//! `E[Φ(ν̃_j)]` (under VB's Gaussian `q` in closed form,
//! `Φ(μ_ν/√(1 + s²_ν))`; under Gibbs the average over draws), and a bag's
//! probability is `E[Φ(α + Σ_j δ̃_j η̃_j)]` with `δ̃_j ~ Bernoulli(Φ(ν̃_j))`
//! given each parameter draw (Monte Carlo, seeded per bag). The
//! dissertation's plug-in `Φ(α̂ + Σ_j P̂(δ̃_j = 1) η̂_j)` is reported
//! alongside as `p_plugin`.

use super::bags::{Bags, Scaling};
use super::components::Components;
use super::gibbs::MilGibbsFit;
use super::params::{Layout, MilPriors, predictors};
use super::vb::VbFit;
use crate::error::{Error, Result};
use crate::numerics::linalg::Cholesky;
use crate::numerics::probit::{norm_cdf, phi_table};
use crate::sampling::rng::stream;
use nalgebra::DMatrix;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

/// Format tag of model files.
pub use crate::io::model_file::MIL_MODEL_FORMAT;

/// Most parameter draws a model file keeps (Gibbs; thinned evenly).
pub const MAX_STORED_DRAWS: usize = 1000;

/// One parameter's posterior summary.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParamSummary {
    /// `alpha`, `beta[f]`, `gamma[g]`, `a`, `b[f]`, `c`, `d[g]`.
    pub name: String,
    /// Posterior mean.
    pub mean: f64,
    /// Posterior sd.
    pub sd: f64,
    /// 5% quantile.
    pub lower: f64,
    /// 95% quantile.
    pub upper: f64,
}

/// A fitted model, as written to and read from the model file.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct MilModel {
    /// [`MIL_MODEL_FORMAT`].
    pub format: String,
    /// `vb` or `gibbs`.
    pub engine: String,
    /// Feature names of modality 0 and 1 (new bags must have the same).
    pub feature_names: [Vec<String>; 2],
    /// Block layout of θ.
    pub layout: Layout,
    /// The priors used.
    pub priors: MilPriors,
    /// Summaries of every parameter, in layout order.
    pub parameters: Vec<ParamSummary>,
    /// VB: covariance of each Gaussian factor (α, β, γ, a, b, c, d), as
    /// row lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covariances: Option<Vec<Vec<Vec<f64>>>>,
    /// VB mixture ([`super::VbOptions::mixture`]): the components, each a
    /// mean-field optimum with its Gaussian factors, weighted equally;
    /// `parameters` then summarise the mixture and `covariances` is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mixture: Option<Vec<VbComponent>>,
    /// VB: the covariance the factors hold, `linear-response` (the
    /// instance level corrected; Giordano, Broderick & Jordan 2015) or
    /// `mean-field` ([`super::VbOptions::covariance`]), so that a model
    /// file says which of its intervals are too narrow. Absent for Gibbs
    /// and in files written before 2026-11-28 (those are mean-field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covariance: Option<String>,
    /// VB with the linear-response covariance: modalities whose correction
    /// was not positive definite and kept their mean-field covariance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mean_field_kept: Vec<u8>,
    /// Gibbs: posterior draws of θ (at most [`MAX_STORED_DRAWS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<Vec<Vec<f64>>>,
    /// The z-score scaling applied to the training features before the fit
    /// (`--standardise`); new bags are scaled alike, and the coefficients
    /// are per training sd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<Scaling>,
    /// The principal-component projection applied to the training
    /// features before the fit (`--components`); new bags are projected
    /// alike, and the coefficients are per component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Components>,
    /// Training instances of modality 0 and 1: a modality the model never
    /// saw keeps its prior, which predictions for bags holding it should
    /// say. Absent in files written before 2026-11-30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_instances: Option<[usize; 2]>,
}

/// One component of a VB mixture: a mean-field optimum.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VbComponent {
    /// Its weight (equal for every component).
    pub weight: f64,
    /// Means of θ (layout order).
    pub mean: Vec<f64>,
    /// Covariance of each Gaussian factor (α, β, γ, a, b, c, d), as row
    /// lists.
    pub covariances: Vec<Vec<Vec<f64>>>,
    /// The optimum's ELBO.
    pub elbo: f64,
}

fn rows_of(blocks: &[DMatrix<f64>]) -> Vec<Vec<Vec<f64>>> {
    blocks
        .iter()
        .map(|b| {
            (0..b.nrows())
                .map(|r| b.row(r).iter().copied().collect())
                .collect()
        })
        .collect()
}

/// Whether `c` holds the seven factor covariances of `layout`, finite.
fn covariances_fit(c: &[Vec<Vec<f64>>], layout: &Layout) -> bool {
    let sizes = [1, layout.d0, layout.d1, 1, layout.d0, 1, layout.d1];
    c.len() == 7
        && c.iter().zip(sizes).all(|(b, d)| {
            b.len() == d
                && b.iter()
                    .all(|r| r.len() == d && r.iter().all(|v| v.is_finite()))
        })
}

/// A Gaussian `q` of θ by its means and factor covariances: draws, and
/// each instance's `E_q[Φ(ν̃_j)] = Φ(μ_ν/√(1 + s²_ν))`.
struct GaussianQ<'a> {
    mean: &'a [f64],
    cov: &'a [Vec<Vec<f64>>],
    factors: Vec<DMatrix<f64>>,
}

impl<'a> GaussianQ<'a> {
    fn new(mean: &'a [f64], cov: &'a [Vec<Vec<f64>>]) -> Result<GaussianQ<'a>> {
        let mut factors = Vec::new();
        for b in cov {
            let d = b.len();
            if d == 0 {
                factors.push(DMatrix::zeros(0, 0));
                continue;
            }
            let m = DMatrix::from_fn(d, d, |r, c| b[r][c]);
            let l = Cholesky::new(&m)
                .ok_or_else(|| {
                    Error::Numerical("a model covariance is not positive definite".into())
                })?
                .l();
            factors.push(l);
        }
        Ok(GaussianQ { mean, cov, factors })
    }

    fn draw(&self, lay: &Layout, rng: &mut impl rand::Rng) -> Vec<f64> {
        let starts = [
            lay.alpha(),
            lay.beta().start,
            lay.gamma().start,
            lay.a(),
            lay.b().start,
            lay.c(),
            lay.d().start,
        ];
        let mut t = self.mean.to_vec();
        for (l, &s) in self.factors.iter().zip(&starts) {
            let d = l.nrows();
            let z: Vec<f64> = (0..d).map(|_| StandardNormal.sample(rng)).collect();
            for r in 0..d {
                t[s + r] += (0..=r).map(|c| l[(r, c)] * z[c]).sum::<f64>();
            }
        }
        t
    }

    fn p_primary(&self, bags: &Bags, lay: &Layout, j: usize) -> f64 {
        let m = bags.modality[j];
        let x = bags.features(j);
        let (ia, is) = if m == 0 { (3, 4) } else { (5, 6) };
        let (_, nu) = predictors(bags, lay, self.mean, j);
        let vb = &self.cov[is];
        let mut s2 = self.cov[ia][0][0];
        for r in 0..x.len() {
            for c in 0..x.len() {
                s2 += x[r] * vb[r][c] * x[c];
            }
        }
        norm_cdf(nu / (1.0 + s2).sqrt())
    }
}

/// The `q`-quantile of an equal-weight mixture of normals `(mean, sd)`,
/// by bisection on its distribution function (a component of sd 0 is a
/// point mass).
fn mixture_quantile(parts: &[(f64, f64)], q: f64) -> f64 {
    let cdf = |x: f64| {
        parts
            .iter()
            .map(|&(m, s)| match s > 0.0 {
                true => norm_cdf((x - m) / s),
                false => f64::from(u8::from(x >= m)),
            })
            .sum::<f64>()
            / parts.len() as f64
    };
    let z = 40.0;
    let mut lo = parts
        .iter()
        .map(|&(m, s)| m - z * s)
        .fold(f64::INFINITY, f64::min);
    let mut hi = parts
        .iter()
        .map(|&(m, s)| m + z * s)
        .fold(f64::NEG_INFINITY, f64::max);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A bag's prediction.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BagPrediction {
    /// The bag's name.
    pub bag: String,
    /// Posterior predictive probability that the label is 1.
    pub p: f64,
    /// The dissertation's plug-in probability.
    pub p_plugin: f64,
    /// Its instances.
    pub instances: Vec<InstancePrediction>,
}

/// Every instance's `p_primary` from `pred` (predictions of `bags`), indexed
/// as the instances of `bags` are — the order of its per-instance vectors
/// such as [`Bags::primary`] — rather than by source row, the order in which
/// [`BagPrediction::instances`] lists them.
pub fn primary_by_instance(bags: &Bags, pred: &[BagPrediction]) -> Vec<f64> {
    let mut out = vec![f64::NAN; bags.n_instances()];
    let listed = pred.iter().flat_map(|b| &b.instances);
    for (j, i) in bags.output_order().zip(listed) {
        out[j] = i.p_primary;
    }
    out
}

/// An instance's prediction.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InstancePrediction {
    /// 0-based data row of the input file.
    pub row: usize,
    /// Modality.
    pub modality: u8,
    /// Posterior predictive probability of being primary.
    pub p_primary: f64,
}

fn summaries(
    layout: &Layout,
    names: &[Vec<String>; 2],
    mean: &[f64],
    sd: &[f64],
    q: &dyn Fn(usize) -> (f64, f64),
) -> Vec<ParamSummary> {
    (0..layout.len())
        .map(|k| {
            let (lower, upper) = q(k);
            ParamSummary {
                name: layout.name(k, names),
                mean: mean[k],
                sd: sd[k],
                lower,
                upper,
            }
        })
        .collect()
}

impl MilModel {
    /// A model of `engine` fitted on `bags` with these parameter summaries
    /// and nothing else yet (no covariances, mixture, draws, scaling or
    /// components): what every engine's model starts from.
    fn bare(
        engine: &str,
        bags: &Bags,
        layout: Layout,
        priors: MilPriors,
        parameters: Vec<ParamSummary>,
    ) -> MilModel {
        MilModel {
            format: MIL_MODEL_FORMAT.into(),
            engine: engine.into(),
            feature_names: bags.feature_names.clone(),
            layout,
            priors,
            parameters,
            covariances: None,
            mixture: None,
            covariance: None,
            mean_field_kept: Vec::new(),
            draws: None,
            scaling: None,
            components: None,
            training_instances: Some(bags.counts()),
        }
    }

    /// The model of a VB fit.
    pub fn from_vb(fit: &VbFit, bags: &Bags, priors: MilPriors) -> MilModel {
        let sd = fit.sd();
        let z = 1.644_853_626_951_472_2;
        let parameters = summaries(&fit.layout, &bags.feature_names, &fit.mean, &sd, &|k| {
            (fit.mean[k] - z * sd[k], fit.mean[k] + z * sd[k])
        });
        MilModel {
            covariances: Some(rows_of(&fit.blocks)),
            ..MilModel::bare("vb", bags, fit.layout, priors, parameters)
        }
    }

    /// The model of a VB mixture: every optimum of [`super::fit_vb_mixture`]
    /// with equal weight. The parameter summaries are the mixture's: its
    /// means, sds (within and between components) and 5% and 95%
    /// quantiles.
    pub fn from_vb_mixture(fits: &[VbFit], bags: &Bags, priors: MilPriors) -> MilModel {
        let k = fits.len() as f64;
        let layout = fits[0].layout;
        let sds: Vec<Vec<f64>> = fits.iter().map(VbFit::sd).collect();
        let parts = |p: usize| -> Vec<(f64, f64)> {
            fits.iter()
                .zip(&sds)
                .map(|(f, s)| (f.mean[p], s[p]))
                .collect()
        };
        let mean: Vec<f64> = (0..layout.len())
            .map(|p| fits.iter().map(|f| f.mean[p]).sum::<f64>() / k)
            .collect();
        let sd: Vec<f64> = (0..layout.len())
            .map(|p| {
                let second = parts(p).iter().map(|&(m, s)| s * s + m * m).sum::<f64>() / k;
                (second - mean[p] * mean[p]).max(0.0).sqrt()
            })
            .collect();
        let parameters = summaries(&layout, &bags.feature_names, &mean, &sd, &|p| {
            let parts = parts(p);
            (
                mixture_quantile(&parts, 0.05),
                mixture_quantile(&parts, 0.95),
            )
        });
        MilModel {
            mixture: Some(
                fits.iter()
                    .map(|f| VbComponent {
                        weight: 1.0 / k,
                        mean: f.mean.clone(),
                        covariances: rows_of(&f.blocks),
                        elbo: f.final_elbo(),
                    })
                    .collect(),
            ),
            ..MilModel::bare("vb", bags, layout, priors, parameters)
        }
    }

    /// The model of a Gibbs fit.
    pub fn from_gibbs(fit: &MilGibbsFit, bags: &Bags, priors: MilPriors) -> MilModel {
        let (mean, sd) = (fit.mean(), fit.sd());
        let parameters = summaries(&fit.layout, &bags.feature_names, &mean, &sd, &|k| {
            let mut c = fit.coordinate(k);
            crate::stats::central_interval(&mut c, 0.9)
        });
        let rows = fit.rows();
        let step = rows.len().div_ceil(MAX_STORED_DRAWS).max(1);
        MilModel {
            draws: Some(rows.into_iter().step_by(step).collect()),
            ..MilModel::bare("gibbs", bags, fit.layout, priors, parameters)
        }
    }

    /// Posterior means of θ.
    pub fn mean(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.mean).collect()
    }

    /// Whether a VB model's instance level is linear-response corrected in
    /// every modality (the rule of [`super::MilFitInfo::instance_level_corrected`],
    /// read from the file).
    pub fn instance_level_corrected(&self) -> bool {
        self.covariance.as_deref() == Some(super::VbCovariance::LinearResponse.name())
            && self.mean_field_kept.is_empty()
    }

    /// Parse a model file's text, checking it is complete and finite.
    pub fn from_json(path: &str, text: &str) -> Result<MilModel> {
        let m: MilModel = serde_json::from_str(text).map_err(|e| {
            // A file of another kind is named for what it is.
            use crate::io::model_file::{ModelFamily, other_family};
            if let Some(msg) = other_family(text, ModelFamily::MultipleInstance) {
                return Error::input(path, None, msg);
            }
            Error::input(
                path,
                Some(e.line()),
                format!(
                    "not a multiple-instance model file: {}",
                    crate::error::json_message(&e)
                ),
            )
        })?;
        m.validate(path)?;
        Ok(m)
    }

    /// The checks [`from_json`](Self::from_json) makes of a model read from
    /// outside (a file, a pickle): every array's length against the layout,
    /// every number finite, every sd positive. Errors name `path`.
    pub fn validate(&self, path: &str) -> Result<()> {
        let m = self;
        let bad = |msg: &str| Error::input(path, None, msg.to_string());
        if m.format != MIL_MODEL_FORMAT {
            return Err(bad(&format!(
                "format {:?}, expected {MIL_MODEL_FORMAT:?} (written by `plackett mil fit --out`)",
                m.format
            )));
        }
        if m.layout.d0 != m.feature_names[0].len() || m.layout.d1 != m.feature_names[1].len() {
            return Err(bad("layout does not match the feature names"));
        }
        if m.parameters.len() != m.layout.len()
            || m.parameters
                .iter()
                .any(|p| !(p.mean.is_finite() && p.sd.is_finite()))
        {
            return Err(bad("parameters missing or not finite"));
        }
        match (m.engine.as_str(), m.covariance.as_deref()) {
            ("vb", None | Some("mean-field" | "linear-response")) | ("gibbs", None) => {}
            (e, Some(c)) => {
                return Err(bad(&format!(
                    "covariance {c:?} for engine {e:?}: expected mean-field or linear-response, \
                     and only for vb"
                )));
            }
            _ => {}
        }
        if m.mean_field_kept.iter().any(|&k| k > 1)
            || (!m.mean_field_kept.is_empty() && m.covariance.as_deref() != Some("linear-response"))
        {
            return Err(bad(
                "mean_field_kept lists modalities 0 or 1, and only for a linear-response covariance",
            ));
        }
        match (m.engine.as_str(), &m.covariances, &m.mixture, &m.draws) {
            ("vb", Some(c), None, None) => {
                if !covariances_fit(c, &m.layout) {
                    return Err(bad("covariances have the wrong shape or are not finite"));
                }
            }
            ("vb", None, Some(parts), None) => {
                let total: f64 = parts.iter().map(|p| p.weight).sum();
                if parts.is_empty()
                    || (total - 1.0).abs() > 1e-9
                    || parts.iter().any(|p| {
                        !(p.weight.is_finite() && p.weight > 0.0)
                            || p.mean.len() != m.layout.len()
                            || p.mean.iter().any(|v| !v.is_finite())
                            || !covariances_fit(&p.covariances, &m.layout)
                    })
                {
                    return Err(bad(
                        "mixture components need positive weights summing to 1, finite means \
                         of the layout's length and covariances of the right shape",
                    ));
                }
            }
            ("gibbs", None, None, Some(d)) => {
                if d.is_empty()
                    || d.iter()
                        .any(|r| r.len() != m.layout.len() || r.iter().any(|v| !v.is_finite()))
                {
                    return Err(bad("draws have the wrong length or are not finite"));
                }
            }
            _ => {
                return Err(bad(
                    "engine must be vb (with covariances or a mixture) or gibbs (with draws)",
                ));
            }
        }
        if let Some(sc) = &m.scaling {
            let fits = (0..2).all(|k| {
                let d = [m.layout.d0, m.layout.d1][k];
                sc.mean[k].len() == d
                    && sc.sd[k].len() == d
                    && sc.mean[k].iter().all(|v| v.is_finite())
                    && sc.sd[k].iter().all(|v| v.is_finite() && *v > 0.0)
            });
            if !fits {
                return Err(bad(
                    "scaling needs a finite mean and a positive sd per feature of each modality",
                ));
            }
        }
        if m.parameters.iter().any(|p| p.sd < 0.0) {
            return Err(bad("a parameter's sd is negative"));
        }
        Ok(())
    }

    /// VB's Gaussian `q`s with their weights: the one of a plain fit (its
    /// means are `mean`, [`MilModel::mean`]) or every component of a
    /// mixture; none for Gibbs. Factorised once per prediction, for the
    /// draws and the instances' closed forms alike.
    fn gaussians<'a>(&'a self, mean: &'a [f64]) -> Result<Vec<(f64, GaussianQ<'a>)>> {
        match (&self.covariances, &self.mixture) {
            (Some(cov), _) => Ok(vec![(1.0, GaussianQ::new(mean, cov)?)]),
            (None, Some(parts)) => parts
                .iter()
                .map(|p| Ok((p.weight, GaussianQ::new(&p.mean, &p.covariances)?)))
                .collect(),
            (None, None) => Ok(Vec::new()),
        }
    }

    /// `n` parameter draws: from VB's Gaussian `qs` (a mixture's equal
    /// weights split the draws evenly over its components, in component
    /// order) or the stored posterior draws, spread evenly over them
    /// (Gibbs: `n` below the stored count takes every `len/n`-th, above it
    /// repeats each about `n/len` times). The stored draws run chain after
    /// chain, so taking the first `n` — as this did before 2026-11-27 —
    /// read only the first chains, and where unmixed chains sit in
    /// different configurations that biased the predictions (held-out bag
    /// AUROC 0.920 from the first two of four chains against 0.926 from all
    /// four on one basic-setting data set; docs/mil.md).
    fn parameter_draws(&self, qs: &[(f64, GaussianQ)], n: usize, seed: u64) -> Vec<Vec<f64>> {
        if let Some(d) = &self.draws {
            return (0..n).map(|s| d[s * d.len() / n].clone()).collect();
        }
        let mut rng = stream(seed, &[0x4d49_4c50]);
        (0..n)
            .map(|s| qs[s * qs.len() / n].1.draw(&self.layout, &mut rng))
            .collect()
    }

    /// Check that `bags` has this model's features.
    pub fn check_bags(&self, bags: &Bags, path: &str) -> Result<()> {
        // A projected model reads the features it was projected from.
        let names = match &self.components {
            Some(c) => &c.input_names,
            None => &self.feature_names,
        };
        for m in 0..2 {
            // New bags may lack a modality altogether (text-only reviews
            // for a text-and-image model); what they have must match.
            let absent = bags.feature_names[m].is_empty() && !bags.modality.contains(&(m as u8));
            if !absent && bags.feature_names[m] != names[m] {
                return Err(Error::input(
                    path,
                    Some(1),
                    format!(
                        "modality {m} features {:?} differ from the model's {:?}",
                        crate::io::output::short_name(&bags.feature_names[m].join(","), 120),
                        crate::io::output::short_name(&names[m].join(","), 120)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Predict every bag of `bags` (labels ignored) with `draws` Monte
    /// Carlo draws per bag.
    pub fn predict(&self, bags: &Bags, draws: usize, seed: u64) -> Result<Vec<BagPrediction>> {
        if draws == 0 || draws > 1_000_000 {
            return Err(Error::param("draws", "between 1 and 1,000,000"));
        }
        let scaled;
        let bags = match (&self.scaling, &self.components) {
            (_, Some(c)) => {
                scaled = c.apply(bags)?;
                &scaled
            }
            (Some(s), None) => {
                scaled = bags.scaled(s)?;
                &scaled
            }
            (None, None) => bags,
        };
        let lay = self.layout;
        let mean = self.mean();
        let qs = self.gaussians(&mean)?;
        let thetas = self.parameter_draws(&qs, draws, seed);
        let slopes = DrawSlopes::of(&lay, &thetas);
        // Both passes run in parallel; every bag draws from its own stream
        // (seed, bag index), so the output does not depend on the threads.
        let p_primary: Vec<f64> = (0..bags.n_instances())
            .into_par_iter()
            .with_min_len(4096)
            .map(|j| match qs.is_empty() {
                false => qs
                    .iter()
                    .map(|(w, q)| w * q.p_primary(bags, &lay, j))
                    .sum::<f64>(),
                true => {
                    thetas
                        .iter()
                        .map(|t| norm_cdf(predictors(bags, &lay, t, j).1))
                        .sum::<f64>()
                        / thetas.len() as f64
                }
            })
            .collect();
        let out = bags
            .bags
            .par_iter()
            .with_min_len(64)
            .enumerate()
            .map(|(i, b)| {
                let mut rng = stream(seed, &[0x4d49_4c42, i as u64]);
                let acc = draws_of_bag(bags, &lay, &thetas, &slopes, b, &mut rng);
                let mut plug = mean[lay.alpha()];
                for j in b.start..b.end {
                    let (eta, nu) = predictors(bags, &lay, &mean, j);
                    plug += norm_cdf(nu) * eta;
                }
                BagPrediction {
                    bag: b.name.clone(),
                    p: acc / thetas.len() as f64,
                    p_plugin: norm_cdf(plug),
                    instances: bags
                        .in_row_order(b)
                        .into_iter()
                        .map(|j| InstancePrediction {
                            row: bags.row[j],
                            modality: bags.modality[j],
                            p_primary: p_primary[j],
                        })
                        .collect(),
                }
            })
            .collect::<Vec<BagPrediction>>();
        // A model file is a trust boundary: numbers that pass its checks
        // can still be beyond what the model evaluates (means of 1e308).
        if let Some(b) = out.iter().find(|b| {
            !(b.p.is_finite() && b.p_plugin.is_finite())
                || b.instances.iter().any(|i| !i.p_primary.is_finite())
        }) {
            return Err(Error::Numerical(format!(
                "the model gives bag {:?} no finite probability: its coefficients are beyond \
                 what the model can evaluate (a damaged or edited model file?)",
                crate::error::show_name(&b.bag)
            )));
        }
        Ok(out)
    }
}

/// Draws per block of the Monte Carlo predictions: a bag's `η` and `ν`
/// under a block of draws are computed together, the draws in SIMD lanes
/// (fewer for bags of more than [`BLOCK_VALUES`] / 128 instances, so that
/// the buffers stay small; the blocks change no number).
const DRAW_BLOCK: usize = 128;

/// Most values of `η` (and of `ν`) a bag's block holds.
const BLOCK_VALUES: usize = 1 << 16;

/// Every parameter draw's slopes per modality, feature by feature: entry
/// `k·T + t` is draw `t`'s slope of feature `k`, for the bag-level slopes
/// (β, γ) and the instance-level ones (b, d), so that a bag's `η` and `ν`
/// under a block of draws are sums of contiguous rows.
struct DrawSlopes {
    draws: usize,
    bag: [Vec<f64>; 2],
    inst: [Vec<f64>; 2],
}

impl DrawSlopes {
    fn of(lay: &Layout, thetas: &[Vec<f64>]) -> DrawSlopes {
        let rows = |r: std::ops::Range<usize>| -> Vec<f64> {
            r.flat_map(|k| thetas.iter().map(move |t| t[k])).collect()
        };
        DrawSlopes {
            draws: thetas.len(),
            bag: [rows(lay.bag_slopes(0)), rows(lay.bag_slopes(1))],
            inst: [rows(lay.inst_slopes(0)), rows(lay.inst_slopes(1))],
        }
    }

    /// `out[s] = Σ_k x_k · slope_k(t0 + s)`, added in feature order from
    /// −0.0 — bit for bit the sums of [`predictors`].
    fn dots(&self, rows: &[f64], x: &[f64], t0: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = -0.0);
        for (k, &xk) in x.iter().enumerate() {
            let row = &rows[k * self.draws + t0..][..out.len()];
            for (o, &c) in out.iter_mut().zip(row) {
                *o += xk * c;
            }
        }
    }
}

/// `Σ_t Φ(α_t + Σ_j δ̃_jt η_jt)` over the draws `thetas` for bag `b`, each
/// `δ̃_jt ~ Bernoulli(Φ(ν_jt))` drawn from `rng` in draw order, then
/// instance order; `η` and `ν` are those of [`predictors`], computed for
/// blocks of up to [`DRAW_BLOCK`] draws at once.
fn draws_of_bag(
    bags: &Bags,
    lay: &Layout,
    thetas: &[Vec<f64>],
    slopes: &DrawSlopes,
    b: &super::bags::Bag,
    rng: &mut crate::sampling::rng::Rng,
) -> f64 {
    let phi = phi_table();
    let mut acc = 0.0;
    let per = (BLOCK_VALUES / b.len()).clamp(1, DRAW_BLOCK);
    // Instance q's η and ν under draw s of the block at q·per + s.
    let mut eta = vec![0.0; b.len() * per];
    let mut nu = vec![0.0; b.len() * per];
    for t0 in (0..thetas.len()).step_by(per) {
        let block = &thetas[t0..(t0 + per).min(thetas.len())];
        let nb = block.len();
        for (q, j) in (b.start..b.end).enumerate() {
            let m = bags.modality[j];
            let x = bags.features(j);
            let e = &mut eta[q * per..][..nb];
            slopes.dots(&slopes.bag[m as usize], x, t0, e);
            let v = &mut nu[q * per..][..nb];
            slopes.dots(&slopes.inst[m as usize], x, t0, v);
            let c = lay.inst_intercept(m);
            // `intercept + dot`, as `predictors` adds them (the sum of
            // two numbers does not depend on their order).
            for (v, t) in v.iter_mut().zip(block) {
                *v += t[c];
            }
        }
        for (s, t) in block.iter().enumerate() {
            let mut lin = t[lay.alpha()];
            for q in 0..b.len() {
                let at = q * per + s;
                // Adding 0 for a non-primary instance leaves `lin` as it
                // was (up to the sign of a zero, which Φ does not see).
                let on = phi.lt(rng.random::<f64>(), nu[at]);
                lin += if on { eta[at] } else { 0.0 };
            }
            acc += norm_cdf(lin);
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mil::{MilDesign, MilEngine, fit_model, simulate_bags};

    /// The blocked Monte Carlo sum is bit for bit the plain loop over draws
    /// and instances with [`predictors`] and `u < Φ(ν)`, for bags small
    /// enough for full blocks and large enough for shorter ones, with a
    /// partial last block.
    #[test]
    fn blocked_bag_draws_equal_the_plain_loop() {
        let design = |bags, instances| MilDesign {
            bags,
            instances,
            features: 3,
            ..MilDesign::default()
        };
        let train = simulate_bags(&design(60, 5), 1).unwrap();
        let (model, _) = fit_model(&train, &MilEngine::Vb(Default::default())).unwrap();
        let lay = model.layout;
        let mean = model.mean();
        let qs = model.gaussians(&mean).unwrap();
        let thetas = model.parameter_draws(&qs, 300, 9);
        let slopes = DrawSlopes::of(&lay, &thetas);
        for instances in [7, 1500] {
            let bags = simulate_bags(&design(3, instances), 2).unwrap();
            for (i, b) in bags.bags.iter().enumerate() {
                let mut rng = stream(4, &[i as u64]);
                let blocked = draws_of_bag(&bags, &lay, &thetas, &slopes, b, &mut rng);
                let mut rng = stream(4, &[i as u64]);
                let mut plain = 0.0;
                for t in &thetas {
                    let mut lin = t[lay.alpha()];
                    for j in b.start..b.end {
                        let (eta, nu) = predictors(&bags, &lay, t, j);
                        if rng.random::<f64>() < norm_cdf(nu) {
                            lin += eta;
                        }
                    }
                    plain += norm_cdf(lin);
                }
                assert_eq!(blocked.to_bits(), plain.to_bits(), "{instances} instances");
            }
        }
    }

    #[test]
    fn mixture_quantiles_of_normals_and_point_masses() {
        // One standard normal: its own quantiles.
        assert!((mixture_quantile(&[(0.0, 1.0)], 0.95) - 1.644_853_626_951_472_2).abs() < 1e-9);
        // Two far-apart components: the 25% quantile is the lower one's median.
        let q = mixture_quantile(&[(-100.0, 1.0), (100.0, 1.0)], 0.25);
        assert!((q + 100.0).abs() < 1e-9, "{q}");
        // A point mass at 2 and N(0, 1): the 75% quantile sits on the mass.
        let q = mixture_quantile(&[(2.0, 0.0), (0.0, 1.0)], 0.75);
        assert!((q - 2.0).abs() < 1e-9, "{q}");
    }
}
