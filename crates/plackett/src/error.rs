//! Error type shared by the whole library.
//!
//! Every error renders as a single line that names the place (file and line,
//! field or option) and, where one exists, the remedy. The CLI prints it and
//! exits with status 2.

use std::fmt;

/// Where in the user's input an error was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// File name as given by the user (or `<memory>` for in-memory input).
    pub file: String,
    /// 1-based line, if the error belongs to one line.
    pub line: Option<usize>,
    /// The numbered record the error belongs to, where a line does not
    /// say it (several rankings of a JSON file on one line).
    pub record: Option<Record>,
}

/// A numbered record of a file, in the file's own order: `ranking 3`,
/// `weight 2`. Front ends that read the file from their own data place
/// the error by it (Python: `rankings[2]`, `weights[1]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// What the records are ("ranking", "weight").
    pub kind: &'static str,
    /// 1-based number.
    pub number: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}", self.file, l)?,
            None => write!(f, "{}", self.file)?,
        }
        match self.record {
            Some(r) => write!(f, ": {} {}", r.kind, r.number),
            None => Ok(()),
        }
    }
}

/// All errors the library reports to callers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Malformed or invalid input in a file.
    #[error("{loc}: {msg}")]
    Input {
        /// File and line.
        loc: Location,
        /// What is wrong there.
        msg: String,
    },
    /// Invalid data built in memory (no file context).
    #[error("invalid data: {0}")]
    Data(String),
    /// A parameter out of its domain. `param` is the library's name for it
    /// (`prior_shape`, `tol`); front ends map it to their own spelling
    /// (`--prior-shape` in the CLI) with [`render_params`].
    #[error("invalid option `{param}`: {msg}")]
    InvalidParam {
        /// The parameter, as the library's settings name it.
        param: String,
        /// What is wrong with its value.
        msg: String,
    },
    /// The requested estimate does not exist for this data (e.g. MLE on a
    /// comparison graph that is not strongly connected). `never_win` and
    /// `never_lose` name the items responsible, when that is the reason.
    #[error("{msg}")]
    NotIdentifiable {
        /// The explanation and remedy.
        msg: String,
        /// Items that never beat anyone.
        never_win: Vec<String>,
        /// Items that never lost to anyone.
        never_lose: Vec<String>,
    },
    /// A numerical failure (non-finite value, improper cavity, singular
    /// information matrix) with what to try instead.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// A combination that the library does not (yet) support.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// I/O failure on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// An observer (Ctrl-C, a cancelled task) stopped the run.
    #[error("cancelled")]
    Cancelled,
}

/// Longest message kept whole: a message quoting user data (a 10 MB item
/// name) is cut in the middle so the error stays one readable line.
const MESSAGE_MAX: usize = 400;

/// `msg` on one line: newlines become spaces, and every other control
/// character (a carriage return, a record separator from a damaged file)
/// and Unicode's line and paragraph separators are escaped (`\\r`,
/// `\\u{1e}`), so that an error quoting user data stays one line for a
/// terminal, a log and Python's `str.splitlines`.
pub fn one_line(msg: &str) -> std::borrow::Cow<'_, str> {
    let breaks = |c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}';
    if !msg.chars().any(breaks) {
        return std::borrow::Cow::Borrowed(msg);
    }
    let mut out = String::with_capacity(msg.len() + 8);
    for c in msg.chars() {
        match c {
            '\n' => out.push(' '),
            c if breaks(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

fn cap(msg: String) -> String {
    let msg = match one_line(&msg) {
        std::borrow::Cow::Borrowed(_) => msg,
        std::borrow::Cow::Owned(m) => m,
    };
    let n = msg.chars().count();
    if n <= MESSAGE_MAX {
        return msg;
    }
    let head: String = msg.chars().take(MESSAGE_MAX / 2).collect();
    let tail: String = msg.chars().skip(n - MESSAGE_MAX / 4).collect();
    format!(
        "{head}… ({} characters omitted) …{tail}",
        n - MESSAGE_MAX / 2 - MESSAGE_MAX / 4
    )
}

impl Error {
    /// Error at a file position.
    pub fn input(file: &str, line: Option<usize>, msg: impl Into<String>) -> Self {
        Error::Input {
            loc: Location {
                file: cap(file.to_string()),
                line,
                record: None,
            },
            msg: cap(msg.into()),
        }
    }

    /// This error placed in record `number` of kind `kind` (1-based: the
    /// file's `ranking 3`); errors without a file location pass unchanged.
    pub fn in_record(self, kind: &'static str, number: usize) -> Self {
        match self {
            Error::Input { mut loc, msg } => {
                loc.record = Some(Record { kind, number });
                Error::Input { loc, msg }
            }
            e => e,
        }
    }

    /// A parameter out of its domain (`param` as the library names it).
    pub fn param(param: &str, msg: impl Into<String>) -> Self {
        Error::InvalidParam {
            param: param.to_string(),
            msg: cap(msg.into()),
        }
    }

    /// An estimate that does not exist, for a reason other than items that
    /// never win or never lose.
    pub fn not_identifiable(msg: impl Into<String>) -> Self {
        Error::NotIdentifiable {
            msg: cap(msg.into()),
            never_win: Vec::new(),
            never_lose: Vec::new(),
        }
    }

    /// An I/O failure on `path`.
    pub fn io(path: &str, source: std::io::Error) -> Self {
        Error::Io {
            path: cap(path.to_string()),
            source,
        }
    }
}

/// Library result type.
pub type Result<T> = std::result::Result<T, Error>;

/// A JSON parser's message for a user's file. serde quotes field names in
/// backticks, which [`render_params`] would read as parameter names
/// (`format` → `--format`): quote them plainly.
pub fn json_message(e: &serde_json::Error) -> String {
    e.to_string().replace('`', "\"")
}

/// How a front end spells the library's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamStyle {
    /// `--prior-shape`, `--engine gibbs`.
    Cli,
    /// `prior_shape`, `engine="gibbs"`.
    Python,
}

/// A name (an item, a ranker, a column) as an error message shows it: whole
/// up to 60 characters; longer, its first and last characters around the
/// length ("xxxx…(200000 characters)…xxxx"), so that a file with one huge
/// name cannot make a huge error line.
pub fn show_name(name: &str) -> std::borrow::Cow<'_, str> {
    let n = name.chars().count();
    if n <= 60 {
        return std::borrow::Cow::Borrowed(name);
    }
    let head: String = name.chars().take(24).collect();
    let tail: String = name.chars().skip(n - 12).collect();
    std::borrow::Cow::Owned(format!("{head}…({n} characters)…{tail}"))
}

/// A number as an error message shows it: tiny and huge magnitudes in
/// scientific notation ("1e-300", "1e300", not three hundred digits),
/// others as Rust prints them.
pub fn show_number(v: f64) -> String {
    if v.is_finite() && v != 0.0 && !(1e-4..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// Library messages name parameters in backticks: `` `prior_shape` `` or,
/// with a value, `` `engine=gibbs` ``. This turns them into a front end's
/// spelling, so that one message serves the CLI and Python alike.
pub fn render_params(text: &str, style: ParamStyle) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('`') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(j) = after.find('`') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let inner = &after[..j];
        let (name, value) = match inner.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (inner, None),
        };
        let is_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !is_name {
            out.push('`');
            out.push_str(inner);
            out.push('`');
        } else {
            match (style, value) {
                (ParamStyle::Cli, None) => {
                    out.push_str("--");
                    out.push_str(&name.replace('_', "-"));
                }
                (ParamStyle::Cli, Some(v)) => {
                    out.push_str("--");
                    out.push_str(&name.replace('_', "-"));
                    out.push(' ');
                    out.push_str(v);
                }
                (ParamStyle::Python, None) => out.push_str(name),
                // A number is a Python number (`pseudo=0.5`), a word a
                // string (`engine="gibbs"`).
                (ParamStyle::Python, Some(v)) if v.parse::<f64>().is_ok() => {
                    out.push_str(name);
                    out.push('=');
                    out.push_str(v);
                }
                (ParamStyle::Python, Some(v)) => {
                    out.push_str(name);
                    out.push_str("=\"");
                    out.push_str(v);
                    out.push('"');
                }
            }
        }
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_names_show_their_ends_and_length() {
        assert_eq!(super::show_name("short"), "short");
        let long = format!("{}{}", "a".repeat(100_000), "b".repeat(100_000));
        let shown = super::show_name(&long);
        assert!(shown.len() < 100, "{shown}");
        assert!(
            shown.starts_with("aaaa") && shown.ends_with("bbbb"),
            "{shown}"
        );
        assert!(shown.contains("200000 characters"), "{shown}");
    }

    use super::*;

    #[test]
    fn parameters_are_spelled_per_front_end() {
        let m = "use `engine=gibbs` or raise `prior_shape`; keep `x y`";
        assert_eq!(
            render_params(m, ParamStyle::Cli),
            "use --engine gibbs or raise --prior-shape; keep `x y`"
        );
        assert_eq!(
            render_params(m, ParamStyle::Python),
            "use engine=\"gibbs\" or raise prior_shape; keep `x y`"
        );
        assert_eq!(render_params("a ` b", ParamStyle::Cli), "a ` b");
        // Numbers stay numbers in Python.
        assert_eq!(
            render_params("`pseudo=0.5`, `samples=200`", ParamStyle::Python),
            "pseudo=0.5, samples=200"
        );
        assert_eq!(
            render_params("`pseudo=0.5`", ParamStyle::Cli),
            "--pseudo 0.5"
        );
    }

    #[test]
    fn one_line_escapes_what_would_break_a_line() {
        assert_eq!(one_line("plain, é ✓"), "plain, é ✓");
        assert_eq!(one_line("a\nb"), "a b");
        assert_eq!(one_line("col\r"), "col\\r");
        assert_eq!(one_line("n_c\u{1e}mpared"), "n_c\\u{1e}mpared");
        assert_eq!(one_line("x\u{2028}y"), "x\\u{2028}y");
        let e = Error::input("f.csv", Some(1), "no column \"a\rb\"");
        assert_eq!(e.to_string(), "f.csv:1: no column \"a\\rb\"");
    }

    #[test]
    fn numbers_in_messages_stay_short() {
        assert_eq!(show_number(1e-300), "1e-300");
        assert_eq!(show_number(-2.5e300), "-2.5e300");
        assert_eq!(show_number(1e15), "1e15");
        assert_eq!(show_number(0.25), "0.25");
        assert_eq!(show_number(123456.0), "123456");
        assert_eq!(show_number(0.0), "0");
        assert_eq!(show_number(f64::NAN), "NaN");
        assert_eq!(show_number(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn parameter_messages_show_extreme_values_briefly() {
        let bad = crate::numerics::fixed_point::IterSettings::new(-1e300, 10);
        let msg = bad.check().unwrap_err().to_string();
        assert!(msg.contains("got -1e300") && msg.len() < 120, "{msg}");
    }
}
