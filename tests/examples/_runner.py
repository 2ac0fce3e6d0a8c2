"""Runs a program of examples/ the way a user would: in its own process, with HOME,
KERAS_HOME, TMPDIR and the working folder in a temporary directory (so `get_file` finds the
cached synthetic downloads and writes nothing elsewhere), progress bars off and a headless
matplotlib."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def run_example(path: pathlib.Path, tmp_path: pathlib.Path, timeout: int, prelude: str = "",
                **env_extra: str) -> str:
    """Runs the program at `path`; `prelude` (Python) runs first in that process, `env_extra`
    are more environment variables. Returns its standard output; fails, showing both streams,
    unless it exits 0."""
    env = {**os.environ, "HOME": str(tmp_path), "KERAS_HOME": str(tmp_path / ".keras"),
           "TMPDIR": str(tmp_path), "TORCHESTIMATOR_PROGRESS": "0", "MPLBACKEND": "Agg",
           **env_extra}
    command = [sys.executable, str(path)]
    if prelude:
        command = [sys.executable, "-c", prelude + "\nimport runpy, sys\n"
                   f"sys.argv = [{str(path)!r}]\n"
                   f"runpy.run_path({str(path)!r}, run_name='__main__')\n"]
    result = subprocess.run(command, cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    return result.stdout
