"""Keyword extraction from Python (VBSS, Hu 2024 ch. 1): parity with the CLI."""

import pathlib
import json
import os
import subprocess

import pytest

import plackett

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
DOC = os.path.join(ROOT, "data", "text", "ranking_models.txt")
KNOWN = "Plackett-Luce, posterior, worth"


def _cli(*args):
    exe = os.path.join(ROOT, "target", "release", "plackett")
    if not os.path.exists(exe):
        pytest.skip("target/release/plackett not built")
    out = subprocess.run([exe, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_extract_matches_the_cli():
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    r = plackett.extract_keywords(text, KNOWN)
    cli = _cli("keywords", "extract", DOC, "--known", KNOWN, "--output", "json")
    assert r.n_candidates == cli["n_candidates"] == len(cli["candidates"])
    assert r.known == cli["known"] == 3
    assert r.selected == cli["selected"]
    assert list(r.candidates["stem"]) == [w["stem"] for w in cli["candidates"]]
    assert list(r.candidates["words"]) == [w["words"] for w in cli["candidates"]]
    for key in ("p", "sd"):
        for a, b in zip(r.candidates[key], [w[key] for w in cli["candidates"]]):
            assert a == b
    assert r.elbo == cli["elbo"] == cli["fit"]["elbo"]
    assert r.iterations == cli["iterations"]
    assert r.fdr == cli["fdr"] == 0.2
    assert r.converged
    # Known keywords have P(y* = 1 | y) = 1 and are selected.
    known = r.candidates[r.candidates["known"]]
    assert (known["p_latent"] == 1.0).all() and known["selected"].all()
    # The FDR level: fdr, or its alias gamma, as the CLI's --fdr.
    strict = plackett.extract_keywords(text, KNOWN, fdr=0.05)
    cli = _cli("keywords", "extract", DOC, "--known", KNOWN, "--fdr", "0.05", "--output", "json")
    assert strict.selected == cli["selected"] and strict.fdr == 0.05
    assert plackett.extract_keywords(text, KNOWN, gamma=0.05).selected == strict.selected
    with pytest.raises(TypeError, match="not both"):
        plackett.extract_keywords(text, KNOWN, fdr=0.1, gamma=0.1)


def test_covariance_is_the_clis_and_moves_only_the_spread():
    """covariance="mean-field" is --covariance mean-field; linear response
    (the default) widens the sds and changes no probability the FDR rule
    reads (Giordano, Broderick & Jordan 2015; docs/keywords.md)."""
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    lr = plackett.extract_keywords(text, KNOWN)
    mf = plackett.extract_keywords(text, KNOWN, covariance="mean-field")
    cli = _cli("keywords", "extract", DOC, "--known", KNOWN, "--covariance", "mean-field", "--output", "json")
    assert list(mf.candidates["sd"]) == [w["sd"] for w in cli["candidates"]]
    assert cli["fit"]["covariance"] == "mean-field"
    assert list(lr.candidates["p_latent"]) == list(mf.candidates["p_latent"])
    assert lr.selected == mf.selected
    assert (lr.candidates["sd"] >= mf.candidates["sd"]).mean() > 0.9
    assert any("linear-response correction" in n for n in lr.notes)
    assert any("mean-field VB's" in n for n in mf.notes)
    with pytest.raises(ValueError, match="covariance"):
        plackett.extract_keywords(text, KNOWN, covariance="full")


def test_report_is_the_clis_page(tmp_path):
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    page = tmp_path / "kw.html"
    cli_page = tmp_path / "cli.html"
    plackett.extract_keywords(text, KNOWN, fdr=0.1, report=page)
    _cli("keywords", "extract", DOC, "--known", KNOWN, "--fdr", "0.1", "--report", str(cli_page), "--output", "json")
    # The same page but for its title.
    strip = lambda s: s.split("</h1>", 1)[1]  # noqa: E731
    assert strip(page.read_text()) == strip(cli_page.read_text())
    assert "<svg" in page.read_text()
    with pytest.raises(TypeError, match="report"):
        plackett.extract_keywords(text, KNOWN, report=3)
    # Nothing written when the extraction fails.
    bad = tmp_path / "bad.html"
    with pytest.raises(ValueError):
        plackett.extract_keywords(text, "zebra", report=bad)
    assert not bad.exists()


def test_word_filter_matches_the_cli():
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    for f in ("stopwords", "none"):
        r = plackett.extract_keywords(text, KNOWN, word_filter=f)
        cli = _cli("keywords", "extract", DOC, "--known", KNOWN, "--word-filter", f, "--output", "json")
        assert r.n_candidates == cli["n_candidates"]
        assert list(r.candidates["stem"]) == [w["stem"] for w in cli["candidates"]]
    # The part-of-speech filter (default) keeps fewer words than none.
    assert plackett.extract_keywords(text, KNOWN).n_candidates < plackett.extract_keywords(
        text, KNOWN, word_filter="none"
    ).n_candidates
    with pytest.raises(ValueError, match='word_filter: "nouns"'):
        plackett.extract_keywords(text, KNOWN, word_filter="nouns")


def test_known_as_list_and_tokens_input():
    r = plackett.extract_keywords("a b c a d b e c a f g b", ["a", "b"], tokens=True)
    assert set(r.selected) >= {"a", "b"}
    assert r.candidates.shape[0] == r.n_candidates == 7
    # Tokens stand for themselves.
    assert all(list(w) == [s] for s, w in zip(r.candidates["stem"], r.candidates["words"]))


def test_gibbs_engine_and_options():
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    r = plackett.extract_keywords(text, KNOWN, engine="gibbs", samples=500, burn_in=300, chains=2)
    assert r.fit["engine"] == "gibbs"
    assert r.elbo is None and r.iterations == 300 + 500
    assert (r.candidates["sd"] > 0).all()
    assert {d["parameter"] for d in r.fit["diagnostics"]} == {"a", "b", "sigma2", "alpha"}


def test_bad_input_raises():
    # Located at the argument, as a batch names its documents.
    with pytest.raises(ValueError, match='^document: known keyword "zebra" is not in the document'):
        plackett.extract_keywords("alpha beta gamma delta", ["zebra"])
    with pytest.raises(ValueError, match='^documents\\[1\\]: known keyword "zebra" is not in the document'):
        plackett.extract_keywords_many(["alpha beta gamma delta"] * 2, [["alpha"], ["zebra"]])
    # A graph's line under the document's name, once.
    with pytest.raises(ValueError, match='^documents\\[1\\]:2: weight "x" is not a finite'):
        plackett.extract_keywords_many(["a,b,1\n", "a,b,1\nc,d,x\n"], [["a"], ["a"]], graph=True)
    with pytest.raises(ValueError, match="^document: no known keywords given"):
        plackett.extract_keywords("alpha beta gamma delta", [])
    # Words that occur but are filtered out: which filter, and the option.
    with pytest.raises(ValueError, match=r'known keyword "gamma" is not a candidate word: its stem "gamma" occurs 1 time\(s\), and min_count \(1\) keeps only'):
        plackett.extract_keywords("alpha beta alpha beta gamma", ["alpha"] + ["gamma"], min_count=1)
    with pytest.raises(ValueError, match=r'"the" occurs, but the part-of-speech filter .* \(word_filter="stopwords" keeps'):
        plackett.extract_keywords("the alpha beta gamma delta", ["alpha", "the"])
    with pytest.raises(ValueError, match="no known keyword"):
        plackett.extract_keywords("alpha beta gamma delta", " , ")
    with pytest.raises(ValueError, match="fdr"):
        plackett.extract_keywords("alpha beta gamma", ["alpha"], fdr=1.5)
    with pytest.raises(ValueError, match='engine: "magic"'):
        plackett.extract_keywords("alpha beta gamma", ["alpha"], engine="magic")
    with pytest.raises(ValueError, match="probability"):
        plackett.extract_keywords("alpha beta gamma", ["alpha"], probability="p")
    with pytest.raises(TypeError):
        plackett.extract_keywords(42, ["alpha"])
    with pytest.raises(TypeError):
        plackett.extract_keywords("alpha beta", 3)
    with pytest.raises(ValueError, match="nothing to infer"):
        plackett.extract_keywords("alpha beta", "alpha, beta")


def _corpus(root):
    """A synthetic corpus in the docsutf8/ + keys/ layout: each document
    repeats a core of topic words (its keywords) among filler words."""
    (root / "docsutf8").mkdir(parents=True)
    (root / "keys").mkdir()
    fillers = ["result", "method", "paper", "section", "value", "case", "figure", "table",
               "work", "study", "time", "set", "number", "order", "part", "form"]
    for d in range(6):
        topic = [f"topic{d}x{k}" for k in range(14)]
        text = "".join(
            f"{topic[(s * 3) % 14]} {fillers[(s * 5 + d) % 16]} {topic[(s * 7 + 1) % 14]} "
            f"{fillers[(s * 11 + 3) % 16]} {topic[(s + 2) % 14]}. "
            for s in range(40)
        )
        (root / "docsutf8" / f"d{d}.txt").write_text(text)
        (root / "keys" / f"d{d}.key").write_text("\n".join(topic))
    return root


def test_evaluate_matches_the_cli(tmp_path):
    c = _corpus(tmp_path / "corpus")
    cli = _cli("keywords", "evaluate", str(c), "--min-count", "0", "--known-count", "3",
               "--gamma", "0.1,0.3", "--output", "json")
    r = plackett.evaluate_keywords(c, min_count=0, known_count=3, gamma=[0.1, 0.3])
    assert r.documents == cli["documents"] == 6
    assert r.k == 3
    # Everything but the wall-clock fields is the CLI's document.
    doc = json.loads(r.to_json())
    for key in ("results", "cells", "rates", "labels", "candidates", "keywords", "forced", "gammas"):
        assert doc[key] == cli[key], key
    assert list(r.results["method"][:5]) == ["vbss", "ss", "textrank", "positionrank", "tfidf"]
    assert r.results.shape[0] == 2 * 5
    # Options reach the protocol: not forcing known keywords changes the cut methods.
    nf = plackett.evaluate_keywords(c, min_count=0, known_count=3, gamma=0.3, forced=False,
                                    methods=["ss"])
    assert list(nf.results["method"]) == ["vbss", "ss"] and not nf.results["forced"].any()


def test_evaluate_bad_input_raises(tmp_path):
    with pytest.raises(ValueError, match='unknown method "magic"'):
        plackett.evaluate_keywords(_corpus(tmp_path / "c"), methods="magic")
    with pytest.raises(FileNotFoundError, match="missing"):
        plackett.evaluate_keywords(tmp_path / "missing")
    with pytest.raises(TypeError):
        plackett.evaluate_keywords(42)


def test_evaluate_draws_and_the_authors_code_match_the_cli(tmp_path):
    c = _corpus(tmp_path / "corpus")
    cli = _cli("keywords", "evaluate", str(c), "--min-count", "0", "--known-count", "3",
               "--gamma", "0.1,0.3", "--methods", "ss,vbss-code", "--rates-from", "vbss-code",
               "--draws", "2", "--alpha-init", "0.7", "--output", "json")
    r = plackett.evaluate_keywords(c, min_count=0, known_count=3, gamma=[0.1, 0.3],
                                   methods=["ss", "vbss-code"], rates_from="vbss-code", draws=2,
                                   alpha_init=0.7)
    doc = json.loads(r.to_json())
    for key in ("results", "cells", "rates", "labels", "draws", "rates_from"):
        assert doc[key] == cli[key], key
    assert doc["draws"] == 2 and doc["rates_from"] == "vbss-code"
    assert list(r.results["method"][:3]) == ["vbss", "ss", "vbss-code"]
    alone = plackett.evaluate_keywords(c, min_count=0, known_count=3, gamma=[0.1, 0.3],
                                       methods=["ss", "vbss-code"], rates_from="vbss-code",
                                       draws=2, alpha_init=0.7, no_vbss=True)
    assert list(alone.results["method"].unique()) == ["ss", "vbss-code"]
    assert json.loads(alone.to_json())["cells"] == [row[1:] for row in cli["cells"]]
    with pytest.raises(ValueError, match="rates"):
        plackett.evaluate_keywords(c, min_count=0, no_vbss=True)
    with pytest.raises(ValueError, match="rates_from"):
        plackett.evaluate_keywords(c, min_count=0, rates_from="ss")
    with pytest.raises(ValueError, match="draws"):
        plackett.evaluate_keywords(c, min_count=0, draws=0)
    with pytest.raises(ValueError, match="alpha_init"):
        plackett.evaluate_keywords(c, min_count=0, alpha_init=1.5)


def test_tag_text_matches_the_cli():
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    sentences = plackett.tag_text(text)
    cli = _cli("keywords", "tag", DOC, "--output", "json")
    assert sentences == cli["documents"][0]["sentences"]
    kept = [t["word"] for s in sentences for t in s if t["kept"]]
    assert "posterior" in kept and "the" not in kept
    assert plackett.tag_text(text, word_filter="none") == _cli(
        "keywords", "tag", DOC, "--output", "json", "--word-filter", "none"
    )["documents"][0]["sentences"]
    with pytest.raises(ValueError, match="word_filter"):
        plackett.tag_text(text, word_filter="nouns")
    with pytest.raises(TypeError):
        plackett.tag_text(b"bytes")
    assert plackett.tag_text("") == []


def test_evaluate_external_scores_match_the_cli(tmp_path):
    c = _corpus(tmp_path / "corpus")
    # An outside method that scores each document's topic words by their
    # index (phrases of two words) — any scores in the --external layout.
    scores = {
        f"d{d}": [[f"topic{d}x{k} topic{d}x{k + 1}", float(20 - k)] for k in range(0, 13, 2)]
        for d in range(6)
    }
    f = tmp_path / "outside.json"
    f.write_text(json.dumps(scores))
    cli = _cli("keywords", "evaluate", str(c), "--min-count", "0", "--known-count", "3",
               "--gamma", "0.1,0.3", "--methods", "ss", "--external", f"outside={f}",
               "--output", "json")
    r = plackett.evaluate_keywords(c, min_count=0, known_count=3, gamma=[0.1, 0.3],
                                   methods=["ss"], external={"outside": f})
    doc = json.loads(r.to_json())
    for key in ("results", "cells", "labels"):
        assert doc[key] == cli[key], key
    assert "outside" in set(r.results["method"])
    with pytest.raises(TypeError, match="external"):
        plackett.evaluate_keywords(c, external=["outside", str(f)])
    with pytest.raises(FileNotFoundError, match="missing.json"):
        plackett.evaluate_keywords(c, min_count=0, external={"x": tmp_path / "missing.json"})


SECOND = (
    "Keyword extraction ranks the words of a document. Graph-based keyword extraction links "
    "words that occur together, and a few known keywords guide a Bayesian model of the rest. "
    "The posterior probability of each word being a keyword comes with an uncertainty, and a "
    "false discovery rate rule selects the set."
)


def _comparable(payload):
    d = json.loads(payload)
    for k in ("seconds", "file", "known_given"):
        d.pop(k, None)
    return d


def test_extract_many_equals_extract_on_each_document_and_the_cli_batch(tmp_path):
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    docs = [text, SECOND]
    known = [KNOWN, ["keyword", "document"]]
    for engine, extra in (("vb", {}), ("gibbs", dict(samples=300, burn_in=200, chains=2))):
        many = plackett.extract_keywords_many(docs, known, engine=engine, **extra)
        assert len(many) == 2
        for r, d, k in zip(many, docs, known):
            alone = plackett.extract_keywords(d, k, engine=engine, **extra)
            assert _comparable(r.to_json()) == _comparable(alone.to_json())
    # plackett keywords batch on the same documents.
    (tmp_path / "b.txt").write_text(SECOND, encoding="utf-8")
    manifest = tmp_path / "list.csv"
    manifest.write_text(f'file,known\n{os.path.abspath(DOC)},"{KNOWN}"\nb.txt,"keyword, document"\n')
    cli = _cli("keywords", "batch", str(manifest), "--output", "json")
    many = plackett.extract_keywords_many(docs, known)
    assert [_comparable(r.to_json()) for r in many] == [
        _comparable(json.dumps(d)) for d in cli["documents"]
    ]


def test_extract_many_names_the_failing_document():
    with pytest.raises(ValueError, match=r'documents\[1\]: known keyword "zebra" is not in the document'):
        plackett.extract_keywords_many([SECOND, SECOND], ["keyword", "zebra"])
    with pytest.raises(ValueError, match=r'documents\[0\]: known keyword "zebra"'):
        plackett.extract_keywords_many([SECOND], ["zebra"])
    with pytest.raises(ValueError, match="one entry per document"):
        plackett.extract_keywords_many([SECOND, SECOND], ["keyword"])
    with pytest.raises(TypeError, match=r"documents\[1\]: expected a str"):
        plackett.extract_keywords_many([SECOND, 3], ["keyword", "keyword"])
    with pytest.raises(TypeError, match="documents: expected a list of str"):
        plackett.extract_keywords_many(SECOND, ["keyword"])
    with pytest.raises(TypeError, match="report"):
        plackett.extract_keywords_many([SECOND], ["keyword"], report="x.html")
    with pytest.raises(ValueError, match="fdr"):
        plackett.extract_keywords_many([SECOND], ["keyword"], fdr=2.0)
    assert plackett.extract_keywords_many([], []) == []


def test_evaluate_report_is_the_clis_page(tmp_path):
    """`evaluate_keywords(report=path)` writes the page of `keywords
    evaluate --report` (Hu 2024 §1.4): the same facts, curves and tables of
    precision, recall, F and realised FDR against γ, but for its title and
    the run's timings."""
    import re

    c = _corpus(tmp_path / "corpus")
    cli_page, page = tmp_path / "cli.html", tmp_path / "py.html"
    exe = os.path.join(ROOT, "target", "release", "plackett")
    subprocess.run([exe, "keywords", "evaluate", str(c), "--min-count", "0", "--known-count", "3",
                                "--gamma", "0.1,0.2,0.3", "--report", str(cli_page)],
                               check=True, capture_output=True, text=True).stdout
    r = plackett.evaluate_keywords(str(c), min_count=0, known_count=3, gamma=[0.1, 0.2, 0.3], report=page)

    def steady(s):
        s = s.split("</h1>", 1)[1]
        s = re.sub(r"<tr><th>seconds per method[^\n]*\n", "", s)
        return s.split("<h2>VBSS time per document</h2>", 1)[0]

    text = page.read_text()
    assert "<h1>plackett.evaluate_keywords</h1>" in text
    assert steady(text) == steady(cli_page.read_text())
    for h in ("F-measure", "Precision", "Recall", "Realised against nominal FDR", "VBSS time per document"):
        assert f"<h2>{h}</h2>" in text, h
    assert text.count("<svg") == 5
    # The F table is the document's.
    f = {(row.method, row.gamma): row.f for row in r.results.itertuples()}
    block = text.split("<h2>F-measure</h2>", 1)[1].split("<h2>", 1)[0]
    first = re.search(r"<tr><td>0.1</td>((?:<td>[0-9.]+</td>)+)</tr>", block).group(1)
    values = [float(v) for v in re.findall(r"<td>([0-9.]+)</td>", first)]
    methods = list(r.results["method"][:5])
    assert values == [round(f[(m, 0.1)], 3) for m in methods]
    with pytest.raises(ValueError, match="x.html"):
        plackett.evaluate_keywords(str(c), min_count=0, report=tmp_path / "no" / "x.html")


def _zipf_tokens(n_words=40, length=400, seed=3):
    """A candidate sequence whose words occur with Zipf-like frequencies."""
    import numpy as np

    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, n_words + 1)
    idx = rng.choice(n_words, size=length, p=p / p.sum())
    return [f"w{i}" for i in idx]


def test_baselines_are_networkx_pagerank_on_the_same_graph():
    """TextRank (Mihalcea & Tarau 2004) and PositionRank (Florescu &
    Caragea 2017) as networkx's PageRank computes them on the graph the
    result hands back, and SS (Li et al. 2010) as a dense solve of its
    defining system."""
    nx = pytest.importorskip("networkx")
    import numpy as np

    toks = _zipf_tokens()
    d = 0.85
    r = plackett.extract_keywords(" ".join(toks), ["w0", "w3"], tokens=True, baselines=True,
                                  edges=True, damping=d)
    c = r.candidates.set_index("stem")
    assert not (r.edges["weight"] == 0).any()  # every word has a neighbour here
    g = nx.from_pandas_edgelist(r.edges, edge_attr="weight")
    assert set(g.nodes) == set(c.index)
    nxo = dict(tol=1e-14, max_iter=100_000, weight="weight")
    pr = nx.pagerank(g, alpha=d, **nxo)
    ours = c["textrank"] / c["textrank"].sum()
    assert max(abs(ours[w] - pr[w]) for w in pr) < 1e-10
    # PositionRank teleports to a word in proportion to Σ 1/position of its occurrences.
    teleport = {}
    for pos, w in enumerate(toks, start=1):
        teleport[w] = teleport.get(w, 0.0) + 1.0 / pos
    ppr = nx.pagerank(g, alpha=d, personalization=teleport, **nxo)
    ours = c["positionrank"] / c["positionrank"].sum()
    assert max(abs(ours[w] - ppr[w]) for w in ppr) < 1e-10
    # SS: θ = (1 − d) y + d D^{-1/2} A D^{-1/2} θ.
    words = list(c.index)
    a = nx.to_numpy_array(g, nodelist=words, weight="weight")
    s = 1.0 / np.sqrt(a.sum(axis=1))
    y = np.array([1.0 if w in ("w0", "w3") else 0.0 for w in words])
    theta = np.linalg.solve(np.eye(len(words)) - d * s[:, None] * a * s[None, :], (1 - d) * y)
    assert np.max(np.abs(c["ss"].to_numpy() - theta)) < 1e-12


def test_baselines_and_graph_match_the_cli(tmp_path):
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    r = plackett.extract_keywords(text, KNOWN, baselines=True, edges=True)
    graph = tmp_path / "g.csv"
    cli = _cli("keywords", "extract", DOC, "--known", KNOWN, "--baselines", "--graph-out", str(graph),
               "--output", "json")
    assert "edges" not in cli  # the graph goes to its own file
    for key in ("textrank", "positionrank", "ss"):
        assert list(r.candidates[key]) == [w[key] for w in cli["candidates"]]
    import pandas as pd

    written = pd.read_csv(graph, keep_default_na=False)
    assert list(written.columns) == ["source", "target", "weight"]
    assert written.values.tolist() == r.edges.values.tolist()
    # Without the options neither the columns nor the edges appear.
    plain = plackett.extract_keywords(text, KNOWN)
    assert plain.edges is None and "textrank" not in plain.candidates.columns


def test_a_graph_scores_again_as_given():
    """The edges of a text's graph, given back as a graph, give the same
    probabilities (up to VBSS's stopping tolerance; the candidates come in
    another order), whether as a data frame, tuples or CSV text."""
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    r = plackett.extract_keywords(text, KNOWN, edges=True, baselines=True)
    stems = list(r.candidates.loc[r.candidates["known"], "stem"])
    for form in (r.edges, list(r.edges.itertuples(index=False, name=None)),
                 r.edges.to_csv(index=False)):
        g = plackett.extract_keywords(form, stems, graph=True, baselines=True)
        assert g.n_candidates == r.n_candidates and g.selected and set(g.selected) == set(r.selected)
        a = r.candidates.set_index("stem")
        b = g.candidates.set_index("stem").loc[a.index]
        assert (abs(a["p"] - b["p"]) < 1e-7).all()
        assert (abs(a["textrank"] - b["textrank"]) < 1e-10).all()
        assert "positionrank" not in b.columns  # a graph has no positions
    # networkx graphs with integer nodes.
    nx = pytest.importorskip("networkx")
    G = nx.path_graph(12)
    G.add_edge(0, 5, weight=3.0)
    with pytest.raises(ValueError, match=r"document\[0\]: weight is NaN"):
        plackett.extract_keywords(nx.to_pandas_edgelist(G), ["0", "5"], graph=True)
    nx.set_edge_attributes(G, {e: 1.0 for e in G.edges if "weight" not in G.edges[e]}, "weight")
    res = plackett.extract_keywords(nx.to_pandas_edgelist(G), ["0", "5"], graph=True)
    assert res.n_candidates == 12 and {"0", "5"} <= set(res.selected)
    many = plackett.extract_keywords_many([nx.to_pandas_edgelist(G)], [["0", "5"]], graph=True)
    assert many[0].to_json() != "" and many[0].selected == res.selected


def test_a_first_edge_from_a_word_named_source_is_an_edge():
    """The CSV the edges travel as has a header of its own, so a first edge
    whose source is the word "source" is not mistaken for one (it was
    dropped, and the word with it)."""
    import pandas as pd

    edges = [("source", "code", 2.0), ("code", "compiler", 1.0), ("compiler", "source", 1.0),
             ("code", "review", 1.0)]
    first = plackett.extract_keywords(pd.DataFrame(edges, columns=["source", "target", "weight"]),
                                      ["source"], graph=True)
    last = plackett.extract_keywords(edges[1:] + edges[:1], ["source"], graph=True)
    assert first.n_candidates == last.n_candidates == 4
    a = first.candidates.set_index("stem").sort_index()
    b = last.candidates.set_index("stem").sort_index()
    assert (abs(a["p"] - b["p"]) < 1e-7).all()
    unweighted = plackett.extract_keywords([e[:2] for e in edges], ["source"], graph=True)
    assert unweighted.n_candidates == 4


def test_bad_graphs_raise():
    import pandas as pd

    with pytest.raises(ValueError, match="needs columns source and target"):
        plackett.extract_keywords(pd.DataFrame({"a": ["x"], "b": ["y"]}), ["x"], graph=True)
    with pytest.raises(TypeError, match=r"document\[1\]: weight must be a number"):
        plackett.extract_keywords([("x", "y", 1.0), ("y", "z", "heavy")], ["x"], graph=True)
    with pytest.raises(TypeError, match=r"document\[0\]: source must be a str or an int"):
        plackett.extract_keywords([(1.5, "y")], ["y"], graph=True)
    with pytest.raises(TypeError, match=r"document\[0\]: expected a \(source, target\)"):
        plackett.extract_keywords([("x",)], ["x"], graph=True)
    # Edges given as rows are named by their index, as the checks above.
    with pytest.raises(ValueError, match=r"^document\[1\]: weight -2.0 is not a finite non-negative number$"):
        plackett.extract_keywords([("x", "y", 1.0), ("y", "z", -2.0)], ["x"], graph=True)
    with pytest.raises(ValueError, match=r"^document\[1\]: target is empty$"):
        plackett.extract_keywords([("x", "y"), ("y", " ")], ["x"], graph=True)
    with pytest.raises(ValueError, match=r"document\[0\]: weight is NaN"):
        plackett.extract_keywords([("x", "y", float("nan"))], ["x"], graph=True)
    with pytest.raises(ValueError, match="not a finite"):
        plackett.extract_keywords([("x", "y", float("inf"))], ["x"], graph=True)
    with pytest.raises(ValueError, match="one or the other"):
        plackett.extract_keywords("x y", ["x"], graph=True, tokens=True)
    with pytest.raises(ValueError, match="no edges"):
        plackett.extract_keywords(pd.DataFrame({"source": [], "target": []}), ["x"], graph=True)
    # Rows of a NumPy array are edges too.
    import numpy as np

    edges = np.array([["x", "y"], ["y", "z"], ["z", "w"]], dtype=object)
    assert plackett.extract_keywords(edges, ["x"], graph=True).n_candidates == 4
    with pytest.raises(TypeError, match=r"documents\[0\]: with graph=True"):
        plackett.extract_keywords_many([42], [["x"]], graph=True)


def test_keyphrases_match_the_cli():
    text = pathlib.Path(DOC).read_text(encoding="utf-8")
    r = plackett.extract_keywords(text, KNOWN, fdr=0.5)
    cli = _cli("keywords", "extract", DOC, "--known", KNOWN, "--fdr", "0.5", "--output", "json")
    assert r.phrases.to_dict("records") == cli["phrases"]
    # Counts of the phrases a word is in add up to the word's frequency.
    freq = r.candidates.set_index("stem")["frequency"]
    total = {}
    for stems, count in zip(r.phrases["stems"], r.phrases["count"]):
        for s in stems:
            total[s] = total.get(s, 0) + count
    assert total == {s: freq[s] for s in r.candidates.loc[r.candidates["selected"], "stem"]}
    assert plackett.extract_keywords("a b c a d b", ["a"], tokens=True).phrases is None
