"""Prometheus metrics (`--monitoring_config_file`): the config file, the text format, and a real
server counting REST and gRPC requests, scraped over HTTP and parsed with prometheus_client."""

from __future__ import annotations

import urllib.error
import urllib.request

import grpc
import pytest
from _serving_testlib import IRIS_ROWS, Server, free_port, serialized_examples
from prometheus_client.parser import text_string_to_metric_families

from torchestimator.cli import main
from torchestimator.serving import _serving_protos as pb
from torchestimator.serving._monitoring import (
    DEFAULT_PATH,
    LATENCY_BUCKETS_US,
    REQUEST_COUNT,
    REQUEST_LATENCY,
    VERSIONS_LOADED,
    Metrics,
    read_monitoring_config,
)

CONFIG = 'prometheus_config {\n  enable: true,\n  path: "/monitoring/prometheus/metrics"\n}\n'


def _families(text: str) -> dict:
    return {f.name: f for f in text_string_to_metric_families(text)}


def _samples(family, name: str | None = None) -> list:
    return [s for s in family.samples if name is None or s.name == name]


def test_metrics_text_format_parses_with_counts_and_a_cumulative_histogram():
    metrics = Metrics()
    metrics.observe("iris", "predict", "rest", "OK", 0.002, "serving_default")
    metrics.observe("iris", "predict", "rest", "OK", 0.004, "serving_default")
    metrics.observe("iris", "predict", "rest", "OK", 0.004, "predict")
    metrics.observe("iris", "predict", "grpc", "NOT_FOUND", 0.0001)
    metrics.observe("", "status", "rest", "NOT_FOUND", 1e-9)
    families = _families(metrics.render().decode())
    counts = {(s.labels["model_name"], s.labels["API"], s.labels["signature_name"],
               s.labels["entrypoint"], s.labels["status"]): s.value
              for s in families[REQUEST_COUNT].samples}
    assert counts == {("iris", "predict", "serving_default", "REST", "OK"): 2.0,
                      ("iris", "predict", "predict", "REST", "OK"): 1.0,
                      ("iris", "predict", "", "GRPC", "NOT_FOUND"): 1.0,
                      ("", "status", "", "REST", "NOT_FOUND"): 1.0}
    latency = families[REQUEST_LATENCY]
    assert latency.type == "histogram"
    rest = {"model_name": "iris", "API": "predict", "signature_name": "serving_default",
            "entrypoint": "REST"}
    buckets = [s for s in _samples(latency, REQUEST_LATENCY + "_bucket")
               if {k: v for k, v in s.labels.items() if k != "le"} == rest]
    assert len(buckets) == len(LATENCY_BUCKETS_US) + 1 and buckets[-1].labels["le"] == "+Inf"
    values = [b.value for b in buckets]
    assert values == sorted(values) and values[-1] == 2.0
    at = {float(b.labels["le"]): b.value for b in buckets}
    assert at[max(u for u in LATENCY_BUCKETS_US if u < 2000)] == 0.0  # both above 2000 us
    assert at[min(u for u in LATENCY_BUCKETS_US if u >= 4000)] == 2.0
    [total] = [s for s in _samples(latency, REQUEST_LATENCY + "_sum") if s.labels == rest]
    assert total.value == pytest.approx(6000.0)


def test_monitoring_config_file(tmp_path):
    path = tmp_path / "monitoring.config"
    path.write_text(CONFIG)
    assert read_monitoring_config(path) == "/monitoring/prometheus/metrics"
    path.write_text("prometheus_config { enable: true }")
    assert read_monitoring_config(path) == DEFAULT_PATH
    path.write_text("prometheus_config { enable: false, path: '/m' }")
    assert read_monitoring_config(path) is None
    path.write_text("prometheus_config { enable: yes please }")
    with pytest.raises(ValueError, match="monitoring.config.*MonitoringConfig"):
        read_monitoring_config(path)
    path.write_text('prometheus_config { enable: true, path: "metrics" }')
    with pytest.raises(ValueError, match="starting with '/'"):
        read_monitoring_config(path)


def test_serve_refuses_a_bad_monitoring_config(tmp_path, capsys):
    path = tmp_path / "bad.config"
    path.write_text("prometheus_config { nope: 1 }")
    status = main(["serve", "--model_base_path", str(tmp_path), "--monitoring_config_file",
                   str(path)])
    err = capsys.readouterr().err
    assert status == 2 and "--monitoring_config_file" in err and "bad.config" in err


@pytest.fixture(scope="module")
def monitored(exports, tmp_path_factory):
    config = tmp_path_factory.mktemp("monitoring") / "monitoring.config"
    config.write_text(CONFIG)
    grpc_port = free_port()
    server = Server("iris", exports["iris_base"], "--port", str(grpc_port),
                    "--monitoring_config_file", str(config))
    channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    yield server, channel
    channel.close()
    server.stop()


def _scrape(server: Server) -> tuple[str, str]:
    with urllib.request.urlopen(server.url + "/monitoring/prometheus/metrics",
                                timeout=60) as response:
        return response.headers["Content-Type"], response.read().decode()


def test_the_rest_port_serves_metrics_of_rest_and_grpc_requests(monitored):
    server, channel = monitored
    status, _ = server.post("/v1/models/iris:classify", {"examples": IRIS_ROWS})
    assert status == 200
    assert server.post("/v1/models/iris:predict", {"instances": "nope"})[0] == 400
    assert server.get("/v1/models/unknown")[0] == 404
    predict = channel.unary_unary("/tensorflow.serving.PredictionService/Predict",
                                  request_serializer=lambda m: m.SerializeToString(),
                                  response_deserializer=pb.PredictResponse.FromString)
    request = pb.PredictRequest()
    request.model_spec.name = "iris"
    request.model_spec.signature_name = "predict"
    request.inputs["examples"].dtype = 7
    request.inputs["examples"].tensor_shape.dim.add(size=1)
    request.inputs["examples"].string_val.extend(serialized_examples(IRIS_ROWS[:1]))
    for _ in range(3):
        predict(request, timeout=60)
    request.model_spec.signature_name = "nope"
    with pytest.raises(grpc.RpcError):
        predict(request, timeout=60)

    kind, text = _scrape(server)
    assert kind.startswith("text/plain") and "version=0.0.4" in kind
    families = _families(text)
    counts = {(s.labels["model_name"], s.labels["API"], s.labels["signature_name"],
               s.labels["entrypoint"], s.labels["status"]): s.value
              for s in families[REQUEST_COUNT].samples}
    # the signature a request ran; "" for one that ran none (it failed before its model
    # call, an unknown signature among them: clients cannot grow the number of series)
    assert counts[("iris", "classify", "serving_default", "REST", "OK")] >= 1
    assert counts[("iris", "predict", "", "REST", "INVALID_ARGUMENT")] == 1
    assert counts[("", "status", "", "REST", "NOT_FOUND")] == 1  # an unknown model: no label
    assert counts[("iris", "predict", "predict", "GRPC", "OK")] == 3
    assert counts[("iris", "predict", "", "GRPC", "FAILED_PRECONDITION")] == 1
    assert not [k for k in counts if k[2] == "nope"]
    grpc_latency = {s.labels["signature_name"]: s.value for s in families[REQUEST_LATENCY].samples
                    if s.name == REQUEST_LATENCY + "_count" and s.labels["entrypoint"] == "GRPC"
                    and s.labels["API"] == "predict" and s.labels["model_name"] == "iris"}
    assert grpc_latency == {"predict": 3.0, "": 1.0}
    [loaded] = families[VERSIONS_LOADED].samples
    assert loaded.labels == {"model_name": "iris"} and loaded.value == 1.0
    # a second scrape counts what happened since, and scrapes are not requests of a model
    server.get("/v1/models/iris")
    later = _families(_scrape(server)[1])
    counts = {(s.labels["API"], s.labels["entrypoint"], s.labels["status"]): s.value
              for s in later[REQUEST_COUNT].samples if s.labels["model_name"] == "iris"}
    assert counts[("status", "REST", "OK")] >= 2  # the fixture's readiness polls, and this one
    assert not [s for s in later[REQUEST_COUNT].samples if s.labels["API"] == "other"]


def test_metrics_path_takes_only_get(monitored):
    server, _ = monitored
    request = urllib.request.Request(server.url + "/monitoring/prometheus/metrics", data=b"x",
                                     method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=60)
    assert info.value.code == 405 and b"GET" in info.value.read()
