"""Wide & deep: quality on the mixed table, each optimizer updating only its own part, resume,
default optimizers and errors."""

import math

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.estimator.canned import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from torchestimator.estimator.head import RegressionHead


def _values(est, prefix):
    return {n: est.get_variable_value(n).copy() for n in est.get_variable_names() if n.startswith(prefix)}


def test_mixed_table_quality_and_names(tmp_path, mixed_table, mixed_feature_columns, make_input_fn, roc_auc):
    x, y, xt, yt, logit = mixed_table
    linear, dnn = mixed_feature_columns
    est = DNNLinearCombinedClassifier(
        model_dir=str(tmp_path), linear_feature_columns=linear, dnn_feature_columns=dnn,
        dnn_hidden_units=[16, 8],
        linear_optimizer=lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate=0.2),
        dnn_optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05))
    est.train(make_input_fn(x, y, batch_size=64, epochs=3))
    result = est.evaluate(make_input_fn(xt, yt, batch_size=500, shuffle=False))
    assert result["global_step"] == math.ceil(3 * len(y) / 64)
    assert result["auc"] > roc_auc(yt, logit) - 0.06
    names = est.get_variable_names()
    for name in ("dnn/hiddenlayer_0/kernel", "dnn/logits/bias", "linear/linear_model/bias_weights"):
        assert name in names
    assert any(n.startswith("dnn/input_from_feature_columns/input_layer/city_embedding") for n in names)
    # TF's slot names: training/<optimizer>/<variable>/<slot>; each optimizer holds its own part's
    optimizer_slots = {(n.split("/")[1], n.split("/")[2]) for n in names if n.endswith("/accumulator")}
    assert optimizer_slots == {("Adagrad", "dnn"), ("Ftrl", "linear")}
    assert "training/Ftrl/linear/linear_model/bias_weights/linear" in names


def test_each_optimizer_updates_only_its_part(tmp_path, mixed_table, mixed_feature_columns, make_input_fn):
    x, y, *_ = mixed_table
    linear, dnn = mixed_feature_columns
    small_x = {k: v[:256] for k, v in x.items()}
    results = {}
    for frozen in ("linear", "dnn"):
        rates = {"linear": 0.0 if frozen == "linear" else 0.5, "dnn": 0.0 if frozen == "dnn" else 0.5}
        est = DNNLinearCombinedClassifier(
            model_dir=str(tmp_path / frozen), linear_feature_columns=linear, dnn_feature_columns=dnn,
            dnn_hidden_units=[8],
            linear_optimizer=lambda r=rates["linear"]: tf.keras.optimizers.legacy.SGD(learning_rate=r),
            dnn_optimizer=lambda r=rates["dnn"]: tf.keras.optimizers.legacy.SGD(learning_rate=r))
        est.train(make_input_fn(small_x, y[:256], batch_size=64), steps=1)
        start = {**_values(est, "linear/"), **_values(est, "dnn/")}
        est.train(make_input_fn(small_x, y[:256], batch_size=64), steps=3)
        end = {**_values(est, "linear/"), **_values(est, "dnn/")}
        results[frozen] = {n: not np.array_equal(start[n], end[n]) for n in start}
    for frozen, changed in results.items():
        other = "dnn" if frozen == "linear" else "linear"
        assert not any(v for n, v in changed.items() if n.startswith(frozen + "/")), frozen
        assert any(v for n, v in changed.items() if n.startswith(other + "/")), other
    # the two optimizers hold disjoint variable lists
    est_vars = [set(map(id, o._vars)) for o in est._state.optimizers()]
    assert len(est_vars) == 2 and not est_vars[0] & est_vars[1]


def test_default_optimizers_and_resume(tmp_path, mixed_table, mixed_feature_columns, make_input_fn):
    x, y, xt, yt, _ = mixed_table
    linear, dnn = mixed_feature_columns
    small = {k: v[:128] for k, v in x.items()}
    kwargs = dict(model_dir=str(tmp_path), linear_feature_columns=linear, dnn_feature_columns=dnn,
                  dnn_hidden_units=[4])
    est = DNNLinearCombinedClassifier(**kwargs)
    est.train(make_input_fn(small, y[:128], batch_size=32), steps=2)
    rates = {type(o).__name__: o.learning_rate for o in est._state.optimizers()}
    assert rates == pytest.approx({"Adagrad": 0.001, "Ftrl": min(0.005, 1 / math.sqrt(len(linear)))})
    before = est.evaluate(make_input_fn(small, y[:128], batch_size=128, shuffle=False))
    again = DNNLinearCombinedClassifier(**kwargs)
    assert again.evaluate(make_input_fn(small, y[:128], batch_size=128, shuffle=False))["average_loss"] == \
        pytest.approx(before["average_loss"], rel=1e-6)
    again.train(make_input_fn(small, y[:128], batch_size=32), steps=2)
    assert again.evaluate(make_input_fn(small, y[:128], batch_size=128, shuffle=False))["global_step"] == 4


def test_regressor_and_estimator_variants(tmp_path, diabetes, make_input_fn):
    x, y, xt, yt, names = diabetes
    columns = [tf.feature_column.numeric_column(n) for n in names]
    reg = DNNLinearCombinedRegressor(model_dir=str(tmp_path / "r"), linear_feature_columns=columns,
                                     linear_optimizer=lambda: tf.keras.optimizers.legacy.Ftrl(0.5))
    reg.train(make_input_fn(x, y, batch_size=32, epochs=None), steps=200)
    assert reg.evaluate(make_input_fn(xt, yt, 100, shuffle=False))["average_loss"] < 0.85 * np.var(yt)
    assert not any(n.startswith("dnn/") for n in reg.get_variable_names())
    only_dnn = DNNLinearCombinedEstimator(RegressionHead(), model_dir=str(tmp_path / "e"),
                                          dnn_feature_columns=columns, dnn_hidden_units=[8])
    only_dnn.train(make_input_fn(x, y, batch_size=32), steps=2)
    assert not any(n.startswith("linear/") for n in only_dnn.get_variable_names())


def test_errors():
    age = tf.feature_column.numeric_column("age")
    color = tf.feature_column.categorical_column_with_vocabulary_list("color", ["a", "b"])
    seq = tf.feature_column.sequence_numeric_column("s")
    with pytest.raises(ValueError, match="Either linear_feature_columns or dnn_feature_columns must be defined"):
        DNNLinearCombinedClassifier()
    with pytest.raises(ValueError, match="dnn_hidden_units must be defined"):
        DNNLinearCombinedClassifier(dnn_feature_columns=[age])
    with pytest.raises(ValueError, match="dnn_feature_columns must be dense columns"):
        DNNLinearCombinedClassifier(dnn_feature_columns=[color], dnn_hidden_units=[2])
    with pytest.raises(ValueError, match="linear_feature_columns takes no sequence columns"):
        DNNLinearCombinedClassifier(linear_feature_columns=[seq])
    with pytest.raises(ValueError, match="linear_optimizer must be a string"):
        DNNLinearCombinedClassifier(linear_feature_columns=[age], linear_optimizer=3)
    with pytest.raises(ValueError, match="n_classes must be an int >= 2"):
        DNNLinearCombinedClassifier(linear_feature_columns=[age], n_classes=1)
