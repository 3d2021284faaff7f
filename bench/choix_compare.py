#!/usr/bin/env python3
"""Side by side: plackett's MLE vs choix.ilsr_rankings on the same generated data.

Usage: python3 bench/choix_compare.py [--items N] [--rankings M] [--length L]
                                     [--seed S] [--repeat R] [--plackett PATH]

Generates rankings with `plackett simulate`, fits them with choix (tol 1e-8,
the default-style stopping rule on parameter change) and with
`plackett fit --output json` three ways — with standard errors (the default),
without (`--no-se`), and by I-LSR (`--algorithm ilsr --no-se`) — all in the
same run, centres the estimates, and prints wall times (whole `plackett`
process, including reading and JSON output, against the choix call alone),
the speed-ups and the largest absolute difference in log-worths.
Exit status 1 if any estimate differs from choix's by more than 1e-6.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np
import choix

ap = argparse.ArgumentParser()
ap.add_argument("--items", type=int, default=1000)
ap.add_argument("--rankings", type=int, default=10000)
ap.add_argument("--length", type=int, default=10)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--plackett", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "plackett"))
a = ap.parse_args()

with tempfile.TemporaryDirectory() as d:
    data = os.path.join(d, "r.json")
    subprocess.run([a.plackett, "simulate", "--items", str(a.items), "--rankings", str(a.rankings),
                    "--length", str(a.length), "--seed", str(a.seed), "--out", data], check=True)
    rankings = json.load(open(data))
    n = 1 + max(max(r) for r in rankings)

    t_choix = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        p = choix.ilsr_rankings(n, rankings, tol=1e-8, max_iter=1000)
        t_choix.append(time.perf_counter() - t0)
    p = p - p.mean()

    def run(extra):
        ts = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            out = subprocess.run([a.plackett, "fit", data, "--output", "json"] + extra,
                                 check=True, capture_output=True)
            ts.append(time.perf_counter() - t0)
        v = json.loads(out.stdout)
        q = np.array([it["log_worth"] for it in v["items"]])
        return min(ts), v, q - q.mean()

    runs = [("with standard errors", run([])),
            ("--no-se", run(["--no-se"])),
            ("--algorithm ilsr --no-se", run(["--algorithm", "ilsr", "--no-se"]))]

tc = min(t_choix)
print(f"data: {a.rankings} rankings x {a.length} items over {n} items (seed {a.seed})")
print(f"choix.ilsr_rankings (tol 1e-8): {tc:.3f} s   (best of {a.repeat})")
worst = 0.0
for label, (tp, v, q) in runs:
    diff = float(np.max(np.abs(p - q)))
    worst = max(worst, diff)
    print(f"plackett fit {label} (whole process, {v['algorithm']}, {v['iterations']} iterations, "
          f"converged={v['converged']}): {tp:.3f} s   speed-up {tc / tp:.1f}x   max |diff| {diff:.2e}")
sys.exit(0 if worst <= 1e-6 else 1)
