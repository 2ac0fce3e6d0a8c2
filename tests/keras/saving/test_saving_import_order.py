"""Each module of keras.saving's load-time circle imports first in a fresh process (issue 27)."""

from _harness.import_order import assert_each_imports_first

CIRCLE = (
    "torchestimator.keras.saving.saving_lib",
    "torchestimator.keras.saving._legacy_h5",
    "torchestimator.keras.saving._tf_checkpoint_weights",
    "torchestimator.keras.optimizers._torch_archive",
    "torchestimator.keras.engine._compile_config",
)


def test_each_module_of_the_saving_circle_imports_first():
    assert_each_imports_first(CIRCLE)
