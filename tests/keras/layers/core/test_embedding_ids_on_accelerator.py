"""Issue 28: an Embedding given an id out of range on an accelerator raises the CPU's IndexError
(on CUDA the lookup itself would be a device-side assert, which ends the process's CUDA context).

The CPU is made to defer its checks as an accelerator does (`loop.DEFER_CHECKS_ON_CPU`): outside
the training loop the ids' range is read back at once; inside it the check is deferred to the
loop's read-back, the ids clamped meanwhile, and a fit with a bad id still fails with the message.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop


@pytest.fixture
def deferring(monkeypatch):
    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    yield
    loop.discard_deferred_checks()


@pytest.mark.parametrize("bad", [7, -1])
def test_a_top_level_call_raises_at_once(deferring, bad):
    layer = tf.keras.layers.Embedding(5, 2, name="tokens")
    with pytest.raises(IndexError, match=f'"tokens".*index {bad}.*\\[0, 5\\)'):
        layer(torch.tensor([[1, bad]]))
    assert layer(torch.tensor([[0, 4]])).shape == (1, 2, 2)


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Embedding(5, 2, name="tokens"),
                                 tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_fit_defers_the_check_and_raises_with_the_message(deferring):
    ids = np.random.default_rng(0).integers(0, 5, size=(64, 3))
    ids[40, 1] = 9  # in the third batch of 16: the loop reads its checks back at the end
    y = np.zeros((64, 1), np.float32)
    with pytest.raises(IndexError, match='"tokens".*index 9.*\\[0, 5\\)'):
        _model().fit(ids, y, batch_size=16, epochs=1, verbose=0)
    history = _model().fit(ids.clip(0, 4), y, batch_size=16, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_the_loop_leaves_no_check_behind(deferring):
    model = _model()
    model.fit(np.ones((8, 3), np.int64), np.zeros((8, 1), np.float32), batch_size=4, verbose=0)
    assert not loop.in_loop()
    assert not getattr(loop._deferred, "checks", None)
