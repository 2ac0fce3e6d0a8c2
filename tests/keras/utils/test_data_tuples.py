"""`tf.keras.utils.pack_x_y_sample_weight` / `unpack_x_y_sample_weight` (Keras 2.15's rules)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf


def test_pack_single_x_is_not_wrapped():
    x = torch.ones(10, 1)
    assert tf.keras.utils.pack_x_y_sample_weight(x) is x
    assert tf.keras.utils.pack_x_y_sample_weight((x, x)) == ((x, x),)
    assert tf.keras.utils.pack_x_y_sample_weight(x, 1) == (x, 1)
    assert tf.keras.utils.pack_x_y_sample_weight(x, 1, 2) == (x, 1, 2)


def test_unpack():
    unpack = tf.keras.utils.unpack_x_y_sample_weight
    assert unpack(5) == (5, None, None)
    assert unpack((5,)) == (5, None, None)
    assert unpack([5, 6]) == (5, 6, None)
    assert unpack((5, 6, 7)) == (5, 6, 7)
    with pytest.raises(ValueError, match="Data is expected to be in format"):
        unpack((1, 2, 3, 4))
