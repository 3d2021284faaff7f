//! Keyphrase corpora in the common layout (`docsutf8/<id>.txt`,
//! `keys/<id>.key`, one keyphrase per line), as distributed for
//! SemEval-2010 Task 5 (Kim et al. 2010) and Inspec (Hulth 2003).

use super::pipeline::Pipeline;
use plackett::error::{Error, Result};
use plackett::keywords::{Corpus, Document, ExternalScores};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// A corpus file's text, strictly UTF-8 as the `docsutf8/` layout
/// promises (the one reader `keywords extract` uses; an invalid byte is an
/// error naming the file, not a silent replacement character).
fn read(path: &Path) -> Result<String> {
    crate::extract::read_document(path, &path.display().to_string())
}

/// How a ground-truth keyphrase becomes keyword stems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyRule {
    /// Its words as the front-end reads text: a dash between letters stays
    /// inside its word ("model-based" is one keyword, as in the documents).
    #[default]
    Whole,
    /// Split at dashes first ("model-based" is "model" and "base"): the
    /// rule of the Hu 2024 authors' `Preprocessing.R`, which runs udpipe
    /// over the keyphrases and so splits hyphenated words (docs/keywords.md).
    SplitDashes,
}

impl std::str::FromStr for KeyRule {
    type Err = String;
    /// `whole` or `split-dashes`: the one spelling the CLI's `--keys` and
    /// Python's `keys=` read.
    fn from_str(s: &str) -> std::result::Result<KeyRule, String> {
        match s {
            "whole" => Ok(KeyRule::Whole),
            "split-dashes" => Ok(KeyRule::SplitDashes),
            other => Err(format!("expected whole or split-dashes, got {other:?}")),
        }
    }
}

fn truth_of(dir: &Path, id: &str, pipe: &Pipeline, keys: KeyRule) -> Result<Vec<String>> {
    let key = dir.join("keys").join(format!("{id}.key"));
    let text = read(&key)?;
    let mut out = Vec::new();
    for line in text.lines() {
        match keys {
            KeyRule::Whole => out.extend(pipe.phrase_stems(line)),
            KeyRule::SplitDashes => {
                for part in line.split('-') {
                    out.extend(pipe.phrase_stems(part));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn ids(dir: &Path) -> Result<Vec<String>> {
    let docs = dir.join("docsutf8");
    let rd = std::fs::read_dir(&docs).map_err(|source| Error::Io {
        path: docs.display().to_string(),
        source,
    })?;
    let mut ids: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            (p.extension().and_then(|x| x.to_str()) == Some("txt"))
                .then(|| p.file_stem()?.to_str().map(String::from))
                .flatten()
        })
        .collect();
    ids.sort();
    if ids.is_empty() {
        return Err(Error::Data(format!(
            "{}: no .txt documents (expected the docsutf8/ + keys/ layout)",
            docs.display()
        )));
    }
    Ok(ids)
}

/// Read a corpus and run the front-end on every document.
pub fn read_corpus(dir: &Path, pipe: &Pipeline, keys: KeyRule) -> Result<Corpus> {
    // Documents in parallel; the order is the sorted ids' whatever the
    // thread count.
    let documents = ids(dir)?
        .into_par_iter()
        .map(|id| {
            let text = read(&dir.join("docsutf8").join(format!("{id}.txt")))?;
            Ok(Document {
                tokens: pipe.candidates(&text),
                truth: truth_of(dir, &id, pipe, keys)?,
                id,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Corpus { documents })
}

/// Read pre-computed candidate sequences (one document per file, tokens
/// separated by white space, optionally in double quotes, as the VBSS
/// authors distribute theirs), mapped to corpus ids by a `map.tsv`
/// (`file<TAB>id` per line) in `candidates`, with the ground truth from
/// `dir/keys/<id>.key`.
pub fn read_candidate_corpus(
    dir: &Path,
    candidates: &Path,
    pipe: &Pipeline,
    keys: KeyRule,
) -> Result<Corpus> {
    let map_path = candidates.join("map.tsv");
    let map = read(&map_path)?;
    let mut documents = Vec::new();
    for (ln, line) in map.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut it = line.split('\t');
        let (Some(file), Some(id)) = (it.next(), it.next()) else {
            return Err(Error::Data(format!(
                "{}:{}: expected `file<TAB>id`",
                map_path.display(),
                ln + 1
            )));
        };
        let text = read(&candidates.join("docs").join(file.trim()))?;
        let tokens = text
            .split_whitespace()
            .map(|t| t.trim_matches('"').to_string())
            .filter(|t| !t.is_empty())
            .collect();
        documents.push(Document {
            tokens,
            truth: truth_of(dir, id.trim(), pipe, keys)?,
            id: id.trim().to_string(),
        });
    }
    documents.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Corpus { documents })
}

/// Read an outside method's scored phrases, `{"<doc id>": [["phrase",
/// score], …], …}` (higher scores better), and reduce them to candidate
/// words: each phrase word is stemmed by the front-end and scored by the
/// best phrase containing it.
pub fn read_external(path: &Path, name: &str, pipe: &Pipeline) -> Result<ExternalScores> {
    let text = read(path)?;
    let raw: HashMap<String, Vec<(String, f64)>> =
        serde_json::from_str(&text).map_err(|e| Error::Input {
            loc: plackett::error::Location {
                file: path.display().to_string(),
                line: Some(e.line()),
                record: None,
            },
            msg: format!(
                "{}; expected {{\"<document id>\": [[\"phrase\", score], …]}}",
                plackett::error::json_message(&e)
            ),
        })?;
    let mut scores = HashMap::new();
    for (id, phrases) in raw {
        let mut words: HashMap<String, f64> = HashMap::new();
        for (phrase, score) in phrases {
            if !score.is_finite() {
                return Err(Error::Data(format!(
                    "{}: document {id}, phrase {phrase:?}: score {score} is not finite",
                    path.display()
                )));
            }
            for w in pipe.phrase_stems(&phrase) {
                let e = words.entry(w).or_insert(f64::NEG_INFINITY);
                *e = e.max(score);
            }
        }
        scores.insert(id, words);
    }
    Ok(ExternalScores {
        name: name.to_string(),
        scores,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `whole` keeps a hyphenated keyphrase word as one keyword, as the
    /// documents' words are read; `split-dashes` splits it first (the
    /// Hu 2024 authors' rule).
    #[test]
    fn key_rules() {
        let dir = std::env::temp_dir().join(format!("plackett-keys-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docsutf8")).unwrap();
        std::fs::create_dir_all(dir.join("keys")).unwrap();
        std::fs::write(
            dir.join("docsutf8/a.txt"),
            "Model-based ranking of items ranks items.",
        )
        .unwrap();
        std::fs::write(dir.join("keys/a.key"), "model-based ranking\nitem\n").unwrap();
        let pipe = Pipeline::default();
        let whole = read_corpus(&dir, &pipe, KeyRule::Whole).unwrap();
        let split = read_corpus(&dir, &pipe, KeyRule::SplitDashes).unwrap();
        let stems = |w: &[&str]| {
            let mut v: Vec<String> = w.iter().map(|x| crate::stem(x)).collect();
            v.sort();
            v
        };
        assert_eq!(
            whole.documents[0].truth,
            stems(&["item", "model-based", "ranking"])
        );
        assert_eq!(
            split.documents[0].truth,
            stems(&["base", "item", "model", "ranking"])
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
