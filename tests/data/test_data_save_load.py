"""Dataset.save / Dataset.load / Dataset.snapshot: round trips (numbers, strings, dicts,
variable shapes, shards, compression), atomic writes, and crafted files that loading refuses
without running anything from them."""

import json
import os
import pickle

import numpy as np
import pyarrow as pa
import pytest
import torch
from _tf_fixture import py, spec

import torchestimator as tf

r = tf.data.Dataset.range


def values(ds):
    return [py(e) for e in ds.as_numpy_iterator()]


def mixed():
    def gen():
        for i in range(7):
            yield {"ids": np.arange(i % 3 + 1, dtype=np.int32), "text": f"line {i}",
                   "w": np.float32(i) / 2}, np.int64(i % 2)

    sig = ({"ids": tf.TensorSpec((None,), tf.int32), "text": tf.TensorSpec((), tf.string),
            "w": tf.TensorSpec((), tf.float32)}, tf.TensorSpec((), tf.int64))
    return tf.data.Dataset.from_generator(gen, output_signature=sig)


@pytest.mark.parametrize("compression", [None, "GZIP", "SNAPPY"])
def test_round_trip_of_mixed_elements(tmp_path, compression):
    path = str(tmp_path / "saved")
    mixed().save(path, compression=compression)
    loaded = tf.data.Dataset.load(path, compression=compression)
    assert loaded.element_spec == mixed().element_spec
    assert values(loaded) == values(mixed())
    assert int(loaded.cardinality()) == 7
    assert values(loaded.padded_batch(7).unbatch())[3][0]["ids"] == [0, 0, 0]


def test_round_trip_of_tensors_strings_and_bool(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices({
        "x": torch.randn(50, 3, dtype=torch.float64), "s": np.array([f"s{i}" for i in range(50)]),
        "b": np.arange(50) % 2 == 0, "h": torch.arange(50, dtype=torch.bfloat16)}).batch(8)
    tf.data.experimental.save(ds, str(tmp_path / "a"))
    loaded = tf.data.experimental.load(str(tmp_path / "a"))
    for got, want in zip(loaded, ds):
        assert got["s"].tolist() == want["s"].tolist()
        for k in ("x", "b", "h"):
            assert got[k].dtype == want[k].dtype and torch.equal(got[k], want[k])
    assert spec(loaded.element_spec) == spec(ds.element_spec)


def test_shard_func_and_reader_func(tmp_path):
    path = str(tmp_path / "sharded")
    r(10).save(path, shard_func=lambda x: x % 3)
    assert sorted(os.listdir(path)) == ["dataset_spec.json", "shard_00000.arrow",
                                        "shard_00001.arrow", "shard_00002.arrow"]
    assert [int(x) for x in tf.data.Dataset.load(path)] == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    interleaved = tf.data.Dataset.load(
        path, reader_func=lambda shards: shards.interleave(lambda d: d, cycle_length=3))
    assert [int(x) for x in interleaved] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    with pytest.raises(ValueError, match="shard_func"):
        r(3).save(str(tmp_path / "bad"), shard_func=lambda x: x - 5)
    assert not os.path.exists(tmp_path / "bad")  # a failed save leaves nothing behind
    assert not [n for n in os.listdir(tmp_path) if ".tmp-" in n]


def test_save_replaces_atomically_and_element_spec_is_checked(tmp_path):
    path = str(tmp_path / "d")
    r(3).save(path)
    r(5, 7).save(path)
    assert [int(x) for x in tf.data.Dataset.load(path)] == [5, 6]

    def boom(x):
        if int(x) == 2:
            raise RuntimeError("input failed")
        return x

    with pytest.raises(RuntimeError, match="input failed"):
        r(4).map(boom).save(path)
    assert [int(x) for x in tf.data.Dataset.load(path)] == [5, 6]  # the old save is intact
    assert tf.data.Dataset.load(path, element_spec=tf.TensorSpec((), tf.int64))
    with pytest.raises(ValueError, match="does not match"):
        tf.data.Dataset.load(path, element_spec=tf.TensorSpec((), tf.float32))
    with pytest.raises(NotImplementedError, match="checkpoint_args"):
        r(3).save(path, checkpoint_args={"directory": str(tmp_path)})
    with pytest.raises(ValueError, match="compression"):
        r(3).save(path, compression="BZIP9")


def test_empty_dataset_round_trip(tmp_path):
    r(0).save(str(tmp_path / "e"))
    loaded = tf.data.Dataset.load(str(tmp_path / "e"))
    assert list(loaded) == [] and int(loaded.cardinality()) == 0


# --------------------------------------------------------------------- crafted files
def _saved(tmp_path):
    path = str(tmp_path / "victim")
    tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.int64)).save(path)
    return path


def _edit_spec(path, **changes):
    file = os.path.join(path, "dataset_spec.json")
    with open(file) as f:
        data = json.load(f)
    data.update(changes)
    with open(file, "w") as f:
        json.dump(data, f)


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


@pytest.mark.parametrize("changes,match", [
    ({"format": "pickle"}, "format"),
    ({"version": 99}, "version"),
    ({"num_elements": -4}, "num_elements"),
    ({"shards": ["../../etc/passwd"]}, "shards"),
    ({"shards": ["shard_00000.pkl"]}, "shards"),
    ({"element_spec": {"spec": [[], "load"]}}, "element_spec"),
    ({"element_spec": {"spec": [[-3], "int64"]}}, "element_spec"),
    ({"element_spec": {"__reduce__": "os.system"}}, "element_spec"),
])
def test_crafted_spec_files_are_refused(tmp_path, changes, match):
    path = _saved(tmp_path)
    _edit_spec(path, **changes)
    with pytest.raises(ValueError, match=match):
        tf.data.Dataset.load(path)


def test_pickle_and_garbage_are_refused_and_never_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _saved(tmp_path)
    with open(os.path.join(path, "dataset_spec.json"), "wb") as f:
        pickle.dump(_Boom(), f)
    with pytest.raises(ValueError, match="not a valid dataset spec"):
        tf.data.Dataset.load(path)
    path = _saved(tmp_path)
    with open(os.path.join(path, "shard_00000.arrow"), "wb") as f:
        pickle.dump(_Boom(), f)
    with pytest.raises(ValueError, match="not a valid shard"):
        list(tf.data.Dataset.load(path))
    assert not os.path.exists(tmp_path / "PWNED")


def test_crafted_shard_contents_are_refused(tmp_path):
    path = _saved(tmp_path)
    shard = os.path.join(path, "shard_00000.arrow")
    # a shard whose metadata claims a shape its values do not fill
    values = pa.array([1, 2, 3], type=pa.int64())
    column = pa.ListArray.from_arrays(pa.array([0, 1, 2, 3], pa.int32()), values)
    batch = pa.RecordBatch.from_arrays([column], names=["c0"])
    with pa.ipc.new_file(shard, batch.schema) as w:
        w.write_batch(batch, custom_metadata={"shapes": json.dumps([[5]]), "rows": "3"})
    with pytest.raises(ValueError, match="shape"):
        list(tf.data.Dataset.load(path))
    with pa.ipc.new_file(shard, batch.schema) as w:
        w.write_batch(batch, custom_metadata={"shapes": json.dumps([[]]), "rows": "999"})
    with pytest.raises(ValueError, match="metadata"):
        list(tf.data.Dataset.load(path))
    os.remove(shard)
    with pytest.raises(FileNotFoundError, match="missing"):
        tf.data.Dataset.load(path)
    with pytest.raises(FileNotFoundError, match="dataset_spec.json"):
        tf.data.Dataset.load(str(tmp_path / "nothing"))


# --------------------------------------------------------------------------- snapshot
def test_snapshot_writes_first_pass_then_reads_it(tmp_path):
    calls = []

    def count(x):
        calls.append(int(x))
        return x * 2

    path = str(tmp_path / "snap")
    ds = r(5).map(count).snapshot(path)
    assert [int(x) for x in ds] == [0, 2, 4, 6, 8]
    assert os.path.isfile(os.path.join(path, "dataset_spec.json"))
    n = len(calls)
    assert [int(x) for x in ds] == [0, 2, 4, 6, 8]
    assert len(calls) == n  # the second pass reads the snapshot
    again = r(5).map(count).apply(tf.data.experimental.snapshot(path))
    assert [int(x) for x in again] == [0, 2, 4, 6, 8] and len(calls) == n


def test_snapshot_of_an_abandoned_pass_is_not_kept(tmp_path):
    path = str(tmp_path / "snap")
    ds = r(100).snapshot(path)
    it = iter(ds)
    next(it)
    it.close()
    assert not os.path.exists(path)
    assert [int(x) for x in ds.take(3)] == [0, 1, 2]
    assert not os.path.exists(path)
    assert len(list(ds)) == 100 and os.path.exists(path)
