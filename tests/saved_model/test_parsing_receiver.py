"""Exports with a parsing receiver: serialized tf.train.Examples in, TF's signatures out
(`serving_default`/`classification`/`regression` take `inputs`, `predict` takes `examples`),
equal to Estimator.predict; plain feature values through `call_on_features`."""

from __future__ import annotations

import numpy as np
import pytest
from _export_testlib import (
    DATA,
    Y_CLASS,
    Y_REG,
    columns,
    input_fn,
    predict_batch,
    rows,
)

import torchestimator as tf

E = tf.estimator
FC = tf.feature_column


def _serialize(features):
    size = len(next(iter(features.values())))
    out = []
    for i in range(size):
        example = tf.train.Example()
        for key, values in features.items():
            value = values[i]
            feature = example.features.feature[key]
            if isinstance(value, str):
                feature.bytes_list.value.append(value.encode())
            elif isinstance(value, (np.floating, float)):
                feature.float_list.value.append(float(value))
            else:
                feature.int64_list.value.append(int(value))
        out.append(example.SerializeToString())
    return out


@pytest.fixture(scope="module")
def binary_export(tmp_path_factory):
    root = tmp_path_factory.mktemp("binary")
    _, linear = columns()
    dense, _ = columns()
    estimator = E.DNNLinearCombinedClassifier(linear_feature_columns=linear, dnn_feature_columns=dense,
                                              dnn_hidden_units=[4], model_dir=str(root / "m"))
    estimator.train(input_fn(Y_CLASS), steps=4)
    spec = FC.make_parse_example_spec(linear + dense)
    path = estimator.export_saved_model(str(root / "e"), E.export.build_parsing_serving_input_receiver_fn(spec))
    return estimator, tf.saved_model.load(path)


def test_classifier_signatures_follow_tensorflow(binary_export):
    _, loaded = binary_export
    assert sorted(loaded.signatures) == ["classification", "predict", "regression", "serving_default"]
    methods = {k: v.method_name for k, v in loaded.signatures.items()}
    assert methods == {"classification": "tensorflow/serving/classify", "predict": "tensorflow/serving/predict",
                       "regression": "tensorflow/serving/regress", "serving_default": "tensorflow/serving/classify"}
    assert list(loaded.signatures["serving_default"].inputs) == ["inputs"]
    assert list(loaded.signatures["predict"].inputs) == ["examples"]
    assert loaded.signatures["predict"].inputs["examples"].dtype is tf.string
    assert sorted(loaded.signatures["classification"].outputs) == ["classes", "scores"]
    assert list(loaded.signatures["regression"].outputs) == ["outputs"]
    assert sorted(loaded.feature_spec) == ["city", "kind", "n", "x"]


def test_serialized_examples_give_estimator_predictions(binary_export):
    estimator, loaded = binary_export
    batch = rows(0, 12)
    expected = predict_batch(estimator, batch)
    serialized = _serialize(batch)
    predict = loaded.signatures["predict"](examples=serialized)
    for key in ("logits", "logistic", "probabilities", "class_ids", "classes", "all_classes"):
        np.testing.assert_array_equal(np.asarray(predict[key]), np.asarray(expected[key]), err_msg=key)
    classify = loaded.signatures["classification"](inputs=serialized)
    np.testing.assert_array_equal(classify["scores"].numpy(), expected["probabilities"])
    np.testing.assert_array_equal(classify["classes"], expected["all_classes"])
    regress = loaded.signatures["regression"](inputs=serialized)
    np.testing.assert_array_equal(regress["outputs"].numpy(), expected["logistic"])
    # call_on_features: the same rows without building Examples
    plain = {k: [v.item() if hasattr(v, "item") else v for v in values] for k, values in batch.items()}
    on_features = loaded.signatures["predict"].call_on_features(plain)
    np.testing.assert_array_equal(on_features["probabilities"].numpy(), expected["probabilities"])


def test_iris_dnn_classifier_parsing_export(tmp_path):
    (x, y), _ = tf.datasets.iris.load_data()
    names = tf.datasets.iris.FEATURE_NAMES
    cols = [FC.numeric_column(k) for k in names]
    estimator = E.DNNClassifier([10, 10], cols, n_classes=3, model_dir=str(tmp_path / "m"),
                                label_vocabulary=list(tf.datasets.iris.SPECIES))
    features = {k: x[:, i].astype("float32") for i, k in enumerate(names)}
    labels = np.asarray(tf.datasets.iris.SPECIES, dtype=object)[y]
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(32), steps=20)
    receiver = E.export.build_parsing_serving_input_receiver_fn(FC.make_parse_example_spec(cols))
    loaded = tf.saved_model.load(estimator.export_saved_model(str(tmp_path / "e"), receiver))
    batch = {k: v[:20] for k, v in features.items()}
    expected = predict_batch(estimator, batch)
    out = loaded.signatures["serving_default"](inputs=_serialize(batch))
    np.testing.assert_array_equal(out["scores"].numpy(), expected["probabilities"])
    assert out["classes"][0].tolist() == [s.encode() for s in tf.datasets.iris.SPECIES]
    predict = loaded.signatures["predict"](examples=_serialize(batch))
    np.testing.assert_array_equal(predict["classes"], expected["classes"])
    # plain values (JSON-like lists, ints among the floats) give the same answer as Examples
    plain = {k: [float(v) for v in values] for k, values in batch.items()}
    plain[names[0]][0] = int(plain[names[0]][0]) if plain[names[0]][0].is_integer() else plain[names[0]][0]
    on_features = loaded.signatures["predict"].call_on_features(plain)
    np.testing.assert_array_equal(on_features["probabilities"].numpy(), predict["probabilities"].numpy())
    with pytest.raises(ValueError, match="unknown feature"):
        loaded.signatures["predict"].call_on_features({**plain, "colour": ["red"] * 20})
    with pytest.raises(ValueError, match="different numbers of examples"):
        loaded.signatures["predict"].call_on_features({**plain, names[1]: [1.0]})
    with pytest.raises(TypeError, match=f"Feature '{names[2]}' of example 0 is a float feature"):
        loaded.signatures["predict"].call_on_features({**plain, names[2]: ["x"] * 20})


def test_regressor_has_regression_signature(tmp_path):
    dense, _ = columns()
    estimator = E.DNNRegressor([4], dense, model_dir=str(tmp_path / "m"))
    estimator.train(input_fn(Y_REG), steps=3)
    receiver = E.export.build_parsing_serving_input_receiver_fn(FC.make_parse_example_spec(dense))
    loaded = tf.saved_model.load(estimator.export_saved_model(str(tmp_path / "e"), receiver))
    assert sorted(loaded.signatures) == ["predict", "regression", "serving_default"]
    batch = rows(0, 6)
    expected = predict_batch(estimator, batch)
    out = loaded.signatures["serving_default"](inputs=_serialize(batch))
    np.testing.assert_array_equal(out["outputs"].numpy(), expected["predictions"])


def test_default_values_fill_missing_features(tmp_path):
    cols = [FC.numeric_column("x", default_value=0.5), FC.numeric_column("y")]
    estimator = E.LinearRegressor(cols, model_dir=str(tmp_path / "m"))
    data = {"x": DATA["x"], "y": DATA["x"] * 0 + 1}
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((data, Y_REG)).batch(16), steps=3)
    receiver = E.export.build_parsing_serving_input_receiver_fn(FC.make_parse_example_spec(cols))
    loaded = tf.saved_model.load(estimator.export_saved_model(str(tmp_path / "e"), receiver))
    only_y = _serialize({"y": np.array([2.0], "float32")})
    out = loaded.signatures["predict"](examples=only_y)["predictions"]
    expected = predict_batch(estimator, {"x": np.array([0.5], "float32"), "y": np.array([2.0], "float32")})
    np.testing.assert_array_equal(out.numpy(), expected["predictions"])
    with pytest.raises(ValueError, match="Feature: y .* is required"):  # no default: names the key
        loaded.signatures["predict"](examples=_serialize({"x": np.array([1.0], "float32")}))


def test_tf1_style_receiver_with_placeholder_and_parse_example(binary_export, tmp_path):
    estimator, reference = binary_export
    _, linear = columns()
    dense, _ = columns()
    spec = FC.make_parse_example_spec(linear + dense)

    def serving_input_receiver_fn():  # as TF 1.x programs wrote it
        serialized = tf.compat.v1.placeholder(dtype=tf.string, shape=[None], name="input_example_tensor")
        receiver_tensors = {"examples": serialized}
        features = tf.io.parse_example(serialized, spec)
        return E.export.ServingInputReceiver(features, receiver_tensors)

    loaded = tf.saved_model.load(estimator.export_saved_model(str(tmp_path), serving_input_receiver_fn))
    assert sorted(loaded.signatures) == sorted(reference.signatures)
    serialized = _serialize(rows(20, 26))
    np.testing.assert_array_equal(loaded.signatures["predict"](examples=serialized)["logits"].numpy(),
                                  reference.signatures["predict"](examples=serialized)["logits"].numpy())
