"""The small decisions of `fit`/`evaluate`/`predict`: the `verbose` mode, whether an epoch
validates (`validation_freq`), the strategy whose scope is open, and how predicted batches are
joined."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import torch

from torchestimator.distribute import _strategy
from torchestimator.distribute._keras_replicas import ReplicaData
from torchestimator.keras._io_utils import is_interactive_logging_enabled


def resolve_verbose(verbose: Any) -> int:
    if verbose == "auto":
        return 1 if sys.stdout.isatty() and is_interactive_logging_enabled() else 2
    if verbose not in (0, 1, 2, True, False):
        raise ValueError(f"verbose must be 'auto', 0, 1 or 2; received {verbose!r}")
    return int(verbose)


def concat_outputs(batches: list) -> Any:
    first = batches[0]
    if isinstance(first, torch.Tensor):
        return torch.cat([b.detach() for b in batches]).cpu().numpy()
    if isinstance(first, np.ndarray):
        return np.concatenate(batches)
    if isinstance(first, dict):
        return {k: concat_outputs([b[k] for b in batches]) for k in first}
    if isinstance(first, (list, tuple)):
        return [concat_outputs([b[i] for b in batches]) for i in range(len(first))]
    return batches


def strategy_in_scope() -> Any:
    """The strategy whose scope is open (None outside every `strategy.scope()`)."""

    return _strategy.get_strategy() if _strategy.has_strategy() else None


def replica_data_type() -> type:
    return ReplicaData


def should_validate(epoch: int, validation_freq: Any) -> bool:
    if isinstance(validation_freq, int):
        if validation_freq < 1:
            raise ValueError(f"validation_freq must be >= 1; received {validation_freq}")
        return (epoch + 1) % validation_freq == 0
    return (epoch + 1) in validation_freq
