"""Keras 2.15's approximate quantiles for `Discretization.adapt`, step for step in float32.

Each batch is reduced to a summary (sorted values taken every `size * epsilon`-th, each
weighted by that step), merged into the running summary, and the merge compressed back to
`1 / epsilon` points by interpolating cumulative weights. The bin boundaries are the
compressed summary at `1 / num_bins` resolution, less its last point. The same arithmetic
(float32 sums, float64 interpolation) gives the same boundaries as TF.
"""

from __future__ import annotations

import numpy as np


def empty_summary() -> np.ndarray:
    """A summary of no data: a `(2, 0)` float32 array (values, weights)."""
    return np.zeros((2, 0), dtype=np.float32)


def summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    """Reduces one batch of values to a summary (every `size * epsilon`-th sorted value)."""
    values = np.sort(np.asarray(values, dtype=np.float32).reshape(-1))
    elements = np.float32(values.size)
    increment = int((elements / np.float32(1.0 / epsilon)).astype(np.int32))
    step = max(increment, 1)
    boundaries = values[increment::step]
    weights = np.full(boundaries.shape, np.float32(step), dtype=np.float32)
    return np.stack([boundaries, weights])


def compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """Compresses a summary to about `1 / epsilon` points (unchanged when already smaller)."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_weight_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_weight_percents, summary[0])
    cum_weights = np.interp(percents, cum_weight_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype(np.float32)


def merge(prev: np.ndarray, new: np.ndarray, epsilon: float) -> np.ndarray:
    """Merges two summaries (sorted by value) and compresses the result."""
    merged = np.concatenate((new, prev), axis=1)
    merged = merged[:, np.argsort(merged[0], kind="stable")]
    return compress(merged, epsilon)


def bin_boundaries(summary: np.ndarray, num_bins: int) -> list[float]:
    """The `num_bins - 1` boundaries (fewer for little data) of a summary, as Python floats."""
    return [float(v) for v in compress(summary, 1.0 / num_bins)[0, :-1]]
