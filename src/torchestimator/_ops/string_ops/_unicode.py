"""tf.strings' Unicode, n-gram and hashing ops: unicode_decode(_with_offsets),
unicode_split_with_offsets, unicode_encode, unicode_transcode, unicode_script, bytes_split,
ngrams, unsorted_segment_join and to_hash_bucket (TF's legacy Hash64).

Strings are Python str (UTF-8 text) as elsewhere in tf.strings; where TF's result holds bytes
that are not UTF-8 text (a byte of a multi-byte character, UTF-16 output), the element is a
Python `bytes`. Where TF returns a RaggedTensor, the result is a `RaggedTensor`.
"""

from __future__ import annotations

import codecs
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import dtype_name
from torchestimator._ops.string_ops import _unicode_script_table as t
from torchestimator._ops.string_ops._common import Tensor, _strings, _tensor
from torchestimator._ops.string_ops._hash import _num_buckets
from torchestimator._ragged_tensor import RaggedTensor
from torchestimator.errors import InvalidArgumentError

_ERRORS = ("strict", "replace", "ignore")


# ----------------------------------------------------------------------------- ragged results
def _rows_to_ragged(rows: list, shape: tuple, values_kind: str) -> Any:
    """Rows (one list per element of an input of `shape`) as TF's RaggedTensor: a flat array for
    a scalar input, a RaggedTensor otherwise."""
    if not shape:
        return _flat(rows[0], values_kind)
    values = _flat([v for r in rows for v in r], values_kind)
    splits = torch.tensor(np.cumsum([0] + [len(r) for r in rows]), dtype=torch.int64)
    ragged = RaggedTensor.from_row_splits(values, splits)
    count = int(np.prod(shape))
    for dim in reversed(shape[1:]):
        ragged = RaggedTensor.from_row_splits(
            ragged, torch.arange(0, count + 1, dim, dtype=torch.int64))
        count //= dim
    return ragged


def _flat(values: list, kind: str) -> Any:
    if kind == "int32":
        return torch.tensor(values, dtype=torch.int32).reshape(-1)
    if kind == "int64":
        return torch.tensor(values, dtype=torch.int64).reshape(-1)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _ragged_in(value: Any) -> tuple[list, tuple] | None:
    """A ragged input (a RaggedTensor or a list of rows of different lengths) as
    (rows of values, outer shape), else None."""
    if hasattr(value, "to_list") and hasattr(value, "row_splits"):
        nested = value.to_list()
        return nested, (len(nested),)
    if isinstance(value, list) and value and all(
            isinstance(v, (list, tuple, np.ndarray, Tensor)) for v in value):
        lengths = {len(v) for v in value}
        if len(lengths) > 1:
            return [list(v.tolist() if hasattr(v, "tolist") else v) for v in value], (len(value),)
    return None


# ----------------------------------------------------------------------------- encodings
def _codec(encoding: Any, op: str, arg: str) -> str:
    if not isinstance(encoding, str):
        raise TypeError(f"{op}: `{arg}` must be an encoding name (str), got {encoding!r}.")
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise InvalidArgumentError(
            None, None, f"{op}: Could not create converter for input encoding: {encoding} "
            f"(`{arg}`); use e.g. 'UTF-8', 'UTF-16-BE' or 'UTF-32-BE'.") from None


def _check_errors(errors: Any, op: str) -> str:
    if errors not in _ERRORS:
        raise InvalidArgumentError(
            None, None,
            f"{op}: Value for attr 'errors' of \"{errors}\" is not in the list of allowed "
            "values: \"strict\", \"replace\", \"ignore\"")
    return errors


def _raw(value: Any, codec: str) -> bytes:
    """One input element as bytes in `codec` (a str is text: encoded; bytes are taken as is)."""
    if isinstance(value, (bytes, bytearray, np.bytes_)):
        return bytes(value)
    return str(value).encode(codec, errors="surrogatepass")


def _byte_strings(value: Any, op: str, name: str = "input") -> np.ndarray:
    """`value` as an object array whose elements are str or bytes (bytes kept: they may be in
    another encoding or not valid)."""
    if isinstance(value, (str, bytes, bytearray)):
        return np.array(value if isinstance(value, str) else bytes(value), dtype=object)
    if isinstance(value, Tensor):
        raise TypeError(f"{op}: `{name}` must be strings, got a {dtype_name(value.dtype)} "
                        "tensor.")
    array = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
    if array.dtype.kind == "U":
        return array.astype(object)
    if array.dtype.kind == "S":
        out = np.empty(array.shape, dtype=object)
        out.reshape(-1)[:] = [bytes(v) for v in array.reshape(-1)]
        return out
    if array.dtype.kind != "O":
        raise TypeError(f"{op}: `{name}` must be strings, got an array of dtype {array.dtype}.")
    for v in array.reshape(-1).tolist():
        if not isinstance(v, (str, bytes, bytearray, np.bytes_)):
            raise TypeError(f"{op}: `{name}` must be strings, got {v!r} "
                            f"({type(v).__name__}).")
    return array


def _decode_one(data: bytes, codec: str, errors: str, replacement_char: int,
                replace_control: bool, op: str) -> tuple[list[int], list[int]]:
    """The code points of `data` and the byte offset where each starts (TF's UnicodeDecode:
    an invalid sequence (its maximal subpart) gives one `replacement_char`, or is dropped
    with errors='ignore', or fails with errors='strict')."""
    spans: list[tuple[int, int]] = []

    def handler(exc: UnicodeDecodeError) -> tuple[str, int]:
        spans.append((exc.start, exc.end))
        return "\ufffd", exc.end

    name = f"_te_decode_{id(spans)}"
    codecs.register_error(name, handler)
    try:
        text = data.decode(codec, errors=name)
    finally:
        codecs.register_error(name, codecs.strict_errors)
    if spans and errors == "strict":
        raise InvalidArgumentError(None, None, f"{op}: Invalid formatting on input string "
                                   f"{data[:40]!r} (errors='strict'); pass errors='replace' "
                                   "or 'ignore' to decode it anyway.")
    points: list[int] = []
    offsets: list[int] = []
    pos = 0
    span_i = 0
    bom = 0
    if codec in ("utf-16", "utf-32") and text and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        bom = 2 if codec == "utf-16" else 4
    pos = bom
    for ch in text:
        if span_i < len(spans) and spans[span_i][0] == pos and ch == "\ufffd":
            start, end = spans[span_i]
            span_i += 1
            pos = end
            if errors == "ignore":
                continue
            points.append(int(replacement_char))
            offsets.append(start)
            continue
        cp = ord(ch)
        offsets.append(pos)
        pos += len(ch.encode(codec if codec not in ("utf-16", "utf-32") else codec + "-le",
                             errors="surrogatepass"))
        if replace_control and cp < 0x20:
            cp = int(replacement_char)
        points.append(cp)
    return points, offsets


def _decode_rows(input: Any, input_encoding: str, errors: str, replacement_char: int,
                 replace_control_characters: bool, op: str) -> tuple[list, list, tuple]:
    codec = _codec(input_encoding, op, "input_encoding")
    _check_errors(errors, op)
    array = _byte_strings(input, op)
    points, offsets = [], []
    for v in array.reshape(-1).tolist():
        p, o = _decode_one(_raw(v, codec), codec, errors, replacement_char,
                           replace_control_characters, op)
        points.append(p)
        offsets.append(o)
    return points, offsets, array.shape


def unicode_decode(input: Any, input_encoding: str, errors: str = "replace",
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: str | None = None) -> Any:
    """Decodes each string in `input` into a sequence of Unicode code points (TF's
    `tf.strings.unicode_decode`). Invalid sequences give `replacement_char` (errors='replace'),
    are dropped ('ignore') or raise InvalidArgumentError ('strict').

    Returns:
        int32 code points: a 1-D tensor for a scalar input, else a RaggedTensor with one row per
        string (see the module's note on ragged results).
    """
    points, _, shape = _decode_rows(input, input_encoding, errors, replacement_char,
                                    replace_control_characters, "unicode_decode")
    return _rows_to_ragged(points, shape, "int32")


def unicode_decode_with_offsets(input: Any, input_encoding: str, errors: str = "replace",
                                replacement_char: int = 65533,
                                replace_control_characters: bool = False,
                                name: str | None = None) -> tuple[Any, Any]:
    """Decodes each string into code points and the byte offset where each character starts
    (TF's `tf.strings.unicode_decode_with_offsets`).

    Returns:
        A tuple (codepoints, offsets): int32 code points and int64 byte offsets, each shaped as
        `unicode_decode`'s result.
    """
    points, offsets, shape = _decode_rows(input, input_encoding, errors, replacement_char,
                                          replace_control_characters,
                                          "unicode_decode_with_offsets")
    return (_rows_to_ragged(points, shape, "int32"), _rows_to_ragged(offsets, shape, "int64"))


def _char_text(cp: int, codec: str) -> Any:
    data = _encode_points([cp], codec, "replace", 65533, "unicode_split")
    return data


def unicode_split_with_offsets(input: Any, input_encoding: str, errors: str = "replace",
                               replacement_char: int = 65533,
                               name: str | None = None) -> tuple[Any, Any]:
    """Splits each string into its Unicode characters, with the byte offset where each starts
    (TF's `tf.strings.unicode_split_with_offsets`).

    Returns:
        A tuple (chars, offsets): the characters as strings (encoded in `input_encoding`) and
        int64 byte offsets, each a 1-D result for a scalar input, else ragged.
    """
    op = "unicode_split_with_offsets"
    points, offsets, shape = _decode_rows(input, input_encoding, errors, replacement_char,
                                          False, op)
    codec = _codec(input_encoding, op, "input_encoding")
    chars = [[_char_text(cp, codec) for cp in row] for row in points]
    return _rows_to_ragged(chars, shape, "str"), _rows_to_ragged(offsets, shape, "int64")


_OUTPUT_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _valid_point(cp: int) -> bool:
    return 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF


def _encode_points(points: list[int], codec: str, errors: str, replacement_char: int,
                   op: str) -> Any:
    chars = []
    for cp in points:
        if not _valid_point(cp):
            if errors == "strict":
                raise InvalidArgumentError(
                    None, None, f"{op}: Code point is out of range for Unicode, or a "
                    f"noncharacter: {cp} (errors='strict'); pass errors='replace' or 'ignore'.")
            if errors == "ignore":
                continue
            cp = int(replacement_char)
        chars.append(chr(cp))
    text = "".join(chars)
    if codec == "utf-8":
        return text
    return text.encode(codec)


def _as_str_or_bytes(data: bytes) -> Any:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def unicode_encode(input: Any, output_encoding: str, errors: str = "replace",
                   replacement_char: int = 65533, name: str | None = None) -> Any:
    """Encodes each sequence of Unicode code points in `input` into a string (TF's
    `tf.strings.unicode_encode`): the innermost dimension is encoded, so a `[N]` input gives a
    scalar and a `[B, N]` (or ragged) input a `[B]` string array. `output_encoding` is one of
    'UTF-8', 'UTF-16-BE', 'UTF-32-BE'.

    Returns:
        A string array of rank one less than `input` (UTF-16/32 results are `bytes`).
    """
    op = "unicode_encode"
    if output_encoding not in _OUTPUT_CODECS:
        raise InvalidArgumentError(
            None, None,
            f"{op}: Value for attr 'output_encoding' of \"{output_encoding}\" is not in the "
            "list of allowed values: \"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\"")
    _check_errors(errors, op)
    codec = _OUTPUT_CODECS[output_encoding]
    ragged = _ragged_in(input)
    if ragged is not None:
        rows, shape = ragged
        out = np.empty(len(rows), dtype=object)
        out[:] = [_encode_points([int(c) for c in r], codec, errors, replacement_char, op)
                  for r in rows]
        return out
    array = input.cpu().numpy() if isinstance(input, Tensor) else np.asarray(input)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{op}: `input` must be int32 code points, got dtype {array.dtype}.")
    if array.ndim == 0:
        raise ValueError(f"{op}: `input` must have rank >= 1 (a sequence of code points), "
                         "got a scalar; wrap it in a list.")
    flat = array.reshape(-1, array.shape[-1]) if array.shape[-1] else np.zeros(
        (int(np.prod(array.shape[:-1])), 0), dtype=np.int64)
    out = np.empty(flat.shape[0], dtype=object)
    out[:] = [_encode_points([int(c) for c in r], codec, errors, replacement_char, op)
              for r in flat.tolist()]
    out = out.reshape(array.shape[:-1])
    return out


def unicode_transcode(input: Any, input_encoding: str, output_encoding: str,
                      errors: str = "replace", replacement_char: int = 65533,
                      replace_control_characters: bool = False,
                      name: str | None = None) -> np.ndarray:
    """Transcodes each string of `input` from `input_encoding` to `output_encoding` (TF's
    `tf.strings.unicode_transcode`), replacing (or dropping, or failing on) invalid input as
    `errors` says.

    Returns:
        A string array of `input`'s shape (UTF-16/32 results are `bytes`).
    """
    op = "unicode_transcode"
    if output_encoding not in _OUTPUT_CODECS:
        raise InvalidArgumentError(
            None, None,
            f"{op}: Value for attr 'output_encoding' of \"{output_encoding}\" is not in the "
            "list of allowed values: \"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\"")
    points, _, shape = _decode_rows(input, input_encoding, errors, replacement_char,
                                    replace_control_characters, op)
    codec = _OUTPUT_CODECS[output_encoding]
    out = np.empty(len(points), dtype=object)
    out[:] = [_encode_points(p, codec, "replace", replacement_char, op) for p in points]
    return out.reshape(shape)


# ----------------------------------------------------------------------------- unicode_script
_SCRIPT_TABLE: tuple | None = None


def unicode_script(input: Any, name: str | None = None) -> Tensor:
    """Determines the ICU script code (UScriptCode) of each code point in `input` (TF's
    `tf.strings.unicode_script`): 0 Common, 1 Inherited, 25 Latin, ...; -1 for a value that is
    not a code point.

    Returns:
        An int32 tensor of `input`'s shape.
    """
    global _SCRIPT_TABLE
    if _SCRIPT_TABLE is None:
        _SCRIPT_TABLE = (np.asarray(t.STARTS, dtype=np.int64), np.asarray(t.CODES, np.int32))
    x = input if isinstance(input, Tensor) else torch.as_tensor(np.asarray(input))
    if x.dtype is not torch.int32:
        raise InvalidArgumentError(
            None, None, f"unicode_script: `input` must be int32 code points, got "
            f"{dtype_name(x.dtype)}; tf.cast it to int32.")
    cps = x.cpu().numpy().astype(np.int64)
    starts, codes = _SCRIPT_TABLE
    idx = np.searchsorted(starts, np.clip(cps, 0, 0x10FFFF), side="right") - 1
    out = codes[idx]
    out = np.where((cps < 0) | (cps > 0x10FFFF), -1, out).astype(np.int32)
    return torch.from_numpy(out).to(x.device)


# ----------------------------------------------------------------------------- bytes_split
def _byte_piece(b: int) -> Any:
    return chr(b) if b < 0x80 else bytes([b])


def bytes_split(input: Any, name: str | None = None) -> Any:
    """Splits each string of `input` into its bytes (TF's `tf.strings.bytes_split`); a byte
    that is not an ASCII character is a 1-byte `bytes`.

    Returns:
        A 1-D string array for a scalar input, else ragged (one row per string).
    """
    array = _byte_strings(input, "bytes_split")
    rows = [[_byte_piece(b) for b in _raw(v, "utf-8")] for v in array.reshape(-1).tolist()]
    return _rows_to_ragged(rows, array.shape, "str")


# ----------------------------------------------------------------------------- ngrams
def _ngram_rows(rows: list[list[str]], widths: list[int], separator: str, left: str,
                right: str, pad_width: int, preserve_short: bool) -> list[list[str]]:
    def get_pad(w: int) -> int:
        return min(w - 1 if pad_width < 0 else pad_width, w - 1)

    def create(data: list[str], num: int, w: int) -> list[str]:
        out = []
        pad = get_pad(w)
        for i in range(num):
            lp = max(0, pad - i)
            rp = max(0, pad - (num - (i + 1)))
            n_tok = w - (lp + rp)
            start = 0 if lp > 0 else i - pad
            out.append(separator.join([left] * lp + data[start:start + n_tok] + [right] * rp))
        return out

    result = []
    for data in rows:
        row: list[str] = []
        for w in widths:
            pad = get_pad(w)
            num = max(0, len(data) + 2 * pad - w + 1)
            row.extend(create(data, num, w))
        if preserve_short and not row and data:
            w = len(data) + 2 * max(pad_width, 0)
            row.extend(create(data, 1, w))
        result.append(row)
    return result


def ngrams(data: Any, ngram_width: Any, separator: str = " ", pad_values: Any = None,
           padding_width: int | None = None, preserve_short_sequences: bool = False,
           name: str | None = None) -> Any:
    """Creates n-grams of the innermost dimension of `data` (TF's `tf.strings.ngrams`): each
    n-gram joins `ngram_width` consecutive strings with `separator`; `pad_values` (a string or
    a (left, right) pair) pads each sequence with `padding_width` (default `ngram_width - 1`)
    values at both ends; several widths give their n-grams one after another.

    Returns:
        For a dense input, a string array of `data`'s shape with the last dimension replaced by
        the number of n-grams; for ragged rows, ragged rows of n-grams.
    """
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    widths = [int(w) for w in widths]
    if any(w <= 0 for w in widths):
        raise ValueError(f"ngrams: All ngram_widths must be greater than 0. Got {ngram_width}")
    if pad_values is None:
        left = right = ""
        pad_width = 0
    else:
        if isinstance(pad_values, (list, tuple)) and len(pad_values) == 2 and all(
                isinstance(p, (str, bytes)) for p in pad_values):
            left, right = (str(p if isinstance(p, str) else p.decode()) for p in pad_values)
        elif isinstance(pad_values, (str, bytes)):
            left = right = pad_values if isinstance(pad_values, str) else pad_values.decode()
        else:
            raise TypeError("ngrams: pad_values must be a string, tuple of strings, or None, "
                            f"got {pad_values!r}.")
        if padding_width is not None and padding_width < 1:
            raise ValueError("ngrams: padding_width must be greater than 0, got "
                             f"{padding_width}.")
        pad_width = -1 if padding_width is None else int(padding_width)
    sep = separator if isinstance(separator, str) else bytes(separator).decode()
    ragged = _ragged_in(data)
    if ragged is not None:
        rows, shape = ragged
        rows = [_strings(r, "ngrams", "data").reshape(-1).tolist() for r in rows]
        out = _ngram_rows(rows, widths, sep, left, right, pad_width, preserve_short_sequences)
        return _rows_to_ragged(out, shape, "str")
    array = _strings(data, "ngrams", "data")
    if array.ndim == 0:
        raise ValueError("ngrams: Data must have rank>0, got a scalar string.")
    rows = array.reshape(-1, array.shape[-1]).tolist() if array.shape[-1] else [
        [] for _ in range(int(np.prod(array.shape[:-1])))]
    out = _ngram_rows(rows, widths, sep, left, right, pad_width, preserve_short_sequences)
    lengths = {len(r) for r in out}
    if len(lengths) > 1:  # preserve_short_sequences can make rows differ: TF's ragged result
        return _rows_to_ragged(out, array.shape[:-1], "str")
    n = lengths.pop() if lengths else 0
    result = np.empty((len(out), n), dtype=object)
    for i, r in enumerate(out):
        result[i, :] = r
    return result.reshape(array.shape[:-1] + (n,))


# ----------------------------------------------------------------------------- segment join
def unsorted_segment_join(inputs: Any, segment_ids: Any, num_segments: Any, separator: str = "",
                          name: str | None = None) -> np.ndarray:
    """Joins the strings of `inputs` that share a segment id, in input order, with `separator`
    (TF's `tf.strings.unsorted_segment_join`); a segment no id names is ''.

    Returns:
        A string array of shape `[num_segments] + inputs.shape[segment_ids.ndim:]`.
    """
    op = "unsorted_segment_join"
    array = _strings(inputs, op, "inputs")
    ids = segment_ids.cpu().numpy() if isinstance(segment_ids, Tensor) else np.asarray(
        segment_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{op}: `segment_ids` must be int32 or int64, got {ids.dtype}.")
    n = int(num_segments.item() if isinstance(num_segments, (Tensor, np.ndarray))
            else num_segments)
    if array.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(
            None, None, f"{op}: segment_ids.shape = {list(ids.shape)} must be a prefix of "
            f"inputs.shape = {list(array.shape)}.")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise InvalidArgumentError(
            None, None, f"{op}: segment_ids are not allowed to exceed num_segments or to have "
            f"negative values (num_segments={n}, segment_ids range [{int(ids.min())}, "
            f"{int(ids.max())}]).")
    inner = array.shape[ids.ndim:]
    flat = array.reshape((ids.size,) + inner)
    flat_ids = ids.reshape(-1)
    sep = separator if isinstance(separator, str) else bytes(separator).decode()
    out = np.empty((n,) + inner, dtype=object)
    inner_size = int(np.prod(inner)) if inner else 1
    out_2d = out.reshape(n, inner_size)
    flat_2d = flat.reshape(ids.size, inner_size)
    for s in range(n):
        members = flat_2d[flat_ids == s]
        for j in range(inner_size):
            out_2d[s, j] = sep.join(members[:, j].tolist())
    return out_2d.reshape((n,) + inner)


# ----------------------------------------------------------------------------- to_hash_bucket
_M = 0xC6A4A7935BD1E995
_MASK = (1 << 64) - 1


def _hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's legacy Hash64 (tensorflow/core/lib/hash/hash.cc, a MurmurHash64A variant)."""
    n = len(data)
    h = (seed ^ (n * _M)) & _MASK
    full = n - n % 8
    for i in range(0, full, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        k = (k * _M) & _MASK
        k ^= k >> 47
        k = (k * _M) & _MASK
        h ^= k
        h = (h * _M) & _MASK
    rest = data[full:]
    if rest:
        for j in range(len(rest) - 1, -1, -1):
            h ^= rest[j] << (8 * j)
        h = (h * _M) & _MASK
    h ^= h >> 47
    h = (h * _M) & _MASK
    h ^= h >> 47
    return h


def to_hash_bucket(input: Any, num_buckets: int, name: str | None = None) -> Tensor:
    """Converts each string of `input` to a hash bucket id in [0, num_buckets) with TF's legacy
    Hash64 of its UTF-8 bytes (TF's `tf.strings.to_hash_bucket`; bit-identical to TF's).
    Prefer `to_hash_bucket_fast` (FarmHash) for new code, as TF says.

    Returns:
        An int64 tensor of the input's shape.
    """

    array = _byte_strings(input, "to_hash_bucket")
    buckets = _num_buckets(num_buckets, "to_hash_bucket")
    values = [_hash64(_raw(v, "utf-8")) % buckets for v in array.reshape(-1).tolist()]
    return _tensor(np.asarray(values, dtype=np.int64).reshape(array.shape), torch.int64)


def string_to_hash_bucket(string_tensor: Any = None, num_buckets: Any = None,
                          name: str | None = None, input: Any = None) -> Tensor:
    """TF1's `tf.compat.v1.string_to_hash_bucket`: `to_hash_bucket` with the input named
    `string_tensor` (or `input`).

    Returns:
        An int64 tensor of the input's shape.
    """
    if string_tensor is None and input is None:
        raise ValueError("string_to_hash_bucket: pass `string_tensor` (or `input`).")
    if string_tensor is not None and input is not None:
        raise ValueError("string_to_hash_bucket: pass `string_tensor` or `input`, not both.")
    if num_buckets is None:
        raise ValueError("string_to_hash_bucket: `num_buckets` is required.")
    return to_hash_bucket(string_tensor if string_tensor is not None else input, num_buckets)

