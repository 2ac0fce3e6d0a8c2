"""`bench/bench_host_overhead.py`: host time per step on tiny models, ours against the torch
loop, end to end in a subprocess (`--smoke`: a few steps; the figures are not checked)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_host_overhead_bench_prints_every_case():
    env = {k: v for k, v in os.environ.items() if k != "TORCHESTIMATOR_DEVICE"}
    proc = subprocess.run([sys.executable, "bench/bench_host_overhead.py", "--smoke"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = proc.stdout.split("loop/ours")[1].strip().splitlines()
    names = []
    for line in table:
        match = re.match(r"(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        assert match, line
        names.append(match.group(1))
        assert all(float(v) > 0 for v in match.groups()[1:]), line
    assert names == ["fit, arrays, accuracy", "fit, tf.data + prefetch",
                     "Estimator, custom model_fn", "DNNClassifier [16, 16]"]
