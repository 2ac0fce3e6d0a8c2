"""Issue 28: Keras `fit` reads no value back from the device in a batch that does not log.

A `TorchFunctionMode` counts the calls that would synchronise a CUDA stream on the CPU; a
callback that reads the logs every `LOG_EVERY` batches is the only reader. On a CUDA machine
`torch.cuda.set_sync_debug_mode` counts them too.
"""

from __future__ import annotations

import collections
import traceback
import warnings

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode

import torchestimator as tf

SYNCS = {torch.Tensor.item, torch.Tensor.tolist, torch.Tensor.__bool__, torch.Tensor.__float__,
         torch.Tensor.__int__, torch.Tensor.numpy, torch.Tensor.cpu}
LOG_EVERY, BATCHES = 20, 41


class SyncCounter(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.batch = -1
        self.by_batch: collections.Counter = collections.Counter()
        self.where: dict = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in SYNCS:
            self.by_batch[self.batch] += 1
            self.where.setdefault(self.batch, "".join(traceback.format_stack(limit=6)[:-1]))
        return func(*args, **(kwargs or {}))


class EveryNLogger(tf.keras.callbacks.Callback):
    """Marks the batch for the counter; reads the loss every LOG_EVERY batches. As TF's own
    logging callbacks, it takes the logs as tensors (`_supports_tf_logs`): a callback without it
    gets Python numbers each batch, read back for it (TF's `CallbackList` does the same)."""

    def __init__(self, counter):
        super().__init__()
        self._supports_tf_logs = True
        self.counter, self.read = counter, []

    def on_train_batch_begin(self, batch, logs=None):
        self.counter.batch = batch

    def on_train_batch_end(self, batch, logs=None):
        if batch % LOG_EVERY == 0:
            self.read.append(float(logs["loss"]))

    def on_epoch_end(self, epoch, logs=None):
        self.counter.batch = -1


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCHES * 16, 8)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rng.integers(0, 3, size=BATCHES * 16)]
    return x, y


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
                                 tf.keras.layers.Dense(3)])
    model.compile(tf.keras.optimizers.Adam(0.01),
                  tf.keras.losses.CategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", tf.keras.metrics.AUC()])
    return model


@pytest.mark.parametrize("as_dataset", [False, True])
def test_fit_batches_do_not_read_back(as_dataset):
    x, y = _data()
    model = _model()
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # build, first-use caches
    counter = SyncCounter()
    logger = EveryNLogger(counter)
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(16) if as_dataset else x
    with counter:
        if as_dataset:
            model.fit(data, epochs=1, verbose=0, callbacks=[logger])
        else:
            model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[logger])
    allowed = {-1, BATCHES - 1} | set(range(0, BATCHES, LOG_EVERY))  # the last: epoch-end results
    quiet = {b: n for b, n in counter.by_batch.items() if b not in allowed}
    assert not quiet, f"host read-backs in batches that do not log: {quiet}\n{counter.where[min(quiet)]}"
    assert counter.by_batch[0] > 0 and len(logger.read) == len(range(0, BATCHES, LOG_EVERY))  # it counts


def test_fit_with_sparse_labels_does_not_read_back_on_a_deferring_device(monkeypatch):
    """Sparse class-id labels, whose range check reads back on the CPU at once: on a device that
    defers its checks (the CPU made to, as CUDA does) the check waits for the loop's read-back."""
    from torchestimator._engine import loop  # noqa: PLC0415 - lazy: the module under test's switch

    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    x, y = _data()
    ids = y.argmax(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
                                 tf.keras.layers.Dense(3)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x, ids, batch_size=16, epochs=1, verbose=0)
    counter = SyncCounter()
    with counter:
        model.fit(x, ids, batch_size=16, epochs=1, verbose=0, callbacks=[EveryNLogger(counter)])
    allowed = {-1, BATCHES - 1} | set(range(0, BATCHES, LOG_EVERY))
    quiet = {b: n for b, n in counter.by_batch.items() if b not in allowed}
    assert not quiet, f"host read-backs in batches that do not log: {quiet}\n{counter.where[min(quiet)]}"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_fit_on_cuda_raises_no_sync_warning_between_logs(monkeypatch):
    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "cuda")
    x, y = _data()
    model = _model()
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    counter = SyncCounter()  # marks batches only
    warned: collections.Counter = collections.Counter()

    class Mark(EveryNLogger):
        def on_train_batch_end(self, batch, logs=None):
            new = [w for w in caught[self.seen:] if "synchroniz" in str(w.message)]
            self.seen = len(caught)
            warned[batch] += len(new)
            super().on_train_batch_end(batch, logs)

    mark = Mark(counter)
    mark.seen = 0
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[mark])
    finally:
        torch.cuda.set_sync_debug_mode("default")
    allowed = {BATCHES - 1} | set(range(0, BATCHES, LOG_EVERY))
    assert not {b: n for b, n in warned.items() if b not in allowed and n}
