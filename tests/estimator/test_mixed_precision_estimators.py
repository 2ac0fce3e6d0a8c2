"""Issue 28: premade Estimators and a custom model_fn under a global mixed-precision policy
(TF's Keras layers inside them follow `tf.keras.mixed_precision.set_global_policy`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

mp = tf.keras.mixed_precision


@pytest.fixture(autouse=True)
def _reset_global_policy():
    yield
    mp.set_global_policy("float32")


def _input_fn(repeat=True):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 6)).astype(np.float32)
    y = (x[:, :1] + x[:, 1:2] > 0).astype(np.int64)

    def fn():
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return (ds.repeat() if repeat else ds).batch(32)

    return fn


def _config():
    return tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None)


@pytest.mark.parametrize("policy", ["mixed_bfloat16", "mixed_float16"])
def test_dnn_classifier_trains_under_a_mixed_policy(tmp_path, policy):
    mp.set_global_policy(policy)
    columns = [tf.feature_column.numeric_column("x", shape=(6,))]
    estimator = tf.estimator.DNNClassifier([16, 16], columns, model_dir=str(tmp_path),
                                           optimizer=lambda: tf.keras.optimizers.Adam(0.01),
                                           config=_config())
    before = estimator.train(_input_fn(), steps=1).evaluate(_input_fn(False))["loss"]
    metrics = estimator.train(_input_fn(), steps=60).evaluate(_input_fn(False))
    assert metrics["loss"] < before and metrics["accuracy"] > 0.8
    assert metrics["loss"].dtype == np.float32
    prediction = next(iter(estimator.predict(_input_fn(False))))
    assert prediction["probabilities"].dtype == np.float32
    # the variables stay float32 in the checkpoint
    kernels = [n for n in estimator.get_variable_names() if n.endswith("kernel")]
    assert kernels and all(estimator.get_variable_value(n).dtype == np.float32 for n in kernels)


def test_custom_model_fn_computes_in_bfloat16_and_takes_a_float32_loss(tmp_path):
    mp.set_global_policy("mixed_bfloat16")
    seen = {}
    head = tf.estimator.BinaryClassHead()

    def model_fn(features, labels, mode):
        hidden = tf.keras.layers.Dense(16, activation="relu")(features["x"])
        logits = tf.keras.layers.Dense(1)(hidden)
        seen["hidden"] = hidden.dtype
        spec = head.create_estimator_spec(features, mode, logits, labels=labels,
                                          optimizer=tf.keras.optimizers.Adam(0.01))
        seen["loss"] = spec.loss.dtype if spec.loss is not None else None
        return spec

    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=_config())
    estimator.train(_input_fn(), steps=40)
    assert seen == {"hidden": torch.bfloat16, "loss": torch.float32}
    assert estimator.evaluate(_input_fn(False))["accuracy"] > 0.8


def test_wide_and_deep_trains_under_mixed_bfloat16(tmp_path):
    mp.set_global_policy("mixed_bfloat16")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(128, 2)).astype(np.float32)
    word = np.array([b"a", b"b", b"c", b"d"])[rng.integers(0, 4, 128)]
    y = ((word == b"a") | (x[:, 0] > 0)).astype(np.int64)[:, None]

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x, "word": word}, y)).repeat().batch(32)

    word_column = tf.feature_column.categorical_column_with_vocabulary_list("word", ["a", "b", "c", "d"])
    estimator = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[word_column],
        dnn_feature_columns=[tf.feature_column.numeric_column("x", shape=(2,)),
                             tf.feature_column.embedding_column(word_column, 4)],
        dnn_hidden_units=[8], model_dir=str(tmp_path), config=_config())
    estimator.train(input_fn, steps=30)
    assert np.isfinite(estimator.evaluate(input_fn, steps=2)["loss"])


def test_model_fn_runs_under_the_policys_autocast_in_every_mode(tmp_path):
    """A custom op of model_fn (`x @ w` on a float32 variable) computes in the compute dtype
    under 'mixed_bfloat16', as TF's float16/bfloat16 layers read their weights; the variables
    stay float32 and the optimizer step runs outside autocast."""
    seen = []

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", shape=(6, 1), initializer=tf.zeros_initializer())
        product = features["x"] @ w
        seen.append((mode, torch.is_autocast_enabled(product.device.type), product.dtype, w.dtype))
        logits = tf.cast(product, tf.float32)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.cast(labels, tf.float32), logits=logits))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    mp.set_global_policy("mixed_bfloat16")
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=_config())
    est.train(_input_fn(), steps=3)
    est.evaluate(_input_fn(repeat=False), steps=1)
    next(iter(est.predict(_input_fn(repeat=False))))
    modes = {m for m, *_ in seen}
    assert modes == {"train", "eval", "infer"}
    assert all(on and dtype == torch.bfloat16 and wd == torch.float32 for _, on, dtype, wd in seen)
    assert est.get_variable_value("w").dtype == np.float32
    mp.set_global_policy("float32")
    seen.clear()
    est.train(_input_fn(), steps=1)
    assert seen and not any(on for _, on, *_ in seen) and seen[0][2] == torch.float32
