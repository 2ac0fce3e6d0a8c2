"""Tensor creation, shapes and dtypes: tf.zeros, tf.range, tf.shape, tf.cast, TensorShape, ... (TF names over torch).

Creation ops follow TF 2.15's dtype defaults: `tf.zeros`/`tf.ones`/`tf.eye`
make float32; `tf.fill` and `tf.range` infer from their values (int32 for
Python ints, float32 for Python floats); `tf.shape`/`tf.size`/`tf.rank`
return int32 tensors (on the host, as TF's shape tensors). A "tensor" is a
`torch.Tensor`; string values are numpy object arrays of `str`.
"""

from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.creation._casts import (
    cast,
    complex,
    identity,
    identity_n,
    saturate_cast,
    stop_gradient,
)
from torchestimator._ops.creation._common import _SHAPE_TYPES, _STRING, Tensor, _int_dtype
from torchestimator._ops.creation._constructors import (
    _NP_OF,
    _RANGE_ORDER,
    _range_arg,
    eye,
    fill,
    linspace,
    ones,
    ones_like,
    range,
    zeros,
    zeros_like,
)
from torchestimator._ops.creation._shape_ops import (
    _shape_of,
    broadcast_dynamic_shape,
    broadcast_static_shape,
    ensure_shape,
    get_static_value,
    is_tensor,
    rank,
    shape,
    shape_n,
    size,
)
from torchestimator._ops.creation._tensor_shape import (
    Dimension,
    DType,
    TensorShape,
    _dim_value,
    _DTypeMeta,
    _shape_arg,
    as_shape,
)

__all__ = [
    "DType",
    "TensorShape",
    "broadcast_dynamic_shape",
    "broadcast_static_shape",
    "cast",
    "complex",
    "ensure_shape",
    "eye",
    "fill",
    "get_static_value",
    "identity",
    "identity_n",
    "is_tensor",
    "linspace",
    "ones",
    "ones_like",
    "range",
    "rank",
    "saturate_cast",
    "shape",
    "shape_n",
    "size",
    "stop_gradient",
    "zeros",
    "zeros_like",
]


_keep_home(globals(), __name__)
