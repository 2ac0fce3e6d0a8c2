"""TF Serving's REST API, end to end: a real export, `torchestimator serve`, real HTTP."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from _serving_testlib import IRIS, IRIS_ROWS, keep_alive_connection, load, serialized_examples

# Not marked slow: the default run starts one real server (the session builds the exports once).


def _b64(data: bytes) -> dict:
    return {"b64": base64.b64encode(data).decode()}


def _close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64),
                               np.asarray(expected, dtype=np.float64), rtol=tol, atol=tol)


@pytest.fixture(scope="module")
def iris_v2(exports):
    return load(exports["iris_v2"])


@pytest.fixture(scope="module")
def expected_v2(iris_v2):
    return iris_v2.signatures["predict"](examples=serialized_examples(IRIS_ROWS))


def test_model_status_lists_the_served_version(iris_server):
    status, body = iris_server.get("/v1/models/iris")
    assert status == 200
    assert {"version": "2", "state": "AVAILABLE",
            "status": {"error_code": "OK", "error_message": ""}} in body["model_version_status"]
    status, body = iris_server.get("/v1/models/iris/versions/2")
    assert status == 200
    assert body == {"model_version_status": [
        {"version": "2", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]}


def test_metadata_has_tf_serving_signature_defs(iris_server, iris_v2):
    status, body = iris_server.get("/v1/models/iris/metadata")
    assert status == 200
    assert body["model_spec"] == {"name": "iris", "signature_name": "", "version": "2"}
    defs = body["metadata"]["signature_def"]["signature_def"]
    assert set(defs) == set(iris_v2.signatures)
    predict = defs["predict"]
    assert predict["method_name"] == "tensorflow/serving/predict"
    assert predict["inputs"]["examples"]["dtype"] == "DT_STRING"
    assert predict["inputs"]["examples"]["tensor_shape"] == {
        "dim": [{"size": "-1", "name": ""}], "unknown_rank": False}
    assert predict["outputs"]["probabilities"]["dtype"] == "DT_FLOAT"
    assert predict["outputs"]["probabilities"]["tensor_shape"]["dim"][1]["size"] == "3"
    assert defs["serving_default"]["method_name"] == "tensorflow/serving/classify"


def test_predict_row_format_with_b64_examples(iris_server, expected_v2):
    instances = [_b64(e) for e in serialized_examples(IRIS_ROWS)]
    status, body = iris_server.post("/v1/models/iris:predict",
                                    {"signature_name": "predict", "instances": instances})
    assert status == 200, body
    predictions = body["predictions"]
    assert len(predictions) == 3
    assert set(predictions[0]) == set(expected_v2)
    _close([p["probabilities"] for p in predictions], expected_v2["probabilities"])
    assert [p["class_ids"] for p in predictions] == expected_v2["class_ids"].tolist()
    assert [p["classes"] for p in predictions] == [
        [c.decode() for c in row] for row in expected_v2["classes"].tolist()]


def test_predict_row_format_named_input(iris_server, expected_v2):
    instances = [{"examples": _b64(e)} for e in serialized_examples(IRIS_ROWS)]
    status, body = iris_server.post("/v1/models/iris:predict",
                                    {"signature_name": "predict", "instances": instances})
    assert status == 200, body
    _close([p["logits"] for p in body["predictions"]], expected_v2["logits"])


def test_predict_columnar_format(iris_server, expected_v2):
    examples = [_b64(e) for e in serialized_examples(IRIS_ROWS)]
    status, body = iris_server.post("/v1/models/iris:predict",
                                    {"signature_name": "predict", "inputs": {"examples": examples}})
    assert status == 200, body
    outputs = body["outputs"]
    assert set(outputs) == set(expected_v2)
    _close(outputs["probabilities"], expected_v2["probabilities"])
    # a single input may be given without its name
    status, body = iris_server.post("/v1/models/iris:predict",
                                    {"signature_name": "predict", "inputs": examples})
    assert status == 200, body
    _close(body["outputs"]["logits"], expected_v2["logits"])


def test_predict_plain_feature_dicts(iris_server, expected_v2):
    """Beyond TF Serving: a parsing export takes the features themselves."""
    status, body = iris_server.post("/v1/models/iris:predict",
                                    {"signature_name": "predict", "instances": IRIS_ROWS})
    assert status == 200, body
    _close([p["probabilities"] for p in body["predictions"]], expected_v2["probabilities"])
    columns = {k: [row[k] for row in IRIS_ROWS] for k in IRIS}
    status, body = iris_server.post("/v1/models/iris:predict",
                                    {"signature_name": "predict", "inputs": columns})
    assert status == 200, body
    _close(body["outputs"]["probabilities"], expected_v2["probabilities"])


def test_predict_default_signature_is_the_classification_one(iris_server, expected_v2):
    status, body = iris_server.post("/v1/models/iris:predict", {"instances": IRIS_ROWS})
    assert status == 200, body
    first = body["predictions"][0]
    assert set(first) == {"classes", "scores"}
    assert first["classes"] == ["0", "1", "2"]
    _close([p["scores"] for p in body["predictions"]], expected_v2["probabilities"])


def test_classify(iris_server, expected_v2):
    status, body = iris_server.post("/v1/models/iris:classify", {"examples": IRIS_ROWS})
    assert status == 200, body
    results = body["results"]
    assert len(results) == 3
    for result, probabilities in zip(results, expected_v2["probabilities"].tolist()):
        assert [label for label, _ in result] == ["0", "1", "2"]
        _close([score for _, score in result], probabilities)


def test_classify_with_context(iris_server, expected_v2):
    shared = {"SepalWidth": 3.0}
    rows = [dict(row, SepalWidth=3.0) for row in IRIS_ROWS]
    examples = [{k: v for k, v in row.items() if k != "SepalWidth"} for row in rows]
    status, body = iris_server.post("/v1/models/iris:classify",
                                    {"examples": examples, "context": shared})
    assert status == 200, body
    status, plain = iris_server.post("/v1/models/iris:classify", {"examples": rows})
    assert status == 200
    assert body == plain


def test_regress(regressor_server, exports):
    loaded = load(exports["regressor"])
    rows = [{"x": 1.5, "kind": "a"}, {"x": 4.5, "kind": "c"}, {"x": 6.0, "kind": "b"}]
    expected = loaded.signatures["regression"](inputs=serialized_examples(rows))["outputs"]
    status, body = regressor_server.post("/v1/models/reg:regress", {"examples": rows})
    assert status == 200, body
    _close(body["results"], np.asarray(expected).reshape(-1))
    # string features may come as {"b64": ...} too, and shared ones in the context
    examples = [{"x": 1.5}, {"x": 4.5}]
    status, body = regressor_server.post(
        "/v1/models/reg:regress",
        {"examples": examples, "context": {"kind": _b64(b"a")}})
    assert status == 200, body
    expected = loaded.signatures["regression"](
        inputs=serialized_examples([{"x": 1.5, "kind": "a"}, {"x": 4.5, "kind": "a"}]))["outputs"]
    _close(body["results"], np.asarray(expected).reshape(-1))


def test_regressor_predict_with_string_feature_dicts(regressor_server, exports):
    loaded = load(exports["regressor"])
    rows = [{"x": 2.0, "kind": "b"}, {"x": 3.0, "kind": "zzz"}]  # out of vocabulary: still served
    expected = loaded.signatures["predict"](examples=serialized_examples(rows))
    status, body = regressor_server.post("/v1/models/reg:predict",
                                         {"signature_name": "predict", "instances": rows})
    assert status == 200, body
    assert list(expected) == ["predictions"]  # one output: TF Serving drops its name
    _close(body["predictions"], expected["predictions"])


def test_raw_receiver_row_and_columnar(raw_server, exports):
    loaded = load(exports["raw"])
    # as in TF, a raw receiver gets no classification signature, so no serving_default
    assert sorted(loaded.signatures) == ["predict"]
    columns = {k: np.asarray([row[k] for row in IRIS_ROWS], np.float32) for k in IRIS}
    expected = loaded.signatures["predict"](**columns)
    status, body = raw_server.post("/v1/models/raw:predict",
                                   {"signature_name": "predict", "instances": IRIS_ROWS})
    assert status == 200, body
    _close([p["probabilities"] for p in body["predictions"]], expected["probabilities"])
    status, body = raw_server.post(
        "/v1/models/raw:predict",
        {"signature_name": "predict", "inputs": {k: v.tolist() for k, v in columns.items()}})
    assert status == 200, body
    _close(body["outputs"]["probabilities"], expected["probabilities"])
    assert body["outputs"]["classes"] == [[c.decode() for c in row]
                                          for row in expected["classes"].tolist()]


def test_versions_are_discovered_and_selectable(iris_server, exports, expected_v2):
    v1 = load(exports["iris_v1"]).signatures["predict"](examples=serialized_examples(IRIS_ROWS))
    body = {"signature_name": "predict", "instances": IRIS_ROWS}
    status, latest = iris_server.post("/v1/models/iris:predict", body)
    assert status == 200
    status, pinned_2 = iris_server.post("/v1/models/iris/versions/2:predict", body)
    assert status == 200 and pinned_2 == latest
    status, old = iris_server.post("/v1/models/iris/versions/1:predict", body)
    assert status == 200, old
    _close([p["logits"] for p in old["predictions"]], v1["logits"])
    _close([p["logits"] for p in latest["predictions"]], expected_v2["logits"])
    assert not np.allclose(v1["logits"], expected_v2["logits"])
    status, meta = iris_server.get("/v1/models/iris/versions/1/metadata")
    assert status == 200 and meta["model_spec"]["version"] == "1"
    status, listing = iris_server.get("/v1/models/iris")
    assert [v["version"] for v in listing["model_version_status"]] == ["1", "2"]


def test_paths_are_case_insensitive_as_tf_serving(iris_server):
    status, body = iris_server.post("/V1/MODELS/iris:PREDICT",
                                    {"signature_name": "predict", "instances": IRIS_ROWS[:1]})
    assert status == 200, body


def test_keep_alive_connection_serves_many_requests(iris_server):
    connection = keep_alive_connection(iris_server)
    body = json.dumps({"signature_name": "predict", "instances": IRIS_ROWS[:1]})
    try:
        for _ in range(50):
            connection.request("POST", "/v1/models/iris:predict", body=body,
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            assert response.status == 200
            assert response.getheader("Content-Type") == "application/json"
            assert "predictions" in json.loads(response.read())
    finally:
        connection.close()
