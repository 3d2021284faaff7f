//! Papers are cited by author and year (docs/references.md), never by the
//! internal file names they were once known by, and never by the internal
//! implementation notes users have not seen. This test keeps it so: it
//! scans `crates/`, `docs/` and `README.md` for the old "seed NNN" form and
//! for the notes' file names.

use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn papers_are_cited_by_author_and_year() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Built at run time so this file does not match itself.
    let needles = [
        format!("seed {}", "00"),
        format!("seed{}", "00"),
        format!("plackett-luce-{}.md", "core"),
        format!("ground-truth-{}.md", "aggregation"),
        format!("keywords-and-{}.md", "mil"),
        format!("shared/{}", "spec"),
    ];
    let mut files = vec![root.join("README.md")];
    walk(&root.join("crates"), &mut files);
    walk(&root.join("docs"), &mut files);
    let mut hits = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        // Comment lines joined too, so a reference broken across two
        // lines ("… by seed" / "000's …") is caught.
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let next = lines.get(i + 1).map_or("", |n| {
                n.trim_start()
                    .trim_start_matches(['/', '!', '#', '*'])
                    .trim_start()
            });
            let l = format!("{} {}", line.trim_end(), next).to_lowercase();
            if needles.iter().any(|n| l.contains(n.as_str())) {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "cite papers by author and year (docs/references.md), not by internal files:\n{}",
        hits.join("\n")
    );
    assert!(root.join("docs/references.md").is_file());
}
