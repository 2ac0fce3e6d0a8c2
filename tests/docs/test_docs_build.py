"""The documentation site: the API reference pages are what tools/make_api_reference.py
writes today, and `mkdocs build --strict` passes (a broken link, a nav entry or an object
mkdocstrings cannot find fails it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from _api_reference import ROOT

API = ROOT / "docs" / "api"


def test_api_reference_pages_are_current(tmp_path):
    """The generator runs in a fresh process, as `python3 tools/make_api_reference.py` does:
    what this test process imported before (lazily loaded names) must not change the pages."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_api_reference.py"),
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    skipped = [line for line in done.stderr.splitlines() if line.startswith("skipped")]
    assert not skipped, f"public names that fail to load: {skipped[:20]}"
    assert len(list(tmp_path.glob("*.md"))) > 100
    written = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.md")}
    committed = {p.name: p.read_text(encoding="utf-8") for p in API.glob("*.md")}
    stale = sorted(n for n in written.keys() | committed.keys()
                   if written.get(n) != committed.get(n))
    assert not stale, (f"docs/api is out of date ({len(stale)} pages: {stale[:10]}); "
                       "run python3 tools/make_api_reference.py")


def test_every_rendered_name_has_a_tensorflow_link_and_a_directive():
    page = (API / "keras.layers.md").read_text(encoding="utf-8")
    assert "::: torchestimator.keras.layers.core.dense.Dense\n" in page
    assert 'heading: "tf.keras.layers.Dense"' in page
    assert ("(https://www.tensorflow.org/versions/r2.15/api_docs/python/tf/keras/layers/Dense)"
            in page)
    # a class defined in a private module is rendered from there (griffe finds it statically)
    root = (API / "tf.md").read_text(encoding="utf-8")
    assert "::: torchestimator._" in root


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="the `docs` extra is not installed")
    pytest.importorskip("mkdocstrings_handlers.python", reason="the `docs` extra is not installed")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert (site / "index.html").is_file()
    assert (site / "api" / "keras.layers" / "index.html").is_file()
    html = (site / "api" / "keras.layers" / "index.html").read_text(encoding="utf-8")
    assert 'id="torchestimator.keras.layers.core.dense.Dense"' in html
    assert "Just your regular densely-connected NN layer." in html
