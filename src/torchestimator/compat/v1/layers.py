"""`tf.compat.v1.layers`: TF1's layer functions (`dense`, `conv2d`, `max_pooling2d`, `dropout`,
`batch_normalization`, `flatten`, ...) and layer classes (the Keras layers).

The classes are subclasses of the Keras layers with TF1's arguments and defaults, as TF's:
`data_format='channels_last'`, initializers None (the variable scope's initializer when the
layer is built, else glorot-uniform; a None regularizer the scope's), `Dropout(rate=0.5)`,
and `training=False` when `Dropout` and `BatchNormalization` are called. Their configs load
as the Keras layers.

Each function creates a Keras layer and calls it on `inputs`. Inside an
Estimator's `model_fn` the layer is created on the first call and the same
layer is used by every later call (matched by its name), so its weights
persist and are trained and checkpointed. Names follow TF1: `dense`,
`dense_1`, ... per variable scope (`encoder/dense/kernel` inside
`tf.compat.v1.variable_scope('encoder')`), an explicit `name=` as given;
using a name with weights twice in one `model_fn` call needs `reuse=True`
(or a reusing variable scope), as in TF1. Outside a `model_fn` the layers
live in the process-wide store of `tf.compat.v1.get_variable`.

One difference: TF1 made a new layer object on every call, sharing only the
variables, so a reused name could be called with, say, another activation.
Here the layer object itself is reused, so using a name again with a
different configuration (besides initializers) raises ValueError.

TF1 defaults are kept: `dropout` and `batch_normalization` default to
`training=False` (pass `training=(mode == tf.estimator.ModeKeys.TRAIN)`);
`kernel_initializer=None` means the variable scope's initializer, else
glorot-uniform. TF1's `batch_normalization` left the moving-statistics
updates in `tf.GraphKeys.UPDATE_OPS` for the train op to depend on; here a
call with `training=True` updates the moving mean and variance in place, so
`UPDATE_OPS` plumbing (`tf.control_dependencies(update_ops)`) is not needed
and costs nothing. Weights take the dtype of the first input, as TF1's layers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._engine.object_scope import _plain_construct, _same_value
from torchestimator.compat.v1 import _variable_scope as _vs
from torchestimator.keras import initializers as _initializers
from torchestimator.keras import layers as _layers
from torchestimator.keras import regularizers as _regularizers
from torchestimator.keras.engine.base_layer import Layer as _KerasLayer
from torchestimator.keras.engine.call_context import CONTEXT as _CONTEXT
from torchestimator.keras.engine.input_spec import InputSpec


class Layer(_KerasLayer):
    """Base layer class (`tf.compat.v1.layers.Layer`, the base of this module's layer classes):
    a Keras `Layer` with what TF1's layers (`base_layer_v1`) have besides Keras', the losses
    and updates of the layer by input. Eagerly there is no graph to trace a loss back to its
    inputs: the losses that depend on no input are the weight regularizers', those that do
    the activity regularizer's and `add_loss`'s of the layer's latest call."""

    _builtin_registration = False  # Keras configs of these layers (and subclasses) load as Keras'

    def add_metric(self, value: Any, aggregation: str | None = None, name: str | None = None) -> None:
        """Adds a metric tensor to the layer in its `call()`, as TF1's layers: `aggregation=None`
        for the result of calling a metric object (that metric is reported), `'mean'` for a
        tensor to average (a `Mean` metric named `name`, updated at every call)."""
        if aggregation is not None and aggregation != "mean":
            raise ValueError(
                "We currently support only `mean` sample-wise metric aggregation. You provided "
                f"aggregation=`{aggregation}`"
            )
        metric_obj = getattr(value, "_metric_obj", None)
        if name is None and metric_obj is None:
            raise ValueError(
                "Please provide a name for your metric like `self.add_metric(tf.reduce_sum(inputs), "
                "name='mean_activation', aggregation='mean')`"
            )
        if metric_obj is not None:
            name = metric_obj.name
        if aggregation is None:
            known = any(m.name == name for m in self.__dict__.get("_added_metrics", ()))
            if not known and metric_obj is None:
                raise ValueError(
                    "We do not support adding an aggregated metric result tensor that is not the "
                    "output of a `tf.keras.metrics.Metric` metric instance. Without having access "
                    "to the metric instance we cannot reset the state of a metric after every "
                    "epoch during training. You can create a `tf.keras.metrics.Metric` instance "
                    "and pass the result here or pass an un-aggregated result with `aggregation` "
                    "parameter set as `mean`. For example: `self.add_metric(tf.reduce_sum(inputs), "
                    "name='mean_activation', aggregation='mean')` "
                )
            self._track_metric(value, name, metric_obj, update=False)
        else:
            self._track_metric(value, name, None, update=True)

    def get_losses_for(self, inputs: Any) -> list:
        """The layer's losses that depend on `inputs` (those of its latest call: activity
        regularization and `add_loss`), or with `inputs=None` those that depend on no input
        (the weight regularizers')."""
        layers = self._flatten_layers()
        if inputs is None:
            return [reg(p) for layer in layers for p in layer._own_weights
                    if (reg := getattr(p, "_keras_regularizer", None)) is not None
                    and (p.requires_grad or not getattr(p, "_keras_trainable", True))]
        return [value for layer in layers if layer._activity_losses
                and layer._activity_losses[0] == _CONTEXT.generation
                for value in layer._activity_losses[1]]

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        """TF1's `layer.apply(inputs, *args, **kwargs)`: the same as calling the layer. torch's
        `Module.apply(fn)` (a function run on every submodule, as in
        `model.apply(init_weights)`) still runs when given one function and nothing else."""
        if (len(args) == 1 and not kwargs and callable(args[0])
                and not isinstance(args[0], (torch.Tensor, np.ndarray))):
            return torch.nn.Module.apply(self, args[0])
        return self(*args, **kwargs)

    def get_updates_for(self, inputs: Any) -> list:
        """The update ops of the layer for `inputs`: none here, where updates (BatchNorm's
        moving statistics) are applied in place by the call that makes them, so there is no
        op left for a train op to depend on (TF1's `UPDATE_OPS`)."""
        return []


class Flatten(Layer, _layers.Flatten):
    """Flattens an input tensor while preserving the batch axis (`tf.compat.v1.layers.Flatten`):
    Keras' `Flatten` with TF1's `get_losses_for` / `get_updates_for`."""


class _ScopeDefaults(Layer):
    """TF1's defaults for a layer class's weights: an initializer given as None is the
    variable scope's initializer (else glorot-uniform) and a regularizer given as None the
    scope's regularizer, of the scope the layer is built in (its first call), as TF1's
    `tf.compat.v1.get_variable` resolves them."""

    def _scope_defaults(self, initializers_given: dict[str, Any],
                        regularizers_given: dict[str, Any]) -> None:
        self._scope_initialized = tuple(k for k, v in initializers_given.items() if v is None)
        self._scope_regularized = tuple(k for k, v in regularizers_given.items() if v is None)

    def build(self, input_shape: Any) -> None:
        """Resolves the initializers and regularizers given as None, then builds."""
        scope = _vs.get_variable_scope()
        for attr in self._scope_initialized:
            if scope.initializer is not None:
                setattr(self, attr, _initializers.get(scope.initializer))
        for attr in self._scope_regularized:
            if scope.regularizer is not None:
                setattr(self, attr, _regularizers.get(scope.regularizer))
        self._scope_initialized = self._scope_regularized = ()
        super().build(input_shape)


def _or_glorot(initializer: Any) -> Any:
    return "glorot_uniform" if initializer is None else initializer


class Dense(_ScopeDefaults, _layers.Dense):
    """Densely-connected layer class (`tf.compat.v1.layers.Dense`): Keras' `Dense` with TF1's
    arguments; `kernel_initializer=None` is the variable scope's initializer (else
    glorot-uniform) and a None regularizer the scope's regularizer."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(
            units, activation=activation, use_bias=use_bias,
            kernel_initializer=_or_glorot(kernel_initializer), bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults({"kernel_initializer": kernel_initializer},
                             {"kernel_regularizer": kernel_regularizer,
                              "bias_regularizer": bias_regularizer})


class Conv1D(_ScopeDefaults, _layers.Conv1D):
    """1D convolution layer class (`tf.compat.v1.layers.Conv1D`): Keras' `Conv1D` with TF1's arguments
    (no `groups`); `kernel_initializer=None` is the variable scope's initializer (else glorot-uniform), a None regularizer the scope's."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last",
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=_or_glorot(kernel_initializer), bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults({"kernel_initializer": kernel_initializer},
                             {"kernel_regularizer": kernel_regularizer,
                               "bias_regularizer": bias_regularizer})


class Conv2D(_ScopeDefaults, _layers.Conv2D):
    """2D convolution layer class (`tf.compat.v1.layers.Conv2D`): Keras' `Conv2D` with TF1's arguments
    (no `groups`; `data_format='channels_last'`); `kernel_initializer=None` is the variable scope's initializer (else glorot-uniform), a None regularizer the scope's."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=_or_glorot(kernel_initializer), bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults({"kernel_initializer": kernel_initializer},
                             {"kernel_regularizer": kernel_regularizer,
                               "bias_regularizer": bias_regularizer})


class Conv3D(_ScopeDefaults, _layers.Conv3D):
    """3D convolution layer class (`tf.compat.v1.layers.Conv3D`): Keras' `Conv3D` with TF1's arguments
    (no `groups`; `data_format='channels_last'`); `kernel_initializer=None` is the variable scope's initializer (else glorot-uniform), a None regularizer the scope's."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
                 data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1, 1), activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=_or_glorot(kernel_initializer), bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults({"kernel_initializer": kernel_initializer},
                             {"kernel_regularizer": kernel_regularizer,
                               "bias_regularizer": bias_regularizer})


class Conv2DTranspose(_ScopeDefaults, _layers.Conv2DTranspose):
    """Transposed 2D convolution layer class (`tf.compat.v1.layers.Conv2DTranspose`): Keras' `Conv2DTranspose` with TF1's arguments
    (no `output_padding` or `dilation_rate`; `data_format='channels_last'`); `kernel_initializer=None` is the variable scope's initializer (else glorot-uniform), a None regularizer the scope's."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last",
                 activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            activation=activation, use_bias=use_bias,
            kernel_initializer=_or_glorot(kernel_initializer), bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults({"kernel_initializer": kernel_initializer},
                             {"kernel_regularizer": kernel_regularizer,
                               "bias_regularizer": bias_regularizer})


class Conv3DTranspose(_ScopeDefaults, _layers.Conv3DTranspose):
    """Transposed 3D convolution layer class (`tf.compat.v1.layers.Conv3DTranspose`): Keras' `Conv3DTranspose` with TF1's arguments
    (no `output_padding` or `dilation_rate`; `data_format='channels_last'`); `kernel_initializer=None` is the variable scope's initializer (else glorot-uniform), a None regularizer the scope's."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
                 data_format: str = "channels_last",
                 activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            activation=activation, use_bias=use_bias,
            kernel_initializer=_or_glorot(kernel_initializer), bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults({"kernel_initializer": kernel_initializer},
                             {"kernel_regularizer": kernel_regularizer,
                               "bias_regularizer": bias_regularizer})


class SeparableConv1D(_ScopeDefaults, _layers.SeparableConv1D):
    """Depthwise separable 1D convolution layer class (`tf.compat.v1.layers.SeparableConv1D`): Keras'
    `SeparableConv1D` with TF1's arguments (`data_format='channels_last'`); None depthwise/pointwise initializers are the
    variable scope's initializer (else glorot-uniform), None regularizers the scope's."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1,
                 depth_multiplier: int = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
                 pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 pointwise_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, depth_multiplier=depth_multiplier, activation=activation,
            use_bias=use_bias, depthwise_initializer=_or_glorot(depthwise_initializer),
            pointwise_initializer=_or_glorot(pointwise_initializer),
            bias_initializer=bias_initializer, depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
            trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults(
            {"depthwise_initializer": depthwise_initializer,
             "pointwise_initializer": pointwise_initializer},
            {"depthwise_regularizer": depthwise_regularizer,
             "pointwise_regularizer": pointwise_regularizer, "bias_regularizer": bias_regularizer})


class SeparableConv2D(_ScopeDefaults, _layers.SeparableConv2D):
    """Depthwise separable 2D convolution layer class (`tf.compat.v1.layers.SeparableConv2D`): Keras'
    `SeparableConv2D` with TF1's arguments (`data_format='channels_last'`); None depthwise/pointwise initializers are the
    variable scope's initializer (else glorot-uniform), None regularizers the scope's."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = (1, 1),
                 depth_multiplier: int = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
                 pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 pointwise_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(
            filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, depth_multiplier=depth_multiplier, activation=activation,
            use_bias=use_bias, depthwise_initializer=_or_glorot(depthwise_initializer),
            pointwise_initializer=_or_glorot(pointwise_initializer),
            bias_initializer=bias_initializer, depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
            trainable=trainable, name=name, **kwargs,
        )
        self._scope_defaults(
            {"depthwise_initializer": depthwise_initializer,
             "pointwise_initializer": pointwise_initializer},
            {"depthwise_regularizer": depthwise_regularizer,
             "pointwise_regularizer": pointwise_regularizer, "bias_regularizer": bias_regularizer})


class _Pooling(Layer):
    """TF1's arguments of the pooling layers: `pool_size` and `strides` required,
    `data_format='channels_last'`."""

    def __init__(self, pool_size: Any, strides: Any, padding: str = "valid",
                 data_format: str = "channels_last", name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(pool_size=pool_size, strides=strides, padding=padding,
                         data_format=data_format, name=name, **kwargs)


class AveragePooling1D(_Pooling, _layers.AveragePooling1D):
    """Average pooling layer class for 1D inputs (`tf.compat.v1.layers.AveragePooling1D`): Keras'
    `AveragePooling1D` with TF1's arguments (`pool_size` and `strides` required,
    `data_format='channels_last'`)."""


class AveragePooling2D(_Pooling, _layers.AveragePooling2D):
    """Average pooling layer class for 2D inputs (`tf.compat.v1.layers.AveragePooling2D`): Keras'
    `AveragePooling2D` with TF1's arguments (`pool_size` and `strides` required,
    `data_format='channels_last'`)."""


class AveragePooling3D(_Pooling, _layers.AveragePooling3D):
    """Average pooling layer class for 3D inputs (`tf.compat.v1.layers.AveragePooling3D`): Keras'
    `AveragePooling3D` with TF1's arguments (`pool_size` and `strides` required,
    `data_format='channels_last'`)."""


class MaxPooling1D(_Pooling, _layers.MaxPooling1D):
    """Max pooling layer class for 1D inputs (`tf.compat.v1.layers.MaxPooling1D`): Keras'
    `MaxPooling1D` with TF1's arguments (`pool_size` and `strides` required,
    `data_format='channels_last'`)."""


class MaxPooling2D(_Pooling, _layers.MaxPooling2D):
    """Max pooling layer class for 2D inputs (`tf.compat.v1.layers.MaxPooling2D`): Keras'
    `MaxPooling2D` with TF1's arguments (`pool_size` and `strides` required,
    `data_format='channels_last'`)."""


class MaxPooling3D(_Pooling, _layers.MaxPooling3D):
    """Max pooling layer class for 3D inputs (`tf.compat.v1.layers.MaxPooling3D`): Keras'
    `MaxPooling3D` with TF1's arguments (`pool_size` and `strides` required,
    `data_format='channels_last'`)."""


class Dropout(Layer, _layers.Dropout):
    """Dropout layer class (`tf.compat.v1.layers.Dropout`): Keras' `Dropout` with TF1's
    defaults, `rate=0.5` and, when called, `training=False` (pass `training=True` to drop)."""

    def __init__(self, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(rate, noise_shape=noise_shape, seed=seed, name=name, **kwargs)

    def call(self, inputs: torch.Tensor, training: Any = False) -> torch.Tensor:
        """Returns `inputs` with dropout applied when `training`, else unchanged."""
        return super().call(inputs, training=training)


class BatchNormalization(Layer, _layers.BatchNormalization):
    """Batch normalization layer class (`tf.compat.v1.layers.BatchNormalization`): Keras'
    `BatchNormalization` with TF1's arguments and, when called, `training=False` (pass
    `training=True` to normalize by the batch and update the moving statistics). `renorm`,
    `virtual_batch_size` and `adjustment` are not supported: anything but their defaults
    raises ValueError."""

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", moving_mean_initializer: Any = "zeros",
                 moving_variance_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, renorm: bool = False, renorm_clipping: Any = None,
                 renorm_momentum: float = 0.99, fused: Any = None, trainable: bool = True,
                 virtual_batch_size: Any = None, adjustment: Any = None, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(
            axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
            beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
            moving_mean_initializer=moving_mean_initializer,
            moving_variance_initializer=moving_variance_initializer,
            beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
            beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
            renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
            trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
            name=name, **kwargs,
        )

    def call(self, inputs: torch.Tensor, training: Any = False, mask: Any = None) -> torch.Tensor:
        """Returns `inputs` normalized by the batch's statistics when `training` (updating the
        moving ones), else by the moving statistics."""
        return super().call(inputs, training=training, mask=mask)

__all__ = [
    "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "BatchNormalization", "Conv1D",
    "Conv2D", "Conv2DTranspose", "Conv3D", "Dense", "Dropout", "Flatten", "InputSpec", "Layer",
    "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "SeparableConv2D",
    "Conv3DTranspose", "SeparableConv1D", "conv3d_transpose", "separable_conv1d",
    "average_pooling1d", "average_pooling2d", "average_pooling3d", "batch_normalization",
    "conv1d", "conv2d", "conv2d_transpose", "conv3d", "dense", "dropout", "flatten",
    "max_pooling1d", "max_pooling2d", "max_pooling3d", "separable_conv2d",
]


def _dtype_of(inputs: Any) -> Any:
    if isinstance(inputs, torch.Tensor) and inputs.is_floating_point():
        return inputs.dtype
    return None


def _apply(cls: type, base: str, inputs: Any, name: str | None, reuse: Any,
           first_weight: str | None, config: dict, call_kwargs: dict | None = None) -> Any:
    """Gets (or creates) the TF1-named layer for this position and calls it on `inputs`.

    `first_weight` names the layer's first variable (None for layers without
    weights), used in TF1's error messages about reuse.
    """
    store = _vs._store()
    scope = _vs.get_variable_scope()
    if name is not None:
        full = _vs._join(scope.name, name)
    elif reuse:  # TF1: a layer given reuse= takes its base name, not a unique one
        full = _vs._join(scope.name, base)
    else:
        full = store.layer_name(_vs._join(scope.name, base))
    if not reuse:
        reuse = scope.reuse
    if first_weight is not None:
        if reuse is True and full not in store.defined:
            raise ValueError(
                f"Variable {full}/{first_weight} does not exist, or was not created with "
                "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )
        if reuse is not True and reuse is not _vs.AUTO_REUSE and full in store.defined:
            raise ValueError(
                f"Variable {full}/{first_weight} already exists, disallowed. Did you mean to set "
                "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
            )
    key = (_vs._LAYER_KEY, full)
    layer = store.objects.get(key)
    if layer is None:
        layer = _plain_construct(cls, (), dict(config, name=full, dtype=_dtype_of(inputs)), store.scope)
        layer._tf1_config = [(k, v) for k, v in config.items() if not k.endswith(_CREATION_ONLY)]
        store.objects[key] = layer
    elif type(layer) is not cls or not _same_config(layer._tf1_config, config):
        raise ValueError(
            f"tf.compat.v1.layers: layer {full!r} is used again with a different configuration "
            f"(first {_shown(dict(layer._tf1_config))}, now {_shown(config)}). Here a layer is created "
            "once and reused by every model_fn call and by reuse=True, so it keeps its first "
            "configuration; give differently configured layers different names."
        )
    store.scope_counts[full] += 1  # TF1 opened a variable scope of the layer's name
    store.defined.add(full)
    return layer(inputs, **(call_kwargs or {}))


# Arguments that act when a layer is created (or are objects made anew by every call).
_CREATION_ONLY = ("_initializer", "_regularizer", "_constraint")


def _same_config(first: list[tuple[str, Any]], now: dict) -> bool:
    """True if configuration `now` matches the layer's first one, `first` (its arguments other
    than initializers, regularizers and constraints)."""
    for key, value in first:
        other = now.get(key)
        if other is not value and not _same_value(value, other):
            return False
    return True


def _shown(config: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in config.items() if not k.endswith(_CREATION_ONLY))


def _kernel_defaults(kernel_initializer: Any, kernel_regularizer: Any, bias_regularizer: Any) -> tuple:
    scope = _vs.get_variable_scope()
    if kernel_initializer is None:
        kernel_initializer = scope.initializer if scope.initializer is not None else "glorot_uniform"
    if kernel_regularizer is None:
        kernel_regularizer = scope.regularizer
    if bias_regularizer is None:
        bias_regularizer = scope.regularizer
    return kernel_initializer, kernel_regularizer, bias_regularizer


def _zeros() -> Any:
    return _vs.zeros_initializer()


def dense(inputs: Any, units: int, activation: Any = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None,
          kernel_regularizer: Any = None, bias_regularizer: Any = None,
          activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
          reuse: Any = None) -> torch.Tensor:
    """Functional interface for the densely-connected layer: returns
    `activation(inputs @ kernel + bias)` (TF1 `tf.compat.v1.layers.dense`)."""
    kernel_initializer, kernel_regularizer, bias_regularizer = _kernel_defaults(
        kernel_initializer, kernel_regularizer, bias_regularizer)
    config = dict(
        units=units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer if bias_initializer is not None else _zeros(),
        kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint, trainable=trainable,
    )
    return _apply(Dense, "dense", inputs, name, reuse, "kernel", config)


def _conv(cls: type, base: str, inputs: Any, filters: int, kernel_size: Any, strides: Any,
          padding: str, data_format: str, dilation_rate: Any, activation: Any, use_bias: bool,
          kernel_initializer: Any, bias_initializer: Any, kernel_regularizer: Any,
          bias_regularizer: Any, activity_regularizer: Any, kernel_constraint: Any,
          bias_constraint: Any, trainable: bool, name: str | None, reuse: Any) -> torch.Tensor:
    kernel_initializer, kernel_regularizer, bias_regularizer = _kernel_defaults(
        kernel_initializer, kernel_regularizer, bias_regularizer)
    config = dict(
        filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
        data_format=data_format, activation=activation, use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer if bias_initializer is not None else _zeros(),
        kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint, trainable=trainable,
    )
    if dilation_rate is not None:
        config["dilation_rate"] = dilation_rate
    return _apply(cls, base, inputs, name, reuse, "kernel", config)


def conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
           data_format: str = "channels_last", dilation_rate: Any = 1, activation: Any = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> torch.Tensor:
    """Functional interface for 1D convolution (NWC by default): returns the convolved `inputs`."""
    return _conv(Conv1D, "conv1d", inputs, filters, kernel_size, strides, padding, data_format,
                 dilation_rate, activation, use_bias, kernel_initializer, bias_initializer,
                 kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                 bias_constraint, trainable, name, reuse)


def conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
           data_format: str = "channels_last", dilation_rate: Any = (1, 1), activation: Any = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> torch.Tensor:
    """Functional interface for 2D convolution (NHWC by default): returns the convolved `inputs`."""
    return _conv(Conv2D, "conv2d", inputs, filters, kernel_size, strides, padding, data_format,
                 dilation_rate, activation, use_bias, kernel_initializer, bias_initializer,
                 kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                 bias_constraint, trainable, name, reuse)


def conv3d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = (1, 1, 1), activation: Any = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> torch.Tensor:
    """Functional interface for 3D convolution (NDHWC by default): returns the convolved `inputs`."""
    return _conv(Conv3D, "conv3d", inputs, filters, kernel_size, strides, padding, data_format,
                 dilation_rate, activation, use_bias, kernel_initializer, bias_initializer,
                 kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                 bias_constraint, trainable, name, reuse)


def conv2d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
                     bias_initializer: Any = None, kernel_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None,
                     kernel_constraint: Any = None, bias_constraint: Any = None,
                     trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> torch.Tensor:
    """Functional interface for transposed 2D convolution: returns the up-sampled `inputs`."""
    return _conv(Conv2DTranspose, "conv2d_transpose", inputs, filters, kernel_size, strides,
                 padding, data_format, None, activation, use_bias, kernel_initializer,
                 bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                 kernel_constraint, bias_constraint, trainable, name, reuse)


def separable_conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     dilation_rate: Any = (1, 1), depth_multiplier: int = 1, activation: Any = None,
                     use_bias: bool = True, depthwise_initializer: Any = None,
                     pointwise_initializer: Any = None, bias_initializer: Any = None,
                     depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None,
                     depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> torch.Tensor:
    """Functional interface for the depthwise separable 2D convolution: returns its output."""
    scope = _vs.get_variable_scope()
    default_init = scope.initializer if scope.initializer is not None else "glorot_uniform"
    config = dict(
        filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
        data_format=data_format, dilation_rate=dilation_rate, depth_multiplier=depth_multiplier,
        activation=activation, use_bias=use_bias,
        depthwise_initializer=depthwise_initializer if depthwise_initializer is not None else default_init,
        pointwise_initializer=pointwise_initializer if pointwise_initializer is not None else default_init,
        bias_initializer=bias_initializer if bias_initializer is not None else _zeros(),
        depthwise_regularizer=depthwise_regularizer if depthwise_regularizer is not None else scope.regularizer,
        pointwise_regularizer=pointwise_regularizer if pointwise_regularizer is not None else scope.regularizer,
        bias_regularizer=bias_regularizer if bias_regularizer is not None else scope.regularizer,
        activity_regularizer=activity_regularizer, depthwise_constraint=depthwise_constraint,
        pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
        trainable=trainable,
    )
    return _apply(SeparableConv2D, "separable_conv2d", inputs, name, reuse, "depthwise_kernel", config)


def conv3d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
                     bias_initializer: Any = None, kernel_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None,
                     kernel_constraint: Any = None, bias_constraint: Any = None,
                     trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> torch.Tensor:
    """Functional interface for transposed 3D convolution: returns the up-sampled `inputs`."""
    return _conv(Conv3DTranspose, "conv3d_transpose", inputs, filters, kernel_size, strides,
                 padding, data_format, None, activation, use_bias, kernel_initializer,
                 bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                 kernel_constraint, bias_constraint, trainable, name, reuse)


def separable_conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1,
                     padding: str = "valid", data_format: str = "channels_last",
                     dilation_rate: Any = 1, depth_multiplier: int = 1, activation: Any = None,
                     use_bias: bool = True, depthwise_initializer: Any = None,
                     pointwise_initializer: Any = None, bias_initializer: Any = None,
                     depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None,
                     depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                     reuse: Any = None) -> torch.Tensor:
    """Functional interface for the depthwise separable 1D convolution: returns its output."""
    scope = _vs.get_variable_scope()
    default_init = scope.initializer if scope.initializer is not None else "glorot_uniform"
    config = dict(
        filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
        data_format=data_format, dilation_rate=dilation_rate, depth_multiplier=depth_multiplier,
        activation=activation, use_bias=use_bias,
        depthwise_initializer=depthwise_initializer if depthwise_initializer is not None else default_init,
        pointwise_initializer=pointwise_initializer if pointwise_initializer is not None else default_init,
        bias_initializer=bias_initializer if bias_initializer is not None else _zeros(),
        depthwise_regularizer=depthwise_regularizer if depthwise_regularizer is not None else scope.regularizer,
        pointwise_regularizer=pointwise_regularizer if pointwise_regularizer is not None else scope.regularizer,
        bias_regularizer=bias_regularizer if bias_regularizer is not None else scope.regularizer,
        activity_regularizer=activity_regularizer, depthwise_constraint=depthwise_constraint,
        pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
        trainable=trainable,
    )
    return _apply(SeparableConv1D, "separable_conv1d", inputs, name, reuse, "depthwise_kernel", config)


def _pool(cls: type, base: str, inputs: Any, pool_size: Any, strides: Any, padding: str,
          data_format: str, name: str | None) -> torch.Tensor:
    config = dict(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format)
    return _apply(cls, base, inputs, name, None, None, config)


def max_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> torch.Tensor:
    """Max pooling over windows of `pool_size` on 1D inputs: returns the pooled tensor."""
    return _pool(MaxPooling1D, "max_pooling1d", inputs, pool_size, strides, padding, data_format, name)


def max_pooling2d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> torch.Tensor:
    """Max pooling over windows of `pool_size` on 2D inputs (NHWC): returns the pooled tensor."""
    return _pool(MaxPooling2D, "max_pooling2d", inputs, pool_size, strides, padding, data_format, name)


def max_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> torch.Tensor:
    """Max pooling over windows of `pool_size` on 3D inputs: returns the pooled tensor."""
    return _pool(MaxPooling3D, "max_pooling3d", inputs, pool_size, strides, padding, data_format, name)


def average_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> torch.Tensor:
    """Average pooling over windows of `pool_size` on 1D inputs: returns the pooled tensor."""
    return _pool(AveragePooling1D, "average_pooling1d", inputs, pool_size, strides, padding,
                 data_format, name)


def average_pooling2d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> torch.Tensor:
    """Average pooling over windows of `pool_size` on 2D inputs (NHWC): returns the pooled tensor."""
    return _pool(AveragePooling2D, "average_pooling2d", inputs, pool_size, strides, padding,
                 data_format, name)


def average_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> torch.Tensor:
    """Average pooling over windows of `pool_size` on 3D inputs: returns the pooled tensor."""
    return _pool(AveragePooling3D, "average_pooling3d", inputs, pool_size, strides, padding,
                 data_format, name)


def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
            training: Any = False, name: str | None = None) -> torch.Tensor:
    """Applies dropout: with `training` true, sets a fraction `rate` of the inputs to 0 and
    scales the rest by 1 / (1 - rate); returns `inputs` unchanged otherwise (TF1's default
    `training=False`)."""
    config = dict(rate=rate, noise_shape=noise_shape, seed=seed)
    return _apply(Dropout, "dropout", inputs, name, None, None, config,
                  {"training": bool(training)})


def batch_normalization(inputs: Any, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                        center: bool = True, scale: bool = True, beta_initializer: Any = None,
                        gamma_initializer: Any = None, moving_mean_initializer: Any = None,
                        moving_variance_initializer: Any = None, beta_regularizer: Any = None,
                        gamma_regularizer: Any = None, beta_constraint: Any = None,
                        gamma_constraint: Any = None, training: Any = False, trainable: bool = True,
                        name: str | None = None, reuse: Any = None, renorm: bool = False,
                        renorm_clipping: Any = None, renorm_momentum: float = 0.99,
                        fused: Any = None, virtual_batch_size: Any = None,
                        adjustment: Any = None) -> torch.Tensor:
    """Batch normalization: with `training` true, normalizes by the batch's statistics and
    updates the moving mean and variance in place (TF1 put those updates in UPDATE_OPS);
    otherwise normalizes by the moving statistics (TF1's default `training=False`).
    Returns the normalized tensor."""
    if renorm or virtual_batch_size is not None or adjustment is not None:
        raise ValueError(
            "tf.compat.v1.layers.batch_normalization: renorm, virtual_batch_size and adjustment "
            "are not supported by torchestimator; remove them."
        )
    config = dict(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer if beta_initializer is not None else "zeros",
        gamma_initializer=gamma_initializer if gamma_initializer is not None else "ones",
        moving_mean_initializer=moving_mean_initializer if moving_mean_initializer is not None else "zeros",
        moving_variance_initializer=(moving_variance_initializer if moving_variance_initializer
                                     is not None else "ones"),
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, trainable=trainable,
        fused=fused,
    )
    first = "gamma" if scale else "beta" if center else "moving_mean"
    return _apply(BatchNormalization, "batch_normalization", inputs, name, reuse, first, config,
                  {"training": bool(training)})


def flatten(inputs: Any, name: str | None = None, data_format: str = "channels_last") -> torch.Tensor:
    """Flattens `inputs` to `(batch, -1)` keeping the batch axis: returns the flattened tensor."""
    return _apply(Flatten, "flatten", inputs, name, None, None, {"data_format": data_format})
