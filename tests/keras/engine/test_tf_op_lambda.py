"""Operators on symbolic tensors make `TFOpLambda` layers named as Keras 2.15 names them."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.keras.engine.op_layer import OpLayer, SlicingOpLambda, TFOpLambda, tf_op_call

# [(type(l).__name__, l.name) for l in m.layers] printed by TF 2.15.1 for the model of _model().
TF215_LAYERS = [
    ("InputLayer", "input_1"), ("TFOpLambda", "tf.__operators__.add"), ("InputLayer", "input_2"),
    ("TFOpLambda", "tf.math.multiply"), ("SlicingOpLambda", "tf.__operators__.getitem"),
    ("TFOpLambda", "tf.__operators__.add_1"), ("TFOpLambda", "tf.math.subtract"),
    ("TFOpLambda", "tf.math.negative"), ("TFOpLambda", "tf.math.truediv"),
    ("TFOpLambda", "tf.linalg.matmul"), ("TFOpLambda", "tf.math.pow"), ("TFOpLambda", "tf.math.abs"),
    ("TFOpLambda", "tf.math.less"), ("TFOpLambda", "tf.math.subtract_1"),
]


def _model():
    tf.keras.backend.clear_session()
    x = tf.keras.Input((4,))
    y = tf.keras.Input((4,))
    a = x + 3.0
    b = a * y
    e = b[:, 1]
    f = x + y
    g = 2.0 - x
    h = -x
    i = x / 2
    j = x @ np.ones((4, 2), "float32")
    k = x**2
    l_ = abs(x)
    m = x < 1
    u = x - y
    return tf.keras.Model([x, y], [e, f, g, h, i, j, k, l_, m, u])


def _data():
    rng = np.random.default_rng(0)
    return [rng.normal(size=(3, 4)).astype("float32"), rng.normal(size=(3, 4)).astype("float32")]


def _assert_same(a, b):
    for p, q in zip(a, b):
        np.testing.assert_allclose(np.asarray(p), np.asarray(q), rtol=1e-6)


def test_layer_classes_and_names_match_keras_215():
    model = _model()
    assert [(type(layer).__name__, layer.name) for layer in model.layers] == TF215_LAYERS


def test_config_names_the_tf_function():
    model = _model()
    config = model.get_layer("tf.math.multiply").get_config()
    assert config["name"] == "tf.math.multiply"
    assert config["function"] == "math.multiply"
    layer_configs = {c["name"]: c for c in model.get_config()["layers"]}
    assert layer_configs["tf.math.truediv"]["class_name"] == "TFOpLambda"
    assert layer_configs["tf.__operators__.getitem"]["class_name"] == "SlicingOpLambda"


def test_oplayer_is_an_alias():
    assert OpLayer is TFOpLambda
    assert isinstance(_model().get_layer("tf.__operators__.getitem"), SlicingOpLambda)


def test_from_config_and_keras_file_round_trip(tmp_path):
    model = _model()
    data = _data()
    expected = model.predict(data, verbose=0)
    clone = tf.keras.Model.from_config(model.get_config())
    _assert_same(clone.predict(data, verbose=0), expected)
    path = str(tmp_path / "ops.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert [(type(layer).__name__, layer.name) for layer in loaded.layers] == TF215_LAYERS
    _assert_same(loaded.predict(data, verbose=0), expected)


def test_configs_saved_with_the_old_oplayer_name_load():
    model = _model()
    data = _data()
    old = copy.deepcopy(model.get_config())
    for layer in old["layers"]:  # as written before TFOpLambda: class OpLayer, no "function"
        if layer["class_name"] in ("TFOpLambda", "SlicingOpLambda"):
            layer["class_name"] = "OpLayer"
            layer.pop("module", None)
            layer.pop("registered_name", None)
            layer["config"].pop("function")
    loaded = tf.keras.Model.from_config(old)
    _assert_same(loaded.predict(data, verbose=0), model.predict(data, verbose=0))
    assert type(loaded.get_layer("tf.__operators__.getitem")) is SlicingOpLambda


def test_keras_style_config_with_only_function_loads():
    layer = TFOpLambda.from_config({"name": "tf.math.multiply_7", "trainable": True,
                                    "dtype": "float32", "function": "math.multiply"})
    assert layer.op == "multiply" and layer.name == "tf.math.multiply_7"


def test_tf_function_call_records_a_named_layer(tmp_path):
    tf.keras.backend.clear_session()
    x = tf.keras.Input((4,))
    a = tf_op_call("nn.relu", x)
    b = tf_op_call("math.reduce_sum", a, axis=1, keepdims=True)
    model = tf.keras.Model(x, tf_op_call("nn.relu", b))
    assert [layer.name for layer in model.layers] == [
        "input_1", "tf.nn.relu", "tf.math.reduce_sum", "tf.nn.relu_1"]
    assert model.layers[2].get_config()["function"] == "math.reduce_sum"
    data = np.array([[1.0, -2.0, 3.0, -4.0]], "float32")
    np.testing.assert_allclose(model.predict(data, verbose=0), [[4.0]])
    path = str(tmp_path / "fn.keras")
    model.save(path)
    np.testing.assert_allclose(tf.keras.models.load_model(path).predict(data, verbose=0), [[4.0]])


def test_unknown_function_is_an_error_that_names_it():
    with pytest.raises(ValueError, match="nn.no_such_op"):
        TFOpLambda(function="nn.no_such_op")
    with pytest.raises(ValueError, match="unknown op 'nope'"):
        TFOpLambda("nope")


def _rewrite_tf_op(path, function, arguments):
    import json
    import zipfile

    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    config = json.loads(members["config.json"])
    for layer in config["config"]["layers"]:
        if layer["class_name"] == "TFOpLambda":
            layer["config"].update(function=function, arguments=arguments)
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("function", [
    "datasets.iris.os.system",   # a module's import of os, reached through a public namespace
    "io.gfile.remove",           # a public function that is not a tensor op
    "compat.v1.write_file",
    "_ops.image_codecs.write_file",
    "nn.relu.__globals__",
])
def test_a_crafted_tf_op_naming_a_gadget_is_refused_and_runs_nothing(tmp_path, function):
    """A `.keras` file names the function of its TFOpLambda layers and gives all its arguments
    (`{"__symbolic__": i}` marks where the inputs go): only TF's public tensor ops resolve, so
    a file cannot call os.system or write and remove files through the layer."""
    inputs = tf.keras.Input(shape=(2,))
    model = tf.keras.Model(inputs, tf.nn.relu(inputs))
    path = tmp_path / "crafted.keras"
    model.save(path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    pwned = tmp_path / "pwned"
    _rewrite_tf_op(path, function, {"args": [f"touch {pwned}" if "system" in function
                                             else str(victim), "x"][:1 if "system" in function
                                                                     or "remove" in function else 2],
                                    "kwargs": {}, "symbolic": 1})
    with pytest.raises(ValueError, match="is not a TF op"):
        tf.keras.models.load_model(path)
    assert not pwned.exists() and victim.read_text() == "keep"
