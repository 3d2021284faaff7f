//! Readers: every format produces the same flat dataset for the same data.

use crate::common;
use common::{data_dir, path};
use plackett::data::{Dataset, Tail, TieSemantics};
use plackett::infer::{PointOptions, Prior, fit_point};
use plackett::io::{Format, ItemsSpec, ReadOptions, read_path, read_str};

fn opts(f: Format) -> ReadOptions {
    ReadOptions {
        format: Some(f),
        ..Default::default()
    }
}

/// Observations as (names per group, weight, tail).
fn dump(d: &Dataset) -> Vec<(Vec<Vec<String>>, f64, Tail)> {
    d.observations()
        .map(|o| {
            let g = o
                .groups()
                .filter(|g| !g.is_tail)
                .map(|g| {
                    o.members[g.start..g.end]
                        .iter()
                        .map(|&i| d.items().name(i).to_string())
                        .collect()
                })
                .collect();
            (g, o.weight, o.tail)
        })
        .collect()
}

#[test]
fn same_data_in_every_format() {
    let csv =
        "ranking,rank,item,weight\nr1,1,a,2\nr1,2,b,2\nr1,2,c,2\nr2,1,c,1\nr2,3,a,1\nr3,1,b,1\n";
    let toc_new = "# FILE NAME: x.toi\n# DATA TYPE: toi\n# NUMBER ALTERNATIVES: 3\n# ALTERNATIVE NAME 1: a\n# ALTERNATIVE NAME 2: b\n# ALTERNATIVE NAME 3: c\n# NUMBER VOTERS: 4\n2: 1,{2,3}\n1: 3,1\n1: 2\n";
    let toc_old = "3\n1,a\n2,b\n3,c\n4,4,3\n2,1,{2,3}\n1,3,1\n1,2\n";
    let json = r#"{"items": ["a","b","c"], "rankings": [["a",["b","c"]], ["c","a"], ["b"]], "weights": [2,1,1]}"#;
    let a = read_str("x.csv", csv, &opts(Format::Csv)).unwrap();
    let b = read_str("x.toi", toc_new, &opts(Format::Preflib)).unwrap();
    let c = read_str("x.toi", toc_old, &opts(Format::Preflib)).unwrap();
    let d = read_str("x.json", json, &opts(Format::Json)).unwrap();
    for ds in [&a, &b, &c, &d] {
        // The single-item ranking r3 / "2" is uninformative: dropped, counted.
        assert_eq!(ds.dropped(), 1);
        assert_eq!(ds.n_obs(), 2);
        assert_eq!(
            dump(ds),
            vec![
                (
                    vec![
                        vec!["a".to_string()],
                        vec!["b".to_string(), "c".to_string()]
                    ],
                    2.0,
                    Tail::None
                ),
                (
                    vec![vec!["c".to_string()], vec!["a".to_string()]],
                    1.0,
                    Tail::None
                ),
            ]
        );
    }
    // choix-style lists: ids as names, tied groups as inner lists.
    let e = read_str("x.json", "[[0,[1,2]],[2,0],[1]]", &opts(Format::Json)).unwrap();
    assert_eq!(e.n_obs(), 2);
    assert_eq!(e.items().names(), &["0", "1", "2"]);
}

#[test]
fn top_k_flag_and_declared_universe() {
    let mut o = opts(Format::Json);
    o.top_k = true;
    o.items = Some(ItemsSpec::Count(5));
    let d = read_str("x.json", "[[3],[1,0]]", &o).unwrap();
    assert_eq!(d.n_items(), 5);
    assert_eq!(
        d.n_obs(),
        2,
        "a single listed item of a top-k list is informative"
    );
    assert!(d.observations().all(|ob| ob.tail == Tail::Universe));
    // Items 2 and 4 never appear: MLE refuses, MAP estimates them.
    let e = fit_point(&d, &PointOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("never beat anyone"), "{e}");
    let f = fit_point(&d, &PointOptions::with_prior(Prior::gamma(2.0, 1.0))).unwrap();
    assert_eq!(f.summary.items.len(), 5);
    assert!(f.summary.items.iter().all(|i| i.log_worth.is_finite()));
}

#[test]
fn ties_flag_carried_to_dataset() {
    let mut o = opts(Format::Json);
    o.ties = TieSemantics::Event;
    let d = read_str("x.json", "[[[0,1]],[0,1]]", &o).unwrap();
    assert_eq!(d.ties(), TieSemantics::Event);
    assert_eq!(d.n_obs(), 2, "a lone tie is an event under --ties event");
    let d = read_str("x.json", "[[[0,1]],[0,1]]", &opts(Format::Json)).unwrap();
    assert_eq!(d.n_obs(), 1, "a lone unknown-order group is uninformative");
}

#[test]
fn exclude_drops_and_counts() {
    let d = read_str("x.json", "[[0,1,2],[2,1],[1,0]]", &opts(Format::Json)).unwrap();
    let e = d.exclude(&["1".to_string()]).unwrap();
    assert_eq!(e.n_items(), 2);
    assert_eq!(e.n_obs(), 1, "[2,1] and [1,0] lose all information");
    assert_eq!(e.dropped(), 2);
    assert!(
        plackett::error::render_params(
            &d.exclude(&["9".to_string()]).unwrap_err().to_string(),
            plackett::error::ParamStyle::Cli
        )
        .contains("--exclude")
    );
}

#[test]
fn selectors_real_file() {
    let dir = data_dir();
    let mut o = opts(Format::Selectors);
    o.items = Some(
        ItemsSpec::from_arg(&path(&dir, "dermatology-ddx/dermatology_conditions.txt")).unwrap(),
    );
    let d = read_path(
        &path(&dir, "dermatology-ddx/dermatology_selectors.json"),
        &o,
    )
    .unwrap();
    assert_eq!(d.n_items(), 419);
    assert_eq!(d.n_obs() + d.dropped(), 9602, "all annotations read");
    assert_eq!(d.dropped(), 0);
    assert_eq!(d.max_group(), 6);
    assert!(d.observations().all(|ob| ob.tail == Tail::Universe));
    o.case = Some(1026);
    let c = read_path(
        &path(&dir, "dermatology-ddx/dermatology_selectors.json"),
        &o,
    )
    .unwrap();
    assert_eq!(c.n_obs(), 6, "the Fig. 3 case has six annotators");
}

/// A UTF-8 byte-order mark is accepted by every reader (it was refused by
/// the JSON reader as "unexpected character").
#[test]
fn byte_order_mark_is_not_content() {
    use plackett::io::{Format, ReadOptions, bytes_to_text, read_str};
    let cases = [
        (Format::Json, "[[0,1,2],[1,0,2]]"),
        (
            Format::Csv,
            "ranking,rank,item\n1,1,a\n1,2,b\n2,1,b\n2,2,a\n",
        ),
        (Format::Selectors, "[[[[0],[1]]],[[[1],[0]]]]"),
        (Format::Pairs, "a,b,i_wins,j_wins\np,q,1,2\n"),
        (
            Format::Preflib,
            "# NUMBER ALTERNATIVES: 2\n1: 1,2\n1: 2,1\n",
        ),
    ];
    for (f, text) in cases {
        let bytes = [&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat();
        let t = bytes_to_text("bom.in", bytes).unwrap();
        let opts = ReadOptions {
            format: Some(f),
            ..Default::default()
        };
        let with = read_str("bom.in", &t, &opts).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        let without = read_str("plain.in", text, &opts).unwrap();
        assert_eq!(with.items().names(), without.items().names(), "{f:?}");
        assert_eq!(with.n_obs(), without.n_obs(), "{f:?}");
        // Also when the text arrives with the mark still in it.
        let raw = format!("\u{feff}{text}");
        assert!(read_str("bom.in", &raw, &opts).is_ok(), "{f:?}");
    }
}
