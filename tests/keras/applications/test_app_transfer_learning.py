"""Transfer learning as in the Keras guide: a frozen MobileNetV2 base (loaded from a Keras
HDF5 weight file) and a new head trained with `fit` on a tiny planted image task."""

from __future__ import annotations

import numpy as np
from _app_fixtures import H5_TOP

import torchestimator as tf


def test_frozen_base_new_head_learns_planted_task() -> None:
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(0)
    base = tf.keras.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35,
                                             include_top=False, weights=None)
    base.load_weights(H5_TOP, by_name=True, skip_mismatch=True)
    base.trainable = False
    before = [w.copy() for w in base.get_weights()]
    inputs = tf.keras.Input((96, 96, 3))
    x = tf.keras.applications.mobilenet_v2.preprocess_input(inputs)
    x = base(x, training=False)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    outputs = tf.keras.layers.Dense(1, activation="sigmoid")(x)
    model = tf.keras.Model(inputs, outputs)
    assert len(model.trainable_weights) == 2
    rng = np.random.RandomState(0)
    n = 64
    images = rng.uniform(0, 60, (n, 96, 96, 3)).astype("float32")
    labels = (np.arange(n) % 2).astype("float32")
    images[labels == 1, 20:76, 20:76, :] += 180.0  # the planted signal: a bright square
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="binary_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(images, labels, epochs=8, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.evaluate(images, labels, verbose=0)[1] >= 0.95
    for old, new in zip(before, base.get_weights()):  # the base did not move (BN stats too)
        np.testing.assert_array_equal(old, new)
