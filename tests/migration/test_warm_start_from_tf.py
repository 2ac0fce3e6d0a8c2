"""Warm-starting from a TensorFlow checkpoint (`warm_start_from=<TF model_dir>` and
`WarmStartSettings`: regex, `var_name_to_prev_var_name`, `VocabInfo`), a TF1 checkpoint's
partitioned variables joined, and the errors of a model that does not match TF's."""

from __future__ import annotations

import os

import numpy as np
import pytest
from _fixtures import COLORS, columns, copy_model_dir, features, labels, predict, predictions

import torchestimator as tf

KEYS = ["age", "city", "color", "hours"]


def _train(estimator, steps=1):
    x, y = features("train", KEYS), labels("train", "class")
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(8), steps=steps)


def test_warm_start_from_a_tf1_model_dir_joins_partitioned_variables(tmp_path):
    # tf.compat.v1's LinearClassifier partitions its weights (saved as slices of the full name)
    source = copy_model_dir("v1_linear_classifier", str(tmp_path / "tf"))
    _, linear = columns()
    estimator = tf.estimator.LinearClassifier(linear, n_classes=3, warm_start_from=source,
                                              model_dir=str(tmp_path / "ours"))
    np.testing.assert_allclose(predict(estimator, KEYS)["logits"],
                               predictions("v1_linear_classifier")["logits"], rtol=1e-5, atol=1e-5)
    _train(estimator)
    assert estimator.get_variable_value("global_step") == 1  # warm start: a new run


def test_warm_start_settings_regex_and_renamed_variables(tmp_path):
    source = copy_model_dir("dnn_classifier", str(tmp_path / "tf"))
    dense, _ = columns()
    reader = tf.train.load_checkpoint(source)
    settings = tf.estimator.WarmStartSettings(source, vars_to_warm_start=".*hiddenlayer_0.*")
    estimator = tf.estimator.DNNClassifier([8, 4], dense, n_classes=3, warm_start_from=settings,
                                           model_dir=str(tmp_path / "regex"))
    _train(estimator)
    # warm-started, then one step of training: close to TF's values, not the random init
    for name in ("dnn/hiddenlayer_0/kernel", "dnn/logits/kernel"):
        moved = np.abs(estimator.get_variable_value(name) - reader.get_tensor(name)).max()
        assert (moved < 0.2) == ("hiddenlayer_0" in name), name

    settings = tf.estimator.WarmStartSettings(
        source, var_name_to_prev_var_name={"dnn/logits/kernel": "dnn/logits/kernel_v2"})
    estimator = tf.estimator.DNNClassifier([8, 4], dense, n_classes=3, warm_start_from=settings,
                                           model_dir=str(tmp_path / "bad"))
    with pytest.raises(ValueError, match="kernel_v2"):
        _train(estimator)


def _renamed_model_fn(features, labels, mode, params):
    # the fixture's custom model_fn with its layers named differently from TF's `dense`, `dense_1`
    x = tf.concat([features["age"] / 50.0, features["hours"] / 50.0], axis=1)
    output = tf.keras.layers.Dense(1, name="head")(tf.keras.layers.Dense(4, activation="relu", name="encoder")(x))
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"output": output})
    loss = tf.compat.v1.losses.mean_squared_error(labels, output)
    train_op = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_custom_model_fn_with_other_names_maps_them_by_var_name_to_prev_var_name(tmp_path):
    source = copy_model_dir("custom_model_fn", str(tmp_path / "tf"))
    mapping = {f"{ours}/{w}": f"{theirs}/{w}" for ours, theirs in (("encoder", "dense"), ("head", "dense_1"))
               for w in ("kernel", "bias")}
    settings = tf.estimator.WarmStartSettings(source, var_name_to_prev_var_name=mapping)
    estimator = tf.estimator.Estimator(_renamed_model_fn, model_dir=str(tmp_path / "ours"),
                                       warm_start_from=settings)
    np.testing.assert_allclose(predict(estimator, ["age", "hours"])["output"],
                               predictions("custom_model_fn")["output"], rtol=1e-5, atol=1e-5)
    # continuing from TF's model_dir with other names: the error names the closest TF names
    estimator = tf.estimator.Estimator(_renamed_model_fn, model_dir=source)
    with pytest.raises(ValueError, match=r"(?s)encoder/kernel: closest in the checkpoint \['dense/kernel'"):
        predict(estimator, ["age", "hours"])


def test_a_corrupted_tf_model_dir_is_an_error_naming_file_and_tensor(tmp_path):
    from torchestimator._tf_formats.tensor_bundle import TensorBundle

    model_dir = copy_model_dir("dnn_classifier", str(tmp_path / "tf"))
    prefix = os.path.join(model_dir, "model.ckpt-5")
    with TensorBundle(prefix) as bundle:
        entry = bundle.entries["dnn/logits/kernel"]
    with open(prefix + ".data-00000-of-00001", "r+b") as f:
        f.seek(entry.offset)
        f.write(b"\x00\x00\x80\x7f")  # a NaN where TF wrote a weight
    estimator = tf.estimator.DNNClassifier([8, 4], columns()[0], n_classes=3, model_dir=model_dir)
    with pytest.raises(ValueError, match=r"model\.ckpt-5\.data-00000-of-00001 is corrupt: tensor 'dnn/logits/kernel'"):
        predict(estimator, KEYS)


def test_warm_start_vocab_info_remaps_a_tf_embedding(tmp_path):
    source = copy_model_dir("dnn_classifier", str(tmp_path / "tf"))
    old_vocab, new_vocab = tmp_path / "old.txt", tmp_path / "new.txt"
    old_vocab.write_text("\n".join(COLORS) + "\n")
    new_words = ["blue", "white", "red", "black"]
    new_vocab.write_text("\n".join(new_words) + "\n")
    fc = tf.feature_column
    color = fc.categorical_column_with_vocabulary_file("color", str(new_vocab), vocabulary_size=4)
    dense = [fc.numeric_column("age"), fc.numeric_column("hours"), fc.embedding_column(color, 3),
             fc.indicator_column(fc.categorical_column_with_hash_bucket("city", 7))]
    name = "dnn/input_from_feature_columns/input_layer/color_embedding/embedding_weights"
    settings = tf.estimator.WarmStartSettings(
        source, var_name_to_vocab_info={name: tf.estimator.VocabInfo(str(new_vocab), 4, 0, str(old_vocab))})
    estimator = tf.estimator.DNNClassifier([8, 4], dense, n_classes=3, warm_start_from=settings,
                                           optimizer=tf.keras.optimizers.SGD(learning_rate=0.0),
                                           model_dir=str(tmp_path / "ours"))
    _train(estimator)  # a step that changes nothing writes the warm-started values
    old = tf.train.load_variable(source, name)
    new = estimator.get_variable_value(name)
    for i, word in enumerate(new_words):
        expected = old[COLORS.index(word)] if word in COLORS else np.zeros(3)
        np.testing.assert_allclose(new[i], expected, err_msg=word)


def test_a_model_that_differs_from_tfs_is_an_error_naming_the_closest_variables(tmp_path):
    dense, _ = columns()
    model_dir = copy_model_dir("dnn_classifier", str(tmp_path / "deeper"))
    estimator = tf.estimator.DNNClassifier([8, 4, 2], dense, n_classes=3, model_dir=model_dir)
    with pytest.raises(ValueError, match=r"(?s)dnn/hiddenlayer_2/kernel: closest in the checkpoint "
                                         r"\['dnn/hiddenlayer_1/kernel'.*var_name_to_prev_var_name"):
        predict(estimator, KEYS)
    model_dir = copy_model_dir("dnn_classifier", str(tmp_path / "wider"))
    estimator = tf.estimator.DNNClassifier([16, 4], dense, n_classes=3, model_dir=model_dir)
    with pytest.raises(ValueError, match=r"hiddenlayer_0/kernel has shape \(12, 16\) in the model but \(12, 8\)"):
        predict(estimator, KEYS)
    assert os.listdir(model_dir)  # nothing of TF's was touched
