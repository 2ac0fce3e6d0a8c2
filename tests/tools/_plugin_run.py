"""Runs one of the op-recording pytest plugins of `tools/` on a probe test file, in a fresh
pytest process that finds the package as this one does."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from _package_env import package_only_env

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools"


def run_plugin(plugin: str, probe: str, tmp_path: pathlib.Path, out_variable: str) -> tuple[str, str]:
    """Runs `pytest -p plugin` on a file holding `probe` with `$out_variable` set to a folder;
    asserts it passed; returns (its terminal output, the one report it wrote there)."""
    path = tmp_path / "test_probe.py"
    path.write_text(probe)
    env = package_only_env()
    env["PYTHONPATH"] = os.pathsep.join([str(TOOLS), env["PYTHONPATH"]])
    env[out_variable] = str(tmp_path / "out")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", plugin, "-q",
                          "-p", "no:cacheprovider", "-o", "addopts=", str(path)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    (written,) = (tmp_path / "out").iterdir()
    return run.stdout, written.read_text()
