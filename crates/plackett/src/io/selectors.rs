//! Selectors JSON (the interchange format of Stutz et al. 2023's released
//! annotations): a list
//! of cases, each a list of annotators, each a best-first list of groups of
//! class ids. Groups are unknown-order ties; every class an annotator did not
//! list ranks below (a top-k observation of the class universe).

use super::json_value::{JValue, Spanned, parse};
use super::{ItemsSpec, ReadOptions};
use crate::data::{Dataset, DatasetBuilder, Items, Tail};
use crate::error::{Error, Result};

/// One annotation: best-first groups of class ids.
pub type Annotation = Vec<Vec<u32>>;

/// Parsed selectors file: per case, its annotations (empty annotations are
/// dropped and counted).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Selectors {
    /// Cases → annotations.
    pub cases: Vec<Vec<Annotation>>,
    /// Number of classes (universe size).
    pub n_classes: usize,
    /// Annotations with no listed class, dropped.
    pub empty_dropped: usize,
    /// Line of each case in the file.
    pub lines: Vec<usize>,
    /// What messages call the file (its path, or the name given for text).
    pub source: String,
}

/// Parse and validate a selectors file. Class ids must be below
/// `n_classes` when given (e.g. from `--items`), and not repeated within an
/// annotation.
pub fn parse_selectors(name: &str, text: &str, n_classes: Option<usize>) -> Result<Selectors> {
    parse_selectors_inner(name, text, n_classes)
        .map_err(|e| super::model_file::data_error(name, text, e))
}

fn parse_selectors_inner(name: &str, text: &str, n_classes: Option<usize>) -> Result<Selectors> {
    let doc = parse(text).map_err(|e| Error::input(name, Some(e.line), e.msg))?;
    let JValue::Array(cases) = &doc.value else {
        return Err(Error::input(
            name,
            Some(doc.line),
            "expected a list of cases",
        ));
    };
    let mut out = Vec::with_capacity(cases.len());
    let mut lines = Vec::with_capacity(cases.len());
    let mut max_id = 0usize;
    let mut empty = 0;
    for (ci, c) in cases.iter().enumerate() {
        let JValue::Array(anns) = &c.value else {
            return Err(Error::input(
                name,
                Some(c.line),
                format!("case {ci}: expected a list of annotators"),
            ));
        };
        let mut case = Vec::with_capacity(anns.len());
        for (ai, a) in anns.iter().enumerate() {
            let JValue::Array(groups) = &a.value else {
                return Err(Error::input(
                    name,
                    Some(a.line),
                    format!("case {ci}, annotator {ai}: expected a list of groups"),
                ));
            };
            let mut ann: Annotation = Vec::with_capacity(groups.len());
            let mut seen: Vec<u32> = Vec::new();
            for g in groups {
                let JValue::Array(ids) = &g.value else {
                    return Err(Error::input(
                        name,
                        Some(g.line),
                        format!("case {ci}, annotator {ai}: a group must be a list of class ids"),
                    ));
                };
                if ids.is_empty() {
                    return Err(Error::input(
                        name,
                        Some(g.line),
                        format!("case {ci}, annotator {ai}: empty group"),
                    ));
                }
                let mut grp = Vec::with_capacity(ids.len());
                for x in ids {
                    let id = class_id(name, x, ci, ai)?;
                    if let Some(k) = n_classes
                        && id >= k
                    {
                        return Err(Error::input(
                            name,
                            Some(x.line),
                            format!("case {ci}, annotator {ai}: class id {id} outside 0..{k}"),
                        ));
                    }
                    if seen.contains(&(id as u32)) {
                        return Err(Error::input(
                            name,
                            Some(x.line),
                            format!("case {ci}, annotator {ai}: class {id} listed twice"),
                        ));
                    }
                    seen.push(id as u32);
                    max_id = max_id.max(id);
                    grp.push(id as u32);
                }
                ann.push(grp);
            }
            if ann.is_empty() {
                empty += 1;
                continue;
            }
            case.push(ann);
        }
        out.push(case);
        lines.push(c.line);
    }
    if out.is_empty() {
        return Err(Error::input(name, Some(doc.line), "no cases"));
    }
    if n_classes.is_none() {
        // Every id below the largest is a class with dense arrays.
        let n = max_id + 1;
        let distinct: std::collections::HashSet<u32> =
            out.iter().flatten().flatten().flatten().copied().collect();
        if n > super::MAX_NUMBERED_ITEMS || (n > 100_000 && distinct.len() * 100 < n) {
            return Err(Error::input(
                name,
                None,
                format!(
                    "class ids run up to {max_id} but only {} distinct ids occur (at most {} \
                     classes, numbered 0..K-1); renumber the classes",
                    distinct.len(),
                    super::MAX_NUMBERED_ITEMS
                ),
            ));
        }
    }
    Ok(Selectors {
        n_classes: n_classes.unwrap_or(max_id + 1),
        cases: out,
        empty_dropped: empty,
        lines,
        source: name.to_string(),
    })
}

fn class_id(name: &str, x: &Spanned, ci: usize, ai: usize) -> Result<usize> {
    match &x.value {
        JValue::Number(v, t)
            if *v >= 0.0 && v.fract() == 0.0 && *v < 1e9 && !t.contains(['e', 'E', '.']) =>
        {
            Ok(*v as usize)
        }
        // A whole number too large to be a class index of any real label
        // set is said as such, not as "not a non-negative integer".
        JValue::Number(_, t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
            Err(Error::input(
                name,
                Some(x.line),
                format!(
                    "case {ci}, annotator {ai}: class id {t} is too large; renumber the classes from 0"
                ),
            ))
        }
        other => Err(Error::input(
            name,
            Some(x.line),
            format!(
                "case {ci}, annotator {ai}: class id must be a non-negative integer, found {}",
                match other {
                    JValue::Number(_, t) => t.clone(),
                    o => o.kind().to_string(),
                }
            ),
        )),
    }
}

/// Read selectors as a dataset: every annotation of every case (or of
/// `--case N`) is a top-k observation with unknown-order groups.
pub fn read(name: &str, text: &str, opts: &ReadOptions) -> Result<(Dataset, Selectors)> {
    let declared = opts.items.as_ref().map(|s| match s {
        ItemsSpec::Names(n) => n.len(),
        ItemsSpec::Count(n) => *n,
    });
    let sel = parse_selectors(name, text, declared)?;
    let items = match &opts.items {
        Some(spec) => spec.to_items(),
        None => Items::numbered(sel.n_classes),
    };
    let cases: Vec<usize> = match opts.case {
        Some(c) if c < sel.cases.len() => vec![c],
        Some(c) => {
            return Err(Error::param(
                "case",
                format!(
                    "case {c} out of range (the file has {} cases, numbered from 0)",
                    sel.cases.len()
                ),
            ));
        }
        None => (0..sel.cases.len()).collect(),
    };
    let mut b = DatasetBuilder::new(items, opts.ties);
    for &c in &cases {
        for ann in &sel.cases[c] {
            b.push(ann, Tail::Universe, &[], 1.0)
                .map_err(|m| Error::input(name, Some(sel.lines[c]), format!("case {c}: {m}")))?;
        }
    }
    Ok((b.finish(), sel))
}

/// Read per-class risk levels (one per line: 0 low, 1 medium, 2 high) for
/// `k` classes (Stutz et al. 2023's risk-weighted evaluation).
pub fn read_risks(path: &str, k: usize) -> Result<Vec<u8>> {
    let text = super::read_text(path)?;
    let mut out = Vec::with_capacity(k);
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        match t.parse::<u8>() {
            Ok(v) if v <= 2 => out.push(v),
            _ => {
                return Err(Error::input(
                    path,
                    Some(i + 1),
                    format!("risk level must be 0, 1 or 2, got {t:?}"),
                ));
            }
        }
    }
    if out.len() != k {
        return Err(Error::input(
            path,
            None,
            format!("{} risk levels for {k} classes", out.len()),
        ));
    }
    Ok(out)
}

/// Read an `n × k` matrix of model scores (whitespace- or comma-separated,
/// `#` comments), one row per evaluated case and one column per class.
pub fn read_scores(path: &str, n: usize, k: usize) -> Result<Vec<Vec<f64>>> {
    let text = super::read_text(path)?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut row = Vec::with_capacity(k);
        for tok in t
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|x| !x.is_empty())
        {
            let v: f64 = tok
                .parse()
                .map_err(|_| Error::input(path, Some(i + 1), format!("{tok:?} is not a number")))?;
            if !v.is_finite() {
                return Err(Error::input(
                    path,
                    Some(i + 1),
                    format!("scores must be finite, got {tok}"),
                ));
            }
            row.push(v);
        }
        if row.len() != k {
            return Err(Error::input(
                path,
                Some(i + 1),
                format!("{} scores, expected one per class ({k})", row.len()),
            ));
        }
        rows.push(row);
    }
    if rows.len() != n {
        return Err(Error::input(
            path,
            None,
            format!("{} rows, expected one per evaluated case ({n})", rows.len()),
        ));
    }
    Ok(rows)
}
