"""Optimizer state in Estimator checkpoints carries TensorFlow's variable names, and resumes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import torchestimator as tf

legacy = tf.keras.optimizers.legacy
v1 = tf.compat.v1.train


def _input_fn():
    x = np.linspace(-1, 1, 32, dtype=np.float32)[:, None]
    return tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x)).repeat().batch(8)


def _model_fn(make_optimizer):
    def model_fn(features, labels, mode):
        out = tf.keras.layers.Dense(1, name="out")(features["x"])
        loss = torch.mean((out - labels) ** 2)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=make_optimizer().minimize(loss))
    return model_fn


CASES = {
    # TF 2.15's Estimator with Keras (legacy) optimizers: training/<optimizer>/<variable>/<slot>.
    "adagrad": (lambda: legacy.Adagrad(0.1), ["training/Adagrad/out/kernel/accumulator"]),
    "ftrl": (lambda: legacy.Ftrl(0.1), ["training/Ftrl/out/kernel/accumulator",
                                        "training/Ftrl/out/kernel/linear"]),
    "sgd_momentum": (lambda: legacy.SGD(0.1, momentum=0.9), ["training/SGD/out/bias/momentum"]),
    "rmsprop": (lambda: legacy.RMSprop(0.01, momentum=0.5, centered=True),
                ["training/RMSprop/out/kernel/rms", "training/RMSprop/out/kernel/momentum",
                 "training/RMSprop/out/kernel/mg"]),
    "adam": (lambda: legacy.Adam(0.01), ["training/Adam/out/kernel/m", "training/Adam/out/kernel/v"]),
    # TF1's optimizers: <variable>/<optimizer name>[_1].
    "v1_ftrl": (lambda: v1.FtrlOptimizer(0.1), ["out/kernel/Ftrl", "out/kernel/Ftrl_1"]),
    "v1_adam": (lambda: v1.AdamOptimizer(0.01), ["out/bias/Adam", "out/bias/Adam_1"]),
    "v1_momentum": (lambda: v1.MomentumOptimizer(0.1, 0.9), ["out/kernel/Momentum"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_slot_names_and_resume(tmp_path, case):
    make_optimizer, expected = CASES[case]
    est = tf.estimator.Estimator(_model_fn(make_optimizer), model_dir=str(tmp_path))
    est.train(_input_fn, steps=3)
    names = est.get_variable_names()
    for name in expected:
        assert name in names, names
    scope = "training/" + make_optimizer().name if not case.startswith("v1") else make_optimizer().name
    assert int(est.get_variable_value(f"{scope}/iter")) == 3
    slot = est.get_variable_value(expected[0]).copy()
    again = tf.estimator.Estimator(_model_fn(make_optimizer), model_dir=str(tmp_path))
    again.train(_input_fn, steps=2)  # restores the slots and the iteration count
    assert int(again.get_variable_value(f"{scope}/iter")) == 5
    assert again.get_variable_value(expected[0]).shape == slot.shape


def test_default_learning_rate_is_readable_from_the_checkpoint(tmp_path):
    est = tf.estimator.DNNClassifier([4], [tf.feature_column.numeric_column("x")], model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(
        ({"x": np.arange(8, dtype=np.float32)}, np.arange(8) % 2)).batch(4), steps=1)
    assert est.get_variable_value("training/Adagrad/learning_rate") == pytest.approx(0.001)


def test_training_does_not_import_torch_dynamo(tmp_path):
    """torch.optim wraps some methods to import torch._dynamo (about a second) on first use; the
    Estimator's loop and checkpoints never need it."""
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import torchestimator as tf
        fc = tf.feature_column
        x = {{"a": np.arange(16, dtype=np.float32), "c": np.array(["p", "q"] * 8, dtype=object)}}
        fn = lambda: tf.data.Dataset.from_tensor_slices((x, np.arange(16) % 2)).batch(4)
        est = tf.estimator.DNNLinearCombinedClassifier(
            model_dir={str(tmp_path)!r}, dnn_hidden_units=[2], dnn_feature_columns=[fc.numeric_column("a")],
            linear_feature_columns=[fc.categorical_column_with_vocabulary_list("c", ["p", "q"])])
        est.train(fn)
        est.evaluate(fn)
        list(est.predict(fn))
        est.train(fn)  # resumes: loads the optimizers' state
        print("torch._dynamo" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"
