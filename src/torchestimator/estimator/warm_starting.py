"""Warm starting: initializing a new model's variables from another model's checkpoint.

`WarmStartSettings(ckpt_to_initialize_from, vars_to_warm_start='.*',
var_name_to_vocab_info=None, var_name_to_prev_var_name=None)` as TF's: a
regex string selects trainable variables; a list of regexes selects any
variable; `VocabInfo` remaps the rows of an embedding (or weight) whose
vocabulary changed. Applied only when model_dir has no checkpoint yet.
"""

from __future__ import annotations

import logging
import os
import re
from collections import namedtuple
from typing import Any

import numpy as np
import torch

from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine import storage

logger = logging.getLogger("torchestimator")


class VocabInfo(namedtuple("VocabInfo", [
    "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
    "backup_initializer", "axis",
])):
    """How to remap a variable's rows from an old vocabulary file to a new one.

    Rows (or columns, with `axis=1`) of tokens present in both vocabularies are
    copied from the checkpoint; rows of new tokens and of the `num_oov_buckets`
    OOV buckets are zero-initialized, or by `backup_initializer(shape)` if given,
    as TF. `old_vocab_size`/`new_vocab_size` limit how many entries of each
    vocabulary file are used (-1: all of the old one).
    """

    __slots__ = ()

    def __new__(cls, new_vocab: str, new_vocab_size: int, num_oov_buckets: int, old_vocab: str,
                old_vocab_size: int = -1, backup_initializer: Any = None, axis: int = 0) -> VocabInfo:
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1; received {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


class WarmStartSettings(namedtuple("WarmStartSettings", [
    "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
    "var_name_to_prev_var_name",
])):
    """Settings for warm-starting an Estimator from a checkpoint (see module docstring)."""

    __slots__ = ()

    def __new__(cls, ckpt_to_initialize_from: str, vars_to_warm_start: Any = ".*",
                var_name_to_vocab_info: dict | None = None,
                var_name_to_prev_var_name: dict | None = None) -> WarmStartSettings:
        if not ckpt_to_initialize_from:
            raise ValueError("Need to specify ckpt_to_initialize_from in WarmStartSettings.")
        return super().__new__(cls, os.fspath(ckpt_to_initialize_from), vars_to_warm_start,
                               dict(var_name_to_vocab_info or {}), dict(var_name_to_prev_var_name or {}))


def resolve_warm_start(value: Any) -> WarmStartSettings | None:
    """Turns Estimator's `warm_start_from` (a path or settings) into WarmStartSettings."""
    if value is None:
        return None
    if isinstance(value, WarmStartSettings):
        return value
    if isinstance(value, (str, os.PathLike)):
        return WarmStartSettings(os.fspath(value))
    raise ValueError(f"warm_start_from must be a string or a WarmStartSettings, instead got {type(value)}")


def _checkpoint_path(path: str) -> str:
    if storage.isdir(path):
        found = ckpt.latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Warm-start folder {path} holds no checkpoint.")
        return found
    if ckpt.checkpoint_exists(path):
        return path
    raise ValueError(f"Warm-start checkpoint {path} does not exist (no such checkpoint or folder).")


def _read_vocab(path: str, size: int) -> list[str]:
    with open(path, encoding="utf-8") as f:
        words = [line.rstrip("\n") for line in f]
    return words if size is None or size < 0 else words[:size]


def _remap(target: torch.Tensor, old: torch.Tensor, info: VocabInfo) -> torch.Tensor:
    new_words = _read_vocab(info.new_vocab, info.new_vocab_size)
    old_words = _read_vocab(info.old_vocab, info.old_vocab_size)
    old_index = {w: i for i, w in enumerate(old_words)}
    # built on the host from the checkpoint's rows (one row copy each, no device launches);
    # `warm_start` copies it onto the variable's device once
    result = torch.zeros(tuple(target.shape), dtype=target.dtype)
    old = old.cpu()
    if info.backup_initializer is not None:
        initial = info.backup_initializer(tuple(result.shape))
        if isinstance(initial, torch.Tensor):
            initial = initial.detach().cpu()
        result.copy_(torch.as_tensor(np.asarray(initial), dtype=result.dtype))
    moved = old if info.axis == 0 else old.t()
    out = result if info.axis == 0 else result.t()
    for new_i, word in enumerate(new_words):
        old_i = old_index.get(word)
        if old_i is not None and old_i < moved.shape[0] and new_i < out.shape[0]:
            out[new_i] = moved[old_i]
    return result


def warm_start(state: Any, settings: WarmStartSettings) -> list[str]:
    """Copies the selected variables of `settings`' checkpoint into `state`'s model; returns the
    names warm-started. Raises ValueError naming a variable that is missing or mis-shaped."""
    path = _checkpoint_path(settings.ckpt_to_initialize_from)
    tensors, _ = ckpt.load_checkpoint(path)
    variables = state.named_variables()
    trainable_names = {
        name for name, t in variables.items() if isinstance(t, torch.nn.Parameter) and t.requires_grad
    }
    selector = settings.vars_to_warm_start
    if selector is None:
        chosen = [n for n in variables if n in settings.var_name_to_vocab_info]
    elif isinstance(selector, str):
        pattern = re.compile(selector)
        chosen = [n for n in variables if n in trainable_names and pattern.match(n)]
    elif isinstance(selector, (list, tuple)) and all(isinstance(s, str) for s in selector):
        patterns = [re.compile(s) for s in selector]
        chosen = [n for n in variables if any(p.match(n) for p in patterns)]
    else:
        raise ValueError(
            "vars_to_warm_start must be a regex string, a list of regex strings, or None; "
            f"received {selector!r}"
        )
    graph = state._object_graph()
    object_keys = graph.tensor_keys if graph is not None else {}
    done = []
    with torch.no_grad():
        for name in chosen:
            prev = settings.var_name_to_prev_var_name.get(name, name)
            if prev not in tensors and name not in settings.var_name_to_prev_var_name:
                # an object-based checkpoint (Scaffold(saver=tf.train.Checkpoint)) keys it by path
                prev = object_keys.get(id(variables[name]), prev)
            if prev not in tensors:
                if name in settings.var_name_to_prev_var_name:
                    raise ValueError(
                        f"Warm-start: variable {name} should come from {prev!r}, which is not in "
                        f"checkpoint {path}."
                    )
                continue
            old = tensors[prev]
            target = variables[name]
            info = settings.var_name_to_vocab_info.get(name)
            if info is not None:
                value = _remap(target, old.to(target.dtype), info)
            else:
                if tuple(old.shape) != tuple(target.shape):
                    raise ValueError(
                        f"Warm-start: variable {name} has shape {tuple(target.shape)} but "
                        f"{prev} in {path} has shape {tuple(old.shape)}."
                    )
                value = old
            target.copy_(value.to(device=target.device, dtype=target.dtype))
            done.append(name)
    logger.info("Warm-started %d variables from %s.", len(done), path)
    return done
