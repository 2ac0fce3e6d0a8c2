"""window, group_by_window, bucket_by_sequence_length and group_by_reducer against TF 2.15's
recorded results (tests/data/fixtures/tf_data_transforms.json, made by
tools/make_tf_data_transform_fixtures.py)."""

import numpy as np
import pytest
import torch
from _tf_fixture import TF, record, spec, tf_message

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError

r = tf.data.Dataset.range


def sequences():
    lengths = [1, 4, 2, 6, 3, 5, 2, 7, 1, 3, 4, 8, 2]

    def gen():
        for i, n in enumerate(lengths):
            yield np.arange(1, n + 1, dtype=np.int64) + 10 * i

    return tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((None,), tf.int64))


def test_window_values_spec_and_cardinality_match_tf():
    windows = r(7).window(3, shift=2)
    assert spec(windows.element_spec) == TF["window_spec"]
    assert [int(windows.cardinality()), int(r(7).window(3, shift=2, drop_remainder=True)
                                             .cardinality())] == TF["window_card"]
    assert record(windows.flat_map(lambda w: w.batch(3))) == TF["window"]
    strided = r(7).window(3, shift=2, stride=2, drop_remainder=True)
    assert record(strided.flat_map(lambda w: w.batch(3)))["values"] == TF["window_drop"]["values"]


def test_window_shift_stride_and_partial_windows_match_tf():
    big_shift, strided, partial, cards = TF["window_more"]

    def flat(ds):
        return [w.tolist() for w in ds.flat_map(lambda w: w.batch(9))]

    assert flat(r(10).window(2, shift=4)) == big_shift
    assert flat(r(10).window(3, shift=1, stride=3)) == strided
    assert flat(r(5).window(4, shift=3, stride=2)) == partial
    assert [int(r(10).window(2, shift=4).cardinality()),
            int(r(10).window(3, shift=1, stride=3).cardinality()),
            int(r(10).window(3, shift=1, stride=3, drop_remainder=True).cardinality())] == cards


def test_window_default_shift_is_size_and_windows_replay():
    windows = list(r(5).window(2))
    assert [[int(x) for x in w] for w in windows] == [[0, 1], [2, 3], [4]]
    assert [int(x) for x in windows[0]] == [0, 1]  # a window dataset can be iterated again


def test_group_by_window_matches_tf():
    assert record(r(20).group_by_window(lambda x: x % 3, lambda k, w: w.batch(4),
                                        window_size=4)) == TF["gbw"]
    assert record(r(20).group_by_window(lambda x: x % 3, lambda k, w: w.batch(10),
                                        window_size_func=lambda k: k + 2)) == TF["gbw_sizefunc"]
    assert record(r(10).group_by_window(
        lambda x: x % 2, lambda k, w: w.map(lambda x: (k, x)).batch(3),
        window_size=3)) == TF["gbw_keyed"]


def test_group_by_window_through_apply():
    ds = r(9).apply(tf.data.experimental.group_by_window(lambda x: x % 2,
                                                         lambda k, w: w.batch(2), window_size=2))
    assert record(ds) == TF["gbw_exp"]


def test_group_by_window_argument_errors():
    for kwargs in ({}, {"window_size": 2, "window_size_func": lambda k: k}):
        with pytest.raises(ValueError) as e:
            r(5).group_by_window(lambda x: x, lambda k, w: w.batch(2), **kwargs)
        assert str(e.value) == TF["gbw_err_none"]["message"]
    with pytest.raises(ValueError, match="window_size"):
        r(5).group_by_window(lambda x: x, lambda k, w: w.batch(2), window_size=0)


def test_group_by_window_key_must_be_int64():
    ds = r(5).group_by_window(lambda x: x.to(torch.int32), lambda k, w: w.batch(2), window_size=2)
    with pytest.raises(ValueError, match="key_func.*int64"):
        list(ds)
    bad = r(5).group_by_window(lambda x: x, lambda k, w: [1, 2], window_size=2)
    with pytest.raises(TypeError, match="reduce_func.*Dataset"):
        list(bad)


@pytest.mark.parametrize("key,kwargs", [
    ("bucket_plain", {"bucket_boundaries": [3, 5], "bucket_batch_sizes": [2, 2, 3]}),
    ("bucket_boundary_pad", {"bucket_boundaries": [3, 5, 9], "bucket_batch_sizes": [2, 2, 3, 1],
                             "pad_to_bucket_boundary": True, "padding_values": -1}),
    ("bucket_drop", {"bucket_boundaries": [3, 5], "bucket_batch_sizes": [2, 2, 3],
                     "drop_remainder": True}),
    ("bucket_shapes", {"bucket_boundaries": [4], "bucket_batch_sizes": [3, 3],
                       "padded_shapes": [10]}),
])
def test_bucket_by_sequence_length_matches_tf(key, kwargs):
    ds = sequences().bucket_by_sequence_length(lambda x: tf.shape(x)[0], **kwargs)
    assert record(ds) == TF[key]


def test_bucket_no_padding_and_dict_elements_match_tf():
    ds = r(10).map(lambda x: tf.fill([3], x)).bucket_by_sequence_length(
        lambda x: x[0].to(torch.int32), bucket_boundaries=[4], bucket_batch_sizes=[3, 2],
        no_padding=True)
    assert record(ds) == TF["bucket_no_padding"]
    dicts = tf.data.Dataset.from_generator(
        lambda: ({"tokens": np.arange(n, dtype=np.int32), "label": n} for n in [2, 5, 1, 4, 3]),
        output_signature={"tokens": tf.TensorSpec((None,), tf.int32),
                          "label": tf.TensorSpec((), tf.int64)})
    out = dicts.apply(tf.data.experimental.bucket_by_sequence_length(
        lambda e: tf.shape(e["tokens"])[0], [3], [2, 2]))
    assert record(out) == TF["bucket_dict"]


def test_bucket_errors():
    with pytest.raises(ValueError) as e:
        sequences().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2])
    assert str(e.value) == TF["bucket_err_sizes"]["message"]
    ds = sequences().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3], [2, 2],
                                               pad_to_bucket_boundary=True)
    with pytest.raises(InvalidArgumentError,
                       match=r"When pad_to_bucket_boundary=True, elements must have length < "
                             r"max\(bucket_boundaries\)"):
        list(ds)
    assert "pad_to_bucket_boundary" in tf_message("bucket_err_boundary")


def test_group_by_reducer_matches_tf():
    reducer = tf.data.experimental.Reducer(init_func=lambda k: tf.constant(0, tf.int64),
                                           reduce_func=lambda s, x: s + x,
                                           finalize_func=lambda s: s * 10)
    ds = tf.data.Dataset.from_tensor_slices(np.array([5, 2, 7, 4, 1, 8, 9])).apply(
        tf.data.experimental.group_by_reducer(lambda x: x % 3, reducer))
    assert record(ds) == TF["group_by_reducer"]
    with pytest.raises(TypeError, match="Reducer"):
        r(3).apply(tf.data.experimental.group_by_reducer(lambda x: x, lambda s, x: s))
