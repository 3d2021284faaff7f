//! Item features for PL regression (`log λ_i = x_iᵀβ`, Guo et al. 2019 §4).
//!
//! The features CSV has one row per item: the first column names the item
//! (header `item`, or any first column), the others are numeric features.
//! Every item of the dataset needs a row; extra rows describe items that
//! were never compared (they can still be predicted).
//!
//! PL is invariant to adding a constant to every log-worth, so an intercept
//! (or any feature constant across the compared items) is not identifiable
//! and is refused; collinear features are refused too, with the columns
//! named. Standardisation centres and scales each column; coefficients are
//! always reported on the original scale (centring does not change any
//! log-worth difference, scaling divides each coefficient by its column's
//! sd). The CSV reader is [`crate::io::features`].

use crate::error::{Error, Result};
use crate::numerics::linalg;
use nalgebra::DMatrix;

/// Feature matrix aligned with an item universe.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Features {
    /// Feature names.
    pub names: Vec<String>,
    /// `n_items × d`, row i = item i of the dataset (standardised if asked).
    pub x: DMatrix<f64>,
    /// Per-column centre subtracted (0 if not standardised).
    pub centre: Vec<f64>,
    /// Per-column scale divided by (1 if not standardised).
    pub scale: Vec<f64>,
    /// Rows for items that are not in the dataset: (name, raw features).
    pub extra: Vec<(String, Vec<f64>)>,
    /// Directions of β the data cannot see (collinear columns, or more
    /// columns than items − 1); 0 when every coefficient is identifiable.
    /// Only a prior (MAP, VB) pins those directions down.
    pub rank_deficit: usize,
}

impl Features {
    /// Number of features.
    pub fn d(&self) -> usize {
        self.names.len()
    }

    /// Coefficients on the original scale from coefficients on the working
    /// scale: `β_orig = β / scale`.
    pub fn to_original(&self, beta: &[f64]) -> Vec<f64> {
        beta.iter().zip(&self.scale).map(|(b, s)| b / s).collect()
    }

    /// Covariance on the original scale.
    pub fn cov_to_original(&self, cov: &DMatrix<f64>) -> DMatrix<f64> {
        let d = self.d();
        DMatrix::from_fn(d, d, |i, j| cov[(i, j)] / (self.scale[i] * self.scale[j]))
    }

    /// Working-scale row for raw features.
    pub fn transform(&self, raw: &[f64]) -> Vec<f64> {
        raw.iter()
            .enumerate()
            .map(|(j, v)| (v - self.centre[j]) / self.scale[j])
            .collect()
    }
}

/// Refuse collinear features: the centred Gram matrix must be well
/// conditioned; otherwise name a set of columns that are (nearly) linearly
/// dependent.
pub(crate) fn check_rank(
    x: &DMatrix<f64>,
    names: &[String],
    path: &str,
    strict: bool,
) -> Result<usize> {
    let (n, d) = x.shape();
    if d >= n && strict {
        return Err(Error::input(
            path,
            None,
            format!(
                "{d} features for {n} items: at most {} features are identifiable (log-worths are defined up to a constant)",
                n.saturating_sub(1)
            ),
        ));
    }
    let mut c = x.clone();
    for j in 0..d {
        let m = c.column(j).mean();
        let sd = (c.column(j).iter().map(|v| (v - m).powi(2)).sum::<f64>()).sqrt();
        for i in 0..n {
            c[(i, j)] = (c[(i, j)] - m) / sd;
        }
    }
    let g = c.transpose() * &c;
    let eig = linalg::symmetric_eigen(&g).ok_or_else(|| {
        Error::Numerical("eigendecomposition of the feature Gram matrix failed".into())
    })?;
    if !strict {
        let top = eig.eigenvalues.iter().copied().fold(0.0f64, f64::max);
        return Ok(eig
            .eigenvalues
            .iter()
            .filter(|&&l| l < 1e-10 * top.max(1.0))
            .count());
    }
    let (kmin, &lmin) = eig
        .eigenvalues
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .expect("d ≥ 1");
    if lmin < 1e-10 {
        let v = eig.eigenvectors.column(kmin);
        let mut involved: Vec<(usize, f64)> = (0..d)
            .map(|j| (j, v[j].abs()))
            .filter(|x| x.1 > 1e-3)
            .collect();
        involved.sort_by(|a, b| b.1.total_cmp(&a.1));
        let cols: Vec<&str> = involved.iter().map(|(j, _)| names[*j].as_str()).collect();
        return Err(Error::input(
            path,
            None,
            format!(
                "features are collinear (after centring): {}; drop one of them",
                cols.join(", ")
            ),
        ));
    }
    Ok(0)
}
