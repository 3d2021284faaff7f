//! R̂ and ESS pinned to values computed independently: ArviZ 0.23.4
//! (`az.rhat(method="rank")`, `az.ess(method="bulk"|"tail")`) on the fixed
//! draw matrices in `tests/data/diagnostics_draws.csv` (4 chains × 200
//! draws; regenerate and recompute with `bench/arviz_reference.py`).

use plackett::posterior::diagnose;
use std::collections::BTreeMap;

fn draws() -> BTreeMap<String, Vec<Vec<f64>>> {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/diagnostics_draws.csv");
    let text = std::fs::read_to_string(p).unwrap();
    let mut out: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (c, t): (usize, usize) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let chains = out.entry(f[0].to_string()).or_default();
        if chains.len() <= c {
            chains.resize(c + 1, Vec::new());
        }
        assert_eq!(chains[c].len(), t);
        chains[c].push(f[3].parse().unwrap());
    }
    out
}

#[test]
fn rhat_and_ess_match_arviz() {
    // (quantity, rhat, ess_bulk, ess_tail) printed by bench/arviz_reference.py.
    let want = [
        ("ar1", 1.0751625589, 65.2906536174, 102.0680762291),
        ("t3", 1.0004579842, 788.4188392165, 661.5603363137),
        ("shifted", 1.0318992135, 262.9173653190, 710.2289520328),
    ];
    let d = draws();
    for (q, rhat, bulk, tail) in want {
        let got = diagnose(&d[q]);
        eprintln!(
            "{q}: rhat {:.10} ({rhat}), ess_bulk {:.6} ({bulk}), ess_tail {:.6} ({tail})",
            got.rhat, got.ess_bulk, got.ess_tail
        );
        assert!(
            (got.rhat - rhat).abs() < 1e-8,
            "{q} rhat {} vs {rhat}",
            got.rhat
        );
        assert!(
            (got.ess_bulk - bulk).abs() < 1e-6 * bulk,
            "{q} bulk {} vs {bulk}",
            got.ess_bulk
        );
        assert!(
            (got.ess_tail - tail).abs() < 1e-6 * tail,
            "{q} tail {} vs {tail}",
            got.ess_tail
        );
    }
}
