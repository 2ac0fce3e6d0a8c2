"""TensorFlow's `tf.train.Example` protobuf messages, built without TensorFlow or protoc.

The schema of `tensorflow/core/example/feature.proto` and `example.proto`
(package `tensorflow`, the same field numbers) is written here as a
`FileDescriptorProto` and turned into message classes by the protobuf runtime
(upb), so bytes written by TensorFlow parse here and ours parse there:

    BytesList    { repeated bytes value = 1; }
    FloatList    { repeated float value = 1 [packed = true]; }
    Int64List    { repeated int64 value = 1 [packed = true]; }
    Feature      { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
                                Int64List int64_list = 3; } }
    Features     { map<string, Feature> feature = 1; }
    FeatureList  { repeated Feature feature = 1; }
    FeatureLists { map<string, FeatureList> feature_list = 1; }
    Example      { Features features = 1; }
    SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }

The descriptors serialize to the same bytes as TensorFlow's generated
`feature_pb2` / `example_pb2`, so the two can share a process in either
import order: if TensorFlow registered them first, its classes are used;
if we did, TensorFlow's registration of the identical files succeeds.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _field(msg, name: str, number: int, ftype: int, label: int = _F.LABEL_OPTIONAL,
           type_name: str | None = None, packed: bool | None = None, oneof: int | None = None):
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name
    if packed is not None:
        f.options.packed = packed
    if oneof is not None:
        f.oneof_index = oneof
    return f


def _map_entry(parent, name: str, value_type: str) -> str:
    entry = parent.nested_type.add(name=name)
    entry.options.map_entry = True
    _field(entry, "key", 1, _F.TYPE_STRING)
    _field(entry, "value", 2, _F.TYPE_MESSAGE, type_name=value_type)
    return f"{parent.name}.{name}"


def _feature_file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/feature.proto", package="tensorflow", syntax="proto3")
    fd.options.cc_enable_arenas = True
    fd.options.java_outer_classname = "FeatureProtos"
    fd.options.java_multiple_files = True
    fd.options.java_package = "org.tensorflow.example"
    fd.options.go_package = (
        "github.com/tensorflow/tensorflow/tensorflow/go/core/example/example_protos_go_proto")
    rep = _F.LABEL_REPEATED
    _field(fd.message_type.add(name="BytesList"), "value", 1, _F.TYPE_BYTES, rep)
    _field(fd.message_type.add(name="FloatList"), "value", 1, _F.TYPE_FLOAT, rep, packed=True)
    _field(fd.message_type.add(name="Int64List"), "value", 1, _F.TYPE_INT64, rep, packed=True)
    feature = fd.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (name, kind) in enumerate(
            [("bytes_list", "BytesList"), ("float_list", "FloatList"),
             ("int64_list", "Int64List")], start=1):
        _field(feature, name, number, _F.TYPE_MESSAGE, type_name=f".tensorflow.{kind}", oneof=0)
    features = fd.message_type.add(name="Features")
    entry = _map_entry(features, "FeatureEntry", ".tensorflow.Feature")
    _field(features, "feature", 1, _F.TYPE_MESSAGE, rep, type_name=f".tensorflow.{entry}")
    _field(fd.message_type.add(name="FeatureList"), "feature", 1, _F.TYPE_MESSAGE, rep,
           type_name=".tensorflow.Feature")
    lists = fd.message_type.add(name="FeatureLists")
    entry = _map_entry(lists, "FeatureListEntry", ".tensorflow.FeatureList")
    _field(lists, "feature_list", 1, _F.TYPE_MESSAGE, rep, type_name=f".tensorflow.{entry}")
    return fd


def _example_file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/example.proto", package="tensorflow", syntax="proto3",
        dependency=["tensorflow/core/example/feature.proto"])
    fd.options.cc_enable_arenas = True
    fd.options.java_outer_classname = "ExampleProtos"
    fd.options.java_multiple_files = True
    fd.options.java_package = "org.tensorflow.example"
    fd.options.go_package = (
        "github.com/tensorflow/tensorflow/tensorflow/go/core/example/example_protos_go_proto")
    _field(fd.message_type.add(name="Example"), "features", 1, _F.TYPE_MESSAGE,
           type_name=".tensorflow.Features")
    seq = fd.message_type.add(name="SequenceExample")
    _field(seq, "context", 1, _F.TYPE_MESSAGE, type_name=".tensorflow.Features")
    _field(seq, "feature_lists", 2, _F.TYPE_MESSAGE, type_name=".tensorflow.FeatureLists")
    return fd


def _add_file(pool: descriptor_pool.DescriptorPool, proto) -> None:
    try:
        pool.FindFileByName(proto.name)  # already there (e.g. TensorFlow imported first)
    except KeyError:
        pool.Add(proto)


def _build() -> dict[str, type]:
    pool = descriptor_pool.Default()
    _add_file(pool, _feature_file())
    _add_file(pool, _example_file())
    names = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
             "FeatureLists", "Example", "SequenceExample"]
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.{n}"))
            for n in names}


_CLASSES = _build()
BytesList = _CLASSES["BytesList"]
FloatList = _CLASSES["FloatList"]
Int64List = _CLASSES["Int64List"]
Feature = _CLASSES["Feature"]
Features = _CLASSES["Features"]
FeatureList = _CLASSES["FeatureList"]
FeatureLists = _CLASSES["FeatureLists"]
Example = _CLASSES["Example"]
SequenceExample = _CLASSES["SequenceExample"]
