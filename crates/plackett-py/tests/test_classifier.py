"""PLClassifier (Archambeau & Caron 2012) as a scikit-learn estimator."""
import csv
import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import plackett
from plackett import PLClassifier

sklearn = pytest.importorskip("sklearn")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
IRIS = os.path.join(ROOT, "data", "uci", "iris.csv")
BIN = os.environ.get("PLACKETT_BIN", os.path.join(ROOT, "target", "release", "plackett"))


def iris():
    rows = list(csv.DictReader(open(IRIS)))
    X = np.array([[float(r[k]) for k in rows[0] if k != "class"] for r in rows])
    y = np.array([r["class"] for r in rows])
    return X, y


def test_check_estimator_passes():
    from sklearn.utils.estimator_checks import check_estimator

    # Every applicable check passes; scikit-learn itself skips the array-API
    # check unless SCIPY_ARRAY_API is set (plackett takes numpy arrays only).
    results = check_estimator(PLClassifier(), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])) for r in results if r["status"] == "failed"]
    assert failed == []
    assert sum(r["status"] == "passed" for r in results) >= 50


def test_em_weights_equal_the_cli_model(tmp_path):
    X, y = iris()
    model = tmp_path / "m.json"
    subprocess.run([BIN, "classify", "fit", IRIS, "--engine", "em", "--model-out", str(model)],
                   check=True, capture_output=True)
    cli = json.loads(model.read_text())
    clf = PLClassifier(method="em").fit(X, y)
    order = [cli["classes"].index(c) for c in clf.classes_]
    np.testing.assert_allclose(clf.weights_, np.array(cli["weights"])[order], rtol=1e-10, atol=1e-14)
    p = clf.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    # Single-feature transforms only (no pairwise): about 0.83 in sample.
    assert clf.score(X, y) > 0.8


def test_pipeline_and_cross_val_score():
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = iris()
    pipe = make_pipeline(StandardScaler(), PLClassifier(method="vb"))
    s = cross_val_score(pipe, X, y, cv=3)
    assert s.shape == (3,) and s.mean() > 0.75
    g = PLClassifier(method="gibbs", samples=200, burn_in=200, chains=2, seed=3)
    assert g.get_params()["samples"] == 200
    g.set_params(samples=150)
    g.fit(X, y)
    g2 = pickle.loads(pickle.dumps(g))
    np.testing.assert_array_equal(g.predict_proba(X), g2.predict_proba(X))
    again = PLClassifier(method="gibbs", samples=150, burn_in=200, chains=2, seed=3).fit(X, y)
    np.testing.assert_array_equal(g.predict_proba(X), again.predict_proba(X))


def test_classifier_bad_input():
    X, y = iris()
    with pytest.raises(ValueError, match="method"):
        PLClassifier(method="svm").fit(X, y)
    with pytest.raises(ValueError, match="`?a`?|shape"):
        PLClassifier(a=-1.0).fit(X, y)
    with pytest.raises(ValueError):
        PLClassifier().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="4 features"):
        PLClassifier().fit(X, y).predict(X[:, :2])


def test_classifier_shape_default_and_learn():
    # One default model for every method (a = 1, as the CLI's --prior-shape);
    # "learn" samples it (gibbs) and is refused by em, which fixes it.
    X, y = iris()
    g = PLClassifier(method="gibbs", samples=100, burn_in=100, chains=1, seed=2).fit(X, y)
    one = PLClassifier(method="gibbs", a=1.0, samples=100, burn_in=100, chains=1, seed=2).fit(X, y)
    np.testing.assert_array_equal(g.predict_proba(X), one.predict_proba(X))
    learnt = PLClassifier(method="gibbs", a="learn", samples=100, burn_in=100, chains=1, seed=2).fit(X, y)
    assert learnt.predict_proba(X).shape == (len(y), 3)
    with pytest.raises(ValueError, match="em fixes"):
        PLClassifier(method="em", a="learn").fit(X, y)
    with pytest.raises(ValueError, match="learn"):
        PLClassifier(a="sometimes").fit(X, y)
