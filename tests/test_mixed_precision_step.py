"""Issue 28: a mixed policy runs the forward pass of `fit`/`evaluate`/`predict` under
`torch.autocast` for the step's device (the CPU here): an op the layers do not cast themselves
computes in the compute dtype, float32 layers stay float32, the weights stay float32, and the
result matches float32 training within tolerance."""

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
    """`inputs @ self.w` on the float32 weight, with no cast of its own (TF reads a mixed
    layer's weights in the compute dtype; here only autocast makes the dtypes meet)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(int(input_shape[-1]), self.units), initializer="glorot_uniform")

    def call(self, inputs):
        out = torch.matmul(inputs, self.w)
        SEEN.setdefault(self.name, set()).add(out.dtype)
        return out


class RecordingDense(tf.keras.layers.Dense):
    def call(self, inputs):
        out = super().call(inputs)
        SEEN.setdefault(self.name, set()).add(out.dtype)
        return out


def _model():
    inputs = tf.keras.Input(shape=(6,))
    x = tf.keras.layers.Dense(16, activation="relu", name="hidden")(inputs)
    x = MatMul(8, name="matmul")(x)
    outputs = RecordingDense(1, dtype="float32", name="out")(x)  # TF's guide: a float32 last layer
    return tf.keras.Model(inputs, outputs)


def _data(n=256):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 6)).astype(np.float32)
    return x, (x @ rng.normal(size=(6, 1))).astype(np.float32)


def _train(policy, weights=None, epochs=5):
    mp.set_global_policy(policy)
    model = _model()
    if weights is not None:
        model.set_weights(weights)
    start = model.get_weights()
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    x, y = _data()
    history = model.fit(x, y, batch_size=32, epochs=epochs, verbose=0, shuffle=False)
    return model, start, history.history["loss"]


def test_mixed_bfloat16_fit_runs_the_forward_under_autocast_and_matches_float32():
    ref, weights, ref_loss = _train("float32")
    assert SEEN["matmul"] == {torch.float32}
    SEEN.clear()
    model, _, loss = _train("mixed_bfloat16", weights)
    assert SEEN["matmul"] == {torch.bfloat16}  # the forward computed in bfloat16 inside the step
    assert SEEN["out"] == {torch.float32}  # the float32 layer ran with autocast off
    assert all(w.dtype == torch.float32 for w in model.weights)  # variables stay float32
    assert isinstance(model.optimizer, tf.keras.optimizers.SGD)  # no loss scaling for bfloat16
    assert loss[-1] < 0.5 * loss[0]
    np.testing.assert_allclose(loss, ref_loss, rtol=0.1, atol=0.02)
    x, y = _data(64)
    np.testing.assert_allclose(model.predict(x, verbose=0), ref.predict(x, verbose=0), rtol=0.1, atol=0.1)


def test_evaluate_and_predict_run_under_autocast_and_leave_no_trace():
    mp.set_global_policy("mixed_bfloat16")
    model = _model()
    model.compile("sgd", "mse")
    x, y = _data(64)
    SEEN.clear()
    loss = model.evaluate(x, y, verbose=0)
    assert SEEN["matmul"] == {torch.bfloat16} and SEEN["out"] == {torch.float32}
    assert np.isfinite(loss)
    out = model.predict(x, verbose=0)
    assert out.dtype == np.float32 and out.shape == (64, 1)
    # after the calls: no autocast left on, no hook left on the float32 layer
    assert not torch.is_autocast_enabled("cpu")
    assert not model.get_layer("out")._forward_pre_hooks and not model.get_layer("out")._forward_hooks
    assert model._step_autocast is None
    with pytest.raises(RuntimeError):  # outside a step the weights meet bfloat16 inputs uncast
        model.get_layer("matmul")(torch.ones(2, 16, dtype=torch.bfloat16))


@pytest.mark.skipif(not precision.autocast_supported("cpu", torch.float16),
                    reason="this torch has no float16 autocast on the CPU")
def test_mixed_float16_fit_on_cpu_autocasts_to_float16_with_loss_scaling():
    model, _, loss = _train("mixed_float16", epochs=4)
    assert isinstance(model.optimizer, mp.LossScaleOptimizer)  # compile wrapped it, float16 only
    assert SEEN["matmul"] == {torch.float16} and SEEN["out"] == {torch.float32}
    assert all(w.dtype == torch.float32 for w in model.weights)
    assert loss[-1] < loss[0]


def test_float32_policy_never_autocasts():
    _train("float32", epochs=1)
    assert SEEN["matmul"] == {torch.float32}


def test_a_failing_forward_leaves_autocast_off_and_the_hooks_removed():
    mp.set_global_policy("mixed_bfloat16")
    model = _model()
    model.compile("sgd", "mse")
    x, y = _data(32)
    with pytest.raises(ValueError):
        model.fit(x[:, :5], y, verbose=0)  # the wrong feature count: the first layer raises
    assert not torch.is_autocast_enabled("cpu")
    assert not model.get_layer("out")._forward_pre_hooks
    assert model._step_autocast is None
    model.fit(x, y, verbose=0)  # and the model trains afterwards
    assert SEEN["matmul"] == {torch.bfloat16}


def test_precision_exempt_restores_autocast_after_an_error_inside_the_module():
    layer = torch.nn.Linear(3, 3)
    calls = []

    def boom(module, args, output):
        calls.append(torch.is_autocast_enabled("cpu"))
        raise RuntimeError("boom")

    handle = layer.register_forward_hook(boom)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with pytest.raises(RuntimeError, match="boom"):
            with precision.precision_exempt([layer], "cpu"):
                layer(torch.ones(1, 3))
        assert torch.is_autocast_enabled("cpu")  # the block gave the step its autocast back
    handle.remove()
    assert calls == [False]  # inside the module autocast was off
    assert not layer._forward_pre_hooks


@pytest.mark.skipif(not precision.autocast_supported("cpu", torch.float16),
                    reason="this torch has no float16 autocast on the CPU")
def test_mixed_float16_with_a_torch_optimizer_scales_the_loss_with_a_grad_scaler():
    mp.set_global_policy("mixed_float16")
    model = _model()
    model.build((None, 6))
    model.compile(torch.optim.SGD(model.parameters(), lr=0.05), "mse")
    x, y = _data()
    history = model.fit(x, y, batch_size=32, epochs=4, verbose=0, shuffle=False)
    device_type, scaler, _ = model._grad_scaler
    assert device_type == "cpu" and scaler.get_scale() > 1.0  # the loss was scaled
    assert SEEN["matmul"] == {torch.float16}
    assert all(w.dtype == torch.float32 for w in model.weights)
    # each applied step went through the wrapper's step; a first one whose float16 gradients
    # overflow at the initial scale 2**16 is skipped (and the scale halved), as GradScaler does
    assert 4 * 8 - 4 <= model.optimizer.iterations <= 4 * 8
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_a_non_finite_gradient_skips_the_torch_optimizer_step_and_shrinks_the_scale():
    mp.set_global_policy("mixed_float16")
    model = _model()
    model.build((None, 6))
    model.compile(torch.optim.SGD(model.parameters(), lr=0.05), "mse")
    x, y = _data(32)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    _, scaler, _ = model._grad_scaler
    scale = scaler.get_scale()
    before = [w.detach().clone() for w in model.weights]
    y[0] = np.inf  # an infinite loss: infinite gradients
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert scaler.get_scale() < scale
    assert all(torch.equal(b, w.detach()) for b, w in zip(before, model.weights))  # no update


def test_float32_and_bfloat16_take_no_grad_scaler():
    for policy in ("float32", "mixed_bfloat16"):
        mp.set_global_policy(policy)
        model = _model()
        model.build((None, 6))
        model.compile(torch.optim.SGD(model.parameters(), lr=0.05), "mse")
        x, y = _data(32)
        model.fit(x, y, verbose=0)
        assert model._grad_scaler is None


def test_the_on_batch_methods_run_under_the_policys_autocast():
    mp.set_global_policy("mixed_bfloat16")
    model = _model()
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    x, y = _data(32)
    model.train_on_batch(x, y)
    model.test_on_batch(x, y)
    out = model.predict_on_batch(x)
    assert SEEN["matmul"] == {torch.bfloat16}  # without autocast: a dtype error
    assert SEEN["out"] == {torch.float32} and out.dtype == np.float32
    assert all(w.dtype == np.float32 for w in model.get_weights())
