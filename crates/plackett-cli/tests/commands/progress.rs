//! Long runs show progress on a terminal and nothing otherwise (issue 17
//! item 9): `mil cv` and `keywords evaluate` were silent, and `fit --engine
//! gibbs` fell silent after its bar while it summarised and wrote the
//! report. The commands run under a pseudo-terminal (util-linux `script`)
//! with `PLACKETT_PROGRESS_AFTER_MS=0`, so every bar appears at once.

use crate::common;
use crate::common::then;

use common::{bin, data, tmpdir};
use std::process::Command;

/// Run the binary with `args` on a pseudo-terminal; what it drew there
/// (carriage returns as newlines), or None when `script` is missing.
fn on_a_terminal(args: &[&str]) -> Option<String> {
    let exe = bin().get_program().to_string_lossy().into_owned();
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let cmd = format!("'{exe}' {} > /dev/null", quoted.join(" "));
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("PLACKETT_PROGRESS_AFTER_MS", "0")
        .output()
        .ok()?;
    if !out.status.success() {
        panic!(
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stdout).replace('\r', "\n")
        );
    }
    Some(String::from_utf8_lossy(&out.stdout).replace('\r', "\n"))
}

#[test]
fn long_commands_draw_progress_on_a_terminal_only() {
    let Some(_) = on_a_terminal(&["--version"]) else {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    };
    let d = tmpdir("progress");
    let musk = data("uci").join("musk1.csv");
    let musk = musk.to_string_lossy().into_owned();
    let t = on_a_terminal(&then(&["mil", "cv", &musk], "--folds 2 --max-iter 20")).unwrap();
    assert!(t.contains("cross-validating (fits)"), "mil cv: {t}");
    let salad = data("salad").join("rankings.csv");
    let report = d.join("r.html");
    let t = on_a_terminal(&[
        "fit",
        &salad.to_string_lossy(),
        "--ranking-col",
        "judge",
        "--engine",
        "gibbs",
        "--samples",
        "2000",
        "--report",
        &report.to_string_lossy(),
    ])
    .unwrap();
    assert!(t.contains("sampling"), "fit: {t}");
    assert!(
        t.contains("writing the summaries"),
        "fit after the bar: {t}"
    );
    // No counted bar (an iterative engine): a spinner says it is working
    // until the first output.
    let nascar = data("nascar2002").join("results.csv");
    let nascar = nascar.to_string_lossy();
    let mut args = vec!["fit", &nascar];
    args.extend(common::NASCAR_COLS);
    args.extend(["--engine", "ep"]);
    let t = on_a_terminal(&args).unwrap();
    assert!(t.contains("working"), "ep: {t}");
    // Not a terminal: nothing on standard error.
    let out = bin()
        .args(then(&["mil", "cv", &musk], "--folds 2 --max-iter 20"))
        .env("PLACKETT_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
