"""Serving exports with TensorFlow Serving's REST and gRPC APIs (`torchestimator serve`).

    torchestimator serve --rest_api_port=8501 --model_name=iris --model_base_path=/exports/iris

answers, as `tensorflow_model_server` does:

    GET  /v1/models/iris[/versions/N]            {"model_version_status": [...]}
    GET  /v1/models/iris[/versions/N]/metadata   {"model_spec": ..., "metadata": {"signature_def": ...}}
    POST /v1/models/iris[/versions/N]:predict    {"instances": [...]} -> {"predictions": [...]}
                                                 {"inputs": ...}      -> {"outputs": ...}
    POST /v1/models/iris[/versions/N]:classify   {"examples": [...], "context": {...}}
                                                 -> {"results": [[["label", score], ...], ...]}
    POST /v1/models/iris[/versions/N]:regress    -> {"results": [value, ...]}

Errors are `{"error": "..."}` with 400 (bad request, malformed JSON included:
lone surrogates, integers past 4300 digits, nesting deeper than 100 levels),
404 (unknown model, version or path), 408 (headers or body too slow), 413
(body over --max_body_bytes, more rows than --max_request_rows, an answer over
--max_response_bytes), 431 (headers over --max_header_bytes), 503 (past
--rest_api_max_queue or --rest_api_max_connections), 504 (over
--rest_api_timeout_in_ms: the work stops at its next step) or 500 (the model
failed); the server keeps serving. Every limit, its default and its flag:
`torchestimator.serving._limits`. There is no authentication: the default
--host 0.0.0.0 (TF Serving's) is logged as such. A version directory that is a
symlink out of the base path is never loaded (logged).
Bytes travel as `{"b64": "..."}` both ways (outputs whose name ends
in `_bytes`). Beyond TF Serving, an export with a parsing receiver also takes
plain feature dicts in `:predict` (`{"instances": [{"x": 1.5, "kind": "a"}]}`).

Versions: the newest numbered directory under the base path is served; an
older one loads on the first request naming it; new versions are picked up
while serving (every --file_system_poll_wait_seconds) and swapped in once
loaded. SIGTERM stops gracefully (requests in flight are answered; exit 0).
Requests are parsed and run on a thread pool, off the event loop;
`--rest_api_workers N` (beyond TF Serving) runs N processes on the port.

`--model_config_file` (TF Serving's text-format `ModelServerConfig`) serves several models
with version policies and labels (`/v1/models/NAME/labels/LABEL`); a version that fails to
load is reported END and the previous one keeps serving; an old version is unloaded once
its requests in flight are answered. `--enable_batching` joins concurrent requests into
one model call (`_batching.py`; a full queue answers 503 / UNAVAILABLE). gRPC on `--port`
(default 8500) answers `tensorflow.serving.PredictionService` and `ModelService` with TF
Serving's messages (`_serving_protos.py`, `_grpc.py`). `--monitoring_config_file` exposes
Prometheus metrics (`_monitoring.py`). Needs the `serving` extra (Uvicorn, grpcio).
"""

from torchestimator.serving._server import (
    app_from_environment,
    create_app,
    default_num_threads,
    serve,
)

__all__ = ["app_from_environment", "create_app", "default_num_threads", "serve"]
