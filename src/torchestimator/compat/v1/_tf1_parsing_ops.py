"""TF1's parsing names of `tf.compat.v1` (TF1's `parsing_ops` line, issue 32): `decode_csv`
with TF1's argument order and `decode_json_example`, which writes JSON-encoded
`tf.train.Example`s as the binary protocol buffers TF's converter makes.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from typing import Any

import numpy as np

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError


def decode_csv(records: Any, record_defaults: Any, field_delim: str = ",",
               use_quote_delim: bool = True, name: str | None = None, na_value: str = "",
               select_cols: Any = None) -> list[Any]:
    """Converts CSV records to tensors, one per column (TF1's `tf.compat.v1.decode_csv`:
    `tf.io.decode_csv` with TF1's argument order).

    Returns:
        A list of tensors, one per column, typed by `record_defaults`.
    """
    return tf.io.decode_csv(records, record_defaults, field_delim, use_quote_delim, na_value,
                            select_cols)


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _json_get(obj: dict, *names: str) -> Any:
    for n in names:
        if n in obj:
            return obj[n]
    return None


def _encode_feature(feature: dict) -> bytes:
    """One tf.train.Feature as TF's JSON-to-binary converter writes it (repeated scalars
    unpacked, in the JSON's order)."""
    out = b""
    bl = _json_get(feature, "bytesList", "bytes_list")
    if bl is not None:
        out += _field(1, b"".join(_field(1, base64.b64decode(v)) for v in
                                  (_json_get(bl, "value") or [])))
    fl = _json_get(feature, "floatList", "float_list")
    if fl is not None:
        values = b""
        for v in _json_get(fl, "value") or []:
            f = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, v)
            values += b"\x0d" + struct.pack("<f", float(f))
        out += _field(2, values)
    il = _json_get(feature, "int64List", "int64_list")
    if il is not None:
        out += _field(3, b"".join(b"\x08" + _varint(int(v)) for v in
                                  (_json_get(il, "value") or [])))
    return out


def decode_json_example(json_examples: Any, name: str | None = None) -> np.ndarray:
    """Converts JSON-encoded `tf.train.Example` records (protobuf's JSON mapping) to binary
    protocol buffer strings (TF1's `tf.compat.v1.decode_json_example`; byte-identical to TF's:
    repeated values unpacked, features in the JSON's order).

    Returns:
        An object array of `bytes` (serialized Examples) of `json_examples`' shape.
    """
    from google.protobuf import json_format  # lazy: heavy (google.protobuf.json_format, 60 ms)

    array = np.asarray(json_examples, dtype=object)
    out = np.empty(array.shape, dtype=object)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i, text in enumerate(flat_in.tolist()):
        text = text.decode("utf-8") if isinstance(text, bytes) else str(text)
        try:
            json_format.Parse(text, tf.train.Example())  # validates against the schema
            record = json.loads(text)
        except (json_format.ParseError, json.JSONDecodeError) as e:
            raise InvalidArgumentError(None, None, f"decode_json_example: Error while parsing "
                                       f"JSON record {i} ({text[:60]!r}): {e}") from None
        features = _json_get(record, "features")
        data = b""
        if features is not None:
            entries = b""
            for key, feature in (_json_get(features, "feature") or {}).items():
                entries += _field(1, _field(1, key.encode("utf-8"))
                                  + _field(2, _encode_feature(feature)))
            data = _field(1, entries)
        flat_out[i] = data
    return out

