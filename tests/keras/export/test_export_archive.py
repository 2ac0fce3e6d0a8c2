"""`tf.keras.export.ExportArchive`: endpoints written as an export that `tf.saved_model.load`
opens; errors as Keras 2.15's (messages recorded from TF 2.15)."""

import os

import numpy as np
import pytest
from safetensors.numpy import load_file

import torchestimator as tf


def make_model():
    tf.keras.utils.set_random_seed(0)
    inp = tf.keras.Input((3,), name="feat")
    hidden = tf.keras.layers.Dense(4, activation="relu")(inp)
    out = tf.keras.layers.Dense(2)(tf.keras.layers.Dropout(0.5)(hidden))
    return tf.keras.Model(inp, out)


X = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")


def test_endpoints_round_trip(tmp_path, capsys):
    model = make_model()
    archive = tf.keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.call,
                         input_signature=[tf.TensorSpec((None, 3), tf.float32)])
    archive.add_endpoint("both", lambda inputs: {"logits": model(inputs), "twice": 2 * model(inputs)},
                         input_signature=[tf.TensorSpec((None, 3), tf.float32)])
    archive.add_variable_collection("weights", model.variables)
    path = str(tmp_path / "archive")
    model.train()
    archive.write_out(path)
    assert model.training  # the tracked model's mode is put back
    assert "Saved artifact at" in capsys.readouterr().out
    assert len(archive.variables) == 4 and len(archive.trainable_variables) == 4

    reloaded = tf.saved_model.load(path)
    assert sorted(reloaded.signatures) == ["both", "serve", "serving_default"]
    serve = reloaded.signatures["serve"]
    assert list(serve.inputs) == ["inputs"] and list(serve.outputs) == ["output_0"]
    expected = model.predict(X, verbose=0)
    np.testing.assert_allclose(serve(inputs=X)["output_0"].numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(reloaded.signatures["serving_default"](X)["output_0"].numpy(),
                               expected, rtol=1e-5, atol=1e-6)
    both = reloaded.signatures["both"](inputs=X)
    np.testing.assert_allclose(both["twice"].numpy(), 2 * expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(both["logits"].numpy(), expected, rtol=1e-5, atol=1e-6)

    stored = load_file(os.path.join(path, "assets.extra", "keras_variable_collections.safetensors"))
    assert sorted(stored) == ["weights/0", "weights/1", "weights/2", "weights/3"]
    np.testing.assert_allclose(stored["weights/0"], model.get_weights()[0])


def test_multiple_positional_and_list_inputs(tmp_path):
    model = make_model()
    archive = tf.keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("sum", lambda a, b: [model(a), model(a) + model(b)],
                         input_signature=[tf.TensorSpec((None, 3), tf.float32),
                                          tf.TensorSpec((None, 3), tf.float32)])
    archive.write_out(str(tmp_path / "a"))
    sig = tf.saved_model.load(str(tmp_path / "a")).signatures["sum"]
    assert sorted(sig.inputs) == ["a", "b"] and sorted(sig.outputs) == ["output_0", "output_1"]
    out = sig(a=X, b=2 * X)
    expected = model.predict(X, verbose=0) + model.predict(2 * X, verbose=0)
    np.testing.assert_allclose(out["output_1"].numpy(), expected, rtol=1e-5, atol=1e-5)


def test_endpoints_with_different_inputs_are_refused(tmp_path):
    model = make_model()
    archive = tf.keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.call, input_signature=[tf.TensorSpec((None, 3))])
    archive.add_endpoint("other", lambda x: model(x), input_signature=[tf.TensorSpec((None, 3))])
    with pytest.raises(ValueError, match="must take the same inputs.*one ExportArchive per"):
        archive.write_out(str(tmp_path / "a"))
    assert not os.path.exists(tmp_path / "a")


def test_errors_as_keras():
    model = make_model()
    archive = tf.keras.export.ExportArchive()
    with pytest.raises(ValueError, match="No endpoints have been set yet. Call add_endpoint()."):
        archive.write_out("unused")
    archive.add_endpoint("serve", model.call, input_signature=[tf.TensorSpec((None, 3))])
    with pytest.raises(ValueError, match="Endpoint name 'serve' is already taken."):
        archive.add_endpoint("serve", model.call, input_signature=[tf.TensorSpec((None, 3))])
    with pytest.raises(ValueError, match="If the `fn` argument provided is not a `tf.function`"):
        archive.add_endpoint("x", model.call)
    with pytest.raises(ValueError, match="Invalid resource type. Expected an instance of a "):
        archive.track(object())
    with pytest.raises(ValueError, match="The layer provided has not yet been built."):
        archive.track(tf.keras.layers.Dense(2))
    with pytest.raises(ValueError, match="Expected `variables` to be a list/tuple/set."):
        archive.add_variable_collection("q", model.variables[0])
    with pytest.raises(ValueError, match="Expected all elements in `variables` to be `tf.Variable`"):
        archive.add_variable_collection("q", [1])
    with pytest.raises(ValueError, match="input_signature` must be a list"):
        archive.add_endpoint("y", model.call, input_signature=[(3,)])
