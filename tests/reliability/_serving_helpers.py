"""Helpers of the serving reliability tests: a small real export, and one request through the
server's ASGI app in this process."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import numpy as np

import torchestimator as tf

SERVING_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "serving")
X = np.linspace(-1, 1, 16, dtype=np.float32)


def serving_testlib():
    """tests/serving/_serving_testlib.py (its `Server` runs `torchestimator serve`)."""
    if SERVING_TESTS not in sys.path:
        sys.path.insert(0, SERVING_TESTS)
    import _serving_testlib

    return _serving_testlib


def make_export(model_dir: str, export_dir_base: str, steps: int = 2) -> str:
    """Trains a DNNRegressor on x -> x for `steps` and exports it (raw receiver, float input
    "x") under `export_dir_base`; returns the version directory."""
    columns = [tf.feature_column.numeric_column("x")]
    est = tf.estimator.DNNRegressor([4], columns, model_dir=model_dir,
                                    config=tf.estimator.RunConfig(tf_random_seed=1))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, X)).batch(8), steps=steps)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None], tf.float32)})
    return os.fsdecode(est.export_saved_model(export_dir_base, receiver))


PREDICT = json.dumps({"signature_name": "predict", "instances": [0.5, -0.5]}).encode()


def asgi_request(app, method: str, path: str, body: bytes = b"",
                 raw_path: bytes | None = None) -> tuple[int, dict]:
    """One request through the ASGI `app`, in this process: (status, decoded JSON body)."""
    sent: list[dict] = []
    chunks = [body]

    async def receive():
        return {"type": "http.request", "body": chunks.pop() if chunks else b"",
                "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path,
             "raw_path": raw_path if raw_path is not None else path.encode(),
             "headers": [(b"content-length", str(len(body)).encode())]}
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], json.loads(sent[1]["body"])
