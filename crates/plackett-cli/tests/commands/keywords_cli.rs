//! `plackett keywords extract|evaluate` end to end (VBSS, Hu 2024 ch. 1).

use crate::common;
use crate::common::then;

use common::{assert_ok, bin, fails, json, tmpdir};
use std::path::Path;

/// A short technical text of our own about ranking models.
const TEXT: &str = "Ranking models describe how judges order items. The Plackett-Luce \
model assigns each item a worth, and a ranking is built by choosing items in turn with \
probability proportional to worth. Bayesian inference for ranking models uses a Gamma prior \
on each worth and a Gibbs sampler with latent arrival times. Variational inference offers a \
fast approximation of the posterior, and expectation propagation refines it. Ranking data \
come as full rankings, partial rankings, choices and paired comparisons. Paired comparisons \
reduce the Plackett-Luce model to the Bradley-Terry model. Ties in rankings need their own \
model. The posterior of the worths gives credible intervals and the probability that one item \
beats another. Mixtures of Plackett-Luce models capture judges with different tastes, and \
adherence parameters capture judges who follow the consensus loosely. Inference on large \
ranking data needs fast algorithms: the MM algorithm, Newton steps, and accelerated \
fixed-point iterations.";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// `plackett keywords extract ARGS…`.
fn extract(args: &[&str]) -> std::process::Output {
    bin()
        .args(["keywords", "extract"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn extract_follows_its_json_contract_and_is_deterministic() {
    let dir = tmpdir("kw_extract");
    let f = write(&dir, "doc.txt", TEXT);
    let run = || extract(&[&f, "--known", "ranking model, worth", "--output", "json"]);
    let out = run();
    let v = json(&out);
    assert_eq!(v["known"], 3, "{v}"); // rank, model, worth (stems)
    // The contract: candidates [{stem, words, p, sd, selected,
    // known}], fdr, iterations, elbo.
    let words = v["candidates"].as_array().unwrap();
    assert_eq!(words.len(), v["n_candidates"].as_u64().unwrap() as usize);
    assert_eq!(v["fdr"], 0.2);
    assert!(v["iterations"].as_u64().unwrap() > 0);
    assert!(v["elbo"].as_f64().unwrap().is_finite());
    assert_eq!(v["elbo"], v["fit"]["elbo"]);
    for w in words {
        assert!(!w["words"].as_array().unwrap().is_empty(), "{w}");
        let sd = w["sd"].as_f64().unwrap();
        assert!((0.0..0.5).contains(&sd), "{w}");
        for k in [
            "stem",
            "rank",
            "known",
            "selected",
            "p",
            "p_plugin",
            "p_predictive",
            "p_latent",
            "theta_mean",
            "theta_sd",
        ] {
            assert!(!w[k].is_null(), "{k} missing in {w}");
        }
        if w["known"] == true {
            // A known keyword is a keyword: P(y* = 1 | y) = 1, and the
            // default FDR rule reads that probability.
            assert_eq!(w["p_latent"], 1.0);
            assert_eq!(w["selected"], true);
        }
        let p = w["p"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p));
    }
    // Ranked by p, best first.
    let ps: Vec<f64> = words.iter().map(|w| w["p"].as_f64().unwrap()).collect();
    assert!(ps.windows(2).all(|w| w[0] >= w[1]));
    // The selection is a top set of that ranking (the report draws its cut
    // there).
    let sel: Vec<bool> = words.iter().map(|w| w["selected"] == true).collect();
    let k = sel.iter().filter(|&&s| s).count();
    assert!(sel[..k].iter().all(|&s| s), "selection is not the top {k}");
    // The surface forms of a stem: "ranking models" → rank ← ranking(s).
    let rank = words.iter().find(|w| w["stem"] == "rank").unwrap();
    let forms: Vec<&str> = rank["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(
        forms.contains(&"ranking") && forms.contains(&"rankings"),
        "{forms:?}"
    );
    assert_eq!(v["fit"]["converged"], true);
    // Same input, same output (seconds aside).
    let mut a = v.clone();
    let mut b = json(&run());
    a["seconds"] = 0.into();
    b["seconds"] = 0.into();
    assert_eq!(a, b);
}

#[test]
fn gibbs_agrees_with_vb_on_a_short_text() {
    let dir = tmpdir("kw_gibbs");
    let f = write(&dir, "doc.txt", TEXT);
    let get = |engine: &str, covariance: &str| {
        let out = extract(&[
            &f,
            "--known",
            "ranking model, worth",
            "--output",
            "json",
            "--engine",
            engine,
            "--samples",
            "1500",
            "--covariance",
            covariance,
        ]);
        let v = json(&out);
        let mut m = std::collections::HashMap::new();
        for w in v["candidates"].as_array().unwrap() {
            m.insert(
                w["stem"].as_str().unwrap().to_string(),
                (w["p_latent"].as_f64().unwrap(), w["sd"].as_f64().unwrap()),
            );
        }
        let note = v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .find(|n| n.starts_with("vb: sd is"));
        (m, note)
    };
    let (vb, vb_note) = get("vb", "linear-response");
    let (mf, mf_note) = get("vb", "mean-field");
    let (gs, gibbs_note) = get("gibbs", "linear-response");
    // VB's output says its sds are too small, and by how much; the exact
    // posterior's does not.
    assert!(gibbs_note.is_none());
    assert!(
        vb_note
            .unwrap()
            .starts_with("vb: sd is VB's with its linear-response correction and still too small")
    );
    assert!(
        mf_note
            .unwrap()
            .starts_with("vb: sd is mean-field VB's and too small")
    );
    let worst = vb
        .iter()
        .map(|(k, p)| (p.0 - gs[k].0).abs())
        .fold(0.0, f64::max);
    // The posterior sd of Φ(a + bθ) against the exact posterior's:
    // mean-field VB's is about a third of it (0.31 here), the
    // linear-response correction's about two thirds (0.68 here), as their
    // notes say; the probabilities do not depend on the covariance.
    let ratio = |fit: &std::collections::HashMap<String, (f64, f64)>| {
        fit.iter().map(|(k, p)| p.1 / gs[k].1).sum::<f64>() / fit.len() as f64
    };
    let (r_lr, r_mf) = (ratio(&vb), ratio(&mf));
    eprintln!("sd ratio VB/Gibbs: linear response {r_lr:.3}, mean-field {r_mf:.3}");
    assert!(
        (0.15..0.6).contains(&r_mf),
        "sd ratio mean-field VB/Gibbs {r_mf}"
    );
    assert!(
        (0.45..1.2).contains(&r_lr) && r_lr > 1.4 * r_mf,
        "sd ratio linear-response VB/Gibbs {r_lr} (mean-field {r_mf})"
    );
    assert!(vb.iter().all(|(k, p)| p.0 == mf[k].0));
    // docs/keywords.md: with the default θ₀ = B⁻¹y, VB's P(y* = 1 | y) is
    // within 0.1 of the exact posterior's on real documents.
    assert!(worst < 0.1, "VB vs Gibbs P(y* = 1 | y) differ by {worst}");
}

#[test]
fn a_users_own_graph() {
    let dir = tmpdir("kw_graph");
    let g = write(
        &dir,
        "g.csv",
        "source,target,weight\nalpha,beta,3\nbeta,gamma,1\ngamma,delta,2\ndelta,alpha,1\nalpha,epsilon,0.5\nzeta,eta,1\n",
    );
    let out = extract(&then(&[&g], "--input graph --known alpha --output json"));
    let v = json(&out);
    assert_eq!(v["n_candidates"], 7);
    assert_eq!(v["candidates"][0]["stem"], "alpha");
    assert_eq!(v["candidates"][0]["words"], serde_json::json!(["alpha"]));
    let bad = write(&dir, "bad.csv", "alpha,beta,2\nbeta,gamma,-1\n");
    let out = extract(&then(&[&bad], "--input graph --known alpha"));
    fails(&out, "bad.csv:2");
    // Only a whole header is one: a first edge from a word named "source"
    // is an edge (it was skipped, and the word with it), in any case.
    for (name, text) in [
        ("s1.csv", "source,code,2\ncode,compiler,1\n"),
        ("s2.csv", "Source,Target\nsource,code,2\ncode,compiler,1\n"),
        (
            "s3.csv",
            "SOURCE,TARGET,WEIGHT\nsource,code,2\ncode,compiler,1\n",
        ),
    ] {
        let f = write(&dir, name, text);
        let v = json(&extract(&then(
            &[&f],
            "--input graph --known source --output json",
        )));
        assert_eq!(v["n_candidates"], 3, "{name}: {v}");
    }
}

#[test]
fn bad_input_is_refused_with_one_line() {
    let dir = tmpdir("kw_bad");
    let f = write(&dir, "doc.txt", TEXT);
    let out = extract(&[&f, "--known", "zebra"]);
    fails(
        &out,
        "doc.txt: known keyword \"zebra\" is not in the document",
    );
    // No known keyword at all is said as such, not as a spelling problem.
    for none in ["", " , ,"] {
        let out = extract(&[&f, "--known", none]);
        fails(
            &out,
            "doc.txt: no known keywords given: VBSS learns from positive–unlabelled data",
        );
    }
    // Each known keyword must be in the text, not just one of them.
    let out = extract(&[&f, "--known", "ranking model, zebra"]);
    fails(&out, "known keyword \"zebra\" is not in the document");
    // A known keyword whose words occur but are filtered out says which
    // filter dropped it and how to keep it.
    let out = extract(&[&f, "--known", "worth, gamma", "--min-count", "1"]);
    fails(
        &out,
        "doc.txt: known keyword \"gamma\" is not a candidate word: its stem \"gamma\" occurs 1 \
         time(s), and --min-count (1) keeps only stems occurring more often",
    );
    let out = extract(&[&f, "--known", "worth, with"]);
    fails(
        &out,
        "known keyword \"with\" is not a candidate word: \"with\" occurs, but the part-of-speech \
         filter keeps nouns, verbs and adjectives only (--word-filter stopwords keeps every word \
         but function words)",
    );
    let out = extract(&[&f, "--known", "worth, with", "--word-filter", "stopwords"]);
    fails(
        &out,
        "\"with\" occurs, but it is a function word (--word-filter none keeps it)",
    );
    // A keyphrase counts when one of its words is a candidate; the others
    // are noted.
    let out = extract(&[&f, "--known", "worth, zebra model"]);
    assert_ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("not candidates (ignored): zebra"));
    // No known keyword at all.
    let out = extract(&[&f, "--known", " , "]);
    fails(&out, "no known keyword");
    let out = extract(&then(&[&f], "--known rank --fdr 0"));
    fails(&out, "--fdr");
    // --gamma is an alias of --fdr.
    let out = extract(&then(&[&f], "--known rank --gamma 1.5"));
    fails(&out, "--fdr");
    let out = extract(&then(&[&f], "--known rank --damping 1"));
    fails(&out, "damping");
    let out = extract(&[&f, "--known", "rank", "--tau=-1"]);
    fails(&out, "tau");
    let bin_file = dir.join("bin.txt");
    std::fs::write(&bin_file, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let out = bin()
        .args(["keywords", "extract"])
        .arg(&bin_file)
        .args(["--known", "a"])
        .output()
        .unwrap();
    fails(&out, "not UTF-8");
    let empty = write(&dir, "empty.txt", "the of and");
    let out = extract(&[&empty, "--known", "a"]);
    fails(&out, "no candidate words");
    // A frequency filter that empties the document says it is the cause.
    let out = extract(&then(&[&f], "--known rank --min-count 1000"));
    fails(
        &out,
        "no candidate words (every candidate stem occurs 1000 time(s) or fewer, and --min-count (1000)",
    );
    let two = write(&dir, "two.txt", "alpha beta");
    let out = extract(&[&two, "--known", "alpha,beta"]);
    fails(&out, "nothing to infer");
    let out = bin()
        .args(["keywords", "evaluate"])
        .arg(dir.join("nowhere"))
        .output()
        .unwrap();
    fails(&out, "nowhere");
    // Nothing written on failure.
    let target = dir.join("out.json");
    let out = bin()
        .args(["keywords", "extract", &f, "--known", "zebra", "--out"])
        .arg(&target)
        .output()
        .unwrap();
    fails(&out, "known keyword \"zebra\" is not in the document");
    assert!(!target.exists());
}

/// A synthetic corpus: each document repeats a core of topic words that
/// are its keywords among filler words.
fn corpus(dir: &Path) -> String {
    let root = dir.join("corpus");
    std::fs::create_dir_all(root.join("docsutf8")).unwrap();
    std::fs::create_dir_all(root.join("keys")).unwrap();
    let fillers = [
        "result", "method", "paper", "section", "value", "case", "figure", "table", "work",
        "study", "time", "set", "number", "order", "part", "form",
    ];
    for d in 0..6 {
        let topic: Vec<String> = (0..14).map(|k| format!("topic{d}x{k}")).collect();
        let mut text = String::new();
        for s in 0..40 {
            text.push_str(&format!(
                "{} {} {} {} {}. ",
                topic[(s * 3) % 14],
                fillers[(s * 5 + d) % 16],
                topic[(s * 7 + 1) % 14],
                fillers[(s * 11 + 3) % 16],
                topic[(s + 2) % 14]
            ));
        }
        std::fs::write(root.join("docsutf8").join(format!("d{d}.txt")), text).unwrap();
        std::fs::write(
            root.join("keys").join(format!("d{d}.key")),
            topic.join("\n"),
        )
        .unwrap();
    }
    root.to_str().unwrap().to_string()
}

#[test]
fn evaluate_prints_the_dissertation_layout() {
    let dir = tmpdir("kw_eval");
    let c = corpus(&dir);
    let out = bin()
        .args(["keywords", "evaluate", &c, "--min-count", "0"])
        .output()
        .unwrap();
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    // The header says which documents were kept (Hu 2024 §1.4: ≥ 11).
    assert!(
        text.contains("kept (≥ 11 keywords among candidates)"),
        "{text}"
    );
    for h in [
        "Precision",
        "Recall",
        "F-measure",
        "Realised FDR",
        "VBSS",
        "SS",
        "TR",
        "PosR",
        "TF-IDF",
    ] {
        assert!(text.contains(h), "{h} missing:\n{text}");
    }
    let out = bin()
        .args(then(
            &["keywords", "evaluate", &c],
            "--min-count 0 --output json --known-count 3",
        ))
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["documents"], 6);
    assert_eq!(v["k"], 3);
    // The fixed keys: one flat row per method and γ.
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 6 * 5);
    assert_eq!(results[0]["method"], "vbss");
    assert_eq!(results[0]["gamma"], 0.05);
    assert_eq!(results[0]["k"], 3);
    assert_eq!(results[0]["forced"], true);
    assert_eq!(results[1]["method"], "ss");
    assert_eq!(results[4]["method"], "tfidf");
    assert_eq!(results[5]["gamma"], 0.1);
    assert_eq!(results[7]["f"], v["cells"][1][2]["f"]);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for row in cells {
        let row = row.as_array().unwrap();
        assert_eq!(row.len(), 5);
        // Forced cuts contain the known keywords: at least 3 per document.
        for c in &row[1..] {
            assert!(c["observed_recovered"].as_u64().unwrap() >= 18);
        }
        for c in row {
            let (p, r, f) = (
                c["precision"].as_f64().unwrap(),
                c["recall"].as_f64().unwrap(),
                c["f"].as_f64().unwrap(),
            );
            if p + r > 0.0 {
                assert!((f - 2.0 * p * r / (p + r)).abs() < 1e-12);
            }
        }
    }
    // A value the user typed is quoted, never shown as a flag (`--magic`).
    for (flags, needle) in [
        (["--methods", "magic"], "unknown method \"magic\""),
        (["--gamma", "0.1,abc"], "\"abc\" is not a number"),
        (["--external", "abc"], "\"abc\" is not NAME=FILE.json"),
        (["--k", "11"], "--min-keywords"),
    ] {
        let out = bin()
            .args(["keywords", "evaluate", &c])
            .args(flags)
            .output()
            .unwrap();
        fails(&out, needle);
    }
}

#[test]
fn evaluate_pools_draws_and_takes_rates_from_the_authors_code() {
    let dir = tmpdir("kw_draws");
    let c = corpus(&dir);
    let run = |extra: &[&str]| evaluate_json(&c, "2", extra);
    let one = run(&[]);
    let three = run(&["--draws", "3"]);
    assert_eq!(one["draws"], 1);
    assert_eq!(three["draws"], 3);
    // One draw has no sd over draws (null, not 0).
    assert!(one["cells"][0][0]["f_sd"].is_null(), "{one}");
    assert_eq!(three["documents"], one["documents"]);
    // VBSS always keeps its known keywords: 3 per document per draw.
    let docs = three["documents"].as_u64().unwrap();
    for row in three["cells"].as_array().unwrap() {
        assert_eq!(row[0]["observed_recovered"].as_u64().unwrap(), 3 * 3 * docs);
        for c in row.as_array().unwrap() {
            assert!(c["f_sd"].as_f64().unwrap() >= 0.0);
        }
    }
    // The first draw is the single-draw run: pooling can only add.
    for (r1, r3) in one["cells"]
        .as_array()
        .unwrap()
        .iter()
        .zip(three["cells"].as_array().unwrap())
    {
        for (a, b) in r1.as_array().unwrap().iter().zip(r3.as_array().unwrap()) {
            assert!(b["selected"].as_u64().unwrap() >= a["selected"].as_u64().unwrap());
        }
    }
    // vbss-code sets the cut rates when asked to.
    let code = run(&["--methods", "ss,vbss-code", "--rates-from", "vbss-code"]);
    assert_eq!(code["rates_from"], "vbss-code");
    let labels: Vec<&str> = code["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let ci = labels.iter().position(|l| *l == "VBSS-code").unwrap();
    let cand = code["candidates"].as_f64().unwrap();
    for (gi, row) in code["cells"].as_array().unwrap().iter().enumerate() {
        let rate = code["rates"][gi].as_f64().unwrap();
        assert!((rate * cand - row[ci]["selected"].as_f64().unwrap()).abs() < 1e-6);
    }
    assert!(
        code["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["method"] == "vbss-code")
    );
    // Without VBSS: the same cells for the other methods (the rates come
    // from vbss-code either way), VBSS's column and timing gone.
    let alone = run(&[
        "--methods",
        "ss,vbss-code",
        "--rates-from",
        "vbss-code",
        "--no-vbss",
    ]);
    assert_eq!(alone["labels"], serde_json::json!(["SS", "VBSS-code"]));
    for (a, b) in alone["cells"]
        .as_array()
        .unwrap()
        .iter()
        .zip(code["cells"].as_array().unwrap())
    {
        assert_eq!(a[0], b[1]);
        assert_eq!(a[1], b[2]);
    }
    assert_eq!(alone["per_document"].as_array().unwrap().len(), 0);
    // Bad combinations: one line, exit 2.
    for bad in [
        vec!["--rates-from", "vbss-code"],
        vec!["--rates-from", "ss"],
        vec!["--draws", "0"],
        vec!["--no-vbss"],
        vec!["--no-vbss", "--methods", "vbss,ss", "--rates-from", "bss"],
    ] {
        let mut args = vec!["keywords", "evaluate", &c, "--min-count", "0"];
        args.extend(bad.iter().copied());
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.trim().lines().count() <= 3, "{bad:?}: {err}");
    }
}

/// A corpus in the `docsutf8/` layout is read as strictly as one document:
/// an invalid UTF-8 byte in a text or key file is an error naming that
/// file (it was once replaced silently, so a mis-encoded key phrase simply
/// never matched), and BSS's sweep counts are checked under their own
/// flag names before the first document is fitted.
#[test]
fn evaluate_names_a_corpus_file_that_is_not_utf8() {
    let dir = tmpdir("kw-corpus-utf8");
    let c = corpus(&dir);
    let root = Path::new(&c);
    let evaluate = |extra: &[&str]| {
        bin()
            .args(["keywords", "evaluate", &c, "--min-count", "0"])
            .args(extra)
            .output()
            .unwrap()
    };
    assert_ok(&evaluate(&[]));
    let key = root.join("keys").join("d2.key");
    let good_key = std::fs::read(&key).unwrap();
    let mut bad = good_key.clone();
    bad.extend(b"\nqualit\xe9\n");
    std::fs::write(&key, &bad).unwrap();
    let out = evaluate(&[]);
    fails(&out, "d2.key");
    fails(&out, "not UTF-8");
    std::fs::write(&key, &good_key).unwrap();
    let doc = root.join("docsutf8").join("d4.txt");
    let mut text = std::fs::read(&doc).unwrap();
    text.extend(b" caf\xe9");
    std::fs::write(&doc, &text).unwrap();
    let out = evaluate(&[]);
    fails(&out, "d4.txt");
    fails(&out, "not UTF-8");
    std::fs::remove_file(&doc).unwrap();
    // Short documents under the full-paper frequency filter keep too few
    // keywords: the message names both options that decide it.
    let out = bin()
        .args(["keywords", "evaluate", &c, "--min-count", "50"])
        .output()
        .unwrap();
    fails(&out, "no document has at least 11 ground-truth keywords");
    fails(
        &out,
        "(--min-keywords; with the text front end, short documents may also want a lower --min-count",
    );
    let out = evaluate(&[
        "--methods",
        "bss",
        "--bss-iterations",
        "100",
        "--bss-burn-in",
        "95",
    ]);
    fails(&out, "--bss-iterations");
    fails(&out, "--bss-burn-in");
    // Counts near usize::MAX once overflowed into an index panic or a
    // capacity overflow inside the sampler.
    for (it, burn) in [
        ("20", "18446744073709551615"),
        ("18446744073709551615", "10"),
    ] {
        let out = evaluate(&[
            "--methods",
            "bss",
            "--bss-iterations",
            it,
            "--bss-burn-in",
            burn,
        ]);
        fails(&out, "--bss-iterations");
    }
    // As did a draw count near it (an allocation).
    for draws in ["0", "10001", "18446744073709551615"] {
        fails(&evaluate(&["--draws", draws]), "--draws");
    }
}

/// `keywords evaluate` on a test corpus (no frequency filter, 3 known
/// keywords) on `threads` threads, as JSON.
fn evaluate_json(corpus: &str, threads: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "keywords",
        "evaluate",
        corpus,
        "--min-count",
        "0",
        "--known-count",
        "3",
        "--output",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = bin()
        .env("RAYON_NUM_THREADS", threads)
        .args(&args)
        .output()
        .unwrap();
    json(&out)
}

/// Documents run in parallel and their draws in turn: the table is the same
/// on one thread and on two.
#[test]
fn evaluate_does_not_depend_on_the_thread_count() {
    let dir = tmpdir("kw_threads");
    let c = corpus(&dir);
    let run = |threads: &str| {
        let v = evaluate_json(
            &c,
            threads,
            &["--methods", "ss,textrank,vbss-code", "--draws", "3"],
        );
        (v["cells"].clone(), v["rates"].clone())
    };
    assert_eq!(run("1"), run("2"));
}

#[test]
fn extract_report_draws_the_ranking_with_its_cut_and_writes_nothing_on_failure() {
    let dir = tmpdir("kw_report");
    let f = write(&dir, "doc.txt", TEXT);
    let page = dir.join("kw.html");
    let out_json = dir.join("kw.json");
    let page_s = page.to_str().unwrap();
    let json_s = out_json.to_str().unwrap();
    let out = extract(&[
        &f,
        "--known",
        "ranking model, worth",
        "--fdr",
        "0.3",
        "--report",
        page_s,
        "--output",
        "json",
        "--out",
        json_s,
    ]);
    assert_ok(&out);
    let html = std::fs::read_to_string(&page).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_json).unwrap()).unwrap();
    assert!(html.contains("<svg") && html.contains("</html>"));
    // The known keywords are named above the chart (p = 1 would flatten
    // every other bar on a shared axis); the bars are the unlabelled words
    // on their own scale, selected ones blue (Okabe & Ito's, the report
    // style's); the table lists every candidate.
    assert!(
        html.contains("Known keywords (") && html.contains("labelled, p = 1)"),
        "known keywords not named"
    );
    let picked = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["selected"] == true && c["known"] == false);
    assert_eq!(
        html.contains("rgb(0,114,178)") || html.contains("#0072B2"),
        picked,
        "a blue bar exactly when an unlabelled word is selected"
    );
    assert!(html.contains("FDR level γ") && html.contains("0.3"));
    // One table row per candidate, and one per keyphrase in the table of
    // those.
    assert_eq!(
        html.matches("<tr><td>").count(),
        v["candidates"].as_array().unwrap().len() + v["phrases"].as_array().unwrap().len(),
        "one table row per candidate and per keyphrase"
    );
    assert!(html.contains("<h2>Keyphrases</h2>"), "no keyphrase table");
    for w in v["selected"].as_array().unwrap() {
        assert!(html.contains(w.as_str().unwrap()));
    }
    // A failing run writes neither file.
    std::fs::remove_file(&page).unwrap();
    std::fs::remove_file(&out_json).unwrap();
    let out = extract(&[&f, "--known", "zebra", "--report", page_s, "--out", json_s]);
    fails(&out, "is not in the document");
    assert!(!page.exists() && !out_json.exists());
}

/// `keywords tag` shows the front-end's reading: the words `extract` keeps
/// are exactly the ones marked, in order; punctuation is shown but never a
/// candidate; a bad file among several writes nothing.
#[test]
fn tag_shows_the_words_extract_keeps() {
    let dir = tmpdir("kw_tag");
    let f = write(&dir, "doc.txt", TEXT);
    let out = bin()
        .args(["keywords", "tag", &f, "--output", "json"])
        .output()
        .unwrap();
    assert_ok(&out);
    let v = json(&out);
    let docs = v["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 1);
    let tokens: Vec<&serde_json::Value> = docs[0]["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s.as_array().unwrap())
        .collect();
    let kept: Vec<&str> = tokens
        .iter()
        .filter(|t| t["kept"].as_bool().unwrap())
        .map(|t| t["word"].as_str().unwrap())
        .collect();
    // Every candidate extract reports stands for some kept word.
    let ex = json(&extract(&then(&[&f], "--known worth --output json")));
    for c in ex["candidates"].as_array().unwrap() {
        for w in c["words"].as_array().unwrap() {
            assert!(kept.contains(&w.as_str().unwrap()), "{w} not kept by tag");
        }
    }
    assert!(kept.contains(&"plackett-luce"));
    assert!(!kept.contains(&"the"));
    assert!(
        tokens
            .iter()
            .any(|t| t["pos"] == "PUNCT" && t["word"] == "," && t["kept"] == false)
    );
    assert!(
        tokens
            .iter()
            .any(|t| t["word"] == "model" && t["pos"] == "NOUN")
    );
    // The text form: one sentence per line, word/TAG, candidates marked +.
    let out = bin().args(["keywords", "tag", &f]).output().unwrap();
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().count(),
        docs[0]["sentences"].as_array().unwrap().len()
    );
    let first = text.split_whitespace().next().unwrap();
    assert!(
        first.starts_with("ranking/") && first.ends_with('+'),
        "{text}"
    );
    assert!(text.contains(" models/NOUN+ "), "{text}");
    // Several files; a bad one refuses the lot and writes nothing.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, [0x41, 0xff]).unwrap();
    let target = dir.join("tags.json");
    let out = bin()
        .args(["keywords", "tag", &f])
        .arg(&bad)
        .arg("--out")
        .arg(&target)
        .output()
        .unwrap();
    fails(&out, "bad.txt: not UTF-8");
    assert!(!target.exists());
}

/// `plackett keywords batch ARGS…`.
fn batch(args: &[&str]) -> std::process::Output {
    bin()
        .args(["keywords", "batch"])
        .args(args)
        .output()
        .unwrap()
}

/// A document's JSON without its wall-clock field and the batch's own keys.
fn comparable(mut v: serde_json::Value) -> serde_json::Value {
    let o = v.as_object_mut().unwrap();
    for k in ["seconds", "file", "known_given"] {
        o.remove(k);
    }
    v
}

#[test]
fn batch_equals_extract_on_each_document() {
    let dir = tmpdir("kw_batch");
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    write(&dir.join("docs"), "a.txt", TEXT);
    let second = "Keyword extraction ranks the words of a document. Graph-based keyword \
        extraction links words that occur together, and a few known keywords guide a \
        Bayesian model of the rest. The posterior probability of each word being a keyword \
        comes with an uncertainty, and a false discovery rate rule selects the set.";
    write(&dir.join("docs"), "b.txt", second);
    let manifest = write(
        &dir,
        "list.csv",
        "id,file,known\n1,docs/a.txt,\"ranking model, worth\"\n2,docs/b.txt,\"keyword, document\"\n",
    );
    for engine in ["vb", "gibbs"] {
        let small = then(
            &["--engine", engine],
            "--samples 300 --burn-in 200 --chains 2",
        );
        let out = batch(&[&[manifest.as_str(), "--output", "json"][..], &small[..]].concat());
        let v = json(&out);
        assert_eq!(v["n_documents"], 2);
        assert_eq!(v["failed"], 0);
        let docs = v["documents"].as_array().unwrap();
        for (d, (name, known)) in docs.iter().zip([
            ("a.txt", "ranking model, worth"),
            ("b.txt", "keyword, document"),
        ]) {
            assert_eq!(d["file"], format!("docs/{name}"));
            let path = dir.join("docs").join(name);
            let alone = extract(
                &[
                    &[path.to_str().unwrap(), "--known", known, "--output", "json"][..],
                    &small[..],
                ]
                .concat(),
            );
            assert_eq!(
                comparable(d.clone()),
                comparable(json(&alone)),
                "{engine}, {name}: batch and extract differ"
            );
        }
    }
    // The CSV is extract's with a file column in front.
    let out = batch(&[&manifest, "--output", "csv"]);
    assert_ok(&out);
    // Its rows' caveat on standard error, once for the batch.
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        err.matches("note: vb: sd is VB's with its linear-response correction")
            .count(),
        1,
        "{err}"
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        csv.starts_with("file,stem,words,rank,known,selected,p,sd,"),
        "{csv}"
    );
    assert!(
        csv.lines()
            .skip(1)
            .all(|l| l.starts_with("docs/a.txt,") || l.starts_with("docs/b.txt,"))
    );
    // The table prints no sds, so not the note that VB's are too small.
    let out = batch(&[&manifest]);
    assert_ok(&out);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("docs/a.txt: ") && !table.contains("vb: sd"),
        "{table}"
    );
}

#[test]
fn batch_names_the_manifest_line_and_writes_nothing_on_failure() {
    let dir = tmpdir("kw_batch_bad");
    write(&dir, "a.txt", TEXT);
    let out_file = dir.join("out.json");
    let out_path = out_file.to_str().unwrap();
    let bad = write(&dir, "bad.csv", "file,known\na.txt,worth\na.txt,zebra\n");
    fails(
        &batch(&[&bad, "--out", out_path]),
        "bad.csv:3: a.txt: known keyword \"zebra\" is not in the document",
    );
    assert!(!out_file.exists());
    let missing = write(&dir, "missing.csv", "file,known\nnope.txt,worth\n");
    fails(&batch(&[&missing]), "missing.csv:2: nope.txt:");
    let header = write(&dir, "header.csv", "path,tags\na.txt,worth\n");
    fails(
        &batch(&[&header]),
        "header.csv:1: expected a header with columns file and known",
    );
    // A graph document's own line under the manifest's, named once.
    write(&dir, "g.csv", "a,b,1\nc,d,x\n");
    let graphs = write(&dir, "graphs.csv", "file,known\ng.csv,a\n");
    fails(
        &batch(&[&graphs, "--input", "graph"]),
        "graphs.csv:2: g.csv: line 2: weight \"x\" is not a finite",
    );
    let good = write(&dir, "good.csv", "file,known\na.txt,worth\n");
    fails(&batch(&[&good, "--fdr", "3"]), "invalid option --fdr");
    // --keep-going reports the failure in place and runs the rest.
    let out = batch(&[&bad, "--keep-going", "--output", "json", "--out", out_path]);
    assert_ok(&out);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(v["failed"], 1);
    assert!(v["documents"][0]["candidates"].is_array());
    assert!(
        v["documents"][1]["error"]
            .as_str()
            .unwrap()
            .contains("known keyword \"zebra\""),
        "{v}"
    );
}

/// `keywords evaluate --report` with `--timing-plot` and `--out`: the
/// three files are written together, and none of them when one cannot be.
#[test]
fn evaluate_report_plot_and_output_are_written_together() {
    let dir = tmpdir("kw_eval_report");
    let c = corpus(&dir);
    let (page, plot, out) = (dir.join("e.html"), dir.join("t.svg"), dir.join("e.txt"));
    let run = |report: &std::path::Path| {
        bin()
            .args(["keywords", "evaluate", &c, "--min-count", "0"])
            .args(["--report", report.to_str().unwrap()])
            .args(["--timing-plot", plot.to_str().unwrap()])
            .args(["--out", out.to_str().unwrap()])
            .output()
            .unwrap()
    };
    assert_ok(&run(&page));
    let html = std::fs::read_to_string(&page).unwrap();
    for h in [
        "F-measure",
        "Realised against nominal FDR",
        "VBSS time per document",
    ] {
        assert!(html.contains(&format!("<h2>{h}</h2>")), "{h}");
    }
    assert!(plot.exists() && out.exists());
    for f in [&page, &plot, &out] {
        std::fs::remove_file(f).unwrap();
    }
    let o = run(&dir.join("no/such/e.html"));
    assert_eq!(o.status.code(), Some(2));
    assert!(!plot.exists() && !out.exists());
}

#[test]
fn baselines_and_the_graph_come_with_the_scores() {
    let dir = tmpdir("kw_baselines");
    let f = write(&dir, "doc.txt", TEXT);
    let graph = dir.join("g.csv");
    let g = graph.to_str().unwrap();
    let known = "ranking model, worth";
    let out = extract(&[
        &f,
        "--known",
        known,
        "--baselines",
        "--graph-out",
        g,
        "--output",
        "json",
    ]);
    let v = json(&out);
    assert!(v.get("edges").is_none(), "the graph goes to its own file");
    let rows = v["candidates"].as_array().unwrap();
    let n = rows.len() as f64;
    // TextRank's and PositionRank's scores sum to the number of candidates;
    // SS's is largest on the known words it smooths.
    for key in ["textrank", "positionrank"] {
        let total: f64 = rows.iter().map(|w| w[key].as_f64().unwrap()).sum();
        assert!((total - n).abs() < 1e-9 * n, "{key} sums to {total}");
    }
    let best_ss = rows
        .iter()
        .max_by(|a, b| {
            a["ss"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["ss"].as_f64().unwrap())
        })
        .unwrap();
    assert_eq!(best_ss["known"], true, "{best_ss}");
    // The graph file reads back as --input graph, to the same scores.
    let csv = std::fs::read_to_string(&graph).unwrap();
    assert!(csv.starts_with("source,target,weight\n"), "{csv}");
    let stems: Vec<&str> = rows
        .iter()
        .filter(|w| w["known"] == true)
        .map(|w| w["stem"].as_str().unwrap())
        .collect();
    let again = json(&extract(&[
        g,
        "--input",
        "graph",
        "--known",
        &stems.join(","),
        "--baselines",
        "--output",
        "json",
    ]));
    let by_stem = |v: &serde_json::Value| -> std::collections::HashMap<String, serde_json::Value> {
        v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| (w["stem"].as_str().unwrap().to_string(), w.clone()))
            .collect()
    };
    let (a, b) = (by_stem(&v), by_stem(&again));
    assert_eq!(a.len(), b.len());
    for (stem, w) in &a {
        let u = &b[stem];
        for (key, tol) in [("p", 1e-7), ("textrank", 1e-10), ("ss", 1e-12)] {
            let (x, y) = (w[key].as_f64().unwrap(), u[key].as_f64().unwrap());
            assert!((x - y).abs() < tol, "{stem} {key}: {x} vs {y}");
        }
        // A graph has no positions, so no PositionRank.
        assert!(u.get("positionrank").is_none());
    }
    // CSV: the baselines' columns; the table: their ranks.
    let out = extract(&[&f, "--known", known, "--baselines", "--output", "csv"]);
    assert_ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text.lines().next().unwrap();
    assert!(
        header.ends_with(",frequency,textrank,positionrank,ss"),
        "{header}"
    );
    assert!(
        text.lines().skip(1).all(|l| l.split(',').count() >= 16),
        "{text}"
    );
    let out = extract(&[&f, "--known", known, "--baselines"]);
    assert_ok(&out);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("TextRank  PosRank       SS"), "{table}");
    // The report: the baselines' ranks as columns, their agreement with p.
    let page = dir.join("r.html");
    let out = extract(&[
        &f,
        "--known",
        known,
        "--baselines",
        "--report",
        page.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let html = std::fs::read_to_string(&page).unwrap();
    for s in [
        "<th>TextRank rank</th>",
        "<th>PositionRank rank</th>",
        "<th>SS rank</th>",
        "Spearman",
    ] {
        assert!(html.contains(s), "{s}");
    }
    // Without --baselines, none of it.
    let plain = json(&extract(&[
        &f,
        "--known",
        known,
        "--output",
        "json",
        "--report",
        page.to_str().unwrap(),
    ]));
    assert!(plain["candidates"][0].get("textrank").is_none());
    assert!(
        !std::fs::read_to_string(&page)
            .unwrap()
            .contains("TextRank rank")
    );
}

#[test]
fn graph_files_quote_names_and_nothing_is_written_on_failure() {
    let dir = tmpdir("kw_graph_quotes");
    // A node name with a comma and one with a quote, as CSV quotes them; a
    // hashtag is a name, not a comment.
    let g = write(
        &dir,
        "g.csv",
        "source,target,weight\n\"rank, model\",worth,2\nworth,\"say \"\"hi\"\"\",1\n\"say \"\"hi\"\"\",\"rank, model\",1\nlone,lone,0\n#ai,worth,1\n",
    );
    let out_graph = dir.join("again.csv");
    let v = json(&extract(&[
        &g,
        "--input",
        "graph",
        "--known",
        "worth",
        "--graph-out",
        out_graph.to_str().unwrap(),
        "--output",
        "json",
    ]));
    assert_eq!(v["n_candidates"], 5, "{v}");
    let stems: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["stem"].as_str().unwrap())
        .collect();
    assert!(
        stems.contains(&"rank, model") && stems.contains(&"say \"hi\"") && stems.contains(&"#ai"),
        "{stems:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&out_graph).unwrap(),
        "source,target,weight\n\"rank, model\",worth,2\n\"rank, model\",\"say \"\"hi\"\"\",1\nworth,\"say \"\"hi\"\"\",1\nworth,#ai,1\nlone,lone,0\n"
    );
    // A failing run writes neither the graph nor the output.
    let (graph, output) = (dir.join("no.csv"), dir.join("no.json"));
    let out = extract(&[
        &g,
        "--input",
        "graph",
        "--known",
        "zebra",
        "--graph-out",
        graph.to_str().unwrap(),
        "--out",
        output.to_str().unwrap(),
    ]);
    fails(&out, "known keyword \"zebra\" is not in the document");
    assert!(!graph.exists() && !output.exists());
    // An unterminated quote is a one-line error naming the line.
    let bad = write(&dir, "bad.csv", "a,b,1\n\"c,d,1\n");
    fails(
        &extract(&then(&[&bad], "--input graph --known a")),
        "bad.csv:2",
    );
}

#[test]
fn selected_words_in_runs_become_keyphrases() {
    let dir = tmpdir("kw_phrases");
    let f = write(&dir, "doc.txt", TEXT);
    let v = json(&extract(&then(
        &[&f, "--known", "ranking model, worth"],
        "--fdr 0.5 --output json",
    )));
    let phrases = v["phrases"].as_array().unwrap();
    assert!(!phrases.is_empty());
    // Every occurrence of a selected word lies in exactly one run, so the
    // phrases' counts add up to the selected words' frequencies.
    let mut seen: std::collections::HashMap<String, f64> = Default::default();
    for k in phrases {
        let count = k["count"].as_f64().unwrap();
        for s in k["stems"].as_array().unwrap() {
            *seen.entry(s.as_str().unwrap().to_string()).or_default() += count;
        }
        assert!(k["forms"][0] == k["phrase"], "{k}");
        assert!((0.0..=1.0).contains(&k["p_min"].as_f64().unwrap()));
    }
    for w in v["candidates"].as_array().unwrap() {
        let stem = w["stem"].as_str().unwrap();
        if w["selected"] == true {
            assert_eq!(seen.get(stem), w["frequency"].as_f64().as_ref(), "{stem}");
        } else {
            assert!(!seen.contains_key(stem), "{stem} is not selected");
        }
    }
    // Multi-word phrases of the known words, most frequent first.
    let counts: Vec<u64> = phrases
        .iter()
        .map(|k| k["count"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|c| c[0] >= c[1]), "{counts:?}");
    assert!(
        phrases
            .iter()
            .any(|k| k["stems"].as_array().unwrap().len() > 1),
        "{phrases:?}"
    );
    // The table lists them; token and graph input have none.
    let out = extract(&[&f, "--known", "ranking model, worth", "--fdr", "0.5"]);
    assert_ok(&out);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("keyphrases (runs of selected words")
    );
    let toks = write(&dir, "toks.txt", "a b c a d b e c a f g b");
    let v = json(&extract(&then(
        &[&toks],
        "--input tokens --known a,b --output json",
    )));
    assert!(v.get("phrases").is_none());
}

/// `extract` gives the same bits on one thread as on several: the prior's
/// eigendecomposition of a 123-word document is large enough for faer to
/// split, and split by the thread count it once changed the last digits
/// (the linear-response covariance's product and Cholesky factor run
/// through the same pinned split).
#[test]
fn extract_does_not_depend_on_the_thread_count() {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/text/ranking_models.txt");
    let run = |threads: &str| {
        let out = bin()
            .env("RAYON_NUM_THREADS", threads)
            .args(["keywords", "extract", doc.to_str().unwrap()])
            .args(["--known", "Plackett-Luce, posterior, worth", "--baselines"])
            .args(["--output", "json"])
            .output()
            .unwrap();
        let mut v = json(&out);
        v.as_object_mut().unwrap().remove("seconds");
        v
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("3"));
}

/// On a short abstract with two known phrases, the FDR is over the
/// unlabelled words (known words do not dilute it: a word at p ≈ 0.05 is
/// not selected at γ = 0.2 or 0.5), a note says the phrases were labelled
/// word by word, and VB says it is on a short text.
#[test]
fn short_texts_select_by_the_fdr_of_unlabelled_words() {
    let dir = common::tmpdir("kw_short");
    let text = dir.join("abstract.txt");
    std::fs::write(
        &text,
        "Coral bleaching events have increased in frequency as ocean temperatures rise. We \
         surveyed reef recovery at forty sites across the Great Barrier Reef after the 2016 and \
         2017 bleaching events, measuring coral cover, juvenile recruitment and algal growth. \
         Reef recovery was fastest where herbivorous fish were abundant and water quality was \
         high, while sites exposed to repeated bleaching showed little recovery of coral cover. \
         Our results suggest that local management of fishing and water quality can support reef \
         recovery between bleaching events, although it cannot prevent bleaching itself.",
    )
    .unwrap();
    for fdr in ["0.2", "0.5"] {
        let out = common::bin()
            .args(["keywords", "extract", text.to_str().unwrap()])
            .args(["--known", "coral bleaching, reef recovery", "--fdr", fdr])
            .args(["--output", "json"])
            .output()
            .unwrap();
        let d = common::json(&out);
        let gamma: f64 = fdr.parse().unwrap();
        let picked: Vec<f64> = d["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["selected"] == true && c["known"] == false)
            .map(|c| 1.0 - c["p"].as_f64().unwrap())
            .collect();
        if !picked.is_empty() {
            let fdr_hat = picked.iter().sum::<f64>() / picked.len() as f64;
            assert!(fdr_hat <= gamma, "γ = {gamma}: estimated FDR {fdr_hat}");
        }
        let notes = d["notes"].to_string();
        assert!(notes.contains("labelled word by word"), "{notes}");
        assert!(
            notes.contains("\\\"coral bleaching\\\" → coral, bleach"),
            "{notes}"
        );
        assert!(
            notes.contains("vb on a short text (37 candidate words)"),
            "{notes}"
        );
    }
}

/// `--alpha-init article` is 1 − k/|K| from an article's ground truth:
/// `keywords evaluate` takes it (as `--keys split-dashes`); `extract` has
/// no ground truth and says so; a value that is neither is refused.
#[test]
fn alpha_init_article_is_for_evaluations() {
    let doc = common::data("text").join("ranking_models.txt");
    let doc = doc.to_str().unwrap();
    fails(
        &extract(&[doc, "--known", "posterior", "--alpha-init", "article"]),
        "only `keywords evaluate` has",
    );
    fails(
        &extract(&[doc, "--known", "posterior", "--alpha-init", "most"]),
        "--alpha-init",
    );
    // A corpus of the shipped text: keyed by its frequent words, known
    // count 2, so that the article's start is 1 − 2/|K|.
    let dir = tmpdir("alpha-article");
    std::fs::create_dir_all(dir.join("c/docsutf8")).unwrap();
    std::fs::create_dir_all(dir.join("c/keys")).unwrap();
    let text = std::fs::read_to_string(doc).unwrap().repeat(3);
    std::fs::write(dir.join("c/docsutf8/a.txt"), &text).unwrap();
    std::fs::write(
        dir.join("c/keys/a.key"),
        "Plackett-Luce model\nposterior\nworth\nranking\nitems\nprior\ninference\nsampling\n",
    )
    .unwrap();
    let c = dir.join("c");
    let run = |extra: &str| {
        let out = bin()
            .args(["keywords", "evaluate", c.to_str().unwrap()])
            .args(common::words(&format!(
                "--known-count 2 --min-keywords 3 --methods ss --output json {extra}"
            )))
            .output()
            .unwrap();
        json(&out)
    };
    let global = run("");
    let article = run("--alpha-init article --keys split-dashes");
    assert_eq!(global["documents"], 1);
    // The text reads "Plackett-Luce" as one word: kept whole the key
    // matches it, split at the dash neither "plackett" nor "luce" is a
    // candidate (the whole rule keeps 237 SemEval papers, the split one
    // 239 — docs/keywords.md).
    assert_eq!(global["keywords"], 8);
    assert_eq!(article["keywords"], 7);
    for d in [&global, &article] {
        for r in d["results"].as_array().unwrap() {
            let per = r["selected_per_document"].as_f64().unwrap();
            assert_eq!(per, r["selected"].as_f64().unwrap());
        }
    }
}
