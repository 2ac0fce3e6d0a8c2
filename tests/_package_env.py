"""How the tests see the package under test: installed (pip), or run from `src/` on
`PYTHONPATH` as `tools/gpu_check.sh` runs it on a GPU machine that has no package index."""

from __future__ import annotations

import importlib.metadata
import os

import torchestimator


def package_only_env() -> dict[str, str]:
    """`os.environ` for a fresh Python process that finds `torchestimator` where this process
    found it and nothing else of `PYTHONPATH` (not the tests' helper modules): `PYTHONPATH` is
    the folder that holds the package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(torchestimator.__file__)))
    return env


def installed() -> bool:
    """Whether the package is installed as a distribution (its metadata and console script
    exist); False where it runs from `src/` on `PYTHONPATH` only."""
    try:
        importlib.metadata.distribution("torchestimator")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True
