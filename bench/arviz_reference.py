#!/usr/bin/env python3
"""Reference R-hat / ESS values from ArviZ for the fixed draw matrices in
crates/plackett/tests/data/diagnostics_draws.csv (independently computed
numbers that tests/library/diagnostics.rs pins plackett's implementation to).

Usage: python3 bench/arviz_reference.py [--write]   (pip install numpy arviz)

--write regenerates the CSV (4 chains x 200 draws of three quantities:
an AR(1) chain with phi = 0.9, a heavy-tailed iid t(3) chain, and chains
with shifted means, which R-hat must flag) from numpy's seed 20261123.
"""
import os, sys
import numpy as np
import arviz as az

path = os.path.join(os.path.dirname(__file__), "..", "crates", "plackett", "tests", "data",
                    "diagnostics_draws.csv")
C, N = 4, 200
if "--write" in sys.argv:
    rng = np.random.default_rng(20261123)
    ar = np.zeros((C, N))
    for c in range(C):
        x = rng.normal()
        for t in range(N):
            x = 0.9 * x + np.sqrt(1 - 0.81) * rng.normal()
            ar[c, t] = x
    t3 = rng.standard_t(3, size=(C, N))
    shifted = rng.normal(size=(C, N)) + np.array([0.0, 0.0, 0.3, 0.6])[:, None]
    with open(path, "w") as f:
        f.write("quantity,chain,draw,value\n")
        for name, m in [("ar1", ar), ("t3", t3), ("shifted", shifted)]:
            for c in range(C):
                for t in range(N):
                    f.write(f"{name},{c},{t},{float(m[c, t]):.10g}\n")

vals = {}
for line in open(path).read().splitlines()[1:]:
    q, c, t, v = line.split(",")
    vals.setdefault(q, np.zeros((C, N)))[int(c), int(t)] = float(v)
print(f"arviz {az.__version__}")
for q, m in vals.items():
    print(f"{q}: rhat {float(az.rhat(m, method='rank')):.10f} "
          f"ess_bulk {float(az.ess(m, method='bulk')):.10f} "
          f"ess_tail {float(az.ess(m, method='tail')):.10f}")
