"""`LocallyConnected2D`: a 2D convolution with unshared weights."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.locally_connected._base import LocallyConnected


class LocallyConnected2D(LocallyConnected):
    """Locally-connected layer for 2D inputs.

    Works like `Conv2D` except that the weights are unshared: a different set
    of filters is applied at each position of the input.

    Args:
        filters: Integer, the dimensionality of the output space.
        kernel_size: An integer or tuple of 2 integers, the height and width of the window.
        strides: An integer or tuple of 2 integers, the strides of the convolution.
        padding: "valid" or "same" ("same" only with `implementation` 2 or 3).
        data_format: 'channels_last' (default, `(batch, rows, cols, channels)`) or 'channels_first'.
        activation: Activation function (None: linear).
        use_bias: Boolean, whether the layer uses a bias (one per output position and filter).
        kernel_initializer / bias_initializer: Initializers ('glorot_uniform', 'zeros').
        kernel_regularizer / bias_regularizer / activity_regularizer: Regularizers.
        kernel_constraint / bias_constraint: Constraints.
        implementation: 1 (a kernel per output position: best for small inputs with
            large kernels), 2 (a dense masked kernel) or 3 (only the connected entries
            of that kernel). The three hold the same function in different weight layouts.

    Returns (when called): a 2D-spatial tensor with `filters` channels.
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        implementation: int = 1,
        **kwargs: Any,
    ):
        super().__init__(
            rank=2, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, implementation=implementation, **kwargs,
        )
