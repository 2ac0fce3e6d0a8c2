"""tf.strings over numpy object arrays of str.

torch has no string tensor, so (the design's rule) a string "tensor" is a
numpy object array of Python `str`: every op here accepts such an array, a
(nested) list, a `str` or `bytes` scalar (bytes are decoded as UTF-8) and
returns a numpy object array of `str` of TF's output shape (a 0-d array for a
scalar), or a `torch.Tensor` where TF returns numbers (`length`, `to_number`,
`regex_full_match`, the hash buckets).

The work is vectorized with PyArrow compute (C++ kernels over the whole
array); where TF defines its own rules (number parsing, `%`-formatting) the
per-element work runs in numpy's `frompyfunc` loop.

`split` returns a `tf.RaggedTensor` as TF 2.x does (a scalar input: a 1-D
object array of tokens). `unicode_split` gives plain Python: a 1-D input a list
of lists of `str`, a higher-rank input an object array of lists. Elementwise
ops (`to_number`, `lower`, `strip`, `length`, `regex_replace`, ...) accept a
RaggedTensor (they act on its values, TF's ragged dispatch) or a list of lists
(one result per row), so `tf.strings.to_number(tf.strings.split(lines, ","))`
works as in TF.

Regular expressions are RE2's, as in TF (PyArrow's kernels use RE2): `\\1`
back-references in `rewrite`, no look-around, `\\w` is ASCII. Strings are
Python `str` (Unicode); byte-level results that are not valid UTF-8 (a
`substr(..., unit="BYTE")` that cuts a character) come back as `bytes`
elements.
"""

from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.string_ops._common import (
    _ASCII_WS,
    _TOKEN,
    Tensor,
    _arrow,
    _back,
    _decode,
    _decode_all,
    _is_ragged,
    _ragged,
    _strings,
    _tensor,
    _unit,
)
from torchestimator._ops.string_ops._format import _scalar_text, _summarize, format
from torchestimator._ops.string_ops._hash import (
    _num_buckets,
    to_hash_bucket_fast,
    to_hash_bucket_strong,
)
from torchestimator._ops.string_ops._numbers import (
    _FILLS,
    _FLOAT_RE,
    _INT_RE,
    _NUMBER_TYPES,
    _number_error,
    as_string,
    to_number,
)
from torchestimator._ops.string_ops._split import (
    _ragged_result,
    _sep,
    _sep_scalar,
    _split_whitespace,
    join,
    reduce_join,
    split,
    unicode_split,
)
from torchestimator._ops.string_ops._text import (
    _check_encoding,
    _pattern,
    _positions,
    _regex_error,
    _utf8_or_bytes,
    length,
    lower,
    regex_full_match,
    regex_replace,
    strip,
    substr,
    upper,
)

__all__: list[str] = ["as_string"]  # TF 2.15 also has `tf.as_string` at top level


_keep_home(globals(), __name__)
