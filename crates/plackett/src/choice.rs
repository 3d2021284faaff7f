//! Closed sets of named options (engines, methods, formats), each defined
//! once: the spelling a user types, its one-line help, and the parse that
//! refuses anything else. The CLI builds its flag parsers from
//! [`Choice::ALL`], [`Choice::name`] and [`Choice::help`] (so `--help` lists
//! what the library accepts and an unknown value is refused with the valid
//! ones, never defaulted), and the Python layer parses keyword values with
//! [`Choice::parse`]. The library itself does not depend on clap.

use crate::error::{Error, Result};

/// A closed set of named values; see the module docs. Implement it with
/// [`choices!`](crate::choices).
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    /// The option the values are for (`engine`, `method`, `format`): named
    /// in errors.
    const FIELD: &'static str;
    /// Every value, in the order help lists them.
    const ALL: &'static [Self];

    /// The spelling users type and documents carry.
    fn name(self) -> &'static str;

    /// One line of help.
    fn help(self) -> &'static str;

    /// `a, b or c`: the valid spellings, for messages.
    fn spellings() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }

    /// The value spelt `s`; anything else is an [`Error::InvalidParam`]
    /// naming [`Choice::FIELD`] and the valid spellings.
    fn parse(s: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                Error::param(
                    Self::FIELD,
                    format!("expected {}, got {s:?}", Self::spellings()),
                )
            })
    }
}

/// Define an enum whose variants are spelt and documented once:
///
/// ```
/// plackett::choices! {
///     /// How much to say.
///     pub enum Verbosity("verbosity") {
///         /// Nothing.
///         Quiet = "quiet",
///         /// Everything.
///         Loud = "loud",
///     }
/// }
/// use plackett::choice::Choice;
/// assert_eq!(Verbosity::parse("loud").unwrap(), Verbosity::Loud);
/// assert_eq!(Verbosity::Quiet.help(), "Nothing.");
/// assert!(Verbosity::parse("shout").unwrap_err().to_string().contains("quiet or loud"));
/// ```
///
/// Each variant's doc comment is its help line. The enum derives `Debug`,
/// `Clone`, `Copy`, `PartialEq` and `Eq`; further attributes (serde's) go
/// above it.
#[macro_export]
macro_rules! choices {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($field:literal) {
            $( $(#[doc = $doc:literal])* $variant:ident = $spelling:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[doc = $doc])* $variant ),+
        }

        impl $crate::choice::Choice for $name {
            const FIELD: &'static str = $field;
            const ALL: &'static [Self] = &[$($name::$variant),+];

            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $spelling),+
                }
            }

            fn help(self) -> &'static str {
                match self {
                    $($name::$variant => concat!($($doc),*).trim_start()),+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::choice::Choice::name(*self))
            }
        }
    };
}
