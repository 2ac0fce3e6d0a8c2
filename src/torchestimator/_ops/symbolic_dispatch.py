"""TF's public ops on symbolic Keras tensors: `tf.nn.relu(x)`, `tf.concat([a, b], 1)`,
`tf.reduce_mean(x, axis=1)` in a functional model record a `TFOpLambda` layer, as in Keras 2.

The ops live below Keras (they may not import it), so Keras registers how to recognise a
symbolic tensor and how to record the layer (`set_dispatcher`), and each public namespace
module (`tf`, `tf.math`, `tf.nn`, ...) passes its functions through `wrap_namespace` once,
when it is imported. A wrapped op checks its top-level arguments (and the items of a list or
tuple argument) for a symbolic tensor; with none, it calls the op. Internal code calls the
unwrapped functions of `_ops` and pays nothing.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, MutableMapping
from typing import Any

#: The symbolic tensor classes (set by Keras), and how to record an op applied to them.
_symbolic_types: tuple[type, ...] = ()
_dispatch: Callable[..., Any] | None = None
#: One wrapper per function object, so an op exported by two namespaces stays one object.
_wrappers: dict[int, Callable[..., Any]] = {}

#: Names that are not ops on tensors (scopes, decorators, control flow taking callables).
_NOT_OPS = frozenset({
    "name_scope", "device", "function", "py_function", "numpy_function", "control_dependencies",
    "init_scope", "custom_gradient", "recompute_grad", "GradientTape", "stop_recording",
    "print", "Print", "executing_eagerly", "get_logger", "as_dtype", "get_static_value",
    "is_tensor", "is_symbolic_tensor", "inside_function", "map_fn", "vectorized_map", "cond",
    "case", "switch_case", "while_loop", "scan", "foldl", "foldr", "nest", "Variable",
    "constant_initializer", "no_gradient", "grad_pass_through", "make_tensor_proto",
    "make_ndarray", "timestamp", "get_current_name_scope", "variable_creator_scope",
    "register_tensor_conversion_function", "nondifferentiable_batch_function",
    "ensure_shape", "shape_n", "type_spec_from_value",
})


def set_dispatcher(symbolic_types: tuple[type, ...], dispatch: Callable[..., Any]) -> None:
    """Registers the symbolic tensor classes and `dispatch(api_name, fn, args, kwargs)`, which
    records `fn` applied to symbolic arguments (Keras calls it when it is imported)."""
    global _symbolic_types, _dispatch
    _symbolic_types = tuple(symbolic_types)
    _dispatch = dispatch


_SEQUENCES = (list, tuple)


def _any_of(values: Any, kinds: tuple[type, ...]) -> bool:
    for value in values:
        if isinstance(value, kinds):
            return True
    return False


def has_symbolic(args: tuple, kwargs: dict) -> bool:
    """True when a top-level argument, or an item of a list/tuple argument, is symbolic."""
    kinds = _symbolic_types
    if not kinds:
        return False
    for value in args:
        if isinstance(value, kinds):
            return True
        if type(value) in (list, tuple) and any(isinstance(v, kinds) for v in value):
            return True
    for value in kwargs.values():
        if isinstance(value, kinds):
            return True
        if type(value) in (list, tuple) and any(isinstance(v, kinds) for v in value):
            return True
    return False


def wrap(fn: Callable[..., Any], api_name: str) -> Callable[..., Any]:
    """Returns `fn` taking symbolic Keras tensors too (recorded as `tf.<api_name>`); the same
    wrapper for the same `fn` every time."""
    existing = _wrappers.get(id(fn))
    if existing is not None:
        if _rank(api_name) < _rank(existing.__tf_api_name__):
            existing.__tf_api_name__ = api_name  # the canonical name, whichever came first
        return existing

    @functools.wraps(fn)
    def op(*args: Any, **kwargs: Any) -> Any:
        kinds = _symbolic_types
        if kinds:  # inlined `has_symbolic` (this runs on every eager call of a public op)
            for value in args:
                if isinstance(value, kinds) or (type(value) in _SEQUENCES and _any_of(value, kinds)):
                    return _dispatch(op.__tf_api_name__, fn, args, kwargs)
            if kwargs and has_symbolic((), kwargs):
                return _dispatch(op.__tf_api_name__, fn, args, kwargs)
        return fn(*args, **kwargs)

    op.__tf_api_name__ = api_name
    _wrappers[id(fn)] = op
    _wrappers[id(op)] = op
    return op


#: Which of an op's names a recorded layer takes: TF's canonical one is most often the first
#: namespace here (`tf.reduce_sum` and `tf.nn.l2_normalize` are `math.*`, `tf.matmul`
#: `linalg.matmul`), then any other namespace, then the top level.
_PREFERRED = ("math.", "linalg.", "nn.")


def _rank(api_name: str) -> int:
    for i, prefix in enumerate(_PREFERRED):
        if api_name.startswith(prefix):
            return i
    return len(_PREFERRED) + (0 if "." in api_name else 1)


def wrapper_of(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """The wrapper `wrap` made of `fn`, or None."""
    return _wrappers.get(id(fn))


def wrap_namespace(namespace: MutableMapping[str, Any], prefix: str) -> None:
    """Wraps every public function of a namespace module's globals in place (`prefix` is the
    namespace's API path without `tf.`: '' for `tf`, 'math' for `tf.math`)."""
    for name, value in list(namespace.items()):
        if name.startswith("_") or name in _NOT_OPS or not isinstance(value, types.FunctionType):
            continue
        namespace[name] = wrap(value, f"{prefix}.{name}" if prefix else name)
