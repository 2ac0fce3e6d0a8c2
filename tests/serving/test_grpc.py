"""TF Serving's gRPC API, end to end: real exports, `torchestimator serve --port`, a real gRPC
client speaking TF Serving's messages (package tensorflow.serving, its field numbers)."""

from __future__ import annotations

import re
import time

import grpc
import numpy as np
import pytest
from _serving_testlib import IRIS_ROWS, Server, free_port, load, serialized_examples

from torchestimator.serving import _serving_protos as pb

PREDICTION = "/tensorflow.serving.PredictionService/"
MODEL = "/tensorflow.serving.ModelService/"
_RESPONSES = {"Predict": pb.PredictResponse, "Classify": pb.ClassificationResponse,
              "Regress": pb.RegressionResponse, "MultiInference": pb.MultiInferenceResponse,
              "GetModelMetadata": pb.GetModelMetadataResponse,
              "GetModelStatus": pb.GetModelStatusResponse}
MAX_BODY = 1_000_000
MAX_ROWS = 50


class Client:
    """A gRPC client of one server: `call("Predict", request)` -> response."""

    def __init__(self, port: int):
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=[
            ("grpc.max_send_message_length", 64 * 1024 * 1024)])
        grpc.channel_ready_future(self.channel).result(timeout=30)

    def call(self, method: str, request, timeout: float = 60):
        service = MODEL if method in ("GetModelStatus", "HandleReloadConfigRequest") \
            else PREDICTION
        stub = self.channel.unary_unary(
            service + method, request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=_RESPONSES[method].FromString if method in _RESPONSES
            else None)
        return stub(request, timeout=timeout)

    def error(self, method: str, request) -> grpc.RpcError:
        with pytest.raises(grpc.RpcError) as info:
            self.call(method, request)
        return info.value


def _server(name: str, base: str) -> tuple[Server, Client]:
    grpc_port = free_port()
    server = Server(name, base, "--port", str(grpc_port), "--max_body_bytes", str(MAX_BODY),
                    "--max_request_rows", str(MAX_ROWS))
    return server, Client(grpc_port)


@pytest.fixture(scope="module")
def iris(exports):
    server, client = _server("iris", exports["iris_base"])
    yield client, server
    server.stop()


@pytest.fixture(scope="module")
def reg(exports, tmp_path_factory):
    """A --model_config_file server: "iris" (versions 1 and 2, labelled) and "reg", with
    --enable_batching (gRPC calls are batched with each other and with REST ones)."""
    folder = tmp_path_factory.mktemp("grpc-config")
    config, batching = folder / "models.config", folder / "batching.config"
    config.write_text(
        "model_config_list {\n"
        f'  config {{ name: "iris" base_path: "{exports["iris_base"]}" '
        "model_version_policy { specific { versions: 1 versions: 2 } } "
        'version_labels { key: "stable" value: 1 } version_labels { key: "canary" value: 2 } }\n'
        f'  config {{ name: "reg" base_path: "{exports["regressor_base"]}" }}\n}}\n')
    batching.write_text("max_batch_size { value: 8 } batch_timeout_micros { value: 300000 } "
                        "num_batch_threads { value: 1 } max_enqueued_batches { value: 4 }")
    grpc_port = free_port()
    server = Server("reg", str(folder / "unused"), "--port", str(grpc_port),
                    "--model_config_file", str(config), "--enable_batching",
                    "--batching_parameters_file", str(batching), "--rest_api_num_threads", "8",
                    "--log_level", "debug")
    yield Client(grpc_port), server
    server.stop()


@pytest.fixture(scope="module")
def iris_v2(exports):
    return load(exports["iris_v2"])


def _examples_tensor(rows) -> object:
    tensor = pb.TensorProto(dtype=7)  # DT_STRING
    tensor.tensor_shape.dim.add(size=len(rows))
    tensor.string_val.extend(serialized_examples(rows))
    return tensor


def _array(tensor) -> np.ndarray:
    """A TensorProto's values (typed fields) as a numpy array (what tf.make_ndarray gives)."""
    shape = [d.size for d in tensor.tensor_shape.dim]
    if tensor.dtype == 7:
        return np.array(list(tensor.string_val), dtype=object).reshape(shape)
    field = {1: "float_val", 2: "double_val", 3: "int_val", 9: "int64_val", 10: "bool_val"}
    return np.array(list(getattr(tensor, field[tensor.dtype]))).reshape(shape)


def _predict_request(rows, signature="predict", **spec) -> object:
    request = pb.PredictRequest()
    request.model_spec.name = spec.pop("name", "iris")
    request.model_spec.signature_name = signature
    if "version" in spec:
        request.model_spec.version.value = spec.pop("version")
    request.inputs["examples"].CopyFrom(_examples_tensor(rows))
    return request


def _example(row: dict) -> object:
    example = pb.Example()
    for key, value in row.items():
        if isinstance(value, str):
            example.features.feature[key].bytes_list.value.append(value.encode())
        else:
            example.features.feature[key].float_list.value.append(value)
    return example


def _input(rows, context=None) -> object:
    message = pb.Input()
    if context is None:
        message.example_list.examples.extend(_example(r) for r in rows)
    else:
        message.example_list_with_context.examples.extend(_example(r) for r in rows)
        message.example_list_with_context.context.CopyFrom(_example(context))
    return message


# ------------------------------------------------------------------------------- calls
def test_predict_answers_the_exports_outputs(iris, iris_v2):
    client, _ = iris
    expected = iris_v2.signatures["predict"](examples=serialized_examples(IRIS_ROWS))
    response = client.call("Predict", _predict_request(IRIS_ROWS))
    assert response.model_spec.name == "iris"
    assert response.model_spec.version.value == 2
    assert response.model_spec.signature_name == "predict"
    assert set(response.outputs) == set(expected)
    probabilities = response.outputs["probabilities"]
    assert probabilities.dtype == 1  # DT_FLOAT, written to float_val as TF Serving writes it
    assert [d.size for d in probabilities.tensor_shape.dim] == [3, 3]
    np.testing.assert_allclose(_array(probabilities), expected["probabilities"], atol=1e-6)
    np.testing.assert_array_equal(_array(response.outputs["class_ids"]),
                                  np.asarray(expected["class_ids"]))
    assert _array(response.outputs["classes"]).tolist() == np.asarray(
        expected["classes"]).tolist()


def test_predict_output_filter_version_and_tensor_content(iris, exports):
    client, _ = iris
    expected = load(exports["iris_v1"]).signatures["predict"](
        examples=serialized_examples(IRIS_ROWS[:2]))
    request = _predict_request(IRIS_ROWS[:2], version=1)
    request.output_filter.append("logits")
    response = client.call("Predict", request)
    assert list(response.outputs) == ["logits"]
    assert response.model_spec.version.value == 1
    np.testing.assert_allclose(_array(response.outputs["logits"]), expected["logits"],
                               atol=1e-6)


def test_tensor_protos_read_as_tf_reads_them():
    from torchestimator.serving._grpc import GrpcError, array_to_tensor, tensor_to_array

    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    content = pb.TensorProto(dtype=1, tensor_content=values.tobytes())
    content.tensor_shape.dim.add(size=2)
    content.tensor_shape.dim.add(size=3)
    np.testing.assert_array_equal(tensor_to_array("x", content), values)
    typed = pb.TensorProto()
    array_to_tensor(values, typed)  # written to float_val, as TF Serving writes outputs
    assert list(typed.float_val) == values.ravel().tolist() and not typed.tensor_content
    np.testing.assert_array_equal(tensor_to_array("x", typed), values)
    del typed.float_val[1:]  # one value for shape [2, 3]: TF repeats it
    np.testing.assert_array_equal(tensor_to_array("x", typed), np.zeros((2, 3), np.float32))
    for value in (np.array([1, -2], np.int64), np.array([True, False]),
                  np.array([0.5, 2.0], np.float64), np.array([1.5, -1], np.float16),
                  np.array([[b"a", b"bc"]], dtype=object), np.array([1, 2], np.uint8)):
        proto = pb.TensorProto()
        array_to_tensor(value, proto)
        back = tensor_to_array("x", pb.TensorProto.FromString(proto.SerializeToString()))
        assert back.dtype == value.dtype and back.tolist() == value.tolist()
    bad = pb.TensorProto(dtype=1, tensor_content=b"\0" * 7)
    bad.tensor_shape.dim.add(size=2)
    with pytest.raises(GrpcError, match="7 bytes"):
        tensor_to_array("x", bad)
    huge = pb.TensorProto(dtype=1, float_val=[1.0])
    huge.tensor_shape.dim.add(size=10**12)
    with pytest.raises(GrpcError, match="over the server's limit") as info:
        tensor_to_array("x", huge, max_bytes=1000)
    assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    strings = pb.TensorProto(dtype=7, string_val=[b"a"])
    strings.tensor_shape.dim.add(size=2**40)
    strings.tensor_shape.dim.add(size=2**40)  # (more elements than an int64 counts)
    with pytest.raises(GrpcError, match="repeats its string"):
        tensor_to_array("x", strings, max_bytes=1000)


def test_classify_agrees_with_rest(iris):
    client, server = iris
    request = pb.ClassificationRequest(input=_input(IRIS_ROWS))
    request.model_spec.name = "iris"
    response = client.call("Classify", request)
    assert response.model_spec.signature_name == "serving_default"
    assert response.model_spec.version.value == 2
    status, body = server.post("/v1/models/iris:classify", {"examples": IRIS_ROWS})
    assert status == 200
    got = [[[c.label, c.score] for c in row.classes] for row in response.result.classifications]
    assert [[label for label, _ in row] for row in got] == [
        [label for label, _ in row] for row in body["results"]]
    np.testing.assert_allclose([[s for _, s in row] for row in got],
                               [[s for _, s in row] for row in body["results"]], atol=1e-6)


def test_classify_with_context_equals_the_merged_examples(iris):
    client, _ = iris
    context = {"SepalWidth": 3.0}
    rows = [{k: v for k, v in r.items() if k != "SepalWidth"} for r in IRIS_ROWS]
    request = pb.ClassificationRequest(input=_input(rows, context))
    request.model_spec.name = "iris"
    request.model_spec.signature_name = "classification"
    with_context = client.call("Classify", request)
    merged = pb.ClassificationRequest(input=_input([{**r, **context} for r in rows]))
    merged.model_spec.name = "iris"
    assert with_context.result == client.call("Classify", merged).result


def test_regress_agrees_with_rest(reg):
    client, server = reg
    rows = [{"x": 1.5, "kind": "a"}, {"x": 4.0, "kind": "c"}]
    request = pb.RegressionRequest(input=_input(rows))
    request.model_spec.name = "reg"
    request.model_spec.signature_name = "regression"
    response = client.call("Regress", request)
    status, body = server.post("/v1/models/reg:regress",
                               {"signature_name": "regression", "examples": rows})
    assert status == 200
    np.testing.assert_allclose([r.value for r in response.result.regressions], body["results"],
                               atol=1e-6)
    assert response.model_spec.signature_name == "regression"


def test_multi_inference_runs_each_task_on_the_same_examples(iris, reg):
    client, _ = iris
    request = pb.MultiInferenceRequest(input=_input(IRIS_ROWS))
    for signature in ("serving_default", "classification"):
        task = request.tasks.add(method_name="tensorflow/serving/classify")
        task.model_spec.name = "iris"
        task.model_spec.signature_name = signature
    response = client.call("MultiInference", request)
    assert len(response.results) == 2
    assert [r.model_spec.signature_name for r in response.results] == [
        "serving_default", "classification"]
    assert all(r.WhichOneof("result") == "classification_result" for r in response.results)
    assert response.results[0].classification_result == response.results[1].classification_result
    single = pb.ClassificationRequest(input=_input(IRIS_ROWS))
    single.model_spec.name = "iris"
    assert client.call("Classify", single).result == response.results[0].classification_result

    reg_client, _ = reg
    request = pb.MultiInferenceRequest(input=_input([{"x": 2.0, "kind": "b"}]))
    task = request.tasks.add(method_name="tensorflow/serving/regress")
    task.model_spec.name = "reg"
    response = reg_client.call("MultiInference", request)
    assert response.results[0].WhichOneof("result") == "regression_result"
    assert len(response.results[0].regression_result.regressions) == 1


def test_metadata_is_a_packed_signature_def_map(iris, iris_v2):
    client, server = iris
    request = pb.GetModelMetadataRequest(metadata_field=["signature_def"])
    request.model_spec.name = "iris"
    response = client.call("GetModelMetadata", request)
    assert response.model_spec.name == "iris" and response.model_spec.version.value == 2
    packed = response.metadata["signature_def"]
    assert packed.type_url == "type.googleapis.com/tensorflow.serving.SignatureDefMap"
    defs = pb.SignatureDefMap()
    assert packed.Unpack(defs)
    assert set(defs.signature_def) == set(iris_v2.signatures)
    predict = defs.signature_def["predict"]
    assert predict.method_name == "tensorflow/serving/predict"
    examples = predict.inputs["examples"]
    assert examples.dtype == 7 and [d.size for d in examples.tensor_shape.dim] == [-1]
    assert [d.size for d in predict.outputs["probabilities"].tensor_shape.dim] == [-1, 3]
    assert predict.outputs["probabilities"].dtype == 1
    assert defs.signature_def["serving_default"].method_name == "tensorflow/serving/classify"
    # the REST metadata says the same
    _, body = server.get("/v1/models/iris/metadata")
    rest = body["metadata"]["signature_def"]["signature_def"]["predict"]
    assert rest["inputs"]["examples"]["name"] == examples.name


def test_model_status_states(iris):
    client, _ = iris
    request = pb.GetModelStatusRequest()
    request.model_spec.name = "iris"
    response = client.call("GetModelStatus", request)
    latest = [s for s in response.model_version_status if s.version == 2]
    assert len(latest) == 1
    assert latest[0].state == pb.MODEL_STATES["AVAILABLE"] == 30
    assert latest[0].status.error_code == 0 and latest[0].status.error_message == ""
    request.model_spec.version.value = 1  # on disk: loaded by the request
    response = client.call("GetModelStatus", request)
    assert [(s.version, s.state) for s in response.model_version_status] == [(1, 30)]
    assert pb.ModelVersionStatus.State.Name(response.model_version_status[0].state) == \
        "AVAILABLE"


# ------------------------------------------------------------------------------ errors
def _spec_request(kind, **spec):
    request = kind()
    for key, value in spec.items():
        if key == "version":
            request.model_spec.version.value = value
        else:
            setattr(request.model_spec, key, value)
    return request


@pytest.mark.parametrize("method, make, code, words", [
    ("Predict", lambda: _predict_request(IRIS_ROWS, name="nope"), "NOT_FOUND",
     ["nope", "iris"]),
    ("Predict", lambda: _predict_request(IRIS_ROWS, version=99), "NOT_FOUND", ["99"]),
    ("Predict", lambda: _predict_request(IRIS_ROWS, name=""), "INVALID_ARGUMENT",
     ["model_spec.name"]),
    ("Predict", lambda: _predict_request(IRIS_ROWS, signature="nope"), "FAILED_PRECONDITION",
     ['"nope"', "predict"]),
    ("GetModelStatus", lambda: _spec_request(pb.GetModelStatusRequest, name="nope"),
     "NOT_FOUND", ["nope"]),
    ("GetModelStatus", lambda: _spec_request(pb.GetModelStatusRequest, name="iris",
                                             version_label="stable"),
     "NOT_FOUND", ["stable"]),
    ("GetModelMetadata", lambda: _spec_request(pb.GetModelMetadataRequest, name="iris"),
     "INVALID_ARGUMENT", ["metadata_field"]),
    ("Classify", lambda: pb.ClassificationRequest(model_spec=pb.ModelSpec(name="iris")),
     "INVALID_ARGUMENT", ["Input is empty"]),
    ("Classify", lambda: pb.ClassificationRequest(model_spec=pb.ModelSpec(
        name="iris", signature_name="predict"), input=_input(IRIS_ROWS)),
     "INVALID_ARGUMENT", ["tensorflow/serving/classify", "classification"]),
    ("Regress", lambda: pb.RegressionRequest(model_spec=pb.ModelSpec(name="iris"),
                                             input=_input(IRIS_ROWS)),
     "INVALID_ARGUMENT", ["regression", "no regression signature"]),
    ("Classify", lambda: pb.ClassificationRequest(model_spec=pb.ModelSpec(name="iris"),
                                                  input=_input(IRIS_ROWS * 20)),
     "RESOURCE_EXHAUSTED", ["60 examples", str(MAX_ROWS), "--max_request_rows"]),
    ("MultiInference", lambda: pb.MultiInferenceRequest(input=_input(IRIS_ROWS)),
     "INVALID_ARGUMENT", ["no tasks"]),
    ("MultiInference", lambda: pb.MultiInferenceRequest(input=_input(IRIS_ROWS), tasks=[
        pb.InferenceTask(model_spec=pb.ModelSpec(name="iris"), method_name="x/y")]),
     "UNIMPLEMENTED", ["x/y"]),
])
def test_errors_have_tf_serving_codes_and_say_what_is_wrong(iris, method, make, code, words):
    client, _ = iris
    error = client.error(method, make())
    assert error.code().name == code, error.details()
    for word in words:
        assert word in error.details(), (word, error.details())


def test_wrong_inputs_are_invalid_arguments(iris):
    client, _ = iris
    request = _predict_request(IRIS_ROWS)
    request.inputs["extra"].CopyFrom(request.inputs["examples"])
    error = client.error("Predict", request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "extra" in error.details() and "examples" in error.details()
    request = _predict_request(IRIS_ROWS)
    request.inputs["examples"].dtype = 1  # DT_FLOAT where the signature takes strings
    error = client.error("Predict", request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "DT_STRING" in error.details() and "DT_FLOAT" in error.details()
    request = _predict_request(IRIS_ROWS)
    request.inputs["examples"].tensor_shape.dim[0].size = 4  # 3 strings for shape [4]
    error = client.error("Predict", request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "shape" in error.details()


def test_a_request_over_the_size_limit_is_resource_exhausted(iris):
    client, _ = iris
    request = _predict_request(IRIS_ROWS)
    request.inputs["examples"].string_val.append(b"x" * (MAX_BODY + 10))
    request.inputs["examples"].tensor_shape.dim[0].size = 4
    error = client.error("Predict", request)
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert str(MAX_BODY) in error.details()
    # and the server carries on
    assert client.call("Predict", _predict_request(IRIS_ROWS)).outputs


def test_reload_config_is_unimplemented_with_a_message(iris):
    client, _ = iris
    stub = client.channel.unary_unary(MODEL + "HandleReloadConfigRequest")
    with pytest.raises(grpc.RpcError) as info:
        stub(b"", timeout=30)
    assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "--model_config_file" in info.value.details()


def test_a_grpc_port_in_use_is_an_error_naming_the_port():
    import socket

    from torchestimator.serving._grpc import start_from_settings, start_grpc_server

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"--port={port}.*in use"):
            start_grpc_server({}, host="127.0.0.1", port=port, max_threads=1,
                              max_message_bytes=1000)
        # the default port (not asked for): logged, REST served alone
        assert start_from_settings({"port": port, "host": "127.0.0.1", "optional": True}, {},
                                   max_threads=1, max_message_bytes=1000) is None


def test_version_labels_and_batching_with_a_model_config_file(reg, exports):
    client, server = reg
    expected = {v: load(exports[f"iris_v{v}"]).signatures["predict"](
        examples=serialized_examples(IRIS_ROWS[:1]))["logits"] for v in (1, 2)}
    request = _predict_request(IRIS_ROWS[:1])
    request.model_spec.version_label = "stable"
    response = client.call("Predict", request)
    assert response.model_spec.version.value == 1
    np.testing.assert_allclose(_array(response.outputs["logits"]), expected[1], atol=1e-6)
    status = pb.GetModelStatusRequest()
    status.model_spec.name = "iris"
    status.model_spec.version_label = "canary"
    assert [(s.version, s.state) for s in client.call("GetModelStatus", status)
            .model_version_status] == [(2, 30)]
    request.model_spec.version_label = "nope"
    error = client.error("Predict", request)
    assert error.code() == grpc.StatusCode.NOT_FOUND and "nope" in error.details()
    # six concurrent calls wait together for one batch (300 ms) and get their own answers
    request = _predict_request(IRIS_ROWS[:1])
    futures = []
    for _ in range(6):
        stub = client.channel.unary_unary(
            PREDICTION + "Predict", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.PredictResponse.FromString)
        futures.append(stub.future(request, timeout=60))
    for future in futures:
        np.testing.assert_allclose(_array(future.result().outputs["logits"]), expected[2],
                                   atol=1e-6)
    # (all six in one batch, unless this machine is too loaded to send them within 300 ms)
    assert re.search(r"Ran a batch of [2-6] request\(s\)", server.log()), server.log()[-3000:]


@pytest.mark.slow
def test_sigterm_answers_the_grpc_call_in_flight_then_exits_0(exports, tmp_path):
    """A call past a full batch queue: UNAVAILABLE at once; SIGTERM: the queued call is
    answered, then the server exits 0."""
    batching = tmp_path / "batching.config"  # the call waits 2 s for its batch
    batching.write_text("max_batch_size { value: 8 } batch_timeout_micros { value: 2000000 } "
                        "num_batch_threads { value: 1 } max_enqueued_batches { value: 1 }")
    grpc_port = free_port()
    server = Server("iris", exports["iris_base"], "--port", str(grpc_port), "--enable_batching",
                    "--batching_parameters_file", str(batching))
    try:
        client = Client(grpc_port)
        stub = client.channel.unary_unary(
            PREDICTION + "Predict", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.PredictResponse.FromString)
        future = stub.future(_predict_request(IRIS_ROWS[:1]), timeout=60)
        time.sleep(0.5)
        with pytest.raises(grpc.RpcError) as info:  # 1 + 8 rows: a second batch, over the limit
            stub(_predict_request(IRIS_ROWS[:1] * 8), timeout=60)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE, info.value
        assert "max_enqueued_batches=1" in info.value.details()
        assert not future.done()
        server.process.terminate()
        assert "logits" in future.result().outputs
        assert server.process.wait(30) == 0, server.log()
    finally:
        server.stop()


def test_grpc_max_threads_and_oversized_requests_are_counted(exports, tmp_path):
    """--grpc_max_threads sizes the gRPC server's thread pool; a request over --max_body_bytes
    is refused by the server itself (RESOURCE_EXHAUSTED naming the flag) and counted in the
    Prometheus metrics; so is a message that does not parse (INTERNAL, as gRPC's C++ server)."""
    import urllib.request

    config = tmp_path / "monitoring.config"
    config.write_text('prometheus_config { enable: true, path: "/metrics" }\n')
    grpc_port, limit = free_port(), 20_000
    server = Server("iris", exports["iris_base"], "--port", str(grpc_port), "--log_level", "info",
                    "--grpc_max_threads", "3", "--max_body_bytes", str(limit),
                    "--monitoring_config_file", str(config))
    try:
        client = Client(grpc_port)
        assert "(3 threads)" in server.log(), server.log()[-3000:]
        assert "--grpc_max_threads" not in server.log()  # taken, not warned about as ignored
        # three calls at once on three threads
        stub = client.channel.unary_unary(
            PREDICTION + "Predict", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.PredictResponse.FromString)
        futures = [stub.future(_predict_request(IRIS_ROWS[:1]), timeout=60) for _ in range(3)]
        assert all("logits" in f.result().outputs for f in futures)
        request = _predict_request(IRIS_ROWS[:1])
        request.inputs["examples"].string_val.append(b"x" * limit)
        request.inputs["examples"].tensor_shape.dim[0].size = 2
        size = request.ByteSize()
        error = client.error("Predict", request)
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "--max_body_bytes" in error.details() and f"{size} bytes" in error.details()
        assert str(limit) in error.details() and "max message size" in error.details()
        with pytest.raises(grpc.RpcError) as info:
            client.channel.unary_unary(PREDICTION + "Predict")(b"\x0a\xff", timeout=30)
        assert info.value.code() == grpc.StatusCode.INTERNAL  # as gRPC's C++ server answers
        assert "Failed to parse" in info.value.details()
        assert "PredictRequest" in info.value.details()
        assert client.call("Predict", _predict_request(IRIS_ROWS[:1])).outputs  # carries on
        with urllib.request.urlopen(server.url + "/metrics", timeout=60) as response:
            text = response.read().decode()
        counted = {status: count for status, count in re.findall(
            r'request_count\{model_name="",API="predict",signature_name="",entrypoint="GRPC",'
            r'status="(\w+)"\} (\d+)', text)}
        assert counted == {"RESOURCE_EXHAUSTED": "1", "INTERNAL": "1"}, text
    finally:
        server.stop()


def test_grpc_max_threads_must_not_be_negative(tmp_path, capsys):
    from torchestimator.cli import main

    assert main(["serve", "--model_base_path", str(tmp_path), "--grpc_max_threads", "-1"]) == 2
    assert "--grpc_max_threads" in capsys.readouterr().err


def test_wire_format_answers_parse_as_the_message_classes_write_them():
    """Predict answers are written in protobuf's wire format from whole arrays: they parse to
    the same TensorProto / PredictResponse the message classes build (typed value fields)."""
    import torch

    from torchestimator.serving._grpc import (
        _model_spec,
        array_to_tensor,
        predict_response_bytes,
        tensor_bytes,
    )

    arrays = [np.array([[1.5, -2.0, 3.25]], np.float32), np.array([1e300, -0.0], np.float64),
              np.array([[0, -1, 2**31 - 1]], np.int32), np.array([-1, 2**40, 127, 128, -2**63]),
              np.array([2**32 - 1, 0, 300], np.uint32), np.array([2**64 - 1, 5], np.uint64),
              np.array([True, False]), np.array([[b"a", b""]], dtype=object),
              np.array(["x\u00e9", "y"]), np.array(3.0, np.float32), np.zeros((0, 3), np.float32),
              np.zeros((2, 0), np.int64), np.array([1 + 2j], np.complex64),
              np.array([-5, 3], np.int8), np.array([60000], np.uint16), np.array([-7], np.int16),
              torch.tensor([[0.25, 0.5]]), torch.tensor([1.0], dtype=torch.float16),
              np.arange(20000, dtype=np.int64) * 1000]
    for array in arrays:
        expected = pb.TensorProto()
        array_to_tensor(array, expected)
        assert pb.TensorProto.FromString(tensor_bytes(array)) == expected, array
    outputs = {"a": arrays[0], "\u00e9": arrays[7], "big": arrays[-1]}
    for version, signature in ((0, "predict"), (2**40, "")):
        expected = pb.PredictResponse()
        _model_spec(expected.model_spec, "iris", version, signature)
        for key, value in outputs.items():
            array_to_tensor(value, expected.outputs[key])
        got = pb.PredictResponse.FromString(predict_response_bytes(
            [(k, tensor_bytes(v)) for k, v in outputs.items()], "iris", version, signature))
        assert got == expected
        assert got.model_spec.HasField("version")


def test_predict_answers_every_output_dtype_over_grpc(iris, iris_v2):
    client, _ = iris
    expected = iris_v2.signatures["predict"](examples=serialized_examples(IRIS_ROWS))
    response = client.call("Predict", _predict_request(IRIS_ROWS))
    for key, value in expected.items():
        value = np.asarray(value)
        tensor = response.outputs[key]
        assert [d.size for d in tensor.tensor_shape.dim] == list(value.shape), key
        if value.dtype.kind in "OSU":
            assert tensor.dtype == 7 and _array(tensor).tolist() == value.tolist(), key
        else:
            numbers = {"float32": 1, "float64": 2, "int32": 3, "int64": 9, "bool": 10}
            assert tensor.dtype == numbers[value.dtype.name], key
            np.testing.assert_allclose(_array(tensor), value, atol=1e-6)


def test_batching_gives_the_grpc_server_threads_to_fill_a_batch(exports, tmp_path):
    """With --enable_batching and no thread flags, the gRPC (and REST) thread pools hold a
    whole batch (max_batch_size x num_batch_threads): eight concurrent calls wait together."""
    batching = tmp_path / "batching.config"
    batching.write_text("max_batch_size { value: 8 } batch_timeout_micros { value: 500000 } "
                        "num_batch_threads { value: 1 }")
    grpc_port = free_port()
    server = Server("iris", exports["iris_base"], "--port", str(grpc_port), "--enable_batching",
                    "--batching_parameters_file", str(batching), "--log_level", "debug")
    try:
        client = Client(grpc_port)
        assert "(8 threads)" in server.log(), server.log()[-3000:]
        stub = client.channel.unary_unary(
            PREDICTION + "Predict", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.PredictResponse.FromString)
        futures = [stub.future(_predict_request(IRIS_ROWS[:1]), timeout=60) for _ in range(8)]
        assert all("logits" in f.result().outputs for f in futures)
        # more than the 2 default threads' worth in one batch (all 8 unless the machine is too
        # loaded to send them within 500 ms)
        assert re.search(r"Ran a batch of [3-8] request\(s\)", server.log()), \
            server.log()[-3000:]
    finally:
        server.stop()
