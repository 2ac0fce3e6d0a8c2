"""tf.keras.estimator.model_to_estimator: Sequential, functional (multi-input, multi-output) and
subclassed models as Estimators; metrics equal keras evaluate on the same data and weights;
predictions keyed by output names; the user's model left unchanged; TF's errors."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import torchestimator as tf

RNG = np.random.default_rng(0)
X = RNG.normal(size=(64, 4)).astype(np.float32)
Y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
Z = (X[:, 2] - X[:, 3]).astype(np.float32)[:, None]


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def dataset_fn(features, labels, batch_size=16, repeat=False):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        if repeat:
            ds = ds.repeat()
        return ds.batch(batch_size)

    return input_fn


def sequential():
    # Checkpoint variables are named by the layers' names: name them so that a model built
    # again in this process (where default names count up) reads the checkpoint.
    model = tf.keras.Sequential(name="iris", layers=[
        tf.keras.Input(shape=(4,), name="x"),
        tf.keras.layers.Dense(8, activation="relu", name="hidden"),
        tf.keras.layers.Dense(3, activation="softmax", name="prob"),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def assert_close(estimator_metrics, keras_metrics, names):
    for name in names:
        np.testing.assert_allclose(float(estimator_metrics[name]), float(keras_metrics[name]),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


def test_sequential_train_evaluate_predict_match_keras(tmp_path):
    model = sequential()
    model.fit(X, Y, batch_size=16, epochs=1, verbose=0)
    before = [w.copy() for w in model.get_weights()]
    est = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=str(tmp_path))
    # Before training the Estimator starts from the Keras model's weights.
    result = est.evaluate(dataset_fn({"x": X}, Y))
    keras_result = model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True)
    assert set(result) == {"accuracy", "loss", "global_step"}
    assert_close(result, keras_result, ["accuracy", "loss"])
    assert int(result["global_step"]) == 0

    est.train(dataset_fn({"x": X}, Y, repeat=True), steps=20)
    # The user's model is unchanged; a Keras model given the Estimator's weights agrees with it.
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    trained = est.evaluate(dataset_fn({"x": X}, Y))
    assert int(trained["global_step"]) == 20
    assert float(trained["loss"]) < float(result["loss"])
    twin = sequential()
    twin.set_weights([_value(est, layer, kind) for layer in ("hidden", "prob")
                      for kind in ("kernel", "bias")])
    assert_close(trained, twin.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True),
                 ["accuracy", "loss"])

    # A single-input model takes a bare tensor too; predictions are keyed by the output layer.
    preds = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(X[:5]).batch(5)))
    assert set(preds[0]) == {"prob"}
    np.testing.assert_allclose(np.stack([p["prob"] for p in preds]), twin.predict(X[:5], verbose=0),
                               rtol=1e-5, atol=1e-6)
    assert os.path.exists(os.path.join(str(tmp_path), "keras", "keras_model.weights.safetensors"))


def test_functional_multi_input_multi_output_metrics_equal_keras(tmp_path):
    a = tf.keras.Input(shape=(2,), name="a")
    b = tf.keras.Input(shape=(2,), name="b")
    h = tf.keras.layers.Dense(6, activation="tanh", name="shared")(tf.keras.layers.Concatenate()([a, b]))
    cls = tf.keras.layers.Dense(1, activation="sigmoid", name="cls")(h)
    reg = tf.keras.layers.Dense(1, name="reg")(h)
    model = tf.keras.Model(inputs=[a, b], outputs=[cls, reg])
    model.compile(optimizer="sgd", loss={"cls": "binary_crossentropy", "reg": "mse"},
                  loss_weights={"cls": 1.0, "reg": 0.5},
                  metrics={"cls": ["accuracy"], "reg": ["mae"]})
    features = {"a": X[:, :2], "b": X[:, 2:]}
    labels = {"cls": Y.astype(np.float32)[:, None], "reg": Z}
    est = tf.keras.estimator.model_to_estimator(
        model, model_dir=str(tmp_path), metric_names_map={"cls_accuracy": "acc", "reg_mae": "mae"})
    est.train(dataset_fn(features, labels, repeat=True), steps=8)
    result = est.evaluate(dataset_fn(features, labels))
    assert set(result) == {"acc", "mae", "loss", "global_step"}
    # The same weights in the Keras model give the same metrics.
    for layer in ("shared", "cls", "reg"):
        model.get_layer(layer).set_weights([_value(est, layer, "kernel"), _value(est, layer, "bias")])
    keras_result = model.evaluate([X[:, :2], X[:, 2:]], [labels["cls"], labels["reg"]], batch_size=16,
                                  verbose=0, return_dict=True)
    assert_close({"cls_accuracy": result["acc"], "reg_mae": result["mae"], "loss": result["loss"]},
                 keras_result, ["cls_accuracy", "reg_mae", "loss"])
    # Evaluating again gives the same numbers (the metrics start afresh each evaluation).
    again = est.evaluate(dataset_fn(features, labels))
    assert_close(again, result, ["acc", "mae", "loss"])
    preds = next(est.predict(lambda: tf.data.Dataset.from_tensor_slices(features).batch(4)))
    assert set(preds) == {"cls", "reg"} and preds["cls"].shape == (1,)


def _value(est, layer, kind):
    matches = [n for n in est.get_variable_names()
               if n.endswith(f"{layer}/{kind}") and not n.startswith("training/")]
    assert len(matches) == 1, (layer, kind, est.get_variable_names())
    return est.get_variable_value(matches[0])


class Subclassed(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(5, activation="relu")
        self.out = tf.keras.layers.Dense(1)

    def call(self, inputs, training=None):
        return self.out(self.hidden(inputs))


def test_subclassed_model(tmp_path):
    model = Subclassed()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    model.evaluate(X, Z, verbose=0)  # built (and its metrics used) before conversion
    est = tf.keras.estimator.model_to_estimator(model, model_dir=str(tmp_path))
    first = est.evaluate(dataset_fn({"features": X}, Z))
    keras_result = model.evaluate(X, Z, batch_size=16, verbose=0, return_dict=True)
    assert_close(first, keras_result, ["mae", "loss"])
    est.train(dataset_fn({"features": X}, Z, repeat=True), steps=10)
    assert float(est.evaluate(dataset_fn({"features": X}, Z))["loss"]) < float(first["loss"])
    np.testing.assert_allclose(model.evaluate(X, Z, batch_size=16, verbose=0, return_dict=True)["loss"],
                               keras_result["loss"])  # the user's model did not train
    pred = next(est.predict(lambda: tf.data.Dataset.from_tensor_slices({"features": X}).batch(8)))
    assert set(pred) == {"output_1"}


def test_resumes_from_its_checkpoint_not_from_the_keras_weights(tmp_path):
    model = sequential()
    est = tf.keras.estimator.model_to_estimator(model, model_dir=str(tmp_path))
    est.train(dataset_fn({"x": X}, Y, repeat=True), steps=5)
    trained = est.evaluate(dataset_fn({"x": X}, Y))
    again = tf.keras.estimator.model_to_estimator(sequential(), model_dir=str(tmp_path))
    assert_close(again.evaluate(dataset_fn({"x": X}, Y)), trained, ["loss", "accuracy"])
    again.train(dataset_fn({"x": X}, Y, repeat=True), steps=5)
    assert int(again.evaluate(dataset_fn({"x": X}, Y))["global_step"]) == 10
    # The optimizer's state is in the checkpoint under TF's names.
    assert any(n.startswith("training/Adam/") for n in again.get_variable_names())


def test_keras_model_path(tmp_path):
    model = sequential()
    model.fit(X, Y, batch_size=16, epochs=1, verbose=0)
    path = str(tmp_path / "model.keras")
    model.save(path)
    est = tf.keras.estimator.model_to_estimator(keras_model_path=path, model_dir=str(tmp_path / "est"))
    result = est.evaluate(dataset_fn({"x": X}, Y))
    assert_close(result, model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True),
                 ["loss", "accuracy"])


def test_train_and_evaluate_and_export(tmp_path):
    est = tf.keras.estimator.model_to_estimator(sequential(), model_dir=str(tmp_path),
                                                config=tf.estimator.RunConfig(save_checkpoints_steps=5))
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None, 4], tf.float32)})
    result, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(dataset_fn({"x": X}, Y, repeat=True), max_steps=10),
        tf.estimator.EvalSpec(dataset_fn({"x": X}, Y), throttle_secs=0,
                              exporters=tf.estimator.LatestExporter("latest", receiver)))
    assert int(result["global_step"]) == 10
    loaded = tf.saved_model.load(exports[0])
    out = loaded.signatures["serving_default"](x=X[:3])
    expected = np.stack([p["prob"] for p in est.predict(
        lambda: tf.data.Dataset.from_tensor_slices({"x": X[:3]}).batch(3))])
    np.testing.assert_allclose(np.asarray(out["prob"]), expected, rtol=1e-5, atol=1e-6)


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="Either `keras_model` or `keras_model_path` needs to be provided"):
        tf.keras.estimator.model_to_estimator()
    with pytest.raises(ValueError, match="but not both"):
        tf.keras.estimator.model_to_estimator(sequential(), keras_model_path="m.keras")
    uncompiled = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    with pytest.raises(ValueError, match="has not been compiled yet"):
        tf.keras.estimator.model_to_estimator(uncompiled)
    with pytest.raises(ValueError, match="does not exist"):
        tf.keras.estimator.model_to_estimator(keras_model_path=str(tmp_path / "none.keras"))
    with pytest.raises(ValueError, match="Unknown checkpoint format 'h5'"):
        tf.keras.estimator.model_to_estimator(sequential(), checkpoint_format="h5")
    est = tf.keras.estimator.model_to_estimator(sequential(), model_dir=str(tmp_path / "a"))
    with pytest.raises(ValueError, match=r"does not have the expected inputs keys.*\['x'\].*\['y'\]"):
        est.train(dataset_fn({"y": X}, Y), steps=1)
    bad_map = tf.keras.estimator.model_to_estimator(sequential(), model_dir=str(tmp_path / "b"),
                                                    metric_names_map={"acc": "a"})
    with pytest.raises(ValueError, match="Invalid `metric_names_map`"):
        bad_map.evaluate(dataset_fn({"x": X}, Y))


def test_sample_weights_as_tf_passes_them(tmp_path):
    model = tf.keras.Sequential(name="weighted", layers=[
        tf.keras.Input(shape=(4,), name="x"), tf.keras.layers.Dense(1, name="out")])
    model.compile(optimizer="sgd", loss="mse", weighted_metrics=["mae"])
    weights = np.linspace(0.0, 2.0, len(X)).astype(np.float32)
    est = tf.keras.estimator.model_to_estimator(model, model_dir=str(tmp_path))
    result = est.evaluate(dataset_fn({"features": {"x": X}, "sample_weights": weights}, Z))
    keras_result = model.evaluate(X, Z, sample_weight=weights, batch_size=16, verbose=0, return_dict=True)
    assert_close(result, keras_result, ["loss", "mae"])  # Keras: no "weighted_" prefix without a clash
