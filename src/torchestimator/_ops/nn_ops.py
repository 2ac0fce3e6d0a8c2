"""tf.nn: activations, losses, convolutions and pooling in TF's NHWC layout, over torch.

Convolutions and pooling take TF's layouts (`NHWC` by default, `NCHW` on request) and TF's
padding: `'VALID'`, `'SAME'` (output size `ceil(input / stride)`, the padding split with the
extra element at the end, as TF does) or an explicit list of `[before, after]` pairs. Filters
are TF's `[height, width, in_channels, out_channels]`. Channels-last inputs are handed to torch
as channels-last views (no copy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._ops import random_ops
from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    normalize_axis,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError, UnimplementedError

__all__: list[str] = []  # tf.nn's ops are not at TF's top level; tf.nn imports them by name

Tensor = torch.Tensor
_FLOATS = "half, bfloat16, float32, float64"


# ----------------------------------------------------------------------------- conversions


def _tensor(value: Any, op: str, arg: str) -> Tensor:
    """The slow path: `value` as a numeric tensor (float32 for Python floats, as TF)."""
    if not isinstance(value, Tensor):
        value = convert_to_tensor(value, name=arg)
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}: `{arg}` must be numeric, got strings.")
    return value


def _floating(value: Any, op: str, arg: str = "features") -> Tensor:
    """`value` as a floating-point tensor, or TF's error naming the dtype."""
    value = _tensor(value, op, arg)
    if not value.is_floating_point():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` must be a floating-point tensor ({_FLOATS}), got "
            f"{dtype_name(value.dtype)}; "
            "tf.cast it to float32.",
        )
    return value


def _numeric(value: Any, op: str, arg: str = "features") -> Tensor:
    """`value` as a tensor of a real number dtype (TF's integer kernels accept no bool)."""
    value = _tensor(value, op, arg)
    if value.dtype is torch.bool or value.is_complex():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` of dtype {dtype_name(value.dtype)} is not supported; use a real "
            "number dtype.",
        )
    return value


def _like(value: Any, ref: Tensor, name: str) -> Any:
    """A parameter (Python number or tensor) in the dtype and on the device of `ref`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    tensor = (
        value
        if isinstance(value, Tensor)
        else convert_to_tensor(value, dtype_hint=ref.dtype, name=name)
    )
    if not isinstance(tensor, Tensor):
        raise TypeError(f"`{name}` must be numeric, got strings.")
    if tensor.dtype is not ref.dtype or tensor.device != ref.device:
        tensor = tensor.to(device=ref.device, dtype=ref.dtype)
    return tensor


# ----------------------------------------------------------------------------- activations


def relu(features: Any, name: str | None = None) -> Tensor:
    """Computes rectified linear: `max(features, 0)`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or features.dtype is torch.bool:
        features = _numeric(features, "relu")
    return torch.relu(features)


def relu6(features: Any, name: str | None = None) -> Tensor:
    """Computes Rectified Linear 6: `min(max(features, 0), 6)`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _numeric(features, "relu6")
        if not features.is_floating_point():
            return torch.clamp(features, 0, 6)
    return F.relu6(features)


def crelu(features: Any, axis: int = -1, name: str | None = None) -> Tensor:
    """Computes Concatenated ReLU: `concat([relu(features), relu(-features)], axis)`.

    Returns:
        A tensor with the same type as `features`, twice as large along `axis`.
    """
    features = _numeric(features, "crelu")
    axis = normalize_axis(axis, features.ndim, "crelu")
    return torch.cat([torch.relu(features), torch.relu(-features)], dim=axis)


def elu(features: Any, name: str | None = None) -> Tensor:
    """Computes the exponential linear function: `features` if > 0, else `exp(features) - 1`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "elu")
    return F.elu(features)


def selu(features: Any, name: str | None = None) -> Tensor:
    """Computes scaled exponential linear: `scale * alpha * (exp(features) - 1)` if < 0, else
    `scale * features` (alpha 1.6732632, scale 1.0507010).

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "selu")
    return F.selu(features)


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """Computes the Gaussian Error Linear Unit: `x * P(X <= x)` with `X ~ N(0, 1)`, or its
    `tanh` approximation when `approximate=True`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "gelu")
    return F.gelu(features, approximate="tanh" if approximate else "none")


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """Computes the Leaky ReLU activation: `features` if > 0, else `alpha * features`
    (integer features are cast to float32 first, as in TF).

    Returns:
        The activation value.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _numeric(features, "leaky_relu")
        if not features.is_floating_point():
            features = features.to(torch.float32)
    if isinstance(alpha, (Tensor, np.ndarray)):
        alpha = alpha.item()
    return F.leaky_relu(features, alpha)


def softsign(features: Any, name: str | None = None) -> Tensor:
    """Computes the softsign: `features / (abs(features) + 1)`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "softsign")
    return F.softsign(features)


def swish(features: Any, beta: Any = 1.0) -> Tensor:
    """Computes the SiLU or Swish activation: `features * sigmoid(beta * features)`.

    Returns:
        The activation value.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "swish")
    if isinstance(beta, (int, float)) and beta == 1.0:
        return F.silu(features)
    return features * torch.sigmoid(_like(beta, features, "beta") * features)


silu = swish


def softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """Computes softmax activations: `exp(logits) / reduce_sum(exp(logits), axis, keepdims=True)`
    (`axis` defaults to -1, the last dimension).

    Returns:
        A tensor with the same type and shape as `logits`.
    """
    if type(logits) is Tensor and axis is None and logits.ndim and logits.is_floating_point():
        return torch.softmax(logits, -1)
    logits, axis = _softmax_args(logits, axis, "softmax")
    return torch.softmax(logits, axis)


def log_softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """Computes log softmax activations: `logits - log(reduce_sum(exp(logits), axis))`.

    Returns:
        A tensor with the same type and shape as `logits`.
    """
    if type(logits) is Tensor and axis is None and logits.ndim and logits.is_floating_point():
        return torch.log_softmax(logits, -1)
    logits, axis = _softmax_args(logits, axis, "log_softmax")
    return torch.log_softmax(logits, axis)


def _softmax_args(logits: Any, axis: Any, op: str) -> tuple[Tensor, int]:
    logits = _floating(logits, op, "logits")
    if logits.ndim == 0:
        raise InvalidArgumentError(
            None, None, f"{op}: logits must have at least one dimension, got a scalar."
        )
    return logits, normalize_axis(-1 if axis is None else axis, logits.ndim, op)


# ----------------------------------------------------------------------------- dropout


def dropout(
    x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None
) -> Tensor:
    """Computes dropout: randomly sets elements to zero with probability `rate` and scales the
    kept ones by `1 / (1 - rate)` (always applied; Keras' `Dropout` layer applies it in training
    only). `noise_shape` (None entries take `x`'s size) shares the mask along dimensions of size 1.

    Returns:
        A tensor of the same shape as `x`.
    """
    x = _tensor(x, "dropout", "x")
    if not x.is_floating_point():
        raise ValueError(
            "dropout: `x.dtype` must be a floating point tensor as `x` will be scaled. "
            f"Received: x_dtype={dtype_name(x.dtype)}"
        )
    if isinstance(rate, (Tensor, np.ndarray)):
        rate = rate.item()
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(
            "dropout: `rate` must be a scalar tensor or a float in the range [0, 1). Received: "
            f"rate={rate!r}"
        )
    if rate == 0:
        return x
    shape = tuple(x.shape)
    if noise_shape is not None:
        if isinstance(noise_shape, (Tensor, np.ndarray)):
            noise_shape = noise_shape.tolist()
        noise_shape = list(noise_shape)
        if len(noise_shape) == len(shape):
            noise_shape = [s if d is None else d for d, s in zip(noise_shape, shape)]
        noise_shape = tuple(int(d) for d in noise_shape)
        try:
            torch.broadcast_shapes(noise_shape, shape)
        except RuntimeError:
            raise shapes_error(
                "dropout", noise_shape, shape, "noise_shape must broadcast to the shape of x."
            ) from None
        shape = noise_shape
    gen = random_ops._op_generator("dropout", seed, x.device)
    keep = torch.rand(shape, generator=gen, dtype=x.dtype, device=x.device) >= rate
    return x * keep * (1.0 / (1.0 - rate))


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
        return torch.stack([p.sum() for p in parts]).sum() if parts else torch.tensor(0.0)
    return _floating(regularization_loss, "scale_regularization_loss", "regularization_loss").sum()


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
    """TF's noise-contrastive estimation loss: not provided (refused with a clear error)."""
    raise UnimplementedError(
        None,
        None,
        "tf.nn.nce_loss is not provided by torchestimator (it needs TF's candidate samplers). "
        "Compute "
        "the full logits, `tf.matmul(inputs, weights, transpose_b=True) + biases`, and use "
        "tf.nn.softmax_cross_entropy_with_logits (or "
        "tf.nn.sparse_softmax_cross_entropy_with_logits "
        "with integer labels) over all classes instead.",
    )


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
    """TF's sampled softmax loss: not provided (refused with a clear error)."""
    raise UnimplementedError(
        None,
        None,
        "tf.nn.sampled_softmax_loss is not provided by torchestimator (it needs TF's candidate "
        "samplers). Compute the full logits, `tf.matmul(inputs, weights, transpose_b=True) + "
        "biases`, "
        "and use tf.nn.softmax_cross_entropy_with_logits (or "
        "tf.nn.sparse_softmax_cross_entropy_with_logits with integer labels) over all classes "
        "instead.",
    )


# ----------------------------------------------------------------------------- embeddings


def _ids(ids: Any, op: str) -> Tensor:
    ids = _tensor(ids, op, "ids")
    if ids.dtype not in (torch.int16, torch.int32, torch.int64, torch.int8, torch.uint8):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `ids` must be an integer tensor (int16, int32, int64), got "
            f"{dtype_name(ids.dtype)}.",
        )
    return ids


def _gather_rows(params: Tensor, flat_ids: Tensor, op: str) -> Tensor:
    """`params[flat_ids]`: out-of-range ids are an error on the CPU and zero rows elsewhere,
    as TF's gather on CPU and GPU."""
    rows = params.shape[0]
    if flat_ids.dtype not in (torch.int32, torch.int64):
        flat_ids = flat_ids.long()
    if flat_ids.device != params.device:
        flat_ids = flat_ids.to(params.device)
    if flat_ids.numel() == 0:
        return params.new_zeros((0,) + tuple(params.shape[1:]))
    if params.device.type == "cpu":
        low, high = torch.aminmax(flat_ids)
        if low < 0 or high >= rows:
            bad_index = int(torch.nonzero((flat_ids < 0) | (flat_ids >= rows))[0, 0])
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: indices[{bad_index}] = {int(flat_ids[bad_index])} is not in [0, {rows}).",
            )
        return params.index_select(0, flat_ids)
    inside = (flat_ids >= 0) & (flat_ids < rows)
    gathered = params.index_select(0, torch.where(inside, flat_ids, torch.zeros_like(flat_ids)))
    return gathered * inside.reshape((-1,) + (1,) * (params.ndim - 1)).to(gathered.dtype)


def _clip_rows(rows: Tensor, max_norm: Any) -> Tensor:
    """TF's `clip_by_norm` of every gathered embedding to `max_norm` (over all but the first "
    "dim)."""
    if isinstance(max_norm, (Tensor, np.ndarray)):
        max_norm = float(max_norm.item())
    dims = tuple(range(1, rows.ndim))
    if not dims:
        norms = rows.abs()
    else:
        norms = torch.linalg.vector_norm(rows, dim=dims, keepdim=True)
    return rows * max_norm / torch.clamp(norms, min=max_norm)


def embedding_lookup(
    params: Any, ids: Any, max_norm: Any = None, name: str | None = None
) -> Tensor:
    """Looks up embeddings for the given `ids` from a list of tensors, as TF's
    `tf.nn.embedding_lookup`.

    `params` is one tensor (or `tf.Variable`) of shape `[vocab, ...]`, or a list of shards that
    TF's `'div'` strategy partitions (contiguous id ranges, the first `vocab % len(params)`
    shards one row larger). With `max_norm`, each embedding is clipped to that L2 norm.

    Returns:
        A tensor of shape `ids.shape + params.shape[1:]`, of `params`' type.
    """
    op = "embedding_lookup"
    ids = _ids(ids, op)
    flat_ids = ids.reshape(-1)
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError(f"{op}: need at least one param (`params` is an empty list).")
        shards = [_tensor(p, op, "params") for p in params]
        if len(shards) == 1:
            table = shards[0]
        else:
            table, flat_ids = _div_partition(shards, flat_ids, op)
    else:
        table = _tensor(params, op, "params")
    if table.ndim == 0:
        raise InvalidArgumentError(None, None, f"{op}: params must be at least 1-D, got a scalar.")
    rows = _gather_rows(table, flat_ids, op)
    if max_norm is not None:
        rows = _clip_rows(rows, max_norm)
    return rows.reshape(tuple(ids.shape) + tuple(table.shape[1:]))


def _div_partition(shards: list[Tensor], flat_ids: Tensor, op: str) -> tuple[Tensor, Tensor]:
    """TF's 'div' partition of ids over shards, as row indices into the concatenated shards."""
    first = shards[0]
    for shard in shards[1:]:
        if shard.dtype is not first.dtype or tuple(shard.shape[1:]) != tuple(first.shape[1:]):
            raise shapes_error(
                op,
                first.shape,
                shard.shape,
                "All params shards must have the same dtype and inner shape.",
            )
    sizes = [int(s.shape[0]) for s in shards]
    count = len(shards)
    total = sum(sizes)
    per, extras = divmod(total, count)
    ids = flat_ids.long().to(first.device)
    if per == 0:
        partition = ids // (per + 1)
        offset = ids % (per + 1)
    else:
        partition = torch.maximum(ids // (per + 1), (ids - extras) // per)
        offset = torch.where(partition < extras, ids % (per + 1), (ids - extras) % per)
    starts = torch.tensor(
        np.concatenate([[0], np.cumsum(sizes)[:-1]]), dtype=torch.int64, device=first.device
    )
    in_shard = (partition >= 0) & (partition < count)
    clamped = partition.clamp(0, count - 1)
    shard_sizes = torch.tensor(sizes, dtype=torch.int64, device=first.device)
    valid = in_shard & (offset >= 0) & (offset < shard_sizes[clamped])
    rows = torch.where(valid, starts[clamped] + offset, torch.full_like(ids, total))
    if first.device.type == "cpu" and not bool(valid.all()):
        bad = int(torch.nonzero(~valid)[0, 0])
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: id {int(ids[bad])} falls outside its shard under the 'div' partition strategy "
            f"(shard sizes {sizes}).",
        )
    return torch.cat(shards, 0), rows


def _sparse_parts(sparse: Any, op: str, arg: str) -> tuple[Tensor, Tensor]:
    """(row of each entry, value of each entry) of a sparse input: a torch sparse COO tensor,
    a feature-column `SparseIds`, or a TF-like object with `indices` and `values`."""
    if isinstance(sparse, Tensor) and sparse.layout is torch.sparse_coo:
        sparse = sparse.coalesce()
        return sparse.indices()[0], sparse.values()
    if hasattr(sparse, "rows") and hasattr(sparse, "ids"):
        return sparse.rows, sparse.ids
    if hasattr(sparse, "indices") and hasattr(sparse, "values"):
        indices = _tensor(sparse.indices, op, f"{arg}.indices")
        values = _tensor(sparse.values, op, f"{arg}.values")
        return indices[:, 0] if indices.ndim == 2 else indices, values
    raise TypeError(
        f"{op}: `{arg}` must be a sparse tensor (torch sparse COO, or an object with `indices` "
        f"[nnz, 2] and `values` [nnz]), got {type(sparse).__name__}."
    )


def embedding_lookup_sparse(
    params: Any,
    sp_ids: Any,
    sp_weights: Any,
    combiner: str | None = None,
    max_norm: Any = None,
    name: str | None = None,
    allow_fast_lookup: bool = False,
) -> Tensor:
    """Looks up embeddings for the given ids and weights from sparse inputs and combines each
    example's embeddings with `combiner` ('sum', 'mean' (the default) or 'sqrtn'), as TF's
    `tf.nn.embedding_lookup_sparse`.

    `sp_ids` is a torch sparse COO tensor of ids `[batch, max_ids]` (or an object with TF's
    `indices`/`values`); `sp_weights` the same layout of weights, or None for weights of 1.

    Returns:
        A dense tensor `[max_row + 1, ...params.shape[1:]]` of the combined embeddings (rows
        without ids are zeros).
    """
    op = "embedding_lookup_sparse"
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(
            f"{op}: combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}."
        )
    rows, ids = _sparse_parts(sp_ids, op, "sp_ids")
    embeddings = embedding_lookup(params, ids, max_norm=max_norm)
    rows = rows.long().to(embeddings.device)
    count = int(rows.max()) + 1 if rows.numel() else 0
    tail = (1,) * (embeddings.ndim - 1)
    if sp_weights is None:
        weights = None
    else:
        _, weights = _sparse_parts(sp_weights, op, "sp_weights")
        weights = weights.to(device=embeddings.device, dtype=embeddings.dtype)
        embeddings = embeddings * weights.reshape((-1,) + tail)
    out_shape = (count,) + tuple(embeddings.shape[1:])
    summed = embeddings.new_zeros(out_shape).index_add(0, rows, embeddings)
    if combiner == "sum":
        return summed
    if weights is None:
        weights = torch.ones(rows.shape, dtype=embeddings.dtype, device=embeddings.device)
    if combiner == "sqrtn":
        weights = weights * weights
    totals = weights.new_zeros(count).index_add(0, rows, weights)
    if combiner == "sqrtn":
        totals = torch.sqrt(totals)
    totals = totals.reshape((-1,) + tail)
    safe = torch.where(totals == 0, torch.ones_like(totals), totals)
    return torch.where(totals == 0, torch.zeros_like(summed), summed / safe)


# ----------------------------------------------------------------------------- normalization


def _axes(axes: Any, rank: int, op: str) -> tuple[int, ...]:
    axes = normalize_axis(axes, rank, op)
    if axes is None:
        return tuple(range(rank))
    return (axes,) if isinstance(axes, int) else tuple(sorted(set(axes)))


def moments(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Calculates the mean and variance of `x` over `axes` (`shift` is unused, as in TF 2).

    float16/bfloat16 inputs are computed in float32; integer inputs give integer results
    (truncating division), as TF.

    Returns:
        Two tensors, `mean` and `variance`.
    """
    op = "moments"
    x = _numeric(x, op, "x")
    dims = _axes(axes, x.ndim, op)
    if not dims:
        return x, torch.zeros_like(x)
    if x.is_floating_point():
        work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        variance, mean = torch.var_mean(work, dim=dims, correction=0, keepdim=keepdims)
        if work is not x:
            mean, variance = mean.to(x.dtype), variance.to(x.dtype)
        return mean, variance
    count = math.prod(x.shape[d] for d in dims)
    mean = torch.div(x.sum(dim=dims, keepdim=True, dtype=x.dtype), count, rounding_mode="trunc")
    variance = torch.div(
        ((x - mean) ** 2).sum(dim=dims, keepdim=keepdims, dtype=x.dtype),
        count,
        rounding_mode="trunc",
    )
    return (mean if keepdims else mean.squeeze(dims)), variance


def sufficient_statistics(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor, Any]:
    """Calculates the sufficient statistics for the mean and variance of `x`: the count of
    elements reduced, the (shifted) sum and the (shifted) sum of squares, and the shift.

    Returns:
        `(count, mean_ss, variance_ss, shift)`; `shift` is None when not given.
    """
    op = "sufficient_statistics"
    x = _floating(x, op, "x")
    dims = _axes(axes, x.ndim, op)
    count = torch.tensor(float(math.prod(x.shape[d] for d in dims)), dtype=x.dtype, device=x.device)
    shifted = x if shift is None else x - _like(shift, x, "shift")
    mean_ss = shifted.sum(dim=dims, keepdim=keepdims) if dims else shifted
    variance_ss = shifted.square().sum(dim=dims, keepdim=keepdims) if dims else shifted.square()
    return count, mean_ss, variance_ss, shift


def normalize_moments(
    counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Calculates the mean and variance from the sufficient statistics.

    Returns:
        Two tensors, `mean` and `variance`.
    """
    mean_ss = _floating(mean_ss, "normalize_moments", "mean_ss")
    divisor = 1.0 / _like(counts, mean_ss, "counts")
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + _like(shift, mean_ss, "shift")
    variance = _like(variance_ss, mean_ss, "variance_ss") * divisor - shifted_mean.square()
    return mean, variance


def weighted_moments(
    x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Returns the frequency-weighted mean and variance of `x` over `axes`.

    Returns:
        Two tensors, `weighted_mean` and `weighted_variance`.
    """
    op = "weighted_moments"
    x = _floating(x, op, "x")
    weights = _like(frequency_weights, x, "frequency_weights")
    dims = _axes(axes, x.ndim, op)
    weights = torch.broadcast_to(torch.as_tensor(weights, dtype=x.dtype, device=x.device), x.shape)
    total = weights.sum(dim=dims, keepdim=True)
    safe = torch.where(total == 0, torch.ones_like(total), total)
    mean = torch.where(
        total == 0, torch.zeros_like(total), (x * weights).sum(dim=dims, keepdim=True) / safe
    )
    variance = (weights * (x - mean).square()).sum(dim=dims, keepdim=True)
    variance = torch.where(total == 0, torch.zeros_like(total), variance / safe)
    if not keepdims:
        mean, variance = mean.squeeze(dims), variance.squeeze(dims)
    return mean, variance


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: float,
    name: str | None = None,
) -> Tensor:
    """Batch normalization: `scale * (x - mean) / sqrt(variance + variance_epsilon) + offset`,
    computed as TF does, `x * inv + (offset - mean * inv)` with `inv = scale * rsqrt(...)`.

    Returns:
        The normalized, scaled, offset tensor, of `x`'s type.
    """
    op = "batch_normalization"
    x = _numeric(x, op, "x")
    work_ref = x if x.is_floating_point() else torch.empty((), dtype=torch.float32, device=x.device)
    mean = _stat(mean, work_ref, "mean")
    variance = _stat(variance, work_ref, "variance")
    inv = torch.rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * _stat(scale, work_ref, "scale")
    shift = -mean * inv if offset is None else _stat(offset, work_ref, "offset") - mean * inv
    if inv.dtype is not x.dtype:
        inv, shift = inv.to(x.dtype), shift.to(x.dtype)
    return x * inv + shift


def _stat(value: Any, ref: Tensor, name: str) -> Tensor:
    if isinstance(value, Tensor):
        return value if value.device == ref.device else value.to(ref.device)
    return torch.as_tensor(np.asarray(value), device=ref.device).to(ref.dtype)


def local_response_normalization(
    input: Any,
    depth_radius: int = 5,
    bias: float = 1,
    alpha: float = 1,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """Local Response Normalization over the last (depth) dimension of a 4-D input:
    `input / (bias + alpha * sqr_sum) ** beta`, `sqr_sum` the sum of squares over
    `[d - depth_radius, d + depth_radius]`.

    Returns:
        A tensor with the same type and shape as `input`.
    """
    op = "local_response_normalization"
    x = _floating(input, op, "input")
    if x.ndim != 4:
        raise InvalidArgumentError(
            None, None, f"{op}: input must be 4-dimensional, got shape {list(x.shape)}."
        )
    depth = x.shape[-1]
    radius = int(depth_radius)
    squares = x.square().reshape(-1, 1, depth)
    window = 2 * radius + 1
    sums = F.avg_pool1d(F.pad(squares, (radius, radius)), window, 1) * window
    return x / (bias + alpha * sums.reshape(x.shape)) ** beta


lrn = local_response_normalization


def bias_add(
    value: Any, bias: Any, data_format: str | None = None, name: str | None = None
) -> Tensor:
    """Adds `bias` (1-D) to `value` along its channel dimension: the last one for `N...C`
    layouts (the default), dimension 1 for `NC...` layouts.

    Returns:
        A tensor with the same type as `value`.
    """
    op = "bias_add"
    value, bias = binary_operands(value, bias, op)
    if not isinstance(bias, Tensor):
        bias = torch.tensor(bias, dtype=value.dtype, device=value.device)
    if value.ndim < 2:
        raise InvalidArgumentError(
            None, None, f"{op}: input tensor must be at least 2D: {list(value.shape)}"
        )
    if bias.ndim != 1:
        raise InvalidArgumentError(None, None, f"{op}: biases must be 1D: {list(bias.shape)}")
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        channel = value.ndim - 1
    elif data_format.startswith("NC"):
        channel = 1
    else:
        raise ValueError(
            f"{op}: `data_format` must be of the form `N...C` or `NC...`. Received: "
            f"data_format={data_format}"
        )
    if bias.shape[0] != value.shape[channel]:
        raise shapes_error(
            op,
            bias.shape,
            value.shape,
            f"Must provide as many biases as the channel dimension ({channel}) of the input "
            "tensor.",
        )
    if channel == value.ndim - 1:
        return value + bias
    return value + bias.reshape((-1,) + (1,) * (value.ndim - 2))


# ------------------------------------------------------------------------- conv and pool helpers

_CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}
_CHANNELS_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _layout(data_format: str | None, n: int, op: str) -> bool:
    """True for channels-last (`NWC`/`NHWC`/`NDHWC`), False for channels-first."""
    if data_format is None or data_format == _CHANNELS_LAST[n]:
        return True
    if data_format == _CHANNELS_FIRST[n]:
        return False
    raise ValueError(
        f"{op}: data_format must be '{_CHANNELS_LAST[n]}' or '{_CHANNELS_FIRST[n]}', got "
        f"{data_format!r}."
    )


def _spatial(
    value: Any, n: int, channels_last: bool, op: str, arg: str, default: int = 1
) -> tuple[int, ...]:
    """An int, or a list of 1, n or n + 2 ints (TF's ksize/strides/dilations), as n ints."""
    if value is None:
        return (default,) * n
    if isinstance(value, (Tensor, np.ndarray)):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = [int(v) for v in value]
    if len(value) == 1:
        return (value[0],) * n
    if len(value) == n:
        return tuple(value)
    if len(value) == n + 2:
        outer = (value[0], value[-1]) if channels_last else (value[0], value[1])
        if outer != (1, 1):
            raise UnimplementedError(
                None,
                None,
                f"{op}: {arg}={value} moves along the batch or channel dimension, which TF does "
                "not support; "
                "those entries must be 1.",
            )
        return tuple(value[1:-1]) if channels_last else tuple(value[2:])
    lengths = "1 or 3" if n == 1 else f"1, {n} or {n + 2}"
    raise ValueError(
        f"{op}: {arg} should be of length {lengths}. Received: {arg}={value} of length {len(value)}"
    )


def _padding(
    padding: Any,
    n: int,
    channels_last: bool,
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    op: str,
    explicit_ok: bool = True,
) -> list[tuple[int, int]]:
    """TF's padding as a (before, after) pair per spatial dimension."""
    if isinstance(padding, str):
        if padding == "VALID":
            return [(0, 0)] * n
        if padding == "SAME":
            pads = []
            for size, k, s, d in zip(sizes, kernel, strides, dilations):
                out = -(-size // s)
                total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
                pads.append((total // 2, total - total // 2))
            return pads
        raise ValueError(
            f"{op}: padding must be 'SAME', 'VALID' or a list of [before, after] pairs, got "
            f"{padding!r}."
        )
    if not explicit_ok:
        raise TypeError(
            f"{op}: padding must be 'SAME' or 'VALID', got {padding!r} (no explicit padding)."
        )
    pairs = [
        [int(v) for v in pair]
        for pair in (padding.tolist() if isinstance(padding, Tensor) else padding)
    ]
    if len(pairs) != n + 2 or any(len(p) != 2 for p in pairs):
        raise ValueError(
            f"{op}: when padding is a list, it must be of size {n + 2} ([before, after] for each "
            f"dimension). Received: padding={padding}"
        )
    outer = (pairs[0], pairs[-1]) if channels_last else (pairs[0], pairs[1])
    if any(v != 0 for pair in outer for v in pair):
        raise ValueError(
            f"{op}: padding={pairs} pads the batch or channel dimension; those pairs must be [0, "
            "0]."
        )
    spatial = pairs[1:-1] if channels_last else pairs[2:]
    if any(v < 0 for pair in spatial for v in pair):
        raise ValueError(f"{op}: padding={pairs} has a negative value.")
    return [tuple(p) for p in spatial]


def _to_channels_first(
    x: Tensor, n: int, channels_last: bool, op: str, min_rank: int | None = None
) -> tuple[Tensor, tuple[int, ...]]:
    """`x` as a `[batch, channels, *spatial]` view; extra leading batch dims are flattened
    (returned so the output can be unflattened)."""
    rank = n + 2
    if x.ndim < rank or (min_rank is None and x.ndim != rank):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: input must be {rank}-D "
            f"({_CHANNELS_LAST[n] if channels_last else _CHANNELS_FIRST[n]}), "
            f"got shape {list(x.shape)}.",
        )
    batch = tuple(x.shape[: x.ndim - n - 1])
    if len(batch) != 1:
        x = x.reshape((-1,) + tuple(x.shape[len(batch) :]))
    if channels_last:
        x = x.movedim(-1, 1)
    return x, batch


def _from_channels_first(y: Tensor, batch: tuple[int, ...], channels_last: bool) -> Tensor:
    if channels_last:
        y = y.movedim(1, -1)
    if len(batch) != 1:
        y = y.reshape(batch + tuple(y.shape[1:]))
    return y


def _apply_pads(x: Tensor, pads: list[tuple[int, int]], value: float = 0.0) -> Tensor:
    flat: list[int] = []
    for before, after in reversed(pads):
        flat += [before, after]
    return F.pad(x, flat, value=value)


def _check_output(
    op: str,
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: list[tuple[int, int]],
    input_shape: Any,
    kernel_shape: Any,
) -> None:
    for size, k, s, d, (before, after) in zip(sizes, kernel, strides, dilations, pads):
        if size + before + after - (k - 1) * d - 1 < 0:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: computed output size would be negative: the input of shape "
                f"{list(input_shape)} is "
                f"smaller than the window of shape {list(kernel_shape)} (with padding {pads}).",
            )
        if s < 1:
            raise ValueError(f"{op}: strides must be >= 1, got {list(strides)}.")


_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _conv_operands(input: Any, filters: Any, op: str) -> tuple[Tensor, Tensor]:
    x, w = binary_operands(input, filters, op)
    if not isinstance(w, Tensor):
        w = torch.tensor(w, dtype=x.dtype, device=x.device)
    if x.dtype is torch.bool or x.is_complex():
        raise InvalidArgumentError(
            None, None, f"{op}: dtype {dtype_name(x.dtype)} is not supported."
        )
    if w.device != x.device:
        w = w.to(x.device)
    return x, w


def _conv(
    op: str,
    n: int,
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    dilations: Any,
    depthwise: bool = False,
) -> Tensor:
    x, w = _conv_operands(input, filters, op)
    channels_last = _layout(data_format, n, op)
    if w.ndim != n + 2:
        raise InvalidArgumentError(
            None, None, f"{op}: filters must be {n + 2}-D, got shape {list(w.shape)}."
        )
    xc, batch = _to_channels_first(x, n, channels_last, op, min_rank=n + 2)
    in_channels, sizes = xc.shape[1], tuple(xc.shape[2:])
    kernel = tuple(w.shape[:n])
    strides = _spatial(strides, n, channels_last, op, "strides")
    dilations = _spatial(dilations, n, channels_last, op, "dilations")
    if depthwise:
        if w.shape[n] != in_channels:
            raise shapes_error(
                op,
                x.shape,
                w.shape,
                f"The filter's in_channels ({w.shape[n]}) must equal the input's ({in_channels}).",
            )
        groups = in_channels
        weight = w.reshape(kernel + (1, in_channels * w.shape[n + 1]))
    else:
        if w.shape[n] == 0 or in_channels % w.shape[n]:
            raise shapes_error(
                op,
                x.shape,
                w.shape,
                f"input depth must be evenly divisible by filter depth: {in_channels} vs "
                f"{w.shape[n]}.",
            )
        groups = in_channels // w.shape[n]
        if w.shape[n + 1] % groups:
            raise shapes_error(
                op,
                x.shape,
                w.shape,
                f"The number of filters must be divisible by the groups ({groups}).",
            )
        weight = w
    weight = weight.permute((n + 1, n) + tuple(range(n)))
    pads = _padding(padding, n, channels_last, sizes, kernel, strides, dilations, op)
    _check_output(op, sizes, kernel, strides, dilations, pads, x.shape, w.shape)
    integer = not xc.is_floating_point()
    if (
        integer
    ):  # torch convolves integers only on some devices: exact in float64 for moderate values
        xc, weight = xc.to(torch.float64), weight.to(torch.float64)
    if all(before == after for before, after in pads):
        y = _CONV[n](xc, weight, None, strides, tuple(b for b, _ in pads), dilations, groups)
    else:
        y = _CONV[n](_apply_pads(xc, pads), weight, None, strides, 0, dilations, groups)
    if integer:
        y = y.round().to(x.dtype)
    return _from_channels_first(y, batch, channels_last)


def _pool(
    op: str,
    kind: str,
    n: int | None,
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
) -> Tensor:
    x = _numeric(input, op, "input")
    if n is None:
        n = x.ndim - 2
        if n not in (1, 2, 3):
            raise ValueError(
                f"{op}: input must be 3-D, 4-D or 5-D (rank N+2 for N in 1..3), got shape "
                f"{list(x.shape)}."
            )
        if data_format is not None and data_format not in (_CHANNELS_LAST[n], _CHANNELS_FIRST[n]):
            raise ValueError(
                f"{op}: data_format {data_format!r} does not fit an input of rank {x.ndim}."
            )
    if kind == "avg" and not x.is_floating_point():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: input must be a floating-point tensor ({_FLOATS}), got {dtype_name(x.dtype)}.",
        )
    channels_last = _layout(data_format, n, op)
    xc, batch = _to_channels_first(x, n, channels_last, op)
    sizes = tuple(xc.shape[2:])
    kernel = _spatial(ksize, n, channels_last, op, "ksize")
    strides = _spatial(strides, n, channels_last, op, "strides")
    ones = (1,) * n
    pads = _padding(
        padding, n, channels_last, sizes, kernel, strides, ones, op, explicit_ok=kind == "max"
    )
    _check_output(op, sizes, kernel, strides, ones, pads, x.shape, kernel)
    squeeze = n == 1  # 1-D pools run as 2-D ones (torch has no integer max_pool1d)
    if squeeze:
        xc, kernel, strides, pads, n = (
            xc.unsqueeze(2),
            (1,) + kernel,
            (1,) + strides,
            [(0, 0)] + pads,
            2,
        )
    symmetric = all(
        before == after and before <= k // 2 for (before, after), k in zip(pads, kernel)
    )
    if kind == "max":
        pool = F.max_pool2d if n == 2 else F.max_pool3d
        if symmetric:
            y = pool(xc, kernel, strides, tuple(b for b, _ in pads))
        else:
            low = -math.inf if xc.is_floating_point() else torch.iinfo(xc.dtype).min
            y = pool(_apply_pads(xc, pads, low), kernel, strides)
    else:
        pool = F.avg_pool2d if n == 2 else F.avg_pool3d
        if symmetric:
            y = pool(xc, kernel, strides, tuple(b for b, _ in pads), count_include_pad=False)
        else:  # TF averages over the window's elements inside the input only
            fraction = _window_fraction(tuple(xc.shape[2:]), kernel, strides, pads, xc)
            y = pool(_apply_pads(xc, pads), kernel, strides) * fraction
    if squeeze:
        y = y.squeeze(2)
    return _from_channels_first(y, batch, channels_last)


def _window_fraction(
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    pads: list[tuple[int, int]],
    like: Tensor,
) -> Tensor:
    """`window size / elements of the window inside the input`, per output position."""
    fraction = None
    for dim, (size, k, s, (before, after)) in enumerate(zip(sizes, kernel, strides, pads)):
        out = (size + before + after - k) // s + 1
        start = np.arange(out) * s - before
        inside = np.minimum(start + k, size) - np.maximum(start, 0)
        factor = torch.as_tensor(k / inside, dtype=like.dtype, device=like.device)
        shape = [1] * len(sizes)
        shape[dim] = out
        factor = factor.reshape(shape)
        fraction = factor if fraction is None else fraction * factor
    return fraction


# ----------------------------------------------------------------------------- convolutions


def conv1d(
    input: Any,
    filters: Any,
    stride: Any,
    padding: Any,
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes a 1-D convolution of a 3-D `input` (`NWC`) with `filters`
    `[width, in_channels, out_channels]`.

    Returns:
        A tensor of the same type as `input`, `[batch, out_width, out_channels]` (`NWC`).
    """
    return _conv("conv1d", 1, input, filters, stride, padding, data_format, dilations)


def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes a 2-D convolution of a 4-D `input` (`NHWC`, or `NCHW`) with `filters`
    `[height, width, in_channels, out_channels]` (grouped when `in_channels` is a divisor of the
    input's channels). `strides`/`dilations`: an int, or 2 or 4 ints; `padding`: `'SAME'`,
    `'VALID'` or explicit `[[0, 0], [top, bottom], [left, right], [0, 0]]`.

    Returns:
        A tensor of the same type as `input`.
    """
    return _conv("conv2d", 2, input, filters, strides, padding, data_format, dilations)


def conv3d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes a 3-D convolution of a 5-D `input` (`NDHWC`) with `filters`
    `[depth, height, width, in_channels, out_channels]`.

    Returns:
        A tensor of the same type as `input`.
    """
    return _conv("conv3d", 3, input, filters, strides, padding, data_format, dilations)


def convolution(
    input: Any,
    filters: Any,
    strides: Any = None,
    padding: str = "VALID",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes the sum of N-D convolutions (N = `filters` rank - 2, 1 to 3), as TF's
    `tf.nn.convolution`.

    Returns:
        A tensor of the same type as `input`.
    """
    rank = np.ndim(filters) if not isinstance(filters, Tensor) else filters.ndim
    n = rank - 2
    if n not in (1, 2, 3):
        raise ValueError(f"convolution: filters must be 3-D to 5-D, got rank {rank}.")
    return _conv("convolution", n, input, filters, strides, padding, data_format, dilations)


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Depthwise 2-D convolution: each input channel is convolved with its own
    `channel_multiplier` filters (`filter` is `[height, width, in_channels, channel_multiplier]`);
    output channel `c * channel_multiplier + m` comes from input channel `c`.

    Returns:
        A 4-D tensor with `in_channels * channel_multiplier` channels.
    """
    return _conv(
        "depthwise_conv2d",
        2,
        input,
        filter,
        strides,
        padding,
        data_format,
        dilations,
        depthwise=True,
    )


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """2-D convolution with separable filters: a depthwise convolution followed by a 1x1
    (pointwise) convolution with `pointwise_filter` `[1, 1, channels * multiplier, out_channels]`.

    Returns:
        A 4-D tensor.
    """
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pointwise_filter, 1, "VALID", data_format or "NHWC")


def _conv_transpose(
    op: str,
    n: int,
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    dilations: Any,
) -> Tensor:
    x, w = _conv_operands(input, filters, op)
    channels_last = _layout(data_format, n, op)
    if w.ndim != n + 2:
        raise InvalidArgumentError(
            None, None, f"{op}: filters must be {n + 2}-D, got shape {list(w.shape)}."
        )
    xc, batch = _to_channels_first(x, n, channels_last, op)
    in_sizes = tuple(xc.shape[2:])
    if xc.shape[1] != w.shape[n + 1]:
        raise shapes_error(
            op,
            x.shape,
            w.shape,
            f"The input's channels ({xc.shape[1]}) must equal the filters' last dimension "
            f"({w.shape[n + 1]}).",
        )
    if isinstance(output_shape, (Tensor, np.ndarray)):
        output_shape = output_shape.tolist()
    output_shape = [int(d) for d in output_shape]
    if len(output_shape) == n + 2:
        out_channels = output_shape[-1] if channels_last else output_shape[1]
        out_sizes = tuple(output_shape[1:-1] if channels_last else output_shape[2:])
        if out_channels != w.shape[n]:
            raise shapes_error(
                op,
                output_shape,
                w.shape,
                "output_shape's channels must equal the filters' out_channels.",
            )
    elif len(output_shape) == n:
        out_sizes = tuple(output_shape)
    else:
        raise ValueError(
            f"{op}: output_shape must have {n + 2} (or {n}) elements, got {output_shape}."
        )
    kernel = tuple(w.shape[:n])
    strides = _spatial(strides, n, channels_last, op, "strides")
    dilations = _spatial(dilations, n, channels_last, op, "dilations")
    pads = _padding(padding, n, channels_last, out_sizes, kernel, strides, dilations, op)
    for dim, (size, k, s, d, (before, after)) in enumerate(
        zip(out_sizes, kernel, strides, dilations, pads)
    ):
        expected = (size + before + after - (k - 1) * d - 1) // s + 1
        if expected != in_sizes[dim]:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: the input's spatial size {in_sizes[dim]} (dimension {dim}) does not match "
                f"output_shape {output_shape}: a convolution of that output would give {expected}.",
            )
    weight = w.permute((n + 1, n) + tuple(range(n)))
    integer = not xc.is_floating_point()
    if integer:
        xc, weight = xc.to(torch.float64), weight.to(torch.float64)
    full = _CONV_T[n](xc, weight, None, strides, 0, 0, 1, dilations)
    crop: list[tuple[int, int]] = []
    for dim, (size, (before, _)) in enumerate(zip(out_sizes, pads)):
        crop.append((-before, size + before - full.shape[2 + dim]))
    y = _apply_pads(full, crop) if any(c != (0, 0) for c in crop) else full
    if integer:
        y = y.round().to(x.dtype)
    return _from_channels_first(y, batch, channels_last)


def conv1d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of `conv1d` (the gradient of `conv1d` with respect to its input); `filters`
    is `[width, output_channels, in_channels]`.

    Returns:
        A tensor of `output_shape`.
    """
    return _conv_transpose(
        "conv1d_transpose",
        1,
        input,
        filters,
        output_shape,
        strides,
        padding,
        data_format,
        dilations,
    )


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of `conv2d` (the gradient of `conv2d` with respect to its input), as TF's
    `tf.nn.conv2d_transpose`; `filters` is `[height, width, output_channels, in_channels]` and
    `output_shape` the full 4-D output shape.

    Returns:
        A tensor of `output_shape`, of `input`'s type.
    """
    return _conv_transpose(
        "conv2d_transpose",
        2,
        input,
        filters,
        output_shape,
        strides,
        padding,
        data_format,
        dilations,
    )


def conv3d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of `conv3d`; `filters` is `[depth, height, width, output_channels,
    in_channels]`.

    Returns:
        A tensor of `output_shape`.
    """
    return _conv_transpose(
        "conv3d_transpose",
        3,
        input,
        filters,
        output_shape,
        strides,
        padding,
        data_format,
        dilations,
    )


# ----------------------------------------------------------------------------- pooling


def max_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on an N-D input (rank 3, 4 or 5: `NWC`, `NHWC`, `NDHWC`).

    Returns:
        A tensor of the format specified by `data_format`: the max pooled output.
    """
    return _pool("max_pool", "max", None, input, ksize, strides, padding, data_format)


def avg_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on an N-D input (rank 3, 4 or 5); with `'SAME'` padding each
    window averages only the elements inside the input, as TF.

    Returns:
        A tensor of the format specified by `data_format`: the average pooled output.
    """
    return _pool("avg_pool", "avg", None, input, ksize, strides, padding, data_format)


def max_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on a 3-D input (`NWC`).

    Returns:
        The max pooled output tensor.
    """
    return _pool("max_pool1d", "max", 1, input, ksize, strides, padding, data_format)


def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on a 4-D input (`NHWC`); `ksize`/`strides` are an int or 2 or 4 ints,
    `padding` `'SAME'`, `'VALID'` or explicit pairs.

    Returns:
        The max pooled output tensor.
    """
    return _pool("max_pool2d", "max", 2, input, ksize, strides, padding, data_format)


def max_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on a 5-D input (`NDHWC`).

    Returns:
        The max pooled output tensor.
    """
    return _pool("max_pool3d", "max", 3, input, ksize, strides, padding, data_format)


def avg_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on a 3-D input (`NWC`).

    Returns:
        The average pooled output tensor.
    """
    return _pool("avg_pool1d", "avg", 1, input, ksize, strides, padding, data_format)


def avg_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on a 4-D input (`NHWC`); with `'SAME'` padding each window
    averages only the elements inside the input, as TF.

    Returns:
        The average pooled output tensor.
    """
    return _pool("avg_pool2d", "avg", 2, input, ksize, strides, padding, data_format)


def avg_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on a 5-D input (`NDHWC`).

    Returns:
        The average pooled output tensor.
    """
    return _pool("avg_pool3d", "avg", 3, input, ksize, strides, padding, data_format)


# ----------------------------------------------------------------------------- space/depth


def depth_to_space(
    input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """Rearranges data from depth into blocks of spatial data (TF's `depth_to_space`).

    Returns:
        A tensor `[batch, height * block_size, width * block_size, depth / block_size**2]`.
    """
    op = "depth_to_space"
    x = _tensor(input, op, "input")
    channels_last = _layout(data_format, 2, op)
    xc, batch = _to_channels_first(x, 2, channels_last, op)
    b, c, h, w = xc.shape
    bs = int(block_size)
    if bs < 2 or c % (bs * bs):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: the depth {c} must be divisible by block_size * block_size = {bs * bs} "
            "(block_size >= 2).",
        )
    y = (
        xc.reshape(b, bs, bs, c // (bs * bs), h, w)
        .permute(0, 3, 4, 1, 5, 2)
        .reshape(b, c // (bs * bs), h * bs, w * bs)
    )
    return _from_channels_first(y, batch, channels_last)


def space_to_depth(
    input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """Rearranges blocks of spatial data into depth (TF's `space_to_depth`).

    Returns:
        A tensor `[batch, height / block_size, width / block_size, depth * block_size**2]`.
    """
    op = "space_to_depth"
    x = _tensor(input, op, "input")
    channels_last = _layout(data_format, 2, op)
    xc, batch = _to_channels_first(x, 2, channels_last, op)
    b, c, h, w = xc.shape
    bs = int(block_size)
    if bs < 2 or h % bs or w % bs:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: height {h} and width {w} must be divisible by block_size {bs} (block_size >= "
            "2).",
        )
    y = (
        xc.reshape(b, c, h // bs, bs, w // bs, bs)
        .permute(0, 3, 5, 1, 2, 4)
        .reshape(b, c * bs * bs, h // bs, w // bs)
    )
    return _from_channels_first(y, batch, channels_last)


def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """Returns the fraction of zeros in `value`.

    Returns:
        A float32 scalar tensor.
    """
    value = _tensor(value, "zero_fraction", "value")
    if value.numel() == 0:
        return torch.tensor(math.nan, dtype=torch.float32, device=value.device)
    return (value == 0).sum(dtype=torch.float64).div(value.numel()).to(torch.float32)
