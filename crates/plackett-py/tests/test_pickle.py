"""Every object the package hands back pickles and deep-copies, and comes
back bit for bit (its JSON and its numbers equal): results and models cross
process boundaries (Dask, multiprocessing, joblib) and get cached to disk."""
import copy
import os
import pickle

import numpy as np
import pytest

import plackett

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
NASCAR = os.path.join(ROOT, "data", "nascar2002", "results.csv")
SALAD = os.path.join(ROOT, "data", "salad", "rankings.csv")
SALAD_FEATURES = os.path.join(ROOT, "data", "salad", "features.csv")
SEL = os.path.join(ROOT, "data", "dermatology-ddx", "dermatology_selectors.json")
IRIS = os.path.join(ROOT, "data", "uci", "iris.csv")
DOC = os.path.join(ROOT, "data", "text", "ranking_models.txt")


def _sim():
    return plackett.simulate(items=6, rankings=60, length=4, seed=1).data


def _mil_frame():
    return plackett.mil_simulate(bags=40, instances=4, seed=1)


def _iris():
    data = np.genfromtxt(IRIS, delimiter=",", skip_header=1, dtype=str)
    return data[:, :-1].astype(float), data[:, -1]


def _bags():
    rng = np.random.default_rng(1)
    bags = [rng.normal(size=(3, 2)) + (i % 2) for i in range(12)]
    return bags, [i % 2 for i in range(12)]


FACTORIES = {
    "Dataset": _sim,
    "Simulation": lambda: plackett.simulate(items=6, rankings=60, length=4, seed=1),
    "FitResult": lambda: plackett.fit(_sim()),
    "Model": lambda: plackett.fit(_sim(), "vb").model(),
    "MixtureResult": lambda: plackett.fit_mixture(_sim(), components=2, seed=1),
    "MixtureModel": lambda: plackett.fit_mixture(_sim(), components=2, seed=1).model(),
    "AdherenceResult": lambda: plackett.fit_adherence(_sim()),
    "AdherenceModel": lambda: plackett.fit_adherence(_sim()).model(),
    "FeatureCv": lambda: plackett.cross_validate(plackett.read_csv(SALAD, ranking_col="judge"), SALAD_FEATURES,
                                                 folds=2, eta_grid="0.1:10:3"),
    "Selectors": lambda: plackett.selectors(SEL),
    "AggregateResult": lambda: plackett.aggregate(SEL, cases=[0, 1, 2], samples=50),
    "KeywordResult": lambda: plackett.extract_keywords(open(DOC, encoding="utf-8").read(),
                                                       known=["posterior", "worth"]),
    "MilFit": lambda: plackett.mil_fit(_mil_frame()),
    "MilModel": lambda: plackett.mil_fit(_mil_frame()).model(),
    "MilPrediction": lambda: plackett.mil_fit(_mil_frame()).model().predict(_mil_frame()),
    "PLClassifier": lambda: plackett.PLClassifier(method="vb").fit(*_iris()),
    "ClassifierPath": lambda: plackett.classify_path(*_iris(), "0.5,2"),
    "MILClassifier": lambda: plackett.MILClassifier().fit(*_bags()),
}


def _same(a, b):
    """Equal as far as their JSON, arrays and predictions show."""
    assert type(a) is type(b)
    if hasattr(a, "to_json"):
        assert a.to_json() == b.to_json()
    for name in ("log_worth", "draws", "p", "primary", "certainty", "coef_"):
        x = getattr(a, name, None)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(getattr(b, name), x)


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_pickles_and_deep_copies_bit_for_bit(kind):
    obj = FACTORIES[kind]()
    assert type(obj).__name__ == kind
    _same(obj, pickle.loads(pickle.dumps(obj)))
    _same(obj, copy.deepcopy(obj))


def test_saved_models_predict_the_same_after_a_round_trip():
    sim = _sim()
    for m in (plackett.fit(sim, "vb").model(), plackett.fit_mixture(sim, components=2, seed=1).model(),
              plackett.fit_adherence(sim).model()):
        back = pickle.loads(pickle.dumps(m))
        np.testing.assert_array_equal(back.predict(sim), m.predict(sim))
    fit = plackett.mil_fit(_mil_frame())
    back = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(back.primary, fit.primary)
    np.testing.assert_array_equal(back.model().predict(_mil_frame()).p, fit.model().predict(_mil_frame()).p)


def test_undefined_numbers_survive_a_round_trip(tmp_path):
    # Every instance marked primary: the training primary-instance AUROC is
    # undefined (NaN inside, null in the JSON); JSON state could not carry it.
    frame = _mil_frame()
    frame["primary"] = 1
    fit = plackett.mil_fit(frame)
    back = pickle.loads(pickle.dumps(fit))
    assert back.to_json() == fit.to_json()
    assert '"primary_auroc": null' in back.to_json()
    back.report(tmp_path / "fit.html")
    assert (tmp_path / "fit.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("state", [b"", b"\x01\x02garbage", "text"])
def test_a_damaged_pickle_is_a_value_error(state):
    from plackett import _plackett

    with pytest.raises((ValueError, TypeError), match="pickled plackett object|bytes"):
        _plackett._restore_fit(state)
