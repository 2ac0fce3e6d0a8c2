"""The protocol buffers of TF's tensor bundle, built from their descriptors (TF's field numbers),
so reading a TF checkpoint needs `protobuf` only.

`BundleHeaderProto`, `BundleEntryProto` (tensorflow/core/protobuf/tensor_bundle.proto),
`TensorShapeProto` (framework/tensor_shape.proto), `TensorSliceProto`
(framework/tensor_slice.proto) and `VersionDef` (framework/versions.proto).
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "torchestimator_tf_formats"


def _message(file: Any, name: str, fields: list[tuple]) -> Any:
    message = file.message_type.add(name=name)
    for field in fields:
        field_name, number, kind = field[:3]
        label = field[3] if len(field) > 3 else _F.LABEL_OPTIONAL
        entry = message.field.add(name=field_name, number=number, type=kind, label=label)
        if len(field) > 4:
            entry.type_name = f".{_PACKAGE}.{field[4]}"
        if len(field) > 5:
            entry.oneof_index = field[5]
    return message


def _build() -> dict[str, type]:
    file = descriptor_pb2.FileDescriptorProto(
        name="torchestimator/_tf_formats/tensor_bundle.proto", package=_PACKAGE, syntax="proto3"
    )
    rep, opt = _F.LABEL_REPEATED, _F.LABEL_OPTIONAL
    _message(file, "VersionDef", [
        ("producer", 1, _F.TYPE_INT32),
        ("min_consumer", 2, _F.TYPE_INT32),
        ("bad_consumers", 3, _F.TYPE_INT32, rep),
    ])
    shape = _message(file, "TensorShapeProto", [
        ("dim", 2, _F.TYPE_MESSAGE, rep, "TensorShapeProto.Dim"),
        ("unknown_rank", 3, _F.TYPE_BOOL),
    ])
    dim = shape.nested_type.add(name="Dim")
    dim.field.add(name="size", number=1, type=_F.TYPE_INT64, label=opt)
    dim.field.add(name="name", number=2, type=_F.TYPE_STRING, label=opt)
    tensor_slice = _message(file, "TensorSliceProto", [
        ("extent", 1, _F.TYPE_MESSAGE, rep, "TensorSliceProto.Extent"),
    ])
    extent = tensor_slice.nested_type.add(name="Extent")
    extent.field.add(name="start", number=1, type=_F.TYPE_INT64, label=opt)
    extent.field.add(name="length", number=2, type=_F.TYPE_INT64, label=opt, oneof_index=0)
    extent.oneof_decl.add(name="has_length")
    header = _message(file, "BundleHeaderProto", [
        ("num_shards", 1, _F.TYPE_INT32),
        ("endianness", 2, _F.TYPE_ENUM, opt, "BundleHeaderProto.Endianness"),
        ("version", 3, _F.TYPE_MESSAGE, opt, "VersionDef"),
    ])
    endianness = header.enum_type.add(name="Endianness")
    endianness.value.add(name="LITTLE", number=0)
    endianness.value.add(name="BIG", number=1)
    _message(file, "BundleEntryProto", [
        ("dtype", 1, _F.TYPE_INT32),  # tensorflow.DataType (an enum: read as its number)
        ("shape", 2, _F.TYPE_MESSAGE, opt, "TensorShapeProto"),
        ("shard_id", 3, _F.TYPE_INT32),
        ("offset", 4, _F.TYPE_INT64),
        ("size", 5, _F.TYPE_INT64),
        ("crc32c", 6, _F.TYPE_FIXED32),
        ("slices", 7, _F.TYPE_MESSAGE, rep, "TensorSliceProto"),
    ])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    names = ["VersionDef", "TensorShapeProto", "TensorSliceProto", "BundleHeaderProto", "BundleEntryProto"]
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
        for name in names
    }


_CLASSES = _build()
VersionDef = _CLASSES["VersionDef"]
TensorShapeProto = _CLASSES["TensorShapeProto"]
TensorSliceProto = _CLASSES["TensorSliceProto"]
BundleHeaderProto = _CLASSES["BundleHeaderProto"]
BundleEntryProto = _CLASSES["BundleEntryProto"]
