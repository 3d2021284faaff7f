"""The large-trial benchmark of `plackett tree` (issue 88): N farmers (default
100,000) each rank three of eight varieties once, with ten covariates —
x1 (night temperature, the one that matters: worths reversed at 18),
five more numeric ones and four factors (2-6 levels) that do not — and
times `plackett tree --max-thresholds K` on them (the whole process,
reading included). Standard-library Python and a release build; run from
the repository root: python3 bench/tree_scale.py [--n 100000] [--k 50]
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
COOL = [1.0, 0.5, 0.0, 0.2, -0.5, 0.3, -0.2, 0.1]
WARM = list(reversed(COOL))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--k", type=int, default=50)
    a = ap.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as d:
        rp, cp = os.path.join(d, "r.csv"), os.path.join(d, "c.csv")
        with open(rp, "w") as r, open(cp, "w") as c:
            r.write("ranker,ranking,item,rank\n")
            c.write("ranker,temp,x2,x3,x4,x5,x6,f2,f3,f4,f6\n")
            for f in range(a.n):
                temp = round(rng.uniform(14, 22), 3)
                xs = ",".join(f"{rng.random():.5f}" for _ in range(5))
                fs = ",".join(rng.choice("abcdef"[:m]) for m in (2, 3, 4, 6))
                c.write(f"f{f},{temp},{xs},{fs}\n")
                logw = COOL if temp <= 18 else WARM
                left = rng.sample(range(8), 3)
                rank = 1
                while left:
                    ws = [math.exp(logw[i]) for i in left]
                    u = rng.random() * sum(ws)
                    for k, w in enumerate(ws):
                        u -= w
                        if u <= 0 or k == len(ws) - 1:
                            r.write(f"f{f},f{f},v{left.pop(k)},{rank}\n")
                            rank += 1
                            break
        start = time.time()
        out = subprocess.run([BIN, "tree", rp, "--covariates", cp, "--max-thresholds", str(a.k),
                              "--output", "json"], check=True, capture_output=True, text=True).stdout
        secs = time.time() - start
    doc = json.loads(out)
    print(doc["nodes"][0]["stop"], doc["notes"])
    splits = [(n["id"], n["split"]) for n in doc["nodes"] if n["split"]]
    print(f"{a.n} rankers, 10 covariates, --max-thresholds {a.k}: {secs:.1f} s, "
          f"{len(doc['nodes'])} nodes; splits: {splits}")


if __name__ == "__main__":
    main()
