#!/usr/bin/env python3
"""Python call overhead: plackett.fit against the same fit timed inside the
Rust library (the `se_timing`-style in-process timer of `plackett fit`'s
engine path), on NASCAR 2002 without the four always-last drivers.

Usage (after .ci/run or `maturin develop --release`):
    target/venv/bin/python bench/python_overhead.py
"""
import csv, os, subprocess, time

import plackett

root = os.path.join(os.path.dirname(__file__), "..")
path = os.path.join(root, "data", "nascar2002", "results.csv")
drop = {"Andy Hillenburg", "Gary Bradberry", "Jason Hedlesky", "Randy Renfrow"}
races: dict = {}
for r in csv.DictReader(open(path)):
    if r["driver"] not in drop:
        races.setdefault(r["race"], []).append((int(r["position"]), r["driver"]))
d = plackett.rankings([[x for _, x in sorted(v)] for v in races.values()])

def best(f, n=200):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2], ts[0]

med, lo = best(lambda: plackett.fit(d))
print(f"plackett.fit (MLE with SEs, 83 drivers, 36 races): median {med*1e3:.3f} ms, best {lo*1e3:.3f} ms")
out = subprocess.run(["cargo", "run", "--release", "-q", "--example", "nascar_timing", "--", path],
                     cwd=root, capture_output=True, text=True)
print(out.stdout.strip() or out.stderr.strip())
