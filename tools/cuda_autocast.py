"""A pytest plugin that makes the CPU's `torch.autocast` behave as CUDA's does, so that a
CPU-only run shows what a mixed-precision step computes on a GPU.

    PYTHONPATH=tools:src python3 -m pytest -p cuda_autocast tests/keras/mixed_precision ...

The two autocasts cast different ops. Under CUDA's, a reduction or a normalisation of float16
or bfloat16 values (`sum`, `softmax`, `log_softmax`, `exp`, `log`, `pow`, `layer_norm`,
`cumsum`, the losses, ...) computes in float32 and returns float32; under the CPU's it stays in
the lower precision. CUDA's also lowers `mv`, `addmv`, `addr` and the recurrent cells, which
the CPU's leaves in float32. A step that passes on the CPU can therefore meet, on a GPU, a
float32 tensor where it expected float16: an in-place op or an index op that wants one dtype
raises, a dtype a test expects differs.

While the CPU's autocast is on (to float16 or bfloat16), a `TorchFunctionMode` casts the
floating arguments of the functions in `TO_FLOAT32` to float32 (unless the call names its own
`dtype`) and of those in `TO_LOWER` to the autocast dtype, as CUDA's autocast does at the ATen
level (torch 2.13's `autocast_mode.cpp` lists, under their Python names). What it does not
change: the ops the CPU's autocast casts to float32 and CUDA's leaves alone (linear algebra,
3-D pooling, padding: CUDA has no half-precision kernel for several of them, which
`tools/cuda_dtype_gaps.py` covers), and CUDA's widest-type promotions (`index_put`,
`scatter_add`, `addcmul`, ...), which only make a GPU more lenient. The run ends with how many
calls of each function it cast.

A whole default run under it fails three tests that the mode itself upsets, not
the library: `torch.compile` tracing into the mode (`tests/_ops/test_function.py`), an export
error that names the innermost frame (now the mode's), and this plugin's own test, which
checks the CPU's lists without the mode.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

_LOWER = (torch.float16, torch.bfloat16)

_FLOAT32_NAMES = (
    "acos", "asin", "cosh", "sinh", "tan", "erfinv", "exp", "expm1", "log", "log10", "log1p",
    "log2", "reciprocal", "rsqrt", "pow", "sum", "prod", "cumsum", "cumprod", "norm", "dist",
    "cdist", "pdist", "renorm", "softmax", "log_softmax", "logsumexp", "layer_norm", "group_norm",
    "cosine_similarity", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
)
_FUNCTIONAL_FLOAT32_NAMES = (
    "softmax", "log_softmax", "softmin", "softplus", "layer_norm", "group_norm", "normalize",
    "cosine_similarity", "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
    "huber_loss", "kl_div", "binary_cross_entropy_with_logits", "poisson_nll_loss",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "multilabel_margin_loss", "multi_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "pdist",
)
_LOWER_NAMES = ("mv", "addmv", "addr", "chain_matmul", "lstm_cell", "gru_cell", "rnn_tanh_cell",
                "rnn_relu_cell")


def _functions(namespace: object, names: tuple[str, ...]) -> set:
    return {getattr(namespace, name) for name in names if hasattr(namespace, name)}


#: The functions CUDA's autocast runs in float32 (their float16/bfloat16 inputs cast up).
TO_FLOAT32 = (_functions(torch, _FLOAT32_NAMES) | _functions(torch.Tensor, _FLOAT32_NAMES)
              | _functions(F, _FUNCTIONAL_FLOAT32_NAMES)
              | _functions(torch.linalg, ("vector_norm", "matrix_norm", "norm"))
              | {torch.Tensor.__pow__, torch.Tensor.__rpow__, torch.Tensor.__rtruediv__,
                 torch.Tensor.__rdiv__})
#: The functions CUDA's autocast lowers and the CPU's does not.
TO_LOWER = (_functions(torch, _LOWER_NAMES) | _functions(torch.Tensor, _LOWER_NAMES)
            | {torch.linalg.multi_dot})

_SETS_DTYPE = _functions(torch, ("sum", "prod", "cumsum", "cumprod", "softmax", "log_softmax")) \
    | _functions(torch.Tensor, ("sum", "prod", "cumsum", "cumprod", "softmax", "log_softmax")) \
    | _functions(F, ("softmax", "log_softmax", "softmin"))


def _cast(value: object, dtype: torch.dtype, only: tuple) -> object:
    if isinstance(value, torch.Tensor) and value.dtype in only:
        return value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype, only) for v in value)
    return value


#: How many calls of each function the run cast, by target dtype.
CAST: dict[str, int] = {}


class CudaAutocast(TorchFunctionMode):
    """Casts as CUDA's autocast would where the CPU's autocast casts otherwise (while it is on)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        kwargs = kwargs or {}
        if (func in TO_FLOAT32 or func in TO_LOWER) and torch.is_autocast_enabled("cpu"):
            dtype = torch.get_autocast_dtype("cpu")
            if dtype in _LOWER:
                if func in TO_FLOAT32 and not (func in _SETS_DTYPE and kwargs.get("dtype")):
                    CAST[f"{getattr(func, '__name__', func)} -> float32"] = CAST.get(
                        f"{getattr(func, '__name__', func)} -> float32", 0) + 1
                    args, kwargs = (_cast(args, torch.float32, _LOWER),
                                    {k: _cast(v, torch.float32, _LOWER) for k, v in kwargs.items()})
                    with torch.autocast("cpu", enabled=False):
                        return func(*args, **kwargs)
                if func in TO_LOWER:
                    name = f"{getattr(func, '__name__', func)} -> {str(dtype)[6:]}"
                    CAST[name] = CAST.get(name, 0) + 1
                    args, kwargs = (_cast(args, dtype, (torch.float32,)),
                                    {k: _cast(v, dtype, (torch.float32,)) for k, v in kwargs.items()})
        return func(*args, **kwargs)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):  # noqa: ANN001, ANN201 - pytest's hook
    with CudaAutocast():
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):  # noqa: ANN001, ANN201 - pytest's hook: fixtures train too
    with CudaAutocast():
        yield


def pytest_terminal_summary(terminalreporter):  # noqa: ANN001, ANN201 - pytest's hook
    terminalreporter.section("calls cast as CUDA's autocast casts them")
    for name, count in sorted(CAST.items()):
        terminalreporter.write_line(f"{name:40} {count}")
