"""tf.estimator.export.EvalOutput: keys and checks as TF 2.15 (recorded by running it)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf


def test_keys_are_prefixed_as_tf():
    out = tf.estimator.export.EvalOutput(
        loss=torch.tensor(1.0), predictions={"p": torch.ones(1), "q": torch.zeros(1)},
        metrics={"acc": (torch.tensor(0.5), torch.tensor(0.5))})
    assert sorted(out.loss) == ["loss"]
    assert sorted(out.predictions) == ["predictions/p", "predictions/q"]
    assert sorted(out.metrics) == ["metrics/acc/update_op", "metrics/acc/value"]
    other = tf.estimator.export.EvalOutput(loss={"a": torch.tensor(1.0)}, predictions=torch.ones(1))
    assert sorted(other.loss) == ["loss/a"] and sorted(other.predictions) == ["predictions"]
    assert other.metrics is None
    assert isinstance(out, tf.estimator.export.ExportOutput)
    assert len(out.as_dict()) == 5


def test_a_keras_metric_gives_its_result():
    mean = tf.keras.metrics.Mean()
    mean.update_state([1.0, 3.0])
    out = tf.estimator.export.EvalOutput(metrics={"m": mean})
    assert float(out.metrics["metrics/m/value"]) == 2.0


@pytest.mark.parametrize("kwargs,message", [
    ({"loss": {1: torch.tensor(1.0)}}, "loss output key must be a string; got 1"),
    ({"loss": "x"}, "loss output value must be a Tensor; got 'x'"),
    ({"metrics": {"a": 1.0}}, "metrics\\['a'\\] must be a \\(value, update_op\\) tuple"),
])
def test_bad_outputs_are_refused_naming_them(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.estimator.export.EvalOutput(**kwargs)
