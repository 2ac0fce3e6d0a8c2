"""tf.nn's losses: softmax, sigmoid and weighted cross entropies, l2, Poisson, NCE / sampled
softmax, and the distributed-loss scaling helpers."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    normalize_axis,
    on_one_device,
    shapes_error,
)
from torchestimator._ops.nn_ops._common import Tensor, _floating, _like, _numeric, _tensor
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- losses


def sparse_softmax_cross_entropy_with_logits(
    labels: Any, logits: Any, name: str | None = None
) -> Tensor:
    """Computes sparse softmax cross entropy between `logits` and integer class `labels`.

    `labels` has the shape of `logits` without its last dimension (one class index per example,
    in `[0, num_classes)`). A label out of range is an `InvalidArgumentError` on the CPU and a
    NaN loss on other devices, as in TF.

    Returns:
        A tensor of the same shape as `labels` and the same type as `logits` with the softmax
        cross entropy loss.
    """
    op = "sparse_softmax_cross_entropy_with_logits"
    logits = _floating(logits, op, "logits")
    labels = _tensor(labels, op, "labels")
    if labels.dtype not in (torch.int32, torch.int64):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `labels` must be int32 or int64 class indices, got {dtype_name(labels.dtype)}.",
        )
    if logits.ndim == 0:
        raise ValueError(f"{op}: `logits` cannot be a scalar. Received logits={logits.tolist()}")
    if labels.ndim != logits.ndim - 1 or tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise shapes_error(
            op,
            labels.shape,
            logits.shape,
            "`labels.shape` must equal `logits.shape` except for the last dimension "
            f"(received labels.shape={list(labels.shape)} and logits.shape={list(logits.shape)}).",
        )
    classes = logits.shape[-1]
    flat_logits = logits.reshape(-1, classes)
    flat_labels = labels.reshape(-1)
    if flat_labels.device != flat_logits.device:
        flat_labels = flat_labels.to(flat_logits.device)
    if flat_labels.numel() == 0:
        return logits.new_zeros(labels.shape)
    if flat_logits.device.type == "cpu":
        low, high = torch.aminmax(flat_labels)
        if low < 0 or high >= classes:
            bad = int(low) if low < 0 else int(high)
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: received a label value of {bad} which is outside the valid range of [0, "
                f"{classes}).",
            )
        loss = F.cross_entropy(flat_logits, flat_labels.long(), reduction="none")
    else:  # no host sync: an out-of-range label gives NaN, as TF's GPU kernel does
        inside = (flat_labels >= 0) & (flat_labels < classes)
        safe = torch.where(inside, flat_labels, torch.zeros_like(flat_labels)).long()
        loss = F.cross_entropy(flat_logits, safe, reduction="none")
        loss = torch.where(inside, loss, torch.full_like(loss, math.nan))
    return loss.reshape(labels.shape)


def softmax_cross_entropy_with_logits(
    labels: Any, logits: Any, axis: int = -1, name: str | None = None
) -> Tensor:
    """Computes softmax cross entropy between `logits` and `labels`:
    `-reduce_sum(labels * log_softmax(logits, axis), axis)`.

    Each row of `labels` is a probability distribution; `labels` broadcasts to `logits` and is
    cast to its dtype.

    Returns:
        A tensor with the shape of `logits` without `axis`, of `logits`' type.
    """
    op = "softmax_cross_entropy_with_logits"
    logits = _floating(logits, op, "logits")
    labels = _numeric(labels, op, "labels")
    if logits.ndim == 0:
        raise ValueError(f"{op}: `logits` cannot be a scalar.")
    axis = normalize_axis(axis, logits.ndim, op)
    if labels.dtype is not logits.dtype or labels.device != logits.device:
        labels = labels.to(device=logits.device, dtype=logits.dtype)
    if tuple(labels.shape) != tuple(logits.shape):
        try:
            if torch.broadcast_shapes(labels.shape, logits.shape) != logits.shape:
                raise RuntimeError
        except RuntimeError:
            raise shapes_error(
                op, logits.shape, labels.shape, "logits and labels must be broadcastable."
            ) from None
    return -(labels * torch.log_softmax(logits, axis)).sum(axis)


def _same_shape(op: str, labels: Any, logits: Any) -> tuple[Tensor, Tensor]:
    logits, labels = binary_operands(logits, labels, op)
    logits = _floating(logits, op, "logits")
    if not isinstance(labels, Tensor):
        labels = torch.tensor(labels, dtype=logits.dtype, device=logits.device)
    if tuple(labels.shape) != tuple(logits.shape):
        raise shapes_error(
            op, logits.shape, labels.shape, "`logits` and `labels` must have the same shape."
        )
    return labels, logits


def sigmoid_cross_entropy_with_logits(
    labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    """Computes sigmoid cross entropy given `logits`, in TF's numerically stable form
    `max(x, 0) - x * z + log(1 + exp(-abs(x)))` (x = logits, z = labels).

    Returns:
        A tensor of the same shape as `logits` with the componentwise logistic losses.
    """
    labels, logits = _same_shape("sigmoid_cross_entropy_with_logits", labels, logits)
    positive = logits >= 0
    zeros = torch.zeros_like(logits)
    relu_logits = torch.where(positive, logits, zeros)
    neg_abs_logits = torch.where(positive, -logits, logits)
    return relu_logits - logits * labels + torch.log1p(torch.exp(neg_abs_logits))


def weighted_cross_entropy_with_logits(
    labels: Any, logits: Any, pos_weight: Any, name: str | None = None
) -> Tensor:
    """Computes a weighted cross entropy: the sigmoid cross entropy with the positive term
    multiplied by `pos_weight`, in TF's stable form
    `(1 - z) * x + (1 + (pos_weight - 1) * z) * (log(1 + exp(-abs(x))) + max(-x, 0))`.

    Returns:
        A tensor of the same shape as `logits` with the componentwise weighted logistic losses.
    """
    labels, logits = _same_shape("weighted_cross_entropy_with_logits", labels, logits)
    pos_weight = _like(pos_weight, logits, "pos_weight")
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (
        torch.log1p(torch.exp(-logits.abs())) + torch.relu(-logits)
    )


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """Computes half the L2 norm of a tensor without the sqrt: `sum(t ** 2) / 2`.

    Returns:
        A scalar tensor of the same type as `t`.
    """
    if type(t) is not Tensor or not t.is_floating_point():
        t = _floating(t, "l2_loss", "t")
    return t.square().sum() * 0.5


def log_poisson_loss(
    targets: Any, log_input: Any, compute_full_loss: bool = False, name: str | None = None
) -> Tensor:
    """Computes the log Poisson loss `exp(log_input) - log_input * targets`, plus Stirling's
    approximation of `log(targets!)` for `targets > 1` when `compute_full_loss`.

    Returns:
        A tensor of the same shape as `log_input` with the componentwise losses.
    """
    op = "log_poisson_loss"
    log_input, targets = binary_operands(log_input, targets, op)
    log_input = _floating(log_input, op, "log_input")
    if not isinstance(targets, Tensor):
        targets = torch.tensor(targets, dtype=log_input.dtype, device=log_input.device)
    if tuple(targets.shape) != tuple(log_input.shape):
        raise shapes_error(
            op, log_input.shape, targets.shape, "log_input and targets must have the same shape."
        )
    result = torch.exp(log_input) - log_input * targets
    if compute_full_loss:
        safe = torch.where(targets > 1, targets, torch.ones_like(targets))
        stirling = safe * torch.log(safe) - safe + 0.5 * torch.log(2 * math.pi * safe)
        result = result + torch.where(targets > 1, stirling, torch.zeros_like(targets))
    return result


def compute_average_loss(
    per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None
) -> Tensor:
    """Scales per-example losses with sample weights and computes their average over the batch,
    as TF's `tf.nn.compute_average_loss`: `reduce_sum(loss * sample_weight) / global_batch_size`.

    `global_batch_size` defaults to the first dimension of `per_example_loss`: under torch's
    data parallelism gradients are averaged over replicas by `DistributedDataParallel`, so the
    per-replica batch is the right divisor.

    Returns:
        A scalar loss value.
    """
    op = "compute_average_loss"
    loss = _floating(per_example_loss, op, "per_example_loss")
    if loss.ndim == 0:
        raise ValueError(
            f"{op}: invalid value passed for `per_example_loss`. Expected a tensor with at least "
            "rank 1, "
            f"received a scalar {loss.item()}."
        )
    if sample_weight is not None:
        weight = _like(sample_weight, loss, "sample_weight")
        loss = loss * weight
    if global_batch_size is None:
        global_batch_size = loss.shape[0]
    elif isinstance(global_batch_size, Tensor):
        global_batch_size = global_batch_size.item()
    return loss.sum() / global_batch_size


def scale_regularization_loss(regularization_loss: Any) -> Tensor:
    """Scales the sum of regularization losses by the number of replicas, as TF's
    `tf.nn.scale_regularization_loss`; torch's data parallelism averages gradients over
    replicas, so the sum is returned as it is.

    Returns:
        A scalar loss value.
    """
    if isinstance(regularization_loss, (list, tuple)):
        parts = [
            _floating(v, "scale_regularization_loss", "regularization_loss")
            for v in regularization_loss
        ]
        return torch.stack(on_one_device([p.sum() for p in parts])).sum() if parts else torch.tensor(0.0)
    return _floating(regularization_loss, "scale_regularization_loss", "regularization_loss").sum()


def _weights_matrix(weights: Any, partition_strategy: str = "div") -> Tensor:
    """`weights` as one [num_classes, ...] tensor. A list of shards is partitioned as
    `tf.nn.embedding_lookup` does: 'div' (TF 2's) holds contiguous blocks of ids, in order;
    'mod' (TF 1's default) holds id `i` in shard `i % len(shards)`, row `i // len(shards)`."""
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}."
                         "Must be one of either `mod` or `div`.")
    if not isinstance(weights, (list, tuple)):
        return convert_to_tensor(weights)
    shards = on_one_device([convert_to_tensor(w) for w in weights])
    full = torch.cat(shards, dim=0)
    if partition_strategy == "div" or len(shards) == 1:
        return full
    n, total = len(shards), full.shape[0]
    sizes = [(total - i + n - 1) // n for i in range(n)]  # shard i holds ids i, i + n, ...
    if [int(s.shape[0]) for s in shards] != sizes:
        raise ValueError(f"partition_strategy='mod': shards of {total} ids must have {sizes} rows; "
                         f"received {[int(s.shape[0]) for s in shards]}.")
    starts = [sum(sizes[:i]) for i in range(n)]
    ids = torch.arange(total)
    rows = torch.tensor(starts)[ids % n] + ids // n
    return full[rows.to(full.device)]


def _compute_sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
                            num_classes: int, num_true: int, sampled_values: Any, subtract_log_q: bool,
                            remove_accidental_hits: bool, seed: int | None, owner: str,
                            partition_strategy: str = "div") -> tuple[Tensor, Tensor]:
    """TF's `_compute_sampled_logits`: the logits of the true classes and of the sampled
    negatives ([batch, num_true + num_sampled]) and their labels (1 / num_true, then 0)."""
    from torchestimator._ops import (  # lazy: heavy (torchestimator._ops.candidate_sampling_ops, 279 ms)
        candidate_sampling_ops as sampling,
    )

    labels = convert_to_tensor(labels).to(torch.int64)
    if labels.ndim == 1:
        labels = labels.reshape(-1, 1)
    if labels.shape[1] != num_true:
        raise ValueError(f"{owner}: labels must be [batch_size, num_true={num_true}]; received shape "
                         f"{tuple(labels.shape)}.")
    inputs = convert_to_tensor(inputs)
    w = _weights_matrix(weights, partition_strategy)
    b = _weights_matrix(biases, partition_strategy)
    if w.shape[0] != num_classes or b.shape[0] != num_classes:
        raise ValueError(f"{owner}: weights ({tuple(w.shape)}) and biases ({tuple(b.shape)}) must have "
                         f"num_classes={num_classes} rows.")
    if sampled_values is None:
        sampled_values = sampling.log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes,
                                                                seed=seed)
    sampled, true_expected, sampled_expected = (convert_to_tensor(v).detach() for v in sampled_values)
    sampled = sampled.to(torch.int64).to(w.device)
    batch = labels.shape[0]
    true_w = w[labels.reshape(-1).to(w.device)].reshape(batch, num_true, -1)
    true_logits = (inputs.unsqueeze(1) * true_w).sum(-1) + b[labels.to(b.device)]
    sampled_logits = inputs @ w[sampled].T + b[sampled]
    if remove_accidental_hits:
        rows, cols, hit = sampling.compute_accidental_hits(labels, sampled, num_true)
        mask = torch.zeros_like(sampled_logits)
        mask[rows.to(torch.int64), cols] = hit.to(mask.dtype)
        sampled_logits = sampled_logits + mask
    if subtract_log_q:
        true_logits = true_logits - torch.log(true_expected.to(true_logits.device, true_logits.dtype))
        sampled_logits = sampled_logits - torch.log(sampled_expected.to(sampled_logits.device, sampled_logits.dtype))
    logits = torch.cat([true_logits, sampled_logits], dim=1)
    targets = torch.cat([torch.full_like(true_logits, 1.0 / num_true), torch.zeros_like(sampled_logits)], dim=1)
    return logits, targets


def nce_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = False,
    name: str = "nce_loss",
) -> Tensor:
    """The noise-contrastive estimation loss of each example ([batch]): sigmoid cross entropy
    of the true classes against `num_sampled` negatives drawn by `sampled_values` (default:
    `tf.random.log_uniform_candidate_sampler`, unique), logits corrected by the log of each
    class' expected count. `weights` [num_classes, dim] (or a list of 'div' shards),
    `biases` [num_classes], `labels` [batch, num_true], `inputs` [batch, dim]."""
    return _nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                     sampled_values, remove_accidental_hits, "div")


def _nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
              num_classes: int, num_true: int, sampled_values: Any, remove_accidental_hits: bool,
              partition_strategy: str) -> Tensor:
    """`nce_loss` with shards of `weights` and `biases` partitioned by `partition_strategy`."""
    logits, targets = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                              num_true, sampled_values, True, remove_accidental_hits, None,
                                              "nce_loss", partition_strategy)
    losses = torch.clamp(logits, min=0) - logits * targets + torch.log1p(torch.exp(-logits.abs()))
    return losses.sum(dim=1)


def sampled_softmax_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = True,
    seed: int | None = None,
    name: str = "sampled_softmax_loss",
) -> Tensor:
    """The sampled softmax loss of each example ([batch]): softmax cross entropy over the true
    classes and `num_sampled` negatives (default sampler: log-uniform, unique), with
    accidental hits of a true class among the negatives removed (`remove_accidental_hits`)."""
    return _sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                 sampled_values, remove_accidental_hits, seed, "div")


def _sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
                          num_classes: int, num_true: int, sampled_values: Any,
                          remove_accidental_hits: bool, seed: int | None,
                          partition_strategy: str) -> Tensor:
    """`sampled_softmax_loss` with shards of `weights` and `biases` partitioned by
    `partition_strategy`."""
    logits, targets = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                              num_true, sampled_values, True, remove_accidental_hits, seed,
                                              "sampled_softmax_loss", partition_strategy)
    return -(targets.detach() * torch.log_softmax(logits, dim=1)).sum(dim=1)
