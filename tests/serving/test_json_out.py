"""The `:predict` answer written from whole arrays (`_json_out`) is byte for byte what
`json.dumps` writes for the nested lists of `outputs_to_row_json` / `outputs_to_columnar_json`,
and an answer over the size limit is a 413 (no server: the functions on their own)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from torchestimator.serving._errors import RequestError
from torchestimator.serving._json_out import columnar_json, row_json
from torchestimator.serving._json_tensor import outputs_to_columnar_json, outputs_to_row_json


def _outputs(n: int) -> list[dict]:
    rng = np.random.default_rng(n)
    f = (rng.standard_normal((n, 3)).astype(np.float32)
         * np.float32(10.0) ** rng.integers(-8, 20, (n, 3)).astype(np.float32))
    f[0, 0], f[1, 1], f[2, 2], f[3, 0] = np.nan, np.inf, -0.0, 0.0
    strings = np.array([[b"a", b"\xff", "\u00e9"]] * n, dtype=object)
    return [
        {"p": torch.tensor(f)},
        {"p": f[:, :1], "i": np.arange(n, dtype=np.int64), "b": np.arange(n) % 2 == 0},
        {"logits": f, "classes": strings[:, :1], "all_classes": strings,
         "img_bytes": np.array([b"x\x00"] * n, dtype=object),
         "d": rng.standard_normal((n, 2, 2)) * 1e-6, "h": torch.tensor(f).half(),
         "z": np.zeros((n, 2, 1), np.float32)},
        {"empty": np.zeros((n, 0), np.float32), "x": f},
        {"s": np.float32(2.5), "x": f[:, 0]},
        {"u": np.arange(n, dtype=np.uint64) * np.uint64(2**40), "x": f.astype(np.float64)},
        {"a": np.zeros(n, np.float32), "b": np.ones(n + 1, np.float32)},
    ]


def _old(build, outputs) -> bytes | str:
    try:
        return json.dumps(build(outputs), allow_nan=True, ensure_ascii=False).encode()
    except RequestError as error:
        return error.message


def _new(write, outputs) -> bytes | str:
    try:
        return write(outputs)
    except RequestError as error:
        return error.message


@pytest.mark.parametrize("n", [4, 65, 70_000])
def test_the_answer_is_the_same_bytes_as_json_dumps_writes(n):
    for index, outputs in enumerate(_outputs(n)):
        assert _new(columnar_json, outputs) == _old(outputs_to_columnar_json, outputs), index
        assert _new(row_json, outputs) == _old(outputs_to_row_json, outputs), index


def test_float_text_is_tf_servings():
    values = torch.tensor([0.2, 1.0, 1 / 3, 1e-8, 3e38, float("nan"), float("inf"), -0.0] * 10)
    text = columnar_json({"p": values})
    assert text.startswith(b'{"outputs": [0.2, 1.0, 0.333333343, 1e-08, 3e+38, NaN, Infinity, '
                           b'-0.0, 0.2')


def test_an_answer_over_the_limit_is_413():
    outputs = {"p": np.zeros((1000, 3), np.float32)}
    with pytest.raises(RequestError) as info:
        columnar_json(outputs, max_bytes=2000)  # 3000 values: at least 8998 bytes
    assert info.value.status == 413 and "at least" in info.value.message
    assert "--max_response_bytes" in info.value.message
    size = len(row_json(outputs))
    with pytest.raises(RequestError) as info:
        row_json(outputs, max_bytes=size - 1)
    assert info.value.status == 413 and f"{size} bytes" in info.value.message
    assert row_json(outputs, max_bytes=size) == row_json(outputs)
