"""Helpers for the serving tests: exports, a real server process, a real HTTP client.

The server is `python -m torchestimator serve` on a free port; requests go
over HTTP with `urllib` / `http.client`.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import numpy as np

import torchestimator as tf

IRIS = tf.datasets.iris.FEATURE_NAMES
IRIS_ROWS = [
    {"SepalLength": 5.1, "SepalWidth": 3.3, "PetalLength": 1.7, "PetalWidth": 0.5},
    {"SepalLength": 5.9, "SepalWidth": 3.0, "PetalLength": 4.2, "PetalWidth": 1.5},
    {"SepalLength": 6.9, "SepalWidth": 3.1, "PetalLength": 5.4, "PetalWidth": 2.1},
]
KINDS = ["a", "b", "c"]


def iris_arrays() -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The Iris training rows: feature name -> float32 column, and the labels."""
    (train_x, train_y), _ = tf.datasets.iris.load_data()
    features = {k: np.ascontiguousarray(train_x[:, i]) for i, k in enumerate(IRIS)}
    return features, np.asarray(train_y, dtype=np.int64)


def training_input_fn(features: dict, labels: np.ndarray):
    """An input_fn repeating (features, labels) in batches of 16."""
    def input_fn():
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(16)
    return input_fn


def copy_version(src: bytes | str, base: str, version: int) -> str:
    """Copies the export `src` to `base/version`; returns the copy's path."""
    dst = os.path.join(base, str(version))
    shutil.copytree(os.fsdecode(src), dst)
    return dst


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`python -m torchestimator serve` as a subprocess, and an HTTP client for it."""

    def __init__(self, model_name: str, base_path: str, *extra: str):
        self.model_name = model_name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(base_path + ".log")
        # no gRPC unless the test asks for it: servers of tests running side by side (xdist)
        # would all reach for gRPC's default port 8500, and all but one log that it is taken
        grpc = () if any(a == "--port" or a.startswith("--port=") for a in extra) else ("--port", "0")
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "torchestimator", "serve", "--host", "127.0.0.1",
             "--rest_api_port", str(self.port), "--model_name", model_name,
             "--model_base_path", base_path, "--file_system_poll_wait_seconds", "0.2",
             "--log_level", "warning", *grpc, *extra],
            stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n"
                                   + self.log())
            try:
                status, _ = self.get(f"/v1/models/{model_name}")
                if status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the server did not answer in 120 s:\n" + self.log())
            time.sleep(0.1)

    def log(self) -> str:
        """What the server wrote so far."""
        if not self._log.closed:
            self._log.flush()
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def request(self, method: str, path: str, body: Any = None,
                raw: bytes | None = None) -> tuple[int, Any]:
        """(status, decoded JSON body) of one request; `body` is sent as JSON, `raw` as is."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.url + path, data=data, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def get(self, path: str) -> tuple[int, Any]:
        """GET `path`."""
        return self.request("GET", path)

    def post(self, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
        """POST `body` (as JSON) or `raw` bytes to `path`."""
        return self.request("POST", path, body, raw)

    def model(self, suffix: str = "") -> str:
        """`/v1/models/NAME` + suffix."""
        return f"/v1/models/{self.model_name}{suffix}"

    def stop(self) -> None:
        """Stops the server (SIGTERM, then SIGKILL after 15 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def keep_alive_connection(server: Server) -> http.client.HTTPConnection:
    """A persistent HTTP/1.1 connection to `server`."""
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)


def serialized_examples(rows: list[dict[str, Any]]) -> list[bytes]:
    """tf.train.Examples of `rows` (floats to float_list, str to bytes_list), serialized."""
    out = []
    for row in rows:
        example = tf.train.Example()
        for key, value in row.items():
            if isinstance(value, str):
                example.features.feature[key].bytes_list.value.append(value.encode())
            else:
                example.features.feature[key].float_list.value.append(float(value))
        out.append(example.SerializeToString())
    return out


def load(path: str) -> Any:
    """`tf.saved_model.load(path)`."""
    return tf.saved_model.load(path)


async def asgi_request(app: Any, path: str, body: bytes, method: str = "POST"
                       ) -> tuple[int, bytes]:
    """One request through the ASGI `app`, in process on the running event loop: (HTTP
    status, body)."""
    sent: list = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return messages.pop(0)

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path,
             "headers": [(b"content-length", str(len(body)).encode())]}
    await app(scope, receive, send)
    return sent[0]["status"], sent[1]["body"]


def burn_cpu(seconds: float) -> None:
    """Spends `seconds` of this thread's CPU time (a request made expensive)."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass
