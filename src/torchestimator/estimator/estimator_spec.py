"""`EstimatorSpec`: what a `model_fn` returns — predictions, loss, train op, metrics, hooks."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import torch

from torchestimator.estimator._lazy_predictions import LazyPredictions
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook
from torchestimator.estimator.mode_keys import ModeKeys, check_mode
from torchestimator.saved_model._export_output import PredictOutput

_FIELDS = (
    "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
    "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks",
)


def _check_hooks(hooks: Any, field: str) -> tuple:
    if not hooks:
        return ()

    hooks = tuple(hooks)
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(
                f"All hooks must be SessionRunHook instances, given: {hook!r} in EstimatorSpec.{field}"
            )
    return hooks


def _check_loss(loss: Any, mode: str) -> Any:
    if type(loss) is torch.Tensor and loss.ndim == 0:
        return loss
    if loss is None:
        raise ValueError(f"Missing loss: an EstimatorSpec in mode {mode!r} needs `loss`.")
    if not isinstance(loss, torch.Tensor):
        try:
            loss = torch.as_tensor(loss, dtype=torch.float32)
        except Exception:
            raise TypeError(f"loss must be a scalar tensor; received {type(loss).__name__}: {loss!r}") from None
    if loss.numel() != 1:
        raise ValueError(
            f"Loss must be scalar (one element); received a tensor of shape {tuple(loss.shape)}. "
            "Reduce it, e.g. with .mean()."
        )
    return loss.reshape(())


class EstimatorSpec(namedtuple("EstimatorSpec", _FIELDS)):
    """Ops and objects returned from a `model_fn` and passed to an `Estimator`, validated as TF's:
    TRAIN needs `loss` and `train_op`, EVAL needs `loss`, PREDICT needs `predictions`.

    `predictions` is a tensor or a dict of tensors; `eval_metric_ops` a dict of
    name -> Keras metric object or `(value, update_op)` pair; `train_op` what
    `optimizer.minimize(loss)` returned; hooks are `SessionRunHook`s.
    """

    __slots__ = ()

    def __new__(
        cls,
        mode: str,
        predictions: Any = None,
        loss: Any = None,
        train_op: Any = None,
        eval_metric_ops: dict | None = None,
        export_outputs: dict | None = None,
        training_chief_hooks: Any = None,
        training_hooks: Any = None,
        scaffold: Any = None,
        evaluation_hooks: Any = None,
        prediction_hooks: Any = None,
    ) -> EstimatorSpec:
        if mode is not ModeKeys.TRAIN and mode is not ModeKeys.EVAL and mode is not ModeKeys.PREDICT:
            check_mode(mode)
        if mode == ModeKeys.TRAIN:
            loss = _check_loss(loss, mode)
            if train_op is None:
                raise ValueError(
                    "Missing train_op: an EstimatorSpec in TRAIN mode needs `train_op`, e.g. "
                    "train_op=optimizer.minimize(loss)."
                )
        elif mode == ModeKeys.EVAL:
            loss = _check_loss(loss, mode)
        elif loss is not None:
            loss = _check_loss(loss, mode)
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError(
                "Missing predictions: an EstimatorSpec in PREDICT mode needs `predictions`."
            )
        if predictions is None:
            predictions = {}
        if predictions is not None and not isinstance(predictions, (dict, torch.Tensor)):
            raise TypeError(
                "predictions must be a tensor or a dict of tensors; received "
                f"{type(predictions).__name__}"
            )
        if isinstance(predictions, dict) and not isinstance(predictions, LazyPredictions):
            for key in predictions:
                if not isinstance(key, str):
                    raise TypeError(f"predictions keys must be strings; received {key!r}")
        eval_metric_ops = dict(eval_metric_ops) if eval_metric_ops else {}
        for name, value in eval_metric_ops.items():
            if not isinstance(name, str):
                raise TypeError(f"eval_metric_ops keys must be strings; received {name!r}")
            if not (hasattr(value, "result") and hasattr(value, "update_state")) and not (
                isinstance(value, tuple) and len(value) == 2
            ):
                raise TypeError(
                    f"Values of eval_metric_ops must be (metric_value, update_op) tuples or Keras "
                    f"metric objects; given {value!r} for key {name!r}"
                )
        if mode == ModeKeys.PREDICT:
            export_outputs = _default_export_outputs(export_outputs, predictions)
        return super().__new__(
            cls, mode, predictions, loss, train_op, eval_metric_ops, export_outputs,
            _check_hooks(training_chief_hooks, "training_chief_hooks"),
            _check_hooks(training_hooks, "training_hooks"),
            scaffold,
            _check_hooks(evaluation_hooks, "evaluation_hooks"),
            _check_hooks(prediction_hooks, "prediction_hooks"),
        )

    def _replace(self, **kwargs: Any) -> EstimatorSpec:
        if "mode" in kwargs and kwargs["mode"] != self.mode:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        return EstimatorSpec(**{**self._asdict(), **kwargs})


def _default_export_outputs(export_outputs: dict | None, predictions: Any) -> dict:
    if export_outputs is None:
        return {"serving_default": PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be a dict; received {type(export_outputs).__name__}")
    if len(export_outputs) == 1 and "serving_default" not in export_outputs:
        (value,) = export_outputs.values()
        return {**export_outputs, "serving_default": value}
    if "serving_default" not in export_outputs:
        raise ValueError(
            "Multiple export_outputs were provided, but none of them is specified as the default. "
            f"Use 'serving_default' as one of the keys; received keys {sorted(export_outputs)}."
        )
    return dict(export_outputs)
