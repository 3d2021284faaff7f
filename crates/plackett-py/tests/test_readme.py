"""Every ``python`` block of README.md runs from a plain clone, as written:
the blocks are read from the README and executed in the repository root
(which holds the shipped ``data/``), each in a fresh namespace."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _blocks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_python_blocks_run(monkeypatch, capsys):
    pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    blocks = _blocks()
    assert blocks, "README.md has no python block"
    monkeypatch.chdir(ROOT)
    for k, code in enumerate(blocks):
        exec(compile(code, f"README.md python block {k + 1}", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    # What the examples print: the drivers' table and a probability, the
    # classifier's accuracy (Archambeau & Caron 2012 report 0.91-0.95 on
    # Wine), the keyword candidates and the bags' probabilities.
    assert "Mark Martin" in out and "P(Mark Martin beats PJ Jones) =" in out
    acc = float(re.search(r"Wine, 5-fold accuracy: ([0-9.]+)", out).group(1))
    assert 0.85 < acc <= 1.0, out
    assert "plackett-luc" in out and "Musk 1, training bags' P(musk):" in out
