"""Argument checks shared by the wrappers.

The native layer takes counts and seeds as unsigned integers; given a
negative or too large int, its conversion raises OverflowError without
saying which argument. The wrappers check those arguments first, so that
bad input is a ValueError (wrong value) or TypeError (wrong type) naming
the argument, as everywhere else in the package.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Hashable
from typing import Any, Optional

import numpy as np

from . import _plackett as _native_module

def show(x: object, limit: int = 60) -> str:
    """``repr(x)`` for an error message: on one line (a data frame's or an
    array's repr spans several) and at most ``limit`` characters."""
    r = " ".join(repr(x).split())
    return r if len(r) <= limit else r[: limit - 1] + "…"


def plain(x: Any) -> Any:
    """A numpy scalar as the Python scalar it holds (an id or a name read
    from a frame, for messages and for the native layer); anything else as
    it is."""
    return x.item() if isinstance(x, np.generic) else x


def bools_as_ints(frame: Any, columns: Any = None) -> Any:
    """``frame`` with its boolean columns (numpy ``bool`` or pandas'
    nullable ``boolean``; only those among ``columns`` if given) as
    nullable integers, so that CSV text carries them as 1/0 (a missing
    value as an empty cell)."""
    dtypes = getattr(frame, "dtypes", None)
    if dtypes is None:
        return frame
    flags = [c for c, t in dtypes.items() if str(t) in ("bool", "boolean") and (columns is None or c in columns)]
    return frame.astype({c: "Int64" for c in flags}) if flags else frame


#: Largest value a count or seed may take (the native layer's u64).
UINT_MAX = 2**64 - 1

#: Keyword arguments that are counts or seeds wherever they appear.
COUNT_OPTIONS = frozenset({
    "seed", "samples", "burn_in", "chains", "max_iter", "starts", "draws", "thin",
    "temperatures", "window", "min_count", "components", "test_bags", "replicates",
    "repeats", "races", "min_keywords", "max_bags", "known_count", "keep_draws",
    "folds", "bss_iterations", "bss_burn_in", "n_classes", "mixture", "metric_k",
})

#: Keyword arguments that are lists of counts.
COUNT_LIST_OPTIONS = frozenset({"k", "cases", "plot_cases"})


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
        raise ValueError(f"{name}: must be below 2**64, got {show(v)}")
    return v


def count_or_none(name: str, v: Any) -> Optional[int]:
    return None if v is None else count(name, v)


def real(name: str, v: Any) -> float:
    """``float(v)``, or a TypeError naming ``name`` (Python's own says
    only "could not convert string to float: 'x'")."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a number, got {show(v)}")
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a number, got {type(v).__name__} {show(v)}") from None


def _sequence(name: str, v: Any, what: str) -> list:
    if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__iter__"):
        raise TypeError(f"{name}: expected a sequence of {what}, got {type(v).__name__} {show(v)}")
    return list(v)


def reals(name: str, v: Any) -> list:
    """A sequence of numbers as floats; errors name ``name``."""
    return [real(name, x) for x in _sequence(name, v, "numbers")]


def integers(name: str, v: Any) -> list:
    """A sequence of integers (integral floats accepted, as ``int()``
    would) as ints; errors name ``name``."""
    out = []
    for x in _sequence(name, v, "integers"):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name}: expected integers, got {type(x).__name__} {show(x)}")
        if isinstance(x, (int, np.integer)):
            # Any size: the native layer says which are out of its range.
            out.append(int(x))
            continue
        if not np.isfinite(x) or x != int(x):
            raise ValueError(f"{name}: expected integers, got {show(x)}")
        out.append(int(x))
    return out


def names(name: str, v: Any) -> list:
    """A sequence of names as strs; errors name ``name``. A name is a
    hashable value that prints as itself (a string, a number, a date): an
    object that prints as its memory address, or a container, is refused
    (its text would be a different name in every process)."""
    out = []
    for i, x in enumerate(_sequence(name, v, "names")):
        if (not isinstance(x, Hashable) or isinstance(x, (tuple, frozenset))
                or (type(x).__str__ is object.__str__ and type(x).__repr__ is object.__repr__)):
            raise TypeError(f"{name}[{i}]: a name must be a string, a number or another scalar, "
                            f"got {type(x).__name__}")
        out.append(str(x))
    return out


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


_ARGUMENT_NOTE = re.compile(r"while processing '(\w+)'")


def _with_argument_name(e: BaseException) -> Optional[BaseException]:
    """pyo3 names the argument whose conversion failed in a note
    (``add_note``; shown under the traceback on Python 3.11+, lost before),
    not in the message: ``tol="x"`` raises ``TypeError('must be real
    number, not str')``. The same error with the name in front of its
    message, as every other error of the package reads, or None."""
    for note in getattr(e, "__notes__", None) or ():
        m = _ARGUMENT_NOTE.fullmatch(str(note))
        if m:
            return type(e)(f"{m.group(1)}: {e}")
    return None


class _Native:
    """The native module with every function's TypeError and ValueError
    carrying the argument's name in its message (see
    ``_with_argument_name``); classes and constants pass through."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        obj = getattr(self._module, name)
        if not callable(obj) or isinstance(obj, type):
            return obj

        @functools.wraps(obj)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return obj(*args, **kwargs)
            except (TypeError, ValueError) as e:
                named = _with_argument_name(e)
                if named is None:
                    raise
                raise named from None

        setattr(self, name, call)
        return call


#: What the wrappers call: ``from ._checks import native as _plackett``.
native: Any = _Native(_native_module)
