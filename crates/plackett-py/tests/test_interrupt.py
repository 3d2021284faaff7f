"""Ctrl-C stops every long call within a few seconds with KeyboardInterrupt,
and the package works afterwards (issue: "interrupts everywhere"). Each
call below would run for minutes if not interrupted."""

import _thread
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest

import plackett as pk

DOC = " ".join(
    ["Bayesian ranking models use a posterior over worth parameters.",
     "The Plackett-Luce model ranks items by worth; posterior inference for worth",
     "uses Gibbs sampling, expectation propagation or variational Bayes."] * 20)


def bags():
    rng = np.random.default_rng(1)
    rows = [{"bag": f"b{b}", "label": b % 2, "modality": 0, "m0_a": rng.normal() + b % 2,
             "m0_b": rng.normal()} for b in range(40) for _ in range(4)]
    return pd.DataFrame(rows)


def rankings():
    rng = np.random.default_rng(2)
    return [list(rng.permutation(8)[:5]) for _ in range(300)]


def iris_like():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + rng.normal(size=150) > 0).astype(int) + (X[:, 1] > 1).astype(int)
    return X, y


def derm():
    import os
    d = os.path.join(os.path.dirname(__file__), "..", "..", "..", "data", "dermatology-ddx")
    return pk.selectors(os.path.join(d, "dermatology_selectors.json"),
                        classes=os.path.join(d, "dermatology_conditions.txt"))


def classifier_gibbs():
    from plackett import PLClassifier
    X, y = iris_like()
    PLClassifier(engine="gibbs", samples=10, burn_in=10**8, chains=1).fit(X, y)


CALLS = {
    "fit gibbs": lambda: pk.fit(rankings(), "gibbs", samples=10, burn_in=10**8),
    "fit_mixture gibbs": lambda: pk.fit_mixture(rankings(), 2, "gibbs", samples=10, burn_in=10**8),
    "fit_mixture em": lambda: pk.fit_mixture(rankings(), "1:5", starts=10**4),
    "fit_adherence gibbs": lambda: pk.fit_adherence(rankings(), "gibbs", rankers=[i % 20 for i in range(300)],
                                                    samples=10, burn_in=10**8),
    "evaluate": lambda: pk.evaluate(derm(), "annotator:leave-one-out", samples=10**5),
    "mil_study": lambda: pk.mil_study(replicates=10**4),
    "PLClassifier gibbs": classifier_gibbs,
    "mil_fit gibbs": lambda: pk.mil_fit(bags(), engine="gibbs", samples=10, burn_in=10**8),
    "mil_cv gibbs": lambda: pk.mil_cv(bags(), engine="gibbs", folds=4, samples=10, burn_in=10**8),
    "extract_keywords gibbs": lambda: pk.extract_keywords(
        DOC, "posterior, worth", engine="gibbs", samples=10, burn_in=10**8, min_count=0),
    "extract_keywords_many gibbs": lambda: pk.extract_keywords_many(
        [DOC, DOC], ["posterior", "worth"], engine="gibbs", samples=10, burn_in=10**8, min_count=0),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_long_call_stops_on_ctrl_c(name):
    # Python's own SIGINT handler, whatever an earlier test installed.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    t0 = time.time()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            CALLS[name]()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.time() - t0 < 3.5, f"{name}: {time.time() - t0:.1f} s"
    # No worker keeps running: a quick call right after is quick.
    t1 = time.time()
    pk.extract_keywords(DOC, "posterior", min_count=0)
    assert time.time() - t1 < 2.0
