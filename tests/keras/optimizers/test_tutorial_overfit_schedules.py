"""Regressions found running TF's "Overfit and underfit" tutorial: a schedule called on an
array of (float) steps, as the tutorial plots `lr_schedule(np.linspace(0, 100000))`.
Expected values are TF 2.15.1's."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf

S = tf.keras.optimizers.schedules
STEPS = np.array([0.0, 5.5, 15.0, 150.0])


@pytest.mark.parametrize("schedule, expected", [
    (lambda: S.ExponentialDecay(0.1, 10, 0.9), [0.1, 0.09436988, 0.0853815, 0.0205891]),
    (lambda: S.PolynomialDecay(0.1, 100), [0.1, 0.094505504, 0.085015006, 9.9999997e-05]),
    (lambda: S.CosineDecay(0.1, 100), [0.1, 0.09925546, 0.09455033, 0.0]),
    (lambda: S.CosineDecayRestarts(0.1, 10), [0.1, 0.04217827, 0.08535534, 0.1]),
])
def test_schedule_on_an_array_of_float_steps(schedule, expected):
    out = schedule()(STEPS)
    assert tuple(out.shape) == (4,)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-7)


def test_inverse_time_decay_as_the_tutorial_plots_it():
    lr_schedule = S.InverseTimeDecay(0.001, decay_steps=20 * 1000, decay_rate=1, staircase=False)
    lr = lr_schedule(np.linspace(0, 100000))
    assert tuple(lr.shape) == (50,)
    np.testing.assert_allclose(lr[:4].numpy(), [0.001, 0.00090741, 0.00083051, 0.00076563],
                               rtol=1e-5)
    # a fractional scalar step is not truncated (TF casts the step to float)
    assert float(lr_schedule(2.5)) == pytest.approx(0.000999875, rel=1e-6)
    assert float(lr_schedule(tf.constant([1, 2]))[1]) == pytest.approx(0.001 / (1 + 2 / 20000))
