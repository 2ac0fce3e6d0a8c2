"""The per-request fast paths answer exactly what the general ones do: small integer tensors
written as varints by table lookup, small row answers written without the general path's
per-call work, and the server's heap frozen after loading (a version
unloaded later unfreezes it, so its reference cycles are still collected)."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest
import torch

from torchestimator.serving import _grpc_codec
from torchestimator.serving import _serving_protos as pb
from torchestimator.serving._grpc import array_to_tensor, tensor_bytes
from torchestimator.serving._json_out import row_json
from torchestimator.serving._json_tensor import outputs_to_row_json
from torchestimator.serving._servable import Servable, load_export


@pytest.mark.parametrize("size", [1, _grpc_codec._SMALL_ARRAY, _grpc_codec._SMALL_ARRAY + 1])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint32, np.uint64, np.bool_])
def test_small_and_large_integer_tensors_are_the_bytes_protobuf_writes(size, dtype):
    rng = np.random.default_rng(size)
    if dtype is np.bool_:
        array = rng.integers(0, 2, size).astype(bool)
    else:
        info = np.iinfo(dtype)
        array = rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
        array[: size // 2] %= 200 if info.max > 200 else 100  # one- and two-byte varints too
    expected = pb.TensorProto()
    array_to_tensor(array, expected)
    assert pb.TensorProto.FromString(tensor_bytes(array)) == expected
    assert tensor_bytes(array) == expected.SerializeToString()


def test_unloading_a_version_unfreezes_the_heap_the_server_froze(exports):
    path = exports["iris_v1"]
    servable = Servable(1, path, load_export(path), name="iris")
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        servable.retire()  # no request holds it: unloaded now
        assert servable.unloaded and servable.loaded is None
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("rows", [1, 2])
def test_a_small_row_answer_is_the_bytes_json_dumps_writes(rows):
    """A classifier's answer for one or two rows (the per-request path): float32 logits and
    probabilities (NaN, -0.0, a subnormal), int ids, byte labels, a scalar per row, a half."""
    logits = np.array([[0.552838, -0.2004375, np.nan], [-0.0, 1e-40, 3.4e38]], np.float32)[:rows]
    outputs = {"logits": torch.tensor(logits), "probabilities": logits * np.float32(1 / 3),
               "class_ids": torch.tensor([[0], [2]])[:rows],
               "classes": np.array([[b"0"], [b"\xff"]], dtype=object)[:rows],
               "all_classes": np.array([[b"0", b"1", "\u00e9"]] * rows, dtype=object),
               "score": np.array([0.5, 2.0], np.float32)[:rows],
               "half": torch.tensor([[1 / 3], [7.0]], dtype=torch.float16)[:rows],
               "flags": np.array([True, False])[:rows]}
    expected = json.dumps(outputs_to_row_json(outputs), allow_nan=True,
                          ensure_ascii=False).encode()
    assert row_json(outputs) == expected
