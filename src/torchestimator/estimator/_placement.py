"""Where an Estimator call runs: the device `RunConfig.device_fn` or a `tf.device` block
chooses, and the feature keys whose tensors stay on the host (categorical columns' lookups and
hashing run there; only their ids cross to the accelerator)."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import torch

from torchestimator._engine import loop
from torchestimator._ops.control_ops._context import _resolve_device, device
from torchestimator.estimator.run_config import RunConfig
from torchestimator.feature_column import _inputs as _fc_inputs

logger = logging.getLogger("torchestimator")


class HostFeatures:
    """The feature keys whose device tensors a feature column read back to the host (a
    categorical column: vocabulary lookups and hashing run there), learned in the first steps of
    a `train` call; later batches keep those features on the host (`loop.moved_batches`)."""

    _LEARNING_STEPS = 2

    def __init__(self) -> None:
        self.keys: frozenset = frozenset()
        self.learning = True
        self._steps = 0

    @classmethod
    def batches(cls, run: Any, parallel: Any) -> tuple[HostFeatures, Any, torch.device | None]:
        """(the learner, the batches of `run`, the device the loop moves them to): on an
        accelerator without a strategy, the batches move here, the host features left out."""
        host = cls()
        device = run.device
        if device is None or device.type == "cpu" or parallel is not None:
            return host, run.batches, device
        # categorical features stay on the host (their ids cross once); the rest moves
        return host, loop.moved_batches(run.batches, device, host.current), None

    def current(self) -> frozenset:
        """The keys kept on the host now."""
        return self.keys

    def learn(self, features: Any) -> None:
        """Adds the keys of `features` whose tensors were read on the host in this step."""
        self._steps += 1
        self.learning = self._steps < self._LEARNING_STEPS
        if isinstance(features, dict):
            found = {k for k, v in features.items() if getattr(v, _fc_inputs.HOST_READ, False)}
            if found:
                self.keys = self.keys | found


class _PlacementOp:
    """What `RunConfig.device_fn` is called with to place the model: TF's op, as far as a
    placement function reads it (`type`, `name`, `device`, `node_def.op`)."""

    def __init__(self, op_type: str, name: str):
        self.type = op_type
        self.name = name
        self.device = ""
        self.node_def = self
        self.op = op_type


def _constant_device_fn(config: RunConfig) -> str | None:
    """The device string `config.device_fn` gives both a variable and a computation of the
    model when it is one CPU or GPU device, else None (logged when it names several)."""
    device_fn = config.device_fn
    if device_fn is None:
        return None
    chosen = {device_fn(_PlacementOp("VarHandleOp", "dense/kernel")),
              device_fn(_PlacementOp("MatMul", "dense/MatMul"))}
    name = next(iter(chosen)) if len(chosen) == 1 else None
    text = str(name or "").lower()
    if name is not None and ("cpu" in text or "gpu" in text):
        return str(name)
    if chosen != {None} and chosen != {""}:
        logger.warning("RunConfig.device_fn places the model's ops on %s: not one device of this "
                       "process; the model runs on %s.", sorted(map(str, chosen)), loop.default_device())
    return None


def device_fn_scope(config: RunConfig) -> Any:
    """A `tf.device` block of `config.device_fn`'s constant device (variables, metrics and tables
    made during the call are created there), or a context that does nothing."""
    name = _constant_device_fn(config) if config.device_fn is not None else None
    if name is None:
        return contextlib.nullcontext()
    return device(name)


def device_for_call(config: RunConfig) -> torch.device:
    """The device a train/evaluate/predict call runs the model on: the one `config.device_fn`
    returns for the model's ops when it is the same for a variable and a computation (a
    constant placement, e.g. `lambda op: '/cpu:0'`), else the innermost `tf.device` block's,
    else `loop.default_device()`. A placement that varies by op (`replica_device_setter`'s
    parameter servers) has no counterpart in one process: it is logged and the default kept."""
    name = _constant_device_fn(config)
    if name is not None:
        return _resolve_device(name)
    return loop.default_device()
