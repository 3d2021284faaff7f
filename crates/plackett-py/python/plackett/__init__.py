"""plackett: Bayesian and likelihood inference for Plackett-Luce models.

Every number is computed by the Rust library (the same code as the
``plackett`` command); this package translates Python data into it and
results back into numpy arrays (and pandas, when installed).

Gauges: ``log_worth`` is mean-centred unless ``reference=`` names an item
(then that item's log-worth is 0); ``worth`` is normalised to sum to one.
"""
from __future__ import annotations

import csv
import io
import json
import math
import numbers
import os
import stat
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np

from ._checks import native as _plackett
# The argument checks under private names, so that `plackett.names` and
# the like are not mistaken for part of the package.
from ._checks import check_counts as _check_counts
from ._checks import count as _count
from ._checks import count_or_none as _count_or_none
from ._checks import integers as _integers
from ._checks import bools_as_ints as _bools_as_ints
from ._checks import names as _names
from ._checks import plain as _plain
from ._checks import real as _real
from ._checks import reals as _reals
from ._checks import show as _show
from ._plackett import (
    AdherenceModel,
    AdherenceResult,
    AggregateResult,
    Dataset,
    FitResult,
    MilFit,
    MilModel,
    MilPrediction,
    MixtureModel,
    MixtureResult,
    Model,
    Selectors,
)

__version__ = _plackett.__version__

__all__ = [
    "ENVELOPE_KEYS",
    "AggregateResult",
    "AdherenceModel",
    "AdherenceResult",
    "Dataset",
    "FitResult",
    "KeywordResult",
    "MILClassifier",
    "MilFit",
    "MilModel",
    "MilPrediction",
    "MixtureModel",
    "MixtureResult",
    "Model",
    "PLClassifier",
    "ClassifierPath",
    "classify_path",
    "Selectors",
    "aggregate",
    "evaluate",
    "cross_validate",
    "simulate",
    "Simulation",
    "FeatureCv",
    "extract_keywords",
    "extract_keywords_many",
    "evaluate_keywords",
    "tag_text",
    "KeywordEvaluation",
    "fit",
    "fit_adherence",
    "fit_mixture",
    "tree",
    "Tree",
    "MilCv",
    "load_mil_model",
    "load_model",
    "mil_cv",
    "mil_fit",
    "mil_simulate",
    "mil_study",
    "MilStudy",
    "read_orderings",
    "selectors",
    "rankings",
    "read_csv",
    "read_file",
    "read_pairs",
    "read_preflib",
    "read_selectors",
    "summary",
]

_ENGINES = ("mle", "map", "gibbs", "ep", "vb")

#: The keys every result's ``envelope`` (and every ``--output json``
#: document) opens with; see docs/python.md, "Results".
ENVELOPE_KEYS = ("family", "engine", "converged", "iterations", "n_observations", "notes", "diagnostics")


def _envelope_attributes(cls: type) -> None:
    """Give a result class the envelope's keys as attributes where it has no
    attribute of that name (``FitResult.diagnostics``, per-item arrays,
    keeps its own; ``result.envelope["diagnostics"]`` is the summary)."""
    for key in ENVELOPE_KEYS:
        if not hasattr(cls, key):
            setattr(cls, key, property(lambda self, k=key: self.envelope[k], doc=f"The envelope's {key!r}."))


for _cls in (FitResult, MixtureResult, AdherenceResult, AggregateResult, MilFit, _plackett.ClassifierModel):
    _envelope_attributes(_cls)
del _cls


def _label(x: Any) -> Any:
    """An item label as JSON can carry it: str, or a non-negative int id."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"an item is a name (str) or an id (int), got {_show(x)}")
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, str):
        return x
    raise TypeError(f"an item is a name (str) or an id (int), got {type(x).__name__} {_show(x)}")


def _ranking(r: Any) -> list:
    if isinstance(r, (str, bytes)) or not isinstance(r, Iterable):
        raise TypeError(f"a ranking is a list of items (best first), got {_show(r)}")
    if isinstance(r, (set, frozenset, dict)) or type(r).__name__ in ("dict_keys", "dict_values"):
        # Its iteration order is not a ranking (a set inside a ranking is a tie).
        raise TypeError(f"a ranking must be an ordered sequence (best first), got a {type(r).__name__}")
    out = []
    for e in r:
        if isinstance(e, (list, tuple, set, frozenset, np.ndarray)):
            out.append([_label(x) for x in e])
        else:
            out.append(_label(e))
    return out


def _from_frame(df: Any, ranking: str, rank: str, item: str, weight: Optional[str]):
    """Rankings from a long data frame: one row per (ranking, item), lower
    rank is better, equal ranks form a tied group. A column may be an
    index level instead (a frame indexed by ranking id, as
    ``df.set_index("ranking")`` leaves it)."""
    levels = [n for n in getattr(df.index, "names", [None]) if n is not None]
    if any(c in levels and c not in df.columns for c in (ranking, rank, item, weight)):
        df = df.reset_index()
    for c in (ranking, rank, item):
        if c not in df.columns:
            raise ValueError(f"data frame has no column {_show(c)} (columns: {list(df.columns)})")
        if list(df.columns).count(c) > 1:
            raise ValueError(f"data frame has {list(df.columns).count(c)} columns named {_show(c)}; "
                             "rename or drop all but one")
    # groupby would drop a row without a ranking id silently (and its item
    # from that ranking): name the row instead.
    missing = np.flatnonzero(np.asarray(df[ranking].isna(), dtype=bool))
    if len(missing):
        raise ValueError(f"row {missing[0]}: missing value in ranking column {_show(ranking)}")
    rankings, weights = [], []
    for _, g in df.groupby(ranking, sort=False):
        g = g.sort_values(rank, kind="stable")
        groups: list = []
        last = object()
        key = g[ranking].iloc[0]
        where = f"ranking {_show(_plain(key))}"
        for rk, absent, it in zip(g[rank].tolist(), g[rank].isna().tolist(), g[item].tolist()):
            if absent:  # NaN, None or pandas' NA
                raise ValueError(f"{where}: missing rank for item {_show(it)}")
            try:
                label = _label(it)
            except TypeError as e:
                raise TypeError(f"{where}: {e}") from None
            if groups and rk == last:
                groups[-1].append(label)
            else:
                groups.append([label])
            last = rk
        rankings.append([g_[0] if len(g_) == 1 else g_ for g_ in groups])
        if weight is not None and weight in g.columns:
            w = g[weight].unique()
            if len(w) != 1:
                raise ValueError(f"{where}: weight must be constant within a ranking")
            weights.append(_real("weight", w[0]))
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
    return _rankings(data, items, weights, top_k, ties, (ranking_col, rank_col, item_col, weight_col), None)


def _ids_as_positions(where: str, first: Any, items: Sequence[Any]) -> None:
    """A first integer id against ``items`` that are all non-numeric names:
    ids are item names, so none can match; say so instead of "item 0 is not
    in items" (choix users index a list of names by position). A negative
    id is left to the reader's own message."""
    names = [str(x) for x in items]
    if not names or any(isinstance(x, (int, np.integer)) for x in items) or int(first) < 0:
        return
    if any(n.strip().lstrip("+-").isdigit() for n in names):
        return
    raise ValueError(
        f"{where}: item {int(first)} is an integer id but items are names "
        f"({_show(names[0])}, ...): ids are names here, not positions in items; rank the names "
        f"themselves (e.g. [items[j] for j in ranking]) or pass items=range({len(names)})"
    )


def _held_out(data: Any, items: Sequence[str], whose: str) -> Dataset:
    """Held-out rankings read as ``rankings`` reads them with its defaults,
    over a fit's or model's ``items``; an unknown item is named as not one
    of ``whose`` ("this fit", "this model")."""
    d = rankings.__kwdefaults__
    columns = (d["ranking_col"], d["rank_col"], d["item_col"], d["weight_col"])
    return _rankings(data, items, d["weights"], d["top_k"], d["ties"], columns, whose)


def _int_labels(items: Optional[Sequence[Any]]) -> bool:
    """Whether rankings given by integer id name their items by ints: with
    no ``items=``, or with integer ones (``items=range(n)``). Results then
    give items back as ints, as they came in."""
    if items is None:
        return True
    return all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in items)


def _rankings(data: Any, items: Optional[Sequence[Any]], weights: Optional[Sequence[float]], top_k: bool, ties: str,
              columns: tuple, universe_of: Optional[str]) -> Dataset:
    """``rankings``; with ``universe_of`` ("this fit", "this model") an item
    outside ``items`` is named as not one of that fit's or model's (held-out
    data read over a fit's items)."""
    ranking_col, rank_col, item_col, weight_col = columns
    if items is not None and hasattr(items, "__len__") and len(items) > _plackett._MAX_ITEMS:
        # Refused before 10⁸ names are made (a MemoryError, or the machine's memory).
        raise ValueError(f"items: {len(items)} items is beyond the supported {_plackett._MAX_ITEMS}")
    if hasattr(data, "groupby") and hasattr(data, "columns"):
        rk, w = _from_frame(data, ranking_col, rank_col, item_col, weight_col)
        weights = weights if weights is not None else w
    elif isinstance(data, np.ndarray):
        if data.ndim != 2 or data.shape[1] < 2:
            raise ValueError(f"a numpy array of rankings has shape (n, k) with k >= 2, got {data.shape}")
        if not np.issubdtype(data.dtype, np.integer):
            raise TypeError(f"a numpy array of rankings holds integer item ids, got dtype {data.dtype}")
        if data.dtype.kind == "u" and data.size and data.max() > np.iinfo(np.int64).max:
            # The cast to int64 below would wrap such an id to a negative one.
            raise ValueError(f"<array>: item id {int(data.max())} is too large; pass items=")
        if items is not None and universe_of is None and data.size:
            _ids_as_positions("<array>: row 0", data.flat[0], items)
        # Straight into Rust: no Python lists, no JSON.
        return _plackett.read_array(
            np.ascontiguousarray(data, dtype=np.int64),
            items=None if items is None else [str(x) for x in items],
            weights=None if weights is None else np.ascontiguousarray(weights, dtype=np.float64),
            top_k=top_k,
            ties=ties,
            universe_of=universe_of,
            ids=_int_labels(items),
        )
    elif isinstance(data, (str, bytes)) or not isinstance(data, Iterable):
        raise TypeError(f"rankings: expected a list of rankings, a numpy array or a data frame, got {type(data).__name__}")
    else:
        rk = []
        for i, r in enumerate(data):
            try:
                rk.append(_ranking(r))
            except TypeError as e:  # placed as the reader places its errors
                raise TypeError(f"rankings[{i}]: {e}") from None
    flat = [x for r in rk for e in r for x in (e if isinstance(e, list) else [e])]
    named_ids = [x for x in flat if isinstance(x, str)]
    if named_ids and len(named_ids) < len(flat):
        number = next(x for x in flat if not isinstance(x, str))
        raise TypeError(f"rankings: item ids mix integers and names ({number!r} and {named_ids[0]!r}); "
                        f"use names throughout, or integer ids with items= for their names")
    first = [x for e in rk[0] for x in (e if isinstance(e, list) else [e])] if rk else []
    if rk and any(isinstance(e, list) and not e for e in rk[0]):
        first = []  # an empty group: the reader's error
    if items is not None and universe_of is None and first and not any(isinstance(x, str) for x in flat):
        # From the first ranking only: the reader's errors about it come first.
        _ids_as_positions("rankings[0]", first[0], items)
    named = items is not None or any(isinstance(x, str) for x in flat)
    if named:
        # Names need the object form; ids become their names there.
        rk = [[[str(x) for x in e] if isinstance(e, list) else str(e) for e in r] for r in rk]
    doc: dict = {"rankings": rk}
    if items is not None:
        doc["items"] = _names("items", items)
    if weights is not None:
        doc["weights"] = _reals("weights", weights)
        # NaN and infinities have no JSON spelling: say what the reader says
        # of any other weight it refuses.
        for i, x in enumerate(doc["weights"]):
            if not math.isfinite(x):
                raise ValueError(f"weights[{i}]: must be a positive number")
    # Plain lists are choix-style ids.
    text = json.dumps(doc) if named or weights is not None else json.dumps(rk)
    ids = not any(isinstance(x, str) for x in flat) and _int_labels(items)
    return _plackett.read_json_text(text, top_k=top_k, ties=ties, universe_of=universe_of, ids=ids)


def _path(path: Any, what: str = "path") -> str:
    """A file path argument as a str; anything else is a TypeError."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what}: expected a file path, got {type(path).__name__}")
    return os.fspath(path)


def _read_text(path: Any, what: str) -> str:
    """A UTF-8 text file's contents. Only a path is accepted: ``open`` would
    take an int as a file descriptor (``True`` is 1, stdout) and close it."""
    _path(path, what)
    try:
        # A device (/dev/zero, /dev/urandom) never ends: refused, not read
        # until memory runs out.
        if stat.S_ISCHR(os.stat(path).st_mode) or stat.S_ISBLK(os.stat(path).st_mode):
            raise ValueError(f"{os.fspath(path)}: is a device, not a data file")
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise ValueError(f"{os.fspath(path)}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        # The same class (FileNotFoundError, PermissionError, …) with the
        # path in a one-line message.
        ex = type(e)(f"{os.fspath(path)}: {e.strerror or e}")
        ex.errno, ex.strerror, ex.filename = e.errno, e.strerror, e.filename
        raise ex from None


def read_file(
    path: str,
    *,
    format: Optional[str] = None,
    ranking_col: str = "ranking",
    rank_col: str = "rank",
    item_col: str = "item",
    weight_col: str = "weight",
    ranker_col: str = "ranker",
    top_k: bool = False,
    items: Optional[Sequence[str]] = None,
    ties: str = "unknown",
    case: Optional[int] = None,
    item_cols: Optional[Sequence[str]] = None,
) -> Dataset:
    """Read any format the CLI reads (``plackett fit FILE``'s readers).

    Parameters
    ----------
    path : str or path-like
        The data file.
    format : {"csv", "preflib", "json", "selectors", "pairs", "orderings"}, optional
        The file's format; by default from its extension.
    ranking_col, rank_col, item_col, weight_col, ranker_col : str
        Long CSV: the columns naming the ranking, holding the rank (lower
        is better; equal ranks are tied), naming the item, holding the
        observation weight (optional) and naming who ranked (optional).
    top_k : bool
        Rankings are top-k lists of the whole item universe.
    items : sequence of str, optional
        Declare the item universe (e.g. ``model.items`` to read new data
        over a saved model's items).
    ties : {"unknown", "event"}
        Tied groups as unknown order, or as events (Davidson–Luce).
    case : int, optional
        Selectors: only this case (0-based).
    item_cols : (str, str), optional
        Pairs: the two item columns (default: the first two).
    """
    return _plackett.read_file(
        _path(path), format=format, ranking_col=ranking_col, rank_col=rank_col, item_col=item_col,
        weight_col=weight_col, ranker_col=ranker_col, top_k=top_k,
        items=None if items is None else list(items), ties=ties, case=case,
        item_cols=None if item_cols is None else tuple(item_cols))


def load_model(path: str) -> Model | MixtureModel | AdherenceModel:
    """A model saved by ``plackett fit --model-out`` (or ``result.model().to_json()``).

    ``model.predict(data)`` gives each observation's log-probability (read
    ``data`` with ``items=model.items``), as ``plackett predict`` does. A
    mixture's file (``fit --components G --model-out``) loads as a
    ``MixtureModel``, whose ``membership(data)`` also says which component
    each new observation most likely comes from; an adherence model's
    (``fit --adherence --model-out``) as an ``AdherenceModel``, which
    predicts each ranker it knows by its adherence and a new ranker by the
    adherence prior.
    """
    text = _read_text(path, "model")
    try:
        fmt = json.loads(text.lstrip("\ufeff")).get("format")
    except (ValueError, AttributeError, RecursionError):
        # RecursionError: nesting deeper than Python's json module goes
        fmt = None  # not a JSON object: Model.from_json says what is wrong
    if fmt == "plackett-mixture-model":
        return MixtureModel.from_json(text, os.fspath(path))
    if fmt == "plackett-adherence-model":
        return AdherenceModel.from_json(text, os.fspath(path))
    return Model.from_json(text, os.fspath(path))


def read_csv(
    path: str,
    *,
    ranking_col: str = "ranking",
    rank_col: str = "rank",
    item_col: str = "item",
    weight_col: str = "weight",
    ranker_col: str = "ranker",
    top_k: bool = False,
    items: Optional[Sequence[str]] = None,
    ties: str = "unknown",
) -> Dataset:
    """Long CSV: one row per (ranking, item). The parameters are
    :func:`read_file`'s: the columns naming the ranking, holding the rank
    (lower is better; equal ranks are tied), naming the item, holding the
    weight and naming the ranker; ``top_k``, ``items`` and ``ties`` as
    there."""
    return read_file(path, format="csv", ranking_col=ranking_col, rank_col=rank_col, item_col=item_col,
                     weight_col=weight_col, ranker_col=ranker_col, top_k=top_k, items=items, ties=ties)


def read_preflib(
    path: str,
    *,
    top_k: bool = False,
    items: Optional[Sequence[str]] = None,
    ties: str = "unknown",
) -> Dataset:
    """PrefLib .soc/.soi/.toc/.toi (count prefixes are weights); ``top_k``,
    ``items`` and ``ties`` as :func:`read_file`'s."""
    return read_file(path, format="preflib", top_k=top_k, items=items, ties=ties)


def read_selectors(
    path: str,
    *,
    case: Optional[int] = None,
    items: Optional[Sequence[str]] = None,
    ties: str = "unknown",
) -> Dataset:
    """Differential diagnoses (Stutz et al. 2023 selectors JSON) as
    rankings; ``case``: only this case (0-based); ``items`` and ``ties`` as
    :func:`read_file`'s."""
    return read_file(path, format="selectors", case=case, items=items, ties=ties)


def read_pairs(
    path: str,
    *,
    item_cols: Optional[Sequence[str]] = None,
    items: Optional[Sequence[str]] = None,
    ties: str = "unknown",
) -> Dataset:
    """Pairwise counts: item, item, i_wins, j_wins[, ties]. ``item_cols``:
    the two item columns (default: the first two); ``items`` and ``ties``
    as :func:`read_file`'s."""
    return read_file(path, format="pairs", item_cols=item_cols, items=items, ties=ties)


def read_orderings(
    path: str,
    *,
    top_k: bool = False,
    items: Optional[Sequence[str]] = None,
    weight_col: str = "weight",
) -> Dataset:
    """Wide orderings, one row per ranking: column k = the item at rank k,
    0 or empty = not ranked (PLMIX's layout). Pass ``top_k=True`` to read
    partial rows as top-k lists of all items (PLMIX's reading); ``items``
    and ``weight_col`` as :func:`read_file`'s."""
    return read_file(path, format="orderings", top_k=top_k, items=items, weight_col=weight_col)


def fit(
    data: Any,
    engine: str = "mle",
    *,
    ties: Optional[str] = None,
    prior: Optional[dict] = None,
    seed: int = 1,
    reference: Optional[str] = None,
    features: Any = None,
    components: Any = None,
    **kwargs: Any,
) -> FitResult:
    """Fit a Plackett-Luce model.

    ``data`` is a Dataset or anything :func:`rankings` accepts. ``engine``:
    "mle" (maximum likelihood with standard errors), "map", "gibbs"
    (exact posterior by MCMC), "ep" (power EP, with the log-evidence) or
    "vb" (mean-field VB, with the ELBO; its sds, intervals and draws from
    the linear-response covariance of Giordano, Broderick & Jordan 2015 by
    default, ``covariance="mean-field"`` for the Gamma factors' own, and
    the covariance matrix as ``vcov``). ``prior`` is a dict such as
    ``{"shape": 2, "rate": 1}`` (Gamma on worths; map, gibbs, ep, vb) or
    ``{"family": "normal", "mean": 0, "sd": 1}`` (map). Other keywords are
    the CLI's flags: ``algorithm``, ``pseudo``, ``tol``, ``max_iter``,
    ``standard_errors``, ``samples``, ``burn_in``, ``chains``, ``draws``,
    ``covariance`` (vb).
    The same seed gives the same numbers as ``plackett fit --seed``.

    ``features`` turns on PL regression ``log λ_i = x_iᵀβ`` (Guo et al.
    2019): a CSV path (``item,f1,f2,…``, as ``plackett fit --features``) or
    a pandas DataFrame whose first column names the items. Engines mle, map
    and vb; keywords ``eta`` (prior precision of β, a number or "auto"),
    ``eta_grid``, ``vi`` ("exact" or "guo"), ``standardize`` (default True).
    The result adds ``coefficients`` and ``new_items`` (items only in the
    features table), and ``compare`` accepts those items too.

    ``components`` fits a finite mixture instead (see :func:`fit_mixture`).
    """
    if components is not None:
        if features is not None or reference is not None:
            raise ValueError("invalid option components: not used with features or reference")
        return fit_mixture(data, components, engine, ties=ties, prior=prior, seed=seed, **kwargs)
    if engine not in _ENGINES:
        raise ValueError(f"invalid option engine: expected one of {', '.join(_ENGINES)}, got {_show(engine)}")
    data = _as_dataset(data, ties)
    if prior is not None:
        if not isinstance(prior, dict):
            raise TypeError("prior: expected a dict such as {'shape': 2, 'rate': 1}")
        p = dict(prior)
        fam = p.pop("family", "gamma")
        if fam == "gamma":
            kwargs["prior"] = "gamma"
            if "shape" in p:
                kwargs["prior_shape"] = _real("prior shape", p.pop("shape"))
            if "rate" in p:
                kwargs["prior_rate"] = _real("prior rate", p.pop("rate"))
        elif fam == "normal":
            kwargs["prior"] = "normal"
            if "mean" in p:
                kwargs["prior_mean"] = _real("prior mean", p.pop("mean"))
            if "sd" in p:
                kwargs["prior_sd"] = _real("prior sd", p.pop("sd"))
        else:
            raise ValueError(f"prior family must be 'gamma' or 'normal', got {_show(fam)}")
        if p:
            raise ValueError(f"prior: unknown keys {sorted(p)}")
    if features is not None:
        kwargs.update(_features_arg(features))
    # η and its grid are spelled as on the command line.
    if kwargs.get("eta") is not None:
        kwargs["eta"] = str(kwargs["eta"])
    if isinstance(kwargs.get("eta_grid"), (list, tuple)):
        kwargs["eta_grid"] = ",".join(repr(v) for v in _reals("eta_grid", kwargs["eta_grid"]))
    _check_counts(kwargs)
    return _plackett.fit(data, engine=engine, seed=_count("seed", seed), reference=reference, **kwargs)


def _features_arg(features: Any) -> dict:
    """A features CSV path, or a DataFrame whose first column is the item
    (or whose named index is: ``df.set_index("item")``). Boolean columns
    are features of 0 and 1."""
    if isinstance(features, (str, os.PathLike)):
        return {"features": os.fspath(features)}
    if hasattr(features, "to_csv") and hasattr(features, "columns"):
        index = getattr(features, "index", None)
        # A named index is the items (an unnamed one is row numbers, e.g.
        # of a filtered frame, and stays out).
        named = index is not None and getattr(index, "name", None) is not None
        if len(features.columns) < (1 if named else 2):
            raise ValueError("features: expected an item column and at least one feature column")
        return {"features": "features", "features_text": _bools_as_ints(features).to_csv(index=named)}
    raise TypeError("features: expected a CSV path or a pandas DataFrame (first column: item)")


def fit_mixture(
    data: Any,
    components: Any = 2,
    engine: str = "mle",
    *,
    ties: Optional[str] = None,
    prior: Optional[dict] = None,
    dirichlet: Optional[float] = None,
    starts: int = 10,
    seed: int = 1,
    tol: Optional[float] = None,
    max_iter: Optional[int] = None,
    samples: Optional[int] = None,
    burn_in: Optional[int] = None,
    chains: Optional[int] = None,
) -> MixtureResult:
    """Finite mixture of Plackett-Luce models (Mollica & Tardella 2017).

    ``components``: G, a range ``"lo:hi"`` (or a ``range``/``(lo, hi)``),
    or ``"auto"`` (1:5); with a range every G is fitted and the lowest BIC
    (DIC for gibbs) reported. ``engine``: "mle" (EM), "map" or "gibbs"
    (``prior={"shape": a, "rate": b}`` Gamma on worths, default 2, 1;
    ``dirichlet`` α ≥ 1 on the weights; gibbs takes ``samples``, ``burn_in``,
    ``chains`` and adds ``weight_sd``, ``log_worth_sd``, ``dic``, ``bpic``
    and relabelled ``draws``). EM keeps the best of ``starts`` random starts
    (seeded); the sampler relabels its draws to that mode.
    The result has ``weights`` (G), ``log_worth``/``worth`` (G × items),
    ``membership`` (observations × G), ``log_likelihood``, ``bic``,
    ``model_choice()``, ``summary()``, ``compare(a, b)`` and ``to_json()``
    (the JSON of ``plackett fit --components``).
    """
    lo, hi = (_count("components", g) for g in _components_range(components))
    counts = _check_counts(dict(starts=starts, seed=seed, max_iter=max_iter, samples=samples,
                               burn_in=burn_in, chains=chains))
    data = _as_dataset(data, ties)
    kw = _gamma_kwargs(prior, "prior", "prior", "mixtures take")
    if dirichlet is not None:
        kw["dirichlet"] = _real("dirichlet", dirichlet)
    return _plackett.fit_mixture(
        data, lo=lo, hi=hi, engine=engine, tol=tol, **counts, **kw
    )


def fit_adherence(
    data: Any,
    engine: str = "mle",
    *,
    rankers: Optional[Sequence[Any]] = None,
    ties: Optional[str] = None,
    adherence_prior: Optional[dict] = None,
    prior: Optional[dict] = None,
    pseudo: Optional[float] = None,
    fixed: Optional[Sequence[float]] = None,
    tol: Optional[float] = None,
    max_iter: Optional[int] = None,
    samples: int = 5000,
    burn_in: int = 1000,
    chains: int = 4,
    seed: int = 1,
) -> AdherenceResult:
    """Plackett-Luce with ranker adherence (Raman & Joachims 2014, as R's
    PlackettLuce ``adherence``/``gamma``): ranker r chooses with worths
    ``λ_i ** η_r``; ``η_r`` gets a Gamma prior (``adherence_prior``, default
    ``{"shape": 10, "rate": 10}``, PlackettLuce's default) and the fit is the
    MAP.

    ``rankers``: one name per ranking (else the ranker column of a file or
    of a data frame, ``ranker`` as the CLI's ``--ranker-col``, constant
    within each ranking; else every ranking is its own ranker). ``engine``: "mle" (no worth prior) or "map"
    (``prior={"shape": a, "rate": b}`` Gamma on worths, default 2, 1).
    ``pseudo``: PlackettLuce's ``npseudo`` (pseudo-rankings against a ghost
    item). ``fixed``: adherences to hold fixed, one per ranker. The result
    has ``items``, ``log_worth``, ``worth``, ``rankers``, ``adherence``,
    ``log_likelihood``, ``log_posterior``, ``summary()``, ``to_json()``
    (the JSON of ``plackett fit --adherence``) and ``model()``, an
    ``AdherenceModel`` that predicts each ranker it knows at its adherence
    and a new ranker with its adherence integrated over the prior (the file
    ``fit --adherence --model-out`` writes; docs/adherence.md).

    ``engine="gibbs"`` samples the posterior (latent times, slice updates
    and a scale move; docs/adherence.md) with the map engine's worth prior:
    ``log_worth`` and ``adherence`` are then posterior means, with
    ``log_worth_sd``, ``adherence_sd``, ``log_worth_interval``,
    ``adherence_interval`` (90%) and ``diagnostics``; ``samples``,
    ``burn_in``, ``chains`` and ``seed`` set the chains.
    """
    if rankers is None:
        rankers = _frame_rankers(data)
    data = _as_dataset(data, ties)
    kw = _gamma_kwargs(adherence_prior, "adherence_prior", "adherence", None)
    kw.update(_gamma_kwargs(prior, "prior", "prior", "the adherence model takes"))
    if rankers is not None:
        if isinstance(rankers, (str, bytes)):
            raise TypeError("rankers: expected a sequence of names, one per ranking")
        kw["rankers"] = _names("rankers", rankers)
    if fixed is not None:
        kw["fixed"] = _reals("fixed", fixed)
    samples, burn_in, chains, seed = (_count(n, v) for n, v in (
        ("samples", samples), ("burn_in", burn_in), ("chains", chains), ("seed", seed)))
    return _plackett.fit_adherence(
        data, engine=engine, pseudo=pseudo, tol=tol, max_iter=_count_or_none("max_iter", max_iter),
        samples=samples, burn_in=burn_in, chains=chains, seed=seed, **kw
    )


class Tree:
    """A Plackett-Luce tree (``plackett tree``; docs/trees.md): rankers
    partitioned by their covariates (model-based recursive partitioning,
    Zeileis, Hothorn & Hornik 2008; R's ``pltree``, Turner et al. 2020).

    ``nodes`` is the JSON's node list (``id``, ``parent``, ``n``,
    ``terminal``, ``split``, ``tests``, leaves' ``items``);
    ``log_likelihood``, ``aic``, ``notes``; ``summary()`` the leaves'
    log-worths (items × leaves), ``tests()`` the instability tests of the
    inner nodes, ``predict(new_covariates)`` each new ranker's leaf and
    log-worths, ``to_json()`` the document, ``save(path)`` the model file.
    """

    def __init__(self, native: Any):
        self._native = native
        self._doc = json.loads(native.to_json())
        self.nodes: list = self._doc["nodes"]
        self.log_likelihood: float = self._doc["log_likelihood"]
        self.aic: float = self._doc["aic"]
        self.notes: list = self._doc["notes"]
        self._kinds = dict(native.covariate_kinds())

    @property
    def leaves(self) -> list:
        """The terminal nodes."""
        return [n for n in self.nodes if n["terminal"]]

    def to_json(self) -> str:
        """The document ``plackett tree --output json`` prints."""
        return self._native.to_json()

    def report(self, path: str, title: str = "Plackett–Luce tree") -> None:
        """Write the HTML page ``plackett tree --report`` writes: the tree
        drawn with each leaf's log-worths, the instability tests."""
        with open(_path(path), "w", encoding="utf-8") as fh:
            fh.write(self._native.report_html(title))

    def save(self, path: str) -> None:
        """Write the model file ``plackett tree --model-out`` writes."""
        with open(_path(path), "w", encoding="utf-8") as fh:
            fh.write(self._native.model_json())

    def summary(self) -> Any:
        """Log-worths per leaf: a pandas DataFrame, one row per item, one
        column per leaf (``node 2``, …), in the tree's gauge."""
        import pandas as pd
        cols = {}
        for leaf in self.leaves:
            cols[f"node {leaf['id']}"] = {i["name"]: i["log_worth"] for i in leaf["items"]}
        return pd.DataFrame(cols)

    def tests(self) -> Any:
        """The instability tests of every inner node as a DataFrame
        (``node``, ``variable``, ``statistic``, ``df``, ``p_value_raw``,
        ``p_value`` adjusted)."""
        import pandas as pd
        rows = [dict(node=n["id"], **t) for n in self.nodes if not n["terminal"] for t in n["tests"]]
        return pd.DataFrame(rows, columns=["node", "variable", "statistic", "df", "p_value_raw", "p_value"])

    def predict(self, covariates: Any) -> Any:
        """Each new ranker's leaf and log-worths from its covariates (a
        DataFrame, or a list of dicts, with the columns the tree splits
        on): a DataFrame with ``node`` and one log-worth column per item,
        in the rows' order; a ranker whose path needs a missing value or a
        level unseen at that node gets ``node`` None, NaN log-worths and
        the reason in ``reason``."""
        import pandas as pd
        if hasattr(covariates, "to_dict"):
            records = covariates.to_dict("records")
            index = covariates.index
        elif isinstance(covariates, (list, tuple)) and all(isinstance(r, dict) for r in covariates):
            records, index = list(covariates), None
        else:
            raise TypeError("covariates: expected a pandas DataFrame or a list of dicts")
        rows = []
        for r in records:
            row = {}
            for name, kind in self._kinds.items():
                v = r.get(name)
                if v is None or (isinstance(v, float) and v != v):
                    row[name] = None
                elif kind == "numeric":
                    if isinstance(v, str):
                        raise TypeError(f"covariate {_show(name)} is numeric, got {_show(v)}")
                    row[name] = float(v)
                else:
                    row[name] = str(_plain(v))
            rows.append(row)
        leaves, reasons = self._native.route(rows)
        worths = {n["id"]: {i["name"]: i["log_worth"] for i in n["items"]} for n in self.leaves}
        items = [i["name"] for i in self.leaves[0]["items"]]
        out = pd.DataFrame(
            [[leaf] + [worths[leaf][it] if leaf is not None else float("nan") for it in items] for leaf in leaves],
            columns=["node"] + items, index=index)
        out["node"] = out["node"].astype("Int64")
        if any(reasons):
            out["reason"] = reasons
        return out

    def __repr__(self) -> str:
        return repr(self._native)


def tree(
    data: Any,
    covariates: Any,
    *,
    ranker: str = "ranker",
    rankers: Optional[Sequence[Any]] = None,
    key: Optional[str] = None,
    categorical: Optional[Sequence[str]] = None,
    ordered: Optional[dict] = None,
    partition_by: Optional[Sequence[str]] = None,
    alpha: float = 0.05,
    minsize: Optional[int] = None,
    maxdepth: Optional[int] = None,
    bonferroni: bool = True,
    prune: Optional[str] = None,
    max_thresholds: Optional[int] = None,
    pseudo: float = 0.5,
    reference: Optional[str] = None,
    ties: Optional[str] = None,
) -> Tree:
    """Grow a Plackett-Luce tree (``plackett tree``; docs/trees.md).

    ``data``: a Dataset read with its ranker column (``read_file(...,
    ranker_col=...)``), a long data frame with a ``ranker`` column (name it
    with ``ranker``), or any rankings with ``rankers=`` (one name per
    ranking). ``covariates``: a pandas DataFrame or a CSV path, one row per
    ranker, its ``key`` column (default: ``ranker``) naming them; non-numeric
    columns are categorical, ``categorical`` makes numeric ones so,
    ``ordered={"col": [levels, lowest first]}`` declares ordered ones.
    ``alpha``, ``minsize`` (default 10 per item), ``maxdepth`` (root = 1),
    ``bonferroni``, ``prune`` ("aic"/"bic"), ``max_thresholds`` (zooming
    threshold search for large data), ``pseudo`` (PlackettLuce's
    ``npseudo``, 0.5) and ``reference`` are ``plackett tree``'s options;
    the same data give the same JSON (``Tree.to_json()``).
    """
    if rankers is None:
        rankers = _frame_rankers(data, ranker=ranker)
    data = _as_dataset(data, ties)
    if hasattr(covariates, "to_csv"):
        text, source = covariates.to_csv(index=False), "covariates"
    elif isinstance(covariates, (str, os.PathLike)):
        source = _path(covariates)
        with open(source, encoding="utf-8") as fh:
            text = fh.read()
    else:
        raise TypeError("covariates: expected a pandas DataFrame or a CSV path")
    kw = {}
    if rankers is not None:
        if isinstance(rankers, (str, bytes)):
            raise TypeError("rankers: expected a sequence of names, one per ranking")
        kw["rankers"] = _names("rankers", rankers)
    if ordered is not None:
        if not isinstance(ordered, dict):
            raise TypeError("ordered: expected a dict {column: [levels, lowest first]}")
        kw["ordered"] = [(str(k), [str(x) for x in v]) for k, v in ordered.items()]
    return Tree(_plackett.fit_tree(
        data, text, key=key or ranker, categorical=[str(c) for c in categorical or []],
        partition_by=[str(c) for c in partition_by or []], alpha=_real("alpha", alpha),
        minsize=_count_or_none("minsize", minsize), maxdepth=_count_or_none("maxdepth", maxdepth),
        bonferroni=bool(bonferroni), prune=prune,
        max_thresholds=_count_or_none("max_thresholds", max_thresholds), pseudo=_real("pseudo", pseudo),
        reference=reference, source=source, **kw))


class FeatureCv:
    """Cross-validation of PL regression (Guo et al. 2019 §5.2; ``plackett
    cv``): per partition (``L`` splits observations, ``N`` items), the test
    metrics of MAP and the variational posterior over the η grid, and each
    at its cross-validated best η and at the η the training-fold bound
    picks (η_L, Guo et al.'s model choice without held-out data)."""

    def __init__(self, native: Any):
        self._native = native
        self._doc = json.loads(native.to_json())
        self.partitions: list = self._doc["partitions"]
        self.notes: list = self._doc["notes"]

    def to_json(self) -> str:
        """The document ``plackett cv --output json`` prints."""
        return self._native.to_json()

    def to_table(self) -> str:
        """The text tables ``plackett cv`` prints (Guo et al. 2019, Tables 3-4)."""
        return self._native.to_table()

    def report(self, path: Any) -> None:
        """Write the HTML page of ``plackett cv --report`` to ``path``."""
        self._native.report(path)

    def to_frame(self):
        """Tables 3-4 as rows: partition, metric (top_k, auc, log_score),
        VI and MAP at their best η and at η_L, and the three η (needs
        pandas)."""
        import pandas as pd

        rows = []
        for p in self.partitions:
            for metric in ("top_k", "auc", "log_score"):
                rows.append({"partition": p["partition"], "metric": metric, **p[f"{metric}_table"]})
        return pd.DataFrame(rows)

    def curves(self, partition: str = "L"):
        """The curves over η of one partition: the mean training-fold bound
        and each method's test metrics (needs pandas)."""
        import pandas as pd

        for p in self.partitions:
            if p["partition"] == partition:
                d = {"eta": p["etas"], "bound": p["bound"]}
                for m in ("vi", "map"):
                    for k, v in p[m].items():
                        d[f"{m}_{k}"] = v
                return pd.DataFrame(d)
        raise KeyError(f"no {partition!r} partition in this run (ran: {[p['partition'] for p in self.partitions]})")

    def __repr__(self) -> str:
        parts = ", ".join(f"{p['partition']}: AUC {p['auc_table']['vi_at_eta_l']:.3f} at eta_L {p['eta_l']:.3g}"
                          for p in self.partitions)
        return f"FeatureCv({parts})"


def cross_validate(
    data: Any,
    features: Any,
    *,
    folds: int = 3,
    repeats: int = 1,
    seed: int = 1,
    partition: str = "both",
    eta_grid: Any = "1e-3:1e3:13",
    metric_k: int = 10,
    vi: str = "exact",
    standardize: bool = True,
) -> FeatureCv:
    """Cross-validate PL regression on item features (Guo et al. 2019
    §5.2), as ``plackett cv``: ``folds``-fold, ``repeats`` times, over the
    η grid (``"LO:HI:N"`` log-spaced, or a list), MAP and the variational
    posterior (``vi``: "exact" or "guo") side by side, on the L-partition
    (split observations), the N-partition (split items) or ``"both"``.
    ``data``: a Dataset or anything :func:`rankings` accepts; ``features``: a
    CSV path or a DataFrame whose first column names the items;
    ``metric_k``: the K of the top-K metric. The same seed gives the CLI's
    numbers (see docs/features.md).
    """
    data = _as_dataset(data, None)
    if isinstance(eta_grid, (list, tuple, np.ndarray)):
        eta_grid = ",".join(repr(v) for v in _reals("eta_grid", eta_grid))
    if not isinstance(standardize, (bool, np.bool_)):
        raise TypeError(f"standardize: expected True or False, got {_show(standardize)}")
    opts = _check_counts(dict(folds=folds, repeats=repeats, seed=seed, metric_k=metric_k))
    return FeatureCv(_plackett.cross_validate(data, **_features_arg(features), partition=partition,
                                              eta_grid=eta_grid, vi=vi, standardize=bool(standardize), **opts))


class Simulation:
    """Rankings drawn from a Plackett-Luce model with known worths
    (:func:`simulate`): ``data`` (a Dataset over items "0", "1", …),
    ``log_worth`` (the true log-worths, mean-centred, as ``plackett simulate
    --truth``), and with ``features`` the simulated ``features`` (a pandas
    DataFrame ``item, x1, …``, as ``--features-out``; ``fit(…,
    features=sim.features)`` takes it) and the true coefficients ``beta``.
    """

    def __init__(self, data: Dataset, log_worth: np.ndarray, regression: Any):
        self.data = data
        self.log_worth = log_worth
        self.beta: Optional[np.ndarray] = None
        self.feature_names: Optional[list] = None
        self._x: Optional[np.ndarray] = None
        if regression is not None:
            self.feature_names, self._x, self.beta = regression

    @property
    def features(self):
        """The features as a pandas DataFrame (``item`` then one column per
        feature), or None without features."""
        if self._x is None:
            return None
        import pandas as pd

        df = pd.DataFrame(self._x, columns=self.feature_names)
        df.insert(0, "item", [str(i) for i in range(self._x.shape[0])])
        return df

    def __repr__(self) -> str:
        extra = "" if self.beta is None else f", {len(self.beta)} features"
        return f"plackett.Simulation({len(self.log_worth)} items, {self.data.n_observations} observations{extra})"


def simulate(*, items: int = 10, rankings: int = 100, length: int = 10, design: str = "sub",
             worths: str = "lognormal", seed: int = 1, features: Optional[int] = None,
             feature_sd: float = 1.0) -> Simulation:
    """Simulate rankings from a Plackett-Luce model with known worths, as
    ``plackett simulate`` (the same numbers for the same seed): ``design``
    "full" (every item ranked), "sub" (``length`` items drawn uniformly per
    ranking), "topk" (the best ``length`` of all items) or "pairs";
    ``worths`` "lognormal" (log-worths N(0, 1)) or "linear" (1, 2, …, n).
    ``features=D`` draws D features per item, x ~ N(0, ``feature_sd``²),
    β ~ N(0, I), log-worths xᵀβ (PL regression, Guo et al. 2019). For
    calibration and coverage checks: fit ``sim.data`` and compare with
    ``sim.log_worth``.
    """
    if not isinstance(design, str):
        raise TypeError(f"design: expected a string, got {_show(design)}")
    if not isinstance(worths, str):
        raise TypeError(f"worths: expected a string, got {_show(worths)}")
    data, log_worth, regression = _plackett.simulate(
        items=_count("items", items), rankings=_count("rankings", rankings), length=_count("length", length),
        design=design, worths=worths, seed=_count("seed", seed),
        features=None if features is None else _count("features", features),
        feature_sd=_real("feature_sd", feature_sd))
    return Simulation(data, log_worth, regression)


def _frame_rankers(data: Any, ranking: str = "ranking", ranker: str = "ranker") -> Optional[list]:
    """Each ranking's ranker, as names, when ``data`` is a long frame with a
    ``ranker`` column (as the CLI's ``--ranker-col``), in the order
    :func:`rankings` reads the frame's rankings (first appearance); else
    None. ``fit_adherence`` and ``AdherenceModel.predict`` read it alike."""
    if not (hasattr(data, "groupby") and hasattr(data, "columns") and ranker in data.columns):
        return None
    if ranking not in data.columns:
        raise ValueError(f"data frame has no column {_show(ranking)} (columns: {list(data.columns)})")
    out = []
    for key, g in data.groupby(ranking, sort=False):
        who = g[ranker].unique()
        if len(who) != 1 or who[0] != who[0]:
            raise ValueError(f"ranking {_show(_plain(key))}: column {_show(ranker)} must hold one ranker per ranking")
        out.append(str(_plain(who[0])))
    return out


def _as_dataset(data: Any, ties: Optional[str]) -> Dataset:
    """``data`` as a Dataset: lists, arrays and frames through
    :func:`rankings`; a Dataset keeps the tie reading it was read with."""
    if not isinstance(data, Dataset):
        return rankings(data, ties=ties or "unknown")
    if ties is not None:
        raise ValueError("invalid option ties: a Dataset was read with its tie reading already; pass ties= to the reader")
    return data


def _gamma_kwargs(spec: Optional[dict], name: str, prefix: str, model: Optional[str]) -> dict:
    """A Gamma prior given as ``{"shape": a, "rate": b}`` (either key
    optional) as the keyword arguments ``{prefix}_shape``/``{prefix}_rate``.
    With ``model``, a ``"family"`` key other than "gamma" is refused with
    "prior: {model} a Gamma prior on worths"."""
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        example = "{'shape': 10, 'rate': 10}" if model is None else "{'shape': 2, 'rate': 1}"
        raise TypeError(f"{name}: expected a dict such as {example}")
    p = dict(spec)
    if model is not None and p.pop("family", "gamma") != "gamma":
        raise ValueError(f"{name}: {model} a Gamma prior on worths ({{'shape': a, 'rate': b}})")
    kw = {}
    for key in ("shape", "rate"):
        if key in p:
            kw[f"{prefix}_{key}"] = _real(f"{name} {key}", p.pop(key))
    if p:
        raise ValueError(f"{name}: unknown keys {sorted(p)}")
    return kw


def _components_range(c: Any) -> tuple:
    bad = ValueError(f"invalid option components: expected G >= 1, 'lo:hi', a range or 'auto', got {_show(c)}")
    if isinstance(c, bool):
        raise bad
    if isinstance(c, (int, np.integer)):
        return int(c), int(c)
    if isinstance(c, str):
        s = c.strip()
        if s == "auto":
            return 1, 5
        try:
            if ":" in s:
                a, b = s.split(":", 1)
                return int(a), int(b)
            return int(s), int(s)
        except ValueError:
            raise bad from None
    if isinstance(c, range) and c.step == 1 and len(c) > 0:
        return c.start, c.stop - 1
    if isinstance(c, tuple) and len(c) == 2 and all(isinstance(v, (int, np.integer)) for v in c):
        return int(c[0]), int(c[1])
    raise bad


def summary(result: FitResult):
    """Per-item table of a fit (same as ``result.summary()``)."""
    return result.summary()


# -- uncertain ground truth (Stutz et al. 2023) ------------------------------


def selectors(data: Any, *, classes: Any = None) -> Selectors:
    """Differential diagnoses for aggregation.

    ``data`` is a path to a selectors JSON file, or the same structure in
    Python: a list of cases, each a list of annotators, each a best-first
    list of groups of class ids (``[[[3], [1, 7]], [[1]]]``: annotator 0
    ranks class 3 first, then 1 and 7 tied). ``classes`` declares K: a count,
    a list of class names, or the path of a names file (one per line); by
    default K is the largest id + 1 (with a note, since K sets the prior of
    never-ranked classes).
    """
    if isinstance(data, Selectors):
        if classes is not None:
            raise ValueError("invalid option classes: these selectors were read with their classes already")
        return data
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        import os

        return _plackett.read_selectors_data(path=os.fsdecode(data), classes=classes)
    if isinstance(data, (list, tuple)):
        try:
            text = json.dumps(data, default=_json_int, allow_nan=False)
        except TypeError as e:
            raise TypeError(f"selectors: {e}") from None
        except ValueError:  # NaN or an infinity, which JSON cannot spell
            raise ValueError("selectors: a class id must be a non-negative integer, found NaN or an infinity") from None
        return _plackett.read_selectors_data(text=text, classes=classes)
    raise TypeError(
        f"selectors: expected a path or a list of cases (annotators, groups of class ids), got {type(data).__name__}"
    )


def _json_int(x: Any) -> Any:
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"a class id is an int, got {type(x).__name__} {_show(x)}")


def aggregate(
    data: Any,
    *,
    classes: Any = None,
    method: str = "pl",
    preset: Optional[str] = None,
    reliability: Optional[float] = None,
    samples: int = 1000,
    burn_in: int = 500,
    seed: int = 1,
    cases: Optional[Sequence[int]] = None,
    risks: Any = None,
    prior_shape: Optional[float] = None,
    prior_rate: float = 1.0,
    irn_ties: Optional[str] = None,
    prirn_zero: Optional[str] = None,
    plot_cases: Optional[Sequence[int]] = None,
) -> AggregateResult:
    """Aggregate experts' differential diagnoses into plausibilities.

    Stutz et al. 2023: ``method`` "pl" (Plackett-Luce posterior by Gibbs
    sampling, ``reliability`` = whole repetitions, default 3), "prirn"
    (Dirichlet around IRN, ``reliability`` = concentration, default 30) or
    "irn" (deterministic). Keyword arguments are the CLI's ``aggregate``
    flags; ``preset="paper"`` takes the reference code's choices. Each case
    draws from its own stream keyed by ``seed`` and the case id, so results
    do not depend on how cases are split (see
    :func:`plackett.distributed.aggregate`). ``to_json()`` gives the CLI's
    JSON; ``report(path)`` writes the HTML page of ``--report``, with a
    plot of the plausibility samples of each of ``plot_cases`` (the CLI's
    ``--plot-cases``; default: the first case).
    """
    sel = selectors(data, classes=classes)
    _check_counts(dict(samples=samples, burn_in=burn_in, seed=seed, cases=cases, plot_cases=plot_cases))
    return _plackett.aggregate(
        sel,
        method=method,
        preset=preset,
        reliability=reliability,
        samples=samples,
        burn_in=burn_in,
        seed=seed,
        cases=None if cases is None else _integers("cases", cases),
        risks=_risks_arg(risks),
        prior_shape=prior_shape,
        prior_rate=prior_rate,
        irn_ties=irn_ties,
        prirn_zero=prirn_zero,
        plot_cases=None if plot_cases is None else _integers("plot_cases", plot_cases),
    )


def _risks_arg(risks: Any) -> Any:
    if risks is None or isinstance(risks, str):
        return risks
    if hasattr(risks, "__fspath__"):
        import os

        return os.fsdecode(risks)
    arr = np.asarray(risks)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"risks: expected a path or integer risk levels, got dtype {arr.dtype}")
    arr = arr.ravel()
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(np.abs(arr) > 2**62):
        raise ValueError("invalid option risks: risk levels must be 0, 1 or 2")
    return [int(r) for r in arr]


def evaluate(
    data: Any,
    predictions: Any,
    *,
    k: Sequence[int] = (1, 2, 3),
    classes: Any = None,
    method: str = "pl",
    preset: Optional[str] = None,
    reliability: Any = None,
    samples: int = 1000,
    burn_in: int = 500,
    seed: int = 1,
    cases: Optional[Sequence[int]] = None,
    risks: Any = None,
    prior_shape: Optional[float] = None,
    prior_rate: float = 1.0,
    irn_ties: Optional[str] = None,
    prirn_zero: Optional[str] = None,
    report: Any = None,
) -> dict:
    """Uncertainty-adjusted evaluation (Stutz et al. 2023, §3).

    ``predictions``: an N x K array of model scores (one row per evaluated
    case, one column per class), a score file, or
    ``"annotator:leave-one-out"`` (each annotator against the aggregate of
    the others). ``reliability`` may be a list (a sweep, reported under
    ``by_reliability``). Returns the CLI's ``evaluate`` JSON document as a
    dict; ``json.dumps(result)`` reproduces its keys and numbers.
    ``report``: a path for the HTML page of ``--report`` (written only if
    the evaluation succeeds).
    """
    if report is not None:
        if not isinstance(report, (str, os.PathLike)):
            raise TypeError("report: expected a file path")
        report = os.fspath(report)
    sel = selectors(data, classes=classes)
    _check_counts(dict(samples=samples, burn_in=burn_in, seed=seed, cases=cases, k=k))
    if reliability is not None and not isinstance(reliability, (list, tuple, np.ndarray)):
        reliability = [reliability]
    if not isinstance(predictions, str):
        if hasattr(predictions, "__fspath__"):
            predictions = os.fsdecode(predictions)
        else:
            arr = np.asarray(predictions)
            if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
                raise TypeError(f"predictions: expected numeric scores, got dtype {arr.dtype}")
            predictions = np.ascontiguousarray(arr, dtype=np.float64)
    text = _plackett.evaluate(
        sel,
        predictions,
        k=[int(x) for x in k],
        method=method,
        preset=preset,
        reliability=None if reliability is None else _reals("reliability", reliability),
        samples=samples,
        burn_in=burn_in,
        seed=seed,
        cases=None if cases is None else _integers("cases", cases),
        risks=_risks_arg(risks),
        prior_shape=prior_shape,
        prior_rate=prior_rate,
        irn_ties=irn_ties,
        prirn_zero=prirn_zero,
        report=report,
    )
    return json.loads(text)


def _rows(rows: list):
    """A list of dicts as a pandas DataFrame when pandas is installed, else as is."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is optional
        return rows
    return pd.DataFrame(rows)


class KeywordResult:
    """Keyword probabilities of one document (VBSS, Hu 2024 ch. 1).

    ``candidates``: one row per candidate word, best first (a pandas
    DataFrame when pandas is installed, else a list of dicts) with ``stem``,
    ``words`` (the text's words it stands for, most frequent first),
    ``rank``, ``known``, ``selected``, ``p`` (the probability the FDR rule
    read), ``sd`` (posterior sd of the keyword probability Φ(a + bθ)),
    ``p_plugin``, ``p_predictive``, ``p_latent``, ``theta_mean``,
    ``theta_sd``, ``frequency`` (and, with ``baselines=True``, the
    baselines' scores on the same graph: ``textrank``, ``positionrank``
    (not for ``graph=True`` input) and ``ss``); ``selected``: the stems the
    Bayesian FDR rule kept; ``fdr`` (its level γ), ``iterations``, ``elbo``
    (VBSS; None for Gibbs), ``n_candidates``, ``known``; ``fit``: engine
    details (ELBO or MCMC diagnostics); ``converged``, ``notes``;
    ``phrases`` (text input; else None): the selected words' runs in the
    text collapsed into keyphrases, most frequent first, with ``phrase``,
    ``forms``, ``stems``, ``count``, ``p_min`` (the smallest ``p`` among its
    words) and ``known`` (all its words known);
    ``edges``: with ``edges=True``, the document's co-occurrence graph, one
    row per edge with ``source``, ``target``, ``weight`` (an isolated word
    as a weight-0 loop; ``networkx.from_pandas_edgelist(result.edges,
    edge_attr="weight")`` reads it, and ``extract_keywords(result.edges,
    known, graph=True)`` scores it again), else None; ``to_json()`` (the
    JSON of ``plackett keywords extract --output json``).
    """

    def __init__(self, payload: str):
        self._json = payload
        d = json.loads(payload)
        self.envelope: dict = {k: d[k] for k in ENVELOPE_KEYS}
        self.family: str = d["family"]
        self.engine: str = d["engine"]
        self.n_observations: int = d["n_observations"]
        self.diagnostics: dict = d["diagnostics"]
        self.n_candidates: int = d["n_candidates"]
        self.known: int = d["known"]
        self.fdr: float = d["fdr"]
        self.iterations: int = d["iterations"]
        self.elbo: Optional[float] = d["elbo"]
        self.probability: str = d["probability"]
        self.selected: list = d["selected"]
        self.fit: dict = d["fit"]
        self.converged: bool = d["converged"]
        self.notes: list = d["notes"]
        self.candidates = _rows(d["candidates"])
        self.edges = _rows(d["edges"]) if "edges" in d else None
        self.phrases = _rows(d["phrases"]) if "phrases" in d else None

    def to_json(self) -> str:
        """The document ``plackett keywords extract --output json`` prints."""
        return self._json

    def __repr__(self) -> str:
        return (
            f"KeywordResult({self.n_candidates} candidates, {self.known} known, "
            f"{len(self.selected)} selected at fdr={self.fdr})"
        )


def _edge_list(document: Any, name: str = "document") -> str:
    """A graph given as edges, as the CSV text ``--input graph`` reads: a
    str passes as is; a pandas DataFrame with columns ``source``,
    ``target`` and optionally ``weight``, or a list of ``(source, target)``
    or ``(source, target, weight)`` tuples, is written out."""
    if isinstance(document, str):
        return document
    if hasattr(document, "columns") and hasattr(document, "itertuples"):
        cols = list(document.columns)
        missing = [c for c in ("source", "target") if c not in cols]
        if missing:
            raise ValueError(f"{name}: the edge table needs columns source and target (missing {', '.join(missing)})")
        names = ["source", "target"] + (["weight"] if "weight" in cols else [])
        rows = list(document[names].itertuples(index=False, name=None))
    elif isinstance(document, Iterable) and not isinstance(document, (bytes, dict)):
        rows = [tuple(r) if isinstance(r, (tuple, list, np.ndarray)) else r for r in document]
        for i, r in enumerate(rows):
            if not isinstance(r, tuple) or len(r) not in (2, 3):
                raise TypeError(f"{name}[{i}]: expected a (source, target) or (source, target, weight) tuple")
    else:
        raise TypeError(f"{name}: with graph=True, expected edges (a DataFrame, a list of tuples, or CSV text)")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    # A header always: the reader takes a first record source,target[,weight]
    # for one, which would otherwise drop a first edge from a word "source"
    # to a word "target".
    w.writerow(["source", "target", "weight"] if rows and len(rows[0]) == 3 else ["source", "target"])
    for i, r in enumerate(rows):
        src, tgt = r[0], r[1]
        ends = []
        for field, v in (("source", src), ("target", tgt)):
            # Integer node names (networkx's usual) are named by their digits.
            if isinstance(v, numbers.Integral) and not isinstance(v, bool):
                v = str(int(v))
            if not isinstance(v, str):
                raise TypeError(f"{name}[{i}]: {field} must be a str or an int, got {type(v).__name__}")
            if not v.strip():
                raise ValueError(f"{name}[{i}]: {field} is empty")
            ends.append(v)
        src, tgt = ends
        if len(r) == 3:
            wt = r[2]
            if isinstance(wt, bool) or not isinstance(wt, numbers.Real):
                raise TypeError(f"{name}[{i}]: weight must be a number, got {type(wt).__name__}")
            if wt != wt:
                raise ValueError(
                    f"{name}[{i}]: weight is NaN (missing? give every edge a weight, e.g. edges.fillna({{'weight': 1}}))"
                )
            if not (0 <= wt < float("inf")):
                raise ValueError(f"{name}[{i}]: weight {wt!r} is not a finite non-negative number")
            w.writerow([src, tgt, repr(float(wt))])
        else:
            w.writerow([src, tgt])
    return out.getvalue()


def extract_keywords(
    document: Any,
    known: Any,
    *,
    tokens: bool = False,
    graph: bool = False,
    fdr: Optional[float] = None,
    engine: str = "vb",
    **options: Any,
) -> KeywordResult:
    """Keyword probabilities of a document given a few known keywords.

    ``document``: the text (run through the front-end: normalisation,
    part-of-speech filter, Porter stemming); with ``tokens=True``, the
    candidate sequence separated by white space; with ``graph=True``, your
    own weighted word graph — a pandas DataFrame with columns ``source``,
    ``target`` and optionally ``weight`` (e.g. ``networkx.to_pandas_edgelist(G)``
    or another result's ``edges``), a list of ``(source, target[,
    weight])`` tuples, or CSV text as ``--input graph`` reads — whose node
    names the known keywords then name verbatim. ``known``: keywords or
    keyphrases (a list, or one comma-separated string), stemmed like the
    text. ``fdr``: the FDR level γ of the selection (default 0.2; ``gamma``
    is an alias). ``engine``: "vb" (VBSS) or "gibbs" (the exact posterior
    of the same model). Every option of ``plackett keywords extract`` is a
    keyword argument with ``_`` for ``-``: ``probability`` ("latent",
    "plugin", "predictive", "forced"), ``prior_scale`` ("code",
    "dissertation"), ``theta_update``, ``alpha``, ``alpha_init``,
    ``window``, ``self_loops``, ``damping``, ``min_count``, ``word_filter``
    ("pos", "stopwords", "none"), ``tau``, ``sigma_a2``, ``sigma_b2``,
    ``tol``, ``max_iter``, ``samples``, ``burn_in``, ``chains``, ``seed``,
    ``covariance`` ("linear-response", the default: Giordano, Broderick &
    Jordan 2015's correction, whose sds are about two thirds of the exact
    posterior's; "mean-field": Hu 2024's VBSS, about a third);
    ``baselines``: score every candidate by TextRank, PositionRank and SS
    on the same graph as well (columns ``textrank``, ``positionrank``,
    ``ss``); ``edges``: return the co-occurrence graph (``result.edges``);
    ``report``: a path for the HTML page of ``--report`` (the candidates
    ranked by p with the FDR cut and the known keywords marked).
    See docs/keywords.md.
    """
    if "report" in options and options["report"] is not None:
        if not isinstance(options["report"], (str, os.PathLike)):
            raise TypeError("report: expected a file path")
        options["report"] = str(options["report"])
    if graph:
        if tokens:
            raise ValueError("tokens and graph: a document is one or the other")
        document = _edge_list(document)
    if not isinstance(document, str):
        raise TypeError("document: expected a str")
    fdr = _fdr_option(fdr, options)
    (payload,) = _plackett.extract_keywords(
        [document], [_known_list("known", known)], tokens=tokens, graph=graph, fdr=fdr, engine=engine,
        **options
    )
    return KeywordResult(payload)


def extract_keywords_many(
    documents: Sequence[Any],
    known: Sequence[Any],
    *,
    tokens: bool = False,
    graph: bool = False,
    fdr: Optional[float] = None,
    engine: str = "vb",
    **options: Any,
) -> list:
    """:func:`extract_keywords` for many documents at once, each with its
    own known keywords (``known[i]``: a list, or one comma-separated
    string), with the same options: a list of :class:`KeywordResult`, one
    per document, each equal to what :func:`extract_keywords` gives for that
    document alone (the same seed for the Gibbs engine), computed in
    parallel without holding the GIL. The first document that fails, in
    order, raises ``ValueError`` naming it (``documents[3]: known keyword
    …``). The same as ``plackett keywords batch``; see docs/keywords.md.
    """
    documents, known, fdr = _many_arguments(documents, known, tokens, graph, fdr, options)
    payloads = _plackett.extract_keywords(
        documents, known, tokens=tokens, graph=graph, fdr=fdr, engine=engine, batch=True, **options
    )
    return [KeywordResult(p) for p in payloads]


def _many_arguments(documents: Any, known: Any, tokens: bool, graph: bool, fdr: Optional[float],
                    options: dict) -> tuple:
    """The documents, known keywords and FDR level of
    :func:`extract_keywords_many` (and its Dask form), checked."""
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Iterable):
        raise TypeError("documents: expected a list of str")
    documents = list(documents)
    if graph:
        if tokens:
            raise ValueError("tokens and graph: a document is one or the other")
        documents = [_edge_list(d, f"documents[{k}]") for k, d in enumerate(documents)]
    for i, d in enumerate(documents):
        if not isinstance(d, str):
            raise TypeError(f"documents[{i}]: expected a str, got {type(d).__name__}")
    if isinstance(known, (str, bytes)) or not isinstance(known, Iterable):
        raise TypeError("known: expected one list of known keywords (or comma-separated str) per document")
    known = [_known_list(f"known[{i}]", k) for i, k in enumerate(known)]
    if len(known) != len(documents):
        raise ValueError(f"known: one entry per document ({len(documents)}), got {len(known)}")
    if options.get("report") is not None:
        raise TypeError("report: extract_keywords_many writes no report; use extract_keywords for one document")
    return documents, known, _fdr_option(fdr, options)


def _known_list(name: str, known: Any) -> list:
    """Known keywords as a list of str: a list, or one comma-separated str."""
    if isinstance(known, str):
        return known.split(",")
    if isinstance(known, Iterable) and not isinstance(known, (bytes, dict)):
        return [str(k) for k in known]
    raise TypeError(f"{name}: expected a list of keywords or a comma-separated str")


def _fdr_option(fdr: Optional[float], options: dict) -> Any:
    """``fdr`` or its alias ``gamma`` (default 0.2); checks ``options``'
    counts on the way."""
    if "first_index" in options:
        # The native layer's, for the Dask chunks' error messages only.
        raise TypeError("unexpected keyword argument 'first_index'")
    if "gamma" in options:
        if fdr is not None:
            raise TypeError("pass fdr or its alias gamma, not both")
        fdr = options.pop("gamma")
    _check_counts(options)
    return 0.2 if fdr is None else fdr


def tag_text(document: str, *, word_filter: str = "pos") -> list:
    """How the keyword front-end reads ``document``: a list of sentences,
    each a list of tokens ``{"word", "pos", "kept"}`` — the lower-cased
    word or punctuation mark, its Universal POS tag (``None`` for a word
    the tagger does not know, ``"PUNCT"`` for a mark) and whether the word
    filter (``word_filter``: "pos", "stopwords", "none") keeps it as a
    candidate. The same as ``plackett keywords tag --output json``.
    """
    if not isinstance(document, str):
        raise TypeError("document: expected a str")
    if not isinstance(word_filter, str):
        raise TypeError("word_filter: expected a str")
    return json.loads(_plackett.tag_text(document, word_filter=word_filter))


class KeywordEvaluation:
    """Hu 2024 §1.4's evaluation of keyword extraction on a corpus
    (``plackett keywords evaluate``).

    ``results``: one row per method and FDR level γ (a pandas DataFrame
    when pandas is installed, else a list of dicts) with ``method``,
    ``gamma``, ``k``, ``precision``, ``recall``, ``f``, ``forced``,
    ``realised_fdr``, ``selected`` (pooled over the documents);
    ``documents`` (kept), ``candidates``, ``keywords``; ``to_json()`` (the
    CLI's ``--output json`` document without its wall-clock fields).
    """

    def __init__(self, payload: str):
        self._json = payload
        d = json.loads(payload)
        self.documents: int = d["documents"]
        self.candidates: int = d["candidates"]
        self.keywords: int = d["keywords"]
        self.k: int = d["k"]
        self.results = _rows(d["results"])

    def to_json(self) -> str:
        """The document ``plackett keywords evaluate --output json`` prints."""
        return self._json

    def __repr__(self) -> str:
        return f"KeywordEvaluation({self.documents} documents, {self.candidates} candidates, k={self.k})"


def evaluate_keywords(corpus: Any, *, candidates: Any = None, **options: Any) -> KeywordEvaluation:
    """Evaluate VBSS and its baselines on a keyphrase corpus (Hu 2024 §1.4).

    ``corpus``: a folder with ``docsutf8/<id>.txt`` and ``keys/<id>.key``
    (SemEval-2010, Inspec and most keyphrase sets use this layout);
    ``candidates``: a folder of pre-computed candidate sequences (``docs/``
    + ``map.tsv``) instead of the front-end. Options as ``plackett keywords
    evaluate``'s flags with ``_`` for ``-``: ``known_count`` (5),
    ``gamma`` (a list of FDR levels), ``methods`` (comma-separated, besides
    VBSS: ``ss``, ``textrank``, ``positionrank``, ``tfidf``, ``bss``, and
    ``vbss-code``, VBSS as Hu 2024's published code computes it),
    ``forced`` (True: known keywords forced into the cut methods'
    selections, Table 1.5), ``min_count``, ``word_filter``,
    ``min_keywords``, ``seed``, ``draws`` (independent draws of the known
    keywords per document, pooled; 1), ``rates_from`` (``"vbss"``,
    ``"vbss-code"`` or ``"bss"``: whose selections set the cut methods'
    rates; with VBSS left out, the one other method that has them),
    ``no_vbss`` (leave VBSS out), ``keys`` (``"whole"`` or
    ``"split-dashes"``: how a keyphrase becomes keywords, the latter the
    Hu 2024 authors' rule), ``alpha_init`` (a probability, or
    ``"article"``: 1 − k/|K| per document), ``external`` (outside methods'
    scores as more columns: a mapping of names to JSON files
    ``{"<doc id>": [["phrase", score], …]}``, as ``--external NAME=FILE``;
    e.g. from ``bench/keywords_yake.py``), ``report`` (a path: the page of
    ``--report``, precision, recall and F against γ for every method,
    realised against nominal FDR, VBSS's time per document) and the model
    options of ``extract_keywords``. See docs/keywords.md.
    """
    if not isinstance(corpus, (str, os.PathLike)):
        raise TypeError("corpus: expected a folder path")
    if candidates is not None and not isinstance(candidates, (str, os.PathLike)):
        raise TypeError("candidates: expected a folder path")
    if "gamma" in options:
        g = options["gamma"]
        options["gamma"] = _reals("gamma", [g] if isinstance(g, (int, float)) else g)
    if isinstance(options.get("methods"), (list, tuple)):
        options["methods"] = ",".join(options["methods"])
    if options.get("external") is not None:
        ext = options["external"]
        if not isinstance(ext, Mapping) or not all(
            isinstance(k, str) and isinstance(v, (str, os.PathLike)) for k, v in ext.items()
        ):
            raise TypeError("external: expected a mapping of method names to JSON file paths")
        options["external"] = [(k, str(v)) for k, v in ext.items()]
    _check_counts(options)
    return KeywordEvaluation(
        _plackett.evaluate_keywords(
            str(corpus), candidates=None if candidates is None else str(candidates), **options
        )
    )


def _bags_source(data: Any) -> tuple:
    """(source, text) for the MIL readers: a path, or a pandas frame in the
    long layout (``bag, label, modality, m0_…, m1_…``) as CSV text. A
    boolean ``label`` column (``bool`` or pandas' nullable ``boolean``, a
    missing value for a bag to predict) reads as 1/0."""
    if isinstance(data, (str, os.PathLike)):
        return str(data), None
    if hasattr(data, "to_csv") and hasattr(data, "columns"):
        return "<DataFrame>", _bools_as_ints(data, ["label"]).to_csv(index=False)
    raise TypeError("data: expected a path (CSV or JSON bags) or a pandas DataFrame in the long layout")


def _standardize_alias(options: dict) -> dict:
    """``standardise`` (the British spelling MIL used first) as ``standardize``,
    the spelling of every command and function."""
    if "standardise" in options:
        if "standardize" in options:
            raise TypeError("standardize and standardise are the same option: give one")
        options["standardize"] = options.pop("standardise")
    return options


def mil_fit(data: Any, *, engine: str = "vb", **options: Any) -> MilFit:
    """Multiple-instance classification with two modalities (vMMIC, Hu 2024, ch. 2).

    ``data``: a path to bags (the long CSV ``bag,label,modality,m0_…,m1_…``
    or the JSON form) or a pandas DataFrame in the long layout.
    ``engine``: "vb" (vMMIC's coordinate ascent) or "gibbs" (the exact
    posterior of the same two-level probit model, the gold standard).
    Options as ``plackett mil fit``'s flags with ``_`` for ``-``:
    ``standardize`` (``standardise`` is accepted too), ``components`` (reduce each modality to its leading
    principal components; from its default start vMMIC does not need it,
    from ``vb_start="prior"`` on wide features such as Musk's it does),
    ``intercept_var``, ``slope_var``, ``tol``, ``max_iter``, ``starts``,
    ``mixture`` (fit this many vMMIC optima, the starts after the first
    drawn around it, and predict from their equal-weight mixture;
    ``--mixture``), ``vb_start`` ("marginal", the default: the mode of the bag labels'
    approximate marginal posterior with the primary indicators integrated
    out; "prior"; or "moments": the method-of-moments start of the
    instance slopes; ``--vb-start``), ``covariance`` ("linear-response", the
    default: the instance level's linear-response correction, Giordano,
    Broderick & Jordan 2015, about the exact posterior's scale; or
    "mean-field": Hu 2024's vMMIC, whose instance-level sds are about 1/25
    of the exact posterior's; ``--covariance``),
    ``gibbs_start`` ("marginal", the
    default, or "dispersed"; ``--gibbs-start``),
    ``samples``, ``burn_in``, ``thin``, ``chains``, ``seed``; Gibbs's
    parallel tempering: ``temperatures`` (rungs per chain, 1: none; or
    ``"auto"``: ⌈2Λ⌉ rungs for the communication barrier Λ measured during
    the burn-in), ``hottest`` (τ of the hottest rung), ``ladder``
    ("geometric" or "adaptive"); ``init``: a
    ``MilModel`` (e.g. a Gibbs fit's ``model()``) whose coefficient means
    start vMMIC's coordinate ascent, or around which every Gibbs chain
    starts (``--init``).
    The result has ``p`` (training bag
    probabilities), ``primary`` (each instance's posterior probability of
    being primary), ``model()`` (for ``predict``) and ``to_json()`` (the
    CLI's document). See docs/mil.md.
    """
    source, text = _bags_source(data)
    options = _standardize_alias(options)
    _check_counts(options)
    return _plackett.mil_fit(source, text, engine=engine, **options)


def mil_simulate(*, bags: int = 500, instances: int = 20, ratio: float = 4.0, ppi0: float = 0.35,
                 ppi1: float = 0.35, features: int = 16, alpha: float = 0.5, seed: int = 1):
    """Bags simulated from the design of Hu 2024 §2.3 (``plackett mil
    simulate``): ``bags`` bags of ``instances`` instances, an instance of
    modality 1 with probability 1/(``ratio`` + 1), mean primary-instance
    proportions ``ppi0`` and ``ppi1``, ``features`` features per modality,
    bag intercept ``alpha`` (MICProB's generator's 0.5; Hu 2024 does not
    give it). Returns the long table as a pandas DataFrame (``bag``,
    ``label``, ``modality``, ``m0_f1…``, ``m1_f1…``, and the true
    indicator ``primary``), the same numbers as the CLI's CSV for the same
    seed; bag ``i`` draws from its own stream, so the first bags do not
    depend on how many are drawn. ``mil_fit`` and ``mil_cv`` take it as it
    is (the ``primary`` column is the truth the fit's primary-instance
    AUROC is scored against).
    """
    import io

    import pandas as pd

    text = _plackett.mil_simulate(bags=_count("bags", bags), instances=_count("instances", instances),
                                  features=_count("features", features), seed=_count("seed", seed),
                                  ratio=_real("ratio", ratio), ppi0=_real("ppi0", ppi0), ppi1=_real("ppi1", ppi1),
                                  alpha=_real("alpha", alpha))
    # Exact floats: pandas 3's default parser round-trips; before it, ask.
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    return pd.read_csv(io.StringIO(text), dtype={"bag": str}, **exact)


def load_mil_model(path: str) -> MilModel:
    """A model written by ``plackett mil fit --out`` (or ``MilModel.to_json()``);
    ``model.predict(data)`` scores new bags as ``plackett mil predict``."""
    text = _read_text(path, "model")
    return _plackett.mil_model_from_json(os.fspath(path), text)


class MilCv:
    """Repeated k-fold cross-validation of bags (``plackett mil cv``): per
    method (the model first, then the baselines if asked), the held-out bag
    AUROC and the accuracy at 0.5 of every repeat, with the AUROC's mean and
    sd; every method ran on the same folds."""

    def __init__(self, document: str):
        self._json = document
        doc = json.loads(document)
        self.engine: str = doc["engine"]
        self.methods: list = doc["methods"]

    def to_json(self) -> str:
        """The document ``plackett mil cv --output json`` prints."""
        return self._json

    def to_frame(self):
        """One row per method: mean and sd of the bag AUROC over repeats,
        mean accuracy, and the held-out probabilities' log loss, Brier score
        (summed over both classes) and expected calibration error, every
        repeat pooled (needs pandas)."""
        import pandas as pd

        def cal(m, key):
            c = m.get("calibration")
            return float("nan") if c is None else c[key]

        return pd.DataFrame(
            [{"method": m["method"], "folds": m["folds"], "repeats": len(m["auroc"]),
              "mean_auroc": m["mean_auroc"], "sd_auroc": _nan_if_none(m["sd_auroc"]),
              "accuracy": sum(m["accuracy"]) / len(m["accuracy"]),
              "log_loss": cal(m, "log_loss"), "brier": cal(m, "brier"), "ece": cal(m, "ece")}
             for m in self.methods],
            columns=["method", "folds", "repeats", "mean_auroc", "sd_auroc", "accuracy",
                     "log_loss", "brier", "ece"])

    def __repr__(self) -> str:
        names = ", ".join(f"{m['method']} {m['mean_auroc']:.3f}" for m in self.methods)
        return f"MilCv({names})"


def mil_cv(data: Any, *, engine: str = "vb", baselines: bool = False, folds: int = 10,
           repeats: int = 1, **options: Any) -> MilCv:
    """Repeated ``folds``-fold cross-validation of labelled bags, as ``plackett
    mil cv``: folds stratified by label, the held-out scores of a repeat's
    folds pooled into one bag AUROC. ``baselines=True`` adds MILR (Chen et
    al. 2017) and single-instance logistic regression on the same folds.
    ``data`` and the other options as :func:`mil_fit` (``standardize``,
    ``components``, priors, engine settings, ``seed``), plus ``draws``
    (Monte Carlo draws per held-out bag, 500) and ``report`` (a path: the
    page of ``mil cv --report``, with every method's held-out ROC curve and
    calibration). See docs/mil.md.
    """
    source, text = _bags_source(data)
    options = _standardize_alias(options)
    _check_counts({**options, "folds": folds, "repeats": repeats})
    return MilCv(_plackett.mil_cv(source, text, engine=engine, baselines=baselines,
                                  folds=folds, repeats=repeats, **options))


class MilStudy:
    """The simulation study of Hu 2024 §2.3 (``plackett mil study``): per
    setting (``factor``, ``level``) and method, the held-out bag AUROC of
    every replicate (Fig. 2.2), the primary-instance AUROC (Fig. 2.4) and
    the seconds to fit (Fig. 2.3), with their means."""

    def __init__(self, document: str):
        self._json = document
        doc = json.loads(document)
        self.replicates: int = doc["replicates"]
        self.test_bags: int = doc["test_bags"]
        self.seed: int = doc["seed"]
        self.cells: list = doc["cells"]

    def to_json(self) -> str:
        """The document ``plackett mil study --output json`` prints."""
        return self._json

    def to_frame(self):
        """One row per setting and method with the means (needs pandas)."""
        import pandas as pd

        cols = ["factor", "level", "method", "mean_bag_auroc", "sd_bag_auroc",
                "mean_primary_auroc", "mean_seconds"]
        return pd.DataFrame([{k: (_nan_if_none(c[k]) if k == "sd_bag_auroc" else c[k]) for k in cols}
                             for c in self.cells], columns=cols)

    def __repr__(self) -> str:
        return f"MilStudy({len(self.cells)} cells, {self.replicates} replicates)"


def _nan_if_none(x: Any) -> Any:
    """A statistic the document leaves null (an sd over one repeat) as NaN
    in a numeric column."""
    return float("nan") if x is None else x


def mil_study(*, factors: str = "basic", methods: str = "vmmic,milr,si-mean,si-max",
              **options: Any) -> MilStudy:
    """Hu 2024 §2.3's simulation study (Figs. 2.2–2.4), as ``plackett mil study``.

    ``factors``: comma-separated ``basic``, ``bags``, ``instances``,
    ``ratio``, ``ppi1`` or ``all``; ``methods``: comma-separated ``vmmic``,
    ``gibbs``, ``milr``, ``si-mean``, ``si-max``. Other options as the
    command's flags with ``_`` for ``-``: ``replicates`` (20),
    ``test_bags`` (300), ``max_bags``, ``draws``, ``seed`` and the engine
    settings of :func:`mil_fit`. See docs/mil.md.
    """
    _check_counts(options)
    return MilStudy(_plackett.mil_study(factors=factors, methods=methods, **options))


# The scikit-learn estimators load on first use: importing scikit-learn
# takes seconds, and `import plackett` should not pay for it (PEP 562).
_LAZY = {
    "ClassifierPath": "._classifier",
    "PLClassifier": "._classifier",
    "classify_path": "._classifier",
    "MILClassifier": "._mil",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'plackett' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))
