//! Every subcommand's numeric options with edge values (issue 17's
//! acceptance fuzz test): 0, 1, −1, NaN, inf, 1e300, 1e-300, a subnormal
//! 1e-310, a huge count and a 70,000-character string, on small data. Whatever the value, the process
//! must not panic or abort, must answer within a minute, may exit 0 only
//! with finite output (no NaN or inf printed), and otherwise exits 2 (bad
//! input) or 3 (stopped at an iteration cap) with a one-line message.

use crate::common;
use crate::common::then;

use common::{bin, data, tmpdir};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const VALUES: [&str; 9] = [
    "0",
    "1",
    "-1",
    "NaN",
    "inf",
    "1e300",
    "1e-300",
    "1e-310",
    "99999999999",
];

/// Run with a deadline; `None` if it had to be killed.
fn run(args: &[String], cwd: &Path) -> Option<std::process::Output> {
    let mut child = bin()
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain the pipes on threads so a chatty child cannot block on them.
    fn drain(mut r: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).ok();
            v
        })
    }
    let ho = drain(child.stdout.take().unwrap());
    let he = drain(child.stderr.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let (stdout, stderr) = (ho.join().unwrap(), he.join().unwrap());
    status.map(|status| std::process::Output {
        status,
        stdout,
        stderr,
    })
}

/// What is wrong with this outcome, if anything.
fn problem(out: &std::process::Output) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let err = String::from_utf8_lossy(&out.stderr);
    if let Some(sig) = out.status.signal() {
        return Some(format!("killed by signal {sig}: {}", first(&err)));
    }
    if err.contains("panicked") || out.status.code() == Some(101) {
        return Some(format!("panic: {}", first(&err)));
    }
    match out.status.code() {
        Some(0) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let bad = text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .find(|t| matches!(*t, "NaN" | "nan" | "inf" | "Infinity"));
            bad.map(|t| format!("exit 0 with {t:?} in the output"))
        }
        Some(2) | Some(3) => {
            let lines = err.trim_end().lines().count();
            (lines != 1).then(|| format!("{lines}-line error: {}", first(&err)))
        }
        Some(c) => Some(format!("exit {c}: {}", first(&err))),
        None => Some("no exit code".into()),
    }
}

fn first(s: &str) -> String {
    s.lines().next().unwrap_or("").chars().take(200).collect()
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn every_numeric_option_survives_edge_values() {
    let d = data("");
    let dir = tmpdir("fuzz_options");
    // Small bags for the mil commands, and a fitted model to predict with.
    let mil_model = dir.join("mil.json");
    let bags = common::mil_bags(&dir, "bags.csv", 40, 4, 3);
    let out = bin()
        .args(["mil", "fit", &bags, "--out", &s(&mil_model)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let salad = s(&d.join("salad/rankings.csv"));
    let features = s(&d.join("salad/features.csv"));
    let iris = s(&d.join("uci/iris.csv"));
    let text = s(&d.join("text/ranking_models.txt"));
    let batch = s(&d.join("text/batch.csv"));
    let fit = |extra: &[&str]| -> Vec<String> {
        let mut v = vec!["fit", salad.as_str(), "--ranking-col", "judge"];
        v.extend_from_slice(extra);
        v.into_iter().map(String::from).collect()
    };
    let owned = |v: &[&str]| -> Vec<String> { v.iter().map(|x| x.to_string()).collect() };
    let kw = |extra: &[&str]| -> Vec<String> {
        let mut v = vec![
            "keywords",
            "extract",
            text.as_str(),
            "--known",
            "Plackett-Luce, posterior, worth",
        ];
        v.extend_from_slice(extra);
        owned(&v)
    };
    let sim_out = s(&dir.join("sim.json"));
    let bags_out = s(&dir.join("bags_out.csv"));
    let cases: Vec<(Vec<String>, &[&str])> = vec![
        (
            fit(&[]),
            &[
                "--seed",
                "--pseudo",
                "--prior-shape",
                "--prior-rate",
                "--prior-mean",
                "--prior-sd",
                "--tol",
                "--max-iter",
            ],
        ),
        (
            fit(&["--engine", "gibbs", "--samples", "100"]),
            &["--samples", "--burn-in", "--chains"],
        ),
        (fit(&["--engine", "vb"]), &["--draws", "--tol"]),
        (fit(&["--engine", "ep"]), &["--draws", "--tol"]),
        (
            fit(&["--components", "2"]),
            &["--starts", "--dirichlet", "--components"],
        ),
        (fit(&["--features", &features]), &["--eta", "--eta-grid"]),
        (owned(&["demo", "--report", "demo.html"]), &["--seed"]),
        (
            [
                owned(&["aggregate"]),
                common::dermatology_args("0,1,2", "50"),
            ]
            .concat(),
            &[
                "--samples",
                "--burn-in",
                "--prior-shape",
                "--prior-rate",
                "--reliability",
                "--seed",
            ],
        ),
        (
            [
                owned(&["evaluate"]),
                common::dermatology_args("0,1,2", "50"),
                owned(&["--predictions", "annotator:leave-one-out"]),
            ]
            .concat(),
            &["--k", "--samples", "--reliability"],
        ),
        (
            owned(&[
                "cv",
                &salad,
                "--ranking-col",
                "judge",
                "--features",
                &features,
                "--eta-grid",
                "0.1:10:3",
            ]),
            &["--folds", "--repeats", "--metric-k", "--eta-grid"],
        ),
        (
            owned(&[
                "simulate",
                "--items",
                "5",
                "--rankings",
                "10",
                "--out",
                &sim_out,
            ]),
            &[
                "--items",
                "--rankings",
                "--length",
                "--seed",
                "--features",
                "--feature-sd",
            ],
        ),
        (
            owned(&["classify", "fit", &iris]),
            &["--prior-shape", "--prior-rate"],
        ),
        (
            owned(&then(
                &["classify", "fit", &iris],
                "--engine gibbs --samples 50 --burn-in 20",
            )),
            &["--samples", "--burn-in", "--chains"],
        ),
        (
            owned(&["classify", "cv", &iris, "--splits", "2"]),
            &["--splits", "--test-fraction"],
        ),
        (
            owned(&then(&["classify", "cv", &iris], "--engine em --folds 2")),
            &["--folds", "--repeats"],
        ),
        (
            owned(&["classify", "path", &iris, "--prior-shape-grid", "0.5:2:3"]),
            &["--prior-shape-grid", "--prior-rate"],
        ),
        (
            owned(&["mil", "fit", &bags]),
            &[
                "--intercept-var",
                "--slope-var",
                "--tol",
                "--max-iter",
                "--starts",
                "--mixture",
                "--components",
            ],
        ),
        (
            owned(&then(
                &["mil", "fit", &bags],
                "--engine gibbs --samples 50 --burn-in 20",
            )),
            &[
                "--samples",
                "--burn-in",
                "--thin",
                "--chains",
                "--temperatures",
                "--hottest",
            ],
        ),
        (
            owned(&["mil", "predict", &s(&mil_model), &bags]),
            &["--draws"],
        ),
        (
            owned(&[
                "mil",
                "simulate",
                "--bags",
                "20",
                "--instances",
                "3",
                "--out",
                &bags_out,
            ]),
            &[
                "--bags",
                "--instances",
                "--ratio",
                "--ppi0",
                "--ppi1",
                "--features",
                "--alpha",
            ],
        ),
        (
            owned(&["mil", "cv", &bags, "--folds", "2"]),
            &["--folds", "--repeats"],
        ),
        (
            owned(
                &[
                    &common::QUICK_MIL_STUDY[..],
                    &["--test-bags", "30", "--methods", "si-mean"],
                ]
                .concat(),
            ),
            &["--replicates", "--test-bags", "--draws", "--max-bags"],
        ),
        (
            kw(&[]),
            &[
                "--min-count",
                "--gamma",
                "--window",
                "--damping",
                "--tau",
                "--sigma-a2",
                "--sigma-b2",
                "--alpha",
                "--alpha-init",
                "--tol",
                "--max-iter",
                "--top",
            ],
        ),
        (
            kw(&["--engine", "gibbs", "--samples", "100", "--burn-in", "50"]),
            &["--samples", "--burn-in", "--chains"],
        ),
        (
            owned(&["keywords", "batch", batch.as_str()]),
            &[
                "--fdr",
                "--window",
                "--damping",
                "--tau",
                "--max-iter",
                "--seed",
            ],
        ),
    ];
    let long = "x".repeat(70_000);
    let mut failures = Vec::new();
    let mut runs = 0;
    for (base, options) in &cases {
        for &opt in options.iter() {
            for v in VALUES.iter().copied().chain([long.as_str()]) {
                // The option replaces the base's own value, if it has one.
                let mut args = base.clone();
                if let Some(i) = args.iter().position(|a| a == opt) {
                    args.drain(i..i + 2);
                }
                args.push(opt.to_string());
                args.push(v.to_string());
                runs += 1;
                let what = format!("{} {opt} {}", base[..2].join(" "), &v[..v.len().min(20)]);
                match run(&args, &dir) {
                    None => failures.push(format!("{what}: still running after 60 s")),
                    Some(out) => {
                        if let Some(p) = problem(&out) {
                            failures.push(format!("{what}: {p}"));
                        }
                    }
                }
            }
        }
    }
    assert!(runs >= 656, "{runs} runs");
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
