#!/usr/bin/env python3
"""VB's weight intervals against the Gibbs sampler's for the PL-regression
classifier (Archambeau & Caron 2012), on the shipped Iris and Wine sets
(docs/classify.md, "VB's weight intervals").

Both engines at their defaults (`plackett classify fit … --model-out`);
the 95% intervals of the normalised weights λ/Σλ (over all classes and
transforms, as the report draws them) from the sampler's kept draws and
from 4,000 draws of VB's Gamma factors, compared for every weight whose
posterior mean is above 1%.

Usage (after .ci/run or cargo build --release):
    python3 bench/classify_vb_intervals.py
"""
import json
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "target", "release", "plackett")


def model(path, engine, out):
    subprocess.run([BIN, "classify", "fit", path, "--engine", engine, "--model-out", out],
                   check=True, capture_output=True)
    with open(out) as fh:
        return json.load(fh)


def main():
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("iris", "wine"):
            path = os.path.join(ROOT, "data", "uci", f"{name}.csv")
            v = model(path, "vb", os.path.join(tmp, "vb.json"))
            g = model(path, "gibbs", os.path.join(tmp, "gibbs.json"))
            gd = np.array([np.ravel(d) for d in g["draws"]])
            gd /= gd.sum(1, keepdims=True)
            shape, rate = np.ravel(v["q_shape"]), np.ravel(v["q_rate"])
            vd = rng.gamma(shape, 1.0 / rate, size=(4000, shape.size))
            vd /= vd.sum(1, keepdims=True)
            width = lambda d: np.percentile(d, 97.5, 0) - np.percentile(d, 2.5, 0)
            keep = gd.mean(0) > 0.01
            r = width(vd)[keep] / width(gd)[keep]
            print(json.dumps({
                "data": name, "weights_above_1pct": int(keep.sum()),
                "width_ratio_vb_over_gibbs": {"median": round(float(np.median(r)), 3),
                                              "min": round(float(r.min()), 3),
                                              "max": round(float(r.max()), 3)},
            }))


if __name__ == "__main__":
    main()
