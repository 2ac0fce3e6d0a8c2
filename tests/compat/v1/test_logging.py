"""`tf.compat.v1.logging` and `tf.get_logger`: TensorFlow's levels and functions over Python's
logging, and the first line of TF1 Estimator programs showing the training log."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

import pytest

import torchestimator as tf

v1_logging = tf.compat.v1.logging


@pytest.fixture(autouse=True)
def _restore_level():
    logger = logging.getLogger("torchestimator")
    level = logger.level
    yield
    logger.setLevel(level)


def test_levels_are_tensorflows():
    assert (v1_logging.DEBUG, v1_logging.INFO, v1_logging.WARN, v1_logging.ERROR,
            v1_logging.FATAL) == (10, 20, 30, 40, 50)


def test_set_verbosity_sets_the_projects_logger(caplog):
    v1_logging.set_verbosity(v1_logging.ERROR)
    assert v1_logging.get_verbosity() == 40
    assert tf.get_logger() is logging.getLogger("torchestimator") is tf.compat.v1.get_logger()
    with caplog.at_level(logging.NOTSET):
        v1_logging.set_verbosity(v1_logging.ERROR)
        v1_logging.info("hidden %d", 1)
        v1_logging.warning("hidden too")
        v1_logging.error("shown %s", "e")
        v1_logging.fatal("fatal %s", "f")
        v1_logging.TaskLevelStatusMessage("status")
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (40, "shown e"), (50, "fatal f"), (40, "status")]
    v1_logging.set_verbosity("INFO")
    assert v1_logging.get_verbosity() == 20


def test_every_n_first_n_and_if_count_per_line_of_code(caplog):
    v1_logging.set_verbosity(v1_logging.INFO)
    with caplog.at_level(logging.INFO, logger="torchestimator"):
        for i in range(7):
            v1_logging.log_every_n(v1_logging.INFO, "every %d", 3, i)
            v1_logging.log_first_n(v1_logging.INFO, "first %d", 2, i)
            v1_logging.log_if(v1_logging.INFO, "odd %d", i % 2 == 1, i)
        v1_logging.log_first_n(v1_logging.INFO, "other line", 1)  # its own count
    messages = [r.getMessage() for r in caplog.records]
    assert [m for m in messages if m.startswith("every")] == ["every 0", "every 3", "every 6"]
    assert [m for m in messages if m.startswith("first")] == ["first 0", "first 1"]
    assert [m for m in messages if m.startswith("odd")] == ["odd 1", "odd 3", "odd 5"]
    assert "other line" in messages


def test_bad_arguments_name_what_is_expected():
    with pytest.raises(TypeError, match="the level must be an int"):
        v1_logging.set_verbosity(2.5)
    with pytest.raises(ValueError, match="n must be a positive int"):
        v1_logging.log_every_n(v1_logging.INFO, "x", 0)


def test_a_tf1_estimator_program_shows_its_training_log_on_stderr(tmp_path):
    program = textwrap.dedent(f"""
        import numpy as np
        import torchestimator as tf

        tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
        x = np.random.RandomState(0).rand(32, 2).astype("float32")
        est = tf.estimator.LinearRegressor(
            [tf.feature_column.numeric_column("x", shape=(2,))], model_dir={str(tmp_path)!r},
            config=tf.estimator.RunConfig(log_step_count_steps=2))
        est.train(lambda: tf.data.Dataset.from_tensor_slices(({{"x": x}}, x.sum(1))).batch(8), steps=4)
        tf.compat.v1.logging.debug("not shown")
    """)
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stderr.splitlines()
    assert any(line.startswith("INFO:torchestimator:loss = ") and "step = " in line
               for line in lines), result.stderr[-2000:]
    assert not any("not shown" in line for line in lines)
