//! Outputs as one transaction, for every command and every output option,
//! enumerated from the command definition itself (an option is an output
//! when it carries `ValueHint::FilePath`; `src/outputs.rs`), so that a new
//! output option is checked the day it is added.
//!
//! - no output replaces an input, under its own name, `./name`, a symlink or
//!   a hard link: exit 2 before any work, the input byte-identical;
//! - two outputs naming one file are refused, nothing written;
//! - a run that fails (bad input, an unwritable last target) writes
//!   nothing and leaves no temporary;
//! - symlinks, FIFOs and character devices survive being an output;
//! - runs killed at random points leave nothing the next run does not
//!   clean, and no set of targets mixing two runs.

use crate::common;
use crate::common::words;

use common::{bin, tmpdir};
use std::path::{Path, PathBuf};

/// A leaf command: its path (`["classify", "fit"]`) and definition.
fn leaves() -> Vec<(Vec<String>, clap::Command)> {
    fn walk(c: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
        if c.has_subcommands() {
            for s in c.get_subcommands() {
                let mut p = path.clone();
                p.push(s.get_name().to_string());
                walk(s, p, out);
            }
        } else {
            out.push((path, c.clone()));
        }
    }
    let mut out = Vec::new();
    walk(&plackett_cli::command(), Vec::new(), &mut out);
    assert!(out.len() >= 20, "{} commands", out.len());
    out
}

/// The required output options of `c` other than `except`, each given a
/// fresh file in `dir`.
fn required_outputs(c: &clap::Command, except: &[&str], dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for a in c
        .get_arguments()
        .filter(|a| plackett_cli::is_output(a) && a.is_required_set())
    {
        let o = format!("--{}", a.get_long().unwrap());
        if !except.contains(&o.as_str()) {
            v.push(o);
            v.push(
                dir.join(format!("required-{}", a.get_id()))
                    .to_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    v
}

fn outputs(c: &clap::Command) -> Vec<String> {
    c.get_arguments()
        .filter(|a| plackett_cli::is_output(a))
        .map(|a| {
            format!(
                "--{}",
                a.get_long().expect("output options are long options")
            )
        })
        .collect()
}

/// Commands that read no file: nothing of theirs can be overwritten.
const NO_INPUT: [&str; 4] = ["demo", "simulate", "mil simulate", "mil study"];

/// The command line of `path` with every required argument filled: files
/// with `input`, other values with a harmless word. `None` for a command
/// that reads no file.
fn base_args(path: &[String], c: &clap::Command, input: &Path) -> Option<Vec<String>> {
    let mut args = path.to_vec();
    let mut reads = false;
    for a in c.get_arguments().filter(|a| a.is_required_set()) {
        if plackett_cli::is_output(a) {
            continue;
        }
        let value = match a.get_id().as_str() {
            "known" => "word".to_string(),
            _ => {
                reads = true;
                input.to_str().unwrap().to_string()
            }
        };
        if !a.is_positional() {
            args.push(format!("--{}", a.get_long().unwrap()));
        }
        args.push(value);
    }
    // evaluate's annotations are positional but optional (a flag may give them).
    if path == ["evaluate"] {
        args.push(input.to_str().unwrap().to_string());
        reads = true;
    }
    let name = path.join(" ");
    assert_eq!(
        reads,
        !NO_INPUT.contains(&name.as_str()),
        "{name}: does it read a file? update NO_INPUT"
    );
    reads.then_some(args)
}

/// What a failed run must leave: exit 2, one line naming `needle`.
fn refused(out: &std::process::Output, needle: &str, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(err.contains(needle), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn no_output_option_of_any_command_replaces_an_input() {
    let d = tmpdir("outputs-inputs");
    let input = d.join("in.csv");
    let body = b"ranking,rank,item\n1,1,a\n1,2,b\n";
    std::fs::write(&input, body).unwrap();
    std::fs::hard_link(&input, d.join("hard.csv")).unwrap();
    std::os::unix::fs::symlink("in.csv", d.join("soft.csv")).unwrap();
    let mut checked = 0;
    for (path, c) in leaves() {
        let Some(args) = base_args(&path, &c, &input) else {
            continue;
        };
        for o in outputs(&c) {
            for alias in ["in.csv", "./in.csv", "hard.csv", "soft.csv"] {
                let target = format!("{}/{alias}", d.display());
                let out = bin()
                    .args(&args)
                    .args(required_outputs(&c, &[&o], &d))
                    .args([o.as_str(), target.as_str()])
                    .output()
                    .unwrap();
                refused(&out, "is the input file", &format!("{path:?} {o} {alias}"));
                assert_eq!(std::fs::read(&input).unwrap(), body, "{path:?} {o}");
                checked += 1;
            }
        }
        assert_eq!(files_in(&d), ["hard.csv", "in.csv", "soft.csv"], "{path:?}");
    }
    assert!(checked >= 4 * 30, "{checked} cases");
}

#[test]
fn two_outputs_naming_one_file_are_refused_and_nothing_is_written() {
    let d = tmpdir("outputs-twice");
    let input = d.join("in.csv");
    std::fs::write(&input, "ranking,rank,item\n").unwrap();
    let mut checked = 0;
    for (path, c) in leaves() {
        let outs = outputs(&c);
        let args = base_args(&path, &c, &input).unwrap_or_else(|| path.clone());
        for (i, a) in outs.iter().enumerate() {
            for b in &outs[i + 1..] {
                let one = d.join("one.out");
                let again = format!("{}/./one.out", d.display());
                let out = bin()
                    .args(&args)
                    .args([
                        a.as_str(),
                        one.to_str().unwrap(),
                        b.as_str(),
                        again.as_str(),
                    ])
                    .output()
                    .unwrap();
                refused(
                    &out,
                    "give each output its own file",
                    &format!("{path:?} {a} {b}"),
                );
                assert_eq!(files_in(&d), ["in.csv"], "{path:?} {a} {b}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 25, "{checked} pairs");
}

/// Every output of a command named at once, the last one in a folder that
/// does not exist: refused before the work, nothing written. And every
/// output named, the input unreadable as data: the run fails, nothing
/// written, no temporary left.
#[test]
fn a_failed_run_writes_none_of_its_outputs() {
    let d = tmpdir("outputs-failed");
    let input = d.join("in.csv");
    std::fs::write(&input, b"\xff\xfe not data\n").unwrap();
    for (path, c) in leaves() {
        let outs = outputs(&c);
        if outs.is_empty() {
            continue;
        }
        let args = base_args(&path, &c, &input).unwrap_or_else(|| path.clone());
        let named = |last: PathBuf| -> Vec<String> {
            let mut v = Vec::new();
            for (k, o) in outs.iter().enumerate() {
                v.push(o.clone());
                let p = if k + 1 == outs.len() {
                    last.clone()
                } else {
                    d.join(format!("out{k}"))
                };
                v.push(p.to_str().unwrap().to_string());
            }
            v
        };
        let out = bin()
            .args(&args)
            .args(named(d.join("missing/dir/last")))
            .output()
            .unwrap();
        refused(&out, "No such file or directory", &format!("{path:?}"));
        assert_eq!(files_in(&d), ["in.csv"], "{path:?}: unwritable last target");
        if NO_INPUT.contains(&path.join(" ").as_str()) {
            continue;
        }
        let out = bin()
            .args(&args)
            .args(named(d.join("last")))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{path:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(files_in(&d), ["in.csv"], "{path:?}: the run failed");
    }
}

fn salad() -> PathBuf {
    common::data("salad").join("rankings.csv")
}

fn fit(out: &str) -> std::process::Output {
    bin()
        .args([
            "fit",
            salad().to_str().unwrap(),
            "--ranking-col",
            "judge",
            "--out",
            out,
        ])
        .output()
        .unwrap()
}

#[test]
fn a_symlink_is_written_through_and_special_files_stay_special() {
    use std::os::unix::fs::FileTypeExt;
    let d = tmpdir("outputs-special");
    std::fs::write(d.join("real.txt"), "old").unwrap();
    std::os::unix::fs::symlink("real.txt", d.join("link.txt")).unwrap();
    common::assert_ok(&fit(d.join("link.txt").to_str().unwrap()));
    assert!(
        std::fs::symlink_metadata(d.join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let table = std::fs::read_to_string(d.join("real.txt")).unwrap();
    assert!(
        table.contains("log_worth") || table.contains("log-worth"),
        "{table}"
    );
    // A dangling link creates the file it points to.
    std::os::unix::fs::symlink("new.txt", d.join("dangling.txt")).unwrap();
    common::assert_ok(&fit(d.join("dangling.txt").to_str().unwrap()));
    assert!(d.join("new.txt").is_file());
    // A FIFO is written, not replaced: a reader on it gets the table.
    let fifo = d.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let f = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(f).unwrap())
    };
    common::assert_ok(&fit(fifo.to_str().unwrap()));
    assert!(reader.join().unwrap().contains("log_worth"));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // A character device stays one.
    common::assert_ok(&fit("/dev/null"));
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    let left: Vec<String> = files_in(&d)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Fifty runs writing four outputs, each killed (SIGKILL) at a random
/// point; after each, a later run in the same folder cleans up. Then no
/// temporary or journal remains, and the four targets are all from one
/// run: byte-identical to that seed's complete run.
#[test]
fn runs_killed_at_random_points_leave_no_mixture() {
    let d = tmpdir("outputs-kill");
    let refs = tmpdir("outputs-kill-refs");
    let names = ["d.csv", "m.json", "rm.csv", "v.csv"];
    let run = |dir: &Path, seed: u64| {
        let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
        let mut c = bin();
        c.args(["fit", salad().to_str().unwrap(), "--ranking-col", "judge"])
            .args(words("--engine gibbs --samples 10000 --chains 2"))
            .args(["--seed", &seed.to_string()])
            .args(["--draws-out", &p(names[0]), "--model-out", &p(names[1])])
            .args(["--rank-marginals", &p(names[2]), "--out", &p(names[3])])
            .args(["--output", "csv"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c
    };
    let t0 = std::time::Instant::now();
    assert!(run(&refs, 0).status().unwrap().success());
    let full = t0.elapsed();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut last: Option<u64> = None; // the seed whose outputs the targets hold
    for seed in 1..=50u64 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let frac = (state >> 11) as f64 / (1u64 << 53) as f64;
        let mut child = run(&d, seed).spawn().unwrap();
        std::thread::sleep(full.mul_f64(1.2 * frac));
        let _ = child.kill();
        let finished = child.wait().unwrap().success();
        // A later run writing into the folder finishes or undoes the commit.
        let o = bin()
            .args(words("simulate --items 2 --length 2 --rankings 1 --out"))
            .arg(d.join("other.json"))
            .output()
            .unwrap();
        common::assert_ok(&o);
        let left: Vec<String> = files_in(&d)
            .into_iter()
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "seed {seed}: left behind {left:?}");
        let present: Vec<bool> = names.iter().map(|n| d.join(n).exists()).collect();
        if present.iter().all(|p| !p) {
            assert!(last.is_none() && !finished, "seed {seed}: outputs vanished");
            continue;
        }
        assert!(
            present.iter().all(|p| *p),
            "seed {seed}: only some outputs {present:?}"
        );
        let rd = refs.join(seed.to_string());
        std::fs::create_dir_all(&rd).unwrap();
        assert!(run(&rd, seed).status().unwrap().success());
        let same = |dir: &Path| {
            names
                .iter()
                .all(|n| std::fs::read(d.join(n)).unwrap() == std::fs::read(dir.join(n)).unwrap())
        };
        if same(&rd) {
            last = Some(seed);
        } else {
            assert!(
                !finished,
                "seed {seed}: a finished run's outputs differ from its reference"
            );
            let prev = last.expect("targets hold a run that never committed");
            let pd = refs.join(prev.to_string());
            assert!(
                same(&pd),
                "seed {seed}: the targets mix runs (or hold neither {seed} nor {prev})"
            );
        }
    }
}

/// `fit r.csv --report r.html --out DIR`: a folder as an output file is
/// refused before the work, and the report is not written.
#[test]
fn an_output_naming_a_folder_leaves_the_other_outputs_unwritten() {
    let d = tmpdir("outputs-folder");
    std::fs::create_dir(d.join("isdir")).unwrap();
    std::fs::copy(salad(), d.join("r.csv")).unwrap();
    let out = bin()
        .current_dir(&d)
        .args(words(
            "fit r.csv --ranking-col judge --report r.html --out isdir",
        ))
        .output()
        .unwrap();
    refused(&out, "is a directory", "--out DIR");
    assert_eq!(files_in(&d), ["isdir", "r.csv"]);
}
