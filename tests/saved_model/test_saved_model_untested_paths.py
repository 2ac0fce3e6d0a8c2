"""`tf.saved_model` paths no other test runs: a loaded signature's `structured_input_signature`
and `structured_outputs` (checked against what calling the signature returns), and the
`ExportOutput` base class's `as_dict`."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.saved_model._export_output import ExportOutput


def test_signature_structure_matches_its_outputs(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,), name="x"), tf.keras.layers.Dense(2, name="out")])
    tf.saved_model.save(model, str(tmp_path))
    signature = tf.saved_model.load(str(tmp_path)).signatures["serving_default"]
    args, kwargs = signature.structured_input_signature
    assert args == () and list(kwargs) == ["x"]
    assert tuple(kwargs["x"].shape) == (None, 3) and kwargs["x"].dtype == tf.float32
    outputs = signature.structured_outputs
    assert list(outputs) == ["out"] and tuple(outputs["out"].shape) == (None, 2)
    x = np.random.RandomState(0).randn(4, 3).astype("float32")
    result = signature(x=tf.constant(x))
    assert set(result) == set(outputs)
    assert tuple(result["out"].shape) == (4, 2) and result["out"].dtype == outputs["out"].dtype
    np.testing.assert_allclose(result["out"].numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_export_output_base_as_dict():
    with pytest.raises(TypeError, match="ExportOutput"):
        ExportOutput().as_dict()
    predict = tf.estimator.export.PredictOutput({"a": tf.constant([1.0])})
    assert list(predict.as_dict()) == ["a"]
