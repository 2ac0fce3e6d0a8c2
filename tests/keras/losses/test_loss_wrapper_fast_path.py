"""`LossFunctionWrapper`'s direct path (plain tensors of one rank, no weights or masks, the
mean over the batch: `fit`'s case with a Python loss function) gives `Loss.__call__`'s value."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.losses._loss import Loss, LossFunctionWrapper


def half_mse(y_true, y_pred):
    return 0.5 * torch.mean(torch.square(y_pred - y_true), dim=-1)


def _general(loss, y_true, y_pred, sample_weight=None):
    return Loss.__call__(loss, y_true, y_pred, sample_weight)


@pytest.mark.parametrize("fn", [
    half_mse,
    tf.keras.losses.categorical_crossentropy,
    tf.keras.losses.binary_crossentropy,
    tf.keras.losses.huber,
    lambda t, p: torch.sum(torch.abs(t - p), dim=-1),
])
def test_direct_path_equals_the_general_one(fn):
    torch.manual_seed(0)
    y_pred = torch.softmax(torch.randn(16, 4), -1).requires_grad_()
    y_true = torch.nn.functional.one_hot(torch.randint(0, 4, (16,)), 4).float()
    loss = LossFunctionWrapper(fn)
    fast = loss(y_true, y_pred)
    assert torch.equal(fast, _general(loss, y_true, y_pred))
    fast.backward()
    assert y_pred.grad is not None


@pytest.mark.parametrize("fn,expected", [(half_mse, 1.0), (tf.keras.losses.mean_squared_error, 2.0)])
def test_a_subclass_overriding_call_keeps_its_call(fn, expected):
    # also for a function with a one-kernel batch mean (mean squared error)
    class Doubled(LossFunctionWrapper):
        def call(self, y_true, y_pred):
            return 2 * super().call(y_true, y_pred)

    y = torch.ones(4, 1)
    assert float(Doubled(fn)(y, torch.zeros(4, 1))) == pytest.approx(expected)


def test_a_masked_loss_and_other_reductions_take_the_general_path():
    def masked(y_true, y_pred):
        out = torch.mean(torch.abs(y_true - y_pred), dim=-1)
        out._keras_mask = torch.tensor([True, False, True, True])
        return out

    y_true, y_pred = torch.zeros(4, 2), torch.tensor([[1.0, 1.0], [9.0, 9.0], [2.0, 2.0], [3.0, 3.0]])
    assert float(LossFunctionWrapper(masked)(y_true, y_pred)) == pytest.approx(2.0)
    total = LossFunctionWrapper(half_mse, reduction="sum")(y_true, y_pred)
    assert float(total) == pytest.approx(0.5 * (1 + 81 + 4 + 9))


def test_an_empty_batch_gives_zero_as_before():
    loss = LossFunctionWrapper(half_mse)
    empty = torch.zeros(0, 1)
    assert float(loss(empty, empty)) == float(_general(loss, empty, empty)) == 0.0


def test_numpy_labels_still_work():
    loss = LossFunctionWrapper(half_mse)
    assert float(loss(np.ones((3, 1), np.float32), torch.zeros(3, 1))) == pytest.approx(0.5)


def _softmax_output(logits):
    out = torch.softmax(logits, -1)
    out._keras_logits = logits  # as the softmax activation leaves it
    return out


def _sigmoid_output(logits):
    out = torch.sigmoid(logits)
    out._keras_logits = logits
    return out


@pytest.mark.parametrize("make_loss,make_output,make_labels", [
    (lambda: tf.keras.losses.CategoricalCrossentropy(), _softmax_output,
     lambda: torch.nn.functional.one_hot(torch.randint(0, 5, (16,)), 5).float()),
    (lambda: tf.keras.losses.CategoricalCrossentropy(from_logits=True), lambda x: x,
     lambda: torch.softmax(torch.randn(16, 5), -1)),  # soft labels
    (lambda: tf.keras.losses.BinaryCrossentropy(), _sigmoid_output,
     lambda: torch.randint(0, 2, (16, 5)).float()),
    (lambda: tf.keras.losses.BinaryCrossentropy(from_logits=True), lambda x: x,
     lambda: torch.rand(16, 5)),
], ids=["categorical", "categorical-logits", "binary", "binary-logits"])
def test_one_kernel_batch_means_equal_the_general_path(make_loss, make_output, make_labels):
    from torchestimator.keras.losses import _crossentropy

    torch.manual_seed(0)
    logits = torch.randn(16, 5, requires_grad=True)
    labels = make_labels()
    loss = make_loss()
    fn = loss.fn
    means = {_crossentropy.categorical_crossentropy: _crossentropy.categorical_crossentropy_batch_mean,
             _crossentropy.binary_crossentropy: _crossentropy.binary_crossentropy_batch_mean}
    assert means[fn](labels, make_output(logits), **loss._fn_kwargs) is not None  # the one-kernel path
    fast = loss(labels, make_output(logits))
    (grad_fast,) = torch.autograd.grad(fast, logits)
    general = _general(loss, labels, make_output(logits))
    (grad_general,) = torch.autograd.grad(general, logits)
    torch.testing.assert_close(fast, general, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(grad_fast, grad_general, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("kwargs,output", [
    ({"label_smoothing": 0.1}, "softmax"),
    ({}, "probabilities"),  # no logits: the clipped log of the general path
    ({"from_logits": True}, "softmax"),  # the general path warns
    ({"axis": 0}, "softmax"),
])
def test_categorical_batch_mean_declines_what_it_does_not_compute(kwargs, output):
    from torchestimator.keras.losses import _crossentropy

    logits = torch.randn(4, 3)
    y_pred = _softmax_output(logits) if output == "softmax" else torch.softmax(logits, -1)
    labels = torch.eye(3)[[0, 1, 2, 0]]
    assert _crossentropy.categorical_crossentropy_batch_mean(labels, y_pred, **kwargs) is None


@pytest.mark.parametrize("from_logits", [True, False])
@pytest.mark.parametrize("shape", [(16, 5), (4, 3, 5)])
def test_sparse_crossentropy_batch_mean_equals_the_general_path(from_logits, shape):
    """Sparse categorical crossentropy's mean is taken inside torch's kernel in fit's case (class
    ids with a trailing 1, as fit aligns them): the same value and gradient as the per-label
    losses' mean, for logits and probabilities, one and two leading axes."""
    torch.manual_seed(0)
    raw = torch.randn(*shape)
    y_true = torch.randint(0, 5, shape[:-1] + (1,))
    values = {}
    for path in ("fast", "general"):
        y_pred = (raw if from_logits else torch.softmax(raw, -1)).clone().requires_grad_()
        loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=from_logits)
        value = loss(y_true, y_pred) if path == "fast" else _general(loss, y_true, y_pred)
        value.backward()
        values[path] = (value.detach(), y_pred.grad)
    torch.testing.assert_close(values["fast"][0], values["general"][0])
    torch.testing.assert_close(values["fast"][1], values["general"][1])


def test_sparse_crossentropy_with_ignore_class_keeps_its_masked_mean():
    y_true = torch.tensor([[0], [9], [2], [9]])
    y_pred = torch.log_softmax(torch.randn(4, 3), -1)
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=9)
    # Keras 2.15 (`apply_valid_mask`): the mean over the labels kept
    kept = torch.nn.functional.cross_entropy(y_pred[[0, 2]], torch.tensor([0, 2]))
    torch.testing.assert_close(loss(y_true, y_pred), kept)
    with pytest.raises(ValueError, match="label value of 7"):
        tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(torch.tensor([[0], [7]]), y_pred[:2])
