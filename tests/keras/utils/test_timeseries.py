"""`tf.keras.utils.timeseries_dataset_from_array` against TF 2.15's windows.

The expected batches were recorded by `tools/make_tf_keras_data_fixtures.py` with real
TensorFlow 2.15 (fixture `fixtures/tf_keras_data.json`, key `timeseries`).
"""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_keras_data.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["timeseries"]


def _arrays(case):
    n, f = case["n"], case["features"]
    data = np.arange(n * max(f, 1), dtype="float32").reshape((n, f) if f else (n,))
    kind = case["targets"]
    if kind is None:
        return data, None
    if kind == "offset":
        return data, np.arange(n, dtype="int64") * 10
    if kind == "short":
        return data, np.arange(n // 2, dtype="int32") + 100
    return data, np.arange(n, dtype="float64") / 2


@pytest.mark.parametrize("record", CASES, ids=[str(i) for i in range(len(CASES))])
def test_windows_match_tf215(record):
    case = record["case"]
    data, targets = _arrays(case)
    kwargs = {k: v for k, v in case.items() if k not in ("n", "features", "targets")}
    ds = tf.keras.utils.timeseries_dataset_from_array(data, targets, **kwargs)
    got = list(ds)
    assert len(got) == len(record["batches"])
    for batch, want in zip(got, record["batches"]):
        if targets is None:
            assert isinstance(batch, torch.Tensor)
            x = batch
        else:
            x, y = batch
            np.testing.assert_array_equal(y.numpy(), np.asarray(want["y"]))
            assert str(y.dtype).replace("torch.", "") == want["y_dtype"]
        np.testing.assert_array_equal(x.numpy(), np.asarray(want["x"], dtype="float32"))
        assert str(x.dtype).replace("torch.", "") == want["x_dtype"]


def test_preprocessing_alias_and_torch_input():
    assert tf.keras.preprocessing.timeseries_dataset_from_array is \
        tf.keras.utils.timeseries_dataset_from_array
    data = torch.arange(10.0)
    (x, y), = list(tf.keras.utils.timeseries_dataset_from_array(data, data, 3, batch_size=None)
                   .take(1))
    assert x.tolist() == [0.0, 1.0, 2.0] and float(y) == 0.0


def test_shuffle_is_a_seeded_permutation_of_the_windows():
    data = np.arange(100)
    targets = np.arange(100) * 2
    kwargs = dict(sequence_length=5, batch_size=16, shuffle=True, seed=7)
    first = list(tf.keras.utils.timeseries_dataset_from_array(data, targets, **kwargs))
    again = list(tf.keras.utils.timeseries_dataset_from_array(data, targets, **kwargs))
    xs = torch.cat([b[0] for b in first])
    ys = torch.cat([b[1] for b in first])
    assert xs.shape == (96, 5)
    # each window keeps its target, and all windows are there exactly once
    np.testing.assert_array_equal(ys.numpy(), xs[:, 0].numpy() * 2)
    assert sorted(xs[:, 0].tolist()) == list(range(96))
    assert xs[:, 0].tolist() != list(range(96))
    for a, b in zip(first, again):
        assert torch.equal(a[0], b[0])


@pytest.mark.parametrize("kwargs, message", [
    (dict(start_index=-1), "`start_index` must be 0 or greater. Received: start_index=-1"),
    (dict(start_index=10), "`start_index` must be lower than the length of the data"),
    (dict(start_index=5, end_index=4), "`end_index` must be higher than `start_index`"),
    (dict(end_index=10), "`end_index` must be lower than the length of the data"),
    (dict(end_index=-2), "`end_index` must be higher than 0. Received: end_index=-2"),
    (dict(sampling_rate=0), "`sampling_rate` must be higher than 0"),
    (dict(sampling_rate=10), "`sampling_rate` must be lower than the length of the data"),
    (dict(sequence_stride=0), "`sequence_stride` must be higher than 0"),
    (dict(sequence_stride=11), "`sequence_stride` must be lower than the length"),
])
def test_errors(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)")):
        tf.keras.utils.timeseries_dataset_from_array(np.arange(10), None, 3, **kwargs)


def test_string_data_is_refused():
    with pytest.raises(TypeError, match="`data` must hold numbers"):
        tf.keras.utils.timeseries_dataset_from_array(np.array(["a", "b", "c"]), None, 2)
