"""`Conv2DTranspose`: the transposed 2D convolution (sometimes called deconvolution)."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import deconv_output_length, normalize_tuple
from torchestimator.keras.layers.convolutional.base_conv import Conv


class Conv2DTranspose(Conv):
    """Transposed convolution layer (sometimes called Deconvolution).

    Goes in the opposite direction of a normal convolution: from something
    that has the shape of a convolution's output to something that has the
    shape of its input, keeping a compatible connectivity pattern. The output
    size follows TensorFlow's rule (`padding="same"` gives `input * strides`).
    The kernel has Keras' layout `kernel_size + (filters, in_channels)`.

    Args:
        filters: Integer, the number of output filters.
        kernel_size: An integer or tuple of 2 integers, the size of the window.
        strides: An integer or tuple of 2 integers, the strides of the convolution.
        padding: "valid" or "same".
        output_padding: An integer or tuple of 2 integers, the amount of padding
            along the height and width of the output; each must be lower than
            the stride along that dimension. None: the output shape is inferred.
        data_format: 'channels_last' (default, inputs `(batch, rows, cols,
            channels)`) or 'channels_first'.
        dilation_rate: An integer or tuple of 2 integers, the dilation rate.
        activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, bias_constraint: as for `Conv2D`.

    Returns (when called): a 4D tensor `(batch, new_rows, new_cols, filters)`
    (channels_last).
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
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
        groups = kwargs.pop("groups", 1)
        if groups not in (1, None):
            raise ValueError(
                f"Conv2DTranspose does not support groups; received groups={groups!r}. Use "
                "groups=1."
            )
        super().__init__(
            rank=2, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, groups=1,
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs,
        )
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = normalize_tuple(
                output_padding, 2, "output_padding", allow_zero=True
            )
            for stride, pad in zip(self.strides, self.output_padding):
                if pad >= stride:
                    raise ValueError(
                        f"Strides {self.strides} must be greater than output padding "
                        f"{self.output_padding}. Received strides={self.strides}, "
                        f"output_padding={self.output_padding}."
                    )

    def build(self, input_shape: Any) -> None:
        """Creates `kernel` (kernel_size + (filters, in_channels)) and `bias` (filters,)."""

        input_shape = tuple(input_shape)
        if len(input_shape) != 4:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim=4, found ndim={len(input_shape)}. Full shape received: {input_shape}"
            )
        channels = self._input_channel(input_shape)
        self.kernel = self.add_weight(
            "kernel",
            shape=self.kernel_size + (self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
        )
        self._add_bias(self.filters)
        self.input_spec = InputSpec(ndim=4, axes={self._layout.channel_axis: channels})
        self.built = True

    def _plan(self, spatial: tuple) -> tuple:
        """(padding, output_padding, crop-or-None) for torch's conv_transpose2d.

        TF's output is the full transposed convolution (length `(n - 1) * s + k_eff`)
        read from offset `before` (0 for 'valid'; half the total SAME padding of the
        matching forward convolution) for `out` positions. torch crops `padding` from
        both ends and appends `output_padding`; when that would be one too long (an
        odd total padding), the extra position is sliced off.
        """
        cached = self._pad_cache.get(spatial)
        if cached is not None:
            return cached
        pads, extras, outs, crop = [], [], [], False
        out_pad = self.output_padding or (None, None)
        for n, k, s, d, op in zip(
            spatial, self.kernel_size, self.strides, self.dilation_rate, out_pad
        ):
            out = deconv_output_length(n, k, self.padding, op, s, d)
            full = (n - 1) * s + (k - 1) * d + 1
            before = 0 if self.padding == "valid" else max(full - out, 0) // 2
            extra = out - (full - 2 * before)
            pads.append(before)
            extras.append(max(extra, 0))
            outs.append(out)
            crop = crop or extra < 0
        result = (tuple(pads), tuple(extras), tuple(outs) if crop else None)
        self._pad_cache[spatial] = result
        return result

    def _torch_kernel(self) -> torch.Tensor:
        """The kernel in torch's (in, out, kh, kw) layout (a view)."""
        return self.kernel.permute(3, 2, 0, 1)

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(conv_transpose(inputs, kernel) + bias)` with TF's output size."""
        layout = self._layout
        x = inputs.permute(layout.to_torch) if layout.channels_last else inputs
        padding, output_padding, crop = self._plan(tuple(x.shape[2:]))
        weight, bias = self._torch_kernel(), self.bias
        if x.dtype != weight.dtype:
            x, weight, bias = self._match_dtypes(x, weight, bias)
        y = F.conv_transpose2d(
            x, weight, bias, self.strides, padding, output_padding, 1, self.dilation_rate
        )
        if crop is not None:
            y = y[:, :, : crop[0], : crop[1]]
        if layout.channels_last:
            y = y.permute(layout.from_torch)
        act = self._act
        return y if act is None else act(y)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns `(batch, new_rows, new_cols, filters)` (channels_last) by TF's rule."""
        input_shape = tuple(input_shape)
        out_pad = self.output_padding or (None, None)
        spatial = tuple(
            deconv_output_length(n, k, self.padding, op, s, d)
            for n, k, s, d, op in zip(
                self._layout.spatial(input_shape), self.kernel_size, self.strides,
                self.dilation_rate, out_pad,
            )
        )
        return self._layout.with_spatial(input_shape, spatial, self.filters)

    def get_config(self) -> dict:
        """Returns the layer's arguments (with `output_padding`) and the base config."""
        config = super().get_config()
        config["output_padding"] = self.output_padding
        return config


Convolution2DTranspose = Conv2DTranspose
