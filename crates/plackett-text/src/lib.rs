//! Text front-end of plackett's keyword extraction (Hu 2024, §1.2.1): turns
//! a document into the candidate-word sequence the inference core
//! (`plackett::keywords`) works on, and reads keyphrase corpora in the
//! common `docsutf8/` + `keys/` layout.
//!
//! Kept out of the `plackett` crate so that the ranking library carries no
//! natural-language dependencies.
//!
//! The pipeline: normalise (lower-case; tabs, line breaks, `;`, `/`, `=`
//! to spaces; punctuation removed except intra-word dashes), tokenise on
//! Unicode word boundaries, keep nouns, verbs and adjectives by a
//! part-of-speech tagger (the authors used udpipe's english-ewt model; here
//! a Brill tagger whose trained model ships inside the crate, [`pos`]),
//! stem with the original Porter (1980) algorithm (the authors used
//! `SnowballC::wordStem`, whose default is Porter's), and for long
//! documents keep stems occurring more than twice. A function-word filter
//! is the documented fallback ([`WordFilter::StopWords`]);
//! `docs/keywords.md` measures both against the authors' own candidate
//! sets.

pub mod batch;
pub mod corpus;
pub mod extract;
pub mod phrases;
pub mod pipeline;
pub mod pos;
pub mod report;
pub mod stopwords;

pub use batch::{BatchDocument, extract_many, extract_many_observed, read_manifest};
pub use corpus::{KeyRule, read_candidate_corpus, read_corpus, read_external};
pub use extract::{
    Candidate, Edge, Engine, ExtractOptions, Extraction, Input, VB_SD_NOTE, VB_SD_NOTE_MEAN_FIELD,
    baseline_ranks, edges_csv, extract, extract_observed, graph_edges, is_vb_sd_note,
    read_document, vb_sd_note,
};
pub use phrases::{Keyphrase, keyphrases};
pub use pipeline::{Pipeline, Reading, TaggedToken, WordFilter, stem};
