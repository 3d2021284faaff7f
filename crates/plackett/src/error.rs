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
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}", self.file, l),
            None => write!(f, "{}", self.file),
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
    /// An option or parameter out of its domain.
    #[error("invalid option {name}: {msg}")]
    Option {
        /// The option (as the front end spells it).
        name: String,
        /// What is wrong with its value.
        msg: String,
    },
    /// The requested estimate does not exist for this data (e.g. MLE on a
    /// comparison graph that is not strongly connected).
    #[error("{0}")]
    NotIdentifiable(String),
    /// A numerical failure (non-finite value, improper cavity, singular
    /// information matrix) with what to try instead.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// A combination that the library does not (yet) support.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// I/O failure on a named file.
    #[error("{file}: {msg}")]
    Io {
        /// The file.
        file: String,
        /// The operating system's message.
        msg: String,
    },
}

/// Longest message kept whole: a message quoting user data (a 10 MB item
/// name) is cut in the middle so the error stays one readable line.
const MESSAGE_MAX: usize = 400;

fn cap(msg: String) -> String {
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
            },
            msg: cap(msg.into()),
        }
    }

    /// Error in an option value.
    pub fn option(name: &str, msg: impl Into<String>) -> Self {
        Error::Option {
            name: name.to_string(),
            msg: cap(msg.into()),
        }
    }
}

/// Library result type.
pub type Result<T> = std::result::Result<T, Error>;
