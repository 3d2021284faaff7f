#!/usr/bin/env python3
"""The ROP shape of Guo et al. 2019 (d = 156 features, 100 items, 4,950 pairs):
whole-process times of `plackett fit --engine vb` (both bounds) and of an
`--eta auto` sweep over 30 values.

Usage: python3 bench/rop_shape.py [--repeat 3] [--seed 3] [--plackett PATH]

Data from `plackett simulate --design pairs --features 156 --feature-sd 0.1`
(random pairs; with 156 features for 100 items, 57 directions of beta are
identified by the prior only, as in the ROP data).
"""
import argparse, json, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import PLACKETT, best_time  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--seed", type=int, default=3)
ap.add_argument("--plackett", default=PLACKETT)
a = ap.parse_args()


with tempfile.TemporaryDirectory() as d:
    r, f = os.path.join(d, "r.json"), os.path.join(d, "f.csv")
    subprocess.run([a.plackett, "simulate", "--items", "100", "--rankings", "4950", "--design", "pairs",
                    "--features", "156", "--feature-sd", "0.1", "--features-out", f, "--out", r,
                    "--seed", str(a.seed)], check=True)
    base = [a.plackett, "fit", r, "--features", f, "--engine", "vb", "--output", "json"]
    for vi in ("exact", "guo"):
        t, v = best_time(base + ["--vi", vi], a.repeat)
        print(f"VI fit (--vi {vi}): {t:.3f} s whole process ({v['iterations']} rounds)")
    for vi in ("exact", "guo"):
        t, v = best_time(base + ["--vi", vi, "--eta", "auto", "--eta-grid", "1e-3:1e3:30"], 1)
        print(f"eta sweep, 30 values (--vi {vi}): {t:.2f} s, eta_L = {v['regression']['eta']:.4g}")
