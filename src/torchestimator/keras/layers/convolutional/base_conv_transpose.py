"""`ConvTranspose`: the N-D transposed convolution behind Conv1DTranspose and Conv3DTranspose
(TF's output sizes, Keras' `kernel_size + (filters, in_channels)` kernel layout)."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import deconv_output_length, normalize_tuple
from torchestimator.keras.layers.convolutional.base_conv import Conv

_CONV_TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


class ConvTranspose(Conv):
    """Abstract N-D transposed convolution (private, used as implementation base).

    The output is TF's: the full transposed convolution (length `(n - 1) *
    stride + dilated_kernel`) read from half the total 'same' padding, for
    `deconv_output_length` positions. Subclasses set `rank` and may ignore the
    dilation (`_uses_dilation = False`, as Keras' Conv3DTranspose does).
    """

    _uses_dilation = True

    def __init__(self, rank: int, filters: int, kernel_size: Any, output_padding: Any = None,
                 **kwargs: Any):
        groups = kwargs.pop("groups", 1)
        if groups not in (1, None):
            raise ValueError(
                f"{type(self).__name__} does not support groups; received groups={groups!r}. "
                "Use groups=1."
            )
        super().__init__(rank=rank, filters=filters, kernel_size=kernel_size, groups=1, **kwargs)
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = normalize_tuple(
                output_padding, rank, "output_padding", allow_zero=True
            )
            for stride, pad in zip(self.strides, self.output_padding):
                if pad >= stride:
                    raise ValueError(
                        "Strides must be greater than output padding. Received strides="
                        f"{self.strides}, output_padding={self.output_padding}."
                    )

    def _dilation(self) -> tuple:
        return self.dilation_rate if self._uses_dilation else (1,) * self.rank

    def build(self, input_shape: Any) -> None:
        """Creates `kernel` (kernel_size + (filters, in_channels)) and `bias` (filters,)."""
        input_shape = tuple(input_shape)
        ndim = self.rank + 2
        if len(input_shape) != ndim:
            raise ValueError(
                f"Inputs should have rank {ndim}. Received input_shape={input_shape}."
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
        self.input_spec = InputSpec(ndim=ndim, axes={self._layout.channel_axis: channels})
        self.built = True

    def _plan(self, spatial: tuple) -> tuple:
        """(padding, output_padding, output sizes to crop to or None) for torch's
        conv_transpose: torch crops `padding` from both ends and appends
        `output_padding`; when that is one too long (odd total padding) the extra
        position is sliced off."""
        cached = self._pad_cache.get(spatial)
        if cached is not None:
            return cached
        pads, extras, outs, crop = [], [], [], False
        out_pad = self.output_padding or (None,) * self.rank
        for n, k, s, d, op in zip(spatial, self.kernel_size, self.strides, self._dilation(),
                                  out_pad):
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
        """The kernel in torch's (in, out, *kernel_size) layout (a view)."""
        r = self.rank
        return self.kernel.permute((r + 1, r) + tuple(range(r)))

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(conv_transpose(inputs, kernel) + bias)` with TF's output size."""
        layout = self._layout
        x = inputs.permute(layout.to_torch) if layout.channels_last else inputs
        padding, output_padding, crop = self._plan(tuple(x.shape[2:]))
        weight, bias = self._torch_kernel(), self.bias
        if x.dtype != weight.dtype:
            x, weight, bias = self._match_dtypes(x, weight, bias)
        y = _CONV_TRANSPOSE[self.rank](
            x, weight, bias, self.strides, padding, output_padding, 1, self._dilation()
        )
        if crop is not None:
            y = y[(slice(None), slice(None)) + tuple(slice(0, n) for n in crop)]
        if layout.channels_last:
            y = y.permute(layout.from_torch)
        act = self._act
        return y if act is None else act(y)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns the output shape by TF's rule (`padding="same"`: `input * strides`)."""
        input_shape = tuple(input_shape)
        out_pad = self.output_padding or (None,) * self.rank
        spatial = tuple(
            deconv_output_length(n, k, self.padding, op, s, d)
            for n, k, s, d, op in zip(
                self._layout.spatial(input_shape), self.kernel_size, self.strides,
                self._dilation(), out_pad,
            )
        )
        return self._layout.with_spatial(input_shape, spatial, self.filters)

    def get_config(self) -> dict:
        """Returns the layer's arguments (with `output_padding`) and the base config."""
        config = super().get_config()
        config["output_padding"] = self.output_padding
        return config
