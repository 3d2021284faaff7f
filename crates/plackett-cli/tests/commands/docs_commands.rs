//! Every `plackett …` command in `docs/*.md` runs (issue 91: "every README
//! and docs command runs in CI, with small inputs where the real ones are
//! slow"). Each page's `sh` blocks run in order in a scratch folder of
//! their own (so a page's later commands read what its earlier ones wrote
//! under `out/`), with `data/` linked in. The placeholder files the pages
//! name for the reader's own data (`ratings.csv`, `ballots.csv`,
//! `paper.txt`, `CORPUS_DIR`, …) are written here, small and with a known
//! structure; commands that take minutes on the real inputs run on fewer
//! cases, replicates or draws ([`SMALL`]). A line that is not a
//! `plackett` command (the groundtruth page's `make_scores.py`) is set-up
//! this test does itself: it writes the score file.

use crate::common;
use crate::readme::{ShLine, sh_lines};

use common::{bin, tmpdir};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Slow commands made small: (text in the command, replacement).
const SMALL: &[(&str, &str)] = &[
    // 20 replicates of every factor: an hour; one of the basic setting.
    (
        "--replicates 20 --factors all",
        "--replicates 1 --factors basic --test-bags 100",
    ),
    // 4 chains of the default length on 500 bags: half a minute.
    (
        "--engine gibbs --chains 4",
        "--engine gibbs --chains 2 --samples 200 --burn-in 200",
    ),
    ("--folds 10 --repeats 3", "--folds 3 --repeats 1"),
    // Eight vMMIC optima: 5 s; three show the same mixture path.
    ("--mixture 8", "--mixture 3"),
    // The README's 10-fold CV of Musk 2 (6,598 instances): 20 s.
    ("--folds 10 --repeats 1", "--folds 2 --repeats 1"),
];

/// Cases the dermatology evaluations are run on (all 1,947 at five
/// reliabilities: minutes; leave-one-annotator-out on all: 20 s).
const CASES: usize = 40;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A small deterministic generator (SplitMix64) for the fixtures.
struct Mix(u64);
impl Mix {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A Plackett–Luce ranking of `items` under `log_worths` (Gumbel trick).
    fn ranking(&mut self, items: &[&'static str], log_worths: &[f64]) -> Vec<&'static str> {
        let mut keyed: Vec<(f64, &'static str)> = items
            .iter()
            .zip(log_worths)
            .map(|(&it, &lw)| (lw - (-(self.next().max(1e-300)).ln()).ln(), it))
            .collect();
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
        keyed.into_iter().map(|(_, it)| it).collect()
    }
}

const ITEMS: [&str; 5] = ["A", "B", "C", "D", "E"];
const WORTHS: [f64; 5] = [2.0, 1.2, 0.6, 0.2, 0.0];

/// Long CSV (`ranking,ranker,item,rank`): rankings of 4 of 5 items, the
/// ranker of each named by `ranker`.
fn long_csv(n: usize, seed: u64, ranker: impl Fn(usize) -> String) -> String {
    let mut g = Mix(seed);
    let mut out = String::from("ranking,ranker,item,rank\n");
    for r in 0..n {
        let order = g.ranking(&ITEMS, &WORTHS);
        for (k, it) in order.iter().take(4).enumerate() {
            writeln!(out, "{},{},{it},{}", r + 1, ranker(r), k + 1).unwrap();
        }
    }
    out
}

/// Wide orderings (PLMIX layout) from two components with opposite
/// orders; every third ballot a top-3 list.
fn ballots(n: usize, seed: u64) -> String {
    let mut g = Mix(seed);
    let reversed: Vec<f64> = WORTHS.iter().rev().copied().collect();
    let mut out = String::from("Rank_1,Rank_2,Rank_3,Rank_4,Rank_5\n");
    for b in 0..n {
        let lw = if g.next() < 0.6 {
            &WORTHS[..]
        } else {
            &reversed[..]
        };
        let order = g.ranking(&ITEMS, lw);
        let shown = if b % 3 == 0 { 3 } else { 5 };
        let fields: Vec<&str> = (0..5)
            .map(|k| if k < shown { order[k] } else { "" })
            .collect();
        writeln!(out, "{}", fields.join(",")).unwrap();
    }
    out
}

/// Lower-case words of a text.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A corpus in the SemEval layout (`docsutf8/`, `keys/`) from the shipped
/// texts (three copies each), keyed by their 30 most frequent words of 5
/// letters or more,
/// and the same documents as pre-computed candidate sequences (`docs/`,
/// `map.tsv`).
fn corpus(dir: &Path) {
    let docs = ["ranking_models", "keyword_extraction"];
    let c = dir.join("CORPUS_DIR");
    let a = dir.join("AUTHORS_CANDIDATES_DIR");
    for sub in [c.join("docsutf8"), c.join("keys"), a.join("docs")] {
        std::fs::create_dir_all(sub).unwrap();
    }
    let mut map = String::new();
    for (i, id) in docs.iter().enumerate() {
        // Three copies: a full paper's word counts from an abstract's text
        // (the protocol keeps words seen more than twice).
        let text = std::fs::read_to_string(root().join(format!("data/text/{id}.txt")))
            .unwrap()
            .repeat(3);
        std::fs::write(c.join(format!("docsutf8/{id}.txt")), &text).unwrap();
        let words = words_of(&text);
        let mut counts: Vec<(String, usize)> = Vec::new();
        for w in words.iter().filter(|w| w.len() >= 5) {
            match counts.iter_mut().find(|(x, _)| x == w) {
                Some(e) => e.1 += 1,
                None => counts.push((w.clone(), 1)),
            }
        }
        counts.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        let keys: Vec<&str> = counts.iter().take(30).map(|(w, _)| w.as_str()).collect();
        std::fs::write(c.join(format!("keys/{id}.key")), keys.join("\n") + "\n").unwrap();
        std::fs::write(a.join(format!("docs/{i}.txt")), words.join(" ")).unwrap();
        writeln!(map, "{i}.txt\t{id}").unwrap();
    }
    std::fs::write(a.join("map.tsv"), map).unwrap();
}

/// The placeholder inputs the pages name.
fn fixtures(dir: &Path) {
    let write = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    // Three rankers: the page fixes three adherences (`--fixed-adherence 0.75,1,1.25`).
    write("ratings.csv", long_csv(150, 1, |r| format!("r{}", r % 3)));
    write(
        "new.csv",
        long_csv(6, 2, |r| {
            if r < 3 {
                format!("r{r}")
            } else {
                "newcomer".into()
            }
        }),
    );
    write("data.csv", long_csv(200, 3, |r| format!("r{r}")));
    write("ballots.csv", ballots(300, 4));
    write("new_ballots.csv", ballots(5, 5));
    write(
        "paper.txt",
        std::fs::read_to_string(root().join("data/text/ranking_models.txt")).unwrap(),
    );
    // A small co-occurrence graph: a ring of 12 words with chords.
    let mut edges = String::new();
    for i in 1..=12 {
        let j = i % 12 + 1;
        let k = (i + 4) % 12 + 1;
        writeln!(edges, "node{i},node{j},2\nnode{i},node{k},1").unwrap();
    }
    write("edges.csv", edges);
    corpus(dir);
}

/// The groundtruth page's score file (its `make_scores.py` line): one row
/// per evaluated case, one column per class.
fn scores(dir: &Path, classes: usize) {
    let mut g = Mix(7);
    let mut out = String::new();
    for _ in 0..CASES {
        let row: Vec<String> = (0..classes).map(|_| format!("{:.4}", g.next())).collect();
        writeln!(out, "{}", row.join(" ")).unwrap();
    }
    std::fs::write(dir.join("scores.txt"), out).unwrap();
}

/// A command as CI runs it: [`SMALL`]'s replacements, and an `evaluate`
/// without `--cases` on the first [`CASES`] cases.
pub fn small(mut words: Vec<String>) -> Vec<String> {
    let line = words.join(" ");
    for (from, to) in SMALL {
        if line.contains(from) {
            let replaced = line.replace(from, to);
            words = replaced.split(' ').map(str::to_string).collect();
            // Quoted arguments keep their spaces: none of SMALL's commands
            // has one.
            assert!(!words.iter().any(|w| w.contains('"')));
        }
    }
    if words.first().is_some_and(|w| w == "evaluate") && !words.iter().any(|w| w == "--cases") {
        let cases: Vec<String> = (0..CASES).map(|c| c.to_string()).collect();
        words.push("--cases".into());
        words.push(cases.join(","));
    }
    words
}

#[test]
fn every_docs_command_runs() {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    let mut ran = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let lines = sh_lines(&text);
        if !lines.iter().any(|l| matches!(l, ShLine::Plackett(_))) {
            continue;
        }
        let stem = page.file_stem().unwrap().to_string_lossy().to_string();
        let dir = tmpdir(&format!("docs-{stem}"));
        std::os::unix::fs::symlink(
            root().join("data").canonicalize().unwrap(),
            dir.join("data"),
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("out")).unwrap();
        fixtures(&dir);
        for line in lines {
            let words = match line {
                ShLine::Plackett(w) => small(w),
                ShLine::Other(cmd) if cmd.contains("make_scores.py") => {
                    scores(&dir, 419);
                    continue;
                }
                // cargo, python and shell lines (benchmarks' set-up) are
                // not the command line's to test.
                ShLine::Other(_) => continue,
            };
            let t0 = std::time::Instant::now();
            let o = bin().args(&words).current_dir(&dir).output().unwrap();
            eprintln!(
                "{:5.1} s  {stem}: plackett {}",
                t0.elapsed().as_secs_f64(),
                words.join(" ")
            );
            assert!(
                o.status.success(),
                "{}: plackett {}: {}",
                page.display(),
                words.join(" "),
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(ran >= 35, "ran only {ran} docs commands");
}
