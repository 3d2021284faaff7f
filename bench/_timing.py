"""Shared by the side-by-side scripts in bench/: where the release binary
is, and the best-of-N wall time of a command that prints JSON."""
import json
import os
import subprocess
import time

#: The release binary `cargo build --release` writes.
PLACKETT = os.path.join(os.path.dirname(__file__), "..", "target", "release", "plackett")


def best_time(cmd, repeat):
    """Run `cmd` `repeat` times; the fastest wall time (s) and the last
    run's standard output parsed as JSON."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return min(times), json.loads(out.stdout)
