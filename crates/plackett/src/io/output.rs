//! Text output shared by every family: CSV fields, names cut for tables and
//! messages, and all-or-nothing file writes.

/// Longest name shown whole in a table; longer names are cut with an
/// ellipsis (a 10 MB item name must neither flood the terminal nor exceed
/// the formatter's width limit).
pub const NAME_WIDTH: usize = 60;

/// `n` and its noun, singular for one: `count(1, "case", "cases")` is
/// "1 case", `count(3, "case", "cases")` "3 cases".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The first `max` of `items` joined by ", ", with ", …" when there are
/// more: a list in a one-line message.
pub fn first_few<T: std::fmt::Display>(items: &[T], max: usize) -> String {
    let mut s = items
        .iter()
        .take(max)
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        s.push_str(", …");
    }
    s
}

/// `name` cut to `max` characters, with "…" marking the cut, and its
/// control characters escaped (`\n`), so that a name from a data file or an
/// argument keeps an error message on one line and a table row on its row.
pub fn short_name(name: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let name: std::borrow::Cow<'_, str> = if name.chars().any(char::is_control) {
        let mut out = String::with_capacity(name.len() + 4);
        for c in name.chars() {
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(name)
    };
    if name.chars().count() <= max {
        name
    } else {
        let mut s: String = name.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        std::borrow::Cow::Owned(s)
    }
}

/// Width of a table column of names: the longest (cut at [`NAME_WIDTH`]),
/// at least `min`.
pub fn column_width<'a>(names: impl Iterator<Item = &'a str>, min: usize) -> usize {
    names
        .map(|n| n.chars().count().min(NAME_WIDTH))
        .max()
        .unwrap_or(min)
        .max(min)
}

/// A CSV document: the header, then one record per row. Writing into
/// memory cannot fail, so neither can this.
pub fn csv_text<H, R>(
    header: impl IntoIterator<Item = H>,
    rows: impl IntoIterator<Item = R>,
) -> String
where
    H: AsRef<[u8]>,
    R: IntoIterator,
    R::Item: AsRef<[u8]>,
{
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).expect("writing to memory");
    for row in rows {
        w.write_record(row).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 fields")
}

/// The first line of a fit's table, the same for every family that fits
/// items: `engine E (algorithm), N items, M observations[ (weighted: total
/// weight W)][ (D uninformative dropped)], ties: T`.
pub fn fit_heading(
    (engine, algorithm): (&str, &str),
    n_items: usize,
    n_observations: usize,
    total_weight: Option<f64>,
    dropped: usize,
    ties: impl std::fmt::Display,
) -> String {
    let weighted = total_weight.map_or(String::new(), |w| {
        format!(" (weighted: total weight {})", crate::numerics::sig(w, 6))
    });
    let dropped = if dropped > 0 {
        format!(" ({dropped} uninformative dropped)")
    } else {
        String::new()
    };
    format!(
        "engine {engine} ({algorithm}), {}, {}{weighted}{dropped}, ties: {ties}",
        count(n_items, "item", "items"),
        count(n_observations, "observation", "observations"),
    )
}

/// Write `content` to `path` atomically (temporary file + rename), so that
/// a failure never leaves a partial output file.
pub fn write_atomic(path: &str, content: &[u8]) -> crate::Result<()> {
    write_all_atomic(&[(path, content)])
}

/// Write several files all or nothing, as one
/// [`Transaction`](crate::io::transaction::Transaction): two outputs naming
/// the same file are refused, and a failure on one (a bad directory) leaves
/// none of the others behind.
pub fn write_all_atomic(files: &[(&str, &[u8])]) -> crate::Result<()> {
    let mut t = crate::io::transaction::Transaction::new();
    for (path, _) in files {
        t.reserve("", path)?;
    }
    for (path, content) in files {
        t.write(path, content)?;
    }
    t.commit()
}

/// The total weight of `ds`'s real observations when any is not 1 (what
/// the report says so that a weight column is never used silently).
pub(crate) fn weighted_total(ds: &crate::data::Dataset) -> Option<f64> {
    let w = (0..ds.n_real_obs()).map(|o| ds.obs(o).weight);
    w.clone().any(|x| x != 1.0).then(|| w.sum())
}

#[cfg(test)]
mod tests {
    use super::{count, first_few, short_name};

    #[test]
    fn counts_agree_with_their_number() {
        assert_eq!(count(1, "case", "cases"), "1 case");
        assert_eq!(count(0, "case", "cases"), "0 cases");
        assert_eq!(count(12, "replicate", "replicates"), "12 replicates");
    }

    #[test]
    fn first_few_marks_what_it_leaves_out() {
        assert_eq!(first_few(&[4, 2], 8), "4, 2");
        assert_eq!(first_few(&["a", "b", "c"], 2), "a, b, …");
        assert_eq!(first_few::<u8>(&[], 3), "");
    }

    #[test]
    fn short_names_stay_on_one_line() {
        assert_eq!(short_name("worth", 10), "worth");
        assert_eq!(short_name("abcdefgh", 4), "abc…");
        assert_eq!(short_name("a\nb\tc", 20), "a\\nb\\tc");
        assert_eq!(
            short_name("Empty\nColumns: []\nIndex: []", 12),
            "Empty\\nColu…"
        );
        assert!(!short_name("x\r\ny\u{0}", 40).contains(['\n', '\r', '\0']));
    }
}
