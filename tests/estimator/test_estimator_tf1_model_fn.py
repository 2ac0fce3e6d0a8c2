"""TF1-style model_fns on the Estimator: TensorFlow's custom-estimator guide (`tf.compat.v1.layers`,
`AdagradOptimizer(...).minimize(loss, global_step=...)`) on Iris, and a model_fn of
`get_variable`/`variable_scope` trained through `compute_gradients`/`apply_gradients` —
written as TF1 code with only the import changed; checkpoints carry TF1's variable names."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.datasets import iris

(X_TRAIN, Y_TRAIN), (X_TEST, Y_TEST) = iris.load_data()


def _features(x):
    return {name: x[:, i] for i, name in enumerate(iris.FEATURE_NAMES)}


def train_input_fn(batch_size=32):
    dataset = tf.data.Dataset.from_tensor_slices((_features(X_TRAIN), Y_TRAIN))
    return dataset.shuffle(1000).repeat().batch(batch_size)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices((_features(X_TEST), Y_TEST)).batch(30)


# --- TensorFlow's custom-estimator guide (TF 1.x), verbatim but for the import -------------------
def my_model_fn(features, labels, mode, params):
    net = tf.compat.v1.feature_column.input_layer(features, params["feature_columns"])
    for units in params["hidden_units"]:
        net = tf.compat.v1.layers.dense(net, units=units, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, params["n_classes"], activation=None)
    predicted_classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            "class_ids": predicted_classes[:, tf.newaxis],
            "probabilities": tf.nn.softmax(logits),
            "logits": logits,
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted_classes,
                                             name="acc_op")
    metrics = {"accuracy": accuracy}
    tf.compat.v1.summary.scalar("accuracy", accuracy[1])
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    assert mode == tf.estimator.ModeKeys.TRAIN
    optimizer = tf.compat.v1.train.AdagradOptimizer(learning_rate=0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _classifier(model_dir):
    columns = [tf.feature_column.numeric_column(key=key) for key in iris.FEATURE_NAMES]
    return tf.estimator.Estimator(
        model_fn=my_model_fn, model_dir=str(model_dir),
        params={"feature_columns": columns, "hidden_units": [10, 10], "n_classes": 3},
        config=tf.estimator.RunConfig(tf_random_seed=1),
    )


def test_custom_estimator_guide_tf1_model_fn(tmp_path):
    classifier = _classifier(tmp_path)
    classifier.train(input_fn=train_input_fn, steps=300)
    names = set(classifier.get_variable_names())
    # TF1's names: one `dense`, `dense_1`, ... per layers.dense call, slots `<variable>/Adagrad`.
    for layer in ("dense", "dense_1", "dense_2"):
        for weight in ("kernel", "bias"):
            assert f"{layer}/{weight}" in names and f"{layer}/{weight}/Adagrad" in names
    assert "global_step" in names and not any(n.startswith("dense_3") for n in names)
    assert classifier.get_variable_value("dense_2/kernel").shape == (10, 3)

    result = classifier.evaluate(input_fn=eval_input_fn)
    assert result["global_step"] == 300
    assert result["accuracy"] >= 0.9, result
    assert classifier.evaluate(input_fn=eval_input_fn)["accuracy"] == result["accuracy"]  # EVAL trains nothing

    predictions = list(classifier.predict(
        input_fn=lambda: tf.data.Dataset.from_tensor_slices(_features(X_TEST)).batch(8)))
    assert len(predictions) == len(X_TEST)
    classes = np.array([p["class_ids"][0] for p in predictions])
    assert predictions[0]["class_ids"].shape == (1,)
    np.testing.assert_allclose([p["probabilities"].sum() for p in predictions], 1.0, rtol=1e-5)
    assert (classes == Y_TEST).mean() == pytest.approx(result["accuracy"])

    kernel = classifier.get_variable_value("dense/kernel")
    again = _classifier(tmp_path)  # a fresh Estimator resumes from the checkpoint
    again.train(input_fn=train_input_fn, steps=5)
    assert again.get_variable_value("global_step") == 305
    assert np.abs(again.get_variable_value("dense/kernel") - kernel).max() < 0.1  # restored, not re-initialized
    assert not np.array_equal(again.get_variable_value("dense/kernel"), kernel)


# --- get_variable / variable_scope ---------------------------------------------------------------
X_LINE = np.linspace(-1, 1, 64, dtype=np.float32)[:, None]


def line_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X_LINE}, 2 * X_LINE + 1)).repeat().batch(16)


def variable_model_fn(features, labels, mode):
    v1 = tf.compat.v1
    with v1.variable_scope("linear"):
        with v1.variable_scope("inner"):
            w = v1.get_variable("w", shape=[1, 1], initializer=v1.random_normal_initializer(stddev=0.1))
        b = v1.get_variable("b", shape=[1], initializer=v1.zeros_initializer())
    with v1.variable_scope("linear", reuse=True):
        assert v1.get_variable("inner/w") is w
    with v1.variable_scope("linear", reuse=v1.AUTO_REUSE):
        assert v1.get_variable("b") is b
    scale = tf.Variable(1.0, name="scale", trainable=False)
    predictions = tf.matmul(features["x"], w) * scale + b
    loss = tf.reduce_mean(tf.square(predictions - labels)) if labels is not None else None
    if mode != tf.estimator.ModeKeys.TRAIN:
        return tf.estimator.EstimatorSpec(mode, loss=loss, predictions=predictions)
    optimizer = v1.train.MomentumOptimizer(learning_rate=0.1, momentum=0.9)
    grads_and_vars = optimizer.compute_gradients(loss)
    assert [v.name for _, v in grads_and_vars] == ["linear/inner/w:0", "linear/b:0"]
    clipped = [(tf.clip_by_value(g, -5.0, 5.0), v) for g, v in grads_and_vars]
    train_op = optimizer.apply_gradients(clipped, global_step=v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_get_variable_model_fn_trains_and_checkpoints_tf_names(tmp_path):
    est = tf.estimator.Estimator(variable_model_fn, model_dir=str(tmp_path))
    est.train(line_input_fn, steps=150)
    names = est.get_variable_names()
    for name in ("linear/inner/w", "linear/b", "linear/inner/w/Momentum", "linear/b/Momentum",
                 "scale", "global_step"):
        assert name in names, names
    np.testing.assert_allclose(est.get_variable_value("linear/inner/w"), [[2.0]], atol=1e-2)
    np.testing.assert_allclose(est.get_variable_value("linear/b"), [1.0], atol=1e-2)
    assert est.get_variable_value("scale") == 1.0

    fresh = tf.estimator.Estimator(variable_model_fn, model_dir=str(tmp_path))
    assert fresh.evaluate(line_input_fn, steps=2)["loss"] < 1e-4  # restored by TF name
    fresh.train(line_input_fn, steps=3)
    assert fresh.get_variable_value("global_step") == 153


def test_get_variable_twice_without_reuse_fails_as_in_tf1(tmp_path):
    def model_fn(features, labels, mode):
        with tf.compat.v1.variable_scope("outer"):
            w = tf.compat.v1.get_variable("w", shape=[1, 1])
            tf.compat.v1.get_variable("w", shape=[1, 1])
        loss = tf.reduce_mean(tf.matmul(features["x"], w))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Variable outer/w already exists, disallowed. Did you mean "
                                         "to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"):
        est.train(line_input_fn, steps=1)


def test_unnamed_tf_variable_has_a_stable_checkpoint_name(tmp_path):
    def model_fn(features, labels, mode):
        slope = tf.Variable(0.0)  # unnamed: 'Variable' in the checkpoint, in any process
        offset = tf.Variable(0.0)
        loss = tf.reduce_mean(tf.square(features["x"] * slope + offset - labels))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    tf.Variable(5.0)  # another unnamed variable in this process first
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(line_input_fn, steps=40)
    assert {"Variable", "Variable_1"} <= set(est.get_variable_names())
    slope = est.get_variable_value("Variable")
    again = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    again.train(line_input_fn, steps=1)  # restores both by name
    assert abs(again.get_variable_value("Variable") - slope) < 0.05
    assert abs(float(slope) - 2.0) < 0.1


def test_tf1_batch_normalization_and_dropout_follow_the_mode(tmp_path):
    def model_fn(features, labels, mode):
        training = mode == tf.estimator.ModeKeys.TRAIN
        net = tf.compat.v1.layers.batch_normalization(features["x"], momentum=0.9, training=training)
        net = tf.compat.v1.layers.dropout(net, rate=0.1, training=training)
        out = tf.compat.v1.layers.dense(net, 1)
        loss = tf.reduce_mean(tf.square(out - labels))
        if mode != tf.estimator.ModeKeys.TRAIN:
            return tf.estimator.EstimatorSpec(mode, loss=loss, predictions=out)
        update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)  # TF1's idiom
        with tf.control_dependencies(update_ops):
            train_op = tf.compat.v1.train.AdamOptimizer(0.05).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def shuffled_input_fn():
        return line_input_fn().unbatch().shuffle(64, seed=0).batch(16)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(tf_random_seed=3))
    est.train(shuffled_input_fn, steps=100)
    names = set(est.get_variable_names())
    assert {"batch_normalization/gamma", "batch_normalization/moving_mean",
            "batch_normalization/moving_variance", "dense/kernel", "dense/kernel/Adam",
            "dense/kernel/Adam_1"} <= names
    # The moving variance moved from 1 toward the batches' variance (about 1/3 for x in [-1, 1]).
    assert est.get_variable_value("batch_normalization/moving_variance")[0] < 0.9
    first = est.evaluate(line_input_fn, steps=4)["loss"]
    assert est.evaluate(line_input_fn, steps=4)["loss"] == first  # inference: no dropout, no updates
    # it learned y = 2x + 1 (an untrained model's loss is about 2.3): the bound leaves room for
    # the dropout draws of another seed or device (0.005-0.12 over seeds on the CPU)
    assert first < 0.25
