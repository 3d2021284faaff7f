//! Memory asked for before it is needed: a path that allocates in
//! proportion to a size the user controls (rankings to simulate, features
//! of a dense covariance, words of a dense graph) first asks whether this
//! process can have that much, so that too large a request is an error
//! naming the option to change — not an abort of the program (or of the
//! Python interpreter) when the allocation fails half-way.
//!
//! The question is put to the allocator itself: reserve the bytes and give
//! them back. The reservation is virtual (untouched pages cost nothing), so
//! it is cheap; it fails where the real allocation would — under an
//! address-space limit (`ulimit -v`), or beyond what the kernel's
//! overcommit rule grants.

use crate::error::{Error, Result};

/// Refuse, as an error on option `option`, a computation that needs about
/// `bytes` of memory for `what` if this process cannot have that much now;
/// `remedy` says what to change.
pub fn ensure(bytes: u128, option: &str, what: &str, remedy: &str) -> Result<()> {
    let fits = usize::try_from(bytes)
        .ok()
        .filter(|&b| b <= isize::MAX as usize)
        .is_some_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok());
    if fits {
        return Ok(());
    }
    Err(Error::param(
        option,
        format!(
            "{what}: about {} of memory is needed, more than this process can have; {remedy}",
            show_bytes(bytes)
        ),
    ))
}

/// `bytes` for people: "80 GB", "1.1 GB", "640 MB".
pub fn show_bytes(bytes: u128) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.0} TB", b / 1e12)
    } else if b >= 1e10 {
        format!("{:.0} GB", b / 1e9)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_impossible_request_is_an_error_naming_the_option() {
        assert!(super::ensure(1 << 20, "rankings", "simulating", "ask for fewer").is_ok());
        let e = super::ensure(1u128 << 70, "rankings", "simulating", "ask for fewer")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`rankings`") && e.contains("ask for fewer"),
            "{e}"
        );
        assert_eq!(super::show_bytes(80_000_000_000), "80 GB");
        assert_eq!(super::show_bytes(1_100_000_000), "1.1 GB");
    }
}
