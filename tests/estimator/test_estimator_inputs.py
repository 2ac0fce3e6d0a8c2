"""`tf.compat.v1.estimator.inputs.numpy_input_fn` / `pandas_input_fn`: the batches TF 2.15's
queue-based input functions give (tests/compat/v1/fixtures/tf1_api.json, key "inputs",
recorded by tools/make_tf1_api_fixtures.py), TF's argument errors, shuffling and use in an
Estimator."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
import torch

import torchestimator as tf

inputs = tf.compat.v1.estimator.inputs

_FIXTURE = os.path.join(os.path.dirname(__file__), "..", "compat", "v1", "fixtures", "tf1_api.json")
with open(_FIXTURE, encoding="utf-8") as _f:
    TF = json.load(_f)["inputs"]

X = {"b": np.arange(10, dtype=np.float32), "a": np.arange(10, 20, dtype=np.int64)}
Y = np.arange(100, 110, dtype=np.int32)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return np.asarray(value).reshape(-1).tolist()


def _batches(input_fn):
    return [_plain(b) for b in input_fn()]


def test_namespaces():
    assert tf.estimator.inputs.numpy_input_fn is inputs.numpy_input_fn
    assert inputs.pandas_input_fn is tf.estimator.inputs.pandas_input_fn


def test_dict_x_two_epochs_run_on_across_the_epoch_boundary_as_tf():
    got = _batches(inputs.numpy_input_fn(X, Y, batch_size=4, num_epochs=2, shuffle=False))
    assert got == TF["dict_x_y_bs4_e2"]


def test_array_x_without_y_gives_the_feature_tensor_and_a_final_partial_batch():
    fn = inputs.numpy_input_fn(np.arange(14, dtype=np.float64).reshape(7, 2), batch_size=3, shuffle=False)
    batches = list(fn())
    assert all(isinstance(b, torch.Tensor) for b in batches)
    assert [tuple(b.shape) for b in batches] == [(3, 2), (3, 2), (1, 2)]
    assert batches[0].dtype == torch.float64
    assert _batches(fn) == TF["array_x_bs3_e1"]


def test_dict_y():
    got = _batches(inputs.numpy_input_fn(X, {"t": Y, "u": Y * 2}, batch_size=4, shuffle=False))
    assert got == TF["dict_y_bs4_e1"]


def test_dtypes_are_kept():
    features, labels = next(iter(inputs.numpy_input_fn(X, Y, batch_size=4, shuffle=False)()))
    assert features["a"].dtype == torch.int64 and features["b"].dtype == torch.float32
    assert labels.dtype == torch.int32


def test_pandas_input_fn_as_tf():
    df = pd.DataFrame({"a": np.arange(5, dtype=np.float32), "b": np.arange(5, 10)}, index=range(5))
    got = _batches(inputs.pandas_input_fn(df, pd.Series(np.arange(5) * 10), batch_size=2, shuffle=False))
    assert got == TF["pandas_bs2_e1"]


def test_pandas_dataframe_y_and_no_y():
    df = pd.DataFrame({"a": np.arange(4.0)})
    ys = pd.DataFrame({"a": np.arange(4) * 2, "z": np.arange(4) * 3})
    features, target = next(iter(inputs.pandas_input_fn(df, ys, batch_size=4, shuffle=False)()))
    assert list(features) == ["a"] and sorted(target) == ["a", "z"]
    assert target["a"].tolist() == [0, 2, 4, 6] and target["z"].tolist() == [0, 3, 6, 9]
    only = next(iter(inputs.pandas_input_fn(df, batch_size=4, shuffle=False)()))
    assert list(only) == ["a"]


def test_pandas_errors():
    df = pd.DataFrame({"a": np.arange(3.0), "target": np.arange(3)})
    with pytest.raises(ValueError, match="Cannot use name target for target column"):
        inputs.pandas_input_fn(df, pd.Series(np.arange(3)), shuffle=False)
    with pytest.raises(ValueError, match="Index for x and y are mismatched"):
        inputs.pandas_input_fn(df[["a"]], pd.Series(np.arange(3), index=[5, 6, 7]), shuffle=False)
    with pytest.raises(TypeError, match="target_column must be a string type"):
        inputs.pandas_input_fn(df, shuffle=False, target_column=3)
    with pytest.raises(ValueError) as e:
        inputs.pandas_input_fn(df, shuffle=None)
    assert str(e.value) == TF["errors"]["shuffle_none_pandas"][1]


@pytest.mark.parametrize("label", ["shuffle_none", "mismatch", "dup_keys", "bad_x"])
def test_numpy_errors_are_tfs(label):
    calls = {
        "shuffle_none": lambda: inputs.numpy_input_fn(X, Y),
        "mismatch": lambda: inputs.numpy_input_fn(X, np.arange(3), shuffle=False)(),
        "dup_keys": lambda: inputs.numpy_input_fn(X, {"a": Y}, shuffle=False)(),
        "bad_x": lambda: inputs.numpy_input_fn([1, 2], shuffle=False)(),
    }
    kind, message = TF["errors"][label]
    with pytest.raises((ValueError, TypeError)) as e:
        calls[label]()
    assert type(e.value).__name__ == kind and str(e.value) == message


def test_argument_errors_name_the_argument():
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        inputs.numpy_input_fn(X, Y, batch_size=0, shuffle=False)
    with pytest.raises(ValueError, match="num_epochs must be a positive integer or None"):
        inputs.numpy_input_fn(X, Y, num_epochs=0, shuffle=False)
    with pytest.raises(ValueError, match="x cannot be an empty dict"):
        inputs.numpy_input_fn({}, shuffle=False)()
    with pytest.raises(ValueError, match="y cannot be empty dict"):
        inputs.numpy_input_fn(X, {}, shuffle=False)()


def test_shuffle_sees_every_row_once_per_epoch():
    tf.random.set_seed(1)
    got = [b[1] for b in _batches(inputs.numpy_input_fn(X, Y, batch_size=3, num_epochs=2, shuffle=True))]
    rows = [v for batch in got for v in batch]
    assert sorted(rows) == sorted(list(range(100, 110)) * 2)
    assert rows != list(range(100, 110)) * 2


def test_num_epochs_none_repeats_with_full_batches():
    it = iter(inputs.numpy_input_fn(X, Y, batch_size=4, num_epochs=None, shuffle=False)())
    sizes = [len(next(it)[1]) for _ in range(7)]
    assert sizes == [4] * 7


def test_estimator_trains_on_numpy_input_fn(tmp_path):
    x = np.linspace(-1, 1, 20).astype(np.float32).reshape(-1, 1)
    y = 2 * x[:, 0] + 1
    column = tf.feature_column.numeric_column("x")
    est = tf.estimator.LinearRegressor([column], model_dir=str(tmp_path))
    est.train(inputs.numpy_input_fn({"x": x}, y, batch_size=5, num_epochs=3, shuffle=True))
    assert est.get_variable_value("global_step") == 12
    metrics = est.evaluate(inputs.numpy_input_fn({"x": x}, y, batch_size=20, shuffle=False))
    assert metrics["global_step"] == 12


def test_pandas_string_columns_are_object_arrays():
    df = pd.DataFrame({"s": ["a", "bb", "c"], "n": [1.0, 2.0, 3.0]})
    batches = list(inputs.pandas_input_fn(df, pd.Series([0, 1, 0]), batch_size=2, shuffle=False)())
    assert [list(b[0]["s"]) for b in batches] == [["a", "bb"], ["c"]]
    assert batches[0][0]["n"].dtype == torch.float64 and batches[1][1].tolist() == [0]


def test_shuffle_is_repeatable_under_a_global_seed():
    def order():
        tf.random.set_seed(5)
        fn = inputs.numpy_input_fn({"x": np.arange(10)}, np.arange(10), batch_size=4, shuffle=True)
        return [b[1].tolist() for b in fn()]

    assert order() == order()
