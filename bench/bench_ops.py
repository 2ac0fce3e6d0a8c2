"""Per-op overhead of TensorFlow's core API on torch (`tf.add`, `tf.nn.relu`, `tf.reduce_mean`, ...)
against the raw torch call doing the same work, on small float32 tensors (where the
overhead shows most). Issue 13's goal: <= 1 µs median for the common elementwise ops.

Each op and its torch twin are timed in interleaved rounds of N calls; the table shows the
median µs per call of each and the difference. Usage: python bench/bench_ops.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
import time

import torch

import torchestimator as tf

torch.set_num_threads(1)
QUICK = "--quick" in sys.argv
ROUNDS = 7 if QUICK else 21
CALLS = 2_000 if QUICK else 10_000

x = torch.rand(8, 8) + 0.5
y = torch.rand(8, 8) + 0.5
v = tf.Variable(torch.rand(8, 8))

# (name, our call, torch call, elementwise?)
CASES = [
    ("tf.add", lambda: tf.add(x, y), lambda: torch.add(x, y), True),
    ("tf.multiply", lambda: tf.multiply(x, y), lambda: torch.mul(x, y), True),
    ("tf.subtract", lambda: tf.subtract(x, y), lambda: torch.sub(x, y), True),
    ("tf.divide", lambda: tf.divide(x, y), lambda: torch.div(x, y), True),
    ("tf.maximum", lambda: tf.maximum(x, y), lambda: torch.maximum(x, y), True),
    ("tf.add (python scalar)", lambda: tf.add(x, 1.0), lambda: torch.add(x, 1.0), True),
    ("tf.add (tf.Variable)", lambda: tf.add(v, y), lambda: torch.add(v, y), True),
    ("tf.exp", lambda: tf.exp(x), lambda: torch.exp(x), True),
    ("tf.sqrt", lambda: tf.sqrt(x), lambda: torch.sqrt(x), True),
    ("tf.square", lambda: tf.square(x), lambda: torch.square(x), True),
    ("tf.math.log", lambda: tf.math.log(x), lambda: torch.log(x), True),
    ("tf.tanh", lambda: tf.tanh(x), lambda: torch.tanh(x), True),
    ("tf.sigmoid", lambda: tf.sigmoid(x), lambda: torch.sigmoid(x), True),
    ("tf.nn.relu", lambda: tf.nn.relu(x), lambda: torch.relu(x), True),
    ("tf.equal", lambda: tf.equal(x, y), lambda: torch.eq(x, y), True),
    ("tf.reduce_sum", lambda: tf.reduce_sum(x), lambda: torch.sum(x), False),
    ("tf.reduce_mean(axis=1)", lambda: tf.reduce_mean(x, axis=1), lambda: torch.mean(x, dim=1), False),
    ("tf.matmul", lambda: tf.matmul(x, y), lambda: torch.matmul(x, y), False),
    ("tf.cast", lambda: tf.cast(x, tf.float64), lambda: x.to(torch.float64), False),
    ("tf.reshape", lambda: tf.reshape(x, [4, 16]), lambda: torch.reshape(x, (4, 16)), False),
    ("tf.concat", lambda: tf.concat([x, y], axis=0), lambda: torch.cat([x, y], dim=0), False),
    ("tf.nn.softmax", lambda: tf.nn.softmax(x), lambda: torch.softmax(x, dim=-1), False),
]


def _per_call_us(fn) -> float:
    start = time.perf_counter()
    for _ in range(CALLS):
        fn()
    return (time.perf_counter() - start) / CALLS * 1e6


def main() -> None:
    for _, ours, raw, _ in CASES:  # warm up (first calls load lazy namespaces)
        ours()
        raw()
    rows = []
    for name, ours, raw, elementwise in CASES:
        ours_t, raw_t, diff = [], [], []
        for _ in range(ROUNDS):
            a = _per_call_us(ours)
            b = _per_call_us(raw)
            ours_t.append(a)
            raw_t.append(b)
            diff.append(a - b)
        rows.append((name, statistics.median(ours_t), statistics.median(raw_t),
                     statistics.median(diff), elementwise))
    print(f"per-call time on 8x8 float32, {ROUNDS} interleaved rounds of {CALLS:,} calls, medians")
    print(f"{'op':28s} {'ours µs':>8s} {'torch µs':>9s} {'overhead µs':>12s}")
    for name, ours_m, raw_m, diff_m, elementwise in rows:
        mark = "" if not elementwise else ("  ok" if diff_m <= 1.0 else "  OVER GOAL (1 µs)")
        print(f"{name:28s} {ours_m:8.2f} {raw_m:9.2f} {diff_m:12.2f}{mark}")
    worst = max(r[3] for r in rows if r[4])
    print(f"\nworst elementwise overhead: {worst:.2f} µs (goal <= 1 µs)")


if __name__ == "__main__":
    main()
