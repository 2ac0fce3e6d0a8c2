"""Leaving a gloo group at exit (`_cluster._leave_process_group`), with two real processes: a
program that ends cleanly waits for its peers before tearing its connections down; one that
ends with an uncaught error leaves at once."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from _distlib import base_env, free_port, torchrun_envs

WORKER = Path(__file__).with_name("_exit_worker.py")


def _ends(mode: str, out_dir: Path) -> list[tuple[int, float, str]]:
    """Runs the two ranks of `_exit_worker.py`; returns each one's (exit code, end time, stderr)."""
    procs = [subprocess.Popen([sys.executable, str(WORKER), mode, str(out_dir)], env=base_env(env),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for env in torchrun_envs(2, free_port())]
    ended: dict[int, float] = {}
    deadline = time.time() + 120
    try:
        while len(ended) < len(procs) and time.time() < deadline:
            for i, proc in enumerate(procs):
                if i not in ended and proc.poll() is not None:
                    ended[i] = time.time()
            time.sleep(0.02)
    finally:
        for proc in procs:
            proc.kill()
    assert len(ended) == len(procs), "a rank did not end within 120 s"
    return [(proc.returncode, ended[i], proc.stderr.read()) for i, proc in enumerate(procs)]


def test_a_clean_end_waits_for_the_peers_before_leaving(tmp_path):
    (code0, end0, err0), (code1, _, err1) = _ends("clean", tmp_path)
    assert (code0, code1) == (0, 0), err0 + err1
    assert end0 >= float((tmp_path / "rank1.left").read_text())  # rank 0 waited for rank 1


def test_an_uncaught_error_leaves_at_once(tmp_path):
    (code0, end0, err0), (code1, _, err1) = _ends("raise", tmp_path)
    assert code0 == 1 and "rank 0 fails" in err0
    assert end0 < float((tmp_path / "rank1.left").read_text())  # rank 0 did not wait
