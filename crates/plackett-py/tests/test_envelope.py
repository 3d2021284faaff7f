"""The one result contract (issue 86): every family's result carries the
same envelope — family, engine, converged, iterations, n_observations,
notes, diagnostics — as attributes, as ``result.envelope``, and as the
first keys of its JSON document, equal to what the CLI's ``--output json``
prints first (crates/plackett-cli/tests/conformance.rs)."""
import json

import numpy as np
import pandas as pd
import pytest

import plackett as pk

RANKINGS = [[0, 1, 2], [2, 1], [1, 0, 2], [0, 2], [1, 2, 0], [0, 1]]
SEL = [[[[0], [1, 2]], [[1]]], [[[2]], [[2, 0]]]]
DOC = ("Bayesian ranking models use a posterior over worth parameters. The Plackett-Luce "
       "model ranks items by worth. Posterior inference for worth.")


def bags():
    rng = np.random.default_rng(1)
    rows = [{"bag": f"b{b}", "label": b % 2, "modality": 0, "m0_a": rng.normal() + b % 2, "m0_b": rng.normal()}
            for b in range(12) for _ in range(3)]
    return pd.DataFrame(rows)


def classifier_model(method):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    kw = dict(samples=200, burn_in=100, chains=2) if method == "gibbs" else {}
    return pk.PLClassifier(method=method, **kw).fit(X, y).model_


RESULTS = {
    "ranking mle": ("ranking", lambda: pk.fit(pk.rankings(RANKINGS))),
    "ranking gibbs": ("ranking", lambda: pk.fit(pk.rankings(RANKINGS), "gibbs", samples=200, burn_in=100, chains=2)),
    "mixture": ("mixture", lambda: pk.fit_mixture(pk.rankings(RANKINGS), 2)),
    "adherence": ("adherence", lambda: pk.fit_adherence(pk.rankings(RANKINGS), pseudo=0.5)),
    "classifier em": ("classifier", lambda: classifier_model("em")),
    "classifier gibbs": ("classifier", lambda: classifier_model("gibbs")),
    "ground truth": ("ground_truth", lambda: pk.aggregate(SEL, samples=50, burn_in=10)),
    "keywords": ("keywords", lambda: pk.extract_keywords(DOC, ["worth"])),
    "mil vb": ("mil", lambda: pk.mil_fit(bags())),
    "mil gibbs": ("mil", lambda: pk.mil_fit(bags(), engine="gibbs", samples=100, burn_in=50, chains=2)),
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_every_result_carries_the_envelope(name):
    family, make = RESULTS[name]
    r = make()
    env = r.envelope
    assert tuple(env) == pk.ENVELOPE_KEYS
    assert env["family"] == family
    assert isinstance(env["engine"], str) and env["engine"]
    assert isinstance(env["converged"], bool)
    assert env["iterations"] is None or (isinstance(env["iterations"], int) and env["iterations"] >= 0)
    assert isinstance(env["n_observations"], int) and env["n_observations"] > 0
    assert isinstance(env["notes"], list) and all(isinstance(n, str) for n in env["notes"])
    assert isinstance(env["diagnostics"], dict)
    for key in pk.ENVELOPE_KEYS:
        if key == "diagnostics" and isinstance(r, (pk.FitResult, pk.AdherenceResult)):
            continue  # their own diagnostics (per item; the sampler's record) predate the envelope
        assert getattr(r, key) == env[key], key
    doc = getattr(r, "to_json", None)
    if doc is not None:
        d = json.loads(doc())
        if "family" in d:
            assert {k: d[k] for k in pk.ENVELOPE_KEYS} == env
            assert list(d)[: len(pk.ENVELOPE_KEYS)] == list(pk.ENVELOPE_KEYS)


def test_samplers_converge_by_one_rule():
    """A sampler's ``converged`` is the envelope's rule for every family:
    split-R̂ ≤ 1.01 and bulk ESS ≥ 400 (Vehtari et al. 2021)."""
    for name in ("ranking gibbs", "classifier gibbs", "mil gibbs"):
        env = RESULTS[name][1]().envelope
        d = env["diagnostics"]
        rule = d["rhat_max"] <= d["rhat_threshold"] and d["ess_min"] >= d["ess_threshold"]
        assert env["converged"] == rule, name
