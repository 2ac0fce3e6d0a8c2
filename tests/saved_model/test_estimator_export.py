"""Estimator.export_saved_model + tf.saved_model.load: every premade estimator and a custom
model_fn, loaded back (also in a fresh process without the training code), answer as
Estimator.predict does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from _export_testlib import (
    RAW_SPECS,
    Y_CLASS,
    Y_MULTI,
    Y_REG,
    columns,
    input_fn,
    predict_batch,
    rows,
)

import torchestimator as tf
from _package_env import package_only_env

E = tf.estimator


def _raw_receiver():
    return E.export.build_raw_serving_input_receiver_fn(RAW_SPECS)


def _premade(name, model_dir):
    dense, linear = columns()
    numeric = [tf.feature_column.numeric_column("x"),
               tf.feature_column.bucketized_column(tf.feature_column.numeric_column("x"), [-1.0, 0.0, 1.0]),
               tf.feature_column.indicator_column(
                   tf.feature_column.categorical_column_with_vocabulary_list("kind", ["a", "b", "c"]))]
    makers = {
        "DNNClassifier": (lambda: E.DNNClassifier([8], dense, model_dir=model_dir, n_classes=3), Y_MULTI),
        "DNNRegressor": (lambda: E.DNNRegressor([8], dense, model_dir=model_dir), Y_REG),
        "LinearClassifier": (lambda: E.LinearClassifier(linear, model_dir=model_dir), Y_CLASS),
        "LinearRegressor": (lambda: E.LinearRegressor(linear, model_dir=model_dir), Y_REG),
        "DNNLinearCombinedClassifier": (lambda: E.DNNLinearCombinedClassifier(
            linear_feature_columns=linear, dnn_feature_columns=dense, dnn_hidden_units=[4],
            model_dir=model_dir, n_classes=3), Y_MULTI),
        "DNNLinearCombinedRegressor": (lambda: E.DNNLinearCombinedRegressor(
            linear_feature_columns=linear, dnn_feature_columns=dense, dnn_hidden_units=[4],
            model_dir=model_dir), Y_REG),
        "BaselineClassifier": (lambda: E.BaselineClassifier(model_dir=model_dir, n_classes=3), Y_MULTI),
        "BaselineRegressor": (lambda: E.BaselineRegressor(model_dir=model_dir), Y_REG),
        "BoostedTreesClassifier": (lambda: E.BoostedTreesClassifier(
            numeric, n_batches_per_layer=1, n_trees=2, max_depth=2, model_dir=model_dir), Y_CLASS),
        "BoostedTreesRegressor": (lambda: E.BoostedTreesRegressor(
            numeric, n_batches_per_layer=1, n_trees=2, max_depth=2, model_dir=model_dir), Y_REG),
    }
    make, labels = makers[name]
    return make(), labels


def _assert_same(outputs, predictions):
    assert set(outputs) <= set(predictions)
    for key, value in outputs.items():
        ours = value.numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
        expected = np.asarray(predictions[key])
        assert ours.dtype == expected.dtype, key
        np.testing.assert_array_equal(ours, expected, err_msg=key)


PREMADE = [
    "DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor",
    "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor", "BaselineClassifier",
    "BaselineRegressor", "BoostedTreesClassifier", "BoostedTreesRegressor",
]


@pytest.fixture(scope="module")
def premade_exports(tmp_path_factory):
    """Each premade estimator trained briefly and exported with a raw receiver: name ->
    (estimator, export path)."""
    root = tmp_path_factory.mktemp("premade")
    out = {}
    for name in PREMADE:
        estimator, labels = _premade(name, str(root / name / "model"))
        estimator.train(input_fn(labels, 48 if "Boosted" in name else 16), steps=4)
        out[name] = (estimator, estimator.export_saved_model(str(root / name / "export"), _raw_receiver()))
    return out


@pytest.mark.parametrize("name", PREMADE)
def test_every_premade_estimator_exports_and_loads_equal_to_predict(name, premade_exports):
    estimator, path = premade_exports[name]
    assert isinstance(path, bytes) and os.path.basename(path).isdigit()
    loaded = tf.saved_model.load(path)
    assert "predict" in loaded.signatures
    batch = rows(3, 14)
    _assert_same(loaded.signatures["predict"](**batch), predict_batch(estimator, batch))
    one = rows(5, 6)  # batch 1 is served too
    _assert_same(loaded.signatures["predict"](**one), predict_batch(estimator, one))


def test_every_premade_export_loads_in_one_fresh_process(premade_exports, tmp_path):
    """A process that never imported the training code (no estimator built, no feature column
    defined) loads every premade export and answers as Estimator.predict did."""
    batch = rows(14, 25)
    expected = {}
    for name, (estimator, _) in premade_exports.items():
        for key, value in predict_batch(estimator, batch).items():
            expected[f"{name}.{key}"] = value.astype(str) if value.dtype == object else value
    np.savez(tmp_path / "expected.npz", **expected)
    np.savez(tmp_path / "inputs.npz", **{k: v.astype(str) if v.dtype == object else v for k, v in batch.items()})
    paths = {name: os.fsdecode(path) for name, (_, path) in premade_exports.items()}
    script = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        import torchestimator as tf
        inputs = dict(np.load({str(tmp_path / 'inputs.npz')!r}))
        inputs = {{k: v.astype(object) if v.dtype.kind == 'U' else v for k, v in inputs.items()}}
        expected = dict(np.load({str(tmp_path / 'expected.npz')!r}))
        checked = 0
        for name, path in json.loads({json.dumps(paths)!r}).items():
            out = tf.saved_model.load(path).signatures["predict"](**inputs)
            for key, value in out.items():
                value = value.numpy() if hasattr(value, "numpy") else value.astype(bytes).astype(str)
                want = expected[name + "." + key]
                assert np.array_equal(value, want), (name, key)
                checked += 1
        leaked = sorted(m for m in sys.modules if m.startswith(("tests", "_export_testlib")))
        print(json.dumps({{"checked": checked, "leaked": leaked}}))
    """)
    env = package_only_env()
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=str(tmp_path),
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["leaked"] == []
    assert report["checked"] >= 30  # every output of every premade export


def _custom_model_fn(features, labels, mode, params):
    dense, _ = columns()
    net = tf.compat.v1.feature_column.input_layer(features, dense)
    net = tf.keras.layers.Dense(6, activation="relu", name="hidden")(net)
    net = torch.tanh(net) + tf.reduce_mean(net, axis=1, keepdims=True)  # torch and tf ops
    scale = tf.Variable(2.0, name="scale")
    logits = tf.keras.layers.Dense(3, name="logits")(net) * scale
    probabilities = tf.nn.softmax(logits)
    predictions = {"probabilities": probabilities, "class_ids": tf.argmax(logits, axis=1),
                   "x_squared": tf.square(features["x"])}
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions=predictions, export_outputs={
            "scores": E.export.PredictOutput({"probabilities": probabilities}),
            "serving_default": E.export.PredictOutput(predictions)})
    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True))
    train_op = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return E.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=predictions)


@pytest.fixture(scope="module")
def custom_export(tmp_path_factory):
    root = tmp_path_factory.mktemp("custom")
    estimator = E.Estimator(_custom_model_fn, model_dir=str(root / "model"), params={})
    estimator.train(input_fn(Y_MULTI), steps=5)
    path = estimator.export_saved_model(str(root / "export"), _raw_receiver())
    return estimator, path


def test_custom_model_fn_with_feature_columns_keras_tf_and_torch_ops_exports(custom_export):
    estimator, path = custom_export
    loaded = tf.saved_model.load(path)
    assert sorted(loaded.signatures) == ["scores", "serving_default"]
    batch = rows(0, 10)
    expected = predict_batch(estimator, batch)
    _assert_same(loaded.signatures["serving_default"](**batch), expected)
    _assert_same(loaded.signatures["scores"](**batch), expected)
    assert loaded.signatures["serving_default"].method_name == "tensorflow/serving/predict"
    assert loaded.signatures["scores"].outputs["probabilities"].shape == (None, 3)
    assert loaded.signatures["serving_default"].inputs["kind"].dtype is tf.string
    # the loaded model's default signature is also its __call__
    np.testing.assert_array_equal(loaded(**batch)["class_ids"].numpy(), expected["class_ids"])


def test_export_loads_in_a_fresh_process_without_the_training_code(custom_export, tmp_path):
    estimator, path = custom_export
    batch = rows(10, 20)
    expected = predict_batch(estimator, batch)
    np.savez(tmp_path / "inputs.npz", **{k: v.astype(str) if v.dtype == object else v for k, v in batch.items()})
    script = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        import torchestimator as tf
        inputs = dict(np.load({str(tmp_path / 'inputs.npz')!r}))
        inputs = {{k: v.astype(object) if v.dtype.kind == 'U' else v for k, v in inputs.items()}}
        loaded = tf.saved_model.load({os.fsdecode(path)!r})
        out = loaded.signatures["serving_default"](**inputs)
        np.savez({str(tmp_path / 'out.npz')!r}, **{{k: v.numpy() for k, v in out.items()}})
        print(json.dumps(sorted(sys.modules.keys() & {{'tests', 'tests.saved_model'}})))
    """)
    env = package_only_env()
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=str(tmp_path),
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []  # the test code was never imported
    out = dict(np.load(tmp_path / "out.npz"))
    for key in ("probabilities", "class_ids", "x_squared"):
        np.testing.assert_array_equal(out[key], expected[key])


def test_tensor_serving_input_receiver_passes_one_tensor(tmp_path):
    def model_fn(features, labels, mode):
        assert isinstance(features, torch.Tensor)
        logits = tf.keras.layers.Dense(2, name="out")(features)
        if mode == E.ModeKeys.PREDICT:
            return E.EstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.reduce_mean(tf.square(logits - labels[:, None]))
        return E.EstimatorSpec(mode, loss=loss, train_op=tf.compat.v1.train.GradientDescentOptimizer(
            0.1).minimize(loss, global_step=tf.compat.v1.train.get_global_step()))

    x = np.random.default_rng(1).normal(size=(16, 4)).astype("float32")
    estimator = E.Estimator(model_fn, model_dir=str(tmp_path / "m"))
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((x, x[:, 0])).batch(8), steps=2)

    def receiver_fn():
        spec = tf.TensorSpec([None, 4], tf.float32)
        return E.export.TensorServingInputReceiver(spec, {"x": spec})

    loaded = tf.saved_model.load(estimator.export_saved_model(str(tmp_path / "e"), receiver_fn))
    out = loaded.signatures["serving_default"](x=x[:5])
    expected = next(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(x[:5]).batch(5),
                                      yield_single_examples=False))
    np.testing.assert_array_equal(out["logits"].numpy(), expected["logits"])


def test_deprecated_and_experimental_names(custom_export, tmp_path):
    estimator, _ = custom_export
    receiver = _raw_receiver()
    first = estimator.export_savedmodel(str(tmp_path / "a"), receiver)
    second = estimator.experimental_export_all_saved_models(str(tmp_path / "b"), {E.ModeKeys.PREDICT: receiver})
    for path in (first, second):
        assert sorted(tf.saved_model.load(path).signatures) == ["scores", "serving_default"]
    with pytest.raises(ValueError, match="only 'infer' is exported"):
        estimator.experimental_export_all_saved_models(str(tmp_path / "c"), {E.ModeKeys.TRAIN: receiver})


def test_two_exports_in_the_same_second_get_different_versions(custom_export, tmp_path):
    estimator, _ = custom_export
    paths = {estimator.export_saved_model(str(tmp_path), _raw_receiver()) for _ in range(3)}
    assert len(paths) == 3
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(os.fsdecode(p)) for p in paths)


def test_assets_extra_are_copied_and_vocabulary_files_land_in_assets(tmp_path):
    vocab = tmp_path / "kinds.txt"
    vocab.write_text("a\nb\nc\n")
    extra = tmp_path / "notes.txt"
    extra.write_text("hello")
    kind = tf.feature_column.categorical_column_with_vocabulary_file("kind", str(vocab))
    estimator = E.LinearClassifier([kind, tf.feature_column.numeric_column("x")],
                                   model_dir=str(tmp_path / "m"))
    estimator.train(input_fn(Y_CLASS), steps=3)
    path = os.fsdecode(estimator.export_saved_model(str(tmp_path / "e"), _raw_receiver(),
                                                    assets_extra={"docs/notes.txt": str(extra)}))
    assert open(os.path.join(path, "assets.extra", "docs", "notes.txt")).read() == "hello"
    assert open(os.path.join(path, "assets", "kinds.txt")).read() == "a\nb\nc\n"
    batch = rows(0, 8)
    expected = predict_batch(estimator, batch)
    vocab.unlink()  # the export reads its own copy
    _assert_same(tf.saved_model.load(path).signatures["predict"](**batch), expected)
