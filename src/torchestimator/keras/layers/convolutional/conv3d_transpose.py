"""`Conv3DTranspose`: the transposed 3D convolution (sometimes called deconvolution)."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.convolutional.base_conv_transpose import ConvTranspose


class Conv3DTranspose(ConvTranspose):
    """Transposed convolution layer (sometimes called Deconvolution), 3D.

    Goes in the opposite direction of a normal convolution, over volumes. The
    output sizes follow TensorFlow's rule (`padding="same"` gives `input *
    strides`). The kernel has Keras' layout `kernel_size + (filters, in_channels)`.

    Args:
        filters: Integer, the number of output filters.
        kernel_size: An integer or tuple of 3 integers, the size of the window.
        strides: An integer or tuple of 3 integers, the strides of the convolution.
        padding: "valid" or "same".
        output_padding: An integer or tuple of 3 integers, the amount of padding
            along each spatial dimension of the output (each lower than its
            stride). None: the output shape is inferred.
        data_format: 'channels_last' (default, `(batch, depth, rows, cols,
            channels)`) or 'channels_first'.
        dilation_rate: Accepted for compatibility; as in Keras 2.15 the
            transposed 3D convolution is computed without dilation and the
            argument is not part of `get_config()`.
        activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, bias_constraint: as for `Conv3D`.

    Returns (when called): a 5D tensor `(batch, new_depth, new_rows, new_cols,
    filters)` (channels_last).
    """

    _uses_dilation = False

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1, 1),
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1, 1),
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
            rank=3, filters=filters, kernel_size=kernel_size, output_padding=output_padding,
            strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, **kwargs,
        )

    def get_config(self) -> dict:
        """Returns the layer's arguments (Keras 2.15 leaves out `dilation_rate`)."""
        config = super().get_config()
        config.pop("dilation_rate", None)
        return config


Convolution3DTranspose = Conv3DTranspose
