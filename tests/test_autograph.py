"""`tf.autograph`: nothing to convert (code runs eagerly), TF's signatures kept."""

from __future__ import annotations

import pytest

import torchestimator as tf


def _f(x):
    if x > 0:
        return x
    return -x


def test_to_graph_returns_the_function_and_to_code_its_source():
    assert tf.autograph.to_graph(_f) is _f
    assert tf.autograph.to_code(_f).startswith("def _f(x):")
    with pytest.raises(ValueError, match="must be a function or class"):
        tf.autograph.to_graph(3)


def test_verbosity_trace_and_the_experimental_options(capsys):
    tf.autograph.set_verbosity(3, alsologtostdout=True)
    assert tf.autograph.get_verbosity() == 3
    tf.autograph.set_verbosity(0)
    tf.autograph.trace("x =", 1)
    assert capsys.readouterr().out == "x = 1\n"
    assert tf.autograph.experimental.do_not_convert(_f) is _f
    assert tf.autograph.experimental.do_not_convert()(_f) is _f
    assert tf.autograph.experimental.Feature.ALL.value == "ALL"
    tf.autograph.experimental.set_loop_options(maximum_iterations=3)
    with pytest.raises(ValueError, match="non-negative int"):
        tf.autograph.set_verbosity(-1)
