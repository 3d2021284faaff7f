//! The run's output files as one transaction
//! ([`plackett::io::transaction`]): claimed from the command line before
//! any work, written as the command produces them, committed together when
//! it succeeds, removed when it fails or is interrupted.
//!
//! Which options are outputs is read off the command definition itself: an
//! output file is an option with `value_hint = ValueHint::FilePath`, an
//! output folder one with `ValueHint::DirPath`. Every other value that
//! names an existing file is an input, which no output may replace. So a
//! new output option needs only its hint, and a test
//! (`tests/commands/outputs.rs`) walks the definition to check every one.

use anyhow::{Result, bail};
use clap::{Arg, ArgMatches, ValueHint};
use plackett::io::transaction::{self, Transaction};
use std::sync::Mutex;

static RUN: Mutex<Option<Transaction>> = Mutex::new(None);

fn run() -> std::sync::MutexGuard<'static, Option<Transaction>> {
    RUN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether `arg` names a file its command writes.
pub fn is_output(arg: &Arg) -> bool {
    arg.get_value_hint() == ValueHint::FilePath
}

/// Whether `arg` names a folder its command writes files into.
pub fn is_output_dir(arg: &Arg) -> bool {
    arg.get_value_hint() == ValueHint::DirPath
}

fn flag(arg: &Arg) -> String {
    match arg.get_long() {
        Some(l) => format!("--{l}"),
        None => arg.get_id().to_string().to_uppercase(),
    }
}

fn values<'a>(m: &'a ArgMatches, arg: &Arg) -> Vec<&'a str> {
    m.try_get_raw(arg.get_id().as_str())
        .ok()
        .flatten()
        .map(|v| v.filter_map(|s| s.to_str()).collect())
        .unwrap_or_default()
}

/// Claim the outputs of the (sub)command in `m`: every output option's
/// file is resolved and checked against the inputs and the other outputs,
/// and its temporary created, before the command starts.
pub fn begin(cmd: &clap::Command, m: &ArgMatches) -> Result<()> {
    let (mut cmd, mut m) = (cmd, m);
    while let Some((name, sub)) = m.subcommand() {
        match cmd.find_subcommand(name) {
            Some(c) => (cmd, m) = (c, sub),
            None => break,
        }
    }
    let mut t = Transaction::new();
    for arg in cmd.get_arguments() {
        if is_output(arg) {
            continue;
        }
        for v in values(m, arg) {
            t.input(v);
            // NAME=FILE values (keywords evaluate --external).
            if let Some((_, f)) = v.split_once('=') {
                t.input(f);
            }
        }
    }
    for arg in cmd.get_arguments().filter(|a| is_output_dir(a)) {
        for v in values(m, arg) {
            if std::path::Path::new(v).exists() && !std::path::Path::new(v).is_dir() {
                bail!("{} {v}: is a file, not a folder", flag(arg));
            }
        }
    }
    for arg in cmd.get_arguments().filter(|a| is_output(a)) {
        for v in values(m, arg) {
            t.reserve(&flag(arg), v)?;
        }
    }
    *run() = Some(t);
    Ok(())
}

/// Put each (path, contents) in the run's outputs; files the command line
/// did not name (inside an output folder) are claimed now.
pub fn write_all(files: &[(&str, &[u8])]) -> Result<()> {
    let mut g = run();
    let t = g.get_or_insert_with(Transaction::new);
    for (p, c) in files {
        t.write(p, c)?;
    }
    Ok(())
}

/// Put `content` in output `path` ([`write_all`]).
pub fn write(path: &str, content: &[u8]) -> Result<()> {
    write_all(&[(path, content)])
}

/// Replace every written target at once.
pub fn commit() -> Result<()> {
    let t = run().take();
    if let Some(t) = t {
        t.commit()?;
    }
    Ok(())
}

/// Drop the run's outputs: their temporaries are removed, their targets
/// left as they were.
pub fn abandon() {
    let t = run().take();
    drop(t);
}

/// On Ctrl-C, SIGTERM or SIGHUP: remove the temporaries (waiting for a
/// commit under way to finish) and exit with 130, as the shell reports an
/// interrupted command.
pub fn on_signal_clean_up() {
    let _ = ctrlc::set_handler(|| {
        transaction::abandon_all();
        crate::progress::quiet();
        eprintln!("error: interrupted");
        std::process::exit(130);
    });
}
