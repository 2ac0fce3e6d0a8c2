"""The batch-1 fast paths give what the general ones give: `fast_call` (one serialized Example
straight into the export's features) against the signature's own call, and a `RestApp`
answering measured-cheap requests on the event loop against one answering on its threads."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch
from tests.serving._serving_testlib import (
    IRIS,
    IRIS_ROWS,
    asgi_request,
    burn_cpu,
    serialized_examples,
)

import torchestimator as tf
from torchestimator.serving import _app, _fast_call
from torchestimator.serving._app import RestApp
from torchestimator.serving._fast_call import fast_call
from torchestimator.serving._rest import RestApi
from torchestimator.serving._servable import load_export
from torchestimator.serving._versions import ModelVersions


def _same(fast: dict, general: dict) -> None:
    assert list(fast) == list(general)
    for key, value in general.items():
        got = fast[key]
        assert type(got) is type(value), key
        assert got.dtype == value.dtype and tuple(got.shape) == tuple(value.shape), key
        if isinstance(value, torch.Tensor):
            assert torch.equal(got, value), key
        else:
            assert (got == value).all(), key


@pytest.fixture(scope="module")
def iris(exports):
    return load_export(exports["iris_v2"])


@pytest.mark.parametrize("signature", ["predict", "serving_default", "classification"])
@pytest.mark.parametrize("row", range(len(IRIS_ROWS)))
def test_one_example_gives_the_general_paths_outputs(iris, signature, row):
    sig = iris.signatures[signature]
    (name,) = sig.inputs
    example = serialized_examples([IRIS_ROWS[row]])[0]
    for inputs in ({name: np.array([example], dtype=object)}, {name: [example]}):
        fast = fast_call(sig, inputs)
        assert fast is not None
        _same(fast, sig(**inputs))


@pytest.mark.parametrize("signature", ["predict", "classification"])
@pytest.mark.parametrize("rows", [2, 3, 8])
def test_a_few_examples_give_the_general_paths_outputs(iris, signature, rows):
    sig = iris.signatures[signature]
    (name,) = sig.inputs
    examples = serialized_examples([dict(IRIS_ROWS[i % 3], SepalLength=4.0 + i / 7)
                                    for i in range(rows)])
    for inputs in ({name: np.array(examples, dtype=object)}, {name: examples}):
        fast = fast_call(sig, inputs)
        assert fast is not None
        _same(fast, sig(**inputs))


def test_the_fast_path_reuses_nothing_between_calls(iris):
    sig = iris.signatures["predict"]
    first, second = serialized_examples(IRIS_ROWS[:2])
    a = fast_call(sig, {"examples": [first]})
    b = fast_call(sig, {"examples": [second]})
    assert not torch.equal(a["logits"], b["logits"])
    _same(a, sig(examples=[first]))


def _example(features: dict) -> bytes:
    example = tf.train.Example()
    for key, values in features.items():
        feature = example.features.feature[key]
        if values is None:
            continue  # present, of no kind
        if isinstance(values[0], float):
            feature.float_list.value.extend(values)
        else:
            feature.int64_list.value.extend(values)
    return example.SerializeToString()


ROW = {k: [float(v)] for k, v in IRIS_ROWS[0].items()}


@pytest.mark.parametrize("inputs", [
    {"examples": [_example(ROW)] * (_fast_call.MAX_FAST_EXAMPLES + 1)},  # too many Examples
    {"examples": np.array([_example(ROW)] * (_fast_call.MAX_FAST_EXAMPLES + 1), dtype=object)},
    {"examples": []},
    {"examples": [_example(ROW), _example(ROW).decode("latin-1")]},  # one of them a str
    {"examples": [_example(ROW), b"\xff\xff\xff"]},
    {"examples": [_example(ROW).decode("latin-1")]},  # str, not bytes
    {"examples": np.array([[_example(ROW)]], dtype=object)},  # [1, 1]
    {"examples": [_example({k: v for k, v in ROW.items() if k != IRIS[0]})]},  # missing
    {"examples": [_example({**ROW, IRIS[1]: [1, 2]})]},  # int64_list
    {"examples": [_example({**ROW, IRIS[2]: [1.0, 2.0]})]},  # two values
    {"examples": [_example({**ROW, IRIS[3]: None})]},  # no kind
    {"examples": [b"\xff\xff\xff"]},  # not an Example
    {"examples": torch.zeros(1)},
    {"examples": [_example(ROW)], "more": [b""]},
])
def test_anything_else_takes_the_general_path(iris, inputs):
    assert fast_call(iris.signatures["predict"], inputs) is None


def test_extra_features_in_the_example_are_ignored_as_parsing_does(iris):
    example = _example({**ROW, "unused": [3.0]})
    _same(fast_call(iris.signatures["predict"], {"examples": [example]}),
          iris.signatures["predict"](examples=[example]))


def test_an_export_with_a_raw_receiver_has_no_fast_path(exports):
    sig = load_export(exports["raw"]).signatures["predict"]
    inputs = {k: np.array([1.0], np.float32) for k in sig.inputs}
    assert fast_call(sig, inputs) is None
    assert fast_call(sig, {k: [b""] for k in sig.inputs}) is None


@pytest.fixture(scope="module")
def app(exports):
    models = ModelVersions("iris", exports["iris_base"], poll_seconds=0)
    models.start()
    executor = ThreadPoolExecutor(2)
    app = RestApp(RestApi({"iris": models}), executor, 1 << 20, timeout_seconds=10)
    yield app
    executor.shutdown()
    models.stop()


def _call(app: RestApp, path: str, body: bytes, method: str = "POST") -> tuple[int, bytes]:
    return asyncio.run(asgi_request(app, path, body, method))


def test_measured_cheap_requests_run_on_the_event_loop_with_the_same_answers(app, monkeypatch):
    path = "/v1/models/iris:predict"
    bodies = [json.dumps({"signature_name": "predict", "instances": [row]}).encode()
              for row in IRIS_ROWS]
    for _ in range(10):  # measured on the threads (the first calls cost more: warm-up)
        threaded = [_call(app, path, body) for body in bodies]
    assert app._inline("POST", path, bodies[0])
    ran_on = []
    handle = app._api.handle
    monkeypatch.setattr(app._api, "handle", lambda *a: ran_on.append(
        asyncio.get_running_loop() if _loop_running() else None) or handle(*a))
    inline = [_call(app, path, body) for body in bodies]
    assert inline == threaded and all(status == 200 for status, _ in inline)
    assert all(loop is not None for loop in ran_on)  # on the event loop's thread
    # a path that may load a version, a large body, and an unmeasured path take a thread
    assert not app._inline("POST", "/v1/models/iris/versions/2:predict", bodies[0])
    assert not app._inline("POST", path, b" " * (_app.INLINE_BODY_BYTES + 1))
    assert not app._inline("POST", "/v1/models/iris:classify", bodies[0])
    # more rows to the same path: another size class, measured on its own; expensive ones
    # (here made to burn 4 ms) leave the path's small requests on the loop
    bigger = json.dumps({"signature_name": "predict", "instances": IRIS_ROWS * 20}).encode()
    assert len(bigger).bit_length() != len(bodies[0]).bit_length()
    assert not app._inline("POST", path, bigger)

    monkeypatch.setattr(app._api, "handle", _slowed(handle))
    assert _call(app, path, bigger)[0] == 200
    assert not app._inline("POST", path, bigger)
    assert app._inline("POST", path, bodies[0])


def _slowed(handle):
    """`handle`, after burning 4x INLINE_CPU_SECONDS of CPU: a request measured expensive."""

    def slow(*args):
        burn_cpu(4 * _app.INLINE_CPU_SECONDS)
        return handle(*args)

    return slow


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False


def test_a_path_measured_expensive_goes_back_to_the_threads(app, monkeypatch):
    path = "/v1/models/iris"
    assert _call(app, path, b"", "GET")[0] == 200
    assert app._inline("GET", path, b"")
    monkeypatch.setattr(app._api, "handle", _slowed(app._api.handle))
    for _ in range(20):
        _call(app, path, b"", "GET")
        if not app._inline("GET", path, b""):
            break
    assert not app._inline("GET", path, b"")


@pytest.mark.parametrize("name", ["iris_v2", "regressor", "raw"])
def test_the_generated_program_gives_the_programs_outputs(exports, name):
    runtime = load_export(exports[name])._runtime
    run = _fast_call._runtime_run(runtime)
    assert run is not None
    torch.manual_seed(0)
    features = {k: torch.randn_like(v) if isinstance(v, torch.Tensor) and v.is_floating_point()
                else v for k, v in runtime.receiver.sample_features(3).items()}
    expected, got = runtime.run(features), run(features)
    assert list(got) == list(expected)
    for key, value in expected.items():
        assert value.dtype == got[key].dtype and torch.equal(value, got[key]), key


def test_a_signature_parsing_a_string_feature_has_no_fast_path(exports):
    sig = load_export(exports["regressor"]).signatures["predict"]
    (name,) = sig.inputs
    assert _fast_call._plan_of(sig) is None
    assert fast_call(sig, {name: [b""]}) is None


def test_a_body_in_chunks_is_read_and_a_stalled_one_times_out(exports):
    """The body's read timeout (no task per message) still answers 408 to a stalled body."""
    models = ModelVersions("iris", exports["iris_base"], poll_seconds=0)
    models.start()
    executor = ThreadPoolExecutor(1)
    app = RestApp(RestApi({"iris": models}), executor, 1 << 20, body_timeout_seconds=0.3)
    body = json.dumps({"signature_name": "predict", "instances": IRIS_ROWS[:1]}).encode()
    scope = {"type": "http", "method": "POST", "path": "/v1/models/iris:predict",
             "headers": [(b"content-length", str(len(body)).encode())]}

    def answer(stall: bool) -> tuple[int, float]:
        chunks = [body[:10], body[10:]]
        sent: list = []

        async def receive():
            if len(chunks) == 1:
                await asyncio.sleep(5 if stall else 0.01)
            more = len(chunks) > 1
            return {"type": "http.request", "body": chunks.pop(0), "more_body": more}

        async def send(message):
            sent.append(message)

        started = time.perf_counter()
        asyncio.run(app(scope, receive, send))
        return sent[0]["status"], time.perf_counter() - started

    try:
        assert answer(stall=False)[0] == 200
        status, took = answer(stall=True)
        assert status == 408 and took < 3
    finally:
        executor.shutdown()
        models.stop()


def _crafted_program(kwargs: dict, const: object):
    """A program object shaped as a loaded export's (graph, signature, weights) whose one op
    node carries the given keyword arguments and constant: what a crafted export could put
    into the graph that `program_runner` turns into code."""
    from types import SimpleNamespace

    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    node = graph.call_function(torch.ops.aten.add.Tensor, (x, const), kwargs)
    graph.output((node,))
    spec = SimpleNamespace(kind=SimpleNamespace(name="USER_INPUT"), target=None)
    return SimpleNamespace(graph_module=SimpleNamespace(graph=graph),
                           graph_signature=SimpleNamespace(input_specs=[spec]),
                           state_dict={}, constants={})


def test_a_crafted_graph_runs_none_of_its_text_as_code(tmp_path):
    # the generated code names only its own variables: a keyword argument's name that is not a
    # plain identifier refuses the program, and a string or float value is bound, never written
    # into the source
    marker = tmp_path / "ran"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    assert _fast_call.program_runner(_crafted_program({f"alpha=1, b={payload}, c": 1}, 1.0)) is None
    assert _fast_call.program_runner(_crafted_program({"lambda": 1}, 1.0)) is None
    run = _fast_call.program_runner(_crafted_program({}, payload))
    assert run is not None
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor'"):
        run(torch.ones(1))  # the string reached the kernel as a value
    run = _fast_call.program_runner(_crafted_program({"alpha": 2}, 1.5))
    assert run(torch.ones(1))[0].tolist() == [4.0]
    assert not marker.exists()
