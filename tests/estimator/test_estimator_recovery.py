"""Recovery: a training process killed with SIGKILL at random moments (between steps and in the
middle of checkpoint saves) and started again reproduces the uninterrupted run's weights
bit for bit (tf_random_seed set, seeded shuffling and dropout); corrupt checkpoints are skipped."""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from _estimator_testlib import checkpoint_steps, config, input_fn, linear_model_fn, weights

import torchestimator as tf

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_estimator_kill_worker.py")
MAX_STEPS, SAVE_STEPS, WIDTH = 40, 5, 100_000


def _start(model_dir: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, WORKER, model_dir, str(MAX_STEPS), str(SAVE_STEPS), str(WIDTH)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _finish(process: subprocess.Popen) -> None:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err[-3000:]
    assert "DONE" in out


def _run_killed(process: subprocess.Popen, kill: tuple[str, int, float]) -> tuple[bool, bool]:
    """Reads the worker's log; kills it `delay` s after its `nth` 'Saving checkpoints' line
    ('save') or `delay` s after its first one ('step'). Returns (killed, killed in the middle
    of that save: its 'after saving' line never came)."""
    mode, nth, delay = kill
    seen = 0
    log: list[str] = []
    for line in process.stderr:
        log.append(line)
        if line.startswith("Saving checkpoints for"):
            seen += 1
            if seen == (nth if mode == "save" else 1):
                step = int(line.split()[3])
                time.sleep(delay)
                process.send_signal(signal.SIGKILL)
                rest = process.stderr.read()
                process.wait()
                return True, f"after saving checkpoint {step}..." not in rest
    process.wait()
    assert process.returncode == 0, "".join(log)[-4000:]
    return False, False


def _temp_files(model_dir: str) -> int:
    return sum(name.startswith(".tmp-ckpt-") for name in os.listdir(model_dir))


def _compare(reference_dir: str, killed_dir: str) -> None:
    expected, got = weights(reference_dir), weights(killed_dir)
    assert int(got["global_step"]) == MAX_STEPS
    assert expected.keys() == got.keys()
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


def _trial(tmp_path, seed: int, kills: int) -> dict:
    reference_dir, killed_dir = str(tmp_path / "reference"), str(tmp_path / "killed")
    reference = _start(reference_dir)
    r = random.Random(seed)
    killed = mid_save = 0
    for _ in range(kills):
        mode = r.choice(["save", "step"])
        kill = (mode, r.randint(1, 3), r.uniform(0, 0.02) if mode == "save" else r.uniform(0, 0.5))
        was_killed, in_save = _run_killed(_start(killed_dir), kill)
        if not was_killed:
            break
        killed += 1
        mid_save += in_save
    _finish(_start(killed_dir))
    _finish(reference)
    _compare(reference_dir, killed_dir)
    return {"killed": killed, "mid_save": mid_save}


def test_sigkill_during_a_save_and_between_steps_resumes_to_identical_weights(tmp_path):
    r = random.Random(0)
    reference_dir, killed_dir = str(tmp_path / "reference"), str(tmp_path / "killed")
    reference = _start(reference_dir)
    # Killed just after a save of a ~12 MB checkpoint started (tried again, up to 3 times, should
    # the save finish first on a loaded machine), then at a random moment of a step.
    in_save = False
    for _ in range(3):
        killed, in_save = _run_killed(_start(killed_dir), ("save", 2, r.uniform(0, 0.005)))
        assert killed
        if in_save:
            break
    killed, _ = _run_killed(_start(killed_dir), ("step", 1, r.uniform(0.05, 0.3)))
    assert killed
    _finish(_start(killed_dir))
    _finish(reference)
    assert _temp_files(killed_dir) == 0  # leftovers of an interrupted save are cleaned up
    _compare(reference_dir, killed_dir)
    assert in_save, "the first kill was meant to land inside a checkpoint save"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_at_random_points_several_trials(tmp_path, seed):
    result = _trial(tmp_path, seed, kills=3)
    assert result["killed"] >= 1


def test_corrupt_latest_checkpoint_falls_back_to_the_previous_one(tmp_path, caplog):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=2, keep_checkpoint_max=None))
    est.train(input_fn(), steps=4)
    assert checkpoint_steps(str(tmp_path)) == [0, 2, 4]
    path = os.path.join(str(tmp_path), "model.ckpt-4.safetensors")
    data = bytearray(open(path, "rb").read())
    data[-1] ^= 0xFF
    open(path, "wb").write(bytes(data))
    caplog.set_level(logging.WARNING)
    assert est.latest_checkpoint() == os.path.join(str(tmp_path), "model.ckpt-2")
    assert "model.ckpt-4" in caplog.text and "checksum" in caplog.text
    fresh = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config())
    assert fresh.evaluate(input_fn(2))["global_step"] == 2
    fresh.train(input_fn(), steps=1)
    assert int(fresh.get_variable_value("global_step")) == 3


def test_truncated_checkpoint_is_reported_with_its_path(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config())
    est.train(input_fn(), steps=2)
    path = os.path.join(str(tmp_path), "model.ckpt-2.safetensors")
    with open(path, "r+b") as f:
        f.truncate(10)
    with pytest.raises(ValueError, match="model.ckpt-2.safetensors is truncated"):
        est.evaluate(input_fn(2), checkpoint_path=os.path.join(str(tmp_path), "model.ckpt-2"))
