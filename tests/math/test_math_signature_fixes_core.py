"""TF 2.15's argument names of tf.math's special binary ops and softplus: a keyword call with
TF's names gives TF's result (values printed by TF 2.15.1)."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf


def close(value, want, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(value), want, rtol=rtol)


def test_atan2_takes_y_then_x():
    y, x = tf.constant([1.0, -1.0]), tf.constant([2.0, 0.5])
    want = [0.46364760398864746, -1.1071487665176392]
    close(tf.math.atan2(y=y, x=x), want)
    close(tf.math.atan2(x=x, y=y), want)  # keyword order does not matter
    close(tf.atan2(y, x), want)
    close(tf.compat.v1.atan2(y=y, x=x), want)


def test_igamma_and_igammac_take_a_then_x():
    a, x = tf.constant([0.5, 2.0]), tf.constant([1.0, 3.0])
    close(tf.math.igamma(x=x, a=a), [0.8427008390426636, 0.8008517026901245])
    close(tf.math.igammac(x=x, a=a), [0.15729916095733643, 0.1991482824087143], rtol=1e-5)
    close(tf.compat.v1.igamma(a, x), [0.8427008390426636, 0.8008517026901245])


def test_zeta_takes_x_then_q():
    close(tf.math.zeta(q=tf.constant([1.0, 2.0]), x=tf.constant([2.0, 3.0])),
          [1.644934058189392, 0.2020569145679474])


def test_nextafter_takes_x1_then_x2():
    got = tf.math.nextafter(x2=tf.constant([2.0], tf.float64), x1=tf.constant([1.0], tf.float64))
    assert got.tolist() == [1.0000000000000002]


@pytest.mark.parametrize("fn", [tf.math.softplus, tf.nn.softplus])
def test_softplus_takes_features(fn):
    close(fn(features=tf.constant([-1.0, 0.0, 2.0])),
          [0.3132616877555847, 0.6931471824645996, 2.1269280910491943])
