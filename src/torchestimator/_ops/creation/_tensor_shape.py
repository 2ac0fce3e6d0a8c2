"""TF's tf.DType, tf.compat.v1.Dimension, tf.TensorShape, as_shape, and the fully defined shape
arguments of the creation ops: defined in the low-level `torchestimator._tensor_shape` (which
`_type_spec` and `_ragged` use too) and re-exported here for the ops modules."""

from torchestimator._tensor_shape import (  # noqa: F401 - re-exported (old import path)
    Dimension,
    DType,
    TensorShape,
    _dim_value,
    _DTypeMeta,
    _shape_arg,
    as_shape,
)
