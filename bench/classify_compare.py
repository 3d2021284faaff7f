#!/usr/bin/env python3
"""Archambeau & Caron 2012 Table 2/3 side by side: plackett's PL-regression classifier
(EM, VB, Gibbs) against scikit-learn's multinomial logistic regression on
the same random train/test splits.

Usage: python3 bench/classify_compare.py [--data DIR] [--datasets iris,wine,breast_cancer]
                                         [--splits 20] [--seed 1] [--chains 1]
                                         [--plackett PATH]

For every dataset, `plackett classify cv --splits-out` fixes the splits
(2/3 train, 1/3 test, seeded); each engine runs on them (Gibbs: 5,000
burn-in + 5,000 kept sweeps per chain, the paper's setting, one chain by
default as in the paper), then scikit-learn fits on the same training rows:
`LogisticRegression` (multinomial, L2, C = 1) and `LogisticRegressionCV`
(C by 5-fold CV), both on features standardised with the training rows'
mean and sd. Prints a Markdown table of misclassification mean (sd), AUC
for binary tasks, seconds, and for Gibbs the minimum bulk ESS over weights
and seconds per ESS (Archambeau & Caron 2012 Table 3 layout).
"""
import csv, json, os, subprocess, sys, tempfile, time

import numpy as np
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import _uci

here = _uci.HERE
ap = _uci.arguments()
ap.add_argument("--splits", type=int, default=20)
ap.add_argument("--chains", type=int, default=1)
ap.set_defaults(seed=1)
ap.add_argument("--plackett", default=os.path.join(here, "..", "target", "release", "plackett"))
a = ap.parse_args()

# Archambeau & Caron 2012 Table 2 (misclassification) and Table 3 (Gibbs time, ESS).
PAPER = {
    "iris": {"gibbs": ".186 (.055)", "vb": ".181 (.057)", "logit": ".086 (.086)", "time": 10.8, "ess": 14},
    "wine": {"gibbs": ".048 (.019)", "vb": ".093 (.048)", "logit": ".080 (.038)", "time": 15.1, "ess": 23},
}


def load(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    head = rows[0]
    ci = head.index("class")
    x = np.array([[float(v) for k, v in enumerate(r) if k != ci] for r in rows[1:] if r])
    y = np.array([r[ci] for r in rows[1:] if r])
    return x, y


def ms(v):
    v = np.asarray(v, dtype=float)
    return f"{v.mean():.3f} ({v.std(ddof=1):.3f})"


print("| data | method | misclassification | AUC | seconds | min ESS | s/ESS | paper |")
print("|---|---|---|---|---|---|---|---|")
for name in a.datasets.split(","):
    path = os.path.join(a.data, f"{name}.csv")
    if not os.path.exists(path):
        print(f"skip {name}: {path} not found", file=sys.stderr)
        continue
    x, y = load(path)
    binary = len(set(y)) == 2
    with tempfile.TemporaryDirectory() as d:
        splits_file = os.path.join(d, "splits.json")
        for eng in ["em", "vb", "gibbs"]:
            cmd = [a.plackett, "classify", "cv", path, "--engine", eng, "--splits", str(a.splits),
                   "--seed", str(a.seed), "--output", "json", "--splits-out", splits_file]
            if eng == "gibbs":
                cmd += ["--chains", str(a.chains)]
            t0 = time.perf_counter()
            r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            wall = time.perf_counter() - t0
            mis = r["misclassification"]
            auc = r["auc"]
            paper = PAPER.get(name, {}).get(eng, "")
            if eng == "gibbs" and name in PAPER:
                p = PAPER[name]
                paper += f"; Table 3: {p['time']} s, ESS {p['ess']}, {p['time'] / p['ess']:.3f} s/ESS"
            ess = f"{r['min_ess']:.1f}" if r["min_ess"] is not None else ""
            spe = f"{r['seconds_per_ess']:.3f}" if r.get("seconds_per_ess") is not None else ""
            aucs = f"{auc['mean']:.4f} ({auc['sd']:.4f})" if auc else ""
            print(f"| {name} | plackett {eng} | {mis['mean']:.3f} ({mis['sd']:.3f}) | {aucs} | "
                  f"{r['seconds_per_split']:.3f}/split | {ess} | {spe} | {paper} |")
        splits = json.load(open(splits_file))
    for label, make in [
        ("sklearn logistic (L2, C=1)", lambda: LogisticRegression(max_iter=10000)),
        ("sklearn logistic (C by 5-fold CV)", lambda: LogisticRegressionCV(max_iter=10000, cv=5)),
    ]:
        err, aucs, secs = [], [], []
        for test in splits:
            mask = np.zeros(len(y), dtype=bool)
            mask[test] = True
            t0 = time.perf_counter()
            m = make_pipeline(StandardScaler(), make())
            m.fit(x[~mask], y[~mask])
            pred = m.predict(x[mask])
            secs.append(time.perf_counter() - t0)
            err.append(np.mean(pred != y[mask]))
            if binary:
                pos = m.classes_[1]
                aucs.append(roc_auc_score(y[mask] == pos, m.predict_proba(x[mask])[:, 1]))
        paper = PAPER.get(name, {}).get("logit", "") if "C=1" in label else ""
        if paper:
            paper = "sparse logit " + paper
        print(f"| {name} | {label} | {ms(err)} | {ms(aucs) if binary else ''} | {np.mean(secs):.3f}/split |  |  | {paper} |")
