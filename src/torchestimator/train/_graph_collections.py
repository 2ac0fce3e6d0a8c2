"""TF1's graph collections on the variable store: `tf.compat.v1.global_variables`,
`trainable_variables`, `GraphKeys`, `get_collection`, `add_to_collection` and the
REGULARIZATION_LOSSES of `get_variable`'s and `tf.compat.v1.layers`' regularizers.

They live with TF1's variable store (`train._variable_store`):
`ExponentialMovingAverage` averages `trainable_variables()` by default and restores
`global_variables()`; `tf.compat.v1` re-exports them (`compat.v1._graph_collections`).
"""

from __future__ import annotations

import re
from typing import Any

import torch

from torchestimator.train._tf1_global_step import get_global_step
from torchestimator.train._variable_store import _store


def _filtered(variables: list[tuple[str, torch.Tensor]], scope: str | None) -> list[torch.Tensor]:
    if scope is None:
        return [v for _, v in variables]
    return [v for name, v in variables if re.match(scope, name)]


def global_variables(scope: str | None = None) -> list[torch.Tensor]:
    """Every variable model_fn created so far (layer weights, `get_variable`, `tf.Variable`);
    outside a model_fn, those of `get_variable` and `tf.compat.v1.layers`; not those
    `get_variable(collections=...)` kept out of GLOBAL_VARIABLES (local variables). `scope`
    filters the names with `re.match`."""
    return [v for v in _filtered(_store().variables(), scope) if getattr(v, "_tf1_global", True)]


def local_variables(scope: str | None = None) -> list[torch.Tensor]:
    """TF1's LOCAL_VARIABLES collection: the variables `get_variable(collections=[
    tf.compat.v1.GraphKeys.LOCAL_VARIABLES])` created (names filtered by `scope`)."""
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list[torch.Tensor]:
    """The trainable variables among the store's, local ones included (TF1's
    TRAINABLE_VARIABLES collection, which `trainable=True` fills whatever `collections`)."""
    return [v for v in _filtered(_store().variables(), scope) if _is_trainable(v)]


def _is_trainable(v: torch.Tensor) -> bool:
    flag = getattr(v, "_tf_trainable", None)
    if flag is None:
        flag = getattr(v, "_keras_trainable", True)
    return bool(flag) and v.requires_grad


def regularization_losses(scope: str | None = None) -> list[torch.Tensor]:
    """The regularization losses of the variables `get_variable` created with a regularizer and of
    the `tf.compat.v1.layers` weights with one (TF1's REGULARIZATION_LOSSES collection), computed
    from the current values."""
    out = []
    for name, v in _store().variables():
        if scope is not None and not re.match(scope, name):
            continue
        reg = getattr(v, "_tf1_regularizer", None) or getattr(v, "_keras_regularizer", None)
        if reg is not None:
            loss = reg(v)
            if loss is not None:
                out.append(loss)
    return out


class GraphKeys:
    """TF1's standard collection names, for `get_collection`."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


def get_collection(key: str, scope: str | None = None) -> list:
    """The items of collection `key` (names filtered by `scope` with `re.match`): the variable
    collections from the variable store, `REGULARIZATION_LOSSES` from the regularizers of
    `get_variable`/`tf.compat.v1.layers`, `GLOBAL_STEP` in a model_fn; `UPDATE_OPS` is empty
    (`tf.compat.v1.layers.batch_normalization` updates its moving statistics in place, so
    `tf.control_dependencies(update_ops)` has nothing to wait for); plus what
    `add_to_collection` added (in a model_fn: during this call)."""
    if key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        items: list = global_variables(scope)
    elif key in (GraphKeys.TRAINABLE_VARIABLES, GraphKeys.TRAINABLE_RESOURCE_VARIABLES):
        items = trainable_variables(scope)
    elif key == GraphKeys.REGULARIZATION_LOSSES:
        items = regularization_losses(scope)
    elif key == GraphKeys.GLOBAL_STEP:
        step = get_global_step()
        items = [] if step is None else [step]
    else:
        items = []
    added = _store().collections.get(key, [])
    if scope is not None:
        added = [x for x in added if re.match(scope, getattr(x, "name", "") or "")]
    return items + [x for x in added if not any(x is y for y in items)]


def get_collection_ref(key: str) -> list:
    """The list `add_to_collection` appends to for `key` (the items added so far)."""
    return _store().collections.setdefault(key, [])


def add_to_collection(name: str, value: Any) -> None:
    """Adds `value` to collection `name` (in a model_fn, for the rest of this call)."""
    get_collection_ref(name).append(value)


def add_to_collections(names: Any, value: Any) -> None:
    """Adds `value` to each collection of `names` (a name or a list of names)."""
    for name in [names] if isinstance(names, str) else list(dict.fromkeys(names)):
        add_to_collection(name, value)
