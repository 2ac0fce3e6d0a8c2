"""Discretization against TF 2.15's values (fixtures/tf_text_structured.json, written by
tools/make_tf_preprocessing_fixtures.py): bins, adapted quantile boundaries, output modes,
saving, errors."""

import json
import pathlib

import numpy as np
import pytest
import torch

import torchestimator as tf

L = tf.keras.layers
CASES = json.loads(
    (pathlib.Path(__file__).parent / "fixtures" / "tf_text_structured.json").read_text(encoding="utf-8")
)["discretization"]


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    tf.keras.backend.clear_session()


@pytest.mark.parametrize("case", [c for c in CASES if "data" in c], ids=lambda c: c["name"])
def test_adapt_boundaries_match_tensorflow(case):
    layer = L.Discretization(**case["kwargs"])
    data = np.array(case["data"], dtype=np.int64 if case["name"] == "ints_3" else np.float32)
    if case["name"] == "normal_dataset":
        layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(64))
    else:
        layer.adapt(data)  # arrays go in batches of 32, as in Keras
    assert layer.bin_boundaries == case["bin_boundaries"]  # bit-identical float32 values
    out = layer(np.array(case["query"], dtype=np.float32))
    assert out.dtype == torch.int64 and out.tolist() == case["output"]


@pytest.mark.parametrize("case", [c for c in CASES if "data" not in c], ids=lambda c: c["name"])
def test_given_boundaries_output_modes(case):
    layer = L.Discretization(**case["kwargs"])
    out = layer(torch.tensor(case["query"]))
    expected = np.array(case["output"])
    assert tuple(out.shape) == expected.shape
    assert out.tolist() == expected.tolist()
    assert out.dtype == (torch.int64 if case["kwargs"]["output_mode"] == "int" else torch.float32)


def test_bucketize_edges_dtypes_and_sparse():
    layer = L.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    assert layer(torch.tensor([-0.1, 0.0, 0.99, 1.0, 2.0, 7.0])).tolist() == [0, 1, 1, 2, 3, 3]
    assert layer(np.array([[0, 1], [2, 5]], np.int64)).tolist() == [[1, 2], [3, 3]]
    assert layer(torch.tensor([0.1], dtype=torch.float64)).tolist() == [1]
    assert L.Discretization(num_bins=3)(np.array([1.0, 2.0])).tolist() == [0, 0]  # TF: no boundaries yet
    sparse = L.Discretization(bin_boundaries=[0.0], output_mode="count", sparse=True)(
        torch.tensor([[-1.0, 1.0, 2.0]]))
    assert sparse.is_sparse and sparse.to_dense().tolist() == [[1.0, 2.0]]
    assert L.Discretization(bin_boundaries=[1.0], dtype="float32").dtype == "int64"  # as Keras
    steps = L.Discretization(num_bins=2)
    steps.adapt(np.arange(64, dtype=np.float32), batch_size=16, steps=1)
    assert steps.bin_boundaries == [7.0]  # only the first batch of 16 values seen (TF: [7.0])


def test_config_save_and_symbolic(tmp_path):
    layer = L.Discretization(num_bins=4, epsilon=0.05, output_mode="one_hot")
    layer.adapt(np.arange(100, dtype=np.float32))
    assert layer.bin_boundaries == [24.25, 49.500003814697266, 74.75000762939453]  # TF's values
    config = json.loads(json.dumps(layer.get_config()))
    assert config["bin_boundaries"] is None and config["num_bins"] == 4 and config["epsilon"] == 0.05
    clone = L.Discretization.from_config(config)
    assert clone.bin_boundaries == layer.bin_boundaries
    clone.adapt(np.arange(10, dtype=np.float32))  # adapted boundaries can be learned again
    assert clone.bin_boundaries == [1.4999998807907104, 4.0, 6.5]  # TF's values

    inp = tf.keras.Input(shape=(1,))
    out = layer(inp)
    assert out.shape == (None, 4) and out.dtype == torch.float32
    assert L.Discretization(bin_boundaries=[0.0])(tf.keras.Input(shape=(3,))).shape == (None, 3)
    model = tf.keras.Model(inp, L.Dense(2)(out))
    path = str(tmp_path / "d.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    x = np.array([[3.0], [40.0], [99.0]], np.float32)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="Unknown value for `output_mode`.*'tf_idf'"):
        L.Discretization(num_bins=3, output_mode="tf_idf")
    with pytest.raises(ValueError, match="Both `num_bins` and `bin_boundaries` should not be set"):
        L.Discretization(num_bins=3, bin_boundaries=[1.0])
    with pytest.raises(ValueError, match="`num_bins` must be greater than or equal to 0"):
        L.Discretization(num_bins=-1)
    with pytest.raises(ValueError, match="`sparse` may only be true"):
        L.Discretization(bin_boundaries=[1.0], sparse=True)
    with pytest.raises(ValueError, match="Cannot adapt a Discretization layer that has been initialized"):
        L.Discretization(bin_boundaries=[1.0]).adapt(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="Expected input data to be non-empty"):
        L.Discretization(num_bins=2).adapt(np.array([], np.float32))
    with pytest.raises(ValueError, match="needs `num_bins` to adapt"):
        L.Discretization().adapt(np.array([1.0]))
    with pytest.raises(ValueError, match="must be sorted"):
        L.Discretization(bin_boundaries=[2.0, 1.0])
    with pytest.raises(ValueError, match="takes float or integer inputs"):
        L.Discretization(bin_boundaries=[1.0])(torch.tensor([True]))
