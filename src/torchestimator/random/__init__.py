"""`tf.random`: TensorFlow's random ops over torch.

Seeding follows TF's rule (see `torchestimator._ops.random_ops`): `set_seed` seeds torch too, and
an op's `seed=` gives it its own generator for the (global seed, op seed) pair.
"""

from torchestimator._ops.candidate_sampling_ops import (
    Algorithm,
    all_candidate_sampler,
    create_rng_state,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from torchestimator._ops.random_ops import (
    Generator,
    categorical,
    fold_in,
    gamma,
    get_global_generator,
    normal,
    poisson,
    set_global_generator,
    set_seed,
    shuffle,
    split,
    stateless_categorical,
    stateless_gamma,
    stateless_normal,
    stateless_poisson,
    stateless_truncated_normal,
    stateless_uniform,
    truncated_normal,
    uniform,
)
from torchestimator._ops.random_ops._stateless_extras import (
    stateless_binomial,
    stateless_parameterized_truncated_normal,
)
from torchestimator.random import experimental
