"""Building the server: models, thread pool, ASGI app, and running it on Uvicorn."""

from __future__ import annotations

import gc
import json
import logging
import os
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import torch

from torchestimator.serving import _monitoring, _protocol
from torchestimator.serving._app import RestApp
from torchestimator.serving._batching import Batcher
from torchestimator.serving._grpc import start_from_settings
from torchestimator.serving._limits import (
    DEFAULT_BODY_TIMEOUT_SECONDS,
    DEFAULT_HEADER_TIMEOUT_SECONDS,
    DEFAULT_KEEP_ALIVE_SECONDS,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_QUEUE,
    DEFAULT_MAX_REQUESTS_PER_CONNECTION,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_SECONDS,
    check_positive,
    default_max_connections,
    hard_connection_cap,
)
from torchestimator.serving._model_config import parse_batching_parameters, parse_model_config
from torchestimator.serving._rest import RestApi
from torchestimator.serving._versions import (
    ModelConfigWatcher,
    ModelRegistry,
    ModelVersions,
    load_export,
)

_LOG = logging.getLogger("torchestimator.serving")


_MAX_BATCHING_THREADS = 256  # request threads by default with --enable_batching, at most


def default_num_threads() -> int:
    """Threads answering requests when --rest_api_num_threads is not given: one per core, at
    least 2 and at most 16. (TF Serving uses 4 per core; here the request work is mostly Python,
    which one interpreter lock serializes, and more threads than cores only add contention:
    see bench/bench_serving.py --threads.)"""
    return max(2, min(16, os.cpu_count() or 1))


def create_app(model_name: str = "default", model_base_path: str | os.PathLike | None = None,
               *, num_threads: int | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
               timeout_seconds: float | None = DEFAULT_TIMEOUT_SECONDS,
               poll_seconds: float = 1.0, loader: Callable[[str], Any] = load_export,
               max_rows: int | None = DEFAULT_MAX_ROWS,
               max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
               body_timeout_seconds: float | None = DEFAULT_BODY_TIMEOUT_SECONDS,
               max_queue: int = DEFAULT_MAX_QUEUE, grpc: dict[str, Any] | None = None,
               prometheus_path: str | None = None,
               model_config_file: str | os.PathLike | None = None,
               model_config_file_poll_wait_seconds: float = 0.0,
               allow_version_labels_for_unavailable_models: bool = False,
               enable_batching: bool = False,
               batching_parameters_file: str | os.PathLike | None = None) -> RestApp:
    """Returns the ASGI app serving TF Serving's REST API for one model, or for the models
    of a `model_config_file`.

    Loads the newest version under `model_base_path` now (older ones on the
    first request that names them) and, with `poll_seconds > 0`, watches for
    new versions. The app can be run by any ASGI server (`serve` runs it on
    Uvicorn) or mounted in an ASGI framework.

    Args:
        model_name: the NAME in `/v1/models/NAME` (unused with `model_config_file`).
        model_base_path: the directory of numbered version directories (an
            `export_dir_base`; unused with `model_config_file`).
        model_config_file: a text-format ModelServerConfig naming the models,
            their base paths, version policies and version labels
            (`--model_config_file`); its models are served strictly by their
            policy (default: the newest version).
        model_config_file_poll_wait_seconds: read `model_config_file` again
            this often and apply its changes (0: read once).
        allow_version_labels_for_unavailable_models: let a label name a
            version that is not loaded (yet).
        enable_batching: join concurrent requests to one model version and
            signature into one model call (`--enable_batching`).
        batching_parameters_file: a text-format BatchingParameters (TF
            Serving's defaults without one; `--batching_parameters_file`).
        num_threads: threads that parse requests and run the model (default
            `default_num_threads()`; with `enable_batching`, at least `max_batch_size` x
            `num_batch_threads`, at most 256, so that a batch can fill: a request answered on
            a thread (a large body, a path naming a version) waits for its batch there, where
            a small one waits on the event loop, holding no thread).
        max_body_bytes: larger request bodies are refused with 413, unread
            (default 64 MiB; `--max_body_bytes`).
        timeout_seconds: a request not answered by then gets 504 and its work
            stops at its next step; one whose time ran out while queued never
            runs (default 30; None: no limit; `--rest_api_timeout_in_ms`).
        poll_seconds: how often to look for new versions (0: never).
        loader: loads one version directory (default `tf.saved_model.load`).
        max_rows: a request with more instances/examples/rows is refused with
            413 (default 100000; None: no limit; `--max_request_rows`).
        max_response_bytes: a request whose answer would be larger is refused
            with 413, before the answer is built where its size can be told
            from its values (default 64 MiB; None: no limit;
            `--max_response_bytes`).
        body_timeout_seconds: a body not received by then (from the end of the
            headers) gets 408 and the connection is closed (default 30; None:
            no limit; `--body_timeout_seconds`).
        max_queue: past this many requests queued or running, a request is
            answered 503 at once (default 1024; `--rest_api_max_queue`).
        grpc: TF Serving's gRPC API on the same models (`--port`): a dict with
            `port`, `host`, `grace_seconds`, `reuse_port`, `optional` (see
            `_grpc.start_from_settings`); None: no gRPC. Stopped with the app.
        prometheus_path: answer GET there with Prometheus metrics, and count
            every request (`--monitoring_config_file`); None: no metrics.

    Raises:
        FileNotFoundError when a base path is not a directory of versions;
        ValueError for a limit that is not > 0, or a config or batching file
        that does not parse (naming the file and what to fix).
    """
    check_positive("max_body_bytes", max_body_bytes, "--max_body_bytes")
    check_positive("max_rows", max_rows, "--max_request_rows", allow_none=True)
    check_positive("max_response_bytes", max_response_bytes, "--max_response_bytes",
                   allow_none=True)
    check_positive("body_timeout_seconds", body_timeout_seconds, "--body_timeout_seconds",
                   allow_none=True)
    check_positive("timeout_seconds", timeout_seconds, "--rest_api_timeout_in_ms",
                   allow_none=True)
    check_positive("max_queue", max_queue, "--rest_api_max_queue")
    registry, stop_models, batcher = _models_and_batcher(
        model_name, model_base_path, loader=loader, poll_seconds=poll_seconds,
        model_config_file=model_config_file,
        config_poll_seconds=model_config_file_poll_wait_seconds,
        allow_unavailable_labels=allow_version_labels_for_unavailable_models,
        enable_batching=enable_batching, batching_parameters_file=batching_parameters_file)
    if not num_threads:
        num_threads = default_num_threads()
        if batcher is not None:  # a request answered on a thread (large, naming a version)
            # waits for its batch there: enough threads to fill each batch thread's batch
            params = batcher.params
            num_threads = max(num_threads, min(_MAX_BATCHING_THREADS,
                                               params.max_batch_size * params.num_batch_threads))
    executor = ThreadPoolExecutor(max_workers=num_threads, thread_name_prefix="serving")
    large_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="serving-large")

    def shutdown() -> None:
        stop_models()
        if batcher is not None:
            batcher.stop()
        executor.shutdown(wait=False, cancel_futures=True)
        large_executor.shutdown(wait=False, cancel_futures=True)

    api = RestApi(registry, max_rows=max_rows, max_response_bytes=max_response_bytes,
                  batcher=batcher)
    # -- gRPC (--port, serving/_grpc.py) and Prometheus metrics (--monitoring_config_file,
    # serving/_monitoring.py) over the same models; gRPC drains when the app shuts down.

    models = registry
    metrics = _monitoring.Metrics(models) if prometheus_path else None
    grpc_server = None
    if grpc and grpc.get("port"):
        grpc_server = start_from_settings(
            grpc, models,
            max_threads=grpc.get("max_threads") or num_threads or default_num_threads(),
            max_message_bytes=max_body_bytes, max_rows=max_rows,
            max_response_bytes=max_response_bytes, timeout_seconds=timeout_seconds,
            max_queue=max_queue, metrics=metrics, batcher=batcher)

    def stop_grpc_then_shutdown() -> None:
        if grpc_server is not None:
            grpc_server.stop((grpc or {}).get("grace_seconds", 10.0)).wait()
        shutdown()
    # -- end of gRPC and metrics (and below: on_shutdown, MonitoredApp)
    app = RestApp(api, executor, max_body_bytes, timeout_seconds=timeout_seconds,
                  on_shutdown=stop_grpc_then_shutdown, body_timeout_seconds=body_timeout_seconds,
                  max_queue=max_queue, large_executor=large_executor)
    return app if metrics is None else _monitoring.MonitoredApp(app, metrics, prometheus_path)


def _models_and_batcher(model_name: str, model_base_path: str | os.PathLike | None, *,
                        loader: Callable[[str], Any], poll_seconds: float,
                        model_config_file: str | os.PathLike | None, config_poll_seconds: float,
                        allow_unavailable_labels: bool, enable_batching: bool,
                        batching_parameters_file: str | os.PathLike | None,
                        ) -> tuple[ModelRegistry, Callable[[], None], Any]:
    """The served models (loaded), what stops watching them, and the batcher (or None)."""
    batcher = None
    if enable_batching:
        batcher = Batcher(parse_batching_parameters(batching_parameters_file))
    registry = ModelRegistry()
    if model_config_file:
        watcher: Any = ModelConfigWatcher(
            model_config_file, registry, loader=loader, poll_seconds=poll_seconds,
            config_poll_seconds=config_poll_seconds,
            allow_unavailable_labels=allow_unavailable_labels)
    else:
        if model_base_path is None:
            raise ValueError("model_base_path is required without model_config_file "
                             "(--model_base_path: the directory of numbered versions)")
        watcher = ModelVersions(model_name, model_base_path, loader=loader,
                                poll_seconds=poll_seconds)
        registry.replace({model_name: watcher})
    try:
        watcher.start()
    except BaseException:
        if batcher is not None:
            batcher.stop()
        raise
    return registry, watcher.stop, batcher


def serve(model_name: str, model_base_path: str | os.PathLike | None, *,
          rest_api_port: int = 8501,
          host: str = "0.0.0.0", num_threads: int | None = None,
          max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
          timeout_seconds: float | None = DEFAULT_TIMEOUT_SECONDS,
          poll_seconds: float = 1.0, graceful_shutdown_seconds: float = 10.0,
          log_level: str = "info", workers: int = 1, intra_op_threads: int = 0,
          inter_op_threads: int = 0, max_rows: int | None = DEFAULT_MAX_ROWS,
          max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
          body_timeout_seconds: float | None = DEFAULT_BODY_TIMEOUT_SECONDS,
          max_queue: int = DEFAULT_MAX_QUEUE,
          header_timeout_seconds: float | None = DEFAULT_HEADER_TIMEOUT_SECONDS,
          max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
          keep_alive_seconds: float = DEFAULT_KEEP_ALIVE_SECONDS,
          max_connections: int | None = None,
          max_requests_per_connection: int = DEFAULT_MAX_REQUESTS_PER_CONNECTION,
          model_config_file: str | os.PathLike | None = None,
          model_config_file_poll_wait_seconds: float = 0.0,
          allow_version_labels_for_unavailable_models: bool = False,
          enable_batching: bool = False,
          batching_parameters_file: str | os.PathLike | None = None,
          grpc_port: int = 0, grpc_port_optional: bool = False,
          grpc_max_threads: int | None = None,
          prometheus_path: str | None = None) -> None:
    """Serves `model_base_path` (or the models of `model_config_file`) over HTTP with TF
    Serving's REST API until SIGINT/SIGTERM.

    On SIGTERM the server stops accepting connections, finishes the requests
    in flight (up to `graceful_shutdown_seconds`) and returns. With
    `workers > 1` (beyond TF Serving) that many processes share the port, each
    with the model loaded: Python's one-thread-at-a-time interpreter then no
    longer caps the server at about one core. `intra_op_threads` /
    `inter_op_threads` (> 0) set torch's thread counts in every process;
    `intra_op_threads` 0 (the default) runs each op on one thread, as the
    requests already run side by side on the server's threads.

    The server has no authentication: `host` defaults to TF Serving's
    `0.0.0.0` (every interface), which is logged; pass `127.0.0.1` to serve
    this machine only. Per-connection limits (each process):

    Args:
        header_timeout_seconds: a request whose headers take longer gets 408
            and its connection is closed, as is a connection that sends
            nothing (default 10; None: no limit; `--header_timeout_seconds`).
        max_header_bytes: a request with larger headers gets 431 and its
            connection is closed (default 64 KiB; `--max_header_bytes`).
        keep_alive_seconds: an idle keep-alive connection is closed after this
            long (default 5; `--keep_alive_timeout_seconds`).
        max_connections: past this many open connections a request is answered
            503; past 1.25x it a new connection is closed at once (default
            `default_max_connections()`: from the process's file-descriptor
            limit, at most 1024; `--rest_api_max_connections`).
        max_requests_per_connection: a connection is closed after answering
            this many (default 0: no limit; `--max_requests_per_connection`).
        grpc_port: serve TF Serving's gRPC API there too (0: none; `--port`);
            with `grpc_port_optional` a port in use is logged, not fatal.
        grpc_max_threads: threads of the gRPC server (`--grpc_max_threads`; None: as many
            as `num_threads`).
        prometheus_path: serve Prometheus metrics at this REST path
            (`--monitoring_config_file`; None: none).

    See `create_app` for the other arguments and limits (`model_config_file`,
    `enable_batching`, ...).
    """
    import uvicorn  # lazy: optional extra (uvicorn)


    check_positive("max_header_bytes", max_header_bytes, "--max_header_bytes")
    check_positive("keep_alive_seconds", keep_alive_seconds, "--keep_alive_timeout_seconds")
    check_positive("header_timeout_seconds", header_timeout_seconds,
                   "--header_timeout_seconds", allow_none=True)
    check_positive("max_connections", max_connections, "--rest_api_max_connections",
                   allow_none=True)
    connections = max_connections or default_max_connections()
    settings = {"model_name": model_name,
                "model_base_path": None if model_base_path is None else os.fspath(model_base_path),
                "model_config_file": None if not model_config_file else os.path.abspath(
                    model_config_file),
                "model_config_file_poll_wait_seconds": model_config_file_poll_wait_seconds,
                "allow_version_labels_for_unavailable_models":
                    allow_version_labels_for_unavailable_models,
                "enable_batching": enable_batching,
                "batching_parameters_file": None if not batching_parameters_file else
                os.path.abspath(batching_parameters_file),
                "num_threads": num_threads, "max_body_bytes": max_body_bytes,
                "timeout_seconds": timeout_seconds, "poll_seconds": poll_seconds,
                "intra_op_threads": intra_op_threads, "inter_op_threads": inter_op_threads,
                "max_rows": max_rows, "max_response_bytes": max_response_bytes,
                "body_timeout_seconds": body_timeout_seconds, "max_queue": max_queue,
                # gRPC and metrics (serving/_grpc.py, serving/_monitoring.py)
                "grpc": {"port": grpc_port, "host": host, "optional": grpc_port_optional,
                         "reuse_port": workers > 1, "max_threads": grpc_max_threads,
                         "grace_seconds": graceful_shutdown_seconds},
                "prometheus_path": prometheus_path}
    options = {"host": host, "port": rest_api_port, "lifespan": "on", "log_level": log_level,
               "access_log": False, "backlog": 4096, "server_header": False,
               "timeout_graceful_shutdown": graceful_shutdown_seconds,
               "http": _protocol.GuardedHttpProtocol, "limit_concurrency": connections,
               "timeout_keep_alive": keep_alive_seconds}
    if workers > 1:
        _check_before_forking(model_name, model_base_path, model_config_file, enable_batching,
                              batching_parameters_file)
        os.environ[_SETTINGS_VARIABLE] = json.dumps(settings)
        config = uvicorn.Config(f"{__name__}:app_from_environment", factory=True,
                                workers=workers, **options)
    else:
        config = uvicorn.Config(_app_from_settings(settings), **options)
    _protocol.configure(config, header_timeout_seconds=header_timeout_seconds,
                        max_header_bytes=max_header_bytes,
                        max_requests_per_connection=max_requests_per_connection,
                        hard_connection_cap=hard_connection_cap(connections))
    _LOG.info("Exporting HTTP/REST API at %s:%d for %s (%d process%s)", host,
              rest_api_port, f"the models of {model_config_file}" if model_config_file
              else f"model {model_name}", workers, "es" if workers > 1 else "")
    log_exposure(host)
    _LOG.info("Limits: %d connections, bodies up to %d bytes, %s rows per request, answers up "
              "to %s bytes, headers within %s s, bodies within %s s, %d requests queued",
              connections, max_body_bytes, max_rows or "any", max_response_bytes or "any",
              header_timeout_seconds or "any", body_timeout_seconds or "any", max_queue)
    # Uvicorn stops gracefully on SIGINT/SIGTERM, puts back the handlers it found and raises
    # the signal again: with these no-op handlers that returns here, and the exit status is 0.
    previous = {sig: signal.signal(sig, _ignore) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if workers > 1:
            from uvicorn.supervisors import Multiprocess  # lazy: optional extra (uvicorn)

            Multiprocess(config, sockets=[config.bind_socket()]).run()
        else:
            uvicorn.Server(config).run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _check_before_forking(model_name: str, model_base_path: str | os.PathLike | None,
                          model_config_file: str | os.PathLike | None, enable_batching: bool,
                          batching_parameters_file: str | os.PathLike | None) -> None:
    """The errors every worker process would meet, raised once in the parent."""
    if enable_batching:
        parse_batching_parameters(batching_parameters_file)
    if model_config_file:
        for spec in parse_model_config(model_config_file):
            ModelVersions(spec.name, spec.base_path).check_base_path()
    else:
        ModelVersions(model_name, model_base_path or "").check_base_path()


def log_exposure(host: str) -> None:
    """Logs (a warning) that the server listens on every interface without authentication,
    when `host` is 0.0.0.0, :: or empty."""
    if host in ("0.0.0.0", "::", "", "[::]"):
        _LOG.warning("Listening on all network interfaces (%s) without authentication: anyone "
                     "who can reach this port can query the model; pass --host 127.0.0.1 to "
                     "serve this machine only, or put an authenticating proxy in front",
                     host or "0.0.0.0")


_SETTINGS_VARIABLE = "TORCHESTIMATOR_SERVING_SETTINGS"


def _app_from_settings(settings: dict[str, Any]) -> RestApp:
    settings = dict(settings)
    intra, inter = settings.pop("intra_op_threads", 0), settings.pop("inter_op_threads", 0)

    # 0 (the default): one thread per op. The server already runs requests (and batches) side
    # by side on its own threads; torch's per-op thread pool on top of them oversubscribes the
    # cores, and an op then waits for a descheduled pool thread: on a busy 2-core machine a
    # 2- to 64-row linear layer took 2.6-6.4 ms on 2 threads, 10-80 us on one.
    torch.set_num_threads(intra if intra > 0 else 1)
    if inter > 0:
        torch.set_num_interop_threads(inter)
    app = create_app(**settings)
    # The modules and the loaded models live as long as the server: moved out of the
    # collector's generations, a full collection no longer walks them (hundreds of ms with
    # the GIL held, at random requests). A version unloaded later unfreezes them
    # (`Servable._unload`), so its reference cycles are still collected.
    gc.collect()
    gc.freeze()
    return app


def app_from_environment() -> RestApp:
    """The app of one worker process of `serve(..., workers=N)`: `create_app` with the settings
    the parent process put in the environment."""
    return _app_from_settings(json.loads(os.environ[_SETTINGS_VARIABLE]))


def _ignore(signum: int, frame: Any) -> None:
    """A signal handler that does nothing (see `serve`)."""
