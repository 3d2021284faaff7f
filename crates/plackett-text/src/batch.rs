//! Many documents at once, each with its own known keywords
//! (`plackett keywords batch`, `plackett.extract_keywords_many`): the
//! analyst's case of Hu 2024 ch. 1 — a collection of documents, a few
//! tags on each — without a process per document.
//!
//! Every document is scored exactly as [`extract`] scores it alone (the
//! same settings, the same seed for the Gibbs engine), so a batch's rows
//! equal the single-document runs' and do not depend on the number of
//! threads; documents run in parallel.

use super::extract::{ExtractOptions, Extraction, extract_observed, read_document};
use plackett::error::{Error, Result};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// One document of a batch.
#[derive(Debug, Clone)]
pub struct BatchDocument {
    /// Its name in outputs and errors (a file path as the manifest gives
    /// it, or `documents[i]`).
    pub source: String,
    /// Where it was listed: the manifest and its 1-based line, for errors.
    pub listed_at: Option<(String, usize)>,
    /// The text (or tokens, or graph lines, per [`ExtractOptions::input`]).
    pub text: String,
    /// Its known keywords or keyphrases.
    pub known: Vec<String>,
}

impl BatchDocument {
    /// `e` as an error about this document: at its manifest line when it
    /// came from one, else at its name (`documents[3]: …`, where
    /// [`extract`] has put it already). Option errors stay as they are
    /// (they are no document's fault).
    fn locate(&self, e: Error) -> Error {
        let what = match e {
            Error::InvalidParam { .. } => return e,
            Error::Input { ref loc, .. } if loc.file == self.source && self.listed_at.is_none() => {
                return e;
            }
            // The document's own place (a graph's line) under the manifest's.
            Error::Input { loc, msg } if loc.file == self.source => match loc.line {
                Some(l) => format!("line {l}: {msg}"),
                None => msg,
            },
            Error::Data(m) => m,
            other => other.to_string(),
        };
        match &self.listed_at {
            Some((manifest, line)) => {
                Error::input(manifest, Some(*line), format!("{}: {what}", self.source))
            }
            None => Error::input(&self.source, None, what),
        }
    }
}

/// Score every document with the same settings (each as [`extract`]
/// alone, `opts.source` replaced by the document's name), in parallel;
/// one result per document, in the given order.
pub fn extract_many(docs: &[BatchDocument], opts: &ExtractOptions) -> Vec<Result<Extraction>> {
    extract_many_observed(docs, opts, None)
}

/// [`extract_many`], telling `observer` of every Gibbs sweep; once it
/// cancels, every document still running or not begun ends `Cancelled`.
pub fn extract_many_observed(
    docs: &[BatchDocument],
    opts: &ExtractOptions,
    observer: Option<&plackett::observer::SharedObserver>,
) -> Vec<Result<Extraction>> {
    docs.par_iter()
        .map(|d| {
            let o = ExtractOptions {
                source: d.source.clone(),
                ..opts.clone()
            };
            plackett::observer::advance(observer, 0)
                .and_then(|()| extract_observed(&d.text, &d.known, &o, observer))
                .map_err(|e| d.locate(e))
        })
        .collect()
}

/// Read a batch manifest: a CSV file with a header naming (at least) the
/// columns `file` — the document, a path relative to the manifest's folder
/// unless absolute — and `known` — its known keywords or keyphrases,
/// comma-separated as `keywords extract --known` takes them (quote the
/// field). Other columns are ignored. Every document is read (UTF-8) before
/// anything runs; errors name the manifest and line.
pub fn read_manifest(path: &Path) -> Result<Vec<BatchDocument>> {
    let name = path.display().to_string();
    let text = read_document(path, &name)?;
    let text = text.as_str();
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = rdr
        .headers()
        .map_err(|e| Error::input(&name, Some(1), e.to_string()))?
        .clone();
    let col = |c: &str| header.iter().position(|h| h.trim() == c);
    let (Some(fc), Some(kc)) = (col("file"), col("known")) else {
        return Err(Error::input(
            &name,
            Some(1),
            format!(
                "expected a header with columns file and known (found: {})",
                header.iter().collect::<Vec<_>>().join(",")
            ),
        ));
    };
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    // The reader's own line count is off after blank lines and CRLF line
    // ends; count from the byte offset instead.
    let mut lines = plackett::io::CsvLines::default();
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map(|p| lines.line_of(text, p));
            Error::input(&name, line, e.to_string())
        })?;
        let line = rec.position().map_or(0, |p| lines.line_of(text, p));
        if rec.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        let file = rec.get(fc).unwrap_or("").trim();
        if file.is_empty() {
            return Err(Error::input(&name, Some(line), "empty file name"));
        }
        let known: Vec<String> = rec
            .get(kc)
            .unwrap_or("")
            .split(',')
            .map(str::to_string)
            .collect();
        let full: PathBuf = if Path::new(file).is_absolute() {
            PathBuf::from(file)
        } else {
            base.join(file)
        };
        let text = read_document(&full, file)
            .map_err(|e| Error::input(&name, Some(line), e.to_string()))?;
        rows.push(BatchDocument {
            source: file.to_string(),
            listed_at: Some((name.clone(), line)),
            text,
            known,
        });
    }
    if rows.is_empty() {
        return Err(Error::input(&name, None, "no documents listed"));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC_A: &str = "Bayesian ranking models use a posterior over worth parameters. The \
        Plackett-Luce model ranks items by worth. Posterior inference for worth and ranking.";
    const DOC_B: &str = "Keyword extraction ranks the words of a document. Graph-based keyword \
        extraction links words that occur together in the document graph.";

    fn doc(source: &str, text: &str, known: &str) -> BatchDocument {
        BatchDocument {
            source: source.into(),
            listed_at: None,
            text: text.into(),
            known: known.split(',').map(str::to_string).collect(),
        }
    }

    /// Strips the wall-clock field, the only one that may differ.
    fn comparable(e: &Extraction) -> serde_json::Value {
        let mut v = serde_json::to_value(e).unwrap();
        v["seconds"] = serde_json::Value::Null;
        v
    }

    #[test]
    fn a_batch_equals_its_documents_run_alone_on_any_number_of_threads() {
        let docs = vec![
            doc("a", DOC_A, "worth,posterior"),
            doc("b", DOC_B, "keyword,graph"),
        ];
        let opts = ExtractOptions::default();
        let alone: Vec<serde_json::Value> = docs
            .iter()
            .map(|d| comparable(&crate::extract::extract(&d.text, &d.known, &opts).unwrap()))
            .collect();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let many = pool.install(|| extract_many(&docs, &opts));
            let many: Vec<serde_json::Value> = many
                .iter()
                .map(|r| comparable(r.as_ref().unwrap()))
                .collect();
            assert_eq!(many, alone, "{threads} threads");
        }
    }

    #[test]
    fn a_failing_document_is_named_and_the_others_still_run() {
        let mut bad = doc("b.txt", DOC_B, "zebra");
        bad.listed_at = Some(("list.csv".into(), 3));
        let docs = vec![doc("a.txt", DOC_A, "worth"), bad];
        let out = extract_many(&docs, &ExtractOptions::default());
        assert!(out[0].is_ok());
        let msg = out[1].as_ref().unwrap_err().to_string();
        assert!(
            msg.starts_with("list.csv:3: b.txt: known keyword \"zebra\""),
            "{msg}"
        );
        // An option error is nobody's document: left as it is.
        let opts = ExtractOptions {
            fdr: 2.0,
            ..ExtractOptions::default()
        };
        let msg = extract_many(&docs, &opts)[0]
            .as_ref()
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("invalid option `fdr`"), "{msg}");
    }

    #[test]
    fn the_manifest_is_read_relative_to_its_folder_and_checked_line_by_line() {
        let dir = std::env::temp_dir().join(format!("plackett-batch-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/a.txt"), DOC_A).unwrap();
        std::fs::write(dir.join("docs/b.txt"), DOC_B).unwrap();
        std::fs::write(dir.join("bin.txt"), [0x66, 0xff]).unwrap();
        let m = dir.join("list.csv");
        std::fs::write(
            &m,
            "id,file,known\n1,docs/a.txt,\"worth, posterior\"\n\n2,docs/b.txt,keyword\n",
        )
        .unwrap();
        let rows = read_manifest(&m).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].known, ["worth", " posterior"]);
        assert_eq!(rows[1].listed_at.as_ref().unwrap().1, 4);
        assert_eq!(rows[1].text, DOC_B);
        let fails = |body: &str, needle: &str| {
            std::fs::write(&m, body).unwrap();
            let e = read_manifest(&m).unwrap_err().to_string();
            assert!(e.contains(needle), "{e:?} should mention {needle:?}");
            assert_eq!(e.lines().count(), 1, "{e}");
        };
        fails(
            "file,tags\ndocs/a.txt,x\n",
            "list.csv:1: expected a header with columns file and known",
        );
        fails(
            "file,known\ndocs/missing.txt,x\n",
            "list.csv:2: docs/missing.txt:",
        );
        fails(
            "file,known\nbin.txt,x\n",
            "list.csv:2: bin.txt: not UTF-8 text (invalid byte at offset 1)",
        );
        fails("file,known\n,x\n", "list.csv:2: empty file name");
        fails("file,known\n", "list.csv: no documents listed");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
