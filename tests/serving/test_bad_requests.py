"""Bad requests are answered 400/404/413 with `{"error": ...}` naming the problem, and the server
keeps serving: a good request succeeds after each one."""

from __future__ import annotations

import base64
import json

import pytest
from _serving_testlib import IRIS, IRIS_ROWS, Server

pytestmark = pytest.mark.slow  # shares the session's exports and servers

GOOD_RAW = {"signature_name": "predict", "instances": IRIS_ROWS[:2]}
ROW = IRIS_ROWS[0]


def _without(row, key):
    return {k: v for k, v in row.items() if k != key}


# (name, method, path, JSON body or raw bytes, status, words the error must contain)
RAW_CASES = [
    ("unknown model", "POST", "/v1/models/nope:predict", GOOD_RAW, 404,
     ["Servable not found", "nope", "raw"]),
    ("unknown version", "POST", "/v1/models/raw/versions/99:predict", GOOD_RAW, 404,
     ["Specific(raw, 99)", "on disk: [1]"]),
    ("unknown version status", "GET", "/v1/models/raw/versions/5", None, 404,
     ["Specific(raw, 5)"]),
    ("version label", "GET", "/v1/models/raw/labels/stable", None, 404,
     ["label", "stable"]),
    ("unknown signature", "POST", "/v1/models/raw:predict",
     {"signature_name": "nope", "instances": IRIS_ROWS}, 400,
     ['"nope" not found', "['predict']"]),
    ("signature_name not a string", "POST", "/v1/models/raw:predict",
     {"signature_name": 3, "instances": IRIS_ROWS}, 400, ["signature_name", "string"]),
    ("missing input", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "instances": [_without(ROW, "PetalWidth")]}, 400, ["missing input", "PetalWidth"]),
    ("extra input", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "instances": [dict(ROW, color=1.0)]}, 400, ["extra input", "color"]),
    ("missing columnar input", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "inputs": {k: [1.0] for k in IRIS[:3]}}, 400, ["Missing named input", "PetalWidth"]),
    ("extra columnar input", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "inputs": dict({k: [1.0] for k in IRIS}, color=[1.0])}, 400, ["color"]),
    ("wrong type", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "instances": [dict(ROW, SepalLength="long")]}, 400,
     ["SepalLength", '"long"', "String", "float32"]),
    ("wrong shape", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "instances": [dict(ROW, SepalLength=[1.0, 2.0])]}, 400, ["SepalLength", "shape"]),
    ("ragged lists", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict",
      "inputs": dict({k: [1.0, 2.0] for k in IRIS}, SepalLength=[[1.0], [2.0, 3.0]])}, 400,
     ["SepalLength", "tensor"]),
    ("plain list for several inputs", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "instances": [1.0, 2.0]}, 400, ["plain list", "PetalLength"]),
    ("not JSON", "POST", "/v1/models/raw:predict", b"{'instances': [1,", 400,
     ["JSON Parse error", "offset"]),
    ("empty body", "POST", "/v1/models/raw:predict", b"", 400, ["JSON Parse error", "empty"]),
    ("not an object", "POST", "/v1/models/raw:predict", [1, 2], 400, ["Is not object"]),
    ("default signature missing", "POST", "/v1/models/raw:predict", {"instances": IRIS_ROWS},
     400, ['"serving_default" not found', "predict"]),
    ("no instances or inputs", "POST", "/v1/models/raw:predict", {"signature_name": "predict", "instance": []},
     400,
     ["Missing 'inputs' or 'instances'"]),
    ("both instances and inputs", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "instances": IRIS_ROWS, "inputs": {}}, 400, ["only one of"]),
    ("empty instances", "POST", "/v1/models/raw:predict", {"signature_name": "predict", "instances": []}, 400,
     ["No values in 'instances'"]),
    ("instances not a list", "POST", "/v1/models/raw:predict", {"signature_name": "predict", "instances": {"a": 1}},
     400,
     ["'instances'", "list"]),
    ("GET on :predict", "GET", "/v1/models/raw:predict", None, 400,
     ["Malformed request", "GET", "POST"]),
    ("POST on status", "POST", "/v1/models/raw", GOOD_RAW, 400,
     ["Malformed request", "POST", "GET"]),
    ("unknown path under /v1", "GET", "/v1/foo", None, 400, ["Malformed request"]),
    ("unknown path", "GET", "/healthz", None, 404, ["Not found"]),
    ("classify on a predict signature", "POST", "/v1/models/raw:classify",
     {"signature_name": "predict", "examples": IRIS_ROWS}, 400,
     ["tensorflow/serving/classify", "predict"]),
    ("body too large", "POST", "/v1/models/raw:predict",
     {"signature_name": "predict", "instances": [ROW] * 2000}, 413, ["too large", "--max_body_bytes", "65536"]),
]

IRIS_CASES = [
    ("malformed b64", "POST", "/v1/models/iris:predict",
     {"signature_name": "predict", "instances": [{"b64": "not*base64"}]}, 400,
     ["base64", "not*base64"]),
    ("b64 object with extra keys", "POST", "/v1/models/iris:predict",
     {"signature_name": "predict", "inputs": {"examples": [{"b64": "AA==", "x": 1}]}}, 400,
     ["b64"]),
    ("not an Example", "POST", "/v1/models/iris:predict",
     {"signature_name": "predict",
      "instances": [{"b64": base64.b64encode(b"\xff\xff\xff").decode()}]}, 400,
     ["Example"]),
    ("unknown feature", "POST", "/v1/models/iris:predict",
     {"instances": [dict(ROW, Color=1.0)]}, 400, ["unknown feature", "Color"]),
    ("required feature missing", "POST", "/v1/models/iris:classify",
     {"examples": [_without(ROW, "PetalWidth")]}, 400, ["PetalWidth", "required"]),
    ("feature of the wrong type", "POST", "/v1/models/iris:classify",
     {"examples": [dict(ROW, PetalWidth="wide")]}, 400, ["PetalWidth", "float", "wide", "example 0"]),
    ("too many values for a feature", "POST", "/v1/models/iris:classify",
     {"examples": [dict(ROW, PetalWidth=[1.0, 2.0])]}, 400, ["PetalWidth", "2 values"]),
    ("feature in context and example", "POST", "/v1/models/iris:classify",
     {"examples": [ROW], "context": {"PetalWidth": 1.0}}, 400, ["PetalWidth", "context"]),
    ("examples missing", "POST", "/v1/models/iris:classify", {"instances": [ROW]}, 400,
     ["'examples' is expected"]),
    ("empty examples", "POST", "/v1/models/iris:classify", {"examples": []}, 400,
     ["empty"]),
    ("regress on a classifier", "POST", "/v1/models/iris:regress", {"examples": [ROW]}, 400,
     ["tensorflow/serving/regress"]),
]


def _send(server: Server, method, path, body):
    if isinstance(body, bytes):
        return server.request(method, path, raw=body)
    return server.request(method, path, body)


@pytest.fixture(scope="module")
def small_body_server(exports):
    server = Server("raw", exports["raw_base"], "--max_body_bytes", "65536")
    yield server
    server.stop()


@pytest.mark.parametrize("case", RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_bad_request_to_raw_export(small_body_server, case):
    _, method, path, body, expected_status, words = case
    status, answer = _send(small_body_server, method, path, body)
    assert status == expected_status, answer
    assert set(answer) == {"error"}
    for word in words:
        assert word in answer["error"], (word, answer["error"])
    status, good = small_body_server.post("/v1/models/raw:predict", GOOD_RAW)
    assert status == 200 and len(good["predictions"]) == 2


@pytest.mark.parametrize("case", IRIS_CASES, ids=[c[0] for c in IRIS_CASES])
def test_bad_request_to_parsing_export(iris_server, case):
    _, method, path, body, expected_status, words = case
    status, answer = _send(iris_server, method, path, body)
    assert status == expected_status, answer
    for word in words:
        assert word in answer["error"], (word, answer["error"])
    status, good = iris_server.post("/v1/models/iris:classify", {"examples": IRIS_ROWS})
    assert status == 200 and len(good["results"]) == 3


def test_error_body_is_json_with_content_type(small_body_server):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(small_body_server.url + "/v1/models/nope", method="GET")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=30)
    assert info.value.code == 404
    assert info.value.headers["Content-Type"] == "application/json"
    assert "nope" in json.loads(info.value.read())["error"]
