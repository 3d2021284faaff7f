//! Bags of instances from up to two modalities (Hu 2024, §2.2): the one
//! data representation of every multiple-instance engine (vMMIC's VB, its
//! Gibbs gold standard, the baselines), with its two readers (a long CSV
//! and a JSON form) and the CSV writer of `mil simulate`.
//!
//! Long CSV (fixed by the CLI contract): columns `bag,label,modality`, the
//! modality-0 features `m0_…`, the modality-1 features `m1_…` (a row fills
//! its own modality's columns and leaves the other's empty), optionally
//! `primary` (the simulated truth of δ). `label` is 0, 1 or empty (a bag to
//! predict); all rows of a bag carry the same label. Rows of one bag need
//! not be adjacent; bags keep the order of their first row. Within a bag
//! the instances are held in a canonical order (modality, then content), so
//! every engine's result is the same however the file orders a bag's rows;
//! outputs list instances by source row.

use crate::error::{Error, Result};
use crate::io::json_value::{JValue, Spanned, parse};
use crate::io::output::csv_field;
use std::collections::HashMap;

/// One bag: a name, a label (`None`: to be predicted) and its instances
/// `start..end` in the instance arrays of [`Bags`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bag {
    /// The bag's name as given in the file.
    pub name: String,
    /// Its label, if known.
    pub label: Option<bool>,
    /// First instance.
    pub start: usize,
    /// One past the last instance.
    pub end: usize,
}

impl Bag {
    /// Instances in the bag.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the bag has no instances (never true of a read bag).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Bags of instances: ragged, each instance of modality 0 (features
/// `x_ij ∈ ℝ^{d⁰}`) or modality 1 (`z_ij ∈ ℝ^{d¹}`); a unimodal data set
/// has `d¹ = 0` and no modality-1 instances (ordinary multiple-instance
/// learning).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bags {
    /// The bags, in file order.
    pub bags: Vec<Bag>,
    /// Feature names of each modality (`d⁰`, `d¹` are their lengths).
    pub feature_names: [Vec<String>; 2],
    /// Per instance: its modality, 0 or 1.
    pub modality: Vec<u8>,
    /// Per instance: its 0-based data row in the source file (header not
    /// counted; JSON: the instance's position over all bags).
    pub row: Vec<usize>,
    /// Per instance: the true primary indicator δ, if the file has one.
    pub primary: Option<Vec<bool>>,
    /// Per instance: the start of its features in its modality's block of
    /// `features` (its modality's width long).
    offset: Vec<usize>,
    /// Each modality's features, instance after instance in instance
    /// order: the instances of a modality in any run of bags are one
    /// contiguous column-major block (dense kernels read it in place).
    features: [Vec<f64>; 2],
}

/// Per-feature centring and scaling of each modality (z-scores computed on
/// training bags, applied to new bags alike).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scaling {
    /// Means of modality 0's and modality 1's features.
    pub mean: [Vec<f64>; 2],
    /// Sds (1 for a constant feature, which then only loses its mean).
    pub sd: [Vec<f64>; 2],
}

/// Most feature columns per modality the readers accept (memory guard).
pub const MAX_WIDTH: usize = 100_000;

impl Bags {
    /// An empty collection for features of widths `d⁰`, `d¹`.
    pub fn new(feature_names: [Vec<String>; 2]) -> Bags {
        Bags {
            bags: Vec::new(),
            feature_names,
            modality: Vec::new(),
            row: Vec::new(),
            primary: None,
            offset: Vec::new(),
            features: [Vec::new(), Vec::new()],
        }
    }

    /// Feature width of modality `k`.
    pub fn width(&self, k: u8) -> usize {
        self.feature_names[k as usize].len()
    }

    /// Number of bags.
    pub fn n_bags(&self) -> usize {
        self.bags.len()
    }

    /// Number of instances.
    pub fn n_instances(&self) -> usize {
        self.modality.len()
    }

    /// The z-score scaling of this collection's features.
    pub fn scaling(&self) -> Scaling {
        let Scaling { mean, mut sd } = self.moments();
        for m in 0..2 {
            for (s, a) in sd[m].iter_mut().zip(&mean[m]) {
                // Constant (up to rounding) features keep their scale.
                if !s.is_finite() || *s <= 1e-12 * (1.0 + a.abs()) {
                    *s = 1.0;
                }
            }
        }
        Scaling { mean, sd }
    }

    /// Each feature's mean and sample sd over the instances of its
    /// modality, as they are (a constant feature has sd 0).
    fn moments(&self) -> Scaling {
        let mut mean = [vec![0.0; self.width(0)], vec![0.0; self.width(1)]];
        let mut sd = [vec![0.0; self.width(0)], vec![0.0; self.width(1)]];
        let counts = self.counts();
        for j in 0..self.n_instances() {
            let m = self.modality[j] as usize;
            for (a, x) in mean[m].iter_mut().zip(self.features(j)) {
                *a += x / counts[m] as f64;
            }
        }
        for j in 0..self.n_instances() {
            let m = self.modality[j] as usize;
            for ((s, a), x) in sd[m].iter_mut().zip(&mean[m]).zip(self.features(j)) {
                *s += (x - a) * (x - a);
            }
        }
        for m in 0..2 {
            let n = counts[m].max(2) as f64 - 1.0;
            for s in sd[m].iter_mut() {
                *s = (*s / n).sqrt();
            }
        }
        Scaling { mean, sd }
    }

    /// Names (`m0_…`, `m1_…`) and sds of the features, other than the
    /// [constant ones](Self::constant_features), whose sd over their
    /// modality's instances lies outside `[low, high]`.
    ///
    /// The slope priors of Hu 2024 §2.2.1 (following Xiong et al. 2024,
    /// `N(0, 4)` by default) are written for features of unit scale: a
    /// feature with sd `s` gets a prior sd of `2s` on its share of the
    /// linear predictor, which shrinks a small-scale feature's effect
    /// towards nothing and leaves a large-scale one unregularised (and, at
    /// `s` around 10⁸, the sampler's regression precisions singular to
    /// working precision).
    pub fn off_scale_features(&self, low: f64, high: f64) -> Vec<(String, f64)> {
        let sd = self.moments().sd;
        let constant = self.constant_features();
        let mut out = Vec::new();
        for m in 0..2 {
            if self.counts()[m] < 2 {
                continue;
            }
            for (k, &s) in sd[m].iter().enumerate() {
                let name = format!("m{m}_{}", self.feature_names[m][k]);
                if s.is_finite() && !(low..=high).contains(&s) && !constant.contains(&name) {
                    out.push((name, s));
                }
            }
        }
        out
    }

    /// A copy with every feature replaced by `(x − mean) / sd`; errors if
    /// the widths differ from the scaling's.
    pub fn scaled(&self, s: &Scaling) -> Result<Bags> {
        for m in 0..2u8 {
            if self.counts()[m as usize] > 0 && s.mean[m as usize].len() != self.width(m) {
                return Err(Error::Data(format!(
                    "modality {m} has {} features, the scaling {}",
                    self.width(m),
                    s.mean[m as usize].len()
                )));
            }
        }
        let mut out = self.clone();
        for j in 0..self.n_instances() {
            let m = self.modality[j] as usize;
            let w = self.width(m as u8);
            let f = &mut out.features[m][self.offset[j]..self.offset[j] + w];
            for ((x, a), sd) in f.iter_mut().zip(&s.mean[m]).zip(&s.sd[m]) {
                *x = (*x - a) / sd;
            }
        }
        Ok(out)
    }

    /// Features of instance `j` (its own modality's).
    #[inline]
    pub fn features(&self, j: usize) -> &[f64] {
        let m = self.modality[j];
        let w = self.width(m);
        &self.features[m as usize][self.offset[j]..self.offset[j] + w]
    }

    /// Where instance `j`'s features sit in its modality's block (so that
    /// per-instance vectors of the same widths can share the layout).
    #[inline]
    pub(crate) fn feature_span(&self, j: usize) -> std::ops::Range<usize> {
        let w = self.width(self.modality[j]);
        self.offset[j]..self.offset[j] + w
    }

    /// Length of modality `m`'s block of features.
    pub(crate) fn feature_len(&self, m: u8) -> usize {
        self.features[m as usize].len()
    }

    /// Modality `m`'s whole block of features (`d_m × n_m`, column-major).
    pub(crate) fn block(&self, m: u8) -> &[f64] {
        &self.features[m as usize]
    }

    /// Where modality `m`'s instances from `j` on start in its block (the
    /// block's length if there are none).
    pub(crate) fn block_start(&self, m: u8, j: usize) -> usize {
        (j..self.n_instances())
            .find(|&k| self.modality[k] == m)
            .map_or(self.features[m as usize].len(), |k| self.offset[k])
    }

    /// Append a bag; `instances` are `(modality, features, row, primary)`,
    /// in any order: the bag holds them in its canonical order (modality,
    /// then feature values; see the module docs). Checks widths, finiteness
    /// and non-emptiness (in-memory callers get [`Error::Data`]; the readers
    /// check first and name the line).
    pub fn push_bag(
        &mut self,
        name: String,
        label: Option<bool>,
        mut instances: Vec<(u8, Vec<f64>, usize, Option<bool>)>,
    ) -> Result<()> {
        canonical_order(&mut instances);
        self.push_bag_as_given(name, label, instances)
    }

    /// [`Bags::push_bag`] keeping the order given: for transforms of bags
    /// already in canonical order (principal components), whose instances
    /// must stay index for index with the source's so that a fit on the
    /// transformed bags reports on the source's instances.
    pub(crate) fn push_bag_as_given(
        &mut self,
        name: String,
        label: Option<bool>,
        instances: Vec<(u8, Vec<f64>, usize, Option<bool>)>,
    ) -> Result<()> {
        if instances.is_empty() {
            return Err(Error::Data(format!("bag {name:?} has no instances")));
        }
        let start = self.modality.len();
        // The truth of δ is kept only when every instance so far has one.
        let all_primary = instances.iter().all(|i| i.3.is_some());
        if start == 0 && all_primary {
            self.primary = Some(Vec::new());
        } else if !all_primary {
            self.primary = None;
        }
        for (m, f, row, p) in instances {
            if m > 1 {
                return Err(Error::Data(format!("modality {m} (must be 0 or 1)")));
            }
            if f.len() != self.width(m) {
                return Err(Error::Data(format!(
                    "bag {name:?}: an instance of modality {m} has {} features, expected {}",
                    f.len(),
                    self.width(m)
                )));
            }
            if f.iter().any(|v| !v.is_finite()) {
                return Err(Error::Data(format!("bag {name:?}: non-finite feature")));
            }
            self.modality.push(m);
            self.row.push(row);
            self.offset.push(self.features[m as usize].len());
            self.features[m as usize].extend(f);
            if let (Some(v), Some(p)) = (self.primary.as_mut(), p) {
                v.push(p);
            }
        }
        let end = self.modality.len();
        self.bags.push(Bag {
            name,
            label,
            start,
            end,
        });
        Ok(())
    }

    /// The bags `keep` (in that order), as a new collection (CV folds).
    pub fn subset(&self, keep: &[usize]) -> Bags {
        let mut out = Bags::new(self.feature_names.clone());
        out.primary = self.primary.as_ref().map(|_| Vec::new());
        for &b in keep {
            let bag = &self.bags[b];
            let start = out.modality.len();
            for j in bag.start..bag.end {
                out.modality.push(self.modality[j]);
                out.row.push(self.row[j]);
                let m = self.modality[j] as usize;
                out.offset.push(out.features[m].len());
                out.features[m].extend_from_slice(self.features(j));
                if let (Some(o), Some(p)) = (out.primary.as_mut(), self.primary.as_ref()) {
                    o.push(p[j]);
                }
            }
            out.bags.push(Bag {
                name: bag.name.clone(),
                label: bag.label,
                start,
                end: out.modality.len(),
            });
        }
        out
    }

    /// Labels of all bags, or an error naming the first unlabelled one
    /// (fitting needs every label).
    pub fn labels(&self, source: &str) -> Result<Vec<bool>> {
        self.bags
            .iter()
            .map(|b| {
                b.label.ok_or_else(|| {
                    Error::input(
                        source,
                        None,
                        format!(
                            "bag {:?} has no label; fitting needs a 0/1 label on every bag \
                             (predict the unlabelled ones with `mil predict`)",
                            b.name
                        ),
                    )
                })
            })
            .collect()
    }

    /// [`Bags::labels`] for fitting a classifier: every bag labelled, and
    /// both labels present (with one class there is nothing to separate).
    /// vMMIC, the baselines and cross-validation use it, and the front ends
    /// for either engine; the library's Gibbs sampler takes any labels, as
    /// its posterior is proper (simulation-based calibration draws data
    /// sets of one label).
    pub fn training_labels(&self, source: &str) -> Result<Vec<bool>> {
        let y = self.labels(source)?;
        if y.iter().all(|&v| v) || !y.iter().any(|&v| v) {
            let only = if y.first() == Some(&true) { 1 } else { 0 };
            return Err(Error::input(
                source,
                None,
                format!(
                    "every bag has label {only}: fitting a bag classifier needs bags labelled 0 \
                     and bags labelled 1"
                ),
            ));
        }
        Ok(y)
    }

    /// Bag `b`'s instances in source-row order. A bag holds its instances
    /// in a canonical order (by modality and content, so that fits do not
    /// depend on how a file lists them); outputs list them as the file did.
    pub fn in_row_order(&self, b: &Bag) -> Vec<usize> {
        let mut js: Vec<usize> = (b.start..b.end).collect();
        js.sort_by_key(|&j| self.row[j]);
        js
    }

    /// Every instance in the order outputs list them: bag by bag, each
    /// bag's instances by source row.
    pub fn output_order(&self) -> impl Iterator<Item = usize> + '_ {
        self.bags.iter().flat_map(|b| self.in_row_order(b))
    }

    /// Whether the data has instances of modality 1.
    pub fn is_multimodal(&self) -> bool {
        self.width(1) > 0
    }

    /// Instance counts per modality.
    pub fn counts(&self) -> [usize; 2] {
        let n1 = self.modality.iter().filter(|&&m| m == 1).count();
        [self.modality.len() - n1, n1]
    }

    /// Names, as the long CSV spells them (`m0_…`, `m1_…`), of the features
    /// that take one value over every instance of their modality (a
    /// modality with at least one instance).
    pub fn constant_features(&self) -> Vec<String> {
        let mut out = Vec::new();
        for m in 0..2u8 {
            let w = self.width(m);
            let mut lo = vec![f64::INFINITY; w];
            let mut hi = vec![f64::NEG_INFINITY; w];
            let mut seen = false;
            for j in (0..self.n_instances()).filter(|&j| self.modality[j] == m) {
                seen = true;
                for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(self.features(j)) {
                    *l = l.min(x);
                    *h = h.max(x);
                }
            }
            if seen {
                let names = &self.feature_names[m as usize];
                out.extend(
                    (0..w)
                        .filter(|&k| lo[k] == hi[k])
                        .map(|k| format!("m{m}_{}", names[k])),
                );
            }
        }
        out
    }

    /// Write the long CSV (`primary` too when known).
    pub fn to_csv(&self) -> String {
        let mut s = String::from("bag,label,modality");
        for (k, names) in self.feature_names.iter().enumerate() {
            for n in names {
                s.push_str(&format!(",m{k}_{n}"));
            }
        }
        if self.primary.is_some() {
            s.push_str(",primary");
        }
        s.push('\n');
        for b in &self.bags {
            let label = b.label.map_or(String::new(), |l| (l as u8).to_string());
            for j in self.in_row_order(b) {
                let m = self.modality[j];
                s.push_str(&format!("{},{},{}", csv_field(&b.name), label, m));
                for k in 0..2u8 {
                    for q in 0..self.width(k) {
                        s.push(',');
                        if k == m {
                            s.push_str(&format!("{}", self.features(j)[q]));
                        }
                    }
                }
                if let Some(p) = &self.primary {
                    s.push_str(&format!(",{}", p[j] as u8));
                }
                s.push('\n');
            }
        }
        s
    }
}

/// Put a bag's instances in a canonical order: modality 0 before modality
/// 1, each by its feature vector (lexicographic, `f64::total_cmp`), ties by
/// source row. vMMIC's per-bag step updates the primary indicators one
/// instance after another, so coordinate ascent can stop at a different
/// nearby optimum when the instances of a bag are permuted; ordering them by
/// content makes every engine a function of each bag's *set* of instances,
/// whatever order a file or a data frame lists them in.
fn canonical_order(instances: &mut [(u8, Vec<f64>, usize, Option<bool>)]) {
    instances.sort_by(|x, y| {
        x.0.cmp(&y.0)
            .then_with(|| {
                x.1.iter()
                    .zip(&y.1)
                    .map(|(a, b)| a.total_cmp(b))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .then_with(|| x.1.len().cmp(&y.1.len()))
            .then_with(|| x.2.cmp(&y.2))
    });
}

/// Read bags from `path` (JSON if it ends in `.json`, else the long CSV).
pub fn read_bags(path: &str) -> Result<Bags> {
    let text = crate::io::read_text(path)?;
    if path.to_ascii_lowercase().ends_with(".json") {
        read_bags_json(path, &text)
    } else {
        read_bags_csv(path, &text)
    }
}

struct Pending {
    label: Option<bool>,
    label_line: usize,
    instances: Vec<(u8, Vec<f64>, usize, Option<bool>)>,
}

/// Read the long CSV from `text` (`path` names it in errors).
pub fn read_bags_csv(path: &str, text: &str) -> Result<Bags> {
    let (mut rdr, headers) = crate::io::csv_with_headers(path, text)?;
    let err = |line: usize, msg: String| Error::input(path, Some(line), msg);
    if headers.is_empty() || headers.iter().all(|h| h.is_empty()) {
        return Err(err(1, "empty file: expected a header row".into()));
    }
    // A set, not a scan of the columns before each: 100,000 feature
    // columns took 20 s of string comparisons.
    let mut seen = std::collections::HashSet::with_capacity(headers.len());
    if let Some(d) = headers.iter().find(|h| !seen.insert(h.as_str())) {
        return Err(err(1, format!("duplicate column {d:?}")));
    }
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (Some(bag_c), Some(label_c), Some(mod_c)) = (col("bag"), col("label"), col("modality"))
    else {
        return Err(err(
            1,
            format!(
                "expected columns bag,label,modality and features m0_…/m1_… (found: {})",
                headers.join(",")
            ),
        ));
    };
    let primary_c = col("primary");
    let mut feat_cols: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    let mut names: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for (k, h) in headers.iter().enumerate() {
        if [bag_c, label_c, mod_c].contains(&k) || Some(k) == primary_c {
            continue;
        }
        let m = if let Some(n) = h.strip_prefix("m0_") {
            names[0].push(n.to_string());
            0
        } else if let Some(n) = h.strip_prefix("m1_") {
            names[1].push(n.to_string());
            1
        } else {
            return Err(err(
                1,
                format!(
                    "column {h:?}: feature columns are named m0_… (modality 0) or m1_… (modality 1)"
                ),
            ));
        };
        feat_cols[m].push(k);
    }
    if names[0].is_empty() && names[1].is_empty() {
        return Err(err(1, "no feature columns (m0_… or m1_…)".into()));
    }
    if names[0].len().max(names[1].len()) > MAX_WIDTH {
        return Err(err(1, format!("more than {MAX_WIDTH} feature columns")));
    }
    let mut order: Vec<String> = Vec::new();
    let mut pending: HashMap<String, Pending> = HashMap::new();
    let mut rec = csv::StringRecord::new();
    let mut data_row = 0usize;
    let mut any_primary = false;
    while let Some(line) = crate::io::next_record(&mut rdr, &mut rec, path)? {
        if rec.iter().all(|f| f.is_empty()) {
            continue;
        }
        let row = data_row;
        data_row += 1;
        let get = |k: usize| rec.get(k).unwrap_or("").trim();
        let bag = get(bag_c).to_string();
        if bag.is_empty() {
            return Err(err(line, "empty bag name".into()));
        }
        // "0.0" and "1.0" too: a label column with empty cells (bags to
        // predict) is a float column in pandas, and its CSV writes 1.0.
        let label = match get(label_c) {
            "" => None,
            "0" => Some(false),
            "1" => Some(true),
            s if s.parse::<f64>() == Ok(0.0) && !s.starts_with('-') => Some(false),
            s if s.parse::<f64>() == Ok(1.0) => Some(true),
            s => {
                return Err(err(
                    line,
                    format!("label {s:?}: labels are 0, 1, or empty for a bag to predict"),
                ));
            }
        };
        let m: u8 = match get(mod_c) {
            "0" => 0,
            "1" => 1,
            s => {
                return Err(err(line, format!("modality {s:?}: must be 0 or 1")));
            }
        };
        if names[m as usize].is_empty() {
            return Err(err(
                line,
                format!("an instance of modality {m} but the file has no m{m}_ feature columns"),
            ));
        }
        let mut f = Vec::with_capacity(feat_cols[m as usize].len());
        for (&k, n) in feat_cols[m as usize].iter().zip(&names[m as usize]) {
            let s = get(k);
            if s.is_empty() {
                return Err(err(
                    line,
                    format!(
                        "column \"m{m}_{n}\" is empty: a modality-{m} instance fills every m{m}_ column"
                    ),
                ));
            }
            f.push(crate::io::finite_feature(
                path,
                line,
                s,
                &format!("column \"m{m}_{n}\""),
            )?);
        }
        let other = 1 - m as usize;
        if let Some((&k, n)) = feat_cols[other]
            .iter()
            .zip(&names[other])
            .find(|(k, _)| !get(**k).is_empty())
        {
            let _ = k;
            return Err(err(
                line,
                format!(
                    "column \"m{other}_{n}\" is filled on a modality-{m} row: a row fills only its own modality's columns"
                ),
            ));
        }
        let primary = match primary_c.map(get) {
            None | Some("") => None,
            Some("0") => Some(false),
            Some("1") => Some(true),
            Some(s) => return Err(err(line, format!("primary {s:?}: must be 0 or 1"))),
        };
        any_primary |= primary.is_some();
        match pending.get_mut(&bag) {
            Some(p) => {
                if p.label != label {
                    return Err(err(
                        line,
                        format!(
                            "bag {bag:?} has label {} here but {} on line {}: one label per bag",
                            show(label),
                            show(p.label),
                            p.label_line
                        ),
                    ));
                }
                p.instances.push((m, f, row, primary));
            }
            None => {
                order.push(bag.clone());
                pending.insert(
                    bag,
                    Pending {
                        label,
                        label_line: line,
                        instances: vec![(m, f, row, primary)],
                    },
                );
            }
        }
    }
    if order.is_empty() {
        return Err(err(2, "no data rows".into()));
    }
    let mut out = Bags::new(names);
    for name in order {
        let p = pending.remove(&name).expect("bag recorded");
        if any_primary && let Some(i) = p.instances.iter().position(|i| i.3.is_none()) {
            return Err(Error::input(
                path,
                None,
                format!(
                    "column primary is empty on data row {} of bag {name:?}: fill it on every row or on none",
                    p.instances[i].2 + 1
                ),
            ));
        }
        out.push_bag(name, p.label, p.instances)
            .map_err(|e| Error::input(path, None, e.to_string()))?;
    }
    Ok(out)
}

fn show(l: Option<bool>) -> &'static str {
    match l {
        None => "empty",
        Some(true) => "1",
        Some(false) => "0",
    }
}

/// Read the JSON form:
/// `{"features": {"m0": [names], "m1": [names]}, "bags": [{"bag": "b1",
/// "label": 0 | 1 | null, "instances": [{"modality": 0, "features": [..]}]}]}`.
/// `features` may be omitted (names `1…d`); `m1` may be omitted
/// (unimodal).
pub fn read_bags_json(path: &str, text: &str) -> Result<Bags> {
    read_bags_json_inner(path, text).map_err(|e| crate::io::model_file::data_error(path, text, e))
}

fn read_bags_json_inner(path: &str, text: &str) -> Result<Bags> {
    let doc = parse(text).map_err(|e| Error::input(path, Some(e.line), e.msg))?;
    let err = |line: usize, msg: String| Error::input(path, Some(line), msg);
    let JValue::Object(top) = &doc.value else {
        return Err(err(
            doc.line,
            format!(
                "expected an object with \"bags\", found {}",
                doc.value.kind()
            ),
        ));
    };
    let field = |o: &'_ [(String, Spanned)], k: &str| -> Option<Spanned> {
        o.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    };
    let Some(bags_v) = field(top, "bags") else {
        return Err(err(doc.line, "missing \"bags\"".into()));
    };
    let JValue::Array(bags_a) = &bags_v.value else {
        return Err(err(bags_v.line, "\"bags\" must be an array".into()));
    };
    if bags_a.is_empty() {
        return Err(err(bags_v.line, "no bags".into()));
    }
    // Widths: from "features" if given, else from the first instance of
    // each modality.
    let mut names: [Option<Vec<String>>; 2] = [None, None];
    if let Some(fv) = field(top, "features") {
        let JValue::Object(fo) = &fv.value else {
            return Err(err(
                fv.line,
                "\"features\" must be an object {\"m0\": [names], \"m1\": [names]}".into(),
            ));
        };
        for (k, v) in fo {
            let m = match k.as_str() {
                "m0" => 0,
                "m1" => 1,
                _ => return Err(err(v.line, format!("features: unknown key {k:?} (m0, m1)"))),
            };
            let JValue::Array(a) = &v.value else {
                return Err(err(
                    v.line,
                    format!("features.{k} must be an array of names"),
                ));
            };
            let mut ns = Vec::new();
            for s in a {
                match &s.value {
                    JValue::String(t) => ns.push(t.clone()),
                    o => {
                        return Err(err(
                            s.line,
                            format!("features.{k}: a name must be a string, found {}", o.kind()),
                        ));
                    }
                }
            }
            names[m] = Some(ns);
        }
    }
    let mut parsed = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut row = 0usize;
    for b in bags_a {
        let JValue::Object(bo) = &b.value else {
            return Err(err(
                b.line,
                format!("a bag must be an object, found {}", b.value.kind()),
            ));
        };
        let name = match field(bo, "bag").map(|v| v.value) {
            Some(JValue::String(s)) if !s.is_empty() => s,
            Some(JValue::Number(_, t)) => t,
            _ => return Err(err(b.line, "a bag needs a non-empty \"bag\" name".into())),
        };
        if let Some(l) = seen.insert(name.clone(), b.line) {
            return Err(err(
                b.line,
                format!("bag {name:?} already given on line {l}"),
            ));
        }
        let label = match field(bo, "label").map(|v| v.value) {
            None | Some(JValue::Null) => None,
            Some(JValue::Number(0.0, _)) => Some(false),
            Some(JValue::Number(1.0, _)) => Some(true),
            Some(JValue::Bool(v)) => Some(v),
            Some(o) => {
                return Err(err(
                    b.line,
                    format!(
                        "bag {name:?}: label must be 0, 1 or null, found {}",
                        o.kind()
                    ),
                ));
            }
        };
        let Some(iv) = field(bo, "instances") else {
            return Err(err(b.line, format!("bag {name:?} has no \"instances\"")));
        };
        let JValue::Array(ia) = &iv.value else {
            return Err(err(
                iv.line,
                format!("bag {name:?}: \"instances\" must be an array"),
            ));
        };
        if ia.is_empty() {
            return Err(err(
                iv.line,
                format!("bag {name:?} has no instances: every bag needs at least one"),
            ));
        }
        let mut inst = Vec::new();
        for i in ia {
            let JValue::Object(io) = &i.value else {
                return Err(err(
                    i.line,
                    format!("an instance must be an object, found {}", i.value.kind()),
                ));
            };
            let m: u8 = match field(io, "modality").map(|v| v.value) {
                None => 0,
                Some(JValue::Number(0.0, _)) => 0,
                Some(JValue::Number(1.0, _)) => 1,
                _ => return Err(err(i.line, "modality must be 0 or 1".into())),
            };
            let Some(fv) = field(io, "features") else {
                return Err(err(i.line, "an instance needs \"features\"".into()));
            };
            let JValue::Array(fa) = &fv.value else {
                return Err(err(
                    fv.line,
                    "\"features\" must be an array of numbers".into(),
                ));
            };
            if fa.len() > MAX_WIDTH {
                return Err(err(fv.line, format!("more than {MAX_WIDTH} features")));
            }
            let mut f = Vec::with_capacity(fa.len());
            for x in fa {
                match &x.value {
                    JValue::Number(v, t) => {
                        f.push(crate::io::finite_feature(path, x.line, t, "feature")?);
                        let _ = v;
                    }
                    o => {
                        return Err(err(
                            x.line,
                            format!("a feature must be a number, found {}", o.kind()),
                        ));
                    }
                }
            }
            let want = names[m as usize].as_ref().map(|n| n.len());
            match want {
                Some(w) if w != f.len() => {
                    return Err(err(
                        fv.line,
                        format!(
                            "a modality-{m} instance with {} features; modality {m} has {w}",
                            f.len()
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    if f.is_empty() {
                        return Err(err(fv.line, "an instance with no features".into()));
                    }
                    names[m as usize] = Some((1..=f.len()).map(|q| q.to_string()).collect())
                }
            }
            let primary = match field(io, "primary").map(|v| v.value) {
                None | Some(JValue::Null) => None,
                Some(JValue::Number(v, _)) if v == 0.0 || v == 1.0 => Some(v == 1.0),
                Some(JValue::Bool(v)) => Some(v),
                _ => return Err(err(i.line, "primary must be 0 or 1".into())),
            };
            inst.push((m, f, row, primary));
            row += 1;
        }
        parsed.push((name, label, inst));
    }
    let [n0, n1] = names;
    let mut out = Bags::new([n0.unwrap_or_default(), n1.unwrap_or_default()]);
    for (name, label, inst) in parsed {
        out.push_bag(name, label, inst)
            .map_err(|e| Error::input(path, None, e.to_string()))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "bag,label,modality,m0_a,m0_b,m1_c\n\
                       b1,1,0,1.5,2,\n\
                       b2,0,1,,,3\n\
                       b1,1,1,,,-1\n\
                       b3,,0,0,0,\n";

    #[test]
    fn long_csv_groups_rows_into_bags() {
        let b = read_bags_csv("t.csv", CSV).unwrap();
        assert_eq!(b.n_bags(), 3);
        assert_eq!(b.bags[0].name, "b1");
        assert_eq!(b.bags[0].len(), 2);
        assert_eq!(b.row[b.bags[0].start + 1], 2);
        assert_eq!(b.features(b.bags[0].start + 1), &[-1.0]);
        assert_eq!(b.bags[2].label, None);
        assert_eq!(b.width(0), 2);
        let again = read_bags_csv("t.csv", &b.to_csv()).unwrap();
        assert_eq!(again.bags, b.bags);
        assert_eq!(again.counts(), [2, 2]);
    }

    /// A label column with empty cells is a float column in pandas, whose
    /// CSV writes 1.0 and 0.0: those are the labels 1 and 0.
    #[test]
    fn float_labels_read_as_their_values() {
        let text = "bag,label,modality,m0_a\nb1,1.0,0,1\nb2,0.0,0,2\nb3,,0,3\nb4,1e0,0,4\n";
        let b = read_bags_csv("t.csv", text).unwrap();
        let labels: Vec<_> = b.bags.iter().map(|g| g.label).collect();
        assert_eq!(labels, [Some(true), Some(false), None, Some(true)]);
        for bad in ["0.5", "-0.0", "-1", "2.0", "nan", "yes"] {
            let text = format!("bag,label,modality,m0_a\nb1,{bad},0,1\n");
            let e = read_bags_csv("t.csv", &text).unwrap_err().to_string();
            assert!(e.starts_with(&format!("t.csv:2: label {bad:?}")), "{e}");
        }
    }

    #[test]
    fn bad_rows_name_file_and_line() {
        let cases = [
            ("bag,label,modality,m0_a\nb,2,0,1\n", "t.csv:2: label \"2\""),
            (
                "bag,label,modality,m0_a\nb,1,0,\n",
                "t.csv:2: column \"m0_a\" is empty",
            ),
            ("bag,label,modality,m0_a\nb,1,0,nan\n", "t.csv:2:"),
            (
                "bag,label,modality,m0_a\nb,1,1,3\n",
                "t.csv:2: an instance of modality 1",
            ),
            (
                "bag,label,modality,m0_a\nb,1,0,1\nb,0,0,1\n",
                "t.csv:3: bag \"b\" has label 0",
            ),
            ("bag,label,modality,x\n", "t.csv:1: column \"x\""),
            (
                "bag,label,modality,m0_a,m1_b\nb,1,0,1,2\n",
                "t.csv:2: column \"m1_b\" is filled",
            ),
            // CRLF line ends and a blank line: the line an editor shows.
            (
                "bag,label,modality,m0_a\r\nb,1,0,1\r\n\r\nb,1,0,NaN\r\n",
                "t.csv:4: column \"m0_a\" is NaN",
            ),
        ];
        for (text, want) in cases {
            let e = read_bags_csv("t.csv", text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{e} / {want}");
        }
    }

    #[test]
    fn json_form_reads_and_checks() {
        let ok = r#"{"bags": [{"bag": "a", "label": 1, "instances": [{"modality": 0, "features": [1, 2]}, {"modality": 1, "features": [3]}]},
                    {"bag": "b", "label": null, "instances": [{"features": [0, 1]}]}]}"#;
        let b = read_bags_json("t.json", ok).unwrap();
        assert_eq!(b.n_bags(), 2);
        assert_eq!(b.width(1), 1);
        assert_eq!(b.row, vec![0, 1, 2]);
        let empty = r#"{"bags": [{"bag": "a", "label": 1,
            "instances": []}]}"#;
        let e = read_bags_json("t.json", empty).unwrap_err().to_string();
        assert!(e.starts_with("t.json:2: bag \"a\" has no instances"), "{e}");
        let ragged = r#"{"bags": [{"bag": "a", "label": 1, "instances": [{"features": [1, 2]},
            {"features": [1]}]}]}"#;
        let e = read_bags_json("t.json", ragged).unwrap_err().to_string();
        assert!(
            e.starts_with("t.json:2: a modality-0 instance with 1 features"),
            "{e}"
        );
    }
}
