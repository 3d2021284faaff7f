"""Scale-out on Dask: many independent fits, and one fit over sharded data.

Both functions run the same Rust code as the single-process calls; Dask
only moves chunks and statistics. On a laptop use
``distributed.LocalCluster``; on a cluster, dask-kubernetes or
dask-jobqueue. Set ``RAYON_NUM_THREADS`` in the workers' environment to the
threads each worker process should use (1 with one process per core).

* :func:`aggregate` splits the cases of a selectors dataset into chunks of
  at least 100 (one case costs less than a task's overhead), aggregates each
  chunk on a worker, and joins the chunks. Every case draws from its own
  random stream keyed by the seed and its case id, so the result equals the
  single-process :func:`plackett.aggregate` bit for bit, whatever the
  partitioning.
* :func:`extract_keywords` scores many documents' keywords (VBSS, Hu
  2024 ch. 1) in chunks on the workers: every document runs exactly as
  :func:`plackett.extract_keywords` runs it alone (the Gibbs engine with
  the same seed), so the results equal :func:`plackett.extract_keywords_many`
  whatever the chunking.
* :func:`fit` fits one Plackett-Luce MLE, MAP or VB posterior to rankings held in a
  ``dask.bag`` or ``dask.dataframe``. Each partition becomes a shard on its
  worker. Identical rankings are first collapsed into weighted rows (exact,
  and mergeable across shards); if the distinct rows fit on the driver
  (``collapse_limit``) the fit runs there, with everything
  :func:`plackett.fit` reports. Otherwise the shards stay on the workers and
  the driver runs Hunter's MM with SQUAREM on their summed sufficient
  statistics (stage wins, in-play coefficients), the same iteration as the
  single-machine engine; the MLE's existence is checked on the union of the
  shards' reachability skeletons. VB runs its coordinate ascent on the
  same summed sweeps and reads its linear-response covariance from the
  shards' summed observed information.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from ._checks import native as _plackett
from ._checks import count, plain, show
from . import KeywordResult, _many_arguments
from . import aggregate as _aggregate_local
from . import rankings as _rankings
from . import selectors as _selectors

__all__ = ["aggregate", "extract_keywords", "fit"]

_MIN_CHUNK = 100


def _client(client: Any):
    if client is not None:
        return client
    try:
        from distributed import get_client
    except ImportError as e:  # pragma: no cover
        raise ImportError("plackett.distributed needs dask.distributed: pip install 'dask[distributed]'") from e
    return get_client()


def _n_workers(client: Any) -> int:
    try:
        return max(1, len(client.scheduler_info()["workers"]))
    except Exception:  # pragma: no cover - scheduler without the key
        return 1


def _aggregate_chunk(chunk, cases, kwargs):
    return _plackett.aggregate(chunk, cases=cases, **kwargs)


def aggregate(
    data: Any,
    *,
    client: Any = None,
    chunk_size: Optional[int] = None,
    classes: Any = None,
    cases: Optional[Sequence[int]] = None,
    **kwargs: Any,
):
    """:func:`plackett.aggregate` over a Dask cluster.

    ``data``, ``classes``, ``cases`` and the other keyword arguments are
    those of :func:`plackett.aggregate`; ``client`` is a
    ``distributed.Client`` (default: the current one); ``chunk_size`` the
    cases per task (default: at least 100, about four tasks per worker).
    Returns the same :class:`plackett.AggregateResult` as the
    single-process call, bit for bit.
    """
    client = _client(client)
    sel = _selectors(data, classes=classes)
    order = list(range(len(sel))) if cases is None else [count("cases", c, lenient=True) for c in cases]
    if cases is not None:
        bad = [c for c in order if not 0 <= c < len(sel)]
        if bad:
            raise ValueError(f"invalid option cases: case {bad[0]} out of range (the data have {len(sel)} cases)")
    if not order:
        return _aggregate_local(sel, cases=[], **kwargs)
    if chunk_size is None:
        chunk_size = max(_MIN_CHUNK, math.ceil(len(order) / (4 * _n_workers(client))))
    chunk_size = count("chunk_size", chunk_size, lenient=True)
    if chunk_size < 1:
        raise ValueError(f"invalid option chunk_size: expected at least 1, got {chunk_size}")
    # Check the settings once, on the driver, so errors are raised here.
    _aggregate_local(sel, cases=order[:1], **{**kwargs, "samples": 1})
    futures = []
    for k in range(0, len(order), chunk_size):
        piece = order[k : k + chunk_size]
        lo, hi = min(piece), max(piece) + 1
        # A chunk keeps its cases' ids, hence their streams and results.
        chunk = sel.chunk(lo, hi)
        futures.append(client.submit(_aggregate_chunk, chunk, [c - lo for c in piece], kwargs, pure=False))
    parts = client.gather(futures)
    return _plackett.AggregateResult.concat(parts)


# -- keywords of many documents ----------------------------------------------

#: Documents per task at the least (a short abstract costs about a
#: millisecond, less than a task's overhead).
_MIN_DOCUMENTS = 16


def _extract_chunk(documents, known, first, kwargs):
    return _plackett.extract_keywords(documents, known, batch=True, first_index=first, **kwargs)


def extract_keywords(
    documents: Sequence[Any],
    known: Sequence[Any],
    *,
    client: Any = None,
    chunk_size: Optional[int] = None,
    tokens: bool = False,
    graph: bool = False,
    fdr: Optional[float] = None,
    engine: str = "vb",
    **options: Any,
) -> list:
    """:func:`plackett.extract_keywords_many` over a Dask cluster.

    ``documents``, ``known`` and the other keyword arguments are those of
    :func:`plackett.extract_keywords_many`; ``client`` is a
    ``distributed.Client`` (default: the current one); ``chunk_size`` the
    documents per task (default: at least 16, about four tasks per worker).
    Returns the same list of :class:`plackett.KeywordResult`, one per
    document in order, each equal to the single-process result but for its
    timing; the first document that fails, in order, raises ``ValueError``
    naming it (``documents[i]``, its place in the whole list).
    """
    client = _client(client)
    documents, known, fdr = _many_arguments(documents, known, tokens, graph, fdr, options)
    if not documents:
        return []
    if chunk_size is None:
        chunk_size = max(_MIN_DOCUMENTS, math.ceil(len(documents) / (4 * _n_workers(client))))
    chunk_size = count("chunk_size", chunk_size, lenient=True)
    if chunk_size < 1:
        raise ValueError(f"invalid option chunk_size: expected at least 1, got {chunk_size}")
    kwargs = dict(tokens=tokens, graph=graph, fdr=fdr, engine=engine, **options)
    futures = [
        client.submit(_extract_chunk, documents[k : k + chunk_size], known[k : k + chunk_size], k, kwargs,
                      pure=False)
        for k in range(0, len(documents), chunk_size)
    ]
    # In order, so that the earliest failing document is the one named.
    payloads = []
    for f in futures:
        payloads.extend(f.result())
    return [KeywordResult(p) for p in payloads]


# -- one fit over sharded rankings -------------------------------------------


def _partitions(data: Any):
    """Delayed partitions of a dask bag, data frame or 2-d array, and whether
    they are frames."""
    if hasattr(data, "to_delayed") and hasattr(data, "chunks") and getattr(data, "ndim", 0) == 2:
        # A dask array of rankings (rows of item ids), chunked by rows only.
        if len(data.chunks[1]) != 1:
            raise ValueError("a dask array of rankings must be chunked by rows only (rechunk({1: -1}))")
        return list(data.to_delayed().ravel()), False
    if hasattr(data, "to_delayed") and hasattr(data, "npartitions"):
        frame = hasattr(data, "columns")
        return data.to_delayed(), frame
    raise TypeError(
        f"plackett.distributed.fit: expected a dask.bag of rankings or a dask.dataframe (ranking, rank, item[, weight]), got {type(data).__name__}"
    )


def _check_rankings_within_partitions(data, ranking_col, client):
    """Each partition is read on its own, so a ranking whose rows lie in two
    partitions would be read as two rankings (its top and its tail) and fit
    without a word: refuse it. One distributed pass over the ids: each
    partition's distinct ids, counted across partitions."""
    if ranking_col not in data.columns:
        raise ValueError(f"data frame has no column {show(ranking_col)} (columns: {list(data.columns)})")
    ids = data[ranking_col]
    distinct = ids.map_partitions(lambda s: s.drop_duplicates(), meta=ids._meta)
    counts = distinct.value_counts()
    spanning = counts[counts > 1]
    n, first = client.gather(client.compute([spanning.size, spanning.head(1, npartitions=-1, compute=False)]))
    if n:
        raise ValueError(
            f"ranking {show(plain(first.index[0]))} has rows in more than one partition ({int(n)} rankings do): each partition is "
            f"read on its own, so a ranking must lie within one; repartition by ranking, e.g. "
            f"data.shuffle(on={show(ranking_col)})"
        )


def _labels_of_part(part, frame, item_col):
    if frame:
        return set(part[item_col].tolist())
    if isinstance(part, np.ndarray):
        return set(np.unique(part).tolist())
    out = set()
    for r in part:
        for e in r:
            if isinstance(e, (list, tuple, set, frozenset, np.ndarray)):
                out.update(e)
            else:
                out.add(e)
    return out


def _key(x):
    return (0, int(x), "") if isinstance(x, (int, np.integer)) and not isinstance(x, bool) else (1, 0, str(x))


def _read_shard(part, frame, items, ties, top_k, cols):
    data = part if frame or isinstance(part, np.ndarray) else list(part)
    ranking_col, rank_col, item_col, weight_col = cols
    return _rankings(
        data,
        items=items,
        ties=ties,
        top_k=top_k,
        ranking_col=ranking_col,
        rank_col=rank_col,
        item_col=item_col,
        weight_col=weight_col,
    )


def _shard_summary(shard, need_skeleton):
    wins = _plackett.shard_wins(shard)
    skel = _plackett.shard_skeleton(shard) if need_skeleton else None
    return wins, skel, shard.total_weight


def _own(a: Any, dtype: Any) -> np.ndarray:
    """An array gathered from a worker, as an aligned C-contiguous copy
    (Dask may hand back views into message frames that are not aligned)."""
    return np.require(a, dtype=dtype, requirements=["C", "A", "O"])


def _shard_sweep(shard, lam, log_lam):
    return _plackett.shard_sweep(shard, lam, log_lam)


def _shard_information(shard, theta):
    return _plackett.shard_information(shard, theta)


def fit(
    data: Any,
    engine: str = "mle",
    *,
    client: Any = None,
    items: Optional[Sequence[Any]] = None,
    ties: str = "unknown",
    top_k: bool = False,
    prior: Optional[dict] = None,
    collapse_limit: int = 2_000_000,
    tol: Optional[float] = None,
    max_iter: Optional[int] = None,
    ranking_col: str = "ranking",
    rank_col: str = "rank",
    item_col: str = "item",
    weight_col: Optional[str] = "weight",
    **kwargs: Any,
):
    """One MLE, MAP or VB fit over rankings spread across a Dask cluster.

    ``data`` is a ``dask.bag`` whose elements are rankings (lists of items,
    best first, nested lists for tied groups, as :func:`plackett.rankings`)
    or a ``dask.dataframe`` in long form (``ranking``, ``rank``, ``item``
    [, ``weight``]; a ranking must lie within one partition — checked, as
    ``dd.from_pandas`` and ``dd.read_csv`` cut frames by rows, not by
    ranking: ``data.shuffle(on="ranking")`` makes it so). ``items`` fixes the
    universe and its order (default: every item seen, ids in numeric order,
    then names in lexicographic order). ``prior`` is ``{"shape": a, "rate":
    b}`` for ``engine="map"`` and ``"vb"`` (Gamma on worths).

    Identical rankings are collapsed into weighted rows on the workers;
    when at most ``collapse_limit`` distinct rows remain, the driver fits
    them with :func:`plackett.fit` (standard errors included; extra keyword
    arguments go there) and returns its :class:`plackett.FitResult`.
    Otherwise the shards stay on the workers and the driver iterates on
    their sufficient statistics, returning a :class:`ShardedFit` (estimates,
    log-likelihood, iterations; no standard errors). Either way the
    estimates equal the single-machine fit of the same data to 1e-8.

    ``engine="vb"`` (mean-field VB with its linear-response covariance,
    as :func:`plackett.fit`): on the sharded path the driver runs the same
    coordinate ascent on the shards' summed sweeps, the covariance from
    their summed observed information, and returns a
    :class:`plackett.FitResult` (sds, intervals, draws, ``compare``;
    ``draws``, ``seed`` and ``covariance`` apply) equal to the
    single-machine fit to 1e-8. ``gibbs`` and ``ep`` run on the collapsed
    path only.
    """
    from . import fit as _fit_local

    if engine not in ("mle", "map", "vb", "gibbs", "ep"):
        raise ValueError(f'invalid option engine: expected mle, map, vb, gibbs or ep, got {show(engine)}')
    collapse_limit = count("collapse_limit", collapse_limit, lenient=True)
    client = _client(client)
    parts, frame = _partitions(data)
    cols = (ranking_col, rank_col, item_col, weight_col)
    if frame:
        _check_rankings_within_partitions(data, ranking_col, client)
    if items is None:
        import dask

        label_sets = client.compute([dask.delayed(_labels_of_part)(p, frame, item_col) for p in parts])
        labels = set().union(*client.gather(label_sets))
        items = sorted(labels, key=_key)
    items = [str(x) for x in items]
    import dask

    shards = client.compute([dask.delayed(_read_shard)(p, frame, items, ties, top_k, cols) for p in parts])
    # Collapse on the workers; bring the rows home only if they fit.
    collapsed = client.map(lambda s: s.collapse(), shards, pure=False)
    sizes = client.gather(client.map(lambda c: c.n_observations, collapsed, pure=False))
    shape, rate = 2.0, 1.0
    if prior is not None:
        p = dict(prior)
        shape = float(p.pop("shape", shape))
        rate = float(p.pop("rate", rate))
        if p:
            raise ValueError(f"prior: unknown keys {sorted(p)} (a sharded MAP takes a Gamma prior: shape, rate)")
    if sum(sizes) <= int(collapse_limit):
        rows = _plackett.collapse(client.gather(collapsed))
        local_prior = None if engine == "mle" else {"shape": shape, "rate": rate}
        given = {k: v for k, v in (("tol", tol), ("max_iter", max_iter)) if v is not None}
        return _fit_local(rows, engine, prior=local_prior, **given, **kwargs)
    if engine in ("gibbs", "ep"):
        raise ValueError(
            f"invalid option engine: {engine} is not yet supported on shards ({sum(sizes)} distinct rows, "
            f"collapse_limit {collapse_limit}); raise collapse_limit, or use vb, mle or map"
        )
    vb_options = ("draws", "seed", "covariance")
    extra = sorted(k for k in kwargs if engine != "vb" or k not in vb_options)
    if extra:
        raise ValueError(
            f"options {extra} apply to the collapsed path only (the sharded iteration takes tol, max_iter, "
            f"prior{', draws, seed, covariance' if engine == 'vb' else ''})"
        )
    # Iterate on the shards' statistics; the collapsed shards stay put.
    del shards
    tol = 1e-10 if tol is None else tol
    max_iter = 100_000 if max_iter is None else max_iter
    summaries = client.gather(client.map(_shard_summary, collapsed, need_skeleton=engine == "mle", pure=False))
    skeleton = [_own(s[1], np.uint32) for s in summaries] if engine == "mle" else None
    total_weight = float(sum(s[2] for s in summaries))

    def sweep(lam, log_lam):
        # hash=False: a point the iteration evaluates twice must not meet
        # its own content-keyed future while Dask releases it.
        lam_f = client.scatter(lam, broadcast=True, hash=False)
        log_f = client.scatter(log_lam, broadcast=True, hash=False)
        fs = [client.submit(_shard_sweep, c, lam_f, log_f, pure=False) for c in collapsed]
        return [(_own(d, np.float64), float(ll)) for d, ll in client.gather(fs)]

    if engine == "vb":

        def information(theta):
            # hash=False: θ equals the last sweep's log-worths, whose
            # content-keyed future may be on its way out.
            theta_f = client.scatter(theta, broadcast=True, hash=False)
            fs = [client.submit(_shard_information, c, theta_f, pure=False) for c in collapsed]
            total = None
            for part in client.gather(fs):  # summed in shard order
                total = _own(part, np.float64) if total is None else total + part
            return total

        return _plackett.fit_sharded_vb(
            items,
            [_own(s[0], np.float64) for s in summaries],
            sweep,
            information,
            prior_shape=shape,
            prior_rate=rate,
            tol=tol,
            max_iter=max_iter,
            n_rows=int(sum(sizes)),
            total_weight=total_weight,
            **{k: kwargs[k] for k in vb_options if k in kwargs},
        )

    return _plackett.fit_sharded(
        items,
        [_own(s[0], np.float64) for s in summaries],
        sweep,
        engine=engine,
        skeleton=skeleton,
        prior_shape=shape,
        prior_rate=rate,
        tol=tol,
        max_iter=max_iter,
        total_weight=total_weight,
    )
