"""tf.train.ExponentialMovingAverage against TF 2.15 values (tools/make_tf_train_fixtures.py)."""

import json
import pathlib

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.train import _moving_averages

FIXTURES = json.loads((pathlib.Path(__file__).parent / "ema_fixtures.json").read_text())


@pytest.mark.parametrize("case", sorted(FIXTURES["cases"]))
def test_shadow_values_match_tf(case, monkeypatch):
    monkeypatch.setattr(_moving_averages, "_USED_NAMES", {})
    decay, num_updates, zero_debias = case.split("-")
    var = tf.Variable([0.0, 0.0], name="w")
    step = tf.Variable(0, dtype=tf.int64) if num_updates == "True" else None
    ema = tf.train.ExponentialMovingAverage(float(decay), num_updates=step,
                                            zero_debias=zero_debias == "True")
    expected = FIXTURES["cases"][case]
    for value, want in zip(FIXTURES["values"], expected["shadows"]):
        var.assign(value)
        if step is not None:
            step.assign_add(1)
        ema.apply([var])
        np.testing.assert_allclose(ema.average(var).numpy(), want, rtol=1e-6)
    # TF numbered the fixture's shadows process-wide (`w/ExponentialMovingAverage_4`).
    assert ema.average_name(var) == expected["name"].split("_")[0]
    assert ema.average(var).name == expected["name"].split("_")[0] + ":0"


def test_shadow_names_are_numbered_as_tf(monkeypatch):
    """TF 2.15: a second EMA of the same name gets `w/ExponentialMovingAverage_1`."""
    monkeypatch.setattr(_moving_averages, "_USED_NAMES", {})
    var = tf.Variable(1.0, name="w")
    got = []
    for name in ["ExponentialMovingAverage", "ExponentialMovingAverage", "Avg", "Avg"]:
        ema = tf.train.ExponentialMovingAverage(0.5, name=name)
        before = ema.average_name(var)
        ema.apply([var])
        got.append((before, ema.average(var).name))
    assert got == [("w/ExponentialMovingAverage", "w/ExponentialMovingAverage:0"),
                   ("w/ExponentialMovingAverage_1", "w/ExponentialMovingAverage_1:0"),
                   ("w/Avg", "w/Avg:0"), ("w/Avg_1", "w/Avg_1:0")]


def test_plain_number_num_updates_and_unknown_average():
    var = tf.Variable([2.0], name="v")
    ema = tf.train.ExponentialMovingAverage(0.99, num_updates=0)  # decay min(0.99, 1/10)
    ema.apply([var])
    var.assign([12.0])
    ema.apply([var])
    np.testing.assert_allclose(ema.average(var).numpy(), [2.0 + 0.9 * 10.0], rtol=1e-6)
    assert ema.average(tf.Variable([1.0], name="other")) is None
    assert ema.name == "ExponentialMovingAverage"


def test_variables_to_restore_maps_average_names():
    var = tf.Variable([1.0], name="weights")
    ema = tf.train.ExponentialMovingAverage(0.5, name="Avg")
    ema.apply([var])
    restore = ema.variables_to_restore()
    assert restore[ema.average_name(var)] is var
    assert ema.average_name(var).startswith("weights/Avg")


def test_integer_variable_is_rejected():
    ema = tf.train.ExponentialMovingAverage(0.5)
    with pytest.raises(TypeError, match="half, float, or double"):
        ema.apply([tf.Variable([1], name="count")])


def test_inside_an_estimator_model_fn_the_shadow_is_checkpointed_under_tf_name(tmp_path):
    """One shadow per variable across steps, saved as `w/ExponentialMovingAverage`. The update
    runs when model_fn runs, so it averages the values at the start of each step (TF's
    `tf.control_dependencies([train_op])` form averages the values after the step)."""
    v1 = tf.compat.v1

    def model_fn(features, labels, mode):
        w = v1.get_variable("w", shape=[1], initializer=v1.zeros_initializer())
        loss = tf.reduce_mean((features["x"] * w - labels) ** 2)
        train = v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=v1.train.get_global_step())
        tf.train.ExponentialMovingAverage(0.5).apply([w])
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    def input_fn():
        return tf.data.Dataset.from_tensors(
            ({"x": np.ones([4, 1], np.float32)}, np.ones([4, 1], np.float32))).repeat()

    tf.estimator.Estimator(model_fn, model_dir=str(tmp_path)).train(input_fn, steps=3)
    names = dict(tf.train.list_variables(str(tmp_path)))
    assert names["w/ExponentialMovingAverage"] == [1]
    assert not any(n.startswith("w/ExponentialMovingAverage_") for n in names)
    # w before steps 1..3: 0, 0.2, 0.36 -> shadow 0, 0.1, 0.23; w after step 3: 0.488
    np.testing.assert_allclose(tf.train.load_variable(str(tmp_path), "w/ExponentialMovingAverage"),
                               [0.23], rtol=1e-5)
    np.testing.assert_allclose(tf.train.load_variable(str(tmp_path), "w"), [0.488], rtol=1e-5)
