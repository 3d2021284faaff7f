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
    ("vb", {"mixture": 3}),
    ("vb", {"covariance": "mean-field"}),
    ("vb", {"mixture": 2, "covariance": "mean-field"}),
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
    # vMMIC converges by its tolerance; the sampler by the envelope's rule
    # (R̂ ≤ 1.01, ESS ≥ 400), which these short chains need not meet.
    assert fit.converged == doc["converged"]
    if engine == "vb":
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
    with pytest.raises(ValueError, match="standardize"):
        plackett.mil_fit(path, standardise=True, init=start)
    with pytest.raises(TypeError):
        plackett.mil_fit(path, init="not a model")


def test_tempering_equals_the_cli(bags):
    """``temperatures=``/``hottest=`` are ``--temperatures``/``--hottest``:
    the same tempered Gibbs fit and swap acceptance; bad values refused."""
    d, path = bags
    want = json.loads(cli("mil", "fit", path, "--engine", "gibbs", "--samples", "30",
                          "--burn-in", "30", "--chains", "2", "--temperatures", "3",
                          "--hottest", "0.2", "--output", "json"))
    got = json.loads(plackett.mil_fit(path, engine="gibbs", samples=30, burn_in=30, chains=2,
                                      temperatures=3, hottest=0.2).to_json())
    assert _comparable(got) == _comparable(want)
    assert got["fit"]["temperatures"] == 3 and len(got["fit"]["swap_acceptance"]) == 2
    with pytest.raises(ValueError, match="temperatures"):
        plackett.mil_fit(path, engine="gibbs", temperatures=0)
    with pytest.raises(ValueError, match="hottest"):
        plackett.mil_fit(path, engine="gibbs", hottest=2.0)
    # The adaptive ladder (Syed et al. 2022) is --ladder adaptive.
    want = json.loads(cli("mil", "fit", path, "--engine", "gibbs", "--samples", "30",
                          "--burn-in", "40", "--chains", "2", "--temperatures", "4",
                          "--hottest", "0.1", "--ladder", "adaptive", "--output", "json"))
    got = json.loads(plackett.mil_fit(path, engine="gibbs", samples=30, burn_in=40, chains=2,
                                      temperatures=4, hottest=0.1, ladder="adaptive").to_json())
    assert _comparable(got) == _comparable(want)
    ladder = got["fit"]["ladder"]
    assert len(ladder) == 4 and ladder[0] == 1.0 and abs(ladder[-1] - 0.1) < 1e-12
    assert got["fit"]["barrier"] > 0
    with pytest.raises(ValueError, match="ladder"):
        plackett.mil_fit(path, engine="gibbs", temperatures=3, ladder="linear")
    # temperatures="auto" is --temperatures auto: the burn-in picks the rungs.
    want = json.loads(cli("mil", "fit", path, "--engine", "gibbs", "--samples", "30",
                          "--burn-in", "64", "--chains", "2", "--temperatures", "auto",
                          "--hottest", "0.05", "--output", "json"))
    got = json.loads(plackett.mil_fit(path, engine="gibbs", samples=30, burn_in=64, chains=2,
                                      temperatures="auto", hottest=0.05).to_json())
    assert _comparable(got) == _comparable(want)
    assert got["fit"]["temperatures"] == len(got["fit"]["ladder"]) >= 3
    with pytest.raises(ValueError, match="temperatures"):
        plackett.mil_fit(path, engine="gibbs", temperatures="hot")
    with pytest.raises(ValueError, match="temperatures"):
        plackett.mil_fit(path, engine="gibbs", temperatures=-1)


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
    one = d / "one.csv"
    one.write_text("bag,label,modality,m0_x\nb1,0,0,1.5\nb2,0,0,0.5\n")
    for engine in ["vb", "gibbs"]:
        with pytest.raises(ValueError, match=r"one\.csv.*every bag has label 0"):
            plackett.mil_fit(str(one), engine=engine)
    with pytest.raises(ValueError, match=r"one\.csv.*every bag has label 0"):
        plackett.mil_cv(str(one), folds=2)
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


def test_cv_equals_the_cli_and_refuses_bad_input(bags, tmp_path):
    """plackett.mil_cv is `plackett mil cv --output json` to the last digit
    (same folds, same fits, baselines included), from a path or a frame;
    bad input is a one-line ValueError/TypeError."""
    import pandas as pd

    import html
    import re

    _, path = bags
    cli_page, page = tmp_path / "cli.html", tmp_path / "py.html"
    out = cli("mil", "cv", path, "--folds", "4", "--repeats", "2", "--baselines", "--standardise",
              "--draws", "100", "--seed", "3", "--output", "json", "--report", str(cli_page))
    cv = plackett.mil_cv(path, folds=4, repeats=2, baselines=True, standardise=True, draws=100, seed=3,
                         report=page)
    assert json.loads(cv.to_json()) == json.loads(out)
    # The report (mil cv --report): the same page but for its title; its
    # table is the document's, and it draws ROC and calibration; two
    # repeats' AUROCs are a table, not a line through two points (issue 91
    # item 34).
    text = page.read_text()
    assert text.split("</h1>", 1)[1] == cli_page.read_text().split("</h1>", 1)[1]
    assert "<h1>plackett.mil_cv</h1>" in text and text.count("<svg") == 2
    assert "<th>repeat 1</th><th>repeat 2</th>" in text
    for m in cv.methods:
        row = re.search(rf"<tr><td>{m['method']}</td><td>([0-9.]+)</td><td>([0-9.]+)</td>", text)
        assert abs(float(row.group(1)) - m["mean_auroc"]) < 5e-5
        assert abs(float(row.group(2)) - m["sd_auroc"]) < 5e-5
        assert f"{m['method']} (AUROC {m['auroc'][0]:.3f})" in html.unescape(text)
        # The held-out calibration pools both repeats (the page shows it).
        c = m["calibration"]
        assert c["rows"] == 2 * len(set(pd.read_csv(path)["bag"]))
        assert c["accuracy"] == pytest.approx(sum(m["accuracy"]) / 2, abs=1e-12)
        assert f"<td>{c['log_loss']:.4f}</td><td>{c['brier']:.4f}</td><td>{c['ece']:.4f}</td>" in text
    frame = cv.to_frame()
    assert list(frame["log_loss"]) == [m["calibration"]["log_loss"] for m in cv.methods]
    with pytest.raises(ValueError, match="x.html"):
        plackett.mil_cv(path, folds=2, report=tmp_path / "no" / "x.html")
    assert [m["method"] for m in cv.methods] == ["vmmic", "milr", "si-mean", "si-max"]
    frame = cv.to_frame()
    assert list(frame["method"]) == ["vmmic", "milr", "si-mean", "si-max"]
    assert (frame["repeats"] == 2).all() and frame["mean_auroc"].between(0, 1).all()
    # The same bags as a pandas frame give the same document.
    from_frame = plackett.mil_cv(pd.read_csv(path), folds=4, repeats=2, baselines=True,
                                 standardise=True, draws=100, seed=3)
    assert json.loads(from_frame.to_json()) == json.loads(out)
    for bad, needle in [
        (dict(folds=1), "folds"),
        (dict(repeats=0), "repeats"),
        (dict(engine="svm"), "svm"),
        (dict(draws=0), "draws"),
    ]:
        with pytest.raises(ValueError, match=needle):
            plackett.mil_cv(path, **bad)
    unlabelled = tmp_path / "unlabelled.csv"
    unlabelled.write_text("bag,label,modality,m0_a\nb1,,0,1.5\nb2,1,0,0.5\n")
    with pytest.raises(ValueError, match="label"):
        plackett.mil_cv(str(unlabelled), folds=2)
    with pytest.raises(TypeError):
        plackett.mil_cv(42)


def _bag_arrays(path):
    """The simulated CSV as the estimator's input: per bag (X0, X1), and
    the labels; the CLI's row order within each modality is kept."""
    import csv

    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    names = list(dict.fromkeys(r["bag"] for r in rows))
    m0 = [k for k in rows[0] if k.startswith("m0_")]
    m1 = [k for k in rows[0] if k.startswith("m1_")]
    bags, labels, order = [], [], []
    for b in names:
        mine = [(i, r) for i, r in enumerate(rows) if r["bag"] == b]
        x0 = [[float(r[k]) for k in m0] for _, r in mine if r["modality"] == "0"]
        x1 = [[float(r[k]) for k in m1] for _, r in mine if r["modality"] == "1"]
        bags.append((np.array(x0).reshape(-1, len(m0)), np.array(x1).reshape(-1, len(m1))))
        labels.append(int(mine[0][1]["label"]))
        order.append([i for i, r in mine if r["modality"] == "0"] + [i for i, r in mine if r["modality"] == "1"])
    return bags, np.array(labels), order


def test_mil_classifier_equals_the_cli(bags):
    """The scikit-learn estimator fits and predicts as `plackett mil fit` /
    `mil predict` on the same bags (the long table it writes, run through
    the CLI); labels of any type map to 0/1 by sort order; instance
    probabilities come back in the caller's order."""
    from plackett._mil import _LongTable, _split, _widths

    d, path = bags
    X, y, _ = _bag_arrays(path)
    pairs = _split(X)
    table = _LongTable(pairs, y, _widths(pairs))
    long_csv = d / "sk_bags.csv"
    long_csv.write_text(table.to_csv())
    model_file = d / "sk.json"
    cli("mil", "fit", str(long_csv), "--seed", "3", "--out", str(model_file))
    want = json.loads(cli("mil", "predict", str(model_file), str(long_csv), "--output", "json", "--seed", "3"))
    names = np.where(y == 1, "pos", "neg")  # classes_ sorted: neg, pos
    clf = plackett.MILClassifier(seed=3).fit(X, names)
    assert list(clf.classes_) == ["neg", "pos"]
    assert clf.n_features_in_ == (3, 3)
    # The model is the CLI's model file.
    assert clf.model_.to_json() == model_file.read_text()
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    by_bag = {b["bag"]: b["p"] for b in want["bags"]}
    np.testing.assert_array_equal(proba[:, 1], [by_bag[f"b{i}"] for i in range(len(X))])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(clf.predict(X)) <= {"neg", "pos"}
    # Instance probabilities, per bag (modality 0, modality 1), as the CLI's rows.
    by_row = {i["row"]: i["p_primary"] for b in want["bags"] for i in b["instances"]}
    for k, (p0, p1) in enumerate(clf.instance_proba(X)):
        rows = [r for r, (bag, _, _) in enumerate(table.rows) if bag == k]
        assert list(p0) + list(p1) == [by_row[r] for r in rows]
    # The CLI's own file holds the same bags with the two modalities'
    # instances interleaved: a bag is a set of instances (held in a
    # canonical order), so the fit is the same to the last bit.
    fit_file = d / "sk_orig.json"
    cli("mil", "fit", path, "--seed", "3", "--out", str(fit_file))
    orig = json.loads(cli("mil", "predict", str(fit_file), path, "--output", "json", "--seed", "3"))
    np.testing.assert_array_equal(proba[:, 1], [b["p"] for b in orig["bags"]])
    # Instances are listed by data row, whatever order the fit holds them in.
    for b in orig["bags"]:
        rows = [i["row"] for i in b["instances"]]
        assert rows == sorted(rows)


def test_mil_classifier_in_scikit_learn_and_bad_input():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    rng = np.random.default_rng(5)
    # Unimodal bags (ordinary MIL): positive bags hold an instance far out
    # along the first feature.
    X, y = [], []
    for i in range(60):
        inst = rng.normal(size=(rng.integers(2, 6), 2))
        if i % 2:
            inst[0, 0] += 3.0
        X.append(inst)
        y.append(i % 2)
    clf = plackett.MILClassifier(slope_var=1.0)
    assert clone(clf).get_params()["slope_var"] == 1.0
    scores = cross_val_score(clf, X, np.array(y), cv=3, scoring="roc_auc")
    assert scores.mean() > 0.8, scores
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a settled fit warns of nothing
        fitted = plackett.MILClassifier().fit(X, y)
    # scikit-learn's convention: a fit stopped by its cap, or chains that
    # disagree, is a ConvergenceWarning, and the model is still returned.
    with pytest.warns(ConvergenceWarning, match=r"^MILClassifier: vMMIC stopped at max_iter=2 "):
        assert plackett.MILClassifier(max_iter=2).fit(X, y).fit_.converged is False
    with pytest.warns(ConvergenceWarning, match=r"^MILClassifier: MCMC warning: max split-R̂"):
        plackett.MILClassifier(engine="gibbs", samples=20, burn_in=10, chains=2).fit(X, y)
    p0, p1 = fitted.instance_proba(X[:1])[0]
    assert p0.shape == (len(X[0]),) and p1.shape == (0,)
    # A list of two rows is a bag of two instances, a tuple two modalities.
    two = plackett.MILClassifier().fit(X + [[[0.1, 0.2], [3.0, 0.1]]], y + [1])
    assert [len(p0) for p0, _ in two.instance_proba([[[0.1, 0.2], [3.0, 0.1]]])] == [2]
    with pytest.raises(ValueError, match="bag 0: a tuple must be a pair"):
        fitted.predict([(X[0], None, None)])
    with pytest.raises(ValueError, match="bag 1 has no instances"):
        plackett.MILClassifier().fit([X[0], np.zeros((0, 2))], [0, 1])
    with pytest.raises(ValueError, match="bag 1, modality 0: features must be finite"):
        plackett.MILClassifier().fit([X[0], np.array([[np.nan, 1.0]])], [0, 1])
    with pytest.raises(ValueError, match="bag 1, modality 0: 3 features, earlier bags' 2"):
        plackett.MILClassifier().fit([X[0], np.ones((2, 3))], [0, 1])
    with pytest.raises(ValueError, match="exactly 2 classes"):
        plackett.MILClassifier().fit(X[:3], [0, 1, 2])
    with pytest.raises(ValueError, match="one label per bag"):
        plackett.MILClassifier().fit(X[:3], [0, 1])
    with pytest.raises(ValueError, match="3 features, the fitted bags' 2"):
        fitted.predict_proba([np.ones((2, 3))])
    with pytest.raises(ValueError, match="not fitted"):
        plackett.MILClassifier().predict(X)
    with pytest.raises(TypeError, match="sequence of bags"):
        plackett.MILClassifier().fit(np.ones((4, 2)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="engine"):
        plackett.MILClassifier(engine="magic").fit(X, y)


def test_mixture_of_optima_and_its_bad_input(bags):
    """``mixture=K`` is ``mil fit --mixture K`` (the parity case above);
    the classifier takes it too; a mixture of one, both ``starts`` and
    ``mixture``, and counts of the wrong sign or type are refused naming
    the argument."""
    d, path = bags
    fit = plackett.mil_fit(path, mixture=2)
    doc = json.loads(fit.to_json())
    assert len(doc["fit"]["mixture_elbos"]) == 2
    assert len(json.loads(fit.model().to_json())["mixture"]) == 2
    X, y, _ = _bag_arrays(path)
    clf = plackett.MILClassifier(mixture=2).fit(X, y)
    assert len(json.loads(clf.model_.to_json())["mixture"]) == 2
    with pytest.raises(ValueError, match="mixture: a mixture needs at least 2 optima, got 1"):
        plackett.mil_fit(path, mixture=1)
    with pytest.raises(ValueError, match="mixture: give starts"):
        plackett.mil_fit(path, mixture=3, starts=2)
    with pytest.raises(ValueError, match="mixture: must be non-negative"):
        plackett.mil_fit(path, mixture=-1)
    with pytest.raises(TypeError, match="mixture"):
        plackett.mil_fit(path, mixture="3")
    with pytest.raises(ValueError, match="mixture: must be non-negative"):
        plackett.MILClassifier(mixture=-2).fit(X, y)


def test_linear_response_covariance_and_its_bad_input(bags):
    """``covariance="linear-response"`` (``mil fit --covariance``; parity
    above), the default, keeps vMMIC's means and widens only the instance
    level's sds against ``"mean-field"``; the classifier takes either; an
    unknown name is refused naming the argument."""
    d, path = bags
    mf_fit = plackett.mil_fit(path, covariance="mean-field")
    assert json.loads(mf_fit.to_json())["fit"]["covariance"] == "mean-field"
    mf = json.loads(mf_fit.model().to_json())["parameters"]
    fit = plackett.mil_fit(path, covariance="linear-response")
    assert json.loads(fit.to_json())["fit"]["covariance"] == "linear-response"
    assert fit.model().covariance == "linear-response"
    assert mf_fit.model().covariance == "mean-field"
    assert fit.model().notes == []
    assert mf_fit.model().notes[0].startswith("the model has mean-field covariances")
    assert json.loads(fit.model().to_json())["covariance"] == "linear-response"
    assert fit.model().to_json() == plackett.mil_fit(path).model().to_json()
    lr = json.loads(fit.model().to_json())["parameters"]
    for a, b in zip(mf, lr):
        assert a["name"] == b["name"] and a["mean"] == b["mean"]
        inner = a["name"] in ("a", "c") or a["name"][:2] in ("b[", "d[")
        assert (b["sd"] > a["sd"]) if inner else (b["sd"] == a["sd"]), a["name"]
    X, y, _ = _bag_arrays(path)
    clf = plackett.MILClassifier(covariance="mean-field").fit(X, y)
    assert clf.predict_proba(X).shape == (len(X), 2)
    with pytest.raises(ValueError, match="covariance: expected"):
        plackett.mil_fit(path, covariance="lr")
    with pytest.raises(ValueError, match="covariance: expected"):
        plackett.MILClassifier(covariance="full").fit(X, y)


def test_report_is_the_clis_page(bags, tmp_path):
    """`MilFit.report(path)` writes the page of `plackett mil fit --report`
    (but for its title, the way to pick another bag, and its notes, which
    name options in each front end's words); ``bag=`` is `--report-bag`;
    bad arguments raise and write nothing."""
    import re

    d, path = bags
    cli_page, page = tmp_path / "cli.html", tmp_path / "py.html"
    cli("mil", "fit", path, "--seed", "2", "--report", str(cli_page))
    fit = plackett.mil_fit(path, seed=2)
    fit.report(page)
    assert fit.notes and all(n in page.read_text().replace("&quot;", '"') for n in fit.notes)

    def strip(s):
        return re.sub(r"<p>Note: [^<]*</p>", "<p>Note</p>", s.split("</h1>", 1)[1])

    cli_text = strip(cli_page.read_text()).replace("--report-bag NAME", "report(path, bag=NAME)")
    assert strip(page.read_text()) == cli_text
    assert "ROC curves" in cli_text and cli_text.count("<svg") == 2
    # A chosen bag, as --report-bag.
    cli("mil", "fit", path, "--seed", "2", "--report", str(cli_page), "--report-bag", "bag7")
    fit.report(str(page), bag="bag7")
    assert strip(page.read_text()) == strip(cli_page.read_text())
    assert "Instances of bag bag7" in page.read_text()
    with pytest.raises(ValueError, match="no bag named"):
        fit.report(tmp_path / "x.html", bag="nope")
    with pytest.raises(TypeError):
        fit.report(3)
    with pytest.raises(ValueError, match="x.html"):
        fit.report(tmp_path / "no" / "such" / "x.html")
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "no").exists()


def test_simulate_equals_the_cli(tmp_path):
    """`mil_simulate` is `plackett mil simulate` (Hu 2024 §2.3): the same
    table for the same seed and design, bags of one seed's prefix the same
    whatever the count; a fit of the frame is the fit of the CLI's file;
    bad designs raise naming the option."""
    pd = pytest.importorskip("pandas")
    path = tmp_path / "sim.csv"
    cli("mil", "simulate", "--bags", "40", "--instances", "5", "--features", "3", "--ratio", "2",
        "--ppi1", "0.5", "--seed", "9", "--out", str(path))
    df = plackett.mil_simulate(bags=40, instances=5, features=3, ratio=2, ppi1=0.5, seed=9)
    want = pd.read_csv(path, dtype={"bag": str})
    pd.testing.assert_frame_equal(df, want, check_exact=True)
    # Every value read back exactly: the first row against Python's own float().
    first_row = path.read_text().splitlines()[1].split(",")
    assert [float(v) for v in first_row[3:] if v] == [v for v in df.iloc[0, 3:].tolist() if v == v]
    assert list(df.columns[:3]) == ["bag", "label", "modality"] and df.columns[-1] == "primary"
    assert set(df["primary"]) <= {0, 1} and set(df["label"]) <= {0, 1}
    first = plackett.mil_simulate(bags=10, instances=5, features=3, ratio=2, ppi1=0.5, seed=9)
    pd.testing.assert_frame_equal(first, df[df["bag"].isin(first["bag"])].reset_index(drop=True))
    a, b = plackett.mil_fit(df, seed=2), plackett.mil_fit(str(path), seed=2)
    assert a.model().to_json() == b.model().to_json()
    for kw, exc, frag in [({"bags": 0}, ValueError, "bags"), ({"bags": -1}, ValueError, "bags"),
                          ({"ppi0": 1.5}, ValueError, "ppi0"), ({"ratio": "x"}, TypeError, "ratio"),
                          ({"features": 2.5}, TypeError, "features"), ({"alpha": float("nan")}, ValueError, "alpha")]:
        with pytest.raises(exc, match=frag):
            plackett.mil_simulate(**kw)


def test_classifier_report_names_bags_by_index_and_instances_within_them(bags, tmp_path):
    """`MILClassifier.report(path, bag=k)` is the page of `mil fit --report`
    for bags given as arrays: bag k of the caller's sequence, its instances
    numbered within their bag and modality with their posterior
    probabilities given the label (`primary_`, the fit's own `primary` in
    the caller's shape), the most probable ones first."""
    import html
    import re

    _, path = bags
    X, y, _ = _bag_arrays(path)
    clf = plackett.MILClassifier(seed=2).fit(X, y)
    page = tmp_path / "clf.html"
    with pytest.raises(ValueError, match="not fitted"):
        plackett.MILClassifier().report(page)
    k = 5
    clf.report(page, bag=k)
    text = html.unescape(page.read_text())
    assert "<h1>plackett.MILClassifier</h1>" in text and f"Instances of bag {k}<" in text
    assert "instance (from 0, within its bag and modality)" in text
    assert text.count("<svg") == 2
    table = text.split(f"Instances of bag {k}<", 1)[1]
    rows = re.findall(r"<tr><td>(\d+)</td><td>([01])</td><td>([0-9.]+)</td>", table)
    p0, p1 = clf.primary_[k]
    flat = np.concatenate([np.concatenate(pair) for pair in clf.primary_])
    np.testing.assert_array_equal(flat, clf.fit_.primary)
    assert [len(a) for a in clf.primary_[k]] == [0 if x is None else len(x) for x in X[k]]
    want = sorted([(p, 0, r) for r, p in enumerate(p0)] + [(p, 1, r) for r, p in enumerate(p1)], reverse=True)
    assert len(rows) == min(10, len(want)) > 0
    got = [(float(p), int(m), int(r)) for r, m, p in rows]
    for (gp, gm, gr), (wp, wm, wr) in zip(got, want):
        assert abs(gp - wp) < 5e-5
        assert (gm, gr) == (wm, wr) or abs(gp - [p0, p1][gm][gr]) < 5e-5
    # The most probable bag by default; nothing written on a bad index.
    clf.report(tmp_path / "top.html")
    assert "report(path, bag=INDEX) picks another" in html.unescape((tmp_path / "top.html").read_text())
    for bad, exc in [(len(X), ValueError), (-1, ValueError), ("b3", TypeError)]:
        with pytest.raises(exc, match="bag"):
            clf.report(tmp_path / "bad.html", bag=bad)
    assert not (tmp_path / "bad.html").exists()


def test_frames_with_float_labels_and_their_bad_rows(bags):
    """A label column with NaN (bags to predict) is a float column in
    pandas: its 1.0 and 0.0 are the labels, NaN is no label; an error in a
    frame names its 0-based row, not a line of the CSV it is sent as."""
    pd = pytest.importorskip("pandas")
    d, path = bags
    frame = pd.read_csv(path)
    floats = frame.assign(label=frame["label"].astype(float))
    a = plackett.mil_fit(frame, seed=3)
    b = plackett.mil_fit(floats, seed=3)
    np.testing.assert_array_equal(a.p, b.p)
    last = floats["bag"] == floats["bag"].iloc[-1]
    to_predict = floats.assign(label=floats["label"].where(~last, np.nan))
    np.testing.assert_array_equal(a.model().predict(to_predict).p, a.model().predict(frame).p)
    bad = frame.copy()
    bad.loc[5, bad.columns[3]] = np.nan
    with pytest.raises(ValueError, match=r"^<DataFrame>: row 5: column \"m0_"):
        plackett.mil_fit(bad)
    bad = frame.assign(label=frame["label"] * 2.5)
    with pytest.raises(ValueError, match=r"^<DataFrame>: row \d+: label \"2\.5\""):
        plackett.mil_fit(bad)
    # A message that points at a second row names it as a row too.
    first = frame["bag"] == frame["bag"].iloc[0]
    assert first.iloc[1], "the first bag holds two rows"
    bad = frame.assign(label=frame["label"].astype(float))
    bad.loc[1, "label"] = np.nan
    with pytest.raises(ValueError) as e:
        plackett.mil_fit(bad)
    assert str(e.value).startswith("<DataFrame>: row 1: ") and "on row 0:" in str(e.value), e.value
    assert "line" not in str(e.value), e.value


def test_frames_with_boolean_labels(bags):
    """A boolean label column (numpy bool, or pandas' nullable boolean with
    a missing value for a bag to predict) reads as 1/0, in fit, cv and
    predict alike."""
    pd = pytest.importorskip("pandas")
    _, path = bags
    frame = pd.read_csv(path)
    as_bool = frame.assign(label=frame["label"].astype(bool))
    a = plackett.mil_fit(frame, seed=3)
    np.testing.assert_array_equal(plackett.mil_fit(as_bool, seed=3).p, a.p)
    assert json.loads(plackett.mil_cv(as_bool, folds=2).to_json()) == json.loads(
        plackett.mil_cv(frame, folds=2).to_json())
    last = frame["bag"] == frame["bag"].iloc[-1]
    nullable = as_bool.assign(label=as_bool["label"].astype("boolean").mask(last))
    np.testing.assert_array_equal(a.model().predict(nullable).p, a.model().predict(frame).p)


def test_features_off_the_priors_scale_are_noted(bags):
    """A feature in units far from the unit scale the slope priors assume is
    named in a note, in Python's spelling; standardising silences it."""
    import pandas as pd

    _, path = bags
    frame = pd.read_csv(path)
    frame["m0_f2"] *= 1e6

    def off(fit):
        return [n for n in fit.notes if "far from the unit scale" in n]

    noted = off(plackett.mil_fit(frame))
    assert len(noted) == 1 and "m0_f2 sd" in noted[0] and "(standardize) or set slope_var" in noted[0], noted
    assert not off(plackett.mil_fit(frame, standardise=True))
    assert not off(plackett.mil_fit(path))


def test_standardize_is_one_option_with_two_spellings():
    """`standardize` is the spelling of every command and function;
    `standardise`, MIL's first spelling, is the same option (issue: one
    vocabulary); both at once is a TypeError."""
    df = plackett.mil_simulate(bags=40, instances=5, features=3, ratio=2, ppi1=0.5, seed=9)
    a = plackett.mil_fit(df, standardize=True)
    b = plackett.mil_fit(df, standardise=True)
    np.testing.assert_array_equal(a.p, b.p)
    assert not np.array_equal(a.p, plackett.mil_fit(df).p)
    with pytest.raises(TypeError, match="same option"):
        plackett.mil_fit(df, standardize=True, standardise=True)
    assert plackett.MILClassifier(standardize=True).get_params()["standardize"] is True


def test_mil_classifier_takes_a_3d_array_of_equal_bags():
    """Bags of equal size as one array (bags × instances × features) are
    the same bags as a list of 2-D arrays; a one-class y names its label
    plainly (no numpy repr)."""
    rng = np.random.default_rng(1)
    X = rng.random((20, 3, 4))
    y = np.array([0, 1] * 10)
    a = plackett.MILClassifier().fit(X, y).predict_proba(X)
    b = plackett.MILClassifier().fit(list(X), y).predict_proba(list(X))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"got 1: \[0\]$"):
        plackett.MILClassifier().fit(X, np.zeros(20, dtype=np.int64))
    with pytest.raises(TypeError, match="2-D array"):
        plackett.MILClassifier().fit(rng.random((20, 4)), y)
