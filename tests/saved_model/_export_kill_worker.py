"""Exports an Estimator over and over into argv[2] (model_dir argv[1]); the kill test
SIGKILLs it at random moments."""

import sys

import numpy as np

import torchestimator as tf

model_dir, base = sys.argv[1], sys.argv[2]
columns = [tf.feature_column.numeric_column("x")]
estimator = tf.estimator.DNNRegressor([4], columns, model_dir=model_dir)
x = np.linspace(-1, 1, 32).astype("float32")
if estimator.latest_checkpoint() is None:
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x)).batch(8), steps=2)
receiver = tf.estimator.export.build_raw_serving_input_receiver_fn({"x": tf.TensorSpec([None])})
print("ready", flush=True)
while True:
    estimator.export_saved_model(base, receiver)
    print("exported", flush=True)
