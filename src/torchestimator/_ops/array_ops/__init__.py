"""Shape and indexing ops: tf.reshape, tf.concat, tf.gather, tf.where, tf.pad, ... over torch.

Every op takes tensors (or anything `tf.convert_to_tensor` accepts) and returns
`torch.Tensor`s, with TensorFlow 2.15's argument names, defaults and errors:
bad shapes raise `tf.errors.InvalidArgumentError` naming both shapes, out-of-range
indices raise it as TF does on CPU (TF never wraps negative indices). Index
outputs are int32 where TF's are (`argsort`, `unique`'s `idx`), int64 where TF's
are (`tf.where(condition)`).

Strings are numpy object arrays (the design's rule). The pure indexing ops
(`reshape`, `transpose`, `concat`, `stack`, `unstack`, `split`, `squeeze`,
`expand_dims`, `tile`, `repeat`, `gather`, `gather_nd`, `boolean_mask`,
`reverse`, `slice`, `strided_slice`, `broadcast_to`, `unique`, and `where`
with string branches) accept them too: they run on a tensor of element
positions and pick the strings with it.

Strided slicing with `[]` is torch's own indexing: `x[1:, ::2]`,
`x[..., tf.newaxis]` (`tf.newaxis` is None) work as in TF.
"""

from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.array_ops._clip import (
    _float_tensor,
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    global_norm,
)
from torchestimator._ops.array_ops._common import (
    _INDEX_DTYPES,
    _REVERSED,
    Tensor,
    _check_indices,
    _index_tensor,
    _int,
    _int_list,
    _like,
    _numeric,
    _positions,
    _pyslice,
    _shape,
    _strings,
    _strings_many,
)
from torchestimator._ops.array_ops._encoding import one_hot, sequence_mask, unravel_index
from torchestimator._ops.array_ops._indexing import (
    _is_strings,
    _linear_nd,
    boolean_mask,
    gather,
    gather_nd,
    where,
)
from torchestimator._ops.array_ops._scatter_nd import (
    _scatter,
    _scatter_parts,
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
)
from torchestimator._ops.array_ops._shape_ops import (
    _like_or_strings,
    _tensor_list,
    broadcast_to,
    concat,
    expand_dims,
    meshgrid,
    repeat,
    reshape,
    split,
    squeeze,
    stack,
    tile,
    transpose,
    unstack,
)
from torchestimator._ops.array_ops._slicing import (
    _fill_value,
    _paddings,
    pad,
    reverse,
    reverse_sequence,
    roll,
    slice,
    strided_slice,
)
from torchestimator._ops.array_ops._sort import (
    Unique,
    UniqueWithCounts,
    _direction,
    _unique,
    argsort,
    searchsorted,
    sort,
    unique,
    unique_with_counts,
)

__all__ = [
    "argsort",
    "boolean_mask",
    "broadcast_to",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "concat",
    "expand_dims",
    "gather",
    "gather_nd",
    "meshgrid",
    "one_hot",
    "pad",
    "repeat",
    "reshape",
    "reverse",
    "reverse_sequence",
    "roll",
    "scatter_nd",
    "searchsorted",
    "sequence_mask",
    "slice",
    "sort",
    "split",
    "squeeze",
    "stack",
    "strided_slice",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update",
    "tile",
    "transpose",
    "unique",
    "unique_with_counts",
    "unravel_index",
    "unstack",
    "where",
]


_keep_home(globals(), __name__)
