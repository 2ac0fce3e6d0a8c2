"""TF1's protocol-buffer messages, as `tf.compat.v1` exposes them (`ConfigProto`, `GPUOptions`,
`Summary`, `Event`, `GraphDef`, ...): the real TensorFlow message classes that TensorBoard (a
dependency) ships, so `tf.compat.v1.ConfigProto(log_device_placement=True)` builds the message
TF would, and `RunConfig(session_config=...)` accepts it."""

from __future__ import annotations

from torchestimator.train._protos import tensorboard_message

#: name -> (module under tensorboard.compat.proto, class name)
PROTOS: dict[str, tuple[str, str]] = {
    "AttrValue": ("attr_value_pb2", "AttrValue"),
    "ConfigProto": ("config_pb2", "ConfigProto"),
    "Event": ("event_pb2", "Event"),
    "GPUOptions": ("config_pb2", "GPUOptions"),
    "GraphDef": ("graph_pb2", "GraphDef"),
    "GraphOptions": ("config_pb2", "GraphOptions"),
    "HistogramProto": ("summary_pb2", "HistogramProto"),
    "LogMessage": ("event_pb2", "LogMessage"),
    "MetaGraphDef": ("meta_graph_pb2", "MetaGraphDef"),
    "NameAttrList": ("attr_value_pb2", "NameAttrList"),
    "NodeDef": ("node_def_pb2", "NodeDef"),
    "OptimizerOptions": ("config_pb2", "OptimizerOptions"),
    "RunMetadata": ("config_pb2", "RunMetadata"),
    "RunOptions": ("config_pb2", "RunOptions"),
    "SessionLog": ("event_pb2", "SessionLog"),
    "Summary": ("summary_pb2", "Summary"),
    "SummaryDescription": ("summary_pb2", "SummaryDescription"),
    "SummaryMetadata": ("summary_pb2", "SummaryMetadata"),
    "TaggedRunMetadata": ("event_pb2", "TaggedRunMetadata"),
    "TensorInfo": ("meta_graph_pb2", "TensorInfo"),
}


def proto(name: str) -> type:
    """The message class `tf.compat.v1.<name>`."""
    return tensorboard_message(*PROTOS[name])
