"""Models from TensorFlow's guides, written as the guides write them, for the tests that run
those guides' programs."""

from __future__ import annotations

import torchestimator as tf


class GuideLinear(tf.Module):
    """The basic-training-loops guide's model: y = w * x + b with scalar tf.Variables (w from 5,
    b from 0)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b
