"""`tf.make_tensor_proto` and `tf.make_ndarray`: values to and from TensorFlow's `TensorProto`
(the message from the `tensorboard` package's protos, the same wire format as TF's)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes

_NUMPY_TO_DT = {
    np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3, np.dtype(np.uint8): 4,
    np.dtype(np.int16): 5, np.dtype(np.int8): 6, np.dtype(np.complex64): 8, np.dtype(np.int64): 9,
    np.dtype(np.bool_): 10, np.dtype(np.uint16): 17, np.dtype(np.complex128): 18, np.dtype(np.float16): 19,
    np.dtype(np.uint32): 22, np.dtype(np.uint64): 23,
}
_DT_TO_NUMPY = {v: k for k, v in _NUMPY_TO_DT.items()}
_STRING = 7
# the repeated field TF fills for a value given as a scalar to broadcast
_VAL_FIELD = {1: "float_val", 2: "double_val", 3: "int_val", 4: "int_val", 5: "int_val", 6: "int_val",
              9: "int64_val", 10: "bool_val", 17: "int_val", 19: "half_val", 22: "uint32_val", 23: "uint64_val",
              8: "scomplex_val", 18: "dcomplex_val"}


def _proto_module() -> Any:
    from tensorboard.compat.proto import (  # lazy: heavy (tensorboard.compat.proto.tensor_pb2, 161 ms)
        tensor_pb2,
    )

    return tensor_pb2


def _numpy_dtype(dtype: Any) -> np.dtype | None:
    if dtype is None:
        return None

    d = _dtypes.as_dtype(dtype)
    if d is _dtypes.string:
        return np.dtype(object)

    return np.dtype(torch.empty((), dtype=d).numpy().dtype)


def _as_array(values: Any, dtype: Any) -> np.ndarray:
    if hasattr(values, "detach") and hasattr(values, "cpu"):
        values = values.detach().cpu().numpy()
    np_dtype = _numpy_dtype(dtype)
    if np_dtype is not None and np_dtype.kind != "O":
        return np.asarray(values, dtype=np_dtype)
    array = np.asarray(values)
    if np_dtype is None and not isinstance(values, np.ndarray):  # Python numbers, as TF types them
        if array.dtype == np.int64 and (array.size == 0 or (array.min() >= -2**31 and array.max() < 2**31)):
            array = array.astype(np.int32)
        elif array.dtype == np.float64:
            array = array.astype(np.float32)
    return array


def make_tensor_proto(values: Any, dtype: Any = None, shape: Any = None, verify_shape: bool = False,
                      allow_broadcast: bool = False) -> Any:
    """Creates a `TensorProto` from `values` (array-like; tensors are read as numpy) with
    `dtype` and `shape` as TF's: Python ints are int32 and floats float32; values that fill
    `shape` (more than one) go to `tensor_content`, fewer are stored as given (a reader
    repeats the last one); `verify_shape` asks for exactly `shape`."""
    array = _as_array(values, dtype)
    dims = list(array.shape) if shape is None else [int(d) for d in shape]
    size = int(np.prod(dims)) if dims else 1
    if shape is not None:
        if verify_shape and list(array.shape) != dims:
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {array.shape}.")
        if array.size > size:
            raise ValueError(f"Too many elements provided. Takes at most {size:d}, but got {array.size:d}.")
    pb = _proto_module()
    proto = pb.TensorProto()
    for d in dims:
        proto.tensor_shape.dim.add(size=d)
    if array.dtype.kind in "OUS":
        proto.dtype = _STRING
        proto.string_val.extend(
            v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.reshape(-1).tolist())
        return proto
    code = _NUMPY_TO_DT.get(array.dtype)
    if code is None:
        raise TypeError(f"make_tensor_proto: unsupported dtype {array.dtype}.")
    proto.dtype = code
    if array.size == size and size > 1:
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
        return proto
    field = getattr(proto, _VAL_FIELD[code])
    flat = array.reshape(-1)
    if code in (8, 18):
        for v in flat.tolist():
            field.extend([v.real, v.imag])
    elif code == 19:
        field.extend(flat.view(np.uint16).tolist())
    else:
        field.extend(flat.tolist())
    return proto


def make_ndarray(tensor: Any) -> np.ndarray:
    """The numpy array of a `TensorProto` (strings as an object array of bytes)."""
    shape = [d.size for d in tensor.tensor_shape.dim]
    size = int(np.prod(shape)) if shape else 1
    if tensor.dtype == _STRING:
        values = list(tensor.string_val)
        array = np.array(values if len(values) == size else (values + values[-1:] * (size - len(values))), dtype=object)
        return array.reshape(shape)
    dtype = _DT_TO_NUMPY.get(tensor.dtype)
    if dtype is None:
        raise TypeError(f"make_ndarray: unsupported TensorProto dtype {tensor.dtype}.")
    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)
    field = list(getattr(tensor, _VAL_FIELD[tensor.dtype]))
    if tensor.dtype in (8, 18):
        field = [complex(a, b) for a, b in zip(field[::2], field[1::2])]
    values = np.array(field, dtype=np.uint16).view(np.float16) if tensor.dtype == 19 else np.array(field, dtype=dtype)
    if values.size == 0:
        return np.zeros(shape, dtype=dtype)
    if values.size < size:
        values = np.concatenate([values, np.repeat(values[-1:], size - values.size)])
    return values.reshape(shape)
