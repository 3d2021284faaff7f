//! The text front end's tests against published keyword data, one
//! binary; run one with `cargo test --release -p plackett-text --test text semeval::`.

mod inspec;
mod malformed;
mod semeval;
