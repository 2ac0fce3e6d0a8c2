"""TensorFlow Serving's REST API over loaded exports, independent of the HTTP server.

`RestApi.handle(method, path, body)` answers one request with an HTTP status
and a JSON body, as TF Serving's `http_rest_api_handler.cc` does:

    GET  /v1/models/NAME[/versions/N]            model status
    GET  /v1/models/NAME[/versions/N]/metadata   signature defs
    POST /v1/models/NAME[/versions/N]:predict    {"instances": ...} | {"inputs": ...}
    POST /v1/models/NAME[/versions/N]:classify   {"examples": [...], "context": {...}}
    POST /v1/models/NAME[/versions/N]:regress    the same

Paths match case-insensitively, as TF Serving's. Any failure is answered
`{"error": "<message>"}` with 400 (a bad request: malformed JSON, a lone
surrogate, an integer too long to convert, nesting past `MAX_JSON_DEPTH`),
404 (an unknown model, version or path), 413 (more rows than `max_rows`, an
answer over `max_response_bytes`), 504 (the request's deadline passed: its
work stops at the next step) or 500 (the model failed), and the server
carries on. `:predict` answers are written from whole arrays (`_json_out`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Generator, Mapping
from typing import Any

import numpy as np

from torchestimator.serving._errors import RequestError, not_found, shorten
from torchestimator.serving._examples import examples_from_json
from torchestimator.serving._features import check_columns, feature_columns
from torchestimator.serving._json_out import columnar_json, row_json, too_large
from torchestimator.serving._json_tensor import (
    decode_input,
    float32_for_json,
    is_b64_object,
    json_type,
    spec_dtype_name,
    to_numpy,
)
from torchestimator.serving._limits import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_ROWS
from torchestimator.serving._model_calls import (
    ModelCall,
    RunAlone,
    check_deadline,
    run_steps,
    run_steps_async,
)
from torchestimator.serving._versions import ModelRegistry, ModelVersions, Servable

_LOG = logging.getLogger("torchestimator.serving")

_PREDICTION = re.compile(
    r"/v1/models/([^/:]+)(?:/versions/(\d+)|/labels/([^/:]+))?:(classify|regress|predict)",
    re.IGNORECASE)
_STATUS = re.compile(
    r"/v1/models(?:/([^/:]+))?(?:/versions/(\d+)|/labels/([^/:]+))?(/metadata)?",
    re.IGNORECASE)
DEFAULT_SIGNATURE = "serving_default"
MAX_JSON_DEPTH = 100  # nesting levels of arrays/objects a request body may have
CLASSIFY_METHOD = "tensorflow/serving/classify"
REGRESS_METHOD = "tensorflow/serving/regress"
_TF_DTYPES = {
    "float16": "DT_HALF", "bfloat16": "DT_BFLOAT16", "float32": "DT_FLOAT",
    "float64": "DT_DOUBLE", "int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32",
    "int64": "DT_INT64", "uint8": "DT_UINT8", "uint16": "DT_UINT16", "uint32": "DT_UINT32",
    "uint64": "DT_UINT64", "bool": "DT_BOOL", "string": "DT_STRING",
    "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128",
}


class RestApi:
    """Answers TF Serving REST requests for `models` (model name -> ModelVersions).

    A request with more than `max_rows` instances/examples (None: no limit) or whose
    answer would exceed `max_response_bytes` (None: no limit) is refused with 413. A
    `ModelRegistry` is kept (not copied): a reloaded model config changes the models served.
    With a `batcher` (`--enable_batching`), signatures run through `Batcher.call`.
    """

    def __init__(self, models: Mapping[str, ModelVersions], *,
                 max_rows: int | None = DEFAULT_MAX_ROWS,
                 max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
                 batcher: Any = None):
        self._models = models if isinstance(models, ModelRegistry) else dict(models)
        self._max_rows = max_rows
        self._max_response_bytes = max_response_bytes
        self._batcher = batcher

    # ------------------------------------------------------------------------ dispatch
    def handle(self, method: str, path: str, body: bytes, deadline: float | None = None,
               ran: list[str] | None = None) -> tuple[int, bytes]:
        """Answers one request on this thread: returns (HTTP status, JSON body bytes). Past
        `deadline` (a `time.monotonic()` value) the work stops at its next step with a 504.
        The names of the signatures run are appended to `ran` (when given)."""
        try:
            check_deadline(deadline)
            payload = run_steps(self._dispatch(method.upper(), path, body, deadline),
                                self._batcher, ran)
        except Exception as error:  # noqa: BLE001 - the server answers, then keeps serving
            return _failure(method, path, error)
        return 200, _json_bytes(payload)

    async def handle_async(self, method: str, path: str, body: bytes, deadline: float | None,
                           run_alone: RunAlone, ran: list[str] | None = None
                           ) -> tuple[int, bytes]:
        """`handle` on the running event loop, for a small request: its model calls wait for
        their batch without holding a thread (`Batcher.submit`), and a call the batcher does
        not take (or any, without a batcher) is awaited from `run_alone`."""
        try:
            check_deadline(deadline)
            payload = await run_steps_async(self._dispatch(method.upper(), path, body, deadline),
                                            self._batcher, run_alone, ran)
        except Exception as error:  # noqa: BLE001 - the server answers, then keeps serving
            return _failure(method, path, error)
        return 200, _json_bytes(payload)

    def _dispatch(self, method: str, path: str, body: bytes,
                  deadline: float | None = None) -> Generator[ModelCall, Any, dict | bytes]:
        """The request's answer (a JSON-able dict, or JSON bytes), as a generator of the model
        calls it needs (see `_model_calls`)."""
        prediction = _PREDICTION.fullmatch(path)
        status = None if prediction else _STATUS.fullmatch(path)
        if prediction is not None:
            if method != "POST":
                raise RequestError(
                    f"Malformed request: {method} {path}; :{prediction.group(4).lower()} takes "
                    "POST with a JSON body")
            name, version, label, verb = prediction.groups()
            # (held until answered: a version being replaced is unloaded after its requests)
            with self._model(name, _version(version)).use(_version(version), label) as servable:
                document = _parse_json(body)
                check_deadline(deadline)
                verb = verb.lower()
                if verb == "predict":
                    return (yield from self._predict(servable, document, deadline))
                return (yield from self._classify_or_regress(servable, document, verb,
                                                             deadline))
        if status is not None:
            name, version, label, metadata = status.groups()
            if method != "GET":
                raise RequestError(
                    f"Malformed request: {method} {path}; the model "
                    f"{'metadata' if metadata else 'status'} API takes GET (POST is for "
                    ":predict, :classify and :regress)")
            if not name:
                raise RequestError("Missing model name in request: GET /v1/models/NAME")
            models = self._model(name, _version(version))
            number = models.label_version(label) if label is not None else _version(version)
            if metadata:
                return _metadata(name, models.get(number))
            return {"model_version_status": models.status(number)}
        if path.lower().startswith("/v1/"):
            raise RequestError(
                f"Malformed request: {method} {path}; the API is GET /v1/models/NAME"
                "[/versions/N][/metadata] and POST /v1/models/NAME[/versions/N]:"
                "(predict|classify|regress)")
        raise not_found(f"Not found: {method} {path}; TensorFlow Serving's REST API is under "
                        "/v1/models/NAME")

    def _model(self, name: str, version: int | None = None) -> ModelVersions:
        try:
            return self._models[name]
        except KeyError:
            wanted = f"Latest({name})" if version is None else f"Specific({name}, {version})"
            raise not_found(f"Servable not found for request: {wanted}; this server serves "
                            f"model(s) {sorted(self._models)}") from None

    def _check_rows(self, rows: int, what: str) -> None:
        """413 when a request holds more than max_rows rows."""
        if self._max_rows is not None and rows > self._max_rows:
            raise RequestError(
                f"Too many rows: the request has {rows} {what}, over the server's limit of "
                f"{self._max_rows} per request (--max_request_rows); split it into requests of "
                f"at most {self._max_rows}", 413)

    def _check_answer(self, results: Any) -> bytes:
        """The JSON of a classify/regress answer; 413 when over max_response_bytes."""
        text = json.dumps(results, allow_nan=True, ensure_ascii=False).encode(
            "utf-8", "backslashreplace")
        if self._max_response_bytes is not None and len(text) > self._max_response_bytes:
            raise too_large(len(text), self._max_response_bytes, exact=True)
        return text

    # ------------------------------------------------------------------------- predict
    def _predict(self, servable: Servable, document: dict,
                 deadline: float | None = None) -> Generator[ModelCall, Any, bytes]:
        signature_name = _signature_name(document)
        signature = servable.signature(signature_name)
        has_instances, has_inputs = "instances" in document, "inputs" in document
        if has_instances and has_inputs:
            raise RequestError("Not formatted correctly: expecting only one of 'inputs' or "
                               "'instances' keys to exist, got both")
        if not has_instances and not has_inputs:
            raise RequestError("Missing 'inputs' or 'instances' key: a :predict body is "
                               '{"instances": [...]} (row format) or {"inputs": ...} (columnar)')
        names = list(signature.inputs)
        if not names:
            raise RequestError("Failed to get input map for signature: the signature has no inputs")
        if has_instances:
            instances = document["instances"]
            if not isinstance(instances, list):
                raise RequestError(f"Expecting 'instances' to be an list/array; got "
                                   f"{json_type(instances)}")
            if not instances:
                raise RequestError("No values in 'instances' array")
            self._check_rows(len(instances), "instances")
            first = instances[0]
            if _is_object(first) and self._takes_features(servable, signature, first):
                columns = feature_columns(instances, None, servable.feature_spec, "instances",
                                          strict=True)
                outputs = yield ModelCall(servable, signature_name, signature, columns,
                                          deadline, True)
            else:
                arrays = _instances_to_arrays(instances, names, signature.inputs)
                outputs = yield ModelCall(servable, signature_name, signature, arrays, deadline)
            check_deadline(deadline)
            return row_json(outputs, self._max_response_bytes)
        inputs = document["inputs"]
        self._check_rows(_columnar_rows(inputs), "rows in 'inputs'")
        if _is_object(inputs) and self._takes_features(servable, signature, inputs):
            check_columns(inputs, servable.feature_spec)
            outputs = yield ModelCall(servable, signature_name, signature, inputs, deadline,
                                      True)
        else:
            arrays = _inputs_to_arrays(inputs, names, signature.inputs)
            outputs = yield ModelCall(servable, signature_name, signature, arrays, deadline)
        check_deadline(deadline)
        return columnar_json(outputs, self._max_response_bytes)

    @staticmethod
    def _takes_features(servable: Servable, signature: Any, obj: dict) -> bool:
        """True when `obj` holds features rather than the signature's named inputs: the
        export parses Examples and the keys are not the signature's input names."""
        return servable.feature_spec is not None and not set(obj) & set(signature.inputs)

    # --------------------------------------------------------------- classify, regress
    def _classify_or_regress(self, servable: Servable, document: dict, verb: str,
                             deadline: float | None = None
                             ) -> Generator[ModelCall, Any, bytes]:
        name = _signature_name(document)
        signature = servable.signature(name)
        expected = CLASSIFY_METHOD if verb == "classify" else REGRESS_METHOD
        method = getattr(signature, "method_name", "")
        if method != expected:
            kind = "classification" if verb == "classify" else "regression"
            others = sorted(k for k, s in servable.signatures.items()
                            if getattr(s, "method_name", "") == expected)
            hint = (f'; give "signature_name" one of {others}' if others
                    else f"; this export has no {kind} signature")
            raise RequestError(f"Expected {kind} signature method_name to be {expected}. Was: "
                               f"{method} (signature {name!r}){hint}")
        if "examples" not in document:
            raise RequestError(f"When method is {verb}, key 'examples' is expected and was not "
                               "found")
        examples = document["examples"]
        if not isinstance(examples, list):
            raise RequestError(f"Expecting 'examples' value to be an list/array; got "
                               f"{json_type(examples)}")
        if not examples:
            raise RequestError("'examples' value is an empty array")
        self._check_rows(len(examples), "examples")
        context = document.get("context")
        if servable.feature_spec is not None:
            columns = feature_columns(examples, context, servable.feature_spec, "examples",
                                      strict=False)
            outputs = yield ModelCall(servable, name, signature, columns, deadline, True)
        else:
            outputs = yield ModelCall(servable, name, signature,
                                      _serialized_examples(signature, examples, context),
                                      deadline)
        check_deadline(deadline)
        if verb == "classify":
            return self._check_answer({"results": _classification_results(outputs,
                                                                          len(examples))})
        return self._check_answer({"results": _regression_results(outputs, len(examples))})


# --------------------------------------------------------------------------- helpers
def _failure(method: str, path: str, error: Exception) -> tuple[int, bytes]:
    """The answer to a request that failed: a RequestError's status and message; any other
    error is logged and answered 500."""
    if isinstance(error, RequestError):
        return error.status, _json_bytes({"error": error.message})
    _LOG.error("Request %s %s failed", method, path, exc_info=error)
    return 500, _json_bytes({"error": f"Internal error: {type(error).__name__}: {error}"})


def _json_bytes(payload: dict | bytes) -> bytes:
    if isinstance(payload, bytes):
        return payload
    return json.dumps(payload, allow_nan=True, ensure_ascii=False).encode(
        "utf-8", "backslashreplace")


def _metadata(name: str, servable: Servable) -> dict:
    """TF Serving's GetModelMetadataResponse: the model spec and every signature def."""
    signature_def = {
        key: {
            "inputs": {k: _tensor_info(k, s) for k, s in sig.inputs.items()},
            "outputs": {k: _tensor_info(k, s) for k, s in sig.outputs.items()},
            "method_name": getattr(sig, "method_name", ""),
        }
        for key, sig in servable.signatures.items()
    }
    return {
        "model_spec": {"name": name, "signature_name": "", "version": str(servable.version)},
        "metadata": {"signature_def": {"signature_def": signature_def}},
    }


def _version(text: str | None) -> int | None:
    if text is None:
        return None
    version = int(text)
    if version > 2**63 - 1:
        raise RequestError(f"Failed to convert version: {text} to numeric (int64)")
    return version


def _too_deep() -> RequestError:
    return RequestError(
        f"JSON Parse error: the document nests arrays/objects deeper than the server's limit of "
        f"{MAX_JSON_DEPTH} levels; send tensors of lower rank")


def _depth(body: bytes) -> int:
    """How deep the arrays/objects of the valid JSON `body` nest (brackets outside strings,
    counted with numpy; json.loads also takes UTF-16/32, counted once re-encoded)."""
    if not json.detect_encoding(body).startswith("utf-8"):
        body = body.decode(json.detect_encoding(body)).encode("utf-8")
    codes = np.frombuffer(body, np.uint8)
    steps = ((codes == 91).view(np.int8) + (codes == 123).view(np.int8)
             - (codes == 93).view(np.int8) - (codes == 125).view(np.int8))
    quotes = _string_quotes(codes)
    if quotes.size:
        inside = np.zeros(codes.size + 1, np.int8)
        inside[quotes[0::2]] += 1
        inside[quotes[1::2]] -= 1
        steps[np.cumsum(inside[:-1], dtype=np.int8).view(bool)] = 0
    return _max_prefix_sum(steps)


_BLOCK = 16384  # prefix sums within a block fit int16, five times faster than int64 ones


def _max_prefix_sum(steps: np.ndarray) -> int:
    """max(0, the largest prefix sum of the +1/0/-1 int8 `steps`), by blocks."""
    padded = np.zeros(-(-steps.size // _BLOCK) * _BLOCK, np.int8)
    padded[:steps.size] = steps
    within = np.cumsum(padded.reshape(-1, _BLOCK), axis=1, dtype=np.int16)
    ends = within[:, -1].astype(np.int64)
    starts = np.cumsum(ends) - ends
    return int(max(0, (starts + within.max(axis=1)).max(initial=0)))


def _string_quotes(codes: np.ndarray) -> np.ndarray:
    """Positions of the quotes that open and close JSON strings (not the escaped ones)."""
    quotes = np.flatnonzero(codes == 34)
    slashes = np.flatnonzero(codes == 92)
    if not slashes.size or not quotes.size:
        return quotes
    breaks = np.flatnonzero(np.diff(slashes) != 1)
    ends = np.append(slashes[breaks], slashes[-1])  # last backslash of each run
    starts = np.insert(slashes[breaks + 1], 0, slashes[0])
    odd = ends[((ends - starts + 1) % 2 == 1) & (ends + 1 < codes.size)]
    escaped = odd[codes[odd + 1] == 34] + 1
    return np.setdiff1d(quotes, escaped, assume_unique=True)


_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")  # escaped or raw (CESU)


def _loads(body: bytes) -> Any:
    """The JSON document in `body` (NaN/Infinity read as TF Serving reads them, UTF-16/32
    bodies taken); a 400 RequestError for a malformed body, never another exception. (The
    standard library's parser: it stops at ~1000 levels with a RecursionError, where a
    faster one, orjson, overflows a thread's stack.)"""
    try:
        document = json.loads(body)
    except json.JSONDecodeError as error:
        raise RequestError(f"JSON Parse error: {error.msg} at offset: {error.pos}") from None
    except UnicodeDecodeError as error:
        raise RequestError(f"JSON Parse error: the body is not UTF-8 text ({error})") from None
    except RecursionError:
        raise _too_deep() from None
    except ValueError as error:  # an integer past Python's int-string conversion limit
        raise RequestError(
            f"JSON Parse error: a number is too long to convert ({error}); numbers are at most "
            "4300 digits, and tensors take 64-bit values") from None
    if (_SURROGATE.search(body) or not json.detect_encoding(body).startswith("utf-8")) and \
            _has_lone_surrogate(document):
        raise RequestError("JSON Parse error: a string holds a lone UTF-16 surrogate (such as "
                           '"\\ud800"), which is not a Unicode character; send valid UTF-8 text')
    return document


def _has_lone_surrogate(document: Any) -> bool:
    """True when a string (or object key) in `document` is not valid Unicode."""
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value)
            stack.extend(value.values())
    return False


def _parse_json(body: bytes) -> dict:
    if not body:
        raise RequestError("JSON Parse error: The document is empty")
    document = _loads(body)
    if body.count(b"[") + body.count(b"{") > MAX_JSON_DEPTH and _depth(body) > MAX_JSON_DEPTH:
        raise _too_deep()  # (only a body with that many brackets can be that deep)
    if not isinstance(document, dict):
        raise RequestError(f"JSON Value: {shorten(document)} Is not object; the body must be a "
                           "JSON object")
    return document


def _signature_name(document: dict) -> str:
    name = document.get("signature_name", DEFAULT_SIGNATURE)
    if not isinstance(name, str):
        raise RequestError(f"JSON Value: {shorten(name)} not formatted correctly. "
                           "'signature_name' key must be a string value.")
    return name or DEFAULT_SIGNATURE


def _is_object(value: Any) -> bool:
    return isinstance(value, dict) and not is_b64_object(value)


def _instances_to_arrays(instances: list, names: list[str], specs: Mapping[str, Any]
                         ) -> dict[str, np.ndarray]:
    if _is_object(instances[0]):
        expected = set(names)
        for index, instance in enumerate(instances):
            if not _is_object(instance):
                raise RequestError(f"Expecting object but got {json_type(instance)} at item "
                                   f"{index} of 'instances' list")
            if instance.keys() != expected:
                missing = sorted(expected - instance.keys())
                extra = sorted(instance.keys() - expected)
                what = "; ".join(filter(None, [
                    f"missing input(s) {missing}" if missing else "",
                    f"extra input(s) {extra}" if extra else ""]))
                raise RequestError(
                    f"Failed to process element: {index} of 'instances' list: {what}; keys must "
                    f"be equal to the signature's inputs: {','.join(sorted(names))}")
        columns = {n: [instance[n] for instance in instances] for n in names}
    else:
        if len(names) > 1:
            raise RequestError(
                "instances is a plain list, but expecting list of objects as multiple input "
                f"tensors required as per the signature: {','.join(sorted(names))}")
        for index, instance in enumerate(instances):
            if _is_object(instance):
                raise RequestError(f"Expecting value/list but got object at item {index} of "
                                   "'instances' list")
        columns = {names[0]: instances}
    return {n: decode_input(columns[n], n, specs[n]) for n in names}


def _inputs_to_arrays(inputs: Any, names: list[str], specs: Mapping[str, Any]
                      ) -> dict[str, np.ndarray]:
    if not _is_object(inputs):
        if len(names) > 1:
            raise RequestError(
                "inputs is a plain value/list, but expecting an object as multiple input tensors "
                f"required as per the signature: {','.join(sorted(names))}")
        return {names[0]: decode_input(inputs, names[0], specs[names[0]])}
    missing = [n for n in names if n not in inputs]
    if missing:
        raise RequestError(f"Missing named input: {missing[0]} in 'inputs' object; the "
                           f"signature's inputs are {sorted(names)}")
    extra = sorted(k for k in inputs if k not in specs)
    if extra:
        raise RequestError(f"Unknown named input(s) {extra} in 'inputs' object; the signature's "
                           f"inputs are {sorted(names)}")
    return {n: decode_input(inputs[n], n, specs[n]) for n in names}


def _columnar_rows(inputs: Any) -> int:
    """The number of rows in a columnar `inputs` value: the longest leading dimension."""
    if isinstance(inputs, list):
        return len(inputs)
    if _is_object(inputs):
        return max((len(v) for v in inputs.values() if isinstance(v, list)), default=0)
    return 0


def _serialized_examples(signature: Any, examples: list, context: Any) -> dict[str, np.ndarray]:
    """The signature's one string input as serialized tf.train.Examples built from JSON (for an
    export whose feature spec is not known to the server)."""
    names = list(signature.inputs)
    if len(names) != 1 or spec_dtype_name(signature.inputs[names[0]]) != "string":
        raise RequestError(f"the signature takes {names}, not one batch of serialized "
                           "tf.train.Examples, so it cannot :classify or :regress")
    return {names[0]: examples_from_json(examples, context)}


def _classification_results(outputs: Mapping[str, Any], n: int) -> list:
    classes = outputs.get("classes")
    scores = outputs.get("scores")
    if classes is None and scores is None:
        raise RequestError("the classification signature returned neither 'classes' nor "
                           f"'scores' (outputs: {sorted(outputs)})", 500)
    score_rows = None if scores is None else float32_for_json(
        to_numpy(scores).astype(np.float32).reshape(n, -1)).tolist()
    if classes is None:
        label_rows = [[""] * len(row) for row in score_rows]
    else:
        labels = to_numpy(classes).reshape(n, -1)
        label_rows = [[_label(v) for v in row] for row in labels.tolist()]
    if score_rows is None:
        score_rows = [[0.0] * len(row) for row in label_rows]
    return [[[label, score] for label, score in zip(lr, sr)]
            for lr, sr in zip(label_rows, score_rows)]


def _label(value: Any) -> str:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _regression_results(outputs: Mapping[str, Any], n: int) -> list:
    if "outputs" not in outputs:
        raise RequestError("the regression signature returned no 'outputs' tensor (outputs: "
                           f"{sorted(outputs)})", 500)
    values = to_numpy(outputs["outputs"]).astype(np.float32)
    if values.size != n:
        raise RequestError(f"Expected output Tensor shape to be [{n}] or [{n}, 1]; got "
                           f"{list(values.shape)}", 500)
    return float32_for_json(values.reshape(n)).tolist()


def _tensor_info(key: str, spec: Any) -> dict:
    shape = getattr(spec, "shape", None)
    if shape is None:
        tensor_shape: dict = {"dim": [], "unknown_rank": True}
    else:
        tensor_shape = {"dim": [{"size": str(-1 if d is None else d), "name": ""} for d in shape],
                        "unknown_rank": False}
    name = getattr(spec, "name", None) or key
    return {"dtype": _TF_DTYPES.get(spec_dtype_name(spec), "DT_INVALID"),
            "tensor_shape": tensor_shape, "name": name if ":" in name else f"{name}:0"}
