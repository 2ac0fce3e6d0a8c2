"""TensorProto <-> numpy and the wire-format answers of the gRPC API (see `_grpc`).

`tensor_to_array` reads a request's TensorProto (`tensor_content` through
`np.frombuffer`, typed value fields through `np.asarray`: no loop over the
values); `tensor_bytes` and `predict_response_bytes` write Predict answers
straight in protobuf's wire format from whole arrays; the `_*_result` helpers
fill Classify/Regress results. Failures are `GrpcError`s carrying TF Serving's
status code and a message saying what is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import grpc
import numpy as np

from torchestimator.serving import _serving_protos as pb
from torchestimator.serving._json_tensor import spec_dtype_name, to_numpy
from torchestimator.serving._rest import _TF_DTYPES
from torchestimator.serving._versions import ModelVersions, Servable

# TF's DataType enum (tensorflow/core/framework/types.proto) <-> numpy.
_DT_NUMBER = {"DT_FLOAT": 1, "DT_DOUBLE": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 5,
              "DT_INT8": 6, "DT_STRING": 7, "DT_COMPLEX64": 8, "DT_INT64": 9, "DT_BOOL": 10,
              "DT_BFLOAT16": 14, "DT_UINT16": 17, "DT_COMPLEX128": 18, "DT_HALF": 19,
              "DT_UINT32": 22, "DT_UINT64": 23}
_DT_NAME = {v: k for k, v in _DT_NUMBER.items()}
_TF_NAME = {v: k for k, v in _TF_DTYPES.items()}  # DT_FLOAT -> float32
_NUMPY = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
          8: np.complex64, 9: np.int64, 10: np.bool_, 17: np.uint16, 18: np.complex128,
          19: np.float16, 22: np.uint32, 23: np.uint64}
_VALUE_FIELD = {1: "float_val", 2: "double_val", 3: "int_val", 4: "int_val", 5: "int_val",
                6: "int_val", 7: "string_val", 8: "scomplex_val", 9: "int64_val", 10: "bool_val",
                17: "int_val", 18: "dcomplex_val", 19: "half_val", 22: "uint32_val",
                23: "uint64_val", 14: "half_val"}
_FROM_NUMPY = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
               np.dtype(np.uint8): 4, np.dtype(np.int16): 5, np.dtype(np.int8): 6,
               np.dtype(np.complex64): 8, np.dtype(np.int64): 9, np.dtype(np.bool_): 10,
               np.dtype(np.uint16): 17, np.dtype(np.complex128): 18, np.dtype(np.float16): 19,
               np.dtype(np.uint32): 22, np.dtype(np.uint64): 23}


class GrpcError(Exception):
    """A call the server refuses: answered with `code` and `message`."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _invalid(message: str) -> GrpcError:
    return GrpcError(grpc.StatusCode.INVALID_ARGUMENT, message)


class _Refused:
    """A request refused before it is parsed: `size` bytes, over the limit or (with `problem`)
    not a valid message."""

    __slots__ = ("size", "problem")

    def __init__(self, size: int, problem: str | None = None):
        self.size = size
        self.problem = problem

    def error(self, limit: int | None) -> GrpcError:
        if self.problem is not None:  # (INTERNAL: what gRPC's C++ server answers, TF Serving's)
            return GrpcError(grpc.StatusCode.INTERNAL,
                             f"Failed to parse the request: {self.problem}; send the request "
                             "message of TF Serving's .proto files")
        return GrpcError(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"Request too large: {self.size} bytes, over the server's limit of {limit} bytes "
            "(--max_body_bytes, TF Serving's gRPC max message size); send fewer rows per "
            "request or start the server with a larger --max_body_bytes")


def _serialize(message: Any) -> bytes:
    return message if type(message) is bytes else message.SerializeToString()


# ----------------------------------------------------------------------------- tensors
def tensor_to_array(name: str, proto: Any, max_bytes: int | None = None) -> np.ndarray:
    """The numpy array of the TensorProto `proto` (input `name`): strings as an object array of
    bytes. A GrpcError (INVALID_ARGUMENT) for a malformed tensor; RESOURCE_EXHAUSTED when it
    expands past `max_bytes`."""
    if proto.tensor_shape.unknown_rank:
        raise _invalid(f"input '{name}': the TensorProto has an unknown rank; give its shape")
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    if any(size < 0 for size in shape):
        raise _invalid(f"input '{name}': the TensorProto has a negative dimension in shape "
                       f"{list(shape)}")
    count = math.prod(shape)
    dtype = proto.dtype
    if dtype == 7:
        values = proto.string_val
        if max_bytes is not None and count > len(values) and count * 8 > max_bytes:
            raise GrpcError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"input '{name}': shape {list(shape)} repeats its string over "
                            f"{count} elements, past the server's limit of {max_bytes} bytes "
                            "(--max_body_bytes)")
        if len(values) != count and not (len(values) == 1 and count > 1):
            raise _invalid(f"input '{name}': the TensorProto has {len(values)} string_val values "
                           f"for shape {list(shape)} ({count} values)")
        array = np.empty(count, dtype=object)
        array[:] = list(values) if len(values) == count else [values[0]] * count
        return array.reshape(shape)
    numpy = _NUMPY.get(dtype)
    if numpy is None:
        raise _invalid(f"input '{name}': dtype {_DT_NAME.get(dtype, dtype)} is not supported; "
                       f"send one of {sorted(n for n, v in _DT_NUMBER.items() if v in _NUMPY)} "
                       "or DT_STRING")
    itemsize = np.dtype(numpy).itemsize
    if max_bytes is not None and count * itemsize > max_bytes:
        raise GrpcError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"input '{name}': shape {list(shape)} is {count * itemsize} bytes, over the "
                        f"server's limit of {max_bytes} bytes (--max_body_bytes)")
    if proto.tensor_content:
        if len(proto.tensor_content) != count * itemsize:
            raise _invalid(f"input '{name}': tensor_content holds {len(proto.tensor_content)} "
                           f"bytes; shape {list(shape)} of {_DT_NAME[dtype]} takes "
                           f"{count * itemsize}")
        return np.frombuffer(proto.tensor_content, np.dtype(numpy).newbyteorder("<")).astype(
            numpy).reshape(shape)
    values = getattr(proto, _VALUE_FIELD[dtype])
    if dtype == 19:
        flat = np.asarray(values, np.uint16).view(np.float16)
    elif dtype in (8, 18):
        pairs = np.asarray(values, np.float32 if dtype == 8 else np.float64)
        flat = pairs[0::2] + 1j * pairs[1::2]
    else:
        flat = np.asarray(values, dtype=numpy)
    flat = flat.astype(numpy, copy=False)
    if flat.size == count:
        return flat.reshape(shape)
    if flat.size > count:
        raise _invalid(f"input '{name}': the TensorProto has {flat.size} values for shape "
                       f"{list(shape)} ({count} values)")
    # TF fills the rest with the last value given (zeros when none is given)
    out = np.full(count, flat[-1] if flat.size else 0, dtype=numpy)
    out[:flat.size] = flat
    return out.reshape(shape)


def array_to_tensor(value: Any, proto: Any) -> None:
    """Writes the array `value` into the TensorProto `proto` (typed value fields, as TF
    Serving's `Tensor::AsProtoField`)."""
    array = to_numpy(value)
    for size in array.shape:
        proto.tensor_shape.dim.add(size=size)
    if array.dtype.kind in "OSU":
        proto.dtype = 7
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode("utf-8")
                                for v in array.reshape(-1).tolist())
        return
    dtype = _FROM_NUMPY.get(array.dtype)
    if dtype is None:
        raise GrpcError(grpc.StatusCode.INTERNAL,
                        f"an output of dtype {array.dtype} has no TensorProto dtype")
    proto.dtype = dtype
    flat = array.reshape(-1)
    if dtype == 19:
        proto.half_val.extend(flat.view(np.uint16).tolist())
    elif dtype in (8, 18):
        getattr(proto, _VALUE_FIELD[dtype]).extend(
            np.stack([flat.real, flat.imag], axis=1).reshape(-1).tolist())
    else:
        getattr(proto, _VALUE_FIELD[dtype]).extend(flat.tolist())


# ------------------------------------------------------------- wire-format answers
# Predict answers are written straight in protobuf's wire format (the bytes the message classes
# would write: typed value fields, packed), from whole arrays: no per-value Python work and no
# message reflection per request. Dtypes without a fast path go through `array_to_tensor`.
_PACKED_FIXED = {1: (5, "<f4"), 2: (6, "<f8")}  # dtype: (field, little-endian numpy dtype)
_PACKED_VARINT = {3: 7, 4: 7, 5: 7, 6: 7, 17: 7, 9: 10, 10: 11, 22: 16, 23: 17}  # dtype: field
_VARINT_SHIFTS = np.arange(0, 70, 7, dtype=np.uint64)
_VARINT_LIMITS = np.asarray([1 << (7 * k) for k in range(1, 10)], dtype=np.uint64)
_VARINT_GROUPS = np.arange(10)
_SMALL_ARRAY = 32
_HEADERS: dict[tuple[int, tuple[int, ...]], bytes] = {}  # (dtype, shape): dtype + tensor_shape


def _varint_of(value: int) -> bytes:
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL_VARINTS = [_varint_of(value) for value in range(1 << 14)]


def _varint(value: int) -> bytes:
    """One protobuf varint (a negative value as its 64-bit two's complement)."""
    return _SMALL_VARINTS[value] if 0 <= value < 16384 else _varint_of(value)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (number < 16): tag, length, payload."""
    size = len(payload)
    return b"".join((_SMALL_VARINTS[number << 3 | 2],
                     _SMALL_VARINTS[size] if size < 16384 else _varint_of(size), payload))


def _varints(values: np.ndarray) -> bytes:
    """The packed varints of an integer (or bool) array: int32/int64 negatives as 10 bytes (as
    protobuf writes them), without a loop over the values."""
    if values.dtype.kind == "i":
        v = values.astype(np.int64, copy=False).reshape(-1).view(np.uint64)
    else:
        v = values.astype(np.uint64).reshape(-1)
    if not v.size:
        return b""
    if v.size <= _SMALL_ARRAY:  # a few values: table lookups beat numpy's per-call cost
        return b"".join([_SMALL_VARINTS[x] if x < 16384 else _varint_of(x) for x in v.tolist()])
    if int(v.max()) < 0x80:
        return v.astype(np.uint8).tobytes()
    sizes = 1 + (v[:, None] >= _VARINT_LIMITS).sum(axis=1)
    groups = ((v[:, None] >> _VARINT_SHIFTS) & np.uint64(0x7F)).astype(np.uint8)
    groups[_VARINT_GROUPS < (sizes[:, None] - 1)] |= 0x80
    return groups[_VARINT_GROUPS < sizes[:, None]].tobytes()


def tensor_bytes(value: Any) -> bytes:
    """The serialized TensorProto of the array `value`: the same message `array_to_tensor`
    builds (typed value fields), written from whole arrays."""
    array = to_numpy(value)
    kind = array.dtype.kind
    dtype = 7 if kind in "OSU" else _FROM_NUMPY.get(array.dtype)
    fixed = _PACKED_FIXED.get(dtype)
    varint_field = _PACKED_VARINT.get(dtype)
    if dtype != 7 and fixed is None and varint_field is None:  # half, complex, unsupported
        proto = pb.TensorProto()
        array_to_tensor(array, proto)
        return proto.SerializeToString()
    header = _HEADERS.get((dtype, array.shape))
    if header is None:
        header = b"\x08" + _varint(dtype)
        if array.ndim:
            header += _field(2, b"".join(_field(2, b"\x08" + _varint(size) if size else b"")
                                         for size in array.shape))
        if len(_HEADERS) > 4096:
            _HEADERS.clear()
        _HEADERS[(dtype, array.shape)] = header
    parts = [header]
    if dtype == 7:
        parts.extend(_field(8, v if isinstance(v, bytes) else str(v).encode("utf-8"))
                     for v in array.reshape(-1).tolist())
    elif array.size:
        if fixed is not None:
            parts.append(_field(fixed[0], array.astype(fixed[1], copy=False).tobytes()))
        else:
            parts.append(_field(varint_field, _varints(array)))
    return b"".join(parts)


def predict_response_bytes(outputs: list[tuple[str, bytes]], name: str, version: int,
                           signature_name: str) -> bytes:
    """A serialized PredictResponse: `outputs` (alias, serialized TensorProto) and its
    model_spec."""
    entries = [_field(1, _field(1, key.encode("utf-8")) + _field(2, tensor))
               for key, tensor in outputs]
    spec = _field(1, name.encode("utf-8")) + _field(2, b"\x08" + _varint(version) if version
                                                    else b"")
    if signature_name:
        spec += _field(3, signature_name.encode("utf-8"))
    return b"".join(entries) + _field(2, spec)


def _tensor_info(key: str, spec: Any, info: Any) -> None:
    shape = getattr(spec, "shape", None)
    if shape is None:
        info.tensor_shape.unknown_rank = True
    else:
        for size in shape:
            info.tensor_shape.dim.add(size=-1 if size is None else size)
    info.dtype = _DT_NUMBER.get(_TF_DTYPES.get(spec_dtype_name(spec), ""), 0)
    name = getattr(spec, "name", None) or key
    info.name = name if ":" in name else f"{name}:0"


# --------------------------------------------------------------------------- helpers
def _model_name(request: Any) -> str:
    spec = getattr(request, "model_spec", None)
    if spec is not None:
        return spec.name
    tasks = getattr(request, "tasks", None)
    return tasks[0].model_spec.name if tasks else ""


def _label_version(models: ModelVersions, name: str, label: str) -> int:
    """The version the label `label` of model `name` stands for (ModelVersions.label_version,
    where version labels are configured); NOT_FOUND otherwise."""
    lookup = getattr(models, "label_version", None)
    if lookup is None:
        raise GrpcError(grpc.StatusCode.NOT_FOUND,
                        f"Unrecognized servable version label: {label} (model {name!r}); version "
                        "labels come from --model_config_file; give model_spec.version instead")
    try:
        return int(lookup(label))
    except (KeyError, LookupError):
        raise GrpcError(grpc.StatusCode.NOT_FOUND,
                        f"Unrecognized servable version label: {label} (model {name!r})") from None


def _signature(servable: Servable, name: str, code: grpc.StatusCode, message: str) -> Any:
    signature = servable.signatures.get(name)
    if signature is None:
        raise GrpcError(code, f"{message} (version {servable.version} has "
                        f"{sorted(servable.signatures)})")
    return signature


def _model_spec(spec: Any, name: str, version: int, signature_name: str) -> None:
    spec.name = name
    spec.version.value = version
    spec.signature_name = signature_name


def _classification_result(outputs: Mapping[str, Any], n: int, result: Any) -> None:
    classes, scores = outputs.get("classes"), outputs.get("scores")
    if classes is None and scores is None:
        raise GrpcError(grpc.StatusCode.FAILED_PRECONDITION,
                        'Expected classification function outputs to contain "classes" and/or '
                        f'"scores"; got {sorted(outputs)}')
    labels = None if classes is None else to_numpy(classes).reshape(n, -1)
    values = None if scores is None else to_numpy(scores).astype(np.float32).reshape(n, -1)
    if labels is not None and values is not None and labels.shape != values.shape:
        raise GrpcError(grpc.StatusCode.INVALID_ARGUMENT,
                        f"Tensors class and score should match in shape; got {list(labels.shape)} "
                        f"and {list(values.shape)}")
    width = (labels if labels is not None else values).shape[1]
    for row in range(n):
        classifications = result.classifications.add()
        for column in range(width):
            entry = classifications.classes.add()
            if labels is not None:
                label = labels[row, column]
                entry.label = (bytes(label).decode("utf-8", "replace")
                               if isinstance(label, (bytes, np.bytes_)) else str(label))
            if values is not None:
                entry.score = float(values[row, column])


def _regression_result(outputs: Mapping[str, Any], n: int, result: Any) -> None:
    if "outputs" not in outputs:
        raise GrpcError(grpc.StatusCode.FAILED_PRECONDITION,
                        f"No regression outputs found in the signature: it returned "
                        f"{sorted(outputs)}, not 'outputs'")
    values = to_numpy(outputs["outputs"]).astype(np.float32)
    if values.size != n:
        raise GrpcError(grpc.StatusCode.INVALID_ARGUMENT,
                        f"Expected output Tensor shape to be [{n}] or [{n}, 1]; got "
                        f"{list(values.shape)}")
    for value in values.reshape(n).tolist():
        result.regressions.add(value=value)
