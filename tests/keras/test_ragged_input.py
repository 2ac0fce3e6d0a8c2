"""tf.keras.Input(ragged=True): RaggedTensor inputs through Embedding / Lambda / pooling, in
call, predict and fit, against TF 2.15's recorded outputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from _ragged_fixtures import TF, same

EMB = np.arange(30, dtype=np.float32).reshape(10, 3) / 10.0
DW, DB = np.array([[0.5], [-1.0], [0.25]], np.float32), np.array([0.1], np.float32)


def rt():
    return tf.ragged.constant([[1, 2], [3], [4, 5, 6], [7]], dtype=tf.int64)


def model(lambda_first):
    x = tf.keras.Input(shape=(None,), ragged=True, dtype="int64")
    h = tf.keras.layers.Lambda(lambda t: t.to_tensor())(x) if lambda_first else x
    e = tf.keras.layers.Embedding(10, 3)
    h = e(h)
    p = tf.keras.layers.GlobalAveragePooling1D()(h)
    d = tf.keras.layers.Dense(1)
    m = tf.keras.Model(x, d(p))
    e.set_weights([EMB])
    d.set_weights([DW, DB])
    return m, e, h


@pytest.mark.parametrize("lambda_first,key", [(False, "keras_embedding"), (True, "keras_lambda")])
def test_call_and_predict_match_tf(lambda_first, key):
    m, _, _ = model(lambda_first)
    got = m(rt())
    np.testing.assert_allclose(got.detach().numpy(), TF[key + "_call"]["value"], rtol=1e-5)
    pred = m.predict(rt(), verbose=0)
    np.testing.assert_allclose(pred, TF[key + "_predict"]["value"], rtol=1e-5)
    ds = tf.data.Dataset.from_tensor_slices(rt()).batch(4)
    np.testing.assert_allclose(m.predict(ds, verbose=0), TF[key + "_predict"]["value"], rtol=1e-5)


def test_embedding_gives_ragged_like_tf():
    _, e, h = model(False)
    out = e(rt())
    same(out, TF["keras_embedding_out"], approx=True)
    assert getattr(h, "ragged", False) is True and h.shape == (None, None, 3)


def test_fit_on_ragged_arrays_and_datasets_lowers_the_loss():
    torch.manual_seed(0)
    m, _, _ = model(False)
    m.compile(tf.keras.optimizers.SGD(0.05), "mse")
    y = np.array([[1.0], [0.0], [1.0], [0.0]], np.float32)
    first = m.evaluate(rt(), y, verbose=0)
    m.fit(rt(), y, epochs=20, batch_size=2, shuffle=True, verbose=0)
    ds = tf.data.Dataset.from_tensor_slices((rt(), y)).batch(2)
    hist = m.fit(ds, epochs=5, verbose=0).history["loss"]
    assert hist[-1] < first


def test_input_config_and_sparse_with_ragged_refused():
    layer = tf.keras.layers.InputLayer(input_shape=(None,), ragged=True, dtype="int64")
    want = TF["keras_input_config"]["value"]
    got = layer.get_config()
    assert {k: got[k] for k in ("batch_input_shape", "dtype", "ragged", "sparse")} == \
        {k: want[k] for k in ("batch_input_shape", "dtype", "ragged", "sparse")}
    with pytest.raises(ValueError, match="both sparse and ragged"):
        tf.keras.Input(shape=(3,), sparse=True, ragged=True)


def test_other_layers_get_the_dense_tensor():
    x = tf.keras.Input(shape=(None,), ragged=True)
    y = tf.keras.layers.Lambda(lambda t: t.to_tensor(shape=[None, 3]))(x)
    m = tf.keras.Model(x, tf.keras.layers.Dense(2, kernel_initializer="ones")(y))
    out = m(tf.ragged.constant([[1.0, 2.0], [3.0]]))
    assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    flat = tf.keras.layers.Flatten()(tf.ragged.constant([[1.0, 2.0], [3.0]]))
    assert flat.tolist() == [[1.0, 2.0], [3.0, 0.0]]
