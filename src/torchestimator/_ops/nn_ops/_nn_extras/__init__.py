"""The rest of tf.nn: atrous and N-D transposed convolutions, convolution gradients
(`*_backprop_filter` / `*_backprop_input`), morphological dilation and erosion,
`max_pool_with_argmax`, N-D `pool`, fractional pooling, `isotonic_regression`,
`space_to_batch` / `with_space_to_batch`, `batch_norm_with_global_normalization`,
`safe_embedding_lookup_sparse` and `tf.nn.experimental`'s dropouts, as TF 2.15's.
"""

from torchestimator._ops.math_ops._scans import approx_max_k, approx_min_k  # noqa: F401 (tf.nn's)
from torchestimator._ops.nn_ops._nn_extras._conv import (  # noqa: F401
    atrous_conv2d,
    atrous_conv2d_transpose,
    conv2d_backprop_filter,
    conv3d_backprop_filter,
    conv3d_backprop_filter_v2,
    conv_transpose,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
)
from torchestimator._ops.nn_ops._nn_extras._misc import (  # noqa: F401
    batch_norm_with_global_normalization,
    general_dropout,
    isotonic_regression,
    safe_embedding_lookup_sparse,
    safe_embedding_lookup_sparse_v1,
    space_to_batch,
    space_to_batch_v1,
    stateless_dropout,
    with_space_to_batch,
)
from torchestimator._ops.nn_ops._nn_extras._pool import (  # noqa: F401
    dilation2d,
    dilation2d_v1,
    erosion2d,
    erosion2d_v1,
    fractional_avg_pool,
    fractional_avg_pool_v1,
    fractional_max_pool,
    fractional_max_pool_v1,
    max_pool_with_argmax,
    max_pool_with_argmax_v1,
    pool,
    pool_v1,
)
