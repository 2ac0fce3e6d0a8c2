"""The crafted-file guard (`tests/_crafted_guard.py`) itself: torch's own device query is not
flagged, a native library opened otherwise is."""

from __future__ import annotations

import ctypes
import os

from _crafted_guard import crafted_guard

_OPEN = "try:\n    ctypes.CDLL({name!r})\nexcept OSError:\n    pass\n"


def _open_from(filename: str, name: str) -> None:
    """Opens the library `name` with ctypes from code that says it lives in `filename`."""
    exec(compile(_OPEN.format(name=name), filename, "exec"), {"ctypes": ctypes})


def test_torch_cuda_opening_nvml_is_not_flagged(tmp_path):
    torch_cuda = os.path.join("site-packages", "torch", "cuda", "__init__.py")
    with crafted_guard(tmp_path) as guard:
        _open_from(torch_cuda, "libnvidia-ml.so.1")
    assert guard.events == []


def test_nvml_opened_from_elsewhere_or_another_library_from_torch_cuda_is_flagged(tmp_path):
    torch_cuda = os.path.join("site-packages", "torch", "cuda", "__init__.py")
    with crafted_guard(tmp_path, check=False) as guard:
        _open_from(os.path.join("exports", "payload.py"), "libnvidia-ml.so.1")
        _open_from(torch_cuda, "libpayload.so")
    assert len(guard.events) == 2
    assert all("ctypes.dlopen" in event for event in guard.events)
