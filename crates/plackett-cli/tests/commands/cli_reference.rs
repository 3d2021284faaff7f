//! `docs/cli.md` is the `--help` of every command, so that every flag is
//! documented somewhere a reader can search without the binary. The page is
//! generated from the binary; when a command's help changes, regenerate it
//! with `PLACKETT_BLESS=1 cargo test --release -p plackett-cli --test
//! cli_reference` and commit the page with the change.

use crate::common;

use common::bin;
use std::path::PathBuf;

/// The help text of `plackett <path…> --help`.
fn help(path: &[&str]) -> String {
    let out = bin()
        .args(path)
        .arg("--help")
        // Plain text whatever the environment asks of terminals.
        .env_remove("COLUMNS")
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "plackett {path:?} --help failed");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The subcommands a help text lists under "Commands:" (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Every command path, depth first in the order `--help` lists them.
fn commands(prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let p: Vec<&str> = prefix.iter().map(String::as_str).collect();
    let h = help(&p);
    if !prefix.is_empty() {
        out.push(prefix.clone());
    }
    for c in subcommands(&h) {
        let mut next = prefix.clone();
        next.push(c);
        commands(next, out);
    }
}

fn render() -> String {
    let mut page = String::from(
        "# Command-line reference\n\n\
         Every command's `--help`, as `plackett` prints it. The topic pages say what \
         the numbers mean and how to choose: [models](models.md), [engines](engines.md), \
         [mixtures](mixtures.md), [adherence](adherence.md), [item features](features.md), \
         [the classifier](classify.md), [uncertain ground truth](groundtruth.md), \
         [keywords](keywords.md), [multiple-instance classification](mil.md). Every \
         command exits 0 on success; 2 on bad input or options, with a one-line \
         error that names the file, line or option and nothing written; 3 when an \
         iterative engine stopped at its iteration cap before its stopping rule held \
         (nothing written; `--allow-nonconvergence` reports the fit and exits 0); 130 \
         when interrupted ([engines](engines.md#exit-status)).\n\n\
         This page is generated from the binary (`PLACKETT_BLESS=1 cargo test --release -p \
         plackett-cli --test commands cli_reference::`); a test fails when it falls behind.\n\n\
         ## Output files\n\n\
         Every option that names a file to write (`--out`, `--report`, `--model-out`, \
         `--draws-out`, `--vcov`, `--rank-marginals`, `--graph-out`, `--splits-out`, `--plot`, \
         …) is part of one transaction per run:\n\n\
         1. Before any work, each target is resolved (through symlinks, `./` and `..`) and \
         refused, with exit 2, if it is one of the run's input files — under the same name, \
         another path, a symlink or a hard link — or the target of another output option; its \
         folder must exist and be writable (a temporary file is created there at once).\n\
         2. Outputs are written to temporary files `.NAME.plackett-PID-N.tmp` beside their \
         targets.\n\
         3. When the command succeeds, all temporaries are renamed over their targets; with \
         several, a journal `.plackett-journal-PID-N` placed in each target folder first names \
         them all. When it fails (exit 2 or 3) or is interrupted (Ctrl-C, SIGTERM, SIGHUP: \
         exit 130), the temporaries are removed and every previous file is left as it was.\n\n\
         A symlink is written through (the file it names is replaced, the link stays). A FIFO, \
         a character or block device, a socket, and any path under `/dev/` or `/proc/` \
         (`/dev/stdout`) are opened and written directly after the renames, never replaced.\n\n\
         A run killed outright (`kill -9`, a power cut) cannot clean up after itself; the next \
         run that writes into the same folder does: it removes the temporaries of processes \
         that no longer run, and finishes a dead run's journal — renaming its remaining \
         temporaries into place if the journal reached every folder it names (which happens \
         before the first rename), removing them otherwise. So once a later run has written \
         there, no target holds one run's output beside another run's.\n\n",
    );
    let top = help(&[]);
    page.push_str("## plackett\n\n```text\n");
    page.push_str(top.trim_end());
    page.push_str("\n```\n");
    let mut all = Vec::new();
    commands(Vec::new(), &mut all);
    for path in all {
        let p: Vec<&str> = path.iter().map(String::as_str).collect();
        page.push_str(&format!("\n## plackett {}\n\n```text\n", p.join(" ")));
        page.push_str(help(&p).trim_end());
        page.push_str("\n```\n");
    }
    page
}

#[test]
fn docs_cli_md_is_every_commands_help() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
    let page = render();
    if std::env::var_os("PLACKETT_BLESS").is_some() {
        std::fs::write(&path, &page).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != page {
        let first = have
            .lines()
            .zip(page.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| have.lines().count().min(page.lines().count()));
        panic!(
            "docs/cli.md is behind the binary's help (first difference at line {}); \
             regenerate it: PLACKETT_BLESS=1 cargo test --release -p plackett-cli --test commands \
             cli_reference::",
            first + 1
        );
    }
}

#[test]
fn every_command_is_listed() {
    let mut all = Vec::new();
    commands(Vec::new(), &mut all);
    let names: Vec<String> = all.iter().map(|p| p.join(" ")).collect();
    for want in [
        "fit",
        "predict",
        "demo",
        "aggregate",
        "evaluate",
        "cv",
        "classify fit",
        "simulate",
        "mil fit",
        "mil predict",
        "mil simulate",
        "mil cv",
        "keywords extract",
        "keywords evaluate",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} not found in {names:?}"
        );
    }
}
