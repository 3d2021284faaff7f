//! JSON rankings.
//!
//! * A list of rankings, best first, choix style: `[[2,0,1],[0,[1,2]],…]`;
//!   an inner list is a tied group. Items are ids named by their decimal
//!   string; the universe is `0..=max id` unless `--items` declares it.
//! * An object `{"items": [names…], "rankings": [...], "weights": [...]}`:
//!   `items` declares the universe; ranking entries are names (strings) or
//!   indices into `items`; `weights` is optional; so is `rankers` (who
//!   made each ranking, names or numbers: the adherence model's rankers).

use super::json_value::{JValue, Spanned, parse};
use super::{ReadOptions, initial_items};
use crate::data::{Dataset, DatasetBuilder, Items, Tail};
use crate::error::{Error, Result};

/// Parse JSON rankings.
pub fn read(name: &str, text: &str, opts: &ReadOptions) -> Result<Dataset> {
    if let Some(lists) = fast_lists(text)
        && let Some(ds) = build_fast(lists, opts)
    {
        return Ok(ds);
    }
    let doc = parse(text).map_err(|e| Error::input(name, Some(e.line), e.msg))?;
    match &doc.value {
        JValue::Array(rankings) => read_lists(name, rankings, None, opts),
        JValue::Object(fields) => {
            let mut items_v = None;
            let mut rankings_v = None;
            let mut weights_v = None;
            let mut rankers_v = None;
            for (k, v) in fields {
                match k.as_str() {
                    "items" => items_v = Some(v),
                    "rankings" => rankings_v = Some(v),
                    "weights" => weights_v = Some(v),
                    "rankers" => rankers_v = Some(v),
                    other => {
                        return Err(Error::input(
                            name,
                            Some(v.line),
                            format!(
                                "unknown key {other:?} (expected items, rankings, weights, rankers)"
                            ),
                        ));
                    }
                }
            }
            let Some(r) = rankings_v else {
                return Err(Error::input(
                    name,
                    Some(doc.line),
                    "object has no \"rankings\" key",
                ));
            };
            let rankings = array_of(name, r, "\"rankings\" must be an array")?;
            let items = match items_v {
                None => None,
                Some(v) => {
                    let a = array_of(name, v, "\"items\" must be an array of names")?;
                    let mut it = Items::new();
                    for e in a {
                        let nm = match &e.value {
                            JValue::String(s) if !s.is_empty() => s.clone(),
                            JValue::Number(_, t) => t.clone(),
                            other => {
                                return Err(Error::input(
                                    name,
                                    Some(e.line),
                                    format!(
                                        "item name must be a non-empty string, found {}",
                                        other.kind()
                                    ),
                                ));
                            }
                        };
                        if it.get(&nm).is_some() {
                            return Err(Error::input(
                                name,
                                Some(e.line),
                                format!("duplicate item name {nm:?}"),
                            ));
                        }
                        it.intern(&nm);
                    }
                    if it.is_empty() {
                        return Err(Error::input(name, Some(v.line), "\"items\" is empty"));
                    }
                    Some(it)
                }
            };
            let weights = match weights_v {
                None => None,
                Some(v) => {
                    let a = array_of(name, v, "\"weights\" must be an array of numbers")?;
                    if a.len() != rankings.len() {
                        return Err(Error::input(
                            name,
                            Some(v.line),
                            format!("{} weights for {} rankings", a.len(), rankings.len()),
                        ));
                    }
                    let mut ws = Vec::new();
                    for (k, e) in a.iter().enumerate() {
                        match &e.value {
                            JValue::Number(x, _) if *x > 0.0 => ws.push((*x, e.line)),
                            _ => {
                                // Numbered as the rankings are (1-based).
                                return Err(Error::input(
                                    name,
                                    Some(e.line),
                                    "must be a positive number",
                                )
                                .in_record("weight", k + 1));
                            }
                        }
                    }
                    Some(ws)
                }
            };
            let rankers = match rankers_v {
                None => None,
                Some(v) => {
                    let a = array_of(name, v, "\"rankers\" must be an array of names")?;
                    if a.len() != rankings.len() {
                        return Err(Error::input(
                            name,
                            Some(v.line),
                            format!("{} rankers for {} rankings", a.len(), rankings.len()),
                        ));
                    }
                    let mut rs = Vec::new();
                    for e in a {
                        match &e.value {
                            JValue::String(s) if !s.is_empty() => rs.push(s.clone()),
                            JValue::Number(_, t) => rs.push(t.clone()),
                            _ => {
                                return Err(Error::input(
                                    name,
                                    Some(e.line),
                                    "a ranker must be a non-empty name or a number",
                                ));
                            }
                        }
                    }
                    Some(rs)
                }
            };
            read_object(name, rankings, items, weights, rankers, opts)
        }
        other => Err(Error::input(
            name,
            Some(doc.line),
            format!(
                "expected a list of rankings or an object, found {}",
                other.kind()
            ),
        )),
    }
}

/// Collect `(groups, line)` with a resolver for each leaf.
fn collect(
    name: &str,
    rankings: &[Spanned],
    resolve: &mut dyn FnMut(&Spanned) -> Result<u32>,
) -> Result<Vec<(Vec<Vec<u32>>, usize)>> {
    let mut out = Vec::with_capacity(rankings.len());
    for (k, r) in rankings.iter().enumerate() {
        // Name the ranking as `build` does: several may share a line (a
        // compact file, or a Python list read through this reader).
        let within = |e: Error| e.in_record("ranking", k + 1);
        let mut resolve = |x: &Spanned| resolve(x).map_err(within);
        let JValue::Array(elems) = &r.value else {
            return Err(Error::input(
                name,
                Some(r.line),
                format!("a ranking must be an array, found {}", r.value.kind()),
            ));
        };
        let mut groups = Vec::with_capacity(elems.len());
        for e in elems {
            match &e.value {
                JValue::Array(g) => {
                    if g.is_empty() {
                        return Err(within(Error::input(
                            name,
                            Some(e.line),
                            "empty tied group []",
                        )));
                    }
                    let mut ids = Vec::with_capacity(g.len());
                    for x in g {
                        if let JValue::Array(_) = x.value {
                            return Err(within(Error::input(
                                name,
                                Some(x.line),
                                "tied groups cannot be nested (if this is a selectors file of \
                                 differential diagnoses, read it with `format=selectors`)",
                            )));
                        }
                        ids.push(resolve(x)?);
                    }
                    groups.push(ids);
                }
                _ => groups.push(vec![resolve(e)?]),
            }
        }
        if groups.is_empty() {
            return Err(within(Error::input(name, Some(r.line), "empty ranking []")));
        }
        out.push((groups, r.line));
    }
    Ok(out)
}

fn as_index(name: &str, v: &Spanned) -> Result<u64> {
    match &v.value {
        JValue::Number(x, t)
            if *x >= 0.0 && x.fract() == 0.0 && *x < 4e9 && !t.contains(['e', 'E', '.']) =>
        {
            Ok(*x as u64)
        }
        JValue::Number(x, t) if *x >= 4e9 && x.fract() == 0.0 && !t.contains(['.', '-']) => {
            Err(Error::input(
                name,
                Some(v.line),
                format!(
                    "item id {t} is too large (choix-style ids number the items 0..N-1, \
                     N at most {})",
                    super::MAX_NUMBERED_ITEMS
                ),
            ))
        }
        JValue::Number(_, t) => Err(Error::input(
            name,
            Some(v.line),
            format!("item id {t} is not a non-negative integer"),
        )),
        other => Err(Error::input(
            name,
            Some(v.line),
            format!("expected an item id, found {}", other.kind()),
        )),
    }
}

fn read_lists(
    name: &str,
    rankings: &[Spanned],
    _w: Option<()>,
    opts: &ReadOptions,
) -> Result<Dataset> {
    let (declared, closed) = initial_items(opts);
    let mut max_id = 0u64;
    let mut distinct = std::collections::HashSet::new();
    let groups = collect(name, rankings, &mut |v| {
        let i = as_index(name, v)?;
        if closed && i as usize >= declared.len() {
            return Err(Error::input(
                name,
                Some(v.line),
                match opts.universe_of {
                    Some(_) => opts.outside_universe(&format!("item id {i}"), declared.len()),
                    None => format!(
                        "item id {i} outside the declared universe of {} items (`items`)",
                        declared.len()
                    ),
                },
            ));
        }
        max_id = max_id.max(i);
        distinct.insert(i);
        Ok(i as u32)
    })?;
    if groups.is_empty() {
        return Err(Error::input(name, None, "no rankings"));
    }
    if !closed {
        check_id_range(name, max_id, distinct.len())?;
    }
    let items = if closed {
        declared
    } else {
        Items::numbered(max_id as usize + 1)
    };
    build(name, items, groups, None, None, opts)
}

/// Choix-style ids make every id below the largest an item (with dense
/// arrays): refuse a range beyond [`super::MAX_NUMBERED_ITEMS`], and a
/// sparse one (over 100,000 ids of which under 1% occur) that would only
/// fit thousands of items the data never mention.
fn check_id_range(name: &str, max_id: u64, distinct: usize) -> Result<()> {
    let n = max_id as usize + 1;
    if n > super::MAX_NUMBERED_ITEMS {
        return Err(Error::input(
            name,
            None,
            format!(
                "item id {max_id} is too large (choix-style ids number the items 0..N-1, N at \
                 most {}); renumber the items, or use the object form with names",
                super::MAX_NUMBERED_ITEMS
            ),
        ));
    }
    if n > 100_000 && distinct * 100 < n {
        return Err(Error::input(
            name,
            None,
            format!(
                "item ids are sparse: they run up to {max_id} but only {distinct} distinct ids \
                 occur, and choix-style ids make every id below the largest an item; renumber \
                 the items 0..N-1, or use the object form with names"
            ),
        ));
    }
    Ok(())
}

fn read_object(
    name: &str,
    rankings: &[Spanned],
    items: Option<Items>,
    weights: Option<Vec<(f64, usize)>>,
    rankers: Option<Vec<String>>,
    opts: &ReadOptions,
) -> Result<Dataset> {
    let (declared, closed) = initial_items(opts);
    let items = match (items, closed) {
        (Some(i), true) => {
            if i.names() != declared.names() {
                return Err(Error::input(
                    name,
                    None,
                    "\"items\" in the file differs from `items`",
                ));
            }
            i
        }
        (Some(i), false) => i,
        (None, true) => declared,
        (None, false) => Items::new(),
    };
    let fixed = !items.is_empty();
    let mut items = items;
    let groups = collect(name, rankings, &mut |v| match &v.value {
        JValue::String(s) => match items.get(s) {
            Some(i) => Ok(i),
            None if !fixed => Ok(items.intern(s)),
            None => Err(Error::input(
                name,
                Some(v.line),
                match opts.universe_of {
                    Some(_) => opts.outside_universe(&format!("item {s:?}"), items.len()),
                    None => format!("item {s:?} is not in \"items\""),
                },
            )),
        },
        _ => {
            let i = as_index(name, v)?;
            if (i as usize) < items.len() {
                Ok(i as u32)
            } else {
                Err(Error::input(
                    name,
                    Some(v.line),
                    format!("item index {i} outside \"items\" ({} names)", items.len()),
                ))
            }
        }
    })?;
    if groups.is_empty() {
        return Err(Error::input(name, None, "no rankings"));
    }
    build(name, items, groups, weights, rankers.as_deref(), opts)
}

fn build(
    name: &str,
    items: Items,
    groups: Vec<(Vec<Vec<u32>>, usize)>,
    weights: Option<Vec<(f64, usize)>>,
    rankers: Option<&[String]>,
    opts: &ReadOptions,
) -> Result<Dataset> {
    let mut b = DatasetBuilder::new(items, opts.ties);
    let tail = if opts.top_k {
        Tail::Universe
    } else {
        Tail::None
    };
    for (k, (g, line)) in groups.iter().enumerate() {
        let w = weights.as_ref().map_or(1.0, |ws| ws[k].0);
        match rankers {
            Some(r) => b.push_by(&r[k], g, tail, &[], w),
            None => b.push(g, tail, &[], w),
        }
        .map_err(|m| Error::input(name, Some(*line), m).in_record("ranking", k + 1))?;
    }
    Ok(b.finish())
}

/// The elements of `v` if it is an array, else `msg` at its line.
fn array_of<'a>(name: &str, v: &'a Spanned, msg: &str) -> Result<&'a [Spanned]> {
    match &v.value {
        JValue::Array(a) => Ok(a),
        _ => Err(Error::input(name, Some(v.line), msg)),
    }
}

/// Flat result of the fast path: members, group starts, ranking starts.
struct FastLists {
    members: Vec<u32>,
    group_start: Vec<usize>,
    ranking_start: Vec<usize>,
    max_id: u32,
}

/// Streaming parse of a plain choix-style document (`[[0,1,[2,3]],…]`:
/// arrays of non-negative integers with at most one level of groups). Returns
/// `None` on anything else, including any error, so that the general parser
/// (which reports lines) takes over.
fn fast_lists(text: &str) -> Option<FastLists> {
    let b = text.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\n' | b'\r' | b'\t') {
            *i += 1;
        }
    };
    let int = |i: &mut usize| -> Option<u32> {
        let start = *i;
        let mut v: u64 = 0;
        while *i < b.len() && b[*i].is_ascii_digit() {
            v = v * 10 + (b[*i] - b'0') as u64;
            if v > u32::MAX as u64 / 2 {
                return None;
            }
            *i += 1;
        }
        if *i == start || (b[start] == b'0' && *i - start > 1) {
            return None;
        }
        Some(v as u32)
    };
    // After an element: `,` (more follow: false) or `]` (closed: true).
    let close = |i: &mut usize| -> Option<bool> {
        ws(i);
        let c = *b.get(*i)?;
        *i += 1;
        match c {
            b',' => Some(false),
            b']' => Some(true),
            _ => None,
        }
    };
    let mut out = FastLists {
        members: Vec::new(),
        group_start: Vec::new(),
        ranking_start: Vec::new(),
        max_id: 0,
    };
    ws(&mut i);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    ws(&mut i);
    if b.get(i) == Some(&b']') {
        return None; // empty list: let the general path report it
    }
    loop {
        ws(&mut i);
        if b.get(i) != Some(&b'[') {
            return None;
        }
        i += 1;
        out.ranking_start.push(out.group_start.len());
        let mut any = false;
        loop {
            ws(&mut i);
            match b.get(i)? {
                b']' if !any => return None, // empty ranking
                b'[' => {
                    i += 1;
                    out.group_start.push(out.members.len());
                    loop {
                        ws(&mut i);
                        let v = int(&mut i)?;
                        out.max_id = out.max_id.max(v);
                        out.members.push(v);
                        if close(&mut i)? {
                            break;
                        }
                    }
                }
                _ => {
                    let v = int(&mut i)?;
                    out.max_id = out.max_id.max(v);
                    out.group_start.push(out.members.len());
                    out.members.push(v);
                }
            }
            any = true;
            if close(&mut i)? {
                break;
            }
        }
        if close(&mut i)? {
            break;
        }
    }
    ws(&mut i);
    if i != b.len() {
        return None;
    }
    out.group_start.push(out.members.len());
    out.ranking_start.push(out.group_start.len() - 1);
    Some(out)
}

/// Build from the fast path; `None` if any ranking is invalid (the general
/// path then reports it with its line).
fn build_fast(f: FastLists, opts: &ReadOptions) -> Option<Dataset> {
    let (declared, closed) = initial_items(opts);
    if closed && f.max_id as usize >= declared.len() {
        return None;
    }
    // Id ranges that may be refused: the general path checks them and
    // reports (the members bound the distinct ids from above).
    let n = f.max_id as usize + 1;
    if !closed && (n > super::MAX_NUMBERED_ITEMS || (n > 100_000 && f.members.len() * 100 < n)) {
        return None;
    }
    let items = if closed {
        declared
    } else {
        Items::numbered(f.max_id as usize + 1)
    };
    let mut b = DatasetBuilder::new(items, opts.ties);
    let tail = if opts.top_k {
        Tail::Universe
    } else {
        Tail::None
    };
    let mut groups: Vec<&[u32]> = Vec::new();
    for r in 0..f.ranking_start.len() - 1 {
        groups.clear();
        for g in f.ranking_start[r]..f.ranking_start[r + 1] {
            groups.push(&f.members[f.group_start[g]..f.group_start[g + 1]]);
        }
        b.push(&groups, tail, &[], 1.0).ok()?;
    }
    Some(b.finish())
}
