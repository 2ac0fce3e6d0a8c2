"""The per-pass random numbers of a shuffle, made cheaply.

Pass `epoch` of a shuffle seeded with `seed` draws from
`np.random.default_rng([seed, epoch])`. Building that generator (numpy's
`SeedSequence` hashes the seed under `np.errstate`, then seeds a new PCG64)
costs more than shuffling a small dataset, and a small dataset repeated
forever opens a pass every few batches (120 Iris rows: every 4 batches of 32).
`pcg64_states` computes the PCG64 states of the next 64 epochs at once, with
SeedSequence's hash vectorized over the epochs, and `PassSeeds.permutation`
sets one reused generator to a pass's state: the same numbers as
`default_rng([seed, epoch])` for about half the cost. The emulation is checked
against numpy once per process; if numpy ever seeds differently, every pass
goes through `default_rng` again.
"""

from __future__ import annotations

import threading

import numpy as np

_MASK32 = 0xFFFFFFFF
_MASK128 = (1 << 128) - 1
_POOL = 4  # numpy's SeedSequence pool size, in 32-bit words
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG's default 128-bit multiplier
_BLOCK = 64  # epochs whose states are made at once
_FIRST_EMULATED = 2  # passes before it are few enough to build their generators
_PAIRS = [(src, dst) for src in range(_POOL) for dst in range(_POOL) if src != dst]


def _consts(init: int, mult: int, count: int) -> list[int]:
    """The successive hash constants SeedSequence uses (they do not depend on the data)."""
    out = [init]
    for _ in range(count - 1):
        out.append((out[-1] * mult) & _MASK32)
    return out


# hashmix k uses constants k and k + 1: 4 to fill the pool, 12 to mix it; 8 output words.
_A = _consts(0x43B0D7E5, 0x931E8875, _POOL + len(_PAIRS) + 1)
_B = _consts(0x8B51F9DD, 0x58F38DED, 2 * _POOL + 1)


def _words(n: int) -> list[int]:
    """The 32-bit entropy words SeedSequence takes from a non-negative int, low first."""
    out = [n & _MASK32]
    n >>= 32
    while n:
        out.append(n & _MASK32)
        n >>= 32
    return out


def pcg64_states(seed: int, first: int, count: int) -> list[tuple[int, int]] | None:
    """(state, inc) of the PCG64 of `np.random.default_rng([seed, e])` for the `count`
    epochs e from `first` on, with SeedSequence's hash vectorized over the epochs.

    None when the entropy does not fill numpy's pool the simple way (a seed of
    2**96 or more, an epoch of 2**32 or more, a negative number): ask numpy then.
    """
    if seed < 0 or first < 0 or first + count - 1 > _MASK32:
        return None
    seed_words = _words(seed)
    if len(seed_words) >= _POOL:
        return None
    entropy = np.zeros((_POOL, count), np.uint32)
    entropy[:len(seed_words)] = np.array(seed_words, np.uint32)[:, None]
    entropy[len(seed_words)] = np.arange(first, first + count, dtype=np.uint32)
    # SeedSequence.mix_entropy: hash the entropy into the pool, then every word into every
    # other; hashmix k multiplies by constant k + 1 after xoring constant k.
    a = np.array(_A, np.uint32)
    v = entropy ^ a[:_POOL, None]
    v *= a[1:_POOL + 1, None]
    v ^= v >> 16
    pool = list(v)
    for k, (src, dst) in enumerate(_PAIRS, start=_POOL):
        h = pool[src] ^ a[k]
        h *= a[k + 1]
        h ^= h >> 16
        r = pool[dst] * _MIX_L
        h *= _MIX_R
        r -= h
        r ^= r >> 16
        pool[dst] = r
    # SeedSequence.generate_state(4, np.uint64): 8 words from the pool, paired little-endian.
    b = np.array(_B, np.uint32)
    w = np.stack(pool)[np.arange(2 * _POOL) % _POOL] ^ b[:-1, None]
    w *= b[1:, None]
    w ^= w >> 16
    w = w.astype(np.uint64)
    w64 = (w[0::2] | (w[1::2] << np.uint64(32))).tolist()
    out = []
    for s_hi, s_lo, i_hi, i_lo in zip(*w64):
        inc = ((((i_hi << 64) | i_lo) << 1) | 1) & _MASK128
        state = (inc + ((s_hi << 64) | s_lo)) & _MASK128  # pcg64_set_seed: step from 0,
        out.append(((state * _PCG_MULT + inc) & _MASK128, inc))  # add the seed, step again
    return out


_VERIFIED: bool | None = None
_VERIFY_LOCK = threading.Lock()


def emulation_matches_numpy() -> bool:
    """True if `pcg64_states` seeds as this numpy does (checked once per process)."""
    global _VERIFIED
    if _VERIFIED is None:
        with _VERIFY_LOCK:
            ok = True
            for seed in (0, 1, 2**31 + 7, 2**62 + 12345, 2**64 + 5):
                states = pcg64_states(seed, 69999, 3) or [None] * 3
                for epoch, state in zip((69999, 70000, 70001), states):
                    ref = np.random.default_rng([seed, epoch]).bit_generator.state
                    ok = ok and ref["bit_generator"] == "PCG64" and state == (
                        ref["state"]["state"], ref["state"]["inc"])
                ok = ok and pcg64_states(seed, 0, 1) == [
                    tuple(np.random.default_rng([seed, 0]).bit_generator.state["state"].values())]
            _VERIFIED = ok
    return _VERIFIED


class PassSeeds:
    """The random numbers of each pass of a shuffle seeded with `seed`.

    `generator(epoch)` is `np.random.default_rng([seed, epoch])`;
    `permutation(epoch, n)` is `generator(epoch).permutation(n)`. From the third
    pass on, it sets one reused generator to the pass's state, made with those of
    the next epochs (`_BLOCK` at a time). Thread-safe.
    """

    __slots__ = ("_seed", "_first", "_states", "_gen", "_lock")

    def __init__(self, seed: int):
        self._seed = seed
        self._first: int | None = None  # the epoch of _states[0]
        self._states: list | None = None
        self._gen: np.random.Generator | None = None
        self._lock = threading.Lock()

    def __reduce__(self):  # copies and pickles hold the seed only (not the lock)
        return (PassSeeds, (self._seed,))

    def generator(self, epoch: int) -> np.random.Generator:
        """A new generator for pass `epoch`: `np.random.default_rng([seed, epoch])`."""
        return np.random.default_rng([self._seed, epoch])

    def permutation(self, epoch: int, n: int) -> np.ndarray:
        """`np.random.default_rng([seed, epoch]).permutation(n)`, without building it."""
        if epoch < _FIRST_EMULATED or not emulation_matches_numpy():
            return self.generator(epoch).permutation(n)
        with self._lock:
            if self._first is None or not 0 <= epoch - self._first < _BLOCK:
                self._first = epoch
                self._states = pcg64_states(self._seed, epoch, _BLOCK)
            if self._states is None:
                return self.generator(epoch).permutation(n)
            state, inc = self._states[epoch - self._first]
            if self._gen is None:
                self._gen = np.random.Generator(np.random.PCG64(0))
            self._gen.bit_generator.state = {
                "bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                "has_uint32": 0, "uinteger": 0,
            }
            return self._gen.permutation(n)


class PassCounter:
    """The number of the next pass of a dataset that randomizes each pass (a shuffle, a file
    list, a sampler): `next()` takes it. An iterator's `save()` records it with the seed
    (`value`), and `restore()` sets it back to replay the saved pass. Thread-safe; copies
    and pickles hold the number only."""

    __slots__ = ("_next", "_lock")

    def __init__(self, start: int = 0):
        self._next = int(start)
        self._lock = threading.Lock()

    def __reduce__(self):
        return (PassCounter, (self._next,))

    def next(self) -> int:
        """The number of the pass being opened; the counter moves on to the next."""
        with self._lock:
            number = self._next
            self._next += 1
            return number

    @property
    def value(self) -> int:
        """The number the next pass will get."""
        return self._next

    @value.setter
    def value(self, number: int) -> None:
        with self._lock:
            self._next = int(number)
