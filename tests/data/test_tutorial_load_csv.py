"""Regressions found running TF's "Load CSV data" tutorial: shuffling a dataset whose
elements vary in shape (a snapshot of batches with a short last one, a flat_map of batches)."""

from __future__ import annotations

import torchestimator as tf


def test_shuffle_of_a_snapshot_of_batches(tmp_path):
    snap = tf.data.Dataset.range(10).batch(4).snapshot(str(tmp_path / "snap"))
    assert [x.tolist() for x in snap] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]  # writes
    # was: RuntimeError "Sizes of tensors must match" (the shuffle buffer joined the batches)
    shuffled = [x.tolist() for x in snap.shuffle(1000).repeat(2)]
    assert sorted(len(x) for x in shuffled) == [2, 2, 4, 4, 4, 4]
    assert sorted(v for x in shuffled for v in x) == sorted(list(range(10)) * 2)


def test_shuffle_of_a_flat_map_of_batches():
    ds = tf.data.Dataset.range(3).flat_map(lambda i: tf.data.Dataset.range(10).batch(4))
    assert sorted(len(x) for x in ds.shuffle(10, seed=1)) == [2, 2, 2, 4, 4, 4, 4, 4, 4]


def test_shuffle_of_fixed_shape_blocks_is_unchanged():
    ds = tf.data.Dataset.range(4).flat_map(lambda i: tf.data.Dataset.range(5))
    assert sorted(int(x) for x in ds.shuffle(7, seed=3)) == sorted(list(range(5)) * 4)
