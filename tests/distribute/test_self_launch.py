"""MirroredStrategy starts its own replica processes: `python train.py` with
`MirroredStrategy(devices=["/cpu:0", "/cpu:1"])` trains 2 replicas (real processes, gloo on
loopback), a failing replica fails the program, the replicas stop with their parent, and programs
that cannot be started again (`python -c`) or `TORCHESTIMATOR_NO_SELF_LAUNCH=1` train one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _distlib import base_env

from torchestimator.distribute._self_launch import (
    not_restartable_reason,
    replica_command,
    replica_devices,
)

SCRIPT = '''
import json, os, sys, time
import numpy as np
import torchestimator as tf
from _dist_worker import input_fn_sharded_by_context, model_fn


def main():
    out, model_dir = sys.argv[1], sys.argv[2]
    fail = os.environ.get("SELF_LAUNCH_TEST_FAIL", "")   # "rendezvous:R", "start:R", "end:R" or "sleep"
    if fail == f"rendezvous:{os.environ.get('RANK', '0')}":
        raise RuntimeError("replica 1 fails on purpose before the rendezvous")
    strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
    rank = int(os.environ.get("RANK", "0"))
    with open(os.path.join(out, f"pid{rank}"), "w") as f:
        f.write(str(os.getpid()))
    if fail == f"start:{rank}":
        raise RuntimeError(f"replica {rank} fails on purpose before training")
    if fail == "sleep":
        time.sleep(120)
    config = tf.estimator.RunConfig(train_distribute=strategy, tf_random_seed=rank + 1)
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    est.train(input_fn_sharded_by_context(8), steps=3)
    weights = {k: v.detach().cpu().numpy() for k, v in est._state.named_variables().items()}
    np.savez(os.path.join(out, f"rank{rank}.npz"), **weights)
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump({"rank": rank, "replicas": strategy.num_replicas_in_sync, "pid": os.getpid(),
                   "ppid": os.getppid(), "global_step": int(est._state.global_step),
                   "device": os.environ.get("TORCHESTIMATOR_DEVICE")}, f)
    if fail == f"end:{rank}":
        raise RuntimeError(f"replica {rank} fails on purpose after training")


if __name__ == "__main__":
    main()
'''


def _write_script(tmp_path: Path) -> tuple[Path, Path, Path]:
    script = tmp_path / "selflaunch_train.py"
    script.write_text(SCRIPT)
    out, model_dir = tmp_path / "out", tmp_path / "model"
    out.mkdir()
    return script, out, model_dir


def _env(tmp_path: Path, extra: dict | None = None) -> dict:
    """A clean environment (no cluster, device or self-launch variables) that imports the script."""
    env = base_env()
    for name in ("TORCHESTIMATOR_NO_SELF_LAUNCH", "TORCHESTIMATOR_DEVICE", "TORCHESTIMATOR_SELF_LAUNCHED_BY"):
        env.pop(name, None)
    env["PYTHONPATH"] = f"{tmp_path}{os.pathsep}{env['PYTHONPATH']}"
    return {**env, **(extra or {})}


def _run(command: list[str], tmp_path: Path, extra: dict | None = None, timeout: float = 180
         ) -> subprocess.CompletedProcess:
    env = _env(tmp_path, extra)
    return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=timeout)


def _results(out: Path) -> dict[int, tuple[dict, dict]]:
    found = {}
    for path in sorted(out.glob("rank*.json")):
        rank = int(path.stem[4:])
        with np.load(out / f"rank{rank}.npz") as z:
            found[rank] = (json.loads(path.read_text()), {k: z[k] for k in z.files})
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its new parent) is gone too
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _wait_gone(pid: int, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def _check_two_replicas_trained(out: Path, parent_pid: int | None = None) -> None:
    results = _results(out)
    assert sorted(results) == [0, 1], f"ranks that finished: {sorted(results)}"
    (r0, w0), (r1, w1) = results[0], results[1]
    assert r0["replicas"] == r1["replicas"] == 2
    assert r0["global_step"] == r1["global_step"] == 3
    assert r1["ppid"] == r0["pid"]  # replica 1 is a child of the program that was started
    assert r0["device"] == r1["device"] == "cpu"
    assert w0.keys() == w1.keys() and w0
    for name in w0:  # different seeds per rank: the chief's initial weights won, then DDP kept them equal
        assert np.array_equal(w0[name], w1[name]), f"replicas differ in {name}"


# -- real processes ----------------------------------------------------------------------------


@pytest.mark.slow
def test_python_script_trains_two_replicas_with_identical_weights(tmp_path):
    script, out, model_dir = _write_script(tmp_path)
    result = _run([sys.executable, str(script), str(out), str(model_dir)], tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    _check_two_replicas_trained(out)
    assert (model_dir / "checkpoint").exists()


@pytest.mark.slow
def test_python_dash_m_module_is_started_again_as_a_module(tmp_path):
    _, out, model_dir = _write_script(tmp_path)
    result = _run([sys.executable, "-m", "selflaunch_train", str(out), str(model_dir)], tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    _check_two_replicas_trained(out)


@pytest.mark.slow
@pytest.mark.parametrize("when", ["rendezvous", "start", "end"])
def test_a_failing_replica_fails_the_program(tmp_path, when):
    script, out, model_dir = _write_script(tmp_path)
    start = time.monotonic()
    result = _run([sys.executable, str(script), str(out), str(model_dir)], tmp_path,
                  {"SELF_LAUNCH_TEST_FAIL": f"{when}:1"})
    assert result.returncode != 0
    what = {"rendezvous": "before the rendezvous", "start": "before training", "end": "after training"}[when]
    assert f"replica 1 fails on purpose {what}" in result.stderr
    assert "MirroredStrategy: replica process 1" in result.stderr and "exited with status 1" in result.stderr
    assert time.monotonic() - start < 60  # the parent did not wait for the rendezvous timeout
    if when != "rendezvous":  # replica 1 got as far as writing its pid: it is gone now
        assert not _alive(int((out / "pid1").read_text()))
    if when == "rendezvous":  # the parent, waiting at the rendezvous, saw its replica fail
        assert "(its error is above); stopping the other replicas" in result.stderr


@pytest.mark.slow
def test_a_failing_parent_stops_its_replicas(tmp_path):
    script, out, model_dir = _write_script(tmp_path)
    result = _run([sys.executable, str(script), str(out), str(model_dir)], tmp_path,
                  {"SELF_LAUNCH_TEST_FAIL": "start:0"})
    assert result.returncode == 1
    assert "replica 0 fails on purpose before training" in result.stderr
    assert _wait_gone(int((out / "pid1").read_text()))


@pytest.mark.slow
def test_replicas_stop_when_the_parent_is_killed(tmp_path):
    script, out, model_dir = _write_script(tmp_path)
    env = _env(tmp_path, {"SELF_LAUNCH_TEST_FAIL": "sleep"})
    parent = subprocess.Popen([sys.executable, str(script), str(out), str(model_dir)], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while not ((out / "pid0").exists() and (out / "pid1").exists()) and time.monotonic() < deadline:
            assert parent.poll() is None, "the program ended before both replicas started"
            time.sleep(0.1)
        time.sleep(0.2)
        child = int((out / "pid1").read_text())
        assert _alive(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _wait_gone(child), f"replica 1 (pid {child}) outlived its killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


@pytest.mark.slow
def test_python_dash_c_warns_and_trains_one_replica(tmp_path):
    _, out, model_dir = _write_script(tmp_path)
    code = SCRIPT.replace('if __name__ == "__main__":\n    main()',
                          f"sys.argv[1:] = [{str(out)!r}, {str(model_dir)!r}]\nmain()")
    result = _run([sys.executable, "-c", code], tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "cannot be started again in new processes (it was started with `python -c`)" in result.stderr
    assert "torchestimator launch --nproc_per_node=2" in result.stderr
    results = _results(out)
    assert sorted(results) == [0] and results[0][0]["replicas"] == 1


@pytest.mark.slow
def test_no_self_launch_variable_trains_one_replica(tmp_path):
    script, out, model_dir = _write_script(tmp_path)
    result = _run([sys.executable, str(script), str(out), str(model_dir)], tmp_path,
                  {"TORCHESTIMATOR_NO_SELF_LAUNCH": "1"})
    assert result.returncode == 0, result.stderr[-4000:]
    assert "TORCHESTIMATOR_NO_SELF_LAUNCH is set" in result.stderr
    assert "torchestimator launch --nproc_per_node=2" in result.stderr
    results = _results(out)
    assert sorted(results) == [0] and results[0][0]["replicas"] == 1


# -- in this process ---------------------------------------------------------------------------


def test_a_test_run_is_not_started_again():
    assert not_restartable_reason() == "it runs under a test runner"


def test_a_test_run_in_a_worker_started_with_python_c_is_still_a_test_run(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["-c"])  # pytest-xdist's workers
    assert not_restartable_reason() == "it runs under a test runner"
    monkeypatch.delenv("PYTEST_CURRENT_TEST")  # a `python -c` program a test started
    assert not_restartable_reason() == "it was started with `python -c`"


def test_replica_command_repeats_interpreter_and_arguments(monkeypatch):
    monkeypatch.setattr(sys, "argv", [__file__, "--flag", "value"])
    main = sys.modules["__main__"]
    monkeypatch.setattr(main, "__spec__", None, raising=False)
    monkeypatch.setattr(main, "__file__", __file__, raising=False)
    command = replica_command()
    assert command[0] == sys.executable and command[-3:] == [os.path.abspath(__file__), "--flag", "value"]


def test_replica_devices():
    import torch

    assert replica_devices(["/cpu:0", "/cpu:1"]) == [torch.device("cpu"), torch.device("cpu")]
    assert replica_devices(None) == ([torch.device("cuda", i) for i in range(torch.cuda.device_count())]
                                     or [torch.device("cpu")])
    with pytest.raises(ValueError, match=r"lists \['/cpu:0'\] more than once"):
        replica_devices(["/cpu:0", "/cpu:0"])
    with pytest.raises(ValueError, match=r"'/gpu:99' is not a device of this machine, which has \d+ CUDA"):
        replica_devices(["/gpu:99"])
    with pytest.raises(ValueError, match="Unknown device"):
        replica_devices(["/tpu:0"])


@pytest.fixture
def _no_cluster(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG",
                 "TORCHESTIMATOR_NO_SELF_LAUNCH", "TORCHESTIMATOR_SELF_LAUNCHED_BY"):
        monkeypatch.delenv(name, raising=False)


def test_when_no_replica_processes_start(monkeypatch, caplog, _no_cluster):
    import torch

    from torchestimator.distribute._self_launch import maybe_start_replicas

    two = [torch.device("cpu"), torch.device("cpu")]
    assert maybe_start_replicas(two[:1]) is None and not caplog.records  # one device: nothing to say
    with caplog.at_level("WARNING", logger="torchestimator"):
        assert maybe_start_replicas(two) is None  # under pytest: not started again
    assert "it runs under a test runner" in caplog.text and "--nproc_per_node=2" in caplog.text
    caplog.clear()
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["localhost:1"]},
                                                "task": {"type": "worker", "index": 0}}))
    with caplog.at_level("WARNING", logger="torchestimator"):
        assert maybe_start_replicas(two) is None
    assert "TF_CONFIG describes a cluster" in caplog.text
    monkeypatch.delenv("TF_CONFIG")
    monkeypatch.setenv("TORCHESTIMATOR_SELF_LAUNCHED_BY", "1")
    with pytest.raises(RuntimeError, match=r"SELF_LAUNCHED_BY is set\) but RANK / WORLD_SIZE are not"):
        maybe_start_replicas(two)


def test_mirrored_strategy_with_a_device_list_in_a_test_run_is_one_replica(caplog, _no_cluster, monkeypatch):
    import torchestimator as tf

    monkeypatch.delenv("TORCHESTIMATOR_DEVICE", raising=False)  # (a GPU check sets it: it would win)

    with caplog.at_level("WARNING", logger="torchestimator"):
        strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
    assert strategy.num_replicas_in_sync == 1 and str(strategy.extended.worker_devices[0]) == "cpu"
    assert "trains one replica on cpu instead of 2" in caplog.text
