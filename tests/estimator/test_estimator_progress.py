"""`Estimator.train` shows its progress: a line rewritten in place on a terminal, periodic lines
elsewhere, silent while the INFO lines show, off with TORCHESTIMATOR_PROGRESS=0."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.estimator.hooks._progress import ProgressHook


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _train(tmp_path, hook, steps=30):
    x = np.random.RandomState(0).rand(64, 2).astype("float32")
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=(2,))],
                                       model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x.sum(1))).batch(8).repeat(),
              steps=steps, hooks=[hook])


@pytest.fixture
def _info_off():
    logger = logging.getLogger("torchestimator")
    level = logger.level
    logger.setLevel(logging.WARNING)
    yield
    logger.setLevel(level)


def test_on_a_terminal_one_line_is_rewritten_with_step_rate_and_loss(tmp_path, monkeypatch, _info_off):
    monkeypatch.setattr("torchestimator.estimator.hooks._progress._TERMINAL_PERIOD_SECS", 0.0)
    out = _Terminal()
    _train(tmp_path, ProgressHook(num_steps=30, stream=out))
    text = out.getvalue()
    updates = text.split("\r")[1:]
    assert len(updates) >= 30  # every step with no period; the last one ends the line
    assert updates[0].startswith("step 1/30 - ") and "steps/s - loss " in updates[0]
    assert updates[-1].startswith("step 30/30 - ") and updates[-1].endswith("\n")
    assert text.count("\n") == 1


def test_off_a_terminal_lines_come_every_period_and_not_while_info_shows(tmp_path, _info_off):
    out = io.StringIO()
    _train(tmp_path / "a", ProgressHook(num_steps=20, stream=out, log_period_secs=0.0), steps=20)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("step 1/20 - ") and lines[-1].startswith("step 20/20 - ")
    assert all("\r" not in line for line in lines)
    logging.getLogger("torchestimator").setLevel(logging.INFO)  # set_verbosity(INFO)
    quiet = io.StringIO()
    _train(tmp_path / "b", ProgressHook(num_steps=20, stream=quiet, log_period_secs=0.0), steps=20)
    assert quiet.getvalue() == ""


def _run(tmp_path, env):
    program = textwrap.dedent(f"""
        import numpy as np
        import torchestimator as tf
        x = np.random.RandomState(0).rand(64, 2).astype("float32")
        est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=(2,))],
                                           model_dir={str(tmp_path)!r})
        est.train(lambda: tf.data.Dataset.from_tensor_slices(({{"x": x}}, x.sum(1))).batch(8).repeat(),
                  steps=400)
    """)
    env = {k: v for k, v in os.environ.items() if k != "TORCHESTIMATOR_PROGRESS"} | env
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            env=env, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stderr


def test_a_default_run_reports_and_the_switch_turns_it_off(tmp_path):
    shown = _run(tmp_path / "a", {})
    assert "step 400/400 - " in shown  # a run ends with its summary line
    assert _run(tmp_path / "b", {"TORCHESTIMATOR_PROGRESS": "0"}) == ""
