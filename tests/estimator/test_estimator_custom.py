"""TF's "Creating custom estimators" guide, ported with torch ops: train, evaluate, predict on
Iris; plus the Estimator's public members and the model_fn/input_fn contracts."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from _estimator_testlib import single_thread

import torchestimator as tf

NAMES = tf.datasets.iris.FEATURE_NAMES


@pytest.fixture(scope="module")
def iris():
    return tf.datasets.iris.load_data()


def iris_input_fn(features, labels, training=True, batch_size=32):
    """The guide's input_fn: a Dataset of (dict of columns, labels)."""
    ds = tf.data.Dataset.from_tensor_slices(({n: features[:, i] for i, n in enumerate(NAMES)}, labels))
    if training:
        ds = ds.shuffle(1000).repeat()
    return ds.batch(batch_size)


def my_model(features, labels, mode, params):
    """The guide's model_fn: DNN with hidden layers, softmax cross-entropy, Adagrad."""
    net = tf.keras.layers.DenseFeatures(params["feature_columns"])(features)
    for units in params["hidden_units"]:
        net = tf.keras.layers.Dense(units=units, activation="relu")(net)
    logits = tf.keras.layers.Dense(params["n_classes"], activation=None)(net)
    predicted_classes = torch.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            "class_ids": predicted_classes[:, None],
            "probabilities": torch.softmax(logits, dim=-1),
            "logits": logits,
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted_classes, name="acc_op")
    metrics = {"accuracy": accuracy}
    tf.compat.v1.summary.scalar("accuracy", accuracy[1])
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    assert mode == tf.estimator.ModeKeys.TRAIN
    optimizer = tf.compat.v1.train.AdagradOptimizer(learning_rate=0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def make_classifier(model_dir):
    columns = [tf.feature_column.numeric_column(key=n) for n in NAMES]
    return tf.estimator.Estimator(
        model_fn=my_model, model_dir=str(model_dir),
        config=tf.estimator.RunConfig(tf_random_seed=42, log_step_count_steps=None),
        params={"feature_columns": columns, "hidden_units": [10, 10], "n_classes": 3},
    )


@pytest.fixture(scope="module")
def trained(iris, tmp_path_factory):
    (x, y), _ = iris
    classifier = make_classifier(tmp_path_factory.mktemp("iris"))
    with single_thread():
        returned = classifier.train(input_fn=lambda: iris_input_fn(x, y, training=True), steps=600)
    assert returned is classifier
    return classifier


def test_train_evaluate_on_iris_test_split(trained, iris):
    _, (xt, yt) = iris
    result = trained.evaluate(input_fn=lambda: iris_input_fn(xt, yt, training=False))
    assert set(result) == {"accuracy", "loss", "global_step"}
    assert result["global_step"] == 600
    assert isinstance(result["global_step"], np.int64)
    assert result["accuracy"] >= 0.9
    assert 0 < result["loss"] < 0.5


def test_evaluate_steps_limits_batches(trained, iris):
    _, (xt, yt) = iris
    one = trained.evaluate(input_fn=lambda: iris_input_fn(xt, yt, training=False, batch_size=10), steps=1)
    # accuracy over the first 10 examples only
    first10 = list(trained.predict(lambda: iris_input_fn(xt[:10], yt[:10], training=False)))
    expected = np.mean([p["class_ids"][0] == t for p, t in zip(first10, yt[:10])])
    assert one["accuracy"] == pytest.approx(expected)


def test_predict_yields_one_dict_per_example(trained, iris):
    _, (xt, yt) = iris
    features = {n: xt[:, i] for i, n in enumerate(NAMES)}
    predictions = list(trained.predict(
        input_fn=lambda: tf.data.Dataset.from_tensor_slices(features).batch(7)))
    assert len(predictions) == len(xt)
    first = predictions[0]
    assert set(first) == {"class_ids", "probabilities", "logits"}
    assert first["class_ids"].shape == (1,)
    assert first["probabilities"].shape == (3,)
    assert first["probabilities"].sum() == pytest.approx(1.0, abs=1e-5)
    accuracy = np.mean([p["class_ids"][0] == t for p, t in zip(predictions, yt)])
    assert accuracy >= 0.9


def test_predict_keys_and_batches(trained, iris):
    _, (xt, _) = iris

    def features_fn():
        return tf.data.Dataset.from_tensor_slices({n: xt[:, i] for i, n in enumerate(NAMES)}).batch(8)

    only = list(trained.predict(features_fn, predict_keys=["probabilities"]))
    assert set(only[0]) == {"probabilities"}
    batches = list(trained.predict(features_fn, predict_keys=["logits", "class_ids"],
                                   yield_single_examples=False))
    assert [b["logits"].shape for b in batches] == [(8, 3), (8, 3), (8, 3), (6, 3)]
    assert set(batches[0]) == {"logits", "class_ids"}
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        list(trained.predict(features_fn, predict_keys=["nope"]))


def test_variable_names_and_values(trained):
    names = trained.get_variable_names()
    assert "global_step" in names
    for layer in ("dense", "dense_1", "dense_2"):
        assert f"{layer}/kernel" in names and f"{layer}/bias" in names
    assert "dense/kernel/Adagrad" in names  # TF1 AdagradOptimizer: <variable>/Adagrad
    assert not any(n.startswith("_rng") for n in names)
    assert trained.get_variable_value("dense/kernel").shape == (4, 10)
    assert trained.get_variable_value("dense_2/bias").shape == (3,)
    assert trained.get_variable_value("global_step") == 600
    assert trained.latest_checkpoint() == tf.train.latest_checkpoint(trained.model_dir)
    assert trained.latest_checkpoint().endswith("model.ckpt-600")
    with pytest.raises(KeyError, match="dense/kernl"):
        trained.get_variable_value("dense/kernl")


def test_no_checkpoint_errors_and_properties(tmp_path):
    est = make_classifier(tmp_path)
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        est.get_variable_names()
    with pytest.raises(ValueError, match="Could not find trained model"):
        est.get_variable_value("global_step")
    assert est.latest_checkpoint() is None
    assert est.model_dir == str(tmp_path)
    assert est.config.model_dir == str(tmp_path)
    assert est.params["n_classes"] == 3
    est.params["n_classes"] = 5
    assert est.params["n_classes"] == 3  # a copy
    assert est.eval_dir() == os.path.join(str(tmp_path), "eval")
    assert est.eval_dir("holdout") == os.path.join(str(tmp_path), "eval_holdout")


def test_temporary_model_dir_is_logged(caplog):
    import logging

    caplog.set_level(logging.WARNING, logger="torchestimator")
    est = tf.estimator.Estimator(lambda features, labels, mode: None)
    assert os.path.isdir(est.model_dir)
    assert "Using temporary folder as model directory" in caplog.text


def test_model_fn_and_input_fn_receive_declared_arguments(tmp_path):
    seen = {}
    x = np.ones((4, 2), np.float32)

    def input_fn(params, config, mode):
        seen["input"] = (params["k"], config.model_dir, mode)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(2)

    def model_fn(features, labels, mode, params, config):
        seen["model"] = (params["k"], config.model_dir, mode)
        seen["step"] = int(tf.compat.v1.train.get_global_step())
        out = tf.keras.layers.Dense(1)(features["x"])
        loss = torch.mean((out - labels) ** 2)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), params={"k": 7})
    est.train(input_fn)
    assert seen["input"] == (7, str(tmp_path), "train")
    assert seen["model"] == (7, str(tmp_path), "train")
    assert seen["step"] == 1  # the second (and last) batch ran at global step 1
    assert tf.compat.v1.train.get_global_step() is None  # outside model_fn


def test_model_fn_signature_is_checked(tmp_path):
    def bad(features, labels, mode, extra):
        return None

    with pytest.raises(ValueError, match="not expected args"):
        tf.estimator.Estimator(bad, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="must include features"):
        tf.estimator.Estimator(lambda labels: None, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="does not include params"):
        tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path),
                               params={"a": 1})
    with pytest.raises(ValueError, match="model_fn must be provided"):
        tf.estimator.Estimator(None)
    with pytest.raises(ValueError, match="RunConfig"):
        tf.estimator.Estimator(lambda features: None, config={"model_dir": "x"})
    with pytest.raises(ValueError, match="model_dir are set both"):
        tf.estimator.Estimator(lambda features: None, model_dir=str(tmp_path / "a"),
                               config=tf.estimator.RunConfig(model_dir=str(tmp_path / "b")))


def test_keras_model_built_outside_model_fn_trains_and_checkpoints(tmp_path):
    x = np.random.default_rng(1).normal(size=(32, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)],
                                name="closed_over")

    def model_fn(features, labels, mode):
        out = model(features)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=out)
        loss = torch.mean((out - labels) ** 2)
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        train_op = tf.keras.optimizers.SGD(0.05).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(8)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(tf_random_seed=3))
    est.train(input_fn, steps=30)
    names = est.get_variable_names()
    kernels = [n for n in names if n.startswith("closed_over/") and n.endswith("kernel")]
    assert len(kernels) == 2, names
    saved = est.get_variable_value(kernels[0])
    live = [w for w in model.get_weights() if w.shape == saved.shape][0]
    np.testing.assert_array_equal(saved, live)
    first_loss = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(32))["loss"]
    est.train(input_fn, steps=60)
    assert est.evaluate(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(32))["loss"] < first_loss
    predictions = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(x).batch(8)))
    assert len(predictions) == 32 and predictions[0]["predictions"].shape == (1,)


def test_layer_reconstructed_with_another_config_is_a_clear_error(tmp_path):
    calls = []
    x = np.ones((8, 2), np.float32)

    def model_fn(features, labels, mode):
        calls.append(1)
        units = 1 if len(calls) == 1 else 2
        out = tf.keras.layers.Dense(units, name="head")(features)
        loss = torch.mean(out)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"Dense with name 'head' again, but with a different configuration"):
        est.train(lambda: tf.data.Dataset.from_tensor_slices((x, x)).batch(4))


def test_layers_are_created_once_and_reused(tmp_path):
    made = []
    x = np.ones((8, 2), np.float32)

    def model_fn(features, labels, mode):
        layer = tf.keras.layers.Dense(1)
        made.append(layer)
        loss = torch.mean((layer(features) - labels) ** 2)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(2))
    assert len(made) >= 4 and all(layer is made[0] for layer in made)
