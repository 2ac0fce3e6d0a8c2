"""TF Serving's text-format config files: `--model_config_file` and `--batching_parameters_file`.

The messages are built here from TF Serving's `.proto` definitions (field
numbers as in `tensorflow_serving/config/model_server_config.proto`,
`sources/storage_path/file_system_storage_path_source.proto`,
`config/logging_config.proto` and
`servables/tensorflow/session_bundle_config.proto`), in a descriptor pool of
their own, so no TensorFlow or TF Serving package is needed. Files are read
with protobuf's `text_format` parser: nothing in them is ever run.

    model_config_list {
      config {
        name: "iris"
        base_path: "/models/iris"
        model_platform: "tensorflow"
        model_version_policy { specific { versions: 1 versions: 2 } }
        version_labels { key: "stable" value: 1 }
        version_labels { key: "canary" value: 2 }
      }
    }

    max_batch_size { value: 32 }
    batch_timeout_micros { value: 1000 }
    num_batch_threads { value: 4 }
    max_enqueued_batches { value: 100 }
    allowed_batch_sizes: 8
    allowed_batch_sizes: 32
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, text_format, wrappers_pb2
from google.protobuf.message_factory import MessageFactory

try:
    from google.protobuf.message_factory import GetMessageClass as _get_message_class
except ImportError:  # protobuf < 4.21: MessageFactory.GetPrototype instead
    _get_message_class = None

_FDP = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "tensorflow.serving"
PLATFORMS = ("tensorflow",)  # model_platform values served (an export of this package)


# ------------------------------------------------------------------ message definitions
def _field(message: Any, name: str, number: int, kind: int, *, type_name: str = "",
           repeated: bool = False, oneof: int | None = None) -> None:
    field = message.field.add(name=name, number=number, type=kind,
                              label=_FDP.LABEL_REPEATED if repeated else _FDP.LABEL_OPTIONAL)
    if type_name:
        field.type_name = type_name
    if oneof is not None:
        field.oneof_index = oneof


def _storage_path_file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow_serving/sources/storage_path/file_system_storage_path_source.proto",
        package=_PACKAGE, syntax="proto3")
    outer = file.message_type.add(name="FileSystemStoragePathSourceConfig")
    policy = outer.nested_type.add(name="ServableVersionPolicy")
    latest = policy.nested_type.add(name="Latest")
    _field(latest, "num_versions", 1, _FDP.TYPE_UINT32)
    policy.nested_type.add(name="All")
    specific = policy.nested_type.add(name="Specific")
    _field(specific, "versions", 1, _FDP.TYPE_INT64, repeated=True)
    policy.oneof_decl.add(name="policy_choice")
    prefix = f".{_PACKAGE}.FileSystemStoragePathSourceConfig.ServableVersionPolicy"
    _field(policy, "latest", 100, _FDP.TYPE_MESSAGE, type_name=f"{prefix}.Latest", oneof=0)
    _field(policy, "all", 101, _FDP.TYPE_MESSAGE, type_name=f"{prefix}.All", oneof=0)
    _field(policy, "specific", 102, _FDP.TYPE_MESSAGE, type_name=f"{prefix}.Specific", oneof=0)
    return file


def _logging_file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow_serving/config/logging_config.proto", package=_PACKAGE, syntax="proto3")
    collector = file.message_type.add(name="LogCollectorConfig")
    _field(collector, "type", 1, _FDP.TYPE_STRING)
    _field(collector, "filename_prefix", 2, _FDP.TYPE_STRING)
    sampling = file.message_type.add(name="SamplingConfig")
    _field(sampling, "sampling_rate", 1, _FDP.TYPE_DOUBLE)
    logging_config = file.message_type.add(name="LoggingConfig")
    _field(logging_config, "log_collector_config", 1, _FDP.TYPE_MESSAGE,
           type_name=f".{_PACKAGE}.LogCollectorConfig")
    _field(logging_config, "sampling_config", 2, _FDP.TYPE_MESSAGE,
           type_name=f".{_PACKAGE}.SamplingConfig")
    return file


def _model_server_config_file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow_serving/config/model_server_config.proto", package=_PACKAGE,
        syntax="proto3", dependency=[
            "google/protobuf/any.proto", "tensorflow_serving/config/logging_config.proto",
            "tensorflow_serving/sources/storage_path/file_system_storage_path_source.proto"])
    model_type = file.enum_type.add(name="ModelType")
    for number, name in enumerate(("MODEL_TYPE_UNSPECIFIED", "TENSORFLOW", "OTHER")):
        model_type.value.add(name=name, number=number)
    config = file.message_type.add(name="ModelConfig")
    _field(config, "name", 1, _FDP.TYPE_STRING)
    _field(config, "base_path", 2, _FDP.TYPE_STRING)
    _field(config, "model_type", 3, _FDP.TYPE_ENUM, type_name=f".{_PACKAGE}.ModelType")
    _field(config, "model_platform", 4, _FDP.TYPE_STRING)
    _field(config, "logging_config", 6, _FDP.TYPE_MESSAGE,
           type_name=f".{_PACKAGE}.LoggingConfig")
    _field(config, "model_version_policy", 7, _FDP.TYPE_MESSAGE,
           type_name=f".{_PACKAGE}.FileSystemStoragePathSourceConfig.ServableVersionPolicy")
    entry = config.nested_type.add(name="VersionLabelsEntry")
    entry.options.map_entry = True
    _field(entry, "key", 1, _FDP.TYPE_STRING)
    _field(entry, "value", 2, _FDP.TYPE_INT64)
    _field(config, "version_labels", 8, _FDP.TYPE_MESSAGE, repeated=True,
           type_name=f".{_PACKAGE}.ModelConfig.VersionLabelsEntry")
    config_list = file.message_type.add(name="ModelConfigList")
    _field(config_list, "config", 1, _FDP.TYPE_MESSAGE, repeated=True,
           type_name=f".{_PACKAGE}.ModelConfig")
    server = file.message_type.add(name="ModelServerConfig")
    server.oneof_decl.add(name="config")
    _field(server, "model_config_list", 1, _FDP.TYPE_MESSAGE,
           type_name=f".{_PACKAGE}.ModelConfigList", oneof=0)
    _field(server, "custom_model_config", 2, _FDP.TYPE_MESSAGE,
           type_name=".google.protobuf.Any", oneof=0)
    return file


def _batching_file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow_serving/servables/tensorflow/session_bundle_config.proto",
        package=_PACKAGE, syntax="proto3", dependency=["google/protobuf/wrappers.proto"])
    params = file.message_type.add(name="BatchingParameters")
    int64 = ".google.protobuf.Int64Value"
    for name, number in (("max_batch_size", 1), ("batch_timeout_micros", 2),
                         ("max_enqueued_batches", 3), ("num_batch_threads", 4)):
        _field(params, name, number, _FDP.TYPE_MESSAGE, type_name=int64)
    _field(params, "thread_pool_name", 5, _FDP.TYPE_MESSAGE,
           type_name=".google.protobuf.StringValue")
    _field(params, "allowed_batch_sizes", 6, _FDP.TYPE_INT64, repeated=True)
    _field(params, "pad_variable_length_inputs", 7, _FDP.TYPE_BOOL)
    _field(params, "enable_large_batch_splitting", 8, _FDP.TYPE_MESSAGE,
           type_name=".google.protobuf.BoolValue")
    _field(params, "max_execution_batch_size", 9, _FDP.TYPE_MESSAGE, type_name=int64)
    return file


def _message_classes() -> dict[str, type]:
    pool = descriptor_pool.DescriptorPool()
    for module in (any_pb2, wrappers_pb2):
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb))
    for make in (_storage_path_file, _logging_file, _model_server_config_file, _batching_file):
        pool.Add(make())
    get_message_class = _get_message_class or MessageFactory(pool).GetPrototype
    return {name: get_message_class(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
            for name in ("ModelServerConfig", "BatchingParameters")}


_CLASSES: dict[str, type] = {}


def message_class(name: str) -> type:
    """The protobuf message class `tensorflow.serving.NAME` (ModelServerConfig or
    BatchingParameters), built once."""
    if not _CLASSES:
        _CLASSES.update(_message_classes())
    return _CLASSES[name]


def _parse_text(path: str, message_name: str, flag: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise ValueError(f"{flag} {path!r} cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{flag} {path!r} is not UTF-8 text ({error}); it must be a text-format "
                         f"{message_name} protobuf") from None
    message = message_class(message_name)()
    try:
        text_format.Parse(text, message)
    except text_format.ParseError as error:
        raise ValueError(f"Invalid protobuf file: {path!r} ({flag}): {error}; it must be a "
                         f"text-format {message_name}") from None
    return message


# ------------------------------------------------------------------------- the models
@dataclasses.dataclass(frozen=True)
class VersionPolicy:
    """Which versions of a model are served: `latest` (the `num_versions` newest), `all`, or
    `specific` (`versions`). `explicit` is False for the default (no policy given)."""

    kind: str = "latest"
    num_versions: int = 1
    versions: tuple[int, ...] = ()
    explicit: bool = False

    def describe(self) -> str:
        """The policy as the config file writes it."""
        if self.kind == "latest":
            return f"latest {{ num_versions: {self.num_versions} }}"
        if self.kind == "all":
            return "all {}"
        return "specific { " + " ".join(f"versions: {v}" for v in self.versions) + " }"


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """One `config { ... }` entry of a ModelServerConfig."""

    name: str
    base_path: str
    model_platform: str = "tensorflow"
    policy: VersionPolicy = VersionPolicy()
    version_labels: tuple[tuple[str, int], ...] = ()


def _policy(message: Any) -> VersionPolicy:
    choice = message.WhichOneof("policy_choice")
    if choice is None:
        return VersionPolicy()
    if choice == "latest":
        return VersionPolicy("latest", message.latest.num_versions or 1, explicit=True)
    if choice == "all":
        return VersionPolicy("all", explicit=True)
    return VersionPolicy("specific", versions=tuple(sorted(set(message.specific.versions))),
                         explicit=True)


def parse_model_config_text(text: str, path: str = "<text>") -> list[ModelSpec]:
    """The models of a text-format ModelServerConfig (`--model_config_file`'s contents).

    Raises:
        ValueError naming the file and what to fix: a parse error, no
        `model_config_list`, a model without name or base_path, two models of
        one name, a platform other than "tensorflow", an empty `specific`
        policy, a label that is not a word.
    """
    message = message_class("ModelServerConfig")()
    flag = "--model_config_file"
    try:
        text_format.Parse(text, message)
    except text_format.ParseError as error:
        raise ValueError(f"Invalid protobuf file: {path!r} ({flag}): {error}; it must be a "
                         "text-format ModelServerConfig (model_config_list { config { name: ... "
                         "base_path: ... } })") from None
    if message.WhichOneof("config") == "custom_model_config":
        raise ValueError(f"{flag} {path!r}: ModelServer does not yet support custom model config; "
                         "use model_config_list")
    specs: list[ModelSpec] = []
    seen: set[str] = set()
    for index, config in enumerate(message.model_config_list.config):
        where = f"{flag} {path!r}, config {index} ({config.name or 'no name'})"
        if not config.name:
            raise ValueError(f"{where}: the model has no name; give it name: \"...\"")
        if "/" in config.name or ":" in config.name:
            raise ValueError(f"{where}: the name {config.name!r} holds '/' or ':', which cannot "
                             "appear in /v1/models/NAME; rename it")
        if config.name in seen:
            raise ValueError(f"{where}: a model named {config.name!r} is configured twice; give "
                             "each model its own name")
        seen.add(config.name)
        if not config.base_path:
            raise ValueError(f"{where}: the model has no base_path; give the directory of its "
                             "numbered version directories")
        platform = config.model_platform or "tensorflow"
        if platform not in PLATFORMS:
            raise ValueError(f"{where}: model_platform {platform!r} is not served; this server "
                             f"serves {list(PLATFORMS)} (exports of torchestimator)")
        policy = _policy(config.model_version_policy)
        if policy.kind == "specific" and not policy.versions:
            raise ValueError(f"{where}: model_version_policy specific {{}} lists no versions; "
                             "give versions: N")
        labels = tuple(sorted(config.version_labels.items()))
        for label, _ in labels:
            if not label or "/" in label or ":" in label:
                raise ValueError(f"{where}: version label {label!r} cannot appear in "
                                 "/v1/models/NAME/labels/LABEL; use letters, digits, '-' or '_'")
        specs.append(ModelSpec(config.name, os.path.abspath(config.base_path),
                               platform, policy, labels))
    return specs


def parse_model_config(path: str | os.PathLike) -> list[ModelSpec]:
    """The models of the text-format ModelServerConfig file at `path` (a relative base_path is
    taken from the working directory, as TF Serving takes it). ValueError naming the file and
    the fault otherwise."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise ValueError(f"--model_config_file {path!r} cannot be read: "
                         f"{error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"--model_config_file {path!r} is not UTF-8 text ({error})") from None
    return parse_model_config_text(text, path)


# --------------------------------------------------------------------------- batching
@dataclasses.dataclass(frozen=True)
class BatchingParameters:
    """TF Serving's BatchingParameters, with its defaults (BasicBatchScheduler::Options):
    batches of up to 1000 rows, no timeout, one batch thread per core, 10 batches queued."""

    max_batch_size: int = 1000
    batch_timeout_micros: int = 0
    max_enqueued_batches: int = 10
    num_batch_threads: int = dataclasses.field(
        default_factory=lambda: max(1, os.cpu_count() or 1))
    thread_pool_name: str = "batch_threads"
    allowed_batch_sizes: tuple[int, ...] = ()
    pad_variable_length_inputs: bool = False
    enable_large_batch_splitting: bool = False
    max_execution_batch_size: int | None = None

    def check(self, where: str = "batching parameters") -> None:
        """ValueError (naming `where` and the field) unless the values are usable: sizes and
        counts >= 1, a timeout >= 0, allowed sizes increasing and ending at max_batch_size."""
        for name in ("max_batch_size", "max_enqueued_batches", "num_batch_threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{where}: {name} must be >= 1; got {getattr(self, name)}")
        if self.batch_timeout_micros < 0:
            raise ValueError(f"{where}: batch_timeout_micros must be >= 0; got "
                             f"{self.batch_timeout_micros}")
        sizes = list(self.allowed_batch_sizes)
        if sizes:
            if sizes[0] < 1 or any(b <= a for a, b in zip(sizes, sizes[1:])):
                raise ValueError(f"{where}: allowed_batch_sizes must be positive and increasing; "
                                 f"got {sizes}")
            if sizes[-1] != self.max_batch_size:
                raise ValueError(f"{where}: the last entry of allowed_batch_sizes ({sizes[-1]}) "
                                 f"must equal max_batch_size ({self.max_batch_size})")


def parse_batching_parameters(path: str | os.PathLike | None) -> BatchingParameters:
    """The BatchingParameters of the text-format file at `path` (`--batching_parameters_file`);
    TF Serving's defaults for the fields it leaves out, and for `path` None or empty.
    ValueError naming the file and the field otherwise."""
    if not path:
        return BatchingParameters()
    path = os.fspath(path)
    message = _parse_text(path, "BatchingParameters", "--batching_parameters_file")
    defaults = BatchingParameters()
    values: dict[str, Any] = {}
    for name in ("max_batch_size", "batch_timeout_micros", "max_enqueued_batches",
                 "num_batch_threads", "thread_pool_name", "enable_large_batch_splitting"):
        if message.HasField(name):
            values[name] = getattr(message, name).value
    if message.HasField("max_execution_batch_size"):
        values["max_execution_batch_size"] = message.max_execution_batch_size.value
    values["allowed_batch_sizes"] = tuple(message.allowed_batch_sizes)
    values["pad_variable_length_inputs"] = message.pad_variable_length_inputs
    params = dataclasses.replace(defaults, **values)
    params.check(f"--batching_parameters_file {path!r}")
    return params
