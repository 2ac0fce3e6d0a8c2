"""HashedCrossing against TF 2.15's bins (fixtures/tf_text_structured.json, written by
tools/make_tf_preprocessing_fixtures.py), in models and saved files, and its errors."""

import json
import pathlib

import numpy as np
import pytest
import torch

import torchestimator as tf

L = tf.keras.layers
CASES = {
    c["name"]: c for c in json.loads(
        (pathlib.Path(__file__).parent / "fixtures" / "tf_text_structured.json").read_text(encoding="utf-8")
    )["hashed_crossing"]
}


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    tf.keras.backend.clear_session()


def _array(values):
    array = np.array(values)
    return array.astype(object) if array.dtype.kind == "U" else array.astype(np.int64)


@pytest.mark.parametrize("name", ["str_int_5", "int_str_1000", "str_str_97", "three_10", "column_5", "one_hot_4"])
def test_bins_match_tensorflow(name):
    case = CASES[name]
    layer = L.HashedCrossing(num_bins=case["num_bins"], output_mode=case["output_mode"])
    out = layer([_array(x) for x in case["inputs"]])
    expected = np.array(case["output"])
    assert tuple(out.shape) == expected.shape
    assert out.tolist() == expected.tolist()
    assert out.dtype == (torch.int64 if case["output_mode"] == "int" else torch.float32)


def test_tensors_int32_and_scalars():
    case = CASES["int32_int_7"]
    first, second = (np.array(x) for x in case["inputs"])
    out = L.HashedCrossing(num_bins=7)([torch.tensor(first, dtype=torch.int32), torch.tensor(second)])
    assert out.tolist() == case["output"]
    case = CASES["scalar_one_hot"]
    out = L.HashedCrossing(num_bins=4, output_mode="one_hot")([np.array("A", dtype=object), torch.tensor(1)])
    assert out.shape == (4,) and out.tolist() == case["output"]
    sparse = L.HashedCrossing(num_bins=4, output_mode="one_hot", sparse=True)(
        [_array(x) for x in CASES["one_hot_4"]["inputs"]])
    assert sparse.is_sparse and sparse.to_dense().tolist() == CASES["one_hot_4"]["output"]


def test_functional_model_config_and_save(tmp_path):
    layer = L.HashedCrossing(num_bins=5, output_mode="one_hot")
    assert json.loads(json.dumps(layer.get_config()))["num_bins"] == 5
    clone = L.HashedCrossing.from_config(layer.get_config())
    assert (clone.num_bins, clone.output_mode, clone.sparse) == (5, "one_hot", False)
    words = tf.keras.Input(shape=(1,), dtype=tf.string)
    ids = tf.keras.Input(shape=(1,), dtype="int64")
    crossed = layer([words, ids])
    assert crossed.shape == (None, 5) and crossed.dtype == torch.float32
    assert L.HashedCrossing(num_bins=5)([words, ids]).shape == (None, 1)
    model = tf.keras.Model([words, ids], L.Dense(1)(crossed))
    case = CASES["column_5"]
    x = [_array(v) for v in case["inputs"]]
    path = str(tmp_path / "h.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    bins = [lay for lay in loaded.layers if isinstance(lay, L.HashedCrossing)][0]
    assert torch.argmax(bins(x), -1).tolist() == [b[0] for b in case["output"]]


def test_errors():
    with pytest.raises(ValueError, match="Unknown value for `output_mode`.*'multi_hot'"):
        L.HashedCrossing(num_bins=3, output_mode="multi_hot")
    with pytest.raises(ValueError, match="`dtype` should be an integer type"):
        L.HashedCrossing(num_bins=3, dtype="float32")
    with pytest.raises(ValueError, match="`num_bins` for HashedCrossing must be a positive integer"):
        L.HashedCrossing(num_bins=0)
    layer = L.HashedCrossing(num_bins=3)
    with pytest.raises(ValueError, match="should be called on a list or tuple"):
        layer(torch.tensor([1]))
    with pytest.raises(ValueError, match="at least two inputs"):
        layer([torch.tensor([1])])
    with pytest.raises(ValueError, match="should have equal shape"):
        layer([torch.tensor([1, 2]), torch.tensor([1])])
    with pytest.raises(ValueError, match=r"shape `\[\]`, `\[batch_size\]` or `\[batch_size, 1\]`"):
        layer([torch.tensor([[1, 2]]), torch.tensor([[1, 3]])])
    with pytest.raises(ValueError, match="integer or string dtype"):
        layer([torch.tensor([1.0]), torch.tensor([1])])
