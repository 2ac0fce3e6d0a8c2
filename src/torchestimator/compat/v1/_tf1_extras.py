"""TF1 top-level names of `tf.compat.v1` (issue 32): setdiff1d, patches, the TF1 names of
tensor scatters and batch_gather, Print, Dimension helpers, sparse_mask / sparse_matmul,
verify_tensor_all_finite, no_regularizer and uniform_unit_scaling_initializer, as TF 2.15's
`tf.compat.v1`. The variable scatters and `count_up_to` are in `_ops.state_ops`, `decode_csv`
and `decode_json_example` in `_tf1_parsing_ops`; both are re-exported here (`NAMES`).
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

import torchestimator as tf
from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.creation._tensor_shape import Dimension  # noqa: F401 (re-exported)
from torchestimator._ops.state_ops import (  # noqa: F401 (re-exported)
    Tensor,
    _t,
    batch_scatter_update,
    count_up_to,
    scatter_add,
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_nd_add,
    scatter_nd_sub,
    scatter_nd_update,
    scatter_sub,
    scatter_update,
)
from torchestimator._ops.string_ops._unicode import string_to_hash_bucket  # noqa: F401
from torchestimator.compat.v1._tf1_parsing_ops import (  # noqa: F401 (re-exported)
    decode_csv,
    decode_json_example,
)
from torchestimator.errors import InvalidArgumentError, UnimplementedError
from torchestimator.math import betainc, polygamma  # noqa: F401 (tf.math's objects)


# ----------------------------------------------------------------------------- set / shape ops
def setdiff1d(x: Any, y: Any, index_dtype: Any = torch.int32,
              name: str | None = None) -> tuple[Tensor, Tensor]:
    """Computes the difference between two 1-D lists of numbers: the values of `x` not in `y`,
    in `x`'s order, and their positions in `x` (TF1's `tf.compat.v1.setdiff1d`).

    Returns:
        A tuple (out, idx): out of `x`'s dtype, idx of `index_dtype` (int32 or int64).
    """
    xs, ys = _t(x, "x"), _t(y, "y")
    if xs.ndim != 1:
        raise InvalidArgumentError(None, None, f"setdiff1d: x should be a 1D vector, got shape "
                                   f"{list(xs.shape)}.")
    if ys.ndim != 1:
        raise InvalidArgumentError(None, None, f"setdiff1d: y should be a 1D vector, got shape "
                                   f"{list(ys.shape)}.")
    idx_dtype = _dtypes.as_dtype(index_dtype)
    if idx_dtype not in (torch.int32, torch.int64):
        raise TypeError(f"setdiff1d: `index_dtype` must be int32 or int64, got "
                        f"{dtype_name(idx_dtype)}.")
    keep = ~torch.isin(xs, ys.to(xs.dtype))
    positions = torch.nonzero(keep).reshape(-1)
    return xs[keep], positions.to(idx_dtype)


def batch_to_space_nd(input: Any, block_shape: Any, crops: Any,
                      name: str | None = None) -> Tensor:
    """BatchToSpace for N-D tensors (TF1's `tf.compat.v1.batch_to_space_nd`): the inverse of
    `space_to_batch_nd`.

    Returns:
        A tensor of `input`'s dtype.
    """
    return tf.batch_to_space(input, block_shape, crops)


def extract_image_patches(images: Any, ksizes: Any = None, strides: Any = None,
                          rates: Any = None, padding: Any = None, name: str | None = None,
                          sizes: Any = None) -> Tensor:
    """Extracts patches from `images` (TF1's `tf.compat.v1.extract_image_patches`: TF2's
    `tf.image.extract_patches` with the window size named `ksizes`).

    Returns:
        A 4-D tensor `[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]`.
    """
    if ksizes is not None and sizes is not None:
        raise ValueError("extract_image_patches: pass `ksizes` or `sizes`, not both.")
    window = ksizes if ksizes is not None else sizes
    for arg, value in (("ksizes", window), ("strides", strides), ("rates", rates),
                       ("padding", padding)):
        if value is None:
            raise ValueError(f"extract_image_patches: `{arg}` is required.")
    return tf.image.extract_patches(images, window, strides, rates, padding)


def extract_volume_patches(input: Any, ksizes: Any, strides: Any, padding: str,
                           name: str | None = None) -> Tensor:
    """Extracts 3-D patches from a 5-D NDHWC `input` (TF's `tf.extract_volume_patches`): each
    output position holds its `ksizes` window flattened in (depth, row, column, channel)
    order; 'SAME' pads with zeros.

    Returns:
        A 5-D tensor `[batch, out_planes, out_rows, out_cols, kd * kh * kw * depth]`.
    """
    op = "extract_volume_patches"
    x = _t(input, "input")
    if x.ndim != 5:
        raise InvalidArgumentError(None, None, f"{op}: input must be 5-dimensional, got shape "
                                   f"{list(x.shape)}.")
    k = [int(v) for v in ksizes]
    s = [int(v) for v in strides]
    if len(k) != 5 or len(s) != 5:
        raise ValueError(f"{op}: ksizes and strides must have 5 entries, got {k} and {s}.")
    if k[0] != 1 or k[4] != 1:
        raise UnimplementedError(None, None, f"{op}: Only support ksizes across space "
                                 f"(ksizes[0] and ksizes[4] must be 1), got {k}.")
    if s[0] != 1 or s[4] != 1:
        raise UnimplementedError(None, None, f"{op}: Only support strides across space "
                                 f"(strides[0] and strides[4] must be 1), got {s}.")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"{op}: padding must be 'SAME' or 'VALID', got {padding!r}.")
    out = x
    pads: list[int] = []
    sizes = x.shape[1:4]
    for size, kk, ss in zip(sizes, k[1:4], s[1:4]):
        if padding == "SAME":
            n_out = -(-size // ss)
            total = max((n_out - 1) * ss + kk - size, 0)
            pads.append((total // 2, total - total // 2))
        else:
            pads.append((0, 0))
    flat = [0, 0]
    for before, after in reversed(pads):
        flat += [before, after]
    if any(flat):
        out = F.pad(out, flat)
    for dim, (kk, ss) in enumerate(zip(k[1:4], s[1:4]), start=1):
        if out.shape[dim] < kk:
            raise InvalidArgumentError(None, None, f"{op}: ksize {kk} is larger than the "
                                       f"padded dimension {dim} ({out.shape[dim]}).")
        out = out.unfold(dim, kk, ss)
    # [b, od, oh, ow, c, kd, kh, kw] -> [b, od, oh, ow, kd, kh, kw, c]
    out = out.permute(0, 1, 2, 3, 5, 6, 7, 4)
    return out.reshape(out.shape[:4] + (-1,))


def matrix_square_root(input: Any, name: str | None = None) -> Tensor:
    """Computes the matrix square root of one or more square matrices (TF's
    `tf.linalg.sqrtm`, under its TF1 name).

    Returns:
        A tensor of `input`'s shape and dtype.
    """
    return tf.linalg.sqrtm(input)


# ----------------------------------------------------------------------- TF1 names of array ops
def tensor_scatter_add(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Any:
    """TF1's name of `tf.tensor_scatter_nd_add`.

    Returns:
        A new tensor of `tensor`'s shape and dtype.
    """
    return tf.tensor_scatter_nd_add(tensor, indices, updates)


def tensor_scatter_sub(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Any:
    """TF1's name of `tf.tensor_scatter_nd_sub`.

    Returns:
        A new tensor of `tensor`'s shape and dtype.
    """
    return tf.tensor_scatter_nd_sub(tensor, indices, updates)


def tensor_scatter_update(tensor: Any, indices: Any, updates: Any,
                          name: str | None = None) -> Any:
    """TF1's name of `tf.tensor_scatter_nd_update`.

    Returns:
        A new tensor of `tensor`'s shape and dtype.
    """
    return tf.tensor_scatter_nd_update(tensor, indices, updates)


def batch_gather(params: Any, indices: Any, name: str | None = None) -> Any:
    """Gathers slices of `params` along the axis after the batch dimensions of `indices`
    (TF1's `tf.compat.v1.batch_gather`: `tf.gather(params, indices, batch_dims=rank - 1)`).

    Returns:
        A tensor `indices.shape + params.shape[indices.rank:]`.
    """
    idx = _t(indices, "indices")
    if idx.ndim < 1:
        raise ValueError("batch_gather: `indices` must have rank >= 1, got a scalar.")
    rank = idx.ndim
    return tf.gather(params, idx, axis=rank - 1, batch_dims=rank - 1)


def sparse_mask(a: Any, mask_indices: Any, name: str | None = None) -> Any:
    """Masks elements of the IndexedSlices `a`: keeps the slices whose index is not in
    `mask_indices` (TF1's `tf.compat.v1.sparse_mask`).

    Returns:
        An IndexedSlices with the kept values and indices and `a`'s dense_shape.
    """
    for attr in ("values", "indices"):
        if not hasattr(a, attr):
            raise TypeError(f"sparse_mask: `a` must be an IndexedSlices, got "
                            f"{type(a).__name__}.")
    indices = _t(a.indices, "a.indices")
    keep, positions = setdiff1d(indices, _t(mask_indices, "mask_indices").to(indices.dtype))
    values = _t(a.values, "a.values")[positions.to(torch.int64)]
    return tf.IndexedSlices(values, keep, getattr(a, "dense_shape", None))


def sparse_matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
                  a_is_sparse: bool = False, b_is_sparse: bool = False,
                  name: str | None = None) -> Tensor:
    """Multiplies matrix `a` by matrix `b` (TF1's `tf.compat.v1.sparse_matmul`; the sparsity
    flags are hints only). `a` and `b` are float32 or bfloat16.

    Returns:
        A float32 matrix.
    """
    x, y = _t(a, "a"), _t(b, "b")
    for arg, t in (("a", x), ("b", y)):
        if t.dtype not in (torch.float32, torch.bfloat16):
            raise InvalidArgumentError(None, None, f"sparse_matmul: `{arg}` must be float32 or "
                                       f"bfloat16, got {dtype_name(t.dtype)}.")
        if t.ndim != 2:
            raise InvalidArgumentError(None, None, f"sparse_matmul: `{arg}` must be a matrix, "
                                       f"got shape {list(t.shape)}.")
    x, y = x.float(), y.float()
    x = x.t() if transpose_a else x
    y = y.t() if transpose_b else y
    if x.shape[1] != y.shape[0]:
        raise InvalidArgumentError(None, None, f"sparse_matmul: Matrix size-incompatible: "
                                   f"a: {list(x.shape)}, b: {list(y.shape)}.")
    return x @ y


# ----------------------------------------------------------------------------- checks, printing
def verify_tensor_all_finite(t: Any = None, msg: Any = None, name: str | None = None,
                             x: Any = None, message: Any = None) -> Tensor:
    """Asserts that `t` holds no NaN or Inf (TF1's `tf.compat.v1.verify_tensor_all_finite`,
    `tf.debugging.check_numerics` with the message `msg`).

    Returns:
        `t`, unchanged.

    Raises:
        InvalidArgumentError: `msg` and what was found.
    """
    t = x if t is None else t
    msg = message if msg is None else msg
    if t is None:
        raise ValueError("verify_tensor_all_finite: pass `t` (or `x`).")
    return tf.debugging.check_numerics(t, "" if msg is None else str(msg))



def dimension_value(dimension: Any) -> int | None:
    """The value of a `Dimension` (or an int / None) as an int or None (TF1's
    `tf.compat.v1.dimension_value`).

    Returns:
        An int, or None for an unknown dimension.
    """
    if isinstance(dimension, Dimension):
        return dimension.value
    return dimension


def dimension_at_index(shape: Any, index: int) -> Dimension:
    """The `Dimension` at `index` of `shape`, compatible with unknown ranks (TF1's
    `tf.compat.v1.dimension_at_index`).

    Returns:
        A `Dimension` (unknown when the rank is unknown).
    """
    shape = shape if isinstance(shape, tf.TensorShape) else tf.TensorShape(shape)
    if shape.rank is None:
        return Dimension(None)
    value = shape[index]
    return value if isinstance(value, Dimension) else Dimension(value)


_PRINT_COUNTS: dict[int, int] = {}


def _summary(value: Any, summarize: int) -> str:
    if isinstance(value, Tensor):
        flat = value.detach().cpu().reshape(-1).tolist()
    else:
        flat = np.asarray(value).reshape(-1).tolist()
    items = [f"{v:g}" if isinstance(v, float) else str(v) for v in flat[:summarize]]
    more = "..." if len(flat) > summarize else ""
    return "[" + " ".join(items) + more + "]"


def Print(input_: Any, data: Any, message: Any = None, first_n: Any = None,
          summarize: Any = None, name: str | None = None) -> Any:
    """Prints `message` and the tensors of `data` to stderr and returns `input_` (TF1's
    `tf.compat.v1.Print`); `summarize` elements of each (3 by default); with `first_n`, only
    the first `first_n` calls at this call site print.

    Returns:
        `input_`, unchanged.
    """
    site = id(sys._getframe(1).f_code) ^ sys._getframe(1).f_lineno
    count = _PRINT_COUNTS.get(site, 0)
    _PRINT_COUNTS[site] = count + 1
    if first_n is None or int(first_n) < 0 or count < int(first_n):
        n = 3 if summarize is None or int(summarize) < 0 else int(summarize)
        parts = "".join(_summary(d, n) for d in (data if isinstance(data, (list, tuple))
                                                 else [data]))
        print(f"{'' if message is None else message}{parts}", file=sys.stderr)
    return input_


def no_regularizer(_: Any) -> None:
    """Use this function to prevent regularization of variables (TF1's
    `tf.compat.v1.no_regularizer`).

    Returns:
        None.
    """
    return None


class uniform_unit_scaling_initializer:  # noqa: N801 (TF1's class name)
    """Initializer that generates tensors without scaling variance (TF1's
    `tf.compat.v1.uniform_unit_scaling_initializer`): uniform in `[-m, m]` with
    `m = factor * sqrt(3 / input_size)`, `input_size` the product of all but the last
    dimension."""

    def __init__(self, factor: float = 1.0, seed: int | None = None,
                 dtype: Any = torch.float32) -> None:
        d = _dtypes.as_dtype(dtype)
        if not (isinstance(d, torch.dtype) and d.is_floating_point):
            raise ValueError(f"Argument `dtype` is expected to be floating point. Received: "
                             f"{dtype_name(d) if isinstance(d, torch.dtype) else dtype}.")
        self.factor = float(factor)
        self.seed = seed
        self.dtype = d

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        """Returns a tensor of `shape` drawn as the class says (the full shape's input size)."""
        dims = [int(s) for s in shape]
        input_size = 1.0
        for s in dims[:-1]:
            input_size *= s
        input_size = max(input_size, 1.0)
        limit = math.sqrt(3.0 / input_size) * self.factor
        want = self.dtype if dtype is None else _dtypes.as_dtype(dtype)
        return tf.random.uniform(dims, -limit, limit, dtype=want, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        """Returns the initializer's configuration (factor, seed, dtype)."""
        return {"factor": self.factor, "seed": self.seed, "dtype": dtype_name(self.dtype)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> uniform_unit_scaling_initializer:
        """Builds an initializer from `get_config`'s dict."""
        return cls(**config)


NAMES = (
    "betainc", "polygamma", "setdiff1d", "batch_to_space_nd", "extract_image_patches",
    "extract_volume_patches", "matrix_square_root", "scatter_add", "scatter_sub", "scatter_mul",
    "scatter_div", "scatter_min", "scatter_max", "scatter_update", "scatter_nd_add",
    "scatter_nd_sub", "scatter_nd_update", "tensor_scatter_add", "tensor_scatter_sub",
    "tensor_scatter_update", "batch_gather", "batch_scatter_update", "decode_csv",
    "decode_json_example", "sparse_mask", "sparse_matmul", "verify_tensor_all_finite",
    "count_up_to", "dimension_value", "dimension_at_index", "Dimension", "Print",
    "no_regularizer", "uniform_unit_scaling_initializer", "string_to_hash_bucket",
)
