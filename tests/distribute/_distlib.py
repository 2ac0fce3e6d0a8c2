"""Launching real multi-process runs for the distribute tests (gloo on loopback, free ports)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
WORKER = HERE / "_dist_worker.py"


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env(extra: dict | None = None) -> dict:
    """The environment of a worker: one thread, no inherited cluster variables."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG")}
    env.update({"OMP_NUM_THREADS": "1", "TORCHESTIMATOR_RENDEZVOUS_TIMEOUT_SECS": "60",
                "PYTHONPATH": str(HERE) + os.pathsep + env.get("PYTHONPATH", "")})
    env.update(extra or {})
    return env


def torchrun_envs(n: int, port: int) -> list[dict]:
    """torchrun's variables for `n` local processes."""
    return [{"RANK": str(r), "WORLD_SIZE": str(n), "LOCAL_RANK": str(r), "MASTER_ADDR": "127.0.0.1",
             "MASTER_PORT": str(port)} for r in range(n)]


def tf_config_envs(n_workers: int, port: int, ps: int = 0) -> list[dict]:
    """TF_CONFIG for a chief and `n_workers - 1` workers (and `ps` ps tasks), chief first."""
    cluster = {"chief": [f"127.0.0.1:{port}"],
               "worker": [f"127.0.0.1:{free_port()}" for _ in range(n_workers - 1)]}
    if ps:
        cluster["ps"] = [f"127.0.0.1:{free_port()}" for _ in range(ps)]
    tasks = [("chief", 0)] + [("worker", i) for i in range(n_workers - 1)] + [("ps", i) for i in range(ps)]
    return [{"TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": t, "index": i}})} for t, i in tasks]


def launch(args: list[str], envs: list[dict], timeout: float = 120, script: Path = WORKER
           ) -> list[subprocess.CompletedProcess]:
    """Runs `python script *args` once per environment in `envs`, concurrently; returns the
    finished processes (asserting nothing)."""
    procs = [subprocess.Popen([sys.executable, str(script), *args], env=base_env(env), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for env in envs]
    done = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for other in procs:
                other.kill()
            out, err = proc.communicate()
            err += "\n[killed: timeout]"
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def check_ok(results: list[subprocess.CompletedProcess]) -> None:
    """Asserts every process exited 0, showing the failures' stderr."""
    bad = [(i, r.returncode, r.stderr[-3000:]) for i, r in enumerate(results) if r.returncode != 0]
    assert not bad, "\n\n".join(f"process {i} exited {rc}:\n{err}" for i, rc, err in bad)


def load(out_dir: Path, rank: int) -> tuple[dict, dict]:
    """Replica `rank`'s (json result, weights)."""
    result = json.loads((out_dir / f"rank{rank}.json").read_text())
    with np.load(out_dir / f"rank{rank}.npz") as z:
        weights = {k: z[k] for k in z.files}
    return result, weights
