"""`tf.estimator.add_metrics`, `tf.estimator.experimental.call_logit_fn` and
`tf.estimator.experimental.build_raw_supervised_input_receiver_fn` (with its
`SupervisedInputReceiver`)."""

from __future__ import annotations

import collections
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import torch

from torchestimator._dtypes import TensorSpec
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.export._receivers import _as_spec
from torchestimator.estimator.mode_keys import ModeKeys

_METRIC_FN_ARGS = ("features", "labels", "predictions", "config")


def _fn_args(fn: Callable) -> tuple[str, ...]:
    target = fn.func if hasattr(fn, "func") else fn
    return tuple(inspect.signature(target).parameters)


def add_metrics(estimator: Any, metric_fn: Callable[..., dict]) -> Any:
    """Creates a new `tf.estimator.Estimator` which has given metrics (TF's
    `tf.estimator.add_metrics(estimator, metric_fn)`): `metric_fn` takes any of `features`,
    `labels`, `predictions`, `config` and returns a dict of metrics (Keras metric objects or
    `(value, update_op)` pairs) added to the estimator's `eval_metric_ops` in EVAL; the new
    estimator shares `model_dir`, `config` and warm-start settings."""
    args = _fn_args(metric_fn)
    invalid = set(args) - set(_METRIC_FN_ARGS)
    if invalid:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {sorted(invalid)}")
    inner, inner_args, params = estimator._model_fn, estimator._model_fn_args, estimator.params

    def new_model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
        kwargs: dict[str, Any] = {}
        if "labels" in inner_args:
            kwargs["labels"] = labels
        if "mode" in inner_args:
            kwargs["mode"] = mode
        if "params" in inner_args:
            kwargs["params"] = params
        if "config" in inner_args:
            kwargs["config"] = config
        spec = inner(features=features, **kwargs)
        if mode != ModeKeys.EVAL:
            return spec
        available = {"features": features, "labels": labels, "predictions": spec.predictions, "config": config}
        new_metrics = metric_fn(**{name: available[name] for name in args})
        if not isinstance(new_metrics, Mapping):
            raise TypeError(f"metric_fn must return a dict of metrics; got {type(new_metrics).__name__}.")
        all_metrics = dict(spec.eval_metric_ops or {})
        all_metrics.update(new_metrics)
        return spec._replace(eval_metric_ops=all_metrics)

    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir, config=estimator.config,
                     warm_start_from=estimator._runtime.warm_start_settings)


def call_logit_fn(logit_fn: Callable[..., Any], features: Any, mode: str, params: Any, config: Any) -> Any:
    """Calls logit_fn (TF's `tf.estimator.experimental.call_logit_fn`): passes `mode`, `params`,
    `config` only when it takes them; checks it returns a Tensor or a dict of str -> Tensor."""
    args = _fn_args(logit_fn)
    kwargs = {}
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    result = logit_fn(features=features, **kwargs)
    valid_dict = isinstance(result, dict) and all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                                   for k, v in result.items())
    if not (valid_dict or isinstance(result, torch.Tensor)):
        raise ValueError("logit_fn should return a Tensor or a dictionary mapping strings to Tensors.  "
                         f"logit_fn returned: {result}")
    return result


SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"
SINGLE_LABEL_DEFAULT_NAME = "label"


class SupervisedInputReceiver(collections.namedtuple(
        "SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])):
    """A return type for a training_input_receiver_fn or evaluation_input_receiver_fn (TF's
    `SupervisedInputReceiver(features, labels, receiver_tensors)`): the inputs, as
    `tf.TensorSpec`s, of a model exported for TRAIN or EVAL."""

    def __new__(cls, features: Any, labels: Any, receiver_tensors: Any) -> SupervisedInputReceiver:
        for what, value in (("features", features), ("labels", labels)):
            if value is None:
                raise ValueError(f"{what} must be defined.")
        if not isinstance(receiver_tensors, dict):
            receiver_tensors = {SINGLE_RECEIVER_DEFAULT_NAME: receiver_tensors}
        for name in receiver_tensors:
            if not isinstance(name, str):
                raise ValueError(f"receiver_tensors keys must be strings: {name!r}.")
        return super().__new__(cls, features, labels, receiver_tensors)


def _placeholders(values: Any, default_batch_size: int | None, what: str) -> Any:
    if isinstance(values, Mapping):
        out = {}
        for name, value in values.items():
            spec = _as_spec(value, f"{what}[{name!r}]", default_batch_size)
            out[name] = TensorSpec((default_batch_size,) + tuple((spec.shape or (None,))[1:]), spec.dtype, name)
        return out
    spec = _as_spec(values, what, default_batch_size)
    return TensorSpec((default_batch_size,) + tuple((spec.shape or (None,))[1:]), spec.dtype, what)


def build_raw_supervised_input_receiver_fn(features: Any, labels: Any,
                                           default_batch_size: int | None = None) -> Callable[[], SupervisedInputReceiver]:
    """Build a supervised_input_receiver_fn for raw features and labels (TF's
    `tf.estimator.experimental.build_raw_supervised_input_receiver_fn`): `features` and `labels`
    are tensors (or dicts of them) whose dtype and shape[1:] describe the inputs; the receiver
    tensors are both merged in one dict (a single tensor named 'input' / 'label')."""
    feat_keys = list(features.keys()) if isinstance(features, Mapping) else [SINGLE_RECEIVER_DEFAULT_NAME]
    label_keys = list(labels.keys()) if isinstance(labels, Mapping) else [SINGLE_LABEL_DEFAULT_NAME]
    overlap = set(feat_keys) & set(label_keys)
    if overlap:
        raise ValueError(f"Features and labels must have distinct keys. Found overlapping keys: {overlap}")

    def supervised_input_receiver_fn() -> SupervisedInputReceiver:
        feature_specs = _placeholders(features, default_batch_size, SINGLE_RECEIVER_DEFAULT_NAME)
        label_specs = _placeholders(labels, default_batch_size, SINGLE_LABEL_DEFAULT_NAME)
        receivers = dict(feature_specs) if isinstance(feature_specs, dict) else \
            {SINGLE_RECEIVER_DEFAULT_NAME: feature_specs}
        receivers.update(label_specs if isinstance(label_specs, dict) else {SINGLE_LABEL_DEFAULT_NAME: label_specs})
        return SupervisedInputReceiver(feature_specs, label_specs, receivers)

    return supervised_input_receiver_fn


__all__ = ["SupervisedInputReceiver", "add_metrics", "build_raw_supervised_input_receiver_fn", "call_logit_fn"]
