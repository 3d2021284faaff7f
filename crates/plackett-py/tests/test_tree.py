"""plackett.tree: Plackett-Luce trees from Python, the same tree as the
CLI's (docs/trees.md)."""
import json
import pathlib
import subprocess

import pandas as pd
import pytest

import plackett

ROOT = pathlib.Path(__file__).resolve().parents[3]
DATA = ROOT / "data" / "tricot-sim"
BIN = ROOT / "target" / "release" / "plackett"


def frames():
    r = pd.read_csv(DATA / "rankings.csv").rename(columns={"trial": "ranking", "variety": "item"})
    return r, pd.read_csv(DATA / "covariates.csv")


def test_tree_matches_the_cli_document():
    r, cov = frames()
    t = plackett.tree(r, cov, ranker="farmer", minsize=80)
    cli = subprocess.run(
        [str(BIN), "tree", str(DATA / "rankings.csv"), "--ranking-col", "trial", "--item-col", "variety",
         "--ranker-col", "farmer", "--covariates", str(DATA / "covariates.csv"), "--covariate-key", "farmer",
         "--minsize", "80", "--output", "json"],
        check=True, capture_output=True, text=True).stdout
    assert json.loads(t.to_json())["nodes"] == json.loads(cli)["nodes"]
    assert [n["id"] for n in t.leaves] == [2, 4, 5]
    assert t.nodes[0]["split"] == {"variable": "night_temp", "threshold": 17.99}
    assert t.summary().shape == (8, 3)
    tests = t.tests()
    assert list(tests["node"].unique()) == [1, 3]
    assert tests.loc[tests["node"] == 3].sort_values("p_value").iloc[0]["variable"] == "region"


def test_predict_routes_new_rankers_and_says_why_not():
    r, cov = frames()
    t = plackett.tree(r, cov, ranker="farmer", minsize=80)
    new = pd.DataFrame({"night_temp": [16.5, 20.1, 20.1, None], "region": ["north", "east", "west", "west"]},
                       index=["a", "b", "c", "d"])
    p = t.predict(new)
    assert list(p.index) == ["a", "b", "c", "d"]
    assert p["node"].tolist()[:3] == [2, 4, 5]
    assert pd.isna(p.loc["d", "node"]) and "night_temp" in p.loc["d", "reason"]
    leaf4 = {i["name"]: i["log_worth"] for i in t.nodes[3]["items"]}
    assert p.loc["b", "Chapa"] == leaf4["Chapa"]


def test_tree_bad_input_is_a_value_error():
    r, cov = frames()
    with pytest.raises(ValueError, match="no key column"):
        plackett.tree(r, cov, ranker="farmer", key="id")
    with pytest.raises(ValueError, match="no row in the covariate table"):
        plackett.tree(r, cov.iloc[:10], ranker="farmer")
    with pytest.raises(ValueError, match="alpha"):
        plackett.tree(r, cov, ranker="farmer", alpha=2.0)
    with pytest.raises(ValueError, match="max_thresholds"):
        plackett.tree(r, cov, ranker="farmer", max_thresholds=2)
    with pytest.raises(TypeError, match="covariates"):
        plackett.tree(r, 42, ranker="farmer")
