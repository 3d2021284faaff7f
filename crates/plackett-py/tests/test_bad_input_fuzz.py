"""Bad input never crashes: every public entry point, given hostile values
for its data and for each of its options, either works or raises ValueError
or TypeError with a one-line message. Nothing else escapes: no
OverflowError from a negative count, no panic from the native layer (pyo3's
PanicException derives from BaseException, so a bare ``except Exception``
would miss it), no closed file descriptor.

The values are fixed, not random, so a failure names its input and
reproduces; the suite stays a few seconds long by fitting tiny data with
small sample counts.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import plackett as pk

HOSTILE = [
    None, True, 0, -1, -(2**63), 2**64, 2**70, 1.5, float("nan"), float("inf"), -float("inf"),
    "", "x", "-3", "1e400", "\x00", "😀", "a" * 500, b"x", [], [[]], [[1, 1]], [[-1, 2]], [float("nan")],
    [1e308, -1e308], {}, {"a": 1}, (1, 2), range(3), object(), np.array([]), np.array([[np.nan]]),
    np.zeros((0, 3), dtype=np.int64), np.array([[0, -5]]), np.int64(-7), np.float64("nan"), pd.DataFrame(),
]

@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    # Some hostile values are valid file names (report="x" writes x).
    monkeypatch.chdir(tmp_path)


#: Lookups by item name raise KeyError, as a dict or a pandas index does.
LOOKUPS = {"compare", "choice_probabilities", "AdherenceModel.compare",
           "AdherenceModel.choice_probabilities"}


def survive(name, f, *args, **kwargs):
    """Call f; only ValueError, TypeError or an OSError (a path that names
    no file: FileNotFoundError) — KeyError for lookups — with a one-line
    message may come out."""
    try:
        f(*args, **kwargs)
    except (ValueError, TypeError, OSError) as e:
        # splitlines: a carriage return or a record separator breaks a line too.
        assert len(str(e).splitlines()) <= 1, f"{name}{args!r:.80}{kwargs!r:.80}: multi-line message {str(e)!r}"
    except KeyError:
        assert name in LOOKUPS, f"{name}{args!r:.80}{kwargs!r:.80}: KeyError"
    except BaseException as e:  # noqa: BLE001 - a panic is a BaseException
        pytest.fail(f"{name}{args!r:.80}{kwargs!r:.80}: {type(e).__name__}: {e}")


def hostile_options(name, f, keys, *args, fixed=None, **base):
    for key in keys:
        for v in HOSTILE:
            kw = dict(base)
            kw[key] = v
            if fixed:
                for k, w in fixed.items():
                    kw.setdefault(k, w)
            survive(f"{name}[{key}]", f, *args, **kw)


DATA = [[0, 1, 2], [2, 1], [1, 0, 2], [0, 2]]
SEL = [[[[0], [1, 2]], [[1]]], [[[2]], [[2, 0]]]]
DOC = ("Bayesian ranking models use a posterior over worth parameters. The Plackett-Luce "
       "model ranks items by worth. Posterior inference for worth.")


def bags_frame():
    rng = np.random.default_rng(1)
    rows = [{"bag": f"b{b}", "label": b % 2, "modality": 0, "m0_a": rng.normal(), "m0_b": rng.normal()}
            for b in range(12) for _ in range(3)]
    return pd.DataFrame(rows)


def test_rankings_and_fits_survive_hostile_input():
    ds = pk.rankings(DATA)
    for v in HOSTILE:
        survive("rankings", pk.rankings, v)
        survive("rankings", pk.rankings, [v])
        survive("rankings", pk.rankings, [[0, v]])
        survive("rankings", pk.rankings, DATA, items=v)
        survive("rankings", pk.rankings, DATA, weights=v)
        survive("rankings", pk.rankings, DATA, ties=v)
        survive("fit", pk.fit, v)
        survive("fit", pk.fit, ds, v)
    small = dict(samples=20, burn_in=5, chains=1)
    for engine in ("mle", "map", "gibbs", "ep", "vb"):
        hostile_options(f"fit {engine}", pk.fit, ["seed", "samples", "burn_in", "chains", "max_iter", "tol",
                                                  "prior", "pseudo", "reference", "draws", "bogus"],
                        ds, engine, fixed=small if engine == "gibbs" else None)
    hostile_options("fit_mixture", pk.fit_mixture, ["components", "starts", "seed", "max_iter", "tol",
                                                    "dirichlet", "prior", "engine"], ds)
    hostile_options("fit_adherence", pk.fit_adherence, ["rankers", "fixed", "pseudo", "max_iter", "tol",
                                                        "adherence_prior", "seed"], ds)
    r = pk.fit(ds)
    for v in HOSTILE:
        survive("compare", r.compare, v, 1)
        survive("choice_probabilities", r.choice_probabilities, v)
        survive("rank_marginals", r.rank_marginals, races=v if not isinstance(v, int) or v < 10**6 else -1)
        survive("rank_marginals", r.rank_marginals, seed=v)
        survive("predictive_log_likelihood", r.predictive_log_likelihood, v)
        survive("Model.predict", r.model().predict, v)
        survive("Model.from_json", pk.Model.from_json, v)
        survive("read_file", pk.read_file, v)
    am = pk.fit_adherence(ds).model()
    for v in HOSTILE:
        survive("AdherenceModel.predict", am.predict, v)
        survive("AdherenceModel.predict", am.predict, ds, rankers=v)
        survive("AdherenceModel.compare", am.compare, v, 1)
        survive("AdherenceModel.compare", am.compare, 0, 1, ranker=v)
        survive("AdherenceModel.choice_probabilities", am.choice_probabilities, v)
        survive("AdherenceModel.choice_probabilities", am.choice_probabilities, [0, 1], ranker=v)
        survive("AdherenceModel.from_json", pk.AdherenceModel.from_json, v)
    # Reports: the path, and each report option.
    g = pk.fit(ds, "gibbs", samples=20, burn_in=5, chains=1)
    mix = pk.fit_mixture(ds, 1)
    for v in HOSTILE:
        survive("FitResult.report", r.report, v)
        survive("FitResult.report", g.report, "p.html", seed=v)
        survive("FitResult.report", r.report, "p.html", data=v)
        survive("MixtureResult.report", mix.report, v)
    feats = pd.DataFrame({"item": ["0", "1", "2"], "x": [0.5, -1.0, 2.0]})
    for v in HOSTILE:
        survive("cross_validate", pk.cross_validate, v, feats)
        survive("cross_validate", pk.cross_validate, ds, v)
    hostile_options("simulate", pk.simulate, ["items", "rankings", "length", "design", "worths", "seed",
                                              "features", "feature_sd", "bogus"],
                    fixed={"items": 5, "rankings": 10, "length": 3})
    hostile_options("cross_validate", pk.cross_validate, ["folds", "repeats", "seed", "partition", "eta_grid",
                                                          "metric_k", "vi", "standardize", "bogus"],
                    ds, feats, fixed={"eta_grid": "0.1:10:3"})


def test_ground_truth_survives_hostile_input():
    for v in HOSTILE:
        survive("selectors", pk.selectors, v)
        survive("selectors", pk.selectors, [[[v]]])
        survive("selectors", pk.selectors, SEL, classes=v)
        survive("evaluate", pk.evaluate, SEL, v)
        survive("evaluate", pk.evaluate, SEL, np.ones((2, 3)), k=v)
    keys = ["method", "preset", "reliability", "samples", "burn_in", "seed", "cases", "risks",
            "prior_shape", "prior_rate", "irn_ties", "prirn_zero"]
    hostile_options("aggregate", pk.aggregate, keys, SEL, fixed={"samples": 20, "burn_in": 5})
    hostile_options("evaluate", pk.evaluate, keys, SEL, np.ones((2, 3)), fixed={"samples": 20, "burn_in": 5})
    hostile_options("aggregate", pk.aggregate, ["plot_cases"], SEL, fixed={"samples": 20, "burn_in": 5})
    hostile_options("evaluate", pk.evaluate, ["report"], SEL, np.ones((2, 3)), fixed={"samples": 20, "burn_in": 5})
    sel = pk.selectors(SEL)
    agg = pk.aggregate(SEL, samples=20, burn_in=5)
    for v in HOSTILE:
        survive("Selectors.chunk", sel.chunk, v, 1)
        survive("AggregateResult.report", agg.report, v)


def test_keywords_survive_hostile_input():
    for v in HOSTILE:
        survive("extract_keywords", pk.extract_keywords, v, ["worth"])
        survive("extract_keywords", pk.extract_keywords, DOC, v)
        survive("extract_keywords", pk.extract_keywords, DOC, [v])
        survive("tag_text", pk.tag_text, v)
        survive("tag_text", pk.tag_text, DOC, word_filter=v)
        survive("evaluate_keywords", pk.evaluate_keywords, v)
        survive("evaluate_keywords", pk.evaluate_keywords, "missing-corpus", report=v)
        survive("extract_keywords_many", pk.extract_keywords_many, v, [["worth"]])
        survive("extract_keywords_many", pk.extract_keywords_many, [DOC], v)
        survive("extract_keywords_many", pk.extract_keywords_many, [DOC], [v])
        survive("extract_keywords_many", pk.extract_keywords_many, [DOC, v], ["worth", "worth"])
        # A graph given as edges: hostile documents, rows and weights.
        survive("extract_keywords", pk.extract_keywords, v, ["x"], graph=True)
        survive("extract_keywords", pk.extract_keywords, [("x", v)], ["x"], graph=True)
        survive("extract_keywords", pk.extract_keywords, [("x", "y", v)], ["x"], graph=True)
        survive("extract_keywords", pk.extract_keywords, [v, ("x", "y")], ["x"], graph=True)
        survive("extract_keywords_many", pk.extract_keywords_many, [v], [["x"]], graph=True)
    keys = ["fdr", "engine", "tokens", "graph", "baselines", "edges", "probability", "prior_scale", "alpha", "alpha_init", "window",
            "self_loops", "damping", "min_count", "word_filter", "tau", "sigma_a2", "tol", "max_iter",
            "samples", "burn_in", "chains", "seed", "report", "bogus"]
    hostile_options("extract_keywords", pk.extract_keywords, keys, DOC, "worth, posterior",
                    fixed={"samples": 30, "burn_in": 10, "chains": 1})
    hostile_options("extract_keywords_many", pk.extract_keywords_many, keys, [DOC, DOC],
                    ["worth, posterior", "worth"], fixed={"samples": 30, "burn_in": 10, "chains": 1})


def test_mil_survives_hostile_input():
    frame = bags_frame()
    for v in HOSTILE:
        survive("mil_fit", pk.mil_fit, v)
        survive("mil_fit", pk.mil_fit, frame, engine=v)
        survive("load_mil_model", pk.load_mil_model, v)
    keys = ["standardize", "standardise", "components", "intercept_var", "slope_var", "tol", "max_iter", "starts",
            "vb_start", "seed", "init", "bogus"]
    hostile_options("mil_fit", pk.mil_fit, keys, frame)
    hostile_options("mil_fit gibbs", pk.mil_fit, ["samples", "burn_in", "thin", "chains", "gibbs_start", "seed"],
                    frame, engine="gibbs", fixed={"samples": 20, "burn_in": 10, "chains": 1})
    fit = pk.mil_fit(frame)
    model = fit.model()
    for v in HOSTILE:
        survive("MilFit.report", fit.report, v)
        survive("MilFit.report", fit.report, "p.html", bag=v)
        survive("MilModel.predict", model.predict, v)
        survive("MilModel.predict", model.predict, frame, draws=v if not isinstance(v, int) or v < 10**6 else -1)
        survive("MilModel.predict", model.predict, frame, seed=v)
    hostile_options("mil_simulate", pk.mil_simulate, ["bags", "instances", "ratio", "ppi0", "ppi1", "features",
                                                      "alpha", "seed", "bogus"],
                    fixed={"bags": 5, "instances": 3, "features": 2})
    hostile_options("mil_cv", pk.mil_cv, ["folds", "repeats", "draws", "seed", "report"], frame,
                    fixed={"folds": 2, "draws": 20})
    hostile_options("mil_study", pk.mil_study, ["factors", "methods", "test_bags", "draws", "seed"],
                    fixed={"replicates": 1, "test_bags": 10, "max_bags": 250, "methods": "si-mean"})


@pytest.mark.filterwarnings("ignore::UserWarning")  # scikit-learn's DataConversionWarning on a column y
def test_estimators_survive_hostile_input():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    bags = [rng.normal(size=(3, 2)) for _ in range(12)]
    yb = np.arange(12) % 2
    for v in HOSTILE:
        survive("PLClassifier.fit", pk.PLClassifier().fit, v, y)
        survive("PLClassifier.fit", pk.PLClassifier().fit, X, v)
        survive("MILClassifier.fit", pk.MILClassifier().fit, v, yb)
        survive("MILClassifier.fit", pk.MILClassifier().fit, bags, v)
        survive("MILClassifier.fit", pk.MILClassifier().fit, [v] + bags[1:], yb)
    for key in ("samples", "burn_in", "chains", "seed"):
        for v in HOSTILE:
            survive(f"PLClassifier[{key}]", lambda: pk.PLClassifier(method="gibbs", **{key: v}).fit(X, y))
    for v in HOSTILE:
        survive("classify_path", pk.classify_path, v, y, "0.5,2")
        survive("classify_path", pk.classify_path, X, v, "0.5,2")
    hostile_options("classify_path", pk.classify_path, ["a_grid", "method", "b", "pairwise", "seed"], X, y,
                    fixed={"a_grid": "0.5,2"})
    fitted = pk.PLClassifier().fit(X, y)
    for v in HOSTILE:
        survive("PLClassifier.report", fitted.report, v, X, y)
        survive("PLClassifier.report", fitted.report, "page.html", v, y)
        survive("PLClassifier.report", fitted.report, "page.html", X, v)
    path = pk.classify_path(X, y, "0.5,2")
    for v in HOSTILE:
        survive("ClassifierPath.plot", path.plot, v)
    clf = pk.MILClassifier().fit(bags, yb)
    for v in HOSTILE:
        survive("MILClassifier.report", clf.report, v)
        survive("MILClassifier.report", clf.report, "page.html", bag=v)
    for key in ("max_iter", "starts", "seed", "components", "draws"):
        for v in HOSTILE:
            survive(f"MILClassifier[{key}]", lambda: pk.MILClassifier(**{key: v}).fit(bags, yb).predict(bags))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: pk.fit(DATA, seed=-1), "seed"),
        (lambda: pk.fit(DATA, "gibbs", samples=-5), "samples"),
        (lambda: pk.fit(DATA, "gibbs", chains=2**64), "chains"),
        (lambda: pk.fit_mixture(DATA, components=-1), "components"),
        (lambda: pk.fit_mixture(DATA, starts=-1), "starts"),
        (lambda: pk.fit_adherence(DATA, max_iter=-1), "max_iter"),
        (lambda: pk.aggregate(SEL, samples=-1), "samples"),
        (lambda: pk.evaluate(SEL, np.ones((2, 3)), cases=[1e308]), "cases"),
        (lambda: pk.aggregate(SEL, cases=[10**400]), "cases"),
        (lambda: pk.evaluate(SEL, np.ones((2, 3)), k=[-1]), "k"),
        (lambda: pk.extract_keywords(DOC, "worth", window=-1), "window"),
        (lambda: pk.mil_fit(bags_frame(), thin=-1), "thin"),
        (lambda: pk.mil_cv(bags_frame(), folds=-2), "folds"),
        (lambda: pk.mil_study(replicates=-1), "replicates"),
        (lambda: pk.fit(DATA).rank_marginals(races=-1), "races"),
        (lambda: pk.fit(DATA).rank_marginals(races=10**15), "invalid option races"),
        (lambda: pk.mil_fit(bags_frame()).model().predict(bags_frame(), seed=2**70), "seed"),
        (lambda: pk.selectors(SEL).chunk(-1, 1), "start"),
        (lambda: pk.PLClassifier(seed=float("inf")).fit(np.eye(4), [0, 1, 0, 1]), "seed"),
    ],
)
def test_a_negative_or_huge_count_is_a_value_error_naming_it(call, name):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).startswith(f"{name}:"), str(e.value)


def test_a_model_path_must_be_a_path_not_a_file_descriptor():
    # open() takes an int as a file descriptor and `with` would close it:
    # load_model(True) used to close stdout.
    for bad in (True, 1, 0, 2):
        with pytest.raises(TypeError, match="model: expected a file path"):
            pk.load_model(bad)
        with pytest.raises(TypeError, match="model: expected a file path"):
            pk.load_mil_model(bad)
    os.fstat(1)
    os.fstat(2)
    with pytest.raises(FileNotFoundError, match="nonexistent"):
        pk.load_model("/nonexistent/model.json")


HUGE = 10**15


@pytest.mark.parametrize(
    "call",
    [
        lambda: pk.fit(DATA, "gibbs", samples=HUGE),
        lambda: pk.fit(DATA, "gibbs", burn_in=HUGE),
        lambda: pk.fit(DATA, "vb", draws=HUGE),
        lambda: pk.fit_mixture(DATA, 2, "gibbs", chains=HUGE),
        lambda: pk.fit_mixture(DATA, 2, starts=HUGE),
        lambda: pk.fit_adherence(DATA, "gibbs", samples=HUGE),
        lambda: pk.aggregate(SEL, samples=HUGE),
        lambda: pk.evaluate(SEL, np.ones((2, 3)), burn_in=HUGE),
        lambda: pk.extract_keywords(DOC, "worth", engine="gibbs", samples=HUGE),
        lambda: pk.mil_fit(bags_frame(), engine="gibbs", thin=HUGE),
        lambda: pk.mil_fit(bags_frame(), engine="gibbs", temperatures=HUGE),
        lambda: pk.mil_fit(bags_frame(), starts=HUGE),
        lambda: pk.mil_cv(bags_frame(), repeats=HUGE),
        lambda: pk.mil_study(replicates=HUGE),
        lambda: pk.fit(DATA).rank_marginals(races=HUGE),
        lambda: pk.PLClassifier(method="gibbs", samples=HUGE).fit(np.eye(4), [0, 1, 0, 1]),
        lambda: pk.MILClassifier(draws=HUGE).fit([np.eye(2)] * 4, [0, 1, 0, 1]).predict([np.eye(2)]),
    ],
)
def test_a_count_too_large_to_run_is_refused_before_any_work(call):
    # Each would otherwise allocate or loop for days; every engine caps its
    # counts and says which one.
    with pytest.raises(ValueError, match="invalid option|draws:"):
        call()


@pytest.mark.parametrize(
    "call, name",
    [
        # Native functions: pyo3 names the argument only in a note
        # ("while processing 'tol'", lost before Python 3.11); the package
        # puts it in the message.
        (lambda: pk.fit(DATA, "map", tol="x"), "tol"),
        (lambda: pk.extract_keywords(DOC, "worth", fdr="x"), "fdr"),
        (lambda: pk.mil_fit(bags_frame(), tol="x"), "tol"),
        (lambda: pk.mil_fit(bags_frame(), slope_var=[1.0]), "slope_var"),
        (lambda: pk.aggregate(SEL, prior_shape="x"), "prior_shape"),
        # Conversions in the Python wrappers.
        (lambda: pk.fit_mixture(DATA, components=2, engine="map", dirichlet="x"), "dirichlet"),
        (lambda: pk.fit_adherence(DATA, fixed=["x"]), "fixed"),
        (lambda: pk.fit_adherence(DATA, rankers=object()), "rankers"),
        (lambda: pk.fit(DATA, "map", prior={"shape": "x"}), "prior shape"),
        (lambda: pk.aggregate(SEL, cases=["x"]), "cases"),
        (lambda: pk.evaluate(SEL, np.ones((2, 3)), reliability=["x"]), "reliability"),
        (lambda: pk.rankings(DATA, weights=["x", 1, 1, 1]), "weights"),
    ],
)
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, name):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value).startswith(f"{name}:"), str(e.value)


def test_a_prior_option_without_a_prior_names_the_option_given():
    with pytest.raises(ValueError, match="invalid option dirichlet: only with"):
        pk.fit_mixture(DATA, components=2, dirichlet=2.0)


def test_errors_quoting_damaged_names_stay_on_one_line(tmp_path):
    """Files damaged the way mutating the shipped data damaged them (a byte
    turned into a record separator in a header, a carriage return in a name):
    the message quotes the name escaped, on one line, as the CLI does."""
    p = tmp_path / "pairs.csv"
    p.write_bytes(b"brand_i,brand_j,n_c\x1empared,i_wins\r\n1,2,5,3\r\n")
    with pytest.raises(ValueError) as e:
        pk.read_csv(str(p))
    assert len(str(e.value).splitlines()) == 1, repr(str(e.value))
    assert "n_c\\u{1e}mpared" in str(e.value)
    p.write_bytes(b"ranking,rank,item\r\n1,1,a\rb\r\n1,x,c\r\n")
    with pytest.raises(ValueError) as e:
        pk.read_csv(str(p))
    assert len(str(e.value).splitlines()) == 1, repr(str(e.value))


def test_devices_and_deep_json_are_value_errors(tmp_path):
    """/dev/zero never ends (it was read until the machine ran out of
    memory); JSON nested deeper than Python's json module goes raised
    RecursionError. Both are one-line ValueErrors now."""
    with pytest.raises(ValueError, match="is a device"):
        pk.read_file("/dev/zero", format="json")
    with pytest.raises(ValueError, match="is a device"):
        pk.load_model("/dev/zero")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError) as e:
        pk.load_model(deep)
    assert len(str(e.value).splitlines()) == 1


def test_unordered_rankings_and_mixed_ids_are_type_errors():
    """A set has no order: fitted as if it had one it gave log-worths of
    ±0.347 from nothing. Ids mixing integers and names were read silently."""
    with pytest.raises(TypeError, match="ordered sequence"):
        pk.rankings([{0, 1}])
    with pytest.raises(TypeError, match="ordered sequence"):
        pk.rankings([frozenset("ab"), ["a", "b"]])
    # A set inside a ranking is a tied group, as before.
    assert pk.rankings([[{0, 1}, 2], [2, 0, 1]]) is not None
    with pytest.raises(TypeError, match="mix integers and names"):
        pk.rankings([[0, "a"], ["a", 0]])


def test_rankers_must_be_names():
    """object() printed as its address, a different ranker name in every
    process; it was accepted."""
    with pytest.raises(TypeError, match=r"rankers\[0\]: a name must be"):
        pk.fit_adherence([[0, 1], [1, 0]], rankers=[object()] * 2)
    with pytest.raises(TypeError, match="a name must be"):
        pk.fit_adherence([[0, 1], [1, 0]], rankers=[[1], [2]])


def test_frames_with_twin_columns_and_huge_universes_are_value_errors():
    import pandas as pd
    df = pd.DataFrame([[1, 1, "a", "a"], [1, 2, "b", "b"]], columns=["ranking", "rank", "item", "item"])
    with pytest.raises(ValueError, match="2 columns named 'item'"):
        pk.fit(df)
    with pytest.raises(ValueError, match="beyond the supported"):
        pk.rankings([[0, 1]], items=range(10**8))


LIMITED = r"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2_000_000_000, 2_000_000_000))
import numpy as np, pandas as pd
import plackett as pk
case = sys.argv[1]
try:
    if case == "mil":
        rng = np.random.default_rng(1)
        X = rng.normal(size=(12, 100_000))
        frame = pd.DataFrame(X, columns=[f"m0_f{k}" for k in range(100_000)])
        frame.insert(0, "modality", 0)
        frame.insert(0, "label", [(i // 2) % 2 for i in range(12)])
        frame.insert(0, "bag", [f"b{i // 2}" for i in range(12)])
        pk.mil_fit(frame)
    else:
        words = [f"w{k:05d}x" for k in range(12_000)]
        pk.extract_keywords(" ".join(words[(t * 7) % 12_000] for t in range(60_000)), "w00000x",
                            min_count=0, word_filter="none")
except (ValueError, MemoryError) as e:
    print(type(e).__name__, str(e)[:200])
"""


@pytest.mark.parametrize("case", ["mil", "keywords"])
def test_large_requests_under_a_memory_limit_raise_instead_of_killing_python(case):
    """Under a 2 GB address-space limit, mil_fit on 12 instances of 100,000
    features and extract_keywords on 60,000 tokens of 12,000 words raise
    (the sizes are asked for before anything is allocated); the
    interpreter survives to say so."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", LIMITED, case], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith(("ValueError", "MemoryError")), out.stdout + out.stderr[-2000:]
