"""`bench/bench_gpu.py --count-kernels`: the GPU benchmark's cases counted on the CPU (kernel
launches and read-backs per step), end to end in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_count_kernels_prints_every_case_and_fit_launches_about_what_the_torch_loop_does():
    env = {k: v for k, v in os.environ.items() if k != "TORCHESTIMATOR_DEVICE"}
    proc = subprocess.run([sys.executable, "bench/bench_gpu.py", "--count-kernels", "--by-op"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = proc.stdout.split("case (per step, counted on the CPU)")[1]
    rows = {}
    for line in table.strip().splitlines()[1:]:  # after the rest of the header
        match = re.match(r"(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        assert match, line
        rows[match.group(1)] = [float(v) for v in match.groups()[1:]]
    assert len(rows) == 8
    ours, torch_loop, ours_reads, _ = rows["fit MLP 784-512-10, batch 32, shuffled"]
    # the step is the torch loop's kernels plus the loss tracker's sum (the labels' range is
    # checked on the host copy); values are read back at the first and last step only
    assert ours <= torch_loop + 1.5
    assert ours_reads < 0.5
    # --by-op: what ours launches beyond the loop, by operation (the loss tracker's running sum)
    by_op = proc.stdout.split("fit MLP 784-512-10, batch 32, shuffled:")[1].split("\n  fit ")[0]
    assert re.search(r"aten::add_\.Tensor\s+1\.00 vs\s+0\.00", by_op), by_op
    assert "aten::aminmax" not in by_op and "aten::clamp" not in by_op, by_op  # checked on the host copy
    for name, (ours, torch_loop, ours_reads, _) in rows.items():
        assert ours > 0 and torch_loop > 0, name
        assert ours_reads < 1, name  # no read-back every step
