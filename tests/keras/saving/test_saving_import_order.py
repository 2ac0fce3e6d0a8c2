"""Each module of keras.saving's load-time circle imports first in a fresh process (issue 27)."""

import subprocess
import sys

CIRCLE = (
    "torchestimator.keras.saving.saving_lib",
    "torchestimator.keras.saving._legacy_h5",
    "torchestimator.keras.saving._tf_checkpoint_weights",
    "torchestimator.keras.optimizers._torch_archive",
    "torchestimator.keras.engine._compile_config",
)


def test_each_module_of_the_saving_circle_imports_first():
    for module in CIRCLE:
        result = subprocess.run(
            [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, f"importing {module} first failed:\n{result.stderr[-2000:]}"
