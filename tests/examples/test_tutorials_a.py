"""TensorFlow 2.15 tutorials (batch A) in examples/tutorials/ run, unchanged but for the import
line, generated data and fewer epochs, each in its own process (HOME, KERAS_HOME, TMPDIR and
the working folder in a temporary directory), and print what the tutorial shows. Each program
also asserts the shapes and keys TF 2.15 gives (checked against tensorflow-cpu 2.15.1)."""

from __future__ import annotations

import pathlib
import re

import pytest
from _runner import EXAMPLES, run_example

TUTORIALS = EXAMPLES / "tutorials"


def _run(name: str, tmp_path: pathlib.Path, timeout: int = 900, **env_extra: str) -> str:
    """Runs examples/tutorials/`name`; returns its standard output (the test fails, showing
    both streams, unless it exits 0 and prints OK last)."""
    out = run_example(TUTORIALS / name, tmp_path, timeout, **env_extra)
    assert out.rstrip().endswith("OK"), out[-2000:]
    return out


def test_load_csv(tmp_path):
    out = _run("load_csv.py", tmp_path, TUTORIAL_EPOCHS="1")
    assert "[total: 412 features]" in out
    assert re.search(r"label\s+: tensor\(\[\d, \d, \d, \d, \d\]", out)  # batch_size=5
    assert "font_name character" in out


def test_regression(tmp_path):
    out = _run("regression.py", tmp_path, TUTORIAL_EPOCHS="3")
    assert "Total params: 4884" in out  # the dnn_model summary before fit, as TF's
    assert re.search(r"reloaded\s+\d+\.\d+", out)
    assert (tmp_path / "dnn_model.keras").is_file()


@pytest.mark.slow
def test_customizing_fit(tmp_path):
    out = _run("customizing_fit.py", tmp_path, TUTORIAL_EPOCHS="1")
    assert "['loss', 'mae']" in out
    assert re.search(r"\{'d_loss': \[[\d.]+\], 'g_loss': \[[\d.]+\]\}", out)


@pytest.mark.slow
def test_training_loop(tmp_path):
    out = _run("training_loop.py", tmp_path, TUTORIAL_EPOCHS="1", TUTORIAL_STEPS="20")
    assert out.count("Validation acc:") == 2
    assert "Training loss (for one batch) at step 20:" in out


@pytest.mark.slow
def test_time_series(tmp_path):
    out = _run("time_series.py", tmp_path, TUTORIAL_EPOCHS="1")
    assert "TensorSpec(shape=(None, 6, 19), dtype=tf.float32, name=None)" in out
    assert "Output shape: torch.Size([32, 22, 1])" in out  # conv_model on the wide window
    assert "AR LSTM :" in out


@pytest.mark.slow
def test_overfit_and_underfit(tmp_path):
    out = _run("overfit_and_underfit.py", tmp_path, TUTORIAL_EPOCHS="1")
    assert "['accuracy', 'binary_crossentropy', 'loss', 'val_accuracy', " \
           "'val_binary_crossentropy', 'val_loss']" in out
    assert "combined {'loss':" in out
