"""TF 2.15's signatures in tf.io and tf.io.gfile: parse_example's third positional argument is
`example_names` (TF1's `tf.compat.v1.parse_example` keeps `name` there), serialize_sparse's
`out_type` is tf.string, gfile.copy/rename take `src`, `dst`."""

from __future__ import annotations

import pytest

import torchestimator as tf


def _examples():
    def one(v):
        return tf.train.Example(features=tf.train.Features(feature={
            "v": tf.train.Feature(float_list=tf.train.FloatList(value=[v]))})).SerializeToString()
    return [one(1.0), one(2.0)]


SPEC = {"v": tf.io.FixedLenFeature([1], tf.float32)}


def test_parse_example_third_positional_is_example_names():
    out = tf.io.parse_example(_examples(), SPEC, ["first", "second"], "a_name")
    assert out["v"].tolist() == [[1.0], [2.0]]
    with pytest.raises(ValueError, match="example_names"):  # one name per Example
        tf.io.parse_example(_examples(), SPEC, ["only one"])
    single = tf.io.parse_single_example(_examples()[0], SPEC, "ex0", "a_name")
    assert single["v"].tolist() == [1.0]


def test_compat_v1_parse_example_third_positional_is_name():
    out = tf.compat.v1.parse_example(_examples(), SPEC, "a_name", ["first", "second"])
    assert out["v"].tolist() == [[1.0], [2.0]]
    single = tf.compat.v1.parse_single_example(_examples()[1], SPEC, "a_name", "ex1")
    assert single["v"].tolist() == [2.0]


def test_serialize_sparse_out_type_is_string_and_only_string():
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    assert tf.io.serialize_sparse(sp).shape == (3,)
    assert tf.io.serialize_sparse(sp, tf.string).shape == (3,)
    assert tf.io.serialize_many_sparse(sp, out_type=tf.string).shape == (2, 3)
    with pytest.raises(NotImplementedError, match="out_type"):
        tf.io.serialize_sparse(sp, tf.variant)
    with pytest.raises(NotImplementedError, match="out_type"):
        tf.io.serialize_many_sparse(sp, tf.variant)


def test_gfile_copy_and_rename_take_src_and_dst(tmp_path):
    src, dst, moved = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    src.write_text("hello")
    tf.io.gfile.copy(src=str(src), dst=str(dst))
    assert dst.read_text() == "hello"
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.io.gfile.copy(str(src), str(dst))
    tf.io.gfile.copy(str(src), str(dst), True)
    tf.io.gfile.rename(src=str(dst), dst=str(moved))
    assert moved.read_text() == "hello" and not dst.exists()
    src.write_text("new")
    tf.io.gfile.rename(str(src), str(moved), overwrite=True)
    assert moved.read_text() == "new" and not src.exists()
