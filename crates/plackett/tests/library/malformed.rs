//! Malformed input: every reader returns a one-line error naming the file and
//! line, and none panics on arbitrary bytes.

use plackett::io::{Format, ItemsSpec, ReadOptions, bytes_to_text, read_str};
use proptest::prelude::*;

fn opts(f: Format) -> ReadOptions {
    ReadOptions {
        format: Some(f),
        ..Default::default()
    }
}

/// (content, expected line or 0 for "file-level", fragment of the message)
fn check(f: Format, cases: &[(&str, usize, &str)]) {
    assert!(
        cases.len() >= 10,
        "at least 10 malformed files per format family"
    );
    for (k, (text, line, frag)) in cases.iter().enumerate() {
        let name = format!("bad{k}.in");
        let err = match read_str(&name, text, &opts(f)) {
            Ok(_) => panic!("{f:?} case {k} was accepted: {text:?}"),
            Err(e) => e.to_string(),
        };
        assert!(!err.contains('\n'), "multi-line error: {err}");
        let want = if *line > 0 {
            format!("{name}:{line}:")
        } else {
            name.to_string()
        };
        assert!(
            err.starts_with(&want),
            "{f:?} case {k}: expected {want:?} in {err:?}"
        );
        assert!(
            err.contains(frag),
            "{f:?} case {k}: expected {frag:?} in {err:?}"
        );
    }
}

#[test]
fn csv_malformed() {
    check(
        Format::Csv,
        &[
            ("", 1, "empty file or missing header"),
            ("ranking,rank,item\n", 0, "no data rows"),
            ("race,rank,item\n1,1,a\n", 1, "no column named \"ranking\""),
            ("ranking,item\n1,a\n", 1, "no column named \"rank\""),
            ("ranking,rank,item\n1,1,a\n1,x,b\n", 3, "is not a number"),
            ("ranking,rank,item\n1,1,a\n1,2\n", 3, "expected 3 fields"),
            ("ranking,rank,item\n1,1,a\n1,2,a\n", 3, "appears twice"),
            ("ranking,rank,item\n1,1,a\n1,2,\n", 3, "empty item"),
            ("ranking,rank,item\n,1,a\n", 2, "empty ranking"),
            (
                "ranking,rank,item,weight\n1,1,a,1\n1,2,b,2\n",
                3,
                "differs from weight",
            ),
            (
                "ranking,rank,item,weight\n1,1,a,-1\n1,2,b,-1\n",
                2,
                "weight must be positive",
            ),
            (
                "ranking,rank,item,weight\n1,1,a,0\n",
                2,
                "weight must be positive",
            ),
            ("ranking,rank,item\n1,NaN,a\n", 2, "must be finite"),
            ("ranking,rank,item\n1,inf,a\n1,1,b\n", 2, "must be finite"),
        ],
    );
}

#[test]
fn csv_unknown_item_with_declared_universe() {
    let o = ReadOptions {
        format: Some(Format::Csv),
        items: Some(ItemsSpec::Names(vec!["a".into(), "b".into()])),
        ..Default::default()
    };
    let e = read_str("u.csv", "ranking,rank,item\n1,1,a\n1,2,c\n", &o)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("u.csv:3:") && e.contains("not in the declared universe"),
        "{e}"
    );
}

#[test]
fn preflib_malformed() {
    let head = "# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 3\n# ALTERNATIVE NAME 1: a\n# ALTERNATIVE NAME 2: b\n# ALTERNATIVE NAME 3: c\n";
    let toc = "# DATA TYPE: toc\n# NUMBER ALTERNATIVES: 3\n";
    let cases: Vec<(String, usize, &str)> = vec![
        ("".into(), 0, "empty file"),
        (format!("{head}2: 1,4\n"), 6, "not a number in 1..3"),
        (format!("{head}0: 1,2\n"), 6, "not a positive integer"),
        (format!("{head}x: 1,2\n"), 6, "not a positive integer"),
        (format!("{head}2: 1,{{2,3\n"), 6, "unclosed"),
        (format!("{head}2: 1,{{2,3}}\n"), 6, "strict-order"),
        (format!("{head}2: 1,1\n"), 6, "more than once"),
        (format!("{head}2: 1,\n"), 6, "trailing comma"),
        (format!("{head}2 1 2\n"), 6, "expected 'count: order'"),
        (
            format!("{toc}1: 1,{{2,3}}\n1: 1,2\n"),
            4,
            "complete order expected",
        ),
        (format!("{toc}1: {{}},1,2,3\n"), 3, "empty tied group"),
        (
            "# NUMBER ALTERNATIVES: -1\n".into(),
            1,
            "invalid number of alternatives",
        ),
        (
            "# DATA TYPE: wmd\n# NUMBER ALTERNATIVES: 2\n1: 1,2\n".into(),
            0,
            "unsupported PrefLib data type",
        ),
        ("3\n1,a\n2,b\n".into(), 4, "file ends inside"),
        ("2\n1,a\n2,b\n5,5\n".into(), 4, "voters,sum,unique"),
        (head.to_string(), 0, "no orders"),
        (format!("{head}2: 1,2}}\n"), 6, "unexpected"),
        // The header's voters against the orders' counts (issue 17 item 12).
        (
            format!("{head}# NUMBER VOTERS: 10\n3: 1,2,3\n2: 2,1\n"),
            6,
            "declares 10 voters but the orders' counts sum to 5",
        ),
        (
            format!("{head}# NUMBER VOTERS: many\n3: 1,2,3\n"),
            6,
            "invalid number of voters",
        ),
        (
            "2\n1,a\n2,b\n4,4,1\n3,1,2\n".into(),
            4,
            "declares 4 voters but the orders' counts sum to 3",
        ),
    ];
    let borrowed: Vec<(&str, usize, &str)> =
        cases.iter().map(|(a, b, c)| (a.as_str(), *b, *c)).collect();
    check(Format::Preflib, &borrowed);
}

/// Several rankings on one line (a compact file, or a Python list read
/// through the JSON reader): the error names the ranking, as the checks
/// that run after reading (a repeated item) already did.
#[test]
fn json_errors_inside_a_ranking_name_it() {
    for (text, frag) in [
        ("[[0,1],[0,[]]]", "bad.json:1: ranking 2: empty tied group"),
        (
            "[[0,1],[0,[1,[2]]]]",
            "bad.json:1: ranking 2: tied groups cannot be nested",
        ),
        ("[[0,1],[0,1],[0,-1]]", "bad.json:1: ranking 3: "),
        ("[[0,1],[]]", "bad.json:1: ranking 2: empty ranking"),
        (
            "{\"items\": [\"a\",\"b\"], \"rankings\": [[\"a\",\"b\"],[\"a\",\"c\"]]}",
            "bad.json:1: ranking 2: item \"c\" is not in \"items\"",
        ),
        ("[[0,1],[1,1]]", "bad.json:1: ranking 2: "),
    ] {
        let err = read_str("bad.json", text, &opts(Format::Json))
            .expect_err(text)
            .to_string();
        assert!(err.starts_with(frag), "{text}: {err}");
    }
}

/// The ranking or weight an error belongs to is part of its location, not
/// of its message text, so that a front end can place it in its own terms
/// (Python's `rankings[1]`) without parsing the message.
#[test]
fn json_errors_carry_their_ranking_or_weight_as_a_record() {
    use plackett::error::{Error, Location, Record};
    let record = |text: &str| match read_str("bad.json", text, &opts(Format::Json)) {
        Err(Error::Input {
            loc: Location { record, .. },
            msg,
        }) => (record, msg),
        other => panic!("{text}: {other:?}"),
    };
    let (r, msg) =
        record("{\"items\": [\"a\",\"b\"], \"rankings\": [[\"a\",\"b\"],[\"a\",\"c\"]]}");
    assert_eq!(
        r,
        Some(Record {
            kind: "ranking",
            number: 2
        })
    );
    assert_eq!(msg, "item \"c\" is not in \"items\"");
    let (r, msg) = record("{\"rankings\": [[\"a\",\"b\"],[\"b\",\"a\"]], \"weights\": [1, -2]}");
    assert_eq!(
        r,
        Some(Record {
            kind: "weight",
            number: 2
        })
    );
    assert_eq!(msg, "must be a positive number");
    // An error of the file as a whole has none.
    let (r, _) = record("{\"rankings\": 3}");
    assert_eq!(r, None);
}

#[test]
fn json_malformed() {
    check(
        Format::Json,
        &[
            ("", 1, "empty JSON"),
            ("[[0,1],\n[1,", 2, "unexpected end"),
            ("[[0,1],\n[1,1]]", 2, "more than once"),
            ("[[0,1],\n[]]", 2, "empty ranking"),
            ("[[0,1],\n[0,[]]]", 2, "empty tied group"),
            ("[[0,1],\n[0,[1,[2]]]]", 2, "cannot be nested"),
            ("[[0,1],\n[0,-1]]", 2, "not a non-negative integer"),
            ("[[0,1],\n[0,1.5]]", 2, "not a non-negative integer"),
            ("[[0,1],\n[0,\"a\"]]", 2, "expected an item id"),
            (
                "{\"rankings\": [[\"a\",\"b\"]],\n\"weights\": [0]}",
                2,
                "weight 1: must be a positive",
            ),
            (
                "{\"items\": [\"a\",\"b\"],\n\"rankings\": [[\"a\",\"c\"]]}",
                2,
                "not in \"items\"",
            ),
            (
                "{\"items\": [\"a\",\"a\"],\n\"rankings\": []}",
                1,
                "duplicate item name",
            ),
            ("{\"rankings\": [[0,1]],\n\"extra\": 1}", 2, "unknown key"),
            ("{\"items\": [\"a\"]}", 1, "no \"rankings\""),
            ("42", 1, "expected a list of rankings"),
            ("[[0,1]] x", 1, "trailing"),
            ("[[0,1],\n[01,2]]", 2, "invalid number"),
            ("[[0,1],\n[1.,2]]", 2, "invalid number"),
            ("[[0,1],\n[1.e3,2]]", 2, "invalid number"),
            (
                "{\"rankings\": [[0,1]],\n\"rankings\": [[1,0]]}",
                2,
                "duplicate key",
            ),
            (
                "{\"items\":[\"a\",\"b\"],\"rankings\":[[0,1]],\n\"weights\":[1,2]}",
                2,
                "2 weights for 1 rankings",
            ),
        ],
    );
}

#[test]
fn selectors_malformed() {
    check(
        Format::Selectors,
        &[
            ("", 1, "empty JSON"),
            ("[]", 1, "no cases"),
            ("{}", 1, "expected a list of cases"),
            ("[[[[1]]],\n 5]", 2, "expected a list of annotators"),
            ("[[[[1]]],\n [7]]", 2, "expected a list of groups"),
            ("[[[[1]]],\n [[7]]]", 2, "a group must be a list"),
            ("[[[[1]]],\n [[[]]]]", 2, "empty group"),
            ("[[[[1]]],\n [[[1,1]]]]", 2, "listed twice"),
            ("[[[[1]]],\n [[[1],[1]]]]", 2, "listed twice"),
            ("[[[[1]]],\n [[[-3]]]]", 2, "non-negative integer"),
            ("[[[[1]]],\n [[[\"x\"]]]]", 2, "non-negative integer"),
            ("[[[[1]]],\n [[[2.5]]]]", 2, "non-negative integer"),
            ("[[[[1]]]\n [[[2]]]]", 2, "expected ',' or ']'"),
        ],
    );
}

#[test]
fn pairs_malformed() {
    let h = "a,b,i_wins,j_wins,ties\n";
    let cases: Vec<(String, usize, &str)> = vec![
        ("a,b,c\n".into(), 1, "expected columns"),
        (
            "x,y,wins,losses\np,q,1,2\n".into(),
            1,
            "no column named \"i_wins\"",
        ),
        (
            "x,y,i_wins,losses\np,q,1,2\n".into(),
            1,
            "no column named \"j_wins\"",
        ),
        (h.to_string(), 0, "no data rows"),
        (format!("{h}p,q,1,2,0\n,q,1,2,0\n"), 3, "empty a field"),
        (format!("{h}p,p,1,2,0\n"), 2, "compared with itself"),
        (format!("{h}p,q,one,2,0\n"), 2, "is not a number"),
        (format!("{h}p,q,1,-2,0\n"), 2, "non-negative count"),
        (format!("{h}p,q,1,2,inf\n"), 2, "non-negative count"),
        (format!("{h}p,q,1,2,NaN\n"), 2, "non-negative count"),
        (
            format!("{h}p,q,1,2,0\nr,s,1\n"),
            3,
            "expected 5 fields, found 3",
        ),
        (
            "a,b,n_compared,i_wins,j_wins,ties\np,q,9,1,2,3\n".into(),
            2,
            "n_compared 9 differs",
        ),
    ];
    let borrowed: Vec<(&str, usize, &str)> =
        cases.iter().map(|(a, b, c)| (a.as_str(), *b, *c)).collect();
    check(Format::Pairs, &borrowed);
}

#[test]
fn invalid_utf8_names_line() {
    let e = bytes_to_text("x.csv", b"ranking,rank,item\n1,1,\xff\n".to_vec())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.csv:2:") && e.contains("UTF-8"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// No reader panics on arbitrary bytes.
    #[test]
    fn readers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        for f in [Format::Csv, Format::Preflib, Format::Json, Format::Selectors, Format::Pairs] {
            let _ = read_str("fuzz", &text, &opts(f));
        }
    }

    /// Nor on text built from each format's own alphabet (reaches deeper).
    #[test]
    fn readers_never_panic_on_format_alphabets(
        s in "[0-9,:{}\\[\\]\" \n#a-cDATYPENUMBRLIV.-]{0,200}",
        top_k in any::<bool>(),
        event in any::<bool>(),
    ) {
        for f in [Format::Csv, Format::Preflib, Format::Json, Format::Selectors, Format::Pairs] {
            let mut o = opts(f);
            o.top_k = top_k;
            if event { o.ties = plackett::data::TieSemantics::Event; }
            if let Ok(ds) = read_str("fuzz", &s, &o) {
                // Whatever parses must also survive the fitting pipeline's checks.
                let _ = plackett::infer::fit_point(&ds, &plackett::infer::PointOptions::default());
            }
        }
    }

    /// The item-feature table (`fit --features`) and the classifier's table
    /// (`classify fit`), on bytes and on rows from their alphabet behind a
    /// valid header: an error or a table, never a panic.
    #[test]
    fn feature_and_class_tables_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        rows in "[a-c0-9,.eEinfa+\\-\n \"]{0,200}",
        standardize in any::<bool>(),
    ) {
        let items = plackett::data::Items::from_names(&["a", "b", "c"]).unwrap();
        let noise = String::from_utf8_lossy(&bytes);
        for text in [noise.to_string(), format!("item,x,y\n{rows}")] {
            let _ = plackett::io::features::read_features("f.csv", &text, &items, standardize);
        }
        for text in [noise.to_string(), format!("x,y,class\n{rows}")] {
            for require in [true, false] {
                let _ = plackett::classify::read_table("t.csv", &text, "class", require);
            }
        }
    }

    /// The pairs reader behind a valid header, on rows from its alphabet.
    #[test]
    fn pairs_reader_never_panics(rows in "[a-d0-9,.e\\-\n ]{0,200}", event in any::<bool>()) {
        let text = format!("a,b,i_wins,j_wins,ties\n{rows}");
        let mut o = opts(Format::Pairs);
        if event { o.ties = plackett::data::TieSemantics::Event; }
        if let Ok(ds) = read_str("fuzz", &text, &o) {
            let _ = plackett::infer::fit_point(&ds, &plackett::infer::PointOptions::default());
        }
    }
}
