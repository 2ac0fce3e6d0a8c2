"""TensorFlow Serving's gRPC API over loaded exports: PredictionService and ModelService.

`start_grpc_server` serves, on one port, the services a TF Serving client
(`tensorflow_serving.apis.prediction_service_pb2_grpc`, or any client built
from TF Serving's .proto files) calls:

    tensorflow.serving.PredictionService/Predict           PredictRequest -> PredictResponse
    tensorflow.serving.PredictionService/Classify          ClassificationRequest -> ...Response
    tensorflow.serving.PredictionService/Regress           RegressionRequest -> ...Response
    tensorflow.serving.PredictionService/MultiInference    MultiInferenceRequest -> ...Response
    tensorflow.serving.PredictionService/GetModelMetadata  GetModelMetadataRequest -> ...Response
    tensorflow.serving.ModelService/GetModelStatus         GetModelStatusRequest -> ...Response
    tensorflow.serving.ModelService/HandleReloadConfigRequest   UNIMPLEMENTED (restart the server
                                                                with a new --model_config_file)

The messages are `_serving_protos`'; the services are registered with gRPC's
generic handlers (no generated code) on a `grpc.aio` server, whose event loop
runs in a thread of its own. A small call is answered on that loop (with
`--enable_batching` it waits there for its batch, holding no thread), any
other on a worker thread: see `PredictionApi._answer`. Failures are answered with TF
Serving's status codes and a message saying what is wrong:
INVALID_ARGUMENT (a malformed request, a wrong input), NOT_FOUND (an unknown
model or version), FAILED_PRECONDITION (an unknown signature),
RESOURCE_EXHAUSTED (a request over `max_message_bytes`, more rows than
`max_rows`, an answer over `max_response_bytes`, more calls than
`max_queue` at once), DEADLINE_EXCEEDED (past the client's deadline or
`timeout_seconds`), UNIMPLEMENTED, INTERNAL (the model failed).

Predict outputs are written to the typed value fields (`float_val`,
`int64_val`, `string_val`, ...), as TF Serving writes them, so both
`tf.make_ndarray` and `response.outputs[k].float_val` read them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from types import GeneratorType
from typing import Any

import grpc
import numpy as np

from torchestimator.serving import _serving_protos as pb
from torchestimator.serving._errors import RequestError
from torchestimator.serving._grpc_codec import (  # noqa: F401 - re-exported: importers use this path
    _DT_NAME,
    _DT_NUMBER,
    GrpcError,
    _classification_result,
    _invalid,
    _label_version,
    _model_name,
    _model_spec,
    _Refused,
    _regression_result,
    _serialize,
    _signature,
    _tensor_info,
    array_to_tensor,
    predict_response_bytes,
    tensor_bytes,
    tensor_to_array,
)
from torchestimator.serving._inline import INLINE_BODY_BYTES, InlineCosts
from torchestimator.serving._json_tensor import _check_shape, spec_dtype_name
from torchestimator.serving._limits import (
    DEFAULT_MAX_QUEUE,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_SECONDS,
)
from torchestimator.serving._model_calls import (
    ModelCall,
    Steps,
    run_call,
    run_steps,
    run_steps_async,
)
from torchestimator.serving._rest import (
    _TF_DTYPES,
    CLASSIFY_METHOD,
    DEFAULT_SIGNATURE,
    REGRESS_METHOD,
)
from torchestimator.serving._versions import ModelVersions, Servable

_LOG = logging.getLogger("torchestimator.serving")
DEFAULT_GRPC_PORT = 8500
_GRPC_SLACK_BYTES = 16 * 1024 * 1024
PREDICTION_SERVICE = "tensorflow.serving.PredictionService"
MODEL_SERVICE = "tensorflow.serving.ModelService"
_STATUS_CODES = {400: grpc.StatusCode.INVALID_ARGUMENT, 404: grpc.StatusCode.NOT_FOUND,
                 408: grpc.StatusCode.DEADLINE_EXCEEDED, 413: grpc.StatusCode.RESOURCE_EXHAUSTED,
                 500: grpc.StatusCode.INTERNAL, 503: grpc.StatusCode.UNAVAILABLE,
                 504: grpc.StatusCode.DEADLINE_EXCEEDED}


# ------------------------------------------------------------------------- the servicer
class PredictionApi:
    """Answers TF Serving's gRPC calls for `models` (model name -> ModelVersions).

    A request with more than `max_rows` examples/rows (None: no limit) or whose answer
    would exceed `max_response_bytes` (None: no limit) is refused with RESOURCE_EXHAUSTED;
    a call runs until the client's deadline or `timeout_seconds` (None: no limit),
    whichever comes first. `metrics` (a `_monitoring.Metrics`) counts every call. Calls are
    answered on the server's event loop or on `executor`'s threads (see `_answer`); with a
    `batcher`, model calls are batched (with the REST side's).
    """

    def __init__(self, models: Mapping[str, ModelVersions], *,
                 max_rows: int | None = DEFAULT_MAX_ROWS,
                 max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
                 max_message_bytes: int | None = None,
                 timeout_seconds: float | None = DEFAULT_TIMEOUT_SECONDS,
                 metrics: Any = None, batcher: Any = None,
                 executor: ThreadPoolExecutor | None = None):
        self._models = models
        self._executor = executor or ThreadPoolExecutor(thread_name_prefix="serving-grpc")
        self._costs = InlineCosts()  # of (method, request size class)
        self._batcher = batcher
        self._max_rows = max_rows
        self._max_response_bytes = max_response_bytes
        self._max_message_bytes = max_message_bytes
        self._timeout = timeout_seconds
        self._metrics = metrics
        self._plans: dict[int, tuple[Any, frozenset, dict[str, tuple[int, Any]]]] = {}

    # --------------------------------------------------------------------- plumbing
    def handlers(self) -> list[grpc.GenericRpcHandler]:
        """gRPC generic handlers for PredictionService and ModelService, for a `grpc.aio`
        server (see `_answer`)."""
        limit = self._max_message_bytes

        def unary(api: str, method: Callable, request_type: Any) -> grpc.RpcMethodHandler:
            parse = request_type.FromString

            def deserialize(data: bytes) -> tuple[Any, int]:
                # the size and parse checks happen here, unparsed past the limit, and are
                # answered (and counted) by `_answer`, not by gRPC's own refusal
                if limit is not None and len(data) > limit:
                    return _Refused(len(data)), len(data)
                try:
                    return parse(data), len(data)
                except Exception as error:  # noqa: BLE001 - a DecodeError: answered, not raised
                    return (_Refused(len(data), f"{request_type.DESCRIPTOR.full_name}: {error}"),
                            len(data))

            async def answer(parsed: tuple[Any, int], context: Any) -> Any:
                return await self._answer(api, method, parsed[0], parsed[1], context)

            return grpc.unary_unary_rpc_method_handler(
                answer, request_deserializer=deserialize, response_serializer=_serialize)

        def raw(api: str, method: Callable) -> grpc.RpcMethodHandler:
            async def answer(data: bytes, context: Any) -> Any:  # raw bytes: never parsed
                return await self._answer(api, method, data, len(data), context)

            return grpc.unary_unary_rpc_method_handler(answer)

        prediction = {
            "Predict": unary("predict", self._predict_steps, pb.PredictRequest),
            "Classify": unary("classify", self._classify_steps, pb.ClassificationRequest),
            "Regress": unary("regress", self._regress_steps, pb.RegressionRequest),
            "MultiInference": unary("multi_inference", self._multi_inference_steps,
                                    pb.MultiInferenceRequest),
            "GetModelMetadata": unary("metadata", self.get_model_metadata,
                                      pb.GetModelMetadataRequest),
        }
        model = {
            "GetModelStatus": unary("status", self.get_model_status, pb.GetModelStatusRequest),
            "HandleReloadConfigRequest": raw("reload_config", self.reload_config),
        }
        return [grpc.method_handlers_generic_handler(PREDICTION_SERVICE, prediction),
                grpc.method_handlers_generic_handler(MODEL_SERVICE, model)]

    def _run_sync(self, method: Callable, request: Any, deadline: float | None,
                  ran: list[str] | None = None) -> Any:
        """The call's answer, computed on this thread (its model calls too; the names of
        the signatures run appended to `ran`)."""
        result = method(request, deadline)
        if isinstance(result, GeneratorType):
            return run_steps(result, self._batcher, ran)
        return result

    async def _run_alone(self, call: ModelCall) -> Any:
        """A model call the batcher does not take, on a worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, run_call, call)

    async def _answer(self, api: str, method: Callable, request: Any, size: int,
                      context: Any) -> Any:
        """Answers one call on the server's event loop, or aborts it with TF Serving's status
        code. A small call (`INLINE_BODY_BYTES`) that names no version (which may load on
        first use) is answered on the loop: with a batcher, its model calls wait for their
        batch there without holding a thread; without, when this method's calls were
        measured cheap (`InlineCosts`). Any other runs on a worker thread."""
        started = time.perf_counter()
        code, model = grpc.StatusCode.OK, _model_name(request)
        ran: list[str] = []  # (the signatures run: the metrics' label)
        try:
            if type(request) is _Refused:
                raise request.error(self._max_message_bytes)
            remaining = context.time_remaining()
            limits = [t for t in (remaining, self._timeout) if t is not None]
            deadline = time.monotonic() + min(limits) if limits else None
            small = size <= INLINE_BODY_BYTES and not _names_a_version(request)
            if small and self._batcher is not None:
                result = method(request, deadline)
                if isinstance(result, GeneratorType):
                    result = await run_steps_async(result, self._batcher, self._run_alone,
                                                   ran)
                return result
            kind = (api, size.bit_length())  # (more rows in a request: another kind)
            if small and self._costs.cheap(kind):
                return self._costs.measure(kind, self._run_sync, method, request, deadline,
                                           ran)
            loop = asyncio.get_running_loop()
            if small:
                return await loop.run_in_executor(self._executor, self._costs.measure, kind,
                                                  self._run_sync, method, request, deadline,
                                                  ran)
            return await loop.run_in_executor(self._executor, self._run_sync, method, request,
                                              deadline, ran)
        except GrpcError as error:
            code, message = error.code, error.message
        except RequestError as error:
            code, message = _STATUS_CODES.get(error.status, grpc.StatusCode.UNKNOWN), error.message
        except asyncio.CancelledError:  # the client cancelled the call, or went away
            code = grpc.StatusCode.CANCELLED
            raise
        except Exception as error:  # noqa: BLE001 - the server answers, then keeps serving
            _LOG.error("gRPC %s failed", api, exc_info=error)
            code, message = grpc.StatusCode.INTERNAL, f"{type(error).__name__}: {error}"
        finally:
            if self._metrics is not None:
                self._metrics.observe(model if model in self._models else "", api, "grpc",
                                      code.name if code != grpc.StatusCode.OK else "OK",
                                      time.perf_counter() - started, ran[0] if ran else "")
        await context.abort(code, message)

    @contextlib.contextmanager
    def _servable(self, spec: Any) -> Iterator[tuple[str, Servable]]:
        """(model name, servable) for a ModelSpec, held until the call is answered (a
        version being replaced is unloaded after its calls)."""
        name = spec.name
        if not name:
            raise _invalid("Missing ModelSpec: model_spec.name is empty; name the model to use")
        models = self._models.get(name)
        which = spec.WhichOneof("version_choice")
        version = spec.version.value if which == "version" else None
        label = spec.version_label if which == "version_label" else None
        if models is None:
            wanted = f"Latest({name})" if version is None else f"Specific({name}, {version})"
            raise GrpcError(grpc.StatusCode.NOT_FOUND,
                            f"Servable not found for request: {wanted}; this server serves "
                            f"model(s) {sorted(self._models)}")
        use = getattr(models, "use", None)
        if use is None:  # (a ModelVersions without reference counting)
            if label is not None:
                version = _label_version(models, name, label)
            yield name, models.get(version)
            return
        with use(version, label) as servable:
            yield name, servable

    def _check_rows(self, rows: int, what: str) -> None:
        if self._max_rows is not None and rows > self._max_rows:
            raise GrpcError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"Too many rows: the request has {rows} {what}, over the server's limit of "
                f"{self._max_rows} per request (--max_request_rows); split it into requests of "
                f"at most {self._max_rows}")

    def _check_answer(self, response: Any) -> Any:
        size = len(response) if type(response) is bytes else response.ByteSize()
        if self._max_response_bytes is not None and size > self._max_response_bytes:
            raise GrpcError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"Response too large: {size} bytes, over the server's limit of "
                f"{self._max_response_bytes} bytes (--max_response_bytes); send fewer rows per "
                "request or ask for fewer outputs (output_filter)")
        return response

    # ------------------------------------------------------------------------- calls
    def predict(self, request: Any, deadline: float | None = None) -> Any:
        """PredictionService.Predict: runs a signature on the request's tensors; returns the
        PredictResponse (its wire bytes)."""
        return run_steps(self._predict_steps(request, deadline), self._batcher)

    def _predict_steps(self, request: Any, deadline: float | None) -> Steps:
        with self._servable(request.model_spec) as (name, servable):
            return (yield from self._predict(request, name, servable, deadline))

    def _plan(self, signature: Any) -> tuple[frozenset, dict[str, tuple[int, Any]]]:
        """(input names, input name -> (TensorProto dtype number, spec)) of a signature,
        worked out once per signature object (a new version brings new ones)."""
        plan = self._plans.get(id(signature))
        if plan is None or plan[0] is not signature:
            specs = dict(signature.inputs)
            dtypes = {key: (7 if spec_dtype_name(spec) == "string" else
                            _DT_NUMBER.get(_TF_DTYPES.get(spec_dtype_name(spec), ""), -1), spec)
                      for key, spec in specs.items()}
            if len(self._plans) > 256:  # (versions come and go: keep the newest)
                self._plans.clear()
            plan = self._plans[id(signature)] = (signature, frozenset(specs), dtypes)
        return plan[1], plan[2]

    def _predict(self, request: Any, name: str, servable: Servable,
                 deadline: float | None) -> Steps:
        signature_name = request.model_spec.signature_name or DEFAULT_SIGNATURE
        signature = _signature(servable, signature_name, grpc.StatusCode.FAILED_PRECONDITION,
                               f'Serving signature key "{signature_name}" not found.')
        wanted, dtypes = self._plan(signature)
        inputs = request.inputs
        if len(inputs) != len(wanted) or not wanted.issuperset(inputs):
            sent = set(inputs)
            extra, missing = sorted(sent - wanted), sorted(wanted - sent)
            raise _invalid(
                f"Request inputs do not match required inputs for model `{name}`. Send extra: "
                f"{{{', '.join(extra)}}}. Missing but required: {{{', '.join(missing)}}}. "
                f"(signature {signature_name!r} takes {sorted(wanted)})")
        arrays = {}
        for key, proto in inputs.items():
            array = tensor_to_array(key, proto, self._max_message_bytes)
            want, spec = dtypes[key]
            if proto.dtype != want:
                want_name = spec_dtype_name(spec)
                raise _invalid(
                    f"input '{key}': expects {_TF_DTYPES.get(want_name, want_name)} but "
                    f"{_DT_NAME.get(proto.dtype, proto.dtype)} is provided; send the dtype "
                    "GetModelMetadata gives")
            _check_shape(array, key, spec)
            arrays[key] = array
        if arrays:
            first = next(iter(arrays.values()))
            self._check_rows(first.shape[0] if first.ndim else 1, "rows")
        filters = list(request.output_filter)
        if filters:
            unknown = [f for f in filters if f not in signature.outputs]
            if unknown:
                raise _invalid(f"output tensor alias not found in signature: {unknown[0]} "
                               "Outputs expected to be in the set "
                               f"{{{','.join(sorted(signature.outputs))}}}.")
        outputs = yield ModelCall(servable, signature_name, signature, arrays, deadline)
        answer = predict_response_bytes(
            [(key, tensor_bytes(outputs[key])) for key in (filters or list(outputs))],
            name, servable.version, signature_name)
        return self._check_answer(answer)

    def classify(self, request: Any, deadline: float | None = None) -> Any:
        """PredictionService.Classify: a classification signature on tf.Examples; returns the
        ClassificationResponse."""
        return run_steps(self._classify_steps(request, deadline), self._batcher)

    def _classify_steps(self, request: Any, deadline: float | None) -> Steps:
        return (yield from self._one_task(request, deadline, CLASSIFY_METHOD,
                                          pb.ClassificationResponse()))

    def regress(self, request: Any, deadline: float | None = None) -> Any:
        """PredictionService.Regress: a regression signature on tf.Examples; returns the
        RegressionResponse."""
        return run_steps(self._regress_steps(request, deadline), self._batcher)

    def _regress_steps(self, request: Any, deadline: float | None) -> Steps:
        return (yield from self._one_task(request, deadline, REGRESS_METHOD,
                                          pb.RegressionResponse()))

    def _one_task(self, request: Any, deadline: float | None, method_name: str,
                  response: Any) -> Steps:
        """Classify or Regress: `response` filled by the signature's run on the examples."""
        signature_name = request.model_spec.signature_name or DEFAULT_SIGNATURE
        examples = self._examples(request.input)
        with self._servable(request.model_spec) as (name, servable):
            _model_spec(response.model_spec, name, servable.version, signature_name)
            yield from self._run_task(servable, signature_name, method_name, examples,
                                      deadline, response.result)
        return self._check_answer(response)

    def multi_inference(self, request: Any, deadline: float | None = None) -> Any:
        """PredictionService.MultiInference: several classify/regress signatures of one model
        on the same tf.Examples; returns the MultiInferenceResponse."""
        return run_steps(self._multi_inference_steps(request, deadline), self._batcher)

    def _multi_inference_steps(self, request: Any, deadline: float | None) -> Steps:
        if not request.tasks:
            raise _invalid("MultiInferenceRequest has no tasks; give at least one InferenceTask")
        names = {task.model_spec.name for task in request.tasks}
        if "" in names:
            raise _invalid("Found ModelSpec with an empty model name.")
        if len(names) > 1:
            raise _invalid("All ModelSpecs in a MultiInferenceRequest must access the same model "
                           f"name; got {sorted(names)}")
        specs = {(t.model_spec.WhichOneof("version_choice"), t.model_spec.version.value,
                  t.model_spec.version_label) for t in request.tasks}
        if len(specs) > 1:
            raise _invalid("All ModelSpecs in a MultiInferenceRequest must access the same model "
                           "version")
        seen: set[str] = set()
        for task in request.tasks:
            signature_name = task.model_spec.signature_name or DEFAULT_SIGNATURE
            if signature_name in seen:
                raise _invalid(f"Duplicate evaluation of signature: {signature_name}")
            seen.add(signature_name)
            if task.method_name not in (CLASSIFY_METHOD, REGRESS_METHOD):
                raise GrpcError(grpc.StatusCode.UNIMPLEMENTED,
                                f"Unsupported signature method_name: {task.method_name}; a task "
                                f"takes {CLASSIFY_METHOD} or {REGRESS_METHOD}")
        examples = self._examples(request.input)
        response = pb.MultiInferenceResponse()
        with self._servable(request.tasks[0].model_spec) as (name, servable):
            for task in request.tasks:
                signature_name = task.model_spec.signature_name or DEFAULT_SIGNATURE
                result = response.results.add()
                _model_spec(result.model_spec, name, servable.version,
                            task.model_spec.signature_name)
                target = (result.classification_result if task.method_name == CLASSIFY_METHOD
                          else result.regression_result)
                yield from self._run_task(servable, signature_name, task.method_name,
                                          examples, deadline, target, multi=True)
        return self._check_answer(response)

    def get_model_metadata(self, request: Any, deadline: float | None = None) -> Any:
        """PredictionService.GetModelMetadata: the signature defs, as a SignatureDefMap packed
        in `metadata["signature_def"]`."""
        if not request.model_spec.name:
            raise _invalid("Missing ModelSpec: model_spec.name is empty; name the model to use")
        fields = list(request.metadata_field)
        if not fields:
            raise _invalid("GetModelMetadataRequest must specify at least one metadata_field "
                           '(this server has "signature_def")')
        for field in fields:
            if field != "signature_def":
                raise _invalid(f"Metadata field {field} is not supported; this server has "
                               '"signature_def"')
        with self._servable(request.model_spec) as (name, servable):
            version, signatures = servable.version, dict(servable.signatures)
        defs = pb.SignatureDefMap()
        for key, signature in signatures.items():
            target = defs.signature_def[key]
            for alias, spec in signature.inputs.items():
                _tensor_info(alias, spec, target.inputs[alias])
            for alias, spec in signature.outputs.items():
                _tensor_info(alias, spec, target.outputs[alias])
            target.method_name = getattr(signature, "method_name", "")
        response = pb.GetModelMetadataResponse()
        _model_spec(response.model_spec, name, version, "")
        response.metadata["signature_def"].Pack(defs)
        return self._check_answer(response)

    def get_model_status(self, request: Any, deadline: float | None = None) -> Any:
        """ModelService.GetModelStatus: the state of the model's versions (or the one named)."""
        spec = request.model_spec
        if not spec.name:
            raise _invalid("Missing ModelSpec: model_spec.name is empty; name the model to use")
        models = self._models.get(spec.name)
        which = spec.WhichOneof("version_choice")
        version = spec.version.value if which == "version" else None
        if models is None:
            raise GrpcError(grpc.StatusCode.NOT_FOUND,
                            f"Could not find any versions of model {spec.name}; this server "
                            f"serves model(s) {sorted(self._models)}")
        if which == "version_label":
            version = _label_version(models, spec.name, spec.version_label)
        response = pb.GetModelStatusResponse()
        for entry in models.status(version):
            status = response.model_version_status.add(
                version=int(entry["version"]), state=pb.MODEL_STATES[entry["state"]])
            status.status.error_code = pb.ERROR_CODES.get(entry["status"]["error_code"], 2)
            status.status.error_message = entry["status"]["error_message"]
        return response

    def reload_config(self, request: bytes, deadline: float | None = None) -> Any:
        """ModelService.HandleReloadConfigRequest: not offered (UNIMPLEMENTED)."""
        raise GrpcError(grpc.StatusCode.UNIMPLEMENTED,
                        "HandleReloadConfigRequest is not supported by this server: restart it "
                        "with the new --model_config_file (new versions under a model's base "
                        "path are picked up without a restart)")

    # ------------------------------------------------------------- classify, regress
    def _examples(self, input_proto: Any) -> np.ndarray:
        """The serialized tf.Examples of an Input (context features first, then the
        example's, as TF Serving concatenates them); INVALID_ARGUMENT when there are none."""
        kind = input_proto.WhichOneof("kind")
        if kind == "example_list":
            serialized = [e.SerializeToString() for e in input_proto.example_list.examples]
        elif kind == "example_list_with_context":
            with_context = input_proto.example_list_with_context
            context = with_context.context.SerializeToString()
            serialized = [context + e.SerializeToString() for e in with_context.examples]
        else:
            serialized = []
        if not serialized:
            raise _invalid("Input is empty.")
        self._check_rows(len(serialized), "examples")
        array = np.empty(len(serialized), dtype=object)
        array[:] = serialized
        return array

    def _run_task(self, servable: Servable, signature_name: str, method_name: str,
                  examples: np.ndarray, deadline: float | None, result: Any,
                  multi: bool = False) -> Steps:
        """Runs the classify/regress signature `signature_name` on `examples` into `result` (a
        ClassificationResult or RegressionResult)."""
        classify = method_name == CLASSIFY_METHOD
        kind = "classification" if classify else "regression"
        code = grpc.StatusCode.INVALID_ARGUMENT if multi else grpc.StatusCode.FAILED_PRECONDITION
        missing = (f"Requested signature not found in model graph: {signature_name}" if multi
                   else f'Serving signature key "{signature_name}" not found.')
        signature = _signature(servable, signature_name, code, missing)
        actual = getattr(signature, "method_name", "")
        if actual != method_name:
            others = sorted(k for k, s in servable.signatures.items()
                            if getattr(s, "method_name", "") == method_name)
            hint = (f"; give model_spec.signature_name one of {others}" if others
                    else f"; this export has no {kind} signature")
            raise _invalid(f"Expected {kind} signature method_name to be {method_name}. Was: "
                           f"{actual} (signature {signature_name!r}){hint}")
        names = list(signature.inputs)
        if len(names) != 1 or spec_dtype_name(signature.inputs[names[0]]) != "string":
            raise GrpcError(grpc.StatusCode.FAILED_PRECONDITION,
                            f"signature {signature_name!r} takes {names}, not one batch of "
                            "serialized tf.Examples")
        outputs = yield ModelCall(servable, signature_name, signature, {names[0]: examples},
                                  deadline)
        n = len(examples)
        if classify:
            _classification_result(outputs, n, result)
        else:
            _regression_result(outputs, n, result)


def _names_a_version(request: Any) -> bool:
    """True when the request's model spec names a version or a label (such a version may be
    loaded on its first call)."""
    spec = getattr(request, "model_spec", None)
    if spec is not None:
        return spec.WhichOneof("version_choice") is not None
    return any(task.model_spec.WhichOneof("version_choice") is not None
               for task in getattr(request, "tasks", ()))


# ----------------------------------------------------------------------------- server
def _new_event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop for the gRPC server's thread: uvloop's where it is installed (the
    `serving` extra; it halves the server's own CPU per call), else asyncio's."""
    try:
        import uvloop  # lazy: optional extra (uvloop)
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class GrpcServer:
    """A started `grpc.aio` server, running on an event loop of its own thread (so that it
    serves beside any HTTP server). `stop(grace)` refuses new calls and lets those in flight
    finish within `grace` seconds; the returned object's `wait()` waits for that."""

    def __init__(self, server: Any, loop: asyncio.AbstractEventLoop, thread: threading.Thread,
                 executor: ThreadPoolExecutor):
        self._server = server
        self._loop = loop
        self._thread = thread
        self._executor = executor

    def stop(self, grace: float | None) -> threading.Event:
        """Stops the server (calls in flight get `grace` seconds); returns an Event set once
        it has stopped and its thread has ended."""
        stopped = threading.Event()
        if not self._thread.is_alive():
            stopped.set()
            return stopped

        async def stop_then_end() -> None:
            try:
                await self._server.stop(grace)
            finally:
                self._loop.stop()

        def wait_for_the_thread() -> None:
            self._thread.join()
            self._executor.shutdown(wait=False, cancel_futures=True)
            stopped.set()

        try:
            asyncio.run_coroutine_threadsafe(stop_then_end(), self._loop)
        except RuntimeError:  # the loop has ended already
            pass
        threading.Thread(target=wait_for_the_thread, daemon=True,
                         name="serving-grpc-stop").start()
        return stopped


def start_grpc_server(models: Mapping[str, ModelVersions], *, host: str, port: int,
                      max_threads: int, max_message_bytes: int,
                      max_rows: int | None = DEFAULT_MAX_ROWS,
                      max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
                      timeout_seconds: float | None = DEFAULT_TIMEOUT_SECONDS,
                      max_queue: int = DEFAULT_MAX_QUEUE, metrics: Any = None,
                      batcher: Any = None, reuse_port: bool = False) -> GrpcServer:
    """Starts TF Serving's gRPC API (PredictionService, ModelService) for `models` on
    `host:port`, on a `grpc.aio` server with an event loop of its own thread; returns the
    started `GrpcServer` (`server.stop(grace).wait()` refuses new calls and lets those in
    flight finish within `grace` seconds).

    Args:
        models: model name -> ModelVersions (loaded already; shared with the REST API).
        host: address to listen on (`0.0.0.0`: every interface).
        port: the gRPC port (TF Serving's `--port`, 8500 by default).
        max_threads: worker threads for the calls not answered on the event loop (large
            ones, and those measured expensive).
        max_message_bytes: larger requests are refused with RESOURCE_EXHAUSTED, unparsed (the
            REST side's `--max_body_bytes`; TF Serving's gRPC max message size), by the
            handler (its message names the flag; counted in `metrics`) up to twice the limit
            (at most 16 MiB more), by gRPC itself past that.
        max_rows: a request with more examples/rows is refused with RESOURCE_EXHAUSTED.
        max_response_bytes: an answer over this many bytes is refused with
            RESOURCE_EXHAUSTED.
        timeout_seconds: a call still running then is stopped at its next step with
            DEADLINE_EXCEEDED (a client's own deadline applies too).
        max_queue: past this many calls queued or running, a call is refused with
            RESOURCE_EXHAUSTED at once.
        metrics: a `_monitoring.Metrics` counting the calls (None: not counted).
        batcher: the REST side's `Batcher` (`--enable_batching`): gRPC and REST calls are
            batched together.
        reuse_port: let other processes of this server share the port (`--rest_api_workers`).

    Raises:
        OSError naming the address when the port cannot be bound (in use, not permitted).
    """
    executor = ThreadPoolExecutor(max_workers=max_threads, thread_name_prefix="serving-grpc")
    api = PredictionApi(models, max_rows=max_rows, max_response_bytes=max_response_bytes,
                        max_message_bytes=max_message_bytes, timeout_seconds=timeout_seconds,
                        metrics=metrics, batcher=batcher, executor=executor)
    # gRPC takes up to 2x the limit (at most 16 MiB more), so that the handler refuses a
    # larger request itself, naming the flag and counted in the metrics; past that gRPC does
    options = [("grpc.max_receive_message_length",
                min(max_message_bytes + min(max_message_bytes, _GRPC_SLACK_BYTES), 2**31 - 1)),
               ("grpc.max_send_message_length",
                -1 if max_response_bytes is None else max_response_bytes + 1024),
               ("grpc.so_reuseport", 1 if reuse_port else 0)]
    address = f"[{host.strip('[]')}]:{port}" if ":" in host else f"{host or '0.0.0.0'}:{port}"
    started: Future = Future()

    async def start() -> Any:
        server = grpc.aio.server(handlers=api.handlers(), options=options,
                                 maximum_concurrent_rpcs=max_queue)
        try:
            bound = server.add_insecure_port(address)
        except RuntimeError as error:
            raise OSError(f"gRPC could not listen on {address} (--port={port}): {error}; the "
                          "port is in use or not permitted: pass another --port (0: no gRPC)"
                          ) from None
        if not bound:
            raise OSError(f"gRPC could not listen on {address} (--port={port}): the port is in "
                          "use or not permitted; pass another --port (0: no gRPC)")
        await server.start()
        return server

    def run() -> None:
        loop = _new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            server = loop.run_until_complete(start())
        except BaseException as error:  # noqa: BLE001 - handed to the starting thread
            started.set_exception(error)
            loop.close()
            return
        started.set_result(GrpcServer(server, loop, threading.current_thread(), executor))
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    threading.Thread(target=run, daemon=True, name="serving-grpc-loop").start()
    try:
        server = started.result()
    except BaseException:
        executor.shutdown(wait=False)
        raise
    _LOG.info("Running gRPC ModelServer at %s (%d threads)", address, max_threads)
    return server


def start_from_settings(settings: Mapping[str, Any] | None, models: Mapping[str, ModelVersions],
                        **limits: Any) -> GrpcServer | None:
    """Starts the gRPC server `serve` asked for, or returns None: `settings` is None or a dict
    with `port` (0: no gRPC), `host`, `reuse_port` and `optional` (True for the default port,
    taken when free: a port in use is then logged and gRPC left out rather than failing the
    server; `max_threads` there is read by `create_app`). `limits` are `start_grpc_server`'s other
    keyword arguments."""
    if not settings or not settings.get("port"):
        return None
    try:
        return start_grpc_server(models, host=settings.get("host", "0.0.0.0"),
                                 port=int(settings["port"]),
                                 reuse_port=bool(settings.get("reuse_port", False)), **limits)
    except OSError as error:
        if not settings.get("optional"):
            raise
        _LOG.warning("%s; serving HTTP/REST only (give --port to require gRPC)", error)
        return None
