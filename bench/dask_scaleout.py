#!/usr/bin/env python3
"""Dask scale-out, measured side by side in one run (docs/benchmarks.md,
"Python and Dask"):

1. all 1,947 dermatology cases: `plackett aggregate` (CLI, one process,
   rayon on both cores) against `plackett.distributed.aggregate` on a
   2-worker LocalCluster (one thread each), same seed, results compared;
2. a sharded MLE (or VB, `--engine vb`: means, sds and the ELBO compared)
   on simulated rankings (default 10,000,000 rankings of 10 over 100,000
   items, 8 shards) against `plackett.fit` on one machine.

Usage (after .ci/run):
    target/venv/bin/python bench/dask_scaleout.py [--rankings N] [--items M] [--engine mle|vb]
        [--collapse-limit R] [--skip-aggregate] [--skip-sharded]
"""
import argparse
import json
import os
import subprocess
import time

import numpy as np

import plackett
import plackett.distributed as pdist

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DERM = os.path.join(ROOT, "data", "dermatology-ddx")
BIN = os.path.join(ROOT, "target", "release", "plackett")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rankings", type=int, default=10_000_000)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--length", type=int, default=10)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--skip-sharded", action="store_true")
    ap.add_argument("--skip-aggregate", action="store_true")
    ap.add_argument("--engine", choices=["mle", "vb"], default="mle")
    ap.add_argument("--collapse-limit", type=int, default=2_000_000,
                    help="0 keeps the rows on the shards however few they are")
    a = ap.parse_args()
    from distributed import Client, LocalCluster

    sel_path = os.path.join(DERM, "dermatology_selectors.json")
    classes = os.path.join(DERM, "dermatology_conditions.txt")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      env={"RAYON_NUM_THREADS": "1"}) as cluster, Client(cluster) as client:
        # 1. Many independent fits.
        if not a.skip_aggregate:
            aggregate_side_by_side(client, sel_path, classes)
        if a.skip_sharded:
            return
        sharded_side_by_side(client, a)


def aggregate_side_by_side(client, sel_path, classes):
    t0 = time.perf_counter()
    cli = subprocess.run([BIN, "aggregate", sel_path, "--classes", classes, "--seed", "7", "--output", "json"],
                         check=True, capture_output=True, text=True).stdout
    t_cli = time.perf_counter() - t0
    t0 = time.perf_counter()
    sel = plackett.selectors(sel_path, classes=classes)
    res = pdist.aggregate(sel, client=client, seed=7)
    t_dask = time.perf_counter() - t0
    t0 = time.perf_counter()
    local = plackett.aggregate(sel, seed=7)
    t_py = time.perf_counter() - t0
    same = res.to_json() == cli and local.to_json() == cli
    per_case = t_py / len(sel)
    print(json.dumps({
        "aggregate_cases": len(sel),
        "cli_seconds": round(t_cli, 3),
        "python_single_process_seconds": round(t_py, 3),
        "dask_2_workers_seconds": round(t_dask, 3),
        "dask_over_cli": round(t_dask / t_cli, 3),
        "identical_json": same,
        "per_case_ms_one_process_two_cores": round(per_case * 1e3, 3),
    }))


def sharded_side_by_side(client, a):
    # 2. One huge fit.
    import dask.array as da

    rng = np.random.default_rng(2026)
    theta = rng.normal(scale=1.0, size=a.items)
    t0 = time.perf_counter()
    # Each ranking: `length` distinct items drawn uniformly, ordered by
    # Gumbel-perturbed log-worths (the PL model's exact sampler).
    rows = np.empty((a.rankings, a.length), dtype=np.int64)
    step = 1_000_000
    for s in range(0, a.rankings, step):
        m = min(step, a.rankings - s)
        cand = rng.integers(0, a.items, size=(m, a.length * 2))
        # Distinct items per row: keep first occurrences of a longer draw.
        srt = np.sort(cand, axis=1)
        ok = np.all(srt[:, 1:] != srt[:, :-1], axis=1)
        cand = cand[:, : a.length]
        dup = np.array([len(set(r)) < a.length for r in cand]) if not ok.all() else np.zeros(m, bool)
        for i in np.nonzero(dup)[0]:
            cand[i] = rng.choice(a.items, size=a.length, replace=False)
        g = theta[cand] + rng.gumbel(size=cand.shape)
        rows[s : s + m] = np.take_along_axis(cand, np.argsort(-g, axis=1), axis=1)
    t_sim = time.perf_counter() - t0
    names = [str(i) for i in range(a.items)]
    t0 = time.perf_counter()
    ds = plackett.rankings(rows, items=names)
    one = plackett.fit(ds, "mle", standard_errors=False) if a.engine == "mle" else plackett.fit(ds, "vb")
    t_one = time.perf_counter() - t0
    del ds
    arr = da.from_array(rows, chunks=(-(-a.rankings // a.shards), a.length))
    t0 = time.perf_counter()
    sh = pdist.fit(arr, a.engine, client=client, items=names, collapse_limit=a.collapse_limit)
    t_sh = time.perf_counter() - t0
    diff = float(np.max(np.abs(np.asarray(sh.log_worth) - one.log_worth)))
    extra = {}
    if a.engine == "vb":
        extra = {
            "max_abs_sd_difference": float(np.max(np.abs(sh.sd - one.sd))),
            "elbo": [one.elbo, sh.elbo],
            "notes": sh.notes,
        }
    print(json.dumps({
        "engine": a.engine,
        "collapse_limit": a.collapse_limit,
        "sharded_rankings": a.rankings, "items": a.items, "length": a.length, "shards": a.shards,
        "simulate_seconds": round(t_sim, 1),
        "single_machine_fit_seconds": round(t_one, 1),
        "single_machine_iterations": one.iterations,
        "sharded_seconds": round(t_sh, 1),
        "sharded_type": type(sh).__name__,
        "sharded_iterations": getattr(sh, "iterations", None),
        "max_abs_log_worth_difference": diff,
        "log_likelihood": [one.log_likelihood, sh.log_likelihood],
        **extra,
    }))


if __name__ == "__main__":
    main()
