"""tf.Module: a torch.nn.Module with TF's name scopes and variable / submodule tracking."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import torch

from torchestimator._ops.control_ops._context import name_scope
from torchestimator._ops.control_ops._print import _sort_key


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
