"""A module on a load-time circle loads in any order: each one imports when it is the first
thing a fresh Python process imports (`tools/lint_imports.py` checks every circle it finds;
a folder's tests name the circle they rely on)."""

from __future__ import annotations

import subprocess
import sys


def assert_each_imports_first(modules: tuple[str, ...] | list[str], then: str = "") -> None:
    """Runs `import <module>` (followed by the code `then`) in a fresh process for each of
    `modules`; fails naming every module that did not import, with its error."""
    failures = []
    for module in modules:
        done = subprocess.run([sys.executable, "-c", f"import {module}\n{then}"],
                              capture_output=True, text=True, timeout=120)
        if done.returncode:
            failures.append(f"import {module} first failed:\n{done.stderr[-2000:]}")
    assert not failures, "\n".join(failures)
