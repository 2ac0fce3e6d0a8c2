"""TF 2.15's `Generator.uniform_full_int(shape, dtype=tf.uint64)`: uint64 by default, and the
dtypes TF's kernel makes (int32, int64, uint32, uint64)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf


def test_uniform_full_int_is_uint64_by_default():
    g = tf.random.Generator.from_seed(7)
    x = g.uniform_full_int([4000])
    assert x.dtype == torch.uint64 and tuple(x.shape) == (4000,)
    # the full unsigned range: values above int64's largest, and small ones
    assert any(int(v) > 2**63 for v in x.tolist()) and any(int(v) < 2**62 for v in x.tolist())


def test_uniform_full_int_uint32_and_signed():
    g = tf.random.Generator.from_seed(3)
    u = g.uniform_full_int([2000], tf.uint32)
    assert u.dtype == torch.uint32 and max(int(v) for v in u.tolist()) > 2**31
    assert g.uniform_full_int([5], dtype=tf.int32).dtype == torch.int32
    with pytest.raises(ValueError, match="dtype"):
        g.uniform_full_int([2], tf.uint8)


def test_uniform_full_int_is_reproducible_from_a_seed():
    a = tf.random.Generator.from_seed(11).uniform_full_int([8]).tolist()
    b = tf.random.Generator.from_seed(11).uniform_full_int([8]).tolist()
    assert a == b
