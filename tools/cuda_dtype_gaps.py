"""A pytest plugin that finds, on a CPU-only machine, the library's calls that CUDA would refuse:
ATen ops given a dtype that the CPU has a kernel for and CUDA does not (integer matrix
products, integer max pooling, half-precision `histc`, ...). On the CPU they run; on a GPU they
raise '"addmm_cuda" not implemented for 'Long''.

    PYTHONPATH=tools:src python3 -m pytest -p cuda_dtype_gaps -m "not slow" tests

runs the suite with every test's ops recorded (a `TorchDispatchMode`; the run takes about as
long as a plain one) and ends with a table: each op and dtype called, where in the library
(the innermost three frames of `src/torchestimator`), and the first test that called it. A
call from test code is listed as `(test code)`. Each row is a path to check: on a GPU it fails
unless the op's inputs are on the host there. Calls through `_ops/host_fallback.py`, which
runs such an op on the host when the device refuses it (as TensorFlow places an op without a
GPU kernel on the CPU), are only counted. With `CUDA_DTYPE_GAPS_OUT`
set, the rows are also written there as JSON (one file per process).

`GAPS` lists the ops and dtypes from PyTorch's OpInfo database (`torch.testing._internal.
common_methods_invocations.op_db`: `dtypes` minus `dtypesIfCUDA`, torch 2.13) under their ATen
names; composite ops (`matmul`, `einsum`, `linear`) reach these. Test modules that run on
torch's lazy device (`tests/_harness/device_leaks.py`) are not recorded: asking the storage of a
lazy tensor made under a Python dispatch mode ends the process.
"""

from __future__ import annotations

import pytest
import torch
from _op_recording import CURRENT_TEST, library_frames, recording, write_report
from torch.utils._python_dispatch import TorchDispatchMode

_INTEGERS = frozenset({torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64})
_HALVES = frozenset({torch.float16, torch.bfloat16})
_FLOATS = frozenset({torch.float32, torch.float64})

#: ATen op name -> the dtypes of its first tensor argument that CUDA has no kernel for.
GAPS: dict[str, frozenset] = {
    **{name: _INTEGERS for name in ("mm", "addmm", "bmm", "baddbmm", "addbmm", "addmv", "mv",
                                    "dot", "vdot", "max_pool2d_with_indices",
                                    "max_pool3d_with_indices", "native_dropout_backward")},
    **{name: frozenset({torch.int64}) for name in ("convolution", "_convolution", "avg_pool2d",
                                                   "avg_pool3d")},
    **{name: frozenset({torch.uint8}) for name in ("upsample_bilinear2d", "upsample_bicubic2d",
                                                   "_upsample_bilinear2d_aa")},
    **{name: _HALVES for name in ("histc", "igamma", "igammac", "angle")},
    **{name: _FLOATS for name in ("histogram", "_histogramdd_bin_edges")},  # no CUDA kernel at all
    "scatter_reduce": frozenset({torch.bool}),
}

_SEEN: dict[tuple[str, str, str], str] = {}


class _Recorder(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        gaps = GAPS.get(func._schema.name.split("::")[-1])
        if gaps:
            first = next((a for a in args if isinstance(a, torch.Tensor)), None)
            if first is not None and first.dtype in gaps:
                key = (func._schema.name.split("::")[-1], str(first.dtype).replace("torch.", ""),
                       library_frames())
                _SEEN.setdefault(key, CURRENT_TEST[0])
        return func(*args, **(kwargs or {}))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):  # noqa: ANN001, ANN201 - pytest's hook
    yield from recording(item, _Recorder())


def pytest_sessionfinish(session):  # noqa: ANN001, ANN201 - pytest's hook
    write_report("CUDA_DTYPE_GAPS_OUT", "gaps", [[*key, test] for key, test in sorted(_SEEN.items())])


def pytest_terminal_summary(terminalreporter):  # noqa: ANN001, ANN201 - pytest's hook
    write = terminalreporter.write_line
    terminalreporter.section("ops CUDA has no kernel for, for the dtype given")
    guarded = {key for key in _SEEN if "host_fallback.py" in key[2]}
    for (op, dtype, where), test in sorted(_SEEN.items()):
        if (op, dtype, where) not in guarded:
            write(f"{op:28} {dtype:9} {where}")
            write(f"{'':38} first called by {test}")
    write(f"{len(_SEEN) - len(guarded)} unguarded call sites; {len(guarded)} more through "
          "_ops/host_fallback.py, which runs them on the host where the device lacks the kernel")
