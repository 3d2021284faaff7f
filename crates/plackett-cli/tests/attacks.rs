//! Hostile and careless command lines found by an adversarial run, each a
//! row of one table: what was given, and the one-line error (exit 2) it
//! must get — never a panic, an abort, a silent fallback or a huge line.

mod common;

use common::{bin, fails, tmpdir};

fn salad() -> String {
    common::data("salad")
        .join("rankings.csv")
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn each_attack_gets_a_one_line_error() {
    let d = tmpdir("attacks");
    let salad = salad();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // was a panic: "simulated data are valid: empty observation"
        (
            vec!["simulate", "--design", "topk", "--length", "0"],
            "top-k lists need at least 1 item",
        ),
        // was a silent fallback to one ranker per ranking
        (
            vec![
                "fit",
                &salad,
                "--ranking-col",
                "judge",
                "--adherence",
                "--ranker-col",
                "nosuch",
            ],
            "no column named \"nosuch\"",
        ),
        (
            vec![
                "fit",
                &salad,
                "--ranking-col",
                "judge",
                "--weight-col",
                "nosuch",
            ],
            "columns are: judge, item, rank",
        ),
    ];
    for (args, needle) in cases {
        let out = bin().args(&args).current_dir(&d).output().unwrap();
        fails(&out, needle);
    }
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written");
}

/// An item name of 200,000 characters in a "no MLE" error is shown by its
/// ends and length, not in full.
#[test]
fn a_huge_item_name_makes_a_short_error() {
    let d = tmpdir("attacks-name");
    let name = "x".repeat(200_000);
    let f = d.join("huge.csv");
    std::fs::write(
        &f,
        format!("ranking,rank,item\n1,1,{name}\n1,2,b\n2,1,{name}\n2,2,c\n"),
    )
    .unwrap();
    let out = bin().arg("fit").arg(&f).output().unwrap();
    fails(&out, "200000 characters");
    assert!(out.stderr.len() < 500, "{} bytes", out.stderr.len());
}
