"""The TRAIN loss of the classification heads takes one fused torch op when it can; it must
equal the general path (per-example losses, weighted, reduced) and explain bad labels alike."""

import pytest
import torch

import torchestimator as tf
from torchestimator.estimator.head import BinaryClassHead, MultiClassHead
from torchestimator.estimator.mode_keys import ModeKeys


def _general(head, logits, labels):
    return head._training_loss(head._loss_parts(logits, labels, {}), None)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum"])
@pytest.mark.parametrize("label_shape", [(8,), (8, 1)])
def test_multi_class_fused_loss_equals_the_general_path(reduction, label_shape):
    torch.manual_seed(0)
    head = MultiClassHead(n_classes=4, loss_reduction=reduction)
    logits = torch.randn(8, 4, requires_grad=True)
    labels = torch.randint(0, 4, label_shape)
    fused = head._fused_training_loss(logits, labels, {})
    assert fused is not None
    torch.testing.assert_close(fused, _general(head, logits, labels), rtol=1e-6, atol=1e-6)
    grad_fused, = torch.autograd.grad(fused, logits)
    grad_general, = torch.autograd.grad(_general(head, logits, labels), logits)
    torch.testing.assert_close(grad_fused, grad_general, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum"])
def test_binary_fused_loss_equals_the_general_path(reduction):
    torch.manual_seed(1)
    head = BinaryClassHead(loss_reduction=reduction)
    logits = torch.randn(6, 1)
    labels = torch.tensor([0, 1, 1, 0, 1, 0])
    fused = head._fused_training_loss(logits, labels, {})
    assert fused is not None
    torch.testing.assert_close(fused, _general(head, logits, labels), rtol=1e-6, atol=1e-6)


def test_general_path_when_weights_loss_fn_or_other_reductions_are_set():
    logits, labels = torch.randn(4, 3), torch.tensor([0, 1, 2, 1])
    assert MultiClassHead(3, weight_column="w")._fused_training_loss(logits, labels, {}) is None
    assert MultiClassHead(3, loss_reduction="weighted_sum_by_nonzero_weights")._fused_training_loss(
        logits, labels, {}) is None
    assert MultiClassHead(3)._fused_training_loss(logits, labels.float(), {}) is None  # float ids
    assert MultiClassHead(3)._fused_training_loss(logits, labels[:3], {}) is None  # shape mismatch


@pytest.mark.parametrize("bad", [3, -1, -100])
def test_out_of_range_class_ids_are_named(bad):
    head = MultiClassHead(n_classes=3)
    logits = torch.randn(4, 3)
    labels = torch.tensor([0, 1, bad, 2])
    with pytest.raises(ValueError, match=f"found label {bad}"):
        head.create_estimator_spec(features={}, mode=ModeKeys.TRAIN, logits=logits, labels=labels,
                                   train_op_fn=lambda loss: tf.no_op())


def test_binary_labels_outside_zero_one_are_named():
    head = BinaryClassHead()
    with pytest.raises(ValueError, match="found label 2"):
        head.create_estimator_spec(features={}, mode=ModeKeys.TRAIN, logits=torch.randn(3, 1),
                                   labels=torch.tensor([0, 2, 1]), train_op_fn=lambda loss: tf.no_op())
