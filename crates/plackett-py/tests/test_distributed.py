"""The Dask path: a 2-worker LocalCluster gives the single-process results."""
import json
import os

import numpy as np
import pytest

import plackett

distributed = pytest.importorskip("distributed")
db = pytest.importorskip("dask.bag")
import plackett.distributed as pdist  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DERM = os.path.join(ROOT, "data", "dermatology-ddx")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, env={"RAYON_NUM_THREADS": "1"}) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def test_distributed_aggregate_equals_single_process(client):
    sel = plackett.selectors(os.path.join(DERM, "dermatology_selectors.json"),
                             classes=os.path.join(DERM, "dermatology_conditions.txt"))
    cases = list(range(230))
    one = plackett.aggregate(sel, cases=cases, samples=300, seed=11)
    many = pdist.aggregate(sel, client=client, cases=cases, samples=300, seed=11)
    assert many.to_json() == one.to_json()
    odd = [5, 200, 3, 150, 151, 7] * 20
    a = pdist.aggregate(sel, client=client, cases=odd, chunk_size=100, samples=100, method="prirn")
    b = plackett.aggregate(sel, cases=odd, samples=100, method="prirn")
    assert a.to_json() == b.to_json()
    with pytest.raises(ValueError, match="samples"):
        pdist.aggregate(sel, client=client, samples=0)


def simulated(n_items=25, n_rankings=3000, k=6, seed=4):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=n_items)
    out = []
    for _ in range(n_rankings):
        g = w + rng.gumbel(size=n_items)
        sub = rng.choice(n_items, size=k, replace=False)
        out.append([int(i) for i in sub[np.argsort(-g[sub])]])
    return out


@pytest.mark.parametrize("collapse_limit", [10**9, 0])
@pytest.mark.parametrize("engine", ["mle", "map"])
def test_sharded_fit_equals_single_machine(client, engine, collapse_limit):
    ranks = simulated()
    bag = db.from_sequence(ranks, npartitions=4)
    names = [str(i) for i in range(25)]
    local = plackett.fit(plackett.rankings(ranks, items=names), engine)
    got = pdist.fit(bag, engine, client=client, collapse_limit=collapse_limit)
    assert got.items == names
    np.testing.assert_allclose(np.asarray(got.log_worth), local.log_worth, atol=1e-8, rtol=0)
    assert abs(got.log_likelihood - local.log_likelihood) < 1e-6
    # The table and the JSON carry the single-machine fit's keys.
    mine, theirs = got.summary(), local.summary()
    assert list(mine.index) == list(theirs.index)
    for key in ("worth", "log_worth"):
        np.testing.assert_allclose(np.asarray(mine[key]), np.asarray(theirs[key]), atol=1e-8, rtol=0)
    doc, ref = json.loads(got.to_json()), json.loads(local.to_json())
    for key in ("engine", "n_items", "converged"):
        assert doc[key] == ref[key], key
    assert abs(doc["log_likelihood"] - ref["log_likelihood"]) < 1e-6
    for a, b in zip(doc["items"], ref["items"]):
        assert a["name"] == b["name"] and abs(a["log_worth"] - b["log_worth"]) < 1e-8
        assert abs(a["worth"] - b["worth"]) < 1e-8


@pytest.mark.parametrize("collapse_limit", [10**9, 0])
@pytest.mark.parametrize("covariance", ["linear-response", "mean-field"])
def test_sharded_vb_equals_single_machine(client, collapse_limit, covariance):
    ranks = simulated(n_items=15, n_rankings=2000, k=5, seed=9)
    bag = db.from_sequence(ranks, npartitions=4)
    names = [str(i) for i in range(15)]
    local = plackett.fit(plackett.rankings(ranks, items=names), "vb", prior={"shape": 3, "rate": 2},
                         covariance=covariance, seed=5, draws=500)
    got = pdist.fit(bag, "vb", client=client, collapse_limit=collapse_limit, prior={"shape": 3, "rate": 2},
                    covariance=covariance, seed=5, draws=500)
    assert type(got) is type(local) and got.items == names
    np.testing.assert_allclose(got.log_worth, local.log_worth, atol=1e-8, rtol=0)
    np.testing.assert_allclose(got.sd, local.sd, atol=1e-8, rtol=0)
    np.testing.assert_allclose(got.ci_low, local.ci_low, atol=1e-8, rtol=0)
    assert abs(got.elbo - local.elbo) < 1e-6
    assert got.draws.shape == local.draws.shape == (1, 500, 15)
    assert got.notes == local.notes
    assert (got.vcov is None) == (covariance == "mean-field")
    if got.vcov is not None:
        np.testing.assert_allclose(got.vcov, local.vcov, atol=1e-10, rtol=0)
    assert got.compare("3", "0") == pytest.approx(local.compare("3", "0"), abs=1e-8)


@pytest.mark.parametrize("engine, kw", [("gibbs", dict(samples=200, burn_in=100, chains=2)), ("ep", {})])
def test_distributed_gibbs_and_ep_run_on_collapsed_rows_only(client, engine, kw):
    ranks = simulated(n_items=6, n_rankings=600, k=3, seed=2)
    bag = db.from_sequence(ranks, npartitions=3)
    names = [str(i) for i in range(6)]
    local = plackett.fit(plackett.rankings(ranks, items=names).collapse(), engine, **kw)
    got = pdist.fit(bag, engine, client=client, **kw)
    np.testing.assert_allclose(got.log_worth, local.log_worth, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got.sd, local.sd, atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match=f"{engine} is not yet supported on shards"):
        pdist.fit(bag, engine, client=client, collapse_limit=0, **kw)


def test_sharded_data_frame_and_collapse(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    base = [["a", "b", "c"], ["b", "a", "c"], ["c", "a", "b"], ["a", "c", "b"]]
    ranks = [base[i % 4] for i in range(400)]
    rows = [(r, k + 1, it) for r, rk in enumerate(ranks) for k, it in enumerate(rk)]
    df = pd.DataFrame(rows, columns=["ranking", "rank", "item"])
    ddf = dd.from_pandas(df, npartitions=4, sort=False)
    got = pdist.fit(ddf, "mle", client=client)
    local = plackett.fit(ranks, "mle")
    np.testing.assert_allclose(got.log_worth, local.log_worth, atol=1e-10)
    np.testing.assert_allclose(got.se, local.se, atol=1e-10)
    assert plackett.rankings(ranks).collapse().n_observations == 4


def test_a_ranking_across_partitions_is_refused(client):
    """A frame cut by rows can split a ranking between partitions, and each
    partition is read on its own: its top and its tail would be fit as two
    rankings (log-worths off by 0.02 on these data). The fit refuses it and
    says how to repartition; shuffled by ranking, it equals the
    single-machine fit."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(3)
    ranks = [list(rng.permutation(list("abcdefgh"))[:5]) for _ in range(300)]
    rows = [(r, k + 1, it) for r, rk in enumerate(ranks) for k, it in enumerate(rk)]
    df = pd.DataFrame(rows, columns=["ranking", "rank", "item"])
    cut = dd.from_pandas(df, npartitions=7, sort=False)
    with pytest.raises(ValueError, match=r"^ranking \d+ has rows in more than one partition \(\d+ rankings do\).*shuffle\(on='ranking'\)"):
        pdist.fit(cut, "mle", client=client)
    got = pdist.fit(cut.shuffle(on="ranking"), "mle", client=client)
    local = plackett.fit(ranks, "mle")
    want = dict(zip(local.items, local.log_worth))
    np.testing.assert_allclose(got.log_worth, [want[i] for i in got.items], atol=1e-8)
    with pytest.raises(ValueError, match="has no column 'judge'"):
        pdist.fit(dd.from_pandas(df, npartitions=2, sort=False), "mle", client=client, ranking_col="judge")


@pytest.mark.parametrize("collapse_limit", [10**9, 0])
def test_sharded_top_k_mle_equals_single_machine(client, collapse_limit):
    # Top-3 lists of 12 items: the unlisted nine lose to the listed three;
    # the sharded existence check routes those edges through the skeleton.
    rng = np.random.default_rng(8)
    w = rng.normal(size=12)
    ranks = []
    for _ in range(2000):
        g = w + rng.gumbel(size=12)
        ranks.append([int(i) for i in np.argsort(-g)[:3]])
    names = [str(i) for i in range(12)]
    local = plackett.fit(plackett.rankings(ranks, items=names, top_k=True), "mle")
    bag = db.from_sequence(ranks, npartitions=4)
    got = pdist.fit(bag, "mle", client=client, items=names, top_k=True, collapse_limit=collapse_limit)
    np.testing.assert_allclose(np.asarray(got.log_worth), local.log_worth, atol=1e-8, rtol=0)
    assert abs(got.log_likelihood - local.log_likelihood) < 1e-6
    # Item 11 never listed: it never wins, and the sharded fit says so.
    short = [r for r in ranks if 11 not in r]
    with pytest.raises(ValueError, match="maximum-likelihood estimate does not exist.*11"):
        plackett.fit(plackett.rankings(short, items=names, top_k=True), "mle")
    bag = db.from_sequence(short, npartitions=4)
    with pytest.raises(ValueError, match="maximum-likelihood estimate does not exist.*11"):
        pdist.fit(bag, "mle", client=client, items=names, top_k=True, collapse_limit=0)


def test_sharded_mle_that_does_not_exist_is_refused(client):
    ranks = [[0, 1], [1, 0], [2, 3], [3, 2], [0, 2]] * 10
    bag = db.from_sequence(ranks, npartitions=3)
    with pytest.raises(ValueError, match="MLE|maximum likelihood|strongly|never"):
        pdist.fit(bag, "mle", client=client, collapse_limit=0)


@pytest.mark.parametrize("options, name", [
    ({"chunk_size": -1}, "chunk_size"), ({"chunk_size": float("inf")}, "chunk_size"),
    ({"cases": [0, -2]}, "cases"), ({"cases": [float("nan")]}, "cases"), ({"seed": -1}, "seed"),
])
def test_distributed_aggregate_names_a_bad_count(client, options, name):
    sel = plackett.selectors([[[[0], [1, 2]], [[1]]], [[[2]], [[2, 0]]]])
    with pytest.raises(ValueError, match=f"^{name}:"):
        pdist.aggregate(sel, client=client, samples=10, **options)


@pytest.mark.parametrize("limit", [-1, 2**64, float("nan")])
def test_sharded_fit_names_a_bad_collapse_limit(client, limit):
    bag = db.from_sequence([[0, 1], [1, 0]], npartitions=1)
    with pytest.raises(ValueError, match="^collapse_limit:"):
        pdist.fit(bag, "mle", client=client, collapse_limit=limit)


def _keyword_documents():
    """Short documents, each with known keywords it contains."""
    topics = ["ranking model", "keyword graph", "posterior worth", "bag instance", "choice item"]
    docs, known = [], []
    for k in range(11):
        a, b = topics[k % 5].split()
        c, d = topics[(k + 2) % 5].split()
        docs.append(f"The {a} {b} study: a {a} shapes every {b}. Each {c} meets a {d}, and the "
                    f"{a} of a {d} decides. {b.capitalize()} and {c} data, {a} {b} again, {d} {c}.")
        known.append([a, d])
    # Two longer texts, whose priors' eigendecompositions are large enough
    # for faer to split (their bits once depended on the thread count, and
    # the workers run one thread each).
    for name, k in (("ranking_models.txt", ["Plackett-Luce", "posterior", "worth"]),
                    ("keyword_extraction.txt", ["keyword", "graph", "posterior"])):
        with open(os.path.join(ROOT, "data", "text", name), encoding="utf-8") as f:
            docs.insert(3, f.read())
        known.insert(3, k)
    return docs, known


def _comparable(payload):
    d = json.loads(payload)
    d.pop("seconds", None)
    return d


@pytest.mark.parametrize("engine, extra", [("vb", {}), ("gibbs", dict(samples=100, burn_in=50, chains=2))])
@pytest.mark.parametrize("chunk_size", [None, 1, 4])
def test_distributed_keywords_equal_single_process(client, engine, extra, chunk_size):
    docs, known = _keyword_documents()
    local = plackett.extract_keywords_many(docs, known, engine=engine, baselines=True, **extra)
    remote = pdist.extract_keywords(docs, known, client=client, chunk_size=chunk_size, engine=engine,
                                    baselines=True, **extra)
    assert [_comparable(r.to_json()) for r in remote] == [_comparable(r.to_json()) for r in local]
    assert pdist.extract_keywords([], [], client=client) == []


def test_distributed_keywords_name_the_first_failing_document(client):
    docs, known = _keyword_documents()
    known[6] = ["zebra"]
    known[11] = ["giraffe"]
    with pytest.raises(ValueError, match=r'documents\[6\]: known keyword "zebra"'):
        pdist.extract_keywords(docs, known, client=client, chunk_size=4)
    with pytest.raises(ValueError, match="chunk_size"):
        pdist.extract_keywords(docs[:2], known[:2], client=client, chunk_size=0)
    with pytest.raises(TypeError, match="first_index"):
        pdist.extract_keywords(docs[:2], known[:2], client=client, first_index=3)
