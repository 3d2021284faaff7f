#![allow(dead_code)]
use std::path::PathBuf;

/// `../shared/data` beside the workspace, or `None` (with a printed SKIP
/// message) when absent.
pub fn data_dir(test: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIP {test}: ../shared/data not found beside the repository");
        None
    }
}

pub fn path(dir: &std::path::Path, rel: &str) -> String {
    dir.join(rel).to_string_lossy().into_owned()
}
