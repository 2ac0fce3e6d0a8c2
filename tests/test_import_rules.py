"""The import rules that `tools/lint_imports.py` enforces in CI (docs/contributing.md): which
reasons an import inside a function may give, and the check that a module on a load-time
circle still imports when a fresh process imports it first."""

from __future__ import annotations

import os
import sys

import pytest

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
sys.path.insert(0, TOOLS)

import lazy_imports  # noqa: E402
import lint_imports  # noqa: E402


@pytest.mark.parametrize("line", [
    "import pandas as pd  # lazy: optional extra (pandas)",
    "from a import b  # lazy: heavy (torchestimator._tf_formats.convert, 94 ms)",
    "from a import MapDataset  # lazy: subclass (data.mapping subclasses Dataset, which builds it)",
    "from a import f  # lazy: subclass (data.bucketing builds GroupByWindowDataset, which subclasses StatefulMixin)",
    "from a import f  # lazy: upward dependency (keras → estimator), loaded when used",
])
def test_the_allowed_reasons_pass(line):
    assert lazy_imports.has_reason([line], 1, lazy_imports.ALLOWED_REASON)


@pytest.mark.parametrize("line", [
    "from a import b  # lazy: data.sources imports this module at load time",
    "from a import b  # lazy: heavy, used only here",
    "from a import b  # lazy: looked up per call",
    "from a import b  # lazy: subclass",
    "from a import b",
])
def test_a_circle_or_a_vague_reason_is_refused(line):
    assert not lazy_imports.has_reason([line], 1, lazy_imports.ALLOWED_REASON)


def test_the_reason_may_sit_on_a_wrapped_imports_later_line_or_the_line_above():
    wrapped = ["from torchestimator.x import (  # lazy: optional extra (grpcio)", "    a,", ")"]
    above = ["# lazy: heavy (torchestimator.y, 60 ms)", "from torchestimator.y import b"]
    assert lazy_imports.has_reason(wrapped, 1, lazy_imports.ALLOWED_REASON)
    assert lazy_imports.has_reason(above, 2, lazy_imports.ALLOWED_REASON)


def test_the_package_has_no_import_inside_a_function_without_an_allowed_reason():
    assert lazy_imports.unannotated([os.path.join(lazy_imports.SRC, lazy_imports.PACKAGE)]) == []


def test_strong_groups_finds_circles_and_only_them():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}}
    assert lint_imports.strong_groups(edges) == [["a", "b", "c"]]


def test_a_module_that_fails_to_import_first_is_reported(tmp_path, monkeypatch):
    (tmp_path / "circle_a.py").write_text("from circle_b import B\nA = 1\n")
    (tmp_path / "circle_b.py").write_text("from circle_a import A\nB = 2\n")
    (tmp_path / "fine.py").write_text("X = 1\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    failures = dict(lint_imports.import_first_failures(["circle_a", "circle_b", "fine"]))
    assert set(failures) == {"circle_a", "circle_b"}
    assert "partially initialized module" in failures["circle_a"]
