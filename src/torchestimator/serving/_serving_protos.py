"""TensorFlow Serving's gRPC messages, built without TensorFlow, tensorflow-serving-api or protoc.

The schemas of `tensorflow_serving/apis/*.proto` (package `tensorflow.serving`,
the same message names and field numbers) are written here as
`FileDescriptorProto`s and turned into message classes by the protobuf
runtime, so a client generated from TF Serving's .proto files talks to this
server and ours talks to TF Serving:

    ModelSpec           { name = 1; oneof version_choice { Int64Value version = 2;
                          string version_label = 4; } signature_name = 3; }
    PredictRequest      { model_spec = 1; map<string, TensorProto> inputs = 2;
                          repeated string output_filter = 3; }
    PredictResponse     { map<string, TensorProto> outputs = 1; model_spec = 2; }
    ExampleList         { repeated Example examples = 1; }
    ExampleListWithContext { repeated Example examples = 1; Example context = 2; }
    Input               { oneof kind { example_list = 1; example_list_with_context = 2; } }
    Class               { string label = 1; float score = 2; }
    Classifications     { repeated Class classes = 1; }
    ClassificationResult{ repeated Classifications classifications = 1; }
    ClassificationRequest  { model_spec = 1; Input input = 2; }
    ClassificationResponse { ClassificationResult result = 1; model_spec = 2; }
    Regression          { float value = 1; }
    RegressionResult    { repeated Regression regressions = 1; }
    RegressionRequest / RegressionResponse: as the classification ones
    InferenceTask       { model_spec = 1; string method_name = 2; }
    InferenceResult     { model_spec = 1; oneof result { classification_result = 2;
                          regression_result = 3; } }
    MultiInferenceRequest  { repeated InferenceTask tasks = 1; Input input = 2; }
    MultiInferenceResponse { repeated InferenceResult results = 1; }
    SignatureDefMap     { map<string, SignatureDef> signature_def = 1; }
    GetModelMetadataRequest  { model_spec = 1; repeated string metadata_field = 2; }
    GetModelMetadataResponse { model_spec = 1; map<string, google.protobuf.Any> metadata = 2; }
    StatusProto         { tensorflow.error.Code error_code = 1; string error_message = 2; }
    ModelVersionStatus  { int64 version = 1; State state = 2; StatusProto status = 3; }
                        State: UNKNOWN 0, START 10, LOADING 20, AVAILABLE 30, UNLOADING 40,
                        END 50
    GetModelStatusRequest  { model_spec = 1; }
    GetModelStatusResponse { repeated ModelVersionStatus model_version_status = 1; }
    PrometheusConfig    { bool enable = 1; string path = 2; }
    MonitoringConfig    { PrometheusConfig prometheus_config = 1; }

TensorFlow's own messages (`TensorProto`, `TensorShapeProto`, `DataType`,
`SignatureDef`, ...) are TensorBoard's copies (`tensorboard.compat.proto`)
renamed back to TensorFlow's files and package (`tensorflow`), and
`Example` is `torchestimator.io`'s. Everything lives in a descriptor pool
of its own, so TensorFlow or tensorflow-serving-api imported into the same
process (which register the same names in the default pool) never clash.
"""

from __future__ import annotations

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory, wrappers_pb2
from tensorboard.compat.proto import meta_graph_pb2, tensor_pb2

from torchestimator.io import _example_proto

_F = descriptor_pb2.FieldDescriptorProto
_OPT, _REP = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED
_MSG, _STR, _INT64, _FLOAT, _BOOL, _ENUM = (_F.TYPE_MESSAGE, _F.TYPE_STRING, _F.TYPE_INT64,
                                            _F.TYPE_FLOAT, _F.TYPE_BOOL, _F.TYPE_ENUM)
_PACKAGE = "tensorflow.serving"

#: TensorFlow's `tensorflow.error.Code` (tensorflow/core/protobuf/error_codes.proto).
ERROR_CODES = {
    "OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5, "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9, "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12,
    "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}
#: `ModelVersionStatus.State`.
MODEL_STATES = {"UNKNOWN": 0, "START": 10, "LOADING": 20, "AVAILABLE": 30, "UNLOADING": 40,
                "END": 50}


# ------------------------------------------------------------------ TensorFlow's protos
def _renamed(file: descriptor_pb2.FileDescriptorProto) -> descriptor_pb2.FileDescriptorProto:
    """TensorBoard's copy of a TensorFlow .proto, back under TensorFlow's file name and package
    (the wire format is the same; the names are what a TensorFlow client sees)."""
    def path(name: str) -> str:
        if not name.startswith("tensorboard/compat/proto/"):
            return name
        base = name.rsplit("/", 1)[1]
        folder = "protobuf" if base in _PROTOBUF_FOLDER else "framework"
        return f"tensorflow/core/{folder}/{base}"

    def fix(message: descriptor_pb2.DescriptorProto) -> None:
        for field in list(message.field) + list(message.extension):
            if field.type_name.startswith(".tensorboard."):
                field.type_name = ".tensorflow." + field.type_name[len(".tensorboard."):]
            if field.extendee.startswith(".tensorboard."):
                field.extendee = ".tensorflow." + field.extendee[len(".tensorboard."):]
        for nested in message.nested_type:
            fix(nested)

    file.name = path(file.name)
    file.dependency[:] = [path(d) for d in file.dependency]
    if file.package == "tensorboard":
        file.package = "tensorflow"
    for message in file.message_type:
        fix(message)
    for service in file.service:
        for method in service.method:
            for attr in ("input_type", "output_type"):
                if getattr(method, attr).startswith(".tensorboard."):
                    setattr(method, attr, ".tensorflow." + getattr(method, attr)[13:])
    return file


# TensorFlow keeps these under tensorflow/core/protobuf/ (the others under framework/).
_PROTOBUF_FOLDER = {"meta_graph.proto", "saved_object_graph.proto", "saver.proto",
                    "struct.proto", "trackable_object_graph.proto", "config.proto",
                    "cluster.proto", "debug.proto", "rewriter_config.proto",
                    "verifier_config.proto", "rpc_options.proto",
                    "coordination_config.proto"}


def _add_with_dependencies(pool: descriptor_pool.DescriptorPool, descriptor, done: set) -> None:
    """Adds the file `descriptor` (of the default pool) and its imports to `pool`, renamed."""
    if descriptor.name in done:
        return
    done.add(descriptor.name)
    for dependency in descriptor.dependencies:
        _add_with_dependencies(pool, dependency, done)
    file = descriptor_pb2.FileDescriptorProto()
    descriptor.CopyToProto(file)
    pool.Add(_renamed(file))


# ------------------------------------------------------------------ the serving protos
def _file(name: str, *dependencies: str) -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name=f"tensorflow_serving/apis/{name}.proto", package=_PACKAGE, syntax="proto3",
        dependency=list(dependencies))
    file.options.cc_enable_arenas = True
    return file


def _field(message, name: str, number: int, ftype: int, label: int = _OPT,
           type_name: str | None = None, oneof: int | None = None, json_name: str | None = None):
    field = message.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        field.type_name = type_name
    if oneof is not None:
        field.oneof_index = oneof
    if json_name:
        field.json_name = json_name
    return field


def _map(message, name: str, number: int, value_type: str) -> None:
    entry_name = "".join(p.capitalize() for p in name.split("_")) + "Entry"
    entry = message.nested_type.add(name=entry_name)
    entry.options.map_entry = True
    _field(entry, "key", 1, _STR)
    _field(entry, "value", 2, _MSG, type_name=value_type)
    _field(message, name, number, _MSG, _REP, type_name=f".{_PACKAGE}.{message.name}.{entry_name}")


def _serving_files() -> list[descriptor_pb2.FileDescriptorProto]:
    s = f".{_PACKAGE}."
    files = []

    model = _file("model", "google/protobuf/wrappers.proto")
    spec = model.message_type.add(name="ModelSpec")
    spec.oneof_decl.add(name="version_choice")
    _field(spec, "name", 1, _STR)
    _field(spec, "version", 2, _MSG, type_name=".google.protobuf.Int64Value", oneof=0)
    _field(spec, "version_label", 4, _STR, oneof=0)
    _field(spec, "signature_name", 3, _STR)
    files.append(model)

    predict = _file("predict", "tensorflow/core/framework/tensor.proto",
                    "tensorflow_serving/apis/model.proto")
    request = predict.message_type.add(name="PredictRequest")
    _field(request, "model_spec", 1, _MSG, type_name=s + "ModelSpec")
    _map(request, "inputs", 2, ".tensorflow.TensorProto")
    _field(request, "output_filter", 3, _STR, _REP)
    request.reserved_range.add(start=4, end=5)
    response = predict.message_type.add(name="PredictResponse")
    _field(response, "model_spec", 2, _MSG, type_name=s + "ModelSpec")
    _map(response, "outputs", 1, ".tensorflow.TensorProto")
    files.append(predict)

    inputs = _file("input", "tensorflow/core/example/example.proto")
    _field(inputs.message_type.add(name="ExampleList"), "examples", 1, _MSG, _REP,
           type_name=".tensorflow.Example")
    with_context = inputs.message_type.add(name="ExampleListWithContext")
    _field(with_context, "examples", 1, _MSG, _REP, type_name=".tensorflow.Example")
    _field(with_context, "context", 2, _MSG, type_name=".tensorflow.Example")
    kind = inputs.message_type.add(name="Input")
    kind.oneof_decl.add(name="kind")
    _field(kind, "example_list", 1, _MSG, type_name=s + "ExampleList", oneof=0)
    _field(kind, "example_list_with_context", 2, _MSG, type_name=s + "ExampleListWithContext",
           oneof=0)
    files.append(inputs)

    uses_input = ("tensorflow_serving/apis/input.proto", "tensorflow_serving/apis/model.proto")
    classification = _file("classification", *uses_input)
    klass = classification.message_type.add(name="Class")
    _field(klass, "label", 1, _STR)
    _field(klass, "score", 2, _FLOAT)
    _field(classification.message_type.add(name="Classifications"), "classes", 1, _MSG, _REP,
           type_name=s + "Class")
    _field(classification.message_type.add(name="ClassificationResult"), "classifications", 1,
           _MSG, _REP, type_name=s + "Classifications")
    files.append(classification)

    regression = _file("regression", *uses_input)
    _field(regression.message_type.add(name="Regression"), "value", 1, _FLOAT)
    _field(regression.message_type.add(name="RegressionResult"), "regressions", 1, _MSG, _REP,
           type_name=s + "Regression")
    files.append(regression)

    for file, kind_name in ((classification, "Classification"), (regression, "Regression")):
        request = file.message_type.add(name=f"{kind_name}Request")
        _field(request, "model_spec", 1, _MSG, type_name=s + "ModelSpec")
        _field(request, "input", 2, _MSG, type_name=s + "Input")
        response = file.message_type.add(name=f"{kind_name}Response")
        _field(response, "model_spec", 2, _MSG, type_name=s + "ModelSpec")
        _field(response, "result", 1, _MSG, type_name=s + f"{kind_name}Result")

    inference = _file("inference", "tensorflow_serving/apis/classification.proto",
                      "tensorflow_serving/apis/input.proto", "tensorflow_serving/apis/model.proto",
                      "tensorflow_serving/apis/regression.proto")
    task = inference.message_type.add(name="InferenceTask")
    _field(task, "model_spec", 1, _MSG, type_name=s + "ModelSpec")
    _field(task, "method_name", 2, _STR)
    result = inference.message_type.add(name="InferenceResult")
    result.oneof_decl.add(name="result")
    _field(result, "model_spec", 1, _MSG, type_name=s + "ModelSpec")
    _field(result, "classification_result", 2, _MSG, type_name=s + "ClassificationResult",
           oneof=0)
    _field(result, "regression_result", 3, _MSG, type_name=s + "RegressionResult", oneof=0)
    request = inference.message_type.add(name="MultiInferenceRequest")
    _field(request, "tasks", 1, _MSG, _REP, type_name=s + "InferenceTask")
    _field(request, "input", 2, _MSG, type_name=s + "Input")
    _field(inference.message_type.add(name="MultiInferenceResponse"), "results", 1, _MSG, _REP,
           type_name=s + "InferenceResult")
    files.append(inference)

    metadata = _file("get_model_metadata", "google/protobuf/any.proto",
                     "tensorflow/core/protobuf/meta_graph.proto",
                     "tensorflow_serving/apis/model.proto")
    _map(metadata.message_type.add(name="SignatureDefMap"), "signature_def", 1,
         ".tensorflow.SignatureDef")
    request = metadata.message_type.add(name="GetModelMetadataRequest")
    _field(request, "model_spec", 1, _MSG, type_name=s + "ModelSpec")
    _field(request, "metadata_field", 2, _STR, _REP)
    response = metadata.message_type.add(name="GetModelMetadataResponse")
    _field(response, "model_spec", 1, _MSG, type_name=s + "ModelSpec")
    _map(response, "metadata", 2, ".google.protobuf.Any")
    files.append(metadata)

    codes = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/protobuf/error_codes.proto", package="tensorflow.error",
        syntax="proto3")
    code = codes.enum_type.add(name="Code")
    for name, number in ERROR_CODES.items():
        code.value.add(name=name, number=number)
    files.append(codes)

    status = _file("status", "tensorflow/core/protobuf/error_codes.proto")
    proto = status.message_type.add(name="StatusProto")
    _field(proto, "error_code", 1, _ENUM, type_name=".tensorflow.error.Code",
           json_name="error_code")
    _field(proto, "error_message", 2, _STR, json_name="error_message")
    files.append(status)

    model_status = _file("get_model_status", "tensorflow_serving/apis/model.proto",
                         "tensorflow_serving/apis/status.proto")
    request = model_status.message_type.add(name="GetModelStatusRequest")
    _field(request, "model_spec", 1, _MSG, type_name=s + "ModelSpec")
    version_status = model_status.message_type.add(name="ModelVersionStatus")
    state = version_status.enum_type.add(name="State")
    for name, number in MODEL_STATES.items():
        state.value.add(name=name, number=number)
    _field(version_status, "version", 1, _INT64)
    _field(version_status, "state", 2, _ENUM, type_name=s + "ModelVersionStatus.State")
    _field(version_status, "status", 3, _MSG, type_name=s + "StatusProto")
    response = model_status.message_type.add(name="GetModelStatusResponse")
    _field(response, "model_version_status", 1, _MSG, _REP, type_name=s + "ModelVersionStatus",
           json_name="model_version_status")
    files.append(model_status)

    monitoring = descriptor_pb2.FileDescriptorProto(
        name="tensorflow_serving/config/monitoring_config.proto", package=_PACKAGE,
        syntax="proto3")
    prometheus = monitoring.message_type.add(name="PrometheusConfig")
    _field(prometheus, "enable", 1, _BOOL)
    _field(prometheus, "path", 2, _STR)
    _field(monitoring.message_type.add(name="MonitoringConfig"), "prometheus_config", 1, _MSG,
           type_name=s + "PrometheusConfig")
    files.append(monitoring)
    return files


def _build() -> tuple[descriptor_pool.DescriptorPool, dict[str, type]]:
    pool = descriptor_pool.DescriptorPool()
    done: set[str] = set()
    for module in (any_pb2, wrappers_pb2, tensor_pb2, meta_graph_pb2):
        _add_with_dependencies(pool, module.DESCRIPTOR, done)
    pool.Add(_example_proto._feature_file())
    pool.Add(_example_proto._example_file())
    for file in _serving_files():
        pool.Add(file)
    classes = {}
    for full_name in (
            "tensorflow.TensorProto", "tensorflow.TensorShapeProto", "tensorflow.SignatureDef",
            "tensorflow.TensorInfo", "tensorflow.Example", "tensorflow.Features",
            "tensorflow.Feature", "google.protobuf.Any", "google.protobuf.Int64Value"):
        classes[full_name.rsplit(".", 1)[1]] = message_factory.GetMessageClass(
            pool.FindMessageTypeByName(full_name))
    for name in (
            "ModelSpec", "PredictRequest", "PredictResponse", "ExampleList",
            "ExampleListWithContext", "Input", "Class", "Classifications", "ClassificationResult",
            "ClassificationRequest", "ClassificationResponse", "Regression", "RegressionResult",
            "RegressionRequest", "RegressionResponse", "InferenceTask", "InferenceResult",
            "MultiInferenceRequest", "MultiInferenceResponse", "SignatureDefMap",
            "GetModelMetadataRequest", "GetModelMetadataResponse", "StatusProto",
            "ModelVersionStatus", "GetModelStatusRequest", "GetModelStatusResponse",
            "PrometheusConfig", "MonitoringConfig"):
        classes[name] = message_factory.GetMessageClass(
            pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
    return pool, classes


POOL, _CLASSES = _build()
TensorProto = _CLASSES["TensorProto"]
TensorShapeProto = _CLASSES["TensorShapeProto"]
SignatureDef = _CLASSES["SignatureDef"]
TensorInfo = _CLASSES["TensorInfo"]
Example = _CLASSES["Example"]
Any = _CLASSES["Any"]
ModelSpec = _CLASSES["ModelSpec"]
PredictRequest = _CLASSES["PredictRequest"]
PredictResponse = _CLASSES["PredictResponse"]
ExampleList = _CLASSES["ExampleList"]
ExampleListWithContext = _CLASSES["ExampleListWithContext"]
Input = _CLASSES["Input"]
Class = _CLASSES["Class"]
Classifications = _CLASSES["Classifications"]
ClassificationResult = _CLASSES["ClassificationResult"]
ClassificationRequest = _CLASSES["ClassificationRequest"]
ClassificationResponse = _CLASSES["ClassificationResponse"]
Regression = _CLASSES["Regression"]
RegressionResult = _CLASSES["RegressionResult"]
RegressionRequest = _CLASSES["RegressionRequest"]
RegressionResponse = _CLASSES["RegressionResponse"]
InferenceTask = _CLASSES["InferenceTask"]
InferenceResult = _CLASSES["InferenceResult"]
MultiInferenceRequest = _CLASSES["MultiInferenceRequest"]
MultiInferenceResponse = _CLASSES["MultiInferenceResponse"]
SignatureDefMap = _CLASSES["SignatureDefMap"]
GetModelMetadataRequest = _CLASSES["GetModelMetadataRequest"]
GetModelMetadataResponse = _CLASSES["GetModelMetadataResponse"]
StatusProto = _CLASSES["StatusProto"]
ModelVersionStatus = _CLASSES["ModelVersionStatus"]
GetModelStatusRequest = _CLASSES["GetModelStatusRequest"]
GetModelStatusResponse = _CLASSES["GetModelStatusResponse"]
PrometheusConfig = _CLASSES["PrometheusConfig"]
MonitoringConfig = _CLASSES["MonitoringConfig"]
