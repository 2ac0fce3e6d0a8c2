"""Peer benchmarks of torchestimator: `python -m bench [--quick | --smoke]` writes docs/performance.md.

Kept import-free so that a TensorFlow 2.15 venv (no torch) can run `python -m bench.peers._worker`.
"""
