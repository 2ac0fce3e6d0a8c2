"""Keras weights are tf.Variables, and the `.numpy()` rule: a layer called at top level on numpy
inputs (no tape, no fit, no model_fn) records no autograd graph; torch tensors or a tape do."""

import copy

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

TEMPLATES = np.random.default_rng(42).random((10, 28, 28)).astype("float32")


def mnist_like(n=256, seed=0):
    """MNIST-shaped data: 28x28 images in [0, 1] of 10 classes (a template per class + noise)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, n)
    x = (0.5 * TEMPLATES[y] + 0.5 * rng.random((n, 28, 28))).astype("float32")
    return x, y


def quickstart_model():
    return tf.keras.models.Sequential([
        tf.keras.layers.Flatten(input_shape=(28, 28)),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(10),
    ])


# ------------------------------------------------------------------ TF's beginner quickstart
def test_beginner_quickstart_runs_unchanged():
    tf.keras.backend.clear_session()
    (x_train, y_train), (x_test, y_test) = mnist_like(512), mnist_like(128, seed=1)
    model = quickstart_model()
    predictions = model(x_train[:1]).numpy()
    assert predictions.shape == (1, 10)
    probs = tf.nn.softmax(predictions).numpy()
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-6)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    initial = loss_fn(y_train[:1], predictions).numpy()
    assert np.isfinite(initial) and 1.0 < initial < 4.0  # about -log(1/10) for a new model
    model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
    model.fit(x_train, y_train, epochs=5, verbose=0)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert accuracy > 0.8
    probability_model = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
    out = probability_model(x_test[:5])
    assert not out.requires_grad
    np.testing.assert_allclose(out.numpy().sum(axis=1), np.ones(5), rtol=1e-5)
    assert [w.name for w in model.weights] == [
        "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]


# ------------------------------------------------------------------ weights are tf.Variables
def test_add_weight_returns_named_variables():
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.Dense(3, name="dense")
    layer.build((None, 2))
    kernel, bias = layer.kernel, layer.bias
    assert isinstance(kernel, tf.Variable) and isinstance(kernel, torch.nn.Parameter)
    assert kernel.name == "dense/kernel:0" and bias.name == "dense/bias:0"
    assert kernel._keras_name == "dense/kernel" and kernel.trainable
    kernel.assign(np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(layer.get_weights()[0], np.ones((2, 3)))
    np.testing.assert_array_equal(kernel.numpy(), np.ones((2, 3)))
    assert list(layer.state_dict()) == ["kernel", "bias"]
    assert [p is w for p, w in zip(layer.parameters(), layer.weights)] == [True, True]


def test_non_trainable_weights_and_frozen_layers():
    bn = tf.keras.layers.BatchNormalization()
    bn.build((None, 4))
    moving = [w for w in bn.weights if "moving" in w.name]
    assert len(moving) == 2 and all(isinstance(w, tf.Variable) for w in moving)
    assert all(not w.requires_grad and not w.trainable for w in moving)
    dense = tf.keras.layers.Dense(2, trainable=False)
    dense.build((None, 3))
    assert not dense.kernel.requires_grad and dense.kernel.trainable  # the variable's own flag
    assert dense.trainable_weights == [] and len(dense.non_trainable_weights) == 2
    dense.trainable = True
    assert dense.kernel.requires_grad and len(dense.trainable_weights) == 2
    dense.trainable = False
    assert not dense.kernel.requires_grad


def test_raw_variables_assigned_in_a_custom_layer():
    class Scale(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.scale = tf.Variable(2.0, name="scale")
            self.offset = tf.Variable(0.5, name="offset", trainable=False)

        def call(self, x):
            return x * self.scale + self.offset

    layer = Scale()
    assert layer.trainable_weights == [layer.scale]
    assert layer.non_trainable_weights == [layer.offset]
    layer.trainable = False
    layer.trainable = True
    assert not layer.offset.requires_grad  # a non-trainable tf.Variable stays non-trainable


def test_model_copies_keep_variables():
    model = quickstart_model()
    model(np.zeros((1, 28, 28), "float32"))
    clone = copy.deepcopy(model)
    for original, copied in zip(model.weights, clone.weights):
        assert type(copied) is tf.Variable and copied.name == original.name
        assert copied._keras_name == original._keras_name and copied is not original
        np.testing.assert_array_equal(copied.numpy(), original.numpy())
    clone.layers[1].kernel.assign_add(1.0)
    assert not np.array_equal(clone.layers[1].kernel.numpy(), model.layers[1].kernel.numpy())


def test_state_dict_and_save_load_round_trip(tmp_path):
    model = quickstart_model()
    x = np.random.default_rng(0).random((4, 28, 28)).astype("float32")
    expected = model(x).numpy()
    other = quickstart_model()
    other(x)
    for source, target in zip(model.layers, other.layers):
        target.load_state_dict(source.state_dict())
    np.testing.assert_allclose(other(x).numpy(), expected, rtol=1e-6)
    assert all(type(w) is tf.Variable for w in other.weights)
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-6)
    assert all(isinstance(w, tf.Variable) for w in loaded.weights)


def test_kernel_constraint_is_applied_by_the_optimizer():
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(4, input_shape=(3,), kernel_constraint=tf.keras.constraints.NonNeg())])
    assert model.layers[0].kernel.constraint is not None
    x = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
    model.compile("sgd", "mse")
    model.fit(x, -np.ones((32, 4), "float32"), epochs=2, verbose=0)
    assert (model.layers[0].kernel.numpy() >= 0).all()


def test_clear_session_resets_layer_and_variable_names():
    tf.keras.backend.clear_session()
    first = [tf.keras.layers.Dense(1).name, tf.Variable(1.0).name]
    tf.keras.layers.Dense(1)
    tf.Variable(1.0)
    tf.keras.backend.clear_session()
    assert [tf.keras.layers.Dense(1).name, tf.Variable(1.0).name] == first == ["dense", "Variable:0"]


# ------------------------------------------------------------------ the .numpy() rule
@pytest.fixture
def model():
    m = quickstart_model()
    m(np.zeros((1, 28, 28), "float32"))
    return m


def test_numpy_inputs_at_top_level_record_nothing(model):
    x = np.ones((2, 28, 28), "float32")
    out = model(x)
    assert not out.requires_grad and out.grad_fn is None
    assert model.layers[1](x.reshape(2, -1)).numpy().shape == (2, 128)  # a single layer too
    assert torch.is_grad_enabled()  # autograd is on again after the call


def test_dicts_of_numpy_count_as_numpy():
    inputs = {"a": tf.keras.Input((2,), name="a"), "b": tf.keras.Input((1,), name="b")}
    merged = tf.keras.layers.Concatenate()([inputs["a"], inputs["b"]])
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(merged))
    numpy_dict = {"a": np.ones((3, 2), "float32"), "b": np.ones((3, 1), "float32")}
    assert not model(numpy_dict).requires_grad
    mixed = {"a": torch.ones(3, 2), "b": np.ones((3, 1), "float32")}
    assert model(mixed).requires_grad  # a torch tensor anywhere in the inputs: torch's rules


def test_torch_tensor_inputs_keep_autograd_and_a_torch_loop_trains(model):
    x, y = (torch.from_numpy(a) for a in mnist_like(64))
    out = model(x)  # on the weights' device (a GPU's): a torch loop moves its labels there
    y = y.to(out.device)
    assert out.requires_grad
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    first = None
    for _ in range(30):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x, training=True), y)
        loss.backward()
        optimizer.step()
        first = first if first is not None else loss.item()
    assert loss.item() < first / 2
    assert model.layers[1].kernel.grad is not None


def test_a_tape_over_numpy_inputs_records(model):
    x = np.ones((2, 28, 28), "float32")
    with tf.GradientTape() as tape:
        out = model(x)
        loss = out.sum()
    assert out.requires_grad
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)
    assert loss.numpy() == pytest.approx(float(model(x).sum()), rel=1e-5)


def test_nested_calls_and_model_fn_scope_keep_autograd():
    inner = tf.keras.layers.Dense(2)

    class Outer(tf.keras.layers.Layer):
        def call(self, x):
            return inner(np.ones((1, 3), "float32")) + x.sum()  # numpy, but inside a call

    out = Outer()(torch.ones(1, 1))
    assert out.requires_grad
    dense = tf.keras.layers.Dense(2)
    with ObjectScope():  # an Estimator's model_fn
        assert dense(np.ones((1, 3), "float32")).requires_grad
    with torch.no_grad():
        assert not dense(np.ones((1, 3), "float32")).requires_grad


def test_fit_still_trains_on_numpy(model):
    x, y = mnist_like(128)
    before = model.layers[1].kernel.numpy().copy()
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=2, verbose=0)
    assert not np.array_equal(before, model.layers[1].kernel.numpy())
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_custom_train_step_with_tape_on_numpy_batches():
    class Custom(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                pred = self(x, training=True)
                loss = self.compiled_loss(y, pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

    tf.keras.utils.set_random_seed(0)  # the initial weights (the threshold below depends on them)
    inputs = tf.keras.Input((4,))
    model = Custom(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse")
    x = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    history = model.fit(x, y, epochs=5, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 2
