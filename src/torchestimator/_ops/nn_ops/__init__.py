"""tf.nn: activations, losses, convolutions and pooling in TF's NHWC layout, over torch.

Convolutions and pooling take TF's layouts (`NHWC` by default, `NCHW` on request) and TF's
padding: `'VALID'`, `'SAME'` (output size `ceil(input / stride)`, the padding split with the
extra element at the end, as TF does) or an explicit list of `[before, after]` pairs. Filters
are TF's `[height, width, in_channels, out_channels]`. Channels-last inputs are handed to torch
as channels-last views (no copy).
"""

from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.nn_ops._activations import (
    _softmax_args,
    crelu,
    dropout,
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    relu6,
    selu,
    silu,
    softmax,
    softsign,
    swish,
)
from torchestimator._ops.nn_ops._common import _FLOATS, Tensor, _floating, _like, _numeric, _tensor
from torchestimator._ops.nn_ops._convolution import (
    _conv,
    _conv_transpose,
    conv1d,
    conv1d_transpose,
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    convolution,
    depthwise_conv2d,
    separable_conv2d,
)
from torchestimator._ops.nn_ops._data_format import (
    _CHANNELS_FIRST,
    _CHANNELS_LAST,
    _CONV,
    _CONV_T,
    _apply_pads,
    _check_output,
    _conv_operands,
    _from_channels_first,
    _layout,
    _padding,
    _spatial,
    _to_channels_first,
    bias_add,
    depth_to_space,
    space_to_depth,
)
from torchestimator._ops.nn_ops._embedding import (
    _clip_rows,
    _div_partition,
    _gather_rows,
    _ids,
    _sparse_parts,
    embedding_lookup,
    embedding_lookup_sparse,
)
from torchestimator._ops.nn_ops._losses import (
    _same_shape,
    compute_average_loss,
    l2_loss,
    log_poisson_loss,
    nce_loss,
    sampled_softmax_loss,
    scale_regularization_loss,
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
    weighted_cross_entropy_with_logits,
)
from torchestimator._ops.nn_ops._normalization import (
    _stat,
    batch_normalization,
    local_response_normalization,
    lrn,
    moments,
    normalize_moments,
    sufficient_statistics,
    weighted_moments,
    zero_fraction,
)
from torchestimator._ops.nn_ops._pooling import (
    _pool,
    _window_fraction,
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool,
    max_pool1d,
    max_pool2d,
    max_pool3d,
)

__all__: list[str] = []  # tf.nn's ops are not at TF's top level; tf.nn imports them by name


_keep_home(globals(), __name__)
