"""Under load: a flaky or stalling input_fn, KeyboardInterrupt during train, background threads,
and memory over repeated calls (reliability issue). Real threads, real processes, real signals."""

from __future__ import annotations

import gc
import os
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import time
import traceback

import numpy as np
import pytest

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt

X = np.random.default_rng(6).normal(size=(64, 3)).astype(np.float32)
Y = (X[:, :1] > 0).astype(np.int64)


def _columns():
    return [tf.feature_column.numeric_column("x", shape=(3,))]


def _flaky_generator(fail_after: int):
    def generate():
        for i in range(10_000):
            if i == fail_after:
                raise ConnectionError(f"input source dropped at batch {i}")
            j = (i * 8) % 64
            yield {"x": X[j:j + 8]}, Y[j:j + 8]
    return generate


def _flaky_input_fn(fail_after: int, pipeline: str):
    def input_fn():
        ds = tf.data.Dataset.from_generator(
            _flaky_generator(fail_after),
            output_signature=({"x": tf.TensorSpec((None, 3), tf.float32)},
                              tf.TensorSpec((None, 1), tf.int64)))
        if pipeline == "map":
            ds = ds.map(lambda f, y: (f, y), num_parallel_calls=tf.data.AUTOTUNE)
        if pipeline in ("prefetch", "map"):
            ds = ds.prefetch(4)
        if pipeline == "interleave":
            source = ds
            ds = tf.data.Dataset.range(1).interleave(
                lambda _: source, cycle_length=2, num_parallel_calls=2)
        return ds
    return input_fn


@pytest.mark.parametrize("pipeline", ["plain", "prefetch", "map", "interleave"])
def test_input_error_surfaces_with_its_traceback_and_keeps_checkpoints(tmp_path, pipeline):
    threads_before = threading.active_count()
    config = tf.estimator.RunConfig(save_checkpoints_steps=5)
    est = tf.estimator.LinearClassifier(_columns(), model_dir=str(tmp_path), config=config)
    with pytest.raises(ConnectionError, match="input source dropped at batch 12") as caught:
        est.train(_flaky_input_fn(12, pipeline))
    frames = "".join(traceback.format_tb(caught.value.__traceback__))
    assert "generate" in frames  # the input's own frame is in the traceback
    latest = ckpt.latest_checkpoint(str(tmp_path))
    assert latest is not None and int(ckpt.load_variable(latest, "global_step")) >= 5
    step = est.get_variable_value("global_step")
    est.train(_flaky_input_fn(10_000, "plain"), steps=2)  # resumes from the kept checkpoint
    assert est.get_variable_value("global_step") == step + 2
    deadline = time.monotonic() + 10
    while threading.active_count() > threads_before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= threads_before, [t.name for t in threading.enumerate()]


_INTERRUPTED_TRAIN = textwrap.dedent("""
    import sys, time
    import numpy as np
    import torchestimator as tf

    X = np.random.default_rng(6).normal(size=(8, 3)).astype(np.float32)
    Y = (X[:, :1] > 0).astype(np.int64)

    def stalls():
        for i in range(1000):
            if i == 7:
                print("stalling", flush=True)
                time.sleep(600)
            yield {"x": X}, Y

    est = tf.estimator.LinearClassifier(
        [tf.feature_column.numeric_column("x", shape=(3,))], model_dir=sys.argv[1],
        config=tf.estimator.RunConfig(save_checkpoints_steps=1000, save_checkpoints_secs=None))
    est.train(lambda: tf.data.Dataset.from_generator(stalls, output_signature=(
        {"x": tf.TensorSpec((8, 3), tf.float32)}, tf.TensorSpec((8, 1), tf.int64))))
""")


def test_keyboard_interrupt_saves_a_checkpoint_at_the_current_step_then_reraises(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_INTERRUPTED_TRAIN)
    model_dir = tmp_path / "model"
    proc = subprocess.Popen([sys.executable, str(script), str(model_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "stalling"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    latest = ckpt.latest_checkpoint(str(model_dir))
    assert latest is not None, err[-2000:]
    assert int(ckpt.load_variable(latest, "global_step")) == 7  # the step it had reached


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(16)


def test_repeated_estimator_calls_keep_memory_flat(tmp_path):
    est = tf.estimator.DNNClassifier([8], _columns(), model_dir=str(tmp_path))
    samples = []
    for _ in range(10):
        est.train(_input_fn, steps=4)
        est.evaluate(_input_fn)
        list(est.predict(_input_fn))
        gc.collect()
        samples.append(_rss_mb())
    objects = len(est._state.scope.objects) if hasattr(est, "_state") else None
    est.train(_input_fn, steps=1)
    if objects is not None:
        assert len(est._state.scope.objects) == objects  # the object scope does not grow
    drift = (max(samples[1:]) - samples[1]) / samples[1]
    assert drift < 0.05, f"RSS grew from {samples[1]:.1f} MB to {max(samples[1:]):.1f} MB"


def test_repeated_fit_calls_keep_memory_flat():
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(2)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    samples = []
    for _ in range(10):
        model.fit(X, Y, batch_size=16, epochs=2, verbose=0, validation_split=0.25)
        gc.collect()
        samples.append(_rss_mb())
    drift = (max(samples[1:]) - samples[1]) / samples[1]
    assert drift < 0.05, f"RSS grew from {samples[1]:.1f} MB to {max(samples[1:]):.1f} MB"
