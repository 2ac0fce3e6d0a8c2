"""TF's `tf.random_index_shuffle(index, seed, max_index, rounds=4)`: the position of `index` in a
pseudorandom permutation of [0, ..., max_index], as TF 2.15's kernel computes it
(`core/kernels/random_index_shuffle.cc`): a Simon block cipher with the seed as its 3-word key,
on the smallest even block of at least 16 bits holding max_index, cycle-walked until the
result is <= max_index."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator.errors import InvalidArgumentError

_DTYPES = (torch.int32, torch.int64, torch.uint32, torch.uint64)


def _rotl(x: int, r: int, w: int, mask: int) -> int:
    return ((x << r) | (x >> (w - r))) & mask


def _rotr(x: int, r: int, w: int, mask: int) -> int:
    return ((x >> r) | (x << (w - r))) & mask


def _key_schedule(key: tuple[int, int, int], rounds: int, w: int) -> list[int]:
    mask = (1 << w) - 1
    c = 0xFFFFFFFC & mask
    z = 0x7369F885192C0EF5 & mask
    rk = [k & mask for k in key]
    for i in range(3, rounds):
        rk.append(c ^ (z & 1) ^ rk[i - 3] ^ _rotr(rk[i - 1], 3, w, mask) ^ _rotr(rk[i - 1], 4, w, mask))
        z >>= 1
    return rk


def _simon_f(x: int, w: int, mask: int) -> int:
    return (_rotl(x, 1, w, mask) & _rotl(x, 8, w, mask)) ^ _rotl(x, 2, w, mask)


def _encrypt(value: int, round_keys: list[int], w: int) -> int:
    mask = (1 << w) - 1
    left, right = (value >> w) & mask, value & mask
    for i in range(0, len(round_keys) - 1, 2):
        left ^= _simon_f(right, w, mask)
        left ^= round_keys[i]
        right ^= _simon_f(left, w, mask)
        right ^= round_keys[i + 1]
    return (left << w) | right


def index_shuffle(index: int, key: tuple[int, int, int], max_index: int, rounds: int) -> int:
    """TF's `random::index_shuffle` for one index."""
    if max_index == 0:
        return 0
    block = math.ceil(math.log2(max_index))
    block = max(block + block % 2, 16)
    w = min(block, 64) // 2
    round_keys = _key_schedule(key, rounds, w)
    new_index = index
    while True:
        new_index = _encrypt(new_index, round_keys, w)
        if new_index <= max_index:
            return new_index


def random_index_shuffle(index: Any, seed: Any, max_index: Any, rounds: int = 4, name: str | None = None) -> Any:
    """Outputs the position of `value` in a permutation of [0, ..., max_index] (TF's
    `tf.random_index_shuffle`): `index` a scalar or vector of int32/int64/uint32/uint64 in
    [0, max_index], `seed` of shape [3] (or [n, 3]), `max_index` a scalar or vector; the
    result has `index`'s dtype and is a bijection of `index` for a given seed and max_index."""
    if rounds < 4 or rounds % 2:
        raise InvalidArgumentError(None, None, f"rounds must be an even integer >= 4, got {rounds}")
    index_t = convert_to_tensor(index)
    max_t = convert_to_tensor(max_index, dtype=index_t.dtype) if not isinstance(max_index, torch.Tensor) \
        else max_index
    seed_t = convert_to_tensor(seed)
    if index_t.dtype not in _DTYPES or seed_t.dtype not in _DTYPES:
        raise TypeError(f"random_index_shuffle: index and seed must be int32, int64, uint32 or uint64; got "
                        f"{index_t.dtype} and {seed_t.dtype}.")
    if max_t.dtype != index_t.dtype:
        raise TypeError(f"random_index_shuffle: max_index must have index's dtype {index_t.dtype}, got {max_t.dtype}.")
    if index_t.dim() > 1 or max_t.dim() > 1 or seed_t.dim() not in (1, 2) or seed_t.shape[-1] != 3:
        raise InvalidArgumentError(None, None, "index and max_index must be scalars or vectors and seed of shape [3] "
                                               f"or [n, 3]; got {list(index_t.shape)}, {list(max_t.shape)}, "
                                               f"{list(seed_t.shape)}")
    indices = [int(v) for v in index_t.reshape(-1).tolist()]
    maxes = [int(v) for v in max_t.reshape(-1).tolist()]
    seeds = [[int(v) & 0xFFFFFFFF for v in row] for row in seed_t.reshape(-1, 3).tolist()]
    n = max(len(indices), len(maxes), len(seeds))
    for what, values in (("index", indices), ("max_index", maxes), ("seed", seeds)):
        if len(values) not in (1, n):
            raise InvalidArgumentError(None, None, f"random_index_shuffle: the first dimension of {what} "
                                                   f"({len(values)}) must match the others ({n}).")
    out = []
    for i in range(n):
        idx, top, key = indices[i % len(indices)], maxes[i % len(maxes)], seeds[i % len(seeds)]
        if not 0 <= idx <= top:
            raise InvalidArgumentError(None, None, f"Index {idx} must be within [0, {top}].")
        out.append(index_shuffle(idx, tuple(key), top, rounds))
    result = torch.tensor(np.array(out, dtype=np.uint64).astype(np.int64)).to(index_t.dtype)
    scalar = index_t.dim() == 0 and max_t.dim() == 0 and seed_t.dim() == 1
    return result.reshape(()) if scalar else result


__all__ = ["random_index_shuffle"]
