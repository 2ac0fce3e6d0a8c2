"""`tf.keras.utils.split_dataset`: sizes, order and error messages against TF 2.15.

Expected splits and messages were recorded with real TensorFlow 2.15 by
`tools/make_tf_keras_data_fixtures.py` (fixture `fixtures/tf_keras_data.json`, key
`split_dataset`). One deliberate deviation: a batched Dataset of single tensors keeps its
element structure (Keras 2.15 turns each row into a tuple of its columns).
"""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_keras_data.json")
with open(FIXTURE) as _f:
    RECORD = json.load(_f)["split_dataset"]

X = np.arange(10 * 2).reshape(10, 2)
Y = np.arange(10)


def _inputs(name):
    if name == "tuple":
        return (X, Y)
    if name == "array":
        return X
    if name == "dataset":
        return tf.data.Dataset.from_tensor_slices((X, Y))
    return tf.data.Dataset.from_tensor_slices(X).batch(3)


def _plain(element):
    if isinstance(element, tuple):
        return [_plain(e) for e in element]
    return np.asarray(element).tolist()


@pytest.mark.parametrize("case", RECORD["splits"],
                         ids=[f"{c['input']}-{c['left_size']}-{c['right_size']}"
                              for c in RECORD["splits"]])
def test_splits_match_tf215(case):
    left, right = tf.keras.utils.split_dataset(
        _inputs(case["input"]), left_size=case["left_size"], right_size=case["right_size"])
    got_left = [_plain(e) for e in left]
    got_right = [_plain(e) for e in right]
    if case["input"] == "batched":
        # TF 2.15 yields (column0, column1) per batch; here the batch of rows itself
        want_left = [np.asarray(b).T.tolist() for b in case["left"]]
        want_right = [np.asarray(b).T.tolist() for b in case["right"]]
    else:
        want_left, want_right = case["left"], case["right"]
    assert got_left == want_left
    assert got_right == want_right


@pytest.mark.parametrize("case", RECORD["errors"],
                         ids=[f"{c['left_size']}-{c['right_size']}" for c in RECORD["errors"]])
def test_errors_match_tf215(case):
    error = TypeError if case["type"] == "TypeError" else ValueError
    with pytest.raises(error) as info:
        tf.keras.utils.split_dataset((X, Y), left_size=case["left_size"],
                                     right_size=case["right_size"])
    assert str(info.value) == case["message"]


def test_shuffle_is_seeded_and_keeps_pairs():
    a1, b1 = tf.keras.utils.split_dataset((X, Y), left_size=0.6, shuffle=True, seed=3)
    a2, _ = tf.keras.utils.split_dataset((X, Y), left_size=0.6, shuffle=True, seed=3)
    rows = [(x.tolist(), int(y)) for x, y in a1] + [(x.tolist(), int(y)) for x, y in b1]
    assert [r for r in rows[:6]] == [(x.tolist(), int(y)) for x, y in a2]
    assert sorted(r[1] for r in rows) == list(range(10))
    assert all(x == [2 * y, 2 * y + 1] for x, y in rows)
    assert [r[1] for r in rows] != list(range(10))


def test_dict_dataset_and_torch_tensors():
    ds = tf.data.Dataset.from_tensor_slices({"a": torch.arange(6), "b": torch.arange(6) * 2.0})
    left, right = tf.keras.utils.split_dataset(ds, right_size=2)
    assert [int(e["a"]) for e in left] == [0, 1, 2, 3]
    assert [float(e["b"]) for e in right] == [8.0, 10.0]


def test_input_errors():
    with pytest.raises(TypeError, match="The `dataset` argument must be either"):
        tf.keras.utils.split_dataset({"a": X}, left_size=2)
    with pytest.raises(ValueError, match="Received a list of NumPy arrays with different lengths"):
        tf.keras.utils.split_dataset([X, Y[:5]], left_size=2)
    with pytest.raises(ValueError, match="Expected a tuple of `numpy.ndarray` objects"):
        tf.keras.utils.split_dataset(([1, 2], [3, 4]), left_size=1)
    with pytest.raises(ValueError, match="Received an empty Dataset"):
        tf.keras.utils.split_dataset(tf.data.Dataset.from_tensor_slices(np.zeros((0, 2))),
                                     left_size=1)
    with pytest.raises(ValueError, match="All `dataset` samples must have same shape"):
        tf.keras.utils.split_dataset(tf.data.Dataset.from_generator(
            lambda: iter([np.zeros(2), np.zeros(3)]),
            output_signature=tf.TensorSpec(shape=(None,), dtype=tf.float32)), left_size=1)
