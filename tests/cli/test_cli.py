"""The `torchestimator` command: the installed console script resolves, `--help` and
`--version` work, and `inspect-checkpoint` reads a real Estimator model_dir."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import numpy as np
import pytest

import torchestimator as tf
from _package_env import installed
from torchestimator.cli import main


@pytest.mark.skipif(not installed(), reason="run from src/ without being installed: no console script")
def test_console_script_entry_point_resolves():
    (entry,) = [e for e in importlib.metadata.entry_points(group="console_scripts")
                if e.name == "torchestimator"]
    assert entry.load() is main


def test_version_and_help_in_a_real_process():
    version = subprocess.run([sys.executable, "-m", "torchestimator", "--version"],
                             capture_output=True, text=True, timeout=120)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == (f"torchestimator {tf.version.TORCHESTIMATOR_VERSION} "
                                      f"(TensorFlow API {tf.__version__})")
    usage = subprocess.run([sys.executable, "-m", "torchestimator", "--help"],
                           capture_output=True, text=True, timeout=120)
    assert usage.returncode == 0 and "inspect-checkpoint" in usage.stdout


def test_unknown_command_is_an_error(capsys):
    try:
        main(["no-such-command"])
    except SystemExit as stop:
        assert stop.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_inspect_checkpoint_lists_and_prints(tmp_path, capsys):
    x = np.random.default_rng(0).normal(size=(16, 2)).astype(np.float32)
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=(2,))],
                                       model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(4), steps=3)
    assert main(["inspect-checkpoint", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert "linear/linear_model/x/weights (2,1)" in listing
    assert "global_step ()" in listing
    assert main(["inspect-checkpoint", str(tmp_path), "--tensor", "global_step"]) == 0
    assert capsys.readouterr().out.strip().endswith("3")


def test_inspect_checkpoint_of_a_missing_dir_names_it(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert main(["inspect-checkpoint", str(missing)]) == 1
    assert str(missing) in capsys.readouterr().err


def test_inspect_checkpoint_prints_a_tensor_of_a_tensorflow_checkpoint_in_a_fresh_process():
    # `--tensor` reads TF's own format through _engine.checkpoint: the TF reader must be
    # registered even when nothing else in the process has loaded _tf_formats
    import os

    prefix = os.path.join(os.path.dirname(__file__), "..", "migration", "fixtures", "formats",
                          "object", "ckpt-1")
    name = "model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE"
    run = subprocess.run([sys.executable, "-m", "torchestimator", "inspect-checkpoint", prefix,
                          "--tensor", name], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert f"tensor_name:  {name}" in run.stdout
    expected = np.load(os.path.join(os.path.dirname(prefix), "values.npz"))["model/dense/bias:0"]
    assert str(np.asarray(expected, dtype=np.float32)) in run.stdout
