#!/usr/bin/env python3
"""pke's keyword extractors side by side with VBSS and our graph baselines.

Hu 2024's Table 1.5 ran TopicRank, MultipartiteRank, PositionRank, TF-IDF,
KPMiner and YAKE through pke (Boudin 2016). This script runs them from the
`ccpke` package on PyPI (a maintained pke fork, GPL; used here as an outside
oracle only, nothing of it is in plackett) at their default settings, plus
pke's TextRank and SingleRank, on every document of a corpus in the
docsutf8/ + keys/ layout, and writes each method's scored phrases as JSON
for `plackett keywords evaluate --external NAME=FILE.json`, which reduces
them to the candidate words (a word scores as the best phrase containing
it) and evaluates them as cut methods in the same run, on the same
candidates, with the same known keywords.

pke normally tokenises and tags with a spaCy model, which is downloaded
from GitHub, not PyPI; offline, pke reads pre-tagged sentences instead, and
those come from plackett's own front-end (`plackett keywords tag`: its
tokeniser and its Brill tagger's Universal POS tags, words it does not know
tagged NOUN when the word filter keeps them, X otherwise). pke then stems
(Porter, through NLTK), selects its candidate phrases and scores them its
own way.

    python -m venv /tmp/pv && /tmp/pv/bin/pip install ccpke
    /tmp/pv/bin/python bench/keywords_pke.py CORPUS_DIR OUT_DIR [METHOD ...]
    plackett keywords evaluate CORPUS_DIR [--candidates DIR] \\
        --external pke-positionrank=OUT_DIR/positionrank.json ...

The plackett binary is `target/release/plackett` unless PLACKETT names
another. TF-IDF and KPMiner use the document frequencies pke ships (counted
on SemEval-2010's 144 training papers), as pke's defaults do. docs/keywords.md
reports the run on SemEval-2010.
"""
import json
import multiprocessing
import os
import subprocess
import sys
import time

import pke
from pke.utils import load_document_frequency_file

METHODS = {
    "textrank": pke.unsupervised.TextRank,
    "singlerank": pke.unsupervised.SingleRank,
    "positionrank": pke.unsupervised.PositionRank,
    "topicrank": pke.unsupervised.TopicRank,
    "multipartiterank": pke.unsupervised.MultipartiteRank,
    "tfidf": pke.unsupervised.TfIdf,
    "kpminer": pke.unsupervised.KPMiner,
    "yake": pke.unsupervised.YAKE,
}
# YAKE runs from the `yake` package itself in bench/keywords_yake.py (pke's
# copy takes about 10 s per full paper); name it to run it here too.
DEFAULT = [m for m in METHODS if m != "yake"]
# Document frequencies for TF-IDF and KPMiner, read once per worker.
DF = None


def tagged_documents(plackett, paths, batch=25):
    """Each document's sentences as pke's (word, POS) tuples."""
    for i in range(0, len(paths), batch):
        chunk = paths[i : i + batch]
        out = subprocess.run(
            [plackett, "keywords", "tag", "--output", "json", *chunk],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for doc in json.loads(out)["documents"]:
            sentences = []
            for s in doc["sentences"]:
                sentences.append(
                    [
                        (t["word"], t["pos"] or ("NOUN" if t["kept"] else "X"))
                        for t in s
                    ]
                )
            yield doc["file"], sentences


def extract(job):
    """Every method on one document: ({method: phrases}, {method: seconds})."""
    global DF
    methods, sentences = job
    if DF is None and ("tfidf" in methods or "kpminer" in methods):
        DF = load_document_frequency_file(pke.base.LoadFile()._df_counts, delimiter="\t")
    phrases, seconds = {}, {}
    for m in methods:
        t0 = time.perf_counter()
        extractor = METHODS[m]()
        extractor.load_document(input=sentences, language="en")
        extractor.candidate_selection()
        if m in ("tfidf", "kpminer"):
            extractor.candidate_weighting(df=DF)
        else:
            extractor.candidate_weighting()
        best = extractor.get_n_best(n=500)
        seconds[m] = time.perf_counter() - t0
        # YAKE's scores are "lower is better" (pke's get_n_best has already
        # ordered them); every method is written as "higher is better".
        sign = -1.0 if m == "yake" else 1.0
        phrases[m] = [[p, sign * float(s)] for p, s in best]
    return phrases, seconds


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: keywords_pke.py CORPUS_DIR OUT_DIR [METHOD ...]")
    corpus, out_dir = sys.argv[1], sys.argv[2]
    methods = sys.argv[3:] or DEFAULT
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        sys.exit(f"unknown method(s) {unknown}; choose from {list(METHODS)}")
    plackett = os.environ.get("PLACKETT", "target/release/plackett")
    docs = os.path.join(corpus, "docsutf8")
    paths = sorted(
        os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".txt")
    )
    os.makedirs(out_dir, exist_ok=True)
    start = time.perf_counter()
    tagged = list(tagged_documents(plackett, paths))
    tagging = time.perf_counter() - start
    results = {m: {} for m in methods}
    seconds = {m: 0.0 for m in methods}
    workers = int(os.environ.get("WORKERS", os.cpu_count() or 1))
    with multiprocessing.Pool(workers) as pool:
        jobs = [(methods, sentences) for _, sentences in tagged]
        for (path, _), (phrases, secs) in zip(tagged, pool.imap(extract, jobs)):
            doc_id = os.path.basename(path)[:-4]
            for m in methods:
                results[m][doc_id] = phrases[m]
                seconds[m] += secs[m]
    for m in methods:
        with open(os.path.join(out_dir, f"{m}.json"), "w", encoding="utf-8") as f:
            json.dump(results[m], f)
    total = time.perf_counter() - start
    timing = ", ".join(f"{m} {seconds[m]:.1f} s" for m in methods)
    print(
        f"pke on {len(paths)} documents in {total:.1f} s wall "
        f"(tagging {tagging:.1f} s; CPU per method: {timing})",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
