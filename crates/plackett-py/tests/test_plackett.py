"""Tests of the Python package: parity with the CLI's JSON on the shipped
data, choix on its own test cases, bad input as ValueError/TypeError,
the GIL released during fits."""
import pathlib
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import plackett

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DATA = os.path.join(ROOT, "data")
BIN = os.environ.get("PLACKETT_BIN", os.path.join(ROOT, "target", "release", "plackett"))

NASCAR = os.path.join(DATA, "nascar2002", "results.csv")
NASCAR_COLS = dict(ranking_col="race", rank_col="position", item_col="driver")
ALWAYS_LAST = "Andy Hillenburg,Gary Bradberry,Jason Hedlesky,Randy Renfrow"


def cli(*args):
    out = subprocess.run([BIN, *args, "--output", "json"], check=True, capture_output=True)
    return json.loads(out.stdout)


def nascar_without_always_last():
    d = plackett.read_csv(NASCAR, **NASCAR_COLS)
    keep = [n for n in d.items if n not in ALWAYS_LAST.split(",")]
    # Re-read over the kept drivers by dropping the four from every race.
    import csv

    with open(NASCAR) as fh:
        rows = [r for r in csv.DictReader(fh) if r["driver"] in keep]
    races: dict = {}
    for r in rows:
        races.setdefault(r["race"], []).append((int(r["position"]), r["driver"]))
    rankings = [[dr for _, dr in sorted(v)] for v in races.values()]
    return plackett.rankings(rankings, items=sorted(keep, key=d.items.index))


def assert_same_items(py, js, keys=("log_worth", "log_worth_se", "log_worth_sd", "worth")):
    items = js["items"]
    assert py.items == [it["name"] for it in items]
    for k, col in [("log_worth", py.log_worth), ("log_worth_se", py.se), ("log_worth_sd", py.sd), ("worth", py.worth)]:
        if k not in keys:
            continue
        want = np.array([np.nan if it[k] is None else it[k] for it in items], dtype=float)
        np.testing.assert_allclose(col, want, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_nascar_mle_with_standard_errors_equals_cli():
    js = cli("fit", NASCAR, "--ranking-col", "race", "--rank-col", "position", "--item-col", "driver",
             "--exclude", ALWAYS_LAST, "--reference", "Austin Cameron")
    r = plackett.fit(nascar_without_always_last(), reference="Austin Cameron")
    assert_same_items(r, js)
    assert r.log_likelihood == pytest.approx(js["log_likelihood"], abs=1e-9)
    # Hunter (2004) / PlackettLuce reference values.
    i = r.items.index("PJ Jones")
    assert r.log_worth[i] == pytest.approx(4.1477, abs=1e-4)
    assert r.se[i] == pytest.approx(1.5676, abs=1e-3)
    assert json.loads(r.to_json())["items"] == js["items"]


def test_nascar_ep_equals_cli():
    js = cli("fit", NASCAR, "--ranking-col", "race", "--rank-col", "position", "--item-col", "driver",
             "--exclude", ALWAYS_LAST, "--engine", "ep", "--prior-shape", "3", "--prior-rate", "2")
    r = plackett.fit(nascar_without_always_last(), "ep", prior={"shape": 3, "rate": 2})
    assert_same_items(r, js)
    assert r.log_evidence == pytest.approx(js["log_evidence"], abs=1e-9)
    assert r.draws.shape == (1, 4000, 83)


@pytest.mark.parametrize("covariance", ["linear-response", "mean-field"])
def test_nascar_vb_covariance_equals_cli(covariance, tmp_path):
    vcov = tmp_path / "vcov.csv"
    extra = ["--vcov", str(vcov)] if covariance == "linear-response" else []
    js = cli("fit", NASCAR, "--ranking-col", "race", "--rank-col", "position", "--item-col", "driver",
             "--exclude", ALWAYS_LAST, "--engine", "vb", "--prior-shape", "3", "--prior-rate", "2",
             "--covariance", covariance, "--reference", "Austin Cameron", *extra)
    r = plackett.fit(nascar_without_always_last(), "vb", prior={"shape": 3, "rate": 2},
                     covariance=covariance, reference="Austin Cameron")
    assert_same_items(r, js)
    assert r.elbo == pytest.approx(js["elbo"], abs=1e-9)
    assert r.notes == js["notes"]
    if covariance == "mean-field":
        assert r.vcov is None
        return
    import csv

    with open(vcov) as fh:
        rows = list(csv.reader(fh))
    assert rows[0][1:] == r.items
    np.testing.assert_allclose(r.vcov, np.array([[float(x) for x in row[1:]] for row in rows[1:]]),
                               rtol=1e-12, atol=1e-15)
    # The reference item's log-worth is fixed: its row and column are 0,
    # and the other sds are the matrix's diagonal.
    i = r.items.index("Austin Cameron")
    assert not r.vcov[i].any() and not r.vcov[:, i].any()
    np.testing.assert_allclose(np.sqrt(np.diag(r.vcov)), r.sd, rtol=1e-12)


def test_vb_covariance_option_is_checked():
    with pytest.raises(ValueError, match="covariance"):
        plackett.fit([[0, 1], [1, 0]], "vb", covariance="laplace")
    with pytest.raises(ValueError, match="covariance"):
        plackett.fit([[0, 1], [1, 0]], "ep", covariance="mean-field")


def test_gibbs_same_seed_same_numbers_as_cli():
    js = cli("fit", NASCAR, "--ranking-col", "race", "--rank-col", "position", "--item-col", "driver",
             "--engine", "gibbs", "--samples", "300", "--burn-in", "100", "--seed", "7")
    d = plackett.read_csv(NASCAR, **NASCAR_COLS)
    r = plackett.fit(d, "gibbs", samples=300, burn_in=100, seed=7)
    assert_same_items(r, js)
    assert r.draws.shape == (4, 300, 87)
    assert set(r.diagnostics) == {"rhat", "ess_bulk", "ess_tail"}
    assert json.loads(r.to_json())["diagnostics"] == js["diagnostics"]


def test_salad_from_a_data_frame():
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(os.path.join(DATA, "salad", "rankings.csv"))
    r = plackett.fit(plackett.rankings(df, ranking_col="judge"), reference="A")
    # Critchlow & Fligner (1991) via PlackettLuce: B 2.72991, C 1.56154, D 1.02684.
    np.testing.assert_allclose(r.log_worth, [0, 2.72991, 1.56154, 1.02684], atol=1e-5)
    s = r.summary()
    assert list(s.index) == ["A", "B", "C", "D"]
    assert s.index.name == "item"
    # One uncertainty column: standard errors of the MLE.
    assert "se" in s.columns and "sd" not in s.columns
    assert "sd" in plackett.fit(plackett.rankings(df, ranking_col="judge"), engine="vb").summary().columns


def test_a_long_frame_indexed_by_ranking_id_is_read_as_its_columns():
    # df.set_index("judge") leaves the ranking id as the index: the same data.
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(os.path.join(DATA, "salad", "rankings.csv"))
    plain = plackett.fit(plackett.rankings(df, ranking_col="judge"), reference="A")
    indexed = plackett.fit(plackett.rankings(df.set_index("judge"), ranking_col="judge"), reference="A")
    np.testing.assert_array_equal(plain.log_worth, indexed.log_worth)
    both = plackett.fit(plackett.rankings(df.set_index(["judge", "rank"]), ranking_col="judge"), reference="A")
    np.testing.assert_array_equal(plain.log_worth, both.log_worth)


def test_pudding_ties_as_events_equals_cli():
    path = os.path.join(DATA, "pudding", "pairs.csv")
    js = cli("fit", path, "--format", "pairs", "--ties", "event")
    r = plackett.fit(plackett.read_pairs(path, ties="event"))
    assert_same_items(r, js)
    assert json.loads(r.to_json())["tie_parameters"][0]["delta"] == pytest.approx(0.746823, abs=1e-5)


def test_choix_parity_on_its_test_cases():
    choix = pytest.importorskip("choix") if not os.environ.get("CI") else __import__("choix")
    rng = np.random.default_rng(3)
    n = 8
    true = rng.normal(size=n)
    data = choix.generate_rankings(true, 300, 4)
    ref = choix.ilsr_rankings(n, data, tol=1e-12)
    r = plackett.fit([list(map(int, x)) for x in data])
    got = r.log_worth
    np.testing.assert_allclose(got - got.mean(), ref - ref.mean(), atol=1e-6)
    pairs = choix.generate_pairwise(true, 400)
    ref = choix.ilsr_pairwise(n, pairs, alpha=0.0, tol=1e-12)
    r = plackett.fit(np.asarray(pairs, dtype=np.int64))
    np.testing.assert_allclose(r.log_worth - r.log_worth.mean(), ref - ref.mean(), atol=1e-6)


def test_map_under_a_normal_prior_equals_choix_regularised_fits():
    """MAP under iid Normal(0, sd²) on the log-worths is choix's L2-penalised
    maximum likelihood (`opt_rankings`, `opt_pairwise`) with alpha = 1/(2 sd²):
    choix minimises the negative log-likelihood plus alpha ||θ||² (its
    `objective`, choix 0.4.1), although its docstrings call that a prior of
    variance 1/alpha — which would need alpha/2. The prior's mean 0 also
    fixes the gauge, so the log-worths compare as they are."""
    choix = pytest.importorskip("choix") if not os.environ.get("CI") else __import__("choix")
    rng = np.random.default_rng(5)
    n = 8
    true = rng.normal(size=n)
    rankings = choix.generate_rankings(true, 60, 4)
    pairs = choix.generate_pairwise(true, 80)
    for sd in (0.5, 2.0):
        alpha = 1.0 / (2.0 * sd**2)
        ref = choix.opt_rankings(n, rankings, alpha=alpha, tol=1e-12)
        r = plackett.fit([list(map(int, x)) for x in rankings], "map",
                         prior={"family": "normal", "mean": 0.0, "sd": sd}, tol=1e-12)
        assert abs(ref.sum()) < 1e-6 and abs(r.log_worth.sum()) < 1e-9
        np.testing.assert_allclose(r.log_worth, ref, atol=1e-6)
        ref = choix.opt_pairwise(n, pairs, alpha=alpha, tol=1e-12)
        r = plackett.fit(np.asarray(pairs, dtype=np.int64), "map",
                         prior={"family": "normal", "mean": 0.0, "sd": sd}, tol=1e-12)
        np.testing.assert_allclose(r.log_worth, ref, atol=1e-6)


SALAD = os.path.join(DATA, "salad", "rankings.csv")
SALAD_FEATURES = os.path.join(DATA, "salad", "features.csv")


@pytest.mark.parametrize(
    "engine, flags, kw",
    [
        ("mle", [], {}),
        ("map", ["--eta", "0.5"], {"eta": 0.5}),
        ("vb", ["--eta", "auto", "--eta-grid", "0.1:10:5", "--seed", "3"], {"eta": "auto", "eta_grid": "0.1:10:5", "seed": 3}),
    ],
)
def test_salad_with_features_equals_cli(engine, flags, kw, tmp_path):
    # An extra row E (not ranked by anyone) is predicted from its features.
    feats = tmp_path / "features.csv"
    feats.write_text(pathlib.Path(SALAD_FEATURES).read_text(encoding="utf-8").rstrip("\n") + "\nE,0.75,5\n")
    js = cli("fit", SALAD, "--ranking-col", "judge", "--features", str(feats), "--engine", engine,
             "--compare", "E,B", *flags)
    d = plackett.read_csv(SALAD, ranking_col="judge")
    r = plackett.fit(d, engine, features=str(feats), **kw)
    mine = json.loads(r.to_json())
    for k in ("items", "coefficients", "regression", "log_likelihood", "elbo", "aic", "engine", "algorithm"):
        assert mine.get(k) == js.get(k), k
    assert r.compare("E", "B") == js["comparisons"][0]["probability"]
    coef = r.coefficients
    col = "mean" if engine == "vb" else "estimate"
    np.testing.assert_array_equal(np.asarray(coef[col]), [c[col] for c in js["coefficients"]])
    assert list(r.new_items["item"]) == ["E"]
    if engine == "vb":
        assert r.draws.shape == (1, 4000, 4)
    # Guo et al. (2019)'s model through a DataFrame gives the same fit.
    pd = pytest.importorskip("pandas")
    r2 = plackett.fit(d, engine, features=pd.read_csv(feats), **kw)
    np.testing.assert_array_equal(r2.log_worth, r.log_worth)


def test_features_results_pickle():
    import pickle

    import pandas as pd

    d = plackett.read_csv(SALAD, ranking_col="judge")
    r = plackett.fit(d, "vb", features=SALAD_FEATURES)
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.to_json() == r.to_json()
    np.testing.assert_array_equal(r2.draws, r.draws)
    assert r2.compare("A", "B") == r.compare("A", "B")


def _salad():
    return plackett.read_csv(SALAD, ranking_col="judge")


@pytest.mark.parametrize(
    "call, exc, fragment",
    [
        (lambda: plackett.fit(_salad(), "gibbs", features=SALAD_FEATURES), ValueError, "does not take features"),
        (lambda: plackett.fit(_salad(), features=SALAD_FEATURES, eta=2), ValueError, "the MLE has no prior"),
        (lambda: plackett.fit(_salad(), "map", features=SALAD_FEATURES, eta="x"), ValueError, "eta"),
        (lambda: plackett.fit(_salad(), "map", features=SALAD_FEATURES, eta=1, eta_grid="1:2:3"), ValueError, "eta_grid"),
        (lambda: plackett.fit(_salad(), "vb", features=SALAD_FEATURES, vi="laplace"), ValueError, "vi"),
        (lambda: plackett.fit(_salad(), features="/nonexistent.csv"), FileNotFoundError, "nonexistent"),
        (lambda: plackett.fit(_salad(), features=42), TypeError, "features"),
        (lambda: plackett.fit(_salad(), eta=2), ValueError, "only used with features"),
    ],
)
def test_bad_feature_input_raises_with_a_message(call, exc, fragment):
    with pytest.raises(exc) as e:
        call()
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "call, exc, fragment",
    [
        (lambda: plackett.fit([[0, 1], [1, 0]], "nope"), ValueError, "engine"),
        (lambda: plackett.fit([[0, 1], [1, 0]], tol=-1), ValueError, "tol"),
        (lambda: plackett.fit([[0, 1], [1, 0]], tol=float("nan")), ValueError, "tol"),
        (lambda: plackett.fit([[0, 1], [1, 0]], max_iter=0), ValueError, "max_iter"),
        (lambda: plackett.fit([[0, 1], [1, 0]], "gibbs", samples=0), ValueError, "samples"),
        (lambda: plackett.fit([[0, 1], [1, 0]], "ep", prior={"shape": -1}), ValueError, "prior_shape"),
        (lambda: plackett.fit([[0, 1], [1, 0]], prior={"colour": 1}), ValueError, "unknown keys"),
        (lambda: plackett.fit([[0, 1], [0, 1]]), ValueError, "does not exist"),
        (lambda: plackett.fit([[0, 0]]), ValueError, "more than once"),
        (lambda: plackett.fit([[0, -1]]), ValueError, "non-negative"),
        (lambda: plackett.fit([]), ValueError, ""),
        (lambda: plackett.fit("abc"), TypeError, "rankings"),
        (lambda: plackett.fit([[0, 1.5]]), TypeError, "item"),
        (lambda: plackett.fit(np.zeros((3, 1), dtype=np.int64)), ValueError, "shape"),
        (lambda: plackett.fit(np.zeros((3, 2))), TypeError, "integer"),
        (lambda: plackett.fit(np.array([[0, -2], [1, 0]])), ValueError, "non-negative"),
        (lambda: plackett.fit(np.array([[0, 0], [1, 0]])), ValueError, "row 0"),
        (lambda: plackett.rankings(np.array([[0, 1]]), weights=[1.0, 2.0]), ValueError, "2 weights for 1 rankings"),
        (lambda: plackett.rankings(np.array([[0, 7]]), items=["0", "1"]), ValueError, "item 7 is not among items"),
        (lambda: plackett.rankings(np.array([[0, 1]]), items=["a", "b"]), ValueError,
         "<array>: row 0: item 0 is an integer id but items are names ('a', ...): ids are names here"),
        (lambda: plackett.rankings([[1, [0, 2]]], items=["a", "b", "c"]), ValueError,
         "rankings[0]: item 1 is an integer id but items are names"),
        (lambda: plackett.rankings([[1, [0, 2]]], items=["a", "b", "c"]), ValueError, "or pass items=range(3)"),
        (lambda: plackett.fit([[0, 1], [1, 0]], reference="x"), ValueError, "reference"),
        (lambda: plackett.read_csv("/nonexistent.csv"), FileNotFoundError, "nonexistent"),
        (lambda: plackett.fit([[0, 1], [1, 0]]).compare("a", 0), KeyError, "no item"),
    ],
)
def test_bad_input_raises_with_a_message(call, exc, fragment):
    with pytest.raises(exc) as e:
        call()
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


def test_fit_releases_the_gil():
    d = plackett.read_csv(NASCAR, **NASCAR_COLS)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.002)

    t = threading.Thread(target=ticker)
    t.start()
    t0 = time.perf_counter()
    plackett.fit(d, "gibbs", samples=4000, burn_in=500, chains=2)
    t1 = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if t0 < x < t1]
    # The other thread ran all along (it would be starved if the GIL were held).
    assert t1 - t0 > 0.05
    assert len(during) >= 0.3 * (t1 - t0) / 0.002


def test_rank_marginals_and_compare():
    r = plackett.fit([[0, 1, 2], [0, 2, 1], [1, 0, 2], [2, 0, 1]], "vb")
    rm = r.rank_marginals(races=20000, seed=1)
    assert rm.shape == (3, 3)
    np.testing.assert_allclose(rm.sum(axis=1), 1.0)
    np.testing.assert_allclose(rm.sum(axis=0), 1.0)
    assert r.compare(0, 2) > 0.5
    assert r.compare(0, 2) + r.compare(2, 0) == pytest.approx(1.0)


@pytest.mark.parametrize("engine", ["mle", "map", "gibbs", "ep", "vb"])
def test_results_pickle_bit_for_bit(engine):
    import pickle

    import pandas as pd

    d = nascar_without_always_last()
    kw = {"samples": 200, "burn_in": 100, "chains": 2} if engine == "gibbs" else {}
    r = plackett.fit(d, engine, seed=3, **kw)
    back = pickle.loads(pickle.dumps(r))
    assert back.items == r.items
    assert back.to_json() == r.to_json()
    np.testing.assert_array_equal(back.log_worth, r.log_worth)
    if r.draws is None:
        assert back.draws is None
    else:
        np.testing.assert_array_equal(back.draws, r.draws)
    a, b = r.items[0], r.items[1]
    assert back.compare(a, b) == r.compare(a, b)
    # VB's linear-response covariance travels with it.
    assert (r.vcov is None) == (engine != "vb")
    if r.vcov is not None:
        np.testing.assert_array_equal(back.vcov, r.vcov)


def test_ctrl_c_stops_a_long_run():
    import _thread
    import signal

    # Python's own SIGINT handler, whatever an earlier test (a Dask cluster,
    # say) left installed: the test is about ours, not theirs.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    derm = os.path.join(DATA, "dermatology-ddx")
    sel = plackett.selectors(os.path.join(derm, "dermatology_selectors.json"),
                             classes=os.path.join(derm, "dermatology_conditions.txt"))
    timer = threading.Timer(0.5, _thread.interrupt_main)
    t0 = time.time()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # Minutes of work if not interrupted.
            plackett.aggregate(sel, samples=20000, burn_in=2000)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.time() - t0 < 20
    # The package still works afterwards.
    assert len(plackett.aggregate(sel, cases=[0], samples=10)) == 1


def test_numpy_rankings_equal_list_rankings():
    rng = np.random.default_rng(1)
    arr = np.array([rng.permutation(6)[:4] for _ in range(300)])
    a = plackett.fit(arr)
    b = plackett.fit(arr.tolist())
    np.testing.assert_array_equal(a.log_worth, b.log_worth)
    c = plackett.fit(plackett.rankings(arr, weights=np.ones(300) * 2.0), "map")
    assert c.converged


def test_choice_probabilities_equal_choix_and_the_cli():
    # choix.probabilities(items, params) is the plug-in choice probability
    # of an MLE; the CLI's --compare "A,B,C" prints the same numbers, and
    # a Bayesian engine gives the posterior mean (same seed, same numbers).
    choix = pytest.importorskip("choix") if not os.environ.get("CI") else __import__("choix")
    r = plackett.fit(plackett.read_csv(SALAD, ranking_col="judge"))
    sets = [["A", "B", "C"], ["D", "A", "C", "B"], ["C", "A"]]
    js = cli("fit", SALAD, "--ranking-col", "judge", *sum([["--compare", ",".join(s)] for s in sets[:2]], []))
    for s, c in zip(sets[:2], js["choices"]):
        assert c["set"] == s
        got = r.choice_probabilities(s)
        ref = choix.probabilities([r.items.index(x) for x in s], r.log_worth)
        np.testing.assert_allclose(got, ref, rtol=1e-12)
        np.testing.assert_allclose(got, [i["probability"] for i in c["items"]], rtol=1e-12)
        assert got.sum() == pytest.approx(1.0, abs=1e-12)
    # Two items: the pairwise comparison.
    assert r.choice_probabilities(sets[2])[0] == pytest.approx(r.compare("C", "A"), rel=1e-12)
    g = plackett.fit(plackett.read_csv(SALAD, ranking_col="judge"), engine="gibbs", seed=5)
    jg = cli("fit", SALAD, "--ranking-col", "judge", "--engine", "gibbs", "--seed", "5", "--compare", "A,B,C")
    np.testing.assert_allclose(
        g.choice_probabilities(["A", "B", "C"]), [i["probability"] for i in jg["choices"][0]["items"]], rtol=1e-12
    )
    for bad in (["A"], ["A", "A"], ["A", "nope"]):
        with pytest.raises((ValueError, KeyError)):
            r.choice_probabilities(bad)


def test_features_likelihood_ratio_test_against_scipy():
    # PL regression nested in free worths: 2(l_free - l_features) on
    # (items - 1) - features df, its p-value as scipy's chi-square tail.
    stats = pytest.importorskip("scipy.stats") if not os.environ.get("CI") else __import__("scipy.stats").stats
    d = plackett.read_csv(SALAD, ranking_col="judge")
    free = plackett.fit(d)
    r = plackett.fit(d, "mle", features=SALAD_FEATURES, standardize=False)
    t = json.loads(r.to_json())["regression"]["lr_test"]
    ll = json.loads(r.to_json())["log_likelihood"]
    free_ll = json.loads(free.to_json())["log_likelihood"]
    assert t["df"] == 1
    assert t["statistic"] == pytest.approx(2 * (free_ll - ll), abs=1e-9)
    assert t["p_value"] == pytest.approx(stats.chi2.sf(t["statistic"], 1), rel=1e-10)


def test_saved_model_equals_the_cli(tmp_path):
    # result.model() is the file `fit --model-out` writes (byte for byte),
    # and Model.predict gives `plackett predict`'s numbers.
    path = tmp_path / "m.json"
    subprocess.run([BIN, "fit", SALAD, "--ranking-col", "judge", "--model-out", str(path)],
                   check=True, capture_output=True)
    r = plackett.fit(plackett.read_csv(SALAD, ranking_col="judge"))
    m = r.model()
    assert m.to_json() == path.read_text()
    loaded = plackett.load_model(str(path))
    assert loaded.items == r.items and loaded.engine == "mle" and loaded.n_draws == 1
    data = plackett.read_csv(SALAD, ranking_col="judge", items=loaded.items)
    got = loaded.predict(data)
    js = cli("predict", str(path), SALAD, "--ranking-col", "judge")
    np.testing.assert_allclose(got, [o["log_probability"] for o in js["observations"]], rtol=1e-13)
    assert got.sum() == pytest.approx(json.loads(r.to_json())["log_likelihood"], rel=1e-12)
    np.testing.assert_allclose(loaded.choice_probabilities(["A", "B", "C"]), r.choice_probabilities(["A", "B", "C"]))
    assert loaded.compare("B", "A") == pytest.approx(r.compare("B", "A"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "x"}')
    with pytest.raises(ValueError):
        plackett.load_model(str(bad))
    with pytest.raises(ValueError):
        loaded.predict(plackett.read_csv(SALAD, ranking_col="judge", items=["D", "C", "B", "A"]))


def test_ties_as_events_model_equals_the_cli(tmp_path):
    # A Davidson–Luce fit (Davidson 1970's puddings) saves its tie
    # prevalence: result.model() is the CLI's model file byte for byte, its
    # predictions are `plackett predict`'s, and a pair's three outcomes
    # follow Davidson's formulas.
    path = os.path.join(DATA, "pudding", "pairs.csv")
    mfile = tmp_path / "d.json"
    rmfile = tmp_path / "rm.csv"
    js = cli("fit", path, "--format", "pairs", "--ties", "event", "--compare", "1,2",
             "--compare", "1,2,3", "--model-out", str(mfile), "--rank-marginals", str(rmfile))
    data = plackett.read_pairs(path, ties="event")
    r = plackett.fit(data)
    m = r.model()
    assert m.to_json() == mfile.read_text()
    assert list(m.ties) == [2] and m.ties[2] == pytest.approx(0.746823, abs=1e-6)
    lam = dict(zip(r.items, np.exp(r.log_worth)))
    d = m.ties[2]
    den = lam["1"] + lam["2"] + d * np.sqrt(lam["1"] * lam["2"])
    for obj in (r, m):
        assert obj.compare("1", "2") == pytest.approx(lam["1"] / den, rel=1e-12)
        assert obj.tie_probability("1", "2") == pytest.approx(d * np.sqrt(lam["1"] * lam["2"]) / den, rel=1e-12)
        p = obj.choice_probabilities(["1", "2", "3"])
        assert p.sum() + obj.first_tie_probability(["1", "2", "3"]) == pytest.approx(1.0, abs=1e-12)
    assert r.compare("1", "2") == pytest.approx(js["comparisons"][0]["probability"], rel=1e-12)
    assert r.tie_probability("1", "2") == pytest.approx(js["comparisons"][0]["tie_probability"], rel=1e-12)
    np.testing.assert_allclose(r.choice_probabilities(["1", "2", "3"]),
                               [c["probability"] for c in js["choices"][0]["items"]], rtol=1e-12)
    assert r.predictive_log_likelihood(data) == pytest.approx(js["log_likelihood"], rel=1e-10)
    got = m.predict(data)
    pj = cli("predict", str(mfile), path, "--format", "pairs", "--ties", "event")
    np.testing.assert_allclose(got, [o["log_probability"] for o in pj["observations"]], rtol=1e-13)
    # Rank marginals of rankings with ties (tied items share their place):
    # the CLI's, row by row, each row a distribution over places.
    rm = r.rank_marginals()
    want = np.loadtxt(rmfile, delimiter=",", skiprows=1, usecols=range(1, 7))
    np.testing.assert_allclose(rm, want, rtol=1e-12)
    np.testing.assert_allclose(rm.sum(axis=1), 1.0, atol=1e-12)
    # What the model cannot answer is a ValueError, not a wrong number.
    with pytest.raises(ValueError, match='ties="event"'):
        m.predict(plackett.read_pairs(path))
    salad = plackett.fit(plackett.read_csv(SALAD, ranking_col="judge"))
    assert salad.tie_probability("A", "B") is None and salad.model().ties == {}
    assert salad.first_tie_probability(["A", "B", "C"]) is None


def _page_body(path):
    """A page after its title, notes reduced to their count (they name
    options in each front end's words)."""
    import re

    return re.sub(r"<p>Note: [^<]*</p>", "<p>Note</p>", pathlib.Path(path).read_text(encoding="utf-8").split("</h1>", 1)[1])


@pytest.mark.parametrize(
    "engine, flags, kw",
    [
        ("mle", [], {}),
        ("gibbs", ["--samples", "300", "--burn-in", "100", "--seed", "7"], {"samples": 300, "burn_in": 100, "seed": 7}),
        ("ep", ["--prior-shape", "3", "--prior-rate", "2", "--seed", "7"], {"prior": {"shape": 3, "rate": 2}, "seed": 7}),
        ("vb", ["--features", SALAD_FEATURES, "--eta", "0.5", "--seed", "3"], {"features": SALAD_FEATURES, "eta": 0.5, "seed": 3}),
        ("mle", ["--features", SALAD_FEATURES], {"features": SALAD_FEATURES}),
    ],
)
def test_fit_report_is_the_clis_page(engine, flags, kw, tmp_path):
    """`FitResult.report(path)` writes the page of `plackett fit --report`
    (but for its title, the data file's name and the notes' option names):
    intervals, rank marginals, traces and diagnostics (Gibbs), a feature
    model's coefficients and positive ratio (with ``data=``)."""
    cli_page, page = tmp_path / "cli.html", tmp_path / "py.html"
    subprocess.run([BIN, "fit", SALAD, "--ranking-col", "judge", "--engine", engine, *flags,
                    "--report", str(cli_page)], check=True, capture_output=True)
    d = plackett.read_csv(SALAD, ranking_col="judge")
    r = plackett.fit(d, engine, **kw)
    seed = kw.get("seed", 1)
    r.report(page, seed=seed, data=d)
    want = _page_body(cli_page).replace(f"{SALAD} (4 items", "(4 items").replace(
        "Training observations (in-sample; pass --test for held-out pairs)",
        "Observations passed to report(data=…)")
    got = _page_body(page).replace("<td>4 items, 32 observations", "<td>(4 items, 32 observations)")
    assert got == want
    assert "Log-worths with 95% intervals" in got and "Rank marginals" in got
    assert ("MCMC traces" in got) == (engine == "gibbs")
    assert ("ositive ratio" in got) == ("features" in kw)
    # Without data= a feature model's page leaves out the positive ratio only.
    r.report(str(tmp_path / "again.html"), seed=seed)
    if "features" not in kw:
        assert pathlib.Path(tmp_path / "again.html").read_text(encoding="utf-8") == page.read_text()
    with pytest.raises(TypeError):
        r.report(3)
    with pytest.raises(ValueError, match="x.html"):
        r.report(tmp_path / "no" / "such" / "x.html")
    assert not (tmp_path / "no").exists()
    other = plackett.rankings([["A", "B"], ["B", "Z"]])
    with pytest.raises(ValueError, match="fitted items"):
        r.report(tmp_path / "y.html", data=other)
    assert not (tmp_path / "y.html").exists()


@pytest.mark.parametrize("flags, kw", [
    ([], {}),
    (["--folds", "4", "--repeats", "2", "--seed", "3", "--eta-grid", "0.01,1,100", "--vi", "guo",
      "--partition", "l", "--metric-k", "2"],
     {"folds": 4, "repeats": 2, "seed": 3, "eta_grid": [0.01, 1, 100], "vi": "guo", "partition": "l", "metric_k": 2}),
])
def test_cross_validate_equals_plackett_cv(flags, kw, tmp_path):
    """`plackett.cross_validate` is `plackett cv` (Guo et al. 2019 §5.2):
    the same document but for its timing, the same tables and page (but
    for the title and the data file's name); frames of the tables and
    curves; bad options raise."""
    cli_page, page = tmp_path / "cli.html", tmp_path / "py.html"
    out = subprocess.run([BIN, "cv", SALAD, "--ranking-col", "judge", "--features", SALAD_FEATURES, *flags,
                          "--output", "json", "--report", str(cli_page)], check=True, capture_output=True)
    want = json.loads(out.stdout)
    d = plackett.read_csv(SALAD, ranking_col="judge")
    r = plackett.cross_validate(d, SALAD_FEATURES, **kw)
    got = json.loads(r.to_json())
    want.pop("seconds"), got.pop("seconds")
    assert got == want
    assert [p["partition"] for p in r.partitions] == ["L"]
    r.report(page)
    strip = lambda p: pathlib.Path(p).read_text(encoding="utf-8").split("</h1>", 1)[1]  # noqa: E731
    assert strip(page) == strip(cli_page).replace(f"{SALAD} (4 items", "4 items").replace(
        "32 observations)</td>", "32 observations</td>")
    assert r.to_table().splitlines()[:-1] == subprocess.run(
        [BIN, "cv", SALAD, "--ranking-col", "judge", "--features", SALAD_FEATURES, *flags],
        check=True, capture_output=True, text=True).stdout.splitlines()[:-1]
    pytest.importorskip("pandas")
    t = r.to_frame()
    assert list(t["metric"]) == ["top_k", "auc", "log_score"]
    assert t.loc[1, "vi_at_eta_l"] == want["partitions"][0]["auc_table"]["vi_at_eta_l"]
    c = r.curves("L")
    assert list(c["eta"]) == want["partitions"][0]["etas"] and "map_auc" in c
    with pytest.raises(KeyError):
        r.curves("N")
    # A DataFrame of features gives the same numbers.
    import pandas as pd

    again = plackett.cross_validate(d, pd.read_csv(SALAD_FEATURES), **kw)
    assert json.loads(again.to_json())["partitions"] == got["partitions"]


@pytest.mark.parametrize("kw, exc, fragment", [
    ({"folds": 1}, ValueError, "folds"),
    ({"repeats": 0}, ValueError, "repeats"),
    ({"metric_k": 0}, ValueError, "metric_k"),
    ({"metric_k": -1}, ValueError, "metric_k"),
    ({"partition": "x"}, ValueError, "partition"),
    ({"vi": "nope"}, ValueError, "vi"),
    ({"eta_grid": "a:b"}, ValueError, "eta"),
    ({"standardize": "yes"}, TypeError, "standardize"),
    ({"folds": "3"}, TypeError, "folds"),
])
def test_cross_validate_bad_options_raise(kw, exc, fragment):
    d = plackett.read_csv(SALAD, ranking_col="judge")
    with pytest.raises(exc, match=fragment):
        plackett.cross_validate(d, SALAD_FEATURES, **kw)
    with pytest.raises((ValueError, TypeError)):
        plackett.cross_validate(d, 3)
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        plackett.cross_validate(d, "nope.csv")


@pytest.mark.parametrize("flags, kw", [
    (["--items", "8", "--rankings", "60", "--length", "4", "--seed", "3"], {"items": 8, "rankings": 60, "length": 4, "seed": 3}),
    (["--items", "6", "--rankings", "40", "--design", "full", "--worths", "linear"],
     {"items": 6, "rankings": 40, "design": "full", "worths": "linear"}),
    (["--items", "9", "--rankings", "80", "--design", "topk", "--length", "3", "--features", "2",
      "--feature-sd", "0.5", "--seed", "5"],
     {"items": 9, "rankings": 80, "design": "topk", "length": 3, "features": 2, "feature_sd": 0.5, "seed": 5}),
])
def test_simulate_equals_the_cli(flags, kw, tmp_path):
    """`plackett.simulate` is `plackett simulate`: the same rankings (fits
    of both equal to the last bit), the same truth, features and β."""
    out, truth, feats, beta = (tmp_path / n for n in ("r.json", "t.txt", "f.csv", "b.csv"))
    extra = ["--features-out", str(feats), "--beta-out", str(beta)] if "features" in kw else []
    subprocess.run([BIN, "simulate", *flags, "--out", str(out), "--truth", str(truth), *extra],
                   check=True, capture_output=True)
    sim = plackett.simulate(**kw)
    assert sim.data.n_observations == kw["rankings"]
    np.testing.assert_array_equal(sim.log_worth, np.loadtxt(truth))
    # Top-k lists are read as such (the JSON lists do not say so themselves).
    r_cli = plackett.fit(plackett.read_file(str(out), top_k=kw.get("design") == "topk"))
    r_py = plackett.fit(sim.data)
    assert r_cli.items == r_py.items
    np.testing.assert_array_equal(r_cli.log_worth, r_py.log_worth)
    if "features" in kw:
        pd = pytest.importorskip("pandas")
        want = pd.read_csv(feats, dtype={"item": str})
        pd.testing.assert_frame_equal(sim.features, want, check_exact=True)
        b = pd.read_csv(beta)
        assert list(b["name"]) == sim.feature_names
        np.testing.assert_array_equal(sim.beta, b["beta"].to_numpy())
        # The features fit PL regression directly.
        assert plackett.fit(sim.data, features=sim.features).coefficients is not None
    else:
        assert sim.features is None and sim.beta is None


@pytest.mark.parametrize("kw, exc, fragment", [
    ({"items": 1}, ValueError, "items"),
    ({"items": -1}, ValueError, "items"),
    ({"design": "x"}, ValueError, "design"),
    ({"design": 3}, TypeError, "design"),
    ({"worths": "flat"}, ValueError, "worths"),
    ({"length": 1}, ValueError, "length"),
    ({"length": 20}, ValueError, "length"),
    ({"features": 0}, ValueError, "features"),
    ({"feature_sd": -1.0}, ValueError, "feature_sd"),
    ({"feature_sd": "x"}, TypeError, "feature_sd"),
])
def test_simulate_bad_options_raise(kw, exc, fragment):
    with pytest.raises(exc, match=fragment):
        plackett.simulate(**kw)


def test_error_advice_is_valid_python():
    """The MLE's refusal names its remedies as Python arguments (a number
    as a number, a word as a string), and following them fits."""
    data = [[0, 1], [0, 1], [1, 2]]
    with pytest.raises(ValueError, match=r'remedies: pseudo=0\.5 \(pseudo-rankings against a ghost item\), engine="map"'):
        plackett.fit(data)
    assert plackett.fit(data, pseudo=0.5).log_worth.shape == (3,)
    assert plackett.fit(data, engine="map").log_worth.shape == (3,)


def test_predictive_log_likelihood_reads_plain_rankings():
    """Held-out rankings as lists are read over the fit's items (equal to a
    Dataset read with items=result.items); an unknown item is named as not
    one of the fit's. Mixtures alike."""
    train = [["A", "B", "C"], ["B", "A", "C"], ["A", "C", "B"], ["C", "B", "A"]] * 3
    test = [["A", "B"], ["C", "A", "B"]]
    for r in (plackett.fit(train, engine="map"), plackett.fit_mixture(train, 2, "map")):
        ds = plackett.rankings(test, items=r.items)
        assert r.predictive_log_likelihood(test) == r.predictive_log_likelihood(ds)
        with pytest.raises(ValueError, match=r'item "Z" is not an item of this fit \(3 items\)'):
            r.predictive_log_likelihood([["A", "Z"]])
        with pytest.raises(TypeError):
            r.predictive_log_likelihood(3.5)


def test_list_errors_name_the_ranking_by_its_index():
    """Rankings given as Python lists are placed by their 0-based index,
    not by a line of the serialised text the reader sees."""
    cases = [
        (([["a", "b"], ["b", "c"], ["a", "zz"]],), {"items": ["a", "b", "c"]}, r'^rankings\[2\]: item "zz" is not in "items"$'),
        (([["a", "b"], ["a", "a"]],), {}, r'^rankings\[1\]: item "a" appears more than once'),
        (([[0, 1], [1, []]],), {}, r"^rankings\[1\]: empty tied group"),
        (([["a", "b"]],), {"weights": [-1.0]}, r"^weights\[0\]: must be a positive number$"),
        (([["a", "b"], ["b", "a"]],), {"weights": [1.0, float("nan")]}, r"^weights\[1\]: must be a positive number$"),
        (([["a", "b"]],), {"weights": [float("inf")]}, r"^weights\[0\]: must be a positive number$"),
    ]
    for args, kwargs, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            plackett.rankings(*args, **kwargs)
    with pytest.raises(TypeError, match=r"^rankings\[1\]: an item is a name \(str\) or an id \(int\), got NoneType None$"):
        plackett.rankings([["a", "b"], ["b", None]])
    with pytest.raises(TypeError, match=r"^rankings\[1\]: a ranking is a list of items"):
        plackett.rankings([["a", "b"], "ab"])
    with pytest.raises(ValueError, match=r"^<array>: row 1: item ids are non-negative, got -1$"):
        plackett.rankings(np.array([[0, 1], [1, -1]]))
    # An unsigned id beyond int64 is too large, not wrapped to a negative one.
    with pytest.raises(ValueError, match=r"^<array>: item id 9223372036854775808 is too large; pass items=$"):
        plackett.rankings(np.array([[0, 2**63]], dtype=np.uint64))
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"ranking": [1, 1, 2, 2], "rank": [1, 2, 1, None], "item": ["a", "b", "a", "c"]})
    with pytest.raises(ValueError, match=r"^ranking 2: missing rank for item 'c'$"):
        plackett.rankings(frame)
    # pandas' nullable integers: NA is a missing rank too, not a TypeError.
    with pytest.raises(ValueError, match=r"^ranking 2: missing rank for item 'c'$"):
        plackett.rankings(frame.astype({"rank": "Int64"}))
    # A row without a ranking id is named, not dropped by the grouping.
    frame = pd.DataFrame({"ranking": [1, 1, None, 2, 2], "rank": [1, 2, 3, 1, 2], "item": ["a", "b", "c", "a", "c"]})
    with pytest.raises(ValueError, match=r"^row 2: missing value in ranking column 'ranking'$"):
        plackett.rankings(frame)
    frame = pd.DataFrame({"ranking": ["j1", "j1"], "rank": [1, 2], "item": ["a", None]})
    with pytest.raises(TypeError, match=r"^ranking 'j1': an item is a name"):
        plackett.rankings(frame)
    model = plackett.fit([["a", "b"], ["b", "c"], ["c", "a"]], engine="map").model()
    with pytest.raises(ValueError, match=r'^rankings\[1\]: item "zz" is not an item of this model \(3 items\)$'):
        model.predict([["a", "b"], ["a", "zz"]])
    # Ids in a numpy array are looked up among the model's items alike.
    numbered = plackett.fit([[0, 1], [1, 2], [2, 0]], engine="map")
    with pytest.raises(ValueError, match=r"^<array>: row 1: item 7 is not an item of this fit \(3 items\)$"):
        numbered.predictive_log_likelihood(np.array([[0, 1], [0, 7]]))
    with pytest.raises(ValueError, match=r"^<array>: row 0: item 3 is not an item of this model \(3 items\)$"):
        numbered.model().predict(np.array([[3, 0]]))
    np.testing.assert_array_equal(numbered.model().predict(np.array([[2, 0]])), numbered.model().predict([[2, 0]]))


def test_saved_models_predict_plain_rankings():
    """Model.predict and MixtureModel.predict/membership read lists over the
    model's items, as a Dataset read with items=model.items."""
    train = [["A", "B", "C"], ["B", "A", "C"], ["A", "C", "B"], ["C", "B", "A"]] * 3
    test = [["A", "B"], ["C", "A", "B"]]
    m = plackett.fit(train, engine="map").model()
    mx = plackett.fit_mixture(train, 2, "map").model()
    for model in (m, mx):
        ds = plackett.rankings(test, items=model.items)
        np.testing.assert_array_equal(model.predict(test), model.predict(ds))
        with pytest.raises(ValueError, match=r'item "Z" is not an item of this model \(3 items\)'):
            model.predict([["Z", "A"]])
    np.testing.assert_array_equal(mx.membership(test), mx.membership(plackett.rankings(test, items=mx.items)))


def test_the_namespace_holds_only_the_public_names():
    """Every public function or class reachable as plackett.<name> is in
    __all__ (documented): the package's own helpers go by private names,
    so that plackett.names or plackett.show are not mistaken for API."""
    import inspect

    stray = []
    for name in dir(plackett):
        obj = getattr(plackett, name)
        if name.startswith("_") or inspect.ismodule(obj) or not callable(obj):
            continue
        if (getattr(obj, "__module__", "") or "").startswith("plackett") and name not in plackett.__all__:
            stray.append(name)
    assert stray == []


def test_every_result_class_has_a_readable_repr():
    """No class a user meets prints as <... object at 0x...>: every native
    class and every public class defines its own repr."""
    import inspect
    import sys

    native = sys.modules["plackett._plackett"]
    classes = [getattr(native, n) for n in dir(native) if isinstance(getattr(native, n), type)]
    classes += [getattr(plackett, n) for n in plackett.__all__ if inspect.isclass(getattr(plackett, n))]
    assert len(classes) > 20
    assert [c.__name__ for c in classes if c.__repr__ is object.__repr__] == []
    fit = plackett.mil_fit(os.path.join(ROOT, "data", "uci", "musk1.csv"), components=3)
    assert repr(fit).startswith('plackett.MilFit(engine="vb", bags=92, instances=476, converged=')
    assert repr(fit.model()) == 'plackett.MilModel(engine="vb", features=(3, 0), covariance="linear-response")'
    assert repr(fit.model().predict(os.path.join(ROOT, "data", "uci", "musk1.csv"))) == (
        "plackett.MilPrediction(bags=92, instances=476)"
    )
    assert repr(plackett.fit([[0, 1], [1, 0]])).endswith("converged=True)")


def test_every_native_name_has_a_type_stub():
    """_plackett.pyi declares every function and class the extension
    module exports, so type checkers and editors see the whole native
    layer (and no name the module does not have)."""
    import pathlib
    import re
    import sys

    native = sys.modules["plackett._plackett"]
    stub = (pathlib.Path(plackett.__file__).parent / "_plackett.pyi").read_text(encoding="utf-8")
    declared = set(re.findall(r"^(?:def|class) (\w+)", stub, re.M))
    exported = {n for n in dir(native) if not n.startswith("_")}
    assert exported - declared == set(), "no stub"
    assert declared - exported == set(), "stub of nothing"


def test_every_public_name_is_documented():
    """Every name of plackett.__all__ (and plackett.distributed's) has a
    docstring, is named in docs/python.md, and so has every public method
    and property of the public classes."""
    import inspect
    import pathlib
    import re

    import plackett.distributed

    doc = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "python.md").read_text(encoding="utf-8")
    missing = []
    for module in (plackett, plackett.distributed):
        for name in module.__all__:
            obj = getattr(module, name)
            if not inspect.getdoc(obj):
                missing.append(f"{module.__name__}.{name}: no docstring")
            if not re.search(r"\b" + re.escape(name) + r"\b", doc):
                missing.append(f"{module.__name__}.{name}: not in docs/python.md")
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if attr.startswith("_") or not (callable(value) or isinstance(value, property)):
                        continue
                    if not inspect.getdoc(getattr(obj, attr)):
                        missing.append(f"{module.__name__}.{name}.{attr}: no docstring")
    assert not missing, missing


def test_a_model_file_of_another_kind_says_which_function_reads_it(tmp_path):
    """load_model given a multiple-instance model, and load_mil_model given
    a ranking model, name the file, what it is and which function reads it;
    a broken file still names its path."""
    ranking = tmp_path / "pl.json"
    ranking.write_text(plackett.fit([["a", "b"], ["b", "c"], ["c", "a"]], engine="map").model().to_json())
    bags = plackett.mil_simulate(bags=20, seed=1)
    mil = tmp_path / "mil.json"
    mil.write_text(plackett.mil_fit(bags).model().to_json())
    with pytest.raises(
        ValueError,
        match=r"^.*mil\.json: this is a multiple-instance model \(plackett\.load_mil_model reads it\), not a Plackett–Luce model of rankings$",
    ):
        plackett.load_model(mil)
    with pytest.raises(
        ValueError,
        match=r"^.*pl\.json: this is a Plackett–Luce model of rankings \(plackett\.load_model reads it\), not a multiple-instance model$",
    ):
        plackett.load_mil_model(ranking)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "nope"}')
    with pytest.raises(ValueError, match=r"broken\.json: not a plackett model file"):
        plackett.load_model(broken)
    assert plackett.load_model(ranking).items == ["a", "b", "c"]
    assert plackett.load_mil_model(mil).to_json() == plackett.mil_fit(bags).model().to_json()


def test_a_features_frames_errors_name_its_row():
    """Features given as a DataFrame are sent as CSV text: an error names
    the frame's 0-based row, in fit and in cross_validate alike."""
    pd = pytest.importorskip("pandas")
    d = plackett.read_csv(os.path.join(DATA, "salad", "rankings.csv"), ranking_col="judge")
    f = pd.read_csv(os.path.join(DATA, "salad", "features.csv"))
    f.iloc[2, 1] = np.nan
    pattern = r'^features: row 2: feature "acetic" of item "C": "" is not a number$'
    with pytest.raises(ValueError, match=pattern):
        plackett.fit(d, "mle", features=f)
    with pytest.raises(ValueError, match=pattern):
        plackett.cross_validate(d, f)


def test_a_features_frame_indexed_by_item_and_with_boolean_columns():
    """A frame indexed by item (``set_index("item")``) is read as one whose
    first column is the item; an unnamed index (row numbers of a filtered
    frame) is not; a boolean column is a 0/1 feature."""
    pd = pytest.importorskip("pandas")
    d = plackett.read_csv(os.path.join(DATA, "salad", "rankings.csv"), ranking_col="judge")
    f = pd.read_csv(os.path.join(DATA, "salad", "features.csv"))
    base = plackett.fit(d, "mle", features=f, standardize=False)
    np.testing.assert_array_equal(
        plackett.fit(d, "mle", features=f.set_index("item"), standardize=False).log_worth, base.log_worth)
    shuffled = f.iloc[[2, 0, 3, 1]]
    assert list(shuffled.index) == [2, 0, 3, 1] and shuffled.index.name is None
    np.testing.assert_allclose(
        plackett.fit(d, "mle", features=shuffled, standardize=False).log_worth, base.log_worth, atol=1e-12)
    flagged = f.assign(low_acid=[True, True, False, True])
    np.testing.assert_array_equal(
        plackett.fit(d, "mle", features=flagged, standardize=False).log_worth,
        plackett.fit(d, "mle", features=flagged.astype({"low_acid": int}), standardize=False).log_worth)
    def untimed(cv):
        doc = json.loads(cv.to_json())
        doc.pop("seconds")
        return doc

    assert untimed(plackett.cross_validate(d, f.set_index("item"))) == untimed(plackett.cross_validate(d, f))


@pytest.mark.parametrize("engine", ["mle", "vb"])
def test_feature_choice_probabilities_cover_new_items_as_the_cli(engine, tmp_path):
    """With features, choice_probabilities takes items only in the features
    file, as compare does, and equals the CLI's --compare A,B,C; an
    unknown name is a KeyError."""
    feats = tmp_path / "features.csv"
    feats.write_text(pathlib.Path(SALAD_FEATURES).read_text(encoding="utf-8").rstrip("\n") + "\nE,0.75,5\n")
    r = plackett.fit(plackett.read_csv(SALAD, ranking_col="judge"), engine, features=str(feats))
    p = r.choice_probabilities(["A", "E", "B"])
    js = cli("fit", SALAD, "--ranking-col", "judge", "--features", str(feats), "--engine", engine,
             "--compare", "A,E,B")
    np.testing.assert_allclose(p, [i["probability"] for i in js["choices"][0]["items"]], rtol=0, atol=1e-15)
    assert abs(p.sum() - 1) < 1e-12
    with pytest.raises(KeyError, match="no item named"):
        r.choice_probabilities(["A", "Z", "B"])
    with pytest.raises(KeyError, match="no item named"):
        r.compare("A", "Z")
    with pytest.raises(ValueError, match="twice"):
        r.choice_probabilities(["A", "E", "A"])


def test_readers_show_their_options():
    """help(plackett.read_csv) lists its options (no **kwargs), and a
    misspelt option is a TypeError from the function the user called."""
    import inspect

    for f in (plackett.read_file, plackett.read_csv, plackett.read_pairs, plackett.read_preflib,
              plackett.read_orderings, plackett.read_selectors):
        kinds = {p.kind for p in inspect.signature(f).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, f.__name__
    assert {"ranking_col", "rank_col", "item_col"} <= set(inspect.signature(plackett.read_csv).parameters)
    with pytest.raises(TypeError, match="read_csv"):
        plackett.read_csv(os.path.join(DATA, "salad", "rankings.csv"), rankin_col="judge")


def test_integer_items_stay_integers():
    """Items given as integer ids (choix's lists of ids, a numpy array, a
    frame's integer item column, items=range(n)) come back as ints from
    every result; named items stay strings (issue 91, item 23)."""
    import pickle

    import pandas as pd

    ids = [[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1]]
    for data in (ids, np.array(ids), plackett.rankings(ids, items=range(3))):
        r = plackett.fit(data)
        assert r.items == [0, 1, 2] and all(type(i) is int for i in r.items)
        assert list(r.summary().index) == [0, 1, 2]
        assert r.summary().index.dtype.kind == "i"
        assert pickle.loads(pickle.dumps(r)).items == [0, 1, 2]
    frame = pd.DataFrame({"ranking": [1, 1, 2, 2], "rank": [1, 2, 1, 2], "item": [0, 1, 1, 0]})
    assert plackett.rankings(frame).items == [0, 1]
    assert plackett.fit(frame).items == [0, 1]
    assert plackett.fit_mixture(ids * 5, components=1).items == [0, 1, 2]
    assert plackett.fit_mixture(ids * 5, components=1).summary()["item"].tolist()[:3] == [0, 1, 2]
    assert plackett.fit_adherence(ids * 5, rankers=["a", "b", "c", "d"] * 5).items == [0, 1, 2]
    # Names stay names, digits included.
    assert plackett.fit([["a", "b"], ["b", "a"]]).items == ["a", "b"]
    assert plackett.fit([["1", "2"], ["2", "1"]]).items == ["1", "2"]
    # An int looks an item up by position, as before.
    r = plackett.fit(ids)
    assert r.compare(0, 1) == r.compare("0", "1")
