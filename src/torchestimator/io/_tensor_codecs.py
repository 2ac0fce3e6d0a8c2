"""`tf.io.serialize_tensor` / `parse_tensor` (TensorFlow's `TensorProto` wire format, with the
message class TensorBoard ships), `decode_raw`, and web-safe base64 (`encode_base64`,
`decode_base64`)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import numpy as np
import torch
from tensorboard.compat.proto import tensor_pb2

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor
from torchestimator.errors import InvalidArgumentError

# TF's DataType enum values (tensorflow/core/framework/types.proto).
_DT: dict[str, int] = {
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
    "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14, "uint16": 17, "complex128": 18,
    "float16": 19, "uint32": 22, "uint64": 23,
}
_DT_NAME = {v: k for k, v in _DT.items()}
_NUMPY = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "uint8": np.uint8,
          "int16": np.int16, "int8": np.int8, "complex64": np.complex64, "int64": np.int64,
          "bool": np.bool_, "uint16": np.uint16, "complex128": np.complex128,
          "float16": np.float16, "uint32": np.uint32, "uint64": np.uint64}


def _tensor_proto() -> type:
    return tensor_pb2.TensorProto


def _bytes_of(value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    raise TypeError(f"expected a string (bytes or str); received {type(value).__name__}: {value!r:.80}")


def _strings(value: Any) -> np.ndarray:
    """`value` (a string tensor: numpy object array, bytes, str, or nested lists) as an object
    array of its elements."""
    array = np.asarray(value, dtype=object)
    if array.dtype.kind not in "OSU":
        raise TypeError(f"expected a string tensor; received dtype {array.dtype}")
    return array


def serialize_tensor(tensor: Any, name: str | None = None) -> bytes:
    """Transforms a tensor into a serialized `TensorProto` (TF's bytes: `tensor_content` for
    numbers, `string_val` for strings). Returns the bytes (a scalar string)."""
    proto = _tensor_proto()()
    proto.tensor_shape.SetInParent()  # a scalar still writes its (empty) shape, as TF does
    if isinstance(tensor, torch.Tensor):
        dtype_name = _dtypes.dtype_name(tensor.dtype)
        if dtype_name == "bfloat16":
            array = tensor.detach().cpu().view(torch.int16).numpy()
        else:
            array = tensor.detach().cpu().numpy()
        for size in array.shape:
            proto.tensor_shape.dim.add(size=size)
        proto.dtype = _DT[dtype_name]
        if array.size:
            proto.tensor_content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        return proto.SerializeToString()
    array = np.asarray(tensor)
    if array.dtype.kind in "OSU":
        for size in array.shape:
            proto.tensor_shape.dim.add(size=size)
        proto.dtype = _DT["string"]
        proto.string_val.extend(_bytes_of(v) for v in array.reshape(-1).tolist())
        return proto.SerializeToString()

    return serialize_tensor(convert_to_tensor(tensor))


_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "uint8": "int_val",
               "int16": "int_val", "int8": "int_val", "int64": "int64_val", "bool": "bool_val",
               "uint16": "int_val", "uint32": "uint32_val", "uint64": "uint64_val",
               "float16": "half_val", "bfloat16": "half_val", "complex64": "scomplex_val",
               "complex128": "dcomplex_val"}


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Any:
    """Transforms a serialized `TensorProto` into a tensor of `out_type`. Raises
    InvalidArgumentError when the bytes are no TensorProto or hold another dtype."""
    data = _bytes_of(serialized.item() if isinstance(serialized, np.ndarray) else serialized)
    proto = _tensor_proto()()
    try:
        proto.ParseFromString(data)
    except Exception as error:  # protobuf's DecodeError
        raise InvalidArgumentError(None, None, f"Could not parse `serialized` as TensorProto: {error}") from None
    want = _dtypes.dtype_name(_dtypes.as_dtype(out_type))
    got = _DT_NAME.get(proto.dtype, f"DataType({proto.dtype})")
    if got != want:
        raise InvalidArgumentError(
            None, None, f"Type mismatch between parsed tensor ({got}) and dtype ({want})")
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    count = int(np.prod(shape)) if shape else 1
    if want == "string":
        values = list(proto.string_val)
        if len(values) != count:
            raise InvalidArgumentError(None, None, f"TensorProto has {len(values)} strings for shape {shape}")
        out = np.empty(count, dtype=object)
        out[:] = [v.decode() if _is_text(v) else v for v in values]
        return out.reshape(shape) if shape else out[0]
    storage = np.int16 if want == "bfloat16" else _NUMPY[want]
    if proto.tensor_content:
        if len(proto.tensor_content) != count * np.dtype(storage).itemsize:
            raise InvalidArgumentError(
                None, None, f"TensorProto content of {len(proto.tensor_content)} bytes does not fit "
                f"shape {shape} of {want}")
        array = np.frombuffer(proto.tensor_content, dtype=np.dtype(storage).newbyteorder("<")).astype(storage)
    else:
        values = list(getattr(proto, _VAL_FIELDS[want]))
        if want in ("complex64", "complex128"):
            values = [complex(a, b) for a, b in zip(values[::2], values[1::2])]
        if want == "float16":
            values = np.asarray(values, np.uint16).view(np.float16)
        array = np.asarray(values, dtype=storage) if len(values) else np.zeros(0, storage)
        if array.size == 1 and count > 1:  # TF repeats a single value over the shape
            array = np.full(count, array[0], dtype=storage)
        if array.size != count:
            raise InvalidArgumentError(None, None, f"TensorProto has {array.size} values for shape {shape}")
    tensor = torch.from_numpy(array.reshape(shape).copy())
    return tensor.view(torch.bfloat16) if want == "bfloat16" else tensor


def _is_text(value: bytes) -> bool:
    try:
        value.decode()
        return True
    except UnicodeDecodeError:
        return False


def decode_raw(input_bytes: Any, out_type: Any, little_endian: bool = True, fixed_length: Any = None,
               name: str | None = None) -> Any:
    """Converts raw bytes into numbers of `out_type` (`tf.io.decode_raw`): a string of shape S
    gives a tensor of shape S + [length / size of out_type]. All strings must have one length
    (or give `fixed_length`: each is cut or zero-padded to it)."""
    dtype_name = _dtypes.dtype_name(_dtypes.as_dtype(out_type))
    if dtype_name not in _NUMPY and dtype_name != "bfloat16":
        raise TypeError(f"decode_raw: out_type must be a numeric dtype; received {dtype_name}")
    storage = np.dtype(np.int16 if dtype_name == "bfloat16" else _NUMPY[dtype_name])
    storage = storage.newbyteorder("<" if little_endian else ">")
    if isinstance(input_bytes, (bytes, str)):
        input_bytes = np.asarray(input_bytes, dtype=object)
    strings = _strings(input_bytes)
    shape = strings.shape
    items = [_bytes_of(v) for v in strings.reshape(-1).tolist()]
    if fixed_length is not None:
        length = int(fixed_length)
        if length % storage.itemsize:
            raise InvalidArgumentError(None, None, f"fixed_length ({length}) must be a multiple of the "
                                       f"size of out_type ({storage.itemsize})")
        items = [item[:length].ljust(length, b"\0") for item in items]
    elif items:
        first = len(items[0])
        if first % storage.itemsize:
            raise InvalidArgumentError(
                None, None, f"Input to DecodeRaw has length {first} that is not a multiple of "
                f"{storage.itemsize}, the size of {dtype_name}")
        for index, item in enumerate(items):
            if len(item) != first:
                raise InvalidArgumentError(
                    None, None, "DecodeRaw requires input strings to all be the same size, but "
                    f"element {index} has size {len(item)} != {first}")
    width = (len(items[0]) if items else 0) // storage.itemsize
    array = np.frombuffer(b"".join(items), dtype=storage).astype(storage.newbyteorder("="))
    tensor = torch.from_numpy(array.reshape((*shape, width)).copy())
    return tensor.view(torch.bfloat16) if dtype_name == "bfloat16" else tensor


def encode_base64(input: Any, pad: bool = False, name: str | None = None) -> Any:  # noqa: A002
    """Encodes strings into web-safe base64 (`-` and `_` for `+` and `/`), with `=` padding
    only when `pad`. Returns a string tensor of the same shape."""
    strings = _strings(input)
    out = np.empty(strings.size, dtype=object)
    for index, value in enumerate(strings.reshape(-1).tolist()):
        encoded = base64.urlsafe_b64encode(_bytes_of(value))
        out[index] = encoded if pad else encoded.rstrip(b"=")
    return out.reshape(strings.shape) if strings.shape else out[0]


def decode_base64(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """Decodes web-safe base64 strings (padded or not). Returns a string tensor of the same
    shape; raises InvalidArgumentError naming the element that is not base64."""
    strings = _strings(input)
    out = np.empty(strings.size, dtype=object)
    for index, value in enumerate(strings.reshape(-1).tolist()):
        data = _bytes_of(value).rstrip(b"=")
        try:
            out[index] = base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))
        except (binascii.Error, ValueError) as error:
            raise InvalidArgumentError(None, None, f"Invalid character found in base64 (element "
                                       f"{index}): {error}") from None
    return out.reshape(strings.shape) if strings.shape else out[0]
