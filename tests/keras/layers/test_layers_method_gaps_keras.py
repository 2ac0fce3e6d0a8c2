"""Keras 2.15 layer methods: Conv.convolution_op, the GRU/LSTM layers' dropout-mask methods,
the lookups' vocab_size and save_assets/load_assets, the index lookups' and
TextVectorization's store hooks, and make_adapt_function/compile of the adapting layers.
Expected values were printed with TensorFlow 2.15.1."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import torchestimator as tf


def _conv_case(rng: np.random.RandomState):
    x = rng.rand(2, 7, 6, 3).astype("float32")
    kernel = rng.rand(3, 2, 3, 4).astype("float32")
    return x, kernel


@pytest.mark.parametrize("kwargs, shape, total, head", [
    (dict(padding="same", strides=2), (2, 4, 3, 4), 357.8078, [3.8565, 3.3678, 4.5316]),
    (dict(padding="valid", dilation_rate=2), (2, 3, 4, 4), 400.142, [5.0102, 5.8173, 6.3364]),
])
def test_convolution_op_is_tf_nn_convolution_with_the_layer_settings(kwargs, shape, total, head):
    x, kernel = _conv_case(np.random.RandomState(0))
    conv = tf.keras.layers.Conv2D(4, 3, **kwargs)
    conv.build((None, 7, 6, 3))
    out = np.asarray(conv.convolution_op(tf.constant(x), tf.constant(kernel)))
    assert out.shape == shape
    np.testing.assert_allclose(out.sum(), total, rtol=1e-5)
    np.testing.assert_allclose(out.ravel()[:3], head, atol=1e-4)


def test_convolution_op_channels_first_causal_depthwise_and_transpose():
    rng = np.random.RandomState(0)
    x, kernel = _conv_case(rng)
    first = tf.keras.layers.Conv2D(4, 3, padding="same", data_format="channels_first")
    first.build((None, 3, 7, 6))
    xf = rng.rand(2, 3, 7, 6).astype("float32")
    out = np.asarray(first.convolution_op(tf.constant(xf), tf.constant(kernel)))
    assert out.shape == (2, 4, 7, 6)
    np.testing.assert_allclose(out.sum(), 1269.7567, rtol=1e-5)
    causal = tf.keras.layers.Conv1D(2, 3, padding="causal", dilation_rate=2)
    causal.build((None, 8, 2))
    x1, k1 = rng.rand(1, 8, 2).astype("float32"), rng.rand(3, 2, 2).astype("float32")
    out = np.asarray(causal.convolution_op(tf.constant(x1), tf.constant(k1)))  # 'valid' here
    assert out.shape == (1, 4, 2)
    np.testing.assert_allclose(out.sum(), 9.6239, rtol=1e-4)
    depthwise = tf.keras.layers.DepthwiseConv2D(3, padding="same")
    depthwise.build((None, 7, 6, 3))
    dk = rng.rand(3, 3, 1, 3).astype("float32")  # groups follow from the kernel
    out = np.asarray(depthwise.convolution_op(tf.constant(x), tf.constant(dk)))
    assert out.shape == (2, 7, 6, 3)
    np.testing.assert_allclose(out.sum(), 460.75, rtol=1e-5)
    transpose = tf.keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same")
    transpose.build((None, 7, 6, 3))
    out = np.asarray(transpose.convolution_op(tf.constant(x), tf.constant(kernel)))
    assert out.shape == (2, 4, 3, 4)  # a forward convolution, as TF's
    np.testing.assert_allclose(out.sum(), 357.8078, rtol=1e-5)


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_rnn_layers_have_the_dropout_mask_methods(cls):
    layer = getattr(tf.keras.layers, cls)(3, dropout=0.5, recurrent_dropout=0.25)
    step = torch.ones(4, 2)
    masks = layer.get_dropout_mask_for_cell(step, True, count=3)
    assert len(masks) == 3 and all(tuple(m.shape) == (4, 2) for m in masks)
    assert set(torch.unique(masks[0]).tolist()) <= {0.0, 2.0}
    assert layer.get_dropout_mask_for_cell(step, True, count=3) is masks  # cached
    layer.reset_dropout_mask()
    assert layer.get_dropout_mask_for_cell(step, True, count=3) is not masks
    assert layer.get_dropout_mask_for_cell(step, False) is None
    recurrent = layer.get_recurrent_dropout_mask_for_cell(torch.ones(4, 3), True)
    assert tuple(recurrent[0].shape) == (4, 3)
    layer.reset_recurrent_dropout_mask()
    assert getattr(tf.keras.layers, cls)(2).get_dropout_mask_for_cell(step, True) is None


def test_lookup_vocab_size_and_assets(tmp_path, caplog):
    lookup = tf.keras.layers.StringLookup()
    lookup.adapt(np.array([["a", "b", "b"], ["c", "b", "a"]]))
    with caplog.at_level("WARNING", logger="torchestimator"):
        assert lookup.vocab_size() == 4
    assert "vocab_size is deprecated, please use vocabulary_size." in caplog.text
    lookup.save_assets(str(tmp_path))
    assert os.listdir(tmp_path) == ["vocabulary.txt"]
    assert (tmp_path / "vocabulary.txt").read_text() == "[UNK]\nb\na\nc"
    restored = tf.keras.layers.StringLookup()
    restored.load_assets(str(tmp_path))
    assert restored.get_vocabulary() == ["[UNK]", "b", "a", "c"]
    np.testing.assert_array_equal(np.asarray(restored(np.array(["a", "b", "z"]))), [2, 1, 0])

    given = tf.keras.layers.StringLookup(vocabulary=["x", "y"])  # the config holds it
    other = tmp_path / "given"
    other.mkdir()
    given.save_assets(str(other))
    assert os.listdir(other) == []


def test_integer_lookup_mask_and_text_vectorization_assets(tmp_path):
    ints = tf.keras.layers.IntegerLookup()
    ints.adapt(np.array([3, 3, 5, 7]))
    ints.save_assets(str(tmp_path))
    assert (tmp_path / "vocabulary.txt").read_text() == "-1\n3\n7\n5"
    restored = tf.keras.layers.IntegerLookup()
    restored.load_assets(str(tmp_path))
    assert restored.get_vocabulary() == [-1, 3, 7, 5]

    masked = tf.keras.layers.StringLookup(mask_token="[M]")
    masked.adapt(np.array(["q", "r"]))
    (tmp_path / "m").mkdir()
    masked.save_assets(str(tmp_path / "m"))
    assert (tmp_path / "m" / "vocabulary.txt").read_text() == "[M]\n[UNK]\nr\nq"
    again = tf.keras.layers.StringLookup(mask_token="[M]")
    again.load_assets(str(tmp_path / "m"))
    assert again.get_vocabulary() == ["[M]", "[UNK]", "r", "q"]

    text = tf.keras.layers.TextVectorization()
    text.adapt(["hello world", "hello there"])
    (tmp_path / "t").mkdir()
    text.save_assets(str(tmp_path / "t"))
    assert (tmp_path / "t" / "vocabulary.txt").read_text() == "\n[UNK]\nhello\nworld\nthere"
    loaded = tf.keras.layers.TextVectorization()
    loaded.load_assets(str(tmp_path / "t"))
    assert loaded.get_vocabulary() == ["", "[UNK]", "hello", "world", "there"]
    np.testing.assert_array_equal(np.asarray(loaded(["hello there"])), [[2, 4]])


def test_tf_idf_weights_are_a_variable_and_the_vocabulary_an_asset(tmp_path):
    layer = tf.keras.layers.StringLookup(output_mode="tf_idf")
    layer.adapt(np.array([["a", "b"], ["a", "c"]]))
    x = np.array([["a", "b", "z"]])
    expected = [[0.63237333, 0.51082563, 0.0, 0.6931472]]
    np.testing.assert_allclose(np.asarray(layer(x)), expected, rtol=1e-6)
    store = {}
    layer.save_own_variables(store)
    np.testing.assert_allclose(store["idf_weights"], [0.63237333, 0.51082563, 0.6931472, 0.6931472],
                               rtol=1e-6)
    layer.save_assets(str(tmp_path))
    assert (tmp_path / "vocabulary.txt").read_text() == "[UNK]\na\nc\nb"
    restored = tf.keras.layers.StringLookup(output_mode="tf_idf")
    restored.load_own_variables(store)
    restored.load_assets(str(tmp_path))  # keeps the loaded IDF weights, as TF's
    np.testing.assert_allclose(np.asarray(restored(x)), expected, rtol=1e-6)
    fresh = tf.keras.layers.StringLookup(output_mode="tf_idf")
    fresh.load_assets(str(tmp_path))  # TF 2.15: zero IDF weights without load_own_variables
    np.testing.assert_array_equal(np.asarray(fresh(x)), [[0.0, 0.0, 0.0, 0.0]])
    plain = {}
    tf.keras.layers.StringLookup().save_own_variables(plain)
    assert plain == {}


def test_make_adapt_function_feeds_update_state():
    norm = tf.keras.layers.Normalization(axis=None)
    fn = norm.make_adapt_function()
    assert norm.make_adapt_function() is fn
    it = iter(tf.data.Dataset.from_tensor_slices(np.array([0.0, 2.0, 4.0, 6.0], "float32")).batch(2))
    fn(it)
    norm.finalize_state()
    np.testing.assert_allclose(np.asarray(norm(np.array([0.0, 1.0, 2.0], "float32"))), [-1.0, 0.0, 1.0])
    fn(it)
    norm.finalize_state()
    np.testing.assert_allclose(np.asarray(norm(np.array([0.0, 1.0, 2.0], "float32"))),
                               [-1.34164, -0.89443, -0.44721], rtol=1e-5)
    with pytest.raises(tf.errors.OutOfRangeError):
        fn(it)
    lookup = tf.keras.layers.StringLookup()
    lookup.compile(steps_per_execution=2)  # two batches per call
    lookup.make_adapt_function()(iter(tf.data.Dataset.from_tensor_slices(np.array(["a", "b", "b", "c"])).batch(1)))
    lookup.finalize_state()
    assert lookup.get_vocabulary() == ["[UNK]", "b", "a"]
    disc = tf.keras.layers.Discretization(num_bins=2)
    disc.compile()
    disc.make_adapt_function()(iter(tf.data.Dataset.from_tensor_slices(np.array([1.0, 2.0, 3.0, 4.0], "float32")).batch(4)))
    disc.finalize_state()
    assert list(disc.bin_boundaries) == [2.0]
    text = tf.keras.layers.TextVectorization()
    assert callable(text.make_adapt_function())
    with pytest.raises(ValueError, match="steps_per_execution must be a positive integer"):
        norm.compile(steps_per_execution=0)
