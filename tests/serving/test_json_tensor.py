"""JSON <-> tensors as TF Serving converts them, and JSON features as parse_example reads them
(no server: the conversion functions on their own)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.serving._errors import RequestError
from torchestimator.serving._examples import examples_from_json
from torchestimator.serving._features import check_columns, feature_columns
from torchestimator.serving._json_tensor import (
    decode_input,
    output_to_json,
    outputs_to_columnar_json,
    outputs_to_row_json,
)

F32 = tf.TensorSpec((None, 2), tf.float32)
I64 = tf.TensorSpec((None,), tf.int64)
STR = tf.TensorSpec((None,), tf.string)


def _error(fn, *args) -> str:
    with pytest.raises(RequestError) as info:
        fn(*args)
    return info.value.message


def test_numbers_take_the_spec_dtype_and_shape():
    array = decode_input([[1, 2.5], [3, float("nan")]], "x", F32)
    assert array.dtype == np.float32 and array.shape == (2, 2) and np.isnan(array[1, 1])
    assert decode_input([1, 2], "n", I64).dtype == np.int64
    assert decode_input([True, False], "b", tf.TensorSpec((None,), tf.bool)).tolist() == [True, False]


def test_number_type_errors_name_the_input_value_and_type():
    message = _error(decode_input, [[1, "2"]], "x", F32)
    assert "input 'x'" in message and '"2"' in message and "String" in message
    assert "float32" in message
    message = _error(decode_input, [1.5], "n", I64)
    assert "1.5" in message and "int64" in message and "whole numbers" in message
    assert "int32" in _error(decode_input, [2**40], "n", tf.TensorSpec((None,), tf.int32))
    assert "float32" in _error(decode_input, [[1e300, 1]], "x", F32)  # out of float32 range
    assert "Object" in _error(decode_input, {"a": 1}, "x", F32)
    assert "Bool" in _error(decode_input, [[True, 1.0]], "x", tf.TensorSpec((None, 2), tf.int8)) \
        or "int8" in _error(decode_input, [[True, 1.0]], "x", tf.TensorSpec((None, 2), tf.int8))


def test_shape_errors():
    assert "expected shape [-1, 2]" in _error(decode_input, [[1, 2, 3]], "x", F32)
    assert "do not form a tensor" in _error(decode_input, [[1, 2], [3]], "x", F32)
    assert "do not form a tensor" in _error(decode_input, [["a"], "b"], "s", STR)


def test_strings_and_b64():
    data = b"\x00\xffbinary"
    array = decode_input(["text", {"b64": base64.b64encode(data).decode()}], "s", STR)
    assert array.dtype == object and array.tolist() == [b"text", data]
    assert array.shape == (2,)
    unpadded = base64.b64encode(b"ab").decode().rstrip("=")
    assert decode_input([{"b64": unpadded}], "s", STR).tolist() == [b"ab"]
    assert "base64" in _error(decode_input, [{"b64": "@@@"}], "s", STR)
    assert "b64" in _error(decode_input, [{"b64": "AA==", "more": 1}], "s", STR)
    assert "string" in _error(decode_input, [1], "s", STR)


def test_float32_outputs_are_written_as_tf_serving_writes_them():
    values = torch.tensor([0.2, 1.0, 1 / 3, 1e-8, 3e38, float("nan"), float("inf"), -0.0])
    text = json.dumps(output_to_json("p", values), allow_nan=True)
    assert text == "[0.2, 1.0, 0.333333343, 1e-08, 3e+38, NaN, Infinity, -0.0]"
    back = np.asarray(json.loads(text), dtype=np.float32)
    np.testing.assert_array_equal(back[:5], values.numpy()[:5])  # exact round trip
    assert output_to_json("d", torch.tensor([0.1], dtype=torch.float64)) == [0.1]
    assert output_to_json("i", torch.tensor([[1], [2]])) == [[1], [2]]


def test_string_outputs_and_bytes_suffix():
    classes = np.array([[b"a", b"b"]], dtype=object)
    assert output_to_json("classes", classes) == [["a", "b"]]
    assert output_to_json("image_bytes", np.array([b"\x00\x01"], dtype=object)) == [
        {"b64": base64.b64encode(b"\x00\x01").decode()}]
    # bytes that are not text are base64'd rather than written as invalid JSON
    assert output_to_json("name", np.array([b"\xff"], dtype=object)) == [{"b64": "/w=="}]


def test_row_and_columnar_output_bodies():
    outputs = {"scores": torch.tensor([[0.5, 0.5], [1.0, 0.0]]), "ids": torch.tensor([1, 0])}
    assert outputs_to_row_json(outputs) == {"predictions": [
        {"scores": [0.5, 0.5], "ids": 1}, {"scores": [1.0, 0.0], "ids": 0}]}
    assert outputs_to_row_json({"y": torch.tensor([3.5, 4.0])}) == {"predictions": [3.5, 4.0]}
    assert outputs_to_columnar_json(outputs) == {
        "outputs": {"scores": [[0.5, 0.5], [1.0, 0.0]], "ids": [1, 0]}}
    assert outputs_to_columnar_json({"y": torch.tensor(2.0)}) == {"outputs": 2.0}
    message = _error(outputs_to_row_json, {"a": torch.zeros(2), "b": torch.zeros(3)})
    assert "inconsistent batch size" in message and "'inputs'" in message


def test_feature_columns_merge_context_and_mark_missing_features():
    known = ["x", "kind", "tags"]
    columns = feature_columns([{"x": 1.5, "tags": ["a", "b"]}, {"x": [2]}], {"kind": "k"},
                              known, "examples", strict=False)
    assert columns == {"x": [1.5, [2]], "kind": ["k", "k"], "tags": [["a", "b"], None]}
    # a feature the export does not parse: ignored for classify/regress, refused for predict
    assert feature_columns([{"x": 1.0, "color": 3}], None, known, "examples", False) == {
        "x": [1.0], "kind": [None], "tags": [None]}
    message = _error(feature_columns, [{"x": 1.0, "color": 3}], None, known, "instances", True)
    assert "instances[0]" in message and "unknown feature 'color'" in message
    message = _error(feature_columns, [{"x": 1.0}], {"x": 2.0}, known, "examples", False)
    assert "'x'" in message and "context" in message
    assert "must be JSON object" in _error(feature_columns, ["x"], None, known, "examples", True)
    assert "'context'" in _error(feature_columns, [{"x": 1}], [1], known, "examples", True)
    check_columns({"x": [1.0, 2.0]}, known)
    assert "unknown feature" in _error(check_columns, {"y": [1.0]}, known)
    assert "list" in _error(check_columns, {"x": 1.0}, known)


def test_examples_from_json_builds_tf_serving_examples():
    (serialized,) = examples_from_json([{"a": 1, "b": 2.5, "c": "s", "d": [True, 3]}],
                                       {"e": {"b64": base64.b64encode(b"\x01").decode()}})
    example = tf.train.Example.FromString(serialized)
    feature = example.features.feature
    assert list(feature["a"].int64_list.value) == [1]
    assert list(feature["b"].float_list.value) == [2.5]
    assert list(feature["c"].bytes_list.value) == [b"s"]
    assert list(feature["d"].int64_list.value) == [1, 3]
    assert list(feature["e"].bytes_list.value) == [b"\x01"]
    assert "expecting type: int64" in _error(examples_from_json, [{"a": [1, "x"]}], None)
    assert "Null" in _error(examples_from_json, [{"a": None}], None)
