//! Per-item summaries shared by all engines.

use serde::{Deserialize, Serialize};

/// How log-worths are pinned down for reporting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Gauge {
    /// Mean log-worth over the reported items is 0.
    MeanCentred,
    /// Log-worth of this item is 0.
    Reference(u32),
}

/// Per-item output row (keys follow the CLI contract).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ItemSummary {
    /// Item name.
    pub name: String,
    /// Normalised worth (sums to 1 over reported items); posterior mean for
    /// Bayesian engines.
    #[serde(with = "crate::io::float_serde::f64")]
    pub worth: f64,
    /// Posterior sd of the normalised worth (Bayesian engines).
    pub worth_sd: Option<f64>,
    /// Log-worth in the gauge; posterior mean for Bayesian engines.
    #[serde(with = "crate::io::float_serde::f64")]
    pub log_worth: f64,
    /// Standard error from the observed information (mle, map).
    pub log_worth_se: Option<f64>,
    /// Posterior sd of the log-worth (Bayesian engines).
    pub log_worth_sd: Option<f64>,
    /// 95% interval for the log-worth.
    pub ci_low: Option<f64>,
    /// Upper end of the 95% interval.
    pub ci_high: Option<f64>,
}

/// Summaries of every reported item, in item-id order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    /// Rows.
    pub items: Vec<ItemSummary>,
    /// Gauge of `log_worth`.
    pub gauge: Gauge,
}

/// 97.5% standard-normal quantile.
pub const Z975: f64 = 1.959_963_984_540_054;

impl Summary {
    /// Summary of a point estimate with an optional covariance of θ (in any
    /// gauge whose contrasts are right, e.g. the pseudo-inverse).
    pub fn from_point(
        names: &[String],
        theta: &[f64],
        cov: Option<&nalgebra::DMatrix<f64>>,
        gauge: Gauge,
    ) -> Summary {
        let se: Option<Vec<f64>> = cov.map(|v| Summary::gauge_sds(v, &gauge));
        Summary::from_point_se(names, theta, se, gauge)
    }

    /// The sds of the log-worths in `gauge` from any covariance of θ whose
    /// contrasts are right (e.g. a pseudo-inverse, or one already in some
    /// gauge): `Var(θ_i − mean θ)` or `Var(θ_i − θ_r)`.
    pub fn gauge_sds(v: &nalgebra::DMatrix<f64>, gauge: &Gauge) -> Vec<f64> {
        let k = v.nrows();
        match gauge {
            Gauge::MeanCentred => {
                let rowmean: Vec<f64> = (0..k)
                    .map(|i| (0..k).map(|j| v[(i, j)]).sum::<f64>() / k as f64)
                    .collect();
                let grand = rowmean.iter().sum::<f64>() / k as f64;
                (0..k)
                    .map(|i| (v[(i, i)] - 2.0 * rowmean[i] + grand).max(0.0).sqrt())
                    .collect()
            }
            Gauge::Reference(r) => {
                let r = *r as usize;
                (0..k)
                    .map(|i| (v[(i, i)] + v[(r, r)] - 2.0 * v[(i, r)]).max(0.0).sqrt())
                    .collect()
            }
        }
    }

    /// Summary of a point estimate with standard errors already in `gauge`
    /// (e.g. from `infer::newton::standard_errors`).
    pub fn from_point_se(
        names: &[String],
        theta: &[f64],
        se: Option<Vec<f64>>,
        gauge: Gauge,
    ) -> Summary {
        let k = theta.len();
        let shift = match gauge {
            Gauge::MeanCentred => theta.iter().sum::<f64>() / k as f64,
            Gauge::Reference(r) => theta[r as usize],
        };
        let m = theta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = theta.iter().map(|t| (t - m).exp()).sum();
        let items = (0..k)
            .map(|i| {
                let lw = theta[i] - shift;
                let s = se.as_ref().map(|s| s[i]);
                ItemSummary {
                    name: names[i].clone(),
                    worth: (theta[i] - m).exp() / z,
                    worth_sd: None,
                    log_worth: lw,
                    log_worth_se: s,
                    log_worth_sd: None,
                    ci_low: s.map(|s| lw - Z975 * s),
                    ci_high: s.map(|s| lw + Z975 * s),
                }
            })
            .collect();
        Summary { items, gauge }
    }
}
