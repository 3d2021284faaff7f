//! PrefLib SOC/SOI/TOC/TOI (strict/tied, complete/incomplete orders).
//!
//! Both layouts are read:
//! * current (2022): `# KEY: value` metadata lines (`# DATA TYPE: toc`,
//!   `# NUMBER ALTERNATIVES: 4`, `# ALTERNATIVE NAME 1: Name`), then data
//!   lines `count: 1,{2,3},4`;
//! * legacy: the number of alternatives, one `id,name` line each, a
//!   `voters,sum,unique` line, then `count,1,{2,3},4` lines.
//!
//! `{a,b}` is a tied group (read per `--ties`). Incomplete orders (SOI/TOI)
//! are sub-rankings unless `--top-k` says the unlisted alternatives ranked
//! below; complete types (SOC/TOC) must list every alternative.

use super::{ReadOptions, initial_items};
use crate::data::{Dataset, DatasetBuilder, Tail};
use crate::error::{Error, Result};

/// Parse a PrefLib file.
pub fn read(name: &str, text: &str, opts: &ReadOptions) -> Result<Dataset> {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .ok_or_else(|| Error::input(name, None, "empty file"))?;
    let mut n_alt: Option<usize> = None;
    let mut names: Vec<Option<String>> = Vec::new();
    let mut data_type: Option<String> = None;
    // The header's number of voters and its line: checked against the
    // orders' counts at the end (a mismatch means a truncated or edited file).
    let mut voters: Option<(u64, usize)> = None;
    let data_start;
    if lines[first].trim_start().starts_with('#') {
        let mut k = first;
        while k < lines.len()
            && (lines[k].trim_start().starts_with('#') || lines[k].trim().is_empty())
        {
            let l = lines[k].trim_start().trim_start_matches('#').trim();
            if let Some((key, val)) = l.split_once(':') {
                let key = key.trim().to_ascii_uppercase();
                let val = val.trim();
                if key == "NUMBER ALTERNATIVES" {
                    let n = val
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| {
                            Error::input(
                                name,
                                Some(k + 1),
                                format!("invalid number of alternatives {val:?}"),
                            )
                        })?;
                    if n > 10_000_000 {
                        return Err(Error::input(name, Some(k + 1), "too many alternatives"));
                    }
                    n_alt = Some(n);
                    names.resize(n, None);
                } else if key == "NUMBER VOTERS" {
                    let v = val.parse::<u64>().map_err(|_| {
                        Error::input(
                            name,
                            Some(k + 1),
                            format!("invalid number of voters {val:?}"),
                        )
                    })?;
                    voters = Some((v, k + 1));
                } else if key == "DATA TYPE" {
                    data_type = Some(val.to_ascii_lowercase());
                } else if let Some(idx) = key.strip_prefix("ALTERNATIVE NAME ") {
                    let Some(n) = n_alt else {
                        return Err(Error::input(
                            name,
                            Some(k + 1),
                            "ALTERNATIVE NAME before NUMBER ALTERNATIVES",
                        ));
                    };
                    let i = alternative_number(name, k + 1, idx, n)?;
                    names[i - 1] = Some(val.to_string());
                }
            }
            k += 1;
        }
        data_start = k;
    } else {
        let l0 = lines[first].trim();
        let n = l0
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0 && n <= 10_000_000)
            .ok_or_else(|| {
                Error::input(
                    name,
                    Some(first + 1),
                    format!("expected the number of alternatives, found {l0:?}"),
                )
            })?;
        n_alt = Some(n);
        names.resize(n, None);
        for j in 0..n {
            let k = first + 1 + j;
            let l = lines.get(k).ok_or_else(|| {
                Error::input(
                    name,
                    Some(k + 1),
                    "file ends inside the list of alternatives",
                )
            })?;
            let (idx, nm) = l.split_once(',').ok_or_else(|| {
                Error::input(name, Some(k + 1), "expected 'id,name' for an alternative")
            })?;
            let i = alternative_number(name, k + 1, idx, n)?;
            names[i - 1] = Some(nm.trim().to_string());
        }
        let k = first + 1 + n;
        let l = lines
            .get(k)
            .ok_or_else(|| Error::input(name, Some(k + 1), "missing 'voters,sum,unique' line"))?;
        let parts: Vec<&str> = l.split(',').map(|s| s.trim()).collect();
        if parts.len() != 3 || parts.iter().any(|p| p.parse::<u64>().is_err()) {
            return Err(Error::input(
                name,
                Some(k + 1),
                "expected 'voters,sum,unique' counts",
            ));
        }
        voters = Some((parts[0].parse::<u64>().expect("checked above"), k + 1));
        data_start = k + 1;
    }
    let n = n_alt.ok_or_else(|| Error::input(name, None, "missing '# NUMBER ALTERNATIVES'"))?;
    let complete = match data_type.as_deref() {
        Some("soc") | Some("toc") => true,
        Some("soi") | Some("toi") | None => false,
        Some(other) => {
            return Err(Error::input(
                name,
                None,
                format!("unsupported PrefLib data type {other:?} (soc, soi, toc, toi)"),
            ));
        }
    };
    let strict = matches!(data_type.as_deref(), Some("soc") | Some("soi"));
    // Universe: declared alternatives (or --items, which must name them all).
    let (mut items, closed) = initial_items(opts);
    let mut id_of = vec![0u32; n];
    for (i, nm) in names.iter().enumerate() {
        let nm = nm.clone().unwrap_or_else(|| (i + 1).to_string());
        id_of[i] = match items.get(&nm) {
            Some(id) => id,
            None if closed => {
                return Err(Error::input(
                    name,
                    None,
                    opts.outside_universe(&format!("alternative {nm:?}"), items.len()),
                ));
            }
            None => items.intern(&nm),
        };
    }
    let mut b = DatasetBuilder::new(items, opts.ties);
    let tail = if opts.top_k {
        Tail::Universe
    } else {
        Tail::None
    };
    let mut any = false;
    let mut counted: u64 = 0;
    for (k, raw) in lines.iter().enumerate().skip(data_start) {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let line = k + 1;
        let (count_s, order_s) = match l.split_once(':') {
            Some((c, o)) => (c.trim(), o.trim()),
            None => match l.split_once(',') {
                Some((c, o)) => (c.trim(), o.trim()),
                None => return Err(Error::input(name, Some(line), "expected 'count: order'")),
            },
        };
        let count: f64 = count_s
            .parse::<u64>()
            .ok()
            .filter(|&c| c > 0)
            .inspect(|&c| counted = counted.saturating_add(c))
            .map(|c| c as f64)
            .ok_or_else(|| {
                Error::input(
                    name,
                    Some(line),
                    format!("count {count_s:?} is not a positive integer"),
                )
            })?;
        let groups = parse_order(order_s, n).map_err(|m| Error::input(name, Some(line), m))?;
        if strict && groups.iter().any(|g| g.len() > 1) {
            return Err(Error::input(
                name,
                Some(line),
                "tied group {…} in a strict-order (soc/soi) file",
            ));
        }
        let listed: usize = groups.iter().map(|g| g.len()).sum();
        if complete && listed != n {
            return Err(Error::input(
                name,
                Some(line),
                format!("complete order expected ({n} alternatives), found {listed}"),
            ));
        }
        let mapped: Vec<Vec<u32>> = groups
            .iter()
            .map(|g| g.iter().map(|&a| id_of[a]).collect())
            .collect();
        b.push(&mapped, tail, &[], count)
            .map_err(|m| Error::input(name, Some(line), m))?;
        any = true;
    }
    if !any {
        return Err(Error::input(name, None, "no orders in the file"));
    }
    if let Some((v, line)) = voters
        && v != counted
    {
        return Err(Error::input(
            name,
            Some(line),
            format!(
                "the header declares {v} voters but the orders' counts sum to {counted}; \
                 the file may be truncated or edited — correct the header or the counts"
            ),
        ));
    }
    Ok(b.finish())
}

/// Parse `1,{2,3},4` into 0-based groups.
fn parse_order(s: &str, n: usize) -> std::result::Result<Vec<Vec<usize>>, String> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut chars = s.chars().peekable();
    let parse_id = |tok: &str| -> std::result::Result<usize, String> {
        let t = tok.trim();
        t.parse::<usize>()
            .ok()
            .filter(|&i| i >= 1 && i <= n)
            .map(|i| i - 1)
            .ok_or_else(|| format!("alternative {t:?} is not a number in 1..{n}"))
    };
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek() {
            None => break,
            Some('{') => {
                chars.next();
                let mut tok = String::new();
                let mut g = Vec::new();
                loop {
                    match chars.next() {
                        None => return Err("unclosed '{'".into()),
                        Some('}') => break,
                        Some('{') => return Err("nested '{'".into()),
                        Some(',') => {
                            g.push(parse_id(&tok)?);
                            tok.clear();
                        }
                        Some(c) => tok.push(c),
                    }
                }
                if tok.trim().is_empty() && g.is_empty() {
                    return Err("empty tied group {}".into());
                }
                g.push(parse_id(&tok)?);
                groups.push(g);
            }
            Some(_) => {
                let mut tok = String::new();
                while let Some(&c) = chars.peek() {
                    if c == ',' {
                        break;
                    }
                    if c == '{' || c == '}' {
                        return Err(format!("unexpected {c:?}"));
                    }
                    tok.push(c);
                    chars.next();
                }
                groups.push(vec![parse_id(&tok)?]);
            }
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => break,
            Some(',') => {
                if chars.clone().all(|c| c.is_whitespace()) {
                    return Err("trailing comma".into());
                }
            }
            Some(c) => return Err(format!("expected ',' but found {c:?}")),
        }
    }
    if groups.is_empty() {
        return Err("empty order".into());
    }
    Ok(groups)
}

/// A 1-based alternative number in `1..=n`, or an error at `name:line`.
fn alternative_number(name: &str, line: usize, idx: &str, n: usize) -> Result<usize> {
    let idx = idx.trim();
    idx.parse::<usize>()
        .ok()
        .filter(|&i| i >= 1 && i <= n)
        .ok_or_else(|| {
            Error::input(
                name,
                Some(line),
                format!("alternative number {idx:?} outside 1..{n}"),
            )
        })
}
