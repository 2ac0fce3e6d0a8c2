"""Every premade estimator resumes from its checkpoint: a new Estimator on the same model_dir
predicts as the old one did and continues the global step (and the optimizer state)."""

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.estimator import canned

fc = tf.feature_column


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=64).astype(np.float32)
    color = np.array(["a", "b", "c", "d"])[rng.integers(0, 4, size=64)]
    y = ((x > 0) ^ (color == "a")).astype(np.int64)
    return {"x": x, "color": color}, y


def _makers():
    num = fc.numeric_column("x")
    color = fc.categorical_column_with_vocabulary_list("color", ["a", "b", "c", "d"])
    return {
        "baseline": lambda d: canned.BaselineClassifier(model_dir=d),
        "baseline_regressor": lambda d: canned.BaselineRegressor(model_dir=d),
        "linear": lambda d: canned.LinearClassifier([num, color], model_dir=d),
        "linear_regressor": lambda d: canned.LinearRegressor([num, color], model_dir=d),
        "dnn": lambda d: canned.DNNClassifier([4], [num, fc.indicator_column(color)], model_dir=d),
        "wide_deep": lambda d: canned.DNNLinearCombinedClassifier(
            model_dir=d, linear_feature_columns=[color], dnn_feature_columns=[num], dnn_hidden_units=[4]),
        "v1_dnn": lambda d: tf.compat.v1.estimator.DNNClassifier([4], [num], model_dir=d),
    }


@pytest.mark.parametrize("kind", sorted(_makers()))
def test_resume(tmp_path, kind):
    features, labels = _data()
    make = _makers()[kind]
    if "regressor" in kind:
        labels = labels.astype(np.float32)

    def train_fn():
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(16)

    def eval_fn():
        return tf.data.Dataset.from_tensor_slices((features, labels)).batch(64)

    first = make(str(tmp_path))
    first.train(train_fn, steps=3)
    before = first.evaluate(eval_fn)
    names = first.get_variable_names()
    if kind == "v1_dnn":  # TF1's slot names: <variable>/<optimizer name>
        optimizer_state = [n for n in names if n.endswith("/kernel/Adagrad")]
    else:  # TF 2.15's: training/<optimizer>/<variable>/<slot>
        optimizer_state = [n for n in names if n.startswith("training/") and n.endswith("/accumulator")]
    assert optimizer_state, names
    second = make(str(tmp_path))
    assert second.evaluate(eval_fn)["loss"] == pytest.approx(before["loss"], rel=1e-6)
    second.train(train_fn, steps=2)
    assert second.evaluate(eval_fn)["global_step"] == 5
