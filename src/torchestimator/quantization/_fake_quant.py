"""TF's fake-quantization kernels (`fake_quant_ops_functor.h`) and quantize-and-dequantize
(`quantize_and_dequantize_op.h`) on torch, with TF's nudged ranges, rounding and gradients."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator._refused import refused_module
from torchestimator.errors import InvalidArgumentError


def _float_input(value: Any, what: str) -> torch.Tensor:
    tensor = convert_to_tensor(value, dtype_hint=torch.float32)
    if tensor.dtype != torch.float32:
        raise TypeError(f"{what}: inputs must be float32, got {tensor.dtype}.")
    return tensor


def _check_bits(num_bits: int, what: str) -> None:
    if not 2 <= num_bits <= 16:
        raise InvalidArgumentError(None, None, f"{what}: num_bits must be between 2 and 16, inclusive, got {num_bits}")


def _nudge(min_v: torch.Tensor, max_v: torch.Tensor, num_bits: int, narrow_range: bool
           ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """TF's `Nudge`: (nudged_min, nudged_max, scale) so that zero is exactly representable."""
    quant_min = 1.0 if narrow_range else 0.0
    quant_max = float((1 << num_bits) - 1)
    scale = (max_v - min_v) / (quant_max - quant_min)
    zero_point_from_min = quant_min - min_v / scale
    nudged_zero_point = torch.clamp(torch.floor(zero_point_from_min + 0.5), quant_min, quant_max)  # std::round
    nudged_min = (quant_min - nudged_zero_point) * scale
    nudged_max = (quant_max - nudged_zero_point) * scale
    return nudged_min, nudged_max, scale


def _fake_quant(x: torch.Tensor, nudged_min: torch.Tensor, nudged_max: torch.Tensor,
                scale: torch.Tensor) -> torch.Tensor:
    clamped = torch.minimum(torch.maximum(x, nudged_min), nudged_max)
    return torch.floor((clamped - nudged_min) * (1.0 / scale) + 0.5) * scale + nudged_min


class _FakeQuant(torch.autograd.Function):
    """Fake quantization whose gradient passes where the input is inside the nudged range
    (and, for variable ranges, reaches min/max from the inputs below/above it)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, min_v: torch.Tensor, max_v: torch.Tensor, num_bits: int,
                narrow_range: bool, channel_axis: bool) -> torch.Tensor:
        nudged_min, nudged_max, scale = _nudge(min_v, max_v, num_bits, narrow_range)
        ctx.save_for_backward(x, nudged_min, nudged_max)
        ctx.channel_axis = channel_axis
        return _fake_quant(x, nudged_min, nudged_max, scale)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        x, nudged_min, nudged_max = ctx.saved_tensors
        inside = (x >= nudged_min) & (x <= nudged_max)
        zero = torch.zeros_like(grad)
        dx = torch.where(inside, grad, zero)
        below, above = torch.where(x < nudged_min, grad, zero), torch.where(x > nudged_max, grad, zero)
        if ctx.channel_axis:
            dims = tuple(range(grad.dim() - 1))
            dmin, dmax = below.sum(dim=dims), above.sum(dim=dims)
        else:
            dmin, dmax = below.sum(), above.sum()
        return dx, dmin, dmax, None, None, None


def fake_quant_with_min_max_args(inputs: Any, min: float = -6, max: float = 6, num_bits: int = 8,
                                 narrow_range: bool = False, name: str | None = None) -> torch.Tensor:
    """Fake-quantize the 'inputs' tensor, type float to 'outputs' tensor of same type (TF's
    `tf.quantization.fake_quant_with_min_max_args`): values clamped to the nudged [min, max] and
    rounded to one of 2^num_bits levels (2^num_bits - 1 with `narrow_range`)."""
    _check_bits(num_bits, "FakeQuantWithMinMaxArgs")
    if min >= max:
        raise InvalidArgumentError(None, None, f"min has to be smaller than max, was: {min} >= {max}")
    x = _float_input(inputs, "fake_quant_with_min_max_args")
    return _FakeQuant.apply(x, torch.tensor(float(min)), torch.tensor(float(max)), num_bits, narrow_range, False)


def fake_quant_with_min_max_args_gradient(gradients: Any, inputs: Any, min: float = -6, max: float = 6,
                                          num_bits: int = 8, narrow_range: bool = False,
                                          name: str | None = None) -> torch.Tensor:
    """Compute gradients for a FakeQuantWithMinMaxArgs operation: `gradients` where `inputs` is
    inside the nudged range, else 0."""
    _check_bits(num_bits, "FakeQuantWithMinMaxArgsGradient")
    x = _float_input(inputs, "fake_quant_with_min_max_args_gradient")
    g = _float_input(gradients, "fake_quant_with_min_max_args_gradient")
    nudged_min, nudged_max, _ = _nudge(torch.tensor(float(min)), torch.tensor(float(max)), num_bits, narrow_range)
    return torch.where((x >= nudged_min) & (x <= nudged_max), g, torch.zeros_like(g))


def fake_quant_with_min_max_vars(inputs: Any, min: Any, max: Any, num_bits: int = 8, narrow_range: bool = False,
                                 name: str | None = None) -> torch.Tensor:
    """Fake-quantize the 'inputs' tensor of type float via global float scalars `min` and `max`
    (TF's `tf.quantization.fake_quant_with_min_max_vars`); gradients reach `min` and `max`."""
    _check_bits(num_bits, "FakeQuantWithMinMaxVars")
    x = _float_input(inputs, "fake_quant_with_min_max_vars")
    return _FakeQuant.apply(x, _float_input(min, "min").reshape(()), _float_input(max, "max").reshape(()),
                            num_bits, narrow_range, False)


def fake_quant_with_min_max_vars_gradient(gradients: Any, inputs: Any, min: Any, max: Any, num_bits: int = 8,
                                          narrow_range: bool = False, name: str | None = None) -> tuple:
    """Compute gradients for a FakeQuantWithMinMaxVars operation: `(backprops_wrt_input,
    backprop_wrt_min, backprop_wrt_max)`."""
    return _vars_gradient(gradients, inputs, min, max, num_bits, narrow_range, False)


def fake_quant_with_min_max_vars_per_channel(inputs: Any, min: Any, max: Any, num_bits: int = 8,
                                             narrow_range: bool = False, name: str | None = None) -> torch.Tensor:
    """Fake-quantize the 'inputs' tensor of type float per channel (the last dimension) with
    one of shapes `[d]` of `min` and `max` (TF's `fake_quant_with_min_max_vars_per_channel`)."""
    _check_bits(num_bits, "FakeQuantWithMinMaxVarsPerChannel")
    x = _float_input(inputs, "fake_quant_with_min_max_vars_per_channel")
    min_t, max_t = _float_input(min, "min"), _float_input(max, "max")
    if min_t.dim() != 1 or min_t.shape[0] != x.shape[-1] or max_t.shape != min_t.shape:
        raise InvalidArgumentError(None, None, f"min and max must be vectors of the inputs' last dimension "
                                               f"({x.shape[-1]}), got {list(min_t.shape)} and {list(max_t.shape)}")
    return _FakeQuant.apply(x, min_t, max_t, num_bits, narrow_range, True)


def fake_quant_with_min_max_vars_per_channel_gradient(gradients: Any, inputs: Any, min: Any, max: Any,
                                                      num_bits: int = 8, narrow_range: bool = False,
                                                      name: str | None = None) -> tuple:
    """Compute gradients for a FakeQuantWithMinMaxVarsPerChannel operation: `(backprops_wrt_input,
    backprop_wrt_min, backprop_wrt_max)`, the last two per channel."""
    return _vars_gradient(gradients, inputs, min, max, num_bits, narrow_range, True)


def _vars_gradient(gradients: Any, inputs: Any, min: Any, max: Any, num_bits: int, narrow_range: bool,
                   per_channel: bool) -> tuple:
    _check_bits(num_bits, "FakeQuantWithMinMaxVarsGradient")
    x = _float_input(inputs, "inputs").detach().requires_grad_(True)
    min_t = _float_input(min, "min").detach().clone().requires_grad_(True)
    max_t = _float_input(max, "max").detach().clone().requires_grad_(True)
    g = _float_input(gradients, "gradients")
    with torch.enable_grad():
        out = _FakeQuant.apply(x, min_t if per_channel else min_t.reshape(()),
                               max_t if per_channel else max_t.reshape(()), num_bits, narrow_range, per_channel)
        dx, dmin, dmax = torch.autograd.grad(out, (x, min_t, max_t), g)
    return dx, dmin, dmax


def _quantization_range(min_range: torch.Tensor, max_range: torch.Tensor, signed_input: bool, num_bits: int,
                        narrow_range: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """TF's `ComputeQuantizationRange`: (min_range, max_range, scale, inverse scale), keeping the
    side of the range that determines the scale."""
    if signed_input:
        min_q = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        max_q = (1 << (num_bits - 1)) - 1
    else:
        min_q, max_q = 0, (1 << num_bits) - 1
    big = torch.finfo(min_range.dtype).max
    from_min = torch.where(min_q * min_range > 0, min_q / min_range, torch.full_like(min_range, big))
    from_max = torch.where(max_q * max_range > 0, max_q / max_range, torch.full_like(max_range, big))
    use_min = from_min < from_max
    scale = torch.where(use_min, from_min, from_max)
    inverse = torch.where(use_min, min_range / min_q if min_q else min_range, max_range / max_q)
    new_max = torch.where(use_min, max_q * inverse, max_range)
    new_min = torch.where(use_min, min_range, min_q * inverse)
    return new_min, new_max, scale, inverse


def _quantize_and_dequantize(input: Any, input_min: Any, input_max: Any, signed_input: bool, num_bits: int,
                             range_given: bool, round_mode: str, narrow_range: bool, axis: int | None,
                             masked_gradient: bool) -> torch.Tensor:
    x = convert_to_tensor(input, dtype_hint=torch.float32)
    if not x.is_floating_point():
        raise TypeError(f"quantize_and_dequantize: input must be a floating tensor, got {x.dtype}.")
    if round_mode not in ("HALF_TO_EVEN", "HALF_UP"):
        raise ValueError(f"round_mode must be 'HALF_TO_EVEN' or 'HALF_UP', got {round_mode!r}.")
    if axis is not None and axis < 0:
        axis += x.dim()
    moved = x if axis is None else x.movedim(axis, -1)
    if range_given:
        min_r = convert_to_tensor(input_min, dtype_hint=x.dtype).to(x.dtype)
        max_r = convert_to_tensor(input_max, dtype_hint=x.dtype).to(x.dtype)
        if bool((min_r > max_r).any()):
            raise InvalidArgumentError(None, None, f"Invalid range: input_min {min_r.tolist()} > input_max "
                                                   f"{max_r.tolist()}")
    elif axis is None:
        min_r, max_r = x.detach().min(), x.detach().max()
    else:
        flat = moved.detach().reshape(-1, moved.shape[-1])
        min_r, max_r = flat.min(dim=0).values, flat.max(dim=0).values
    new_min, new_max, scale, inverse = _quantization_range(min_r, max_r, signed_input, num_bits, narrow_range)
    clamped = torch.minimum(torch.maximum(moved, new_min), new_max)
    scaled = clamped * scale
    rounded = torch.round(scaled) if round_mode == "HALF_TO_EVEN" else torch.floor(scaled + 0.5)
    out = rounded * inverse
    out = out if axis is None else out.movedim(-1, axis)
    # straight-through gradient (masked to [input_min, input_max] for the v2 (V4 kernel) one, as TF's)
    passthrough = x
    if masked_gradient:
        inside = (moved >= min_r) & (moved <= max_r)  # the given range (TF's V4 gradient)
        inside = inside if axis is None else inside.movedim(-1, axis)
        passthrough = torch.where(inside, x, x.detach())
    return passthrough + (out - passthrough).detach()


def quantize_and_dequantize(input: Any, input_min: Any, input_max: Any, signed_input: bool = True,
                            num_bits: int = 8, range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                            name: str | None = None, narrow_range: bool = False, axis: int | None = None) -> Any:
    """Quantizes then dequantizes a tensor (TF's `tf.quantization.quantize_and_dequantize`): the
    range is `[input_min, input_max]` when `range_given`, else the input's (per slice of
    `axis`); the gradient passes straight through."""
    return _quantize_and_dequantize(input, input_min, input_max, signed_input, num_bits, range_given, round_mode,
                                    narrow_range, axis, masked_gradient=False)


def quantize_and_dequantize_v2(input: Any, input_min: Any, input_max: Any, signed_input: bool = True,
                               num_bits: int = 8, range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                               name: str | None = None, narrow_range: bool = False, axis: int | None = None) -> Any:
    """Quantizes then dequantizes a tensor (TF's `quantize_and_dequantize_v2`, the V4 kernel): as
    `quantize_and_dequantize`, with the gradient zero outside the quantization range."""
    return _quantize_and_dequantize(input, input_min, input_max, signed_input, num_bits, range_given, round_mode,
                                    narrow_range, axis, masked_gradient=True)


_QUANTIZER = ("TF's SavedModel quantizer converts TF graphs (for TFLite and TF serving): quantize the PyTorch "
              "model with torch.ao.quantization, or train with tf.quantization.fake_quant_* ops")
experimental = refused_module("tf.quantization.experimental", "TF's SavedModel quantizer (refused).", {
    name: _QUANTIZER for name in ("QuantizationComponentSpec", "QuantizationMethod", "QuantizationOptions",
                                  "TfRecordRepresentativeDatasetSaver", "UnitWiseQuantizationSpec",
                                  "quantize_saved_model")})
