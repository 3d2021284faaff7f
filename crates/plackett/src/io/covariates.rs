//! The covariate CSV of Plackett–Luce trees (`plackett tree --covariates`):
//! one row per ranker, a key column naming it, and the partitioning
//! variables. A column is numeric when every non-empty value parses as a
//! finite number, unless it is declared categorical or ordered; any other
//! column is categorical (its levels sorted, as R's `factor` does). Empty
//! cells and `NA` are missing values.

use crate::data::covariates::{Column, Covariates, MISSING_LEVEL};
use crate::error::{Error, Result};
use std::collections::HashMap;

/// How to read the columns of a covariate table.
#[derive(Clone, Debug, Default)]
pub struct CovariateOptions {
    /// The key column (joined to the rankings' ranker names).
    pub key: String,
    /// Columns to read as unordered categories even if numeric.
    pub categorical: Vec<String>,
    /// Ordered categorical columns with their levels, lowest first.
    pub ordered: Vec<(String, Vec<String>)>,
    /// Columns to use (all but the key when empty).
    pub columns: Vec<String>,
}

fn is_missing(s: &str) -> bool {
    s.is_empty() || s == "NA"
}

/// Read a covariate CSV. Errors name the file, the line and the column.
pub fn read_covariates(path: &str, text: &str, opts: &CovariateOptions) -> Result<Covariates> {
    let (mut rdr, headers) = super::csv_with_headers(path, text)?;
    let key_col = headers.iter().position(|h| *h == opts.key).ok_or_else(|| {
        Error::input(
            path,
            Some(1),
            format!(
                "no key column {:?} (columns: {})",
                opts.key,
                headers.join(", ")
            ),
        )
    })?;
    let check_named = |name: &str, what: &str| -> Result<usize> {
        match headers.iter().position(|h| h == name) {
            Some(j) if j == key_col => Err(Error::input(
                path,
                Some(1),
                format!("{what} column {name:?} is the key column"),
            )),
            Some(j) => Ok(j),
            None => Err(Error::input(
                path,
                Some(1),
                format!(
                    "no {what} column {name:?} (columns: {})",
                    headers.join(", ")
                ),
            )),
        }
    };
    let used: Vec<usize> = if opts.columns.is_empty() {
        (0..headers.len()).filter(|&j| j != key_col).collect()
    } else {
        opts.columns
            .iter()
            .map(|c| check_named(c, "covariate"))
            .collect::<Result<_>>()?
    };
    if used.is_empty() {
        return Err(Error::input(
            path,
            Some(1),
            "no covariate columns beside the key column",
        ));
    }
    for c in &opts.categorical {
        check_named(c, "categorical")?;
    }
    for (c, _) in &opts.ordered {
        check_named(c, "ordered")?;
    }
    if let Some(dup) = used
        .iter()
        .enumerate()
        .find(|(k, j)| used[..*k].iter().any(|i| headers[*i] == headers[**j]))
    {
        return Err(Error::input(
            path,
            Some(1),
            format!("duplicate column {:?}", headers[*dup.1]),
        ));
    }
    let mut keys = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut cells: Vec<Vec<(String, usize)>> = vec![Vec::new(); used.len()];
    let mut rec = csv::StringRecord::new();
    while let Some(line) = super::next_record(&mut rdr, &mut rec, path)? {
        let key = rec.get(key_col).unwrap_or("").trim();
        if key.is_empty() {
            return Err(Error::input(path, Some(line), "empty key"));
        }
        if let Some(first) = seen.insert(key.to_string(), line) {
            return Err(Error::input(
                path,
                Some(line),
                format!("key {key:?} repeats line {first} (one row per ranker)"),
            ));
        }
        keys.push(key.to_string());
        for (c, &j) in used.iter().enumerate() {
            cells[c].push((rec.get(j).unwrap_or("").trim().to_string(), line));
        }
    }
    if keys.is_empty() {
        return Err(Error::input(path, None, "no rows"));
    }
    let mut columns = Vec::with_capacity(used.len());
    for (c, &j) in used.iter().enumerate() {
        let name = &headers[j];
        let col = &cells[c];
        if let Some((_, levels)) = opts.ordered.iter().find(|(n, _)| n == name) {
            let index: HashMap<&str, u32> = levels
                .iter()
                .enumerate()
                .map(|(k, l)| (l.as_str(), k as u32))
                .collect();
            let codes = col
                .iter()
                .map(|(s, line)| {
                    if is_missing(s) {
                        return Ok(MISSING_LEVEL);
                    }
                    index.get(s.as_str()).copied().ok_or_else(|| {
                        Error::input(
                            path,
                            Some(*line),
                            format!(
                                "{name} = {s:?} is not one of the declared ordered levels ({})",
                                levels.join(", ")
                            ),
                        )
                    })
                })
                .collect::<Result<_>>()?;
            columns.push(Column::Factor {
                levels: levels.clone(),
                codes,
                ordered: true,
            });
            continue;
        }
        let declared = opts.categorical.iter().any(|n| n == name);
        let numbers: Option<Vec<f64>> = col
            .iter()
            .map(|(s, _)| {
                if is_missing(s) {
                    Some(f64::NAN)
                } else {
                    s.parse::<f64>().ok().filter(|v| v.is_finite())
                }
            })
            .collect();
        match numbers {
            Some(values) if !declared => columns.push(Column::Numeric { values }),
            _ => {
                let mut levels: Vec<String> = col
                    .iter()
                    .filter(|(s, _)| !is_missing(s))
                    .map(|(s, _)| s.clone())
                    .collect();
                levels.sort();
                levels.dedup();
                let index: HashMap<&str, u32> = levels
                    .iter()
                    .enumerate()
                    .map(|(k, l)| (l.as_str(), k as u32))
                    .collect();
                let codes = col
                    .iter()
                    .map(|(s, _)| {
                        if is_missing(s) {
                            MISSING_LEVEL
                        } else {
                            index[s.as_str()]
                        }
                    })
                    .collect();
                columns.push(Column::Factor {
                    levels,
                    codes,
                    ordered: false,
                });
            }
        }
    }
    Ok(Covariates {
        key: opts.key.clone(),
        keys,
        names: used.iter().map(|&j| headers[j].clone()).collect(),
        columns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> CovariateOptions {
        CovariateOptions {
            key: "farmer".into(),
            ..Default::default()
        }
    }

    #[test]
    fn infers_kinds_and_missing_values() {
        let text = "farmer,season,t,year\n1,b,1.5,2015\n2,a,NA,2016\n3,,2.0,2015\n";
        let mut o = opts();
        o.categorical = vec!["year".into()];
        let c = read_covariates("c.csv", text, &o).unwrap();
        assert_eq!(c.names, ["season", "t", "year"]);
        assert_eq!(c.columns[0].kind(), "categorical");
        assert_eq!(c.columns[1].kind(), "numeric");
        assert_eq!(c.columns[2].kind(), "categorical");
        match &c.columns[0] {
            Column::Factor { levels, codes, .. } => {
                assert_eq!(levels, &["a", "b"]);
                assert_eq!(codes, &[1, 0, MISSING_LEVEL]);
            }
            _ => unreachable!(),
        }
        assert!(c.row_incomplete(1) && c.row_incomplete(2) && !c.row_incomplete(0));
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = read_covariates("c.csv", "id,x\n1,2\n", &opts()).unwrap_err();
        assert!(e.to_string().contains("no key column \"farmer\""), "{e}");
        let e = read_covariates("c.csv", "farmer,x\n1,2\n1,3\n", &opts()).unwrap_err();
        assert!(e.to_string().contains("c.csv:3"), "{e}");
        let mut o = opts();
        o.ordered = vec![("x".into(), vec!["lo".into(), "hi".into()])];
        let e = read_covariates("c.csv", "farmer,x\n1,lo\n2,mid\n", &o).unwrap_err();
        assert!(
            e.to_string().contains("c.csv:3") && e.to_string().contains("mid"),
            "{e}"
        );
    }
}
