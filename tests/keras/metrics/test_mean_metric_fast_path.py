"""`MeanMetricWrapper.update_state`'s fast path (plain tensors of the metric's dtype, labels of
the predictions' rank, no weights: what `fit` passes each step) gives the general path's state."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.metrics import _functions


def _general(metric, y_true, y_pred):
    # numpy inputs take the general path (converted, squeezed or expanded, then accumulated)
    metric.update_state(np.asarray(y_true), np.asarray(y_pred.detach()))
    return metric


def _both(make, y_true, y_pred):
    fast, general = make(), make()
    fast.update_state(y_true, y_pred)
    _general(general, y_true, y_pred)
    return fast, general


def _assert_same_state(fast, general):
    assert torch.equal(fast.total, general.total) and torch.equal(fast.count, general.count)
    assert float(fast.result()) == float(general.result())


@pytest.mark.parametrize("make", [
    tf.keras.metrics.CategoricalAccuracy,
    tf.keras.metrics.BinaryAccuracy,
    tf.keras.metrics.Accuracy,
    lambda: tf.keras.metrics.TopKCategoricalAccuracy(k=2),
    lambda: tf.keras.metrics.MeanMetricWrapper(lambda t, p: torch.mean(torch.abs(t - p), dim=-1), name="mae"),
])
def test_fast_path_gives_the_general_paths_state(make):
    torch.manual_seed(0)
    y_pred = torch.softmax(torch.randn(33, 5), -1).requires_grad_()
    y_true = torch.nn.functional.one_hot(torch.randint(0, 5, (33,)), 5).float()
    for _ in range(3):
        fast, general = _both(make, y_true, y_pred)
        _assert_same_state(fast, general)
        assert not fast.total.requires_grad


def test_categorical_accuracy_counts_ties_and_nans_as_the_function_does():
    y_true = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    y_pred = torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.2, 0.6], [float("nan"), 0.0, 1.0], [0.1, 0.8, 0.1]])
    metric = tf.keras.metrics.CategoricalAccuracy()
    metric.update_state(y_true, y_pred)
    expected = _functions.categorical_accuracy(y_true, y_pred)
    assert float(metric.total) == float(expected.sum()) and float(metric.count) == 4.0


def test_integer_labels_of_the_same_rank_are_converted_as_before():
    y_true = torch.tensor([[1], [0], [1]])
    y_pred = torch.tensor([[0.9], [0.2], [0.3]])
    fast, general = _both(tf.keras.metrics.BinaryAccuracy, y_true, y_pred)
    _assert_same_state(fast, general)
    assert float(fast.result()) == pytest.approx(2 / 3)


def test_a_masked_result_still_weighs_by_its_mask():
    def masked_matches(y_true, y_pred):
        out = (y_true == torch.round(y_pred)).float().squeeze(-1)
        out._keras_mask = torch.tensor([True, False, True, True])
        return out

    metric = tf.keras.metrics.MeanMetricWrapper(masked_matches, name="m")
    metric.update_state(torch.tensor([[1.0], [1.0], [0.0], [0.0]]), torch.tensor([[0.9], [0.9], [0.9], [0.1]]))
    assert float(metric.count) == 3.0 and float(metric.result()) == pytest.approx(2 / 3)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.bool])
def test_sparse_categorical_accuracy_on_class_ids_gives_the_general_paths_state(dtype):
    torch.manual_seed(0)
    classes = 2 if dtype is torch.bool else 5
    y_pred = torch.randn(40, classes)
    y_pred[3] = float("nan")  # a NaN row: argmax's answer, as in the general path
    y_pred[4] = 0.0  # a tie: the first class
    y_true = torch.randint(0, classes, (40, 1)).to(dtype)
    for _ in range(2):
        fast, general = _both(tf.keras.metrics.SparseCategoricalAccuracy, y_true, y_pred)
        _assert_same_state(fast, general)


def test_sparse_categorical_accuracy_fast_path_on_sequences_and_labels_out_of_range():
    torch.manual_seed(1)
    y_pred = torch.randn(6, 7, 4)  # (batch, time, classes) against (batch, time, 1) ids
    y_true = torch.randint(-1, 6, (6, 7, 1))  # -1, 4 and 5 match no class
    fast, general = _both(tf.keras.metrics.SparseCategoricalAccuracy, y_true, y_pred)
    _assert_same_state(fast, general)
    expected = _functions.sparse_categorical_matches(y_true.float(), y_pred)
    assert float(fast.total) == float(expected.sum()) and float(fast.count) == 42.0


def test_sparse_categorical_accuracy_on_float_labels_keeps_the_functions_comparison():
    y_true = torch.tensor([[1.0], [0.5], [2.0]])  # 0.5 is no class id: no match
    y_pred = torch.tensor([[0.1, 0.9, 0.0], [0.9, 0.1, 0.0], [0.0, 0.1, 0.9]])
    fast, general = _both(tf.keras.metrics.SparseCategoricalAccuracy, y_true, y_pred)
    _assert_same_state(fast, general)
    assert float(fast.result()) == pytest.approx(2 / 3)
