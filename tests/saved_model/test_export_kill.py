"""A SIGKILL at any moment of export_saved_model leaves no partial version directory: every
`<timestamp>` directory loads, and only `temp-*` directories may be left behind."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import torchestimator as tf

WORKER = os.path.join(os.path.dirname(__file__), "_export_kill_worker.py")


def _kill_during_exports(model_dir, base, delay, after_one_export=False):
    process = subprocess.Popen([sys.executable, WORKER, model_dir, base], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout.readline().strip() == "ready"
        if after_one_export:  # a slow machine still gets one finished export to check
            assert process.stdout.readline().strip() == "exported"
        time.sleep(delay)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)


def _check_versions(base):
    versions = 0
    for name in os.listdir(base) if os.path.isdir(base) else []:
        path = os.path.join(base, name)
        if name.startswith("temp-"):
            continue
        assert name.isdigit(), f"unexpected entry {name!r} in the export base"
        loaded = tf.saved_model.load(path)
        out = loaded.signatures["predict"](x=np.array([0.5], "float32"))["predictions"]
        assert out.shape == (1, 1)
        versions += 1
    return versions


def _trials(tmp_path, count, seed):
    rng = random.Random(seed)
    model_dir, base = str(tmp_path / "model"), str(tmp_path / "export")
    for trial in range(count):
        _kill_during_exports(model_dir, base, rng.uniform(0.05, 2.5), after_one_export=trial == count - 1)
        _check_versions(base)
    return _check_versions(base)


def test_sigkill_during_export_never_leaves_a_partial_version(tmp_path):
    _trials(tmp_path, 2, seed=1)


@pytest.mark.slow
def test_sigkill_during_export_many_trials(tmp_path):
    assert _trials(tmp_path, 20, seed=2) >= 1
