"""`SpectralNormalization`: constrain a layer's kernel to spectral norm 1 (power iteration)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import initializers
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.rnn import _utils
from torchestimator.keras.layers.rnn.base_wrapper import Wrapper


class SpectralNormalization(Wrapper):
    """Performs spectral normalization on the weights of a target layer.

    This wrapper controls the Lipschitz constant of the weights of a layer by
    constraining their spectral norm, which can stabilize the training of GANs.
    In training (`training=True`) it runs `power_iterations` steps of the
    power method on the kernel reshaped to `(-1, kernel.shape[-1])`, stores the
    new `vector_u` and divides the wrapped layer's kernel by the estimated
    largest singular value (in place, as Keras assigns it), then calls the layer.

    Args:
        layer: A layer with a `kernel` (or `embeddings`) weight, e.g. `Conv2D`,
            `Dense`, `Embedding`.
        power_iterations: int, the number of iterations during normalization (>0).

    Weights: the wrapped layer's, then `vector_u` `(1, kernel.shape[-1])`
    (non-trainable, TruncatedNormal(stddev=0.02) initial values).
    """

    def __init__(self, layer: Any, power_iterations: int = 1, **kwargs: Any):
        super().__init__(layer, **kwargs)
        if isinstance(power_iterations, bool) or not isinstance(power_iterations, int) \
                or power_iterations <= 0:
            raise ValueError(
                "`power_iterations` should be greater than zero. Received: "
                f"`power_iterations={power_iterations}`"
            )
        self.power_iterations = power_iterations

    def _target(self) -> torch.Tensor:
        layer = self.layer
        if getattr(layer, "kernel", None) is not None:
            return layer.kernel
        if getattr(layer, "embeddings", None) is not None:
            return layer.embeddings
        raise ValueError(
            f"{type(layer).__name__} object has no attribute 'kernel' nor 'embeddings'; "
            "SpectralNormalization wraps layers with such a weight (Dense, Conv*, Embedding)."
        )

    @property
    def kernel(self) -> torch.Tensor:
        """The wrapped layer's kernel (or embeddings)."""
        return self._target()

    def build(self, input_shape: Any) -> None:
        """Builds the wrapped layer and creates `vector_u` `(1, kernel.shape[-1])`."""
        input_shape = tuple(input_shape)
        _utils.build_sublayer(self.layer, input_shape, getattr(self, "_build_device", None))
        self.input_spec = InputSpec(shape=(None,) + input_shape[1:])
        kernel = self._target()
        self.kernel_shape = list(kernel.shape)
        self.vector_u = self.add_weight(
            "vector_u",
            shape=(1, self.kernel_shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False,
            dtype=kernel.dtype,
        )
        self.built = True

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        """In training, normalizes the kernel first; returns the wrapped layer's output."""
        if training:
            self.normalize_weights()
        return self.layer(inputs)

    @torch.no_grad()
    def normalize_weights(self) -> None:
        """One normalization: power iteration for `vector_u`, then `kernel /= sigma`
        (skipped when the kernel is all zeros)."""
        kernel = self._target()
        weights = kernel.reshape(-1, self.kernel_shape[-1])
        if bool((weights == 0).all()):
            return
        vector_u = self.vector_u.to(weights.dtype)
        for _ in range(self.power_iterations):
            vector_v = _l2_normalize(vector_u @ weights.t())
            vector_u = _l2_normalize(vector_v @ weights)
        sigma = (vector_v @ weights) @ vector_u.t()
        self.vector_u.copy_(vector_u.to(self.vector_u.dtype))
        kernel.copy_((kernel / sigma).reshape(self.kernel_shape).to(kernel.dtype))

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns the wrapped layer's output shape."""
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        """Returns `power_iterations` and the serialized wrapped layer with the base config."""
        config = super().get_config()
        config["power_iterations"] = self.power_iterations
        return config


def _l2_normalize(x: torch.Tensor) -> torch.Tensor:
    """TF's `l2_normalize` over all elements: `x / sqrt(max(sum(x**2), 1e-12))`."""
    return x * torch.rsqrt(torch.clamp((x * x).sum(), min=1e-12))


