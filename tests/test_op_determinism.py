"""`tf.config.experimental.enable_op_determinism()`, TF's recipe for reproducible training, in a
fresh process (as it must be called before any GPU work): a premade binary classifier, whose
evaluation counts AUC thresholds with a float `cumsum` (no deterministic CUDA kernel: it runs on
the host, `_ops/host_fallback.py`), and a Keras CNN with an AUC metric (cuDNN's deterministic
convolution gradients) each train twice to bit-identical weights and results. On the CPU this
checks that nothing refuses determinism; on a GPU (`TORCHESTIMATOR_DEVICE=cuda`, inherited by the
process) it checks the GPU's kernels."""

from __future__ import annotations

import json
import subprocess
import sys

from _package_env import package_only_env

_PROGRAM = r'''
import json, sys, tempfile
import numpy as np
import torchestimator as tf

tf.config.experimental.enable_op_determinism()
rng = np.random.default_rng(0)
x = rng.normal(size=(256, 4)).astype("float32")
y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype("int64")
images = rng.normal(size=(64, 8, 8, 1)).astype("float32")
image_labels = (images.mean(axis=(1, 2, 3)) > 0).astype("float32")


def estimator_run():
    tf.keras.utils.set_random_seed(1)
    columns = [tf.feature_column.numeric_column("x", shape=(4,))]
    config = tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None)
    est = tf.estimator.DNNClassifier([8], columns, model_dir=tempfile.mkdtemp(), config=config)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(32)

    est.train(input_fn, steps=8)
    metrics = est.evaluate(input_fn)
    weights = [est.get_variable_value(n).tolist() for n in est.get_variable_names()
               if "Adagrad" not in n]
    return {k: float(v) for k, v in metrics.items()}, weights


def keras_run():
    tf.keras.utils.set_random_seed(2)
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
        tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy", metrics=[tf.keras.metrics.AUC(name="auc")])
    history = model.fit(images, image_labels, batch_size=16, epochs=2, shuffle=False, verbose=0)
    return history.history, [w.tolist() for w in model.get_weights()]


first, second = (estimator_run(), keras_run()), (estimator_run(), keras_run())
json.dump({"same": first == second, "auc": first[0][0]["auc"],
           "keras_auc": first[1][0]["auc"][-1]}, sys.stdout)
'''


def test_enable_op_determinism_trains_and_evaluates_reproducibly():
    run = subprocess.run([sys.executable, "-c", _PROGRAM], env=package_only_env(),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["same"], "two runs under enable_op_determinism() differ"
    assert 0.0 <= result["auc"] <= 1.0 and 0.0 <= result["keras_auc"] <= 1.0
