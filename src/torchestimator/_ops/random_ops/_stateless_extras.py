"""tf.random's stateless binomial and parameterized truncated normal, and tf.random.experimental's
index_shuffle and stateless_shuffle: pure functions of their seed, drawn with this project's
stateless generator (so the same seed gives the same values, though not TF's Philox stream).

`philox_stateless_uniform` is TF's own stream: Philox-4x32-10 keyed from the seed as TF's
`StatelessRandomGetKeyCounter` does, bit-identical to `tf.random.stateless_uniform` (float
dtypes, `alg` 'auto_select' / 'philox' on CPU); tf.nn.experimental.stateless_dropout uses it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.random_ops._samplers import _shape
from torchestimator._ops.random_ops._seeds import Tensor, _mix, _seed_pair, _stateless_generator
from torchestimator.errors import InvalidArgumentError

_BINOMIAL_DTYPES = (torch.float16, torch.float32, torch.float64, torch.int32, torch.int64)


def _param(value: Any, dtype: torch.dtype, shape: tuple[int, ...], op: str, arg: str) -> Tensor:
    t = value if isinstance(value, Tensor) else torch.as_tensor(np.asarray(value))
    t = t.to(dtype)
    try:
        return torch.broadcast_to(t, shape)
    except RuntimeError:
        raise InvalidArgumentError(
            None, None, f"{op}: `{arg}` of shape {list(t.shape)} does not broadcast to the "
            f"output shape {list(shape)}.") from None


class _PhiloxStream:
    """A scalar Philox-4x32-10 generator (TF's random::PhiloxRandom): `next()` gives 4 uint32s
    and advances the 128-bit counter; `skip(n)` advances it n blocks."""

    def __init__(self, key: tuple[int, int], counter: list[int]) -> None:
        self.key = key
        self.counter = list(counter)

    def skip(self, n: int) -> None:
        value = sum(c << (32 * i) for i, c in enumerate(self.counter)) + n
        self.counter = [(value >> (32 * i)) & 0xFFFFFFFF for i in range(4)]

    def next(self) -> list[int]:
        c = list(self.counter)
        k0, k1 = self.key
        for _ in range(10):
            p0 = 0xD2511F53 * c[0]
            p1 = 0xCD9E8D57 * c[2]
            c = [((p1 >> 32) ^ c[1] ^ k0) & 0xFFFFFFFF, p1 & 0xFFFFFFFF,
                 ((p0 >> 32) ^ c[3] ^ k1) & 0xFFFFFFFF, p0 & 0xFFFFFFFF]
            k0 = (k0 + _W0) & 0xFFFFFFFF
            k1 = (k1 + _W1) & 0xFFFFFFFF
        self.skip(1)
        return c

    def doubles(self) -> list[float]:
        """TF's UniformDistribution<PhiloxRandom, double>: two doubles in [0, 1)."""
        x = self.next()
        out = []
        for hi, lo in ((x[0], x[1]), (x[2], x[3])):
            man = ((hi & 0xFFFFF) << 32) | lo
            out.append(np.array([(1023 << 52) | man], dtype=np.uint64).view(np.float64)[0]
                       - 1.0)
        return out


class _Uniforms:
    """TF's UNIFORM(X) macro: doubles taken from the end of each generated pair."""

    def __init__(self, gen: _PhiloxStream) -> None:
        self.gen = gen
        self.pending: list[float] = []

    def __call__(self) -> float:
        if not self.pending:
            self.pending = self.gen.doubles()
        return float(self.pending.pop())


def _binomial_inversion(count: float, prob: float, gen: _PhiloxStream) -> float:
    uniform = _Uniforms(gen)
    geom_sum, num_geom = 0.0, 0
    denom = math.log1p(-prob)
    while True:
        u = uniform()
        geom_sum += math.ceil((math.log(u) if u > 0 else -math.inf) / denom)
        if geom_sum > count:
            return float(num_geom)
        num_geom += 1


_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _btrs(count: float, prob: float, gen: _PhiloxStream) -> float:
    """Hormann's transformed rejection, exactly as TF's kernel (random_binomial_op.cc)."""
    uniform = _Uniforms(gen)
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = uniform()
        v = uniform()
        u = u - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or k > count:
            continue
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upper:
            return float(k)


def stateless_binomial(shape: Any, seed: Any, counts: Any, probs: Any,
                       output_dtype: Any = torch.int32, name: str | None = None) -> Tensor:
    """Outputs deterministic pseudorandom numbers from a binomial distribution (TF's
    `tf.random.stateless_binomial`): each value is the number of successes in `counts` trials
    of probability `probs`; `shape` ends with the broadcast shape of `counts` and `probs`.
    Drawn as TF's kernel draws them (Philox from the seed, inversion below 10 expected
    successes, Hormann's BTRS above), so the values are TF's.

    Returns:
        A tensor of `shape` and `output_dtype` (half, float32, float64, int32, int64).
    """
    op = "random.stateless_binomial"
    out = _shape(shape, op)
    dtype = _dtypes.as_dtype(output_dtype)
    if dtype not in _BINOMIAL_DTYPES:
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'dtype' of {dtype_name(dtype)} is not in the list "
            "of allowed values: half, float, double, int32, int64 (`output_dtype`).")
    wide = any(isinstance(v, Tensor) and v.dtype is torch.float64 for v in (counts, probs))
    t_dtype = np.float64 if wide else np.float32
    c_arr = (counts.detach().cpu().numpy() if isinstance(counts, Tensor)
             else np.asarray(counts)).astype(t_dtype)
    p_arr = (probs.detach().cpu().numpy() if isinstance(probs, Tensor)
             else np.asarray(probs)).astype(t_dtype)
    try:
        batch_shape = np.broadcast_shapes(c_arr.shape, p_arr.shape)
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"{op}: counts and probs must have compatible batch dimensions: "
            f"{list(c_arr.shape)} vs. {list(p_arr.shape)}") from None
    if len(batch_shape) > len(out) or tuple(out[len(out) - len(batch_shape):]) != batch_shape:
        raise InvalidArgumentError(
            None, None, f"{op}: Shape passed in must end with broadcasted shape: `shape` "
            f"{list(out)} vs. the shape of counts and probs {list(batch_shape)}.")
    c_flat = np.broadcast_to(c_arr, batch_shape).reshape(-1)
    p_flat = np.broadcast_to(p_arr, batch_shape).reshape(-1)
    num_batches = int(np.prod(batch_shape)) if batch_shape else 1
    total = int(np.prod(out)) if out else 1
    samples = total // num_batches if num_batches else 0
    key, counter = _philox_key_counter(*_seed_pair(seed, op))
    values = np.zeros((samples, num_batches), dtype=np.float64)
    for batch in range(num_batches):
        count, prob = c_flat[batch], p_flat[batch]
        dcount = float(count)
        for sample in range(samples):
            index = batch * samples + sample
            if dcount <= 0.0 or prob <= 0:
                value = 0.0
            elif prob >= 1:
                value = dcount
            elif math.isnan(float(prob)):
                value = math.nan
            else:
                flip = prob > t_dtype(0.5)
                q = t_dtype(1) - prob if flip else prob
                gen = _PhiloxStream(key, counter)
                if count * q >= t_dtype(10):
                    gen.skip(256 * index)
                    value = _btrs(dcount, float(q), gen)
                else:
                    gen.skip(42 * index)
                    value = _binomial_inversion(dcount, float(q), gen)
                if flip:
                    value = dcount - value
            values[sample, batch] = value
    return torch.from_numpy(values.reshape(out)).to(dtype)


def stateless_parameterized_truncated_normal(shape: Any, seed: Any, means: Any = 0.0,
                                             stddevs: Any = 1.0, minvals: Any = -2.0,
                                             maxvals: Any = 2.0,
                                             name: str | None = None) -> Tensor:
    """Outputs deterministic pseudorandom values from a normal distribution of mean `means`
    and standard deviation `stddevs` truncated to `[minvals, maxvals]` (TF's
    `tf.random.stateless_parameterized_truncated_normal`; parameters broadcast to `shape`),
    by the inverse CDF.

    Returns:
        A tensor of `shape`, of the dtype of `means` (float32 for Python numbers).
    """
    op = "random.stateless_parameterized_truncated_normal"
    out = _shape(shape, op)
    dtype = means.dtype if isinstance(means, Tensor) else torch.float32
    if dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        raise InvalidArgumentError(None, None, f"{op}: `means` must be floating point, got "
                                   f"{dtype_name(dtype)}.")
    mu = _param(means, torch.float64, out, op, "means")
    sd = _param(stddevs, torch.float64, out, op, "stddevs")
    lo = _param(minvals, torch.float64, out, op, "minvals")
    hi = _param(maxvals, torch.float64, out, op, "maxvals")
    if bool((sd <= 0).any()):
        raise InvalidArgumentError(None, None, f"{op}: `stddevs` must be > 0.")
    if bool((lo >= hi).any()):
        raise InvalidArgumentError(None, None, f"{op}: every `minvals` must be < its "
                                   "`maxvals`.")
    gen = _stateless_generator(seed, op)
    u = torch.rand(out, generator=gen, dtype=torch.float64)
    a, b = (lo - mu) / sd, (hi - mu) / sd
    # sample the side nearer the mass: for a > 0 use the upper tail (1 - Phi) for accuracy
    upper = a > 0
    pa = torch.where(upper, torch.special.ndtr(-a), torch.special.ndtr(a))
    pb = torch.where(upper, torch.special.ndtr(-b), torch.special.ndtr(b))
    q = pa + u * (pb - pa)
    z = torch.special.ndtri(q.clamp(1e-300, 1.0 - 1e-16))
    z = torch.where(upper, -z, z)
    z = torch.minimum(torch.maximum(z, a), b)
    return (mu + sd * z).to(dtype)


# ----------------------------------------------------------------------------- TF's Philox
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LOW32 = np.uint64(0xFFFFFFFF)


def _philox(ctr: list[np.ndarray], key: tuple[int, int]) -> list[np.ndarray]:
    """Philox-4x32-10 on counters `ctr` (4 arrays of 32-bit values held in uint64)."""
    c = [v.copy() for v in ctr]
    k0, k1 = key
    for _ in range(10):
        p0 = _M0 * c[0]
        p1 = _M1 * c[2]
        hi0, lo0 = p0 >> np.uint64(32), p0 & _LOW32
        hi1, lo1 = p1 >> np.uint64(32), p1 & _LOW32
        c = [hi1 ^ c[1] ^ np.uint64(k0), lo1, hi0 ^ c[3] ^ np.uint64(k1), lo0]
        k0 = (k0 + _W0) & 0xFFFFFFFF
        k1 = (k1 + _W1) & 0xFFFFFFFF
    return c


def _philox_key_counter(seed0: int, seed1: int) -> tuple[tuple[int, int], list[int]]:
    """TF's GenerateKey: the Philox key and counter of a stateless op's seed pair."""
    s0, s1 = seed0 & (2 ** 64 - 1), seed1 & (2 ** 64 - 1)
    ctr = [np.array([v], dtype=np.uint64) for v in (s0 & 0xFFFFFFFF, s0 >> 32,
                                                    s1 & 0xFFFFFFFF, s1 >> 32)]
    mix = _philox(ctr, (0x3EC8F720, 0x02461E29))
    return (int(mix[0][0]), int(mix[1][0])), [0, 0, int(mix[2][0]), int(mix[3][0])]


def _philox_bits(count: int, seed: Any, op: str) -> np.ndarray:
    """The first `count` 32-bit outputs of TF's stateless Philox stream for `seed`."""
    key, ctr = _philox_key_counter(*_seed_pair(seed, op))
    i = np.arange((count + 3) // 4, dtype=np.uint64)
    c0 = np.uint64(ctr[0]) + i
    carry = c0 >> np.uint64(32)
    c1 = np.uint64(ctr[1]) + carry
    carry = c1 >> np.uint64(32)
    c2 = np.uint64(ctr[2]) + carry
    carry = c2 >> np.uint64(32)
    c3 = np.uint64(ctr[3]) + carry
    out = _philox([c0 & _LOW32, c1 & _LOW32, c2 & _LOW32, c3 & _LOW32], key)
    return np.stack(out, axis=1).reshape(-1)[:count].astype(np.uint32)


def philox_stateless_uniform(shape: Any, seed: Any, dtype: Any = torch.float32) -> Tensor:
    """TF's `tf.random.stateless_uniform(shape, seed, dtype=dtype)` in [0, 1), bit for bit
    (Philox; float16, bfloat16, float32, float64).

    Returns:
        A tensor of `shape` and `dtype`.
    """
    op = "random.stateless_uniform"
    dims = _shape(shape, op)
    n = int(np.prod(dims)) if dims else 1
    want = _dtypes.as_dtype(dtype)
    if want is torch.float64:
        bits = _philox_bits(2 * n, seed, op).astype(np.uint64)
        rng = (bits[0::2] << np.uint64(32)) | bits[1::2]
        man = rng & np.uint64((1 << 52) - 1)
        values = (man | np.uint64(1023 << 52)).view(np.float64) - 1.0
    elif want is torch.float32:
        bits = _philox_bits(n, seed, op)
        values = (bits & np.uint32(0x7FFFFF) | np.uint32(127 << 23)).view(np.float32) - \
            np.float32(1.0)
    elif want in (torch.float16, torch.bfloat16):
        bits = _philox_bits(n, seed, op).astype(np.uint16)
        if want is torch.float16:
            values = (bits & np.uint16(0x3FF) | np.uint16(15 << 10)).view(np.float16) - \
                np.float16(1.0)
            return torch.from_numpy(values.reshape(dims))
        raw = (bits & np.uint16(0x7F)) | np.uint16(127 << 7)
        ones = torch.from_numpy(raw.astype(np.int16)).view(torch.bfloat16)
        return (ones - 1.0).reshape(dims)
    else:
        raise InvalidArgumentError(None, None, f"{op}: dtype must be floating point, got "
                                   f"{dtype_name(want)}.")
    return torch.from_numpy(np.ascontiguousarray(values).reshape(dims))


# ----------------------------------------------------------------------------- index_shuffle
_MASK64 = (1 << 64) - 1


def _round_fn(r: np.ndarray, key: int, mask: int) -> np.ndarray:
    x = (r.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(key & _MASK64)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    return (x & np.uint64(mask)).astype(np.uint64)


def _feistel(values: np.ndarray, keys: list[int], half_bits: int) -> np.ndarray:
    mask = (1 << half_bits) - 1
    left = (values >> np.uint64(half_bits)) & np.uint64(mask)
    right = values & np.uint64(mask)
    for key in keys:
        left, right = right, left ^ _round_fn(right, key, mask)
    return (left << np.uint64(half_bits)) | right


def index_shuffle(index: Any, seed: Any, max_index: Any) -> Tensor:
    """Outputs the position of `index` in a pseudorandom permutation of `[0, ..., max_index]`
    (TF's `tf.random.experimental.index_shuffle`): a bijection that is a pure function of
    `seed` (shape [2]); vectors of indices, seeds ([n, 2]) or maxima shuffle elementwise.

    Returns:
        A tensor of `index`'s shape (broadcast with the others) and dtype.
    """
    op = "random.experimental.index_shuffle"
    idx_t = index if isinstance(index, Tensor) else torch.as_tensor(np.asarray(index))
    allowed = {torch.int32, torch.int64} | {getattr(torch, n) for n in ("uint32", "uint64")
                                            if hasattr(torch, n)}
    if idx_t.dtype not in allowed:
        raise InvalidArgumentError(None, None, f"{op}: `index` must be int32, int64, uint32 or "
                                   f"uint64, got {dtype_name(idx_t.dtype)}.")
    seeds = seed.cpu().numpy() if isinstance(seed, Tensor) else np.asarray(seed)
    if seeds.ndim == 1:
        pairs = [_seed_pair(seeds, op)]
    elif seeds.ndim == 2 and seeds.shape[1] == 2:
        pairs = [_seed_pair(s, op) for s in seeds]
    else:
        raise InvalidArgumentError(None, None, f"{op}: `seed` must have shape [2] or [n, 2], "
                                   f"got {list(seeds.shape)}.")
    idx = idx_t.cpu().numpy().astype(np.int64)
    top = max_index.cpu().numpy() if isinstance(max_index, Tensor) else np.asarray(max_index)
    top = top.astype(np.int64)
    n = max(idx.size, top.size, len(pairs))
    if idx.ndim > 1 or top.ndim > 1 or any(s not in (1, n) for s in (idx.size, top.size,
                                                                       len(pairs))):
        raise InvalidArgumentError(None, None, f"{op}: `index`, `seed` and `max_index` must be "
                                   "scalars (seed [2]) or vectors of one length.")
    if bool((top < 0).any()) or bool((idx < 0).any()) or bool((idx > top).any()):
        raise InvalidArgumentError(None, None, f"{op}: need 0 <= index <= max_index, got "
                                   f"index {idx.tolist()} and max_index {top.tolist()}.")
    idx_b = np.broadcast_to(idx.reshape(-1), (n,))
    top_b = np.broadcast_to(top.reshape(-1), (n,))
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        s0, s1 = pairs[i if len(pairs) > 1 else 0]
        keys = [_mix(_mix(s0, s1), r) for r in range(4)]
        limit = int(top_b[i])
        bits = max(1, limit.bit_length())
        half = (bits + 1) // 2
        v = np.array([idx_b[i]], dtype=np.uint64)
        v = _feistel(v, keys, half)
        while int(v[0]) > limit:  # cycle walking: stays a bijection of [0, limit]
            v = _feistel(v, keys, half)
        out[i] = int(v[0])
    result = torch.from_numpy(out.reshape(() if idx.ndim == 0 and n == 1 else (n,)))
    return result.to(idx_t.dtype)


def stateless_shuffle(value: Any, seed: Any, alg: Any = "auto_select",
                      name: str | None = None) -> Tensor:
    """Randomly and deterministically shuffles `value` along its first dimension (TF's
    `tf.random.experimental.stateless_shuffle`).

    Returns:
        A tensor of `value`'s shape and dtype.
    """
    op = "random.experimental.stateless_shuffle"
    t = value if isinstance(value, Tensor) else torch.as_tensor(np.asarray(value))
    if t.ndim == 0:
        raise InvalidArgumentError(None, None, f"{op}: `value` must have rank >= 1, got a "
                                   "scalar.")
    gen = _stateless_generator(seed, op)
    return t[torch.randperm(t.shape[0], generator=gen).to(t.device)]
