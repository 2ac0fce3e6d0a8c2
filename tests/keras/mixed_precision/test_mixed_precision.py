"""`tf.keras.mixed_precision`: policies, the global policy, and `LossScaleOptimizer` in `fit`,
in a custom loop and through `.keras` saving (on CPU: bfloat16 and float16 both compute here)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

mp = tf.keras.mixed_precision


@pytest.fixture(autouse=True)
def _reset_global_policy():
    yield
    mp.set_global_policy(None)


def _data(n=64, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 4).astype("float32")
    return x, (x @ np.array([1.0, -2.0, 0.5, 1.0], "float32"))[:, None]


def test_policy_names_and_dtypes():
    for name, compute, variable in [("mixed_float16", "float16", "float32"),
                                    ("mixed_bfloat16", "bfloat16", "float32"),
                                    ("float32", "float32", "float32"),
                                    ("float16", "float16", "float16")]:
        policy = mp.Policy(name)
        assert (policy.name, policy.compute_dtype, policy.variable_dtype) == (name, compute, variable)
        assert mp.Policy.from_config(policy.get_config()) == policy
    assert repr(mp.Policy("mixed_float16")) == '<Policy "mixed_float16">'
    with pytest.raises(ValueError, match="Cannot convert value 'mixed_int8' to a mixed precision Policy"):
        mp.Policy("mixed_int8")


def test_the_global_policy_applies_to_layers_made_after_it():
    assert mp.global_policy().name == "float32"
    mp.set_global_policy("mixed_bfloat16")
    assert mp.global_policy() == mp.Policy("mixed_bfloat16")
    dense = tf.keras.layers.Dense(3)
    out = dense(np.ones((2, 4), "float32"))
    assert dense.dtype_policy == "mixed_bfloat16" and dense.compute_dtype == "bfloat16"
    assert dense.kernel.dtype == torch.float32 and out.dtype == torch.bfloat16
    last = tf.keras.layers.Activation("linear", dtype="float32")  # the guide's float32 output
    assert last(out).dtype == torch.float32
    mp.set_global_policy(None)
    assert tf.keras.layers.Dense(1).dtype_policy == "float32"
    assert tf.keras.layers.Dense(1, dtype=mp.Policy("mixed_float16")).compute_dtype == "float16"


@pytest.mark.parametrize("policy", ["mixed_bfloat16", "mixed_float16"])
def test_a_mixed_model_trains_with_fit(policy):
    mp.set_global_policy(policy)
    tf.keras.utils.set_random_seed(0)
    inputs = tf.keras.Input(shape=(4,))
    h = tf.keras.layers.Dense(16, activation="relu")(inputs)
    outputs = tf.keras.layers.Activation("linear", dtype="float32")(tf.keras.layers.Dense(1)(h))
    model = tf.keras.Model(inputs, outputs)
    model.compile(tf.keras.optimizers.Adam(0.02), "mse")
    if policy == "mixed_float16":  # Keras wraps the optimizer for float16
        assert isinstance(model.optimizer, mp.LossScaleOptimizer)
        assert isinstance(model.optimizer.inner_optimizer, tf.keras.optimizers.Adam)
    else:
        assert isinstance(model.optimizer, tf.keras.optimizers.Adam)
    x, y = _data()
    history = model.fit(x, y, epochs=30, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]
    assert all(w.dtype == torch.float32 for w in model.weights)
    assert model.predict(x, verbose=0).dtype == np.float32


def test_dynamic_loss_scale_skips_non_finite_steps_and_grows():
    var = tf.Variable([1.0, 2.0])
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), dynamic_growth_steps=2)
    assert float(opt.loss_scale) == 2.0 ** 15 and opt.dynamic

    def step(loss_fn):
        with tf.GradientTape() as tape:
            scaled = opt.get_scaled_loss(loss_fn())
        grads = opt.get_unscaled_gradients(tape.gradient(scaled, [var]))
        opt.apply_gradients(zip(grads, [var]))

    step(lambda: tf.reduce_sum(var * var))  # gradient 2 * var, unscaled exactly
    np.testing.assert_allclose(var.numpy(), [0.8, 1.6], rtol=1e-6)
    assert float(opt.loss_scale) == 2.0 ** 15 and opt.dynamic_counter == 1
    step(lambda: tf.reduce_sum(var * var))
    assert float(opt.loss_scale) == 2.0 ** 16 and opt.dynamic_counter == 0  # two finite steps
    before = var.numpy().copy()
    step(lambda: tf.reduce_sum(var * float("inf")))  # not finite: skipped, scale halves
    np.testing.assert_array_equal(var.numpy(), before)
    assert float(opt.loss_scale) == 2.0 ** 15 and opt.dynamic_counter == 0


def test_fit_skips_a_step_whose_scaled_gradients_overflow_in_float16():
    mp.set_global_policy("mixed_float16")
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
    # float16's largest value is 65504: the first scaled float16 gradients overflow.
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01), initial_scale=2.0 ** 40)
    model.compile(opt, "mse")
    x, y = _data(16)
    before = [w.numpy().copy() for w in model.weights]
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    for w, b in zip(model.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)  # the step was skipped
    assert float(opt.loss_scale) == 2.0 ** 39
    for _ in range(30):  # halves until the gradients fit, then trains
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert float(opt.loss_scale) < 2.0 ** 20
    assert any(not np.array_equal(w.numpy(), b) for w, b in zip(model.weights, before))


def test_fixed_scale_and_argument_errors():
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=False, initial_scale=128)
    assert float(opt.loss_scale) == 128 and opt.dynamic_counter is None
    with pytest.raises(ValueError, match='"initial_scale" must be specified if "dynamic" is False'):
        mp.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=False)
    with pytest.raises(TypeError, match="must be a Keras optimizer"):
        mp.LossScaleOptimizer("sgd")
    with pytest.raises(TypeError, match="cannot wrap another LossScaleOptimizer"):
        mp.LossScaleOptimizer(opt)


def test_learning_rate_reaches_the_inner_optimizer_and_the_config_round_trips():
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.01), initial_scale=64,
                                dynamic_growth_steps=10)
    opt.learning_rate = 0.5
    assert float(opt.inner_optimizer.learning_rate) == 0.5
    again = tf.keras.optimizers.deserialize(tf.keras.optimizers.serialize(opt))
    assert isinstance(again, mp.LossScaleOptimizer)
    assert isinstance(again.inner_optimizer, tf.keras.optimizers.Adam)
    assert (again.initial_scale, again.dynamic_growth_steps) == (64, 10)
    assert float(again.inner_optimizer.learning_rate) == 0.5


def test_a_mixed_float16_model_saves_and_loads_with_its_optimizer(tmp_path):
    mp.set_global_policy("mixed_float16")
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4,)),
                                 tf.keras.layers.Activation("linear", dtype="float32")])
    model.compile("adam", "mse")
    x, y = _data(16)
    model.fit(x, np.repeat(y, 2, axis=1), verbose=0)
    model.save(tmp_path / "m.keras")
    mp.set_global_policy(None)
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert loaded.layers[0].dtype_policy == "mixed_float16"
    assert loaded.layers[0].compute_dtype == "float16"
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-3)


def test_step_unscales_gradients_of_every_dtype_and_skips_on_one_non_finite_value():
    """`step` (fit's path) unscales all gradients in fused kernels, one per device and dtype, and
    reads one verdict back; a NaN in any group skips the update and halves the scale."""
    from torchestimator.keras.mixed_precision._loss_scale_optimizer import _unscaled_all_finite

    grads = [torch.full((2,), 8.0), torch.full((3,), 4.0, dtype=torch.float16), torch.full((1,), 2.0)]
    assert _unscaled_all_finite(grads, 4.0) is True
    assert [g.tolist() for g in grads] == [[2.0, 2.0], [1.0, 1.0, 1.0], [0.5]]
    assert _unscaled_all_finite([torch.ones(2), torch.tensor([1.0, float("nan")], dtype=torch.float16)], 2.0) is False
    assert _unscaled_all_finite([], 2.0) is True

    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0])
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0), initial_scale=4)
    opt.build([a, b])
    a.grad, b.grad = torch.tensor([4.0, 8.0]), torch.tensor([float("nan")])
    opt.step()
    assert a.numpy().tolist() == [1.0, 2.0] and float(opt.loss_scale) == 2  # skipped, halved
    a.grad, b.grad = torch.tensor([4.0, 8.0]), torch.tensor([2.0])
    opt.step()
    assert a.numpy().tolist() == [-1.0, -2.0] and b.numpy().tolist() == [2.0]
