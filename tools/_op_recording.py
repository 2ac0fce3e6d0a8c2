"""What the op-recording pytest plugins (`cuda_dtype_gaps.py`, `cuda_determinism.py`) share:
where in the library an op was called, which test is running, and which test modules run on
torch's lazy device (not recorded: asking the storage of a lazy tensor made under a Python
dispatch mode ends the process)."""

from __future__ import annotations

import functools
import json
import os
import traceback
from collections.abc import Iterator
from contextlib import AbstractContextManager

#: The node id of the test being run (`recording`), for the first-caller columns.
CURRENT_TEST = ["?"]
_LAZY_MODULES: dict[str, bool] = {}


@functools.cache
def _package_dir() -> str:
    """The folder of the installed `torchestimator` package, ending in a separator."""
    import torchestimator

    return os.path.join(os.path.dirname(os.path.abspath(torchestimator.__file__)), "")


def library_frames() -> str:
    """The innermost three frames of `src/torchestimator` on the stack, innermost first, as
    `file.py:line <- ...`; `(test code)` when the call did not come through the library."""
    package = _package_dir()
    frames = [f for f in traceback.extract_stack() if f.filename.startswith(package)]
    return " <- ".join(f"{os.path.basename(f.filename)}:{f.lineno}"
                       for f in frames[-3:][::-1]) or "(test code)"


def _runs_on_the_lazy_device(path: str) -> bool:
    if path not in _LAZY_MODULES:
        with open(path, encoding="utf-8") as source:
            text = source.read()
        _LAZY_MODULES[path] = "device_leaks" in text or "lazy" in text
    return _LAZY_MODULES[path]


def recording(item, mode: AbstractContextManager) -> Iterator[None]:  # noqa: ANN001 - a pytest item
    """The body of a `pytest_runtest_call` hook wrapper: runs the test under `mode` with
    `CURRENT_TEST` set, or as it is when its module runs on the lazy device."""
    if _runs_on_the_lazy_device(str(item.fspath)):
        yield
        return
    CURRENT_TEST[0] = item.nodeid
    with mode:
        yield


def write_report(variable: str, prefix: str, report: object) -> None:
    """Writes `report` as JSON to `<$variable>/<prefix>-<pid>.json` (one file per process, so
    that pytest-xdist's workers do not overwrite each other) when the environment variable
    `variable` names a folder; nothing otherwise."""
    out = os.environ.get(variable)
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{prefix}-{os.getpid()}.json"), "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1)
