"""Uncertain ground truth from Python (Stutz et al. 2023): the CLI's JSON
from plackett.aggregate/evaluate, chunk independence, bad input."""
import pathlib
import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import plackett

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DERM = os.path.join(ROOT, "data", "dermatology-ddx")
SEL = os.path.join(DERM, "dermatology_selectors.json")
CLASSES = os.path.join(DERM, "dermatology_conditions.txt")
RISKS = os.path.join(DERM, "dermatology_risks.txt")
BIN = os.environ.get("PLACKETT_BIN", os.path.join(ROOT, "target", "release", "plackett"))


def cli_text(*args):
    return subprocess.run([BIN, *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("method", ["pl", "prirn", "irn"])
def test_aggregate_equals_cli_json(method):
    cases = "0,3,7,11,19"
    want = cli_text("aggregate", SEL, "--classes", CLASSES, "--risks", RISKS, "--method", method,
                    "--cases", cases, "--samples", "300", "--seed", "5", "--output", "json")
    got = plackett.aggregate(SEL, classes=CLASSES, risks=RISKS, method=method,
                             cases=[0, 3, 7, 11, 19], samples=300, seed=5)
    assert got.to_json() == want
    assert got.certainty.shape == (5, 3)
    assert list(got.cases) == [0, 3, 7, 11, 19]


def test_aggregate_from_python_lists_and_paper_preset():
    data = [[[[2], [0, 1]], [[2]], [[1], [2]]], [[[0]], [[0], [1]]]]
    r = plackett.aggregate(data, classes=["a", "b", "c"], preset="paper", samples=200)
    assert r.classes == ["a", "b", "c"]
    assert r.top_ids[0, 0] == 2 and r.top_ids[1, 0] == 0
    d = json.loads(r.to_json())
    assert d["method"].startswith("pl (3 repetitions, paper prior")
    assert r.notes == []
    r2 = plackett.aggregate(data, samples=50)
    assert "classes" in r2.notes[0] and "--classes" not in r2.notes[0]


def test_evaluate_equals_cli_json(tmp_path):
    rng = np.random.default_rng(0)
    scores = rng.random((30, 419))
    path = tmp_path / "scores.txt"
    np.savetxt(path, scores)
    sel = plackett.selectors(SEL, classes=CLASSES)
    if sel.n_classes != 419:
        pytest.skip("scores built for 419 classes")
    want = json.loads(cli_text("evaluate", "--annotations", SEL, "--classes", CLASSES, "--predictions",
                               str(path), "--cases", ",".join(map(str, range(30))), "--samples", "200",
                               "--reliability", "1,3", "--output", "json"))
    got = plackett.evaluate(sel, np.loadtxt(path), cases=range(30), samples=200, reliability=[1, 3])
    want.pop("predictions"), got.pop("predictions")
    assert got == want
    loo = plackett.evaluate(sel, "annotator:leave-one-out", cases=range(20), samples=100)
    assert loo["n_units"] > 0 and set(loo["ua_topk_accuracy"]) == {"1", "2", "3"}


def test_chunks_keep_case_ids_and_join_bit_for_bit():
    sel = plackett.selectors(SEL, classes=CLASSES)
    full = plackett.aggregate(sel, cases=range(40), samples=200)
    parts = [plackett.aggregate(sel.chunk(a, b), samples=200) for a, b in [(0, 13), (13, 14), (14, 40)]]
    joined = plackett.AggregateResult.concat(parts)
    assert joined.to_json() == full.to_json()
    again = pickle.loads(pickle.dumps(joined))
    assert again.to_json() == full.to_json()
    s2 = pickle.loads(pickle.dumps(sel.chunk(5, 9)))
    assert s2.offset == 5 and len(s2) == 4


def test_tiny_prior_shapes_give_finite_plausibilities_as_the_cli():
    # Shape 1e-4 (the default 1/K for 10,000 classes) used to stop the
    # sampler on cases 11 and 20 (tests/groundtruth_cli.rs).
    want = cli_text("aggregate", SEL, "--classes", CLASSES, "--cases", "11,20", "--prior-shape", "1e-4",
                    "--samples", "200", "--output", "json")
    got = plackett.aggregate(SEL, classes=CLASSES, cases=[11, 20], prior_shape=1e-4, samples=200)
    assert got.to_json() == want
    assert np.isfinite(got.certainty).all()


@pytest.mark.parametrize(
    "kwargs, exc, fragment",
    [
        (dict(method="vote"), ValueError, 'invalid option method: expected pl, prirn or irn, got "vote"'),
        (dict(samples=0), ValueError, "invalid option samples: expected at least 1"),
        (dict(reliability=2.5), ValueError, "whole number of repetitions"),
        (dict(cases=[10**6]), ValueError, "invalid option cases: case 1000000 out of range"),
        (dict(risks=[0, 1]), ValueError, "2 risk levels for 419 classes"),
        (dict(prirn_zero="smooth:-1", method="prirn"), ValueError, "invalid option prirn_zero"),
        (dict(preset="reference"), ValueError, "the only preset is paper"),
        (dict(prior_rate=-1.0), ValueError, "invalid option prior_rate"),
        (dict(irn_ties="both"), ValueError, "expected split or no-split"),
        (dict(prior_shape=1e-11), ValueError, "a Gamma shape must be at least 1e-10"),
    ],
)
def test_aggregate_bad_options_raise(kwargs, exc, fragment):
    with pytest.raises(exc) as e:
        plackett.aggregate(SEL, classes=CLASSES, **kwargs)
    assert fragment in str(e.value)
    assert "--" not in str(e.value)


def test_bad_selectors_raise_with_place(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[[[[0], [1]]],\n [[[0, 0]]]]\n")
    with pytest.raises(ValueError, match=r"bad\.json:2"):
        plackett.aggregate(str(bad))
    with pytest.raises(ValueError, match="class id must be a non-negative integer"):
        plackett.aggregate([[[["x"]]]])
    # NaN has no JSON spelling: the same message, not the JSON reader's.
    with pytest.raises(ValueError, match=r"^selectors: a class id must be a non-negative integer, found NaN"):
        plackett.aggregate([[[[float("nan")]]]])
    # A case nobody annotated: the file and the case's line.
    empty = tmp_path / "empty.json"
    empty.write_text("[[[[0]]],\n [],\n [[[1]]]]\n")
    with pytest.raises(ValueError, match=r"empty\.json:2: case 1 has no annotations"):
        plackett.aggregate(str(empty), classes=3)
    assert len(plackett.aggregate(str(empty), classes=3, cases=[0, 2]).cases) == 2
    with pytest.raises(TypeError):
        plackett.aggregate(3.5)
    with pytest.raises(ValueError, match="predictions"):
        plackett.evaluate(SEL, np.zeros((3, 2)), classes=CLASSES, cases=[0, 1])


def test_reports_are_the_clis_pages(tmp_path):
    """`AggregateResult.report(path)` writes the page of `plackett aggregate
    --report` (the first case's samples plotted, or ``plot_cases`` as
    `--plot-cases`), `evaluate(…, report=path)` that of `plackett evaluate
    --report`; the same pages but for their titles. Bad arguments raise and
    write nothing."""
    strip = lambda p: pathlib.Path(p).read_text(encoding="utf-8").split("</h1>", 1)[1]  # noqa: E731
    cli_page, page = tmp_path / "cli.html", tmp_path / "py.html"
    common = ["--classes", CLASSES, "--risks", RISKS, "--cases", "0,3,7,11,19", "--samples", "300", "--seed", "5"]
    kw = dict(classes=CLASSES, risks=RISKS, cases=[0, 3, 7, 11, 19], samples=300, seed=5)
    cli_text("aggregate", SEL, *common, "--report", str(cli_page))
    r = plackett.aggregate(SEL, **kw)
    r.report(page)
    assert strip(page) == strip(cli_page)
    assert "Case 0 (as Stutz et al. 2023, Fig. 5)" in strip(page) and "Risk (as Stutz" in strip(page)
    cli_text("aggregate", SEL, *common, "--plot-cases", "3,11", "--report", str(cli_page))
    r2 = plackett.aggregate(SEL, plot_cases=[3, 11], **kw)
    r2.report(str(page))
    assert strip(page) == strip(cli_page) and "Case 11 (as Stutz" in strip(page)
    assert r2.to_json() == r.to_json()
    # A pickled result keeps its numbers but not the samples behind the case plots.
    again = pickle.loads(pickle.dumps(r))
    again.report(tmp_path / "again.html")
    assert "Fig. 5)" not in strip(tmp_path / "again.html")
    with pytest.raises(ValueError, match="plot_cases"):
        plackett.aggregate(SEL, plot_cases=[4], **kw)
    with pytest.raises(ValueError, match="plot_cases"):
        plackett.aggregate(SEL, plot_cases=[-1], **kw)
    with pytest.raises(TypeError):
        r.report(3)
    with pytest.raises(ValueError, match="x.html"):
        r.report(tmp_path / "no" / "x.html")
    # evaluate --report, leave-one-annotator-out, two reliabilities.
    cli_text("evaluate", SEL, "--classes", CLASSES, "--predictions", "annotator:leave-one-out",
             "--cases", ",".join(map(str, range(20))), "--samples", "100", "--reliability", "1,3",
             "--report", str(cli_page))
    sel = plackett.selectors(SEL, classes=CLASSES)
    plackett.evaluate(sel, "annotator:leave-one-out", cases=range(20), samples=100, reliability=[1, 3],
                      report=page)
    assert strip(page) == strip(cli_page) and "<svg" in strip(page)
    with pytest.raises(TypeError, match="report"):
        plackett.evaluate(sel, "annotator:leave-one-out", cases=range(5), report=3)
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        plackett.evaluate(sel, "nope.txt", cases=range(5), report=tmp_path / "e.html")
    assert not (tmp_path / "e.html").exists() and not (tmp_path / "no").exists()
