"""Issue 28: a class-id label out of range on an accelerator raises the CPU's error instead of
reaching torch's cross-entropy kernel, which on CUDA is a device-side assert (the process's CUDA
context is lost).

The CPU is made to defer its checks as an accelerator does (`loop.DEFER_CHECKS_ON_CPU`): outside
the training loop the labels' range is read back at once; inside it the check waits for the
loop's read-back, the labels clamped meanwhile, and a fit with a bad label still fails with the
message. Covers Keras' `sparse_categorical_crossentropy` and TF1's
`tf.compat.v1.losses.sparse_softmax_cross_entropy`.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop


@pytest.fixture(params=[False, True], ids=["cpu", "deferring"])
def deferring(request, monkeypatch):
    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", request.param)
    yield request.param
    loop.discard_deferred_checks()


@pytest.mark.parametrize("bad", [3, -1, float("nan")])
def test_the_keras_loss_raises_at_once_outside_the_loop(deferring, bad):
    labels = torch.tensor([1.0, bad])
    with pytest.raises(ValueError, match=r"label value of (3|-1|nan).*\[0, 3\) for predictions with 3"):
        tf.keras.losses.sparse_categorical_crossentropy(labels, torch.zeros(2, 3), from_logits=True)
    assert not getattr(loop._deferred, "checks", None)


def test_an_ignored_class_is_neither_an_error_nor_clamped(deferring):
    logits = torch.tensor([[0.0, 2.0, 0.0], [5.0, 0.0, 0.0]])
    loss = tf.keras.losses.sparse_categorical_crossentropy(
        torch.tensor([1, -1]), logits, from_logits=True, ignore_class=-1)
    expected = tf.keras.losses.sparse_categorical_crossentropy(torch.tensor([1]), logits[:1], from_logits=True)
    assert torch.allclose(loss[0], expected[0]) and loss[1] == 0  # not row 1's loss for class 0
    assert loss._keras_mask.tolist() == [True, False]


def _classifier():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def test_fit_raises_with_the_message_and_clean_labels_train(deferring):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = rng.integers(0, 3, size=64)
    y[40] = 7  # in the third batch of 16: on a deferring device the loop reads it back at the end
    with pytest.raises(ValueError, match=r"label value of 7.*\[0, 3\)"):
        _classifier().fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert not getattr(loop._deferred, "checks", None)
    history = _classifier().fit(x, y.clip(0, 2), batch_size=16, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


@pytest.mark.parametrize("bad", [3, -1, -100])
def test_tf1_sparse_softmax_cross_entropy_names_a_bad_label(deferring, bad):
    """-100 included: torch's cross entropy ignores it by default; TF rejects it."""
    for weights in (1.0, torch.tensor([1.0, 2.0])):
        with pytest.raises(tf.errors.InvalidArgumentError, match=rf"label value of {bad} .*\[0, 3\)"):
            tf.compat.v1.losses.sparse_softmax_cross_entropy(torch.tensor([1, bad]), torch.zeros(2, 3), weights)


def test_an_estimator_model_fn_with_a_bad_label_fails_with_the_message(deferring, tmp_path):
    """TF1's loss in a custom `model_fn`: on a deferring device the check is read back by the
    training loop (the labels clamped until then), and the error names the label."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(48, 4)).astype(np.float32)
    y = rng.integers(0, 3, size=48)
    y[30] = 9

    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 3)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn(labels):
        return lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, labels)).batch(16)

    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "bad"))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"label value of 9 .*\[0, 3\)"):
        estimator.train(input_fn(y))
    good = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "good"))
    good.train(input_fn(y.clip(0, 2)))
    assert good.get_variable_value("global_step") == 3
