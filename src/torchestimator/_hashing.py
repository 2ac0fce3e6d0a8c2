"""The project's one string/integer hash: FarmHash Fingerprint64, vectorized.

TensorFlow hashes strings with FarmHash's `Fingerprint64` (the
`farmhashna::Hash64` function of https://github.com/google/farmhash):
`tf.strings.to_hash_bucket_fast`, `categorical_column_with_hash_bucket`,
the out-of-vocabulary buckets of vocabulary lookups, the Keras `Hashing`
layer without a salt, and (combined with `FingerprintCat64`) `crossed_column`
and `tf.sparse.cross_hashed`. This module computes the same function over a
whole array at once with numpy: the strings' UTF-8 bytes are laid out in one
buffer (by PyArrow), every 8-byte word is read with one strided view, and the
FarmHash arithmetic runs on uint64 arrays. Equal inputs give equal hashes in
every process and on every platform (the words are read little-endian, as
FarmHash specifies), and the bucket ids are bit-identical to TensorFlow's, so
a model trained with TF's hash buckets keeps its meaning here.

Python's built-in `hash()` is never used: it is salted per process.

Public functions:
    fingerprint64(values)            -> uint64 array (FarmHash Fingerprint64)
    fingerprint_cat64(fp1, fp2)      -> uint64 array (TF's FingerprintCat64)
    hash_bucket(values, num_buckets) -> int64 array (TF's string_to_hash_bucket_fast)
    strong_hash64(values, key)       -> uint64 array (SipHash-2-4, TF's StrongKeyedHash)
    strong_hash_bucket(values, num_buckets, key)
                                     -> int64 array (TF's string_to_hash_bucket_strong)
    to_string_array(values)          -> pyarrow string array (ints as decimal text, as tf.as_string)

The keyed variant (`tf.strings.to_hash_bucket_strong`, Keras `Hashing(salt=...)`)
is SipHash-2-4 with a 128-bit key given as two uint64 words, as TF computes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "DEFAULT_CROSS_HASH_KEY",
    "fingerprint64",
    "fingerprint_cat64",
    "hash_bucket",
    "strong_hash64",
    "strong_hash_bucket",
    "to_string_array",
]

_U64 = np.uint64
_MASK = (1 << 64) - 1

# FarmHash's primes between 2**63 and 2**64.
_K0 = _U64(0xC3A5C85C97CB3127)
_K1 = _U64(0xB492B66FBE98F273)
_K2 = _U64(0x9AE16A3B2F90404F)
# FingerprintCat64's multiplier (TensorFlow core/platform/fingerprint.h).
_KMUL = _U64(0xC6A4A7935BD1E995)
# The hash key `tf.sparse.cross_hashed` (and so `crossed_column`) uses when none is given.
DEFAULT_CROSS_HASH_KEY = 0xDECAFCAFFE

_SEED = 81
_Y0 = (_SEED * int(_K1) + 113) & _MASK


def _u(value: int) -> np.uint64:
    return _U64(value & _MASK)


def _rot(v: np.ndarray, shift: int) -> np.ndarray:
    return (v >> _U64(shift)) | (v << _U64(64 - shift))


def _shift_mix(v: np.ndarray) -> np.ndarray:
    return v ^ (v >> _U64(47))


def _hash_len16(u: np.ndarray, v: np.ndarray, mul: np.ndarray) -> np.ndarray:
    a = _shift_mix((u ^ v) * mul)
    b = _shift_mix((v ^ a) * mul)
    return b * mul


class _Bytes:
    """The UTF-8 bytes of many strings in one padded buffer, read as little-endian words."""

    def __init__(self, data: np.ndarray):
        padded = np.zeros(len(data) + 16, dtype=np.uint8)
        padded[: len(data)] = data
        self._buf = padded
        n = len(padded)
        self._u64 = np.ndarray((n - 7,), dtype="<u8", buffer=padded, strides=(1,))
        self._u32 = np.ndarray((n - 3,), dtype="<u4", buffer=padded, strides=(1,))

    def u64(self, pos: np.ndarray) -> np.ndarray:
        return self._u64[pos].astype(np.uint64, copy=False)

    def u32(self, pos: np.ndarray) -> np.ndarray:
        return self._u32[pos].astype(np.uint64)

    def u8(self, pos: np.ndarray) -> np.ndarray:
        return self._buf[pos].astype(np.uint64)


def _len0to16(b: _Bytes, s: np.ndarray, n: np.ndarray) -> np.ndarray:
    out = np.full(len(s), _K2, dtype=np.uint64)
    mul = _K2 + n * _U64(2)
    big = n >= 8
    if big.any():
        ss, nn, mm = s[big], n[big], mul[big]
        a = b.u64(ss) + _K2
        bb = b.u64(ss + nn - 8)
        c = _rot(bb, 37) * mm + a
        d = (_rot(a, 25) + bb) * mm
        out[big] = _hash_len16(c, d, mm)
    mid = (n >= 4) & ~big
    if mid.any():
        ss, nn, mm = s[mid], n[mid], mul[mid]
        a = b.u32(ss)
        out[mid] = _hash_len16(nn + (a << _U64(3)), b.u32(ss + nn - 4), mm)
    small = (n > 0) & (n < 4)
    if small.any():
        ss, nn = s[small], n[small]
        a = b.u8(ss)
        bb = b.u8(ss + (nn >> _U64(1)))
        c = b.u8(ss + nn - 1)
        y = a + (bb << _U64(8))
        z = nn + (c << _U64(2))
        out[small] = _shift_mix(y * _K2 ^ z * _K0) * _K2
    return out


def _len17to32(b: _Bytes, s: np.ndarray, n: np.ndarray) -> np.ndarray:
    mul = _K2 + n * _U64(2)
    a = b.u64(s) * _K1
    bb = b.u64(s + 8)
    c = b.u64(s + n - 8) * mul
    d = b.u64(s + n - 16) * _K2
    return _hash_len16(_rot(a + bb, 43) + _rot(c, 30) + d, a + _rot(bb + _K2, 18) + c, mul)


def _len33to64(b: _Bytes, s: np.ndarray, n: np.ndarray) -> np.ndarray:
    mul = _K2 + n * _U64(2)
    a = b.u64(s) * _K2
    bb = b.u64(s + 8)
    c = b.u64(s + n - 8) * mul
    d = b.u64(s + n - 16) * _K2
    y = _rot(a + bb, 43) + _rot(c, 30) + d
    z = _hash_len16(y, a + _rot(bb + _K2, 18) + c, mul)
    e = b.u64(s + 16) * mul
    f = b.u64(s + 24)
    g = (y + b.u64(s + n - 32)) * mul
    h = (z + b.u64(s + n - 24)) * mul
    return _hash_len16(_rot(e + f, 43) + _rot(g, 30) + h, e + _rot(f + a, 18) + g, mul)


def _weak32(b: _Bytes, p: np.ndarray, a: np.ndarray, bb: np.ndarray):
    w, x, y, z = b.u64(p), b.u64(p + 8), b.u64(p + 16), b.u64(p + 24)
    a = a + w
    bb = _rot(bb + a + z, 21)
    c = a
    a = a + x + y
    bb = bb + _rot(a, 44)
    return a + z, bb + c


def _len_over64(b: _Bytes, s: np.ndarray, n: np.ndarray) -> np.ndarray:
    m = len(s)
    x = np.full(m, _u(_SEED), dtype=np.uint64) * _K2 + b.u64(s)
    y = np.full(m, _u(_Y0), dtype=np.uint64)
    z = _shift_mix(y * _K2 + _U64(113)) * _K2
    v0 = np.zeros(m, dtype=np.uint64)
    v1 = np.zeros(m, dtype=np.uint64)
    w0 = np.zeros(m, dtype=np.uint64)
    w1 = np.zeros(m, dtype=np.uint64)
    chunks = (n - _U64(1)) // _U64(64)
    # One pass per 64-byte chunk position; each pass updates every string that has it.
    for i in range(int(chunks.max())):
        act = np.nonzero(chunks > _U64(i))[0]
        p = s[act] + _U64(64 * i)
        xa, ya, za = x[act], y[act], z[act]
        v0a, v1a, w0a, w1a = v0[act], v1[act], w0[act], w1[act]
        xa = _rot(xa + ya + v0a + b.u64(p + 8), 37) * _K1
        ya = _rot(ya + v1a + b.u64(p + 48), 42) * _K1
        xa = xa ^ w1a
        ya = ya + v0a + b.u64(p + 40)
        za = _rot(za + w0a, 33) * _K1
        v0a, v1a = _weak32(b, p, v1a * _K1, xa + w0a)
        w0a, w1a = _weak32(b, p + 32, za + w1a, ya + b.u64(p + 16))
        x[act], y[act], z[act] = za, ya, xa
        v0[act], v1[act], w0[act], w1[act] = v0a, v1a, w0a, w1a
    mul = _K1 + ((z & _U64(0xFF)) << _U64(1))
    p = s + n - 64
    w0 = w0 + ((n - _U64(1)) & _U64(63))
    v0 = v0 + w0
    w0 = w0 + v0
    x = _rot(x + y + v0 + b.u64(p + 8), 37) * mul
    y = _rot(y + v1 + b.u64(p + 48), 42) * mul
    x = x ^ (w1 * _U64(9))
    y = y + v0 * _U64(9) + b.u64(p + 40)
    z = _rot(z + w0, 33) * mul
    v0, v1 = _weak32(b, p, v1 * mul, x + w0)
    w0, w1 = _weak32(b, p + 32, z + w1, y + b.u64(p + 16))
    x, z = z, x
    return _hash_len16(
        _hash_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z,
        _hash_len16(v1, w1, mul) + x,
        mul,
    )


def _farmhash64(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Fingerprint64 of the byte strings data[starts[i]:starts[i]+lengths[i]]."""
    b = _Bytes(data)
    s = starts.astype(np.uint64)
    n = lengths.astype(np.uint64)
    out = np.empty(len(s), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for lo, hi, fn in (
            (0, 16, _len0to16),
            (17, 32, _len17to32),
            (33, 64, _len33to64),
            (65, None, _len_over64),
        ):
            sel = (n >= _U64(lo)) if hi is None else ((n >= _U64(lo)) & (n <= _U64(hi)))
            if sel.any():
                out[sel] = fn(b, s[sel], n[sel])
    return out


def to_string_array(values: Any) -> pa.Array:
    """Returns `values` as a PyArrow large_string array, as TF's `as_string` would see them.

    Accepts a numpy array (str, bytes, object or integer), a list, or a PyArrow
    array. Integers become their decimal text ('12', '-3'); bytes are taken as
    UTF-8; nulls (None) become ''. Raises TypeError for floats or other values.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, (list, tuple)) and values and all(isinstance(v, bytes) for v in values):
        values = pa.array(values, type=pa.large_binary())  # numpy would drop trailing NUL bytes
    if not isinstance(values, pa.Array):
        arr = np.asarray(values)
        if arr.ndim != 1:
            arr = arr.reshape(-1)
        if arr.size == 0:
            return pa.array([], type=pa.large_string())
        if arr.dtype.kind in "iub":
            values = pa.array(arr.astype(np.int64, copy=False))
        elif arr.dtype.kind == "S":
            # element by element: PyArrow reads a numpy bytes array as C strings, cut at a NUL
            values = pa.array(arr.tolist(), type=pa.large_binary())
        elif arr.dtype.kind == "f":
            raise TypeError(
                f"Cannot hash floating-point values (dtype {arr.dtype}); hashing takes strings or "
                "integers. Bucketize floats with bucketized_column, or cast them to int or str first."
            )
        else:
            try:
                values = pa.array(arr, type=pa.large_string(), from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                if arr.dtype.kind != "O":
                    raise
                values = pa.array(
                    [v.decode("utf-8") if isinstance(v, bytes) else v for v in arr.tolist()],
                    type=pa.large_string(),
                    from_pandas=True,
                )
    t = values.type
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        values = pc.cast(pc.cast(values, pa.int64()), pa.large_string())
    elif pa.types.is_binary(t) or pa.types.is_large_binary(t):
        values = pc.cast(values, pa.large_string())
    elif pa.types.is_string(t):
        values = pc.cast(values, pa.large_string())
    elif pa.types.is_dictionary(t):
        values = pc.cast(values.dictionary_decode(), pa.large_string())
    elif not pa.types.is_large_string(t):
        raise TypeError(f"Cannot hash values of type {t}; hashing takes strings or integers.")
    if values.null_count:
        values = pc.fill_null(values, "")
    return values


def _fingerprint_unique(strings: pa.Array) -> np.ndarray:
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)
    offsets = offsets[strings.offset : strings.offset + len(strings) + 1]
    data_buf = strings.buffers()[2]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    return _farmhash64(data, offsets[:-1], np.diff(offsets))


def fingerprint64(values: Any) -> np.ndarray:
    """Returns FarmHash `Fingerprint64` of every value, as a uint64 numpy array.

    The same function as TensorFlow's `Fingerprint64` (and so as
    `tf.strings.to_hash_bucket_fast` before its modulo). Strings are hashed as
    UTF-8 bytes; integers are first written as decimal text (TF's `as_string`).
    The output has the input's shape. Each distinct value is hashed once.
    """
    shape = np.shape(values) if not isinstance(values, (pa.Array, pa.ChunkedArray)) else (len(values),)
    strings = to_string_array(values)
    if len(strings) == 0:
        return np.zeros(shape, dtype=np.uint64)
    encoded = strings.dictionary_encode()
    uniq = _fingerprint_unique(encoded.dictionary)
    idx = encoded.indices.to_numpy(zero_copy_only=False)
    return uniq[idx].reshape(shape)


def fingerprint_cat64(fp1: Any, fp2: Any) -> np.ndarray:
    """Returns TensorFlow's `FingerprintCat64(fp1, fp2)` elementwise, as uint64.

    This is how `tf.sparse.cross_hashed` (and `crossed_column`) folds the
    fingerprint of each crossed value into the running hash, starting from the
    hash key. Inputs broadcast as numpy arrays do.
    """
    a = np.asarray(fp1).astype(np.uint64)
    b = np.asarray(fp2).astype(np.uint64)
    with np.errstate(over="ignore"):
        result = a ^ _KMUL
        result = result ^ (_shift_mix(b * _KMUL) * _KMUL)
        result = result * _KMUL
        result = _shift_mix(result) * _KMUL
        return _shift_mix(result)


def hash_bucket(values: Any, num_buckets: int) -> np.ndarray:
    """Returns `Fingerprint64(value) % num_buckets` for every value, as an int64 array.

    TensorFlow's `tf.strings.to_hash_bucket_fast`: integers are hashed as their
    decimal text. `num_buckets` must be a positive integer.
    """
    if not isinstance(num_buckets, (int, np.integer)) or isinstance(num_buckets, bool) or num_buckets < 1:
        raise ValueError(f"num_buckets must be a positive integer, got {num_buckets!r}")
    return (fingerprint64(values) % _U64(int(num_buckets))).astype(np.int64)


def _strings_and_layout(values: Any) -> tuple[tuple, pa.Array, np.ndarray]:
    shape = np.shape(values) if not isinstance(values, (pa.Array, pa.ChunkedArray)) else (len(values),)
    strings = to_string_array(values)
    encoded = strings.dictionary_encode()
    idx = encoded.indices.to_numpy(zero_copy_only=False)
    return shape, encoded.dictionary, idx


def _sip_round(v0, v1, v2, v3):
    v0 = v0 + v1
    v1 = _rot(v1, 64 - 13) ^ v0
    v0 = _rot(v0, 32)
    v2 = v2 + v3
    v3 = _rot(v3, 64 - 16) ^ v2
    v0 = v0 + v3
    v3 = _rot(v3, 64 - 21) ^ v0
    v2 = v2 + v1
    v1 = _rot(v1, 64 - 17) ^ v2
    v2 = _rot(v2, 32)
    return v0, v1, v2, v3


def _siphash(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, k0: int, k1: int) -> np.ndarray:
    b = _Bytes(data)
    s = starts.astype(np.uint64)
    n = lengths.astype(np.uint64)
    m = len(s)
    with np.errstate(over="ignore"):
        v0 = np.full(m, _u(k0 ^ 0x736F6D6570736575), dtype=np.uint64)
        v1 = np.full(m, _u(k1 ^ 0x646F72616E646F6D), dtype=np.uint64)
        v2 = np.full(m, _u(k0 ^ 0x6C7967656E657261), dtype=np.uint64)
        v3 = np.full(m, _u(k1 ^ 0x7465646279746573), dtype=np.uint64)
        blocks = n // _U64(8)
        # One pass per 8-byte block position; each pass updates every string that has it.
        for i in range(int(blocks.max()) if m else 0):
            act = np.nonzero(blocks > _U64(i))[0]
            word = b.u64(s[act] + _U64(8 * i))
            a0, a1, a2, a3 = v0[act], v1[act], v2[act], v3[act] ^ word
            for _ in range(2):
                a0, a1, a2, a3 = _sip_round(a0, a1, a2, a3)
            v0[act], v1[act], v2[act], v3[act] = a0 ^ word, a1, a2, a3
        rest = n & _U64(7)
        tail = b.u64(s + blocks * _U64(8))
        mask = np.where(rest > 0, (_U64(1) << (rest * _U64(8))) - _U64(1), _U64(0)).astype(np.uint64)
        last = (tail & mask) | ((n & _U64(0xFF)) << _U64(56))
        v3 = v3 ^ last
        for _ in range(2):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 = v0 ^ last
        v2 = v2 ^ _U64(0xFF)
        for _ in range(4):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        return v0 ^ v1 ^ v2 ^ v3


def _check_key(key: Any) -> tuple[int, int]:
    try:
        k0, k1 = (int(k) for k in key)
    except (TypeError, ValueError):
        raise ValueError(f"key must be a list of two integers (the SipHash key), got {key!r}") from None
    return k0 & _MASK, k1 & _MASK


def strong_hash64(values: Any, key: Any) -> np.ndarray:
    """Returns SipHash-2-4 of every value under `key` (two integers), as a uint64 array.

    TensorFlow's `StrongKeyedHash`; strings are hashed as UTF-8 bytes,
    integers as their decimal text. The output has the input's shape.
    """
    k0, k1 = _check_key(key)
    shape, uniq, idx = _strings_and_layout(values)
    if len(idx) == 0:
        return np.zeros(shape, dtype=np.uint64)
    offsets = np.frombuffer(uniq.buffers()[1], dtype=np.int64)[uniq.offset : uniq.offset + len(uniq) + 1]
    data_buf = uniq.buffers()[2]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    hashes = _siphash(data, offsets[:-1], np.diff(offsets), k0, k1)
    return hashes[idx].reshape(shape)


def strong_hash_bucket(values: Any, num_buckets: int, key: Any) -> np.ndarray:
    """Returns `SipHash(key, value) % num_buckets` for every value (TF's `to_hash_bucket_strong`).

    Keras' `Hashing(num_bins, salt=...)` uses this with `key=salt` (an integer
    salt s is the key [s, s]). Returns an int64 array of the input's shape.
    """
    if not isinstance(num_buckets, (int, np.integer)) or isinstance(num_buckets, bool) or num_buckets < 1:
        raise ValueError(f"num_buckets must be a positive integer, got {num_buckets!r}")
    return (strong_hash64(values, key) % _U64(int(num_buckets))).astype(np.int64)
