"""`tf.strings`: TensorFlow's string ops over numpy object arrays of str.

Where TF returns a RaggedTensor (`split`, `unicode_split`), a 1-D input gives a
list of lists of str; see `torchestimator._ops.string_ops` for the conventions.
"""

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

# Last: tf.strings ops given symbolic Keras tensors record TFOpLambda layers (_ops/symbolic_dispatch.py)
from torchestimator._ops.symbolic_dispatch import wrap_namespace as _wrap_namespace  # noqa: E402

_wrap_namespace(globals(), "strings")
