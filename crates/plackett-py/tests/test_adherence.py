"""Ranker adherence (Raman & Joachims 2014, as R's PlackettLuce) from
Python: parity with `plackett fit --adherence`, PlackettLuce's reference
fit, rankers given as a list, bad input."""

import pathlib
import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import plackett

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.environ.get("PLACKETT_BIN", os.path.join(ROOT, "target", "release", "plackett"))

# PlackettLuce's test-adherence.R "fake triples", best first.
TRIPLES = [
    ["apple", "banana", "orange"],
    ["banana", "orange", "pear"],
    ["banana", "apple", "pear"],
    ["apple", "banana", "orange"],
    ["orange", "apple", "pear"],
    ["apple", "pear", "orange"],
    ["apple", "banana"],
    ["banana", "orange"],
]


def write_csv(tmp_path, rankers):
    rows = ["ranking,item,rank" + (",ranker" if rankers else "")]
    for k, r in enumerate(TRIPLES):
        for p, item in enumerate(r):
            rows.append(f"{k + 1},{item},{p + 1}" + (f",judge {k // 2 + 1}" if rankers else ""))
    f = tmp_path / ("grouped.csv" if rankers else "triples.csv")
    f.write_text("\n".join(rows) + "\n")
    return str(f)


def test_adherence_equals_cli_json(tmp_path):
    f = write_csv(tmp_path, rankers=True)
    out = subprocess.run([BIN, "fit", f, "--adherence", "--pseudo", "0.5", "--output", "json"],
                         check=True, capture_output=True)
    r = plackett.fit_adherence(plackett.read_csv(f), pseudo=0.5)
    assert r.to_json() == out.stdout.decode()
    assert r.rankers == ["judge 1", "judge 2", "judge 3", "judge 4"]
    assert r.adherence.shape == (4,)
    # The same rankers given as a list for list-of-lists data.
    r2 = plackett.fit_adherence(TRIPLES, pseudo=0.5,
                                rankers=[f"judge {k // 2 + 1}" for k in range(8)])
    np.testing.assert_allclose(r2.adherence, r.adherence, rtol=0, atol=1e-10)
    assert pickle.loads(pickle.dumps(r)).to_json() == r.to_json()
    # A data frame's ranker column is read as the CLI reads the file's.
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(f)
    assert plackett.fit_adherence(frame, pseudo=0.5).to_json() == out.stdout.decode()
    bad = frame.assign(ranker=frame["ranker"].where(frame.index != 1, "judge 9"))
    with pytest.raises(ValueError, match=r"^ranking 1: column 'ranker' must hold one ranker per ranking$"):
        plackett.fit_adherence(bad, pseudo=0.5)


def test_plackettluce_reference_fit():
    # PlackettLuce(R, gamma = list(shape = 100, rate = 100)), npseudo = 0.5.
    r = plackett.fit_adherence(TRIPLES, adherence_prior={"shape": 100, "rate": 100}, pseudo=0.5)
    worth = np.array([2.20098389, 1.47977409, 0.2832371, 0.19216854])
    order = [r.items.index(n) for n in ["apple", "banana", "orange", "pear"]]
    lw = r.log_worth[order]
    np.testing.assert_allclose(lw - lw.mean(), np.log(worth) - np.log(worth).mean(), atol=3e-4)
    np.testing.assert_allclose(
        r.adherence,
        [0.99560284, 0.99597636, 0.99080292, 0.99560284, 0.97604704, 0.99166396, 0.99157188, 0.99266463],
        atol=5e-5)
    assert abs(r.log_posterior - -810.73244092) < 1e-6
    s = r.summary()
    assert list(s["ranker"]) == [str(k) for k in range(1, 9)]


@pytest.mark.parametrize("kwargs,needle", [
    ({"adherence_prior": {"shape": 0.5, "rate": 1}}, "at least 1"),
    ({"adherence_prior": {"shape": 2, "rate": 0}}, "positive"),
    ({"adherence_prior": {"shape": 2, "scale": 1}}, "unknown keys"),
    ({"engine": "ep"}, "not supported"),
    ({"engine": "gibbs", "fixed": [1.0] * 8}, "not supported"),
    ({"engine": "gibbs", "samples": 2}, "samples"),
    ({"prior": {"shape": 2, "rate": 1}}, "only with engine"),
    ({"fixed": [1.0, 2.0]}, "8 rankers"),
    ({"fixed": [1.0] * 7 + [-1.0]}, "positive"),
    ({"rankers": ["a", "b"]}, "2 rankers for 8 observations"),
    ({"rankers": ["a"] * 7 + [""]}, "empty name"),
])
def test_bad_adherence_input_raises(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        plackett.fit_adherence(TRIPLES, pseudo=0.5, **kwargs)
    with pytest.raises(TypeError):
        plackett.fit_adherence(TRIPLES, rankers="abc")


def test_adherence_sampler_equals_cli_json(tmp_path):
    """engine="gibbs": the same posterior summaries as `plackett fit
    --adherence --engine gibbs` for the same seed, and the sds, intervals
    and diagnostics as numpy arrays and a dict."""
    f = write_csv(tmp_path, rankers=True)
    args = ["--samples", "800", "--burn-in", "200", "--chains", "2", "--seed", "4"]
    out = subprocess.run([BIN, "fit", f, "--adherence", "--engine", "gibbs", *args,
                          "--output", "json"], check=True, capture_output=True)
    r = plackett.fit_adherence(plackett.read_csv(f), engine="gibbs", samples=800,
                               burn_in=200, chains=2, seed=4)
    assert r.to_json() == out.stdout.decode()
    assert r.log_worth_sd.shape == (4,) and (r.log_worth_sd > 0).all()
    assert r.adherence_interval.shape == (4, 2)
    lo, hi = r.adherence_interval[:, 0], r.adherence_interval[:, 1]
    assert (lo < r.adherence).all() and (r.adherence < hi).all()
    assert r.diagnostics["chains"] == 2 and r.diagnostics["rhat_max"] < 1.1
    assert pickle.loads(pickle.dumps(r)).to_json() == r.to_json()
    point = plackett.fit_adherence(plackett.read_csv(f), engine="map")
    assert point.log_worth_sd is None and point.diagnostics is None
    with pytest.raises(TypeError):
        plackett.fit_adherence(TRIPLES, engine="gibbs", samples=1.5)


@pytest.mark.parametrize("engine,extra", [
    ("mle", []),
    ("gibbs", ["--samples", "400", "--burn-in", "200", "--chains", "2", "--seed", "3"]),
])
def test_adherence_model_predicts_as_the_cli(tmp_path, engine, extra):
    """`AdherenceResult.model()` is the file `fit --adherence --model-out`
    writes, and `AdherenceModel.predict` / `compare` equal `plackett
    predict`: known rankers at their adherence, data without rankers as new
    rankers under the prior."""
    f = write_csv(tmp_path, rankers=True)
    plain = write_csv(tmp_path, rankers=False)
    path = str(tmp_path / f"adherence-{engine}.json")
    subprocess.run([BIN, "fit", f, "--adherence", "--pseudo", "0.5", "--engine", engine, *extra,
                    "--model-out", path], check=True, capture_output=True)
    kw = {"samples": 400, "burn_in": 200, "chains": 2, "seed": 3} if engine == "gibbs" else {}
    r = plackett.fit_adherence(plackett.read_csv(f), pseudo=0.5, engine=engine, **kw)
    m = r.model()
    assert m.to_json() == pathlib.Path(path).read_text(encoding="utf-8")
    loaded = plackett.load_model(path)
    assert isinstance(loaded, plackett.AdherenceModel)
    assert loaded.rankers == r.rankers and loaded.prior == (10.0, 10.0)
    for data in (f, plain):
        out = subprocess.run([BIN, "predict", path, data, "--compare", "apple,pear",
                              "--compare", "apple,banana,orange", "--output", "json"],
                             check=True, capture_output=True)
        doc = json.loads(out.stdout)
        lp = loaded.predict(plackett.read_csv(data, items=loaded.items))
        np.testing.assert_array_equal(lp, [o["log_probability"] for o in doc["observations"]])
        # A data frame's ranker column names the rankers as the file's does.
        pd = pytest.importorskip("pandas")
        np.testing.assert_array_equal(loaded.predict(pd.read_csv(data)), lp)
        assert doc["new_ranker_observations"] == (0 if data == f else len(TRIPLES))
        assert loaded.compare("apple", "pear") == doc["comparisons"][0]["probability"]
        p = loaded.choice_probabilities(["apple", "banana", "orange"])
        np.testing.assert_array_equal(p, [c["probability"] for c in doc["choices"][0]["items"]])
    # Rankers given as a list name the same rankers as the file's column.
    named = loaded.predict(plackett.read_csv(plain, items=loaded.items),
                           rankers=[f"judge {k // 2 + 1}" for k in range(8)])
    np.testing.assert_array_equal(named, loaded.predict(plackett.read_csv(f, items=loaded.items)))
    # A ranker of the model chooses by its own adherence.
    out = subprocess.run([BIN, "predict", path, f, "--compare", "apple,pear",
                          "--as-ranker", "judge 2", "--output", "json"],
                         check=True, capture_output=True)
    assert loaded.compare("apple", "pear", ranker="judge 2") == \
        json.loads(out.stdout)["comparisons"][0]["probability"]
    with pytest.raises(KeyError, match="no ranker named"):
        loaded.compare("apple", "pear", ranker="nobody")
    with pytest.raises(ValueError, match="model's items"):
        loaded.predict(plackett.read_csv(f, items=loaded.items[::-1]))


def test_report_is_the_clis_page(tmp_path):
    """`AdherenceResult.report(path)` writes the page of `plackett fit
    --adherence --report` (but for its title and the data file's name);
    a bad path raises and writes nothing."""
    f = write_csv(tmp_path, rankers=True)
    args = ["--samples", "400", "--burn-in", "100", "--chains", "2", "--seed", "5"]
    cli_page = tmp_path / "cli.html"
    subprocess.run([BIN, "fit", f, "--adherence", "--engine", "gibbs", *args,
                    "--report", str(cli_page)], check=True, capture_output=True)
    r = plackett.fit_adherence(plackett.read_csv(f), engine="gibbs", samples=400,
                               burn_in=100, chains=2, seed=5)
    page = tmp_path / "py.html"
    r.report(page)
    counts = "4 items, 8 observations, 4 rankers"
    strip = lambda s: s.split("</h1>", 1)[1]  # noqa: E731
    cli = strip(cli_page.read_text()).replace(f"{f} ({counts})", counts)
    assert strip(page.read_text()) == cli
    assert "Adherence of each ranker" in cli and cli.count("<svg") == 2
    r.report(str(tmp_path / "again.html"))
    assert (tmp_path / "again.html").read_text() == page.read_text()
    with pytest.raises(TypeError):
        r.report(3)
    with pytest.raises(ValueError, match="x.html"):
        r.report(tmp_path / "no" / "such" / "x.html")
    assert not (tmp_path / "no").exists()


def test_rank_marginals_equal_the_clis(tmp_path):
    """`AdherenceModel.rank_marginals()` (a new ranker) is the CSV of `fit
    --adherence --rank-marginals` for the same seed; a ranker of the model
    by name; rows sum to 1; bad arguments raise."""
    f = write_csv(tmp_path, rankers=True)
    rm_path, model = tmp_path / "rm.csv", tmp_path / "m.json"
    subprocess.run([BIN, "fit", f, "--adherence", "--engine", "gibbs", "--samples", "300",
                    "--burn-in", "100", "--chains", "2", "--seed", "9",
                    "--rank-marginals", str(rm_path), "--model-out", str(model)],
                   check=True, capture_output=True)
    rows = [line.split(",") for line in rm_path.read_text().splitlines()[1:]]
    m = plackett.load_model(str(model))
    got = m.rank_marginals(seed=9)
    order = [m.items.index(r[0]) for r in rows]
    np.testing.assert_array_equal(got[order], np.array([[float(x) for x in r[1:]] for r in rows]))
    mine = m.rank_marginals(50_000, 3, ranker="judge 2")
    assert mine.shape == (4, 4)
    np.testing.assert_allclose(mine.sum(axis=1), 1.0, atol=1e-12)
    first = m.choice_probabilities(m.items, ranker="judge 2")
    np.testing.assert_allclose(mine[:, 0], first, atol=0.01)
    with pytest.raises(KeyError):
        m.rank_marginals(ranker="nobody")
    with pytest.raises(ValueError, match="races"):
        m.rank_marginals(0)
    with pytest.raises(ValueError, match="seed"):
        m.rank_marginals(seed=-1)


def test_adherence_model_predicts_plain_rankings():
    """AdherenceModel.predict reads lists over the model's items, as a
    Dataset read with items=model.items, with or without rankers."""
    train = [["A", "B", "C"], ["B", "A", "C"], ["A", "C", "B"], ["C", "B", "A"]] * 3
    m = plackett.fit_adherence(train).model()
    test = [["A", "B"], ["C", "A", "B"]]
    ds = plackett.rankings(test, items=m.items)
    np.testing.assert_array_equal(m.predict(test), m.predict(ds))
    np.testing.assert_array_equal(m.predict(test, rankers=["1", "2"]), m.predict(ds, rankers=["1", "2"]))
