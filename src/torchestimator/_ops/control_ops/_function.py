"""tf.function: the eager Function (input_signature checks, optional torch.compile with one warning
and eager fallback), ConcreteFunction, and the process-wide function settings of tf.config."""

from __future__ import annotations

import inspect
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor, dtype_name


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
        self.__module__ = getattr(python_function, "__module__", __package__)
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
            from torch._dynamo.exc import (  # lazy: heavy (torch._dynamo.exc, 2222 ms)
                TorchDynamoException,
            )

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
