"""`tf.data` paths no other test runs: `DatasetSpec` / `IteratorSpec` (`shape`, `value_type`,
`element_spec`, `is_compatible_with`), `experimental.cardinality`, `Cardinality.numpy`,
`NumpyIterator.close`, and a file dataset's `files`."""

from __future__ import annotations

import pytest

import torchestimator as tf


def test_dataset_spec():
    ds = tf.data.Dataset.range(5)
    spec = tf.data.DatasetSpec.from_value(ds)
    assert spec.shape == () and spec.value_type is tf.data.Dataset
    assert spec.element_spec == tf.TensorSpec([], tf.int64)
    assert spec.is_compatible_with(tf.data.Dataset.range(3))
    assert spec.is_compatible_with(tf.data.DatasetSpec(tf.TensorSpec([], tf.int64)))
    assert not spec.is_compatible_with(tf.data.Dataset.from_tensors(1.0))
    # an iterator (or its spec) with the same elements is not a dataset
    assert not spec.is_compatible_with(iter(tf.data.Dataset.range(3)))
    assert not spec.is_compatible_with(tf.data.IteratorSpec(tf.TensorSpec([], tf.int64)))


def test_iterator_spec():
    it = iter(tf.data.Dataset.range(5))
    spec = tf.data.IteratorSpec.from_value(it)
    assert spec.element_spec == tf.TensorSpec([], tf.int64)
    assert spec.value_type is tf.data.Iterator
    assert isinstance(it, spec.value_type)
    assert spec.is_compatible_with(iter(tf.data.Dataset.range(2)))
    assert spec.is_compatible_with(tf.data.IteratorSpec(tf.TensorSpec([], tf.int64)))
    assert not spec.is_compatible_with(iter(tf.data.Dataset.from_tensors(1.0)))
    assert not spec.is_compatible_with(tf.data.Dataset.range(2))


def test_cardinality():
    ds = tf.data.Dataset.range(5)
    assert int(tf.data.experimental.cardinality(ds)) == 5
    assert tf.data.experimental.cardinality(ds.batch(2)).numpy() == 3
    assert ds.repeat().cardinality().numpy() == tf.data.experimental.INFINITE_CARDINALITY
    assert (tf.data.experimental.cardinality(ds.filter(lambda x: x > 2)).numpy()
            == tf.data.experimental.UNKNOWN_CARDINALITY)


def test_numpy_iterator_close_and_files(tmp_path):
    it = tf.data.Dataset.range(5).as_numpy_iterator()
    assert next(it) == 0
    it.close()
    assert list(it) == []
    path = tmp_path / "a.txt"
    path.write_text("x\ny\n")
    lines = tf.data.TextLineDataset([str(path)])
    assert lines.files == [str(path)]
    assert [v.decode() if isinstance(v, bytes) else v for v in lines.as_numpy_iterator()] == ["x", "y"]


def test_zip_of_block_streams_aligns_rows():
    # datasets read in column blocks (skip / concatenate / shuffle of slices) are zipped block
    # by block (`align_blocks`); rows must line up across different block boundaries
    x = [float(v) for v in range(10)]
    y = list(range(100, 110))
    cases = [
        (tf.data.Dataset.from_tensor_slices(x).skip(1), tf.data.Dataset.from_tensor_slices(y)),
        (tf.data.Dataset.from_tensor_slices(x).concatenate(tf.data.Dataset.from_tensor_slices(x)),
         tf.data.Dataset.from_tensor_slices(y).repeat(3)),
        (tf.data.Dataset.from_tensor_slices(x).shuffle(10, seed=1, reshuffle_each_iteration=False),
         tf.data.Dataset.from_tensor_slices(y).take(7)),
    ]
    for a, b in cases:
        want = list(zip(a.as_numpy_iterator(), b.as_numpy_iterator()))
        got = list(tf.data.Dataset.zip((a, {"k": b})).as_numpy_iterator())
        assert len(got) == len(want) == min(len(list(a)), len(list(b)))
        assert [(float(p), int(q["k"])) for p, q in got] == [(float(p), int(q)) for p, q in want]


def test_type_spec_from_value_gives_a_datasets_and_an_iterators_spec():
    dataset = tf.data.Dataset.from_tensor_slices(([1.0, 2.0], [1, 2])).batch(2)
    spec = tf.type_spec_from_value(dataset)
    assert isinstance(spec, tf.data.DatasetSpec) and spec == tf.data.DatasetSpec(dataset.element_spec)
    assert spec.element_spec[0].shape.as_list() == [None]
    iterator_spec = tf.type_spec_from_value(iter(dataset))
    assert isinstance(iterator_spec, tf.data.IteratorSpec)
    assert iterator_spec.element_spec == dataset.element_spec
    with pytest.raises(TypeError, match="Could not build a TypeSpec"):
        tf.type_spec_from_value(object())
