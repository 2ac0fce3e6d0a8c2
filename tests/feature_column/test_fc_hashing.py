"""FarmHash Fingerprint64, vectorized: values equal TensorFlow 2.15's, stable across processes."""

import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from torchestimator import _hashing

# One string per branch of FarmHash's Hash64 (0, 1-3, 4-7, 8-16, 17-32, 33-64, >64 bytes).
STRINGS = [
    "", "a", "ab", "abc", "abcd", "hello", "feature", "abcdefgh", "sixteen-chars!!!",
    "seventeen-chars!!", "a string of exactly thirty-two b", "x" * 33, "y" * 64, "z" * 65,
    "the quick brown fox jumps over the lazy dog " * 3, "héllo wörld ✓", "12", "-3",
]
# Fingerprint64 of STRINGS (the reference FarmHash implementation).
FINGERPRINTS = [
    11160318154034397263, 12917804110809363939, 12289600257749001502, 2640714258260161385,
    1897425971756105985, 13009744463427800296, 4207864124720532554, 18368443631171807497,
    8512832546802666263, 2330754215206576667, 4352069357954064406, 12270365409943098935,
    4471793200125962424, 8299915583762718517, 5861556989732575120, 276027234456023084,
    12507372493458391888, 245568598851291699,
]
# tf.strings.to_hash_bucket_fast(STRINGS, 1000003) in TensorFlow 2.15.1.
TF_BUCKETS_1000003 = [
    377723, 291400, 834328, 152962, 267500, 497363, 29056, 229479, 641120, 907775, 159051,
    302064, 608066, 666247, 359778, 803956, 477529, 705258,
]


def test_fingerprint64_matches_farmhash_for_every_length_branch():
    got = _hashing.fingerprint64(np.array(STRINGS, dtype=object))
    assert got.dtype == np.uint64
    assert got.tolist() == FINGERPRINTS


def test_hash_bucket_matches_tensorflow():
    assert _hashing.hash_bucket(STRINGS, 1000003).tolist() == TF_BUCKETS_1000003
    # The example in TF's documentation of tf.strings.to_hash_bucket_fast.
    assert _hashing.hash_bucket(["Hello", "TensorFlow", "2.x"], 3).tolist() == [0, 2, 2]


def test_integers_hash_as_their_decimal_text():
    # TF 2.15.1: to_hash_bucket_fast(as_string([3, 7, 12, -5, 100]), 11)
    assert _hashing.hash_bucket(np.array([3, 7, 12, -5, 100]), 11).tolist() == [4, 8, 9, 5, 9]
    assert _hashing.fingerprint64(np.array([12, -3])).tolist() == FINGERPRINTS[-2:]


def test_input_forms_agree_and_shape_is_kept():
    ref = _hashing.fingerprint64(["abc", "hello"])
    assert _hashing.fingerprint64(np.array(["abc", "hello"])).tolist() == ref.tolist()
    assert _hashing.fingerprint64(np.array([b"abc", b"hello"])).tolist() == ref.tolist()
    assert _hashing.fingerprint64(pa.array(["abc", "hello"])).tolist() == ref.tolist()
    two_d = _hashing.fingerprint64(np.array([["abc", "hello"], ["hello", "abc"]]))
    assert two_d.shape == (2, 2) and two_d[1].tolist() == ref[::-1].tolist()
    assert _hashing.fingerprint64([]).shape == (0,)


def test_fingerprint_cat64_crosses_like_tf_sparse_cross_hashed():
    # The example of tf.keras.layers.HashedCrossing's documentation (num_bins=5).
    f1 = _hashing.fingerprint64(["A", "B", "A", "B", "A"])
    f2 = np.array([101, 101, 101, 102, 102], dtype=np.uint64)
    h = _hashing.fingerprint_cat64(_hashing.fingerprint_cat64(_hashing.DEFAULT_CROSS_HASH_KEY, f1), f2)
    assert (h % np.uint64(5)).tolist() == [1, 4, 1, 1, 3]
    # TF 2.15.1: tf.sparse.cross_hashed([['A'],['B']] x [[1],[2]]) without num_buckets.
    g = _hashing.fingerprint_cat64(
        _hashing.fingerprint_cat64(_hashing.DEFAULT_CROSS_HASH_KEY, _hashing.fingerprint64(["A", "B"])),
        np.array([1, 2], dtype=np.uint64),
    )
    assert (g % np.uint64(2**63 - 1)).tolist() == [3962538379011019115, 4410356116974670966]


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="floating-point"):
        _hashing.fingerprint64(np.array([1.5, 2.0]))
    with pytest.raises(ValueError, match="num_buckets must be a positive integer"):
        _hashing.hash_bucket(["a"], 0)


def test_hash_is_stable_across_processes():
    code = (
        "from torchestimator import _hashing;"
        "print(_hashing.fingerprint64(['abc','hello','x'*70]).tolist())"
    )
    runs = set()
    for seed in ("0", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            # the package as this run imports it (installed, or src/ on PYTHONPATH as on a GPU
            # machine with its own torch build)
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin",
                 "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
        ).stdout.strip()
        runs.add(out)
    assert len(runs) == 1
    assert runs.pop() == str(_hashing.fingerprint64(["abc", "hello", "x" * 70]).tolist())


def test_many_values_vectorized_consistent_with_unique_path():
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" * (i % 40) for i in range(300)], dtype=object)
    data = words[rng.integers(0, 300, size=5000)]
    full = _hashing.fingerprint64(data)
    per_unique = dict(zip(words.tolist(), _hashing.fingerprint64(words).tolist()))
    assert full.tolist() == [per_unique[w] for w in data.tolist()]


def test_strong_keyed_hash_matches_tensorflow():
    strs = ["", "a", "abcdefg", "abcdefgh", "abcdefghi", "x" * 100, "héllo", "12"]
    # tf.strings.to_hash_bucket_strong(strs, 1000003, key=[123, 456]) in TensorFlow 2.15.1.
    expected = [804547, 12304, 993917, 127931, 510228, 800070, 642629, 418770]
    assert _hashing.strong_hash_bucket(strs, 1000003, [123, 456]).tolist() == expected
    assert _hashing.strong_hash_bucket(["Hello", "TensorFlow", "2.x"], 3, [1, 2]).tolist() == [2, 2, 1]
    assert _hashing.strong_hash64(["Hello", "TensorFlow", "2.x"], [1, 2]).tolist()[0] % 2**62 == 3561599031292589466
    assert _hashing.strong_hash_bucket(np.array([12]), 1000003, [123, 456]).tolist() == [418770]
    with pytest.raises(ValueError, match="key must be a list of two integers"):
        _hashing.strong_hash64(["a"], 5)
