"""`tf.nn`: TensorFlow's neural-network ops over torch.

Convolutions and pooling take TF's layouts (`NHWC` by default) and padding rules (`'SAME'` pads
more at the end when the total is odd); see `torchestimator._ops.nn_ops`. `nce_loss` and
`sampled_softmax_loss` sample their negatives with the candidate samplers.
"""

from torchestimator._ops.candidate_sampling_ops import (
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from torchestimator._ops.ctc_ops import (
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_unique_labels,
)
from torchestimator._ops.linalg_ops import l2_normalize
from torchestimator._ops.math_ops import in_top_k, sigmoid, softplus, tanh, top_k
from torchestimator._ops.nn_ops import (
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    batch_normalization,
    bias_add,
    compute_average_loss,
    conv1d,
    conv1d_transpose,
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    convolution,
    crelu,
    depth_to_space,
    depthwise_conv2d,
    dropout,
    elu,
    embedding_lookup,
    embedding_lookup_sparse,
    gelu,
    l2_loss,
    leaky_relu,
    local_response_normalization,
    log_poisson_loss,
    log_softmax,
    lrn,
    max_pool,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    moments,
    nce_loss,
    normalize_moments,
    relu,
    relu6,
    sampled_softmax_loss,
    scale_regularization_loss,
    selu,
    separable_conv2d,
    sigmoid_cross_entropy_with_logits,
    silu,
    softmax,
    softmax_cross_entropy_with_logits,
    softsign,
    space_to_depth,
    sparse_softmax_cross_entropy_with_logits,
    sufficient_statistics,
    swish,
    weighted_cross_entropy_with_logits,
    weighted_moments,
    zero_fraction,
)
from torchestimator._ops.nn_ops._nn_extras import (
    approx_max_k,
    approx_min_k,
    atrous_conv2d,
    atrous_conv2d_transpose,
    batch_norm_with_global_normalization,
    conv_transpose,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
    dilation2d,
    erosion2d,
    fractional_avg_pool,
    fractional_max_pool,
    isotonic_regression,
    max_pool_with_argmax,
    pool,
    safe_embedding_lookup_sparse,
    space_to_batch,
    with_space_to_batch,
)

# Keras 2.15's RNN cell wrappers (tf.nn.RNNCell*Wrapper), loaded on first use (they are Keras
# layers: importing tf.nn does not import Keras).
_RNN_CELL_WRAPPERS = {"RNNCellDeviceWrapper": "DeviceWrapper",
                      "RNNCellDropoutWrapper": "DropoutWrapper",
                      "RNNCellResidualWrapper": "ResidualWrapper"}


def __getattr__(name: str):
    if name in _RNN_CELL_WRAPPERS:
        from torchestimator.keras.layers.rnn import (  # lazy: heavy (torchestimator.keras.layers.rnn, 2573 ms)
            _cell_wrappers,
        )

        value = getattr(_cell_wrappers, _RNN_CELL_WRAPPERS[name])
        globals()[name] = value
        return value
    raise AttributeError(f"module 'torchestimator.nn' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(list(globals()) + list(_RNN_CELL_WRAPPERS))


# Last: tf.nn ops given symbolic Keras tensors record TFOpLambda layers (_ops/symbolic_dispatch.py)
from torchestimator._ops.symbolic_dispatch import wrap_namespace as _wrap_namespace  # noqa: E402

_wrap_namespace(globals(), "nn")
from torchestimator.nn import experimental  # noqa: E402 (tf.nn.experimental)
