"""`set_random_seed`: one call seeds every random generator a program uses."""

from __future__ import annotations

import random

import numpy as np

from torchestimator._ops.random_ops import set_seed


def set_random_seed(seed: int) -> None:
    """Sets all random seeds for the program (Python, NumPy, and PyTorch).

    After `set_random_seed(seed)`, unseeded initializers, dropout, shuffling
    and anything else drawing from Python's `random`, NumPy's global generator
    or torch's global generator (CPU and every CUDA device) repeat the same
    values from run to run. Returns None.

    Raises ValueError if `seed` is not an integer.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(
            f"Expected `seed` argument to be an integer. Received: seed={seed!r} "
            f"(of type {type(seed).__name__})"
        )
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    set_seed(seed)  # tf.random's global seed too, as Keras does; it seeds torch
