//! Data for the PL regression classifier: a CSV of numeric features and a
//! class column, standardisation and the feature transforms of Archambeau & Caron 2012 §2.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A parsed table: feature columns and (optionally) class labels.
#[derive(Debug, Clone)]
pub struct Table {
    /// Feature column names, in file order.
    pub features: Vec<String>,
    /// Rows of feature values.
    pub x: Vec<Vec<f64>>,
    /// Class label per row (when the class column is present).
    pub labels: Option<Vec<String>>,
    /// 1-based file line of each row (for messages).
    pub lines: Vec<usize>,
}

impl Table {
    /// This table with its feature columns in the order `names` (a model's),
    /// matched by name: a table whose columns are the model's in another
    /// order is reordered; a missing or an extra column is an error naming
    /// it.
    pub fn aligned_to(&self, path: &str, names: &[String]) -> Result<std::borrow::Cow<'_, Table>> {
        if self.features == names {
            return Ok(std::borrow::Cow::Borrowed(self));
        }
        let missing: Vec<&String> = names
            .iter()
            .filter(|n| !self.features.contains(n))
            .collect();
        let extra: Vec<&String> = self
            .features
            .iter()
            .filter(|n| !names.contains(n))
            .collect();
        if !missing.is_empty() || !extra.is_empty() || self.features.len() != names.len() {
            return Err(Error::input(
                path,
                Some(1),
                format!(
                    "feature columns {:?} differ from the model's {:?} (missing: {missing:?}; not in the model: {extra:?})",
                    self.features, names
                ),
            ));
        }
        let idx: Vec<usize> = names
            .iter()
            .map(|n| self.features.iter().position(|f| f == n).expect("checked"))
            .collect();
        Ok(std::borrow::Cow::Owned(Table {
            features: names.to_vec(),
            x: self
                .x
                .iter()
                .map(|r| idx.iter().map(|&j| r[j]).collect())
                .collect(),
            labels: self.labels.clone(),
            lines: self.lines.clone(),
        }))
    }
}

/// Read a CSV with a header. `class_col` names the class column; when
/// `require_class` is false a missing class column is allowed (prediction).
/// Every other column must be numeric and finite.
pub fn read_table(path: &str, text: &str, class_col: &str, require_class: bool) -> Result<Table> {
    let (mut rdr, headers) = crate::io::csv_with_headers(path, text)?;
    if headers.is_empty() || headers.iter().all(|h| h.is_empty()) {
        return Err(Error::input(
            path,
            Some(1),
            "empty file: expected a header row",
        ));
    }
    if let Some(d) = headers
        .iter()
        .enumerate()
        .find(|(k, h)| headers[..*k].contains(h))
    {
        return Err(Error::input(
            path,
            Some(1),
            format!("duplicate column {:?}", d.1),
        ));
    }
    let class_idx = headers.iter().position(|h| h == class_col);
    if class_idx.is_none() && require_class {
        return Err(Error::input(
            path,
            Some(1),
            format!(
                "no class column {class_col:?} (columns: {}); set `class_col`",
                headers.join(", ")
            ),
        ));
    }
    let feat_idx: Vec<usize> = (0..headers.len())
        .filter(|&k| Some(k) != class_idx)
        .collect();
    if feat_idx.is_empty() {
        return Err(Error::input(
            path,
            Some(1),
            "no feature columns besides the class column",
        ));
    }
    let features: Vec<String> = feat_idx.iter().map(|&k| headers[k].clone()).collect();
    let mut x = Vec::new();
    let mut labels = class_idx.map(|_| Vec::new());
    let mut lines = Vec::new();
    let mut rec = csv::StringRecord::new();
    while let Some(line) = crate::io::next_record(&mut rdr, &mut rec, path)? {
        if rec.iter().all(|f| f.is_empty()) {
            continue;
        }
        let mut row = Vec::with_capacity(feat_idx.len());
        for (&k, name) in feat_idx.iter().zip(&features) {
            let s = rec.get(k).unwrap_or("");
            let v = crate::io::finite_feature(path, line, s, &format!("column {name:?}"))?;
            row.push(v);
        }
        if let (Some(ci), Some(l)) = (class_idx, labels.as_mut()) {
            let c = rec.get(ci).unwrap_or("");
            if c.is_empty() {
                return Err(Error::input(
                    path,
                    Some(line),
                    format!("empty class in column {class_col:?}"),
                ));
            }
            l.push(c.to_string());
        }
        x.push(row);
        lines.push(line);
    }
    if x.is_empty() {
        return Err(Error::input(path, None, "no data rows"));
    }
    Ok(Table {
        features,
        x,
        labels,
        lines,
    })
}

/// Standardisation and transforms, fitted on training data and stored in
/// the model so that new rows get exactly the same treatment.
///
/// Each feature is standardised (`(x − mean)/sd`, training statistics)
/// before the transforms, so that `exp(±x)` works on a common scale; the
/// paper does not say how its features were scaled (docs/classify.md).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Preprocess {
    /// Feature names.
    pub features: Vec<String>,
    /// Training means.
    pub mean: Vec<f64>,
    /// Training standard deviations.
    pub sd: Vec<f64>,
    /// Whether the pairwise transforms `exp(±(x_a + x_b))` are added.
    pub pairwise: bool,
}

/// Largest |log W| accepted (exp(700) is near the top of f64).
const MAX_LOG_W: f64 = 700.0;

impl Preprocess {
    /// Fit on training rows. Constant columns are refused (their
    /// standardised value is undefined and they carry no information).
    pub fn fit(
        path: &str,
        features: &[String],
        x: &[Vec<f64>],
        pairwise: bool,
    ) -> Result<Preprocess> {
        let d = features.len();
        let n = x.len() as f64;
        let mut mean = vec![0.0; d];
        let mut sd = vec![0.0; d];
        for j in 0..d {
            mean[j] = x.iter().map(|r| r[j]).sum::<f64>() / n;
            sd[j] = (x.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / (n - 1.0).max(1.0))
                .sqrt();
            if sd[j].is_nan() || sd[j] <= 1e-12 * (1.0 + mean[j].abs()) {
                return Err(Error::input(
                    path,
                    None,
                    format!(
                        "feature {:?} is constant in the training rows; drop it",
                        features[j]
                    ),
                ));
            }
        }
        Ok(Preprocess {
            features: features.to_vec(),
            mean,
            sd,
            pairwise,
        })
    }

    /// Number of transformed features `p`.
    pub fn p(&self) -> usize {
        let d = self.features.len();
        2 * d
            + 1
            + if self.pairwise {
                d * d.saturating_sub(1)
            } else {
                0
            }
    }

    /// Names of the transformed features, in `W` order.
    pub fn names(&self) -> Vec<String> {
        let f = &self.features;
        let mut out: Vec<String> = f.iter().map(|n| format!("exp(+{n})")).collect();
        out.extend(f.iter().map(|n| format!("exp(-{n})")));
        out.push("offset".into());
        if self.pairwise {
            for a in 0..f.len() {
                for b in a + 1..f.len() {
                    out.push(format!("exp(+{}+{})", f[a], f[b]));
                    out.push(format!("exp(-{}-{})", f[a], f[b]));
                }
            }
        }
        out
    }

    /// `log W` of one raw row (`None` if a value is beyond exp's range).
    pub fn log_w(&self, row: &[f64]) -> Option<Vec<f64>> {
        let z: Vec<f64> = row
            .iter()
            .zip(&self.mean)
            .zip(&self.sd)
            .map(|((v, m), s)| (v - m) / s)
            .collect();
        let mut out: Vec<f64> = z.clone();
        out.extend(z.iter().map(|v| -v));
        out.push(0.0);
        if self.pairwise {
            for a in 0..z.len() {
                for b in a + 1..z.len() {
                    out.push(z[a] + z[b]);
                    out.push(-(z[a] + z[b]));
                }
            }
        }
        out.iter().all(|v| v.abs() <= MAX_LOG_W).then_some(out)
    }

    /// Transformed matrix `W` (row-major `n × p`) of raw rows.
    pub fn transform(&self, path: &str, t: &Table, rows: &[usize]) -> Result<Vec<f64>> {
        if t.features != self.features {
            return Err(Error::input(
                path,
                Some(1),
                format!(
                    "feature columns {:?} differ from the model's {:?}",
                    t.features, self.features
                ),
            ));
        }
        let mut w = Vec::with_capacity(rows.len() * self.p());
        for &r in rows {
            let lw = self.log_w(&t.x[r]).ok_or_else(|| {
                Error::input(
                    path,
                    Some(t.lines[r]),
                    "a feature lies more than 700 training sds from its mean",
                )
            })?;
            w.extend(lw.iter().map(|v| v.exp()));
        }
        Ok(w)
    }
}

/// Training data in the form the engines read.
#[derive(Debug, Clone)]
pub struct ClassData {
    /// `W`, row-major `n × p`.
    pub w: Vec<f64>,
    /// Rows.
    pub n: usize,
    /// Transformed features.
    pub p: usize,
    /// Class index per row.
    pub y: Vec<usize>,
    /// Number of classes.
    pub k: usize,
}

impl ClassData {
    /// Row `i` of `W`.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.w[i * self.p..(i + 1) * self.p]
    }

    /// Class counts.
    pub fn counts(&self) -> Vec<usize> {
        let mut c = vec![0; self.k];
        for &y in &self.y {
            c[y] += 1;
        }
        c
    }
}

/// Class names in order of first appearance, and the index of every label.
pub fn encode_classes(labels: &[String]) -> (Vec<String>, Vec<usize>) {
    let mut classes: Vec<String> = Vec::new();
    let y = labels
        .iter()
        .map(|l| match classes.iter().position(|c| c == l) {
            Some(k) => k,
            None => {
                classes.push(l.clone());
                classes.len() - 1
            }
        })
        .collect();
    (classes, y)
}

/// Build training data from a table and a row subset: fit the
/// preprocessing on those rows, transform them, encode labels against
/// `classes`.
pub fn training_data(
    path: &str,
    t: &Table,
    rows: &[usize],
    classes: &[String],
    pairwise: bool,
) -> Result<(Preprocess, ClassData)> {
    let labels = t
        .labels
        .as_ref()
        .ok_or_else(|| Error::input(path, Some(1), "no class column"))?;
    let xs: Vec<Vec<f64>> = rows.iter().map(|&r| t.x[r].clone()).collect();
    let pre = Preprocess::fit(path, &t.features, &xs, pairwise)?;
    let w = pre.transform(path, t, rows)?;
    let y: Vec<usize> = rows
        .iter()
        .map(|&r| {
            classes
                .iter()
                .position(|c| *c == labels[r])
                .expect("classes cover the labels")
        })
        .collect();
    Ok((
        pre.clone(),
        ClassData {
            n: rows.len(),
            p: pre.p(),
            w,
            y,
            k: classes.len(),
        },
    ))
}
