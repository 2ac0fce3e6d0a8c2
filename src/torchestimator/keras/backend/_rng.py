"""Keras 2.15's flag choosing `tf.random.Generator` for Keras' random numbers (False unless
enabled). torch draws every Keras random number from its own generator; the flag is kept,
read and switched as in Keras, so code that checks or sets it behaves the same."""

from __future__ import annotations

_USE_GENERATOR_FOR_RNG = False


def is_tf_random_generator_enabled() -> bool:
    """Check whether `tf.random.Generator` is used for RNG in Keras (False by default)."""
    return _USE_GENERATOR_FOR_RNG


def enable_tf_random_generator() -> None:
    """Enable the `tf.random.Generator` as the RNG for Keras."""
    global _USE_GENERATOR_FOR_RNG
    _USE_GENERATOR_FOR_RNG = True


def disable_tf_random_generator() -> None:
    """Disable the `tf.random.Generator` as the RNG for Keras (back to legacy stateful ops)."""
    global _USE_GENERATOR_FOR_RNG
    _USE_GENERATOR_FOR_RNG = False
