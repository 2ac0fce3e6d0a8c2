"""tf.data.experimental's TF 2.15 names and the smaller helpers: apply-style transformations,
from_list, at, pad_to_cardinality, map_and_batch, make_batched_features_dataset, the record
readers/writers, DatasetSpec / IteratorSpec / NumpyIterator, ragged batching and the refused
sparse batching.
Values against TF 2.15's recorded ones (tests/data/fixtures/tf_data_transforms.json)."""

import json
import os

import numpy as np
import pytest
import torch
from _tf_fixture import TF, record, spec, tf_message

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError, OutOfRangeError

r = tf.data.Dataset.range
REFERENCE = "/work/shared/reference/tf_api_2.15.json"
# TF 2.15 names not provided (graph-mode, TF-service or lookup-table machinery)
NOT_PROVIDED = {"CheckpointInputPipelineHook", "DatasetInitializer", "Optional", "SqlDataset",
                "from_variant", "to_variant", "get_next_as_optional", "index_table_from_dataset",
                "table_from_dataset", "make_saveable_from_iterator", "service"}


@pytest.mark.skipif(not os.path.exists(REFERENCE), reason="TF API reference not present")
def test_tf_215_names_are_present():
    with open(REFERENCE) as f:
        names = json.load(f)
    missing = [n for n in names["data.experimental"]
               if n not in NOT_PROVIDED and not hasattr(tf.data.experimental, n)]
    assert missing == []
    assert [n for n in names["data"] if not hasattr(tf.data, n)] == []


def test_apply_style_transformations_match_tf():
    exp = tf.data.experimental
    assert record(r(3).apply(exp.enumerate_dataset(start=5))) == TF["enumerate_exp"]
    assert record(r(7).apply(exp.map_and_batch(lambda x: x * 2, 3))) == TF["map_and_batch"]
    assert int(r(7).apply(exp.shuffle_and_repeat(10, count=2)).cardinality()) == \
        TF["shuffle_and_repeat_card"]
    assert sorted(int(x) for x in r(7).apply(exp.shuffle_and_repeat(10, 2, seed=1))) == \
        sorted(list(range(7)) * 2)
    assert record(r(6).batch(4).apply(exp.unbatch()))["values"] == TF["unbatch_exp"]["values"]
    assert record(r(10).apply(exp.take_while(lambda x: x < 4))) == TF["take_while_exp"]
    assert [int(x) for x in r(4).apply(exp.parallel_interleave(
        lambda x: r(x), cycle_length=2))] == [0, 0, 1, 0, 1, 2]
    moved = r(3).apply(exp.copy_to_device("/gpu:0")).apply(exp.prefetch_to_device("/gpu:0", 2))
    assert [int(x) for x in moved] == [0, 1, 2]
    with pytest.raises(ValueError, match="only one of"):
        exp.map_and_batch(lambda x: x, 2, num_parallel_batches=1, num_parallel_calls=2)


def test_from_list_at_get_structure():
    ds = tf.data.experimental.from_list([(1, "a"), (2, "b"), (3, "c")])
    got = record(ds)
    assert got["values"] == TF["from_list"]["values"]
    # Python ints become int64 here (the project's rule for lists), int32 in TF
    assert got["spec"] == [[[], "int64"], TF["from_list"]["spec"][1]]
    assert got["cardinality"] == TF["from_list"]["cardinality"]
    varying = tf.data.experimental.from_list([np.zeros(2), np.zeros(3)])
    assert spec(varying.element_spec) == [[None], "float64"]
    with pytest.raises(ValueError, match="same structure"):
        tf.data.experimental.from_list([(1, 2), 3])
    with pytest.raises(ValueError, match="non-empty"):
        tf.data.experimental.from_list([])
    assert int(tf.data.experimental.at(r(10, 20), 3)) == TF["at"][0]
    with pytest.raises(OutOfRangeError) as e:
        tf.data.experimental.at(r(3), 5)
    assert str(e.value) == TF["at"][1]["message"].split("}} ")[1].split(" [Op:")[0]
    assert tf.data.experimental.get_structure(r(3)) == tf.TensorSpec((), tf.int64)
    assert tf.data.experimental.get_structure(iter(r(3))) == tf.TensorSpec((), tf.int64)


def test_pad_to_cardinality_matches_tf():
    ds = tf.data.Dataset.from_tensor_slices({"a": np.array([1, 2], np.int32), "b": [1.5, 2.5]})
    assert record(ds.apply(tf.data.experimental.pad_to_cardinality(4))) == \
        TF["pad_to_cardinality"]
    with pytest.raises(ValueError) as e:
        tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3]}).apply(
            tf.data.experimental.pad_to_cardinality(2))
    assert str(e.value) == TF["pad_to_cardinality_err"]["message"]


def test_ragged_batching_gives_ragged_tensors():
    tokens = tf.data.Dataset.from_tensor_slices(["a b", "c"]).map(tf.strings.split)
    for ds in (tokens.ragged_batch(2),
               tokens.apply(tf.data.experimental.dense_to_ragged_batch(2))):
        assert repr(ds.element_spec) == TF["ragged_batch_spec"]  # what TF gives
        assert [b.to_list() for b in ds] == [[[b"a", b"b"], [b"c"]]]


def _parts(b):
    return b.indices.numpy().tolist(), np.asarray(b.values).tolist(), b.dense_shape.numpy().tolist()


def test_sparse_batch_gives_sparse_tensors_of_the_row_shape():
    # the values TF 2.15 gives for these programs
    tokens = tf.data.Dataset.from_tensor_slices(["a b", "c", "d e f"]).map(tf.strings.split)
    for ds in (tokens.sparse_batch(2, [4]),
               tokens.apply(tf.data.experimental.dense_to_sparse_batch(2, [4]))):
        assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([None, 4]), tf.string)"
        got = [_parts(b) for b in ds]
        assert got[0][0] == [[0, 0], [0, 1], [1, 0]] and got[0][2] == [2, 4]
        assert [v.decode() if isinstance(v, bytes) else v for v in got[1][1]] == ["d", "e", "f"]
        assert got[1][2] == [1, 4]
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x, 2], x)).sparse_batch(3, [5, 2])
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([None, 5, 2]), tf.int64)"
    first, second = [_parts(b) for b in ds]
    assert first[1] == [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3] and first[2] == [3, 5, 2]
    assert first[0][:4] == [[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 1]]
    assert second[2] == [1, 5, 2] and len(second[0]) == 8
    zeros_kept = tf.data.Dataset.from_tensor_slices([[1, 0], [0, 3]]).sparse_batch(2, [2])
    assert [_parts(b) for b in zeros_kept] == [([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 0, 0, 3],
                                                [2, 2])]
    scalars = tf.data.Dataset.range(1, 3).sparse_batch(2, [])
    assert [_parts(b) for b in scalars] == [([[0], [1]], [1, 2], [2])]


def test_sparse_batch_errors_are_tfs():
    longer = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x))
    with pytest.raises(tf.errors.DataLossError, match=r"shape \(\[3\]\) that is larger than "
                                                      r"the row shape \(\[2\]\)"):
        list(longer.sparse_batch(2, [2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"incompatible with the row shape "
                                                             r"\(\[2,3\]\)"):
        list(longer.sparse_batch(2, [2, 3]))
    with pytest.raises(TypeError, match=r"single component.*\(tf.int32, tf.int32\)|"
                                        r"single component.*\(tf.int64, tf.int64\)"):
        tf.data.Dataset.from_tensor_slices(([[1, 0]], [1])).sparse_batch(2, [2])
    with pytest.raises(ValueError, match="row_shape"):
        longer.sparse_batch(2, [-1])


def test_specs_and_numpy_iterator():
    windows = r(4).window(2)
    assert isinstance(windows.element_spec, tf.data.DatasetSpec)
    assert windows.element_spec == tf.data.DatasetSpec(tf.TensorSpec((), tf.int64))
    assert tf.data.DatasetSpec.from_value(r(2)).element_spec == r(2).element_spec
    it = iter(r(3))
    assert tf.data.IteratorSpec.from_value(it) == tf.data.IteratorSpec(r(3).element_spec)
    numpy_it = r(3).as_numpy_iterator()
    assert isinstance(numpy_it, tf.data.NumpyIterator)
    assert [int(x) for x in numpy_it] == [0, 1, 2]
    assert tf.data.experimental.SHARD_HINT == -1
    assert [a.name for a in tf.data.experimental.AutotuneAlgorithm] == [
        "DEFAULT", "HILL_CLIMB", "GRADIENT_DESCENT", "MAX_PARALLELISM", "STAGE_BASED"]
    assert [p.name for p in tf.data.experimental.ExternalStatePolicy] == ["WARN", "IGNORE", "FAIL"]


def _example(x, y, s):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[y])),
        "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[s.encode()])),
    })).SerializeToString()


def test_make_batched_features_dataset_reads_tfrecords(tmp_path):
    files = []
    for k in range(2):
        path = str(tmp_path / f"part-{k}.tfrecord")
        if k == 0:  # through tf.data.experimental.TFRecordWriter: a dataset of records
            with tf.io.TFRecordWriter(str(tmp_path / "staging")) as w:
                for i in range(5):
                    w.write(_example([i, i + 0.5], i, f"w{i}"))
            records = tf.data.TFRecordDataset(str(tmp_path / "staging"))
            tf.data.experimental.TFRecordWriter(path).write(records)
        else:
            with tf.io.TFRecordWriter(path) as w:
                for i in range(5, 10):
                    w.write(_example([i, i + 0.5], i, f"w{i}"))
        files.append(path)
    features = {"x": tf.io.FixedLenFeature([2], tf.float32),
                "y": tf.io.FixedLenFeature([], tf.int64),
                "s": tf.io.FixedLenFeature([], tf.string)}
    ds = tf.data.experimental.make_batched_features_dataset(
        str(tmp_path / "part-*.tfrecord"), batch_size=4, features=features, label_key="y",
        num_epochs=1, shuffle=False)
    batches = list(ds)
    assert [len(y) for _, y in batches] == [4, 4, 2]
    feats, labels = batches[0]
    assert sorted(feats) == ["s", "x"] and labels.tolist() == [0, 1, 2, 3]
    assert feats["x"].tolist()[1] == [1.0, 1.5]
    assert [str(v) for v in feats["s"]] == ["w0", "w1", "w2", "w3"]
    shuffled = tf.data.experimental.make_batched_features_dataset(
        files, 3, features, shuffle_seed=2, num_epochs=2)
    ys = [int(v) for batch in shuffled for v in batch["y"]]
    assert sorted(ys) == sorted(list(range(10)) * 2) and ys != sorted(ys)
    forever = tf.data.experimental.make_batched_features_dataset(files, 3, features)
    assert [len(b["y"]) for b in forever.take(8)] == [3] * 8  # repeats; full batches only
    with pytest.raises(ValueError, match="label_key"):
        tf.data.experimental.make_batched_features_dataset(files, 2, features, label_key="z")
    varlen = tf.data.experimental.make_batched_features_dataset(  # a tf.SparseTensor per batch
        files, 2, {"x": tf.io.VarLenFeature(tf.float32)}, num_epochs=1, shuffle=False)
    assert isinstance(next(iter(varlen))["x"], tf.SparseTensor)
    parsed = tf.data.TFRecordDataset(files).batch(10).apply(
        tf.data.experimental.parse_example_dataset(features))
    assert next(iter(parsed))["y"].tolist() == list(range(10))


def test_tfrecord_writer_refuses_non_string_datasets(tmp_path):
    with pytest.raises(TypeError, match="scalar `tf.string`"):
        tf.data.experimental.TFRecordWriter(str(tmp_path / "x")).write(r(3))


def test_fixed_length_record_dataset(tmp_path):
    path = tmp_path / "records.bin"
    path.write_bytes(b"HDR" + bytes(range(12)) + b"FT")
    ds = tf.data.FixedLengthRecordDataset(str(path), 4, header_bytes=3, footer_bytes=2)
    assert ds.element_spec == tf.TensorSpec((), tf.string)
    assert list(ds.as_numpy_iterator()) == [bytes([0, 1, 2, 3]), bytes([4, 5, 6, 7]),
                                            bytes([8, 9, 10, 11])]
    decoded = ds.map(lambda b: torch.frombuffer(bytearray(b), dtype=torch.uint8))
    assert next(iter(decoded)).tolist() == [0, 1, 2, 3]
    with pytest.raises(InvalidArgumentError, match="not an exact multiple of the record length"):
        list(tf.data.FixedLengthRecordDataset(str(path), 5, header_bytes=3, footer_bytes=2))


def test_tf_error_helper_strips_op_decorations():
    assert tf_message("assert_card_few").startswith("Input dataset was expected")
