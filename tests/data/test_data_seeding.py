"""The per-pass random numbers of shuffle: numpy's default_rng([seed, epoch]), made cheaply."""

import copy
import pickle
import threading

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.data import seeding


def numpy_state(seed, epoch):
    st = np.random.default_rng([seed, epoch]).bit_generator.state["state"]
    return st["state"], st["inc"]


def test_emulated_seeding_matches_numpy():
    assert seeding.emulation_matches_numpy()
    rng = np.random.default_rng(0)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**62, 2**64 - 1, 2**95] + rng.integers(0, 2**62, 40).tolist()
    epochs = [0, 1, 2, 63, 64, 1000, 2**32 - 1]
    for seed in seeds:
        for epoch in epochs:
            assert seeding.pcg64_states(seed, epoch, 1) == [numpy_state(seed, epoch)], (seed, epoch)
        states = seeding.pcg64_states(seed, 100, 64)
        assert states == [numpy_state(seed, e) for e in range(100, 164)]


def test_entropy_numpy_mixes_differently_is_left_to_numpy():
    # Five or more 32-bit words of entropy (or negative numbers): numpy's own path.
    assert seeding.pcg64_states(2**96, 0, 1) is None
    assert seeding.pcg64_states(5, 2**32 - 10, 64) is None
    assert seeding.pcg64_states(-1, 0, 1) is None
    seeds = seeding.PassSeeds(2**100)
    for epoch in (3, 4, 70):
        expected = np.random.default_rng([2**100, epoch]).permutation(50)
        assert (seeds.permutation(epoch, 50) == expected).all()
    near_end = seeding.PassSeeds(5)
    for epoch in (2**32 - 3, 2**32 - 2, 2**32 + 1):
        expected = np.random.default_rng([5, epoch]).permutation(50)
        assert (near_end.permutation(epoch, 50) == expected).all()


@pytest.mark.parametrize("seed", [0, 5, 2**61 + 17])
def test_pass_permutations_are_numpys(seed):
    seeds = seeding.PassSeeds(seed)
    for epoch in list(range(140)) + [1000, 999, 5]:  # blocks of 64 epochs; out of order
        n = 1 + epoch % 97
        expected = np.random.default_rng([seed, epoch]).permutation(n)
        assert (seeds.permutation(epoch, n) == expected).all()
        assert (seeds.generator(epoch).permutation(n) == expected).all()


def test_pass_seeds_copy_and_pickle_as_their_seed():
    seeds = seeding.PassSeeds(9)
    seeds.permutation(5, 10)
    for other in (copy.deepcopy(seeds), pickle.loads(pickle.dumps(seeds))):
        assert (other.permutation(5, 10) == seeds.permutation(5, 10)).all()
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10)).shuffle(10, seed=4)
    assert [int(v) for v in copy.deepcopy(ds)] == [int(v) for v in ds]


def test_permutations_from_several_threads():
    seeds = seeding.PassSeeds(11)
    results = {}

    def work(t):
        results[t] = [seeds.permutation(epoch, 100) for epoch in range(t, 300, 4)]

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for t, perms in results.items():
        for epoch, perm in zip(range(t, 300, 4), perms):
            assert (perm == np.random.default_rng([11, epoch]).permutation(100)).all()


def test_small_shuffled_repeat_takes_each_pass_from_default_rng():
    # The W1 input pipeline: a pass every 120 rows, batches across pass ends.
    rows = np.arange(120)
    ds = tf.data.Dataset.from_tensor_slices(rows).shuffle(1000, seed=42).repeat().batch(32)
    out = np.concatenate([b.numpy() for b in ds.take(60)])
    expected = np.concatenate([np.random.default_rng([42, e]).permutation(120)
                               for e in range(16)])
    assert (out == expected[:len(out)]).all()
    fixed = tf.data.Dataset.from_tensor_slices(rows).shuffle(
        1000, seed=42, reshuffle_each_iteration=False).repeat(3)
    assert [int(v) for v in fixed] == np.random.default_rng([42, 0]).permutation(120).tolist() * 3
