"""`tf.strings.split` returns a tf.RaggedTensor (TF 2.x) and `TextVectorization(ragged=True)`
gives RaggedTensor ids, checked against TF 2.15 (tests/fixtures/tf_sparse_flow.json,
tools/make_tf_sparse_flow_fixtures.py)."""

import json
import os

import numpy as np
import torch

import torchestimator as tf

FX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                                 "tf_sparse_flow.json")))["strings"]


def enc(x):
    if isinstance(x, tf.RaggedTensor):
        return {"ragged": _text(x.to_list())}
    return {"value": _text(np.asarray(x).tolist())}


def _text(v):
    if isinstance(v, list):
        return [_text(a) for a in v]
    return v.decode() if isinstance(v, bytes) else v


def test_split_of_a_vector_is_ragged():
    s = tf.strings.split(["a b  c", "d", "", " e f "])
    assert type(s).__name__ == FX["split_1d_type"]
    assert enc(s) == FX["split_1d"]
    assert s.row_splits.tolist() == FX["split_1d_splits"]
    assert s.row_splits.dtype == torch.int64 and s.dtype == tf.string


def test_split_separator_and_maxsplit():
    assert enc(tf.strings.split(["a,,b", "c", ""], sep=",")) == FX["split_sep"]
    assert enc(tf.strings.split(["a b c d", "e f"], maxsplit=1)) == FX["split_max"]
    assert enc(tf.strings.split(["a,b,c", "d"], sep=",", maxsplit=1)) == FX["split_sep_max"]


def test_split_of_a_scalar_is_dense_and_of_a_matrix_rank_3():
    sc = tf.strings.split("x y  z")
    assert not isinstance(sc, tf.RaggedTensor)
    assert enc(sc) == FX["split_scalar"]
    s2 = tf.strings.split([["a b", "c"], ["d e f", ""]])
    assert enc(s2) == FX["split_2d"]
    assert s2.ragged_rank == FX["split_2d_ragged_rank"]
    assert str(tuple(s2.shape)) == FX["split_2d_shape"]


def test_elementwise_string_ops_act_on_the_ragged_values():
    numbers = tf.strings.to_number(tf.strings.split(["1,2", "3"], sep=","))
    assert isinstance(numbers, tf.RaggedTensor)
    assert numbers.to_list() == [[1.0, 2.0], [3.0]]
    upper = tf.strings.upper(tf.strings.split(["a b", "c"]))
    assert _text(upper.to_list()) == [["A", "B"], ["C"]]


def test_text_vectorization_ragged_output():
    tv = tf.keras.layers.TextVectorization(vocabulary=["a", "b", "c"], ragged=True)
    r = tv(tf.constant(["a b c d", "b", "c a"]))
    assert type(r).__name__ == FX["tv_ragged_type"]
    assert enc(r) == FX["tv_ragged"]
    assert r.dtype == torch.int64
    assert tv.get_config()["ragged"] is FX["tv_ragged_config"]
    nosplit = tf.keras.layers.TextVectorization(vocabulary=["a", "b"], ragged=True, split=None)
    assert enc(nosplit(tf.constant([["a"], ["b"]]))) == FX["tv_ragged_nosplit"]


def test_text_vectorization_ragged_in_a_model():
    tv = tf.keras.layers.TextVectorization(vocabulary=["a", "b", "c"], ragged=True)
    inp = tf.keras.Input(shape=(), dtype="string")
    out = tv(inp)
    assert getattr(out, "ragged", False) is True
    model = tf.keras.Model(inp, out)
    r = model(np.array(["c c", "", "a"], dtype=object))
    assert r.to_list() == [[4, 4], [], [2]]


def test_text_vectorization_ragged_with_a_callable_split_keeps_empty_tokens():
    tv = tf.keras.layers.TextVectorization(vocabulary=["a", "b"], ragged=True,
                                           standardize=None,
                                           split=lambda s: tf.strings.split(s, ","))
    assert tv(np.array(["a,,b", "b"], dtype=object)).to_list() == [[2, 0, 3], [3]]
