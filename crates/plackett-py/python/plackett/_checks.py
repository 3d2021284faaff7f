"""Argument checks shared by the wrappers.

The native layer takes counts and seeds as unsigned integers; given a
negative or too large int, its conversion raises OverflowError without
saying which argument. The wrappers check those arguments first, so that
bad input is a ValueError (wrong value) or TypeError (wrong type) naming
the argument, as everywhere else in the package.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

def show(x: object, limit: int = 60) -> str:
    """``repr(x)`` for an error message: on one line (a data frame's or an
    array's repr spans several) and at most ``limit`` characters."""
    r = " ".join(repr(x).split())
    return r if len(r) <= limit else r[: limit - 1] + "…"


#: Largest value a count or seed may take (the native layer's u64).
UINT_MAX = 2**64 - 1

#: Keyword arguments that are counts or seeds wherever they appear.
COUNT_OPTIONS = frozenset({
    "seed", "samples", "burn_in", "chains", "max_iter", "starts", "draws", "thin",
    "temperatures", "window", "min_count", "components", "test_bags", "replicates",
    "repeats", "races", "min_keywords", "max_bags", "known_count", "keep_draws",
    "folds", "bss_iterations", "bss_burn_in", "n_classes",
})

#: Keyword arguments that are lists of counts.
COUNT_LIST_OPTIONS = frozenset({"k", "cases"})


def count(name: str, v: Any, *, lenient: bool = False) -> int:
    """``v`` as a non-negative integer below 2**64. ``lenient`` also takes
    an integral float (1000.0), as scikit-learn estimators' parameters
    often arrive; anything else that is not an int is a TypeError."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a non-negative integer, got {show(v)}")
    if lenient and isinstance(v, (float, np.floating)):
        if not np.isfinite(v) or v != int(v):
            raise ValueError(f"{name}: expected a non-negative integer, got {show(v)}")
        v = int(v)
    if not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: expected a non-negative integer, got {type(v).__name__} {show(v)}")
    v = int(v)
    if v < 0:
        raise ValueError(f"{name}: must be non-negative, got {v}")
    if v > UINT_MAX:
        raise ValueError(f"{name}: must be below 2**64, got {v}")
    return v


def count_or_none(name: str, v: Any) -> Optional[int]:
    return None if v is None else count(name, v)


def check_counts(options: dict) -> dict:
    """Check the counts and seeds among keyword arguments (in place; also
    returned). Ints out of range are refused here; other types are left to
    the native layer, whose TypeError names the argument."""
    for name in COUNT_OPTIONS.intersection(options):
        v = options[name]
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            options[name] = count(name, v)
    for name in COUNT_LIST_OPTIONS.intersection(options):
        v = options[name]
        if v is not None and not isinstance(v, (str, bytes)):
            try:
                items = list(v)
            except TypeError:
                continue
            for x in items:
                if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
                    count(name, x)
                elif isinstance(x, (float, np.floating)) and not (np.isfinite(x) and 0 <= x <= UINT_MAX):
                    raise ValueError(f"{name}: expected non-negative integers, got {show(x)}")
    return options
