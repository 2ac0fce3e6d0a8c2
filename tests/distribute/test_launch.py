"""`torchestimator launch`: torchrun underneath (its agent's store, restarts), TF_CONFIG clusters."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from _distlib import WORKER, base_env, load

from torchestimator.distribute._launch import torchrun_argv


def _launch(args: list[str], env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchestimator", "launch", *args], env=base_env(env),
                          capture_output=True, text=True, timeout=timeout)


def test_arguments_pass_through_to_torchrun():
    args, _ = torchrun_argv(["--nproc_per_node=2", "--max_restarts", "1", "train.py", "--epochs", "3"])
    assert args == ["--nproc_per_node=2", "--max_restarts", "1", "--standalone", "train.py", "--epochs", "3"]
    args, _ = torchrun_argv(["--nnodes=2", "--master_addr=h", "train.py"])
    assert "--standalone" not in args


def test_tf_config_cluster_becomes_torchrun_nodes():
    cluster = {"chief": ["h0:2222"], "worker": ["h1:2222", "h2:2222"], "ps": ["h3:2222"]}
    config = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 1}})
    args, _ = torchrun_argv([f"--tf_config={config}", "train.py"])
    assert args == ["--nnodes=3", "--node_rank=2", "--master_addr=h0", "--master_port=2222", "train.py"]
    ps = json.dumps({"cluster": cluster, "task": {"type": "ps", "index": 0}})
    assert torchrun_argv(["--tf_config", ps, "train.py"])[0] is None


def test_launch_errors_and_ps_exit(monkeypatch, capsys):
    from torchestimator.cli import main

    assert main(["launch", "--nproc_per_node=2"]) == 2
    assert "name the training script" in capsys.readouterr().err
    assert main(["launch", "--tf_config={oops", "train.py"]) == 2
    assert "--tf_config is not valid JSON" in capsys.readouterr().err
    config = {"cluster": {"chief": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]}, "task": {"type": "ps", "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    assert main(["launch", "train_does_not_exist.py"]) == 0
    assert "ps task 0 is not needed" in capsys.readouterr().err
    assert main(["launch", "--help"]) == 0 and "torchrun" in capsys.readouterr().out


@pytest.mark.slow
def test_launch_nproc_per_node_2_trains_an_estimator(tmp_path):
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    result = _launch(["--nproc_per_node=2", str(WORKER), "custom", str(model_dir), str(out)])
    assert result.returncode == 0, result.stderr[-3000:]
    (r0, w0), (r1, w1) = load(out, 0), load(out, 1)
    assert r0["global_step"] == r1["global_step"] == 6
    for name in w0:
        assert np.array_equal(w0[name], w1[name])


@pytest.mark.slow
def test_sigkill_of_a_worker_restarts_the_group_from_the_last_checkpoint(tmp_path):
    model_dir, out = tmp_path / "model", tmp_path / "out"
    out.mkdir()
    result = _launch(["--nproc_per_node=2", "--max_restarts=1", "--monitor_interval=0.5", str(WORKER),
                      "recover", str(model_dir), str(out)], timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    (r0, w0), (r1, w1) = load(out, 0), load(out, 1)
    assert r0 == r1 == {"global_step": 8, "attempt": 1}  # finished on the restarted attempt
    for name in w0:
        assert np.array_equal(w0[name], w1[name])
    assert (model_dir / "model.ckpt-8.json").exists()
