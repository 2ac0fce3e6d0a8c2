"""tf.io.RaggedFeature / SparseFeature in parse_example against TF 2.15's recorded values."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf
from _ragged_fixtures import TF, same
from torchestimator.errors import InvalidArgumentError

RF = tf.io.RaggedFeature
EXAMPLES = [bytes.fromhex(h) for h in TF["parse_examples_hex"]["value"]]
SPECS = {
    "v": RF(tf.int64),
    "s": RF(tf.string),
    "by_lengths": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("lens")]),
    "by_splits": RF(tf.int64, value_key="v", partitions=[RF.RowSplits("splits")]),
    "by_rowids": RF(tf.int64, value_key="v", partitions=[RF.ValueRowIds("rid")]),
    "uniform": RF(tf.float32, value_key="fl", partitions=[RF.UniformRowLength(2)]),
    "sp": tf.io.SparseFeature("idx", "val", tf.float32, 4),
    "sp2": tf.io.SparseFeature(["idx", "idx2"], "val", tf.float32, [4, 3]),
    "v32": RF(tf.int64, value_key="v", row_splits_dtype=tf.int32),
}
RECORDED = TF["parse"]["value"]


@pytest.mark.parametrize("key", sorted(SPECS))
def test_parse_example_matches_tf(key):
    got = tf.io.parse_example(EXAMPLES, {key: SPECS[key]})[key]
    same(got, RECORDED[key]["batch"])


@pytest.mark.parametrize("key", sorted(SPECS))
def test_parse_single_example_matches_tf(key):
    for serialized, want in zip(EXAMPLES, RECORDED[key]["single"]):
        same(tf.io.parse_single_example(serialized, {key: SPECS[key]})[key], want)


def test_all_features_in_one_call_and_with_plain_features():
    specs = dict(SPECS, lens=tf.io.VarLenFeature(tf.int64))
    got = tf.io.parse_example(EXAMPLES, specs)
    assert list(got) == list(specs)
    for key in SPECS:
        same(got[key], RECORDED[key]["batch"])
    assert isinstance(got["lens"], tf.SparseTensor)
    assert got["lens"].values.tolist() == [1, 3, 0, 1]


def test_nested_partitions_match_tf():
    spec = RF(tf.int64, value_key="v", partitions=[RF.RowLengths("lens"), RF.UniformRowLength(1)])
    same(tf.io.parse_example(EXAMPLES[:2], {"n": spec})["n"], TF["parse_nested"])


def test_row_splits_dtype_default_int32_like_tf():
    assert "row_splits_dtype=tf.int32" in TF["ragged_feature_repr"]["value"]
    spec = RF(tf.int64, partitions=[RF.RowLengths("l")])
    assert spec.row_splits_dtype == torch.int32 and spec.partitions == [RF.RowLengths("l")]
    got = tf.io.parse_example(EXAMPLES, {"v": RF(tf.int64)})["v"]
    assert got.row_splits.dtype == torch.int32
    got = tf.io.parse_example(EXAMPLES, {"v": RF(tf.int64, row_splits_dtype=tf.int64)})["v"]
    assert got.row_splits.dtype == torch.int64
    sp = tf.io.SparseFeature("i", "v", tf.float32, 4)
    assert (sp.index_key, sp.value_key, sp.size, sp.already_sorted) == ("i", "v", 4, False)
    assert tf.compat.v1.SparseFeature is tf.io.SparseFeature


def test_row_starts_and_limits():
    ex = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2, 3])),
        "st": tf.train.Feature(int64_list=tf.train.Int64List(value=[0, 1])),
        "lim": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 3])),
    })).SerializeToString()
    out = tf.io.parse_example([ex], {
        "a": RF(tf.int64, value_key="v", partitions=[RF.RowStarts("st")]),
        "b": RF(tf.int64, value_key="v", partitions=[RF.RowLimits("lim")]),
    })
    assert out["a"].to_list() == [[[1], [2, 3]]] == out["b"].to_list()


def test_errors_name_feature_and_values():
    bad = RF(tf.int64, value_key="v", partitions=[RF.RowLengths("splits")])
    with pytest.raises(InvalidArgumentError, match=r"Feature 'x', example 0: partition feature "
                                                   r"'splits' \(RowLengths\)"):
        tf.io.parse_example(EXAMPLES, {"x": bad})
    with pytest.raises(InvalidArgumentError, match=r"index feature 'idx' has 2 values but value "
                                                   r"feature 'v' has 4"):
        tf.io.parse_example(EXAMPLES, {"x": tf.io.SparseFeature("idx", "v", tf.int64, 9)})
    with pytest.raises(InvalidArgumentError, match=r"holds \[3, 0\], outside \[0, 2\)"):
        tf.io.parse_example(EXAMPLES, {"x": tf.io.SparseFeature("idx", "val", tf.float32, 2)})
    with pytest.raises(ValueError, match="dtype must be tf.int64, tf.float32 or tf.string"):
        RF(tf.int32)
    with pytest.raises(TypeError, match="partitions must be a list"):
        RF(tf.int64, partitions=["lens"])
    with pytest.raises(ValueError, match="reads feature 'v' as float32"):
        tf.io.parse_example(EXAMPLES, {"v": RF(tf.int64), "b": RF(tf.float32, value_key="v")})
