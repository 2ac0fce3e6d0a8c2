"""A forking worker for the fault-injection tests (test_kill_trials.py, test_disk_faults.py).

Starting a Python that imports torch costs seconds; SIGKILL trials need many processes. So
this script is a *zygote*: started once, it imports torchestimator and then, for each JSON
command line on its stdin, forks a child process that runs one scenario. The parent test
kills children with SIGKILL, or lets them finish, and checks what they left on disk.

    python _fault_worker.py        # serve; prints "ZYGOTE <pid>" when ready

Protocol, one line each way (children run `torch.set_num_threads(1)`, and the zygote itself
never computes with torch, so forking it is safe):

    -> {"scenario": NAME, "result": PATH, ...args}
    <- PID <pid>                       the forked child
    <- READY <pid> <json>              the child's scenario reached its steady state (training)
    <- EXIT <pid> <code>               the child ended: 0, 1 (exception: see PATH) or -<signal>

A child writes its scenario's return value (or the exception's type and message) to the
`result` path as JSON. The `Zygote` class is the test side of this protocol.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import select
import signal
import subprocess
import sys
import time
import traceback

import numpy as np
import torch

import torchestimator as tf
from torchestimator._engine import state_io

_READY_FD: int | None = None


def ready(**info) -> None:
    """Tells the test that the scenario is now in its steady state (once per child), with
    `info` (JSON: e.g. where training resumed from)."""
    global _READY_FD
    if _READY_FD is not None:
        os.write(_READY_FD, f"READY {os.getpid()} {json.dumps(info)}\n".encode())
        os.close(_READY_FD)
        _READY_FD = None


# -----------------------------------------------------------------------------------------
# Models and data shared by the workers and the tests (the tests import this module)
# -----------------------------------------------------------------------------------------

FEATURES = 8
X = np.random.default_rng(0).normal(size=(64, FEATURES)).astype(np.float32)
Y = (X @ np.linspace(-1, 1, FEATURES, dtype=np.float32)[:, None]).astype(np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(8).repeat()


def estimator(model_dir: str, hidden_units=(64, 64), **config) -> tf.estimator.DNNRegressor:
    """A DNN with an Adagrad state (a checkpoint of ~50 KB with the default units), saving a
    checkpoint every step."""
    config = {"save_checkpoints_steps": 1, "keep_checkpoint_max": 3, "save_summary_steps": 10,
              "log_step_count_steps": 10**9, **config}
    return tf.estimator.DNNRegressor(
        list(hidden_units), [tf.feature_column.numeric_column("x", shape=(FEATURES,))],
        model_dir=model_dir, config=tf.estimator.RunConfig(**config))


def keras_model(width: int = 64, compiled: bool = True) -> tf.keras.Model:
    torch.manual_seed(0)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(width, activation="relu", input_shape=(FEATURES,)),
        tf.keras.layers.Dense(width, activation="relu"),
        tf.keras.layers.Dense(1),
    ])
    if compiled:
        model.compile(tf.keras.optimizers.Adam(1e-3), "mse")
    return model


class _Deadline(tf.estimator.SessionRunHook):
    """Signals READY after the first step (with the global step training resumed from), stops
    training after `seconds` (a safety net: the test kills the child long before)."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._end = None
        self._start_step = None

    def after_create_session(self, session, coord):
        self._start_step = int(session.global_step)

    def after_run(self, run_context, run_values):
        if self._end is None:
            self._end = time.monotonic() + self._seconds
            ready(start_step=self._start_step)
        if time.monotonic() > self._end:
            run_context.request_stop()


def weights_digest(tensors) -> str:
    """SHA-256 of weights in order (names aside: a model built again renames its weights)."""
    digest = hashlib.sha256()
    for t in tensors:
        t = t.detach().cpu().contiguous()
        digest.update(f"{t.dtype}{tuple(t.shape)}".encode())
        digest.update(t.numpy().tobytes())
    return digest.hexdigest()


def read_backup(backup_dir: str) -> tuple[dict, str]:
    """A BackupAndRestore backup's metadata and the digest of its weights in the model's order;
    raises if the files it names are missing or do not load."""
    with open(os.path.join(backup_dir, "training_metadata.json"), encoding="utf-8") as f:
        metadata = json.load(f)
    with open(os.path.join(backup_dir, metadata["model_file"]), "rb") as f:
        data = f.read()
    tensors = state_io.tensors_from_bytes(data, metadata["model_file"])
    with open(os.path.join(backup_dir, metadata["optimizer_file"]), "rb") as f:
        state_io.tensors_from_bytes(f.read(), metadata["optimizer_file"])
    order = json.loads(state_io.safetensors_metadata(data)["torchestimator.weight_order"])
    return metadata, weights_digest(tensors[name] for name in order)


class _KerasDeadline(tf.keras.callbacks.Callback):
    """After BackupAndRestore in the list: records what training starts from (epoch, weights),
    signals READY after the first batch, stops after `seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self._seconds = seconds
        self._end = None
        self._start: dict = {}

    def on_train_begin(self, logs=None):
        self._start = {"weights": weights_digest(self.model.state_dict().values())}

    def on_epoch_begin(self, epoch, logs=None):
        self._start.setdefault("epoch", epoch)

    def on_train_batch_end(self, batch, logs=None):
        if self._end is None:
            self._end = time.monotonic() + self._seconds
            ready(**self._start)
        if time.monotonic() > self._end:
            self.model.stop_training = True


def keras_callbacks(backup_dir: str, checkpoint_dir: str, **backup_kwargs) -> list:
    """BackupAndRestore every batch; the whole model (.keras) every batch; the weights
    (.weights.h5, safetensors inside) every epoch."""
    return [
        tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq=1, **backup_kwargs),
        tf.keras.callbacks.ModelCheckpoint(os.path.join(checkpoint_dir, "m.keras"), save_freq=1),
        tf.keras.callbacks.ModelCheckpoint(
            os.path.join(checkpoint_dir, "w-{epoch:05d}.weights.h5"), save_weights_only=True),
    ]


def fill_weights(model: tf.keras.Model, value: float) -> None:
    with torch.no_grad():
        for tensor in model.state_dict().values():
            if tensor.is_floating_point():
                tensor.fill_(value)


# -----------------------------------------------------------------------------------------
# Scenarios (each runs in a forked child)
# -----------------------------------------------------------------------------------------


def scenario_estimator_train(args: dict) -> dict:
    """Trains (resuming from model_dir) with a checkpoint every step, until killed."""
    est = estimator(args["dir"])
    est.train(input_fn, max_steps=10**7, hooks=[_Deadline(args.get("seconds", 60))])
    return {}


def scenario_keras_fit(args: dict) -> dict:
    """fit with BackupAndRestore and ModelCheckpoint saving every batch, until killed."""
    model = keras_model()
    model.fit(X, Y, batch_size=8, epochs=10**6, verbose=0,
              callbacks=[*keras_callbacks(args["backup_dir"], args["dir"]),
                         _KerasDeadline(args.get("seconds", 60))])
    return {}


def saved_version(model: tf.keras.Model) -> int:
    """The k of a model whose weights were all set to k; raises if they mix versions."""
    values = {float(v) for t in model.state_dict().values() if t.is_floating_point()
              for v in torch.unique(t)}
    if len(values) != 1 or not float(next(iter(values))).is_integer():
        raise ValueError(f"the weights mix versions: {sorted(values)[:5]}")
    return int(values.pop())


def scenario_keras_save(args: dict) -> dict:
    """Resumes from `m.keras` if it exists (load_model, one epoch of fit), then loops
    `model.save('m.keras')`, `model.save_weights('m.weights.h5')`; version k has every weight
    equal to k (so a mix of two versions shows). Until killed."""
    path = os.path.join(args["dir"], "m.keras")
    if os.path.exists(path):
        model = tf.keras.models.load_model(path)
        resumed = saved_version(model)
    else:
        model, resumed = keras_model(width=args.get("width", 256)), 0
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0)  # training resumes; the optimizer has a state
    end = time.monotonic() + args.get("seconds", 60)
    k = resumed + 1
    while time.monotonic() < end:
        fill_weights(model, float(k))
        model.save(path)
        model.save_weights(os.path.join(args["dir"], "m.weights.h5"))
        if k == resumed + 1:
            ready(resumed_from=resumed)
        k += 1
    return {"last": k - 1}


def _limit_file_size(limit: int) -> None:
    """Files may not grow past `limit` bytes: a write beyond fails with EFBIG, as on a full disk.
    (stderr goes to /dev/null first: the shared log may already be past the limit.)"""
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))


def _error(error: BaseException) -> dict:
    return {"error": type(error).__name__, "message": str(error),
            "errno": getattr(error, "errno", None),
            "chain": [f"{type(e).__name__}: {e}" for e in _chain(error)]}


def _chain(error: BaseException | None) -> list:
    out = []
    while error is not None and len(out) < 10:
        out.append(error)
        error = error.__cause__ or error.__context__
    return out


class _AfterSteps(tf.estimator.SessionRunHook):
    def __init__(self, steps: int, action) -> None:
        self._steps, self._action, self._seen = steps, action, 0

    def after_run(self, run_context, run_values):
        self._seen += 1
        if self._seen == self._steps:
            self._action()


class _AfterBatches(tf.keras.callbacks.Callback):
    def __init__(self, batches: int, action) -> None:
        super().__init__()
        self._batches, self._action, self._seen = batches, action, 0

    def on_train_batch_begin(self, batch, logs=None):
        self._seen += 1
        if self._seen == self._batches:
            self._action()


def _make_fault(args: dict):
    """The fault to inject mid-run: a file-size limit, or the folder made read-only."""
    if args["fault"] == "fsize":
        return lambda: _limit_file_size(int(args["limit"]))
    return lambda: os.chmod(args["fault_dir"], 0o555)


def scenario_estimator_fault(args: dict) -> dict:
    """Trains `steps` more steps; the fault starts after `after` of them."""
    est = estimator(args["dir"])
    try:
        est.train(input_fn, steps=args.get("steps", 6),
                  hooks=[_AfterSteps(args.get("after", 2), _make_fault(args))])
    except Exception as error:  # noqa: BLE001 - reported to the test
        return _error(error)
    return {"error": None}


def scenario_keras_fault(args: dict) -> dict:
    """One Keras write under a fault: `op` is save (.keras), save_weights, backup
    (BackupAndRestore every batch) or model_checkpoint (ModelCheckpoint every batch)."""
    model = keras_model(width=args.get("width", 64))
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0)
    op, fault = args["op"], _make_fault(args)
    try:
        if op == "save":
            fault()
            model.save(args["path"])
        elif op == "save_weights":
            fault()
            model.save_weights(args["path"])
        else:
            callback = (tf.keras.callbacks.BackupAndRestore(args["path"], save_freq=1)
                        if op == "backup" else
                        tf.keras.callbacks.ModelCheckpoint(args["path"], save_freq=1))
            model.fit(X, Y, batch_size=8, epochs=2, verbose=0,
                      callbacks=[callback, _AfterBatches(3, fault)])
    except Exception as error:  # noqa: BLE001 - reported to the test
        return _error(error)
    return {"error": None}


def scenario_probe_write(args: dict) -> dict:
    """Whether this process can create a file in `dir` (is a read-only folder enforced?)."""
    try:
        with open(os.path.join(args["dir"], "probe"), "w"):
            pass
    except PermissionError:
        return {"wrote": False}
    os.remove(os.path.join(args["dir"], "probe"))
    return {"wrote": True}


SCENARIOS = {name[len("scenario_"):]: fn for name, fn in globals().items()
             if name.startswith("scenario_")}


# -----------------------------------------------------------------------------------------
# The zygote
# -----------------------------------------------------------------------------------------


def _child(command: dict, ready_fd: int) -> None:
    global _READY_FD
    code = 1
    try:
        _READY_FD = ready_fd
        os.dup2(2, 1)  # prints go to the log; only READY goes to the test
        torch.set_num_threads(1)
        try:
            result = SCENARIOS[command["scenario"]](command)
            code = 0
        except BaseException as error:  # noqa: BLE001 - reported to the test
            result = {**_error(error), "traceback": traceback.format_exc()}
        with open(command["result"], "w") as f:
            json.dump(result, f)
    finally:
        os._exit(code)


def serve() -> None:
    out = sys.stdout.buffer
    out.write(f"ZYGOTE {os.getpid()}\n".encode())
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        out.flush()
        pid = os.fork()
        if pid == 0:
            _child(command, os.dup(out.fileno()))
        out.write(f"PID {pid}\n".encode())
        out.flush()
        _, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        out.write(f"EXIT {pid} {code}\n".encode())
        out.flush()


# -----------------------------------------------------------------------------------------
# The test side
# -----------------------------------------------------------------------------------------


class Zygote:
    """Starts `_fault_worker.py` (under `prefix`, e.g. setpriv) and runs scenarios in it."""

    def __init__(self, log_path: str, prefix: tuple = ()) -> None:
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in close()
        self.log_path = log_path
        self.proc = subprocess.Popen([*prefix, sys.executable, os.path.abspath(__file__)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._log)
        self._buffer = b""
        self._lines: list[str] = []
        self._wait(lambda line: line.startswith("ZYGOTE"), 120)

    def _read_line(self, deadline: float) -> str:
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the fault worker did not answer in time; log: {self.tail()}")
            readable, _, _ = select.select([self.proc.stdout], [], [], left)
            if readable:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    raise RuntimeError(f"the fault worker exited; log: {self.tail()}")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def _wait(self, match, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        for i, line in enumerate(self._lines):
            if match(line):
                return self._lines.pop(i)
        while True:
            line = self._read_line(deadline)
            if match(line):
                return line
            self._lines.append(line)

    def _outcome(self) -> str:
        try:
            with open(self._result) as f:
                return f.read()[-4000:]
        except OSError:
            return f"no result; log: {self.tail()}"

    def tail(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-3000:].decode(errors="replace")
        except OSError:
            return "?"

    def start(self, scenario: str, result: str, **args) -> int:
        """Forks a child running `scenario`; returns its pid."""
        command = {"scenario": scenario, "result": str(result), **args}
        self._result = str(result)
        self.proc.stdin.write((json.dumps(command) + "\n").encode())
        self.proc.stdin.flush()
        return int(self._wait(lambda line: line.startswith("PID "), 60).split()[1])

    def wait_ready(self, pid: int, timeout: float = 120) -> dict:
        """Waits for the child's READY; returns its info."""
        def match(line: str) -> bool:
            if line.startswith(f"EXIT {pid} "):
                raise RuntimeError(f"child {pid} ended before it was ready: {self._outcome()}")
            return line.startswith(f"READY {pid} ")
        return json.loads(self._wait(match, timeout).split(" ", 2)[2])

    def wait_exit(self, pid: int, timeout: float = 300) -> int:
        return int(self._wait(lambda line: line.startswith(f"EXIT {pid} "), timeout).split()[2])

    def run(self, scenario: str, result: str, timeout: float = 300, **args) -> dict:
        """Runs `scenario` to its end; returns what it returned."""
        pid = self.start(scenario, result, **args)
        code = self.wait_exit(pid, timeout)
        with open(result) as f:
            value = json.load(f)
        if code != 0:
            raise AssertionError(f"scenario {scenario} failed ({code}): {value}")
        return value

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self._log.close()


if __name__ == "__main__":
    serve()
