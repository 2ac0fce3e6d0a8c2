"""tf.random.Generator and the global generator (get_global_generator, set_global_generator)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor
from torchestimator._ops.random_ops._samplers import (
    _dtype,
    _full_range_int,
    _normal,
    _shape,
    _truncated,
    _uniform,
)
from torchestimator._ops.random_ops._seeds import Tensor, _device, _mix

# ----------------------------------------------------------------------------- tf.random.Generator


def _key_counter_seed(key: Any, counter: Any) -> list[int]:
    """The key (a scalar) and the counter (a vector, [2] for Philox) as one flat seed list."""
    return [int(v) for part in (key, counter) for v in np.asarray(part).reshape(-1).tolist()]


#: The dtypes `Generator.uniform_full_int` makes (TF's list).
_FULL_INT_DTYPES = (torch.int32, torch.int64, torch.uint32, torch.uint64)

_ALGORITHM_IDS = {"philox": 1, "threefry": 2, "auto_select": 1}


def _algorithm_id(alg: Any) -> int:
    """TF's id of the algorithm `alg` names (None, a name, an `Algorithm` or its int value):
    'auto_select' and None resolve to Philox, as TF's do on a CPU and a GPU."""
    if alg is None:
        return 1
    value = getattr(alg, "value", alg)
    if isinstance(value, int) and not isinstance(value, bool) and value in (1, 2, 3):
        return 1 if value == 3 else value
    if isinstance(value, str) and value.lower() in _ALGORITHM_IDS:
        return _ALGORITHM_IDS[value.lower()]
    raise ValueError(f"Unsupported random algorithm {alg!r}; use 'philox', 'threefry' or "
                     "'auto_select' (or tf.random.Algorithm's members).")


class Generator:
    """A random number generator object, as TF's `tf.random.Generator`, over a `torch.Generator`.

    Create it with `Generator.from_seed(seed)` or `Generator.from_non_deterministic_state()`; its
    methods (`normal`, `uniform`, `truncated_normal`, `uniform_full_int`, `binomial`,
    `make_seeds`, `split`) advance its state. `state` is torch's generator state (a uint8 tensor,
    not TF's [3] int64 Philox state) and `reset(state)` restores it. The values differ from TF's.
    """

    def __init__(
        self, copy_from: Generator | None = None, state: Any = None, alg: Any = None
    ) -> None:
        self._alg = _algorithm_id(alg if copy_from is None or alg is not None else copy_from._alg)
        if copy_from is not None:
            self._seed = copy_from._seed
            self._generators = {}
            self._cpu().set_state(copy_from._cpu().get_state())
        else:
            self._seed = torch.Generator().seed() if state is None else None
            self._generators = {}
            if state is not None:
                self.reset(state)

    # -- construction
    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        """Creates a generator from a seed (an integer, or a list/tensor of integers).

        Returns:
            The new generator.
        """
        generator = cls.__new__(cls)
        generator._alg = _algorithm_id(alg)
        generator._generators = {}
        generator.reset_from_seed(seed)
        return generator

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """Creates a generator seeded non-deterministically.

        Returns:
            The new generator.
        """
        return cls(alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any = None) -> Generator:
        """Creates a generator from a state returned by another generator's `state`.

        Returns:
            The new generator.
        """
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any = None) -> Generator:
        """Creates a generator from a key and a counter (folded into one seed here).

        Returns:
            The new generator.
        """
        return cls.from_seed(_key_counter_seed(key, counter), alg=alg)

    # -- state
    def _cpu(self) -> torch.Generator:
        return self._on(torch.device("cpu"))

    def _on(self, device: torch.device) -> torch.Generator:
        key = str(device)
        generator = self._generators.get(key)
        if generator is None:
            generator = torch.Generator(device=device)
            if self._seed is not None:
                generator.manual_seed(self._seed)
            self._generators[key] = generator
        return generator

    def _gen(self) -> torch.Generator:
        return self._on(_device())

    @property
    def state(self) -> Tensor:
        """The CPU generator's state (torch's uint8 state tensor)."""
        return self._cpu().get_state()

    @property
    def algorithm(self) -> int:
        """The RNG algorithm's id, as TF's: 1 (Philox, which the default 'auto_select' picks)
        or 2 (ThreeFry). The numbers come from torch's generator whichever it is."""
        return self._alg

    @property
    def key(self) -> int:
        """The seed this generator was created from (`initial_seed`)."""
        return self._cpu().initial_seed()

    def reset(self, state: Any) -> None:
        """Resets the generator to a `state` read from `state`."""
        self._seed = None
        self._generators = {}
        self._cpu().set_state(torch.as_tensor(state, dtype=torch.uint8))

    def reset_from_seed(self, seed: Any) -> None:
        """Resets the generator as if created by `from_seed(seed)`."""
        if isinstance(seed, Tensor):
            seed = seed.tolist()
        values = [int(v) for v in np.asarray(seed).reshape(-1).tolist()]
        mixed = 0
        for value in values:
            mixed = _mix(mixed, value)
        self._seed = mixed
        self._generators = {}

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        """Resets the generator from a key and a counter."""
        self.reset_from_seed(_key_counter_seed(key, counter))

    def skip(self, delta: int) -> None:
        """Advances the generator by drawing and discarding `delta` numbers."""
        if int(delta) > 0:
            torch.empty(int(delta), dtype=torch.float64, device=_device()).uniform_(
                generator=self._gen()
            )

    # -- sampling
    def normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = torch.float32,
        name: str | None = None,
    ) -> Tensor:
        """Outputs random values from a normal distribution.

        Returns:
            A tensor of the specified shape filled with random normal values.
        """
        return _normal(shape, mean, stddev, dtype, self._gen(), "Generator.normal")

    def uniform(
        self,
        shape: Any,
        minval: Any = 0,
        maxval: Any = None,
        dtype: Any = torch.float32,
        name: str | None = None,
    ) -> Tensor:
        """Outputs random values from a uniform distribution in `[minval, maxval)` (integer
        dtypes: both bounds set, or both None for the full range).

        Returns:
            A tensor of the specified shape filled with random uniform values.
        """
        return _uniform(shape, minval, maxval, dtype, self._gen(), "Generator.uniform", True)

    def truncated_normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = torch.float32,
        name: str | None = None,
    ) -> Tensor:
        """Outputs random values from a truncated normal distribution (within two stddevs).

        Returns:
            A tensor of the specified shape filled with random truncated normal values.
        """
        return _truncated(shape, mean, stddev, dtype, self._gen(), "Generator.truncated_normal")

    def uniform_full_int(
        self, shape: Any, dtype: Any = torch.uint64, name: str | None = None
    ) -> Tensor:
        """Uniform integers covering the whole range of `dtype` (uint64, the default, uint32,
        int32 or int64).

        Returns:
            A tensor of the specified shape.
        """
        want = _dtype(dtype, _FULL_INT_DTYPES, "Generator.uniform_full_int")
        gen = self._gen()
        shape = _shape(shape, "Generator.uniform_full_int")
        if want is torch.uint32:
            return torch.randint(0, 2**32, shape, generator=gen, dtype=torch.int64,
                                 device=gen.device).to(torch.uint32)
        if want is torch.uint64:  # the 64 random bits of an int64, read as unsigned
            return _full_range_int(shape, torch.int64, gen, gen.device).view(torch.uint64)
        return _full_range_int(shape, want, gen, gen.device)

    def binomial(
        self, shape: Any, counts: Any, probs: Any, dtype: Any = torch.int32, name: str | None = None
    ) -> Tensor:
        """Outputs samples of binomial distributions with `counts` trials and success `probs`.

        Returns:
            A tensor of the specified shape, of `dtype`.
        """
        op = "Generator.binomial"
        shape = _shape(shape, op)
        gen = self._gen()
        counts = convert_to_tensor(counts, dtype_hint=torch.float32).to(gen.device, torch.float32)
        probs = convert_to_tensor(probs, dtype_hint=torch.float32).to(gen.device, torch.float32)
        counts, probs = (
            t.expand(shape).contiguous() for t in torch.broadcast_tensors(counts, probs)
        )
        return torch.binomial(counts, probs, generator=gen).to(_dtypes.as_dtype(dtype))

    def make_seeds(self, count: int = 1) -> Tensor:
        """Generates seeds for stateless random ops.

        Returns:
            An int64 tensor of shape `[2, count]`.
        """
        return torch.randint(
            -(2**62), 2**62, (2, int(count)), generator=self._cpu(), dtype=torch.int64
        )

    def split(self, count: int = 1) -> list[Generator]:
        """Returns `count` new generators seeded from this one (this one's state advances).

        Returns:
            A list of `count` generators.
        """
        seeds = self.make_seeds(count)
        return [Generator.from_seed(seeds[:, i]) for i in range(int(count))]


_global_generator: Generator | None = None


def get_global_generator() -> Generator:
    """Retrieves the global generator, created non-deterministically on first use, as TF's
    `tf.random.get_global_generator`.

    Returns:
        The global `tf.random.Generator`.
    """
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Replaces the global generator with `generator`, as TF's `tf.random.set_global_generator`."""
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"set_global_generator expects a tf.random.Generator, got {type(generator).__name__}."
        )
    _global_generator = generator
