"""`tf.keras.experimental.LinearModel`: Keras 2.15's premade linear model
(`keras/premade_models/linear.py`).

`y = activation(bias + sum_i x_i @ w_i)`: one bias-free `Dense` kernel per input -- one for a
single tensor, one per element of a list or tuple, one per key of a dict (the keys sorted, each
kernel named after its key) -- summed, plus one bias, then the activation. Kernel and bias start
at zero, as Keras'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from torchestimator.keras import _registry, activations, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.model import Model
from torchestimator.keras.feature_column import _linear_model
from torchestimator.keras.layers.convolutional._utils import positive_int
from torchestimator.keras.layers.core.dense import Dense


def _is_shape_list(input_shape: Any) -> bool:
    """Whether `input_shape` is the shapes of a list of inputs, not one input's shape."""
    if isinstance(input_shape, list):
        return bool(input_shape) and all(
            s is None or isinstance(s, (list, tuple)) for s in input_shape
        )
    return isinstance(input_shape, tuple) and bool(input_shape) and all(
        isinstance(s, (list, tuple)) for s in input_shape
    )


class LinearModel(Model):
    r"""Linear Model for regression and classification problems.

    This model approximates `y = beta + sum_{i=1}^{N} w_i * x_i`, where `beta`
    is the bias and `w_i` the weight of each feature.

    ```python
    model = tf.keras.experimental.LinearModel()
    model.compile(optimizer='sgd', loss='mse')
    model.fit(x, y, epochs=epochs)
    ```

    The inputs may be one tensor, a list of tensors (one kernel each) or a
    dict of tensors (one kernel per key, the keys taken in sorted order and
    the kernels named after them).

    Args:
        units: Positive integer, output dimension without the batch size.
        activation: Activation function to use (None: no activation).
        use_bias: whether to calculate the bias/intercept for this model. If
            False, no bias is used (e.g. the data is already centered).
        kernel_initializer: Initializer for the `kernel` weights matrices.
        bias_initializer: Initializer for the bias vector.
        kernel_regularizer: regularizer for kernel vectors.
        bias_regularizer: regularizer for bias vector.
        **kwargs: The keyword arguments passed on to the base `Model`
            (`name`, `dtype`, `trainable`).
    """

    def __init__(
        self,
        units: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "zeros",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        **kwargs: Any,
    ) -> None:
        if "feature_columns" in kwargs:
            raise TypeError(
                "tf.keras.experimental.LinearModel is Keras' premade linear model, which takes "
                "tensors, not `feature_columns`. For a linear model over feature columns, use "
                "tf.estimator.LinearRegressor/LinearClassifier or "
                "tf.compat.v1.feature_column.linear_model; or feed this model the output of "
                "tf.keras.layers.DenseFeatures."
            )
        units = positive_int(units, "units")
        super().__init__(**kwargs)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self._input_kind = "single"  # 'single', 'list' or 'dict': what build saw

    def _kernel_layer(self, shape: Any, name: str | None = None) -> Dense:
        layer = Dense(
            units=self.units,
            use_bias=False,
            kernel_initializer=self.kernel_initializer,
            kernel_regularizer=self.kernel_regularizer,
            name=name,
            dtype=self._dtype_policy_name,
        )
        layer._build_device = self._build_device
        layer.build(shape)
        return layer

    def build(self, input_shape: Any) -> None:
        """Creates one bias-free kernel per input (dict keys in sorted order), then the bias."""
        if self.built and getattr(self, "dense_layers", None) is not None:
            return
        if isinstance(input_shape, Mapping):
            self._input_kind = "dict"
            layers = [self._kernel_layer(input_shape[k], name=k) for k in sorted(input_shape)]
        elif _is_shape_list(input_shape):
            self._input_kind = "list"
            layers = [self._kernel_layer(shape) for shape in input_shape]
        else:
            self._input_kind = "single"
            layers = [self._kernel_layer(input_shape)]
        self.dense_layers = layers
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                trainable=True,
            )
        else:
            self.bias = None
        self._build_shapes = input_shape
        self.built = True

    def call(self, inputs: Any) -> torch.Tensor:
        """Returns `activation(sum of each input times its kernel + bias)`, shape `(batch, units)`."""
        layers = list(self.dense_layers)
        if isinstance(inputs, Mapping):
            names = [layer.name for layer in layers]
            missing = set(names) - set(inputs)
            if missing:
                raise ValueError(
                    "The `inputs` dictionary does not match the structure expected by the model."
                    f"\n\tExpected keys: {set(names)}"
                    f"\n\tReceived keys: {set(inputs)}"
                    f"\n\tMissing keys: {missing}"
                )
            inputs = [inputs[name] for name in names]
        elif isinstance(inputs, (list, tuple)):
            if len(inputs) != len(layers):
                raise ValueError(
                    f"LinearModel {self.name!r} was built for {len(layers)} input(s) but was "
                    f"called with a list of {len(inputs)}; pass one tensor per input it was "
                    "built for."
                )
        else:
            inputs = [inputs]
        result = None
        for tensor, layer in zip(inputs, layers):
            output = layer(tensor)
            result = output if result is None else result + output
        if self.bias is not None:
            result = result + self.bias.to(result.dtype)
        return self.activation(result)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """`(batch, units)`."""
        if isinstance(input_shape, Mapping):
            input_shape = next(iter(input_shape.values()))
        elif _is_shape_list(input_shape):
            input_shape = input_shape[0]
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self) -> dict[str, Any]:
        """Returns the constructor arguments (activation, initializers and regularizers
        serialized) with the base layer config (`name`, `trainable`, `dtype`)."""
        config = Layer.get_config(self)
        config.update(
            units=self.units,
            activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict | None = None) -> Any:
        """Creates the model from `get_config()`'s output. A config with `feature_columns`
        (the feature-column linear layer's, which shares the class name) makes that layer."""
        if "feature_columns" in config:
            return _linear_model.LinearModel.from_config(config, custom_objects)
        return cls(**config)


# Keras 2.15 deserializes a bare 'LinearModel' to the premade model (keras/layers/serialization.py);
# the feature-column linear layer that shares the name is found by its config's `module`
# ('keras.feature_column'), or through `from_config` above by its `feature_columns`.
_registry.register_builtin(LinearModel, owns_bare_name=True)
