"""`tf.compat.v1.train.Saver`: saves and restores named variables in the project's checkpoint
format (eager: `sess` is accepted and ignored)."""

from __future__ import annotations

import os
import time
from typing import Any

import torch

from torchestimator._engine.checkpoint import load_checkpoint, write_checkpoint, write_index
from torchestimator._engine.checkpoint._format import _delete_checkpoint


def _name_of(var: Any) -> str:
    name = getattr(var, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"Saver: {var!r} has no name; pass var_list as a dict {{name: variable}}.")
    return name.split(":")[0]


def named_variables(var_list: Any) -> dict[str, Any]:
    """`var_list` (a dict name -> variable, a list of variables, or None: the TF1 global
    variables of `tf.compat.v1.get_variable` / layers) as a `{name: variable}` dict."""
    if var_list is None:
        from torchestimator.compat.v1._variable_scope import (  # lazy: heavy (torchestimator.compat.v1._variable_scope, 259 ms)
            _store,
        )

        return {name.split(":")[0]: v for name, v in _store().variables()}
    if isinstance(var_list, dict):
        return dict(var_list)
    out: dict[str, Any] = {}
    for var in var_list:
        name = _name_of(var)
        if name in out and out[name] is not var:
            raise ValueError(f"Saver: at least two variables have the same name: {name}.")
        out[name] = var
    return out


class Saver:
    """Saves and restores variables, as TF 1.x's `tf.compat.v1.train.Saver`.

    `save(sess, save_path, global_step=None)` writes `save_path-<global_step>` (project
    format: `.safetensors` + `.json`) and the `checkpoint` index of its folder, keeping the
    newest `max_to_keep` checkpoints (None or 0: all). `restore(sess, save_path)` assigns the
    saved values to the variables. Variables are the ones of `var_list` (default: every TF1
    global variable) under their names.
    """

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False,
                 max_to_keep: int | None = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: str | None = None, restore_sequentially: bool = False, saver_def: Any = None,
                 builder: Any = None, defer_build: bool = False, allow_empty: bool = False,
                 write_version: Any = 2, pad_step_number: bool = False,
                 save_relative_paths: bool = False, filename: str | None = None) -> None:
        if isinstance(write_version, bool) or write_version != 2:
            raise NotImplementedError(
                f"Saver: write_version={write_version!r} is not supported: checkpoints are written in "
                "the project's one format, the counterpart of TF's default V2 "
                "(tf.compat.v1.train.SaverDef.V2, i.e. 2); TF's deprecated V1 format is not written.")
        self._var_list = var_list
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours * 3600.0
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._last_checkpoints: list[tuple[str, float]] = []
        self._last_preserved = time.time()

    @property
    def last_checkpoints(self) -> list[str]:
        """The paths of the not-yet-deleted checkpoints, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: list[tuple[str, float]]) -> None:
        """Sets the list of (path, timestamp) checkpoints this saver manages."""
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths: list[str]) -> None:
        """Adopts existing `checkpoint_paths` (e.g. after a restart) as this saver's checkpoints."""
        self._last_checkpoints = [(p, os.path.getmtime(p + ".json")) for p in checkpoint_paths
                                  if os.path.exists(p + ".json")]

    def save(self, sess: Any = None, save_path: str | None = None, global_step: Any = None,
             latest_filename: str | None = None, meta_graph_suffix: str = "meta",
             write_meta_graph: bool = True, write_state: bool = True, strip_default_attrs: bool = False,
             save_debug_info: bool = False) -> str | None:
        """Saves the variables; returns the checkpoint path (`save_path-<global_step>`).

        Raises:
          ValueError: `save_path` is missing, or there is nothing to save (without allow_empty).
        """
        if save_path is None:
            raise ValueError("Saver.save: save_path is required (e.g. '/tmp/model.ckpt').")
        variables = named_variables(self._var_list)
        if not variables:
            if self._allow_empty:
                return None
            raise ValueError("Saver.save: no variables to save (create some with "
                             "tf.compat.v1.get_variable or pass var_list).")
        step = None
        if global_step is not None:
            step = int(global_step.numpy() if hasattr(global_step, "numpy") else global_step)
            path = f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
        else:
            path = os.fspath(save_path)
        tensors = {name: torch.as_tensor(v).detach().cpu().clone() for name, v in variables.items()}
        write_checkpoint(path, tensors, global_step=step or 0)
        if write_state:
            self._remember(path)
            write_index(os.path.dirname(os.path.abspath(path)), path, self.last_checkpoints,
                        [t for _, t in self._last_checkpoints], self._last_preserved)
        return path

    def _remember(self, path: str) -> None:
        now = time.time()
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != path]
        self._last_checkpoints.append((path, now))
        while self._max_to_keep and len(self._last_checkpoints) > self._max_to_keep:
            oldest, stamp = self._last_checkpoints.pop(0)
            if stamp - self._last_preserved > self._keep_every:
                self._last_preserved = stamp
                continue
            _delete_checkpoint(oldest)

    def restore(self, sess: Any = None, save_path: str | None = None) -> None:
        """Restores the variables from checkpoint `save_path`.

        Raises:
          ValueError: `save_path` is None. NotFoundError (KeyError): a variable is not in it.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        tensors, _ = load_checkpoint(save_path)
        for name, var in named_variables(self._var_list).items():
            if name not in tensors:
                raise KeyError(f"Key {name} not found in checkpoint {save_path}; it holds "
                               f"{sorted(tensors)}.")
            with torch.no_grad():
                if hasattr(var, "assign"):
                    var.assign(tensors[name])
                else:
                    var.copy_(tensors[name])
