"""Finite PL mixtures (Mollica & Tardella 2017) from Python: parity with
`plackett fit --components`, PLMIX's maxima when its data are present."""

import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import plackett

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.environ.get("PLACKETT_BIN", os.path.join(ROOT, "target", "release", "plackett"))
PLMIX = os.path.join(ROOT, "..", "shared", "data", "plmix")


def two_populations(tmp_path):
    a = ["1,2,3,4", "1,2,4,3", "2,1,3,4", "1,3,2,4", "1,2,0,0"]
    b = ["4,3,2,1", "4,3,1,2", "3,4,2,1", "4,2,3,1", "4,3,0,0"]
    rows = ["Rank_1,Rank_2,Rank_3,Rank_4"]
    for k in range(60):
        rows.append(a[k % 5])
        if k % 3:
            rows.append(b[k % 5])
    p = tmp_path / "two.csv"
    p.write_text("\n".join(rows) + "\n")
    return str(p)


def test_mixture_equals_cli_json(tmp_path):
    f = two_populations(tmp_path)
    out = subprocess.run([BIN, "fit", f, "--format", "orderings", "--top-k", "--components", "1:3",
                          "--seed", "4", "--output", "json"], check=True, capture_output=True)
    d = plackett.read_orderings(f, top_k=True)
    r = plackett.fit_mixture(d, "1:3", seed=4)
    assert r.to_json() == out.stdout.decode()
    assert r.components == 2
    assert r.weights.shape == (2,) and r.log_worth.shape == (2, 4) and r.membership.shape == (100, 2)
    np.testing.assert_allclose(r.membership.sum(axis=1), 1.0)
    np.testing.assert_allclose(r.worth.sum(axis=1), 1.0)
    mc = r.model_choice()
    assert list(mc["components"]) == [1, 2, 3]
    assert int(np.argmin(np.asarray(mc["bic"]))) == 1
    # The same through fit(components=...), a range object and a tuple.
    assert plackett.fit(d, components=range(1, 4), seed=4).to_json() == r.to_json()
    assert plackett.fit_mixture(d, (1, 3), seed=4).to_json() == r.to_json()
    s = r.summary()
    assert list(s["component"])[:4] == [1, 1, 1, 1]
    p = r.compare("1", "4")
    assert 0 < p < 1 and abs(p + r.compare("4", "1") - 1) < 1e-12
    assert r.predictive_log_likelihood(d) == pytest.approx(r.log_likelihood, rel=1e-12)


def test_mixture_pickles_bit_for_bit(tmp_path):
    d = plackett.read_orderings(two_populations(tmp_path), top_k=True)
    r = plackett.fit_mixture(d, 2, "map", prior={"shape": 2, "rate": 1}, dirichlet=2)
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.to_json() == r.to_json()
    np.testing.assert_array_equal(r2.membership, r.membership)
    assert r.engine == "map"


@pytest.mark.parametrize(
    "kwargs, exc, fragment",
    [
        (dict(components=0), ValueError, "components"),
        (dict(components="x"), ValueError, "components"),
        (dict(components="3:1"), ValueError, "components"),
        (dict(components=True), ValueError, "components"),
        (dict(components=2, engine="ep"), ValueError, "not supported"),
        (dict(components=2, engine="gibbs", tol=1e-5), ValueError, "tol"),
        (dict(components=2, samples=100), ValueError, "only with engine"),
        (dict(components=2, engine="nope"), ValueError, "engine"),
        (dict(components=2, prior={"shape": 3}), ValueError, "only with engine"),
        (dict(components=2, engine="map", prior={"shape": 0.5}), ValueError, "prior_shape"),
        (dict(components=2, engine="map", dirichlet=0.5), ValueError, "dirichlet"),
        (dict(components=2, starts=0), ValueError, "starts"),
        (dict(components=2, prior=3), TypeError, "prior"),
    ],
)
def test_mixture_bad_input(kwargs, exc, fragment, tmp_path):
    d = plackett.read_orderings(two_populations(tmp_path), top_k=True)
    with pytest.raises(exc) as e:
        plackett.fit_mixture(d, **kwargs)
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


def test_mixture_gibbs_equals_cli_json(tmp_path):
    f = two_populations(tmp_path)
    out = subprocess.run([BIN, "fit", f, "--format", "orderings", "--top-k", "--components", "2",
                          "--engine", "gibbs", "--samples", "300", "--burn-in", "100", "--chains", "2",
                          "--seed", "5", "--output", "json"], check=True, capture_output=True)
    d = plackett.read_orderings(f, top_k=True)
    r = plackett.fit_mixture(d, 2, "gibbs", samples=300, burn_in=100, chains=2, seed=5)
    # Notes name parameters in each front end's spelling (--samples / samples).
    cli_js, py_js = json.loads(out.stdout), json.loads(r.to_json())
    assert [n.replace("--", "") for n in cli_js.pop("notes")] == py_js.pop("notes")
    assert cli_js == py_js
    js = json.loads(r.to_json())
    assert js["model_choice"][0]["dic"] == r.dic and r.bpic > r.dic
    assert r.weight_sd.shape == (2,) and r.log_worth_sd.shape == (2, 4)
    assert r.draws["weights"].shape == (2, 300, 2)
    assert r.draws["log_worth"].shape == (2, 300, 2, 4)
    np.testing.assert_allclose(r.draws["weights"].mean(axis=(0, 1)), r.weights, rtol=1e-12)
    pc = r.predictive_checks()
    assert list(pc["top1"]["item"]) == ["1", "2", "3", "4"]
    assert (np.asarray(pc["top1"]["low"]) <= np.asarray(pc["top1"]["high"])).all()
    assert len(pc["pairs"]) == 12
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.to_json() == r.to_json()
    assert plackett.fit_mixture(d, 2).predictive_checks() is None


def test_mixture_report_is_the_clis_page(tmp_path):
    """`MixtureResult.report(path)` writes the page of `plackett fit
    --components … --report` (Gibbs: the notes name options in each front
    end's spelling); a bad path raises and writes nothing."""
    f = two_populations(tmp_path)
    cli_page, page = tmp_path / "cli.html", tmp_path / "py.html"
    subprocess.run([BIN, "fit", f, "--format", "orderings", "--top-k", "--components", "1:3",
                    "--seed", "4", "--report", str(cli_page)], check=True, capture_output=True)
    d = plackett.read_orderings(f, top_k=True)
    r = plackett.fit_mixture(d, "1:3", seed=4)
    r.report(page)
    # The same page but for its title, which names the CLI's data file
    # (issue 91 item 35); Python's data have no file.
    cli_text = cli_page.read_text()
    assert page.read_text().split("</h1>", 1)[1] == cli_text.split("</h1>", 1)[1]
    assert f"<h1>Plackett–Luce mixture of {f}: " in cli_text
    assert "Model choice" in page.read_text() and "<svg" in page.read_text()
    subprocess.run([BIN, "fit", f, "--format", "orderings", "--top-k", "--components", "2",
                    "--engine", "gibbs", "--samples", "300", "--burn-in", "100", "--chains", "2",
                    "--seed", "5", "--report", str(cli_page)], check=True, capture_output=True)
    g = plackett.fit_mixture(d, 2, "gibbs", samples=300, burn_in=100, chains=2, seed=5)
    g.report(str(page))
    body = lambda text: text.split("</h1>", 1)[1]  # noqa: E731 (the title names the CLI's file)
    assert body(page.read_text()) == body(cli_page.read_text()).replace("--", "")
    with pytest.raises(TypeError):
        r.report(3)
    with pytest.raises(ValueError, match="x.html"):
        r.report(tmp_path / "no" / "such" / "x.html")
    assert not (tmp_path / "no").exists()


@pytest.mark.skipif(not os.path.isdir(PLMIX), reason="../shared/data/plmix not present (PLMIX's data are never shipped)")
def test_plmix_gaming_maxima():
    d = plackett.read_orderings(os.path.join(PLMIX, "d_gaming.csv"), top_k=True)
    r = plackett.fit_mixture(d, "1:3")
    ll = list(r.model_choice()["log_likelihood"])
    np.testing.assert_allclose(ll, [-546.822488, -521.682255, -506.957252], atol=1e-4)
    np.testing.assert_allclose(r.weights, [0.5056, 0.2988, 0.1956], atol=1e-3)


def test_saved_mixture_equals_the_cli(tmp_path):
    # result.model() is the file `fit --components G --model-out` writes
    # (byte for byte); load_model reads it back as a MixtureModel whose
    # predictions and memberships are `plackett predict`'s and, on the
    # training data, the fit's own (top-k rankings of a two-population mix).
    f = two_populations(tmp_path)
    mfile = tmp_path / "mx.json"
    rmfile = tmp_path / "rm.csv"
    subprocess.run([BIN, "fit", f, "--format", "orderings", "--top-k", "--components", "2",
                    "--seed", "4", "--model-out", str(mfile), "--rank-marginals", str(rmfile)],
                   check=True, capture_output=True)
    d = plackett.read_orderings(f, top_k=True)
    r = plackett.fit_mixture(d, 2, seed=4)
    m = r.model()
    assert m.to_json() == mfile.read_text()
    loaded = plackett.load_model(str(mfile))
    assert isinstance(loaded, plackett.MixtureModel) and loaded.items == r.items
    np.testing.assert_allclose(loaded.weights, r.weights)
    np.testing.assert_allclose(loaded.log_worth, r.log_worth)
    data = plackett.read_orderings(f, top_k=True, items=loaded.items)
    lp = loaded.predict(data)
    out = subprocess.run([BIN, "predict", str(mfile), f, "--format", "orderings", "--top-k",
                          "--output", "json"], check=True, capture_output=True)
    js = json.loads(out.stdout)
    np.testing.assert_allclose(lp, [o["log_probability"] for o in js["observations"]], rtol=1e-13)
    mem = loaded.membership(data)
    np.testing.assert_allclose(mem, [o["membership"] for o in js["observations"]], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(mem, r.membership, atol=1e-9)
    assert lp.sum() == pytest.approx(r.log_likelihood, rel=1e-10)  # unit weights here
    assert loaded.compare("1", "4") == pytest.approx(r.compare("1", "4"), rel=1e-12)
    p = loaded.choice_probabilities(["1", "2", "4"])
    assert p.shape == (3,) and p.sum() == pytest.approx(1.0, abs=1e-12)
    # Rank marginals for a ranker drawn from the population: the CLI's for
    # the same seed, from the result and from the loaded file alike; the
    # first place's column is the exact first choice up to Monte Carlo error.
    want = np.loadtxt(rmfile, delimiter=",", skiprows=1, usecols=range(1, 5))
    np.testing.assert_allclose(r.rank_marginals(seed=4), want, rtol=1e-12)
    rm = loaded.rank_marginals(seed=4)
    np.testing.assert_allclose(rm, want, rtol=1e-12)
    np.testing.assert_allclose(rm.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(rm[:, 0], loaded.choice_probabilities(loaded.items), atol=0.018)
    with pytest.raises(ValueError, match="races"):
        loaded.rank_marginals(races=0)
    bad = tmp_path / "bad.json"
    bad.write_text(mfile.read_text().replace('"weights":[', '"weights":[7,'))
    with pytest.raises(ValueError, match="weight"):
        plackett.load_model(str(bad))
    with pytest.raises(ValueError, match="items"):
        loaded.predict(plackett.read_orderings(f, top_k=True, items=["4", "3", "2", "1"]))


# Items 0-3 and 4-5 never compared with each other, item 4 never losing, and
# one single-item observation.
DISCONNECTED = [[0, 1], [1, 0], [0, 1], [2, 3], [3, 2], [2, 3], [4, 5, 2], [0, 1], [3, 2], [1]]


def test_mixture_mle_refuses_data_without_a_maximum():
    """Hunter (2004)'s Assumption 1 of the pooled data, as for one population."""
    for g in (1, 2):
        with pytest.raises(ValueError, match=r"mixture's maximum-likelihood estimate does not exist.*never lost to anyone: 4; remedies: engine=\"map\""):
            plackett.fit_mixture(DISCONNECTED, g)


def test_map_mixture_carries_the_data_notes():
    for g in (1, 2):
        notes = plackett.fit_mixture(DISCONNECTED, g, "map").notes
        assert any("1 uninformative observation was dropped" in n for n in notes), notes
        assert any(
            "2 groups never compared with each other (sizes 4, 2): worth contrasts between groups come from the prior alone" in n
            for n in notes
        ), notes
