"""An Estimator continuing from a TensorFlow checkpoint: TF's variable names are already ours
(`dnn/hiddenlayer_0/kernel`, `linear/linear_model/<column>/weights`, `training/Adagrad/<var>/
accumulator`, TF1's `<var>/Adagrad`, `global_step`), so what TF's checkpoint lacks is the
description of the optimizers' state that our checkpoints carry in their metadata. It is
taken from the model being restored (built, its optimizers too, before the restore), and
TF's tensors are matched to it by name; what TF never stores (a value our optimizer keeps
that TF's does not) keeps its freshly built value.
"""

from __future__ import annotations

import difflib
import logging
import re
from typing import Any

import torch

logger = logging.getLogger("torchestimator")

__all__ = ["adapt_tf_checkpoint"]


def _skeleton_tensors(skeleton: Any) -> list[str]:
    if isinstance(skeleton, dict):
        if "__tensor__" in skeleton:
            return [skeleton["__tensor__"]]
        return [n for v in skeleton.values() for n in _skeleton_tensors(v)]
    if isinstance(skeleton, list):
        return [n for v in skeleton for n in _skeleton_tensors(v)]
    return []


def _tf_name_of(name: str, tensors: dict[str, torch.Tensor], variables: list[str], step: int,
                current: torch.Tensor) -> torch.Tensor | None:
    """The value TF stores for our optimizer entry `name` under another name, or None:

    * `.../iter`: TF's Estimators make the optimizer's `iterations` the global step (TF2) or
      have none (TF1): the global step.
    * TF1's slots of a variable TF partitioned, `<var>/part_<i>/<slot>` (joined along axis 0
      as TF's `PartitionedVariable`), or that TF named through its handle, `<var>/t_0/<slot>`.
    """
    if name.endswith("/iter") and current.dim() == 0:
        return torch.tensor(step, dtype=current.dtype)
    for variable in variables:  # longest first
        if not name.startswith(variable + "/"):
            continue
        slot = name[len(variable) + 1:]
        pattern = re.compile(re.escape(variable) + r"/(part_(\d+)|t_\d+)/" + re.escape(slot) + "$")
        found = sorted(
            (int(m.group(2)) if m.group(2) is not None else -1, key)
            for key in tensors if (m := pattern.match(key))
        )
        parts = [key for index, key in found if index >= 0]
        if len(parts) > 1:
            return torch.cat([tensors[key] for key in parts], dim=0)
        if found:
            return tensors[found[0][1]]
        return None
    return None


def missing_variable_error(path: str, missing: list[str], available: list[str]) -> ValueError:
    """The error of a model variable TF's checkpoint `path` does not hold: each missing name with
    the closest names the checkpoint has, and how to map them."""
    lines = []
    for name in missing[:10]:
        close = difflib.get_close_matches(name, available, n=3, cutoff=0.3)
        lines.append(f"  {name}: closest in the checkpoint {close}")
    more = f"\n  ... and {len(missing) - 10} more" if len(missing) > 10 else ""
    return ValueError(
        f"Restoring from TensorFlow checkpoint {path} failed: it has no variable for "
        f"{len(missing)} variable(s) the model_fn created:\n" + "\n".join(lines) + more + "\n"
        "Build the model with the same feature columns, layer sizes and names as the TensorFlow "
        "program that wrote it, or warm-start with tf.estimator.WarmStartSettings("
        "var_name_to_prev_var_name={new_name: checkpoint_name}) to map the names."
    )


def adapt_tf_checkpoint(state: Any, path: str, tensors: dict[str, torch.Tensor],
                        metadata: dict[str, Any]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """TF checkpoint `path`'s `(tensors, metadata)` made ready for `ModelState.restore`: the
    metadata gets the optimizers' description (`extra["optimizers"]`) of `state`'s built model,
    and optimizer values TF does not store are filled with the model's current ones.

    Raises:
      ValueError: a variable of the model is not in the checkpoint (naming the closest names).
    """
    ours, extra = state._gather({}, state._object_graph())
    graph = state._object_graph()
    covered = graph.tensor_keys if graph is not None else {}
    variables = state.named_variables()
    missing = [n for n, t in variables.items() if n not in tensors and id(t) not in covered]
    if missing:
        raise missing_variable_error(path, missing, sorted(tensors))
    tensors = dict(tensors)
    filled = []
    by_length = sorted(variables, key=len, reverse=True)
    for skeleton in extra.get("optimizers", {}).values():
        for name in _skeleton_tensors(skeleton):
            if name in tensors:
                continue
            value = _tf_name_of(name, tensors, by_length, int(metadata.get("global_step", 0)), ours[name])
            if value is None:
                value = ours[name]
                filled.append(name)
            tensors[name] = value

    if filled:
        logger.info("TensorFlow checkpoint %s does not hold %s; they keep their initial values.",
                    path, filled)
    extra = {"optimizers": extra.get("optimizers", {}), "optimizer_names": "tf",
             "format": metadata.get("format")}
    return tensors, {**metadata, "extra": extra}
