"""tf.compat.v1.train as TF 2.15's: TF1's `Checkpoint` (`save`/`write(file_prefix,
session=None, options=None)`, every keyword, `root` too, a tracked name), `checkpoint_exists
(checkpoint_prefix)`, `NewCheckpointReader(filepattern)`, `Saver(write_version=2)` and
`remove_checkpoint(..., checkpoint_format_version=2)`."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchestimator as tf

v1 = tf.compat.v1


def _v1_checkpoint():
    module = tf.Module()
    module.v = tf.Variable(1.0)
    return v1.train.Checkpoint(root=module, x=tf.Variable(2.0))


def test_v1_checkpoint_save_and_write_take_a_session(tmp_path):
    ckpt = _v1_checkpoint()
    path = ckpt.save(str(tmp_path / "v1"), None)
    assert path == str(tmp_path / "v1-1")
    # TF 2.15.1's keys for the same checkpoint (its `_CHECKPOINTABLE_OBJECT_GRAPH` aside): TF1's
    # Checkpoint has no root object, `root` is a name as any other.
    assert [name for name, _ in tf.train.list_variables(path)] == [
        "root/v/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
        "x/.ATTRIBUTES/VARIABLE_VALUE"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    written = ckpt.write(str(tmp_path / "w"), session=object())  # any session: eager values
    assert written == str(tmp_path / "w")
    assert ckpt.save(file_prefix=str(tmp_path / "v1"), session=None, options=None) == str(tmp_path / "v1-2")

    other = v1.train.Checkpoint(root=tf.Module(), x=tf.Variable(0.0))
    other.root.v = tf.Variable(0.0)
    other.restore(path)
    assert float(other.x.numpy()) == 2.0 and float(other.root.v.numpy()) == 1.0
    assert int(other.save_counter) == 1
    with pytest.raises(ValueError, match="root"):
        v1.train.Checkpoint(root=None)


def test_checkpoint_exists_and_new_checkpoint_reader_take_tf_names(tmp_path):
    path = _v1_checkpoint().save(str(tmp_path / "c"))
    assert v1.train.checkpoint_exists(checkpoint_prefix=path)
    assert not v1.train.checkpoint_exists(checkpoint_prefix=str(tmp_path / "missing"))
    reader = v1.train.NewCheckpointReader(filepattern=path)
    assert float(reader.get_tensor("x/.ATTRIBUTES/VARIABLE_VALUE")) == 2.0
    assert float(v1.train.NewCheckpointReader(path.encode()).get_tensor("x/.ATTRIBUTES/VARIABLE_VALUE")) == 2.0


def test_saver_write_version_defaults_to_v2_and_refuses_v1(tmp_path):
    var = tf.Variable(3.0, name="sig_fix_var")
    saver = v1.train.Saver([var], write_version=2)
    path = saver.save(None, str(tmp_path / "m"))
    np.testing.assert_array_equal(tf.train.load_variable(path, "sig_fix_var"), 3.0)
    assert v1.train.Saver([var]).save(None, str(tmp_path / "d")) == str(tmp_path / "d")
    for version in (1, 0):
        with pytest.raises(NotImplementedError, match="write_version"):
            v1.train.Saver([var], write_version=version)


def test_remove_checkpoint_by_format_version(tmp_path):
    var = tf.Variable(3.0, name="sig_fix_rm")
    path = v1.train.Saver([var]).save(None, str(tmp_path / "m"))
    meta = path + ".meta"
    open(meta, "w").close()
    v1.train.remove_checkpoint(path)  # V2, TF's default: the checkpoint and its meta graph
    assert not v1.train.checkpoint_exists(path) and not os.path.exists(meta)

    legacy = tmp_path / "legacy"
    legacy.write_bytes(b"v1")
    kept = v1.train.Saver([var]).save(None, str(tmp_path / "kept"))
    v1.train.remove_checkpoint(str(legacy), 1)  # V1: the file at the prefix itself
    assert not legacy.exists()
    v1.train.remove_checkpoint(kept, checkpoint_format_version=1)  # no such file: nothing removed
    assert v1.train.checkpoint_exists(kept)
