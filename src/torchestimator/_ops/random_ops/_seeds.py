"""TF's two-level seeds over torch generators: the global seed (tf.random.set_seed), the per-(op,
global seed, op seed) generators, and the generators of the stateless ops' seed pairs."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._engine.loop import to_device
from torchestimator._ops.convert import dtype_name, op_device
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor

DEFAULT_GRAPH_SEED = 87654321
_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_INT_DTYPES = (torch.int32, torch.int64)

_global_seed: int | None = None
_op_generators: dict[tuple[str, int, int, str], torch.Generator] = {}


# ----------------------------------------------------------------------------- seeds


def set_seed(seed: int | None) -> None:
    """Sets the global random seed, as TF's `tf.random.set_seed`.

    Also seeds torch (`torch.manual_seed`), so ops without an op-level seed repeat their
    sequence after the same `set_seed`; ops with `seed=` restart their per-(global, op) seed
    sequence. `set_seed(None)` clears the global seed (torch's generator is reseeded randomly).

    Returns:
        None.
    """
    global _global_seed
    _op_generators.clear()
    if seed is None:
        _global_seed = None
        torch.seed()
        return
    if isinstance(seed, Tensor):
        seed = int(seed.item())
    _global_seed = int(seed)
    torch.manual_seed(_global_seed & _MASK64)


def get_global_seed() -> int | None:
    """The global seed set by `set_seed` (None when unset). Not a TF name; used by other modules."""
    return _global_seed


def _mix(a: int, b: int) -> int:
    """A 64-bit seed from two integers (distinct pairs give distinct seeds for 32-bit `b`)."""
    return ((a & _MASK64) * _GOLDEN + (b & _MASK64)) & _MASK64


def _device() -> torch.device:
    """Where a random op draws its tensor: placed as TF places ops, on the GPU when there is one
    (`loop.op_device`), else torch's default device (the CPU, or a `tf.device` block's)."""
    return op_device() or torch.get_default_device()


def _op_generator(op: str, seed: Any, device: torch.device | None = None) -> torch.Generator | None:
    """The generator an op draws from: torch's default one (None) without an op seed, else the
    op kind's generator for the (global seed, op seed) pair, created on first use."""
    if seed is None:
        return None
    if isinstance(seed, Tensor):
        seed = seed.item()
    seed = int(seed)
    device = _device() if device is None else torch.device(device)
    global_seed = DEFAULT_GRAPH_SEED if _global_seed is None else _global_seed
    key = (op, global_seed, seed, str(device))
    generator = _op_generators.get(key)
    if generator is None:
        generator = torch.Generator(device=device)
        generator.manual_seed(_mix(global_seed, seed))
        _op_generators[key] = generator
    return generator


def _stateless_generator(seed: Any, op: str) -> torch.Generator:
    """A fresh host generator that is a pure function of a shape-[2] integer `seed`. Stateless
    ops draw on the host whatever the device (`_on_op_device` then moves the values), so that a
    seed gives the same values on a GPU as on the CPU, as TensorFlow promises ("consistent ...
    between CPU and GPU"); a CUDA generator's stream differs from the CPU's."""
    values = _seed_pair(seed, op)
    generator = torch.Generator()
    generator.manual_seed(_mix(values[0], values[1]))
    return generator


def _on_op_device(values: Tensor) -> Tensor:
    """A stateless op's values, drawn on the host, on the device TF's ops put tensors on: to a
    GPU as the loop copies a batch (pinned, without blocking the host)."""
    device = _device()
    return values if values.device == device else to_device(values, device)


def _seed_pair(seed: Any, op: str) -> tuple[int, int]:
    if isinstance(seed, Tensor):
        if seed.is_floating_point() or seed.dtype is torch.bool:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: seed must be an int32 or int64 tensor, got {dtype_name(seed.dtype)}.",
            )
        shape, values = list(seed.shape), seed.reshape(-1).tolist()
    else:
        array = np.asarray(seed)
        if array.dtype.kind not in "iu":
            raise InvalidArgumentError(None, None, f"{op}: seed must be integers, got {seed!r}.")
        shape, values = list(array.shape), array.reshape(-1).tolist()
    if shape != [2]:
        raise InvalidArgumentError(None, None, f"{op}: seed must have shape [2], not {shape}.")
    return int(values[0]), int(values[1])
