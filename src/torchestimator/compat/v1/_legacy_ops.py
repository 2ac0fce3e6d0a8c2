"""TF1's top-level functions in `tf.compat.v1` whose signature differs from TF2's, and the TF1
names of TF2 functions.

Each wrapper takes TF 1.x's arguments (the deprecated `keep_dims`, `reduction_indices`,
`dimension`, `dim`, `squeeze_dims`, ...) and calls the project's TF2 function; passing both
the new and the deprecated name of one argument raises TF's ValueError. The `to_*` casts,
`div` (Python 2 division), the `random_*` and `matrix_*` names, the `string_*` names and the
variable initializers (no-ops: a variable is initialized when it is made, as in eager TF) are
here too.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import torchestimator as tf
from torchestimator._ops import random_ops


def _deprecated(new: Any, old: Any, new_name: str, old_name: str) -> Any:
    """The value of an argument given under its new or its deprecated name (TF's
    `deprecated_argument_lookup`)."""
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return old
    return new


# ------------------------------------------------------------------ reductions
def _reduction(fn: Callable) -> Callable:
    def reduce(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Any:
        axis = _deprecated(axis, reduction_indices, "axis", "reduction_indices")
        keepdims = bool(_deprecated(keepdims, keep_dims, "keepdims", "keep_dims") or False)
        return fn(input_tensor, axis=axis, keepdims=keepdims, name=name)

    reduce.__name__ = fn.__name__
    reduce.__doc__ = (f"TF1's `{fn.__name__}(input_tensor, axis, keepdims, name, reduction_indices, "
                      f"keep_dims)`: `tf.{fn.__name__}` with the deprecated argument names. Returns "
                      "the reduced tensor.")
    return reduce


reduce_all = _reduction(tf.reduce_all)
reduce_any = _reduction(tf.reduce_any)
reduce_logsumexp = _reduction(tf.reduce_logsumexp)
reduce_max = _reduction(tf.reduce_max)
reduce_mean = _reduction(tf.reduce_mean)
reduce_min = _reduction(tf.reduce_min)
reduce_prod = _reduction(tf.reduce_prod)
reduce_sum = _reduction(tf.reduce_sum)


def count_nonzero(input_tensor: Any = None, axis: Any = None, keepdims: Any = None, dtype: Any = tf.int64,
                  name: str | None = None, reduction_indices: Any = None, keep_dims: Any = None,
                  input: Any = None) -> Any:  # noqa: A002 - TF's argument name
    """TF1's `count_nonzero`: the number of non-zero elements along `axis`."""
    input_tensor = _deprecated(input_tensor, input, "input_tensor", "input")
    axis = _deprecated(axis, reduction_indices, "axis", "reduction_indices")
    keepdims = bool(_deprecated(keepdims, keep_dims, "keepdims", "keep_dims") or False)
    return tf.math.count_nonzero(input_tensor, axis=axis, keepdims=keepdims, dtype=dtype)


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None,  # noqa: A002
         name: str | None = None, keep_dims: Any = None) -> Any:
    """TF1's `norm`: `tf.norm` with `keep_dims`."""
    keepdims = _deprecated(keepdims, keep_dims, "keepdims", "keep_dims")
    return tf.norm(tensor, ord=ord, axis=axis, keepdims=keepdims, name=name)


# ------------------------------------------------------------------ shapes and indices
def argmax(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
           output_type: Any = tf.int64) -> Any:
    """TF1's `argmax(input, axis, name, dimension, output_type)`; axis 0 by default."""
    axis = _deprecated(axis, dimension, "axis", "dimension")
    return tf.argmax(input, axis=0 if axis is None else axis, output_type=output_type)


def argmin(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
           output_type: Any = tf.int64) -> Any:
    """TF1's `argmin(input, axis, name, dimension, output_type)`; axis 0 by default."""
    axis = _deprecated(axis, dimension, "axis", "dimension")
    return tf.argmin(input, axis=0 if axis is None else axis, output_type=output_type)


def arg_max(input: Any, dimension: Any, output_type: Any = tf.int64, name: str | None = None) -> Any:  # noqa: A002
    """TF1's `arg_max(input, dimension)`: the index of the largest value along `dimension`."""
    return tf.argmax(input, axis=dimension, output_type=output_type)


def arg_min(input: Any, dimension: Any, output_type: Any = tf.int64, name: str | None = None) -> Any:  # noqa: A002
    """TF1's `arg_min(input, dimension)`: the index of the smallest value along `dimension`."""
    return tf.argmin(input, axis=dimension, output_type=output_type)


def expand_dims(input: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Any:  # noqa: A002
    """TF1's `expand_dims(input, axis, name, dim)`."""
    axis = _deprecated(axis, dim, "axis", "dim")
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return tf.expand_dims(input, axis)


def squeeze(input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None) -> Any:  # noqa: A002
    """TF1's `squeeze(input, axis, name, squeeze_dims)`."""
    return tf.squeeze(input, _deprecated(axis, squeeze_dims, "axis", "squeeze_dims"))


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: Any = None, batch_axis: Any = None,  # noqa: A002
                     name: str | None = None, seq_dim: Any = None, batch_dim: Any = None) -> Any:
    """TF1's `reverse_sequence` with `seq_dim` / `batch_dim`."""
    seq_axis = _deprecated(seq_axis, seq_dim, "seq_axis", "seq_dim")
    batch_axis = _deprecated(batch_axis, batch_dim, "batch_axis", "batch_dim")
    return tf.reverse_sequence(input, seq_lengths, seq_axis=seq_axis,
                               batch_axis=0 if batch_axis is None else batch_axis)


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Any:
    """TF1's `ones_like(tensor, dtype, name, optimize)`."""
    return tf.ones_like(tensor, dtype=dtype)


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Any:
    """TF1's `zeros_like(tensor, dtype, name, optimize)`."""
    return tf.zeros_like(tensor, dtype=dtype)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Any:
    """TF1's `constant`; with `verify_shape`, `value` must already have `shape`."""
    if verify_shape and shape is not None:
        actual = tuple(np.shape(value))
        if actual != tuple(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {actual}.")
    return tf.constant(value, dtype=dtype, shape=shape)


def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None,
                      preferred_dtype: Any = None, dtype_hint: Any = None) -> Any:
    """TF1's `convert_to_tensor` with `preferred_dtype`."""
    return tf.convert_to_tensor(value, dtype=dtype,
                                dtype_hint=_deprecated(dtype_hint, preferred_dtype, "dtype_hint",
                                                       "preferred_dtype"))


def cond(pred: Any, true_fn: Any = None, false_fn: Any = None, strict: bool = False,
         name: str | None = None, fn1: Any = None, fn2: Any = None) -> Any:
    """TF1's `cond` with `fn1` / `fn2`."""
    true_fn = _deprecated(true_fn, fn1, "true_fn", "fn1")
    false_fn = _deprecated(false_fn, fn2, "false_fn", "fn2")
    return tf.cond(pred, true_fn, false_fn)


def while_loop(cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               name: str | None = None, maximum_iterations: Any = None,
               return_same_structure: bool = False) -> Any:
    """TF1's `while_loop`; a single loop variable comes back unwrapped unless
    `return_same_structure`, as in TF1."""
    result = tf.while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                           maximum_iterations=maximum_iterations)
    if not return_same_structure and isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    return result


def as_dtype(type_value: Any) -> Any:
    """TF1's `as_dtype(type_value)`."""
    return tf.as_dtype(type_value)


def device(device_name_or_function: Any) -> Any:
    """TF1's `device`: a device name (a device function is TF1 graph placement, refused)."""
    if callable(device_name_or_function):
        raise RuntimeError(
            "tf.compat.v1.device(function): device functions place graph operations; there is no "
            "graph here. Pass a device name ('/GPU:0'), or set TORCHESTIMATOR_DEVICE."
        )
    return tf.device(device_name_or_function)


# ------------------------------------------------------------------ casts and arithmetic
def _cast_to(dtype: Any, label: str) -> Callable:
    def cast(x: Any, name: str = label) -> Any:
        return tf.cast(x, dtype)

    cast.__name__ = label
    cast.__doc__ = f"TF1's `{label}(x)`: `tf.cast(x, {dtype})`."
    return cast


to_bfloat16 = _cast_to(tf.bfloat16, "to_bfloat16")
to_complex64 = _cast_to(tf.complex64, "to_complex64")
to_complex128 = _cast_to(torch.complex128, "to_complex128")
to_double = _cast_to(tf.float64, "to_double")
to_float = _cast_to(tf.float32, "to_float")
to_int32 = _cast_to(tf.int32, "to_int32")
to_int64 = _cast_to(tf.int64, "to_int64")


def div(x: Any, y: Any, name: str | None = None) -> Any:
    """TF1's `div`: Python 2 division, floor division for integers and true division for
    floats."""
    x = tf.convert_to_tensor(x)
    y = tf.convert_to_tensor(y, dtype_hint=x.dtype)  # a Python number takes x's dtype, as TF's
    if x.is_floating_point() or y.is_floating_point() or x.is_complex() or y.is_complex():
        return tf.divide(x, y)
    return tf.math.floordiv(x, y)


def floor_div(x: Any, y: Any, name: str | None = None) -> Any:
    """TF1's `floor_div`: `tf.math.floordiv`."""
    return tf.math.floordiv(x, y)


def div_no_nan(x: Any, y: Any, name: str | None = None) -> Any:
    """`x / y`, 0 where `y` is 0."""
    return tf.math.divide_no_nan(x, y)


def clip_by_average_norm(t: Any, clip_norm: Any, name: str | None = None) -> Any:
    """Clips `t` so that its L2 norm divided by its number of elements is at most `clip_norm`
    (TF1's `clip_by_average_norm`)."""
    t = tf.convert_to_tensor(t)
    average = torch.linalg.vector_norm(t.float()) / t.numel()
    clip = torch.as_tensor(clip_norm, dtype=torch.float32, device=t.device)
    scale = torch.clamp(clip / average, max=1.0)
    return (t * scale.to(t.dtype)).to(t.dtype)


# ------------------------------------------------------------------ random numbers
def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = tf.float32,
                  seed: Any = None, name: str | None = None) -> Any:
    """TF1's `random_normal`: `tf.random.normal`."""
    return tf.random.normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=seed)


def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = tf.float32,
                   seed: Any = None, name: str | None = None) -> Any:
    """TF1's `random_uniform`: `tf.random.uniform`."""
    return tf.random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype, seed=seed)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = tf.float32,
                     seed: Any = None, name: str | None = None) -> Any:
    """TF1's `truncated_normal`: `tf.random.truncated_normal`."""
    return tf.random.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=seed)


def random_shuffle(value: Any, seed: Any = None, name: str | None = None) -> Any:
    """TF1's `random_shuffle`: `tf.random.shuffle`."""
    return tf.random.shuffle(value, seed=seed)


def random_gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = tf.float32, seed: Any = None,
                 name: str | None = None) -> Any:
    """TF1's `random_gamma`: `tf.random.gamma`."""
    return tf.random.gamma(shape, alpha, beta=beta, dtype=dtype, seed=seed)


def random_poisson(lam: Any, shape: Any, dtype: Any = tf.float32, seed: Any = None,
                   name: str | None = None) -> Any:
    """TF1's `random_poisson(lam, shape)` (TF2's takes `shape` first)."""
    return tf.random.poisson(shape, lam, dtype=dtype, seed=seed)


def multinomial(logits: Any, num_samples: Any, seed: Any = None, name: str | None = None,
                output_dtype: Any = None) -> Any:
    """TF1's `multinomial`: `tf.random.categorical`."""
    return tf.random.categorical(logits, num_samples, dtype=output_dtype, seed=seed)


def set_random_seed(seed: Any) -> None:
    """TF1's `set_random_seed`: `tf.random.set_seed`."""
    tf.random.set_seed(seed)


_DEFAULT_GRAPH_SEED = 87654321
_op_counter = [0]


def get_seed(op_seed: Any) -> tuple[Any, Any]:
    """The `(graph-level seed, op seed)` pair a random op would use (TF's `get_seed`): with a
    global seed, it and `op_seed` (a fresh number per call when None); without one, TF's default
    graph seed and `op_seed`, or `(None, None)` when `op_seed` is None too."""

    global_seed = random_ops._global_seed
    if global_seed is not None:
        if op_seed is None:
            _op_counter[0] += 1
            op_seed = _op_counter[0]
        return global_seed, op_seed
    if op_seed is not None:
        return _DEFAULT_GRAPH_SEED, op_seed
    return None, None


def lin_space(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Any:
    """TF1's `lin_space`: `tf.linspace`."""
    return tf.linspace(start, stop, num, axis=axis)


# ------------------------------------------------------------------ linear algebra
def _linalg(target: str, label: str) -> Callable:
    fn = getattr(tf.linalg, target)

    def call(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop("name", None)
        return fn(*args, **kwargs)

    call.__name__ = label
    call.__doc__ = f"TF1's `{label}`: `tf.linalg.{target}`."
    return call


matrix_band_part = _linalg("band_part", "matrix_band_part")
matrix_determinant = _linalg("det", "matrix_determinant")
matrix_diag = _linalg("diag", "matrix_diag")
matrix_diag_part = _linalg("diag_part", "matrix_diag_part")
matrix_inverse = _linalg("inv", "matrix_inverse")
matrix_set_diag = _linalg("set_diag", "matrix_set_diag")
matrix_solve = _linalg("solve", "matrix_solve")
matrix_solve_ls = _linalg("lstsq", "matrix_solve_ls")
matrix_triangular_solve = _linalg("triangular_solve", "matrix_triangular_solve")
self_adjoint_eig = _linalg("eigh", "self_adjoint_eig")
self_adjoint_eigvals = _linalg("eigvalsh", "self_adjoint_eigvals")


# ------------------------------------------------------------------ strings
def string_join(inputs: Any, separator: str = "", name: str | None = None) -> Any:
    """TF1's `string_join`: `tf.strings.join`."""
    return tf.strings.join(inputs, separator=separator)


def string_strip(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """TF1's `string_strip`: `tf.strings.strip`."""
    return tf.strings.strip(input)


def string_to_number(string_tensor: Any = None, out_type: Any = tf.float32, name: str | None = None,
                     input: Any = None) -> Any:  # noqa: A002
    """TF1's `string_to_number(string_tensor, out_type, name, input)` (`input` is the new name
    of `string_tensor`): `tf.strings.to_number`."""
    string_tensor = _deprecated(input, string_tensor, "input", "string_tensor")
    if string_tensor is None:
        raise ValueError("string_to_number: pass `string_tensor` (or `input`).")
    return tf.strings.to_number(string_tensor, out_type=out_type)


def string_to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Any:  # noqa: A002
    """TF1's `string_to_hash_bucket_fast`: `tf.strings.to_hash_bucket_fast`."""
    return tf.strings.to_hash_bucket_fast(input, num_buckets)


def string_to_hash_bucket_strong(input: Any, num_buckets: int, key: Any, name: str | None = None) -> Any:  # noqa: A002
    """TF1's `string_to_hash_bucket_strong`: `tf.strings.to_hash_bucket_strong`."""
    return tf.strings.to_hash_bucket_strong(input, num_buckets, key)


# ------------------------------------------------------------------ variables
def assign(ref: Any, value: Any, validate_shape: Any = None, use_locking: Any = None,
           name: str | None = None) -> Any:
    """TF1's `assign(ref, value)`: `ref.assign(value)`; returns `ref`."""
    return ref.assign(value)


def assign_add(ref: Any, value: Any, use_locking: Any = None, name: str | None = None) -> Any:
    """TF1's `assign_add(ref, value)`: `ref.assign_add(value)`; returns `ref`."""
    return ref.assign_add(value)


def assign_sub(ref: Any, value: Any, use_locking: Any = None, name: str | None = None) -> Any:
    """TF1's `assign_sub(ref, value)`: `ref.assign_sub(value)`; returns `ref`."""
    return ref.assign_sub(value)


def _initialized(*args: Any, **kwargs: Any) -> Any:
    """A no-op: a variable is initialized when it is created (eager TF's behaviour); returns
    `tf.no_op()`, which `session.run` and `tf.group` accept."""
    return tf.no_op()


global_variables_initializer = _initialized
local_variables_initializer = _initialized
tables_initializer = _initialized
variables_initializer = _initialized
initialize_all_variables = _initialized
initialize_all_tables = _initialized
initialize_local_variables = _initialized
initialize_variables = _initialized


def is_variable_initialized(variable: Any) -> Any:
    """True: a variable is initialized when it is created."""
    return tf.constant(True)


def assert_variables_initialized(var_list: Any = None) -> Any:
    """A no-op (every variable is initialized when created); returns `tf.no_op()`."""
    return tf.no_op()


def report_uninitialized_variables(var_list: Any = None, name: str = "report_uninitialized_variables") -> Any:
    """The names of uninitialized variables: none, an empty string tensor."""

    return np.empty((0,), dtype=object)


def py_func(func: Callable, inp: Any, Tout: Any, stateful: bool = True, name: str | None = None) -> Any:  # noqa: N803
    """TF1's `py_func`: calls `func` on numpy values (`tf.numpy_function`)."""
    return tf.numpy_function(func, inp, Tout)


# ------------------------------------------------------------------ execution switches
def _always_eager(what: str) -> Callable:
    def switch(*args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"tf.compat.v1.{what}() has no effect: torchestimator always runs eagerly on PyTorch "
            "(there is no graph mode); TF1 code that reads values with session.run should read "
            "them with .numpy() instead.",
            stacklevel=2,
        )

    switch.__name__ = what
    switch.__doc__ = f"TF1's `{what}()`: warns that it has no effect (execution is always eager)."
    return switch


disable_eager_execution = _always_eager("disable_eager_execution")
disable_v2_behavior = _always_eager("disable_v2_behavior")
disable_resource_variables = _always_eager("disable_resource_variables")
disable_control_flow_v2 = _always_eager("disable_control_flow_v2")
disable_tensor_equality = _always_eager("disable_tensor_equality")
disable_v2_tensorshape = _always_eager("disable_v2_tensorshape")


def _nothing(*args: Any, **kwargs: Any) -> None:
    """Already so: execution is eager with TF2's behaviour; nothing to change."""


enable_eager_execution = _nothing
enable_v2_behavior = _nothing
enable_resource_variables = _nothing
enable_control_flow_v2 = _nothing
enable_tensor_equality = _nothing
enable_v2_tensorshape = _nothing


def _true() -> bool:
    """True: TF2's behaviour is always on here."""
    return True


executing_eagerly_outside_functions = _true
resource_variables_enabled = _true
control_flow_v2_enabled = _true


#: TF1 names of TF2 functions (same semantics): name -> (namespace, name there).
RENAMED: dict[str, tuple[str, str]] = {
    "reverse_v2": ("", "reverse"),
    "where_v2": ("", "where"),
    "floordiv": ("math", "floordiv"),
}
