"""Simulation study of `plackett tree` (issue 88's acceptance; results in
docs/trees.md): recovery of a known tree, and the type-I error of a split
when no covariate matters. Python 3 standard library and a release build
(cargo build --release); run from the repository root:

    python3 bench/tree_simulation.py [--recovery 100] [--null 200]

Each trial: N farmers each rank three of six varieties twice (full
rankings of three, drawn by Luce's choice axiom); covariates x1 ~ U(0, 1),
x2 ~ U(0, 1) and a factor g with levels a, b, c, uniformly. Recovery
trials (N = 300): log-worths W_LOW when x1 <= 0.5, W_HIGH above; x2 and g
do nothing. A trial recovers the tree when the root splits on x1 at a
threshold within 0.1 of 0.5 and neither child splits. Null trials
(N = 300): one set of log-worths for everyone; the type-I error is the
share of trials whose root splits (alpha = 0.05, Bonferroni over the
three covariates).
"""
import argparse
import json
import math
import os
import random
import subprocess
import tempfile
import time

BIN = os.path.join("target", "release", "plackett")
W_LOW = [0.8, 0.4, 0.0, -0.2, -0.4, -0.6]
W_HIGH = [-0.6, -0.4, 0.0, 0.2, 0.4, 0.8]
W_NULL = [0.5, 0.3, 0.1, -0.1, -0.3, -0.5]


def pl_draw(rng, items, logw):
    left = list(items)
    out = []
    while left:
        ws = [math.exp(logw[i]) for i in left]
        u = rng.random() * sum(ws)
        for k, w in enumerate(ws):
            u -= w
            if u <= 0 or k == len(ws) - 1:
                out.append(left.pop(k))
                break
    return out


def trial(seed, n, null, folder):
    rng = random.Random(seed)
    rk = ["farmer,ranking,item,rank"]
    cv = ["farmer,x1,x2,g"]
    for f in range(n):
        x1, x2, g = rng.random(), rng.random(), rng.choice("abc")
        cv.append(f"f{f},{x1:.6f},{x2:.6f},{g}")
        logw = W_NULL if null else (W_LOW if x1 <= 0.5 else W_HIGH)
        for t in (1, 2):
            for r, i in enumerate(pl_draw(rng, rng.sample(range(6), 3), logw), start=1):
                rk.append(f"f{f},f{f}-{t},v{i},{r}")
    rp, cp = os.path.join(folder, "r.csv"), os.path.join(folder, "c.csv")
    open(rp, "w").write("\n".join(rk) + "\n")
    open(cp, "w").write("\n".join(cv) + "\n")
    out = subprocess.run([BIN, "tree", rp, "--ranker-col", "farmer", "--covariates", cp,
                          "--covariate-key", "farmer", "--minsize", "30", "--output", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["nodes"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--recovery", type=int, default=100)
    ap.add_argument("--null", type=int, default=200)
    ap.add_argument("--n", type=int, default=300)
    a = ap.parse_args()
    start = time.time()
    with tempfile.TemporaryDirectory() as d:
        ok = 0
        for s in range(a.recovery):
            nodes = trial(1000 + s, a.n, False, d)
            sp = nodes[0]["split"] or {}
            ok += (sp.get("variable") == "x1" and abs(sp.get("threshold", 9) - 0.5) <= 0.1
                   and len(nodes) == 3)
        splits = 0
        for s in range(a.null):
            nodes = trial(5000 + s, a.n, True, d)
            splits += nodes[0]["split"] is not None
    rec = ok / max(a.recovery, 1)
    t1 = splits / max(a.null, 1)
    se = math.sqrt(0.05 * 0.95 / max(a.null, 1))
    print(f"recovery: {ok}/{a.recovery} = {rec:.3f} (N = {a.n} farmers, 2 rankings of 3 of 6 each)")
    print(f"type-I error: {splits}/{a.null} = {t1:.3f} (alpha 0.05; binomial sd at 0.05: {se:.3f})")
    print(f"{time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
