"""Two parts of Keras' training API that sit on its main methods (`trainer.py`): a single
batch at a time (`train_on_batch`, `test_on_batch`, `predict_on_batch`, and the deprecated
Sequential `predict_proba` / `predict_classes`), and the model's files (`save`, `export`,
`save_weights`, `load_weights`, the compile config)."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
import torch

from torchestimator._engine import loop
from torchestimator._ops import nest
from torchestimator.keras import _registry
from torchestimator.keras.engine._compile_config import deserialize_compile_args, warn_problems
from torchestimator.keras.engine.compile_utils import to_python_logs
from torchestimator.keras.engine.data_adapter import apply_class_weight, pack_x_y_sample_weight
from torchestimator.keras.saving import saving_lib
from torchestimator.saved_model._keras_export import export_keras_model


def _first(y: Any) -> Any:
    return y[0] if isinstance(y, (list, tuple)) else y


class BatchMethods:
    """`Model`'s one-batch methods (mixed into `Trainer`)."""

    def predict_proba(self, x: Any, batch_size: int = 32, verbose: int = 0) -> Any:
        """Deprecated (Keras 1/2 Sequential): the same as `predict`."""
        warnings.warn("`model.predict_proba()` is deprecated; use `model.predict()`.", stacklevel=2)
        return self.predict(x, batch_size=batch_size, verbose=verbose)

    def predict_classes(self, x: Any, batch_size: int = 32, verbose: int = 0) -> np.ndarray:
        """Deprecated (Keras 1/2 Sequential): class indices — argmax of a multi-class output,
        or `output > 0.5` of a single sigmoid unit."""
        warnings.warn(
            "`model.predict_classes()` is deprecated; use np.argmax(model.predict(x), axis=-1) "
            "or (model.predict(x) > 0.5).astype('int32').",
            stacklevel=2,
        )
        proba = self.predict(x, batch_size=batch_size, verbose=verbose)
        if proba.shape[-1] > 1:
            return proba.argmax(axis=-1)
        return (proba > 0.5).astype("int32")

    # ------------------------------------------------------------------ on batch
    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: dict | None = None, reset_metrics: bool = True,
                       return_dict: bool = False) -> Any:
        """Runs one training step on a single batch; returns the loss and metrics."""
        self._assert_compiled("training")
        device = self._place()
        if class_weight:
            sample_weight = apply_class_weight(loop.to_device(_first(y), device),
                                               loop.to_device(sample_weight, device), class_weight)
        if reset_metrics:
            self.reset_metrics()
        self.train()
        batch = loop.to_device(pack_x_y_sample_weight(x, y, sample_weight), device)
        with self._mixed_precision(device):
            logs = to_python_logs(self.train_step(batch))
        return self._format_batch_logs(logs, return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      reset_metrics: bool = True, return_dict: bool = False) -> Any:
        """Evaluates the model on a single batch; returns the loss and metrics."""
        self._assert_compiled("testing")
        device = self._place()
        if reset_metrics:
            self.reset_metrics()
        self.eval()
        batch = loop.to_device(pack_x_y_sample_weight(x, y, sample_weight), device)
        with torch.no_grad(), self._mixed_precision(device):
            logs = to_python_logs(self.test_step(batch))
        return self._format_batch_logs(logs, return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """Returns the model's outputs for a single batch, as numpy."""
        device = self._place()
        self.eval()
        with torch.no_grad(), self._mixed_precision(device):
            out = self.predict_step((loop.to_device(x, device),))
        return nest.map_structure(
            lambda t: t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t, out
        )

    def _format_batch_logs(self, logs: dict, return_dict: bool) -> Any:
        """Logs as evaluate/*_on_batch return them: the dict, or `[loss, *metrics]` (a scalar
        when there is only the loss)."""
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names if name in logs]
        return values[0] if len(values) == 1 else values


class ModelFiles:
    """`Model`'s file methods: `.keras` archives, weights, exports, the compile config (mixed
    into `Trainer`)."""

    def save(self, filepath: str, overwrite: bool = True, save_format: str | None = None,
             **kwargs: Any) -> None:
        """Saves the model (config, weights, optimizer state) to one `.keras` archive, or, for a
        path without a `.keras`/`.h5` suffix (TF 2.15's default `save_format='tf'`), to a
        SavedModel-format directory that `tf.keras.models.load_model` reads back."""

        saving_lib.save_model(self, filepath, overwrite=overwrite, save_format=save_format)

    def export(self, filepath: str, format: str = "tf_saved_model", verbose: bool = True,
               input_signature: Any = None, **kwargs: Any) -> None:
        """Exports the model for serving (Keras' `model.export`): a directory that
        `tf.saved_model.load` opens without this code, with a `serving_default` signature
        taking the model's inputs. `input_signature` (a `tf.TensorSpec`, a list, or a dict of
        name -> spec) is needed for models without `tf.keras.Input`s."""
        del verbose, kwargs
        if format not in ("tf_saved_model", "", None):
            raise ValueError(f"format must be 'tf_saved_model'; received {format!r}")

        export_keras_model(self, filepath, input_signature)

    def save_weights(self, filepath: str, overwrite: bool = True, save_format: str | None = None,
                     options: Any = None) -> None:
        """Saves the model's weights to a safetensors file (`.weights.safetensors`)."""

        saving_lib.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath: str, skip_mismatch: bool = False, by_name: bool = False,
                     options: Any = None) -> None:
        """Loads weights saved by `save_weights` (or the weights inside a `.keras` archive)."""

        saving_lib.load_weights(self, filepath, by_name=by_name, skip_mismatch=skip_mismatch)

    def get_compile_config(self) -> dict | None:
        """Returns the `compile()` arguments as JSON (Keras 2.15's layout: loss and metric
        objects as `{"class_name", "config", ...}`, names as strings, in the structure given;
        an optimizer object as None, its state is saved apart), or None if not compiled."""
        if self._compile_config is None:
            return None

        config, problems = self._compile_config
        warn_problems(problems)
        return copy.deepcopy(config)

    def compile_from_config(self, config: dict) -> None:
        """Compiles the model from `get_compile_config()`'s output (ours or Keras 2.15's):
        loss and metric objects are rebuilt through the safe registry (nothing is imported)."""

        optimizer = config.get("optimizer")
        if isinstance(optimizer, dict):
            optimizer = _registry.deserialize_keras_object(optimizer)
        self.compile(optimizer=optimizer or "rmsprop", **deserialize_compile_args(config))
