"""Multiple-instance classification from Python (vMMIC, Hu 2024 ch. 2):
parity with the CLI's model file and JSON documents, pandas frames,
pickling, bad input."""
import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import plackett

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.environ.get("PLACKETT_BIN", os.path.join(ROOT, "target", "release", "plackett"))


def cli(*args):
    return subprocess.run([BIN, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def bags(tmp_path_factory):
    d = tmp_path_factory.mktemp("mil")
    path = d / "bags.csv"
    cli("mil", "simulate", "--bags", "80", "--instances", "6", "--features", "3", "--seed", "4", "--out", str(path))
    return d, str(path)


def _comparable(doc):
    """The document without its timing; notes name options in each front
    end's own words (--burn-in / burn_in), so only their number is kept."""
    doc = dict(doc)
    doc.pop("seconds")
    doc["notes"] = len(doc["notes"])
    return doc


@pytest.mark.parametrize("engine,extra", [
    ("vb", {}),
    ("vb", {"components": 2}),
    ("vb", {"vb_start": "moments"}),
    ("vb", {"vb_start": "prior"}),
    ("gibbs", {"samples": 150, "burn_in": 100, "chains": 2}),
    ("gibbs", {"samples": 150, "burn_in": 100, "chains": 2, "gibbs_start": "dispersed"}),
])
def test_fit_and_predict_equal_the_cli(bags, engine, extra):
    d, path = bags
    model_file = d / f"{engine}{len(extra)}.json"
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in extra.items()]
    want = json.loads(cli("mil", "fit", path, "--engine", engine, *flags, "--seed", "2",
                          "--out", str(model_file), "--output", "json"))
    fit = plackett.mil_fit(path, engine=engine, seed=2, **extra)
    assert _comparable(json.loads(fit.to_json())) == _comparable(want)
    # The model is the CLI's model file, byte for byte.
    model = fit.model()
    assert model.to_json() == model_file.read_text()
    assert model.engine == engine
    # Predictions: the CLI's `mil predict --output json`, from either model.
    want_pred = cli("mil", "predict", str(model_file), path, "--output", "json", "--seed", "7")
    assert model.predict(path, seed=7).to_json() == want_pred
    assert plackett.load_mil_model(str(model_file)).predict(path, seed=7).to_json() == want_pred
    # numpy views agree with the document.
    doc = json.loads(fit.to_json())
    np.testing.assert_allclose(fit.p, [b["p"] for b in doc["predictions"]])
    inst = [i["p_primary"] for b in doc["predictions"] for i in b["instances"]]
    np.testing.assert_allclose(fit.primary, inst)
    assert fit.converged


def test_warm_start_equals_the_cli(bags):
    """``init=`` is ``mil fit --init``: the same fit from a Gibbs model's
    means, for vMMIC and for the sampler; refused for other preprocessing."""
    d, path = bags
    gibbs_file = d / "warm_gibbs.json"
    cli("mil", "fit", path, "--engine", "gibbs", "--samples", "60", "--burn-in", "60",
        "--chains", "2", "--out", str(gibbs_file))
    start = plackett.load_mil_model(str(gibbs_file))
    want = json.loads(cli("mil", "fit", path, "--init", str(gibbs_file), "--seed", "2",
                          "--allow-nonconvergence", "--output", "json"))
    fit = plackett.mil_fit(path, seed=2, init=start)
    got = json.loads(fit.to_json())
    assert _comparable(got) == _comparable(want)
    assert any("init" in n for n in got["notes"])
    short = dict(samples=40, burn_in=40, chains=2, seed=3)
    want = json.loads(cli("mil", "fit", path, "--engine", "gibbs", "--init", str(gibbs_file),
                          "--samples", "40", "--burn-in", "40", "--chains", "2", "--seed", "3",
                          "--output", "json"))
    got = json.loads(plackett.mil_fit(path, engine="gibbs", init=start, **short).to_json())
    assert _comparable(got) == _comparable(want)
    assert got["fit"]["gibbs_start"] == "init"
    with pytest.raises(ValueError, match="standardise"):
        plackett.mil_fit(path, standardise=True, init=start)
    with pytest.raises(TypeError):
        plackett.mil_fit(path, init="not a model")


def test_frames_pickling_and_bad_input(bags):
    pd = pytest.importorskip("pandas")
    d, path = bags
    frame = pd.read_csv(path)
    a = plackett.mil_fit(path, seed=3)
    b = plackett.mil_fit(frame, seed=3)
    np.testing.assert_array_equal(a.p, b.p)
    np.testing.assert_array_equal(a.model().predict(frame).p, a.model().predict(path).p)
    m = pickle.loads(pickle.dumps(a.model()))
    assert m.to_json() == a.model().to_json()
    names = [p[0] for p in m.parameters()]
    assert names[0] == "alpha" and any(n.startswith("beta") for n in names)
    with pytest.raises(ValueError, match="engine"):
        plackett.mil_fit(path, engine="svm")
    with pytest.raises(TypeError, match="path"):
        plackett.mil_fit(3)
    bad = d / "bad.csv"
    bad.write_text("bag,label,modality,m0_x\nb1,2,0,1.5\n")
    with pytest.raises(ValueError, match=r"bad\.csv.*line 2|line 2.*bad\.csv|bad\.csv:2"):
        plackett.mil_fit(str(bad))
    with pytest.raises(ValueError, match="intercept_var"):
        plackett.mil_fit(path, intercept_var=-1.0)
    with pytest.raises(ValueError, match="vb_start"):
        plackett.mil_fit(path, vb_start="random")
    with pytest.raises(ValueError, match="gibbs_start"):
        plackett.mil_fit(path, engine="gibbs", gibbs_start="anywhere")


def test_study_equals_the_cli_and_refuses_bad_options():
    """plackett.mil_study is `plackett mil study` (Hu 2024 §2.3): the same
    cells to the last digit but the timings; one-line ValueErrors."""
    args = dict(factors="bags", max_bags=250, replicates=1, test_bags=40, methods="vmmic,si-mean,milr")
    study = plackett.mil_study(**args)
    out = cli("mil", "study", "--factors", "bags", "--max-bags", "250", "--replicates", "1",
              "--test-bags", "40", "--methods", "vmmic,si-mean,milr", "--output", "json")

    def strip(doc):
        for c in doc["cells"]:
            c.pop("seconds")
            c.pop("mean_seconds")
        return doc

    assert strip(json.loads(study.to_json())) == strip(json.loads(out))
    assert [c["method"] for c in study.cells] == ["vmmic", "si-mean", "milr"]
    assert study.cells[0]["level"] == 250.0
    frame = study.to_frame()
    assert list(frame["method"]) == ["vmmic", "si-mean", "milr"]
    for bad, needle in [
        (dict(factors="speed"), "speed"),
        (dict(methods="svm"), "svm"),
        (dict(replicates=0), "replicates"),
        (dict(max_bags=10), "10 training bags"),
    ]:
        with pytest.raises(ValueError, match=needle):
            plackett.mil_study(**bad)
