"""TensorFlow's placement on a CPU-only machine: every path runs with a second device (`lazy:0`,
tests/_harness/device_leaks.py) as the default device, so a tensor the library leaves on the CPU
fails here as it would on a GPU; weights, slots, metric state and tables are checked to be there.
Plain CPU checks: `tf.device('/CPU:0')` scopes creation; `.numpy()`/`np.asarray`/`float`/`int`/
`bool` of device tensors and variables read a host copy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import assert_on_device, available, off_device, on_leak_device

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

_X = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
_Y = (_X[:, :1] > 0).astype(np.int64)


_S = np.array([["a"], ["b"], ["c"], ["z"]] * 4)


def _input_fn(batch: int = 8):
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": _X, "s": _S}, _Y)).repeat().batch(batch)

    return input_fn


def _estimator_variables(est) -> dict:
    return dict(est._state.named_variables())


def _check_estimator(est, device) -> None:
    assert_on_device(_estimator_variables(est), device, "variables")
    for i, optimizer in enumerate(est._state.optimizers()):
        assert_on_device(optimizer, device, f"optimizer{i}")
    for i, metric in enumerate(est._state.metrics()):
        assert_on_device(metric, device, f"metric{i}")


# ------------------------------------------------------------------ premade estimators
@pytest.mark.parametrize("kind", ["dnn", "linear"])
def test_premade_classifier_steps_on_the_default_device(kind, tmp_path):
    fc = tf.feature_column
    words = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"])  # read on the host
    numeric = fc.numeric_column("x", shape=(3,))
    config = tf.estimator.RunConfig(tf_random_seed=1)
    with on_leak_device() as device:
        if kind == "dnn":
            est = tf.estimator.DNNClassifier([4], [numeric, fc.embedding_column(words, 2)],
                                             model_dir=str(tmp_path), config=config)
        else:
            est = tf.estimator.LinearClassifier([numeric, words], model_dir=str(tmp_path),
                                                config=config)
        est.train(_input_fn(), steps=2)
        metrics = est.evaluate(_input_fn(), steps=1)
        _check_estimator(est, device)
        predictions = next(iter(est.predict(_input_fn())))
    assert 0.0 <= float(metrics["accuracy"]) <= 1.0
    assert isinstance(predictions["probabilities"], np.ndarray)
    assert int(est.get_variable_value("global_step")) == 2


# ------------------------------------------------------------------ a TF1 custom model_fn
def _tf1_model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", shape=[3, 4])
    hidden = tf.nn.relu(tf.matmul(features["x"], w))
    logits = tf.compat.v1.layers.dense(hidden, 2, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    optimizer = tf.compat.v1.train.AdagradOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_tf1_model_fn_with_get_variable_layers_and_minimize(tmp_path):
    with on_leak_device() as device:
        est = tf.estimator.Estimator(_tf1_model_fn, model_dir=str(tmp_path),
                                     config=tf.estimator.RunConfig(tf_random_seed=2))
        est.train(_input_fn(), steps=2)
        _check_estimator(est, device)
        names = est.get_variable_names()
        assert "w" in names and "logits/kernel" in names and "w/Adagrad" in names, names
        metrics = est.evaluate(_input_fn(), steps=1)
    assert 0.0 <= float(metrics["accuracy"]) <= 1.0
    assert isinstance(est.get_variable_value("w"), np.ndarray)


def test_keras_optimizer_minimize_in_a_model_fn(tmp_path):
    def model_fn(features, labels, mode):  # the custom-estimator guide's shape
        model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"),
                                     tf.keras.layers.Dense(2, name="out")], name="net")
        logits = model(features["x"])
        loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(
            labels, logits, from_logits=True))
        train_op = tf.keras.optimizers.Adam(0.01).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    with on_leak_device() as device:
        est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
        before = None
        est.train(_input_fn(), steps=1)
        before = est.get_variable_value("out/kernel")
        est.train(_input_fn(), steps=2)
        _check_estimator(est, device)
    assert not np.array_equal(before, est.get_variable_value("out/kernel"))


def test_tf1_variables_and_layers_outside_a_model_fn():
    with on_leak_device() as device:
        with tf.compat.v1.variable_scope("outside_model_fn"):
            v = tf.compat.v1.get_variable("v", shape=[2, 3])
        layer = tf.compat.v1.layers.Dense(3, name="outside_dense")
        out = layer(tf.transpose(v))
    assert v.device.type == device.type
    assert_on_device(layer, device, "outside_dense")
    assert out.device.type == device.type


# ------------------------------------------------------------------ Keras
def test_keras_sequential_fit_with_a_metric():
    with on_leak_device() as device:
        model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model.compile(tf.keras.optimizers.Adam(0.01),
                      tf.keras.losses.BinaryCrossentropy(from_logits=True),
                      metrics=["accuracy", tf.keras.metrics.AUC(name="auc", from_logits=True)])
        history = model.fit(_X, _Y.astype(np.float32), batch_size=8, epochs=1, verbose=0)
        assert_on_device(model, device, "model")
        assert_on_device(model.optimizer, device, "optimizer")
        for metric in model.metrics:
            assert_on_device(metric.variables, device, metric.name)
        # numpy input after fit runs where the weights are (TF copies it to the device)
        out = model(_X[:2])
        assert out.device.type == device.type
    assert np.isfinite(history.history["loss"][0])
    assert out.numpy().shape == (2, 1)


def test_keras_layer_and_variable_created_outside_any_loop_use_the_default_device():
    with on_leak_device() as device:
        v = tf.Variable(np.ones(3, np.float32))
        layer = tf.keras.layers.Dense(2)
        layer.build((None, 3))
        optimizer = tf.keras.optimizers.SGD(0.1, momentum=0.9)
        optimizer.build(layer.trainable_variables)
        counter = optimizer.add_variable((), name="counter")
        metric = tf.keras.metrics.Mean()
    assert v.device.type == device.type
    assert_on_device(layer, device, "dense")
    assert_on_device(optimizer, device, "optimizer")
    assert counter.device.type == device.type
    assert_on_device(metric.variables, device, "mean")


# ------------------------------------------------------------------ feature columns
def test_feature_column_input_layer_with_tables_on_the_default_device(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\nc\n")
    fc = tf.feature_column
    by_list = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"])
    by_file = fc.categorical_column_with_vocabulary_file("s", str(vocab))
    hashed = fc.categorical_column_with_hash_bucket("h", 7)
    crossed = fc.crossed_column([by_list, "h"], 11)
    columns = [
        fc.numeric_column("n"),
        fc.indicator_column(by_list),
        fc.embedding_column(by_file, 3),
        fc.embedding_column(crossed, 2),
        fc.indicator_column(hashed),
    ]
    features = {
        "n": np.array([[1.0], [2.0]], np.float32),
        "s": np.array([["a"], ["z"]]),
        "h": np.array([["x"], ["y"]]),
    }
    with on_leak_device() as device:  # host features only: the tables decide the device
        out = tf.compat.v1.feature_column.input_layer(features, columns)
        layer = tf.keras.layers.DenseFeatures(columns)
        dense = layer(features)
    assert out.device.type == device.type and dense.device.type == device.type
    assert tuple(out.shape) == (2, 1 + 3 + 3 + 2 + 7)
    assert not off_device(layer, device, "DenseFeatures")
    assert np.isfinite(out.numpy()).all()


# ------------------------------------------------------------------ warm start
def _dense_model_fn(features, labels, mode):
    logits = tf.keras.Sequential([tf.keras.layers.Dense(2, name="out")], name="net")(features["x"])
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, logits,
                                                                           from_logits=True))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_warm_start_lands_on_the_device_of_the_variable(tmp_path):
    with on_leak_device() as device:
        source = tf.estimator.Estimator(_dense_model_fn, model_dir=str(tmp_path / "a"))
        source.train(_input_fn(), steps=2)
        kernel = source.get_variable_value("out/kernel")
        est = tf.estimator.Estimator(_dense_model_fn, model_dir=str(tmp_path / "b"),
                                     warm_start_from=str(tmp_path / "a"))
        next(iter(est.predict(_input_fn())))
        variables = _estimator_variables(est)
        np.testing.assert_array_equal(np.asarray(variables["out/kernel"]), kernel)
        est.train(_input_fn(), steps=1)
        _check_estimator(est, device)


# ------------------------------------------------------------------ tf.device scopes
def test_tf_device_scopes_variable_creation():
    with on_leak_device() as device:
        with tf.device("/CPU:0"):
            on_cpu = tf.Variable([1.0, 2.0])
            tf1 = tf.compat.v1.get_variable("device_scoped_cpu", shape=[2],
                                            initializer=tf.compat.v1.zeros_initializer())
            layer = tf.keras.layers.Dense(2)
            layer.build((None, 2))
        with tf.device("/GPU:0"):  # no CUDA here: the accelerator TORCHESTIMATOR_DEVICE names
            on_gpu = tf.Variable([1.0, 2.0])
        default = tf.Variable([1.0])
    assert on_cpu.device.type == "cpu" and tf1.device.type == "cpu"
    assert layer.kernel.device.type == "cpu"
    assert on_gpu.device.type == device.type and default.device.type == device.type


def test_tf_device_scopes_nest_and_belong_to_their_thread():
    import threading

    seen = {}
    with on_leak_device() as device:
        with tf.device("/CPU:0"):
            with tf.device("/GPU:0"):
                seen["inner"] = tf.Variable(1.0).device.type
            seen["outer"] = tf.Variable(1.0).device.type
            worker = threading.Thread(target=lambda: seen.update(thread=tf.Variable(1.0).device.type))
            worker.start()
            worker.join()
        seen["after"] = tf.Variable(1.0).device.type
    assert seen == {"inner": device.type, "outer": "cpu", "thread": device.type,
                    "after": device.type}


def test_tf_device_cpu_on_a_cpu_machine_keeps_plain_torch_semantics():
    with tf.device("/CPU:0"):
        v = tf.Variable(torch.arange(3.0))
        t = torch.zeros(2)
    assert v.device.type == "cpu" and t.device.type == "cpu"
    assert v.numpy().tolist() == [0.0, 1.0, 2.0]


# ------------------------------------------------------------------ host reads
@pytest.mark.parametrize("make", ["tensor", "grad_tensor", "variable"])
def test_host_reads_of_device_values_copy_to_the_host(make):
    with on_leak_device() as device:
        if make == "variable":
            value = tf.Variable([3.0])
        else:
            value = torch.tensor([3.0], device=device, requires_grad=make == "grad_tensor") * 1
        assert value.device.type == device.type
        assert np.asarray(value).tolist() == [3.0]
        assert value.numpy().tolist() == [3.0]
        assert float(value) == 3.0 and int(value) == 3 and bool(value)
        assert np.array(value, dtype=np.float64).dtype == np.float64
        assert float(np.sum(value)) == 3.0


def test_warm_start_with_a_changed_vocabulary_lands_on_the_device(tmp_path):
    old_vocab, new_vocab = tmp_path / "old.txt", tmp_path / "new.txt"
    old_vocab.write_text("apple\nbanana\ncherry\n")
    new_vocab.write_text("cherry\ndate\napple\n")
    words = np.array([["apple"], ["banana"], ["cherry"], ["fig"]])
    labels = np.array([[1], [0], [1], [0]], np.int64)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"w": words}, labels)).repeat().batch(4)

    def columns(vocab):
        return [tf.feature_column.categorical_column_with_vocabulary_file("w", str(vocab))]

    with on_leak_device() as device:
        old = tf.estimator.LinearClassifier(columns(old_vocab), model_dir=str(tmp_path / "old"))
        old.train(input_fn, steps=2)
        name = "linear/linear_model/w/weights"
        old_weights = old.get_variable_value(name)
        info = tf.estimator.VocabInfo(str(new_vocab), 3, 0, str(old_vocab))
        settings = tf.estimator.WarmStartSettings(str(tmp_path / "old"), ".*", {name: info})
        new = tf.estimator.LinearClassifier(columns(new_vocab), model_dir=str(tmp_path / "new"),
                                            warm_start_from=settings)
        next(iter(new.predict(input_fn)))
        table = _estimator_variables(new)[name]
        assert table.device.type == device.type
        start = table.numpy()
        new.train(input_fn, steps=1)
        _check_estimator(new, device)
    np.testing.assert_array_equal(start[0], old_weights[2])  # cherry
    np.testing.assert_array_equal(start[2], old_weights[0])  # apple
    np.testing.assert_array_equal(start[1], np.zeros(1))  # date: new, zeros as TF
