#!/usr/bin/env python3
"""How well calibrated are the PL-regression classifier's probabilities
(Archambeau & Caron 2012)? Held-out predictions of plackett.PLClassifier
(EM, VB and Gibbs at the default shape a = 1, and VB with a learnt) against
scikit-learn's logistic regression, raw and recalibrated by scikit-learn's
CalibratedClassifierCV (Platt's sigmoid, 3 inner folds) around the same
estimator.

Usage: python3 bench/classify_calibration.py [--data DIR] [--datasets iris,wine,breast_cancer]
                                             [--folds 5] [--repeats 3] [--seed 0]

Needs the Python package (pip install ./crates/plackett-py) and scikit-learn.
Every method sees the same stratified folds. Prints a Markdown table per
dataset: accuracy, the mean probability given to the predicted class (for a
calibrated classifier about the accuracy), the expected calibration error
(ten equal-width bins of that probability), the Brier score and the log loss,
means over the repeats.
"""
import os
import time

import numpy as np
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import plackett as pk

import _uci

ap = _uci.arguments()
ap.add_argument("--folds", type=int, default=5)
ap.add_argument("--repeats", type=int, default=3)
ap.set_defaults(seed=0)
a = ap.parse_args()


def methods():
    plain = {
        "plackett EM (a = 1)": lambda: pk.PLClassifier(method="em"),
        "plackett VB (a = 1)": lambda: pk.PLClassifier(method="vb"),
        "plackett Gibbs (a = 1)": lambda: pk.PLClassifier(method="gibbs"),
        "plackett VB (a learnt)": lambda: pk.PLClassifier(method="vb", a="learn"),
        "scikit-learn logistic (L2, C = 1)": lambda: make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=5000)),
    }
    out = dict(plain)
    for name in ["plackett EM (a = 1)", "plackett VB (a = 1)", "plackett Gibbs (a = 1)"]:
        make = plain[name]
        out[name + ", recalibrated"] = (
            lambda make=make: CalibratedClassifierCV(make(), method="sigmoid", cv=3))
    return out


def scores(p, y, classes):
    pred = classes[p.argmax(1)]
    right = pred == y
    top = p.max(1)
    onehot = (y[:, None] == classes[None, :]).astype(float)
    bins = np.minimum((top * 10).astype(int), 9)
    ece = sum(abs(top[bins == b].mean() - right[bins == b].mean()) * (bins == b).mean()
              for b in range(10) if (bins == b).any())
    return {
        "accuracy": right.mean(),
        "mean p": top.mean(),
        "ECE": ece,
        "Brier": ((p - onehot) ** 2).sum(1).mean(),
        "log loss": -np.log(np.clip(p[onehot.astype(bool)], 1e-15, 1)).mean(),
    }


for data in a.datasets.split(","):
    df = pd.read_csv(os.path.join(a.data, f"{data}.csv"))
    X = df.drop(columns="class").to_numpy(float)
    y = df["class"].to_numpy()
    classes = np.unique(y)
    print(f"\n{data} ({len(y)} rows, {len(classes)} classes; {a.repeats} × {a.folds}-fold)\n")
    print("| method | accuracy | mean p of the predicted class | ECE | Brier | log loss | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name, make in methods().items():
        t = time.time()
        rows = []
        for r in range(a.repeats):
            cv = StratifiedKFold(a.folds, shuffle=True, random_state=a.seed + r)
            p = cross_val_predict(make(), X, y, cv=cv, method="predict_proba")
            rows.append(scores(p, y, classes))
        m = {k: np.mean([s[k] for s in rows]) for k in rows[0]}
        print(f"| {name} | {m['accuracy']:.3f} | {m['mean p']:.3f} | {m['ECE']:.3f} | "
              f"{m['Brier']:.3f} | {m['log loss']:.3f} | {time.time() - t:.1f} |", flush=True)
