"""Issue 28: TF's mixed-precision guide, step by step, on the CPU (and on CUDA when there is one):
the global policy, per-layer `dtype=` policies, a float32 last layer, `LossScaleOptimizer`'s
defaults and attributes, and `mixed_bfloat16` training."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.mixed_precision._autocast import step_autocast

mp = tf.keras.mixed_precision


@pytest.fixture(autouse=True)
def _reset_global_policy():
    yield
    mp.set_global_policy("float32")


def _guide_model(units=16):
    inputs = tf.keras.Input(shape=(8,), name="digits")
    x = tf.keras.layers.Dense(units, activation="relu", name="dense_1")(inputs)
    x = tf.keras.layers.Dense(units, activation="relu", name="dense_2")(x)
    x = tf.keras.layers.Dense(3, name="dense_logits")(x)
    outputs = tf.keras.layers.Activation("softmax", dtype="float32", name="predictions")(x)
    return tf.keras.Model(inputs=inputs, outputs=outputs)


def _policy_name(layer) -> str:
    # TF's `layer.dtype_policy` is a Policy; here it may still be its name (base_layer)
    policy = layer.dtype_policy
    return getattr(policy, "name", policy)


def _data(n=128):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 8)).astype(np.float32)
    return x, (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 1).astype(np.int64)


@pytest.mark.parametrize("name,compute", [("mixed_float16", torch.float16),
                                          ("mixed_bfloat16", torch.bfloat16)])
def test_guide_model_dtypes(name, compute):
    mp.set_global_policy(name)
    assert mp.global_policy().compute_dtype == str(compute).replace("torch.", "")
    assert mp.global_policy().variable_dtype == "float32"
    model = _guide_model()
    dense = model.get_layer("dense_1")
    assert _policy_name(dense) == name and dense.compute_dtype == mp.global_policy().compute_dtype
    assert dense.kernel.dtype == torch.float32  # variables stay float32
    x, _ = _data(4)
    assert dense(torch.from_numpy(x)).dtype == compute
    assert model.get_layer("dense_logits")(dense(torch.from_numpy(x))).dtype == compute
    assert model(x).dtype == torch.float32  # the float32 last layer


def test_layer_dtype_policy_overrides_the_global_one():
    mp.set_global_policy("mixed_bfloat16")
    layer = tf.keras.layers.Dense(2, dtype="float32")
    assert _policy_name(layer) == "float32" and layer.compute_dtype == "float32"
    layer = tf.keras.layers.Dense(2, dtype=mp.Policy("mixed_float16"))
    assert layer.compute_dtype == "float16" and layer.variable_dtype == "float32"


def test_loss_scale_optimizer_tf_defaults_and_attributes():
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
    assert opt.dynamic and opt.initial_scale == 2.0 ** 15 and opt.dynamic_growth_steps == 2000
    assert float(opt.loss_scale) == 2.0 ** 15 and int(opt.dynamic_counter) == 0
    var = tf.Variable([1.0, 2.0])
    loss = torch.sum(var * 3.0)
    scaled = opt.get_scaled_loss(loss)
    assert float(scaled.detach()) == pytest.approx(float(loss.detach()) * 2 ** 15)
    grads = opt.get_unscaled_gradients([torch.full((2,), 3.0 * 2 ** 15)])
    assert grads[0].tolist() == [3.0, 3.0]
    fixed = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=False, initial_scale=128)
    assert not fixed.dynamic and float(fixed.loss_scale) == 128 and fixed.dynamic_growth_steps is None


def test_loss_scale_halves_on_overflow_and_counts_good_steps():
    var = tf.Variable([1.0])
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), initial_scale=8, dynamic_growth_steps=2)
    opt.apply_gradients([(torch.tensor([float("inf")]), var)])
    assert float(opt.loss_scale) == 4 and var.numpy().tolist() == [1.0]  # skipped, halved
    opt.apply_gradients([(torch.tensor([1.0]), var)])
    assert int(opt.dynamic_counter) == 1
    opt.apply_gradients([(torch.tensor([1.0]), var)])
    assert float(opt.loss_scale) == 8 and int(opt.dynamic_counter) == 0  # doubled after 2


@pytest.mark.parametrize("name", ["mixed_bfloat16", "mixed_float16"])
def test_fit_trains_under_a_mixed_policy_on_cpu(name):
    mp.set_global_policy(name)
    model = _guide_model(32)
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
    if name == "mixed_float16":
        assert isinstance(model.optimizer, mp.LossScaleOptimizer)  # compile wraps it, as TF's
    x, y = _data(256)
    history = model.fit(x, y, batch_size=32, epochs=4, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.predict(x[:4], verbose=0).dtype == np.float32


def test_step_autocast_on_every_device_with_an_autocast_under_a_mixed_policy():
    context = step_autocast("cpu", mp.Policy("mixed_bfloat16"))
    assert isinstance(context, torch.autocast) and context.fast_dtype == torch.bfloat16
    assert not isinstance(step_autocast("cpu", mp.Policy("float32")), torch.autocast)
    assert not isinstance(step_autocast("cpu", mp.Policy("float16")), torch.autocast)  # no float32 variables
    assert not isinstance(step_autocast("meta", mp.Policy("mixed_bfloat16")), torch.autocast)  # none there
    if torch.cuda.is_available():
        context = step_autocast("cuda", mp.Policy("mixed_bfloat16"))
        assert isinstance(context, torch.autocast) and context.fast_dtype == torch.bfloat16


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_fit_on_cuda_under_mixed_float16(monkeypatch):
    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "cuda")
    mp.set_global_policy("mixed_float16")
    model = _guide_model(32)
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy")
    x, y = _data(256)
    history = model.fit(x, y, batch_size=32, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    with step_autocast("cuda"):
        out = torch.nn.functional.linear(torch.ones(2, 4, device="cuda"), torch.ones(3, 4, device="cuda"))
    assert out.dtype == torch.float16
