"""Issue 28: under a mixed policy a model's own top-level call runs under autocast when none is
on yet, as in TF, where the layers' compute dtype applies whoever calls them: a subclassed
model whose `train_step` calls `self(x, training=True)` itself, and a custom training loop.
A layer's `inputs @ self.w` on its float32 weight then computes in bfloat16, and the
`dtype='float32'` last layer still computes and outputs float32 (on the CPU here)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import precision

mp = tf.keras.mixed_precision
SEEN: dict[str, set] = {}


@pytest.fixture(autouse=True)
def _reset():
    SEEN.clear()
    yield
    mp.set_global_policy(None)


class MatMul(tf.keras.layers.Layer):
    """`inputs @ self.w` on the float32 weight, with no cast of its own."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(int(input_shape[-1]), self.units), initializer="glorot_uniform")

    def call(self, inputs):
        out = inputs @ self.w
        SEEN.setdefault(self.name, set()).add(out.dtype)
        return out


class RecordingDense(tf.keras.layers.Dense):
    def call(self, inputs):
        out = super().call(inputs)
        SEEN.setdefault(self.name, set()).add(out.dtype)
        return out


class CustomStepModel(tf.keras.Model):
    """TF's "customize what happens in fit" model: its `train_step` calls `self(x)` itself."""

    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(16, activation="relu", name="hidden")
        self.matmul = MatMul(8, name="matmul")
        self.out = RecordingDense(1, dtype="float32", name="out")  # TF's guide: a float32 last layer
        self.outputs_seen: set = set()

    def call(self, inputs, training=None):
        return self.out(self.matmul(self.hidden(inputs)))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            self.outputs_seen.add(y_pred.dtype)
            loss = self.compute_loss(x, y, y_pred)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        return {"loss": loss}


def _data(n=128):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 6)).astype(np.float32)
    return x, (x @ rng.normal(size=(6, 1))).astype(np.float32)


def test_custom_train_step_calling_self_runs_under_autocast():
    mp.set_global_policy("mixed_bfloat16")
    model = CustomStepModel()
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    x, y = _data()
    history = model.fit(x, y, batch_size=32, epochs=4, verbose=0, shuffle=False)
    assert SEEN["matmul"] == {torch.bfloat16}  # the user's `self(x)` computed in bfloat16
    assert SEEN["out"] == {torch.float32}  # the float32 last layer: autocast off inside it
    assert model.outputs_seen == {torch.float32}
    assert all(w.dtype == torch.float32 for w in model.weights)  # variables stay float32
    loss = history.history["loss"]
    assert np.isfinite(loss).all() and loss[-1] < loss[0]
    assert not torch.is_autocast_enabled("cpu")  # nothing left on after fit
    assert model._step_autocast is None


def test_custom_training_loop_call_runs_under_autocast_and_leaves_no_trace():
    mp.set_global_policy("mixed_bfloat16")
    model = CustomStepModel()
    optimizer = tf.keras.optimizers.SGD(0.05)
    x, y = _data(32)
    x, y = tf.constant(x), tf.constant(y)  # TF's data: where the model's weights are (a GPU's)
    losses = []
    for _ in range(3):
        with tf.GradientTape() as tape:
            out = model(x, training=True)
            loss = tf.reduce_mean(tf.square(out - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        losses.append(float(loss))
        assert out.dtype == torch.float32
    assert SEEN["matmul"] == {torch.bfloat16} and SEEN["out"] == {torch.float32}
    assert losses[-1] < losses[0]
    assert not torch.is_autocast_enabled("cpu")
    assert not model.out._forward_pre_hooks and not model.out._forward_hooks  # the exemption ended


def test_an_open_autocast_is_kept_and_float32_models_never_autocast():
    mp.set_global_policy("mixed_bfloat16")
    model = CustomStepModel()
    x = tf.constant(_data(4)[0])
    kind = x.device.type  # the caller's autocast is the one of the device the model runs on
    if not precision.autocast_supported(kind, torch.float16):
        pytest.skip(f"torch has no float16 autocast for {kind}")
    with torch.autocast(kind, dtype=torch.float16):  # the caller's: not replaced
        model(x)
    assert SEEN["matmul"] == {torch.float16}
    SEEN.clear()
    mp.set_global_policy("float32")
    plain = CustomStepModel()
    assert plain(x).dtype == torch.float32 and SEEN["matmul"] == {torch.float32}
    with pytest.raises(RuntimeError):  # a plain layer's own call: its casts only, as before
        MatMul(2, dtype="mixed_bfloat16")(torch.ones(2, 3, dtype=torch.bfloat16))
