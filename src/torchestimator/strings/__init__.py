"""`tf.strings`: TensorFlow's string ops over numpy object arrays of str.

Where TF returns a RaggedTensor (`split`, `unicode_split` of an input of rank >= 1), so does
this namespace; see `torchestimator._ops.string_ops` for the conventions. A string result is
given as a dataset gives strings (`data.string_tensor`): an array of str whose `.numpy()` is
TF's (an object array of UTF-8 bytes; the bytes for a 0-d one), a str whose `.numpy()` is
its bytes.
"""

import functools as _functools
from typing import Any as _Any

import numpy as _np

from torchestimator._ops.string_ops import (
    as_string,
    format,
    join,
    length,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    split,
    strip,
    substr,
    to_hash_bucket_fast,
    to_hash_bucket_strong,
    to_number,
    unicode_split,
    upper,
)
from torchestimator._ops.string_ops._unicode import (
    bytes_split,
    ngrams,
    to_hash_bucket,
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_encode,
    unicode_script,
    unicode_split_with_offsets,
    unicode_transcode,
    unsorted_segment_join,
)
from torchestimator.data.string_tensor import for_user as _for_user


def _string_results(fn: _Any) -> _Any:
    """`fn` whose string results (a plain array of str, a str) read back as TF's tensors do."""

    @_functools.wraps(fn)
    def wrapper(*args: _Any, **kwargs: _Any) -> _Any:
        out = fn(*args, **kwargs)
        if (type(out) is _np.ndarray and out.dtype.kind in "OUS") or type(out) is str:
            return _for_user(out)
        return out

    return wrapper


for _name, _value in list(globals().items()):
    if not _name.startswith("_") and callable(_value):
        globals()[_name] = _string_results(_value)

# Last: tf.strings ops given symbolic Keras tensors record TFOpLambda layers (_ops/symbolic_dispatch.py)
from torchestimator._ops.symbolic_dispatch import wrap_namespace as _wrap_namespace  # noqa: E402

_wrap_namespace(globals(), "strings")
