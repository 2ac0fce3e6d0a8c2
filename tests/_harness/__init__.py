"""One check per extension point, so that a new layer, optimizer or feature column needs one call
in its tests:

- `check_layer(layer_cls, kwargs, input_shape=...)`: build and call, config and
  `tf.keras.layers.serialize` round trips, a functional model through `.keras`, one `fit` step,
  `predict` against `model(x)` and `training=` against the torch module mode, and a
  `state_dict` round trip into a fresh instance.
- `check_optimizer(optimizer_cls, kwargs)`: minimises a small quadratic, config round trip,
  slots through a `.keras` file and through `tf.train.Checkpoint`, and the flat (elementwise)
  update against the per-tensor one where the optimizer has it.
- `check_feature_column(column, features)`: the dense output through `DenseFeatures` and
  `input_layer` (or the linear model for a categorical column), the serialization round trip,
  and a premade Estimator trained one step, exported with a parsing serving input receiver and
  served from the export.

Everything goes through the public API (`import torchestimator as tf`) except the switch that
turns an optimizer's flat path off, which has no public name.
"""

from _harness.feature_columns import check_feature_column
from _harness.layers import check_layer
from _harness.optimizers import check_optimizer

__all__ = ["check_feature_column", "check_layer", "check_optimizer"]
