"""`tf.compat.v1.layers`: TF1's layer functions (`dense`, `conv2d`, `max_pooling2d`, `dropout`,
`batch_normalization`, `flatten`, ...) and layer classes (the Keras layers).

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

import torch

from torchestimator._engine.object_scope import _plain_construct, _same_value
from torchestimator.compat.v1 import _variable_scope as _vs
from torchestimator.keras import layers as _layers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec

AveragePooling1D = _layers.AveragePooling1D
AveragePooling2D = _layers.AveragePooling2D
AveragePooling3D = _layers.AveragePooling3D
BatchNormalization = _layers.BatchNormalization
Conv1D = _layers.Conv1D
Conv2D = _layers.Conv2D
Conv2DTranspose = _layers.Conv2DTranspose
Conv3D = _layers.Conv3D
Conv3DTranspose = _layers.Conv3DTranspose
Dense = _layers.Dense
Dropout = _layers.Dropout
Flatten = _layers.Flatten
MaxPooling1D = _layers.MaxPooling1D
MaxPooling2D = _layers.MaxPooling2D
MaxPooling3D = _layers.MaxPooling3D
SeparableConv1D = _layers.SeparableConv1D
SeparableConv2D = _layers.SeparableConv2D

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
