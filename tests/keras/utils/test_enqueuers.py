"""`keras.utils.Sequence` read by workers in fit/evaluate/predict, and the enqueuers
(`OrderedEnqueuer`, `GeneratorEnqueuer`) with Keras 2.15's start/get/stop/is_running API."""

import os
import threading
import time

import numpy as np
import pytest
import torch

import torchestimator as tf


class Batches(tf.keras.utils.Sequence):
    """8 batches of 4 rows; reads of low indices are slowest, so that parallel reads finish
    out of order."""

    def __init__(self, n=8, delay=0.0):
        self.n = n
        self.delay = delay
        self.epochs_ended = 0
        self.readers = []  # (process id, thread name) of each read made in this process
        rng = np.random.RandomState(0)
        self.x = rng.normal(size=(n * 4, 3)).astype("float32")
        self.y = (self.x.sum(axis=1, keepdims=True) > 0).astype("float32")

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.readers.append((os.getpid(), threading.current_thread().name))
        if self.delay:
            time.sleep(self.delay * (self.n - i))
        return self.x[i * 4:(i + 1) * 4], self.y[i * 4:(i + 1) * 4]

    def on_epoch_end(self):
        self.epochs_ended += 1


class Unpicklable(Batches):
    def __init__(self):
        super().__init__()
        self.fn = lambda: None


def _model():
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def _fit(**kwargs):
    model = _model()
    seq = Batches(delay=kwargs.pop("delay", 0.0))
    history = model.fit(seq, epochs=2, verbose=0, shuffle=False, **kwargs)
    weights = [w.detach().clone() for w in model.parameters()]
    return history.history["loss"], weights, seq


def test_fit_with_thread_workers_sees_the_same_batches_in_order():
    loss1, w1, seq1 = _fit(workers=1)
    loss4, w4, seq4 = _fit(workers=4, max_queue_size=3, delay=0.002)
    np.testing.assert_allclose(loss4, loss1, rtol=1e-6)
    for a, b in zip(w1, w4):
        torch.testing.assert_close(a, b)
    assert seq1.epochs_ended == seq4.epochs_ended == 2
    main = threading.current_thread().name
    assert {name for _, name in seq1.readers} == {main}
    assert len({name for _, name in seq4.readers} - {main}) > 1  # several worker threads


def test_predict_and_evaluate_with_workers_keep_order():
    model = _model()
    seq = Batches(delay=0.002)
    want = model.predict(seq, verbose=0)
    got = model.predict(seq, verbose=0, workers=3, max_queue_size=2)
    np.testing.assert_array_equal(got, want)
    assert seq.epochs_ended == 2
    want_loss = model.evaluate(seq, verbose=0)
    got_loss = model.evaluate(seq, verbose=0, workers=3)
    assert got_loss == pytest.approx(want_loss, rel=1e-6)


def test_fit_with_process_workers():
    loss1, w1, _ = _fit(workers=1)
    loss2, w2, seq = _fit(workers=2, use_multiprocessing=True)
    np.testing.assert_allclose(loss2, loss1, rtol=1e-6)
    assert seq.epochs_ended == 2  # on_epoch_end runs in the training process
    assert len(seq.readers) < 16  # the 2 x 8 batches were read by the worker processes


def test_unpicklable_sequence_with_processes_is_refused():
    with pytest.raises(TypeError, match="use_multiprocessing=True needs a picklable Sequence"):
        _model().predict(Unpicklable(), verbose=0, workers=2, use_multiprocessing=True)


def test_errors_in_getitem_reach_the_caller():
    class Broken(Batches):
        def __getitem__(self, i):
            if i == 3:
                raise KeyError("batch 3 is missing")
            return super().__getitem__(i)

    with pytest.raises(KeyError, match="batch 3 is missing"):
        _model().predict(Broken(), verbose=0, workers=2)


def test_ordered_enqueuer_epochs_and_stop():
    seq = Batches(n=5)
    enqueuer = tf.keras.utils.OrderedEnqueuer(seq, use_multiprocessing=False)
    assert not enqueuer.is_running()
    enqueuer.start(workers=3, max_queue_size=2)
    assert enqueuer.is_running()
    stream = enqueuer.get()
    got = [next(stream) for _ in range(10)]
    for k, (x, _) in enumerate(got):
        np.testing.assert_array_equal(x, seq[k % 5][0])
    deadline = time.time() + 5
    while seq.epochs_ended < 1 and time.time() < deadline:
        time.sleep(0.01)
    assert seq.epochs_ended >= 1
    enqueuer.stop()
    assert not enqueuer.is_running()
    assert not enqueuer.run_thread.is_alive()


def test_ordered_enqueuer_shuffle_and_processes():
    seq = Batches(n=6)
    enqueuer = tf.keras.utils.OrderedEnqueuer(seq, use_multiprocessing=True, shuffle=True)
    enqueuer.start(workers=2, max_queue_size=4)
    stream = enqueuer.get()
    firsts = sorted(float(next(stream)[0][0, 0]) for _ in range(6))
    enqueuer.stop()
    assert firsts == sorted(float(seq[i][0][0, 0]) for i in range(6))
    with pytest.raises(TypeError, match="picklable"):
        tf.keras.utils.OrderedEnqueuer(Unpicklable(), use_multiprocessing=True).start()


def test_generator_enqueuer_threads():
    lock = threading.Lock()

    gen = iter(range(20))

    class Safe:
        def __iter__(self):
            return self

        def __next__(self):
            with lock:
                return next(gen)

    enqueuer = tf.keras.utils.GeneratorEnqueuer(Safe())
    enqueuer.start(workers=3, max_queue_size=4)
    got = list(enqueuer.get())
    assert sorted(got) == list(range(20))
    assert not enqueuer.is_running()

    single = tf.keras.utils.GeneratorEnqueuer(iter(range(7)))
    single.start(workers=1, max_queue_size=2)
    assert list(single.get()) == list(range(7))


def test_generator_enqueuer_processes_copy_the_generator():
    enqueuer = tf.keras.utils.GeneratorEnqueuer((i for i in range(3)), use_multiprocessing=True)
    enqueuer.start(workers=1, max_queue_size=2)
    assert list(enqueuer.get()) == [0, 1, 2]


def test_enqueuer_is_exported():
    assert issubclass(tf.keras.utils.OrderedEnqueuer, tf.keras.utils.SequenceEnqueuer)
    assert issubclass(tf.keras.utils.GeneratorEnqueuer, tf.keras.utils.SequenceEnqueuer)


class DevicesOfTfTensors(tf.keras.utils.Sequence):
    """Each item: the device type of a tensor `tf.ones` makes where the item is read."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return tf.ones([2, 3]).device.type


def test_worker_processes_make_tf_tensors_on_the_host():
    """A process forked from one using CUDA cannot use CUDA: TF's ops in a Sequence (or a
    generator) read by processes make host tensors there, as TF runs input code on the CPU.
    The second device stands in for the GPU the parent's ops put tensors on."""
    from _harness.device_leaks import available, on_leak_device

    if not available():
        pytest.skip("this torch build has no lazy backend")
    from torchestimator.keras.utils import _enqueuers

    with on_leak_device() as device:
        assert tf.ones([2, 3]).device.type == device.type  # the parent's ops: on the device
        assert list(_enqueuers.ordered_batches(DevicesOfTfTensors(), [0, 1], workers=2,
                                               use_multiprocessing=True)) == ["cpu", "cpu"]
        generator = (tf.ones([2, 3]).device.type for _ in range(2))
        enqueuer = tf.keras.utils.GeneratorEnqueuer(generator, use_multiprocessing=True)
        enqueuer.start(workers=1, max_queue_size=2)
        assert list(enqueuer.get()) == ["cpu", "cpu"]
        assert list(_enqueuers.ordered_batches(DevicesOfTfTensors(), [0], workers=2)) == [
            device.type]  # threads are the parent's: its ops' device
