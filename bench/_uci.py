"""Shared by the classifier benchmarks in bench/: the command-line options
that say which of the shipped UCI tables (data/uci) to run on."""
import argparse
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def arguments(description=None):
    """A parser with `--data` (the folder of the UCI CSVs), `--datasets`
    (a comma list of their names) and `--seed`; scripts add their own."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", default=os.path.join(HERE, "..", "data", "uci"))
    ap.add_argument("--datasets", default="iris,wine,breast_cancer")
    ap.add_argument("--seed", type=int, default=None, help="random seed (the script's default if absent)")
    return ap
