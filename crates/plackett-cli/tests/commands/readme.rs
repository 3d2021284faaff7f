//! Every `plackett …` example in README.md runs from a plain clone: the
//! commands are read from the README's `sh` blocks (continuation lines
//! joined, `NAME=value` lines substituted) and run against the shipped
//! `data/`, writing under a scratch `out/`. The two that take 20 s each
//! (`mil cv` of Musk 2 in 10 folds, `evaluate` leave-one-annotator-out of
//! all 1,947 cases) run on small inputs (`docs_commands::small`: 2 folds,
//! 40 cases).

use crate::common;

use common::{bin, tmpdir};
use std::path::PathBuf;

/// Split a command line into words, honouring double quotes.
pub fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

fn readme_commands() -> Vec<Vec<String>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("README.md")).unwrap();
    sh_lines(&text)
        .into_iter()
        .filter_map(|l| match l {
            ShLine::Plackett(words) => Some(words),
            ShLine::Other(_) => None,
        })
        .collect()
}

/// A line of a Markdown `sh` block: a `plackett …` command (its words,
/// `NAME=value` variables substituted) or any other command (its text).
pub enum ShLine {
    Plackett(Vec<String>),
    Other(String),
}

/// The lines of every `sh` block of a Markdown text: continuation lines
/// joined, comments (` # …`) dropped, `NAME=value` lines substituted into
/// the lines after them.
pub fn sh_lines(text: &str) -> Vec<ShLine> {
    let mut out = Vec::new();
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line.trim() == "```sh" && !in_sh;
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = line.split(" # ").next().unwrap_or(line);
        pending.push_str(line.trim_end().trim_end_matches('\\'));
        pending.push(' ');
        if line.trim_end().ends_with('\\') {
            continue;
        }
        let full = std::mem::take(&mut pending);
        let full = full.trim();
        if let Some((k, v)) = full.split_once('=')
            && !k.contains(' ')
            && !k.is_empty()
        {
            vars.retain(|(name, _)| *name != format!("${k}"));
            vars.push((format!("${k}"), v.to_string()));
            continue;
        }
        let mut r = full.to_string();
        for (k, v) in &vars {
            r = r.replace(k.as_str(), v);
        }
        match r.strip_prefix("plackett ") {
            Some(rest) => out.push(ShLine::Plackett(words(rest))),
            None if !r.is_empty() => out.push(ShLine::Other(r)),
            None => {}
        }
    }
    out
}

#[test]
fn every_readme_example_runs() {
    let cmds = readme_commands();
    assert!(
        cmds.len() >= 15,
        "found only {} README commands",
        cmds.len()
    );
    let dir = tmpdir("readme");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::os::unix::fs::symlink(root.join("data").canonicalize().unwrap(), dir.join("data"))
        .unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    for c in &cmds {
        // Slow examples on small inputs (as the docs' commands).
        let c = &crate::docs_commands::small(c.clone());
        let o = bin().args(c).current_dir(&dir).output().unwrap();
        assert!(
            o.status.success(),
            "plackett {}: {}",
            c.join(" "),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !o.stdout.is_empty() || c.iter().any(|w| w == "--out"),
            "{c:?} printed nothing"
        );
    }
    for f in [
        "nascar.html",
        "salad.html",
        "r.json",
        "f.csv",
        "wine.json",
        "path.csv",
        "path.svg",
    ] {
        assert!(dir.join("out").join(f).is_file(), "out/{f} not written");
    }
}
