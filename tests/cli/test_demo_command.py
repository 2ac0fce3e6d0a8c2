"""`torchestimator demo` (the Iris demo of the README, from the installed package) and the
command list of `torchestimator --help`, in real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

COMMANDS = ("serve", "launch", "inspect-checkpoint", "convert-checkpoint", "demo")


def _console_script() -> list[str]:
    """The installed `torchestimator` script of this interpreter, else `python -m`."""
    script = Path(sysconfig.get_path("scripts")) / ("torchestimator.exe" if os.name == "nt"
                                                    else "torchestimator")
    return [str(script)] if script.exists() else [sys.executable, "-m", "torchestimator"]


def _run(command: list[str], *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout)


def test_help_lists_every_command_in_both_entry_points():
    for command in (_console_script(), [sys.executable, "-m", "torchestimator"]):
        usage = _run(command, "--help", timeout=120)
        assert usage.returncode == 0, usage.stderr
        listed = usage.stdout.split("positional arguments:")[1].split("options:")[0]
        for name in COMMANDS:
            assert f"\n    {name}" in listed, (name, usage.stdout)


def test_demo_help_names_its_options():
    usage = _run([sys.executable, "-m", "torchestimator"], "demo", "--help", timeout=120)
    assert usage.returncode == 0, usage.stderr
    assert "--model_dir" in usage.stdout and "--steps" in usage.stdout


def test_demo_trains_evaluates_exports_and_predicts_from_the_export(tmp_path):
    model_dir = tmp_path / "demo"
    done = _run([sys.executable, "-m", "torchestimator"], "demo", "--steps", "50",
                "--model_dir", str(model_dir))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = done.stdout
    assert "Estimator test set accuracy:" in out and "Keras test set accuracy:" in out, out
    assert out.count("The export predicts") == 3 and out.count("Prediction is") == 3, out
    # the Estimator's checkpoint of step 50, the export, the Keras archive, in --model_dir
    assert (model_dir / "estimator" / "model.ckpt-50.safetensors").is_file()
    assert (model_dir / "data" / "iris_training.csv").is_file() or any((model_dir / "data").iterdir())
    (export,) = [p for p in (model_dir / "export").iterdir() if p.name.isdigit()]
    assert f"Exported to {export}" in out
    assert (model_dir / "iris.keras").is_file()
    assert f"The demo's files are in {model_dir}" in out
    # TF's progress lines go to the log (stderr), as the README's demo shows them
    assert "loss = " in done.stderr and "step = " in done.stderr, done.stderr[-2000:]


def test_demo_refuses_a_step_count_below_one(tmp_path):
    done = _run(_console_script(), "demo", "--steps", "0", "--model_dir", str(tmp_path / "d"),
                timeout=120)
    assert done.returncode == 2
    assert "--steps must be a positive number" in done.stderr and "got 0" in done.stderr
    assert not (tmp_path / "d").exists()
