#![allow(dead_code)]
use std::path::PathBuf;

/// The repository's `data/` folder (the shipped example datasets; see
/// `data/README.md`). Missing data is a failure, never a skip.
pub fn data_dir() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data");
    assert!(
        p.is_dir(),
        "{} missing: the example data ships with the repository",
        p.display()
    );
    p
}

pub fn path(dir: &std::path::Path, rel: &str) -> String {
    dir.join(rel).to_string_lossy().into_owned()
}
