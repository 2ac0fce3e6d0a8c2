"""tools/untested_public.py: from a real coverage run of a probe package, it lists the public
functions whose body no test ran, and only those."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("coverage")  # the test extra has it; a GPU image without an index may not

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "tools"))
import untested_public  # noqa: E402 - a tool, found on its folder


def test_lists_the_public_functions_no_test_ran(tmp_path):
    package = tmp_path / "probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(textwrap.dedent('''
        def used():
            """Runs."""
            return 1


        def unused(
            value=None,
        ):
            """Never runs."""
            return value


        def _private():
            return 3


        class Public:
            def ran(self):
                return 4

            def idle(self):
                return 5

            def _hidden(self):
                return 6


        class _Internal:
            def method(self):
                return 7
    '''))
    (tmp_path / "test_probe.py").write_text(
        "from probe import mod\n\ndef test_it():\n    assert mod.used() == 1 and mod.Public().ran() == 4\n")
    data = tmp_path / "probe.coverage"
    run = subprocess.run(
        [sys.executable, "-m", "coverage", "run", f"--source={package}", f"--data-file={data}",
         "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "test_probe.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = untested_public.never_ran(str(package), str(data))
    assert [(path, name) for path, _, name, _ in rows] == [("mod.py", "unused"),
                                                            ("mod.py", "Public.idle")]
    assert next(lines for _, _, name, lines in rows if name == "unused") == 5
