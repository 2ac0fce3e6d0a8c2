"""Metrics with evenly spaced thresholds updated with the very same tensors (the binary head's
ROC and PR AUCs) count the batch once: the second takes the first's counts. The state is the
one each would reach alone; a tensor changed in place, other tensors or other settings count
again."""

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import torchestimator as tf
from torchestimator.keras.metrics import _confusion_utils as cu


class _Ops(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(func.name())
        return func(*args, **(kwargs or {}))


def _batch(seed=0, n=64):
    rng = np.random.default_rng(seed)
    labels = torch.from_numpy(rng.integers(0, 2, (n, 1)).astype(np.float32))
    scores = torch.from_numpy(rng.uniform(size=(n, 1)).astype(np.float32))
    weights = torch.from_numpy(rng.uniform(size=(n, 1)).astype(np.float32))
    return labels, scores, weights


def _state(metric):
    return [v.numpy().copy() for v in metric.variables]


@pytest.mark.parametrize("weighted", [False, True])
def test_two_aucs_given_the_same_tensors_count_once_and_reach_their_own_state(weighted):
    labels, scores, weights = _batch()
    sw = weights if weighted else None
    roc, pr = tf.keras.metrics.AUC(), tf.keras.metrics.AUC(curve="PR")
    alone_roc, alone_pr = tf.keras.metrics.AUC(), tf.keras.metrics.AUC(curve="PR")
    alone_roc.update_state(labels.clone(), scores.clone(), sample_weight=None if sw is None else sw.clone())
    alone_pr.update_state(labels.clone(), scores.clone(), sample_weight=None if sw is None else sw.clone())
    roc.update_state(labels, scores, sample_weight=sw)
    with _Ops() as ops:
        pr.update_state(labels, scores, sample_weight=sw)
    assert "aten::index_add_" not in ops.names and "aten::cumsum" not in ops.names
    for got, want in zip(_state(roc) + _state(pr), _state(alone_roc) + _state(alone_pr)):
        np.testing.assert_array_equal(got, want)
    assert float(roc.result()) == float(alone_roc.result())
    assert float(pr.result()) == float(alone_pr.result())


def test_tensors_changed_in_place_other_tensors_or_settings_count_again():
    labels, scores, _ = _batch()
    first = tf.keras.metrics.AUC()
    first.update_state(labels, scores)
    scores.mul_(0.5)  # the same tensor, new values: its version tells
    second = tf.keras.metrics.AUC()
    with _Ops() as ops:
        second.update_state(labels, scores)
    assert "aten::index_add_" in ops.names
    reference = tf.keras.metrics.AUC()
    reference.update_state(labels.clone(), scores.clone())
    for got, want in zip(_state(second), _state(reference)):
        np.testing.assert_array_equal(got, want)
    other = tf.keras.metrics.AUC(num_thresholds=50)  # other thresholds: counted again
    with _Ops() as ops:
        other.update_state(labels, scores)
    assert "aten::index_add_" in ops.names
    arrays = tf.keras.metrics.AUC()  # numpy inputs: nothing to recognise them by
    arrays.update_state(labels.numpy(), scores.numpy())
    with _Ops() as ops:
        arrays.update_state(labels.numpy(), scores.numpy())
    assert "aten::index_add_" in ops.names


@pytest.mark.parametrize("multi_label", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_positives_and_negatives_are_counted_in_one_pass_as_each_alone(multi_label, weighted):
    """An AUC needs both counts: they are bucketed side by side (one `index_add_`, one
    `cumsum`), and equal, bit for bit, what counting each kind alone gives."""
    rng = np.random.default_rng(1)
    labels = torch.from_numpy(rng.integers(0, 2, (32, 3)).astype(np.float32))
    scores = torch.from_numpy(rng.uniform(size=(32, 3)).astype(np.float32))
    weights = torch.from_numpy(rng.uniform(size=(32, 1)).astype(np.float32)) if weighted else None
    if weights is not None and not multi_label:
        weights = weights.expand(32, 3)

    def counts(need_tp, need_fp):
        return cu._even_counts(labels, scores, 200, multi_label, weights, False, need_tp, need_fp)

    with _Ops() as ops:
        tp, fp, true_total, false_total = counts(True, True)
    assert ops.names.count("aten::index_add_") == 1 and ops.names.count("aten::cumsum") == 1
    alone_tp, _, alone_true, _ = counts(True, False)
    _, alone_fp, _, alone_false = counts(False, True)
    for together, alone in ((tp, alone_tp), (fp, alone_fp), (true_total, alone_true), (false_total, alone_false)):
        assert torch.equal(together, alone)
