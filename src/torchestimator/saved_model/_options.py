"""`tf.saved_model.SaveOptions`, `LoadOptions` and `Asset`.

The options are TensorFlow's, with its arguments and defaults. Their fields tune TensorFlow's
graph format (custom op namespaces, debug info, the device that does the I/O, variable
placement, function aliases); an export here is a `torch.export` program plus its weights,
so `save` and `load` accept them, check their types, and have nothing to apply them to.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_POLICIES = (None, "none", "save_variable_devices", "expand_distributed_variables")


def _check_policy(value: Any, owner: str) -> Any:
    name = getattr(value, "value", value)  # tf.saved_model.experimental.VariablePolicy or str
    if name not in _POLICIES:
        raise ValueError(
            f"{owner}: experimental_variable_policy must be one of {list(_POLICIES)}; received {value!r}."
        )
    return value


class SaveOptions:
    """Options for saving to SavedModel (`tf.saved_model.SaveOptions`)."""

    __slots__ = ("namespace_whitelist", "save_debug_info", "function_aliases", "experimental_io_device",
                 "experimental_variable_policy", "experimental_custom_gradients",
                 "experimental_image_format", "experimental_skip_saver")

    def __init__(self, namespace_whitelist: list[str] | None = None, save_debug_info: bool = False,
                 function_aliases: dict | None = None, experimental_io_device: str | None = None,
                 experimental_variable_policy: Any = None, experimental_custom_gradients: bool = True,
                 experimental_image_format: bool = False, experimental_skip_saver: bool = False):
        if namespace_whitelist is not None and (
                isinstance(namespace_whitelist, str) or not all(isinstance(n, str) for n in namespace_whitelist)):
            raise TypeError(
                f"SaveOptions: namespace_whitelist must be a list of strings; received {namespace_whitelist!r}."
            )
        if function_aliases is not None and not isinstance(function_aliases, dict):
            raise TypeError(f"SaveOptions: function_aliases must be a dict; received {function_aliases!r}.")
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = bool(save_debug_info)
        self.function_aliases = dict(function_aliases or {})
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = _check_policy(experimental_variable_policy, "SaveOptions")
        self.experimental_custom_gradients = bool(experimental_custom_gradients)
        self.experimental_image_format = bool(experimental_image_format)
        self.experimental_skip_saver = bool(experimental_skip_saver)


class LoadOptions:
    """Options for loading a SavedModel (`tf.saved_model.LoadOptions`)."""

    __slots__ = ("allow_partial_checkpoint", "experimental_io_device", "experimental_skip_checkpoint",
                 "experimental_variable_policy", "experimental_load_function_aliases")

    def __init__(self, allow_partial_checkpoint: bool = False, experimental_io_device: str | None = None,
                 experimental_skip_checkpoint: bool = False, experimental_variable_policy: Any = None,
                 experimental_load_function_aliases: bool = False):
        self.allow_partial_checkpoint = bool(allow_partial_checkpoint)
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = bool(experimental_skip_checkpoint)
        self.experimental_variable_policy = _check_policy(experimental_variable_policy, "LoadOptions")
        self.experimental_load_function_aliases = bool(experimental_load_function_aliases)


class Asset:
    """An asset file of a SavedModel (`tf.saved_model.Asset`): a file (a vocabulary, say) that
    travels with the model. `asset_path` is the path as a string scalar."""

    def __init__(self, path: str | bytes | os.PathLike):
        if not isinstance(path, (str, bytes, os.PathLike)):
            raise TypeError(f"Asset: path must be a file path (str, bytes or PathLike); received {path!r}.")
        self._path = os.fsdecode(path)

    @property
    def asset_path(self) -> Any:
        """The asset's path (a string scalar, as TF's `asset_path` tensor)."""

        return np.asarray(self._path.encode(), dtype=object)

    def __fspath__(self) -> str:
        return self._path

    def __repr__(self) -> str:
        return f"Asset(path={self._path!r})"
