"""The weight, bias and output shapes of an `EinsumDense` equation (Keras' einsum analysis)."""

from __future__ import annotations

import re
from typing import Any


def analyze_einsum(
    equation: str, bias_axes: str | None, input_shape: tuple, output_shape: Any
) -> tuple[list, list | None, list]:
    """Returns `(kernel_shape, bias_shape or None, full_output_shape)` for `equation`.

    Equations have the form `ab,bc->ac`, `...b,bc->...c` (left-elided) or
    `ab...,bc->ac...` (right-elided); raises ValueError naming the equation otherwise.
    """
    replaced = re.sub(r"\.\.\.", "0", equation)
    for pattern, left in (
        ("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
        ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
        ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False),
    ):
        match = re.match(pattern, replaced)
        if match:
            return _analyze_split(match, bias_axes, input_shape, output_shape, left)
    raise ValueError(
        f"Invalid einsum equation '{equation}'. Equations must be in the form "
        "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."
    )


def _analyze_split(
    match: re.Match, bias_axes: str | None, input_shape: tuple, output_shape: Any,
    left_elided: bool,
) -> tuple[list, list | None, list]:
    input_spec, weight_spec, output_spec = match.group(1), match.group(2), match.group(3)
    input_shape = tuple(input_shape)
    elided = len(input_shape) - len(input_spec)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        # the elided dimensions in their order (Keras 2.15 inserts them reversed, which only
        # its static shape shows; the tensor it computes has them in order)
        output_shape[1:1] = list(input_shape[1:elided])
    elif elided > 0:
        for i in range(len(input_shape) - elided, len(input_shape)):
            output_shape.append(input_shape[i])
    if left_elided:
        input_map = {d: (i + elided) - len(input_shape) for i, d in enumerate(input_spec)}
        output_map = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_map = {d: i for i, d in enumerate(input_spec)}
        output_map = {d: i for i, d in enumerate(output_spec)}
    for dim in input_spec:
        if dim in output_map:
            out = output_shape[output_map[dim]]
            if out is not None and out != input_shape[input_map[dim]]:
                raise ValueError(
                    f"Input shape and output shape do not match at shared dimension '{dim}'. "
                    f"Input shape is {input_shape[input_map[dim]]}, and output shape is {out}."
                )
            if out is None:  # an output dimension left open takes the input's size
                output_shape[output_map[dim]] = input_shape[input_map[dim]]
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            raise ValueError(
                f"Dimension '{dim}' was specified in the output '{output_spec}' but has no "
                f"corresponding dim in the input spec '{input_spec}' or weight spec "
                f"'{weight_spec}'"
            )
    weight_shape = []
    for dim in weight_spec:
        if dim in input_map:
            weight_shape.append(input_shape[input_map[dim]])
        elif dim in output_map:
            weight_shape.append(output_shape[output_map[dim]])
        else:
            raise ValueError(
                f"Weight dimension '{dim}' did not have a match in either the input spec "
                f"'{input_spec}' or the output spec '{output_spec}'. For this layer, the "
                "weight must be fully specified."
            )
    if bias_axes is None:
        return weight_shape, None, output_shape
    offset = elided if left_elided else 0
    sizes = {c: output_shape[i + offset] for i, c in enumerate(output_spec)}
    for char in bias_axes:
        if char not in output_spec:
            raise ValueError(
                f"Bias dimension '{char}' was requested, but is not part of the output spec "
                f"'{output_spec}'"
            )
    first = min(output_spec.find(c) for c in bias_axes)
    bias_shape = [sizes[c] if c in bias_axes else 1 for c in output_spec[first:]]
    if not left_elided:
        bias_shape += [1] * max(elided, 0)
    return weight_shape, bias_shape, output_shape
