"""Issue 27: canned.linear reads estimator._linear_sdca's names at call time (the two meet in a
load-time circle through estimator/canned/__init__), so each module imports first."""

from __future__ import annotations

import subprocess
import sys


def test_each_module_of_the_linear_sdca_circle_imports_first():
    for module in ("torchestimator.estimator._linear_sdca",
                   "torchestimator.estimator.canned.linear",
                   "torchestimator.estimator.canned._trainable"):
        code = (f"import {module}\n"
                "from torchestimator.estimator.canned import linear\n"
                "assert linear._linear_sdca.LinearSDCA.__name__ == 'LinearSDCA'\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"import {module} first failed:\n{done.stderr}"
