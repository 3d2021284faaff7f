//! Every command's help ends with examples (issue: a newcomer's first
//! hour, item 16); each one runs, as printed by `-h`, in the order of
//! `plackett_cli::examples::EXAMPLES`, from a folder holding the shipped
//! `data/` and a scratch `out/` — so an example in the help is never stale.

use crate::common;
use crate::readme::words;

use common::{bin, tmpdir};
use std::path::PathBuf;

/// The example lines of `plackett <path> -h`.
fn help_examples(path: &str) -> Vec<String> {
    let out = bin().args(path.split(' ')).arg("-h").output().unwrap();
    assert!(out.status.success(), "plackett {path} -h failed");
    let text = String::from_utf8(out.stdout).unwrap();
    let (_, tail) = text
        .split_once("Examples (from the repository's root):\n")
        .unwrap_or_else(|| panic!("plackett {path} -h has no examples"));
    tail.lines()
        .take_while(|l| l.starts_with("  plackett "))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn every_help_example_runs() {
    let dir = tmpdir("help_examples");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::os::unix::fs::symlink(root.join("data").canonicalize().unwrap(), dir.join("data"))
        .unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let mut ran = 0;
    for (path, listed, _) in plackett_cli::examples::EXAMPLES {
        let shown = help_examples(path);
        assert_eq!(shown.len(), listed.len(), "plackett {path} -h");
        assert!(
            !shown.is_empty() && shown.len() <= 4,
            "plackett {path}: 1 to 4 examples"
        );
        for line in shown {
            let w = words(line.strip_prefix("plackett ").unwrap());
            let o = bin().args(&w).current_dir(&dir).output().unwrap();
            assert!(
                o.status.success(),
                "{line}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 20, "only {ran} examples");
}

/// `-h` is a summary that fits a screen or two: at most 80 lines for every
/// command, with `--help` the long form.
#[test]
fn short_help_is_at_most_eighty_lines() {
    for (path, _, _) in plackett_cli::examples::EXAMPLES {
        let out = bin().args(path.split(' ')).arg("-h").output().unwrap();
        let n = String::from_utf8_lossy(&out.stdout).lines().count();
        assert!(n <= 80, "plackett {path} -h: {n} lines");
    }
}
