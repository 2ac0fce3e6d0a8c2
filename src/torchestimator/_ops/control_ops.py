"""TensorFlow's eager control API over torch: `tf.function`, `tf.print`, `tf.group`, `tf.no_op`,
`tf.control_dependencies`, `tf.device`, `tf.name_scope`, `tf.Module`, `tf.custom_gradient`,
`tf.py_function`, `tf.numpy_function`, `tf.cond`, `tf.while_loop`, ...

Everything runs eagerly, as TF 2 does outside a `tf.function`:

- `tf.function` returns a callable that runs the Python function on every
  call (Python side effects run every time, not once per trace). With
  `jit_compile=True` (or `tf.config.optimizer.set_jit(True)`) the function
  goes through `torch.compile`; if compiling fails, it warns once and runs
  eagerly from then on. `tf.config.run_functions_eagerly(True)` turns
  compilation off. `input_signature` is checked on every call.
- `tf.group`, `tf.no_op` and `tf.control_dependencies`: eager ops have
  already run when they return (`var.assign_add(1)` updated the variable), so
  there is nothing left to order. `tf.group` keeps the train ops that
  `optimizer.minimize` returns inside an Estimator `model_fn` (deferred until
  the step runs) and returns a no-op object when there is none, which an
  `EstimatorSpec` accepts as `train_op` (TF eager would return None).
(`ensure_shape`, `identity_n` and `get_static_value` live in `creation.py`.)

- `tf.device('/GPU:0')` makes that device torch's default device for tensors
  created inside the block. As with TF's default soft placement, a GPU that
  does not exist (no CUDA; an index past the last GPU) means the CPU, silently;
  on a Mac without CUDA, 'GPU' is the MPS device. Tensors made before the
  block are not moved.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import math
import os
import pprint
import re
import sys
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine.train_op import TrainOp, parameters_of
from torchestimator._engine.train_op import group as _group_train_ops
from torchestimator._gradient_tape import UnconnectedGradients
from torchestimator._ops.check_ops import (
    Assert,
    assert_equal,
    assert_greater,
    assert_less,
    assert_rank,
)
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator._variable import _SCOPE, current_name_scope
from torchestimator.errors import InvalidArgumentError

__all__: list[str] = [
    "Assert", "Module", "UnconnectedGradients", "assert_equal", "assert_greater", "assert_less",
    "assert_rank", "case", "cond", "control_dependencies", "custom_gradient", "device",
    "executing_eagerly", "function", "group", "init_scope", "name_scope", "no_op",
    "numpy_function", "print", "py_function", "switch_case", "while_loop",
]

# ============================================================================ tf.function
class _FunctionSettings:
    """Process-wide switches set through `tf.config`: run every tf.function eagerly, and
    `tf.config.optimizer.set_jit` (compile functions that do not say `jit_compile=False`)."""

    run_eagerly = False
    jit = False


FUNCTION_SETTINGS = _FunctionSettings()


def _spec_text(spec: Any) -> str:
    shape = None if spec.shape is None else tuple(spec.shape)
    return f"TensorSpec(shape={shape}, dtype=tf.{dtype_name(spec.dtype)}, name={spec.name!r})"


def _spec_of(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return _dtypes.TensorSpec(tuple(value.shape), value.dtype)
    if isinstance(value, np.ndarray) and value.dtype.kind in "OUS":
        return _dtypes.TensorSpec(tuple(value.shape), _dtypes.string)
    return None


def _shape_fits(shape: tuple | None, actual: tuple) -> bool:
    if shape is None:
        return True
    return len(shape) == len(actual) and all(s is None or s == a for s, a in zip(shape, actual))


def _conform(spec: Any, value: Any, where: str, fn_name: str) -> Any:
    """`value` checked against `spec` (a TensorSpec or a structure of them) and converted to a
    tensor of the spec's dtype where it is not a tensor yet."""
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(
                f"tf.function {fn_name}: argument {where} must be a dict with keys "
                f"{sorted(spec)} to match the input_signature; received {value!r:.200}."
            )
        return {k: _conform(spec[k], value[k], f"{where}[{k!r}]", fn_name) for k in spec}
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError(
                f"tf.function {fn_name}: argument {where} must be a sequence of {len(spec)} "
                f"values to match the input_signature; received {value!r:.200}."
            )
        out = [_conform(s, v, f"{where}[{i}]", fn_name) for i, (s, v) in enumerate(zip(spec, value))]
        return out if isinstance(value, list) else tuple(out)
    if not isinstance(spec, _dtypes.TensorSpec):
        return value
    converted = value
    if not isinstance(value, torch.Tensor):
        try:
            converted = convert_to_tensor(value)
            if isinstance(converted, torch.Tensor) and spec.dtype is not _dtypes.string and \
                    converted.dtype != spec.dtype and (
                        converted.is_floating_point() == spec.dtype.is_floating_point):
                converted = converted.to(spec.dtype)  # numpy float64 / Python lists, as TF
        except (TypeError, ValueError):
            converted = value
    actual = _spec_of(converted)
    if actual is None or actual.dtype != spec.dtype or not _shape_fits(spec.shape, actual.shape):
        got = _spec_text(_dtypes.TensorSpec(actual.shape, actual.dtype, spec.name)) if actual \
            else f"{type(value).__name__} {value!r:.100}"
        raise TypeError(
            f"Binding inputs to tf.function {fn_name} failed due to `Can not cast {got} to "
            f"{_spec_text(spec)}` for argument {where}."
        )
    return converted


class ConcreteFunction:
    """A `tf.function` specialised to one input signature (`get_concrete_function`): called with
    the tensor arguments of that signature, it checks them against it and runs the function."""

    def __init__(self, function: Function, args: tuple, kwargs: dict):
        self._function = function
        self._args = args
        self._kwargs = kwargs

    @property
    def structured_input_signature(self) -> tuple:
        """`(args, kwargs)`: TensorSpecs where a tensor goes, Python values fixed at creation."""
        return self._args, dict(self._kwargs)

    @property
    def name(self) -> str:
        """The function's name."""
        return self._function.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn_name = self.name
        call_args = []
        given = list(args)
        for index, spec in enumerate(self._args):
            if _holds_spec(spec):
                if not given:
                    raise TypeError(
                        f"ConcreteFunction {fn_name}: missing the tensor argument at position {index}."
                    )
                call_args.append(_conform(spec, given.pop(0), f"#{index}", fn_name))
            else:
                call_args.append(spec)
        if given:
            raise TypeError(
                f"ConcreteFunction {fn_name}: got {len(args)} positional argument(s), more than "
                f"its signature takes."
            )
        call_kwargs = {}
        for key, spec in self._kwargs.items():
            if _holds_spec(spec):
                if key not in kwargs:
                    raise TypeError(f"ConcreteFunction {fn_name}: missing the argument {key!r}.")
                call_kwargs[key] = _conform(spec, kwargs.pop(key), repr(key), fn_name)
            else:
                call_kwargs[key] = spec
        if kwargs:
            raise TypeError(
                f"ConcreteFunction {fn_name}: got unexpected keyword argument(s) {sorted(kwargs)}."
            )
        return self._function._run(tuple(call_args), call_kwargs)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.name}{self._args!r}>"


def _holds_spec(value: Any) -> bool:
    if isinstance(value, _dtypes.TensorSpec):
        return True
    if isinstance(value, dict):
        return any(_holds_spec(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_spec(v) for v in value)
    return False


def _specs_for(value: Any) -> Any:
    spec = _spec_of(value)
    if spec is not None:
        return spec
    if isinstance(value, dict):
        return {k: _specs_for(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and any(_spec_of(v) is not None for v in value):
        specs = [_specs_for(v) for v in value]
        return specs if isinstance(value, list) else tuple(specs)
    return value


class Function:
    """What `tf.function` returns: a callable running `python_function` (compiled with
    `torch.compile` when `jit_compile=True`), checking `input_signature` when given."""

    def __init__(self, python_function: Callable, input_signature: Any = None,
                 jit_compile: bool | None = None, name: str | None = None,
                 instance: Any = None, options: dict | None = None):
        if not callable(python_function):
            raise TypeError(f"tf.function: func must be callable; received {python_function!r:.100}")
        self._python_function = python_function
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._jit_compile = jit_compile
        self._options = dict(options or {})
        self._instance_ref = None if instance is None else _ref(instance)
        self._compiled: Any = None
        self._compile_failed = False
        self._bound: Any = None
        self.__name__ = name or getattr(python_function, "__name__", type(python_function).__name__)
        self.__qualname__ = getattr(python_function, "__qualname__", self.__name__)
        self.__doc__ = getattr(python_function, "__doc__", None)
        self.__module__ = getattr(python_function, "__module__", __name__)
        self.__wrapped__ = python_function
        if self._input_signature is not None:
            self._parameters = _positional_parameters(python_function, instance is not None)
            if len(self._input_signature) > len(self._parameters) and not any(
                p.kind is inspect.Parameter.VAR_POSITIONAL
                for p in _all_parameters(python_function)
            ):
                raise TypeError(
                    f"tf.function {self.__name__}: input_signature has {len(self._input_signature)} "
                    f"entries but the function takes {len(self._parameters)} positional argument(s)."
                )

    # --- what TF's Function reports ------------------------------------------------------
    @property
    def python_function(self) -> Callable:
        """The Python function (a bound method when accessed through an instance)."""
        instance = self._instance()
        if instance is not None:
            return types.MethodType(self._python_function, instance)
        return self._python_function

    @property
    def input_signature(self) -> tuple | None:
        """The `input_signature` given to `tf.function`, or None."""
        return self._input_signature

    @property
    def name(self) -> str:
        """The function's name."""
        return self.__name__

    def experimental_get_tracing_count(self) -> int:
        """How many times the function was compiled (0 when it runs eagerly)."""
        return 0 if self._compiled is None or self._compile_failed else 1

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """Returns the function specialised to the signature of `args` (tensors or TensorSpecs;
        other values are fixed), or to `input_signature` when called without arguments."""
        if self._input_signature is not None:
            return ConcreteFunction(self, self._input_signature, {})
        return ConcreteFunction(self, tuple(_specs_for(a) for a in args),
                                {k: _specs_for(v) for k, v in kwargs.items()})

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        cache = self.__dict__.get("_bound")
        if cache is None:
            cache = self._bound = weakref.WeakKeyDictionary()
        try:
            bound = cache.get(instance)
        except TypeError:  # not weak-referenceable or unhashable: a fresh bound function
            return self._bind_to(instance)
        if bound is None:
            bound = self._bind_to(instance)
            cache[instance] = bound
        return bound

    def _bind_to(self, instance: Any) -> Function:
        return Function(self._python_function, self._input_signature, self._jit_compile,
                        self.__name__, instance, self._options)

    def _instance(self) -> Any:
        return None if self._instance_ref is None else self._instance_ref()

    # --- calling -----------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._input_signature is not None:
            args, kwargs = self._bind_signature(args, kwargs)
        return self._run(args, kwargs)

    def _bind_signature(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        signature = self._input_signature
        params = self._parameters
        if len(args) > len(signature):
            raise TypeError(
                f"Binding inputs to tf.function {self.__name__} failed due to `too many positional "
                f"arguments`: its input_signature takes {len(signature)}, received {len(args)}."
            )
        values = list(args)
        kwargs = dict(kwargs)
        for param in params[len(values):len(signature)]:
            if param.name not in kwargs:
                raise TypeError(
                    f"Binding inputs to tf.function {self.__name__} failed due to `missing a required "
                    f"argument: '{param.name}'`."
                )
            values.append(kwargs.pop(param.name))
        names = [p.name for p in params] + [f"#{i}" for i in range(len(params), len(signature))]
        values = [_conform(spec, value, repr(names[i]), self.__name__)
                  for i, (spec, value) in enumerate(zip(signature, values))]
        return tuple(values), kwargs

    def _wants_compile(self) -> bool:
        if FUNCTION_SETTINGS.run_eagerly or self._compile_failed:
            return False
        return bool(self._jit_compile) if self._jit_compile is not None else FUNCTION_SETTINGS.jit

    def _run(self, args: tuple, kwargs: dict) -> Any:
        instance = self._instance()
        if self._instance_ref is not None:
            if instance is None:
                raise ReferenceError(f"tf.function {self.__name__}: its instance no longer exists.")
            args = (instance,) + tuple(args)
        if not self._wants_compile():
            return self._python_function(*args, **kwargs)
        if self._compiled is None:
            self._compiled = torch.compile(self._python_function)
        try:
            return self._compiled(*args, **kwargs)
        except Exception as error:
            from torch._dynamo.exc import TorchDynamoException

            if not isinstance(error, TorchDynamoException):
                raise
            self._compile_failed = True
            warnings.warn(
                f"tf.function {self.__name__}(jit_compile=True): torch.compile failed "
                f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}); "
                "the function runs eagerly from now on.",
                RuntimeWarning, stacklevel=3,
            )
            return self._python_function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tf.function {self.__qualname__}>"


def _ref(instance: Any) -> Callable[[], Any]:
    try:
        return weakref.ref(instance)
    except TypeError:
        return lambda: instance


def _all_parameters(fn: Callable) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def _positional_parameters(fn: Callable, bound: bool) -> list[inspect.Parameter]:
    params = [p for p in _all_parameters(fn) if p.kind in (
        inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return params[1:] if bound else params


def function(
    func: Callable | None = None,
    input_signature: Any = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: Any = None,
    experimental_autograph_options: Any = None,
    experimental_attributes: Any = None,
    experimental_relax_shapes: Any = None,
    experimental_compile: Any = None,
    experimental_follow_type_hints: Any = None,
) -> Any:
    """Makes a callable from a Python function, as TF's `tf.function` (as a decorator with or
    without arguments, or called on a function).

    The function runs eagerly on every call (`autograph`, `reduce_retracing` and
    `experimental_relax_shapes` are accepted and have nothing to do). With
    `input_signature` (a list of `tf.TensorSpec`s, or structures of them),
    each call's arguments are checked: tensors must have the spec's dtype and a
    compatible shape, and numpy arrays or Python values are converted to it;
    otherwise a TypeError names the argument. `jit_compile=True` compiles the
    function with `torch.compile` (falling back to eager, with a warning, if
    that fails). Methods work: the decorated function binds to its instance.

    Returns:
        A `Function` (or, without `func`, a decorator that makes one).
    """
    if jit_compile is None and experimental_compile is not None:
        jit_compile = experimental_compile
    options = {"autograph": autograph, "reduce_retracing": reduce_retracing}

    def decorate(fn: Callable) -> Function:
        if isinstance(fn, Function):
            fn = fn._python_function
        return Function(fn, input_signature, jit_compile, options=options)

    return decorate if func is None else decorate(func)


# ============================================================================ tf.print
_FLOAT_DIGITS = {torch.float64: (15, 17)}


def _format_float(value: float, digits: tuple[int, int], single: bool) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    short = f"{value:.{digits[0]}g}"
    same = np.float32(float(short)) == np.float32(value) if single else float(short) == value
    return short if same else f"{value:.{digits[1]}g}"


def _element_formatter(dtype: Any) -> Callable[[Any], str]:
    if dtype is _dtypes.string:
        return lambda v: '"' + _c_escape(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)) + '"'
    if dtype is torch.bool:
        return lambda v: "1" if v else "0"
    if dtype.is_floating_point:
        digits = _FLOAT_DIGITS.get(dtype, (6, 9))
        single = dtype is not torch.float64
        return lambda v: _format_float(float(v), digits, single)
    if dtype.is_complex:
        return lambda v: f"({v.real:g},{v.imag:g})"
    return lambda v: str(int(v))


def _c_escape(text: str) -> str:
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'")
            .replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"))


def _dim_spacing(dim: int, rank: int) -> str:
    if dim == rank - 1:
        return " "
    return "\n" * (rank - dim - 1) + " " * (dim + 1)


def format_tensor(value: Any, summarize: int = 3) -> str:
    """A tensor's values as TF's `tf.print` shows them: `[1 2 3]`, nested brackets per dimension,
    and with more than 2*summarize entries in a dimension only the first and last `summarize`
    of them around `...` (summarize=-1: everything)."""
    if isinstance(value, torch.Tensor):
        dtype = value.dtype
        tensor = value.detach().cpu()
        if dtype in (torch.float16, torch.bfloat16):
            tensor = tensor.float()
        array = tensor.resolve_conj().numpy() if not dtype.is_complex else tensor.numpy()
    else:
        array = np.asarray(value)
        dtype = _dtypes.string if array.dtype.kind in "OUS" else _dtypes.as_dtype(array.dtype)
    fmt = _element_formatter(dtype)
    total = array.size
    limit = total if summarize is None or summarize < 0 else builtins.min(summarize, total)
    if array.ndim == 0:
        return (fmt(array.item()) if limit else "") + ("..." if total > limit else "")
    shape = array.shape
    rank = array.ndim
    flat = array.reshape(-1)
    parts: list[str] = []

    def one_dim(dim: int, offset: int) -> None:
        if dim == rank:
            parts.append(fmt(flat[offset]))
            return
        parts.append("[")
        count = shape[dim]
        step = int(np.prod(shape[dim + 1:], dtype=np.int64))
        start_of_end = builtins.max(limit, count - limit)
        for i in range(builtins.min(limit, count)):
            if i > 0:
                parts.append(_dim_spacing(dim, rank))
            one_dim(dim + 1, offset + step * i)
        if count > 2 * limit:
            parts.append(_dim_spacing(dim, rank))
            parts.append("...")
        for i in range(start_of_end, count):
            parts.append(_dim_spacing(dim, rank))
            one_dim(dim + 1, offset + step * i)
        parts.append("]")

    one_dim(0, 0)
    return "".join(parts)


def _is_printed_tensor(value: Any) -> bool:
    return isinstance(value, torch.Tensor) or (
        isinstance(value, np.ndarray) and value.dtype.kind in "OUS")


def _replace_tensors(value: Any, placeholder: str, found: list) -> Any:
    if _is_printed_tensor(value):
        found.append(value)
        return placeholder
    if isinstance(value, dict):
        return {k: _replace_tensors(value[k], placeholder, found) for k in sorted(value, key=_sort_key)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_replace_tensors(v, placeholder, found) for v in value))
    if isinstance(value, (list, tuple)):
        items = [_replace_tensors(v, placeholder, found) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def _sort_key(key: Any) -> Any:
    return (str(type(key)), key) if not isinstance(key, (int, float, str)) else (0, key)


def print(*inputs: Any, **kwargs: Any) -> None:  # noqa: A001 - TF's name
    """Prints `inputs` as TF's `tf.print(*inputs, output_stream=sys.stderr, summarize=3,
    sep=' ', end='\\n', name=None)`.

    Tensors (and string arrays) print their values as TF does (`[1 2 3]`, floats
    with the digits that round-trip, long dimensions summarized around `...`);
    strings print as they are; other values and structures print as Python
    shows them, with the tensors inside them formatted. `output_stream` is
    `sys.stdout`, `sys.stderr`, any object with `write`, a logging function
    (`logging.info`, ...) or `'file://<path>'` (appended to).
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    if summarize is None:
        summarize = 3
    placeholder = "{__tf_print_placeholder__}"
    found: list = []
    templates = []
    for value in inputs:
        if isinstance(value, str):
            templates.append(value)
            continue
        structure = _replace_tensors(value, placeholder, found)
        template = pprint.pformat(structure)
        templates.append(template.replace(repr(placeholder), placeholder))
    pieces = sep.join(templates).split(placeholder)
    text = pieces[0]
    for tensor, piece in zip(found, pieces[1:]):
        text += format_tensor(tensor, summarize) + piece
    _write(output_stream, text, end)


def _write(stream: Any, text: str, end: str) -> None:
    if isinstance(stream, str):
        if not stream.startswith("file://"):
            raise ValueError(
                f"tf.print: unsupported output_stream {stream!r}: use sys.stdout, sys.stderr, a "
                "logging function or 'file://<path>'."
            )
        with open(stream[len("file://"):], "a", encoding="utf-8") as handle:
            handle.write(text + end)
        return
    if hasattr(stream, "write"):
        stream.write(text + end)
        flush = getattr(stream, "flush", None)
        if flush is not None:
            flush()
        return
    if callable(stream):
        stream(text)
        return
    raise ValueError(f"tf.print: unsupported output_stream {stream!r}.")


# ============================================================================ ordering
class NoOp(TrainOp):
    """An operation with nothing left to do: what `tf.no_op()` returns, and `tf.group` of ops
    that already ran eagerly (`var.assign_add(1)`). An `EstimatorSpec` accepts it as
    `train_op` (a step that does nothing more)."""

    def __init__(self, name: str | None = None):
        super().__init__([])
        self.name = name or "NoOp"

    def run(self, resolved_vars: dict | None = None) -> None:
        """Does nothing: the ops it stands for already ran."""

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type=NoOp>"


def group(*inputs: Any, **kwargs: Any) -> TrainOp:
    """Groups ops, as TF's `tf.group(*inputs, name=None)`: the train ops `minimize()` returned in
    a `model_fn` (run together when the step runs); variables and tensors (what `assign*`
    returned), None and `tf.no_op()` results already ran eagerly and add nothing.

    Returns:
        A train op running every grouped train op, or a `NoOp` when there is none.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"tf.group(): unknown keyword arguments {sorted(kwargs)}")
    op = _group_train_ops(*inputs)
    if isinstance(op, NoOp) and name:
        op.name = name
    return op


def no_op(name: str | None = None) -> NoOp:
    """Does nothing, as TF's `tf.no_op`; returns a `NoOp` (which `tf.group` and an
    `EstimatorSpec`'s `train_op` accept)."""
    return NoOp(name)


def control_dependencies(control_inputs: Any) -> contextlib.AbstractContextManager:
    """A context for ops that must run after `control_inputs` (or None), as TF's
    `tf.control_dependencies`: in eager execution those already ran, so it does nothing."""
    return contextlib.nullcontext()


def init_scope() -> contextlib.AbstractContextManager:
    """TF's `tf.init_scope`: lifts ops out of a function graph; eagerly there is none (no-op)."""
    return contextlib.nullcontext()


def executing_eagerly() -> bool:
    """Whether operations run eagerly: always True here (there is no graph mode)."""
    return True


# ============================================================================ tf.device
_DEVICE_TYPES = {"cpu": "cpu", "gpu": "gpu", "tpu": "cpu", "xla_cpu": "cpu", "xla_gpu": "gpu"}


def _parse_device(spec: str) -> tuple[str, int]:
    kind, index = None, 0
    for part in [p for p in spec.split("/") if p]:
        key, _, rest = part.partition(":")
        low = key.lower()
        if low in ("job", "replica", "task"):
            continue
        if low == "device":
            key, _, rest = rest.partition(":")
            low = key.lower()
        if low not in _DEVICE_TYPES:
            raise ValueError(
                f"Unknown attribute '{part}' is encountered while parsing the device spec: '{spec}'."
            )
        kind = _DEVICE_TYPES[low]
        if rest and rest != "*":
            if not rest.isdigit():
                raise ValueError(f"Failed to parse the device index in '{spec}'.")
            index = int(rest)
    return kind or "cpu", index


class _DeviceSettings:
    """Set through `tf.config`: the visible GPUs (None: all) and soft device placement."""

    visible_gpus: list[int] | None = None
    soft_placement = True


DEVICE_SETTINGS = _DeviceSettings()


def _resolve_device(spec: str) -> torch.device:
    kind, index = _parse_device(spec)
    if kind == "gpu":
        visible = DEVICE_SETTINGS.visible_gpus
        if visible is None or index < len(visible):
            physical = index if visible is None else visible[index]
            if torch.cuda.is_available() and physical < torch.cuda.device_count():
                return torch.device("cuda", physical)
            mps = getattr(torch.backends, "mps", None)
            if mps is not None and mps.is_available() and physical == 0:
                return torch.device("mps")
        if not DEVICE_SETTINGS.soft_placement:
            raise InvalidArgumentError(
                None, None,
                f"Could not satisfy device specification '{spec}': there is no such GPU (soft "
                "device placement is off; see tf.config.set_soft_device_placement).",
            )
    return torch.device("cpu")


class device:  # noqa: N801 - TF's name
    """`tf.device(device_name)`: tensors created inside the block are placed on that device
    (`'/GPU:0'`, `'/device:GPU:1'`, `'/CPU:0'`, `'gpu'`, `'cpu'`; None does nothing). A GPU
    that is not there means the CPU (TF's soft placement)."""

    def __init__(self, device_name: str | None):
        if device_name is not None and not isinstance(device_name, str):
            if callable(device_name):
                raise RuntimeError(
                    "tf.device does not support functions when eager execution is enabled."
                )
            device_name = str(device_name)
        self.device = None if not device_name else _resolve_device(device_name)
        self._contexts: list = []

    def __enter__(self) -> device:
        context: Any = contextlib.nullcontext()
        if self.device is not None and not (
            self.device.type == "cpu" and torch.get_default_device().type == "cpu"
        ):
            context = self.device  # torch.device is a context manager for the default device
        context.__enter__()
        self._contexts.append(context)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._contexts.pop().__exit__(*exc)


# ============================================================================ gradients
class _CustomGradientFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, grad_fn: Callable, counts: tuple, *tensors: torch.Tensor) -> Any:
        n_in, n_var, n_out = counts
        ctx.grad_fn = grad_fn
        ctx.counts = counts
        ctx.variables = tensors[n_in:n_in + n_var]
        outputs = tensors[n_in + n_var:]
        return tuple(o.clone() for o in outputs)

    @staticmethod
    def backward(ctx: Any, *upstream: torch.Tensor) -> Any:
        n_in, n_var, n_out = ctx.counts
        if n_var:
            grads, var_grads = ctx.grad_fn(*upstream, variables=list(ctx.variables))
        else:
            grads, var_grads = ctx.grad_fn(*upstream), []
        if not isinstance(grads, (list, tuple)):
            grads = [grads]
        grads = list(grads)
        if len(grads) != n_in:
            raise ValueError(
                f"tf.custom_gradient: the gradient function returned {len(grads)} gradient(s) for "
                f"{n_in} input tensor(s)."
            )
        var_grads = list(var_grads or [])
        if len(var_grads) != n_var:
            raise ValueError(
                f"tf.custom_gradient: the gradient function returned {len(var_grads)} variable "
                f"gradient(s) for {n_var} variable(s)."
            )
        return (None, None) + tuple(grads) + tuple(var_grads) + (None,) * n_out


def custom_gradient(f: Callable | None = None) -> Callable:
    """Decorates `f(*x) -> (y, grad_fn)` so that gradients through it are `grad_fn(*dy)`, as TF's
    `tf.custom_gradient`.

    `x` are the tensor arguments; `grad_fn(*upstream)` returns one gradient per
    tensor argument. When `f` reads trainable variables, `grad_fn` must accept
    `variables=` and return `(input_grads, variable_grads)`, as in TF.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        inputs = [a if isinstance(a, torch.Tensor) else convert_to_tensor(a) for a in args]
        with torch.enable_grad():
            result, grad_fn = f(*inputs, **kwargs)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        variables: list[torch.Tensor] = []
        if _accepts_variables(grad_fn):
            ids = {id(t) for t in inputs}
            found = []
            for out in outputs:
                if isinstance(out, torch.Tensor) and out.requires_grad:
                    found.extend(parameters_of(out) if out.grad_fn is not None else [out])
            for p in found:
                if p.requires_grad and id(p) not in ids and not any(p is v for v in variables):
                    variables.append(p)
        detached = [o.detach() for o in outputs]
        if not torch.is_grad_enabled() or not any(
                isinstance(t, torch.Tensor) and t.requires_grad for t in inputs + variables):
            values = detached
        else:
            tensors = [t if isinstance(t, torch.Tensor) else torch.as_tensor(t) for t in inputs]
            values = list(_CustomGradientFunction.apply(
                grad_fn, (len(tensors), len(variables), len(detached)), *tensors, *variables,
                *detached))
        if isinstance(result, (list, tuple)):
            return type(result)(values) if isinstance(result, list) else tuple(values)
        return values[0]

    return wrapper


def _accepts_variables(fn: Callable) -> bool:
    params = _all_parameters(fn)
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _to_dtype(value: Any, dtype: Any) -> Any:
    if dtype is None:
        return value
    want = _dtypes.as_dtype(dtype)
    if want is _dtypes.string:
        return convert_to_tensor(value, _dtypes.string)
    if isinstance(value, torch.Tensor):
        return value if value.dtype == want else value.to(want)
    array = np.asarray(value)
    if array.dtype.kind in "OUS":
        raise TypeError(f"Cannot convert the string result {value!r:.100} to {dtype_name(want)}.")
    return torch.from_numpy(np.ascontiguousarray(array)).to(want)


def _outputs(result: Any, Tout: Any) -> Any:  # noqa: N803 - TF's name
    if Tout is None:
        return None
    if isinstance(Tout, (list, tuple)):
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(Tout):
            raise ValueError(
                f"The function returned {len(values)} value(s) but Tout lists {len(Tout)} dtype(s)."
            )
        return [_to_dtype(v, t) for v, t in zip(values, Tout)]
    return _to_dtype(result, Tout)


def py_function(func: Callable | None = None, inp: Any = None, Tout: Any = None,  # noqa: N803
                name: str | None = None) -> Any:
    """Calls `func(*inp)` on tensors and returns its result converted to `Tout` (a dtype, or a
    list of dtypes for several outputs), as TF's `tf.py_function`. Gradients flow through the
    torch operations `func` runs. Without `func`, a decorator."""
    if func is None:
        return lambda fn: functools.wraps(fn)(
            lambda *args: py_function(fn, list(args), Tout, name))
    args = [v if isinstance(v, torch.Tensor) else convert_to_tensor(v) for v in (inp or [])]
    return _outputs(func(*args), Tout)


def numpy_function(func: Callable | None = None, inp: Any = None, Tout: Any = None,  # noqa: N803
                   stateful: bool = True, name: str | None = None) -> Any:
    """Calls `func(*arrays)` on numpy copies of `inp` and returns its result converted to
    tensors of `Tout`, as TF's `tf.numpy_function` (no gradient). Without `func`, a decorator."""
    if func is None:
        return lambda fn: functools.wraps(fn)(
            lambda *args: numpy_function(fn, list(args), Tout, stateful, name))
    args = [v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else np.asarray(v)
            for v in (inp or [])]
    return _outputs(func(*args), Tout)


# ============================================================================ tf.cond & co
def cond(pred: Any, true_fn: Callable | None = None, false_fn: Callable | None = None,
         name: str | None = None) -> Any:
    """Returns `true_fn()` if `pred` is true, else `false_fn()`, as TF's `tf.cond` (eagerly,
    only the chosen branch runs)."""
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond(): 'true_fn' and 'false_fn' must be callable.")
    return true_fn() if bool(pred) else false_fn()


def while_loop(cond: Callable, body: Callable, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations: Any = None, name: str | None = None) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true (at most
    `maximum_iterations` times), as TF's `tf.while_loop`; returns the final loop variables in
    the structure of `loop_vars` (Python numbers become tensors, as in TF)."""
    if loop_vars is None or (isinstance(loop_vars, (list, tuple)) and not loop_vars):
        raise ValueError("'loop_vars' must be provided.")
    single = not isinstance(loop_vars, (list, tuple))
    values = [loop_vars] if single else list(loop_vars)
    values = [convert_to_tensor(v) if isinstance(v, (int, float, bool)) else v for v in values]
    limit = None if maximum_iterations is None else int(maximum_iterations)
    count = 0
    while (limit is None or count < limit) and bool(cond(*values)):
        result = body(*values)
        if not isinstance(result, (list, tuple)):
            if len(values) != 1:
                raise ValueError(
                    f"tf.while_loop: body returned one value for {len(values)} loop variables."
                )
            result = [result]
        if len(result) != len(values):
            raise ValueError(
                f"tf.while_loop: body returned {len(result)} values for {len(values)} loop variables."
            )
        values = list(result)
        count += 1
    if single:
        return values[0]
    return values if isinstance(loop_vars, list) else type(loop_vars)(values) \
        if not hasattr(loop_vars, "_fields") else type(loop_vars)(*values)


def switch_case(branch_index: Any, branch_fns: Any, default: Callable | None = None,
                name: str = "switch_case") -> Any:
    """Runs `branch_fns[branch_index]()` (a list of callables, or (index, callable) pairs or a
    dict), as TF's `tf.switch_case`; an index out of range runs `default` (the last branch when
    None)."""
    index = int(branch_index)
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif branch_fns and isinstance(branch_fns[0], (list, tuple)):
        pairs = sorted((int(k), fn) for k, fn in branch_fns)
    else:
        pairs = list(enumerate(branch_fns))
    if not pairs:
        raise ValueError("tf.switch_case: branch_fns must not be empty.")
    table = dict(pairs)
    fn = table.get(index)
    if fn is None:
        fn = default if default is not None else pairs[-1][1]
    return fn()


def case(pred_fn_pairs: Any, default: Callable | None = None, exclusive: bool = False,
         strict: bool = False, name: str = "case") -> Any:
    """Runs the callable of the first `(predicate, callable)` pair whose predicate is true, as
    TF's `tf.case`; `default()` when none is (an InvalidArgumentError without a default)."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    for pred, fn in pred_fn_pairs:
        if bool(pred):
            return fn()
    if default is None:
        raise InvalidArgumentError(None, None, "Input error: None of conditions evaluated as True.")
    return default()


# ============================================================================ names & modules
_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class name_scope:  # noqa: N801 - TF's name
    """`tf.name_scope(name)`: a context that prefixes the names of the `tf.Variable`s created in
    it ('outer/v:0'); entering returns the full scope name ('outer/inner/'). A name ending in
    '/' is absolute; '' returns to the top."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"name_scope: name must be a string; received {name!r}")
        if name and not _SCOPE_NAME.match(name):
            raise ValueError(
                f"'{name}' is not a valid scope name. A scope name has to match the following "
                "pattern: ^[A-Za-z0-9_.\\\\/>-]*$"
            )
        self._name = name
        self._previous: list[str] = []

    @property
    def name(self) -> str:
        """The name given to the scope."""
        return self._name

    def __enter__(self) -> str:
        previous = current_name_scope()
        name = self._name
        scope = "" if not name else name if name.endswith("/") else f"{previous}{name}/"
        self._previous.append(previous)
        _SCOPE.prefix = scope
        return scope

    def __exit__(self, *exc: Any) -> None:
        _SCOPE.prefix = self._previous.pop()


def _camel_to_snake(value: str) -> str:
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", value).lower()


_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TORCH_MODULE_ATTRS = frozenset(vars(torch.nn.Module())) | {"_name", "_scope_name"}


def _is_variable(value: Any) -> bool:
    return isinstance(value, torch.nn.Parameter)


def _leaves(value: Any) -> list:
    if isinstance(value, dict):
        return [leaf for key in sorted(value, key=_sort_key) for leaf in _leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, (torch.nn.ModuleList, torch.nn.ParameterList)):
        return list(value)
    if isinstance(value, (torch.nn.ModuleDict, torch.nn.ParameterDict)):
        return [value[k] for k in sorted(value.keys())]
    return [value]


def _module_attributes(module: torch.nn.Module) -> dict:
    attrs = {k: v for k, v in vars(module).items() if k not in _TORCH_MODULE_ATTRS}
    attrs.update(module._parameters)
    attrs.update(module._buffers)
    attrs.update(module._modules)
    return attrs


def _walk(module: torch.nn.Module, predicate: Callable[[Any], bool], recursive: bool = True,
          seen: set | None = None, stack: tuple = ()) -> list:
    """TF's `Module._flatten`: the attributes in name order (inside lists and dicts), each
    value once; submodules are walked after the module's own attributes."""
    seen = {id(module)} if seen is None else seen
    out, submodules = [], []
    attrs = _module_attributes(module)
    for key in sorted(attrs):
        for leaf in _leaves(attrs[key]):
            if isinstance(leaf, (torch.nn.ModuleList, torch.nn.ModuleDict,
                                 torch.nn.ParameterList, torch.nn.ParameterDict)):
                inner = _leaves(leaf)
            else:
                inner = [leaf]
            for item in inner:
                if item is None or id(item) in seen:
                    continue
                seen.add(id(item))
                if predicate(item):
                    out.append(item)
                if recursive and isinstance(item, torch.nn.Module) and id(item) not in stack:
                    submodules.append(item)
    for sub in submodules:
        out.extend(_walk(sub, predicate, recursive, seen, stack + (id(module),)))
    return out


class Module(torch.nn.Module):
    """A named container of variables and submodules, as TF's `tf.Module(name=None)`.

    It is a `torch.nn.Module`: `tf.Variable`s assigned as attributes register
    as parameters (so `parameters()`, `state_dict()` and torch optimizers see
    them), and submodules as submodules. `variables`, `trainable_variables`,
    `non_trainable_variables` and `submodules` walk the attributes as TF does
    (in attribute-name order, inside lists, tuples and dicts; Keras layers and
    torch modules count as submodules).
    """

    def __init__(self, name: str | None = None):
        super().__init__()
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not _MODULE_NAME.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        with name_scope(name) as scope:
            self._scope_name = scope

    @property
    def name(self) -> str:
        """The module's name (the snake-cased class name by default)."""
        return self._name

    @property
    def name_scope(self) -> name_scope:
        """The module's name scope: variables created in `with self.name_scope:` are named
        '<module>/<name>'."""
        return name_scope(self._scope_name)

    @property
    def variables(self) -> tuple:
        """The variables of this module and its submodules (each once), in TF's order."""
        return tuple(_walk(self, _is_variable))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable variables of this module and its submodules."""
        return tuple(v for v in _walk(self, _is_variable) if getattr(v, "trainable", v.requires_grad))

    @property
    def non_trainable_variables(self) -> tuple:
        """The variables of this module and its submodules that are not trainable."""
        return tuple(v for v in _walk(self, _is_variable)
                     if not getattr(v, "trainable", v.requires_grad))

    @property
    def submodules(self) -> tuple:
        """Every module inside this one (tf.Modules, Keras layers, torch modules), each once."""
        return tuple(_walk(self, lambda v: isinstance(v, torch.nn.Module)))

    def _flatten(self, recursive: bool = True, predicate: Callable | None = None,
                 attribute_traversal_key: Any = None, with_path: bool = False,
                 expand_composites: bool = False) -> Any:
        """The values inside this module (and its submodules) for which `predicate` is true."""
        return iter(_walk(self, predicate or (lambda v: True), recursive))

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorates a method so that it runs inside the module's name scope."""
        @functools.wraps(method)
        def wrapper(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapper

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"
