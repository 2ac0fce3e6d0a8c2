"""`tf.keras.estimator.model_to_estimator`: a compiled Keras model as an Estimator.

As TF 2.15's `keras_lib`, the Estimator works on a copy of the model (a
Sequential or functional model is cloned, a subclassed one deep-copied) that
starts from the Keras model's current weights; the user's model is never
changed. `input_fn` features are matched to the model's input names (a
single-input model also takes a bare tensor, a list/tuple goes by position),
labels to its output names. Training minimizes the compiled loss (plus the
model's regularization losses) with a copy of the compiled optimizer;
evaluation returns the compiled metrics under their Keras names (renamed by
`metric_names_map`) plus `loss` and `global_step`; predictions are dicts keyed
by the output layer names.

The Keras model's starting weights are also written to `model_dir/keras/`
(`keras_model.weights.safetensors`), as TF kept them there.
"""

from __future__ import annotations

import copy
import logging
import os
from typing import Any

import torch

from torchestimator.estimator import export as export_lib
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.estimator_spec import EstimatorSpec
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.keras._registry import custom_object_scope
from torchestimator.keras.engine.input_layer import Input

logger = logging.getLogger("torchestimator")

_DEFAULT_SERVING_KEY = "serving_default"
_CHECKPOINT_FORMATS = ("keras", "checkpoint", "saver")


class _ResetMetricsHook(SessionRunHook):
    """Resets the Keras metrics when an evaluation begins (streaming metrics start afresh)."""

    def __init__(self, metrics: list):
        self._metrics = metrics

    def begin(self) -> None:
        for metric in self._metrics:
            metric.reset_state()


def _copy_model(keras_model: Any, custom_objects: dict | None) -> Any:
    """A copy of `keras_model` with the same compiled loss and metrics and the same weights."""
    from torchestimator.keras.engine.functional import (  # lazy: heavy (torchestimator.keras.engine.functional, 56 ms)
        Functional,
    )
    from torchestimator.keras.engine.sequential import (  # lazy: heavy (torchestimator.keras.engine.sequential, 57 ms)
        Sequential,
    )
    from torchestimator.keras.models import (  # lazy: heavy (torchestimator.keras.models, 62 ms)
        clone_model,
    )

    if isinstance(keras_model, Functional):  # Sequential is a Functional
        input_tensors = None
        input_layer = getattr(keras_model, "_input_layer", None)
        if isinstance(keras_model, Sequential) and input_layer is not None:
            # Keep the input's name: input_fn's features are keyed by it.
            input_tensors = Input(batch_shape=input_layer._batch_input_shape, dtype=input_layer.dtype,
                                  name=input_layer.name)
        with custom_object_scope(custom_objects or {}):
            model = clone_model(keras_model, input_tensors=input_tensors)
        if keras_model.built:
            if not model.built:  # a Sequential built by a call: build the copy the same way
                model.build_from_config(keras_model.get_build_config())
            model.set_weights(keras_model.get_weights())
        model.optimizer = None
        model.compiled_loss = copy.deepcopy(keras_model.compiled_loss)
        model.compiled_metrics = copy.deepcopy(keras_model.compiled_metrics)
        model.loss = keras_model.loss
        model._is_compiled = True
    else:  # a subclassed model: its class cannot be rebuilt from a config
        optimizer = keras_model.optimizer
        keras_model.optimizer = None
        try:
            model = copy.deepcopy(keras_model)
        finally:
            keras_model.optimizer = optimizer
    for metric in model.compiled_metrics.metrics:
        metric.reset_state()
    return model


def _input_names(model: Any) -> list[str]:
    try:
        return list(model.input_names)
    except (AttributeError, TypeError):
        return []


def _model_inputs(model: Any, features: Any) -> Any:
    """The model's call argument for `features` (a dict by input name, a list, or a tensor)."""
    names = _input_names(model)
    if not isinstance(features, dict):
        return features
    if not names:  # a subclassed model: one feature is its input, several go as a dict
        return next(iter(features.values())) if len(features) == 1 else features
    missing = [n for n in names if n not in features]
    if missing:
        raise ValueError(
            "The dictionary passed into features does not have the expected inputs keys defined in "
            f"the keras model. Expected keys: {sorted(names)}, features keys: {sorted(features)}"
        )
    if len(names) == 1:
        return features[names[0]]
    return [features[n] for n in names]


def _split_sample_weights(features: Any) -> tuple[Any, Any]:
    """TF's `{'features': ..., 'sample_weights': ...}` form: (features, sample weights)."""
    if isinstance(features, dict) and set(features) == {"features", "sample_weights"}:
        return features["features"], features["sample_weights"]
    return features, None


def _output_names(model: Any) -> list[str]:
    return list(model._compiled_output_names())


def _predictions(model: Any, outputs: Any) -> dict:
    names = _output_names(model)
    if isinstance(outputs, dict):
        return dict(outputs)
    if isinstance(outputs, (list, tuple)):
        return dict(zip(names, outputs))
    return {names[0]: outputs}


def _metric_ops(metrics: list, metric_names_map: dict | None) -> dict:
    names = [m.name for m in metrics]
    if metric_names_map:
        expected, given = set(names), set(metric_names_map)
        unknown = sorted(expected - given)
        if unknown:
            raise ValueError(
                f'Invalid `metric_names_map`. The following keras model metric names:"{unknown}" do '
                "not exist in the `metric_names_map` dictionary"
            )
        extra = sorted(given - expected)
        if extra:
            raise ValueError(
                "Invalid `metric_names_map`. There are unexpected keys in the `metric_names_map` "
                f"dictionary. Expected keys: {sorted(expected)}, Received: {extra}"
            )
        return {metric_names_map[m.name]: m for m in metrics}
    return dict(zip(names, metrics))


def _export_outputs(export_outputs: dict | None, predictions: dict) -> dict:
    if export_outputs is None:
        return {_DEFAULT_SERVING_KEY: export_lib.PredictOutput(predictions)}
    single = next(iter(predictions.values())) if len(predictions) == 1 else None
    out = {}
    for key, cls in export_outputs.items():
        if cls is export_lib.PredictOutput:
            out[key] = cls(predictions)
        elif single is None:
            raise ValueError(
                f"export_outputs[{key!r}] = {cls.__name__} needs a model with one output; this model "
                f"has outputs {sorted(predictions)}. Use tf.estimator.export.PredictOutput."
            )
        elif cls is export_lib.ClassificationOutput:
            out[key] = cls(scores=single)
        elif cls is export_lib.RegressionOutput:
            out[key] = cls(value=single)
        else:
            raise TypeError(
                f"export_outputs values must be tf.estimator.export.PredictOutput, ClassificationOutput "
                f"or RegressionOutput classes; received {cls!r} for {key!r}."
            )
    return out


def _make_model_fn(model: Any, optimizer_config: tuple, metric_names_map: dict | None,
                   export_outputs: dict | None) -> Any:
    optimizer_class, config = optimizer_config

    def model_fn(features: Any, labels: Any, mode: str) -> EstimatorSpec:
        features, sample_weight = _split_sample_weights(features)
        x = _model_inputs(model, features)
        outputs = model(x, training=mode == ModeKeys.TRAIN)
        predictions = _predictions(model, outputs)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions,
                                 export_outputs=_export_outputs(export_outputs, predictions))
        loss = model.compute_loss(x, labels, outputs, sample_weight)
        if mode == ModeKeys.TRAIN:
            # Built in model_fn, so the Estimator checkpoints its state (made once, then reused).
            optimizer = optimizer_class.from_config(dict(config))
            train_op = optimizer.minimize(loss, var_list=model.trainable_weights)
            return EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=predictions)
        with torch.no_grad():
            model.compiled_metrics.update_state(labels, outputs, sample_weight)
        metrics = model.compiled_metrics.metrics
        return EstimatorSpec(mode, loss=loss, predictions=predictions,
                             eval_metric_ops=_metric_ops(metrics, metric_names_map),
                             evaluation_hooks=[_ResetMetricsHook(metrics)])

    return model_fn


def _save_initial_weights(model: Any, model_dir: str) -> None:
    """Writes the starting weights to `model_dir/keras/keras_model.weights.safetensors` (as TF
    keeps them in `model_dir/keras/`); skipped for an unbuilt model."""
    if not model.built:
        return
    directory = os.path.join(model_dir, "keras")
    os.makedirs(directory, exist_ok=True)
    model.save_weights(os.path.join(directory, "keras_model.weights.safetensors"))


def model_to_estimator(keras_model: Any = None, keras_model_path: str | None = None,
                       custom_objects: dict | None = None, model_dir: str | None = None,
                       config: Any = None, checkpoint_format: str = "keras",
                       metric_names_map: dict | None = None,
                       export_outputs: dict | None = None) -> Estimator:
    """Constructs an `Estimator` instance from a compiled Keras model.

    Args:
        keras_model: a compiled Keras model (Sequential, functional or subclassed).
        keras_model_path: a saved `.keras` archive of a compiled model, instead of
            `keras_model`.
        custom_objects: classes and functions the model's config names.
        model_dir, config: as `Estimator`'s.
        checkpoint_format: 'keras' (TF: 'checkpoint', or 'saver' in TF 1): all write
            the Estimator's checkpoint format.
        metric_names_map: renames the compiled metrics in the eval results; must
            cover every compiled metric name.
        export_outputs: signature name -> `tf.estimator.export.PredictOutput`,
            `ClassificationOutput` or `RegressionOutput` class (default
            `{'serving_default': PredictOutput}` of every output).

    Returns an Estimator whose `input_fn` features are keyed by the model's
    input names and labels by its output names. Raises ValueError for both or
    neither of `keras_model` and `keras_model_path`, or an uncompiled model.
    """
    if keras_model is None and keras_model_path is None:
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if keras_model is not None and keras_model_path is not None:
        raise ValueError("Please specity either `keras_model` or `keras_model_path`, but not both.")
    if checkpoint_format not in _CHECKPOINT_FORMATS:
        raise ValueError(
            f"Unknown checkpoint format {checkpoint_format!r}: expected one of {list(_CHECKPOINT_FORMATS)}."
        )
    if keras_model_path is not None:
        from torchestimator.keras.models import (  # lazy: heavy (torchestimator.keras.models, 61 ms)
            load_model,
        )

        if not os.path.exists(keras_model_path):
            raise ValueError(f"keras_model_path {keras_model_path!r} does not exist.")
        logger.info("Loading models from %s", keras_model_path)
        keras_model = load_model(keras_model_path, custom_objects=custom_objects)
    if not getattr(keras_model, "_is_compiled", False) or getattr(keras_model, "optimizer", None) is None:
        raise ValueError("The given keras model has not been compiled yet. Please compile the model "
                         "with `model.compile()` before calling `model_to_estimator()`.")
    model = _copy_model(keras_model, custom_objects)
    optimizer = keras_model.optimizer
    model_fn = _make_model_fn(model, (type(optimizer), optimizer.get_config()), metric_names_map,
                              export_outputs)
    estimator = Estimator(model_fn, model_dir=model_dir, config=config)
    if estimator.latest_checkpoint() is None:
        _save_initial_weights(model, estimator.model_dir)
    return estimator
