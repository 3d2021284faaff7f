//! Side by side with choix (Python): plackett's MLE equals
//! `choix.ilsr_rankings` after centring, on 10,000 generated rankings of
//! length 10 over 1,000 items. `.ci/run` installs choix from PyPI into its
//! venv; when choix cannot be imported the test fails under CI (`CI` set)
//! and skips with a message only on a developer machine.

use crate::common::words;
use std::process::Command;

use crate::common;

#[test]
fn mle_equals_choix_ilsr_rankings() {
    let ok = Command::new("python3")
        .args(["-c", "import choix, numpy"])
        .output();
    if !matches!(ok, Ok(ref o) if o.status.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "choix is required under CI (pip install choix)"
        );
        eprintln!(
            "SKIP mle_equals_choix_ilsr_rankings: python3 with choix not available (pip install choix)"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("plackett-choix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("r.json");
    let st = Command::new(env!("CARGO_BIN_EXE_plackett"))
        .args(words(
            "simulate --items 1000 --rankings 10000 --length 10 --seed 11",
        ))
        .args(["--out", data.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(st.success());
    let fit = Command::new(env!("CARGO_BIN_EXE_plackett"))
        .args(["fit", data.to_str().unwrap(), "--output", "json", "--no-se"])
        .output()
        .unwrap();
    common::assert_ok(&fit);
    let ours = dir.join("ours.json");
    std::fs::write(&ours, &fit.stdout).unwrap();
    let script = r#"
import json, sys, numpy as np, choix
rankings = json.load(open(sys.argv[1]))
n = 1 + max(max(r) for r in rankings)
p = choix.ilsr_rankings(n, rankings, tol=1e-10, max_iter=1000)
p -= p.mean()
q = np.array([it["log_worth"] for it in json.load(open(sys.argv[2]))["items"]])
q -= q.mean()
print(float(np.max(np.abs(p - q))))
"#;
    let out = Command::new("python3")
        .args(["-c", script, data.to_str().unwrap(), ours.to_str().unwrap()])
        .output()
        .unwrap();
    common::assert_ok(&out);
    let diff: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    eprintln!("max |plackett − choix| log-worth difference: {diff:.2e}");
    assert!(diff <= 1e-4, "{diff}");
    let _ = std::fs::remove_dir_all(&dir);
}
