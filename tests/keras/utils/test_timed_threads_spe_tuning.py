"""`tf.keras.utils.TimedThread` and `StepsPerExecutionTuner` (tuner decisions compared with
TF 2.15's on a scripted throughput: fixtures/spe_tuner_tf215.json, made by
tools/make_tf_spe_sam_fixtures.py)."""

import json
import os
import threading
import time

import pytest

import torchestimator as tf
from torchestimator.keras.utils import _spe_tuning

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "spe_tuner_tf215.json")


class Counter(tf.keras.utils.TimedThread):
    def __init__(self, interval, **kwargs):
        self.calls = 0
        self.called = threading.Event()
        super().__init__(interval, **kwargs)

    def on_interval(self):
        self.calls += 1
        if self.calls >= 3:
            self.called.set()


def test_timed_thread_runs_every_interval_and_stops():
    t = Counter(0.01)
    assert not t.is_alive() and t.daemon is True
    t.start()
    assert t.called.wait(2.0)
    assert t.is_alive() and t.thread.daemon
    t.stop()
    t.thread.join(2.0)
    assert not t.is_alive()
    calls = t.calls
    time.sleep(0.05)
    assert t.calls == calls  # nothing runs after stop
    t.start()  # restartable
    assert t.is_alive()
    t.stop()
    t.thread.join(2.0)


def test_timed_thread_context_manager_and_kwargs():
    with Counter(0.01, daemon=False, name="my-timer") as t:
        assert t.called.wait(2.0)
        assert t.thread.name == "my-timer" and t.thread.daemon is False
    t.thread.join(2.0)
    assert not t.is_alive()


def test_timed_thread_start_twice_warns(caplog):
    t = Counter(0.5)
    t.start()
    first = t.thread
    with caplog.at_level("WARNING"):
        t.start()
    assert t.thread is first and "already running" in caplog.text
    t.stop()
    first.join(2.0)


def test_timed_thread_on_interval_is_abstract():
    t = tf.keras.utils.TimedThread(1)
    with pytest.raises(NotImplementedError, match="implemented in subclasses"):
        t.on_interval()


class FakeOptimizer:
    def __init__(self):
        self.iterations = tf.Variable(0, dtype="int64")


def test_tuner_decisions_match_tf(monkeypatch):
    ref = json.load(open(FIXTURE))
    clock = {"t": 0.0}
    monkeypatch.setattr(_spe_tuning.time, "time", lambda: clock["t"])
    opt = FakeOptimizer()
    spe = tf.Variable(ref["initial_spe"], dtype="int64")
    tuner = tf.keras.utils.StepsPerExecutionTuner(
        opt, spe, interval=ref["interval"], change_spe_interval=ref["change_spe_interval"],
        change_threshold=ref["change_threshold"])
    tuner._begin_tuning()
    got, adds = [], []
    for t, it in ref["script"]:
        clock["t"] = float(t)
        opt.iterations.assign(it)
        tuner._measure_and_tune()
        got.append(int(spe.numpy()))
        adds.append(tuner.spe_tune_last_action_add)
    assert got == ref["spe"]
    assert adds == ref["last_action_add"]


def test_tuner_thread_with_keras_optimizer():
    opt = tf.keras.optimizers.SGD()
    spe = tf.Variable(2, dtype="int64")
    tuner = tf.keras.utils.StepsPerExecutionTuner(opt, spe, interval=0.02, change_spe_interval=1)
    thread = tuner.start()
    assert tuner.start() is thread and thread.daemon
    opt.iterations.assign_add(10)  # one burst of steps, then none: one tuning (x1.5), then the
    deadline = time.time() + 2     # zero throughput counts as an epoch boundary (no tuning)
    while int(spe.numpy()) == 2 and time.time() < deadline:
        time.sleep(0.005)
    time.sleep(0.1)
    tuner.stop()
    thread.join(2.0)
    assert not thread.is_alive()
    assert int(spe.numpy()) == 3  # the first tuning multiplies by 1.5
    tuner.steps_per_execution = 7
    assert int(spe.numpy()) == 7 and tuner.init_spe == 7 and tuner.steps_per_execution is spe


def test_tuner_errors():
    with pytest.raises(ValueError, match="iterations"):
        tf.keras.utils.StepsPerExecutionTuner(object(), tf.Variable(1))
    with pytest.raises(ValueError, match="spe_variable.*tf.Variable"):
        tf.keras.utils.StepsPerExecutionTuner(tf.keras.optimizers.SGD(), 3)


class BatchEnds(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.begins, self.ends = [], []

    def on_train_batch_begin(self, batch, logs=None):
        self.begins.append(batch)

    def on_train_batch_end(self, batch, logs=None):
        self.ends.append(batch)


def test_compile_steps_per_execution_auto():
    import numpy as np

    from torchestimator.keras.utils._spe_tuning import tuner_for

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse", steps_per_execution="auto")
    x, y = np.ones((64, 3), "float32"), np.ones((64, 1), "float32")
    calls = BatchEnds()
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[calls])
    tuner = tuner_for(model)
    assert calls.ends == list(range(8)) and int(tuner.steps_per_execution.numpy()) == 1
    assert tuner.optimizer is model.optimizer
    # the execution length the tuner sets decides how often batch callbacks run, as in Keras
    tuner.steps_per_execution.assign(3)
    calls = BatchEnds()
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[calls])
    assert calls.begins == [0, 3, 6] * 2 and calls.ends == [2, 5, 7] * 2
    tuner.thread.join(2.0)
    assert not tuner.thread.is_alive()  # stopped at the end of fit
    with pytest.raises(ValueError, match="positive integer or 'auto'"):
        model.compile("sgd", "mse", steps_per_execution="fast")


def test_timed_thread_callback_mixin_during_fit():
    import numpy as np

    class LogThreadCallback(tf.keras.utils.TimedThread, tf.keras.callbacks.Callback):
        def __init__(self, interval):
            self.epochs_seen, self.iterations = [], []
            tf.keras.utils.TimedThread.__init__(self, interval)
            tf.keras.callbacks.Callback.__init__(self)

        def on_interval(self):
            if self.model is not None:
                self.iterations.append(int(self.model.optimizer.iterations.numpy()))

        def on_epoch_begin(self, epoch, logs=None):
            self.epochs_seen.append(epoch)

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    with LogThreadCallback(interval=0.005) as cb:
        model.fit(np.ones((32, 3)), np.ones((32, 1)), batch_size=8, epochs=3, verbose=0,
                  callbacks=[cb])
        deadline = time.time() + 2
        while (not cb.iterations or cb.iterations[-1] != 12) and time.time() < deadline:
            time.sleep(0.005)
    cb.thread.join(2.0)
    assert cb.epochs_seen == [0, 1, 2] and cb.iterations[-1] == 12
    assert cb.iterations == sorted(cb.iterations)
