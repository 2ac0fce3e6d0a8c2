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
