"""`tf.compat.v1.nn`: `tf.nn` with TF 1.x's signatures.

TF1 names its arguments differently from TF2 (`dropout(x, keep_prob)`, `conv2d(input, filter)`,
`max_pool(value, ksize, ...)`, `softmax(logits, dim)`, `moments(x, axes, keep_dims=...)`,
`in_top_k(predictions, targets, k)`); each function here takes TF1's arguments and calls the
project's `tf.nn`. Every other `tf.nn` name is the same function (`tf.compat.v1.nn.relu` is
`tf.nn.relu`). Returns what TF1's function returns.
"""

from __future__ import annotations

from typing import Any

import torch

import torchestimator as tf
from torchestimator._ops import ctc_ops
from torchestimator._ops.nn_ops import _losses
from torchestimator._ops.nn_ops._nn_extras import (  # noqa: F401 (TF1's spellings, issue 32)
    conv2d_backprop_filter,
    conv3d_backprop_filter,
    conv3d_backprop_filter_v2,
)
from torchestimator._ops.nn_ops._nn_extras import (  # noqa: F401
    depthwise_conv2d_backprop_filter as depthwise_conv2d_native_backprop_filter,
)
from torchestimator._ops.nn_ops._nn_extras import (  # noqa: F401
    depthwise_conv2d_backprop_input as depthwise_conv2d_native_backprop_input,
)
from torchestimator._ops.nn_ops._nn_extras import dilation2d_v1 as dilation2d  # noqa: F401
from torchestimator._ops.nn_ops._nn_extras import erosion2d_v1 as erosion2d  # noqa: F401
from torchestimator._ops.nn_ops._nn_extras import (  # noqa: F401
    fractional_avg_pool_v1 as fractional_avg_pool,
)
from torchestimator._ops.nn_ops._nn_extras import (  # noqa: F401
    fractional_max_pool_v1 as fractional_max_pool,
)
from torchestimator._ops.nn_ops._nn_extras import (  # noqa: F401
    max_pool_with_argmax_v1 as max_pool_with_argmax,
)
from torchestimator._ops.nn_ops._nn_extras import pool_v1 as _pool_v1
from torchestimator._ops.nn_ops._nn_extras import (  # noqa: F401
    safe_embedding_lookup_sparse_v1 as safe_embedding_lookup_sparse,
)
from torchestimator._ops.nn_ops._nn_extras import space_to_batch_v1 as space_to_batch  # noqa: F401
from torchestimator._ops.nn_ops._quantized import (  # noqa: F401
    quantized_avg_pool,
    quantized_conv2d,
    quantized_max_pool,
    quantized_relu_x,
)
from torchestimator.compat.v1 import _nn_rnn_cell as rnn_cell  # noqa: F401 (tf.compat.v1.nn.rnn_cell)
from torchestimator.compat.v1._legacy_ops import _deprecated
from torchestimator.compat.v1._rnn import (  # noqa: F401 (TF1's RNN drivers)
    bidirectional_dynamic_rnn,
    dynamic_rnn,
    raw_rnn,
    static_bidirectional_rnn,
    static_rnn,
    static_state_saving_rnn,
)

pool = _pool_v1  # TF1's pool(input, window_shape, pooling_type, padding, dilation_rate, ...)

def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: Any = None,
            name: str | None = None, rate: Any = None) -> Any:
    """TF1's `dropout(x, keep_prob, ...)`: drops with probability `1 - keep_prob` (or `rate`)
    and scales the kept values by `1 / keep_prob`."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
        if not isinstance(keep_prob, torch.Tensor) and not 0 < float(keep_prob) <= 1:
            raise ValueError(f"keep_prob must be a scalar tensor or a float in the range (0, 1], got {keep_prob}")
        rate = 1 - keep_prob
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return tf.nn.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)


def _pool(fn: Any, label: str) -> Any:
    def pool(value: Any = None, ksize: Any = None, strides: Any = None, padding: Any = None,
             data_format: str = "NHWC", name: str | None = None, input: Any = None) -> Any:  # noqa: A002
        value = _deprecated(input, value, "input", "value")
        return fn(value, ksize, strides, padding, data_format=data_format)

    pool.__name__ = label
    pool.__doc__ = f"TF1's `{label}(value, ksize, strides, padding, data_format, name, input)`."
    return pool


avg_pool = _pool(tf.nn.avg_pool, "avg_pool")
avg_pool2d = _pool(tf.nn.avg_pool2d, "avg_pool2d")
max_pool = _pool(tf.nn.max_pool, "max_pool")


def avg_pool_v2(input: Any, ksize: Any, strides: Any, padding: Any, data_format: Any = None,  # noqa: A002
                name: str | None = None) -> Any:
    """TF1's name of TF2's `tf.nn.avg_pool`."""
    return tf.nn.avg_pool(input, ksize, strides, padding, data_format=data_format)


def max_pool_v2(input: Any, ksize: Any, strides: Any, padding: Any, data_format: Any = None,  # noqa: A002
                name: str | None = None) -> Any:
    """TF1's name of TF2's `tf.nn.max_pool`."""
    return tf.nn.max_pool(input, ksize, strides, padding, data_format=data_format)


def conv1d(value: Any = None, filters: Any = None, stride: Any = None, padding: Any = None,
           use_cudnn_on_gpu: Any = None, data_format: Any = None, name: str | None = None,
           input: Any = None, dilations: Any = None) -> Any:  # noqa: A002
    """TF1's `conv1d(value, filters, stride, padding, ...)`."""
    value = _deprecated(input, value, "input", "value")
    return tf.nn.conv1d(value, filters, stride, padding, data_format=data_format, dilations=dilations)


def conv2d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,  # noqa: A002
           use_cudnn_on_gpu: bool = True, data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
           name: str | None = None, filters: Any = None) -> Any:
    """TF1's `conv2d(input, filter, strides, padding, ...)`."""
    filters = _deprecated(filters, filter, "filters", "filter")
    return tf.nn.conv2d(input, filters, strides, padding, data_format=data_format, dilations=dilations)


def conv3d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,  # noqa: A002
           data_format: str = "NDHWC", dilations: Any = (1, 1, 1, 1, 1), name: str | None = None,
           filters: Any = None) -> Any:
    """TF1's `conv3d(input, filter, strides, padding, ...)`."""
    filters = _deprecated(filters, filter, "filters", "filter")
    return tf.nn.conv3d(input, filters, strides, padding, data_format=data_format, dilations=dilations)


def conv2d_transpose(value: Any = None, filter: Any = None, output_shape: Any = None,  # noqa: A002
                     strides: Any = None, padding: str = "SAME", data_format: str = "NHWC",
                     name: str | None = None, input: Any = None, filters: Any = None,  # noqa: A002
                     dilations: Any = None) -> Any:
    """TF1's `conv2d_transpose(value, filter, output_shape, strides, ...)`."""
    value = _deprecated(input, value, "input", "value")
    filters = _deprecated(filters, filter, "filters", "filter")
    return tf.nn.conv2d_transpose(value, filters, output_shape, strides, padding=padding,
                                  data_format=data_format, dilations=dilations)


def conv3d_transpose(value: Any = None, filter: Any = None, output_shape: Any = None,  # noqa: A002
                     strides: Any = None, padding: str = "SAME", data_format: str = "NDHWC",
                     name: str | None = None, input: Any = None, filters: Any = None,  # noqa: A002
                     dilations: Any = None) -> Any:
    """TF1's `conv3d_transpose(value, filter, output_shape, strides, ...)`."""
    value = _deprecated(input, value, "input", "value")
    filters = _deprecated(filters, filter, "filters", "filter")
    return tf.nn.conv3d_transpose(value, filters, output_shape, strides, padding=padding,
                                  data_format=data_format, dilations=dilations)


def convolution(input: Any, filter: Any = None, padding: Any = None, strides: Any = None,  # noqa: A002
                dilation_rate: Any = None, name: str | None = None, data_format: Any = None,
                filters: Any = None, dilations: Any = None) -> Any:
    """TF1's `convolution(input, filter, padding, strides, dilation_rate, ...)`."""
    filters = _deprecated(filters, filter, "filters", "filter")
    dilations = _deprecated(dilations, dilation_rate, "dilations", "dilation_rate")
    return tf.nn.convolution(input, filters, strides=strides, padding=padding,
                             data_format=data_format, dilations=dilations)


def atrous_conv2d(value: Any, filters: Any, rate: int, padding: str, name: str | None = None) -> Any:
    """Atrous (dilated) 2-D convolution: `conv2d` with `dilations=rate` (NHWC)."""
    return tf.nn.conv2d(value, filters, 1, padding, dilations=rate)


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any, rate: Any = None,  # noqa: A002
                     name: str | None = None, data_format: Any = None, dilations: Any = None) -> Any:
    """TF1's `depthwise_conv2d(input, filter, strides, padding, rate, ...)`."""
    dilations = _deprecated(dilations, rate, "dilations", "rate")
    return tf.nn.depthwise_conv2d(input, filter, strides, padding, data_format=data_format,
                                  dilations=dilations)


def depthwise_conv2d_native(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                            data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
                            name: str | None = None) -> Any:
    """TF1's `depthwise_conv2d_native`: `depthwise_conv2d`."""
    return tf.nn.depthwise_conv2d(input, filter, strides, padding, data_format=data_format,
                                  dilations=dilations)


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,  # noqa: A002
                     padding: Any, rate: Any = None, name: str | None = None, data_format: Any = None,
                     dilations: Any = None) -> Any:
    """TF1's `separable_conv2d(..., rate, ...)`."""
    dilations = _deprecated(dilations, rate, "dilations", "rate")
    return tf.nn.separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
                                  data_format=data_format, dilations=dilations)


def softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Any:
    """TF1's `softmax(logits, axis, name, dim)`."""
    axis = _deprecated(axis, dim, "axis", "dim")
    return tf.nn.softmax(logits, axis=-1 if axis is None else axis)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Any:
    """TF1's `log_softmax(logits, axis, name, dim)`."""
    axis = _deprecated(axis, dim, "axis", "dim")
    return tf.nn.log_softmax(logits, axis=-1 if axis is None else axis)


def softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None, dim: int = -1,
                                      name: str | None = None, axis: Any = None) -> Any:
    """TF1's `softmax_cross_entropy_with_logits` (labels get no gradient, as TF1's)."""
    axis = _deprecated(axis, dim, "axis", "dim")
    labels = tf.stop_gradient(tf.convert_to_tensor(labels))
    return tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, axis=axis)


def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: Any = None,
                                         name: str | None = None, dim: Any = None) -> Any:
    """TF1's name of TF2's `softmax_cross_entropy_with_logits` (gradients reach the labels)."""
    axis = _deprecated(axis, dim, "axis", "dim")
    return tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                    axis=-1 if axis is None else axis)


def weighted_cross_entropy_with_logits(labels: Any = None, logits: Any = None, pos_weight: Any = None,
                                       name: str | None = None, targets: Any = None) -> Any:
    """TF1's `weighted_cross_entropy_with_logits(..., targets)`."""
    labels = _deprecated(labels, targets, "labels", "targets")
    return tf.nn.weighted_cross_entropy_with_logits(labels, logits, pos_weight)


def moments(x: Any, axes: Any, shift: Any = None, name: str | None = None, keep_dims: Any = None,
            keepdims: Any = None) -> Any:
    """TF1's `moments(x, axes, shift, name, keep_dims)`: `(mean, variance)`."""
    keepdims = bool(_deprecated(keepdims, keep_dims, "keepdims", "keep_dims") or False)
    return tf.nn.moments(x, axes, shift=shift, keepdims=keepdims)


def sufficient_statistics(x: Any, axes: Any, shift: Any = None, keep_dims: Any = None,
                          name: str | None = None, keepdims: Any = None) -> Any:
    """TF1's `sufficient_statistics(..., keep_dims)`."""
    keepdims = bool(_deprecated(keepdims, keep_dims, "keepdims", "keep_dims") or False)
    return tf.nn.sufficient_statistics(x, axes, shift=shift, keepdims=keepdims)


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, name: str | None = None,
                     keep_dims: Any = None, keepdims: Any = None) -> Any:
    """TF1's `weighted_moments(..., keep_dims)`."""
    keepdims = bool(_deprecated(keepdims, keep_dims, "keepdims", "keep_dims") or False)
    return tf.nn.weighted_moments(x, axes, frequency_weights, keepdims=keepdims)


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Any:
    """TF1's `in_top_k(predictions, targets, k)` (TF2 takes targets first)."""
    return tf.nn.in_top_k(targets, predictions, k)


def softplus(features: Any, name: str | None = None) -> Any:
    """TF1's `softplus(features)`."""
    return tf.nn.softplus(features)


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod", name: str | None = None,
                     validate_indices: bool = True, max_norm: Any = None) -> Any:
    """TF1's `embedding_lookup(params, ids, partition_strategy, ...)` (one shard, or a list of
    shards split by TF's `partition_strategy` 'mod' / 'div')."""
    if isinstance(params, (list, tuple)) and len(params) > 1:
        params = _merge_shards(list(params), partition_strategy)
    elif isinstance(params, (list, tuple)):
        params = params[0]
    return tf.nn.embedding_lookup(params, ids, max_norm=max_norm)


def _merge_shards(shards: list, strategy: str) -> torch.Tensor:
    """The full table of `shards` split by TF's 'mod' (row i in shard i % n) or 'div'
    (contiguous blocks) strategy."""
    shards = [tf.convert_to_tensor(s) for s in shards]
    if strategy == "div":
        return torch.cat(shards, dim=0)
    if strategy != "mod":
        raise ValueError(f"Unrecognized partition strategy: {strategy}")
    rows = sum(s.shape[0] for s in shards)
    table = shards[0].new_empty((rows, *shards[0].shape[1:]))
    for index, shard in enumerate(shards):
        table[index::len(shards)] = shard
    return table


def embedding_lookup_sparse(params: Any, sp_ids: Any, sp_weights: Any, partition_strategy: str = "mod",
                            name: str | None = None, combiner: Any = None, max_norm: Any = None,
                            allow_fast_lookup: bool = False) -> Any:
    """TF1's `embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy, ...)`."""
    if isinstance(params, (list, tuple)) and len(params) > 1:
        params = _merge_shards(list(params), partition_strategy)
    elif isinstance(params, (list, tuple)):
        params = params[0]
    return tf.nn.embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=combiner,
                                         max_norm=max_norm)


def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Any:
    """`matmul(x, weights) + biases`."""
    return tf.nn.bias_add(tf.matmul(x, weights), biases)


def relu_layer(x: Any, weights: Any, biases: Any, name: str | None = None) -> Any:
    """`relu(matmul(x, weights) + biases)`."""
    return tf.nn.relu(xw_plus_b(x, weights, biases))


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC", is_training: bool = True,
                     name: str | None = None, exponential_avg_factor: float = 1.0) -> tuple:
    """Batch normalization of a 4-D (or 5-D) input, as TF1's `fused_batch_norm`: returns
    `(y, batch_mean, batch_variance)`; training normalizes by the batch's statistics (the
    returned variance is the unbiased one, as TF's), inference by `mean` / `variance`."""
    x = tf.convert_to_tensor(x)
    channels_last = data_format.endswith("C")
    axes = tuple(range(x.dim() - 1)) if channels_last else (0, *range(2, x.dim()))
    shape = [1] * x.dim()
    shape[-1 if channels_last else 1] = -1
    compute = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    if is_training:
        batch_mean = compute.mean(dim=axes)
        batch_var = compute.var(dim=axes, unbiased=False)
        count = compute.numel() / batch_mean.numel()
        use_mean, use_var = batch_mean, batch_var
        reported_var = batch_var * count / max(count - 1, 1)
        if exponential_avg_factor != 1.0 and mean is not None and variance is not None:
            f = exponential_avg_factor
            batch_mean = (1 - f) * _on(mean, x) + f * batch_mean
            reported_var = (1 - f) * _on(variance, x) + f * reported_var
    else:
        if mean is None or variance is None:
            raise ValueError("fused_batch_norm(is_training=False) needs `mean` and `variance`.")
        use_mean, use_var = _on(mean, x), _on(variance, x)
        batch_mean, reported_var = use_mean, use_var
    y = (compute - use_mean.reshape(shape)) * torch.rsqrt(use_var.reshape(shape) + epsilon)
    y = y * _on(scale, x).reshape(shape) + _on(offset, x).reshape(shape)
    return y.to(x.dtype), batch_mean, reported_var


def _on(value: Any, like: torch.Tensor) -> torch.Tensor:
    """`value` as a tensor on `like`'s device (a numpy scale or mean beside a GPU batch)."""
    return tf.convert_to_tensor(value).to(like.device)


def batch_norm_with_global_normalization(t: Any = None, m: Any = None, v: Any = None, beta: Any = None,
                                         gamma: Any = None, variance_epsilon: Any = None,
                                         scale_after_normalization: Any = None, name: str | None = None,
                                         input: Any = None, mean: Any = None,  # noqa: A002
                                         variance: Any = None) -> Any:
    """TF1's batch normalization with global (moving) statistics:
    `(t - m) / sqrt(v + epsilon) * gamma + beta` (`gamma` only with
    `scale_after_normalization`)."""
    t = _deprecated(input, t, "input", "t")
    m = _deprecated(mean, m, "mean", "m")
    v = _deprecated(variance, v, "variance", "v")
    return tf.nn.batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                                     variance_epsilon)


def conv2d_backprop_input(input_sizes: Any, filter: Any = None, out_backprop: Any = None,  # noqa: A002
                          strides: Any = None, padding: Any = None, use_cudnn_on_gpu: bool = True,
                          data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
                          name: str | None = None, filters: Any = None) -> Any:
    """The gradient of `conv2d` with respect to its input: `conv2d_transpose` of
    `out_backprop` to `input_sizes`."""
    filters = _deprecated(filters, filter, "filters", "filter")
    return tf.nn.conv2d_transpose(out_backprop, filters, input_sizes, strides, padding=padding,
                                  data_format=data_format, dilations=dilations)


def ctc_loss(labels: Any, inputs: Any = None, sequence_length: Any = None, preprocess_collapse_repeated: bool = False,
             ctc_merge_repeated: bool = True, ignore_longer_outputs_than_inputs: bool = False,
             time_major: bool = True, logits: Any = None) -> Any:
    """TF 1's CTC loss: `labels` a `SparseTensor` of int32 ids, `inputs` (or `logits`) the
    unnormalized logits [max_time, batch, classes] (batch-major with `time_major=False`), the
    last class the blank. Returns the negative log probabilities [batch]."""

    inputs = _deprecated(inputs, logits, "inputs", "logits")
    if not isinstance(labels, tf.SparseTensor):
        raise TypeError("Expected labels (first argument) to be a SparseTensor")
    if not ctc_merge_repeated:
        raise ValueError("tf.compat.v1.nn.ctc_loss(ctc_merge_repeated=False) (a non-standard CTC that keeps every "
                         "repeated label as its own class) is not available; keep the default True.")
    dense, lengths = ctc_ops._dense_labels(labels, None)
    if preprocess_collapse_repeated:
        paths = [ctc_ops.collapse(row[: int(n)], None) for row, n in zip(dense.tolist(), lengths.tolist())]
        dense, lengths = ctc_ops._dense_labels(ctc_ops._sparse_paths(paths), None)
    x = tf.convert_to_tensor(inputs)
    if not time_major:
        x = x.transpose(0, 1)
    loss = ctc_ops.ctc_loss(dense, x, lengths, sequence_length, blank_index=-1)
    if ignore_longer_outputs_than_inputs:
        too_long = lengths.to(loss.device) > tf.convert_to_tensor(sequence_length).reshape(-1).to(loss.device)
        loss = torch.where(too_long, torch.zeros_like(loss), loss)
    return loss


def ctc_loss_v2(labels: Any, logits: Any, label_length: Any, logit_length: Any, logits_time_major: bool = True,
                unique: Any = None, blank_index: int | None = None, name: str | None = None) -> Any:
    """TF 2's `tf.nn.ctc_loss` under its TF 1 name."""
    return tf.nn.ctc_loss(labels, logits, label_length, logit_length, logits_time_major, unique, blank_index)


def ctc_beam_search_decoder(inputs: Any, sequence_length: Any, beam_width: int = 100, top_paths: int = 1,
                            merge_repeated: bool = True) -> Any:
    """TF 1's beam search decoder: as `tf.nn.ctc_beam_search_decoder`, with consecutive repeated
    labels of each path merged when `merge_repeated` (TF 1's default)."""

    decoded, log_probs = ctc_ops.ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths)
    if not merge_repeated:
        return decoded, log_probs
    merged = []
    for sparse in decoded:
        dense, lengths = ctc_ops._dense_labels(sparse, None)
        paths = [ctc_ops.collapse(row[: int(n)], None) for row, n in zip(dense.tolist(), lengths.tolist())]
        merged.append(ctc_ops._sparse_paths(paths))
    return merged, log_probs


def ctc_beam_search_decoder_v2(inputs: Any, sequence_length: Any, beam_width: int = 100, top_paths: int = 1) -> Any:
    """TF 2's `tf.nn.ctc_beam_search_decoder` under its TF 1 name."""
    return tf.nn.ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths)


def crelu(features: Any, name: str | None = None, axis: int = -1) -> Any:
    """TF1's `crelu(features, name, axis)`: relu of `features` and of `-features`, concatenated
    along `axis`."""
    return tf.nn.crelu(features, axis=axis)


def depth_to_space(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Any:
    """TF1's `depth_to_space(input, block_size, name, data_format)`."""
    return tf.nn.depth_to_space(input, block_size, data_format=data_format)


def space_to_depth(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Any:
    """TF1's `space_to_depth(input, block_size, name, data_format)`."""
    return tf.nn.space_to_depth(input, block_size, data_format=data_format)


def sparse_softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                             name: str | None = None) -> Any:
    """TF1's `sparse_softmax_cross_entropy_with_logits(labels=..., logits=...)` (both required,
    by keyword in TF1's code)."""
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided for "
                         f"sparse_softmax_cross_entropy_with_logitsReceived: labels={labels} and "
                         f"logits={logits}")
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
             num_classes: int, num_true: int = 1, sampled_values: Any = None,
             remove_accidental_hits: bool = False, partition_strategy: str = "mod",
             name: str = "nce_loss") -> Any:
    """TF1's `nce_loss(..., remove_accidental_hits, partition_strategy, name)`: TF2's
    `tf.nn.nce_loss`, with a list of `weights` (and `biases`) shards partitioned by
    `partition_strategy`: 'mod' (TF1's default: id `i` in shard `i % len(shards)`) or 'div'
    (contiguous blocks, TF2's)."""
    return _losses._nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                             sampled_values, remove_accidental_hits, partition_strategy)


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
                         num_classes: int, num_true: int = 1, sampled_values: Any = None,
                         remove_accidental_hits: bool = True, partition_strategy: str = "mod",
                         name: str = "sampled_softmax_loss", seed: Any = None) -> Any:
    """TF1's `sampled_softmax_loss(..., remove_accidental_hits, partition_strategy, name,
    seed)`: TF2's `tf.nn.sampled_softmax_loss`, with shards of `weights` (and `biases`)
    partitioned by `partition_strategy` ('mod', TF1's default, or 'div'; see `nce_loss`)."""
    return _losses._sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                                         num_true, sampled_values, remove_accidental_hits, seed,
                                         partition_strategy)


def __getattr__(name: str) -> Any:
    if name.startswith("_"):
        raise AttributeError(name)
    value = getattr(tf.nn, name, None)
    if value is None:
        raise AttributeError(f"module 'torchestimator.compat.v1.nn' has no attribute {name!r}")
    globals()[name] = value
    return value
