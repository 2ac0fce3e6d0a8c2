"""Deterministic weights for the parity fixtures, shared by the tests and by
tools/make_tf_applications_fixtures.py (which sets the same values in TF 2.15's models).

Each layer's weights are drawn from a generator seeded by the layer's name, shaped by the
recorded weight shapes and scaled by the weight's kind (kernel, bias, gamma, beta, moving
mean, moving variance), so a model whose layers are named and shaped as Keras' gets the same
values without any weight file."""

from __future__ import annotations

import zlib

import numpy as np


def _kind(weight_name: str) -> str:
    base = weight_name.rsplit("/", 1)[-1].split(":")[0]
    return base


def planted_values(layer_name: str, weights: list[tuple[str, tuple[int, ...]]]) -> list[np.ndarray]:
    """The values for one layer: `weights` is [(TF weight name, shape), ...] in Keras' order."""
    rng = np.random.RandomState(zlib.crc32(layer_name.encode()) % (2 ** 31))
    values = []
    for name, shape in weights:
        kind = _kind(name)
        shape = tuple(shape)
        if kind == "count":  # Normalization's sample count
            value = np.full(shape, 100.0)
        elif kind in ("moving_variance", "variance"):
            value = rng.uniform(0.5, 1.5, shape)
        elif kind == "gamma":
            value = rng.uniform(0.6, 1.1, shape)
        elif kind in ("beta", "moving_mean", "bias", "mean"):
            value = rng.normal(0.0, 0.1, shape)
        else:  # kernels: He scale (variance-preserving after ReLU) over all but the output axis
            fan_in = max(1, int(np.prod(shape[:-1])))
            if kind == "depthwise_kernel":
                fan_in = max(1, int(np.prod(shape[:2])))
            value = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape)
        values.append(value.astype("float32"))
    return values


def fixed_input(shape: tuple[int, ...], seed: int = 1) -> np.ndarray:
    """The fixed input batch fed to both models."""
    return np.random.RandomState(seed).uniform(-1.0, 1.0, shape).astype("float32")
