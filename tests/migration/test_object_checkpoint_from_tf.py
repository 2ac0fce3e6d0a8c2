"""`tf.train.Checkpoint(model=..., optimizer=...).restore(<checkpoint TF 2.15 wrote>)`: the
values are matched by TF's object paths (`model/layer_with_weights-0/kernel/.ATTRIBUTES/
VARIABLE_VALUE`, `optimizer/_variables/<i>`), the optimizer's slots once it is built."""

from __future__ import annotations

import os

import numpy as np

import torchestimator as tf

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "formats", "object")


def test_restore_a_tf_object_checkpoint_then_train_on():
    with np.load(os.path.join(HERE, "values.npz")) as d:
        x, expected = d["x"], d["prediction"]
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="relu", input_shape=(4,)),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam(0.01)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(tf.train.latest_checkpoint(HERE))
    status.assert_existing_objects_matched()
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    assert int(optimizer.iterations) == 2  # TF trained 2 steps
    model.compile(optimizer, "mse")
    model.fit(x, expected, epochs=1, verbose=0)  # builds the slots: TF's m and v restored into them
    status.assert_consumed()
    assert int(optimizer.iterations) == 3
