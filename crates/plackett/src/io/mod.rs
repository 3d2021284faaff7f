//! Readers and writers.
//!
//! Every reader returns one-line errors naming the file and line, never
//! panics on arbitrary bytes, and produces the one flat
//! [`crate::data::Dataset`].

pub mod covariates;
pub mod csv_long;
pub mod features;
pub mod float_serde;
pub mod json;
pub mod json_value;
pub mod model_file;
pub mod orderings;
pub mod output;
pub mod pairs;
pub mod preflib;
pub mod selectors;
pub mod transaction;

use crate::data::{Dataset, Items, TieSemantics};
use crate::error::{Error, Result};
use std::path::Path;

crate::choices! {
    /// Input format.
    pub enum Format("format") {
        /// Long CSV: one row per (ranking, item).
        Csv = "csv",
        /// PrefLib .soc/.soi/.toc/.toi.
        Preflib = "preflib",
        /// choix-style JSON lists or the object form.
        Json = "json",
        /// Differential diagnoses: case → annotator → groups of ids (Stutz et al. 2023).
        Selectors = "selectors",
        /// Pairwise counts: item, item, i_wins, j_wins[, ties].
        Pairs = "pairs",
        /// Wide orderings: column k = the item at rank k; 0 or empty = unranked (PLMIX's layout).
        Orderings = "orderings",
    }
}

impl Format {
    /// Format from a file extension.
    pub fn from_path(path: &str) -> Result<Format> {
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "csv" => Ok(Format::Csv),
            "soc" | "soi" | "toc" | "toi" => Ok(Format::Preflib),
            "json" => Ok(Format::Json),
            _ => Err(Error::input(
                path,
                None,
                "cannot tell the format from the extension; use `format=csv|preflib|json|selectors|pairs|orderings`",
            )),
        }
    }
}

/// Declared item universe (`--items`).
#[derive(Debug, Clone)]
pub enum ItemsSpec {
    /// Names, id i = line i.
    Names(Vec<String>),
    /// Ids `0..n`.
    Count(usize),
}

impl ItemsSpec {
    /// Parse the `--items` value: a count, or a file of names (one per line).
    pub fn from_arg(arg: &str) -> Result<ItemsSpec> {
        if let Ok(n) = arg.trim().parse::<usize>() {
            if n == 0 {
                return Err(Error::param(
                    "items",
                    "the universe needs at least one item",
                ));
            }
            if n > MAX_NUMBERED_ITEMS {
                return Err(Error::param(
                    "items",
                    format!(
                        "{n} items is beyond the supported {MAX_NUMBERED_ITEMS} numbered items \
                         (give the names of the items that occur instead)"
                    ),
                ));
            }
            return Ok(ItemsSpec::Count(n));
        }
        let text = read_text(arg)?;
        let mut names = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (k, line) in text.lines().enumerate() {
            let name = line.trim();
            if name.is_empty() {
                if text.lines().skip(k).all(|l| l.trim().is_empty()) {
                    break;
                }
                return Err(Error::input(arg, Some(k + 1), "empty item name"));
            }
            if !seen.insert(name.to_string()) {
                return Err(Error::input(
                    arg,
                    Some(k + 1),
                    format!("duplicate item name {name:?}"),
                ));
            }
            names.push(name.to_string());
        }
        if names.is_empty() {
            return Err(Error::input(arg, None, "no item names in the file"));
        }
        Ok(ItemsSpec::Names(names))
    }

    /// The universe as [`Items`].
    pub fn to_items(&self) -> Items {
        match self {
            ItemsSpec::Names(n) => Items::from_names(n).expect("checked unique"),
            ItemsSpec::Count(n) => Items::numbered(*n),
        }
    }
}

/// Options shared by the readers.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Format; `None` means from the extension.
    pub format: Option<Format>,
    /// CSV: column naming the ranking.
    pub ranking_col: String,
    /// CSV: column with the rank (lower is better; equal = tied group).
    pub rank_col: String,
    /// CSV: column naming the item.
    pub item_col: String,
    /// CSV: optional weight column.
    pub weight_col: String,
    /// CSV: optional column naming who made each ranking (the adherence
    /// model's rankers); rows of one ranking must agree.
    pub ranker_col: String,
    /// Rankings are top-k lists of the whole universe.
    pub top_k: bool,
    /// Declared universe.
    pub items: Option<ItemsSpec>,
    /// Reading of tied groups.
    pub ties: TieSemantics,
    /// Selectors: only this case (0-based).
    pub case: Option<usize>,
    /// Pairs: the two item columns (default: the first two).
    pub item_cols: Option<(String, String)>,
    /// Whose items the declared universe is (`"the model m.json"`): an item
    /// outside it is then "not an item of the model m.json (3 items)"
    /// rather than outside an `items` the user never declared.
    pub universe_of: Option<String>,
}

impl ReadOptions {
    /// The message for `what` (`item "Z"`) outside the declared universe of
    /// `n` items, in the terms of [`ReadOptions::universe_of`].
    pub(crate) fn outside_universe(&self, what: &str, n: usize) -> String {
        match &self.universe_of {
            Some(whose) => format!("{what} is not an item of {whose} ({n} items)"),
            None => format!("{what} is not in the declared universe (`items`)"),
        }
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: None,
            ranking_col: "ranking".into(),
            rank_col: "rank".into(),
            item_col: "item".into(),
            weight_col: "weight".into(),
            ranker_col: "ranker".into(),
            top_k: false,
            items: None,
            ties: TieSemantics::UnknownOrder,
            case: None,
            item_cols: None,
            universe_of: None,
        }
    }
}

/// Largest universe of numbered items (`--items N`, choix-style id
/// lists): every id below the largest is an item with its own dense
/// arrays, so a stray huge id must not allocate gigabytes.
pub const MAX_NUMBERED_ITEMS: usize = 10_000_000;

/// Largest feature magnitude accepted.
pub const FEATURE_MAX: f64 = 1e100;

/// A feature value from a CSV field: a finite number, or an error at
/// `path:line` naming `what` (a column, or an item's feature); at most
/// [`FEATURE_MAX`] in magnitude.
pub fn finite_feature(path: &str, line: usize, s: &str, what: &str) -> Result<f64> {
    let v: f64 = s
        .parse()
        .map_err(|_| Error::input(path, Some(line), format!("{what}: {s:?} is not a number")))?;
    if !v.is_finite() {
        return Err(Error::input(
            path,
            Some(line),
            format!("{what} is {s} (features must be finite)"),
        ));
    }
    // Squares and exponentials of features must stay finite (standard
    // deviations, exp(xᵀβ), a model file's numbers).
    if v.abs() > FEATURE_MAX {
        return Err(Error::input(
            path,
            Some(line),
            format!("{what} is {s}: too large to use safely (|x| > 1e100); rescale the column"),
        ));
    }
    Ok(v)
}

/// A CSV text's reader and where its records start: what
/// `csv_with_headers` returns and `next_record` reads.
pub struct CsvRows<'a> {
    rdr: csv::Reader<&'a [u8]>,
    text: &'a str,
    lines: CsvLines,
}

/// The next CSV record into `rec` and its 1-based line, `None` at the end
/// of the file, or a one-line error naming `name` and the line.
pub fn next_record(
    rows: &mut CsvRows<'_>,
    rec: &mut csv::StringRecord,
    name: &str,
) -> Result<Option<usize>> {
    match rows.rdr.read_record(rec) {
        Ok(false) => Ok(None),
        Ok(true) => Ok(Some(
            rec.position()
                .map_or(0, |p| rows.lines.line_of(rows.text, p)),
        )),
        Err(e) => Err(csv_error(name, rows.text, &mut rows.lines, &e)),
    }
}

/// The 1-based lines on which a CSV text's records start, as an editor
/// numbers them, for records met in order. The csv crate's own count
/// (`Position::line`) is one short after blank lines (rust-csv issue 208)
/// and after every CRLF line end (issue 395); its byte offset is where the
/// reader resumed — before the blank lines it then skipped, on the LF of a
/// CRLF — so this skips line ends from there and counts the line ends
/// before the record (LF, CRLF or a lone CR, as the reader accepts them),
/// from where the previous record left off (linear in the text).
#[derive(Debug, Clone, Default)]
pub struct CsvLines {
    /// Bytes counted so far.
    at: usize,
    /// Line ends among them.
    ends: usize,
}

impl CsvLines {
    /// The line of the record at `p` in `text` (positions must not go
    /// backwards; a position before the last one counts from there).
    pub fn line_of(&mut self, text: &str, p: &csv::Position) -> usize {
        let bytes = text.as_bytes();
        let mut to = (p.byte() as usize).min(bytes.len());
        while to < bytes.len() && (bytes[to] == b'\n' || bytes[to] == b'\r') {
            to += 1;
        }
        for i in self.at..to {
            // A CR ends a line unless an LF follows (then the LF does).
            if bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                self.ends += 1;
            }
        }
        self.at = self.at.max(to);
        1 + self.ends
    }
}

/// Read a file as UTF-8 text with a one-line error naming it.
pub fn read_text(path: &str) -> Result<String> {
    refuse_devices(path)?;
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    bytes_to_text(path, bytes)
}

/// A character or block device (`/dev/zero`, `/dev/urandom`, a disk) as
/// an input file would be read until memory runs out: refused. Pipes and
/// FIFOs (`/dev/stdin` from a pipe, `<(…)`) end, and are read.
pub fn refuse_devices(path: &str) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(m) = std::fs::metadata(path) {
            let t = m.file_type();
            if t.is_char_device() || t.is_block_device() {
                return Err(Error::input(path, None, "is a device, not a data file"));
            }
        }
    }
    let _ = path;
    Ok(())
}

/// Validate UTF-8, naming the line of the first invalid byte.
pub fn bytes_to_text(path: &str, bytes: Vec<u8>) -> Result<String> {
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::input(path, Some(line), "not valid UTF-8 text")
    })?;
    // A UTF-8 byte-order mark (spreadsheet exports) is not content, in any
    // format.
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// Read a dataset from a file.
pub fn read_path(path: &str, opts: &ReadOptions) -> Result<Dataset> {
    let text = read_text(path)?;
    read_str(path, &text, opts)
}

/// Read a dataset from text; `name` is used in error messages.
pub fn read_str(name: &str, text: &str, opts: &ReadOptions) -> Result<Dataset> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let format = match opts.format {
        Some(f) => f,
        None => Format::from_path(name)?,
    };
    match format {
        Format::Csv => csv_long::read(name, text, opts),
        Format::Preflib => preflib::read(name, text, opts),
        Format::Json => {
            json::read(name, text, opts).map_err(|e| model_file::data_error(name, text, e))
        }
        Format::Selectors => selectors::read(name, text, opts).map(|(d, _)| d),
        Format::Pairs => pairs::read(name, text, opts),
        Format::Orderings => orderings::read(name, text, opts),
    }
}

/// Resolve a declared universe into a builder-ready [`Items`]; the boolean
/// says whether names outside it are errors.
pub(crate) fn initial_items(opts: &ReadOptions) -> (Items, bool) {
    match &opts.items {
        Some(spec) => (spec.to_items(), true),
        None => (Items::new(), false),
    }
}

/// A CSV reader over `text` with a header row (fields trimmed), and its
/// header names with a UTF-8 byte-order mark removed; a malformed header is
/// an input error naming `name` and the line.
pub(crate) fn csv_with_headers<'a>(
    name: &str,
    text: &'a str,
) -> Result<(CsvRows<'a>, Vec<String>)> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut lines = CsvLines::default();
    let headers = rdr
        .headers()
        .map_err(|e| csv_error(name, text, &mut lines, &e))?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    Ok((CsvRows { rdr, text, lines }, headers))
}

/// A CSV parse error in `text` as a one-line input error naming `name` and
/// the line: ragged rows say how many fields were expected, bad bytes say
/// so.
fn csv_error(name: &str, text: &str, lines: &mut CsvLines, e: &csv::Error) -> Error {
    let line = e.position().map(|p| lines.line_of(text, p));
    let msg = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            format!("expected {expected_len} fields, found {len}")
        }
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8 text".to_string(),
        _ => format!("malformed CSV: {e}"),
    };
    Error::input(name, line, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records' lines as an editor numbers them, whatever the line ends
    /// and blank lines (the csv crate's own count is one short after a
    /// CRLF or a blank line).
    #[test]
    fn csv_records_are_numbered_as_an_editor_numbers_lines() {
        for (text, want) in [
            ("h\na\nb\nc\n", vec![2, 3, 4]),
            ("h\r\na\r\nb\r\nc\r\n", vec![2, 3, 4]),
            ("h\r\na\r\nb\r\nc", vec![2, 3, 4]),
            ("h\na\n\nb\n\n\nc\n", vec![2, 4, 7]),
            ("h\r\n\r\na\r\n\r\nb\r\nc\r\n", vec![3, 5, 6]),
            ("h\ra\rb\rc\r", vec![2, 3, 4]),
        ] {
            let (mut rows, _) = csv_with_headers("t.csv", text).unwrap();
            let mut rec = csv::StringRecord::new();
            let mut got = Vec::new();
            while let Some(line) = next_record(&mut rows, &mut rec, "t.csv").unwrap() {
                got.push(line);
            }
            assert_eq!(got, want, "{text:?}");
        }
        // An error in the third data row of a CRLF file names line 4.
        let text = "h,k\r\n1,2\r\n3,4\r\n5\r\n";
        let (mut rows, _) = csv_with_headers("t.csv", text).unwrap();
        let mut rec = csv::StringRecord::new();
        let e = loop {
            match next_record(&mut rows, &mut rec, "t.csv") {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("no error"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(e.starts_with("t.csv:4: expected 2 fields, found 1"), "{e}");
    }
}
