"""`tf.compat.v1.losses` reductions: the fast path for a Python-number weight equals the general
one, and TF1's defaults (SUM_BY_NONZERO_WEIGHTS)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf

losses = tf.compat.v1.losses
Reduction = losses.Reduction


@pytest.fixture()
def per_example():
    torch.manual_seed(0)
    logits, labels = torch.randn(8, 3), torch.randint(0, 3, (8,))
    return logits, labels, torch.nn.functional.cross_entropy(logits, labels, reduction="none")


@pytest.mark.parametrize("reduction", Reduction.all())
@pytest.mark.parametrize("weight", [1.0, 2.5, 0.0, 1])
def test_scalar_weight_equals_tensor_weight(per_example, reduction, weight):
    _, _, per = per_example
    fast = losses.compute_weighted_loss(per, weight, reduction=reduction)
    general = losses.compute_weighted_loss(per, torch.full((8,), float(weight)), reduction=reduction)
    torch.testing.assert_close(fast, general)


@pytest.mark.parametrize("reduction", Reduction.all())
def test_sparse_softmax_cross_entropy_reductions(per_example, reduction):
    logits, labels, per = per_example
    got = losses.sparse_softmax_cross_entropy(labels, logits, reduction=reduction)
    expected = losses.compute_weighted_loss(per, torch.ones(8), reduction=reduction)
    torch.testing.assert_close(got, expected)
    assert got.shape == per.shape if reduction == Reduction.NONE else got.shape == ()


def test_defaults_and_edge_cases(per_example):
    logits, labels, per = per_example
    assert losses.sparse_softmax_cross_entropy(labels, logits).item() == pytest.approx(per.mean().item())
    weights = torch.tensor([1.0, 0, 0, 0, 2, 0, 0, 0])
    got = losses.sparse_softmax_cross_entropy(labels, logits, weights=weights)
    assert got.item() == pytest.approx(((per * weights).sum() / 2).item())  # over non-zero weights
    empty = losses.compute_weighted_loss(torch.zeros(0), 1.0)
    assert empty.item() == 0.0
    assert losses.compute_weighted_loss(per, 0.0).item() == 0.0
    loss = losses.sparse_softmax_cross_entropy(labels.numpy(), logits)  # numpy labels work
    assert loss.item() == pytest.approx(per.mean().item())
    with pytest.raises(ValueError, match="Invalid reduction 'avg'"):
        losses.compute_weighted_loss(per, 1.0, reduction="avg")
    with pytest.raises(ValueError, match="do not match logits"):
        losses.sparse_softmax_cross_entropy(labels[:3], logits)
    grad_logits = logits.clone().requires_grad_(True)
    losses.sparse_softmax_cross_entropy(labels, grad_logits).backward()
    assert grad_logits.grad is not None


def test_sparse_softmax_cross_entropy_names_a_nan_label():
    """A NaN among float labels is reported as NaN with its position (a cast to int64 would
    report the label -9223372036854775808)."""
    labels = torch.tensor([0.0, 2.0, float("nan")])
    with pytest.raises(ValueError, match=r"labels contain NaN \(1 of 3, the first at position 2\)"):
        tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, torch.zeros(3, 3))
    whole = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels[:2], torch.zeros(2, 3))
    assert abs(float(whole) - float(torch.log(torch.tensor(3.0)))) < 1e-6
