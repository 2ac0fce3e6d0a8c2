"""`tf.random.experimental`: TF's experimental RNG API (the Generator, RNG states, stateless
split / fold_in / shuffle, index_shuffle)."""

from torchestimator._ops.candidate_sampling_ops import Algorithm, create_rng_state
from torchestimator._ops.random_ops import (
    Generator,
    get_global_generator,
    set_global_generator,
)
from torchestimator._ops.random_ops import fold_in as stateless_fold_in
from torchestimator._ops.random_ops import split as stateless_split
from torchestimator._ops.random_ops._stateless_extras import index_shuffle, stateless_shuffle

__all__ = [
    "Algorithm", "Generator", "create_rng_state", "get_global_generator", "index_shuffle",
    "set_global_generator", "stateless_fold_in", "stateless_shuffle", "stateless_split",
]
