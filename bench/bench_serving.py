"""Serving benchmark: the Iris DNNClassifier export, in process, over REST and gRPC.

    python bench/bench_serving.py [--duration 10] [--clients 64] [--threads 0,8]

1. In process: `loaded.signatures["predict"](examples=...)` calls per second
   at batch 1 and batch 100 (serialized tf.train.Examples: parsing included),
   and `call_on_features` on the same rows (no Example bytes).
2. REST: `torchestimator serve` as a subprocess; `--clients` concurrent
   keep-alive connections each POST `:predict` with one instance (a plain
   feature dict, and a b64 Example) for `--duration` seconds: requests/s,
   p50/p99 latency, errors, and the server's peak RSS (VmHWM) with one model.
   The load generator is a minimal asyncio HTTP/1.1 client (on uvloop when
   installed), not an HTTP library: a library client would spend more of the
   machine's cores than the server under test.

3. A 10^6-row `:predict` answer (`{"inputs": {feature: [10^6 values]}}`, the
   amplification attack of security issue 26): seconds to answer in process
   and the process's peak RSS, with the answer written from whole arrays
   (`_json_out`, now) and as before (nested lists + `json.dumps`), each in a
   fresh process (`--rows`, 0 to skip).

4. `--grpc` (or `--batching`): instead of the table of 2., the issue-33 table:
   `:predict` of one serialized Example (REST: a b64 Example; gRPC:
   PredictionService/Predict with a DT_STRING TensorProto) at 1, 16 and 64
   concurrent keep-alive clients (`--grpc_clients`), against, in one run:
   a bare ASGI app on the server's own HTTP stack answering a constant JSON
   (the HTTP stack's ceiling) and a bare grpc.aio server answering a constant
   PredictResponse (the gRPC stack's), `serve` (REST and gRPC), `serve
   --enable_batching` (max_batch_size `--max_batch_size`, batch_timeout_micros
   `--batch_timeout_micros`, one batch thread; REST and gRPC; one server per
   timeout when several are given: a batch holds the requests that arrive
   within its timeout, so a longer one makes larger batches), and with
   `--noop` `serve` with every signature call replaced by a constant answer
   (the protocols' ceiling without the model); with `--rollover`, a version
   rolled in under load for each protocol (errors, latency, and how long
   the swap took). Each row: requests/s, p50,
   p99, p99.9 latency, errors, the server's peak RSS, and the server's and
   the load generator's CPU ms per request; then the goals. The load
   generator runs in a separate process with one event loop (raw HTTP/1.1
   on uvloop; grpc.aio, one channel per client), so that it never shares
   the server's interpreter lock; with `--load_generator h2load`, nghttp2's
   h2load (in C) loads both protocols instead, spending less of the cores
   the server shares (its latencies come from its per-request log; a gRPC
   answer missing its message counts as an error). With `--request_cpu`,
   the goals are followed by the ratios the stacks allow: each request
   costing its bare stack's server CPU plus the in-process work of 5.

5. `--request_cpu`: the server's own CPU per request, in process on one
   thread (thread CPU time, best of 7 rounds, so a busy machine does not
   inflate it): REST `RestApi.handle` and gRPC `PredictionApi.predict` (request
   parsing included), with the model, with the model call replaced by a
   constant answer (the serving code alone), and the model call alone (the
   signature's general path, and the server's batch-1 fast path).

Client and server share this machine's cores; `nproc` is printed with the
figures. The export is made once (a few training steps) unless
`--export_base` names an existing base directory.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np

if "--_load" not in sys.argv:  # (the load generator process stays light: no torch)
    import torchestimator as tf

ROW = {"SepalLength": 5.1, "SepalWidth": 3.3, "PetalLength": 1.7, "PetalWidth": 0.5}
IRIS = list(ROW)  # tf.datasets.iris.FEATURE_NAMES


def make_export(base: str) -> str:
    """Trains the Iris DNNClassifier [10, 10] briefly and exports it under base/1."""
    (x, y), _ = tf.datasets.iris.load_data()
    features = {k: np.ascontiguousarray(x[:, i]) for i, k in enumerate(IRIS)}
    columns = [tf.feature_column.numeric_column(k) for k in IRIS]
    estimator = tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns,
                                           n_classes=3, model_dir=os.path.join(base, "..", "m"))
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((features, y)).repeat().batch(32),
                    steps=50)
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(columns))
    path = os.fsdecode(estimator.export_saved_model(os.path.join(base, "..", "exports"), receiver))
    target = os.path.join(base, "1")
    os.makedirs(base, exist_ok=True)
    os.rename(path, target)
    return target


def serialized(rows: list[dict]) -> list[bytes]:
    """The rows as serialized tf.train.Examples."""
    out = []
    for row in rows:
        example = tf.train.Example()
        for key, value in row.items():
            example.features.feature[key].float_list.value.append(value)
        out.append(example.SerializeToString())
    return out


def rate(fn, seconds: float = 2.0) -> float:
    """Calls per second of `fn()` over about `seconds`."""
    fn()
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(10):
            fn()
        calls += 10
    return calls / elapsed


def in_process(export_dir: str) -> list[tuple[str, float]]:
    """(label, calls/s) of the signature called in this process."""
    loaded = tf.saved_model.load(export_dir)
    predict = loaded.signatures["predict"]
    rows = []
    for batch in (1, 100):
        examples = serialized([ROW] * batch)
        columns = {k: np.full(batch, ROW[k], dtype=np.float32) for k in IRIS}
        rows.append((f'signatures["predict"](examples=...) batch {batch}',
                     rate(lambda e=examples: predict(examples=e))))
        rows.append((f"call_on_features batch {batch}",
                     rate(lambda c=columns: predict.call_on_features(c))))
    return rows


def request_cpu(base: str, repeats: int = 1000) -> list[tuple[str, float]]:
    """(label, CPU us) per request of the server's own work, in this process on this thread
    (thread CPU time, best of 7 rounds: what a shared machine's load does not inflate):
    `RestApi.handle` of a b64 Example `:predict` and `PredictionApi.predict` of a DT_STRING
    PredictRequest (parsing included), with the real model call, with the model call
    replaced by a constant answer (the serving code alone), and the model call alone."""
    import torch  # lazy: the load generator (this script with --_load) imports no torch

    from torchestimator.serving import _grpc, _model_calls, _rest  # lazy: as torch
    from torchestimator.serving import _serving_protos as pb  # lazy: as torch
    from torchestimator.serving._versions import ModelVersions  # lazy: as torch

    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)  # (as `serve` runs it)
    models = ModelVersions("iris", base, poll_seconds=0)
    models.start()
    rest, grpc_api = _rest.RestApi({"iris": models}), _grpc.PredictionApi({"iris": models})
    example = serialized([ROW])[0]
    body = json.dumps({"signature_name": "predict", "instances": [
        {"b64": base64.b64encode(example).decode()}]}).encode()
    request = pb.PredictRequest()
    request.model_spec.name, request.model_spec.signature_name = "iris", "predict"
    tensor = request.inputs["examples"]
    tensor.dtype = 7
    tensor.tensor_shape.dim.add(size=1)
    tensor.string_val.append(example)
    data = request.SerializeToString()
    signature = models.get(None).signatures["predict"]
    examples = np.array([example], dtype=object)
    answer = signature(examples=examples)
    real = _model_calls.call_signature

    def constant(signature, inputs, features=False):
        return answer

    cases = [("model call alone: signatures['predict'](examples=...)",
              lambda: signature(examples=examples), real)]
    try:
        from torchestimator.serving._fast_call import fast_call  # lazy: as torch
    except ImportError:  # (an older serving package: no fast path)
        fast_call = None
    if fast_call is not None:
        cases.append(("model call alone, batch-1 fast path (_fast_call)",
                      lambda: fast_call(signature, {"examples": examples}), real))
    for label, call in (("real model", real), ("constant answer", constant)):
        cases.append((f"REST :predict handle ({label})", lambda: rest.handle(
            "POST", "/v1/models/iris:predict", body, time.monotonic() + 10), call))
        cases.append((f"gRPC Predict incl. parsing ({label})", lambda: grpc_api.predict(
            pb.PredictRequest.FromString(data), time.monotonic() + 10), call))
    rows = []
    try:
        for label, fn, call in cases:
            _model_calls.call_signature = call
            for _ in range(repeats // 4):
                fn()
            best = float("inf")
            for _ in range(7):
                start = time.thread_time()
                for _ in range(repeats):
                    fn()
                best = min(best, time.thread_time() - start)
            rows.append((label, best / repeats * 1e6))
    finally:
        _model_calls.call_signature = real
        models.stop()
        torch.set_num_threads(torch_threads)
    return rows


def free_port() -> int:
    """A free TCP port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_command(base: str) -> list[str]:
    """`torchestimator serve` of the model "iris" at the base directory `base`, on 127.0.0.1
    (the ports are the caller's flags)."""
    return [sys.executable, "-m", "torchestimator", "serve", "--host", "127.0.0.1",
            "--model_name", "iris", "--model_base_path", base, "--log_level", "warning"]


def start_server(base: str, port: int, threads: int, extra: list[str]) -> subprocess.Popen:
    """`torchestimator serve` on `port` (with `extra` flags), once it answers."""
    command = serve_command(base) + ["--rest_api_port", str(port)]
    if threads:
        command += ["--rest_api_num_threads", str(threads)]
    process = subprocess.Popen(command + extra)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models/iris", timeout=5):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start")


def _status_mib(pid: int, field: str) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mib(pid: int) -> float:
    """Peak RSS (VmHWM) in MiB of the server: of each worker process, when it has workers
    (the model is loaded in each), summed."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        children = []
    workers = [c for c in children if _status_mib(c, "VmHWM") > 100]  # not the resource tracker
    return sum(_status_mib(p, "VmHWM") for p in (workers or [pid]))


async def _client(port: int, request: bytes, stop_at: float, latencies: list, errors: list) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            body = await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            if head[9:12] != b"200":
                errors.append(body)
    except (OSError, asyncio.IncompleteReadError) as error:
        errors.append(repr(error))
    finally:
        writer.close()


def load_test(port: int, body: dict, clients: int, seconds: float) -> dict:
    """Requests/s, latency percentiles and errors of `clients` keep-alive connections."""
    payload = json.dumps(body).encode()
    request = (b"POST /v1/models/iris:predict HTTP/1.1\r\nHost: localhost\r\n"
               b"Content-Type: application/json\r\n"
               + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
    latencies: list[float] = []
    errors: list = []

    async def run() -> float:
        started = time.perf_counter()
        stop_at = started + seconds
        await asyncio.gather(*(_client(port, request, stop_at, latencies, errors)
                               for _ in range(clients)))
        return time.perf_counter() - started

    try:
        import uvloop

        elapsed = uvloop.run(run())
    except ImportError:
        elapsed = asyncio.run(run())
    latencies.sort()
    return {
        "requests/s": len(latencies) / elapsed,
        "p50 ms": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p99 ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan"),
        "p99.9 ms": (1000 * latencies[int(0.999 * (len(latencies) - 1))] if latencies
                     else float("nan")),
        "errors": len(errors),
        "first error": str(errors[0])[:200] if errors else "",
    }


def big_answer(export_dir: str, rows: int, writer: str) -> dict:
    """Answers one `rows`-row columnar :predict in this process with `writer` ('now': whole
    arrays; 'before': nested lists + json.dumps): seconds, answer MiB, peak RSS MiB."""
    import resource

    from torchestimator.serving import _rest
    from torchestimator.serving._json_tensor import outputs_to_columnar_json
    from torchestimator.serving._versions import ModelVersions

    if writer == "before":
        _rest.columnar_json = lambda outputs, limit=None: json.dumps(
            outputs_to_columnar_json(outputs), allow_nan=True, ensure_ascii=False).encode()
    versions = ModelVersions("iris", os.path.dirname(export_dir), poll_seconds=0)
    versions.start()
    api = _rest.RestApi({"iris": versions}, max_rows=None, max_response_bytes=None)
    rng = np.random.default_rng(0)
    body = json.dumps({"signature_name": "predict", "inputs": {
        k: np.round(rng.uniform(0, 8, rows), 1).tolist() for k in IRIS}}).encode()
    started = time.perf_counter()
    status, payload = api.handle("POST", "/v1/models/iris:predict", body)
    seconds = time.perf_counter() - started
    assert status == 200, payload[:300]
    return {"seconds": seconds, "answer MiB": len(payload) / 2**20,
            "peak RSS MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def big_answers(export_dir: str, rows: int) -> None:
    """Prints `big_answer` for both writers, each in a fresh process."""
    print(f"\n:predict answer of {rows:,} rows (columnar, Iris DNNClassifier; in process)")
    print(f"{'writer':<40}{'seconds':>9}{'answer MiB':>12}{'peak RSS MiB':>14}")
    for writer, label in (("before", "before (nested lists + json.dumps)"),
                          ("now", "now (whole arrays, orjson)")):
        out = subprocess.run([sys.executable, __file__, "--_big_answer", writer, "--rows",
                              str(rows), "--export_base", os.path.dirname(export_dir)],
                             capture_output=True, text=True, check=True).stdout
        figures = json.loads(out.strip().splitlines()[-1])
        print(f"{label:<40}{figures['seconds']:>9.2f}{figures['answer MiB']:>12.0f}"
              f"{figures['peak RSS MiB']:>14.0f}")


def grpc_load_test(port: int, request: bytes, clients: int, seconds: float) -> dict:
    """Like `load_test`, over gRPC: `clients` grpc.aio channels each calling
    PredictionService/Predict with the serialized PredictRequest `request`."""
    import grpc

    latencies: list[float] = []
    errors: list = []

    async def client(stop_at: float) -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            predict = channel.unary_unary("/tensorflow.serving.PredictionService/Predict")
            while time.perf_counter() < stop_at:
                started = time.perf_counter()
                try:
                    await predict(request, timeout=60)
                except grpc.aio.AioRpcError as error:
                    errors.append(f"{error.code().name}: {error.details()}")
                latencies.append(time.perf_counter() - started)

    async def run() -> float:
        started = time.perf_counter()
        await asyncio.gather(*(client(started + seconds) for _ in range(clients)))
        return time.perf_counter() - started

    return _percentiles(latencies, asyncio.run(run()), errors)


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) the process `pid` has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ the protocol table (6.)
def _percentiles(latencies: list[float], elapsed: float, errors: list) -> dict:
    latencies.sort()
    at = (lambda q: 1000 * latencies[int(q * (len(latencies) - 1))]) if latencies else (
        lambda q: float("nan"))
    return {"requests/s": len(latencies) / elapsed, "p50 ms": at(0.5), "p99 ms": at(0.99),
            "p99.9 ms": at(0.999), "max ms": at(1.0), "errors": len(errors),
            "first error": str(errors[0])[:200] if errors else ""}


def _http_load(port: int, request: bytes, clients: int, seconds: float) -> dict:
    """`clients` keep-alive HTTP/1.1 connections sending `request` (raw bytes) back to back."""
    latencies: list[float] = []
    errors: list = []

    async def run() -> float:
        started = time.perf_counter()
        stop_at = started + seconds
        await asyncio.gather(*(_client(port, request, stop_at, latencies, errors)
                               for _ in range(clients)))
        return time.perf_counter() - started

    try:
        import uvloop

        elapsed = uvloop.run(run())
    except ImportError:
        elapsed = asyncio.run(run())
    return _percentiles(latencies, elapsed, errors)


def load_process(protocol: str, port: int, request_file: str, clients: int, seconds: float,
                 server_pid: int) -> dict:
    """The load generator's side of `run_load` (in its own process): a warm-up second, then
    `seconds` of load; the figures, with the server's CPU ms per request."""
    with open(request_file, "rb") as f:
        request = f.read()
    if protocol == "grpc":
        test = lambda c, s: grpc_load_test(port, request, c, s)  # noqa: E731
    else:
        test = lambda c, s: _http_load(port, request, c, s)  # noqa: E731
    test(clients, 1.0)
    cpu = _cpu_seconds(server_pid)
    figures = test(clients, seconds)
    done = max(figures["requests/s"] * seconds, 1)
    figures["server CPU ms/req"] = 1000 * (_cpu_seconds(server_pid) - cpu) / done
    own = os.times()
    figures["client CPU ms/req"] = 1000 * (own.user + own.system) / (done * (1 + 1 / seconds))
    return figures


def run_load(protocol: str, port: int, request: bytes, clients: int, seconds: float,
             server_pid: int) -> dict:
    """`load_process` in a separate process (one Python process, one event loop: the load
    generator never shares this process's interpreter lock with anything)."""
    with tempfile.NamedTemporaryFile(delete=False, suffix=".bin") as f:
        f.write(request)
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--_load", protocol, "--_port", str(port),
             "--_request", f.name, "--clients", str(clients), "--duration", str(seconds),
             "--_server_pid", str(server_pid)],
            capture_output=True, text=True, timeout=seconds + 120)
    finally:
        os.unlink(f.name)
    if out.returncode:
        raise RuntimeError(f"the load generator failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


GRPC_PREDICT_PATH = "/tensorflow.serving.PredictionService/Predict"


def grpc_probe(port: int, request: bytes) -> int:
    """Calls PredictionService/Predict once with grpcio (which reads the gRPC status that
    h2load does not) and returns the answer's length on the wire: 5 bytes of gRPC framing
    plus the message. Raises when the call fails."""
    import grpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        answer = channel.unary_unary(GRPC_PREDICT_PATH)(request, timeout=60)
    return 5 + len(answer)


def h2load_run(protocol: str, port: int, request: bytes, clients: int, seconds: float,
               server_pid: int) -> dict:
    """The figures of `run_load` measured with nghttp2's h2load, a load generator in C: the
    same request on `clients` keep-alive connections (HTTP/1.1 for REST; HTTP/2 with one
    stream at a time per connection for gRPC), a 1 s warm-up, then `seconds` of load.
    Latency percentiles come from h2load's per-request log. h2load checks the HTTP status
    only; a gRPC call is counted failed when its answer lacks the bytes of the answer of a
    probe call made with grpcio (an error answers with trailers and no message)."""
    folder = tempfile.mkdtemp(prefix="bench-h2load-")
    data, log = os.path.join(folder, "request"), os.path.join(folder, "log")
    if protocol == "grpc":
        expected = grpc_probe(port, request)
        body, url = b"\0" + len(request).to_bytes(4, "big") + request, GRPC_PREDICT_PATH
        headers = ["content-type: application/grpc", "te: trailers"]
        flags = ["-m", "1"]
    else:
        head, body = request.split(b"\r\n\r\n", 1)
        url = head.split(b" ", 2)[1].decode()
        headers = [line.decode() for line in head.split(b"\r\n")[1:]
                   if line.split(b":")[0].lower() in (b"content-type",)]
        flags, expected = ["--h1"], 0
    with open(data, "wb") as f:
        f.write(body)
    command = ["h2load", *flags, "-c", str(clients), "-d", data, f"http://127.0.0.1:{port}{url}"]
    for header in headers:
        command += ["-H", header]

    def h2load(duration: float, *more: str) -> str:
        out = subprocess.run(command + ["-D", f"{round(duration * 1000)}ms", *more], capture_output=True,
                             text=True, timeout=duration + 120)
        if out.returncode:
            raise RuntimeError(f"h2load failed: {out.stdout[-1000:]}{out.stderr[-1000:]}")
        return out.stdout

    # The warm-up: over HTTP/1.1, the first second of the run (its connections' first
    # requests took up to 0.8 s in h2load's log, when a client opening 64 connections at once
    # answered all in 37 ms); over gRPC, a run of its own (h2load's data count includes the
    # warm-up's, and the error count below needs the run's alone).
    in_run = protocol == "rest"
    warm_up = ["--warm-up-time", "1"] if in_run else []
    if not in_run:
        h2load(1)
    own = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = _cpu_seconds(server_pid)
    text = h2load(seconds, "--log-file", log, *warm_up)
    server_cpu = _cpu_seconds(server_pid) - cpu
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    rate = float(re.search(r"finished in [\d.]+s, ([\d.]+) req/s", text).group(1))
    counts = re.search(r"requests: (\d+) total.*?(\d+) succeeded, (\d+) failed, (\d+) errored, "
                       r"(\d+) timeout", text)
    done, succeeded = int(counts.group(1)), int(counts.group(2))
    errors = done - succeeded
    first = f"h2load: {counts.group(0)}" if errors else ""
    if expected:  # (answers without a message: HTTP errors and gRPC errors alike)
        payload = int(re.search(r"\((\d+)\) data", text).group(1))
        missing = max(0, round((expected * done - payload) / expected))
        if missing > errors:
            errors, first = missing, f"{missing} of {done} gRPC answers without their message"
    with open(log) as f:
        latencies = [int(line.split("\t")[2]) / 1e6 for line in f if line.strip()]
    shutil.rmtree(folder, ignore_errors=True)
    figures = _percentiles(latencies, 1.0, [first] * errors)
    figures["requests/s"] = rate
    # (the CPU figures of an in-run warm-up cover its second too: as many requests again)
    total = max(done * (seconds + in_run) / seconds, 1)
    figures["server CPU ms/req"] = 1000 * server_cpu / total
    figures["client CPU ms/req"] = 1000 * (used.ru_utime + used.ru_stime - own.ru_utime
                                           - own.ru_stime) / total
    return figures


def bare_grpc_server(port: int) -> None:
    """A bare `grpc.aio` server answering PredictionService/Predict with a constant
    PredictResponse of the Iris classifier's outputs, on an event loop of its own thread as
    `serve` runs gRPC: the gRPC stack's ceiling."""
    import threading

    import grpc

    from torchestimator.serving import _grpc
    from torchestimator.serving import _serving_protos as pb

    response = pb.PredictResponse()
    response.model_spec.name = "iris"
    for key, value in {"logits": np.zeros((1, 3), np.float32),
                       "probabilities": np.zeros((1, 3), np.float32),
                       "class_ids": np.zeros((1, 1), np.int64),
                       "classes": np.array([[b"2"]], dtype=object),
                       "all_class_ids": np.zeros((1, 3), np.int32),
                       "all_classes": np.array([[b"0", b"1", b"2"]], dtype=object)}.items():
        _grpc.array_to_tensor(value, response.outputs[key])
    answer = response.SerializeToString()

    async def predict(request, context):
        return answer

    async def main():
        handler = grpc.unary_unary_rpc_method_handler(
            predict, request_deserializer=pb.PredictRequest.FromString,
            response_serializer=lambda data: data)
        server = grpc.aio.server(handlers=[grpc.method_handlers_generic_handler(
            _grpc.PREDICTION_SERVICE, {"Predict": handler})])
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        await server.wait_for_termination()

    def run():
        loop = _grpc._new_event_loop()
        loop.run_until_complete(main())

    threading.Thread(target=run, daemon=True).start()


def bare_asgi_server(port: int, grpc_port: int = 0) -> None:
    """`torchestimator serve`'s HTTP stack (uvicorn with the server's protocol, limits and
    options) with the app replaced by a bare ASGI app answering a constant JSON (a :predict
    answer of the Iris classifier's size): the HTTP stack's ceiling; and with `grpc_port`
    `bare_grpc_server` there."""
    from torchestimator.serving import _server

    if grpc_port:
        bare_grpc_server(grpc_port)

    answer = json.dumps({"predictions": [{
        "logits": [0.1, -0.2, 0.3], "probabilities": [0.3, 0.3, 0.4], "class_ids": [2],
        "classes": ["2"], "all_class_ids": [0, 1, 2], "all_classes": ["0", "1", "2"]}]}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(answer)).encode())]

    async def app(scope: dict, receive, send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        more = True
        while more:  # read the body, as the real app does
            message = await receive()
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    _server._app_from_settings = lambda settings: app
    _server.serve("iris", None, rest_api_port=port, host="127.0.0.1", log_level="warning")


def noop_model_server(argv: list[str]) -> None:
    """`torchestimator serve` (argv: its flags) with every signature call replaced by a
    constant answer (the outputs of one real call at batch 1): the cost of the protocol and
    the server's own work, without the model."""
    from torchestimator.serving import _batching, _cli, _model_calls

    cached: dict = {}

    def constant(signature, inputs, features=False):
        key = id(signature)
        if key not in cached:
            cached[key] = real(signature, inputs, features)
        return cached[key]

    real = _model_calls.call_signature
    _model_calls.call_signature = _batching.call_signature = constant
    parser = argparse.ArgumentParser()
    _cli.add_arguments(parser)
    sys.exit(_cli.run(parser.parse_args(argv)))


def start_process(command: list[str], port: int) -> subprocess.Popen:
    """The process `command`, once `port` accepts HTTP requests."""
    process = subprocess.Popen(command)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models/iris", timeout=5):
                return process
        except urllib.error.HTTPError:
            return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{command} exited with {process.returncode}") from None
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"{command} did not start")


def predict_requests() -> dict[str, bytes]:
    """The `:predict` of one serialized Example as the load generators send it: "rest", a
    raw HTTP/1.1 request with a b64 Example; "grpc", a serialized PredictRequest with a
    DT_STRING TensorProto."""
    example = serialized([ROW])[0]
    body = json.dumps({"signature_name": "predict",
                       "instances": [{"b64": base64.b64encode(example).decode()}]}).encode()
    rest_request = (b"POST /v1/models/iris:predict HTTP/1.1\r\nHost: localhost\r\n"
                    b"Content-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    from torchestimator.serving import _serving_protos as pb  # lazy: torch, not in --_load

    request = pb.PredictRequest()
    request.model_spec.name = "iris"
    request.model_spec.signature_name = "predict"
    tensor = request.inputs["examples"]
    tensor.dtype = 7  # DT_STRING
    tensor.tensor_shape.dim.add(size=1)
    tensor.string_val.append(example)
    return {"rest": rest_request, "grpc": request.SerializeToString()}


def protocol_rows(base: str, client_counts: list[int], seconds: float, extra: list[str],
                  noop: bool, batch_timeouts: list[int], max_batch_size: int,
                  load_generator: str = "python", work_us: dict | None = None) -> None:
    """The table of 4.: bare ASGI, REST, gRPC, batched REST and gRPC (and, with `noop`, both
    protocols with the model call replaced by a constant answer) at each number of clients,
    loaded by `load_generator` ("python": `run_load`; "h2load": `h2load_run`); then the
    goals, and with `work_us` (the `request_cpu` figures) the ratios the stacks allow."""
    requests = predict_requests()
    rest_request, grpc_request = requests["rest"], requests["grpc"]
    folder = tempfile.mkdtemp(prefix="bench-batching-")

    def batching(timeout: int) -> list[str]:
        params = os.path.join(folder, f"batching-{timeout}.config")
        with open(params, "w") as f:
            f.write(f"max_batch_size {{ value: {max_batch_size} }}\n"
                    f"batch_timeout_micros {{ value: {timeout} }}\n"
                    "num_batch_threads { value: 1 }\nmax_enqueued_batches { value: 1000 }\n")
        return ["--enable_batching", "--batching_parameters_file", params]

    serve = serve_command(base)
    servers = [("bare ", "bare", [sys.executable, __file__, "--_bare_asgi"], ["rest", "grpc"])]
    servers.append(("", "serve", serve + extra, ["rest", "grpc"]))
    for timeout in batch_timeouts:
        servers.append((_batched(timeout, batch_timeouts), "serve",
                        serve + batching(timeout) + extra, ["rest", "grpc"]))
    if noop:
        servers.append(("no-op model ", "noop", [sys.executable, __file__, "--_noop_serve"]
                        + serve[4:] + extra, ["rest", "grpc"]))
    generator = ("h2load (nghttp2's load generator, in C; HTTP/1.1 and HTTP/2)"
                 if load_generator == "h2load" else
                 "one separate process (one event loop: raw HTTP/1.1 on uvloop, grpc.aio)")
    print(f"\n:predict of one serialized Example (Iris DNNClassifier, parsing receiver), "
          f"{seconds:g} s per row after a 1 s warm-up; the load generator is {generator}, "
          f"client and server share the {os.cpu_count()} cores; batching: max_batch_size {max_batch_size}, "
          f"batch_timeout_micros {'/'.join(map(str, batch_timeouts))}, 1 batch thread"
          + (f"; server flags: {' '.join(extra)}" if extra else ""))
    header = (f"{'server':<20}{'clients':>8}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
              f"{'p99.9 ms':>10}{'errors':>7}{'RSS MiB':>9}{'srv ms/req':>11}{'cli ms/req':>11}")
    print(header)
    results: dict = {}
    for label, kind, command, protocols in servers:
        port, grpc_port = free_port(), free_port()
        if kind == "bare":
            command = command + [str(port), str(grpc_port)]
        else:
            command = command + ["--rest_api_port", str(port), "--port", str(grpc_port)]
        server = start_process(command, port)
        try:
            for clients in client_counts:
                for protocol in protocols:
                    name = label + ("REST" if protocol == "rest" else "gRPC")
                    if kind == "bare":
                        name = label + ("ASGI" if protocol == "rest" else "gRPC")
                    load = h2load_run if load_generator == "h2load" else run_load
                    figures = load(protocol, grpc_port if protocol == "grpc" else port,
                                       grpc_request if protocol == "grpc" else rest_request,
                                       clients, seconds, server.pid)
                    figures["RSS MiB"] = peak_rss_mib(server.pid)
                    results[(name, clients)] = figures
                    print(f"{name:<20}{clients:>8}{figures['requests/s']:>9,.0f}"
                          f"{figures['p50 ms']:>9.2f}{figures['p99 ms']:>9.2f}"
                          f"{figures['p99.9 ms']:>10.2f}{figures['errors']:>7}"
                          f"{figures['RSS MiB']:>9.0f}{figures['server CPU ms/req']:>11.3f}"
                          f"{figures['client CPU ms/req']:>11.3f}", flush=True)
                    if figures["errors"]:
                        print(f"{'':<20}first error: {figures['first error']}")
        finally:
            server.terminate()
            server.wait(30)
    print("\nGoals (issue 33):")
    for clients in client_counts:
        rps = {name: results[(name, c)]["requests/s"] for (name, c) in results if c == clients}
        rest, grpc_, bare = rps["REST"], rps["gRPC"], rps["bare ASGI"]
        print(f"  {clients:>3} clients: REST/bare ASGI = {rest / bare:.2f} (goal >= 0.5); "
              f"gRPC/REST = {grpc_ / rest:.2f} (goal >= 1.5); bare gRPC/bare ASGI = "
              f"{rps['bare gRPC'] / bare:.2f}; gRPC/bare gRPC = {grpc_ / rps['bare gRPC']:.2f}")
    top = max(client_counts)
    if work_us:
        print(stack_bounds(results, top, work_us))
    for timeout in batch_timeouts:
        for protocol in ("REST", "gRPC"):
            off = results[(protocol, top)]
            on = results[(_batched(timeout, batch_timeouts) + protocol, top)]
            bound = timeout / 1000 + 2 * off["p50 ms"]
            print(f"  batching ({timeout} us), {top} clients, {protocol}: "
                  f"{on['requests/s'] / off['requests/s']:.2f}x unbatched (goal >= 2); p99 "
                  f"{on['p99 ms']:.1f} ms vs batch_timeout + 2x unbatched p50 = {bound:.1f} ms "
                  f"({'met' if on['p99 ms'] <= bound else 'not met'})")


def stack_bounds(results: dict, clients: int, work_us: dict) -> str:
    """The goals' ratios as the stacks allow them, at `clients` clients: each request costing
    its stack's CPU (the bare ASGI or bare gRPC server's, per request) plus the server's own
    work for it in process (`request_cpu`: parsing, model, answer), on one core (the
    interpreter lock); and how much more CPU each request took in the server than that sum."""
    asgi = results[("bare ASGI", clients)]["server CPU ms/req"]
    grpc_stack = results[("bare gRPC", clients)]["server CPU ms/req"]
    rest_work = work_us["REST :predict handle (real model)"] / 1000
    grpc_work = work_us["gRPC Predict incl. parsing (real model)"] / 1000
    rest_in = results[("REST", clients)]["server CPU ms/req"] / (asgi + rest_work)
    grpc_in = results[("gRPC", clients)]["server CPU ms/req"] / (grpc_stack + grpc_work)
    return (f"  {clients:>3} clients, the stacks' bound (a request costs its bare stack's server "
            f"CPU + the in-process work): REST/bare ASGI <= {asgi / (asgi + rest_work):.2f}; "
            f"gRPC/REST <= {(asgi + rest_work) / (grpc_stack + grpc_work):.2f}. Measured server "
            f"CPU per request / that sum: REST {rest_in:.2f}x, gRPC {grpc_in:.2f}x")


def rollover_rows(version_dir: str, clients: int, seconds: float, load_generator: str,
                  requests: dict[str, bytes]) -> None:
    """A version rolled in under load, per protocol: a fresh `serve` of version 1 (a copy of
    `version_dir`) with `clients` clients; a third of the way into the load, version 2 (a
    copy, renamed into place whole) appears. The row gives the load's figures (every
    failed request counts) and the seconds from the rename until version 2 is AVAILABLE and
    version 1 gone, as `GET /v1/models/iris` reports them."""
    seconds = max(seconds, 6.0)  # (the poll, the load and the swap fit inside the run)
    print(f"\nA version rolled in under load ({clients} clients, {seconds:g} s, the default "
          f"--file_system_poll_wait_seconds of 1 s; load generator: {load_generator})")
    print(f"{'protocol':<10}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>7}"
          f"{'swap s':>8}  versions after")
    for protocol in ("rest", "grpc"):
        folder = tempfile.mkdtemp(prefix="bench-rollover-")
        base = os.path.join(folder, "iris")
        shutil.copytree(version_dir, os.path.join(base, "1"))
        port, grpc_port = free_port(), free_port()
        server = start_process(serve_command(base) + ["--rest_api_port", str(port),
                                                       "--port", str(grpc_port)], port)
        load = h2load_run if load_generator == "h2load" else run_load
        pool = ThreadPoolExecutor(1)
        try:
            loaded = pool.submit(load, protocol, grpc_port if protocol == "grpc" else port,
                                 requests[protocol], clients, seconds, server.pid)
            time.sleep(1.5 + seconds / 3)  # (past the load's warm-up second, into its run)
            scratch = os.path.join(base, "tmp-2")
            shutil.copytree(version_dir, scratch)
            renamed = time.monotonic()
            os.rename(scratch, os.path.join(base, "2"))
            states, swap = {}, float("nan")
            while time.monotonic() - renamed < seconds:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models/iris") as answer:
                    states = {v["version"]: v["state"]
                              for v in json.load(answer)["model_version_status"]}
                if states == {"2": "AVAILABLE"}:  # (an unloaded version is no longer listed)
                    swap = time.monotonic() - renamed
                    break
                time.sleep(0.02)
            figures = loaded.result()
        finally:
            pool.shutdown()
            server.terminate()
            server.wait(30)
            shutil.rmtree(folder, ignore_errors=True)
        print(f"{'REST' if protocol == 'rest' else 'gRPC':<10}{figures['requests/s']:>9,.0f}"
              f"{figures['p50 ms']:>9.2f}{figures['p99 ms']:>9.2f}{figures['max ms']:>9.1f}"
              f"{figures['errors']:>7}{swap:>8.2f}  "
              + ", ".join(f"{v} {state}" for v, state in sorted(states.items())))
        if figures["errors"]:
            print(f"{'':<10}first error: {figures['first error']}")


def _batched(timeout: int, timeouts: list[int]) -> str:
    """The row label of a batched server ("batched ", or with several timeouts "b1000us ")."""
    return "batched " if len(timeouts) == 1 else f"b{timeout}us "


def main() -> None:
    if sys.argv[1:2] == ["--_noop_serve"]:
        noop_model_server(sys.argv[2:])
        return
    if sys.argv[1:2] == ["--_bare_asgi"]:
        bare_asgi_server(*map(int, sys.argv[2:4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--threads", default="0",
                        help="comma-separated --rest_api_num_threads values (0: the default)")
    parser.add_argument("--server_args", default="",
                        help="more `torchestimator serve` flags, e.g. "
                        "'--tensorflow_intra_op_parallelism=1'")
    parser.add_argument("--export_base", help="an existing base directory of versions")
    parser.add_argument("--skip_in_process", action="store_true")
    parser.add_argument("--rows", type=int, default=1_000_000,
                        help="rows of the big :predict answer (0: skip it)")
    parser.add_argument("--skip_rest", action="store_true")
    parser.add_argument("--batching", action="store_true",
                        help="the protocol table, batching included (see 4.)")
    parser.add_argument("--grpc", action="store_true",
                        help="the protocol table: bare ASGI, REST, gRPC, batched (see 4.)")
    parser.add_argument("--grpc_clients", default="1,16,64",
                        help="comma-separated client counts of --grpc (default 1,16,64)")
    parser.add_argument("--noop", action="store_true",
                        help="with --grpc/--batching: also both protocols with the model call "
                        "replaced by a constant answer (the protocols' ceiling)")
    parser.add_argument("--batch_timeout_micros", default="1000",
                        help="batch_timeout_micros of the batched rows, comma-separated for a "
                        "server each (default 1000)")
    parser.add_argument("--max_batch_size", type=int, default=64,
                        help="max_batch_size of the batched rows (default 64)")
    parser.add_argument("--request_cpu", action="store_true",
                        help="the server's CPU per request in process (thread CPU time, which a "
                        "shared machine's load does not inflate): REST and gRPC, real model and "
                        "constant answer (see 5.)")
    parser.add_argument("--load_generator", choices=("python", "h2load"), default="python",
                        help="the protocol table's load generator: python (this script's own, "
                        "in a separate process) or h2load (nghttp2's, in C: it spends less of "
                        "the shared cores; apt install nghttp2-client)")
    parser.add_argument("--rollover", action="store_true",
                        help="a version rolled in under load, per protocol, at the largest "
                        "--grpc_clients count (see 4.)")
    parser.add_argument("--_big_answer", help=argparse.SUPPRESS)
    parser.add_argument("--_load", help=argparse.SUPPRESS)
    parser.add_argument("--_port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--_request", help=argparse.SUPPRESS)
    parser.add_argument("--_server_pid", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._load:
        print(json.dumps(load_process(args._load, args._port, args._request, args.clients,
                                      args.duration, args._server_pid)))
        return
    if args._big_answer:
        version = os.path.join(args.export_base, max(os.listdir(args.export_base), key=int))
        print(json.dumps(big_answer(version, args.rows, args._big_answer)))
        return

    base = args.export_base or os.path.join(tempfile.mkdtemp(prefix="bench-serving-"), "iris")
    if not args.export_base:
        make_export(base)
    version_dir = os.path.join(base, max(os.listdir(base), key=int))
    print(f"nproc={os.cpu_count()}  torch threads={__import__('torch').get_num_threads()}  "
          f"export={version_dir}")
    if not args.skip_in_process:
        print("\nIn process (Iris DNNClassifier [10, 10], parsing receiver)")
        print(f"{'call':<52}{'calls/s':>12}{'us/call':>10}")
        for label, per_second in in_process(version_dir):
            print(f"{label:<52}{per_second:>12,.0f}{1e6 / per_second:>10.0f}")

    work_us = None
    if args.request_cpu:
        print("\nServer CPU per request in process (thread CPU time, best of 7 x 1000; "
              "batch 1, one serialized Example)")
        work_us = dict(request_cpu(base))
        for label, us in work_us.items():
            print(f"{label:<60}{us:>10.1f} us")
    if args.rows:
        big_answers(version_dir, args.rows)
    if args.skip_rest:
        return
    if args.batching or args.grpc:
        protocol_rows(base, [int(c) for c in args.grpc_clients.split(",")], args.duration,
                      args.server_args.split(), args.noop,
                      [int(t) for t in args.batch_timeout_micros.split(",")],
                      args.max_batch_size, args.load_generator, work_us)
    if args.rollover:
        rollover_rows(version_dir, max(int(c) for c in args.grpc_clients.split(",")),
                      args.duration, args.load_generator, predict_requests())
    if args.batching or args.grpc or args.rollover:
        return
    example = base64.b64encode(serialized([ROW])[0]).decode()
    bodies = {
        "feature dict": {"signature_name": "predict", "instances": [ROW]},
        "b64 Example": {"signature_name": "predict", "instances": [{"b64": example}]},
    }
    print(f"\nREST :predict, batch 1, {args.clients} keep-alive clients, {args.duration:.0f} s each"
          + (f", server flags: {args.server_args}" if args.server_args else ""))
    print(f"{'threads':>8} {'body':<14}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}"
          f"{'peak RSS MiB':>14}")
    for threads in (int(t) for t in args.threads.split(",")):
        port = free_port()
        server = start_server(base, port, threads, args.server_args.split())
        try:
            idle_peak = peak_rss_mib(server.pid)
            for name, body in bodies.items():
                load_test(port, body, args.clients, 1.0)  # warm-up
                figures = load_test(port, body, args.clients, args.duration)
                peak = peak_rss_mib(server.pid)
                print(f"{threads or 'default':>8} {name:<14}{figures['requests/s']:>10,.0f}"
                      f"{figures['p50 ms']:>9.2f}{figures['p99 ms']:>9.2f}{figures['errors']:>8}"
                      f"{peak:>14.0f}")
                if figures["errors"]:
                    print(f"         first error: {figures['first error']}")
            print(f"{'':>8} (peak RSS right after loading the model: {idle_peak:.0f} MiB)")
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
