"""`tools/cuda_autocast.py`, the pytest plugin that makes the CPU's autocast cast as CUDA's does:
under it a float16 `softmax`, `sum` or loss computes in float32 (CUDA's float32 list), a
`mv` in float16 (CUDA's lower list), a call that names its own dtype is left alone, and nothing
changes while autocast is off. A mixed-precision Keras step still trains under it."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import torch

import torchestimator as tf

_SPEC = importlib.util.spec_from_file_location(
    "cuda_autocast", pathlib.Path(__file__).resolve().parents[2] / "tools" / "cuda_autocast.py")
cuda_autocast = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cuda_autocast)


def test_casts_as_cuda_autocast_does_while_the_cpu_autocast_is_on():
    half = torch.ones(4, dtype=torch.float16)
    with cuda_autocast.CudaAutocast():
        assert torch.softmax(half, 0).dtype is torch.float16  # autocast off: as it is
        with torch.autocast("cpu", dtype=torch.float16):
            assert torch.softmax(half, 0).dtype is torch.float32
            assert half.sum().dtype is torch.float32
            assert (half ** 2).dtype is torch.float32
            assert torch.nn.functional.mse_loss(half, half).dtype is torch.float32
            assert half.sum(dtype=torch.float16).dtype is torch.float16
            assert torch.mv(torch.ones(2, 4), torch.ones(4)).dtype is torch.float16
            assert (half + half).dtype is torch.float16  # in neither list
    with torch.autocast("cpu", dtype=torch.float16):  # without the plugin: the CPU's lists
        assert torch.softmax(half, 0).dtype is torch.float16
        assert torch.mv(torch.ones(2, 4), torch.ones(4)).dtype is torch.float32


def _cast_count() -> int:
    return sum(cuda_autocast.CAST.values())


def test_a_mixed_keras_step_trains_under_it():
    """On the CPU, where the plugin acts (a GPU run has CUDA's autocast itself)."""
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        with tf.device("/CPU:0"):
            tf.keras.utils.set_random_seed(0)
            model = tf.keras.Sequential([
                tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                tf.keras.layers.LayerNormalization(),
                tf.keras.layers.Dense(3),
                tf.keras.layers.Activation("softmax", dtype="float32")])
            model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
            x = np.random.default_rng(0).normal(size=(32, 4)).astype("float32")
            y = (x[:, 0] > 0).astype("int64")
            before = _cast_count()
            with cuda_autocast.CudaAutocast():
                history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
                out = model.predict(x, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
        assert out.dtype == np.float32
        assert _cast_count() > before  # the step's float16 reductions were cast as on CUDA
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")
