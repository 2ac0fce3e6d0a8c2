"""Estimators continue from model_dirs written by TensorFlow 2.15's premade Estimators (and
the tf.compat.v1 ones): built with the same feature columns, they predict what TF predicted,
evaluate to TF's metrics, and training goes on from TF's global_step and optimizer slots
(Adagrad accumulators, Ftrl accumulators/linears, Adam m/v, TF1's `<var>/part_0/Ftrl` slots),
reproducing what TF's own continued training predicted, then writes our checkpoint format.
`custom_model_fn` is a model_fn of Keras Dense layers and TF1's AdagradOptimizer, restored by
name (`dense/kernel`, `dense_1/bias/Adagrad`)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from _fixtures import build, copy_model_dir, features, fixture, labels, predict, predictions

import torchestimator as tf

NAMES = [
    "dnn_classifier", "dnn_regressor", "linear_classifier", "linear_regressor",
    "dnn_linear_combined_classifier", "dnn_linear_combined_regressor", "baseline_classifier",
    "baseline_regressor", "v1_dnn_classifier", "v1_linear_classifier", "custom_model_fn",
]


def _close(ours: dict, theirs: dict, prefix: str = "", rtol: float = 1e-5, atol: float = 1e-5) -> None:
    compared = 0
    for key, expected in theirs.items():
        if not key.startswith(prefix) or (not prefix and key.startswith("continued/")):
            continue
        got = ours[key[len(prefix):]]
        if expected.dtype.kind in "iub":
            np.testing.assert_array_equal(got, expected, err_msg=key)
        else:
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=key)
        compared += 1
    assert compared


@pytest.mark.parametrize("name", NAMES)
def test_continues_from_tf_model_dir(name, tmp_path):
    spec = fixture(name)
    keys = spec["features"]
    model_dir = copy_model_dir(name, str(tmp_path / "model"))
    estimator = build(name, model_dir)
    assert estimator.latest_checkpoint() == os.path.join(model_dir, "model.ckpt-5")
    assert estimator.get_variable_names() == [n for n, _ in spec["variables"]]
    assert estimator.get_variable_value("global_step") == 5
    _close(predict(estimator, keys), predictions(name))

    x, y = features("test", keys), labels("test", spec["label"])
    metrics = estimator.evaluate(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(5))
    for key, expected in spec["metrics"].items():
        assert float(metrics[key]) == pytest.approx(expected, rel=1e-5, abs=1e-5), key

    x, y = features("train", keys), labels("train", spec["label"])
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(8), steps=3)
    assert estimator.get_variable_value("global_step") == spec["continued_step"] == 8
    latest = estimator.latest_checkpoint()
    assert latest == os.path.join(model_dir, "model.ckpt-8")
    assert os.path.exists(latest + ".safetensors") and os.path.exists(latest + ".json")
    # the optimizer slots came from TF's checkpoint: the three steps are TF's three steps
    _close(predict(estimator, keys), predictions(name), prefix="continued/", rtol=2e-5, atol=2e-5)


def test_a_model_dir_copied_from_another_machine(tmp_path, caplog):
    # TF wrote absolute paths into its `checkpoint` index: the checkpoint is found in the folder
    model_dir = copy_model_dir("dnn_regressor", str(tmp_path / "copied"))
    with open(os.path.join(model_dir, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "/data/old_machine/model.ckpt-5"\n'
                'all_model_checkpoint_paths: "/data/old_machine/model.ckpt-5"\n')
    assert tf.train.latest_checkpoint(model_dir) == os.path.join(model_dir, "model.ckpt-5")
    assert "/data/old_machine/model.ckpt-5 is unusable" in caplog.text
    estimator = build("dnn_regressor", model_dir)
    _close(predict(estimator, fixture("dnn_regressor")["features"]), predictions("dnn_regressor"))
