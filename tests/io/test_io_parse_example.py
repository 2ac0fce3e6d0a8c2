"""tf.io.parse_example / parse_single_example: outputs, defaults and every error path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.io._from_values import _example_from_values


def ex(**features) -> bytes:
    return _example_from_values(features).SerializeToString()


def empty_feature(key: str) -> bytes:
    e = tf.train.Example()
    e.features.feature[key].SetInParent()
    return e.SerializeToString()


F, V = tf.io.FixedLenFeature, tf.io.VarLenFeature


def test_messages_have_tensorflow_names_and_field_numbers():
    assert tf.train.Example.DESCRIPTOR.full_name == "tensorflow.Example"
    assert tf.train.SequenceExample.DESCRIPTOR.full_name == "tensorflow.SequenceExample"
    feature = tf.train.Feature.DESCRIPTOR
    assert {f.name: f.number for f in feature.fields} == {
        "bytes_list": 1, "float_list": 2, "int64_list": 3}
    assert tf.train.Features.DESCRIPTOR.fields_by_name["feature"].message_type.GetOptions().map_entry
    # A known encoding: Example{features{feature{key:"a" value{float_list{value:1.5}}}}}
    e = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5]))}))
    assert e.SerializeToString() == bytes.fromhex("0a0f0a0d0a0161120812060a040000c03f")


def test_round_trip_ours_to_bytes_to_ours():
    e = tf.train.Example(features=tf.train.Features(feature={
        "f": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, -2.5])),
        "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[-(2**63), 2**63 - 1, 0])),
        "b": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"\x00\xff", b""])),
    }))
    back = tf.train.Example.FromString(e.SerializeToString())
    assert back == e
    parsed = tf.io.parse_single_example(e.SerializeToString(), {
        "f": F([2], tf.float32), "i": V(tf.int64), "b": F([2], tf.string)})
    assert parsed["f"].tolist() == [1.0, -2.5]
    assert parsed["i"].values.tolist() == [-(2**63), 2**63 - 1, 0]
    assert parsed["b"].tolist() == [b"\x00\xff", b""]


def test_fixed_len_outputs_shapes_and_dtypes():
    recs = [ex(x=[1.0, 2.0, 3.0, 4.0], n=3, s="a"), ex(x=[5.0, 6.0, 7.0, 8.0], n=4, s="b")]
    out = tf.io.parse_example(recs, {"x": F([2, 2], tf.float32), "n": F([], tf.int64),
                                     "s": F([1], tf.string)})
    assert out["x"].dtype == torch.float32 and out["x"].shape == (2, 2, 2)
    assert out["n"].dtype == torch.int64 and out["n"].tolist() == [3, 4]
    assert out["s"].dtype == object and out["s"].shape == (2, 1)
    assert out["s"].tolist() == [[b"a"], [b"b"]]


def test_defaults_fill_missing_and_empty_features():
    recs = [ex(a=1.0), ex(), empty_feature("a")]
    out = tf.io.parse_example(recs, {"a": F([], tf.float32, default_value=7.0),
                                     "s": F([2], tf.string, default_value=["x", "y"])})
    assert out["a"].tolist() == [1.0, 7.0, 7.0]
    assert out["s"].tolist() == [[b"x", b"y"]] * 3


def test_var_len_sparse_tensor():
    recs = [ex(t=["a", "b"]), ex(), ex(t=["c"]), empty_feature("t")]
    sp = tf.io.parse_example(recs, {"t": V(tf.string)})["t"]
    assert isinstance(sp, tf.SparseTensor) and isinstance(sp, tf.sparse.SparseTensor)
    assert sp.indices.tolist() == [[0, 0], [0, 1], [2, 0]]
    assert sp.values.tolist() == [b"a", b"b", b"c"]
    assert sp.dense_shape.tolist() == [4, 2]
    dense = tf.sparse.to_dense(sp)
    assert dense.tolist() == [[b"a", b"b"], [b"", b""], [b"c", b""], [b"", b""]]
    nums = tf.io.parse_example([ex(v=[1.5]), ex(v=[2.0, 3.0])], {"v": V(tf.float32)})["v"]
    assert tf.sparse.to_dense(nums).tolist() == [[1.5, 0.0], [2.0, 3.0]]


def test_empty_batch():
    out = tf.io.parse_example([], {"t": V(tf.string), "c": F([2], tf.int64, default_value=[7, 8])})
    assert out["t"].dense_shape.tolist() == [0, 0]
    assert out["c"].shape == (0, 2)


def test_fixed_len_sequence_feature_pads():
    spec = {"s": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                               default_value=-1.0)}
    out = tf.io.parse_example([ex(s=[1.0, 2.0, 3.0, 4.0]), ex(), ex(s=[5.0, 6.0])], spec)
    assert out["s"].tolist() == [[[1, 2], [3, 4]], [[-1, -1], [-1, -1]], [[5, 6], [-1, -1]]]
    with pytest.raises(ValueError, match="allow_missing"):
        tf.io.parse_example([ex(s=[1.0])], {"s": tf.io.FixedLenSequenceFeature([], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Key: s, Index: 0.*multiple"):
        tf.io.parse_example([ex(s=[1.0, 2.0, 3.0])], spec)


def test_missing_required_feature_names_key_and_index():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.io.parse_example([ex(b=1.0), ex(a=2.0)], {"b": F([], tf.float32)})
    msg = str(info.value)
    assert "Feature: b (data type: float) is required" in msg and "example 1" in msg
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="Name: second, Index: 1"):
        tf.io.parse_example([ex(b=1.0), empty_feature("b")], {"b": F([], tf.float32)},
                            example_names=["first", "second"])


@pytest.mark.parametrize("batch", [1, 3])
def test_wrong_list_kind_names_key_expected_and_actual(batch):
    recs = [ex(a=1)] * batch  # 1: protobuf; 3 same-shaped: the vectorized path
    with pytest.raises(ValueError) as info:
        tf.io.parse_example(recs, {"a": F([], tf.float32)})
    msg = str(info.value)
    assert "Key: a, Index: 0" in msg and "Expected type: float (float_list)" in msg
    assert "Actual type: int64 (int64_list)" in msg
    with pytest.raises(ValueError, match=r"Key: a, Index: 1.*Expected type: string.*float_list"):
        tf.io.parse_example([ex(a="x", other=[1, 2]), ex(a=2.0)], {"a": V(tf.string)})


def test_wrong_value_count_names_key_expected_and_actual():
    with pytest.raises(ValueError) as info:
        tf.io.parse_example([ex(a=[1.0]), ex(a=[1.0, 2.0])], {"a": F([], tf.float32)})
    msg = str(info.value)
    assert "Key: a, Index: 1" in msg and "Values size: 2" in msg and "expects 1" in msg
    with pytest.raises(ValueError, match=r"Values size: 0 but output shape: \[3\]"):
        tf.io.parse_example([_empty_list("a")], {"a": F([3], tf.float32, default_value=0.0)})


def _empty_list(key):
    e = tf.train.Example()
    e.features.feature[key].float_list.SetInParent()
    return e.SerializeToString()


def test_bad_bytes_raise_clear_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Could not parse example input, "
                                                             r"Index: 1"):
        tf.io.parse_example([ex(a=1.0), b"garbage"], {"a": V(tf.float32)})


def test_bad_specs_and_inputs():
    with pytest.raises(ValueError, match="'a' has dtype float64"):
        tf.io.parse_example([ex(a=1.0)], {"a": F([], tf.float64)})
    with pytest.raises(ValueError, match="default_value has 2 values but shape \\[3\\]"):
        tf.io.parse_example([ex(a=1.0)], {"a": F([3], tf.float32, default_value=[1.0, 2.0])})
    with pytest.raises(ValueError, match="unsupported parsing spec"):
        tf.io.parse_example([ex(a=1.0)], {"a": "float"})
    with pytest.raises(ValueError, match="parse_single_example"):
        tf.io.parse_example(ex(a=1.0), {"a": V(tf.float32)})
    with pytest.raises(TypeError, match=r"serialized\[0\] must be bytes"):
        tf.io.parse_example([1.5], {"a": V(tf.float32)})
    with pytest.raises(TypeError, match="For a batch use tf.io.parse_example"):
        tf.io.parse_single_example([ex(a=1.0)], {"a": V(tf.float32)})
    with pytest.raises(ValueError, match="example_names has 1 names for 2"):
        tf.io.parse_example([ex(), ex()], {"a": V(tf.float32)}, example_names=["x"])


def test_accepts_numpy_object_arrays_and_str():
    arr = np.array([ex(a=1.0), ex(a=2.0)], dtype=object)
    assert tf.io.parse_example(arr, {"a": F([], tf.float32)})["a"].tolist() == [1.0, 2.0]


def test_example_from_values_follows_tf_serving_json_rules():
    e = _example_from_values({"f": 1.5, "i": 3, "s": "é", "b": {"b64": "AAE="},
                              "fl": [1.0, 2.0], "il": [1, 2], "e": []})
    fm = e.features.feature
    assert fm["f"].float_list.value == [1.5] and fm["i"].int64_list.value == [3]
    assert fm["s"].bytes_list.value == ["é".encode()] and fm["b"].bytes_list.value == [b"\0\1"]
    assert fm["fl"].float_list.value == [1.0, 2.0] and fm["il"].int64_list.value == [1, 2]
    assert fm["e"].WhichOneof("kind") is None
    for bad, match in [({"x": None}, "Feature: x.*null"), ({"x": True}, "Feature: x.*bool"),
                       ({"x": [1, 2.5]}, "Feature: x mixes"), ({"x": [[1]]}, "nested"),
                       ({"x": {"b64": "@@"}}, "not valid base64"), ({"x": {"a": 1}}, "b64")]:
        with pytest.raises(ValueError, match=match):
            _example_from_values(bad)


def test_sparse_tensor_checks_and_from_dense():
    with pytest.raises(ValueError, match="2 indices but 1 values"):
        tf.SparseTensor([[0, 0], [1, 0]], [1.0], [2, 1])
    with pytest.raises(ValueError, match="out of bounds"):
        tf.sparse.to_dense(tf.SparseTensor([[0, 5]], [1.0], [2, 2]))
    sp = tf.sparse.from_dense(torch.tensor([[0, 3], [4, 0]]))
    assert sp.indices.tolist() == [[0, 1], [1, 0]] and sp.values.tolist() == [3, 4]
    assert sp.shape == (2, 2)
