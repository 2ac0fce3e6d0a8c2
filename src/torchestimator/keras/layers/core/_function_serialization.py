"""Saving Python functions (the ones a `Lambda` layer wraps) as data, without bytecode.

A function importable by name (`module.function`) is saved as its name, as
Keras does (`function_type: "function"`). A lambda or a function defined inside
another function is saved as a `{"class_name": "__lambda__", "config": {...}}`
record holding its *source text* and the values of the free names it uses
(closure cells and globals: modules by name, importable functions by name,
JSON-able constants and numpy arrays by value). Nothing is pickled or
marshalled, so a saved record is portable across Python versions; loading one
still evaluates Python source, so it is only allowed outside safe mode (see
`SafeModeScope` / `enable_unsafe_deserialization`).

In safe mode (the default) a function saved by name is never imported from the
module the file names: it resolves only to the user's objects (`custom_objects`,
`custom_object_scope`, `register_keras_serializable`), the package's registered
functions (activations, losses, metrics), its pure tensor ops (`PURE_OP_MODULES`,
found through `tf.math`, `tf.nn`, `tf.linalg`, `tf.keras.activations`) or an
allowlisted torch function (`TORCH_PURE_FUNCTIONS`); a function that touches files,
processes, the network or the loading settings is refused whatever its source
(`_registry.is_gadget`). A `__lambda__` record is refused before any of it is read.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import inspect
import json
import linecache
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator.keras import _registry


@contextlib.contextmanager
def SafeModeScope(safe_mode: bool | None = True) -> Iterator[None]:  # noqa: N802 - Keras' name
    """Within this scope, loading a `__lambda__` record or a function by module name is
    refused (`safe_mode=True`) or allowed (`safe_mode=False`); None leaves the current mode.
    Yields nothing. The mode is the one `tf.keras.saving.safe_mode_scope` (used by
    `load_model`) sets; it wins over `enable_unsafe_deserialization()`."""
    with _registry.safe_mode_scope(safe_mode):
        yield


def enable_unsafe_deserialization() -> None:
    """Allows loading lambdas saved as source outside any safe-mode scope (like Keras'
    `keras.config.enable_unsafe_deserialization()`); `load_model` keeps its own `safe_mode`
    argument (default True). Returns None."""
    _registry.enable_unsafe_deserialization()


def in_safe_mode() -> bool:
    """Returns the active `SafeModeScope` / `safe_mode_scope` value; outside any, True unless
    `enable_unsafe_deserialization()` was called."""
    return _registry.in_safe_mode()


# ---------------------------------------------------------------------- encoding values
def encode_value(value: Any) -> dict:
    """Returns a JSON-able description of a free variable's value."""
    if isinstance(value, types.ModuleType):
        return {"module": value.__name__}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"value": value}
    if isinstance(value, (list, tuple, dict)):
        try:
            json.dumps(value)
            return {"value": value, "tuple": isinstance(value, tuple)}
        except (TypeError, ValueError):
            pass
    if isinstance(value, (np.ndarray, torch.Tensor)):
        array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else value
        return {
            "ndarray": array.tolist(), "dtype": str(array.dtype),
            "tensor": isinstance(value, torch.Tensor),
        }
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return {"value": value.item()}
    qualname = getattr(value, "__qualname__", None)
    module = getattr(value, "__module__", None)
    if callable(value) and qualname and module and "<" not in qualname:
        owner = sys.modules.get(module)
        target = owner
        for part in qualname.split("."):
            target = getattr(target, part, None)
        if target is value:
            return {"object": qualname, "module": module}
    return {"unserializable": repr(value)[:200]}


def decode_value(record: dict, safe_mode: bool | None = None) -> Any:
    """Returns the value described by `encode_value`'s record.

    A record naming a module or an importable object imports it, which only happens outside
    safe mode (`safe_mode=False`, or None with safe mode off); in safe mode such a record is a
    ValueError and only plain values and arrays are decoded."""
    if not isinstance(record, dict):
        raise ValueError(f"A saved value must be a record (a dict); received {str(record)[:80]!r}.")
    if "module" in record or "object" in record:
        if in_safe_mode() if safe_mode is None else bool(safe_mode):
            raise ValueError(
                f"Refusing to import {record.get('module')!r} "
                f"{('(object ' + repr(record.get('object')) + ') ') if 'object' in record else ''}"
                "named by a saved value: safe mode never imports a module a file names. If you "
                "trust the file, load it with safe_mode=False."
            )
        target: Any = importlib.import_module(record["module"])
        for part in str(record.get("object", "")).split(".") if "object" in record else ():
            target = getattr(target, part)
        return target
    if "ndarray" in record:
        array = np.asarray(record["ndarray"], dtype=record.get("dtype"))
        return torch.as_tensor(array) if record.get("tensor") else array
    value = record.get("value")
    return tuple(value) if record.get("tuple") else value


# ---------------------------------------------------------------------- safe-mode functions
#: The package's modules whose public functions are pure tensor computations (no files,
#: network, processes, Python callbacks or global settings): a Lambda may name them in safe mode.
PURE_OP_MODULES = frozenset({
    "torchestimator._ops.math_ops", "torchestimator._ops.nn_ops", "torchestimator._ops.linalg_ops",
    "torchestimator._ops.array_ops", "torchestimator._ops.creation", "torchestimator._ops.convert",
    "torchestimator.keras.activations._functions",
})
#: Where those functions are looked up by name (the package's own namespaces, in this order,
#: then what the modules above export: `tf.reshape` is `array_ops.reshape`). The top-level
#: namespace is not walked: its attributes load lazily, and walking them would import it all.
_PURE_NAMESPACES = (
    "torchestimator.keras.activations", "torchestimator.math", "torchestimator.nn",
    "torchestimator.linalg", *sorted(PURE_OP_MODULES),
)
#: Module names a saved Lambda may give for a function found in those namespaces (ours, and
#: TensorFlow's / Keras' own, for files TensorFlow wrote).
_TRUSTED_MODULE_ROOTS = ("torchestimator", "tensorflow", "tf", "keras", "tf_keras")
#: torch's pure tensor functions a Lambda may name in safe mode (module "torch" or
#: "torch.nn.functional"); never `torch.load`, `torch.save`, `torch.from_file`, hub, ops, ...
TORCH_PURE_FUNCTIONS = frozenset({
    "abs", "acos", "add", "amax", "amin", "argmax", "argmin", "asin", "atan", "atan2", "bmm",
    "cat", "ceil", "clamp", "clip", "concat", "cos", "cosh", "cumprod", "cumsum", "diagonal",
    "div", "einsum", "eq", "erf", "exp", "expm1", "flatten", "flip", "floor", "ge", "gt",
    "le", "log", "log1p", "log_softmax", "logsumexp", "lt", "matmul", "max", "maximum", "mean",
    "min", "minimum", "mm", "mul", "ne", "neg", "norm", "permute", "pow", "prod", "reciprocal",
    "relu", "reshape", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "softmax", "sqrt",
    "square", "squeeze", "stack", "std", "sub", "sum", "t", "tan", "tanh", "tile", "transpose",
    "unsqueeze", "var", "where", "elu", "gelu", "leaky_relu", "normalize", "pad", "relu6",
    "selu", "silu", "softplus", "softsign", "mish", "hardtanh", "one_hot",
})
_pure_table: dict[str, list[Any]] | None = None


def _pure_functions() -> dict[str, list[Any]]:
    """Name -> the pure tensor functions of the package's own namespaces under that name
    (`PURE_OP_MODULES` only), built once from modules this package names itself."""
    global _pure_table
    if _pure_table is None:
        table: dict[str, list[Any]] = {}
        for namespace in _PURE_NAMESPACES:
            module = importlib.import_module(namespace)
            public = dir(module) if namespace not in PURE_OP_MODULES else getattr(
                module, "__all__", ())  # an implementation module: only what it exports
            for name in public:
                obj = getattr(module, name, None)
                if (not name.startswith("_") and callable(obj) and not isinstance(obj, type)
                        and getattr(obj, "__module__", None) in PURE_OP_MODULES
                        and obj not in table.get(name, [])):
                    table.setdefault(name, []).append(obj)
        _pure_table = table
    return _pure_table


def _is_plain_name(text: Any, dotted: bool = False) -> bool:
    """True for an ASCII Python identifier (dotted with `dotted`): no full-width letters,
    homoglyphs or other tricks that could name something other than it seems."""
    if not isinstance(text, str) or not text.isascii():
        return False
    return all(part.isidentifier() for part in (text.split(".") if dotted else [text]))


def _safe_lookup(name: str, module: str | None) -> Any:
    """The package's object a safe-mode Lambda may use for `module.name`, or None: its
    registered functions (activations, losses, metrics), its pure tensor ops, or an
    allowlisted torch function. Never imports `module`."""
    root = module.split(".")[0] if module else None
    if module is None or root in _TRUSTED_MODULE_ROOTS:
        candidates = _pure_functions().get(name, [])
        exact = [f for f in candidates if f.__module__ == module]
        builtin = _registry.get_builtin_object(name)
        if builtin is not None and isinstance(builtin, type):
            builtin = None  # a class is not a tensor function
        if exact:
            return exact[0]
        if builtin is not None:
            return builtin
        return candidates[0] if candidates else None
    if module in ("torch", "torch.nn.functional") and name in TORCH_PURE_FUNCTIONS:
        owner = torch if module == "torch" else torch.nn.functional
        return getattr(owner, name, None)
    return None


def _resolve_safe_function(
    name: Any, module: Any, custom_objects: dict | None, layer_name: str, field: str
) -> Any:
    """Returns the function a Lambda's `field` names, as safe mode allows (`_safe_lookup`);
    raises ValueError naming the layer, the object and `safe_mode=False` otherwise."""
    shown = f"{module}.{name}" if module else repr(name)
    found = _registry.get_user_object(name, custom_objects)  # an exact name the user gave
    reason = "it is not one of the functions safe mode loads"
    if found is None and not isinstance(name, str):
        reason = f"a function is saved as its name, not {type(name).__name__}"
    elif found is None and (not _is_plain_name(name, dotted=True) or (
            module is not None and not _is_plain_name(module, dotted=True))):
        reason = "its name is not a plain ASCII Python name"
    elif found is None:
        found = _safe_lookup(name, module)
    if found is not None and _registry.is_gadget(found) and not (
            custom_objects and custom_objects.get(name) is found):
        found, reason = None, "it touches files, processes, the network or the loading settings"
    if found is None:
        raise ValueError(
            f'Lambda layer "{layer_name}": its {field} names {shown!r}, which safe mode refuses '
            f"to load ({reason}). In safe mode a Lambda may use only the package's activations "
            "and tf.math / tf.nn / tf.linalg / array ops, a short list of torch tensor "
            "functions, and functions passed in custom_objects or registered with "
            "tf.keras.saving.register_keras_serializable(); a module named in the file is never "
            "imported. Pass the function in custom_objects or register it, or, if you trust the "
            "file, load it with safe_mode=False."
        )
    return found


# ---------------------------------------------------------------------- source lookup
def _lambda_source(fn: types.FunctionType) -> str | None:
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    if not lines:
        return None
    text = "".join(lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    found = [
        n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
    ]
    if len(found) > 1 and hasattr(code, "co_positions"):
        spots = [
            p for p in code.co_positions()
            if None not in p and (p[0], p[2]) < (p[1], p[3])  # skip empty spans (RESUME)
        ]

        def contains(node: ast.Lambda) -> bool:
            """True when every instruction of `fn` lies inside this lambda's body."""
            start = (node.body.lineno, node.body.col_offset)
            end = (node.body.end_lineno, node.body.end_col_offset)
            return all(start <= (a, c) and (b, d) <= end for a, b, c, d in spots)

        found = [n for n in found if contains(n)] or found
    if len(found) != 1:
        return None
    return ast.get_source_segment(text, found[0])


def _function_source(fn: types.FunctionType) -> str | None:
    if fn.__name__ == "<lambda>":
        return _lambda_source(fn)
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None


def _free_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _free_names(const)
    return names


def _is_importable(fn: Any) -> bool:
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualname:
        return False
    return getattr(sys.modules.get(module), qualname, None) is fn


def serialize_function(fn: Any, allow_raw: bool = False) -> tuple[Any, str, str | None]:
    """Returns `(value, function_type, module)` describing `fn`, as Keras' Lambda config does.

    Importable functions and registered objects give `(name, "function", module)`;
    lambdas and local functions give a `__lambda__` source record with type
    "lambda"; with `allow_raw`, plain data (an output shape) gives `(data, "raw", None)`.
    """
    if isinstance(fn, types.FunctionType) and not _is_importable(fn) and (
        _registry.get_registered_object(getattr(fn, "_registered_name", fn.__name__)) is not fn
    ):
        code = fn.__code__
        closure = {}
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                closure[name] = encode_value(cell.cell_contents)
            except ValueError:  # an empty cell
                closure[name] = {"unserializable": "<empty cell>"}
        globs = {
            name: encode_value(fn.__globals__[name])
            for name in sorted(_free_names(code))
            if name in fn.__globals__ and not hasattr(builtins, name)
        }
        record = {
            "class_name": "__lambda__",
            "config": {
                "source": _function_source(fn),
                "name": fn.__name__,
                "closure": closure,
                "globals": globs,
            },
        }
        return record, "lambda", fn.__module__
    if callable(fn):
        name = getattr(fn, "_registered_name", None) or getattr(fn, "__name__", None)
        if name is None:
            if allow_raw:
                return fn, "raw", None
            raise ValueError(f"Cannot serialize {fn!r}: it has no name; wrap it in a function.")
        return name, "function", getattr(fn, "__module__", None)
    if allow_raw:
        if isinstance(fn, tuple):
            fn = list(fn)
        return fn, "raw", None
    raise ValueError(f"Invalid input for serialization, type: {type(fn)}")


def deserialize_function(
    value: Any,
    function_type: str,
    module: str | None,
    custom_objects: dict | None,
    safe_mode: bool | None,
    layer_name: str,
    field: str = "function",
) -> Any:
    """Returns the function (or raw value) written by `serialize_function`.

    In safe mode (`safe_mode=True`, or None inside a safe scope) a function saved by name
    resolves only to what `_resolve_safe_function` allows and nothing is imported; a lambda
    record is refused before any of it is decoded. Outside safe mode a function is imported
    from the module named in the file and a lambda is rebuilt from its source (Keras 2).
    Raises ValueError naming the layer and `field` for what cannot (or may not) be loaded;
    TypeError for an unknown type.
    """
    safe = in_safe_mode() if safe_mode is None else bool(safe_mode)
    if function_type == "raw":
        return tuple(value) if isinstance(value, list) else value
    if function_type == "function":
        if isinstance(value, dict) and value.get("class_name") == "function":  # Keras 3's form
            value, module = value.get("config"), value.get("module", module)
        if safe:
            return _resolve_safe_function(value, module, custom_objects, layer_name, field)
        return _import_function(value, module, custom_objects, layer_name, field)
    if function_type != "lambda":
        raise TypeError(
            "Unsupported value for `function_type` argument. Received: "
            f"function_type={function_type}. Expected one of ['function', 'lambda', 'raw']"
        )
    if safe:
        raise ValueError(
            f'Requested the deserialization of the Lambda layer "{layer_name}", whose {field} '
            "is a Python `lambda` saved as source code (or bytecode). Loading it runs that code, "
            "a potential risk of arbitrary code execution, so it is disallowed by default. If "
            "you trust the source of the saved model, pass `safe_mode=False` to the loading "
            "function (or to `Lambda.from_config`), or call "
            "`torchestimator.keras.layers.core.enable_unsafe_deserialization()`."
        )
    if not isinstance(value, dict) or value.get("class_name") != "__lambda__":
        raise ValueError(
            f'Lambda layer "{layer_name}": the saved {field} is not a "__lambda__" source '
            f"record (received {str(value)[:80]!r}); functions saved as Python bytecode by "
            "TensorFlow's Keras cannot be loaded. Re-create the layer with its function."
        )
    return _load_source_record(value["config"], module, custom_objects, layer_name)


def _import_function(
    value: Any, module: str | None, custom_objects: dict | None, layer_name: str, field: str
) -> Any:
    """Outside safe mode: the function `value` from `custom_objects`, from `module` (imported,
    as Keras 2 does) or from the registry; ValueError naming the layer when none has it."""
    found = (custom_objects or {}).get(value) if isinstance(value, str) else None
    if found is None and isinstance(value, str) and module in sys.modules:
        found = getattr(sys.modules[module], value, None)
    if found is None and isinstance(value, str) and module and module != "__main__":
        with contextlib.suppress(ImportError):
            found = getattr(importlib.import_module(module), value, None)
    if found is None:
        found = _registry.get_registered_object(value, custom_objects)
    if found is None:
        raise ValueError(
            f'Lambda layer "{layer_name}": unknown {field} {value!r} (module {module!r}). '
            "Pass it in custom_objects or register it with "
            "tf.keras.saving.register_keras_serializable()."
        )
    return found


def _load_source_record(
    config: dict, module: str | None, custom_objects: dict | None, layer_name: str
) -> Callable:
    source = config.get("source")
    if not source:
        raise ValueError(
            f'Lambda layer "{layer_name}": the source of its function was not available when '
            "it was saved (defined in an interactive session?), so it cannot be loaded. Define "
            "the function in a module, or pass it again in custom_objects."
        )
    namespace: dict[str, Any] = {}
    if module in sys.modules:
        namespace.update(vars(sys.modules[module]))
    missing = []
    for name, record in {**config.get("globals", {}), **config.get("closure", {})}.items():
        if "unserializable" in record:
            if name not in namespace and not (custom_objects and name in custom_objects):
                missing.append(f"{name} = {record['unserializable']}")
            continue
        namespace[name] = decode_value(record, safe_mode=False)
    namespace.update(custom_objects or {})
    if missing:
        raise ValueError(
            f'Lambda layer "{layer_name}": its function uses variables whose values could not '
            f"be saved: {missing}. Pass them in custom_objects."
        )
    name = config.get("name") or "<lambda>"
    if name == "<lambda>":
        return eval(compile("(" + source + ")", f"<Lambda {layer_name}>", "eval"), namespace)  # noqa: S307
    exec(compile(source, f"<Lambda {layer_name}>", "exec"), namespace)  # noqa: S102
    return namespace[name]
