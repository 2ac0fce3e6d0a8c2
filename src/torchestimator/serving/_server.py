"""Building the server: models, thread pool, ASGI app, and running it on Uvicorn."""

from __future__ import annotations

import json
import logging
import os
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from torchestimator.serving._app import RestApp
from torchestimator.serving._rest import RestApi
from torchestimator.serving._versions import ModelVersions, load_export

_LOG = logging.getLogger("torchestimator.serving")
DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024


def default_num_threads() -> int:
    """Threads answering requests when --rest_api_num_threads is not given: one per core, at
    least 2 and at most 16. (TF Serving uses 4 per core; here the request work is mostly Python,
    which one interpreter lock serializes, and more threads than cores only add contention:
    see bench/bench_serving.py --threads.)"""
    return max(2, min(16, os.cpu_count() or 1))


def create_app(model_name: str, model_base_path: str | os.PathLike, *,
               num_threads: int | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
               timeout_seconds: float | None = 30.0, poll_seconds: float = 1.0,
               loader: Callable[[str], Any] = load_export) -> RestApp:
    """Returns the ASGI app serving TF Serving's REST API for one model.

    Loads the newest version under `model_base_path` now (older ones on the
    first request that names them) and, with `poll_seconds > 0`, watches for
    new versions. The app can be run by any ASGI server (`serve` runs it on
    Uvicorn) or mounted in an ASGI framework.

    Args:
        model_name: the NAME in `/v1/models/NAME`.
        model_base_path: the directory of numbered version directories (an
            `export_dir_base`).
        num_threads: threads that parse requests and run the model (default
            `default_num_threads()`).
        max_body_bytes: larger request bodies are refused with 413.
        timeout_seconds: a request not answered by then gets 504 (None: no limit).
        poll_seconds: how often to look for new versions (0: never).
        loader: loads one version directory (default `tf.saved_model.load`).

    Raises:
        FileNotFoundError when `model_base_path` is not a directory of versions.
    """
    if max_body_bytes <= 0:
        raise ValueError(f"max_body_bytes must be > 0; got {max_body_bytes}")
    versions = ModelVersions(model_name, model_base_path, loader=loader,
                             poll_seconds=poll_seconds)
    versions.start()
    executor = ThreadPoolExecutor(max_workers=num_threads or default_num_threads(),
                                  thread_name_prefix="serving")

    def shutdown() -> None:
        versions.stop()
        executor.shutdown(wait=False, cancel_futures=True)

    return RestApp(RestApi({model_name: versions}), executor, max_body_bytes,
                   timeout_seconds=timeout_seconds, on_shutdown=shutdown)


def serve(model_name: str, model_base_path: str | os.PathLike, *, rest_api_port: int = 8501,
          host: str = "0.0.0.0", num_threads: int | None = None,
          max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, timeout_seconds: float | None = 30.0,
          poll_seconds: float = 1.0, graceful_shutdown_seconds: float = 10.0,
          log_level: str = "info", workers: int = 1, intra_op_threads: int = 0,
          inter_op_threads: int = 0) -> None:
    """Serves `model_base_path` over HTTP with TF Serving's REST API until SIGINT/SIGTERM.

    On SIGTERM the server stops accepting connections, finishes the requests
    in flight (up to `graceful_shutdown_seconds`) and returns. With
    `workers > 1` (beyond TF Serving) that many processes share the port, each
    with the model loaded: Python's one-thread-at-a-time interpreter then no
    longer caps the server at about one core. `intra_op_threads` /
    `inter_op_threads` (> 0) set torch's thread counts in every process. See
    `create_app` for the other arguments.
    """
    import uvicorn

    settings = {"model_name": model_name, "model_base_path": os.fspath(model_base_path),
                "num_threads": num_threads, "max_body_bytes": max_body_bytes,
                "timeout_seconds": timeout_seconds, "poll_seconds": poll_seconds,
                "intra_op_threads": intra_op_threads, "inter_op_threads": inter_op_threads}
    options = {"host": host, "port": rest_api_port, "lifespan": "on", "log_level": log_level,
               "access_log": False, "backlog": 4096, "server_header": False,
               "timeout_graceful_shutdown": graceful_shutdown_seconds}
    if workers > 1:
        ModelVersions(model_name, model_base_path).check_base_path()  # fail before forking
        os.environ[_SETTINGS_VARIABLE] = json.dumps(settings)
        config = uvicorn.Config(f"{__name__}:app_from_environment", factory=True,
                                workers=workers, **options)
    else:
        config = uvicorn.Config(_app_from_settings(settings), **options)
    _LOG.info("Exporting HTTP/REST API at %s:%d for model %s (%d process%s)", host,
              rest_api_port, model_name, workers, "es" if workers > 1 else "")
    # Uvicorn stops gracefully on SIGINT/SIGTERM, puts back the handlers it found and raises
    # the signal again: with these no-op handlers that returns here, and the exit status is 0.
    previous = {sig: signal.signal(sig, _ignore) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if workers > 1:
            from uvicorn.supervisors import Multiprocess

            Multiprocess(config, sockets=[config.bind_socket()]).run()
        else:
            uvicorn.Server(config).run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


_SETTINGS_VARIABLE = "TORCHESTIMATOR_SERVING_SETTINGS"


def _app_from_settings(settings: dict[str, Any]) -> RestApp:
    settings = dict(settings)
    intra, inter = settings.pop("intra_op_threads", 0), settings.pop("inter_op_threads", 0)
    if intra or inter:
        import torch

        if intra > 0:
            torch.set_num_threads(intra)
        if inter > 0:
            torch.set_num_interop_threads(inter)
    return create_app(**settings)


def app_from_environment() -> RestApp:
    """The app of one worker process of `serve(..., workers=N)`: `create_app` with the settings
    the parent process put in the environment."""
    return _app_from_settings(json.loads(os.environ[_SETTINGS_VARIABLE]))


def _ignore(signum: int, frame: Any) -> None:
    """A signal handler that does nothing (see `serve`)."""
