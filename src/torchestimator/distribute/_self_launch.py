"""MirroredStrategy's own replica processes: `python train.py` trains on every device, as TF's did.

TensorFlow's `MirroredStrategy` drove all the GPUs of a machine from one process.
Here a replica is a process (DistributedDataParallel's model), so a
`MirroredStrategy` made in a program that no launcher started (no `RANK` /
`WORLD_SIZE`, no `TF_CONFIG` cluster) with N > 1 replica devices starts the
N - 1 other processes itself, the way Lightning's subprocess launcher does:

* the program runs again with the same interpreter, interpreter options,
  script (or `-m` module), arguments, working directory and environment, plus
  torchrun's variables (`MASTER_ADDR=127.0.0.1`, a free `MASTER_PORT`, `RANK`,
  `LOCAL_RANK`, `WORLD_SIZE`, `LOCAL_WORLD_SIZE`), `TORCHESTIMATOR_DEVICE` (the
  replica's device) and `TORCHESTIMATOR_SELF_LAUNCHED_BY` (this process's id), so
  that a copy joins the job and never launches again;
* this process becomes rank 0 and hosts the rendezvous;
* a copy whose parent dies stops (a watchdog thread sees the parent change);
  when a copy fails, the others and this process stop with exit status 1; at
  exit this process waits for the copies and exits with status 1 when one of
  them failed.

A program that cannot be started again (`python -c`, standard input, an
interactive session, IPython or a notebook, a frozen executable, a test runner)
logs one warning naming `torchestimator launch --nproc_per_node=N` and trains one
replica; `TORCHESTIMATOR_NO_SELF_LAUNCH=1` turns self-launching off.
"""

from __future__ import annotations

import atexit
import builtins
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

import torch

from torchestimator.distribute._cluster import ClusterPosition, read_tf_config
from torchestimator.distribute._strategy import torch_device

_log = logging.getLogger("torchestimator")

NO_SELF_LAUNCH_ENV = "TORCHESTIMATOR_NO_SELF_LAUNCH"
LAUNCHED_BY_ENV = "TORCHESTIMATOR_SELF_LAUNCHED_BY"
_TEST_RUNNERS = ("pytest", "py.test", "_pytest", "unittest", "nose2")
_STOP_GRACE_SECS = 10.0


def replica_devices(devices: Sequence[str] | None) -> list[torch.device]:
    """The devices of MirroredStrategy's replicas: `devices` as torch devices, or every CUDA device
    when `devices` is None (the CPU alone without CUDA). ValueError naming the device when one is
    repeated or not on this machine."""
    if not devices:
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        return [torch.device("cuda", i) for i in range(count)] or [torch.device("cpu")]
    names = [str(d) for d in devices]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"MirroredStrategy(devices=...) lists {repeated} more than once; received {names}: "
                         "give each replica its own device.")
    result = [torch_device(n) for n in names]
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    for name, device in zip(names, result):
        if device.type == "cuda" and (device.index or 0) >= count:
            raise ValueError(
                f"MirroredStrategy(devices=...): {name!r} is not a device of this machine, which has {count} "
                f"CUDA device(s); received {names}. Use tf.config.list_physical_devices('GPU') to see them."
            )
    return result


def backend_device_type(devices: Sequence[torch.device]) -> str:
    """'cuda' when every replica is on a GPU (NCCL), else 'cpu' (gloo: one backend for all ranks)."""
    return "cuda" if all(d.type == "cuda" for d in devices) else "cpu"


def not_restartable_reason() -> str | None:
    """Why this program cannot be started again in new processes, or None when it can."""
    main = sys.modules.get("__main__")
    argv0 = sys.argv[0] if sys.argv else ""
    if getattr(builtins, "__IPYTHON__", False):
        return "it runs in IPython or a notebook"
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return "it runs in an interactive session"
    if "_pytest" in sys.modules and os.environ.get("PYTEST_CURRENT_TEST"):
        # a test of pytest's running in this process (its xdist workers start with `python -c`;
        # a program a test starts inherits the variable, not pytest)
        return "it runs under a test runner"
    if argv0 == "-c":
        return "it was started with `python -c`"
    if argv0 in ("", "-"):
        return "it was read from standard input"
    if getattr(sys, "frozen", False) or not sys.executable:
        return "it is not run by a Python interpreter that can be started again"
    spec = getattr(main, "__spec__", None)
    file = getattr(main, "__file__", None)
    if spec is None and not file:
        return "its main module has no file"
    name = spec.name if spec is not None and spec.name != "__main__" else os.path.basename(str(file or argv0))
    if name.split(".")[0] in _TEST_RUNNERS or os.path.basename(argv0) in _TEST_RUNNERS:
        return "it runs under a test runner"
    return None


def replica_command() -> list[str]:
    """The command line that starts this program again: interpreter, its options, script (or `-m`
    module) and the script's arguments."""
    main = sys.modules["__main__"]
    flags_of = getattr(subprocess, "_args_from_interpreter_flags", None)  # what multiprocessing uses
    flags = flags_of() if flags_of is not None else []
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name != "__main__":  # python -m package.module
        module = spec.name[: -len(".__main__")] if spec.name.endswith(".__main__") else spec.name
        return [sys.executable, *flags, "-m", module, *sys.argv[1:]]
    # python script.py (__file__ is absolute), or a directory / zip file with a __main__.py
    target = getattr(main, "__file__", None) if spec is None else sys.argv[0]
    return [sys.executable, *flags, os.path.abspath(str(target)), *sys.argv[1:]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch_hint(n: int) -> str:
    return f"`torchestimator launch --nproc_per_node={n} train.py` (or torchrun)"


def maybe_start_replicas(devices: list[torch.device]) -> ClusterPosition | None:
    """Starts the other replica processes of a MirroredStrategy over `devices` when this program
    can be started again; returns this process's position (rank 0 of len(devices)), or None when
    it trains one replica (one device, self-launching off or impossible: logged)."""
    n = len(devices)
    if n <= 1:
        return None
    if os.environ.get(LAUNCHED_BY_ENV):
        raise RuntimeError(
            f"MirroredStrategy: this process was started by MirroredStrategy ({LAUNCHED_BY_ENV} is set) but "
            "RANK / WORLD_SIZE are not: its environment was changed. Do not remove torchrun's variables in "
            "a replica process."
        )
    if os.environ.get(NO_SELF_LAUNCH_ENV, "").strip().lower() not in ("", "0", "false", "no"):
        _log.warning("MirroredStrategy: %s is set, so this process trains one replica on %s instead of %d. "
                     "To train on all %d devices, start the program with %s.", NO_SELF_LAUNCH_ENV, devices[0],
                     n, n, _launch_hint(n))
        return None
    if read_tf_config().get("cluster"):
        _log.warning("MirroredStrategy: TF_CONFIG describes a cluster, so this process starts no replica "
                     "processes and trains one replica on %s. Use MultiWorkerMirroredStrategy with TF_CONFIG, "
                     "or start the program with %s.", devices[0], _launch_hint(n))
        return None
    reason = not_restartable_reason()
    if reason is not None:
        _log.warning("MirroredStrategy: this program cannot be started again in new processes (%s), so it "
                     "trains one replica on %s instead of %d. Put it in a script and start it with %s.",
                     reason, devices[0], n, _launch_hint(n))
        return None
    return _ReplicaProcesses(devices).position


class _ReplicaProcesses:
    """The copies of this program that run replicas 1 to N-1; this process is replica 0."""

    def __init__(self, devices: list[torch.device]) -> None:
        n = len(devices)
        port = _free_port()
        command = replica_command()
        shared = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": str(n),
                  "LOCAL_WORLD_SIZE": str(n), "GROUP_RANK": "0"}
        self._stopping = False
        self._lock = threading.Lock()
        self._procs: list[subprocess.Popen] = []
        _log.info("MirroredStrategy: starting %d more processes for replicas 1-%d on %s: %s", n - 1, n - 1,
                  ", ".join(str(d) for d in devices[1:]), " ".join(command))
        try:
            for rank in range(1, n):
                env = {**os.environ, **shared, "RANK": str(rank), "LOCAL_RANK": str(rank),
                       "TORCHESTIMATOR_DEVICE": str(devices[rank]), LAUNCHED_BY_ENV: str(os.getpid())}
                self._procs.append(subprocess.Popen(command, env=env, cwd=os.getcwd(), stdin=subprocess.DEVNULL))
        except OSError as e:
            self.stop()
            raise RuntimeError(f"MirroredStrategy could not start its replica processes ({e}); command: "
                               f"{command}. Start the program with {_launch_hint(n)} instead.") from e
        # This process is rank 0 of the job from now on: later strategies and the loop see it.
        os.environ.update({**shared, "RANK": "0", "LOCAL_RANK": "0", "TORCHESTIMATOR_DEVICE": str(devices[0])})
        self.position = ClusterPosition(0, n, 0, "127.0.0.1", port, "torchrun", "chief", 0)
        atexit.register(self._at_exit)
        self._watcher = threading.Thread(target=self._watch, name="torchestimator-replica-watch", daemon=True)
        self._watcher.start()

    def _claim(self) -> bool:
        """True for the one caller (watch thread or exit handler) that decides how the job ends."""
        with self._lock:
            if self._stopping:
                return False
            self._stopping = True
            return True

    def _describe(self, proc: subprocess.Popen) -> str:
        rank = self._procs.index(proc) + 1
        code = proc.returncode
        status = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return f"replica process {rank} (pid {proc.pid}) {status}"

    def _watch(self) -> None:
        """A failed copy stops the job: the other copies are stopped and this process exits 1."""
        while not self._stopping:
            failed = [p for p in self._procs if p.poll() not in (None, 0)]
            if failed:
                if not self._claim():
                    return
                _exit_now(f"MirroredStrategy: {self._describe(failed[0])} (its error is above); stopping the "
                          "other replicas.", self)
            if all(p.returncode is not None for p in self._procs):
                return
            time.sleep(0.2)

    def stop(self) -> None:
        """Terminates the copies still running (SIGTERM, then SIGKILL after a grace period)."""
        self._stopping = True
        alive = [p for p in self._procs if p.poll() is None]
        for proc in alive:
            proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + _STOP_GRACE_SECS
        for proc in alive:
            try:
                proc.wait(max(deadline - time.monotonic(), 0.01))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def _at_exit(self) -> None:
        """At exit: stop the copies when this process failed, else wait for them; exit 1 when one failed."""
        if not self._claim():  # the watch thread is ending the job (exit status 1): let it finish
            self._watcher.join()
            return
        failing = getattr(sys, "last_value", None) is not None  # an uncaught exception ends this process
        if failing:  # name the copies that failed first (often the cause), then stop the others
            deadline = time.monotonic() + 5.0  # the group is gone: the copies end soon
            while any(p.poll() is None for p in self._procs) and time.monotonic() < deadline:
                time.sleep(0.05)
            failed = [p for p in self._procs if p.returncode not in (None, 0)]
            if failed:
                print("MirroredStrategy: " + "; ".join(self._describe(p) for p in failed)
                      + " (the first traceback above shows where the job failed).", file=sys.stderr, flush=True)
            self.stop()
            return
        for proc in self._procs:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                _log.warning("MirroredStrategy: this program has ended; waiting for replica process %d (pid %d).",
                             self._procs.index(proc) + 1, proc.pid)
                proc.wait()
        failed = [p for p in self._procs if p.returncode != 0]
        if failed:
            _exit_now("MirroredStrategy: " + "; ".join(self._describe(p) for p in failed)
                      + " (the error is above).", None)


def _exit_now(message: str, replicas: _ReplicaProcesses | None) -> None:
    """Prints `message`, stops the copies and ends this process with status 1 at once."""
    print(message, file=sys.stderr, flush=True)
    if replicas is not None:
        replicas.stop()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream at exit
            pass
    os._exit(1)


def watch_parent() -> None:
    """In a copy started by MirroredStrategy: stop (SIGTERM to itself) as soon as the process that
    started it is gone. Nothing to do in any other process."""
    raw = os.environ.get(LAUNCHED_BY_ENV)
    if not raw or not raw.isdigit() or getattr(watch_parent, "_armed", False):
        return
    parent = int(raw)
    watch_parent._armed = True  # type: ignore[attr-defined]

    def gone() -> bool:
        return os.getppid() != parent

    if gone():
        _log.error("MirroredStrategy: the process that started this replica (pid %d) is gone; stopping.", parent)
        os.kill(os.getpid(), signal.SIGTERM)
        return

    def watch() -> None:
        while not gone():
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="torchestimator-parent-watch", daemon=True).start()
