//! The examples every command's help ends with (`-h` and `--help`), in one
//! table: `tests/commands/help_examples.rs` runs every one of them, in this
//! order, from a folder holding the shipped `data/` and a scratch `out/`
//! (so an example may read what an earlier one wrote).

use clap::Command;

/// (command path, examples, where the long explanations are). Paths name
/// subcommands separated by spaces.
pub const EXAMPLES: &[(&str, &[&str], &str)] = &[
    (
        "fit",
        &[
            "plackett fit data/salad/rankings.csv --ranking-col judge",
            "plackett fit data/nascar2002/results.csv --ranking-col race --rank-col position --item-col driver --pseudo 0.5",
            "plackett fit data/salad/rankings.csv --ranking-col judge --engine vb --compare \"A,B\" --report out/salad.html",
            "plackett fit data/pudding/pairs.csv --format pairs --ties event --model-out out/pudding.json",
        ],
        "docs/cli.md, docs/engines.md (which engine when), docs/ties.md",
    ),
    (
        "tree",
        &[
            "plackett tree data/tricot-sim/rankings.csv --ranking-col trial --item-col variety --ranker-col farmer --covariates data/tricot-sim/covariates.csv --covariate-key farmer",
            "plackett tree data/tricot-sim/rankings.csv --ranking-col trial --item-col variety --ranker-col farmer --covariates data/tricot-sim/covariates.csv --covariate-key farmer --minsize 30 --maxdepth 2 --output json --model-out out/tree.json --report out/tree.html",
        ],
        "docs/trees.md",
    ),
    (
        "predict",
        &[
            "plackett predict out/pudding.json data/pudding/pairs.csv --format pairs --ties event",
            "plackett predict out/pudding.json data/pudding/pairs.csv --format pairs --ties event --output csv",
            "plackett predict out/tree.json data/tricot-sim/covariates.csv --covariate-key farmer --compare Amani,Chapa",
        ],
        "docs/cli.md",
    ),
    (
        "demo",
        &["plackett demo --report out/demo-report.html"],
        "docs/engines.md",
    ),
    (
        "simulate",
        &[
            "plackett simulate --items 40 --rankings 300 --length 5 --features 3 --features-out out/f.csv --out out/r.json",
        ],
        "docs/cli.md",
    ),
    (
        "cv",
        &["plackett cv out/r.json --features out/f.csv --folds 3"],
        "docs/features.md",
    ),
    (
        "aggregate",
        &[
            "plackett aggregate data/dermatology-ddx/dermatology_selectors.json --classes data/dermatology-ddx/dermatology_conditions.txt --cases 0,1,2",
            "plackett aggregate data/dermatology-ddx/dermatology_selectors.json --classes data/dermatology-ddx/dermatology_conditions.txt --cases 20 --method irn --output csv",
        ],
        "docs/groundtruth.md",
    ),
    (
        "evaluate",
        &[
            "plackett evaluate data/dermatology-ddx/dermatology_selectors.json --classes data/dermatology-ddx/dermatology_conditions.txt --predictions annotator:leave-one-out --cases 0,1,2 --reliability 1,3",
        ],
        "docs/groundtruth.md",
    ),
    (
        "classify fit",
        &[
            "plackett classify fit data/uci/iris.csv --engine em",
            "plackett classify fit data/uci/wine.csv --engine vb --model-out out/wine.json --report out/wine.html",
        ],
        "docs/classify.md",
    ),
    (
        "classify predict",
        &["plackett classify predict out/wine.json data/uci/wine.csv"],
        "docs/classify.md",
    ),
    (
        "classify cv",
        &["plackett classify cv data/uci/iris.csv --engine em --splits 5"],
        "docs/classify.md",
    ),
    (
        "classify path",
        &["plackett classify path data/uci/iris.csv --out out/path.csv --plot out/path.svg"],
        "docs/classify.md",
    ),
    (
        "mil simulate",
        &["plackett mil simulate --bags 100 --instances 5 --out out/bags.csv"],
        "docs/mil.md",
    ),
    (
        "mil fit",
        &[
            "plackett mil fit out/bags.csv --model-out out/mil.json",
            "plackett mil fit out/bags.csv --standardize --report out/mil.html",
        ],
        "docs/mil.md",
    ),
    (
        "mil predict",
        &["plackett mil predict out/mil.json out/bags.csv"],
        "docs/mil.md",
    ),
    (
        "mil cv",
        &["plackett mil cv out/bags.csv --folds 5"],
        "docs/mil.md",
    ),
    (
        "mil study",
        &[
            "plackett mil study --factors bags --max-bags 250 --replicates 1 --test-bags 30 --methods si-mean --out-dir out/study",
        ],
        "docs/mil.md",
    ),
    (
        "keywords extract",
        &[
            "plackett keywords extract data/text/ranking_models.txt --known \"Plackett-Luce, posterior, worth\"",
            "plackett keywords extract data/text/ranking_models.txt --known \"Plackett-Luce, posterior, worth\" --fdr 0.1 --report out/keywords.html",
        ],
        "docs/keywords.md",
    ),
    (
        "keywords batch",
        &["plackett keywords batch data/text/batch.csv --fdr 0.4"],
        "docs/keywords.md",
    ),
    (
        "keywords tag",
        &["plackett keywords tag data/text/ranking_models.txt"],
        "docs/keywords.md",
    ),
];

/// The help text after the options: the examples and where to read more.
fn after_help(examples: &[&str], docs: &str) -> String {
    let mut s = String::from("Examples (from the repository's root):\n");
    for e in examples {
        s.push_str("  ");
        s.push_str(e);
        s.push('\n');
    }
    s.push_str("\nEvery option: --help. More: ");
    s.push_str(docs);
    s
}

/// What `plackett -h` says after its command list: the exit statuses
/// (docs/engines.md, "Exit status").
const EXIT_STATUS: &str = "Exit status: 0 success; 2 bad input or options (one line naming the \
file, line or option; nothing written); 3 an iterative fit stopped at --max-iter before its \
stopping rule held (nothing written; --allow-nonconvergence reports it and exits 0); 130 \
interrupted. Every command's -h ends with examples; docs/cli.md has every --help.";

/// Attach every command's examples to `cmd` (the whole program's command).
pub fn with_examples(mut cmd: Command) -> Command {
    cmd = cmd.after_help(EXIT_STATUS);
    for (path, examples, docs) in EXAMPLES {
        let text = after_help(examples, docs);
        cmd = attach(cmd, &path.split(' ').collect::<Vec<_>>(), text);
    }
    cmd
}

fn attach(cmd: Command, path: &[&str], text: String) -> Command {
    match path {
        [] => cmd.after_help(text),
        [first, rest @ ..] => {
            let rest = rest.to_vec();
            cmd.mut_subcommand(*first, move |c| attach(c, &rest, text))
        }
    }
}
