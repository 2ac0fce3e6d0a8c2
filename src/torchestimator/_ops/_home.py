"""The module name the ops packages give their functions and classes (`nn_ops`, `math_ops`, ...
were single files; split into packages, their objects still name the package as their module)."""

from __future__ import annotations

import types
from typing import Any


def keep_home(namespace: dict[str, Any], package: str) -> None:
    """Sets `__module__` to `package` on the functions and classes in `namespace` that a submodule
    of `package` defines, as when the package was one module: reprs, pickling by reference and
    the Lambda-layer allowlist of pure op modules (`keras.layers.core._function_serialization`)
    all name `package`, where every one of them stays importable."""
    prefix = package + "."
    for value in list(namespace.values()):
        if isinstance(value, (type, types.FunctionType)) and str(
            getattr(value, "__module__", "")
        ).startswith(prefix):
            value.__module__ = package
