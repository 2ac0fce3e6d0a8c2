"""Small Keras models for the end-to-end parity cases, written once for both frameworks.

Each builder takes the `tf` module (tensorflow in tools/make_tf_parity_fixtures.py,
torchestimator in the tests) and returns `(model, compile keyword arguments)`;
`data(case)` gives the case's fixed inputs, targets and sample weights. The
fixture records TF's `evaluate`, `predict`, the `fit` history and the weights
after `fit` (shuffle off), starting from the same weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def masked_lstm(tf: Any) -> tuple:
    """Embedding(mask_zero) -> LSTM(return_sequences) -> Dense softmax: a masked per-step loss."""
    model = tf.keras.Sequential([
        tf.keras.Input((5,), dtype="int32"),
        tf.keras.layers.Embedding(8, 3, mask_zero=True),
        tf.keras.layers.LSTM(4, return_sequences=True),
        tf.keras.layers.Dense(3, activation="softmax"),
    ])
    return model, {
        "optimizer": tf.keras.optimizers.SGD(0.5),
        "loss": "sparse_categorical_crossentropy",
        "metrics": ["sparse_categorical_accuracy"],
        "weighted_metrics": ["sparse_categorical_accuracy", tf.keras.metrics.SparseCategoricalCrossentropy(name="wxent")],
    }


def batchnorm_classifier(tf: Any) -> tuple:
    """Dense -> BatchNormalization -> relu -> Dense logits, Adam, cross-entropy from logits."""
    model = tf.keras.Sequential([
        tf.keras.Input((4,)),
        tf.keras.layers.Dense(5, use_bias=False),  # a bias before BatchNormalization has a zero
        tf.keras.layers.BatchNormalization(momentum=0.8),  # gradient: Adam would follow rounding noise
        tf.keras.layers.Activation("relu"),
        tf.keras.layers.Dense(3),
    ])
    return model, {
        "optimizer": tf.keras.optimizers.Adam(0.05),
        "loss": tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1),
        "metrics": ["categorical_accuracy", tf.keras.metrics.AUC(name="auc", from_logits=True)],
    }


def regularized_regression(tf: Any) -> tuple:
    """Weight and activity regularizers in the loss, legacy RMSprop with momentum and clipnorm."""
    model = tf.keras.Sequential([
        tf.keras.Input((3,)),
        tf.keras.layers.Dense(4, activation="tanh", kernel_regularizer=tf.keras.regularizers.l2(0.01),
                              activity_regularizer=tf.keras.regularizers.l1(0.01)),
        tf.keras.layers.Dense(2, bias_regularizer=tf.keras.regularizers.l1_l2(0.01, 0.02)),
    ])
    return model, {
        "optimizer": tf.keras.optimizers.legacy.RMSprop(0.02, momentum=0.5, clipnorm=1.0),
        "loss": "mse",
        "metrics": ["mae", tf.keras.metrics.RootMeanSquaredError(name="rmse")],
    }


def two_heads(tf: Any) -> tuple:
    """A functional model with two outputs, per-output losses, loss weights and metrics."""
    inputs = tf.keras.Input((4,))
    hidden = tf.keras.layers.Dense(6, activation="relu")(inputs)
    cls = tf.keras.layers.Dense(1, activation="sigmoid", name="cls")(hidden)
    reg = tf.keras.layers.Dense(2, name="reg")(hidden)
    model = tf.keras.Model(inputs, [cls, reg])
    return model, {
        "optimizer": tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
        "loss": {"cls": "binary_crossentropy", "reg": tf.keras.losses.Huber(delta=0.5)},
        "loss_weights": {"cls": 1.0, "reg": 0.5},
        "metrics": {"cls": ["binary_accuracy"], "reg": ["mse"]},
        "weighted_metrics": {"cls": ["binary_accuracy"], "reg": ["mae"]},
    }


CASES = {
    "masked_lstm": masked_lstm,
    "batchnorm_classifier": batchnorm_classifier,
    "regularized_regression": regularized_regression,
    "two_heads": two_heads,
}
FIT = {"epochs": 3, "batch_size": 4, "shuffle": False, "verbose": 0}


def data(case: str) -> tuple:
    """`(x, y, sample_weight)` of a case (y a list for the two-head model), 8 samples."""
    rng = np.random.default_rng(sorted(CASES).index(case) + 50)
    sw = rng.uniform(0.2, 2.0, size=(8,)).astype(np.float32)
    if case == "masked_lstm":
        x = rng.integers(1, 8, size=(8, 5)).astype(np.int32)
        for i in range(8):
            x[i, 5 - i % 3:] = 0  # trailing padding of 0, 1 or 2 steps
        return x, rng.integers(0, 3, size=(8, 5)).astype(np.int32), sw
    if case == "batchnorm_classifier":
        x = rng.normal(size=(8, 4)).astype(np.float32)
        return x, np.eye(3, dtype=np.float32)[rng.integers(0, 3, size=8)], sw
    if case == "regularized_regression":
        x = rng.normal(size=(8, 3)).astype(np.float32)
        return x, rng.normal(size=(8, 2)).astype(np.float32), sw
    x = rng.normal(size=(8, 4)).astype(np.float32)
    y = [rng.integers(0, 2, size=(8, 1)).astype(np.float32), rng.normal(size=(8, 2)).astype(np.float32)]
    return x, y, sw


def nested_batchnorm(tf: Any) -> Any:
    """A model holding a model with a BatchNormalization between two Dense layers: Keras 2's
    `get_weights()` goes layer by layer, its h5 files trainable first (the weight-order cases)."""
    inner = tf.keras.Sequential([
        tf.keras.Input((4,)),
        tf.keras.layers.Dense(5),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.Dense(3),
    ], name="inner")
    return tf.keras.Sequential([tf.keras.Input((4,)), inner, tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(2)])
