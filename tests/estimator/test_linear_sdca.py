"""tf.estimator.experimental.LinearSDCA: LinearRegressor (squared loss) and LinearClassifier
(logistic loss), with and without l1 and example weights, converge to TF 2.15's weights on the
same data (recorded by tools/make_tf_api_types_fixtures.py: 200 full-batch steps)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.estimator._linear_sdca import _convert_label, _updated_dual

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _api_types_fixtures import FIXTURES  # noqa: E402

TF = FIXTURES["linear_sdca"]
DATA = TF["data"]
CASES = {"squared": (0.0, 1.0, False), "squared_l1": (2.0, 1.0, True),
         "logistic": (0.0, 1.0, False), "logistic_l1": (1.0, 0.5, True)}


def _columns():
    return [tf.feature_column.numeric_column("x", shape=(2,)),
            tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])]


def _input_fn(labels):
    def input_fn():
        feats = {"x": np.array(DATA["x"], np.float32), "c": np.array(DATA["c"]),
                 "example_id": np.array(DATA["ids"]), "w": np.array(DATA["w"], np.float32)}
        return tf.data.Dataset.from_tensors((feats, labels)).repeat()
    return input_fn


def _estimator(name, tmp_path):
    l1, l2, weighted = CASES[name]
    sdca = tf.estimator.experimental.LinearSDCA("example_id", symmetric_l1_regularization=l1,
                                                symmetric_l2_regularization=l2)
    weight = "w" if weighted else None
    if name.startswith("squared"):
        est = tf.estimator.LinearRegressor(_columns(), optimizer=sdca, weight_column=weight, model_dir=str(tmp_path))
        return est, np.array(DATA["y_reg"], np.float32)
    est = tf.estimator.LinearClassifier(_columns(), optimizer=sdca, weight_column=weight, model_dir=str(tmp_path))
    return est, np.array(DATA["y_cls"], np.int64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_converges_to_tfs_weights(name, tmp_path):
    est, labels = _estimator(name, tmp_path)
    est.train(_input_fn(labels), steps=200)
    for variable, want in TF["cases"][name]["weights"].items():
        np.testing.assert_allclose(np.asarray(est.get_variable_value(variable)).ravel(), np.ravel(want),
                                   atol=2e-4, err_msg=f"{name}: {variable}")
    loss = est.evaluate(_input_fn(labels), steps=1)["loss"]
    assert loss == pytest.approx(TF["cases"][name]["loss"], rel=1e-3)
    if name.endswith("l1"):  # the proximal step zeroes small weights exactly, as TF's
        assert (np.asarray(est.get_variable_value("linear/linear_model/c/weights")) == 0).any() == \
            (np.asarray(TF["cases"][name]["weights"]["linear/linear_model/c/weights"]) == 0).any()


def test_minibatches_and_a_second_train_call_reach_the_same_solution(tmp_path):
    est, labels = _estimator("squared", tmp_path)
    x, c, ids = np.array(DATA["x"], np.float32), np.array(DATA["c"]), np.array(DATA["ids"])

    def input_fn():
        feats = {"x": x, "c": c, "example_id": ids}
        return tf.data.Dataset.from_tensor_slices((feats, labels)).batch(10).repeat()

    est.train(input_fn, steps=400)
    est.train(input_fn, steps=400)
    for variable, want in TF["cases"]["squared"]["weights"].items():
        np.testing.assert_allclose(np.asarray(est.get_variable_value(variable)).ravel(), np.ravel(want), atol=5e-3)


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="symmetric_l2_regularization must be > 0"):
        tf.estimator.experimental.LinearSDCA("id", symmetric_l2_regularization=0.0)
    sdca = tf.estimator.experimental.LinearSDCA("example_id")
    est = tf.estimator.LinearClassifier(_columns(), n_classes=3, optimizer=sdca, model_dir=str(tmp_path / "m"))
    with pytest.raises(ValueError, match="Unsupported head type"):
        est.train(_input_fn(np.array(DATA["y_cls"], np.int64)), steps=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Only labels of 0.0 or 1.0"):
        _convert_label(2.0, "logistic_loss")


def test_hinge_dual_update_is_tfs_closed_form():
    # candidate = dual + (y - wx) / (P * w * norm), clipped so that y * dual is in [0, 1]
    assert _updated_dual("hinge_loss", 1, 1.0, 1.0, 0.0, 0.5, 1.0) == pytest.approx(0.5)
    assert _updated_dual("hinge_loss", 1, 1.0, 1.0, 0.0, -3.0, 1.0) == 1.0
    assert _updated_dual("hinge_loss", 1, -1.0, 1.0, 0.0, -3.0, 1.0) == 0.0
    assert _updated_dual("squared_loss", 1, 2.0, 1.0, 0.0, 0.0, 1.0) == pytest.approx(1.0)
