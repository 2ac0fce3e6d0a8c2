"""`tf.__version__` / `tf.version` report the TensorFlow API level; the package's own release is
`tf.version.TORCHESTIMATOR_VERSION`, equal to the installed distribution's."""

from __future__ import annotations

import importlib.metadata

import pytest

import torchestimator as tf
from _package_env import installed


def test_the_tf_api_level_makes_tf2_branches_run():
    assert tf.__version__ == tf.version.VERSION == tf.compat.v1.VERSION == "2.15.1"
    assert tf.__version__.startswith("2")
    major, minor = (int(p) for p in tf.__version__.split(".")[:2])
    assert (major, minor) >= (2, 0)
    assert tf.version.GRAPH_DEF_VERSION == 1645  # TF 2.15's


@pytest.mark.skipif(not installed(), reason="run from src/ without being installed: no distribution")
def test_the_package_version_is_the_distributions():
    assert tf.version.TORCHESTIMATOR_VERSION == importlib.metadata.version("torchestimator")
    assert tf.version.GIT_VERSION == f"torchestimator-{tf.version.TORCHESTIMATOR_VERSION}"
