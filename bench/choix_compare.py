#!/usr/bin/env python3
"""Side by side: plackett's MLE vs choix.ilsr_rankings on the same generated data.

Usage: python3 bench/choix_compare.py [--items N] [--rankings M] [--length L]
                                     [--seed S] [--repeat R] [--plackett PATH]

Generates rankings with `plackett simulate`, fits them with choix (tol 1e-8,
the default-style stopping rule on parameter change) and with
`plackett fit --output json --no-se` (score max-norm 1e-10), centres both, and
prints wall times (whole `plackett` process, including JSON parsing, against
the choix call alone) and the largest absolute difference in log-worths.
Exit status 1 if the estimates differ by more than 1e-4.
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

    t_pl = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        out = subprocess.run([a.plackett, "fit", data, "--output", "json", "--no-se"],
                             check=True, capture_output=True)
        t_pl.append(time.perf_counter() - t0)
    v = json.loads(out.stdout)
    q = np.array([it["log_worth"] for it in v["items"]])
    q = q - q.mean()

diff = float(np.max(np.abs(p - q)))
tc, tp = min(t_choix), min(t_pl)
print(f"data: {a.rankings} rankings x {a.length} items over {n} items (seed {a.seed})")
print(f"choix.ilsr_rankings (tol 1e-8): {tc:.3f} s   (best of {a.repeat})")
print(f"plackett fit (whole process, {v['algorithm']}, {v['iterations']} iterations, converged={v['converged']}): {tp:.3f} s")
print(f"speed-up: {tc / tp:.1f}x")
print(f"max |log-worth difference| after centring: {diff:.2e}")
sys.exit(0 if diff <= 1e-4 else 1)
