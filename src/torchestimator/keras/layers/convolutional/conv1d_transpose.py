"""`Conv1DTranspose`: the transposed 1D convolution (sometimes called deconvolution)."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.convolutional.base_conv_transpose import ConvTranspose


class Conv1DTranspose(ConvTranspose):
    """Transposed convolution layer (sometimes called Deconvolution), 1D.

    Goes in the opposite direction of a normal convolution: from something
    that has the shape of a convolution's output to something that has the
    shape of its input. The output length follows TensorFlow's rule
    (`padding="same"` gives `length * strides`). The kernel has Keras' layout
    `(kernel_size, filters, in_channels)`.

    Args:
        filters: Integer, the number of output filters.
        kernel_size: An integer or tuple of 1 integer, the length of the window.
        strides: An integer or tuple of 1 integer, the stride of the convolution.
        padding: "valid" or "same".
        output_padding: An integer or tuple of 1 integer, the amount of padding
            along the time dimension of the output; must be lower than the stride.
            None: the output length is inferred.
        data_format: 'channels_last' (default, `(batch, steps, channels)`) or
            'channels_first'.
        dilation_rate: An integer, the dilation rate.
        activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, bias_constraint: as for `Conv1D`.

    Returns (when called): a 3D tensor `(batch, new_steps, filters)` (channels_last).
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(
            rank=1, filters=filters, kernel_size=kernel_size, output_padding=output_padding,
            strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, **kwargs,
        )


Convolution1DTranspose = Conv1DTranspose
