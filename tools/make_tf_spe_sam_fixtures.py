"""Records TF 2.15 reference values for StepsPerExecutionTuner and SharpnessAwareMinimization.

Run with TensorFlow 2.15: ~/anchor-venvs/tf215/bin/python tools/make_tf_spe_sam_fixtures.py
Writes tests/keras/utils/fixtures/spe_tuner_tf215.json and tests/keras/models/fixtures/sam_tf215.npz.
"""

import json
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the scripted throughput: (seconds elapsed, optimizer iterations) at each measurement
SCRIPT = [(1, 0), (2, 100), (3, 200), (4, 330), (5, 480), (6, 560), (7, 640), (8, 640),
          (9, 700), (10, 800), (11, 1000), (12, 1100), (13, 1150), (14, 1200), (15, 1400),
          (16, 1600), (17, 1700), (18, 1800)]


def spe_tuner():
    from keras.src.utils import steps_per_execution_tuning as mod

    clock = {"t": 0.0}
    mod.time.time = lambda: clock["t"]

    class Opt:
        iterations = tf.Variable(0, dtype=tf.int64)

    spe = tf.Variable(4, dtype=tf.int64)
    tuner = mod.StepsPerExecutionTuner(Opt, spe, interval=1, change_spe_interval=2,
                                       change_threshold=0.1)
    tuner._begin_tuning()
    spes, last_add = [], []
    for t, it in SCRIPT:
        clock["t"] = float(t)
        Opt.iterations.assign(it)
        tuner._measure_and_tune()
        spes.append(int(spe.numpy()))
        last_add.append(bool(tuner.spe_tune_last_action_add))
    return {"script": SCRIPT, "initial_spe": 4, "interval": 1, "change_spe_interval": 2,
            "change_threshold": 0.1, "spe": spes, "last_action_add": last_add}


def sam():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype("float32")
    y = rng.normal(size=(8, 2)).astype("float32")
    kernel = rng.normal(size=(3, 2)).astype("float32")
    bias = rng.normal(size=(2,)).astype("float32")
    out = {"x": x, "y": y, "kernel": kernel, "bias": bias}
    for splits in (None, 2):
        inner = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
        inner.layers[0].set_weights([kernel, bias])
        model = tf.keras.models.experimental.SharpnessAwareMinimization(
            inner, rho=0.05, num_batch_splits=splits)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
        hist = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        key = "none" if splits is None else str(splits)
        out[f"kernel_{key}"], out[f"bias_{key}"] = inner.layers[0].get_weights()
        out[f"loss_{key}"] = np.array(hist.history["loss"], "float32")
        out[f"mae_{key}"] = np.array(hist.history["mae"], "float32")
    return out


if __name__ == "__main__":
    with open(os.path.join(ROOT, "tests/keras/utils/fixtures/spe_tuner_tf215.json"), "w") as f:
        json.dump(spe_tuner(), f, indent=1)
    os.makedirs(os.path.join(ROOT, "tests/keras/models/fixtures"), exist_ok=True)
    np.savez(os.path.join(ROOT, "tests/keras/models/fixtures/sam_tf215.npz"), **sam())
