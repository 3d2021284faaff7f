"""plackett: Bayesian and likelihood inference for Plackett-Luce models.

Every number is computed by the Rust library (the same code as the
``plackett`` command); this package translates Python data into it and
results back into numpy arrays (and pandas, when installed).

Gauges: ``log_worth`` is mean-centred unless ``reference=`` names an item
(then that item's log-worth is 0); ``worth`` is normalised to sum to one.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from . import _plackett
from ._plackett import Dataset, FitResult

__version__ = _plackett.__version__

__all__ = [
    "Dataset",
    "FitResult",
    "fit",
    "rankings",
    "read_csv",
    "read_file",
    "read_pairs",
    "read_preflib",
    "read_selectors",
    "summary",
]

_ENGINES = ("mle", "map", "gibbs", "ep", "vb")


def _label(x: Any) -> Any:
    """An item label as JSON can carry it: str, or a non-negative int id."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"an item is a name (str) or an id (int), got {x!r}")
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, str):
        return x
    raise TypeError(f"an item is a name (str) or an id (int), got {type(x).__name__} {x!r}")


def _ranking(r: Any) -> list:
    if isinstance(r, (str, bytes)) or not isinstance(r, Iterable):
        raise TypeError(f"a ranking is a list of items (best first), got {r!r}")
    out = []
    for e in r:
        if isinstance(e, (list, tuple, set, frozenset, np.ndarray)):
            out.append([_label(x) for x in e])
        else:
            out.append(_label(e))
    return out


def _from_frame(df: Any, ranking: str, rank: str, item: str, weight: Optional[str]):
    """Rankings from a long data frame: one row per (ranking, item), lower
    rank is better, equal ranks form a tied group."""
    for c in (ranking, rank, item):
        if c not in df.columns:
            raise ValueError(f"data frame has no column {c!r} (columns: {list(df.columns)})")
    rankings, weights = [], []
    for _, g in df.groupby(ranking, sort=False):
        g = g.sort_values(rank, kind="stable")
        groups: list = []
        last = object()
        for rk, it in zip(g[rank].tolist(), g[item].tolist()):
            if rk != rk:  # NaN rank
                raise ValueError(f"missing rank for item {it!r}")
            if groups and rk == last:
                groups[-1].append(_label(it))
            else:
                groups.append([_label(it)])
            last = rk
        rankings.append([g_[0] if len(g_) == 1 else g_ for g_ in groups])
        if weight is not None and weight in g.columns:
            w = g[weight].unique()
            if len(w) != 1:
                raise ValueError(f"weight must be constant within a ranking (ranking {g[ranking].iloc[0]!r})")
            weights.append(float(w[0]))
    return rankings, (weights if weights else None)


def rankings(
    data: Any,
    *,
    items: Optional[Sequence[Any]] = None,
    weights: Optional[Sequence[float]] = None,
    top_k: bool = False,
    ties: str = "unknown",
    ranking_col: str = "ranking",
    rank_col: str = "rank",
    item_col: str = "item",
    weight_col: Optional[str] = "weight",
) -> Dataset:
    """A Dataset from Python data.

    ``data`` is a list of rankings, each a list of items best first, where a
    nested list is a tied group (``[[2, 0, 1], [0, [1, 2]]]``, as choix); a
    numpy array of shape (n, 2) of (winner, loser) pairs or (n, k) of full
    rankings; or a pandas long data frame (ranking, rank, item[, weight]).
    Items are names (str) or non-negative ids (int); ``items`` declares the
    universe and its order. ``top_k=True`` reads each ranking as a top-k
    list of the whole universe; ``ties`` is "unknown" (unknown order) or
    "event" (Davidson-Luce).
    """
    if hasattr(data, "groupby") and hasattr(data, "columns"):
        rk, w = _from_frame(data, ranking_col, rank_col, item_col, weight_col)
        weights = weights if weights is not None else w
    elif isinstance(data, np.ndarray):
        if data.ndim != 2 or data.shape[1] < 2:
            raise ValueError(f"a numpy array of rankings has shape (n, k) with k >= 2, got {data.shape}")
        if not np.issubdtype(data.dtype, np.integer):
            raise TypeError(f"a numpy array of rankings holds integer item ids, got dtype {data.dtype}")
        rk = data.tolist()
    elif isinstance(data, (str, bytes)) or not isinstance(data, Iterable):
        raise TypeError(f"rankings: expected a list of rankings, a numpy array or a data frame, got {type(data).__name__}")
    else:
        rk = [_ranking(r) for r in data]
    flat = [x for r in rk for e in r for x in (e if isinstance(e, list) else [e])]
    named = items is not None or any(isinstance(x, str) for x in flat)
    if named:
        # Names need the object form; ids become their names there.
        rk = [[[str(x) for x in e] if isinstance(e, list) else str(e) for e in r] for r in rk]
    doc: dict = {"rankings": rk}
    if items is not None:
        doc["items"] = [str(x) for x in items]
    if weights is not None:
        doc["weights"] = [float(w) for w in weights]
    # Plain lists are choix-style ids.
    text = json.dumps(doc) if named or weights is not None else json.dumps(rk)
    return _plackett.read_json_text(text, top_k=top_k, ties=ties)


def read_file(path: str, **kwargs: Any) -> Dataset:
    """Read any format the CLI reads; keyword arguments as its flags
    (``format``, ``ranking_col``, ``rank_col``, ``item_col``, ``weight_col``,
    ``top_k``, ``items``, ``ties``, ``case``, ``item_cols``)."""
    return _plackett.read_file(str(path), **kwargs)


def read_csv(path: str, **kwargs: Any) -> Dataset:
    """Long CSV: one row per (ranking, item)."""
    return _plackett.read_file(str(path), format="csv", **kwargs)


def read_preflib(path: str, **kwargs: Any) -> Dataset:
    """PrefLib .soc/.soi/.toc/.toi (count prefixes are weights)."""
    return _plackett.read_file(str(path), format="preflib", **kwargs)


def read_selectors(path: str, **kwargs: Any) -> Dataset:
    """Differential diagnoses (Stutz et al. 2023 selectors JSON)."""
    return _plackett.read_file(str(path), format="selectors", **kwargs)


def read_pairs(path: str, **kwargs: Any) -> Dataset:
    """Pairwise counts: item, item, i_wins, j_wins[, ties]."""
    return _plackett.read_file(str(path), format="pairs", **kwargs)


def fit(
    data: Any,
    engine: str = "mle",
    *,
    ties: Optional[str] = None,
    prior: Optional[dict] = None,
    seed: int = 1,
    reference: Optional[str] = None,
    **kwargs: Any,
) -> FitResult:
    """Fit a Plackett-Luce model.

    ``data`` is a Dataset or anything :func:`rankings` accepts. ``engine``:
    "mle" (maximum likelihood with standard errors), "map", "gibbs"
    (exact posterior by MCMC), "ep" (power EP, with the log-evidence) or
    "vb" (mean-field VB, with the ELBO). ``prior`` is a dict such as
    ``{"shape": 2, "rate": 1}`` (Gamma on worths; map, gibbs, ep, vb) or
    ``{"family": "normal", "mean": 0, "sd": 1}`` (map). Other keywords are
    the CLI's flags: ``algorithm``, ``pseudo``, ``tol``, ``max_iter``,
    ``standard_errors``, ``samples``, ``burn_in``, ``chains``, ``draws``.
    The same seed gives the same numbers as ``plackett fit --seed``.
    """
    if engine not in _ENGINES:
        raise ValueError(f"invalid option engine: expected one of {', '.join(_ENGINES)}, got {engine!r}")
    if not isinstance(data, Dataset):
        data = rankings(data, ties=ties or "unknown")
    elif ties is not None:
        raise ValueError("invalid option ties: a Dataset was read with its tie reading already; pass ties= to the reader")
    if prior is not None:
        if not isinstance(prior, dict):
            raise TypeError("prior: expected a dict such as {'shape': 2, 'rate': 1}")
        p = dict(prior)
        fam = p.pop("family", "gamma")
        if fam == "gamma":
            kwargs["prior"] = "gamma"
            if "shape" in p:
                kwargs["prior_shape"] = float(p.pop("shape"))
            if "rate" in p:
                kwargs["prior_rate"] = float(p.pop("rate"))
        elif fam == "normal":
            kwargs["prior"] = "normal"
            if "mean" in p:
                kwargs["prior_mean"] = float(p.pop("mean"))
            if "sd" in p:
                kwargs["prior_sd"] = float(p.pop("sd"))
        else:
            raise ValueError(f"prior family must be 'gamma' or 'normal', got {fam!r}")
        if p:
            raise ValueError(f"prior: unknown keys {sorted(p)}")
    return _plackett.fit(data, engine=engine, seed=seed, reference=reference, **kwargs)


def summary(result: FitResult):
    """Per-item table of a fit (same as ``result.summary()``)."""
    return result.summary()
