"""Every code block of every guide (docs/guides/*.md) runs (issue 34): the blocks of a page
run in order, in one namespace, in a fresh process started in an empty folder, as a reader
pasting them into one Python session would run them. A block after the line
`<!-- not run -->` is skipped (for commands that need a server or a GPU)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

GUIDES = Path(__file__).resolve().parents[2] / "docs" / "guides"
_BLOCK = re.compile(r"(<!-- not run -->\s*)?```python\n(.*?)```", re.S)

_RUNNER = """
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
namespace = {"__name__": "__main__"}
for i, (skip, code) in enumerate(re.findall(sys.argv[2], text, re.S)):
    if not skip:
        exec(compile(code, f"{sys.argv[1]}: code block {i + 1}", "exec"), namespace)
"""


def _pages() -> list[Path]:
    return sorted(p for p in GUIDES.glob("*.md") if _BLOCK.search(p.read_text(encoding="utf-8")))


def test_the_guides_have_code():
    names = {p.stem for p in _pages()}
    assert {"getting-started", "estimator", "feature-columns", "data"} <= names, names


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.stem)
def test_a_guides_code_runs(page, tmp_path):
    env = {**os.environ, "TORCHESTIMATOR_DEVICE": "cpu", "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", _RUNNER, str(page), _BLOCK.pattern],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{page.name}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
