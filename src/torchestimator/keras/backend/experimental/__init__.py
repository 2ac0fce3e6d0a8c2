"""`tf.keras.backend.experimental`: the switch between legacy stateful random ops and
`tf.random.Generator` for Keras' random numbers (layers' dropout, initializers)."""

from torchestimator.keras.backend._rng import (
    disable_tf_random_generator,
    enable_tf_random_generator,
    is_tf_random_generator_enabled,
)

__all__ = ["disable_tf_random_generator", "enable_tf_random_generator", "is_tf_random_generator_enabled"]
