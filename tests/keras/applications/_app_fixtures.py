"""Loading the TF-recorded fixtures and planting their deterministic weights in our models."""

from __future__ import annotations

import functools
import json
import os

import numpy as np
from _planted_weights import fixed_input, planted_values

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
H5_TOP = os.path.join(FIXTURES, "mobilenet_v2_035_96_c10.h5")


@functools.lru_cache(maxsize=1)
def tf_values() -> dict:
    """tools/make_tf_applications_fixtures.py's recording (TF 2.15)."""
    with open(os.path.join(FIXTURES, "tf_applications.json"), encoding="utf-8") as f:
        return json.load(f)


def build(key: str):
    """Our model for the recorded configuration `key` (weights=None, fresh layer names)."""
    import torchestimator as tf

    spec = tf_values()["parity"][key]
    tf.keras.backend.clear_session()
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in spec["kwargs"].items()}
    return getattr(tf.keras.applications, spec["function"])(weights=None, **kwargs)


def plant(model, key: str) -> None:
    """Sets the planted weights, checking each layer's weight shapes against TF's."""
    layers = {name: weights for name, _, weights in tf_values()["parity"][key]["layers"]}
    for layer in model.layers:
        spec = [(w, tuple(s)) for w, s in layers[layer.name]]
        assert [tuple(w.shape) for w in layer.weights] == [s for _, s in spec], layer.name
        if spec:
            layer.set_weights(planted_values(layer.name, spec))


def model_input(model, key: str | None = None) -> np.ndarray:
    """The fixed input batch (2 images) recorded with TF for `key` (values in [-1, 1], or
    [0, 255] where the recording says `input_scale`)."""
    x = fixed_input((2,) + tuple(model.input_shape[1:]))
    scale = tf_values()["parity"][key].get("input_scale", 0.0) if key else 0.0
    return x * scale + scale if scale else x
