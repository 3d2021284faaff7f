#!/usr/bin/env python3
"""Two builds of plackett side by side on the engines a refactor must not
slow down (the family-frame issue's list): NASCAR MLE + standard errors,
Gibbs, EP, mixture EM on PLMIX's d_carconf (G = 3), `aggregate` on the
1,947 dermatology cases, `mil fit` on 16,000 simulated bags and
`keywords evaluate` on SemEval-2010 (when ../shared/data is beside the
repository). Each command runs --repeat times per build, the builds
interleaved so that both see the same machine; the table gives the best
CPU seconds (user + system of the child) and wall seconds of each.

Usage: python3 bench/before_after.py --before OLD/plackett --after target/release/plackett [--repeat 3]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..")
shared = os.path.join(root, "..", "shared", "data")
ap = argparse.ArgumentParser()
ap.add_argument("--before", required=True)
ap.add_argument("--after", default=os.path.join(root, "target", "release", "plackett"))
ap.add_argument("--repeat", type=int, default=3)
a = ap.parse_args()

nascar = [os.path.join(root, "data/nascar2002/results.csv"), "--ranking-col", "race",
          "--rank-col", "position", "--item-col", "driver"]
drop = ["--exclude", "Andy Hillenburg,Gary Bradberry,Jason Hedlesky,Randy Renfrow"]
derm = os.path.join(root, "data/dermatology-ddx")
work = tempfile.mkdtemp(prefix="before_after")
bags = os.path.join(work, "bags.csv")
subprocess.run([a.after, "mil", "simulate", "--bags", "16000", "--seed", "1", "--out", bags], check=True)

cases = [
    ("NASCAR MLE + SEs", ["fit", *nascar, "--pseudo", "0.5"]),
    ("NASCAR Gibbs (4 × 6,000 sweeps)", ["fit", *nascar, *drop, "--engine", "gibbs", "--prior-shape", "3", "--prior-rate", "2"]),
    ("NASCAR EP", ["fit", *nascar, *drop, "--engine", "ep", "--prior-shape", "3", "--prior-rate", "2"]),
    ("NASCAR VB", ["fit", *nascar, *drop, "--engine", "vb", "--prior-shape", "3", "--prior-rate", "2"]),
    ("aggregate, 1,947 cases", ["aggregate", os.path.join(derm, "dermatology_selectors.json"),
                                "--classes", os.path.join(derm, "dermatology_conditions.txt")]),
    ("mil fit, 16,000 bags", ["mil", "fit", bags]),
]
carconf = os.path.join(shared, "plmix", "d_carconf.csv")
if os.path.exists(carconf):
    cases.insert(4, ("mixture EM, d_carconf G = 3", ["fit", carconf, "--format", "orderings", "--components", "3"]))
semeval = os.path.join(shared, "keywords", "semeval2010")
if os.path.isdir(semeval):
    cases.append(("keywords evaluate, SemEval-2010", ["keywords", "evaluate", semeval]))


def run(binary, args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([binary, *args, "--output", "json"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


print(f"| command | before CPU s | after CPU s | after/before | before wall s | after wall s |")
print("|---|---|---|---|---|---|")
for name, args in cases:
    best = {"b": (float("inf"), float("inf")), "a": (float("inf"), float("inf"))}
    for _ in range(a.repeat):
        for key, binary in (("b", a.before), ("a", a.after)):
            cpu, wall = run(binary, args)
            best[key] = (min(best[key][0], cpu), min(best[key][1], wall))
    (bc, bw), (ac, aw) = best["b"], best["a"]
    print(f"| {name} | {bc:.2f} | {ac:.2f} | {ac / bc:.2f} | {bw:.2f} | {aw:.2f} |", flush=True)
