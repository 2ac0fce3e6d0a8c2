"""More of `tf.io`: JPEG shape and cropped decoding, compressed strings, file patterns,
serialized `SparseTensor`s and JSON `tf.train.Example`s."""

from __future__ import annotations

import gzip
import io
import zlib
from typing import Any

import numpy as np
import torch
from google.protobuf import json_format
from PIL import Image
from tensorboard.compat.proto import tensor_pb2

from torchestimator import errors
from torchestimator._dtypes import as_dtype, string
from torchestimator._ops.image_ops import decode_jpeg
from torchestimator._ops.tensor_protos import _NUMPY_TO_DT, _proto_module, make_ndarray
from torchestimator._sparse_tensor import SparseTensor
from torchestimator.io._example_proto import Example

_BYTES = bytes  # `decode_compressed`'s argument is named `bytes`, as TF's


def _bytes(contents: Any, op: str) -> bytes:
    if isinstance(contents, bytes):
        return contents
    if isinstance(contents, str):
        return contents.encode("latin-1")
    array = np.asarray(contents, dtype=object)
    if array.ndim == 0 and isinstance(array.item(), (bytes, str)):
        return _bytes(array.item(), op)
    raise TypeError(f"{op}: contents must be a scalar string (bytes); received {type(contents).__name__}.")


def is_jpeg(contents: Any, name: str | None = None) -> torch.Tensor:
    """True when `contents` starts with the JPEG signature (a bool scalar)."""
    return torch.tensor(_bytes(contents, "is_jpeg")[:3] == b"\xff\xd8\xff")


def extract_jpeg_shape(contents: Any, output_type: Any = torch.int32, name: str | None = None) -> torch.Tensor:
    """The `[height, width, channels]` of a JPEG image, read from its header."""

    data = _bytes(contents, "extract_jpeg_shape")
    if data[:3] != b"\xff\xd8\xff":
        raise errors.InvalidArgumentError(None, None, "extract_jpeg_shape: not a JPEG image.")
    with Image.open(io.BytesIO(data)) as image:
        channels = {"L": 1, "RGB": 3, "CMYK": 4, "YCbCr": 3}.get(image.mode, len(image.getbands()))
        return torch.tensor([image.height, image.width, channels], dtype=output_type)


def decode_and_crop_jpeg(contents: Any, crop_window: Any, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "", name: str | None = None) -> torch.Tensor:
    """Decodes a JPEG image and crops it to `crop_window` `[y, x, height, width]` (uint8
    `[height, width, channels]`)."""

    image = decode_jpeg(contents, channels=channels)
    y, x, h, w = (int(v) for v in torch.as_tensor(crop_window).reshape(-1).tolist())
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > image.shape[0] or x + w > image.shape[1]:
        raise errors.InvalidArgumentError(
            None, None, f"decode_and_crop_jpeg: crop window {[y, x, h, w]} is not inside the image of shape "
            f"{list(image.shape[:2])}.")
    return image[y:y + h, x:x + w]


def decode_compressed(bytes: Any, compression_type: str = "", name: str | None = None) -> Any:  # noqa: A002
    """Decompresses each string of `bytes` ('' none, 'ZLIB' or 'GZIP')."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise ValueError(f"decode_compressed: compression_type must be '', 'ZLIB' or 'GZIP'; received "
                         f"{compression_type!r}.")
    codec = {"": lambda b: b, "ZLIB": zlib.decompress, "GZIP": gzip.decompress}[compression_type]
    array = np.asarray(bytes, dtype=object)
    out = np.array([codec(v if isinstance(v, _BYTES) else str(v).encode("latin-1")) for v in array.reshape(-1)],
                   dtype=object)
    return out.reshape(array.shape) if array.ndim else out[0]


def matching_files(pattern: Any, name: str | None = None) -> np.ndarray:
    """The files matching the glob `pattern` (or each of a list of patterns), sorted, as a
    numpy array of bytes."""
    from torchestimator._engine import gfile  # lazy: heavy (fsspec, 330 ms)

    patterns = [pattern] if isinstance(pattern, (str, bytes)) else list(np.asarray(pattern, dtype=object).reshape(-1))
    found: list[str] = []
    for p in patterns:
        found.extend(gfile.glob(p.decode() if isinstance(p, bytes) else p))
    return np.array([f.encode() for f in sorted(set(found))], dtype=object)


def match_filenames_once(pattern: Any, name: str | None = None) -> np.ndarray:
    """The files matching `pattern`, listed once (TF's variable of them): `matching_files`."""
    return matching_files(pattern)


def _dense_shape(sparse: SparseTensor) -> torch.Tensor:
    return sparse.dense_shape.to(torch.int64)


def _check_out_type(op: str, out_type: Any) -> None:
    """Only `tf.string` output is supported (TF's `tf.variant` holds graph-only variant tensors)."""
    if out_type is not None and as_dtype(out_type) is not string:
        raise NotImplementedError(
            f"{op}: out_type={out_type!r} is not supported; only out_type=tf.string (the "
            "default) is: there are no variant tensors here.")


def serialize_sparse(sp_input: SparseTensor, out_type: Any = string, name: str | None = None) -> np.ndarray:
    """A `SparseTensor` as 3 strings: the serialized `TensorProto`s of its indices, values and
    dense shape (TF's format). `out_type` must be `tf.string`."""
    _check_out_type("serialize_sparse", out_type)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"serialize_sparse: sp_input must be a SparseTensor; received {type(sp_input).__name__}.")
    values = sp_input.values if isinstance(sp_input.values, np.ndarray) else sp_input.values.numpy()
    parts = [sp_input.indices.numpy(), values, _dense_shape(sp_input).numpy()]
    return np.array([_content_proto(p).SerializeToString() for p in parts], dtype=object)


def _content_proto(array: np.ndarray) -> Any:
    """The `TensorProto` of `array` with its values in `tensor_content` (how TF's kernels
    serialize a tensor: `AsProtoTensorContent`), strings in `string_val`."""

    proto = _proto_module().TensorProto()
    for d in array.shape:
        proto.tensor_shape.dim.add(size=d)
    if array.dtype.kind in "OUS":
        proto.dtype = 7
        proto.string_val.extend(v if isinstance(v, _BYTES) else str(v).encode("utf-8") for v in array.reshape(-1))
        return proto
    proto.dtype = _NUMPY_TO_DT[array.dtype]
    if array.size:
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto


def serialize_many_sparse(sp_input: SparseTensor, out_type: Any = string, name: str | None = None) -> np.ndarray:
    """Each row (first dimension) of a `SparseTensor` serialized as `serialize_sparse` does:
    [rows, 3] strings. `out_type` must be `tf.string`."""
    _check_out_type("serialize_many_sparse", out_type)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"serialize_many_sparse: sp_input must be a SparseTensor; received {type(sp_input).__name__}.")
    shape = _dense_shape(sp_input)
    rows = []
    for r in range(int(shape[0])):
        keep = sp_input.indices[:, 0] == r
        values = sp_input.values[keep.numpy()] if isinstance(sp_input.values, np.ndarray) else sp_input.values[keep]
        rows.append(serialize_sparse(SparseTensor(sp_input.indices[keep][:, 1:], values, shape[1:])))
    return np.stack(rows) if rows else np.zeros((0, 3), dtype=object)


def deserialize_many_sparse(serialized_sparse: Any, dtype: Any, rank: int | None = None,
                            name: str | None = None) -> SparseTensor:
    """The inverse of `serialize_many_sparse`: [rows, 3] strings to one `SparseTensor` whose
    first dimension is the row and whose other dimensions are the largest of the rows'."""

    array = np.asarray(serialized_sparse, dtype=object)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"deserialize_many_sparse: serialized_sparse must be [rows, 3] strings; received shape "
                         f"{array.shape}.")
    indices, values, shapes = [], [], []
    for r, (i, v, s) in enumerate(array.tolist()):
        idx, val, shp = (make_ndarray(tensor_pb2.TensorProto.FromString(x)) for x in (i, v, s))
        if rank is not None and len(shp) + 1 != rank:
            raise ValueError(f"deserialize_many_sparse: row {r} has rank {len(shp) + 1}, expected {rank}.")
        indices.append(np.concatenate([np.full((len(idx), 1), r, np.int64), idx.reshape(len(idx), len(shp))], axis=1))
        values.append(val)
        shapes.append(shp)
    dense_shape = [len(shapes)] + list(np.max(np.stack(shapes), axis=0)) if shapes else [0]
    target = as_dtype(dtype)
    joined = np.concatenate(values) if values else np.zeros(0)
    vals = (np.array(list(joined), dtype=object) if target is string
            else torch.as_tensor(np.asarray(joined)).to(target))
    return SparseTensor(np.concatenate(indices) if indices else np.zeros((0, 1), np.int64), vals, dense_shape)


def decode_json_example(json_examples: Any, name: str | None = None) -> np.ndarray:
    """Each JSON-encoded `tf.train.Example` (protobuf's JSON mapping) as the serialized
    binary `Example` (strings of the same shape)."""

    array = np.asarray(json_examples, dtype=object)
    out = []
    for text in array.reshape(-1).tolist():
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        try:
            out.append(json_format.Parse(text, Example()).SerializeToString())
        except json_format.ParseError as e:
            raise errors.InvalidArgumentError(None, None, f"decode_json_example: not a JSON Example: {e}") from None
    result = np.array(out, dtype=object)
    return result.reshape(array.shape) if array.ndim else result[0]
