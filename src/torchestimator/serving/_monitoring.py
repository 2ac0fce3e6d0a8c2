"""Prometheus metrics of the server: `--monitoring_config_file`, as TF Serving's.

The file is TF Serving's text-format `MonitoringConfig`:

    prometheus_config {
      enable: true,
      path: "/monitoring/prometheus/metrics"
    }

With `enable: true` the REST port answers GET `path` (TF Serving's default
path when none is given) in Prometheus' text format (version 0.0.4), with the
metrics under TF Serving's names:

    :tensorflow:serving:request_count{model_name, API, signature_name, entrypoint, status}
                                                        counter
    :tensorflow:serving:request_latency{model_name, API, signature_name, entrypoint}
                                                        histogram, in microseconds
    :tensorflow:serving:model_versions_loaded{model_name}
                                                        gauge

`API` is predict, classify, regress, multi_inference, metadata or status;
`signature_name` is the signature the request ran (the first, for a
MultiInference of several), "" when it ran none (metadata, status, or a
request that failed before its model call: an unknown signature among them);
`entrypoint` is REST or GRPC; `status` is TF Serving's error code (OK,
INVALID_ARGUMENT, NOT_FOUND, ...). A request naming a model this server does
not serve is counted under `model_name=""`, so that clients cannot grow the
number of series; the signature label only ever names a signature that ran.
TF Serving's request count has the labels model_name and status, its latency
model_name, API and entrypoint: a query that selects on those selects the
same requests here (summing over the labels it does not name). With `--rest_api_workers > 1` each process counts its own
requests (a scrape reaches one of them).
"""

from __future__ import annotations

import bisect
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf import text_format

DEFAULT_PATH = "/monitoring/prometheus/metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
SIGNATURES_RUN = "torchestimator.signatures_run"  # an ASGI scope key: the list the REST app
# appends the names of the signatures a request ran to (MonitoredApp's signature label)
REQUEST_COUNT = ":tensorflow:serving:request_count"
REQUEST_LATENCY = ":tensorflow:serving:request_latency"
VERSIONS_LOADED = ":tensorflow:serving:model_versions_loaded"
#: latency bucket bounds in microseconds: TF Serving's (10 us x 1.8^i, 33 buckets)
LATENCY_BUCKETS_US = tuple(10 * 1.8 ** i for i in range(33))
_HTTP_CODES = {200: "OK", 400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 408: "DEADLINE_EXCEEDED",
               413: "RESOURCE_EXHAUSTED", 431: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
               503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
_REST_PATH = re.compile(
    r"/v1/models/([^/:]+)(?:/versions/\d+|/labels/[^/:]+)?(?::(classify|regress|predict)|"
    r"(/metadata))?", re.IGNORECASE)


def read_monitoring_config(path: str | os.PathLike) -> str | None:
    """Reads the text-format MonitoringConfig file at `path`; returns the Prometheus path to
    serve, or None when `prometheus_config.enable` is false. Raises ValueError naming the file
    and what is wrong (a parse error, a path not starting with '/'); OSError when unreadable."""

    from torchestimator.serving._serving_protos import (  # lazy: heavy (torchestimator.serving._serving_protos, 101 ms)
        MonitoringConfig,
    )

    with open(path, encoding="utf-8") as f:
        text = f.read()
    config = MonitoringConfig()
    try:
        text_format.Parse(text, config)
    except text_format.ParseError as error:
        raise ValueError(f"--monitoring_config_file {os.fspath(path)!r} is not a text-format "
                         f"MonitoringConfig: {error}; write e.g. prometheus_config {{ enable: "
                         f'true, path: "{DEFAULT_PATH}" }}') from None
    prometheus = config.prometheus_config
    if not prometheus.enable:
        return None
    target = prometheus.path or DEFAULT_PATH
    if not target.startswith("/") or any(c in target for c in "?# "):
        raise ValueError(f"--monitoring_config_file {os.fspath(path)!r}: prometheus_config.path "
                         f"must be a URL path starting with '/'; got {target!r}")
    return target


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: tuple[str, ...], values: tuple[str, ...], extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}"


def _number(value: float) -> str:
    return repr(float(value)) if value != int(value) else str(int(value))


class Metrics:
    """The server's request metrics (thread-safe), written in Prometheus' text format.

    `models` (model name -> ModelVersions) gives the loaded-versions gauge.
    """

    def __init__(self, models: Mapping[str, Any] | None = None):
        self._models = models or {}
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, str, str, str, str], int] = {}
        # (model, API, signature, entrypoint) -> [bucket counts..., sum in us, count]
        self._latency: dict[tuple[str, str, str, str], list[float]] = {}

    def observe(self, model: str, method: str, protocol: str, status: str,
                seconds: float, signature: str = "") -> None:
        """Counts one request to `model` (its `method`: predict, classify, ...; the
        `signature` it ran, "" for none) over `protocol` (rest or grpc) answered with
        `status` (TF Serving's error code name, e.g. OK) in `seconds`."""
        entrypoint = protocol.upper()
        micros = seconds * 1e6
        index = bisect.bisect_left(LATENCY_BUCKETS_US, micros)
        with self._lock:
            key = (model, method, signature, entrypoint, status)
            self._counts[key] = self._counts.get(key, 0) + 1
            latency = self._latency.get(key[:4])
            if latency is None:
                latency = self._latency[key[:4]] = [0.0] * (len(LATENCY_BUCKETS_US) + 3)
            latency[index] += 1
            latency[-2] += micros
            latency[-1] += 1

    def render(self) -> bytes:
        """The metrics in Prometheus' text exposition format (0.0.4)."""
        with self._lock:
            counts = sorted(self._counts.items())
            latency = sorted((k, list(v)) for k, v in self._latency.items())
        lines = [f"# HELP {REQUEST_COUNT} The total number of requests.",
                 f"# TYPE {REQUEST_COUNT} counter"]
        names = ("model_name", "API", "signature_name", "entrypoint", "status")
        lines += [f"{REQUEST_COUNT}{_labels(names, key)} {value}" for key, value in counts]
        lines += [f"# HELP {REQUEST_LATENCY} Distribution of wall time (in microseconds) for "
                  "requests.", f"# TYPE {REQUEST_LATENCY} histogram"]
        for key, values in latency:
            cumulative = 0.0
            for bound, count in zip(LATENCY_BUCKETS_US, values):
                cumulative += count
                le = f'le="{_number(bound)}"'
                lines.append(f"{REQUEST_LATENCY}_bucket{_labels(names[:4], key, le)} "
                             f"{int(cumulative)}")
            le = 'le="+Inf"'
            lines.append(f"{REQUEST_LATENCY}_bucket{_labels(names[:4], key, le)} "
                         f"{int(values[-1])}")
            lines.append(f"{REQUEST_LATENCY}_sum{_labels(names[:4], key)} {_number(values[-2])}")
            lines.append(f"{REQUEST_LATENCY}_count{_labels(names[:4], key)} {int(values[-1])}")
        lines += [f"# HELP {VERSIONS_LOADED} The number of versions of a model loaded and "
                  "serving.", f"# TYPE {VERSIONS_LOADED} gauge"]
        for name in sorted(self._models):
            lines.append(f'{VERSIONS_LOADED}{{model_name="{_escape(name)}"}} '
                         f"{_loaded_versions(self._models[name])}")
        return ("\n".join(lines) + "\n").encode("utf-8")

    def model_label(self, name: str) -> str:
        """`name` when it is a served model, else "" (bounded label values)."""
        return name if name in self._models else ""


def _loaded_versions(models: Any) -> int:
    try:
        return sum(entry["state"] == "AVAILABLE" for entry in models.status(None))
    except Exception:  # noqa: BLE001 - no versions yet (the status API's 404)
        return 0


def _rest_route(path: str) -> tuple[str, str]:
    """(model name, API) of a REST path."""
    match = _REST_PATH.fullmatch(path)
    if match is None:
        return "", "other"
    name, verb, metadata = match.groups()
    return name, (verb.lower() if verb else "metadata" if metadata else "status")


class MonitoredApp:
    """An ASGI app around `app` (the REST app) that answers GET `path` with `metrics` in
    Prometheus' text format and counts every other request in `metrics` (API and model from
    the path, status from the HTTP status, latency from the request's start to its answer)."""

    def __init__(self, app: Callable, metrics: Metrics, path: str = DEFAULT_PATH):
        self.app = app
        self.metrics = metrics
        self.path = path

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path == self.path:
            await self._scrape(scope, send)
            return
        started = time.perf_counter()
        status = [500]
        ran: list[str] = []  # (the signatures the request ran: RestApp appends them)
        scope = {**scope, SIGNATURES_RUN: ran}

        async def watching_send(message: dict) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watching_send)
        finally:
            name, api = _rest_route(path)
            self.metrics.observe(self.metrics.model_label(name), api, "rest",
                                 _HTTP_CODES.get(status[0], f"HTTP_{status[0]}"),
                                 time.perf_counter() - started, ran[0] if ran else "")

    async def _scrape(self, scope: dict, send: Callable) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            body, status, kind = (f"Method {scope['method']} not allowed on {self.path}: "
                                  "GET the metrics").encode(), 405, b"text/plain; charset=utf-8"
        else:
            body, status, kind = self.metrics.render(), 200, CONTENT_TYPE.encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", kind),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else body})
