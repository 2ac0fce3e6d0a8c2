"""Issue 27: canned.linear reads estimator._linear_sdca's names at call time (the two meet in a
load-time circle through estimator/canned/__init__), so each module imports first."""

from __future__ import annotations

from _harness.import_order import assert_each_imports_first


def test_each_module_of_the_linear_sdca_circle_imports_first():
    assert_each_imports_first(
        ("torchestimator.estimator._linear_sdca",
         "torchestimator.estimator.canned.linear",
         "torchestimator.estimator.canned._trainable"),
        then=("from torchestimator.estimator.canned import linear\n"
              "assert linear._linear_sdca.LinearSDCA.__name__ == 'LinearSDCA'\n"),
    )
