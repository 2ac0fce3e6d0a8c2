"""A training process for the model_dir lock tests: trains into MODEL_DIR, creates READY once it
is inside training, then keeps training slowly for HOLD seconds (or until killed).

    python _lock_worker.py estimator|keras|estimator-gated MODEL_DIR READY HOLD

estimator-gated saves a checkpoint every step, and while the file READY.gate exists it waits
before its next step (after the previous step's checkpoint was saved), with READY.waiting
created: the test changes the directory while nothing is being written.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import torchestimator as tf

KIND, MODEL_DIR, READY, HOLD = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
X = np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32)


def slow_batches():
    deadline = None
    while True:
        if deadline is None:
            open(READY, "w").close()
            deadline = time.monotonic() + HOLD
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)
        yield {"x": X}, X[:, :1]


if KIND == "estimator-gated":
    class Gate(tf.estimator.SessionRunHook):
        deadline = None

        def before_run(self, run_context):
            while os.path.exists(READY + ".gate"):
                if not os.path.exists(READY + ".waiting"):
                    open(READY + ".waiting", "w").close()
                time.sleep(0.02)

        def after_run(self, run_context, run_values):
            if self.deadline is None:
                open(READY, "w").close()
                self.deadline = time.monotonic() + HOLD
            time.sleep(0.02)
            if time.monotonic() > self.deadline:
                run_context.request_stop()

    est = tf.estimator.LinearRegressor(
        [tf.feature_column.numeric_column("x", shape=(2,))], model_dir=MODEL_DIR,
        config=tf.estimator.RunConfig(save_checkpoints_steps=1, save_summary_steps=10**6,
                                      log_step_count_steps=10**6))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, X[:, :1])).batch(4).repeat(),
              hooks=[Gate()])
elif KIND == "estimator":
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=(2,))],
                                       model_dir=MODEL_DIR)
    est.train(lambda: tf.data.Dataset.from_generator(
        slow_batches, output_signature=({"x": tf.TensorSpec((8, 2))}, tf.TensorSpec((8, 1)))))
else:
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")

    class Slow(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if not os.path.exists(READY):
                open(READY, "w").close()
                self.deadline = time.monotonic() + HOLD
            time.sleep(0.05)
            if time.monotonic() > self.deadline:
                self.model.stop_training = True

    model.fit(np.repeat(X, 100, axis=0), np.repeat(X[:, :1], 100, axis=0), batch_size=8,
              epochs=1000, verbose=0,
              callbacks=[tf.keras.callbacks.BackupAndRestore(MODEL_DIR), Slow()])
