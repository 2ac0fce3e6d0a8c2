"""Warm starting: all trainable variables, a regex subset, a renamed variable, a changed
vocabulary (VocabInfo), and only when model_dir has no checkpoint yet."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from _estimator_testlib import config, input_fn, weights

import torchestimator as tf


def two_layer_model_fn(features, labels, mode, params):
    hidden = tf.keras.layers.Dense(4, activation="relu", name=params.get("hidden", "hidden"))(features["x"])
    logits = tf.keras.layers.Dense(1, name="out")(hidden)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    train_op = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(loss)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("source"))
    est = tf.estimator.Estimator(two_layer_model_fn, model_dir=model_dir, config=config(tf_random_seed=11),
                                 params={})
    est.train(input_fn(), steps=20)
    return model_dir


def fresh(model_dir, warm_start_from, params=None, seed=99):
    return tf.estimator.Estimator(two_layer_model_fn, model_dir=str(model_dir), config=config(tf_random_seed=seed),
                                  params=params or {}, warm_start_from=warm_start_from)


def first_step_weights(est) -> dict:
    """The weights the model starts from: predict (which warm-starts without a checkpoint)."""
    list(est.predict(input_fn(1)))
    return {name: t.detach().clone().numpy() for name, t in est._state.named_variables().items()}


def test_warm_start_from_a_directory_copies_all_trainable_variables(source, tmp_path):
    src = weights(source)
    est = fresh(tmp_path, source)
    start = first_step_weights(est)
    for name in ("hidden/kernel", "hidden/bias", "out/kernel", "out/bias"):
        np.testing.assert_array_equal(start[name], src[name], err_msg=name)
    est.train(input_fn(), steps=1)
    assert int(est.get_variable_value("global_step")) == 1  # the global step is not warm-started
    assert not np.array_equal(est.get_variable_value("hidden/kernel/Adagrad"),
                              src["hidden/kernel/Adagrad"])


def test_warm_start_from_a_checkpoint_path_and_settings(source, tmp_path):
    src = weights(source)
    path = tf.train.latest_checkpoint(source)
    start = first_step_weights(fresh(tmp_path / "a", path))
    np.testing.assert_array_equal(start["out/kernel"], src["out/kernel"])
    settings = tf.estimator.WarmStartSettings(ckpt_to_initialize_from=source, vars_to_warm_start="out/.*")
    start = first_step_weights(fresh(tmp_path / "b", settings))
    np.testing.assert_array_equal(start["out/kernel"], src["out/kernel"])
    np.testing.assert_array_equal(start["out/bias"], src["out/bias"])
    assert not np.array_equal(start["hidden/kernel"], src["hidden/kernel"])


def test_warm_start_regex_list_and_none(source, tmp_path):
    src = weights(source)
    settings = tf.estimator.WarmStartSettings(source, vars_to_warm_start=["hidden/kernel", "out/b.*"])
    start = first_step_weights(fresh(tmp_path / "a", settings))
    np.testing.assert_array_equal(start["hidden/kernel"], src["hidden/kernel"])
    np.testing.assert_array_equal(start["out/bias"], src["out/bias"])
    assert not np.array_equal(start["out/kernel"], src["out/kernel"])
    nothing = first_step_weights(fresh(tmp_path / "b", tf.estimator.WarmStartSettings(
        source, vars_to_warm_start=None)))
    assert not np.array_equal(nothing["hidden/kernel"], src["hidden/kernel"])


def test_warm_start_renamed_variable(source, tmp_path):
    src = weights(source)
    settings = tf.estimator.WarmStartSettings(
        source, vars_to_warm_start=".*",
        var_name_to_prev_var_name={"encoder/kernel": "hidden/kernel", "encoder/bias": "hidden/bias"})
    start = first_step_weights(fresh(tmp_path, settings, params={"hidden": "encoder"}))
    np.testing.assert_array_equal(start["encoder/kernel"], src["hidden/kernel"])
    np.testing.assert_array_equal(start["encoder/bias"], src["hidden/bias"])
    np.testing.assert_array_equal(start["out/kernel"], src["out/kernel"])
    bad = tf.estimator.WarmStartSettings(source, var_name_to_prev_var_name={"encoder/kernel": "nope"})
    with pytest.raises(ValueError, match="encoder/kernel should come from 'nope'"):
        first_step_weights(fresh(tmp_path / "bad", bad, params={"hidden": "encoder"}))


def test_warm_start_only_without_a_checkpoint(source, tmp_path):
    est = fresh(tmp_path, source)
    est.train(input_fn(), steps=3)
    trained = est.get_variable_value("out/kernel")
    again = fresh(tmp_path, source)
    np.testing.assert_array_equal(first_step_weights(again)["out/kernel"], trained)  # restored
    again.train(input_fn(), steps=1)
    assert int(again.get_variable_value("global_step")) == 4


def test_warm_start_errors(tmp_path):
    with pytest.raises(ValueError, match="Need to specify ckpt_to_initialize_from"):
        tf.estimator.WarmStartSettings("")
    with pytest.raises(ValueError, match="warm_start_from must be a string or a WarmStartSettings"):
        fresh(tmp_path, 42)
    with pytest.raises(ValueError, match="does not exist"):
        first_step_weights(fresh(tmp_path / "m", str(tmp_path / "missing" / "model.ckpt-1")))
    os.makedirs(str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="holds no checkpoint"):
        first_step_weights(fresh(tmp_path / "m2", str(tmp_path / "empty")))
    with pytest.raises(ValueError, match="axis"):
        tf.estimator.VocabInfo("a", 1, 0, "b", axis=2)


def test_warm_start_shape_mismatch_names_the_variable(source, tmp_path):
    def wider(features, labels, mode):
        out = tf.keras.layers.Dense(1, name="out")(tf.keras.layers.Dense(5, name="hidden")(features["x"]))
        loss = torch.mean(out)
        return tf.estimator.EstimatorSpec(mode, loss=loss,
                                          train_op=tf.compat.v1.train.AdagradOptimizer(0.1).minimize(loss))

    est = tf.estimator.Estimator(wider, model_dir=str(tmp_path), warm_start_from=source)
    with pytest.raises(ValueError, match=r"variable out/kernel has shape \(5, 1\) but out/kernel in .*model.ckpt-20 has shape \(4, 1\)"):
        est.train(input_fn(), steps=1)


# ---------------------------------------------------------------------------- vocabulary


def embedding_model_fn(features, labels, mode, params):
    column = tf.feature_column.embedding_column(
        tf.feature_column.categorical_column_with_vocabulary_file(
            "word", params["vocab"], num_oov_buckets=1), dimension=2)
    net = tf.keras.layers.DenseFeatures([column], name="features")(features)
    logits = tf.keras.layers.Dense(1, name="out")(net)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(loss)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_warm_start_with_a_changed_vocabulary(tmp_path):
    old_vocab, new_vocab = str(tmp_path / "old.txt"), str(tmp_path / "new.txt")
    with open(old_vocab, "w") as f:
        f.write("apple\nbanana\ncherry\n")
    with open(new_vocab, "w") as f:
        f.write("cherry\ndate\napple\n")
    words = np.array(["apple", "banana", "cherry", "fig"])
    labels = np.array([[1.0], [0.0], [1.0], [0.0]], np.float32)

    def words_fn():
        return tf.data.Dataset.from_tensor_slices(({"word": words}, labels)).repeat().batch(4)

    old = tf.estimator.Estimator(embedding_model_fn, model_dir=str(tmp_path / "old"), config=config(),
                                 params={"vocab": old_vocab})
    old.train(words_fn, steps=5)
    table_name = next(n for n in old.get_variable_names() if n.startswith("features/") and "embedding" in n)
    old_table = old.get_variable_value(table_name)  # rows: apple, banana, cherry, OOV
    assert old_table.shape == (4, 2)

    info = tf.estimator.VocabInfo(new_vocab=new_vocab, new_vocab_size=3, num_oov_buckets=1,
                                  old_vocab=old_vocab)
    settings = tf.estimator.WarmStartSettings(str(tmp_path / "old"), vars_to_warm_start=".*",
                                              var_name_to_vocab_info={table_name: info})
    initial = _warm_started_table(tmp_path / "a", settings, new_vocab, table_name)
    np.testing.assert_array_equal(initial[0], old_table[2])  # cherry
    np.testing.assert_array_equal(initial[2], old_table[0])  # apple
    np.testing.assert_array_equal(initial[1], np.zeros(2))  # date: a new word -> zeros, as TF
    np.testing.assert_array_equal(initial[3], np.zeros(2))  # the OOV bucket -> zeros

    backup = tf.estimator.VocabInfo(new_vocab, 3, 1, old_vocab, old_vocab_size=1,
                                    backup_initializer=tf.keras.initializers.Constant(0.5))
    settings = tf.estimator.WarmStartSettings(str(tmp_path / "old"), vars_to_warm_start=None,
                                              var_name_to_vocab_info={table_name: backup})
    initial = _warm_started_table(tmp_path / "b", settings, new_vocab, table_name)
    np.testing.assert_array_equal(initial[2], old_table[0])  # apple (the only old word used)
    np.testing.assert_array_equal(initial[[0, 1, 3]], np.full((3, 2), 0.5, np.float32))


def _warm_started_table(model_dir, settings, vocab, table_name):
    """The table right after warm starting: the step-0 checkpoint of a fresh train()."""
    model_dir = str(model_dir)
    est = tf.estimator.Estimator(embedding_model_fn, model_dir=model_dir,
                                 config=config(save_checkpoints_steps=100, keep_checkpoint_max=None),
                                 params={"vocab": vocab}, warm_start_from=settings)
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"word": np.array(["apple"])},
                                                          np.zeros((1, 1), np.float32))).batch(1))
    return tf.train.load_variable(os.path.join(model_dir, "model.ckpt-0"), table_name)
