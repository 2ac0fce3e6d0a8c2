"""Records TF 2.15's `tf.train.ExponentialMovingAverage` values for tests/train/test_train_ema.py.

Run with TensorFlow 2.15: `~/anchor-venvs/tf215/bin/python tools/make_tf_train_fixtures.py`.
Writes tests/train/ema_fixtures.json.
"""

import json
import pathlib

import tensorflow as tf

VALUES = [[1.0, 2.0], [3.0, -1.0], [0.5, 4.0], [2.0, 2.0], [-3.0, 1.0]]


def run(decay, num_updates, zero_debias):
    var = tf.Variable([0.0, 0.0], name="w")
    step = tf.Variable(0, dtype=tf.int64) if num_updates else None
    ema = tf.train.ExponentialMovingAverage(decay, num_updates=step, zero_debias=zero_debias)
    out = []
    for value in VALUES:
        var.assign(value)
        if step is not None:
            step.assign_add(1)
        ema.apply([var])
        out.append(ema.average(var).numpy().tolist())
    return {"shadows": out, "name": ema.average_name(var), "shadow_name": ema.average(var).name}


cases = {}
for decay in (0.9, 0.5):
    for num_updates in (False, True):
        for zero_debias in (False, True):
            cases[f"{decay}-{num_updates}-{zero_debias}"] = run(decay, num_updates, zero_debias)
path = pathlib.Path(__file__).resolve().parents[1] / "tests" / "train" / "ema_fixtures.json"
path.write_text(json.dumps({"values": VALUES, "cases": cases}, indent=1))
print(path)
