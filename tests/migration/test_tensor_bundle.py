"""TensorFlow's V2 checkpoint format read without TensorFlow: the checkpoints under
fixtures/formats were written by TF 2.15's own savers (tools/make_tf_fixtures.py): every dtype,
strings, a scalar, an empty tensor, two data shards, a partitioned variable, an object-based
checkpoint. The values are compared with what TF put in them; damaged copies are errors that
name the file and the tensor."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt
from torchestimator._tf_formats import _ordered_code
from torchestimator._tf_formats.tensor_bundle import TensorBundle, TFCheckpointError
from torchestimator.cli import main

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "formats")
DTYPES = os.path.join(HERE, "dtypes")
PREFIX = os.path.join(DTYPES, "model.ckpt")
OBJECT = os.path.join(HERE, "object")


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(DTYPES, "values.npz")) as values:
        arrays = dict(values)
    with open(os.path.join(DTYPES, "strings.json")) as f:
        strings = {k: [bytes.fromhex(x) for x in v] for k, v in json.load(f).items()}
    return arrays, strings


def test_every_dtype_shard_and_partition_reads_what_tf_wrote(expected):
    arrays, strings = expected
    with TensorBundle(PREFIX) as bundle:
        assert bundle.num_shards == 2
        assert {e.shard_id for e in bundle.entries.values() if not len(e.slices)} == {0, 1}
        for name, value in arrays.items():
            got = bundle.get_tensor(name)
            assert got.dtype == (np.float32 if name.endswith("bfloat16") else value.dtype), name
            assert got.shape == value.shape, name
            np.testing.assert_array_equal(got, value, err_msg=name)
        assert bundle.get_tensor("dtypes/string").tolist() == strings["dtypes/string"]
        assert bundle.get_tensor("dtypes/string_scalar") == strings["dtypes/string_scalar"][0]
        assert bundle.dtype_name("dtypes/bfloat16") == "bfloat16"
        assert bundle.shape("partitioned/embedding") == [7, 3]
        assert bundle.shape("dtypes/scalar") == []


def test_read_all_yields_every_tensor_once():
    with TensorBundle(PREFIX) as bundle:
        names = [name for name, _ in bundle.read_all()]
    assert sorted(names) == sorted(bundle.names()) and len(names) == len(set(names))


def test_slice_keys_are_tf_ordered_code():
    # the keys TF wrote for the 3 slices of the (7, 3) partitioned variable
    assert _ordered_code.tensor_name_slice("partitioned/embedding", [(3, 2), (0, 3)]) == (
        b"\x00partitioned/embedding\x00\x01\x01\x02\x83\x82\x80\x83")
    # the full extent, negatives and long numbers keep OrderedCode's order
    values = [-70000, -65, -64, -1, 0, 1, 63, 64, 1000, 2**20, 2**40]
    encoded = [_ordered_code.signed_num_increasing(v) for v in values]
    assert encoded == sorted(encoded)
    assert _ordered_code.signed_num_increasing(-1) == b"\x7f"
    assert _ordered_code.string(b"a\x00b\xff") == b"a\x00\xffb\xff\x00\x00\x01"


def test_train_api_reads_tf_checkpoints(expected):
    arrays, strings = expected
    assert tf.train.latest_checkpoint(DTYPES) == PREFIX
    assert tf.compat.v1.train.checkpoint_exists(PREFIX)
    assert not tf.compat.v1.train.checkpoint_exists(PREFIX + "-9")
    listed = dict(tf.train.list_variables(DTYPES))
    assert listed["partitioned/embedding"] == [7, 3] and listed["dtypes/empty"] == [0, 4]
    np.testing.assert_array_equal(tf.train.load_variable(DTYPES, "dtypes/int64"), arrays["dtypes/int64"])
    reader = tf.train.load_checkpoint(DTYPES)
    assert reader.has_tensor("dtypes/bool") and not reader.has_tensor("dtypes/nothing")
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["dtypes/string"] == tf.string and dtypes["dtypes/bfloat16"] == tf.bfloat16
    assert dtypes["dtypes/float16"] == tf.float16 and dtypes["dtypes/int8"] == tf.int8
    assert reader.get_variable_to_shape_map()["dtypes/float32"] == [4, 3]
    assert reader.get_tensor("dtypes/string").tolist() == strings["dtypes/string"]
    with pytest.raises(KeyError, match="dtypes/float32"):
        reader.get_tensor("dtypes/float33")


def test_object_based_checkpoint_lists_its_object_graph_and_values():
    with np.load(os.path.join(OBJECT, "values.npz")) as values:
        kernel = values["model/dense/kernel:0"]
    prefix = tf.train.latest_checkpoint(OBJECT)
    assert prefix == os.path.join(OBJECT, "ckpt-1")
    names = dict(tf.train.list_variables(prefix))
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in names
    np.testing.assert_array_equal(
        tf.train.load_variable(prefix, "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"), kernel)
    tensors, meta = ckpt.load_checkpoint(prefix)  # what the Estimator's restore reads
    assert meta["format"] == "tensorflow" and meta["string_tensors"] == ["_CHECKPOINTABLE_OBJECT_GRAPH"]
    assert tensors["optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"].dtype == tf.int64


def test_reader_reads_our_format_too(tmp_path):
    manager = ckpt.CheckpointManager(str(tmp_path))
    manager.save(4, {"w": torch.ones(2, 3, dtype=torch.bfloat16)})
    reader = tf.train.load_checkpoint(str(tmp_path))
    assert reader.get_variable_to_shape_map() == {"w": [2, 3], "global_step": []}
    assert reader.get_variable_to_dtype_map()["w"] == tf.bfloat16
    np.testing.assert_array_equal(reader.get_tensor("w"), np.ones((2, 3), np.float32))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint'"):
        tf.train.load_checkpoint(str(tmp_path / "empty"))


def _copy(tmp_path):
    target = tmp_path / "dtypes"
    shutil.copytree(DTYPES, target)
    return str(target / "model.ckpt")


def test_corrupted_tensor_is_an_error_naming_file_and_tensor(tmp_path):
    prefix = _copy(tmp_path)
    with TensorBundle(prefix) as bundle:
        entry = bundle.entries["dtypes/float32"]
        shard = f"{prefix}.data-{entry.shard_id:05d}-of-00002"
    with open(shard, "r+b") as f:
        f.seek(entry.offset + 5)
        byte = f.read(1)
        f.seek(entry.offset + 5)
        f.write(bytes([byte[0] ^ 0x10]))
    with pytest.raises(TFCheckpointError, match=r"model\.ckpt\.data-0000\d-of-00002 is corrupt: tensor 'dtypes/float32'"):
        tf.train.load_variable(prefix, "dtypes/float32")
    with pytest.raises(ValueError, match="dtypes/float32"):
        ckpt.load_checkpoint(prefix)
    tf.train.load_variable(prefix, "dtypes/int8")  # the other tensors still read


def test_corrupted_string_tensor_is_an_error(tmp_path):
    prefix = _copy(tmp_path)
    with TensorBundle(prefix) as bundle:
        entry = bundle.entries["dtypes/string"]
        shard = f"{prefix}.data-{entry.shard_id:05d}-of-00002"
    with open(shard, "r+b") as f:
        f.seek(entry.offset + entry.size - 1)
        f.write(b"X")
    with pytest.raises(TFCheckpointError, match="'dtypes/string'.*CRC32C"):
        tf.train.load_variable(prefix, "dtypes/string")


def test_damaged_index_missing_shard_and_truncation_are_named(tmp_path):
    prefix = _copy(tmp_path)
    index = prefix + ".index"
    data = bytearray(open(index, "rb").read())
    data[20] ^= 0xFF
    open(index, "wb").write(bytes(data))
    with pytest.raises(TFCheckpointError, match=r"model\.ckpt\.index.*CRC32C"):
        tf.train.list_variables(prefix)
    assert not tf.compat.v1.train.checkpoint_exists(prefix)
    open(index, "wb").write(bytes(data[:30]))
    with pytest.raises(TFCheckpointError, match="too short"):
        TensorBundle(prefix)
    open(index, "wb").write(b"\x00" * 100)
    with pytest.raises(TFCheckpointError, match="bad magic"):
        TensorBundle(prefix)

    prefix = str(shutil.copytree(DTYPES, tmp_path / "again") / "model.ckpt")
    os.remove(prefix + ".data-00001-of-00002")
    with pytest.raises(TFCheckpointError, match=r"data-00001-of-00002 is missing"):
        ckpt.load_checkpoint(prefix)
    assert not tf.compat.v1.train.checkpoint_exists(prefix)
    assert tf.train.latest_checkpoint(str(tmp_path / "again")) is None

    prefix = str(shutil.copytree(DTYPES, tmp_path / "cut") / "model.ckpt")
    with open(prefix + ".data-00000-of-00002", "r+b") as f:
        f.truncate(10)
    with pytest.raises(TFCheckpointError, match="truncated"):
        ckpt.load_checkpoint(prefix)


def test_conversion_keeps_bfloat16_and_leaves_strings_out(tmp_path, capsys):
    from torchestimator.migration import convert_checkpoint

    (prefix,) = convert_checkpoint(DTYPES, str(tmp_path / "ours"))
    tensors, meta = ckpt.load_checkpoint(prefix)
    assert tensors["dtypes/bfloat16"].dtype == torch.bfloat16
    np.testing.assert_array_equal(tensors["dtypes/bfloat16"].float().numpy(),
                                  tf.train.load_variable(PREFIX, "dtypes/bfloat16"))
    assert meta["extra"]["string_tensors_left_out"] == ["dtypes/string", "dtypes/string_scalar"]
    assert main(["inspect-checkpoint", str(tmp_path / "ours")]) == 0
    assert "dtypes/bfloat16 (3,2) bfloat16" in capsys.readouterr().out


def test_inspect_checkpoint_cli_on_a_tf_checkpoint(capsys):
    assert main(["inspect-checkpoint", DTYPES]) == 0
    out = capsys.readouterr().out
    assert "partitioned/embedding (7,3) float32" in out and "dtypes/scalar () float32" in out
    assert "dtypes/string (4) string" in out and "dtypes/bfloat16 (3,2) bfloat16" in out
    assert main(["inspect-checkpoint", PREFIX, "--tensor", "dtypes/int32"]) == 0
    assert "2147483647" in capsys.readouterr().out
