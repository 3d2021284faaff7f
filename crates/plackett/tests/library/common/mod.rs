#![allow(dead_code)]
use std::path::PathBuf;

/// The repository's `data/` folder (the shipped example datasets; see
/// `data/README.md`). Missing data is a failure, never a skip.
pub fn data_dir() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data");
    assert!(
        p.is_dir(),
        "{} missing: the example data ships with the repository",
        p.display()
    );
    p
}

pub fn path(dir: &std::path::Path, rel: &str) -> String {
    dir.join(rel).to_string_lossy().into_owned()
}

/// The salad dressings' rankings (Critchlow & Fligner 1991; column
/// `judge` names the ranking), as every salad test reads them.
pub fn salad_rankings() -> plackett::data::Dataset {
    plackett::io::read_path(
        &path(&data_dir(), "salad/rankings.csv"),
        &plackett::io::ReadOptions {
            ranking_col: "judge".into(),
            ..Default::default()
        },
    )
    .unwrap()
}

/// The datasets bundled with R's PLMIX 2.2.0 (Mollica & Tardella), kept
/// beside the repository in `../shared/data/plmix` for evaluation only (not
/// redistributed; `PLMIX_DATA` overrides the folder). `None`, with a
/// message, when the folder is absent.
pub fn plmix_dir() -> Option<PathBuf> {
    let p = match std::env::var_os("PLMIX_DATA") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/plmix"),
    };
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "skipped: {} not found (PLMIX's datasets are read in place, never shipped)",
            p.display()
        );
        None
    }
}

/// `f` run on a rayon pool of `threads` threads (for the checks that a
/// result does not depend on the thread count).
pub fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Item `name`'s log-worth and its standard error in a point fit.
pub fn lw(f: &plackett::infer::PointFit, name: &str) -> (f64, Option<f64>) {
    let it = f.summary.items.iter().find(|i| i.name == name).expect(name);
    (it.log_worth, it.log_worth_se)
}

/// Every `(name, log-worth, se)` row of a reference table against a point
/// fit: the log-worth within `est_tol`, the standard error within `se_rel`
/// of the reference's.
#[allow(dead_code)]
pub fn assert_table(
    f: &plackett::infer::PointFit,
    rows: &[(&str, f64, f64)],
    est_tol: f64,
    se_rel: f64,
) {
    for &(name, est, se) in rows {
        let (v, s) = lw(f, name);
        let s = s.unwrap();
        assert!((v - est).abs() < est_tol, "{name}: {v} vs {est}");
        assert!((s - se).abs() < se_rel * se, "{name}: se {s} vs {se}");
    }
}
