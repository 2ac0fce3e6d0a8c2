"""Candidate sampling (`tf.random.*_candidate_sampler`, `tf.nn.compute_accidental_hits`): the
negative classes of sampled softmax and NCE losses, with the expected count of each class
in the sample as TF computes it.

With `unique=False` a class is expected `num_sampled * P(class)` times; with `unique=True`
the sampler draws until it has `num_sampled` distinct classes, and a class is expected
`1 - (1 - P(class)) ** tries` times (`tries` the draws that took). The samples come from
torch's generator (seeded by `seed` or the global seed): the same distribution as TF's,
not TF's numbers.
"""

from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np
import torch

from torchestimator._ops import random_ops
from torchestimator._ops.convert import convert_to_tensor


class Algorithm(enum.Enum):
    """The random-number algorithms of TF's stateless and Generator APIs."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def create_rng_state(seed: int, alg: Any) -> np.ndarray:
    """The initial state of a random-number generator for `alg` ('philox' [3 int64] or
    'threefry' [2 int64]) from the integer `seed`, as TF's `create_rng_state`."""
    name = alg.name.lower() if isinstance(alg, Algorithm) else {1: "philox", 2: "threefry", 3: "auto_select"}.get(alg, alg)
    if name == "auto_select":
        name = "philox"
    if name not in ("philox", "threefry"):
        raise ValueError(f"Unsupported random algorithm {alg!r}; use 'philox' or 'threefry'.")
    size = 3 if name == "philox" else 2
    state, value = np.zeros(size, dtype=np.int64), int(seed)
    for i in range(size):
        state[i] = np.int64(np.uint64(value & 0xFFFFFFFFFFFFFFFF).astype(np.int64))
        value >>= 64
    return state


def _generator(seed: int | None) -> torch.Generator:
    if seed is None and getattr(random_ops, "_global_seed", None) is None:
        return torch.default_generator
    g = torch.Generator()
    g.manual_seed((int(seed) if seed is not None else 0) * 1000003 + int(getattr(random_ops, "_global_seed", 0) or 0))
    return g


def _check(true_classes: Any, num_true: int, num_sampled: int, range_max: int | None, owner: str) -> torch.Tensor:
    classes = convert_to_tensor(true_classes).to(torch.int64)
    if classes.ndim != 2 or classes.shape[1] != num_true:
        raise ValueError(f"{owner}: true_classes must be [batch_size, num_true={num_true}] int64; received shape "
                         f"{tuple(classes.shape)}.")
    if isinstance(num_sampled, bool) or int(num_sampled) < 1:
        raise ValueError(f"{owner}: num_sampled must be >= 1; received {num_sampled!r}.")
    if range_max is not None and int(range_max) < 1:
        raise ValueError(f"{owner}: range_max must be >= 1; received {range_max!r}.")
    return classes


def _sample(probs: torch.Tensor, num_sampled: int, unique: bool, seed: int | None, owner: str) -> tuple:
    """`(sampled [num_sampled] int64, tries)` from the class distribution `probs`."""
    generator = _generator(seed)
    if not unique:
        sampled = torch.multinomial(probs, num_sampled, replacement=True, generator=generator)
        return sampled, num_sampled
    if int((probs > 0).sum()) < num_sampled:
        raise ValueError(f"{owner}: unique sampling of {num_sampled} classes from {int((probs > 0).sum())} possible.")
    seen: dict[int, None] = {}
    tries = 0
    while len(seen) < num_sampled:
        draws = torch.multinomial(probs, max(2 * (num_sampled - len(seen)), 8), replacement=True,
                                  generator=generator).tolist()
        for d in draws:
            tries += 1
            seen.setdefault(d, None)
            if len(seen) == num_sampled:
                break
    return torch.tensor(list(seen), dtype=torch.int64), tries


def _expected(p: torch.Tensor, num_sampled: int, unique: bool, tries: int) -> torch.Tensor:
    p = p.to(torch.float64)
    if unique:
        return (-torch.expm1(tries * torch.log1p(-p))).to(torch.float32)
    return (p * num_sampled).to(torch.float32)


def _sampler(probs: torch.Tensor, true_classes: Any, num_true: int, num_sampled: int, unique: bool,
             seed: int | None, owner: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    classes = _check(true_classes, num_true, num_sampled, len(probs), owner)
    sampled, tries = _sample(probs, int(num_sampled), bool(unique), seed, owner)
    true_p = probs[classes.clamp(0, len(probs) - 1)] * ((classes >= 0) & (classes < len(probs)))
    return sampled, _expected(true_p, int(num_sampled), bool(unique), tries), \
        _expected(probs[sampled], int(num_sampled), bool(unique), tries)


def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed: int | None = None, name: str | None = None) -> tuple:
    """Samples classes uniformly from `[0, range_max)`. Returns `(sampled_candidates [num_sampled]
    int64, true_expected_count [batch, num_true], sampled_expected_count [num_sampled])`."""
    probs = torch.full((int(range_max),), 1.0 / int(range_max), dtype=torch.float64)
    return _sampler(probs, true_classes, num_true, num_sampled, unique, seed, "uniform_candidate_sampler")


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool, range_max: int,
                                  seed: int | None = None, name: str | None = None) -> tuple:
    """Samples classes from the log-uniform (Zipfian) distribution over `[0, range_max)`:
    `P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1)` (classes sorted by
    decreasing frequency)."""
    k = torch.arange(int(range_max), dtype=torch.float64)
    probs = (torch.log(k + 2) - torch.log(k + 1)) / math.log(int(range_max) + 1)
    return _sampler(probs, true_classes, num_true, num_sampled, unique, seed, "log_uniform_candidate_sampler")


def learned_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                                      range_max: int, seed: int | None = None, name: str | None = None) -> tuple:
    """Samples classes from the unigram distribution of the true classes seen (one count per
    class to start, plus the true classes of this call)."""
    classes = _check(true_classes, num_true, num_sampled, range_max, "learned_unigram_candidate_sampler")
    counts = torch.ones(int(range_max), dtype=torch.float64)
    valid = classes[(classes >= 0) & (classes < int(range_max))]
    counts += torch.bincount(valid.reshape(-1), minlength=int(range_max)).to(torch.float64)
    return _sampler(counts / counts.sum(), classes, num_true, num_sampled, unique, seed,
                    "learned_unigram_candidate_sampler")


def fixed_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                                    range_max: int, vocab_file: str = "", distortion: float = 1.0,
                                    num_reserved_ids: int = 0, num_shards: int = 1, shard: int = 0,
                                    unigrams: Any = (), seed: int | None = None, name: str | None = None) -> tuple:
    """Samples classes from given unigram counts (`unigrams`, or the last comma-separated
    column of each line of `vocab_file`), raised to `distortion`; the first
    `num_reserved_ids` classes have probability 0; with `num_shards`, only the classes
    `c % num_shards == shard` of this shard."""
    if vocab_file:
        from torchestimator._engine import gfile  # lazy: heavy (fsspec, 330 ms)

        with gfile.GFile(vocab_file, "r") as f:
            counts = [float(line.rsplit(",", 1)[-1]) for line in f.read().splitlines() if line.strip()]
    else:
        counts = [float(u) for u in unigrams]
    if not counts:
        raise ValueError("fixed_unigram_candidate_sampler: give unigrams or a vocab_file.")
    weights = torch.tensor([0.0] * int(num_reserved_ids) + counts, dtype=torch.float64) ** float(distortion)
    if num_reserved_ids:
        weights[: int(num_reserved_ids)] = 0.0
    if len(weights) != int(range_max):
        raise ValueError(f"fixed_unigram_candidate_sampler: range_max ({range_max}) must equal num_reserved_ids plus "
                         f"the number of unigrams ({len(weights)}).")
    if int(num_shards) > 1:
        weights[torch.arange(len(weights)) % int(num_shards) != int(shard)] = 0.0
    return _sampler(weights / weights.sum(), true_classes, num_true, num_sampled, unique, seed,
                    "fixed_unigram_candidate_sampler")


def all_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                          seed: int | None = None, name: str | None = None) -> tuple:
    """Returns every class `[0, num_sampled)` as the sample, each expected once (for testing)."""
    classes = _check(true_classes, num_true, num_sampled, None, "all_candidate_sampler")
    return (torch.arange(int(num_sampled), dtype=torch.int64), torch.ones(classes.shape, dtype=torch.float32),
            torch.ones(int(num_sampled), dtype=torch.float32))


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int, seed: int | None = None,
                            name: str | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The sampled candidates that are one of their example's true classes: `(indices, ids,
    weights)` — the example, the position in `sampled_candidates`, and -FLT_MAX to add to
    that logit."""
    classes = _check(true_classes, num_true, 1, None, "compute_accidental_hits")
    sampled = convert_to_tensor(sampled_candidates).to(torch.int64).reshape(-1)
    positions: dict[int, list[int]] = {}
    for j, value in enumerate(sampled.tolist()):
        positions.setdefault(value, []).append(j)
    rows, cols = [], []
    for i, row in enumerate(classes.tolist()):  # TF's order: by example, then by true class
        for value in row:
            for j in positions.get(value, ()):
                rows.append(i)
                cols.append(j)
    weights = torch.full((len(rows),), -torch.finfo(torch.float32).max, dtype=torch.float32)
    return torch.tensor(rows, dtype=torch.int32), torch.tensor(cols, dtype=torch.int64), weights
