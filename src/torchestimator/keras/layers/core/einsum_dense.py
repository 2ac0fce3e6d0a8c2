"""`EinsumDense`: a dense layer of arbitrary dimensionality given by an einsum equation."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import activations, constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.core._einsum_shapes import analyze_einsum


class EinsumDense(Layer):
    """A layer that uses `einsum` as the backing computation.

    This layer can perform einsum calculations of arbitrary dimensionality:
    `output = activation(einsum(equation, inputs, kernel) + bias)`.

    Args:
        equation: An equation describing the einsum to perform, of the form
            `ab,bc->ac`, `...b,bc->...c` or `ab...,bc->ac...`, where `ab`, `bc`
            and `ac` can be any valid einsum axis expression sequence.
        output_shape: The expected shape of the output tensor (excluding the
            batch dimension and any dimensions represented by ellipses); None
            for an unknown or input-given dimension. An int for a 1D output.
        activation: Activation function (None: linear).
        bias_axes: A string of the output axes that get a bias (None: no bias).
        kernel_initializer / bias_initializer: Initializers ('glorot_uniform', 'zeros').
        kernel_regularizer / bias_regularizer / activity_regularizer: Regularizers.
        kernel_constraint / bias_constraint: Constraints.

    Returns (when called): a tensor of shape `(batch,) + output_shape` (with the
    elided dimensions).
    """

    def __init__(
        self,
        equation: str,
        output_shape: Any,
        activation: Any = None,
        bias_axes: str | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(equation, str):
            raise ValueError(
                f"EinsumDense `equation` must be a string such as 'ab,bc->ac'. Received: "
                f"equation={equation!r}"
            )
        self.equation = equation
        if isinstance(output_shape, int):
            self.partial_output_shape = [output_shape]
        else:
            self.partial_output_shape = list(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.full_output_shape: list | None = None

    def build(self, input_shape: Any) -> None:
        """Creates `kernel` and (with `bias_axes`) `bias` of the shapes the equation implies."""
        kernel_shape, bias_shape, self.full_output_shape = analyze_einsum(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape
        )
        if any(d is None for d in kernel_shape):
            raise ValueError(
                f'Layer "{self.name}": the kernel shape {kernel_shape} of equation '
                f"'{self.equation}' has an unknown dimension for input shape "
                f"{tuple(input_shape)}; define those input dimensions or output_shape entries."
            )
        self.kernel = self.add_weight(
            "kernel",
            shape=tuple(kernel_shape),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
        )
        if bias_shape is not None:
            self.bias = self.add_weight(
                "bias",
                shape=tuple(bias_shape),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                trainable=True,
            )
        else:
            self.bias = None
        self.built = True

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(einsum(equation, inputs, kernel) + bias)`."""
        kernel, bias = self.kernel, self.bias
        if self._compute_dtype != self._variable_dtype:
            kernel = kernel.to(self._compute_dtype)
            bias = None if bias is None else bias.to(self._compute_dtype)
        if inputs.dtype != kernel.dtype:
            inputs = inputs.to(kernel.dtype)
        y = torch.einsum(self.equation, inputs, kernel)
        if bias is not None:
            y = y + bias
        if self.activation is not None:
            y = self.activation(y)
        return y

    def compute_output_shape(self, _: Any) -> tuple:
        """Returns `(batch,) + output_shape` with the elided dimensions of the input shape `_`
        (TF's name for it)."""
        input_shape = _
        *_unused, full = analyze_einsum(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape
        )
        return tuple(full)

    def get_config(self) -> dict:
        """Returns the layer's arguments with the base layer's config."""
        config = super().get_config()
        config.update(
            {
                "output_shape": self.partial_output_shape,
                "equation": self.equation,
                "activation": activations.serialize(self.activation),
                "bias_axes": self.bias_axes,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
            }
        )
        return config
