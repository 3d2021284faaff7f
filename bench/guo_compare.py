#!/usr/bin/env python3
"""Guo et al. (2019)'s variational PL regression: plackett against the authors' numpy code.

Usage: python3 bench/guo_compare.py [--vpl DIR] [--items 200] [--dim 20]
                                    [--rankings 1000] [--length 5] [--seed 1]
                                    [--repeat 5] [--plackett PATH]

Generates the benchmark problem of issue 6 with `plackett simulate --features`
(x ~ N(0, 1), beta ~ N(0, I), rankings of `length` random items), then times
the whole `plackett fit --engine vb --vi guo --eta 1 --standardize off`
process (best of `repeat`) and, for reference, `--vi exact`.

With `--vpl DIR` (a checkout of github.com/neu-spiral/VariationalPlackettLuce;
its code is not part of this repository), also runs the authors'
`EMPlackett(X, rank, 1.0, 10)` (prior N(0, I), 10 inner iterations) on the
same data and reports its time and the largest differences in posterior
means and sds. Their loop stops after at most 100 rounds; plackett iterates
Alg. 1 to the stopping rule (eq 26), so small differences are the authors'
truncation (see docs/benchmarks.md for a run of their code to convergence).
"""
import argparse, csv, json, os, subprocess, sys, tempfile, time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import PLACKETT, best_time  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--vpl", help="directory holding the authors' functionpackage.py")
ap.add_argument("--items", type=int, default=200)
ap.add_argument("--dim", type=int, default=20)
ap.add_argument("--rankings", type=int, default=1000)
ap.add_argument("--length", type=int, default=5)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--plackett", default=PLACKETT)
a = ap.parse_args()


with tempfile.TemporaryDirectory() as d:
    r, f, b = (os.path.join(d, x) for x in ("r.json", "f.csv", "b.csv"))
    subprocess.run([a.plackett, "simulate", "--items", str(a.items), "--rankings", str(a.rankings),
                    "--length", str(a.length), "--features", str(a.dim), "--features-out", f,
                    "--beta-out", b, "--out", r, "--seed", str(a.seed)], check=True)
    base = [a.plackett, "fit", r, "--features", f, "--standardize", "off", "--engine", "vb",
            "--eta", "1", "--output", "json", "--draws", "1000"]
    t_guo, guo = best_time(base + ["--vi", "guo"], a.repeat)
    t_ex, ex = best_time(base + ["--vi", "exact"], a.repeat)
    beta = np.array([float(row["beta"]) for row in csv.DictReader(open(b))])
    print(f"data: {a.rankings} rankings of {a.length} over {a.items} items, d = {a.dim} (seed {a.seed})")
    for name, t, v in (("Alg. 1 (--vi guo)", t_guo, guo), ("exact bound (--vi exact)", t_ex, ex)):
        m = np.array([c["mean"] for c in v["coefficients"]])
        s = np.array([c["sd"] for c in v["coefficients"]])
        within = np.mean(np.abs(m - beta) <= 2 * s)
        print(f"plackett {name}: {t:.3f} s whole process, {v['iterations']} rounds, "
              f"means within 2 sd of the truth: {100 * within:.0f}%")
    if a.vpl:
        sys.path.insert(0, a.vpl)
        from functionpackage import EMPlackett  # noqa: E402
        X = np.loadtxt(f, delimiter=",", skiprows=1)[:, 1:]
        rank = {m + 1: rr for m, rr in enumerate(json.load(open(r)))}
        t0 = time.perf_counter()
        mn, sn, bounds = EMPlackett(X, rank, 1.0, 10)
        t_vpl = time.perf_counter() - t0
        m = np.array([c["mean"] for c in guo["coefficients"]])
        s = np.array([c["sd"] for c in guo["coefficients"]])
        print(f"authors' numpy EMPlackett (10 inner iterations): {t_vpl:.2f} s, {len(bounds) + 2} rounds, "
              f"final bound {bounds[-1] if bounds else float('nan'):.6f} (plackett {guo['elbo']:.6f})")
        print(f"max |mean difference| {np.max(np.abs(mn - m)):.2e}, "
              f"max |sd difference| {np.max(np.abs(np.sqrt(np.diag(sn)) - s)):.2e}")
        print(f"speed-up: {t_vpl / t_guo:.0f}x")
