#!/usr/bin/env python3
"""YAKE (Campos et al. 2020) side by side with VBSS and the graph baselines.

Runs the `yake` package from PyPI at its default settings (n-grams up to 3)
on every document of a corpus in the docsutf8/ + keys/ layout and writes its
scored phrases as JSON for `plackett keywords evaluate --external
yake=FILE.json`, which reduces them to the candidate words (a word scores as
the best phrase containing it) and evaluates YAKE as a cut method in the same
run, on the same candidates, with the same known keywords.

    python -m venv /tmp/yv && /tmp/yv/bin/pip install yake
    /tmp/yv/bin/python bench/keywords_yake.py CORPUS_DIR yake.json
    plackett keywords evaluate CORPUS_DIR [--candidates DIR] --external yake=yake.json

YAKE's scores are "lower is better"; they are negated here.
"""
import json
import os
import sys
import time

import yake


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: keywords_yake.py CORPUS_DIR OUT.json")
    corpus, out = sys.argv[1], sys.argv[2]
    docs = os.path.join(corpus, "docsutf8")
    extractor = yake.KeywordExtractor(lan="en", n=3, top=500)
    result = {}
    start = time.perf_counter()
    for name in sorted(os.listdir(docs)):
        if not name.endswith(".txt"):
            continue
        with open(os.path.join(docs, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        result[name[:-4]] = [[p, -float(s)] for p, s in extractor.extract_keywords(text)]
    seconds = time.perf_counter() - start
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    print(f"YAKE on {len(result)} documents: {seconds:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
