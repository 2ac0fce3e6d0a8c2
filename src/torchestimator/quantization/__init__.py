"""`tf.quantization`: fake quantization (`fake_quant_with_min_max_args`, `..._vars`,
`..._vars_per_channel` and their gradients) and `quantize_and_dequantize` /
`quantize_and_dequantize_v2`, as TF 2.15's kernels compute them (float in, float out, for
quantization-aware training). TF's SavedModel quantizer (`experimental`) is refused by name."""

from __future__ import annotations

from torchestimator.quantization._fake_quant import (
    experimental,
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
)

__all__ = [
    "experimental", "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel", "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize_and_dequantize", "quantize_and_dequantize_v2",
]
