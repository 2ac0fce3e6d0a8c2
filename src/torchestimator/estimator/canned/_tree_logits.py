"""`BoostedTreesLogits`: a boosted-trees ensemble as data, for exports.

An export keeps the trees as LightGBM's text model inside the layer's config, with the
feature columns that build the trees' input: the loaded model rebuilds the booster from
that text (no file from the model_dir, no pickle) and computes the same logits as the
Estimator's `predict`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator._engine import export_capture
from torchestimator.estimator.canned._tree_ensemble import import_lightgbm
from torchestimator.estimator.canned._tree_features import check_columns, feature_matrix
from torchestimator.feature_column import _layer_utils
from torchestimator.keras.engine.base_layer import Layer


class BoostedTreesLogits(Layer):
    """The logits of a trained boosted-trees ensemble for a features dict.

    Args:
        feature_columns: the estimator's columns (numeric, bucketized, indicator).
        model_string: LightGBM's text model (`Booster.model_to_string()`), or '' for an
            ensemble with no trees yet (logits are then zeros).
        logits_dimension: the number of logits per example.

    Calling it returns float32 [batch, logits_dimension].
    """

    def __init__(self, feature_columns: Any, model_string: str, logits_dimension: int,
                 name: str = "boosted_trees", **kwargs: Any):
        super().__init__(name=name, trainable=False, **kwargs)
        columns = _layer_utils.maybe_deserialize(feature_columns)
        self._feature_columns = check_columns(columns, "BoostedTreesLogits")
        self.model_string = str(model_string)
        self.logits_dimension = int(logits_dimension)
        self._booster: Any = None
        self.built = True

    def build(self, input_shape: Any = None) -> None:
        """Nothing to create: the trees are data."""
        self.built = True

    def call(self, features: Mapping[str, Any]) -> torch.Tensor:
        """Returns the ensemble's raw scores for `features` as a float32 tensor."""
        x, _ = feature_matrix(features, self._feature_columns)
        if not self.model_string or len(x) == 0:
            return torch.zeros(len(x), self.logits_dimension)
        if self._booster is None:
            self._booster = import_lightgbm().Booster(model_str=self.model_string)
        scores = self._booster.predict(x, raw_score=True)
        return torch.from_numpy(np.asarray(scores, dtype=np.float32).reshape(len(x), self.logits_dimension))

    def get_config(self) -> dict[str, Any]:
        """The columns (as data), the trees (LightGBM's text model) and the logits dimension."""
        config = super().get_config()
        config.update(feature_columns=_layer_utils.columns_config(list(self._feature_columns)),
                      model_string=self.model_string, logits_dimension=self.logits_dimension)
        config.pop("trainable", None)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict | None = None) -> BoostedTreesLogits:
        """Creates the layer from `get_config()`'s output."""
        config = dict(config)
        config["feature_columns"] = _layer_utils.columns_from_config(config["feature_columns"], custom_objects)
        return cls(**config)


def export_logits(features: Mapping[str, Any], columns: tuple, ensemble: Any, compute: Any) -> torch.Tensor:
    """The trees' logits inside model_fn: `compute()`, or during an export the output of a
    `BoostedTreesLogits` call the export stores as data."""

    capture = export_capture.active()
    if capture is None:
        return compute()
    if capture.mode == "record":  # a fresh layer (not through the object scope) with today's trees
        booster = ensemble.booster
        ensemble._export_layer = type.__call__(
            BoostedTreesLogits, list(columns), booster.model_to_string() if booster is not None else "",
            ensemble.logits_dimension,
        )
    return export_capture.preprocessing_call(ensemble._export_layer, compute, features)
