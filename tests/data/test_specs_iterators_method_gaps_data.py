"""The TF 2.15 methods `tf.data`'s classes lacked (tests/test_class_methods_parity.py):
`DatasetSpec` / `IteratorSpec` `is_subtype_of`, `most_specific_common_supertype`,
`most_specific_compatible_type`; `NumpyIterator.save` / `restore`;
`data.experimental.DatasetInitializer.initialize`. Expected values are TF 2.15.1's (printed with
the TF venv)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchestimator as tf

T = tf.TensorSpec
DS = tf.data.DatasetSpec
IS = tf.data.IteratorSpec


# ------------------------------------------------------------------ DatasetSpec / IteratorSpec
def test_dataset_spec_is_subtype_of_as_tf() -> None:
    a, b = DS(T([2], tf.int32)), DS(T([None], tf.int32))
    # TF: True False True False False False False
    assert a.is_subtype_of(b) and not b.is_subtype_of(a) and a.is_subtype_of(a)
    assert not a.is_subtype_of(DS(T([2], tf.float32)))  # dtype
    assert not a.is_subtype_of(DS({"x": T([2], tf.int32)}))  # structure
    assert not a.is_subtype_of(DS(T([2], tf.int32), [4])) and not DS(T([2], tf.int32), [4]).is_subtype_of(a)
    assert not a.is_subtype_of(T([2], tf.int32))  # not a DatasetSpec
    assert a.is_subtype_of(DS(T(None, tf.int32)))  # unknown rank
    t1 = DS((T([2], tf.int32), T([1, 2], tf.string)))
    assert not t1.is_subtype_of(DS((T([3], tf.int32), T([1, None], tf.string))))
    assert t1.is_subtype_of(DS((T([None], tf.int32), T([1, None], tf.string))))
    assert not DS([T([2], tf.int32)]).is_subtype_of(DS((T([2], tf.int32),)))  # list vs tuple
    assert not DS({"x": T([2], tf.int32)}).is_subtype_of(DS({"y": T([2], tf.int32)}))
    assert DS(T([2], tf.int32), [4]).is_subtype_of(DS(T([2], tf.int32), [None]))
    nested = DS(DS(T([2], tf.int32)))
    assert nested.is_subtype_of(DS(DS(T([None], tf.int32))))


def test_dataset_spec_most_specific_common_supertype_as_tf() -> None:
    a, c = DS(T([2], tf.int32)), DS(T([3], tf.int32))
    assert a.most_specific_common_supertype([c]) == DS(T([None], tf.int32))
    assert a.most_specific_common_supertype([c, DS(T([None], tf.int32))]) == DS(T([None], tf.int32))
    assert a.most_specific_common_supertype([]) == a
    for other in (DS(T([2], tf.float32)), DS({"x": T([2], tf.int32)}), DS(T([2], tf.int32, name="a")),
                  T([2], tf.int32), DS([T([2], tf.int32)])):
        assert a.most_specific_common_supertype([other]) is None
    # TF: the dataset shapes [] and [4] have the unknown shape as supertype
    common = a.most_specific_common_supertype([DS(T([2], tf.int32), [4])])
    assert common == DS(T([2], tf.int32), None)
    assert repr(common) == "DatasetSpec(TensorSpec(shape=(2,), dtype=tf.int32, name=None), TensorShape(None))"
    assert DS(T([2], tf.int32), [4]).most_specific_common_supertype([DS(T([2], tf.int32), [5])]) == \
        DS(T([2], tf.int32), [None])
    assert a.most_specific_common_supertype([DS(T([2, 3], tf.int32))]) == DS(T(None, tf.int32))
    t1 = DS((T([2], tf.int32), T([1, 2], tf.string)))
    t2 = DS((T([3], tf.int32), T([1, None], tf.string)))
    assert t1.most_specific_common_supertype([t2]) == DS((T([None], tf.int32), T([1, None], tf.string)))
    assert DS({"x": T([2], tf.int32), "y": T([1], tf.int64)}).most_specific_common_supertype(
        [DS({"y": T([2], tf.int64), "x": T([2], tf.int32)})]) == DS({"x": T([2], tf.int32), "y": T([None], tf.int64)})
    assert DS(DS(T([2], tf.int32))).most_specific_common_supertype([DS(DS(T([3], tf.int32)))]) == \
        DS(DS(T([None], tf.int32)))
    sparse = DS(tf.SparseTensorSpec([2, 3], tf.int32)).most_specific_common_supertype(
        [DS(tf.SparseTensorSpec([2, 4], tf.int32))])
    assert sparse == DS(tf.SparseTensorSpec([2, None], tf.int32))


def test_dataset_spec_most_specific_compatible_type_as_tf() -> None:
    a = DS(T([2], tf.int32))
    assert a.most_specific_compatible_type(DS(T([3], tf.int32))) == DS(T([None], tf.int32))
    assert a.most_specific_compatible_type(DS(T([2], tf.int32), [4])) == DS(T([2], tf.int32), None)
    # TF raises where the common supertype is None (a name too, unlike TensorSpec's own method)
    for other in (DS(T([2], tf.float32)), DS(T([2], tf.int32, name="a")), DS({"x": T([2], tf.int32)}),
                  T([2], tf.int32)):
        with pytest.raises(ValueError, match="No TypeSpec is compatible with both DatasetSpec"):
            a.most_specific_compatible_type(other)


def test_iterator_spec_subtype_methods_as_tf() -> None:
    ia, ib, ic = IS(T([2], tf.int32)), IS(T([None], tf.int32)), IS(T([3], tf.int32))
    assert ia.is_subtype_of(ib) and not ib.is_subtype_of(ia)
    assert not ia.is_subtype_of(DS(T([2], tf.int32)))
    assert ia.most_specific_common_supertype([ic]) == ib
    assert ia.most_specific_common_supertype([IS(T([2], tf.float32))]) is None
    assert ia.most_specific_common_supertype([DS(T([2], tf.int32))]) is None
    assert ia.most_specific_compatible_type(ic) == ib
    assert repr(ib) == "IteratorSpec(TensorSpec(shape=(None,), dtype=tf.int32, name=None),)"  # TF's repr
    with pytest.raises(ValueError, match=r"No TypeSpec is compatible with both IteratorSpec\(TensorSpec"):
        ia.most_specific_compatible_type(IS(T([2], tf.float32)))
    with pytest.raises(ValueError, match="No TypeSpec is compatible"):
        ia.most_specific_compatible_type(DS(T([2], tf.int32)))


def test_window_element_specs_have_a_common_supertype() -> None:
    """What the methods are for: relaxing the specs of datasets made from different inputs."""
    w3 = tf.data.Dataset.range(6).batch(3).element_spec
    w2 = tf.data.Dataset.range(6).batch(2).element_spec
    assert DS(w3).most_specific_common_supertype([DS(w2)]) == DS(T([None], tf.int64))


# ------------------------------------------------------------------ NumpyIterator.save/restore
def _values(iterator) -> list:
    return [np.asarray(x).tolist() for x in iterator]


def test_numpy_iterator_save_restore_deterministic_pipeline() -> None:
    dataset = tf.data.Dataset.range(10).map(lambda x: x * 2)
    it = dataset.as_numpy_iterator()
    assert [next(it), next(it)] == [0, 2]
    state = it.save()
    assert isinstance(state, np.ndarray) and state.shape == ()  # TF: a scalar string tensor
    assert [next(it), next(it), next(it)] == [4, 6, 8]
    assert it.restore(state) is None  # TF's eager result
    assert _values(it) == [4, 6, 8, 10, 12, 14, 16, 18]
    other = dataset.as_numpy_iterator()  # TF: another iterator over the dataset restores too
    other.restore(state)
    assert _values(other) == [4, 6, 8, 10, 12, 14, 16, 18]


def test_numpy_iterator_restore_replays_shuffled_passes() -> None:
    def build():  # unseeded, reshuffled each pass: the state records the seeds
        return tf.data.Dataset.range(7).shuffle(7).repeat(3).batch(2)

    dataset = build()
    it = dataset.as_numpy_iterator()
    for _ in range(5):
        next(it)
    state = it.save()
    rest = _values(it)
    assert len(rest) == 6
    list(dataset.as_numpy_iterator())  # more passes of the same dataset in between
    again = dataset.as_numpy_iterator()
    again.restore(state)
    assert _values(again) == rest
    rebuilt = build().as_numpy_iterator()  # a new dataset object of the same definition
    rebuilt.restore(state)
    assert _values(rebuilt) == rest


def test_numpy_iterator_restore_replays_samplers_and_file_lists(tmp_path) -> None:
    first, second = tf.data.Dataset.range(0, 100), tf.data.Dataset.range(100, 200)

    def sampled():
        return tf.data.Dataset.zip((tf.data.Dataset.sample_from_datasets([first, second], [0.5, 0.5]),
                                    tf.data.Dataset.random()))

    it = sampled().as_numpy_iterator()
    for _ in range(10):
        next(it)
    state, rest = it.save(), [tuple(map(int, x)) for x in it]
    restored = sampled().as_numpy_iterator()
    restored.restore(state)
    assert [tuple(map(int, x)) for x in restored] == rest

    for i in range(6):
        (tmp_path / f"f{i}.txt").write_text(f"line{i}a\nline{i}b\n")

    def lines():
        return tf.data.Dataset.list_files(os.path.join(tmp_path, "*.txt")).repeat(2).interleave(
            tf.data.TextLineDataset, cycle_length=2)

    it = lines().as_numpy_iterator()
    for _ in range(7):
        next(it)
    state, rest = it.save(), _values(it)
    restored = lines().as_numpy_iterator()
    restored.restore(state)
    assert _values(restored) == rest and len(rest) == 17


def test_numpy_iterator_restore_at_the_end_and_errors_as_tf() -> None:
    it = tf.data.Dataset.range(2).as_numpy_iterator()
    list(it)
    ended = it.save()
    fresh = tf.data.Dataset.range(2).as_numpy_iterator()
    fresh.restore(ended)
    assert list(fresh) == []  # TF: exhausted
    other = tf.data.Dataset.range(3).map(lambda x: x).as_numpy_iterator()
    with pytest.raises(tf.errors.NotFoundError, match="Failed to restore dataset iterator from checkpoint"):
        other.restore(ended)  # TF: NotFoundError for another dataset definition
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
        fresh.restore("bad")  # TF: InvalidArgumentError (not a serialized state)


def test_dataset_iterator_keeps_tfs_private_save_restore() -> None:
    dataset = tf.data.Dataset.range(5)
    it = iter(dataset)
    assert not hasattr(it, "save") and hasattr(it, "_save")  # as TF's OwnedIterator
    next(it)
    state = it._save()
    next(it)
    it._restore(state)
    assert [int(x) for x in it] == [1, 2, 3, 4]


# ------------------------------------------------------------------ DatasetInitializer
def _pairs_dataset():
    return tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(3).map(lambda x: x * 10)))


def test_dataset_initializer_initialize_as_tf() -> None:
    init = tf.data.experimental.DatasetInitializer(_pairs_dataset())
    table = tf.lookup.StaticHashTable(init, -1)
    assert np.asarray(table.lookup(tf.constant([0, 1, 2, 5], tf.int64))).tolist() == [0, 10, 20, -1]
    assert init.initialize(table) is None  # TF: an initialized table stays as it is
    assert np.asarray(table.lookup(tf.constant([0, 1, 2, 5], tf.int64))).tolist() == [0, 10, 20, -1]
    other = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([0], tf.int64), tf.constant([0], tf.int64)), -1)
    init.initialize(other)
    assert np.asarray(other.lookup(tf.constant([0, 1, 2], tf.int64))).tolist() == [0, -1, -1]  # TF's


def test_dataset_initializer_initialize_errors_as_tf() -> None:
    init = tf.data.experimental.DatasetInitializer(_pairs_dataset())
    wrong_values = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, -1)
    with pytest.raises(TypeError, match=r"Invalid value dtype for table, expected <dtype: 'float32'> but got "
                                        r"<dtype: 'int64'>\."):
        init.initialize(wrong_values)
    wrong_keys = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    with pytest.raises(TypeError, match="Invalid key dtype for table"):
        init.initialize(wrong_keys)
    mutable = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="is not initializable"):
        init.initialize(mutable)  # TF: InvalidArgumentError, the table is not initializable
