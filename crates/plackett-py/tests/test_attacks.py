"""Hostile and careless calls found by an adversarial run, one row of a
table each: what was given, and the exception (type and message) it must
raise — never a crash of the interpreter, a silent fallback, NaN or a run
that does not end. The Python counterpart of the CLI's attack table
(crates/plackett-cli/tests/commands/attacks.rs); bad input of every type
is fuzzed in test_bad_input_fuzz.py."""
import os

import numpy as np
import pytest

import plackett as pk

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
WINE = os.path.join(ROOT, "data", "uci", "wine.csv")
SELECTORS = os.path.join(ROOT, "data", "dermatology-ddx", "dermatology_selectors.json")

# Thirty rankings that are one 20-way tie; the same tie above one more item.
ALL_TIED = [[list(range(20))] for _ in range(30)]
TIE_THEN_ONE = [[list(range(20)), 20] for _ in range(30)]
RANGE = "expected at most 1e10"


def wine():
    import pandas as pd

    t = pd.read_csv(WINE)
    return t.drop(columns="class").to_numpy(), t["class"].to_numpy()


def selectors():
    return pk.selectors(SELECTORS)


ATTACKS = {
    # Extreme options that printed 10³⁰⁵, 200-digit numbers or NaN.
    "classifier em shape 1e308": (lambda: pk.PLClassifier(method="em", a=1e308).fit(*wine()), ValueError, RANGE),
    "classifier gibbs shape 1e308": (
        lambda: pk.PLClassifier(method="gibbs", a=1e308, samples=50, burn_in=10).fit(*wine()),
        ValueError,
        RANGE,
    ),
    "classifier vb shape 1e11": (lambda: pk.PLClassifier(method="vb", a=1e11).fit(*wine()), ValueError, RANGE),
    "classifier rate 1e300": (lambda: pk.PLClassifier(b=1e300).fit(*wine()), ValueError, RANGE),
    "aggregate shape 1e308": (
        lambda: pk.aggregate(selectors(), prior_shape=1e308, samples=20, burn_in=5),
        ValueError,
        RANGE,
    ),
    "aggregate prirn 1e-320": (
        lambda: pk.aggregate(selectors(), method="prirn", reliability=1e-320, samples=20),
        ValueError,
        "PrIRN concentration must be between 1e-10 and 1e10",
    ),
    # Mixtures on all-tied data: a component of weight 0 with worths, or
    # minutes in the 20-item subset recursion.
    "mixture em all tied": (lambda: pk.fit_mixture(pk.rankings(ALL_TIED), 2), ValueError, "no informative observations"),
    "mixture gibbs all tied": (
        lambda: pk.fit_mixture(pk.rankings(ALL_TIED), 2, "gibbs", samples=50, burn_in=10),
        ValueError,
        "no informative observations",
    ),
    "mixture map 20-way tie": (
        lambda: pk.fit_mixture(pk.rankings(TIE_THEN_ONE), "1:3", "map"),
        ValueError,
        "groups above 12 items are refused",
    ),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_each_attack_raises_a_one_line_error(name):
    call, kind, needle = ATTACKS[name]
    with pytest.raises(kind) as e:
        call()
    msg = str(e.value)
    assert needle in msg, msg
    assert "\n" not in msg.strip(), msg


def test_allowed_extremes_finish_with_finite_numbers():
    """The largest allowed shape (VB's intervals took minutes at 10⁸) and
    PrIRN's smallest concentration return finite results."""
    X, y = wine()
    for method in ("vb", "gibbs"):
        kw = dict(samples=100, burn_in=50) if method == "gibbs" else {}
        m = pk.PLClassifier(method=method, a=1e10, **kw).fit(X, y)
        assert np.all(np.isfinite(m.predict_proba(X)))
    r = pk.aggregate(selectors(), method="prirn", reliability=1e-10, samples=20)
    assert np.all(np.isfinite(r.certainty))


def test_absurd_warm_starts_are_refused(tmp_path):
    """``mil_fit(init=...)`` from means of 10²⁰⁰ never ended; more than 1000
    prior sds from 0 is refused for both engines."""
    import json

    bags = tmp_path / "bags.csv"
    pk.mil_simulate(bags=30, features=2, seed=3).to_csv(bags, index=False)
    model = pk.mil_fit(str(bags)).model()
    doc = json.loads(model.to_json())
    for q in doc["parameters"]:
        q["mean"] = q["lower"] = q["upper"] = 1e200
    far = tmp_path / "far.json"
    far.write_text(json.dumps(doc))
    far_model = pk.load_mil_model(str(far))
    for engine, kw in (("vb", {}), ("gibbs", dict(samples=20, burn_in=10, chains=1))):
        with pytest.raises(ValueError, match="more than 1000 prior sds"):
            pk.mil_fit(str(bags), engine=engine, init=far_model, **kw)
