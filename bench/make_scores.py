#!/usr/bin/env python3
"""Generate an N×K score matrix (numpy.savetxt layout) for `plackett evaluate`
benchmarks and examples: a synthetic "classifier" whose scores are the
unnormalised IRN of each case's annotations plus Gaussian noise (so it is
right about as often as the experts agree, and sometimes wrong).

Usage: python3 bench/make_scores.py SELECTORS.json K OUT.txt [--noise 0.5] [--seed 1]

Needs numpy: run it with the test suite's environment
(`target/venv/bin/python`, made by `.ci/run`) or `pip install numpy`.
"""
import argparse, json
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("selectors")
ap.add_argument("k", type=int)
ap.add_argument("out")
ap.add_argument("--noise", type=float, default=0.5)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
cases = json.load(open(a.selectors))
rng = np.random.default_rng(a.seed)
scores = rng.normal(0.0, a.noise, size=(len(cases), a.k))
for i, case in enumerate(cases):
    for ann in case:
        for rank, block in enumerate(ann):
            for c in block:
                scores[i, c] += 1.0 / (rank + 1) / len(block)
np.savetxt(a.out, scores)
