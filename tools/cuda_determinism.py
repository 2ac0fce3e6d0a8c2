"""A pytest plugin that finds, on a CPU-only machine, the library's calls whose results on a GPU
are not reproducible, or that refuse to run once a program asks for reproducible results.

    PYTHONPATH=tools:src python3 -m pytest -p cuda_determinism -m "not slow" tests

runs the suite with every test's ATen ops recorded (a `TorchDispatchMode`, as
`tools/cuda_dtype_gaps.py` does) and ends with two tables:

- **raises under determinism**: ops that CUDA has no deterministic kernel for. After
  `tf.config.experimental.enable_op_determinism()` (`torch.use_deterministic_algorithms(True)`)
  they raise "... does not have a deterministic implementation" on a GPU, and run on a CPU.
  Each row gives the op, where in the library it was called (the innermost three frames of
  `src/torchestimator`; gradients are listed under the frames that called `backward`) and the
  first test. Calls through `_ops/host_fallback.py` are only counted: it runs them on the host.
- **nondeterministic by default**: ops whose CUDA kernels add floats in an unfixed order
  (atomics: `index_add`, `scatter_add`, the gradient of `gather` and `index_select`, cuDNN's
  convolution gradients). Two runs on a GPU differ in the last bits unless determinism is on;
  each row lists the tests that called the op, to check against tests that compare two runs
  bit for bit.

The op lists are torch 2.13's `torch.use_deterministic_algorithms` documentation, under ATen
names. With `CUDA_DETERMINISM_OUT` set, the rows are also written there as JSON. Test modules
that run on torch's lazy device are not recorded (see `tools/cuda_dtype_gaps.py`).
"""

from __future__ import annotations

import pytest
import torch
from _op_recording import CURRENT_TEST, library_frames, recording, write_report
from torch.utils._python_dispatch import TorchDispatchMode


def _always(args, kwargs) -> bool:  # noqa: ANN001
    return True


def _floating(args, kwargs) -> bool:  # noqa: ANN001
    first = next((a for a in args if isinstance(a, torch.Tensor)), None)
    return first is not None and (first.is_floating_point() or first.is_complex())


def _with_weights(args, kwargs) -> bool:  # noqa: ANN001
    return (len(args) > 1 and args[1] is not None) or kwargs.get("weights") is not None


def _reduce_is(*names: str):  # noqa: ANN202
    def check(args, kwargs) -> bool:  # noqa: ANN001
        reduce = kwargs.get("reduce", args[4] if len(args) > 4 else None)
        return reduce in names
    return check


def _nll_reduces(args, kwargs) -> bool:  # noqa: ANN001
    reduction = kwargs.get("reduction", args[3] if len(args) > 3 else 1)
    return reduction != 0


def _mode_is_max(position: int):  # noqa: ANN202
    def check(args, kwargs) -> bool:  # noqa: ANN001
        return kwargs.get("mode", args[position] if len(args) > position else 0) == 2
    return check


#: ATen op name -> when (given its arguments) CUDA has no deterministic kernel for it.
RAISES = {
    "cumsum": _floating, "cumsum_": _floating,
    "histc": _always,
    "bincount": _with_weights,
    "median": lambda args, kwargs: len(args) > 1 or "dim" in kwargs,  # with indices
    "nanmedian": lambda args, kwargs: len(args) > 1 or "dim" in kwargs,
    "nll_loss2d_forward": _nll_reduces,
    "put": _always, "put_": _always,
    "scatter_reduce": _reduce_is("prod"), "scatter_reduce_": _reduce_is("prod"),
    "avg_pool3d_backward": _always,
    "_adaptive_avg_pool2d_backward": _always, "_adaptive_avg_pool3d_backward": _always,
    "adaptive_max_pool2d_backward": _always,
    "fractional_max_pool2d_backward": _always, "fractional_max_pool3d_backward": _always,
    "max_unpool2d": _always, "max_unpool3d": _always,
    "upsample_linear1d_backward": _always, "upsample_bilinear2d_backward": _always,
    "upsample_bicubic2d_backward": _always, "upsample_trilinear3d_backward": _always,
    "reflection_pad1d_backward": _always, "reflection_pad2d_backward": _always,
    "reflection_pad3d_backward": _always,
    "_ctc_loss_backward": _always,
    "_embedding_bag_backward": _mode_is_max(8), "_embedding_bag_dense_backward": _mode_is_max(7),
    "grid_sampler_2d_backward": _always, "grid_sampler_3d_backward": _always,
}

#: ATen op name -> when its CUDA kernel's float sums have no fixed order (default mode).
NONDETERMINISTIC = {
    "index_add": _floating, "index_add_": _floating,
    "scatter_add": _floating, "scatter_add_": _floating,
    "scatter_reduce": _reduce_is("sum", "mean"), "scatter_reduce_": _reduce_is("sum", "mean"),
    "convolution_backward": _always,
    "replication_pad1d_backward": _always, "replication_pad2d_backward": _always,
    "replication_pad3d_backward": _always,
    "max_pool3d_with_indices_backward": _always,
}

_RAISED: dict[tuple[str, str], str] = {}
_NONDETERMINISTIC: dict[str, set[str]] = {}


class _Recorder(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        name = func._schema.name.split("::")[-1]
        kwargs = kwargs or {}
        raises = RAISES.get(name)
        if raises is not None and raises(args, kwargs):
            _RAISED.setdefault((name, library_frames()), CURRENT_TEST[0])
        varies = NONDETERMINISTIC.get(name)
        if varies is not None and varies(args, kwargs):
            _NONDETERMINISTIC.setdefault(name, set()).add(CURRENT_TEST[0])
        return func(*args, **kwargs)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):  # noqa: ANN001, ANN201 - pytest's hook
    yield from recording(item, _Recorder())


def pytest_sessionfinish(session):  # noqa: ANN001, ANN201 - pytest's hook
    write_report("CUDA_DETERMINISM_OUT", "determinism", {
        "raises": [[*key, test] for key, test in sorted(_RAISED.items())],
        "nondeterministic": {op: sorted(tests) for op, tests in sorted(_NONDETERMINISTIC.items())}})


def pytest_terminal_summary(terminalreporter):  # noqa: ANN001, ANN201 - pytest's hook
    write = terminalreporter.write_line
    terminalreporter.section("ops CUDA has no deterministic kernel for")
    guarded = {key for key in _RAISED if "host_fallback.py" in key[1]}
    for (op, where), test in sorted(_RAISED.items()):
        if (op, where) not in guarded:
            write(f"{op:32} {where}")
            write(f"{'':33}first called by {test}")
    write(f"{len(_RAISED) - len(guarded)} unguarded call sites; {len(guarded)} more through "
          "_ops/host_fallback.py")
    terminalreporter.section("ops nondeterministic on CUDA by default")
    for op, tests in sorted(_NONDETERMINISTIC.items()):
        write(f"{op:32} {len(tests)} tests, e.g. {sorted(tests)[0]}")
