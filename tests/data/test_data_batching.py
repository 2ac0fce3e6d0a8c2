"""batch, unbatch, padded_batch, rebatch: order, remainders, specs, errors."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.data import Dataset


def as_list(ds):
    return [x.tolist() if hasattr(x, "tolist") else x for x in ds.as_numpy_iterator()]


def test_batch_remainder_and_drop_remainder():
    ds = Dataset.range(7)
    assert as_list(ds.batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert as_list(ds.batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert ds.batch(3).cardinality() == 3
    assert ds.batch(3, drop_remainder=True).cardinality() == 2
    assert ds.batch(3).element_spec == tf.TensorSpec((None,), tf.int64)
    assert ds.batch(3, drop_remainder=True).element_spec == tf.TensorSpec((3,), tf.int64)
    assert as_list(ds.batch(10)) == [list(range(7))]
    assert as_list(Dataset.range(0).batch(2)) == []


def test_batch_structures_and_strings():
    ds = Dataset.from_tensor_slices(({"a": np.arange(5), "s": np.array(list("vwxyz"))},
                                     np.arange(5.0, dtype=np.float32)))
    batches = list(ds.batch(2))
    x, y = batches[-1]
    assert x["a"].tolist() == [4] and x["s"].tolist() == ["z"]
    assert isinstance(x["s"], np.ndarray) and x["s"].dtype == object
    assert y.dtype == torch.float32
    spec = ds.batch(2).element_spec
    assert spec[0]["s"] == tf.TensorSpec((None,), tf.string)


def test_batch_across_sources_is_the_same():
    rows = np.arange(23)
    expected = as_list(Dataset.from_tensor_slices(rows).batch(5))
    gen = Dataset.from_generator(lambda: iter(rows), output_signature=tf.TensorSpec((), tf.int64))
    blocks = Dataset.from_tensor_slices(rows.reshape(-1, 1)).unbatch()  # a block stream
    per_row = Dataset.from_tensor_slices(rows).map(lambda x: x)  # one element at a time
    for ds in (gen, blocks, per_row):
        assert as_list(ds.batch(5)) == expected


def test_batch_of_mismatched_shapes_names_the_component():
    ds = Dataset.from_generator(lambda: iter([[1], [2, 3]]),
                                output_signature=tf.TensorSpec((None,), tf.int64))
    with pytest.raises(ValueError, match=r"different shapes in component 0.*padded_batch"):
        list(ds.batch(2))
    with pytest.raises(ValueError, match="batch_size"):
        Dataset.range(3).batch(0)
    with pytest.raises(TypeError, match="drop_remainder"):
        Dataset.range(3).batch(2, drop_remainder="no")


def test_unbatch_inverts_batch():
    ds = Dataset.range(7).batch(3).unbatch()
    assert as_list(ds) == list(range(7))
    assert ds.element_spec == tf.TensorSpec((), tf.int64)
    m = Dataset.from_tensor_slices(np.arange(12).reshape(2, 3, 2)).unbatch()
    assert as_list(m) == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]
    pairs = Dataset.from_tensors((np.arange(3), np.array(["a", "b", "c"]))).unbatch()
    assert as_list(pairs) == [(0, "a"), (1, "b"), (2, "c")]
    with pytest.raises(ValueError, match="at least rank 1"):
        Dataset.range(3).unbatch().element_spec  # noqa: B018
    bad = Dataset.from_tensors((np.arange(3), np.arange(2))).unbatch()
    with pytest.raises(ValueError, match="same first dimension"):
        list(bad)


def test_padded_batch_defaults_and_explicit_shapes():
    def gen():
        yield [1]
        yield [2, 3]
        yield [4, 5, 6]

    ds = Dataset.from_generator(gen, output_signature=tf.TensorSpec((None,), tf.int64))
    assert as_list(ds.padded_batch(2)) == [[[1, 0], [2, 3]], [[4, 5, 6]]]
    fixed = ds.padded_batch(3, padded_shapes=[4], padding_values=-1)
    assert as_list(fixed) == [[[1, -1, -1, -1], [2, 3, -1, -1], [4, 5, 6, -1]]]
    assert fixed.element_spec == tf.TensorSpec((None, 4), tf.int64)
    with pytest.raises(ValueError, match="larger than its padded shape"):
        list(ds.padded_batch(3, padded_shapes=[2]))


def test_padded_batch_strings_and_tuples():
    def gen():
        yield ["a"], 1
        yield ["b", "c"], 2

    sig = (tf.TensorSpec((None,), tf.string), tf.TensorSpec((), tf.int64))
    ds = Dataset.from_generator(gen, output_signature=sig).padded_batch(
        2, padding_values=("<pad>", 0))
    words, nums = next(iter(ds))
    assert words.tolist() == [["a", "<pad>"], ["b", "c"]]
    assert nums.tolist() == [1, 2]


def test_rebatch_regroups_rows():
    ds = Dataset.range(10).batch(4)
    assert as_list(ds.rebatch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert as_list(ds.rebatch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert as_list(ds.rebatch([1, 2])) == [[0], [1, 2], [3], [4, 5], [6], [7, 8], [9]]
    assert ds.rebatch(3, drop_remainder=True).element_spec == tf.TensorSpec((3,), tf.int64)
    with pytest.raises(ValueError, match="batch_size"):
        ds.rebatch([])


def test_padded_batch_of_scalar_strings_holds_the_strings():
    ds = tf.data.Dataset.from_tensor_slices(np.array(["Ab", "cD", "x"])).padded_batch(2)
    batches = [b.tolist() for b in ds]
    assert batches == [["Ab", "cD"], ["x"]]
    assert all(type(v) is str for b in batches for v in b)
